#!/usr/bin/env python3
"""Times parse + verify + print of a large IR file: pto-opt against mlir-opt.

Generates the input with gen.py (unless --input is given), then runs, in the
same session and interleaved so that machine noise hits all of them alike:

  pto-opt --allow-unregistered-dialect FILE -o OUT                (default form)
  pto-opt --allow-unregistered-dialect --print-generic FILE -o OUT
  mlir-opt --allow-unregistered-dialect FILE -o OUT

Each runs --reps times; the report gives the median wall time, CPU time
(user + system) and peak resident set (the child's ru_maxrss from wait4),
then the ratios "mlir/pto" for time (higher is better for pto) and
"pto/mlir" for memory (lower is better). Before timing, pto-opt's generic
output is fed back to mlir-opt once as a check that both read the same
program.

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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402


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

    pto = benchlib.resolve(a.pto_opt or benchlib.find_pto_tool("pto-opt",
                                                               "PTO_OPT"))
    if not pto:
        sys.exit("run.py: pto-opt not found; build it (see bench/README.md) "
                 "or pass --pto-opt")
    mlir = benchlib.resolve(a.mlir_opt or benchlib.find_mlir_opt())
    if not mlir:
        sys.exit("run.py: mlir-opt not found; install mlir-14-tools "
                 "(scripts/install-deps.sh) or pass --mlir-opt")
    benchlib.warn_if_unoptimised(pto, "run.py")

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
        flag = "--allow-unregistered-dialect"
        out_gen = os.path.join(work, "pto-generic.out.mlir")
        cmds = {
            "pto-opt": [pto, flag, src, "-o",
                        os.path.join(work, "pto.out.mlir")],
            "pto-opt --print-generic": [pto, flag, "--print-generic", src,
                                        "-o", out_gen],
            "mlir-opt": [mlir, flag, src, "-o",
                         os.path.join(work, "mlir.out.mlir")],
        }

        # Untimed check: pto's generic output is a program mlir-opt reads.
        benchlib.run_once(cmds["pto-opt --print-generic"])
        benchlib.run_once([mlir, flag, out_gen, "-o", os.devnull])

        floor = benchlib.launcher_floor()
        times = {k: [] for k in cmds}
        cpus = {k: [] for k in cmds}
        rss = {k: [] for k in cmds}
        for _ in range(a.reps):
            for k, cmd in cmds.items():
                dt, kib = benchlib.run_once(cmd, cpu=cpus[k])
                times[k].append(dt)
                rss[k].append(kib)

        print("ir-roundtrip: %s (%.1f MiB), %d repetitions, medians"
              % (src if a.input else "%d ops" % a.ops, size / 2**20, a.reps))
        print("  pto-opt:  %s" % pto)
        print("  mlir-opt: %s" % mlir)
        med_t = {k: statistics.median(v) for k, v in times.items()}
        med_c = {k: statistics.median(v) for k, v in cpus.items()}
        med_m = {k: statistics.median(v) for k, v in rss.items()}
        for k in cmds:
            note = ""
            if med_m[k] <= floor * 1.05:
                note = " (at the launcher's floor of %s: the real peak is " \
                       "lower; use more --ops)" % benchlib.fmt_mib(floor)
            print("  %-24s %7.3f s wall %7.3f s cpu %10s peak RSS%s"
                  % (k, med_t[k], med_c[k], benchlib.fmt_mib(med_m[k]), note))
        m_t, m_c, m_m = med_t["mlir-opt"], med_c["mlir-opt"], med_m["mlir-opt"]
        for k in ("pto-opt", "pto-opt --print-generic"):
            print("  %-24s time ratio mlir/pto %.2fx (cpu %.2fx), memory "
                  "ratio pto/mlir %.2f"
                  % (k + ":", m_t / med_t[k], m_c / med_c[k], med_m[k] / m_m))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
