"""The 8-bit floats (DT_FP8E4M3, DT_FP8E5M2, DT_FP8E8M0) and the MX ops
built on them (quant_mx, scaled_mm) against numpy. The FP8 oracle below is
written from the OCP 8-bit floating point and MX specifications alone:
decoding by bit fields, encoding by searching the table of every code for
the nearest value, so that it shares nothing with the C conversions it
checks."""

import warnings

import numpy as np
import pytest

import pypto

# ---------------------------------------------------------------- oracle --

# name: (exponent bits, mantissa bits, bias, has infinities, signed)
FORMATS = {
    "e4m3": (4, 3, 7, False, True),
    "e5m2": (5, 2, 15, True, True),
    "e8m0": (8, 0, 127, False, False),
}
DT = {"e4m3": pypto.DT_FP8E4M3, "e5m2": pypto.DT_FP8E5M2, "e8m0": pypto.DT_FP8E8M0}


def decode(fmt, codes):
    """float64 values of uint8 codes."""
    eb, mb, bias, has_inf, signed = FORMATS[fmt]
    out = []
    for c in np.asarray(codes, np.uint8).reshape(-1).tolist():
        if not signed:
            out.append(np.nan if c == 0xFF else 2.0 ** (c - bias))
            continue
        sign = -1.0 if c & 0x80 else 1.0
        e, m = (c >> mb) & ((1 << eb) - 1), c & ((1 << mb) - 1)
        top = e == (1 << eb) - 1
        if has_inf and top:
            out.append(sign * np.inf if m == 0 else np.nan)
        elif not has_inf and top and m == (1 << mb) - 1:
            out.append(np.nan)
        elif e == 0:
            out.append(sign * m * 2.0 ** (1 - bias - mb))
        else:
            out.append(sign * (1 + m / 2 ** mb) * 2.0 ** (e - bias))
    return np.array(out).reshape(np.shape(codes))


def _positive_table(fmt):
    """(codes, values) of the finite values >= 0 in increasing order, plus
    the value one step past the maximum (the overflow point), code None."""
    signed = FORMATS[fmt][4]
    codes = [c for c in range(0x80 if signed else 0x100)
             if np.isfinite(decode(fmt, [c])[0])]
    vals = [decode(fmt, [c])[0] for c in codes]
    # the next binade's first value for E8M0, the next step of the top
    # binade's spacing for the others
    vals.append(2 * vals[-1] if not signed else vals[-1] + (vals[-1] - vals[-2]))
    return codes + [None], np.array(vals)


def encode(fmt, x, saturate=False, away=False):
    """uint8 codes of float64 values: to nearest, ties to the even code
    (E8M0's significand is its implicit 1 alone, no neighbour is even: a tie
    goes up, as in LLVM's APFloat) or with `away` to the larger magnitude
    (the one past the maximum too), IEEE's overflow rule, then the OCP
    choices for what a format cannot hold."""
    eb, mb, bias, has_inf, signed = FORMATS[fmt]
    codes, vals = _positive_table(fmt)
    nan = 0xFF if not signed else 0x7F
    maxc = codes[-2]
    out = []
    for v in np.asarray(x, np.float64).reshape(-1).tolist():
        if np.isnan(v) or (not signed and v < 0):
            out.append(nan | (0x80 if signed and np.signbit(v) else 0))
            continue
        s = 0x80 if signed and np.signbit(v) else 0
        a = abs(v)
        if np.isinf(a):
            c = (0x7C if has_inf else (maxc if saturate else nan))
            out.append(c | s)
            continue
        i = int(np.searchsorted(vals, a))       # vals[i-1] < a <= vals[i]
        if i == 0:
            j = 0
        elif i == len(vals):
            j = len(vals) - 1
        else:
            lo, hi = vals[i - 1], vals[i]
            if a - lo < hi - a:
                j = i - 1
            elif a - lo > hi - a:
                j = i
            elif signed and not away:
                j = i - 1 if (codes[i - 1] % 2 == 0) else i
            else:
                j = i
        if codes[j] is None:                    # overflow
            c = maxc if saturate else (0x7C if has_inf else nan)
        else:
            c = codes[j]
        out.append(c | s)
    return np.array(out, np.uint8).reshape(np.shape(x))


