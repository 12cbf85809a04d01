"""Shared helpers of the Python front end's tests: random inputs per dtype,
bf16 bit patterns, and the numpy references of ops numpy lacks."""

import math
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import pypto  # noqa: E402

# PTO_TEST_TORCH=1 (set by the build when its Python has torch) turns a
# failed import into an error, so that the torch paths are never skipped
# silently where they should run.
try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    if os.environ.get("PTO_TEST_TORCH") == "1":
        raise
    HAVE_TORCH = False

requires_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")


@pytest.fixture
def clean_options():
    """Process-wide options (set_*_options, pass configs, goldens) back to
    their defaults around a test."""
    pypto.reset_options()
    yield
    pypto.reset_options()


def rng(seed=0):
    return np.random.default_rng(seed)


def rand(shape, dtype=np.float32, lo=-2.0, hi=2.0, seed=0):
    r = rng(seed)
    if np.dtype(dtype).kind == "f":
        return r.uniform(lo, hi, size=shape).astype(dtype)
    if np.dtype(dtype) == np.bool_:
        return r.integers(0, 2, size=shape).astype(np.bool_)
    return r.integers(int(lo), int(hi) + 1, size=shape).astype(dtype)


def to_bf16(a):
    """float32 -> bf16 bit patterns (uint16), rounding to nearest even."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def from_bf16(b):
    return (np.asarray(b).astype(np.uint32) << 16).view(np.float32)


erf = np.vectorize(math.erf, otypes=[np.float64])


def assert_close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=rtol, atol=atol)


def npu(fn, arrays, out_shape, out_dtype, tiles=(4, 8)):
    """fn(tensors) -> tensor as an NPU kernel writing an output argument;
    returns the output, after checking the compiled path ran it."""
    out = np.zeros(out_shape, out_dtype)

    def body(*ts):
        pypto.set_vec_tile_shapes(*tiles)
        ts[-1][...] = fn(*ts[:-1])

    params = ", ".join(f"a{i}: pypto.Tensor" for i in range(len(arrays) + 1))
    ns = {"pypto": pypto, "body": body}
    exec(f"def k({params}):\n    body({', '.join(f'a{i}' for i in range(len(arrays) + 1))})", ns)
    k = pypto.frontend.jit(runtime_options={"run_mode": pypto.RunMode.NPU})(ns["k"])
    k(*arrays, out)
    assert k.backend == "host"
    return out


def run_update(fn, *arrays, tiles=None):
    """fn(x, index, src) traced in a kernel of the three arrays (and an
    output of the first's shape), optionally under vec tile shapes; returns
    the output."""
    out = np.zeros_like(arrays[0])

    @pypto.frontend.jit
    def k(x: pypto.Tensor(), i: pypto.Tensor(), s: pypto.Tensor(), y: pypto.Tensor()):
        if tiles:
            pypto.set_vec_tile_shapes(*tiles)
        y[...] = fn(x, i, s)
    k(*arrays, out)
    return out
