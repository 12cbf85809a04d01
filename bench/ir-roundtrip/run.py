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
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    benchlib.add_common_args(ap)
    ap.add_argument("--input", default=None,
                    help="use this file instead of generating one")
    a = ap.parse_args()
    pto, mlir = benchlib.find_tools(a)

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

        med, floor = benchlib.measure(cmds, a.reps)

        print("ir-roundtrip: %s (%.1f MiB), %d repetitions, medians"
              % (src if a.input else "%d ops" % a.ops, size / 2**20, a.reps))
        print("  pto-opt:  %s" % pto)
        print("  mlir-opt: %s" % mlir)
        for k in cmds:
            benchlib.print_row(k, med[k], floor, width=24)
        m_t, m_c, m_m = med["mlir-opt"]
        for k in ("pto-opt", "pto-opt --print-generic"):
            t, c, m = med[k]
            print("  %-24s time ratio mlir/pto %.2fx (cpu %.2fx), memory "
                  "ratio pto/mlir %.2f" % (k + ":", m_t / t, m_c / c, m / m_m))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