def test_oracle_on_the_spec_boundaries():
    # OCP 8-bit FP v1.0, table 1: max normal, min normal, min subnormal
    assert decode("e4m3", [0x7E, 0x08, 0x01]).tolist() == [448, 2 ** -6, 2 ** -9]
    assert decode("e5m2", [0x7B, 0x04, 0x01]).tolist() == [57344, 2 ** -14, 2 ** -16]
    assert np.isnan(decode("e4m3", [0x7F, 0xFF])).all()
    assert np.isinf(decode("e5m2", [0x7C, 0xFC])).all()
    assert np.isnan(decode("e5m2", [0x7D, 0x7E, 0x7F])).all()
    # OCP MX v1.0: E8M0 spans 2^-127 .. 2^127, 0xFF is NaN
    assert decode("e8m0", [0, 127, 254]).tolist() == [2.0 ** -127, 1, 2.0 ** 127]
    assert np.isnan(decode("e8m0", [255])).all()
    # rounding: the midpoint above the maximum overflows, below it rounds
    assert encode("e4m3", [464, 465, 480]).tolist() == [0x7E, 0x7F, 0x7F]
    assert encode("e4m3", [465, 1e9], saturate=True).tolist() == [0x7E, 0x7E]
    assert encode("e5m2", [61439, 61440]).tolist() == [0x7B, 0x7C]
    assert encode("e5m2", [61440], saturate=True).tolist() == [0x7B]
    # half the smallest subnormal ties to zero; 1.5x rounds to even (2x)
    assert encode("e4m3", [2 ** -10, 1.5 * 2 ** -9]).tolist() == [0x00, 0x02]
    assert encode("e8m0", [1.5, 3, 0, -1, 2.0 ** 128]).tolist() == [128, 129, 0, 255, 255]
    # every code decodes and re-encodes to itself
    for fmt in FORMATS:
        codes = np.arange(256, dtype=np.uint8)
        vals = decode(fmt, codes)
        fin = np.isfinite(vals)
        assert (encode(fmt, vals[fin]) == codes[fin]).all(), fmt


# ------------------------------------------------------- casts through C --

def run_cast(x, dt, out_np, out_dt=None, **kw):
    out = np.zeros(x.shape, out_np)
    ann = pypto.Tensor([], out_dt) if out_dt else pypto.Tensor()
    in_dt = x.dtype

    def k(a, z):
        z[...] = pypto.cast(a, dt, **kw)
    k.__annotations__ = {"a": pypto.Tensor([], in_dt) if isinstance(in_dt, pypto.DataType)
                         else pypto.Tensor(), "z": ann}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # 8-bit floats run in the interpreter
        pypto.frontend.jit(k)(x.arr if hasattr(x, "arr") else x, out)
    return out


class Typed:
    """A uint8 array of 8-bit float codes with the dtype it holds."""
    def __init__(self, arr, dtype):
        self.arr, self.dtype, self.shape = arr, dtype, arr.shape


