"""pypto.uniform / pypto.normal: the numbers the docs define (a numpy
Philox4x32-10), the same numbers under any tiling, statistical sanity, and
the errors of their misuse."""

import os
import sys

import numpy as np
import pytest

import pypto

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Interp"))
from oracle import random_ref  # noqa: E402  (the lit oracle's reference)


def run_random(fn, shape, dtype, tiles=None):
    out = np.zeros(shape, dtype)
    ann = pypto.Tensor([], pypto.DT_BF16) if dtype == np.uint16 else pypto.Tensor()

    @pypto.frontend.jit
    def k(y: ann):
        if tiles:
            pypto.set_vec_tile_shapes(*tiles)
        y[...] = fn()
    k(out)
    return out


@pytest.mark.parametrize("kind", ["uniform", "normal"])
def test_the_documented_numbers(kind):
    op = getattr(pypto, kind)
    got = run_random(lambda: op([4, 8], [1234], [0, 1], [1], pypto.DT_FP32), (4, 8),
                     np.float32)
    want = random_ref(kind, (4, 8), 1234, 1, "f32").astype(np.float32)
    if kind == "uniform":
        assert (got == want).all()
    else:
        np.testing.assert_allclose(got, want, rtol=2.4e-7, atol=0)
    f16 = run_random(lambda: op([4, 8], [1234], [0, 1], [3], pypto.DT_FP16), (4, 8),
                     np.float16)
    np.testing.assert_allclose(f16, random_ref(kind, (4, 8), 1234, 1, "f16").astype(np.float16),
                               rtol=2e-3, atol=0)


@pytest.mark.parametrize("kind", ["uniform", "normal"])
def test_two_tilings_give_identical_numbers(kind):
    op = getattr(pypto, kind)
    a = run_random(lambda: op([24, 40], [7], [0, 3], [1], pypto.DT_FP32), (24, 40),
                   np.float32, tiles=(8, 16))
    b = run_random(lambda: op([24, 40], [7], [0, 3], [1], pypto.DT_FP32), (24, 40),
                   np.float32, tiles=(5, 7))
    c = run_random(lambda: op([24, 40], [7], [0, 3], [1], pypto.DT_FP32), (24, 40),
                   np.float32)
    assert a.tobytes() == b.tobytes() == c.tobytes()
    # counter[0] is ignored, as PyPTO documents; counter[1] and key matter
    d = run_random(lambda: op([24, 40], [7], [99, 3], [1], pypto.DT_FP32), (24, 40),
                   np.float32)
    assert d.tobytes() == a.tobytes()
    e = run_random(lambda: op([24, 40], [7], [0, 4], [1], pypto.DT_FP32), (24, 40),
                   np.float32)
    f = run_random(lambda: op([24, 40], [8], [0, 3], [1], pypto.DT_FP32), (24, 40),
                   np.float32)
    assert (e != a).mean() > 0.99
    assert (f != a).mean() > 0.99


def test_uniform_statistics():
    n = 64 * 256
    x = run_random(lambda: pypto.uniform([64, 256], [2026], [0, 0], [1], pypto.DT_FP32),
                   (64, 256), np.float32).astype(np.float64).ravel()
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 4 * np.sqrt(1 / 12 / n)
    assert abs(x.var() - 1 / 12) < 0.003
    hist = np.histogram(x, bins=16, range=(0, 1))[0]
    chi2 = ((hist - n / 16) ** 2 / (n / 16)).sum()
    assert chi2 < 37.7  # 15 degrees of freedom, p = 0.001
    # neighbours (lanes of one Philox block and across blocks) are uncorrelated
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < 4 / np.sqrt(n)
    bf = run_random(lambda: pypto.uniform([64, 64], [1], [0, 0], [1], pypto.DT_BF16),
                    (64, 64), np.uint16)
    v = (bf.astype(np.uint32) << 16).view(np.float32)
    assert v.min() >= 0.0 and v.max() < 1.0 and len(np.unique(v)) > 200


def test_normal_statistics():
    n = 64 * 256
    x = run_random(lambda: pypto.normal([64, 256], [31], [0, 5], [1], pypto.DT_FP32),
                   (64, 256), np.float32).astype(np.float64).ravel()
    assert np.isfinite(x).all()
    assert abs(x.mean()) < 4 / np.sqrt(n)
    assert abs(x.std() - 1.0) < 0.02
    # the fraction within one and two standard deviations
    assert abs((np.abs(x) < 1).mean() - 0.6827) < 0.015
    assert abs((np.abs(x) < 2).mean() - 0.9545) < 0.008
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < 4 / np.sqrt(n)


def test_random_errors():
    def err(fn, exc, msg):
        with pytest.raises(exc, match=msg) as e:
            run_random(fn, (4,), np.float32)
        assert "test_random.py" in str(e.value)
    err(lambda: pypto.uniform([4], 5, [0, 0], [1], pypto.DT_FP32), TypeError,
        "uniform: key must be a list of 1 int, got 5")
    err(lambda: pypto.normal([4], [5], [0], [1], pypto.DT_FP32), TypeError,
        r"normal: counter must be a list of 2 ints, got \[0\]")
    err(lambda: pypto.uniform([4], [5], [0, 0], [2], pypto.DT_FP32), ValueError,
        r"alg must be \[1\] \(Philox\) or \[3\]")
    err(lambda: pypto.uniform([4], [5], [0, 0], [1], pypto.DT_INT32), TypeError,
        "dtype must be DT_FP32, DT_FP16 or DT_BF16")
    err(lambda: pypto.uniform([0], [5], [0, 0], [1], pypto.DT_FP32), TypeError,
        "shape must be a list of 1 to 4 positive ints")
    err(lambda: pypto.uniform([4], [2 ** 64], [0, 0], [1], pypto.DT_FP32), ValueError,
        "key must fit in 64 bits")


def test_full_64_bit_keys():
    a = run_random(lambda: pypto.uniform([8], [2 ** 64 - 1], [0, 2 ** 63], [1],
                                         pypto.DT_FP32), (8,), np.float32)
    want = random_ref("uniform", (8,), 2 ** 64 - 1, 2 ** 63, "f32").astype(np.float32)
    assert (a == want).all()
    b = run_random(lambda: pypto.uniform([8], [-1], [0, -2 ** 63], [1], pypto.DT_FP32),
                   (8,), np.float32)
    assert (a == b).all()
