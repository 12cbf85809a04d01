"""view(..., dtype=): the window's bytes read as another element type
(pypto.bitcast), bit-exact against numpy's .view at every stage, and the
errors of a reinterpretation that cannot be."""

import numpy as np
import pytest

import pypto

VERIFY = {"enable_pass_verify": True}


def bits(seed, shape):
    return np.random.default_rng(seed).integers(-128, 128, shape).astype(np.int8)


@pytest.mark.parametrize("dtype,np_dtype", [(pypto.DT_BF16, np.uint16),
                                            (pypto.DT_FP16, np.float16)])
def test_int8_pairs_as_half_and_back(dtype, np_dtype):
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 16], pypto.DT_INT8), h: pypto.Tensor([4, 8], dtype),
          y: pypto.Tensor([4, 16], pypto.DT_INT8)):
        pypto.set_vec_tile_shapes(4, 8)
        v = pypto.view(x, [4, 16], [0, 0], dtype=dtype)
        h[:] = v
        y[:] = pypto.view(v, dtype=pypto.DT_INT8)
    x = bits(1, (4, 16))
    h = np.zeros((4, 8), np_dtype)
    y = np.zeros((4, 16), np.int8)
    k(x, h, y)
    assert (h.view(np.uint16) == x.view(np.uint16)).all()   # bit-exact, NaNs included
    assert (y == x).all()
    assert "pypto.bitcast" in k.ir()


def test_window_then_reinterpret_f32_as_int8():
    # PyPTO's own example: a [2, 2] f32 tensor viewed as int8 is [2, 8]
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 4], pypto.DT_FP32), y: pypto.Tensor([2, 8], pypto.DT_INT8)):
        pypto.set_vec_tile_shapes(2, 8)
        y[:] = pypto.view(x, [2, 2], [1, 2], dtype=pypto.DT_INT8)
    x = np.random.default_rng(3).random((4, 4)).astype(np.float32)
    y = np.zeros((2, 8), np.int8)
    k(x, y)
    assert (y == np.ascontiguousarray(x[1:3, 2:4]).view(np.int8)).all()


def test_computed_value_reinterpreted_inside_a_loop():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([6, 8], pypto.DT_INT16), y: pypto.Tensor([6, 16], pypto.DT_INT8)):
        pypto.set_vec_tile_shapes(1, 8)
        for i in pypto.loop(6):
            s = x[i:i + 1, :] + 3
            y[i:i + 1, :] = pypto.view(s, dtype=pypto.DT_INT8)
    x = np.random.default_rng(4).integers(-30000, 30000, (6, 8)).astype(np.int16)
    y = np.zeros((6, 16), np.int8)
    k(x, y)
    assert (y == (x + np.int16(3)).view(np.int8)).all()


def test_same_width_reinterpretation():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_INT32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(4, 8)
        y[:] = pypto.view(x, dtype=pypto.DT_FP32)
    x = np.arange(32, dtype=np.int32).reshape(4, 8) * 7919
    y = np.zeros((4, 8), np.float32)
    k(x, y)
    assert (y.view(np.int32) == x).all()


def test_odd_last_dim_is_a_located_error():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 3], pypto.DT_INT8), y: pypto.Tensor([4, 1], pypto.DT_BF16)):
        y[:] = pypto.view(x, dtype=pypto.DT_BF16)
    with pytest.raises(ValueError, match=r"test_view_dtype.py:\d+.*the last dim \(3\) of DT_INT8 "
                                         r"elements does not hold a whole number of DT_BF16"):
        k(np.zeros((4, 3), np.int8), np.zeros((4, 1), np.uint16))


def test_bool_is_a_located_error():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_BOOL), y: pypto.Tensor([4, 8], pypto.DT_INT8)):
        y[:] = pypto.view(x, dtype=pypto.DT_INT8)
    with pytest.raises(TypeError, match=r"test_view_dtype.py:\d+.*cannot reinterpret the bits"):
        k(np.zeros((4, 8), np.bool_), np.zeros((4, 8), np.int8))
