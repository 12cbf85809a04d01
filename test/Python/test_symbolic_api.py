"""SymbolicScalar's documented methods, pypto.Element, the small enums, and
the misuse errors of pypto.max/min and loop_unroll."""

import numpy as np
import pytest

import pypto


def test_constructor_and_predicates():
    c = pypto.SymbolicScalar(10)
    x = pypto.SymbolicScalar("x")
    assert c.is_immediate() and c.is_concrete() and not c.is_symbol()
    assert c.concrete() == 10 and not c.is_expression()
    assert x.is_symbol() and not x.is_immediate() and not x.is_expression()
    assert (x + 1).is_expression() and (x * x).is_expression()
    assert not (x + 1).is_symbol()
    with pytest.raises(TypeError, match="an int or a name"):
        pypto.SymbolicScalar(1.5)


def test_max_min_fold_and_trace():
    c = pypto.SymbolicScalar(10)
    assert c.max(13) == 13 and c.max(pypto.SymbolicScalar(5)) == 10
    assert c.min(3) == 3
    x = pypto.SymbolicScalar("x")
    assert (x + 2).max(x) is not None and repr(x.max(2)) == "max(x, 2)"
    with pytest.raises(TypeError, match="SymbolicScalar.max takes an int"):
        c.max(2.5)


def test_as_variable_keeps_the_value():
    x = pypto.SymbolicScalar(4)
    x.as_variable()
    assert x.concrete() == 4


def test_bare_name_in_a_kernel_is_an_error():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        n = pypto.SymbolicScalar("n")
        for i in pypto.loop(n):
            y[i:i + 1, :] = x[i:i + 1, :]
    with pytest.raises(pypto.TraceError, match="bare name") as e:
        k(np.ones((4, 8), np.float32), np.zeros((4, 8), np.float32))
    assert "test_symbolic_api.py" in str(e.value)


def test_dynamic_max_min_in_a_kernel():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 8], pypto.DT_FP32),
          y: pypto.Tensor([pypto.DYNAMIC, 8], pypto.DT_FP32)):
        n = x.shape[0]
        for i in pypto.loop(n.min(3)):
            y[i:i + 1, :] = x[i:i + 1, :] * 2.0
    x = np.arange(40, dtype=np.float32).reshape(5, 8)
    y = np.zeros_like(x)
    k(x, y)
    want = np.zeros_like(x)
    want[:3] = x[:3] * 2
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("args", [(np.float32(1.0), 0), ("t", 0), (0, 2.5)])
def test_pypto_max_of_non_scalars_names_the_line(args):
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        a, b = (x if v == "t" else v for v in args)
        pypto.max(a, b)
        y[:] = x
    with pytest.raises(TypeError, match="pypto.max takes ints or symbolic scalars") as e:
        k(np.ones((4, 8), np.float32), np.zeros((4, 8), np.float32))
    assert "test_symbolic_api.py" in str(e.value)


def test_pypto_min_suggests_minimum_for_tensors():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = pypto.min(x, 2.5)
    with pytest.raises(TypeError, match="for tensors use pypto.minimum"):
        k(np.ones((4, 8), np.float32), np.zeros((4, 8), np.float32))


def test_loop_unroll_skips_factors_larger_than_the_trip_count():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([3, 8], pypto.DT_FP32), y: pypto.Tensor([3, 8], pypto.DT_FP32)):
        for i, f in pypto.loop_unroll(0, 3, 1, unroll_list=[4, 2]):
            y[i:i + f, :] = x[i:i + f, :] + 1.0
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    y = np.zeros_like(x)
    k(x, y)
    np.testing.assert_array_equal(y, x + 1)
    assert "unroll4" not in k.ir() and "unroll2" in k.ir()


@pytest.mark.parametrize("dtype,value,want", [
    (pypto.DT_FP32, 3, 3.0), (pypto.DT_INT32, 3.7, 3), (pypto.DT_FP16, 0.1, 0.0999755859375),
    (pypto.DT_BOOL, True, True)])
def test_element(dtype, value, want):
    e = pypto.Element(dtype, value)
    assert e.dtype is dtype and e.value == want


def test_element_errors():
    with pytest.raises(TypeError, match="an int or a float"):
        pypto.Element(pypto.DT_FP32, "3")
    with pytest.raises(OverflowError, match="does not fit"):
        pypto.Element(pypto.DT_INT8, 300)


def test_element_as_an_operand():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = pypto.mul(x, pypto.Element(pypto.DT_FP32, 3))
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    y = np.zeros_like(x)
    k(x, y)
    np.testing.assert_array_equal(y, x * 3)


def test_enums_have_the_documented_members():
    assert [m.name for m in pypto.LogBaseType] == ["LOG_E", "LOG_2", "LOG_10"]
    assert [m.name for m in pypto.PrecisionType] == ["INTRINSIC", "HIGH_PRECISION"]
    assert [m.name for m in pypto.TopKAlgo] == ["MERGE_SORT", "RADIX_SELECT"]
    assert [m.name for m in pypto.OpType] == ["EQ", "NE", "LT", "LE", "GT", "GE"]
    assert [m.name for m in pypto.OutType] == ["BOOL", "BIT"]
    assert [m.name for m in pypto.ScatterMode] == ["NONE", "ADD", "MULTIPLY"]
    assert [m.name for m in pypto.TransMode] == ["CAST_NONE", "CAST_RINT", "CAST_ROUND"]
    assert [m.name for m in pypto.CachePolicy] == ["PREFETCH", "NONE_CACHEABLE"]
    assert [m.name for m in pypto.ReduceMode] == ["ATOMIC_ADD"]
