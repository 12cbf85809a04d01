"""The quantised matmul: DT_INT8 x DT_INT8 with a DT_FP16 / DT_BF16 /
DT_FP32 result through extend_params (a per-tensor `scale` or a
per-channel `scale_tensor`, and `relu_type`), checked against numpy at
every level (per-stage verification), and the errors of its misuse."""

import numpy as np
import pytest

import pypto
from conftest import from_bf16, rand

VERIFY = {"enable_pass_verify": True}
NP_OUT = {pypto.DT_FP16: np.float16, pypto.DT_BF16: np.uint16, pypto.DT_FP32: np.float32}


def dequant_ref(qa, qb, scale, relu):
    """f32(the exact i32 sums) * scale, then relu, in float64."""
    acc = qa.astype(np.int64) @ qb.astype(np.int64)
    out = acc.astype(np.float32).astype(np.float64) * np.asarray(scale, np.float64)
    return np.maximum(out, 0.0) if relu else out


def as_f64(got, dt):
    return from_bf16(got).astype(np.float64) if dt is pypto.DT_BF16 else got.astype(np.float64)


TOL = {pypto.DT_FP16: 2e-3, pypto.DT_BF16: 1.6e-2, pypto.DT_FP32: 1e-6}


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("dt", [pypto.DT_FP16, pypto.DT_BF16, pypto.DT_FP32])
def test_per_tensor_scale(dt, relu):
    scale = 0.0123
    params = {"scale": scale}
    if relu:
        params["relu_type"] = pypto.ReLuType.RELU

    @pypto.frontend.jit(verify_options=VERIFY)
    def k(a: pypto.Tensor([32, 64], pypto.DT_INT8), b: pypto.Tensor([64, 48], pypto.DT_INT8),
          y: pypto.Tensor([32, 48], dt)):
        pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 16])
        pypto.set_vec_tile_shapes(16, 16)
        y[:] = pypto.matmul(a, b, dt, extend_params=params)
    qa = rand((32, 64), np.int8, -128, 127, seed=1)
    qb = rand((64, 48), np.int8, -128, 127, seed=2)
    y = np.zeros((32, 48), NP_OUT[dt])
    k(qa, qb, y)
    want = dequant_ref(qa, qb, np.float32(scale), relu)
    np.testing.assert_allclose(as_f64(y, dt), want, rtol=TOL[dt], atol=1e-3)
    if relu:
        assert (as_f64(y, dt) >= 0).all()


@pytest.mark.parametrize("as_bits", [False, True])
def test_per_channel_scale_tensor(as_bits):
    scale = rand((1, 48), np.float32, -0.02, 0.02, seed=3)
    # PyPTO's DT_INT64 form: the f32 bits in the low half of each element
    bits = scale.view(np.uint32).astype(np.int64)
    sdt = pypto.DT_INT64 if as_bits else pypto.DT_FP32

    @pypto.frontend.jit(verify_options=VERIFY)
    def k(a: pypto.Tensor([16, 40], pypto.DT_INT8), b: pypto.Tensor([40, 48], pypto.DT_INT8),
          s: pypto.Tensor([1, 48], sdt), y: pypto.Tensor([16, 48], pypto.DT_BF16)):
        pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
        y[:] = pypto.matmul(a, b, pypto.DT_BF16, extend_params={
            "scale_tensor": s, "relu_type": pypto.ReLuType.RELU})
    qa = rand((16, 40), np.int8, -128, 127, seed=4)
    qb = rand((40, 48), np.int8, -128, 127, seed=5)
    y = np.zeros((16, 48), np.uint16)
    k(qa, qb, bits if as_bits else scale, y)
    want = dequant_ref(qa, qb, scale, True)
    np.testing.assert_allclose(as_f64(y, pypto.DT_BF16), want, rtol=1.6e-2, atol=1e-3)


def test_relu_type_without_bias_is_the_matmul_attribute():
    @pypto.frontend.jit
    def k(a: pypto.Tensor([8, 16], pypto.DT_FP32), b: pypto.Tensor([16, 8], pypto.DT_FP32),
          y: pypto.Tensor([8, 8], pypto.DT_FP32)):
        y[:] = pypto.matmul(a, b, extend_params={"relu_type": pypto.ReLuType.RELU})
    a, b = rand((8, 16), seed=6), rand((16, 8), seed=7)
    y = np.zeros((8, 8), np.float32)
    k(a, b, y)
    np.testing.assert_allclose(y, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    assert "{relu}" in k.ir() and "pypto.relu" not in k.ir()


def _kernel(dt_in, params, sdt=pypto.DT_FP32):
    @pypto.frontend.jit
    def k(a: pypto.Tensor([8, 16], dt_in), b: pypto.Tensor([16, 8], dt_in),
          s: pypto.Tensor([1, 8], sdt), y: pypto.Tensor([8, 8], pypto.DT_FP16)):
        p = dict(params)
        if p.get("scale_tensor") == "s":
            p["scale_tensor"] = s
        y[:] = pypto.matmul(a, b, pypto.DT_FP16, extend_params=p)
    return k


NP_IN = {pypto.DT_INT8: np.int8, pypto.DT_FP16: np.float16}


@pytest.mark.parametrize("dt_in,params,sdt,exc,msg", [
    (pypto.DT_FP16, {"scale": 0.5}, pypto.DT_FP32, pypto.UnsupportedError,
     r"matmul: extend_params scale / scale_tensor dequantise DT_INT8 products"),
    (pypto.DT_INT8, {"scale": 0.5, "scale_tensor": "s"}, pypto.DT_FP32, ValueError,
     r"matmul: give extend_params scale or scale_tensor, not both"),
    (pypto.DT_INT8, {"scale": "half"}, pypto.DT_FP32, TypeError,
     r"matmul: extend_params scale must be a float, got 'half'"),
    (pypto.DT_INT8, {"scale_tensor": "s"}, pypto.DT_FP16, TypeError,
     r"matmul: scale_tensor must be DT_FP32, or DT_INT64 holding f32 bits, got DT_FP16"),
    (pypto.DT_INT8, {"scale": 0.5, "relu_type": 3}, pypto.DT_FP32, ValueError,
     r"matmul: relu_type must be a pypto.ReLuType, got 3"),
    (pypto.DT_INT8, {"scale": 0.5, "trans_mode": 1}, pypto.DT_FP32, pypto.UnsupportedError,
     r"matmul extend_params trans_mode not supported"),
])
def test_misuse_is_a_located_error(dt_in, params, sdt, exc, msg):
    k = _kernel(dt_in, params, sdt)
    arr = np.zeros((8, 16), NP_IN[dt_in])
    s = np.zeros((1, 8), np.float16 if sdt is pypto.DT_FP16 else np.float32)
    with pytest.raises(exc, match=r"test_quant_matmul.py:\d+:\d+: error: " + msg):
        k(arr, arr.reshape(16, 8), s, np.zeros((8, 8), np.float16))
