"""Partial tiles: `view(..., valid_shape=[...])` with static and dynamic
valid sizes, the ops that honour it (reductions and matmul ignore the
region beyond it, elementwise ops carry it, stores write only the valid
part), `pypto.fillpad`, and the errors of their misuse. Every kernel runs
with per-stage verification, so the Tile level must agree too."""

import numpy as np
import pytest

import pypto
from conftest import assert_close, rand

VERIFY = {"enable_pass_verify": True}

REDUCE = {"sum": (np.sum, 0.0), "amax": (np.max, -np.inf), "amin": (np.min, np.inf),
          "prod": (np.prod, 1.0)}


@pytest.mark.parametrize("valid", [0, 1, 5, 8])
@pytest.mark.parametrize("name", sorted(REDUCE))
def test_static_valid_reduction_ignores_the_rest(name, valid):
    op = getattr(pypto, name)

    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 1], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(2, 8)
        w = pypto.view(x, [4, 8], [0, 0], valid_shape=[4, valid])
        y[:] = op(w, dim=1, keepdim=True)
    x = rand((4, 8), seed=1, lo=0.5, hi=1.5)
    y = np.zeros((4, 1), np.float32)
    k(x, y)
    fn, neutral = REDUCE[name]
    want = fn(x[:, :valid], axis=1, keepdims=True) if valid else np.full((4, 1), neutral)
    np.testing.assert_allclose(y, want.astype(np.float32), rtol=1e-5)


@pytest.mark.parametrize("valid", [1, 3, 8])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reduction_picks_inside_the_valid_shape(name, valid):
    op = getattr(pypto, name)

    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8], pypto.DT_INT32), y: pypto.Tensor([4, 1], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(4, 8)
        w = pypto.view(x, [4, 8], [0, 0], valid_shape=[4, valid])
        y[:] = pypto.cast(op(w, dim=1, keepdim=True), pypto.DT_INT32)
    x = rand((4, 8), np.int32, lo=-50, hi=50, seed=2)
    x[:, valid:] = 1000 if name == "argmax" else -1000   # would win if counted
    y = np.zeros((4, 1), np.int32)
    k(x, y)
    fn = np.argmax if name == "argmax" else np.argmin
    assert (y[:, 0] == fn(x[:, :valid], axis=1)).all()


def test_store_writes_only_the_valid_part_of_a_reduction():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 1], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(2, 8)
        w = pypto.view(x, [4, 8], [0, 0], valid_shape=[3, 8])
        y[:] = pypto.sum(w, dim=1, keepdim=True)
    x = rand((4, 8), seed=3)
    y = np.full((4, 1), 7.0, np.float32)
    k(x, y)
    assert_close(y[:3], x[:3].sum(1, keepdims=True))
    assert (y[3] == 7.0).all()


@pytest.mark.parametrize("rows,cols", [(0, 0), (1, 8), (2, 5), (4, 8)])
def test_elementwise_result_is_stored_in_its_valid_part(rows, cols):
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([6, 8], pypto.DT_FP32), y: pypto.Tensor([6, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(2, 8)
        w = pypto.view(x, [4, 8], [2, 0], valid_shape=[rows, cols])
        z = pypto.cast(pypto.exp(w) * 2.0 + w, pypto.DT_FP16)
        y[0:4, :] = pypto.cast(z, pypto.DT_FP32)
    x = rand((6, 8), seed=4)
    y = np.full((6, 8), -3.0, np.float32)
    k(x, y)
    want = np.full((6, 8), -3.0, np.float32)
    win = x[2:6]
    want[:rows, :cols] = (np.exp(win) * 2 + win).astype(np.float16)[:rows, :cols]
    assert_close(y, want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("m,kk,n", [(3, 5, 4), (4, 8, 6), (1, 1, 1), (4, 0, 6)])
def test_matmul_ignores_the_region_beyond_the_valid_shape(m, kk, n):
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), b: pypto.Tensor([8, 6], pypto.DT_FP32),
          y: pypto.Tensor([4, 6], pypto.DT_FP32)):
        pypto.set_cube_tile_shapes([4, 4], [8, 8], [8, 8])
        pypto.set_vec_tile_shapes(4, 8)
        va = pypto.view(a, [4, 8], [0, 0], valid_shape=[m, kk])
        vb = pypto.view(b, [8, 6], [0, 0], valid_shape=[kk, n])
        y[:] = pypto.matmul(va, vb, pypto.DT_FP32)
    a, b = rand((4, 8), seed=5), rand((8, 6), seed=6)
    y = np.full((4, 6), 9.0, np.float32)
    k(a, b, y)
    want = np.full((4, 6), 9.0, np.float32)
    want[:m, :n] = a[:m, :kk] @ b[:kk, :n]
    assert_close(y, want, rtol=1e-5, atol=1e-5)


def test_dynamic_valid_sizes_from_a_tensor():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), lens: pypto.Tensor([4], pypto.DT_INT32),
          m: pypto.Tensor([4, 1], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 8)
        for b in pypto.loop(4):
            n = lens[b]
            w = pypto.view(x, [1, 8], [b, 0], valid_shape=[1, n])
            m[b:b + 1, :] = pypto.amax(w, dim=1, keepdim=True)
            y[b:b + 1, :] = w * 2.0
    x = rand((4, 8), seed=7)
    lens = np.array([0, 1, 5, 8], np.int32)
    m = np.zeros((4, 1), np.float32)
    y = np.full((4, 8), 5.0, np.float32)
    k(x, lens, m, y)
    want_y = np.full((4, 8), 5.0, np.float32)
    for b, n in enumerate(lens):
        want_y[b, :n] = x[b, :n] * 2
        assert m[b, 0] == (x[b, :n].max() if n else -np.inf)
    assert_close(y, want_y)
    lens2 = np.array([8, 0, 2, 7], np.int32)     # read at run time: no recompile
    k(x, lens2, m, y)
    assert k.num_compiles == 1
    for b, n in enumerate(lens2):
        assert m[b, 0] == (x[b, :n].max() if n else -np.inf)


