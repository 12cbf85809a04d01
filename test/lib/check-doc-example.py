"""Checks that a documentation page quotes an example file verbatim.

usage: check-doc-example.py PAGE.md EXAMPLE.pto

The example must appear as the whole body of one fenced code block of the
page, so that the page shows exactly what the lit tests run."""
import re
import sys


def main():
    page_path, example_path = sys.argv[1], sys.argv[2]
    page = open(page_path, encoding="utf-8").read()
    example = open(example_path, encoding="utf-8").read()
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", page, re.S | re.M)
    if example in blocks:
        return 0
    sys.stderr.write("%s: no code block quotes %s verbatim; copy the file "
                     "into the page again\n" % (page_path, example_path))
    return 1


if __name__ == "__main__":
    sys.exit(main())
