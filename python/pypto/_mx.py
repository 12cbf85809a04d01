"""MX (microscaling) quantisation as PyPTO documents it: quant_mx turns the
last dim of a float tensor into 8-bit floats with one power-of-two scale
(DT_FP8E8M0) per 32 elements, and scaled_mm multiplies two such matrices.
Each traces one Tensor-level op (pypto.quant_mx, pypto.scaled_mm), which
the interpreter runs as is and tile-expand splits into amax, casts to and
from the 8-bit floats, reshapes and a matmul."""

import enum

from . import _dtypes, _ops
from ._dtypes import DataType
from ._enums import check_enum
from ._errors import UnsupportedError, error_at
from ._loc import user_loc
from ._symbolic import concrete

__all__ = ["DequantScaleRoundingMode", "ROUND_DOWN", "quant_mx", "scaled_mm"]

# Elements sharing one scale (OCP MX's block size); scales come in pairs,
# one [..., ceil(n / 64), 2] entry per 64 elements as PyPTO lays them out.
_BLOCK = 32

# The largest power of two below each element format's maximum (OCP MX's
# emax_elem): a block's scale is 2^(floor(log2(amax)) - emax), so its
# largest element lands in the format's top binade.
_EMAX = {DataType.DT_FP8E4M3: 8, DataType.DT_FP8E5M2: 15}


class DequantScaleRoundingMode(enum.Enum):
    """How quant_mx rounds a block's shared exponent: ROUND_DOWN takes
    floor(log2(amax)) (the only mode PyPTO documents)."""
    ROUND_DOWN = "round_down"


ROUND_DOWN = DequantScaleRoundingMode.ROUND_DOWN


def _static(x, d, what, loc):
    n = concrete(x.shape[d])
    if n is None:
        raise error_at(ValueError, loc, f"{what}: dim {d} is dynamic; MX blocks need a "
                       "static size (take fixed-size windows inside a pypto.loop)")
    return n


def quant_mx(input, quant_dtype=DataType.DT_FP8E4M3, mode=ROUND_DOWN, axis=-1,
             performance_mode=False):
    """(quantized, scale): input's last dim in blocks of 32 elements, each
    block divided by its power-of-two scale 2^(floor(log2(amax)) - emax)
    (emax 8 for DT_FP8E4M3, 15 for DT_FP8E5M2, the scale clamped to
    DT_FP8E8M0's range) and rounded to nearest even, saturating.
    quantized has input's shape and quant_dtype; scale is DT_FP8E8M0 of
    shape [*input.shape[:-1], n / 64, 2]. performance_mode only picks an
    internal layout on the accelerator: accepted, no effect here."""
    loc = user_loc()
    x = _ops._tensor(input)
    if not x.dtype.is_float:
        raise error_at(TypeError, loc, "quant_mx takes DT_FP32, DT_FP16 or DT_BF16, got "
                       f"{x.dtype!r}")
    q = _dtypes.coerce(quant_dtype, "quant_dtype")
    if q not in _EMAX:
        raise error_at(ValueError, loc, f"quant_mx: quant_dtype must be DT_FP8E4M3 or "
                       f"DT_FP8E5M2, got {q!r}")
    check_enum(mode, DequantScaleRoundingMode, "mode")
    if not isinstance(performance_mode, bool):
        raise error_at(TypeError, loc, "quant_mx: performance_mode must be a bool, got "
                       f"{performance_mode!r}")
    rank = len(x.shape)
    if not 1 <= rank <= 4:
        raise error_at(ValueError, loc, f"quant_mx takes a tensor of 1 to 4 dims, got {rank}")
    if isinstance(axis, bool) or not isinstance(axis, int) or axis not in (-1, rank - 1):
        raise error_at(ValueError, loc, "quant_mx quantises the last dim only: axis must be "
                       f"-1 or {rank - 1}, got {axis!r}")
    n = _static(x, rank - 1, "quant_mx", loc)
    if n % (2 * _BLOCK):
        raise error_at(ValueError, loc, f"quant_mx: the last dim ({n}) must be a multiple "
                       f"of {2 * _BLOCK} (two {_BLOCK}-element blocks per scale pair)")
    for d in range(rank - 1):
        _static(x, d, "quant_mx", loc)
    q, scale = _ops._emit("quant_mx", [x._value], {"dtype": q.ir}, loc)
    return q, scale


def _check_mx_operand(t, what, loc):
    if t.dtype not in _EMAX:
        raise error_at(TypeError, loc, f"scaled_mm: {what} must be DT_FP8E4M3 or DT_FP8E5M2, "
                       f"got {t.dtype!r}")
    if len(t.shape) != 2:
        raise error_at(ValueError, loc, f"scaled_mm: {what} must have 2 dims, got "
                       f"{len(t.shape)}")


