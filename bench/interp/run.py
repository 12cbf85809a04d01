#!/usr/bin/env python3
"""Times the reference interpreter against numpy on the same inputs, in the
same session: softmax over the rows of a 1024x1024 f32 matrix (as the one
composite op, and as the five primitive ops it decomposes into) and a
256x256x256 f32 matmul.

For each workload, --reps times, interleaved:
  pto-run W.pto --input IN.npy ... --stats      (the interpreter's own time
                                                 for the function and its
                                                 peak RSS, from --stats;
                                                 the process's wall time)
  python3 -c "<numpy expression>"               (best time of the expression
                                                 in a fresh process; its
                                                 wall time and peak RSS)
Peak RSS is each process's VmHWM: wait4's ru_maxrss would also count the
moments after fork when the child is still a copy of this Python process.
The report gives the best time of each, the ratio interpreter/numpy (how
many times slower the interpreter is; no target: the interpreter computes
in double and rounds every result, numpy computes in f32 with SIMD
kernels and BLAS) and the peak RSS. The interpreter's results are checked
against numpy's with --expect in the same run.

numpy runs without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, which this
machine may set for old OpenBLAS builds and which slow a current numpy.

Usage: run.py [--reps R] [--pto-run PATH] [--keep DIR]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import benchlib  # noqa: E402

import numpy as np  # noqa: E402

SOFTMAX = """\
func.func @softmax(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %y = pypto.softmax %x {dim = -1 : i64} : tensor<1024x1024xf32>
  func.return %y : tensor<1024x1024xf32>
}
"""

SOFTMAX5 = """\
func.func @softmax(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %m = pypto.amax %x {dim = -1 : i64, keepdim} : tensor<1024x1024xf32> -> tensor<1024x1xf32>
  %s = pypto.sub %x, %m : tensor<1024x1024xf32>, tensor<1024x1xf32> -> tensor<1024x1024xf32>
  %e = pypto.exp %s : tensor<1024x1024xf32>
  %t = pypto.sum %e {dim = -1 : i64, keepdim} : tensor<1024x1024xf32> -> tensor<1024x1xf32>
  %y = pypto.div %e, %t : tensor<1024x1024xf32>, tensor<1024x1xf32> -> tensor<1024x1024xf32>
  func.return %y : tensor<1024x1024xf32>
}
"""

MATMUL = """\
func.func @matmul(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %c = pypto.matmul %a, %b : tensor<256x256xf32>, tensor<256x256xf32> -> tensor<256x256xf32>
  func.return %c : tensor<256x256xf32>
}
"""

NP_SOFTMAX = ("e = np.exp(x0 - x0.max(axis=-1, keepdims=True)); "
              "y = e / e.sum(axis=-1, keepdims=True)")
NP_MATMUL = "y = x0 @ x1"

# name, IR, input shapes, numpy statement
WORKLOADS = [
    ("softmax 1024x1024 f32 (composite)", SOFTMAX, [(1024, 1024)], NP_SOFTMAX),
    ("softmax 1024x1024 f32 (5 ops)", SOFTMAX5, [(1024, 1024)], NP_SOFTMAX),
    ("matmul 256x256x256 f32", MATMUL, [(256, 256), (256, 256)], NP_MATMUL),
]

# Runs in a fresh process: loads the inputs, times the statement, saves y.
NUMPY_PEER = """\
import sys, time
import numpy as np
d, n, reps, stmt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
env = {"np": np}
for i in range(n):
    env["x%d" % i] = np.load("%s/in%d.npy" % (d, i))
best = float("inf")
for _ in range(reps):
    t0 = time.perf_counter()
    exec(stmt, env)
    best = min(best, time.perf_counter() - t0)
np.save("%s/expect.npy" % d, env["y"])
rss = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmHWM:"):
            rss = int(line.split()[1])
print(best, rss)
"""

STATS_RE = re.compile(r"executed (\d+) ops in ([0-9.]+) ms(?:; peak RSS ([0-9.]+) MiB)?")


def run_measured(cmd, env=None):
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    proc.stdout.close()
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("run.py: '%s' failed (exit %d):\n%s" % (" ".join(cmd), code, err[:2000]))
    return out, err, dt, ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pto-run", default=None)
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    pto_run = benchlib.resolve(args.pto_run) or benchlib.find_pto_tool("pto-run", "PTO_RUN")
    if not pto_run:
        sys.exit("run.py: pto-run not found; build it or pass --pto-run")
    benchlib.warn_if_unoptimised(pto_run, "run.py")
    work = args.keep or tempfile.mkdtemp(prefix="pto-bench-interp-")
    os.makedirs(work, exist_ok=True)
    peer_env = {k: v for k, v in os.environ.items()
                if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    rng = np.random.default_rng(1)
    print("interp: pto-run (reference interpreter) vs numpy %s, best of %d"
          % (np.__version__, args.reps))
    for name, ir, shapes, stmt in WORKLOADS:
        d = os.path.join(work, re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "w.pto")
        with open(src, "w") as f:
            f.write(ir)
        inputs = []
        for i, s in enumerate(shapes):
            p = os.path.join(d, "in%d.npy" % i)
            np.save(p, rng.uniform(-1, 1, size=s).astype(np.float32))
            inputs += ["--input", p]
        pto_t, np_t, pto_wall, np_wall, pto_rss, np_rss = [], [], [], [], 0, 0
        ops = 0
        for rep in range(args.reps):
            out, err, wall, rss = run_measured(
                [sys.executable, "-c", NUMPY_PEER, d, str(len(shapes)),
                 str(max(args.reps, 3)), stmt], env=peer_env)
            t, hwm = out.split()
            np_t.append(float(t))
            np_wall.append(wall)
            np_rss = max(np_rss, int(hwm) or rss)
            cmd = [pto_run, src, *inputs, "--stats", "--quiet"]
            if rep == 0:
                cmd += ["--expect", os.path.join(d, "expect.npy")]
            out, err, wall, rss = run_measured(cmd)
            m = STATS_RE.search(err)
            if not m:
                sys.exit("run.py: no --stats line from pto-run:\n" + err)
            ops = int(m.group(1))
            pto_t.append(float(m.group(2)) / 1e3)
            pto_wall.append(wall)
            pto_rss = max(pto_rss, float(m.group(3)) * 1024 if m.group(3) else rss)
        bp, bn = min(pto_t), min(np_t)
        print("%s" % name)
        print("  pto-run  %9.3f ms (%d ops; process %.3f s, %s peak RSS)"
              % (bp * 1e3, ops, min(pto_wall), benchlib.fmt_mib(pto_rss)))
        print("  numpy    %9.3f ms (process %.3f s, %s peak RSS)"
              % (bn * 1e3, min(np_wall), benchlib.fmt_mib(np_rss)))
        print("  ratio interpreter/numpy %.1fx; results match (--expect)" % (bp / bn))
    if not args.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
