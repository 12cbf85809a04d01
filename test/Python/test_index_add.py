"""index_add / index_add_ / Tensor.index_add(_) and atomic_add against
numpy, with duplicate indices (accumulated in index order), alpha, the
tiled path, and the errors of their misuse."""

import numpy as np
import pytest

import pypto
from conftest import rand, run_update


def ref_index_add(x, dim, index, src, alpha=1):
    out = x.copy()
    xs = np.moveaxis(out, dim, 0)
    ss = np.moveaxis(src, dim, 0)
    for j, i in enumerate(index):
        xs[i] = xs[i] + (ss[j] * alpha if alpha != 1 else ss[j])
    return out


run = run_update


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int32, np.int64])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_add_with_duplicates(dtype, dim):
    x = rand((6, 8), dtype, -50, 50, seed=1)
    index = np.array([5, 0, 5, 2, 5, 0], np.int32)
    shape = [6, 8]
    shape[dim] = len(index)
    src = rand(tuple(shape), dtype, -50, 50, seed=2)
    want = ref_index_add(x, dim, index, src)
    for tiles in (None, (2, 4), (3, 3)):
        got = run(lambda a, i, s: pypto.index_add(a, dim, i, s), x, index, src, tiles=tiles)
        if dtype in (np.float16,):
            np.testing.assert_allclose(got, want, rtol=2e-3, atol=0.1)
        else:
            assert (got == want).all(), (tiles, got, want)


def test_index_add_is_deterministic_and_ordered():
    # f16 rounding makes the order visible: 2048 + 1 + 1 ... stays 2048 in
    # index order, where a sum of the ones first would not
    x = np.zeros((1, 4), np.float16)
    x[0, 0] = 2048
    index = np.zeros(8, np.int64)
    src = np.ones((8, 4), np.float16)
    a = run(lambda t, i, s: pypto.index_add(t, 0, i, s), x, index, src)
    b = run(lambda t, i, s: pypto.index_add(t, 0, i, s), x, index, src, tiles=(2, 4))
    assert a[0, 0] == 2048 and a.tobytes() == b.tobytes()
    assert (a[0, 1:] == 8).all()


def test_index_add_in_place_alpha_and_methods():
    x = rand((5, 4), seed=3)
    index = np.array([4, 4, 1], np.int64)
    src = rand((3, 4), seed=4)

    @pypto.frontend.jit
    def k(a: pypto.Tensor(), i: pypto.Tensor(), s: pypto.Tensor(), y: pypto.Tensor()):
        pypto.index_add_(a, 0, i, s, alpha=0.5)
        y[...] = a.index_add(0, i, s) + 0.0
        a.index_add_(0, i, s, alpha=2)

    a, y = x.copy(), np.zeros_like(x)
    k(a, index, src, y)
    half = ref_index_add(x, 0, index, src, 0.5)
    np.testing.assert_allclose(y, ref_index_add(half, 0, index, src), rtol=1e-6)
    np.testing.assert_allclose(a, ref_index_add(half, 0, index, src, 2), rtol=1e-6)


def test_documented_example():
    x = np.zeros((2, 3), np.int32)
    src = np.ones((3, 3), np.int32)
    index = np.array([0, 1, 0], np.int32)
    got = run(lambda t, i, s: pypto.index_add_(t, 0, i, s, alpha=1), x, index, src)
    assert (got == [[2, 2, 2], [1, 1, 1]]).all()


def test_atomic_add():
    dst = rand((6, 8), seed=5)
    src = rand((2, 3), seed=6)

    @pypto.frontend.jit
    def k(s: pypto.Tensor(), d: pypto.Tensor()):
        pypto.atomic_add(s, [1, 2], d)
        pypto.atomic_add(s, [2, 3], d)   # overlaps the first

    d = dst.copy()
    k(src, d)
    want = dst.copy()
    want[1:3, 2:5] += src
    want[2:4, 3:6] += src
    np.testing.assert_allclose(d, want, rtol=1e-6)


def test_errors():
    x = rand((4, 4), seed=7)
    i = np.array([0, 1], np.int32)
    s = rand((2, 4), seed=8)
    with pytest.raises(TypeError, match="alpha must be an int for the integer input") as e:
        run(lambda a, ix, sv: pypto.index_add(a, 0, ix, sv, alpha=0.5),
            x.astype(np.int32), i, s.astype(np.int32))
    assert "test_index_add.py" in str(e.value)
    with pytest.raises(TypeError, match="input must be a float or integer tensor"):
        run(lambda a, ix, sv: pypto.index_add(a, 0, ix, sv), x > 0, i, s > 0)
    with pytest.raises(pypto.CompileError, match="src must have type 'tensor<2x4xf32>'"):
        run(lambda a, ix, sv: pypto.index_add(a, 0, ix, sv), x, i, rand((3, 4), seed=9))
    with pytest.raises(pypto.RuntimeError, match="index 4 at position"):
        run(lambda a, ix, sv: pypto.index_add(a, 0, ix, sv), x, np.array([0, 4], np.int32), s)

    @pypto.frontend.jit
    def k(a: pypto.Tensor(), d: pypto.Tensor()):
        pypto.atomic_add(a, [0], d)
    with pytest.raises(ValueError, match="atomic_add: offsets .1., src .2 dims. and dst"):
        k(s, x)


def test_index_add_ub_variants():
    # PyPTO's UB-resident variants: index_add's numbers, and the op records
    # that its operands live on chip down to every tile it expands to
    x = rand((6, 8), seed=10)
    index = np.array([5, 0, 5, 2], np.int32)
    src = rand((4, 8), seed=11)

    @pypto.frontend.jit
    def k(a: pypto.Tensor(), i: pypto.Tensor(), s: pypto.Tensor(), y: pypto.Tensor()):
        pypto.set_vec_tile_shapes(2, 4)
        y[...] = pypto.index_add_ub(a, 0, i, s, alpha=2) + 0.0
        pypto.index_add__ub(a, 0, i, s)

    a, y = x.copy(), np.zeros_like(x)
    k(a, index, src, y)
    np.testing.assert_allclose(y, ref_index_add(x, 0, index, src, 2), rtol=1e-6)
    np.testing.assert_allclose(a, ref_index_add(x, 0, index, src), rtol=1e-6)
    traced = [ln for ln in k.ir().splitlines() if "pypto.index_add" in ln]
    assert len(traced) == 2 and all("ub" in ln.split("{")[1] for ln in traced), traced
    for stage in ("tile-expand", "final"):
        tiles = [ln for ln in k.ir(stage=stage).splitlines() if "tile.index_add" in ln]
        assert tiles and all(", ub" in ln or "{ub" in ln for ln in tiles), (stage, tiles)
    with pytest.raises(TypeError, match="alpha must be an int or a float"):
        run(lambda t, i, s: pypto.index_add_ub(t, 0, i, s, alpha="2"), x, index, src)
