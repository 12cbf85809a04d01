#!/usr/bin/env python3
"""Times tile-expand on the two workloads of the Tile level's contract:
softmax over the rows of a 4096x4096 f32 matrix with 32x32 vec tiles (the
five primitive ops decompose produces) and a 2048x2048x2048 f32 matmul with
128x128x128 cube tiles.

For each workload, --reps times, interleaved:
  pto-opt W.pto --tile-expand -o W.tile.pto        (parse + expand + print)
  pto-opt W.tile.pto -o /dev/null                  (the peer: reading and
                                                    writing the same Tile
                                                    IR, without expanding)
  mlir-opt --allow-unregistered-dialect W.gen.mlir (the same IR in generic
                                                    form, when mlir-opt is
                                                    installed)
It prints the tile ops created (from --pass-statistics), the median wall
time and the peak RSS of each, the ratio tile-expand run / round trip of
its output, and whether tile-expand stays within the targets: under 1 s
and under 300 MB per workload.

Usage: run.py [--reps R] [--pto-opt PATH] [--mlir-opt PATH]
              [--softmax N] [--matmul N] [--keep DIR]
"""

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402

TARGET_S = 1.0
TARGET_MIB = 300.0


def softmax(n):
    t = "tensor<%dx%dxf32>" % (n, n)
    r = "tensor<%dx1xf32>" % n
    v = "vec_tile = [32, 32]"
    return f"""\
func.func @softmax(%x: {t}) -> {t} {{
  %m = pypto.amax %x {{dim = -1 : i64, keepdim, {v}}} : {t} -> {r}
  %s = pypto.sub %x, %m {{{v}}} : {t}, {r} -> {t}
  %e = pypto.exp %s {{{v}}} : {t}
  %t = pypto.sum %e {{dim = -1 : i64, keepdim, {v}}} : {t} -> {r}
  %y = pypto.div %e, %t {{{v}}} : {t}, {r} -> {t}
  func.return %y : {t}
}}
"""


def matmul(n):
    t = "tensor<%dx%dxf32>" % (n, n)
    c = "cube_tile = [[128, 128], [128, 128], [128, 128]]"
    return f"""\
func.func @matmul(%a: {t}, %b: {t}) -> {t} {{
  %c = pypto.matmul %a, %b {{{c}}} : {t}, {t} -> {t}
  func.return %c : {t}
}}
"""


STAT_RE = re.compile(r"\(S\)\s+(\d+)\s+(\S+) - ")


def tile_ops_created(pto_opt, src, work):
    """Sum of tile-expand's per-op-kind statistics, and the largest kinds."""
    out = os.path.join(work, "stats.txt")
    with open(out, "w") as f:
        benchlib.subprocess.run([pto_opt, src, "--tile-expand", "-o", os.devnull,
                                 "--pass-statistics"], stderr=f, check=True)
    counts = {}
    for m in STAT_RE.finditer(open(out).read()):
        if m.group(2) != "tensor-ops" and int(m.group(1)):
            counts[m.group(2)] = int(m.group(1))
    return sum(counts.values()), counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pto-opt", default=None)
    ap.add_argument("--mlir-opt", default=None)
    ap.add_argument("--softmax", type=int, default=4096,
                    help="softmax rows and columns (default 4096)")
    ap.add_argument("--matmul", type=int, default=2048,
                    help="matmul M = N = K (default 2048)")
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    pto_opt = benchlib.resolve(args.pto_opt) or benchlib.find_pto_tool("pto-opt", "PTO_OPT")
    if not pto_opt:
        sys.exit("run.py: pto-opt not found; build it or pass --pto-opt")
    benchlib.warn_if_unoptimised(pto_opt, "run.py")
    mlir_opt = benchlib.resolve(args.mlir_opt) if args.mlir_opt else benchlib.find_mlir_opt()
    work = args.keep or tempfile.mkdtemp(prefix="pto-bench-tile-expand-")
    os.makedirs(work, exist_ok=True)
    floor = benchlib.launcher_floor()

    workloads = [
        ("softmax %dx%d f32, vec tile 32x32" % (args.softmax, args.softmax),
         "softmax", softmax(args.softmax)),
        ("matmul %dx%dx%d f32, cube tile 128x128x128"
         % (args.matmul, args.matmul, args.matmul), "matmul", matmul(args.matmul)),
    ]
    print("tile-expand: pto-opt --tile-expand (parse + expand + print), "
          "median of %d" % args.reps)
    within = True
    for title, name, ir in workloads:
        src = os.path.join(work, name + ".pto")
        tiled = os.path.join(work, name + ".tile.pto")
        generic = os.path.join(work, name + ".gen.mlir")
        with open(src, "w") as f:
            f.write(ir)
        created, kinds = tile_ops_created(pto_opt, src, work)
        benchlib.run_once([pto_opt, src, "--tile-expand", "--print-generic",
                           "-o", generic])
        runs = {"expand": [], "roundtrip": [], "mlir": []}
        rss = {"expand": 0, "roundtrip": 0, "mlir": 0}
        for _ in range(args.reps):
            cmds = [("expand", [pto_opt, src, "--tile-expand", "-o", tiled]),
                    ("roundtrip", [pto_opt, tiled, "-o", os.devnull])]
            if mlir_opt:
                cmds.append(("mlir", [mlir_opt, "--allow-unregistered-dialect",
                                      generic, "-o", os.devnull]))
            for key, cmd in cmds:
                t, r = benchlib.run_once(cmd)
                runs[key].append(t)
                rss[key] = max(rss[key], r, floor)
        t = statistics.median(runs["expand"])
        mib = rss["expand"] / 1024.0
        ok = t < TARGET_S and mib < TARGET_MIB
        within &= ok
        top = ", ".join("%d %s" % (n, k) for k, n in
                        sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[:4])
        print(title)
        print("  tile ops created  %d (%s, ...); output %.1f MB"
              % (created, top, os.path.getsize(tiled) / 1e6))
        print("  tile-expand       %7.3f s, %s peak RSS - %s (target < %.0f s, < %.0f MiB)"
              % (t, benchlib.fmt_mib(rss["expand"]), "ok" if ok else "OVER",
                 TARGET_S, TARGET_MIB))
        rt = statistics.median(runs["roundtrip"])
        print("  round trip of the output (pto-opt)  %7.3f s, %s peak RSS; "
              "tile-expand/round trip %.2fx"
              % (rt, benchlib.fmt_mib(rss["roundtrip"]), t / rt))
        if mlir_opt:
            print("  the output in generic form through mlir-opt  %7.3f s, %s peak RSS"
                  % (statistics.median(runs["mlir"]), benchlib.fmt_mib(rss["mlir"])))
    if not args.keep:
        shutil.rmtree(work)
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
