"""Runs every example of examples/*.pto that lowers to PTO through the
interpreter and through the compiled path (pto-run --backend host), and
checks that the compiled results match the interpreter's within pto-run's
default tolerance. Prints one line per example and a count.

usage: check-backends.py SRC_ROOT WORKDIR (pto-opt and pto-run on PATH)"""
import glob
import os
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    src, work = sys.argv[1:3]
    opt, prun = "pto-opt", "pto-run"
    os.makedirs(work, exist_ok=True)
    ok = bad = 0
    for path in sorted(glob.glob(os.path.join(src, "examples", "*.pto"))):
        name = os.path.basename(path)
        if run([opt, path, "--pto-lower-to-pto", "-o", os.devnull]).returncode:
            continue  # not lowered to PTO yet: the interpreter's alone
        ref = os.path.join(work, name + ".ref")
        r = run([prun, path, "--random", "7", "--out-dir", ref, "--quiet"])
        outs = sorted(glob.glob(os.path.join(ref, "out*.npy")))
        cmd = [prun, path, "--random", "7", "--backend", "host", "--quiet"]
        for o in outs:
            cmd += ["--expect", o]
        h = run(cmd)
        if r.returncode or h.returncode or not outs:
            bad += 1
            print("%s: FAILED\n%s%s" % (name, r.stderr, h.stderr))
        else:
            ok += 1
            print("%s: host matches the interpreter (%d outputs)" % (name, len(outs)))
    print("%d examples agree, %d differ" % (ok, bad))
    return 1 if bad else 0


sys.exit(main())
