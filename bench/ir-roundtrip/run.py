#!/usr/bin/env python3
"""Times parse + verify + print of a large IR file: pto-opt against mlir-opt.

Generates the input with gen.py (unless --input is given), then runs, in the
same session and interleaved so that machine noise hits all of them alike:

  pto-opt --allow-unregistered-dialect FILE -o OUT                (default form)
  pto-opt --allow-unregistered-dialect --print-generic FILE -o OUT
  mlir-opt --allow-unregistered-dialect FILE -o OUT

Each runs --reps times; the report gives the median wall time and the median
peak resident set (the child's ru_maxrss from wait4), then the ratios
"mlir/pto" for time (higher is better for pto) and "pto/mlir" for memory
(lower is better). Before timing, pto-opt's generic output is fed back to
mlir-opt once as a check that both read the same program.

Usage: run.py [--ops N] [--reps R] [--pto-opt PATH] [--mlir-opt PATH]
              [--input FILE] [--keep DIR]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def find_pto_opt():
    env = os.environ.get("PTO_OPT")
    if env:
        return env
    # Prefer an optimised build; a Debug build's numbers mean little.
    for d in ("build-release", "build-rel", "build"):
        p = os.path.join(ROOT, d, "bin", "pto-opt")
        if os.access(p, os.X_OK):
            return p
    return shutil.which("pto-opt")


def find_mlir_opt():
    for name in ("mlir-opt-14", "mlir-opt"):
        p = shutil.which(name)
        if p:
            return p
    return None


def build_type(pto_opt):
    """CMAKE_BUILD_TYPE of the build tree holding pto_opt, if known."""
    cache = os.path.join(os.path.dirname(os.path.dirname(pto_opt)),
                         "CMakeCache.txt")
    try:
        with open(cache) as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def run_once(cmd):
    """Runs cmd; returns (seconds, peak RSS in KiB). Fails loudly.

    ru_maxrss of a child also covers the moments between fork and exec,
    when it is still a copy of this Python process: peaks below that floor
    (see launcher_floor) read as the floor."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    # wait4 gives this child's own rusage, not the sum over all children.
    _, status, ru = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    if code != 0:
        sys.exit("run.py: '%s' failed (exit %d):\n%s"
                 % (" ".join(cmd), code, err[:2000]))
    return dt, ru.ru_maxrss


def launcher_floor():
    return max(run_once(["true"])[1] for _ in range(3))


def fmt_mib(kib):
    return "%.1f MiB" % (kib / 1024.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=200000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pto-opt", default=None)
    ap.add_argument("--mlir-opt", default=None)
    ap.add_argument("--input", default=None,
                    help="use this file instead of generating one")
    ap.add_argument("--keep", default=None,
                    help="write the input and outputs to this directory")
    a = ap.parse_args()

    pto = a.pto_opt or find_pto_opt()
    if pto and os.sep not in pto:
        pto = shutil.which(pto)
    if not pto:
        sys.exit("run.py: pto-opt not found; build it (see bench/README.md) "
                 "or pass --pto-opt")
    mlir = a.mlir_opt or find_mlir_opt()
    if not mlir:
        sys.exit("run.py: mlir-opt not found; install mlir-14-tools "
                 "(scripts/install-deps.sh) or pass --mlir-opt")
    bt = build_type(pto)
    if bt and bt not in ("Release", "RelWithDebInfo", "MinSizeRel"):
        print("run.py: warning: %s is a %s build; use a Release build for "
              "meaningful numbers" % (pto, bt), file=sys.stderr)

    work = a.keep or tempfile.mkdtemp(prefix="pto-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        if a.input:
            src = a.input
        else:
            src = os.path.join(work, "input.mlir")
            subprocess.run([sys.executable, os.path.join(HERE, "gen.py"),
                            "--ops", str(a.ops), "--seed", str(a.seed),
                            "-o", src], check=True)
        size = os.path.getsize(src)
        out_pto = os.path.join(work, "pto.out.mlir")
        out_gen = os.path.join(work, "pto-generic.out.mlir")
        out_mlir = os.path.join(work, "mlir.out.mlir")
        flag = "--allow-unregistered-dialect"
        cmds = {
            "pto-opt": [pto, flag, src, "-o", out_pto],
            "pto-opt --print-generic": [pto, flag, "--print-generic", src,
                                        "-o", out_gen],
            "mlir-opt": [mlir, flag, src, "-o", out_mlir],
        }

        # Untimed check: pto's generic output is a program mlir-opt reads.
        run_once(cmds["pto-opt --print-generic"])
        run_once([mlir, flag, out_gen, "-o", os.devnull])

        floor = launcher_floor()
        times = {k: [] for k in cmds}
        rss = {k: [] for k in cmds}
        for _ in range(a.reps):
            for k, cmd in cmds.items():
                dt, kib = run_once(cmd)
                times[k].append(dt)
                rss[k].append(kib)

        print("ir-roundtrip: %s (%.1f MiB), %d repetitions, medians"
              % (src if a.input else "%d ops" % a.ops, size / 2**20, a.reps))
        print("  pto-opt:  %s" % pto)
        print("  mlir-opt: %s" % mlir)
        med_t = {k: statistics.median(v) for k, v in times.items()}
        med_m = {k: statistics.median(v) for k, v in rss.items()}
        for k in cmds:
            note = ""
            if med_m[k] <= floor * 1.05:
                note = " (at the launcher's floor of %s: the real peak is " \
                       "lower; use more --ops)" % fmt_mib(floor)
            print("  %-26s %8.3f s  %10s peak RSS%s"
                  % (k, med_t[k], fmt_mib(med_m[k]), note))
        m_t, m_m = med_t["mlir-opt"], med_m["mlir-opt"]
        for k in ("pto-opt", "pto-opt --print-generic"):
            print("  %-26s time ratio mlir/pto %.2fx, memory ratio pto/mlir %.2f"
                  % (k + ":", m_t / med_t[k], med_m[k] / m_m))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
