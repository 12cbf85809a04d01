#!/usr/bin/env python3
"""Times the whole lowering to the PTO level on two workloads, the sources
of bench/tile-expand: softmax over the rows of a 4096x4096
f32 matrix with 32x32 vec tiles and a 2048x2048x2048 f32 matmul with
128x128x128 cube tiles.

For each workload, --reps times, interleaved:
  pto-opt W.pto --pto-lower-to-pto -o W.pto.out   (Tensor -> PTO: the Block
                                                   pipeline, lower-to-pto,
                                                   memory-plan, insert-sync)
  pto-opt W.pto --pto-lower-to-block -o /dev/null (the peer: the same run
                                                   stopped at the Block
                                                   level)
  pto-opt W.pto.out -o /dev/null                  (reading and writing the
                                                   PTO-level output)
It prints the kernels and launches produced, each kernel's cycle estimate
from pto-kernel-cost, the median wall time, CPU time and peak RSS of each
run (bench/benchlib.py), the ratio of the PTO-level run to the Block-level
one, and whether the softmax stays within the targets: under 1.5 s and
under 400 MiB (exit 1 when it does not, or when a workload fails to lower: the report
then gives the first error).

Usage: run.py [--reps R] [--pto-opt PATH] [--softmax N] [--matmul N]
              [--keep DIR]
"""

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402

TARGET_S = 1.5
TARGET_MIB = 400.0


def _tile_expand_bench():
    """bench/tile-expand/run.py, whose workloads this benchmark lowers
    further: the same softmax and matmul sources."""
    path = os.path.join(os.path.dirname(HERE), "tile-expand", "run.py")
    spec = importlib.util.spec_from_file_location("tile_expand_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


WORKLOADS = _tile_expand_bench()


COST_RE = re.compile(r"remark: @(\S+): (\d+) cycles on '[^']*', bound by (\S+);")


def kernel_costs(pto_opt, out):
    r = subprocess.run([pto_opt, out, "--pto-kernel-cost", "-o", os.devnull],
                       capture_output=True, text=True, check=True)
    return [(m.group(1), int(m.group(2)), m.group(3))
            for m in COST_RE.finditer(r.stderr)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pto-opt", default=None)
    ap.add_argument("--softmax", type=int, default=4096,
                    help="softmax rows and columns (default 4096)")
    ap.add_argument("--matmul", type=int, default=2048,
                    help="matmul M = N = K (default 2048)")
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    pto_opt, work = benchlib.pto_opt_and_workdir(args, "lower-to-pto")

    workloads = [
        ("softmax %dx%d f32, vec tile 32x32" % (args.softmax, args.softmax),
         "softmax", WORKLOADS.softmax(args.softmax), True),
        ("matmul %dx%dx%d f32, cube tile 128x128x128"
         % (args.matmul, args.matmul, args.matmul), "matmul",
         WORKLOADS.matmul(args.matmul), False),
    ]
    print("lower-to-pto: pto-opt --pto-lower-to-pto (Tensor level to planned, "
          "synchronised PTO kernels), median of %d" % args.reps)
    print("no peer lowers this IR to PTO kernels: to-block is our own "
          "pipeline stopped at the Block level, for the PTO passes' share")
    within = True
    for title, name, ir, targeted in workloads:
        src = os.path.join(work, name + ".pto")
        out = os.path.join(work, name + ".pto.out")
        with open(src, "w") as f:
            f.write(ir)
        cmds = {"to-pto": [pto_opt, src, "--pto-lower-to-pto", "-o", out],
                "to-block": [pto_opt, src, "--pto-lower-to-block", "-o",
                             os.devnull],
                "round-trip": [pto_opt, out, "-o", os.devnull]}
        print(title)
        first = subprocess.run(cmds["to-pto"], capture_output=True, text=True)
        if first.returncode != 0:
            err = next((l for l in first.stderr.splitlines() if "error:" in l),
                       first.stderr.strip()[:200])
            print("  to-pto FAILS: %s" % err.split("error: ", 1)[-1])
            within = False
            continue
        med, floor = benchlib.measure(cmds, args.reps)
        text = open(out).read()
        kernels = text.count("pto.kernel ")
        launches = text.count("block.launch ")
        costs = kernel_costs(pto_opt, out)
        print("  kernels %d, launches %d; output %.1f MB"
              % (kernels, launches, os.path.getsize(out) / 1e6))
        for k, cycles, bound in costs[:6]:
            print("  kernel @%s: %d cycles (one core, a2a3), bound by %s"
                  % (k, cycles, bound))
        if len(costs) > 6:
            print("  ... %d more kernels" % (len(costs) - 6))
        benchlib.print_row("to-pto", med["to-pto"], floor, 10)
        benchlib.print_row("to-block", med["to-block"], floor, 10)
        benchlib.print_row("round-trip", med["round-trip"], floor, 10)
        t, _, kib = med["to-pto"]
        print("  to-pto / to-block %.2fx (the PTO passes' share of the run)"
              % (t / med["to-block"][0]))
        if targeted:
            ok = t < TARGET_S and kib / 1024.0 < TARGET_MIB
            within &= ok
            print("  to-pto %s the targets (< %.1f s, < %.0f MiB)"
                  % ("meets" if ok else "MISSES", TARGET_S, TARGET_MIB))
    if not args.keep:
        shutil.rmtree(work)
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
