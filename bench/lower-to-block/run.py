#!/usr/bin/env python3
"""Times the named pipeline --pto-lower-to-block (decompose, tile-expand,
cv-partition and the Block-level passes that are registered, canonicalize,
cse) on softmax over the rows of a 4096x4096 f32 matrix with 32x32 vec
tiles, from the Tensor level to the Block level.

--reps times, interleaved:
  pto-opt W.pto --pto-lower-to-block -o W.block.pto  (the whole pipeline)
  pto-opt W.pto --pto-lower-to-tile -o /dev/null     (the Tile level alone,
                                                      for the share of the
                                                      Block-level passes)
There is no peer that lowers this IR to kernels (mlir-opt knows none of
its dialects), so the report says so and compares with our own Tile-level
pipeline only. It prints the tile ops, kernels and launches (from
--pass-statistics and the output), the median wall time, CPU time and peak
RSS (bench/benchlib.py), and whether the pipeline stays within the
targets: under 1 s and under 300 MiB (exit 1 when it does not).

Usage: run.py [--reps R] [--pto-opt PATH] [--softmax N] [--keep DIR]
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402

TARGET_S = 1.0
TARGET_MIB = 300.0


def softmax(n):
    t = "tensor<%dx%dxf32>" % (n, n)
    v = "vec_tile = [32, 32]"
    return f"""\
func.func @softmax(%x: {t}) -> {t} {{
  %y = pypto.softmax %x {{dim = -1 : i64, {v}}} : {t}
  func.return %y : {t}
}}
"""


STAT_RE = re.compile(r"\(S\)\s+(\d+)\s+(\S+) - ")


def statistics(pto_opt, src, work):
    """cv-partition's statistics: tile ops, kernels, launches."""
    out = os.path.join(work, "stats.txt")
    with open(out, "w") as f:
        benchlib.subprocess.run([pto_opt, src, "--pto-lower-to-block", "-o",
                                 os.devnull, "--pass-statistics"], stderr=f,
                                check=True)
    text = open(out).read()
    part = text[text.index("cv-partition"):]
    stats = {}
    for m in STAT_RE.finditer(part):
        stats.setdefault(m.group(2), int(m.group(1)))
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pto-opt", default=None)
    ap.add_argument("--softmax", type=int, default=4096,
                    help="softmax rows and columns (default 4096)")
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    pto_opt = benchlib.resolve(args.pto_opt) or benchlib.find_pto_tool("pto-opt", "PTO_OPT")
    if not pto_opt:
        sys.exit("run.py: pto-opt not found; build it or pass --pto-opt")
    benchlib.warn_if_unoptimised(pto_opt, "run.py")
    work = args.keep or tempfile.mkdtemp(prefix="pto-bench-lower-to-block-")
    os.makedirs(work, exist_ok=True)

    n = args.softmax
    src = os.path.join(work, "softmax.pto")
    out = os.path.join(work, "softmax.block.pto")
    with open(src, "w") as f:
        f.write(softmax(n))
    stats = statistics(pto_opt, src, work)
    cmds = {"lower-to-block": [pto_opt, src, "--pto-lower-to-block", "-o", out],
            "lower-to-tile": [pto_opt, src, "--pto-lower-to-tile", "-o", os.devnull]}
    med, floor = benchlib.measure(cmds, args.reps)
    text = open(out).read()
    kernels = len(re.findall(r"^\s*block\.kernel ", text, re.M))
    launches = len(re.findall(r"^\s*block\.launch ", text, re.M))
    t, _, kib = med["lower-to-block"]
    ok = t < TARGET_S and kib / 1024.0 < TARGET_MIB
    print("lower-to-block: pto-opt --pto-lower-to-block (parse + pipeline + "
          "print), median of %d" % args.reps)
    print("softmax %dx%d f32, vec tile 32x32" % (n, n))
    print("  tile ops placed in kernels %d; kernels %d, launches %d; output "
          "%.1f MB" % (stats.get("tile-ops", 0), kernels, launches,
                       os.path.getsize(out) / 1e6))
    benchlib.print_row("lower-to-block", med["lower-to-block"], floor, 14)
    print("  lower-to-block %s the targets (< %.0f s, < %.0f MiB)"
          % ("meets" if ok else "MISSES", TARGET_S, TARGET_MIB))
    print("  no peer lowers this IR to kernels: compared with our own "
          "Tile-level pipeline only")
    benchlib.print_row("lower-to-tile", med["lower-to-tile"], floor, 14)
    print("  lower-to-block / lower-to-tile %.2fx"
          % (t / med["lower-to-tile"][0]))
    if not args.keep:
        shutil.rmtree(work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
