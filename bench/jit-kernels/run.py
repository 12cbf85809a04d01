#!/usr/bin/env python3
"""bench/jit-kernels: the tile instructions as JIT-compiled LLVM IR against
numpy and against the machine's own limits, measured in the same run:

  - softmax over the rows of a 4096x4096 f32 matrix: the pto.kernel the
    PTO level gives it (tload of a 4x4096 tile to UB, trowmax,
    trowexpandsub, texp, trowsum, trowexpanddiv, tstore) translated as
    pto-translate does, with element-wise fusion and, for comparison,
    without (--no-fuse), called per tile on 2 threads;
  - rms_norm and layer_norm of the same matrix: the pto.kernel the PTO
    level gives each with vector tile [1, 4096] (tload of the row and of
    gamma (and beta) to UB, tmul, trowsum, tmuls, tadds, trsqrt,
    trowexpandmul, tmul by gamma; layer_norm first subtracts the row mean
    and adds beta at the end; tstore), translated the same way, with and
    without fusion, called per row on 2 threads;
  - each against numpy and against the memory floor, a 2-thread streaming
    copy of the same bytes (one read and one write of the matrix);
  - matmul 1024^3 f32 (tmov of 96x128 / 128x128 tiles to L0A / L0B,
    tmatmul_acc along k, L0C out), on 2 threads; against numpy's matmul
    (OpenBLAS, run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset so
    that it picks its own kernel, which is printed).

Every figure is the best of --reps runs (the machine may be shared); the
CPU time per thread is printed next to the wall time, being less
sensitive to other processes. Targets (exit 1 when one is missed, unless
--no-check): softmax, rms_norm and layer_norm at least 50% of the memory
floor, matmul at least 0.75x OpenBLAS."""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

NUMPY_SIDE = r"""
import ctypes, sys, time
import numpy as np
rows, cols, n, reps = map(int, sys.argv[1:5])
rng = np.random.default_rng(1)
x = (rng.random((rows, cols), dtype=np.float32) * 8 - 4)
def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
g = (1 + 0.5 * rng.random(cols, dtype=np.float32)).astype(np.float32)
bt = rng.random(cols, dtype=np.float32)
def rms_norm(x):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + np.float32(1e-5)) * g
def layer_norm(x):
    xc = x - x.mean(axis=1, keepdims=True)
    return xc / np.sqrt((xc * xc).mean(axis=1, keepdims=True) + np.float32(1e-5)) * g + bt
cpu = {}
def best(f, name=None):
    f()
    t = c = 1e30
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        f()
        t = min(t, time.perf_counter() - t0)
        c = min(c, time.process_time() - c0)
    if name:
        cpu[name] = c
    return t
print("softmax", best(lambda: softmax(x)))
print("rms_norm", best(lambda: rms_norm(x)))
print("layer_norm", best(lambda: layer_norm(x)))
a = rng.random((n, n), dtype=np.float32); b = rng.random((n, n), dtype=np.float32)
print("matmul", best(lambda: a @ b, "matmul"))
print("matmul_cpu", cpu["matmul"])
core = None
for line in open("/proc/self/maps"):
    path = line.split()[-1]
    if "openblas" in path.lower() and ".so" in path:
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            core = lib.openblas_get_corename().decode()
            lib.openblas_get_num_threads.restype = ctypes.c_int
            core += ", %d threads" % lib.openblas_get_num_threads()
            break
        except (OSError, AttributeError):
            pass
print("blas", (core or "none").replace(" ", "_"))
"""


def openblas_dir():
    """The folder of OpenBLAS's libblas.so.3 (Debian's libopenblas0-*), so
    that numpy uses OpenBLAS whichever BLAS the system's alternatives
    pick; None when it is not installed."""
    try:
        out = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
    except OSError:
        return None
    for line in out.splitlines():
        if line.strip().startswith("libopenblas.so.0") and "=>" in line:
            d = os.path.dirname(os.path.realpath(line.split("=>")[1].strip()))
            if os.path.exists(os.path.join(d, "libblas.so.3")):
                return d
    return None