def sweep(fmt):
    """Every finite value of the format, the midpoints between neighbours
    (ties) and points just beside them, past the maximum, and specials."""
    codes, vals = _positive_table(fmt)
    mids = (vals[1:] + vals[:-1]) / 2
    pts = np.concatenate([vals, mids, mids * (1 + 2 ** -20), mids * (1 - 2 ** -20),
                          [vals[-1] * 4, np.inf, np.nan, 0.0]])
    if FORMATS[fmt][4]:
        pts = np.concatenate([pts, -pts])
    # the points must be f32 values for the f32 -> fp8 path
    with np.errstate(over="ignore"):
        pts = pts[pts.astype(np.float32).astype(np.float64) == pts]
    return np.concatenate([pts, [np.nan]])[None, :]


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("sat", [False, True])
def test_f32_to_fp8_matches_the_oracle(fmt, sat):
    x = sweep(fmt).astype(np.float32)
    got = run_cast(x, DT[fmt], np.uint8, DT[fmt], satmode=sat)
    want = encode(fmt, x.astype(np.float64), saturate=sat)
    bad = got != want
    assert not bad.any(), list(zip(x[bad].tolist(), got[bad].tolist(), want[bad].tolist()))


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("np_dt", [np.float32, np.float16])
def test_fp8_to_float_decodes_every_code(fmt, np_dt):
    codes = np.arange(256, dtype=np.uint8)[None, :]
    got = run_cast(Typed(codes, DT[fmt]), pypto.DT_FP32 if np_dt is np.float32
                   else pypto.DT_FP16, np_dt)
    want = decode(fmt, codes).astype(np_dt)
    np.testing.assert_array_equal(got, want)


def test_f16_and_bf16_sources_round_once():
    # f16 values between E4M3 neighbours, exactly at ties and beside them
    x = np.array([[1.0625, 1.0626, 1.1875, 240.0, 464.0, 500.0, -2 ** -10, 6e-5]])
    got = run_cast(x.astype(np.float16), pypto.DT_FP8E4M3, np.uint8, pypto.DT_FP8E4M3)
    np.testing.assert_array_equal(got, encode("e4m3", x.astype(np.float16).astype(np.float64)))
    bf = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    bf_vals = (bf.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    got = run_cast(Typed(bf, pypto.DT_BF16), pypto.DT_FP8E5M2, np.uint8, pypto.DT_FP8E5M2)
    np.testing.assert_array_equal(got, encode("e5m2", bf_vals))


def test_fp8_dtype_enum():
    for dt in (pypto.DT_FP8E4M3, pypto.DT_FP8E5M2, pypto.DT_FP8E8M0):
        assert pypto.bytes_of(dt) == 1 and dt.is_fp8 and not dt.is_float
        assert pypto.DataType[dt.name] is dt
        with pytest.raises(TypeError, match=f"pypto.Element: {dt.name} is a storage type"):
            pypto.Element(dt, 1.0)


def test_full_rounds_its_value_to_the_format():
    out = np.zeros((2, 4), np.uint8)

    @pypto.frontend.jit
    def k(z: pypto.Tensor([], pypto.DT_FP8E4M3)):
        z[...] = pypto.concat([pypto.full([1, 4], 3.7, pypto.DT_FP8E4M3),
                               pypto.full([1, 4], 1000.0, pypto.DT_FP8E4M3)], 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k(out)
    np.testing.assert_array_equal(out, encode("e4m3", [[3.7] * 4, [1000.0] * 4]))


def test_fp8_refuses_arithmetic_with_a_located_error():
    x = np.zeros((2, 4), np.uint8)

    @pypto.frontend.jit
    def k(a: pypto.Tensor([], pypto.DT_FP8E4M3), z: pypto.Tensor([], pypto.DT_FP8E4M3)):
        z[...] = pypto.exp(a)
    with pytest.raises(pypto.CompileError, match=r"test_fp8.py:\d+:\d+: error: "
                       r"'pypto.exp' op operand #0 must be"):
        k(x, np.zeros_like(x))


# ---------------------------------------------------------------- MX ops --

def quant_mx_oracle(x, fmt):
    """OCP MX: per 32-element block, X = 2^(floor(log2(amax)) - emax_elem)
    clamped to E8M0's range; elements x / X to nearest, saturating."""
    emax = {"e4m3": 8, "e5m2": 15}[fmt]
    x = x.astype(np.float64)
    blocks = x.reshape(x.shape[:-1] + (-1, 32))
    amax = np.abs(blocks).max(-1, keepdims=True)
    with np.errstate(divide="ignore"):
        e = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1))), -np.inf) - emax
    e = np.clip(e, -127, 127)
    q = encode(fmt, blocks / 2.0 ** e, saturate=True).reshape(x.shape)
    scale = (e + 127).astype(np.uint8).reshape(x.shape[:-1] + (-1, 2))
    return q, scale