def _check_scale(scale, rows, kb, trans, what, loc):
    """A [rows, K/64, 2] scale ([K/64, rows, 2] when trans)."""
    want = [kb, rows, 2] if trans else [rows, kb, 2]
    got = [concrete(d) for d in scale.shape]
    if scale.dtype is not DataType.DT_FP8E8M0:
        raise error_at(TypeError, loc, f"scaled_mm: {what} must be DT_FP8E8M0, got "
                       f"{scale.dtype!r}")
    if got != want:
        raise error_at(ValueError, loc, f"scaled_mm: {what} must have shape {want}, got "
                       f"{got}")


def scaled_mm(mat_a, mat_b, out_dtype, scale_a, scale_b, *, a_trans=False, b_trans=False,
              scale_a_trans=False, scale_b_trans=False, c_matrix_nz=False,
              extend_params=None):
    """(mat_a * scale_a) @ (mat_b * scale_b) in out_dtype (DT_FP16, DT_BF16 or
    DT_FP32): mat_a [M, K] and mat_b [K, N] ([K, M] / [N, K] when
    transposed) of DT_FP8E4M3 or DT_FP8E5M2, each scaled per 32 elements
    along K by DT_FP8E8M0 scales of shape [M, K/64, 2] and [K/64, N, 2]
    ([K/64, M, 2] / [N, K/64, 2] when transposed). The scaled values are
    exact in f32 and accumulate in f32; extend_params takes bias_tensor
    and relu_type as pypto.matmul does."""
    loc = user_loc()
    a, b = _ops._tensor(mat_a, "mat_a"), _ops._tensor(mat_b, "mat_b")
    sa, sb = _ops._tensor(scale_a, "scale_a"), _ops._tensor(scale_b, "scale_b")
    _check_mx_operand(a, "mat_a", loc)
    _check_mx_operand(b, "mat_b", loc)
    out = _dtypes.coerce(out_dtype, "out_dtype")
    if out not in (DataType.DT_FP16, DataType.DT_BF16, DataType.DT_FP32):
        raise error_at(UnsupportedError, loc, "scaled_mm: out_dtype must be DT_FP16, "
                       f"DT_BF16 or DT_FP32, got {out!r} (the DT_INT8 output of PyPTO's "
                       "quantised form is not supported)")
    if c_matrix_nz:
        raise error_at(UnsupportedError, loc, "c_matrix_nz: only ND results are supported")
    params = dict(extend_params or {})
    extra = sorted(set(params) - {"bias_tensor", "relu_type"})
    if extra:
        raise error_at(UnsupportedError, loc, "scaled_mm extend_params " + ", ".join(extra)
                       + " not supported (bias_tensor and relu_type are)")
    if params.get("relu_type") not in (None, _ops.ReLuType.NO_RELU, _ops.ReLuType.RELU):
        raise error_at(ValueError, loc, "scaled_mm: relu_type must be a pypto.ReLuType, "
                       f"got {params['relu_type']!r}")
    m, k = (_static(a, d, "scaled_mm", loc) for d in ((1, 0) if a_trans else (0, 1)))
    k2, n = (_static(b, d, "scaled_mm", loc) for d in ((1, 0) if b_trans else (0, 1)))
    if k != k2:
        raise error_at(ValueError, loc, f"scaled_mm: mat_a has K = {k} but mat_b has K = {k2}")
    if k % (2 * _BLOCK):
        raise error_at(ValueError, loc, f"scaled_mm: K ({k}) must be a multiple of "
                       f"{2 * _BLOCK}")
    kb = k // (2 * _BLOCK)
    _check_scale(sa, m, kb, scale_a_trans, "scale_a", loc)
    # scale_b is laid out [K/64, N, 2]: scale_a's layout transposed
    _check_scale(sb, n, kb, not scale_b_trans, "scale_b", loc)
    attrs = {"out_dtype": out.ir}
    for name, flag in (("a_trans", a_trans), ("b_trans", b_trans),
                       ("scale_a_trans", scale_a_trans), ("scale_b_trans", scale_b_trans)):
        if flag:
            attrs[name] = None
    relu = params.get("relu_type") == _ops.ReLuType.RELU
    bias = params.get("bias_tensor")
    if relu and bias is None:
        attrs["relu"] = None     # applied on the way out of the accumulator
    out_t = _ops._one("scaled_mm", [a._value, b._value, sa._value, sb._value], attrs, loc,
                      vec=True, cube=True)
    if bias is not None:
        out_t = _ops._one("add", [out_t._value, _ops._tensor(bias, "bias_tensor")._value],
                          loc=loc)
        if relu:
            out_t = _ops._one("relu", [out_t._value], loc=loc)
    return out_t
