#!/usr/bin/env python3
"""Round-trip check of a textual IR test file (lit substitution %roundtrip).

usage: roundtrip.py TOOL [TOOL FLAGS...] FILE

For the custom and the generic form, each with and without debug info,
printing the file and printing that output again must give the same text
(print -> parse -> print is a fixed point), and the custom form's output
must print in generic form exactly as the file itself does (both forms
describe identical IR, locations aside). Differences are shown as unified diffs; the exit
status is 1 on any difference or tool failure.

test/lib/mlir-opt-compat.py finds round-trip files by their use of
%roundtrip and feeds their generic form to mlir-opt.
"""
import difflib
import subprocess
import sys


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(f"roundtrip: command failed ({p.returncode}): "
                         f"{' '.join(cmd)}\n{p.stderr}")
        sys.exit(1)
    return p.stdout


def same(what, a, b):
    if a == b:
        return True
    sys.stderr.write(f"roundtrip: {what}\n")
    sys.stderr.writelines(difflib.unified_diff(
        a.splitlines(True), b.splitlines(True), "first", "second"))
    return False


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: roundtrip.py TOOL [FLAGS...] FILE")
    tool, flags, path = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
    ok = True
    for debug in ([], ["--print-debuginfo"]):
        custom = run([tool, *flags, *debug, path])
        generic = run([tool, *flags, *debug, "--print-generic", path])
        tag = " with --print-debuginfo" if debug else ""
        ok &= same("custom form is not a fixed point" + tag, custom,
                   run([tool, *flags, *debug, "-"], custom))
        ok &= same("generic form is not a fixed point" + tag, generic,
                   run([tool, *flags, *debug, "--print-generic", "-"], generic))
        # Custom forms may leave out locations of what their syntax implies
        # (arguments declared by the op, elided terminators), as in MLIR:
        # the forms must agree on everything else.
        if not debug:
            ok &= same("custom and generic forms describe different IR",
                       generic,
                       run([tool, *flags, "--print-generic", "-"], custom))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