def run_quant_mx(x, in_dt, fmt, **kw):
    shape = x.shape if not isinstance(x, Typed) else x.arr.shape
    q = np.zeros(shape, np.uint8)
    s = np.zeros(shape[:-1] + (shape[-1] // 64, 2), np.uint8)

    def k(a, zq, zs):
        r, sc = pypto.quant_mx(a, DT[fmt], **kw)
        zq[...] = r
        zs[...] = sc
    k.__annotations__ = {"a": pypto.Tensor([], in_dt), "zq": pypto.Tensor([], DT[fmt]),
                         "zs": pypto.Tensor([], pypto.DT_FP8E8M0)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pypto.frontend.jit(k)(x.arr if isinstance(x, Typed) else x, q, s)
    return q, s


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("shape", [(128,), (4, 64), (2, 3, 128)])
def test_quant_mx_f32(fmt, shape):
    r = np.random.default_rng(len(shape))
    x = (r.standard_normal(shape) * np.exp2(r.integers(-20, 20, shape[:-1] + (1,)))
         ).astype(np.float32)
    x.reshape(-1)[:32] = 0                       # an all-zero block: scale 2^-127
    x.reshape(-1)[40] = 3e38                     # near f32's maximum
    q, s = run_quant_mx(x, pypto.DT_FP32, fmt)
    wq, ws = quant_mx_oracle(x, fmt)
    np.testing.assert_array_equal(s, ws)
    np.testing.assert_array_equal(q, wq)
    # dequantised, each element is within half an ulp of the format, or of
    # its smallest subnormal step, or saturated at its maximum
    scale = np.repeat(decode("e8m0", s).reshape(shape[:-1] + (-1,)), 32, -1)
    deq = decode(fmt, q) * scale
    rel, sub, top = {"e4m3": (2 ** -4, 2 ** -9, 448), "e5m2": (2 ** -3, 2 ** -16, 57344)}[fmt]
    ax = np.abs(x.astype(np.float64))
    bound = rel * ax + scale * sub / 2 + np.maximum(ax - top * scale, 0)
    assert (np.abs(deq - x) <= bound).all()


def test_quant_mx_f16_and_bf16_inputs_and_defaults():
    r = np.random.default_rng(7)
    x = r.uniform(-300, 300, (2, 128))
    q, s = run_quant_mx(x.astype(np.float16), pypto.DT_FP16, "e4m3",
                        performance_mode=True)
    wq, ws = quant_mx_oracle(x.astype(np.float16), "e4m3")
    np.testing.assert_array_equal(s, ws)
    np.testing.assert_array_equal(q, wq)
    bf = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    q, s = run_quant_mx(Typed(bf, pypto.DT_BF16), pypto.DT_BF16, "e4m3")
    wq, ws = quant_mx_oracle((bf.astype(np.uint32) << 16).view(np.float32), "e4m3")
    np.testing.assert_array_equal(s, ws)
    np.testing.assert_array_equal(q, wq)


def test_quant_mx_documented_shapes():
    @pypto.frontend.jit
    def k(a: pypto.Tensor([8, 64], pypto.DT_FP32), zq: pypto.Tensor([], pypto.DT_FP8E4M3),
          zs: pypto.Tensor([], pypto.DT_FP8E8M0)):
        pypto.set_vec_tile_shapes(4, 64)
        q, s = pypto.quant_mx(a, pypto.DT_FP8E4M3, pypto.ROUND_DOWN, -1, True)
        assert q.shape == [8, 64] and q.dtype is pypto.DT_FP8E4M3
        assert s.shape == [8, 1, 2] and s.dtype is pypto.DT_FP8E8M0
        zq[...] = q
        zs[...] = s
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k(np.ones((8, 64), np.float32), np.zeros((8, 64), np.uint8),
          np.zeros((8, 1, 2), np.uint8))


def scaled_mm_oracle(a, b, sa, sb, fa, fb):
    """(A * scale_a) @ (B * scale_b), scales per 32 elements along K."""
    av = decode(fa, a) * np.repeat(decode("e8m0", sa).reshape(a.shape[0], -1), 32, 1)
    bv = decode(fb, b) * np.repeat(decode("e8m0", sb).transpose(0, 2, 1)
                                   .reshape(-1, b.shape[1]), 32, 0)
    return av @ bv


def fp8_rand(fmt, shape, seed):
    r = np.random.default_rng(seed)
    x = r.standard_normal(shape) * 4
    return encode(fmt, x)


@pytest.mark.parametrize("fa,fb", [("e4m3", "e4m3"), ("e5m2", "e4m3"), ("e4m3", "e5m2")])
@pytest.mark.parametrize("out_dt,np_out", [(pypto.DT_FP32, np.float32),
                                           (pypto.DT_FP16, np.float16)])
@pytest.mark.parametrize("trans", [(False, False, False, False), (True, True, True, True),
                                   (False, True, True, False)])
def test_scaled_mm(fa, fb, out_dt, np_out, trans):
    a_t, b_t, sa_t, sb_t = trans
    m, k, n = 16, 128, 8
    a, b = fp8_rand(fa, (m, k), 1), fp8_rand(fb, (k, n), 2)
    r = np.random.default_rng(3)
    sa = r.integers(120, 134, (m, k // 64, 2)).astype(np.uint8)
    sb = r.integers(120, 134, (k // 64, n, 2)).astype(np.uint8)
    want = scaled_mm_oracle(a, b, sa, sb, fa, fb)
    args = (a.T.copy() if a_t else a, b.T.copy() if b_t else b,
            sa.transpose(1, 0, 2).copy() if sa_t else sa,
            sb.transpose(1, 0, 2).copy() if sb_t else sb)
    out = np.zeros((m, n), np_out)

    def kern(x, y, s1, s2, z):
        z[...] = pypto.scaled_mm(x, y, out_dt, s1, s2, a_trans=a_t, b_trans=b_t,
                                 scale_a_trans=sa_t, scale_b_trans=sb_t)
    kern.__annotations__ = {"x": pypto.Tensor([], DT[fa]), "y": pypto.Tensor([], DT[fb]),
                            "s1": pypto.Tensor([], pypto.DT_FP8E8M0),
                            "s2": pypto.Tensor([], pypto.DT_FP8E8M0), "z": pypto.Tensor()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pypto.frontend.jit(kern)(*args, out)
    tol = 1e-5 if np_out is np.float32 else 1e-3
    np.testing.assert_allclose(out, want.astype(np_out), rtol=tol,
                               atol=tol * np.abs(want).max())


def test_scaled_mm_bias_and_relu():
    m, k, n = 8, 64, 16
    a, b = fp8_rand("e4m3", (m, k), 4), fp8_rand("e4m3", (k, n), 5)
    sa = np.full((m, 1, 2), 127, np.uint8)
    sb = np.full((1, n, 2), 126, np.uint8)
    bias = np.random.default_rng(6).standard_normal((1, n)).astype(np.float32)
    want = np.maximum(scaled_mm_oracle(a, b, sa, sb, "e4m3", "e4m3") + bias, 0)
    out = np.zeros((m, n), np.float32)

    @pypto.frontend.jit
    def kern(x: pypto.Tensor([], pypto.DT_FP8E4M3), y: pypto.Tensor([], pypto.DT_FP8E4M3),
             s1: pypto.Tensor([], pypto.DT_FP8E8M0), s2: pypto.Tensor([], pypto.DT_FP8E8M0),
             bt: pypto.Tensor(), z: pypto.Tensor()):
        z[...] = pypto.scaled_mm(x, y, pypto.DT_FP32, s1, s2, extend_params={
            "bias_tensor": bt, "relu_type": pypto.ReLuType.RELU})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern(a, b, sa, sb, bias, out)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_quant_mx_then_scaled_mm_approximates_the_product():
    r = np.random.default_rng(8)
    x, w = r.standard_normal((16, 128)), r.standard_normal((8, 128))
    qx, sx = quant_mx_oracle(x.astype(np.float32), "e4m3")
    out = np.zeros((16, 8), np.float32)

    @pypto.frontend.jit
    def kern(a: pypto.Tensor([], pypto.DT_FP32), b: pypto.Tensor([], pypto.DT_FP32),
             z: pypto.Tensor()):
        pypto.set_vec_tile_shapes(8, 128)
        pypto.set_cube_tile_shapes([16, 16], [64, 64], [8, 8])
        qa, sa = pypto.quant_mx(a)
        qb, sb = pypto.quant_mx(b)
        z[...] = pypto.scaled_mm(qa, qb, pypto.DT_FP32, sa, sb, b_trans=True,
                                 scale_b_trans=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern(x.astype(np.float32), w.astype(np.float32), out)
    exact = x @ w.T
    assert np.abs(out - exact).max() < 0.1 * np.abs(exact).max()
    # and exactly the oracle's composition
    qw, sw = quant_mx_oracle(w.astype(np.float32), "e4m3")
    want = scaled_mm_oracle(qx, qw.T.copy(), sx, sw.transpose(1, 0, 2).copy(), "e4m3", "e4m3")
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("body,exc,msg", [
    (lambda a: pypto.quant_mx(a[:, :32]), ValueError,
     r"quant_mx: the last dim \(32\) must be a multiple of 64"),
    (lambda a: pypto.quant_mx(a, pypto.DT_INT8), ValueError,
     r"quant_mx: quant_dtype must be DT_FP8E4M3 or DT_FP8E5M2, got pypto.DT_INT8"),
    (lambda a: pypto.quant_mx(a, axis=0), ValueError,
     r"quant_mx quantises the last dim only: axis must be -1 or 1, got 0"),
    (lambda a: pypto.quant_mx(a, mode="up"), TypeError,
     r"mode must be a pypto.DequantScaleRoundingMode \(ROUND_DOWN\), got 'up'"),
    (lambda a: pypto.quant_mx(pypto.cast(a, pypto.DT_INT32)), TypeError,
     r"quant_mx takes DT_FP32, DT_FP16 or DT_BF16, got pypto.DT_INT32"),
    (lambda a: pypto.scaled_mm(a, a, pypto.DT_FP32, a, a), TypeError,
     r"scaled_mm: mat_a must be DT_FP8E4M3 or DT_FP8E5M2, got pypto.DT_FP32"),
    (lambda a: pypto.scaled_mm(*[pypto.quant_mx(a)[0]] * 2, pypto.DT_FP32,
                               pypto.quant_mx(a)[1], pypto.quant_mx(a)[1], b_trans=True,
                               scale_a_trans=True),
     ValueError, r"scaled_mm: scale_a must have shape \[2, 4, 2\], got \[4, 2, 2\]"),
    (lambda a: pypto.scaled_mm(*[pypto.quant_mx(a)[0]] * 2, pypto.DT_INT8,
                               pypto.quant_mx(a)[1], pypto.quant_mx(a)[1], b_trans=True),
     pypto.UnsupportedError, r"scaled_mm: out_dtype must be DT_FP16, DT_BF16 or DT_FP32"),
    (lambda a: pypto.scaled_mm(*[pypto.quant_mx(a)[0]] * 2, pypto.DT_FP32,
                               pypto.quant_mx(a)[1], pypto.quant_mx(a)[1],
                               extend_params={"scale": 1.0}),
     pypto.UnsupportedError, r"scaled_mm extend_params scale not supported"),
])
def test_misuse_is_a_located_error(body, exc, msg):
    @pypto.frontend.jit
    def k(a: pypto.Tensor(), z: pypto.Tensor()):
        body(a)
        z[...] = a
    x = np.zeros((4, 128), np.float32)
    with pytest.raises(exc, match=r"test_fp8.py:\d+:\d+: error: " + msg):
        k(x, np.zeros_like(x))


# ------------------------------------- the ops against their decomposition --

def _composed_quant_mx(x, q_dt, emax):
    """quant_mx spelled in the primitive ops the decompose pass emits."""
    lead, n = list(x.shape[:-1]), x.shape[-1]
    xf = x if x.dtype is pypto.DT_FP32 else pypto.cast(x, pypto.DT_FP32)
    blocks = pypto.reshape(xf, lead + [n // 32, 32])
    amax = pypto.amax(pypto.abs(blocks), -1, keepdim=True)
    scale = pypto.cast(pypto.mul(amax, 2.0 ** -emax), pypto.DT_FP8E8M0, pypto.CastMode.CAST_FLOOR)
    ratio = pypto.div(blocks, pypto.cast(scale, pypto.DT_FP32))
    quant = pypto.cast(ratio, q_dt, pypto.CastMode.CAST_RINT, pypto.SaturationMode.ON)
    return pypto.reshape(quant, lead + [n]), pypto.reshape(scale, lead + [n // 64, 2])


@pytest.mark.parametrize("fmt,emax", [("e4m3", 8), ("e5m2", 15)])
@pytest.mark.parametrize("in_dt,np_dt,shape", [(pypto.DT_FP32, np.float32, (3, 2, 128)),
                                               (pypto.DT_FP16, np.float16, (192,)),
                                               (pypto.DT_BF16, np.uint16, (2, 64))])
def test_quant_mx_op_matches_its_decomposition_bit_for_bit(fmt, emax, in_dt, np_dt, shape):
    r = np.random.default_rng(11)
    v = (r.standard_normal(shape) * np.exp2(r.integers(-30, 30, shape))).astype(np.float32)
    flat = v.reshape(-1)
    flat[:32] = 0                                    # an all-zero block
    flat[33], flat[34], flat[70] = np.inf, -np.inf, np.nan
    flat[100:110] = 1e-42                            # f32 subnormals
    x = (v.view(np.uint32) >> 16).astype(np.uint16) if np_dt is np.uint16 else v.astype(np_dt)
    outs = [np.zeros(shape, np.uint8) for _ in range(2)] + \
        [np.zeros(shape[:-1] + (shape[-1] // 64, 2), np.uint8) for _ in range(2)]

    def k(a, q1, q2, s1, s2):
        q, s = pypto.quant_mx(a, DT[fmt])
        cq, cs = _composed_quant_mx(a, DT[fmt], emax)
        q1[...], q2[...], s1[...], s2[...] = q, cq, s, cs
    k.__annotations__ = {"a": pypto.Tensor(list(shape), in_dt),
                         **{n: pypto.Tensor([], DT[fmt]) for n in ("q1", "q2")},
                         **{n: pypto.Tensor([], pypto.DT_FP8E8M0) for n in ("s1", "s2")}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pypto.frontend.jit(k)(x, *outs)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[2], outs[3])
    if np_dt is np.float32:
        wq, ws = quant_mx_oracle(v, fmt)
        finite = np.isfinite(v).reshape(shape[:-1] + (-1, 32)).all(-1).reshape(-1)
        np.testing.assert_array_equal(outs[2].reshape(-1)[finite], ws.reshape(-1)[finite])


@pytest.mark.parametrize("trans", [(False, False, False, False), (True, True, True, True)])
def test_scaled_mm_op_matches_its_decomposition_bit_for_bit(trans):
    a_t, b_t, sa_t, sb_t = trans
    m, k, n = 8, 128, 16
    a, b = fp8_rand("e4m3", (m, k), 21), fp8_rand("e5m2", (k, n), 22)
    r = np.random.default_rng(23)
    sa = r.integers(100, 150, (m, k // 64, 2)).astype(np.uint8)
    sb = r.integers(100, 150, (k // 64, n, 2)).astype(np.uint8)
    sa[0, 0, 0] = 254                                # products that overflow f32
    args = (a.T.copy() if a_t else a, b.T.copy() if b_t else b,
            sa.transpose(1, 0, 2).copy() if sa_t else sa,
            sb.transpose(1, 0, 2).copy() if sb_t else sb)
    outs = [np.zeros((m, n), np.float16) for _ in range(2)]

    def blocks(t, sc, rows, t_in, s_in):
        t = pypto.transpose(t, 0, 1) if t_in else t
        sf = pypto.cast(sc, pypto.DT_FP32)
        sf = pypto.transpose(sf, 0, 1) if s_in else sf
        prod = pypto.mul(pypto.reshape(pypto.cast(t, pypto.DT_FP32), [rows, k // 32, 32]),
                         pypto.reshape(sf, [rows, k // 32, 1]))
        return pypto.reshape(prod, [rows, k])

    def kern(x, y, s1, s2, z1, z2):
        relu = {"relu_type": pypto.ReLuType.RELU}
        z1[...] = pypto.scaled_mm(x, y, pypto.DT_FP16, s1, s2, a_trans=a_t, b_trans=b_t,
                                  scale_a_trans=sa_t, scale_b_trans=sb_t, extend_params=relu)
        z2[...] = pypto.matmul(blocks(x, s1, m, a_t, sa_t), blocks(y, s2, n, not b_t, not sb_t),
                               pypto.DT_FP16, b_trans=True, extend_params=relu)
    kern.__annotations__ = {"x": pypto.Tensor([], pypto.DT_FP8E4M3),
                            "y": pypto.Tensor([], pypto.DT_FP8E5M2),
                            "s1": pypto.Tensor([], pypto.DT_FP8E8M0),
                            "s2": pypto.Tensor([], pypto.DT_FP8E8M0),
                            "z1": pypto.Tensor(), "z2": pypto.Tensor()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pypto.frontend.jit(kern)(*args, *outs)
    np.testing.assert_array_equal(outs[0].view(np.uint16), outs[1].view(np.uint16))
    assert not np.isfinite(outs[0][0]).all()         # the overflow went through both


def test_mx_functions_trace_one_op_each():
    @pypto.frontend.jit
    def kern(a: pypto.Tensor([4, 128], pypto.DT_FP32), z: pypto.Tensor()):
        q, s = pypto.quant_mx(a)
        z[...] = pypto.scaled_mm(q, q, pypto.DT_FP32, s, s, b_trans=True, scale_b_trans=True)
    text = kern.ir(np.zeros((4, 128), np.float32), np.zeros((4, 4), np.float32))
    assert text.count("pypto.quant_mx") == 1 and text.count("pypto.scaled_mm") == 1
    assert "pypto.amax" not in text


@pytest.mark.parametrize("sat", [False, True])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_round_mode_ties_away_past_the_maximum(fmt, sat):
    # "round" takes a tie to the larger magnitude, the one past the largest
    # finite value too: E4M3FN's 464 overflows (NaN, or 448 saturating)
    # where to-nearest-even gives the even 448
    x = np.array([[464.0, -464.0, 460.0, 61440.0, -61440.0, 1.0625, 2.5, -1.1875]], np.float32)
    got = run_cast(x, DT[fmt], np.uint8, DT[fmt], mode="round", satmode=sat)
    np.testing.assert_array_equal(got, encode(fmt, x, saturate=sat, away=True))
    assert (encode("e4m3", [464.0], saturate=sat, away=True) ==
            (0x7E if sat else 0x7F)).all()


@pytest.mark.parametrize("sat", [False, True])
def test_round_mode_into_f16_overflows_at_the_tie(sat):
    # f16's largest finite value 65504 and half its last step above it:
    # the tie goes up, to inf (65504 saturating); below it, 65504; 2049,
    # between 2048 and 2050, goes up too
    x = np.array([[65520.0, -65520.0, 65519.0, 65504.0, 65488.0, 2049.0]], np.float32)
    got = run_cast(x, pypto.DT_FP16, np.float16, mode="round", satmode=sat)
    big = 65504.0 if sat else np.inf
    want = np.array([[big, -big, 65504.0, 65504.0, 65504.0, 2050.0]], np.float16)
    np.testing.assert_array_equal(got, want)
