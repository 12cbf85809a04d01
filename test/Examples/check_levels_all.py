#!/usr/bin/env python3
"""Runs `pto-run --check-levels` on every bundled example (every .pto file
of the directory given), once per command line the example documents in
its header (`//   pto-run examples/NAME.pto ARGS`), or with `--random 1`
when it documents none. Prints each run that fails with pto-run's output
and a summary; exits 1 when any run fails. pto-run must be on PATH."""
import glob
import os
import re
import shlex
import subprocess
import sys


def main():
    root = sys.argv[1]
    runs = failed = 0
    files = sorted(glob.glob(os.path.join(root, "*.pto")))
    for path in files:
        name = os.path.basename(path)
        text = open(path).read()
        lines = re.findall(r"^//\s+pto-run examples/%s(.*)$" % re.escape(name),
                           text, re.M) or [" --random 1"]
        for args in lines:
            cmd = ["pto-run", path, "--check-levels", "--quiet"] + shlex.split(args)
            r = subprocess.run(cmd, capture_output=True, text=True)
            runs += 1
            if r.returncode != 0 or "MISMATCH" in r.stdout:
                failed += 1
                print("FAILED: %s" % " ".join(cmd[1:]))
                print(r.stdout + r.stderr)
    print("%d examples, %d runs with --check-levels: %d failed"
          % (len(files), runs, failed))
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
