#!/usr/bin/env python3
"""Times CSE + canonicalize on a large arithmetic program: pto-opt against
mlir-opt (MLIR 14), in the same session.

gen.py writes the same program twice, in PTO's spelling and in MLIR 14's
(unless --input/--input-mlir give files). Interleaved, --reps times each:

  pto-opt  --pass-pipeline='builtin.module(func.func(cse,canonicalize))' IN -o OUT
  mlir-opt --pass-pipeline='builtin.func(cse,canonicalize)' IN -o OUT

The report gives the median wall time, CPU time (user + system, summed
over threads: mlir-opt runs function passes on several threads) and peak
resident set (the child's ru_maxrss from wait4) of each, the time ratio
mlir/pto (how many times faster pto-opt is) and the memory ratio pto/mlir,
and checks
that both removed the same ops: it counts the ops of each kind in the
input and in both outputs and fails (exit 1) when they differ.

Usage: run.py [--ops N] [--reps R] [--seed S] [--pto-opt PATH]
              [--mlir-opt PATH] [--keep DIR]
"""

import argparse
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402

PTO_PIPELINE = "builtin.module(func.func(cse,canonicalize))"
MLIR_PIPELINE = "builtin.func(cse,canonicalize)"
OP_RE = re.compile(r"^\s*(?:%\S+ = )?(arith\.[a-z]+|func\.return|return)\b",
                   re.M)


def count_ops(path):
    """Ops by kind ('return' and 'func.return' are the same kind)."""
    with open(path) as f:
        text = f.read()
    c = collections.Counter(m.group(1) for m in OP_RE.finditer(text))
    c["return"] += c.pop("func.return", 0)
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=200000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pto-opt", default=None)
    ap.add_argument("--mlir-opt", default=None)
    ap.add_argument("--keep", default=None,
                    help="write the inputs and outputs to this directory")
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
        src_pto = os.path.join(work, "input.pto")
        src_mlir = os.path.join(work, "input.mlir")
        gen = [sys.executable, os.path.join(HERE, "gen.py"), "--ops",
               str(a.ops), "--seed", str(a.seed)]
        subprocess.run(gen + ["-o", src_pto], check=True,
                       stderr=subprocess.DEVNULL)
        subprocess.run(gen + ["--mlir14", "-o", src_mlir], check=True,
                       stderr=subprocess.DEVNULL)
        out_pto = os.path.join(work, "pto.out.pto")
        out_mlir = os.path.join(work, "mlir.out.mlir")
        cmds = {
            "pto-opt": [pto, "--pass-pipeline=" + PTO_PIPELINE, src_pto,
                        "-o", out_pto],
            "mlir-opt": [mlir, "--pass-pipeline=" + MLIR_PIPELINE, src_mlir,
                         "-o", out_mlir],
        }
        floor = benchlib.launcher_floor()
        times = {k: [] for k in cmds}
        cpus = {k: [] for k in cmds}
        rss = {k: [] for k in cmds}
        for _ in range(a.reps):
            for k, cmd in cmds.items():
                dt, kib = benchlib.run_once(cmd, cpu=cpus[k])
                times[k].append(dt)
                rss[k].append(kib)

        n_in = count_ops(src_pto)
        n_mlir_in = count_ops(src_mlir)
        n_pto, n_mlir = count_ops(out_pto), count_ops(out_mlir)
        total_in = sum(n_in.values())
        print("cse-canonicalize: %d ops in, %d repetitions, medians"
              % (total_in, a.reps))
        print("  pto-opt:  %s --pass-pipeline='%s'" % (pto, PTO_PIPELINE))
        print("  mlir-opt: %s --pass-pipeline='%s'" % (mlir, MLIR_PIPELINE))
        med_t = {k: statistics.median(v) for k, v in times.items()}
        med_c = {k: statistics.median(v) for k, v in cpus.items()}
        med_m = {k: statistics.median(v) for k, v in rss.items()}
        for k in cmds:
            note = ""
            if med_m[k] <= floor * 1.05:
                note = " (at the launcher's floor of %s)" % benchlib.fmt_mib(floor)
            print("  %-9s %8.3f s wall  %8.3f s cpu  %10s peak RSS%s"
                  % (k, med_t[k], med_c[k], benchlib.fmt_mib(med_m[k]), note))
        print("  time ratio mlir/pto %.2fx (cpu %.2fx), memory ratio "
              "pto/mlir %.2f"
              % (med_t["mlir-opt"] / med_t["pto-opt"],
                 med_c["mlir-opt"] / med_c["pto-opt"],
                 med_m["pto-opt"] / med_m["mlir-opt"]))
        removed_pto = total_in - sum(n_pto.values())
        removed_mlir = sum(n_mlir_in.values()) - sum(n_mlir.values())
        print("  ops removed: pto-opt %d, mlir-opt %d (of %d)"
              % (removed_pto, removed_mlir, total_in))
        if n_in != n_mlir_in or n_pto != n_mlir:
            print("  MISMATCH: the tools do not leave the same ops:")
            for kind in sorted(set(n_pto) | set(n_mlir) | set(n_in)):
                print("    %-12s in %7d  pto-opt %7d  mlir-opt %7d"
                      % (kind, n_in[kind], n_pto[kind], n_mlir[kind]))
            sys.exit(1)
        print("  same ops left by both: %s" % ", ".join(
            "%s %d" % (k, n_pto[k]) for k in sorted(n_pto)))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
