"""Checks that a documentation page quotes files verbatim.

usage: check-doc-example.py PAGE.md FILE...

Each file (an example, or the output a test just produced from it) must
appear as the whole body of one fenced code block of the page, so that the
page shows exactly what the lit tests run and what comes out."""
import re
import sys


def main():
    page_path = sys.argv[1]
    page = open(page_path, encoding="utf-8").read()
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", page, re.S | re.M)
    status = 0
    for path in sys.argv[2:]:
        text = open(path, encoding="utf-8").read()
        if text not in blocks:
            sys.stderr.write("%s: no code block quotes %s verbatim; copy it "
                             "into the page again\n" % (page_path, path))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
