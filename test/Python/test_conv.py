"""pypto.conv (1-D, 2-D, 3-D; strides, paddings, dilations, groups, bias)
against a direct numpy convolution over its dtypes, with per-stage
verification so that every level agrees, and the errors of its misuse."""

import itertools

import numpy as np
import pytest

import pypto
from conftest import from_bf16, to_bf16

VERIFY = {"enable_pass_verify": True}


def conv_ref(x, w, strides, pads, dil, groups, bias=None):
    """The definition, in float64: out[n, o, p] = sum over c, k of
    w[o, c, k] * xpadded[n, g*Cg + c, p * stride + k * dilation]."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(nd)])
    n, c, co, kernel = x.shape[0], x.shape[1], w.shape[0], w.shape[2:]
    outs = [(xp.shape[2 + i] - dil[i] * (kernel[i] - 1) - 1) // strides[i] + 1
            for i in range(nd)]
    y = np.zeros([n, co] + outs)
    cg, og = c // groups, co // groups
    for g in range(groups):
        for k in itertools.product(*[range(kk) for kk in kernel]):
            sl = tuple(slice(k[i] * dil[i], k[i] * dil[i] + (outs[i] - 1) * strides[i] + 1,
                             strides[i]) for i in range(nd))
            win = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + tuple(k)]
            y[:, g * og:(g + 1) * og] += np.einsum("oc,nc...->no...", wk, win)
    if bias is not None:
        y += bias.astype(np.float64).reshape([1, co] + [1] * nd)
    return y


STORE = {pypto.DT_FP32: np.float32, pypto.DT_FP16: np.float16, pypto.DT_BF16: np.uint16}
TOL = {pypto.DT_FP32: 1e-5, pypto.DT_FP16: 2e-3, pypto.DT_BF16: 1.6e-2}


def values(shape, dt, rng):
    v = rng.uniform(-1, 1, shape).astype(np.float32)
    if dt is pypto.DT_BF16:
        b = to_bf16(v)
        return b, from_bf16(b)
    s = v.astype(STORE[dt])
    return s, s.astype(np.float32)


def run_conv(dt, xs, ws, strides, pads, dil, groups=1, bias=False, vec=None, seed=0):
    rng = np.random.default_rng(seed)
    x, xf = values(xs, dt, rng)
    w, wf = values(ws, dt, rng)
    b, bf = values((ws[0],), dt, rng)
    ref = conv_ref(xf, wf, strides, pads, dil, groups, bf if bias else None)
    y = np.zeros(ref.shape, STORE[dt])
    params = {}

    @pypto.frontend.jit(verify_options=VERIFY)
    def k(a: pypto.Tensor(list(xs), dt), ww: pypto.Tensor(list(ws), dt),
          bb: pypto.Tensor([ws[0]], dt), out: pypto.Tensor(list(ref.shape), dt)):
        if vec:
            pypto.set_vec_tile_shapes(*vec)
        if bias:
            params["bias_tensor"] = bb
        out[:] = pypto.conv(a, ww, dt, strides, pads, dil, groups=groups,
                            extend_params=params or None)
    k(x, w, b, y)
    got = from_bf16(y) if dt is pypto.DT_BF16 else y.astype(np.float32)
    np.testing.assert_allclose(got, ref, rtol=TOL[dt], atol=TOL[dt] * np.abs(ref).max())
    return k


@pytest.mark.parametrize("dt", [pypto.DT_FP32, pypto.DT_FP16, pypto.DT_BF16])
def test_conv2d_strides_paddings_dilations_groups_bias(dt):
    run_conv(dt, (2, 4, 7, 9), (6, 2, 3, 2), [2, 1], [1, 0, 1, 1], [1, 2], groups=2,
             bias=True, vec=(1, 4, 8, 16))


@pytest.mark.parametrize("dt", [pypto.DT_FP32, pypto.DT_FP16])
def test_conv2d_pointwise_as_in_pypto_docs(dt):
    run_conv(dt, (1, 32, 8, 16), (32, 32, 1, 1), [1, 1], [0, 0, 0, 0], [1, 1],
             vec=(1, 32, 8, 16), seed=1)


def test_conv1d_stride_and_padding():
    run_conv(pypto.DT_FP32, (2, 3, 20), (5, 3, 3), [3], [2, 1], [1], bias=True, seed=2)


def test_conv3d_depthwise():
    run_conv(pypto.DT_FP32, (1, 4, 3, 5, 6), (4, 1, 2, 2, 3), [1, 2, 1],
             [0, 1, 1, 0, 2, 2], [1, 1, 2], groups=4, seed=3)


@pytest.mark.parametrize("dt", [pypto.DT_FP32, pypto.DT_BF16])
def test_padding_and_strides_reach_the_pto_level(dt, monkeypatch):
    """The zero padding (a tile.full), strides and dilations lower to PTO:
    the compiled back end runs the convolution, not the interpreter."""
    monkeypatch.setenv("PTO_BACKEND", "compiled")
    k = run_conv(dt, (2, 4, 7, 9), (6, 2, 3, 2), [2, 1], [1, 0, 1, 1], [1, 2], groups=2,
                 bias=True, vec=(1, 4, 8, 16))
    assert k.backend == "host"
    k = run_conv(dt, (2, 3, 20), (5, 3, 3), [3], [2, 1], [1], bias=True, seed=2)
    assert k.backend == "host"


def _kernel(xs, ws, dt=pypto.DT_FP32, wdt=pypto.DT_FP32, **kw):
    args = dict(out_dtype=dt, strides=[1, 1], paddings=[0, 0, 0, 0], dilations=[1, 1])
    args.update(kw)

    @pypto.frontend.jit
    def k(a: pypto.Tensor(list(xs), pypto.DT_FP32), ww: pypto.Tensor(list(ws), wdt),
          out: pypto.Tensor([1], pypto.DT_FP32)):
        pypto.conv(a, ww, args.pop("out_dtype"), args.pop("strides"), args.pop("paddings"),
                   args.pop("dilations"), **args)
    return k


@pytest.mark.parametrize("kw,exc,msg", [
    (dict(transposed=True), pypto.UnsupportedError,
     r"conv: transposed convolution is not supported"),
    (dict(output_paddings=[1, 1]), ValueError,
     r"conv: output_paddings apply to a transposed convolution only"),
    (dict(out_dtype=pypto.DT_FP16), TypeError,
     r"conv: out_dtype must be the input's dtype \(DT_FP32\), got DT_FP16"),
    (dict(strides=[1]), ValueError, r"conv: strides needs 2 values for this convolution, got 1"),
    (dict(strides=[0, 1]), ValueError, r"conv: strides must lie in \[1, 63\], got \[0, 1\]"),
    (dict(dilations=[1, 64]), ValueError, r"conv: dilations must lie in \[1, 63\]"),
    (dict(paddings=[0, 0, 3, 0]), ValueError,
     r"conv: each padding must be smaller than its kernel size"),
    (dict(paddings=(0, 0, 0.5, 0)), TypeError, r"conv: paddings must be a list of ints"),
    (dict(groups=3), ValueError, r"conv: 4 input channels, 6 output channels and weight's 4 "
     r"channels per group do not fit groups=3"),
    (dict(extend_params={"relu_type": pypto.ReLuType.RELU}), pypto.UnsupportedError,
     r"conv: extend_params relu_type not supported"),
])
def test_misuse_is_a_located_error(kw, exc, msg):
    k = _kernel((1, 4, 6, 6), (6, 4, 3, 3), **kw)
    with pytest.raises(exc, match=r"test_conv.py:\d+:\d+: error: " + msg):
        k(np.zeros((1, 4, 6, 6), np.float32), np.zeros((6, 4, 3, 3), np.float32),
          np.zeros(1, np.float32))


def test_shape_and_dtype_misuse():
    k = _kernel((1, 4, 6), (6, 4, 3, 3))
    with pytest.raises(ValueError, match=r"test_conv.py:\d+:\d+: error: conv: input_conv and "
                       r"weight must both have rank 3, 4 or 5 \(1-D, 2-D, 3-D\), got 3 and 4"):
        k(np.zeros((1, 4, 6), np.float32), np.zeros((6, 4, 3, 3), np.float32),
          np.zeros(1, np.float32))
    k = _kernel((1, 4, 6, 6), (6, 4, 3, 3), wdt=pypto.DT_FP16)
    with pytest.raises(TypeError, match=r"conv: weight is DT_FP16, input_conv DT_FP32; "
                       r"they must agree"):
        k(np.zeros((1, 4, 6, 6), np.float32), np.zeros((6, 4, 3, 3), np.float16),
          np.zeros(1, np.float32))
    k = _kernel((1, 4, 2, 6), (6, 4, 3, 3))
    with pytest.raises(ValueError, match=r"conv: spatial dim 0 of size 2 \(padded 0 \+ 0\) "
                       r"is smaller than the kernel's span 3"):
        k(np.zeros((1, 4, 2, 6), np.float32), np.zeros((6, 4, 3, 3), np.float32),
          np.zeros(1, np.float32))
