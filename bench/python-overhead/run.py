#!/usr/bin/env python3
"""The Python front end's own costs, next to numpy doing the same tiny op.

* trace + compile: a fresh @pypto.frontend.jit softmax kernel (the design
  note's, dynamic batch, 32x1x256 rows) traced, parsed, run through the
  compile pipeline and prepared for execution, via kernel.compile(x, y).
  The first kernel of the process also pays for loading the library and is
  reported apart.
* call overhead: an already compiled softmax kernel called on a 1x1 input
  (argument checks, the cache lookup, describing the arrays to the C
  library, running the interpreter on one element, writing the output),
  against numpy's softmax of the same 1x1 array.

Medians over --reps runs. Targets: compile under 100 ms, call overhead
under 50 us (--check makes missing them exit 1).

Usage: run.py [--reps N] [--calls N] [--library PATH] [--check]
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

COMPILE_TARGET_MS = 100.0
CALL_TARGET_US = 50.0


def find_library(explicit):
    if explicit:
        return explicit
    if os.environ.get("PTO_LIBRARY"):
        return os.environ["PTO_LIBRARY"]
    # prefer an optimised build: a Debug build's numbers mean little
    for d in ("build-release", "build-rel", "build"):
        p = os.path.join(ROOT, d, "lib", "libpto.so")
        if os.path.isfile(p):
            return p
    sys.exit("python-overhead: no libpto.so found; build it or pass --library")


def make_softmax(pypto):
    @pypto.frontend.jit(runtime_options={"run_mode": pypto.RunMode.SIM})
    def softmax_kernel(x: pypto.Tensor([pypto.DYNAMIC, 32, 1, 256], pypto.DT_FP32),
                       y: pypto.Tensor([pypto.DYNAMIC, 32, 1, 256], pypto.DT_FP32)):
        bs, seqlen, head, dim = x.shape
        pypto.set_vec_tile_shapes(1, 4, 1, 64)
        for idx in pypto.loop(0, bs, 1, name="LOOP_L0_bIdx", idx_name="idx"):
            v = x[idx:idx + 1, :seqlen, :head, :dim]
            row_max = pypto.amax(v, dim=-1, keepdim=True)
            e = pypto.exp(v - row_max)
            y[idx:, ...] = e / pypto.sum(e, dim=-1, keepdim=True)
    return softmax_kernel


def make_tiny(pypto):
    @pypto.frontend.jit
    def tiny_softmax(x: pypto.Tensor([1, 1], pypto.DT_FP32),
                     y: pypto.Tensor([1, 1], pypto.DT_FP32)):
        row_max = pypto.amax(x, dim=-1, keepdim=True)
        e = pypto.exp(x - row_max)
        y[:] = e / pypto.sum(e, dim=-1, keepdim=True)
    return tiny_softmax


def numpy_softmax(x, y):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    y[...] = e / e.sum(axis=-1, keepdims=True)


def per_call_us(fn, args, calls, reps):
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--library")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    os.environ["PTO_LIBRARY"] = find_library(a.library)
    import pypto

    x = np.random.default_rng(0).random((4, 32, 1, 256), dtype=np.float32)
    y = np.zeros_like(x)
    t0 = time.perf_counter()
    make_softmax(pypto).compile(x, y)
    first_ms = (time.perf_counter() - t0) * 1e3
    compile_ms = []
    for _ in range(a.reps):
        k = make_softmax(pypto)
        t0 = time.perf_counter()
        k.compile(x, y)
        compile_ms.append((time.perf_counter() - t0) * 1e3)
    k(x, y)
    e = np.exp(x - x.max(-1, keepdims=True))
    err = float(np.abs(y - e / e.sum(-1, keepdims=True)).max())

    tiny = make_tiny(pypto)
    x1 = np.array([[0.5]], np.float32)
    y1 = np.zeros_like(x1)
    tiny(x1, y1)
    call_us = per_call_us(tiny, (x1, y1), a.calls, a.reps)
    np_us = per_call_us(numpy_softmax, (x1, y1), a.calls, a.reps)
    compile_med = statistics.median(compile_ms)

    print(f"library: {pypto.library_path()}")
    print(f"softmax trace+compile: {compile_med:8.2f} ms median of {a.reps} "
          f"(first kernel of the process {first_ms:.2f} ms); target < {COMPILE_TARGET_MS:g} ms"
          f" - {'ok' if compile_med < COMPILE_TARGET_MS else 'MISSED'}")
    print(f"softmax call, 1x1 input: {call_us:8.2f} us per call; numpy on the same "
          f"input: {np_us:.2f} us (ratio {call_us / np_us:.1f}); target < "
          f"{CALL_TARGET_US:g} us - {'ok' if call_us < CALL_TARGET_US else 'MISSED'}")
    print(f"(softmax 4x32x1x256 max error against numpy: {err:.3g})")
    missed = compile_med >= COMPILE_TARGET_MS or call_us >= CALL_TARGET_US or err > 1e-6
    if a.check and missed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
