"""PyPTO's gcd and signbit against numpy, through tracing, tile-expand and
the interpreter, with their misuse errors."""

import numpy as np
import pytest

import pypto
from conftest import rand
from test_ops import run1


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_gcd(dtype):
    a = rand((4, 16), dtype, -100, 100, seed=90)
    b = rand((1, 16), dtype, -100, 100, seed=91)
    a[0, :3] = [0, 0, 12]
    b[0, :3] = [0, 7, -18]
    assert (run1(pypto.gcd, a, b, out_shape=a.shape) == np.gcd(a, b)).all()
    assert (run1(lambda t: pypto.gcd(t, 6), a) == np.gcd(a, dtype(6))).all()
    assert (run1(lambda t: pypto.gcd(6, t), a) == np.gcd(dtype(6), a)).all()
    assert (run1(lambda t, u: t.gcd(u), a, b, out_shape=a.shape) == np.gcd(a, b)).all()


def test_gcd_of_the_documented_example():
    x = np.array([[9, 9, 9], [6, 6, 6]], np.int32)
    y = np.array([[1, 2, 3], [1, 2, 3]], np.int32)
    assert (run1(pypto.gcd, x, y) == [[1, 1, 3], [1, 2, 3]]).all()
    assert (run1(lambda t: pypto.gcd(t, 2), x) == [[1, 1, 1], [2, 2, 2]]).all()


def test_gcd_errors():
    x = rand((4, 8), seed=92)
    with pytest.raises(TypeError, match="gcd takes integer tensors, got") as e:
        run1(lambda t: pypto.gcd(t, t), x)
    assert "test_ops_pyops.py" in str(e.value)
    m = rand((4, 8), np.bool_, seed=93)
    with pytest.raises(TypeError, match="gcd takes integer tensors, got"):
        run1(lambda t: pypto.gcd(t, t), m, out_dtype=np.bool_)
    with pytest.raises(TypeError, match="other must be a tensor or an int"):
        run1(lambda t: pypto.gcd(t, 1.5), x.astype(np.int32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_signbit_floats(dtype):
    x = rand((4, 16), dtype, seed=94)
    neg_nan = np.copysign(np.array(np.nan, dtype), dtype(-1))
    x[0, :7] = [-0.0, 0.0, -np.inf, np.inf, np.nan, neg_nan, -5.0]
    got = run1(pypto.signbit, x, out_dtype=np.bool_)
    assert (got == np.signbit(x)).all()
    assert list(got[0, :7]) == [True, False, True, False, False, True, True]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_signbit_ints(dtype):
    x = rand((4, 16), dtype, -100, 100, seed=95)
    x[0, :2] = [0, -1]
    assert (run1(pypto.signbit, x, out_dtype=np.bool_) == np.signbit(x)).all()


def test_signbit_errors():
    m = rand((4, 8), np.bool_, seed=96)
    with pytest.raises(TypeError, match="signbit takes a float or integer tensor") as e:
        run1(lambda t: pypto.signbit(t), m)
    assert "test_ops_pyops.py" in str(e.value)
