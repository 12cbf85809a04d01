"""DT_INT64 tensors on the compiled path (NPU: the JIT-compiled PTO
kernels on the host runtime) against numpy, exactly: arithmetic that wraps
modulo 2^64, division toward zero, comparisons and where, maximum and
minimum, abs and neg, row and column sums and maxima, casts to and from
float32 and int32, and int64 indices of gather and index_select."""

import numpy as np
import pytest

import pypto
from conftest import npu


def i64(shape, seed, lo=-(1 << 62), hi=1 << 62):
    return np.random.default_rng(seed).integers(lo, hi, size=shape, dtype=np.int64)


@pytest.fixture(autouse=True)
def compiled(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)


def trunc_div(a, b):
    """a / b toward zero, in Python's integers (|MIN| does not fit int64)."""
    def one(x, y):
        q = abs(x) // abs(y)
        return -q if (x < 0) != (y < 0) else q
    return np.array([[one(int(x), int(y)) for x, y in zip(r, s)] for r, s in zip(a, b)],
                    np.int64)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum", "minimum"])
def test_binary_wraps_and_divides_toward_zero(name):
    a, b = i64((6, 11), 1), i64((6, 11), 2, -(1 << 40), 1 << 40)
    b[b == 0] = 7
    a[0, :3] = [np.iinfo(np.int64).max, np.iinfo(np.int64).min, -5]
    b[0, :3] = [3, 2, 2]
    fn, want = {
        "add": (lambda x, y: x + y, a + b),
        "sub": (lambda x, y: x - y, a - b),
        "mul": (lambda x, y: x * y, a * b),
        "div": (lambda x, y: pypto.div(x, y), trunc_div(a, b)),
        "maximum": (pypto.maximum, np.maximum(a, b)),
        "minimum": (pypto.minimum, np.minimum(a, b)),
    }[name]
    np.testing.assert_array_equal(npu(fn, [a, b], a.shape, np.int64), want)


def test_unary_compare_and_where():
    a, b = i64((6, 11), 3), i64((6, 11), 4)
    b[:, ::3] = a[:, ::3]
    np.testing.assert_array_equal(npu(pypto.abs, [a], a.shape, np.int64), np.abs(a))
    np.testing.assert_array_equal(npu(pypto.neg, [a], a.shape, np.int64), -a)
    np.testing.assert_array_equal(
        npu(lambda x, y: pypto.where(pypto.lt(x, y), x, y), [a, b], a.shape, np.int64),
        np.where(a < b, a, b))
    np.testing.assert_array_equal(npu(pypto.eq, [a, b], a.shape, np.bool_), a == b)


def test_reductions():
    a = i64((6, 11), 5)
    np.testing.assert_array_equal(npu(lambda x: pypto.sum(x, 1), [a], (6,), np.int64),
                                  a.sum(1))
    np.testing.assert_array_equal(npu(lambda x: pypto.amax(x, 0), [a], (11,), np.int64),
                                  a.max(0))
    np.testing.assert_array_equal(npu(lambda x: pypto.amin(x, 1), [a], (6,), np.int64),
                                  a.min(1))


def test_casts():
    a = i64((6, 11), 6)
    a[0, :2] = [(1 << 40) + (1 << 16) + 1, -((1 << 24) + 1)]   # inexact in f32
    np.testing.assert_array_equal(
        npu(lambda x: pypto.cast(x, pypto.DT_FP32), [a], a.shape, np.float32),
        a.astype(np.float32))
    np.testing.assert_array_equal(
        npu(lambda x: pypto.cast(x, pypto.DT_INT32), [a], a.shape, np.int32),
        a.astype(np.int32))
    f = np.random.default_rng(7).uniform(-1e12, 1e12, (6, 11)).astype(np.float32)
    np.testing.assert_array_equal(
        npu(lambda x: pypto.cast(x, pypto.DT_INT64), [f], f.shape, np.int64),
        f.astype(np.int64))
    i = np.random.default_rng(8).integers(-2**31, 2**31, (6, 11), dtype=np.int32)
    np.testing.assert_array_equal(
        npu(lambda x: pypto.cast(x, pypto.DT_INT64), [i], i.shape, np.int64),
        i.astype(np.int64))


def test_int64_indices():
    x = i64((12, 20), 9)
    idx = np.random.default_rng(10).integers(0, 20, (12, 5), dtype=np.int64)
    np.testing.assert_array_equal(
        npu(lambda t, i: pypto.gather(t, 1, i), [x, idx], (12, 5), np.int64),
        np.take_along_axis(x, idx, 1))
    sel = np.array([11, 0, 3, 3, 7], np.int64)
    np.testing.assert_array_equal(
        npu(lambda t, i: pypto.index_select(t, 0, i), [x, sel], (5, 20), np.int64), x[sel])
    np.testing.assert_array_equal(
        npu(lambda t, i: pypto.index_select(t, 1, i), [x, sel], (12, 5), np.int64), x[:, sel])
