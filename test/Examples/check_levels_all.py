#!/usr/bin/env python3
"""Runs `pto-run --check-levels` on every bundled example (every .pto file
of the directory given), once per command line the example documents in
its header (`//   pto-run examples/NAME.pto ARGS`), or with `--random 1`
when it documents none: with the default chain of lowerings, and through
the whole pipeline to planned, synchronised PTO kernels on each platform,
where the PTO level's tiles must be traced and agree. Prints each run that
fails with pto-run's output and a summary; exits 1 when any run fails.
pto-run must be on PATH."""
import glob
import os
import re
import shlex
import subprocess
import sys


PLATFORMS = ["a2a3", "a3"]
PIPELINE = ("pto-lower-to-block,lower-to-pto{platform=%s},memory-plan{platform=%s},"
            "insert-sync{platform=%s}")


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
            for platform in [None] + PLATFORMS:
                argv = shlex.split(args)
                if platform:
                    # the example's own passes first, then the whole pipeline
                    own = [a for a in argv if a.startswith("--pass-pipeline=")]
                    argv = [a for a in argv if a not in own]
                    pipeline = ",".join([a.split("=", 1)[1] for a in own] +
                                        [PIPELINE % ((platform,) * 3)])
                    argv += ["--platform", platform, "--pass-pipeline=" + pipeline]
                cmd = ["pto-run", path, "--check-levels", "--quiet"] + argv
                r = subprocess.run(cmd, capture_output=True, text=True)
                runs += 1
                traced = re.search(r"^PTO level: [1-9][0-9]* tiles compared .* all "
                                   r"within tolerance$", r.stdout, re.M)
                if r.returncode != 0 or "MISMATCH" in r.stdout or not traced:
                    failed += 1
                    print("FAILED: %s" % " ".join(cmd[1:]))
                    print(r.stdout + r.stderr)
    print("%d examples, %d runs with --check-levels: %d failed"
          % (len(files), runs, failed))
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
