#!/usr/bin/env python3
"""Seeds a fuzzing corpus from the textual IR in the repository.

Every .pto file under test/, docs/ and examples/ is split at `// -----`
lines (as pto-opt --split-input-file does) and each chunk is written to
CORPUS_DIR under the hash of its contents, so re-running adds nothing twice.
"""
import hashlib
import os
import re
import sys

SEPARATOR = re.compile(r"^\s*// -----[- \r]*$")


def chunks(text):
    cur = []
    for line in text.splitlines(keepends=True):
        if SEPARATOR.match(line):
            yield "".join(cur)
            cur = []
        else:
            cur.append(line)
    yield "".join(cur)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fuzz-corpus.py CORPUS_DIR")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    added = 0
    for top in ("test", "docs", "examples"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".pto"):
                    continue
                with open(os.path.join(dirpath, name), encoding="utf-8",
                          errors="replace") as f:
                    text = f.read()
                for chunk in chunks(text):
                    data = chunk.encode("utf-8")
                    if not data.strip():
                        continue
                    path = os.path.join(out, hashlib.sha1(data).hexdigest())
                    if not os.path.exists(path):
                        with open(path, "wb") as f:
                            f.write(data)
                        added += 1
    print(f"fuzz-corpus: {added} new seed(s) in {out}")


if __name__ == "__main__":
    main()
