#!/usr/bin/env python3
"""Runs the examples of the documentation (lit test docs/examples.test).

usage: doc-examples.py TOOL DOCS_DIR

Fenced code blocks in DOCS_DIR/**/*.md whose info string starts with one of
these words are run through TOOL (pto-test-opt); the other words of the
info string are TOOL's flags for that example:

  ```pto [FLAGS]         must succeed, and printing its output again (with
                         the printing flags among FLAGS) must give the same
                         text; not checked with --verify-diagnostics
  ```pto-error [FLAGS]   must fail; when the next block is ```text, that is
                         exactly what TOOL reports on stderr, the example
                         being named `example.pto`
  ```pto-output [FLAGS]  exactly what TOOL prints for the previous ```pto
                         example, run with that example's flags and these

Prints one line per example and a summary; exits 1 if any example fails.
"""
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)(.*)$")
# The flags kept when the output of an example is read back (passes are
# not run again).
PRINT_FLAGS = {"--allow-unregistered-dialect", "--print-generic",
               "--print-debuginfo", "--split-input-file"}


def blocks(path):
    """(kind, flags, text, line) of each fenced block."""
    out, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line.rstrip("\n"))
            if cur is None and m:
                cur = (m.group(1), m.group(2).split(), [], n)
            elif cur is not None and line.rstrip("\n") == "```":
                out.append((cur[0], cur[1], "".join(cur[2]), cur[3]))
                cur = None
            elif cur is not None:
                cur[2].append(line)
    return out


def run(tool, flags, text, workdir):
    path = os.path.join(workdir, "example.pto")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    p = subprocess.run([tool, *flags, "example.pto"], cwd=workdir,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def check_file(tool, path, workdir, results):
    bs = blocks(path)
    last_ok = None  # (flags, text) of the last successful ```pto example
    for i, (kind, flags, text, line) in enumerate(bs):
        where = f"{path}:{line}"
        if kind == "pto":
            rc, out, err = run(tool, flags, text, workdir)
            ok = rc == 0
            print_flags = [f for f in flags if f in PRINT_FLAGS]
            if ok and "--verify-diagnostics" not in flags:
                rc2, again, err2 = run(tool, print_flags, out, workdir)
                ok = rc2 == 0 and again == out
                if not ok:
                    err = err2 or f"not a fixed point:\n{out}---\n{again}"
            results.append((where, ok, err))
            last_ok = (flags, text) if ok else None
        elif kind == "pto-error":
            rc, out, err = run(tool, flags, text, workdir)
            ok, why = rc == 1 and out == "", err
            if ok and i + 1 < len(bs) and bs[i + 1][0] == "text":
                expected = bs[i + 1][2]
                ok = err == expected
                why = f"expected:\n{expected}got:\n{err}"
            elif rc != 1 or out:
                why = f"expected a failure with no output, got status {rc}:\n{out}"
            results.append((where, ok, why))
        elif kind == "pto-output":
            if last_ok is None:
                results.append((where, False, "no successful ```pto example before"))
                continue
            rc, out, err = run(tool, last_ok[0] + flags, last_ok[1], workdir)
            ok = rc == 0 and out == text
            results.append((where, ok, f"expected:\n{text}got:\n{out}{err}"))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: doc-examples.py TOOL DOCS_DIR")
    tool, docs = sys.argv[1:]
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        for dirpath, _, files in sorted(os.walk(docs)):
            for name in sorted(files):
                if name.endswith(".md"):
                    check_file(tool, os.path.join(dirpath, name), workdir, results)
    failed = [r for r in results if not r[1]]
    for where, ok, why in results:
        print(f"{'ok  ' if ok else 'FAIL'} {os.path.relpath(where, docs)}")
    for where, _, why in failed:
        sys.stderr.write(f"{where}: example failed:\n{why}\n")
    print(f"doc-examples: {len(results)} examples, {len(failed)} failed")
    sys.exit(1 if failed or not results else 0)


if __name__ == "__main__":
    main()