def test_blocks_with_a_partial_last_one():
    """A sum over a sequence of lens[b] rows in blocks of 4 rows: the loop
    runs over the visible blocks only, the last one partial."""
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([3, 16, 8], pypto.DT_FP32), lens: pypto.Tensor([3], pypto.DT_INT32),
          y: pypto.Tensor([3, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 4, 8)
        for b in pypto.loop(3):
            n = lens[b]
            y[b:b + 1, :] = 0.0
            for j in pypto.loop((n + 3) // 4):
                w = pypto.view(x, [1, 4, 8], [b, j * 4, 0],
                               valid_shape=[1, pypto.min(n - j * 4, 4), 8])
                y[b:b + 1, :] = y[b:b + 1, :] + pypto.sum(w, dim=1)
    x = rand((3, 16, 8), seed=8)
    lens = np.array([6, 16, 1], np.int32)
    y = np.zeros((3, 8), np.float32)
    k(x, lens, y)
    assert_close(y, np.stack([x[b, :n].sum(0) for b, n in enumerate(lens)]), atol=1e-5)


@pytest.mark.parametrize("value,np_value", [(0, 0.0), ("-inf", -np.inf), (2.5, 2.5)])
def test_fillpad_fills_beyond_the_valid_shape(value, np_value):
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 4], pypto.DT_FP32), y: pypto.Tensor([4, 4], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(2, 4)
        w = pypto.view(x, [4, 4], [0, 0], valid_shape=[2, 2])
        y[:] = pypto.fillpad(w, "constant", value)
    x = rand((4, 4), seed=9)
    y = np.zeros((4, 4), np.float32)
    k(x, y)
    want = np.full((4, 4), np_value, np.float32)
    want[:2, :2] = x[:2, :2]
    np.testing.assert_array_equal(y, want)


def test_fillpad_of_an_int_tensor_and_of_a_whole_one():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([2, 8], pypto.DT_INT32), y: pypto.Tensor([2, 8], pypto.DT_INT32),
          z: pypto.Tensor([2, 8], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(2, 8)
        y[:] = pypto.fillpad(pypto.view(x, [2, 8], [0, 0], valid_shape=[1, 3]), value=-7)
        z[:] = pypto.fillpad(x, value=-7)      # no valid shape: unchanged
    x = rand((2, 8), np.int32, lo=0, hi=9, seed=10)
    y, z = np.zeros_like(x), np.zeros_like(x)
    k(x, y, z)
    want = np.full_like(x, -7)
    want[:1, :3] = x[:1, :3]
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(z, x)


def _view_kernel(valid):
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = pypto.view(x, [4, 8], [0, 0], valid_shape=valid)
    return k


@pytest.mark.parametrize("valid,exc,msg", [
    ([4, 9], ValueError, r"view: valid_shape\[1\] is 9, outside \[0, 8\] \(the size of dim 1\)"),
    ([-1, 8], ValueError, r"view: valid_shape\[0\] is -1, outside \[0, 4\] \(the size of dim 0\)"),
    ([4], ValueError, r"view: valid_shape has 1 entries, the shape \[4, 8\] has 2 dims"),
    ([4, 2.5], TypeError, r"view: valid_shape\[1\] must be an int or a symbolic scalar, got 2.5"),
    (4, TypeError, r"view: valid_shape must be a list of ints or symbolic scalars, got 4"),
])
def test_misuse_is_a_located_error(valid, exc, msg):
    k = _view_kernel(valid)
    with pytest.raises(exc, match=r"test_valid_shape.py:\d+:\d+: error: " + msg):
        k(np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32))


def test_fillpad_misuse_is_a_located_error():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = pypto.fillpad(x, "reflect")
    with pytest.raises(pypto.UnsupportedError,
                       match=r"test_valid_shape.py:\d+:\d+: error: fillpad: mode 'reflect' is "
                             r"not supported; only 'constant'"):
        k(np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32))


def test_two_partial_operands_are_valid_where_both_are():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([2, 8], pypto.DT_FP32), lens: pypto.Tensor([2], pypto.DT_INT32),
          y: pypto.Tensor([2, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 8)
        for b in pypto.loop(2):
            a = pypto.view(x, [1, 8], [b, 0], valid_shape=[1, lens[b]])
            c = pypto.view(x, [1, 8], [b, 0], valid_shape=[1, 5])
            y[b:b + 1, :] = a + c
    x = rand((2, 8), seed=11)
    y = np.full((2, 8), 4.0, np.float32)
    k(x, np.array([3, 7], np.int32), y)
    want = np.full((2, 8), 4.0, np.float32)
    want[0, :3], want[1, :5] = 2 * x[0, :3], 2 * x[1, :5]
    assert_close(y, want)


def test_getitem_with_a_valid_shape():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 1], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(4, 8)
        y[:] = pypto.sum(x.getitem((slice(0, 4), slice(0, 8)), valid_shape=[4, 3]), dim=1,
                         keepdim=True)
    x = rand((4, 8), seed=12)
    y = np.zeros((4, 1), np.float32)
    k(x, y)
    assert_close(y, x[:, :3].sum(1, keepdims=True))