def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    if r.returncode != 0:
        sys.exit("jit-kernels: '%s' failed (exit %d):\n%s%s"
                 % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pto-bench", required=True,
                    help="the jit-kernels-pto program of this build")
    ap.add_argument("--python", default=sys.executable,
                    help="a Python with numpy, for the peer")
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--matmul", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tile-rows", type=int, default=4,
                    help="rows of the softmax's tiles")
    ap.add_argument("--no-check", action="store_true",
                    help="report only; do not fail on missed targets")
    ap.add_argument("--no-prefetch", action="store_true",
                    help="translate without prefetching the next task's "
                         "windows (pto-translate --no-prefetch), for comparison")
    ap.add_argument("--no-forward", action="store_true",
                    help="translate without forwarding tloads' windows to "
                         "their readers (pto-translate --no-forward), for "
                         "comparison")
    args = ap.parse_args()

    ours = {}
    # without the JIT's disk cache, so that the compile times are LLVM's
    cold = dict(os.environ, PTO_JIT_CACHE="0")
    for line in run([args.pto_bench, "--rows", str(args.rows), "--cols",
                     str(args.cols), "--matmul", str(args.matmul), "--reps",
                     str(args.reps), "--tile-rows", str(args.tile_rows)]
                    + (["--no-prefetch"] if args.no_prefetch else [])
                    + (["--no-forward"] if args.no_forward else []),
                    env=cold).splitlines():
        f = line.split()
        ours[f[0]] = f
    env = dict(os.environ)
    for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(v, None)
    blas = openblas_dir()
    if blas:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            [blas] + [p for p in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p])
    peer = {}
    for line in run([args.python, "-c", NUMPY_SIDE, str(args.rows),
                     str(args.cols), str(args.matmul), str(args.reps)],
                    env=env).splitlines():
        k, v = line.split()
        peer[k] = v

    isa = ours["isa"]
    print("jit-kernels: %s (%s), %s threads, best of %d runs each"
          % (isa[1], isa[3], isa[5], args.reps))
    copy = ours["copy"]
    floor = field(copy, "run")
    print("memory floor  %8.2f ms   (2-thread copy of %s bytes; CPU %.2f ms)"
          % (floor * 1e3, copy[1], field(copy, "cpu") * 1e3))
    shares = {}
    for k in ("softmax", "rms_norm", "layer_norm"):
        f = ours[k]
        t, cpu, np_t = field(f, "run"), field(f, "cpu"), float(peer[k])
        shares[k] = floor / t
        print("%-10s %s f32, tiles %s" % (k, f[1], f[3]))
        print("  emitted code  %8.2f ms   %5.1fx numpy   %3.0f%% of the memory "
              "floor   (CPU per thread %.2f ms, %3.0f%% of the floor's)"
              % (t * 1e3, np_t / t, 100 * shares[k], cpu * 1e3,
                 100 * field(copy, "cpu") / cpu))
        if k + "_nofuse" in ours:
            u = ours[k + "_nofuse"]
            ut, ucpu = field(u, "run"), field(u, "cpu")
            print("  --no-fuse     %8.2f ms   %5.1fx numpy   %3.0f%% of the memory "
                  "floor   (CPU per thread %.2f ms; fused/unfused CPU %.2f)"
                  % (ut * 1e3, np_t / ut, 100 * floor / ut, ucpu * 1e3, cpu / ucpu))
        print("  numpy         %8.2f ms" % (np_t * 1e3))
    mm = ours["matmul"]
    mm_t = field(mm, "run")
    n = args.matmul
    np_mm = float(peer["matmul"])
    flops = 2.0 * n * n * n
    print("matmul %s f32, L0 tiles %s" % (mm[1], mm[3]))
    # CPU time of all threads, which other processes disturb far less than
    # the wall time: ours is the longest thread's times the threads (the
    # tiles are shared evenly), numpy's its process's
    mm_cpu = field(mm, "cpu") * float(isa[5])
    np_cpu = float(peer["matmul_cpu"])
    print("  emitted code  %8.2f ms   %6.1f GFLOP/s   %.2fx OpenBLAS   "
          "(CPU, all threads: %.2f ms, %.2fx OpenBLAS's)"
          % (mm_t * 1e3, flops / mm_t / 1e9, np_mm / mm_t, mm_cpu * 1e3,
             np_cpu / mm_cpu))
    if peer["blas"] == "none":
        print("jit-kernels: numpy does not use OpenBLAS (install "
              "libopenblas0-pthread: scripts/install-deps.sh)", file=sys.stderr)
        blas = "not OpenBLAS: the system's reference BLAS"
    else:
        blas = "OpenBLAS " + peer["blas"].replace("_", " ")
    print("  numpy         %8.2f ms   %6.1f GFLOP/s   (%s; CPU, all threads: "
          "%.2f ms)" % (np_mm * 1e3, flops / np_mm / 1e9, blas, np_cpu * 1e3))
    print("JIT compile time: " + ", ".join(
        "%s %.0f ms" % (k, field(ours[k], "compile") * 1e3)
        for k in ("softmax", "rms_norm", "layer_norm", "matmul")))
    missed = ["%s >= 50%% of the memory floor" % k
              for k in ("softmax", "rms_norm", "layer_norm") if shares[k] < 0.5]
    if np_mm / mm_t < 0.75:
        missed.append("matmul >= 0.75x OpenBLAS")
    print("targets: softmax, rms_norm, layer_norm >= 50%% of the floor, matmul "
          ">= 0.75x OpenBLAS: %s"
          % ("met" if not missed else "missed " + "; ".join(missed)))
    if missed and not args.no_check:
        sys.exit(1)


def field(fields, name):
    """The number after `name` in one of the measuring side's lines."""
    return float(fields[fields.index(name) + 1])


if __name__ == "__main__":
    main()
