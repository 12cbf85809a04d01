"""index_put_ (PyPTO's multi-dim index write, with accumulate) and
gathermask (the built-in pattern masks) against numpy, over their dtypes,
with the errors of their misuse."""

import numpy as np
import pytest

import pypto
from conftest import rand


def run_put(x, indices, values, accumulate, tiles=None):
    out = x.copy()
    n = len(indices)

    @pypto.frontend.jit
    def k1(a: pypto.Tensor(), i0: pypto.Tensor(), v: pypto.Tensor()):
        if tiles:
            pypto.set_vec_tile_shapes(*tiles)
        assert pypto.index_put_(a, (i0,), v, accumulate) is None

    @pypto.frontend.jit
    def k2(a: pypto.Tensor(), i0: pypto.Tensor(), i1: pypto.Tensor(), v: pypto.Tensor()):
        if tiles:
            pypto.set_vec_tile_shapes(*tiles)
        pypto.index_put_(a, (i0, i1), v, accumulate=accumulate)

    (k1 if n == 1 else k2)(out, *indices, values)
    return out


def ref_put(x, indices, values, accumulate):
    out = x.copy()
    for j in range(len(indices[0])):
        at = tuple(int(i[j]) for i in indices)
        out[at] = out[at] + values[j] if accumulate else values[j]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int16, np.int32,
                                   np.int64])
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_one_and_two_index_tensors(dtype, accumulate):
    x = rand((5, 4, 6), dtype, -20, 20, seed=1)
    # one index tensor: whole [4, 6] slabs; duplicates accumulate in order
    i0 = np.array([4, 0, 4], np.int32)
    v = rand((3, 4, 6), dtype, -20, 20, seed=2)
    want = ref_put(x, (i0,), v, accumulate)
    for tiles in (None, (2, 2, 3)):
        np.testing.assert_array_equal(run_put(x, (i0,), v, accumulate, tiles), want)
    # two: rows of 6 at (i0[j], i1[j]); int16 and int64 indices
    j0 = np.array([1, 4, 0, 1], np.int16)
    j1 = np.array([3, 0, 2, 3], np.int64)
    w = rand((4, 6), dtype, -20, 20, seed=3)
    got = run_put(x, (j0, j1), w, accumulate)
    if accumulate:
        np.testing.assert_array_equal(got, ref_put(x, (j0, j1), w, True))
    else:
        # a duplicate position without accumulate: the later one wins here
        np.testing.assert_array_equal(got, ref_put(x, (j0, j1), w, False))


def test_index_put_documented_example():
    x = np.array([[1, 1, 1], [1, 1, 1], [0, 0, 0]], np.int32)
    i = np.array([1, 2], np.int32)
    v = np.array([[0, 1, 0], [0, 2, 0]], np.int32)
    assert (run_put(x, (i,), v, True) == [[1, 1, 1], [1, 2, 1], [0, 2, 0]]).all()
    assert (run_put(x, (i,), v, False) == [[1, 1, 1], [0, 1, 0], [0, 2, 0]]).all()


def test_index_put_errors():
    x = rand((4, 5), seed=4)
    with pytest.raises(pypto.RuntimeError, match="out of range"):
        # 7 is outside dim 1 (5): flattened it would land in row 2, and must not
        run_put(x, (np.array([1], np.int32), np.array([7], np.int32)),
                rand((1,), seed=5), False)
    with pytest.raises(pypto.RuntimeError, match="out of range"):
        run_put(x, (np.array([0], np.int32), np.array([-1], np.int32)),
                rand((1,), seed=5), False)
    with pytest.raises(ValueError, match=r"values must have shape \[2, 5\]") as e:
        run_put(x, (np.array([0, 1], np.int32),), rand((2, 4), seed=6), False)
    assert "test_index_put_gathermask.py" in str(e.value)
    with pytest.raises(TypeError, match="values are pypto.DT_FP16 but input is pypto.DT_FP32"):
        run_put(x, (np.array([0, 1], np.int32),), rand((2, 5), np.float16, seed=6), False)
    with pytest.raises(TypeError, match="indices must be integer tensors"):
        run_put(x, (np.array([0.0, 1.0], np.float32),), rand((2, 5), seed=6), False)
    with pytest.raises(ValueError, match="1-D of one length"):
        run_put(x, (np.array([0, 1], np.int32), np.array([0], np.int32)),
                rand((2,), seed=6), False)


def run_mask(x, mode, tiles=None):
    k, p = {2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}.get(mode, (2, 0))
    out = np.zeros(x.shape[:-1] + (x.shape[-1] // k,), x.dtype)

    @pypto.frontend.jit
    def kern(a: pypto.Tensor(), y: pypto.Tensor()):
        if tiles:
            pypto.set_vec_tile_shapes(*tiles)
        y[...] = pypto.gathermask(a, mode)
    kern(x, out)
    return out, x[..., p::k]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int16, np.int32])
@pytest.mark.parametrize("mode", range(1, 8))
def test_gathermask(dtype, mode):
    x = rand((3, 2, 16), dtype, -50, 50, seed=mode)
    for tiles in (None, (2, 2, 8)):
        got, want = run_mask(x, mode, tiles)
        np.testing.assert_array_equal(got, want)


def test_gathermask_documented_example_and_errors():
    x = np.arange(18, dtype=np.int32).reshape(3, 6)
    got, _ = run_mask(x, 1)
    assert (got == [[0, 2, 4], [6, 8, 10], [12, 14, 16]]).all()
    with pytest.raises(ValueError, match="needs a static last dim that is a multiple of 4, "
                       "got 6") as e:
        run_mask(x, 3)
    assert "test_index_put_gathermask.py" in str(e.value)
    with pytest.raises(ValueError, match="pattern_mode must be an int in 1..7, got 0"):
        run_mask(x, 0)
