"""The bitwise ops and the piecewise-linear functions on the compiled path
(NPU: the JIT-compiled PTO kernels on the host runtime), against numpy and
torch's definitions: bit for bit, NaN, -0 and shift counts outside the
width included."""

import numpy as np
import pytest

import pypto
from conftest import npu as npu_out


@pytest.fixture(autouse=True)
def compiled(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)


def npu(fn, arrays, out_dtype):
    return npu_out(fn, arrays, arrays[0].shape, out_dtype)


def floats(shape, seed):
    x = np.random.default_rng(seed).uniform(-5, 5, size=shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[:8] = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -3.0, 3.0]
    flat[8:12] = [2.5, -2.5, 1e-40, -1e-40]
    return x


def same_bits(got, want):
    np.testing.assert_array_equal(got.view(np.uint32), want.astype(np.float32).view(np.uint32))


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint16])
def test_bitwise_ops(dtype):
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(6, 13), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, size=(6, 13), dtype=dtype, endpoint=True)
    np.testing.assert_array_equal(npu(lambda x, y: pypto.bitwise_and(x, y), [a, b], dtype), a & b)
    np.testing.assert_array_equal(npu(lambda x, y: pypto.bitwise_or(x, y), [a, b], dtype), a | b)
    np.testing.assert_array_equal(npu(lambda x, y: pypto.bitwise_xor(x, y), [a, b], dtype), a ^ b)
    np.testing.assert_array_equal(npu(lambda x: pypto.bitwise_not(x), [a], dtype), ~a)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8])
def test_shifts_by_every_count(dtype):
    # counts in [-70, 70] (as the dtype holds them): negative and past the
    # width shift everything out, a right shift leaving the sign fill
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(6, 24), dtype=dtype, endpoint=True)
    s = np.arange(-70, 74).reshape(6, 24).astype(dtype)
    wide_a, wide_s = a.astype(np.int64), s.astype(np.int64)
    inside = (wide_s >= 0) & (wide_s <= 63)
    left = np.where(inside, wide_a << np.clip(wide_s, 0, 63), 0).astype(dtype)
    right = np.where(inside, wide_a >> np.clip(wide_s, 0, 63), np.where(wide_a < 0, -1, 0))
    np.testing.assert_array_equal(npu(lambda x, y: pypto.bitwise_left_shift(x, y), [a, s], dtype),
                                  left)
    np.testing.assert_array_equal(npu(lambda x, y: pypto.bitwise_right_shift(x, y), [a, s], dtype),
                                  right.astype(dtype))


def test_piecewise_floats_bit_for_bit():
    x = floats((7, 11), 3)
    d = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        same_bits(npu(lambda t: pypto.sign(t), [x], np.float32),
                  np.where(d > 0, 1.0, np.where(d < 0, -1.0, d)))
        same_bits(npu(lambda t: pypto.trunc(t), [x], np.float32), np.trunc(x))
        u = d + 3
        same_bits(npu(lambda t: pypto.hardsigmoid(t), [x], np.float32),
                  np.where(u < 0, 0.0, np.where(u > 6, 6.0, u)) / 6)
        same_bits(npu(lambda t: pypto.leaky_relu(t, 0.1), [x], np.float32),
                  np.where(d < 0, 0.1 * d, d))
        # -0 stays at a bound of 0, NaN stays NaN
        same_bits(npu(lambda t: pypto.clip(t, 0.0, 0.3), [x], np.float32),
                  np.where(d < 0.0, 0.0, np.where(d > 0.3, np.float32(0.3), d)))


def test_sign_of_integers():
    a = np.arange(-40, 44, dtype=np.int16).reshape(6, 14)
    np.testing.assert_array_equal(npu(lambda t: pypto.sign(t), [a], np.int16), np.sign(a))
