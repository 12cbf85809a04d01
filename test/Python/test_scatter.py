"""scatter / scatter_ / Tensor.scatter(_) (torch.scatter) against numpy:
every dtype PyPTO documents, each reduce mode with duplicate indices, a
scalar src, tilings that split the index, in place, and the errors of
their misuse."""

import numpy as np
import pytest

import pypto
from conftest import rand, run_update


def ref_scatter(x, dim, index, src, reduce=None):
    """torch.scatter in row-major index order (src a number or an array)."""
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        at = list(pos)
        at[dim] = index[pos]
        at = tuple(at)
        v = src if np.isscalar(src) else src[pos]
        if reduce is None:
            out[at] = v
        elif reduce == "add":
            out[at] = out[at] + v
        else:
            out[at] = out[at] * v
    return out


run = run_update


DTYPES = [np.float32, np.float16, np.int8, np.int16, np.int32, np.int64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", [None, "add", "multiply"])
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_with_duplicates(dtype, reduce, dim):
    x = rand((6, 8), dtype, -3, 3, seed=1)
    index = np.random.default_rng(2).integers(0, (6, 8)[dim], size=(5, 7))
    src = rand((5, 8), dtype, -3, 3, seed=3)   # larger than the index
    want = ref_scatter(x, dim, index, src, reduce)
    for tiles in (None, (2, 4), (3, 3)):
        got = run(lambda a, i, s: pypto.scatter(a, dim, i, s, reduce=reduce),
                  x, index.astype(np.int32 if dim else np.int64), src, tiles=tiles)
        if dtype is np.float16:
            np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-2)
        else:
            assert (got == want).all(), (tiles, got, want)


def test_documented_example():
    # PyPTO's example: a scalar src, index [[1, 2], [0, 1]] along dim 0
    x = np.zeros((3, 5), np.float32)
    index = np.array([[1, 2], [0, 1]], np.int64)

    @pypto.frontend.jit
    def k(a: pypto.Tensor(), i: pypto.Tensor(), y: pypto.Tensor()):
        y[...] = pypto.scatter_(a, 0, i, 2.0)

    y = np.zeros_like(x)
    k(x, index, y)
    assert (y == [[2, 0, 0, 0, 0], [2, 2, 0, 0, 0], [0, 2, 0, 0, 0]]).all()


def test_in_place_methods_and_element_src():
    x = rand((4, 6), seed=4)
    index = np.array([[3, 0, 1], [2, 2, 3]], np.int32)
    src = rand((2, 3), seed=5)

    @pypto.frontend.jit
    def k(a: pypto.Tensor(), i: pypto.Tensor(), s: pypto.Tensor(), y: pypto.Tensor()):
        y[...] = a.scatter(0, i, s) + 0.0          # a copy: a unchanged
        a.scatter_(1, i, pypto.Element(pypto.DT_FP32, 0.5), reduce="add")
        pypto.scatter_(a, -1, i, s, reduce="multiply")

    a, y = x.copy(), np.zeros_like(x)
    k(a, index, src, y)
    np.testing.assert_array_equal(y, ref_scatter(x, 0, index, src))
    want = ref_scatter(ref_scatter(x, 1, index, np.float32(0.5), "add"), 1, index, src,
                       "multiply")
    np.testing.assert_allclose(a, want, rtol=1e-6)


def test_errors():
    x = rand((4, 4), seed=7)
    i = np.array([[0, 1]], np.int32)
    s = rand((1, 2), seed=8)
    with pytest.raises(ValueError, match="reduce must be None, 'add' or 'multiply', got 'max'") as e:
        run(lambda a, ix, sv: pypto.scatter(a, 0, ix, sv, reduce="max"), x, i, s)
    assert "test_scatter.py" in str(e.value)
    with pytest.raises(ValueError, match="a scalar src must be finite"):
        run(lambda a, ix, sv: pypto.scatter(a, 0, ix, float("inf")), x, i, s)
    with pytest.raises(pypto.CompileError, match="index dim 1 is 2, larger than src's 1"):
        run(lambda a, ix, sv: pypto.scatter(a, 0, ix, sv), x, i, rand((1, 1), seed=9))
    with pytest.raises(pypto.CompileError, match="src element type 'f16' differs"):
        run(lambda a, ix, sv: pypto.scatter(a, 0, ix, sv), x, i, s.astype(np.float16))
    with pytest.raises(pypto.RuntimeError, match=r"index 4 at position \(0, 1\)"):
        run(lambda a, ix, sv: pypto.scatter(a, 0, ix, sv), x, np.array([[0, 4]], np.int32), s)
