#!/usr/bin/env python3
"""Mutation test of the hazard checker (lit: pto-verify-hazards-mutations.test).

usage: hazard-mutations.py PTO_OPT FILE|DIR [PIPELINE_FLAGS...]

Runs FILE (or every .pto file of DIR, each on its own) through PTO_OPT
with the pipeline flags (which must end with insert-sync), checks that
pto-verify-hazards accepts the result, then
deletes each set_flag / wait_flag pair in turn (a set_flag and the first
wait_flag after it with the same pipes and event, in the same kernel) and
checks that pto-verify-hazards rejects every mutant with an
"unsynchronised" error. Prints one line per mutant and a summary.
"""
import glob
import os
import re
import subprocess
import sys

FLAG = re.compile(r"pto\.(set_flag|wait_flag)\s+(\w+)\s*->\s*(\w+),\s*(\d+)")


def run(tool, args, text):
    return subprocess.run([tool, "-"] + args, input=text.encode(),
                          capture_output=True)


def main():
    tool, path, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not os.path.isdir(path):
        return mutate(tool, path, flags)
    files = sorted(glob.glob(os.path.join(path, "*.pto")))
    failed = 0
    for f in files:
        print("== %s" % os.path.basename(f))
        failed += mutate(tool, f, flags)
    print("%d files, %d failed" % (len(files), failed))
    return 1 if failed or not files else 0


def mutate(tool, path, flags):
    r = subprocess.run([tool, path] + flags, capture_output=True)
    if r.returncode != 0:
        sys.stdout.write(r.stderr.decode())
        print("mutations: the pipeline failed")
        return 1
    lines = r.stdout.decode().splitlines(keepends=True)
    check = run(tool, ["--pto-verify-hazards"], "".join(lines))
    if check.returncode != 0:
        sys.stdout.write(check.stderr.decode())
        print("mutations: the synchronised kernels are not clean")
        return 1
    pairs = []
    for i, line in enumerate(lines):
        m = FLAG.search(line)
        if not m or m.group(1) != "set_flag":
            continue
        for j in range(i + 1, len(lines)):
            if "pto.kernel" in lines[j]:
                break
            n = FLAG.search(lines[j])
            if n and n.group(1) == "wait_flag" and n.groups()[1:] == m.groups()[1:]:
                pairs.append((i, j, "%s -> %s, %s" % m.groups()[1:]))
                break
    reported = 0
    for k, (i, j, what) in enumerate(pairs):
        mutant = "".join(l for n, l in enumerate(lines) if n not in (i, j))
        res = run(tool, ["--pto-verify-hazards"], mutant)
        err = res.stderr.decode()
        ok = res.returncode == 1 and "unsynchronised" in err
        reported += ok
        first = next((l for l in err.splitlines() if "error:" in l), "")
        print("mutant %d (%s at line %d): %s %s" %
              (k, what, i + 1, "reported" if ok else "MISSED",
               first.split("error: ", 1)[-1]))
    print("mutations: %d flag pairs deleted, %d reported" %
          (len(pairs), reported))
    return 0 if reported == len(pairs) and pairs else 1


if __name__ == "__main__":
    sys.exit(main())
