"""The Tensor-level ops of the pypto API. Each call traces one op of the
same name in the ``pypto`` dialect (plus the scalar constants and index
arithmetic it needs); result types come from the C library's inference."""

import builtins
import enum
import math
import struct

from . import _dtypes
from ._dtypes import DataType
from ._enums import LogBaseType, PrecisionType, check_enum
from ._errors import TraceError, UnsupportedError, error_at
from ._ir import INDEX
from ._loc import user_loc
from ._symbolic import Atom, SymbolicScalar, concrete
from ._tensor import Tensor
from ._trace import current

PTO_DYN = -9223372036854775808


class CastMode(enum.Enum):
    """Rounding of cast(): CAST_NONE picks PyPTO's default for the pair of
    types (trunc with saturation for float to integer, rint otherwise)."""
    CAST_NONE = "none"
    CAST_RINT = "rint"
    CAST_ROUND = "round"
    CAST_FLOOR = "floor"
    CAST_CEIL = "ceil"
    CAST_TRUNC = "trunc"
    CAST_ODD = "odd"


class SaturationMode(enum.Enum):
    OFF = "off"
    ON = "on"


# ------------------------------------------------------------ plumbing --

def _t():
    return current()


def _tensor(x, what="input"):
    if isinstance(x, Tensor) and x._value is not None:
        return x
    if isinstance(x, Tensor):
        x._traced()
    raise error_at(TypeError, user_loc(), f"{what} must be a pypto tensor, got {x!r}")


def _is_scalar(x):
    return isinstance(x, (bool, int, float, SymbolicScalar, _dtypes.Element))


def _tuning(t, vec=True, cube=False):
    attrs = {}
    if vec and t.vec_tile:
        attrs["vec_tile"] = "[" + ", ".join(map(str, t.vec_tile)) + "]"
    if cube and t.cube_tile:
        c = t.cube_tile
        attrs["cube_tile"] = f"[[{c[0]}, {c[1]}], [{c[2]}, {c[3]}], [{c[4]}, {c[5]}]]"
    if t.label:
        from ._ir import quote
        attrs["label"] = quote(t.label)
    return attrs


def _emit(mnemonic, operands, attrs=None, loc=None, vec=True, cube=False):
    """Traces one pypto op; returns the result tensors (a list)."""
    t = _t()
    loc = loc or user_loc()
    a = dict(attrs or {})
    a.update(_tuning(t, vec, cube))
    results = t.pypto(mnemonic, operands, a, loc)
    return [Tensor._wrap(r, t) for r in results]


def _one(mnemonic, operands, attrs=None, loc=None, **kw):
    return _emit(mnemonic, operands, attrs, loc, **kw)[0]


def _float_text(v, elem):
    if math.isfinite(v):
        return f"{float(v):.17e} : {elem}"
    if elem == "f32":
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        return f"0x{bits:08X} : f32"
    if elem == "f16":
        bits = struct.unpack("<H", struct.pack("<e", v))[0]
        return f"0x{bits:04X} : f16"
    bits = struct.unpack("<I", struct.pack("<f", v))[0] >> 16  # bf16
    if math.isnan(v):
        bits = 0x7FC0
    return f"0x{bits:04X} : {elem}"


def _unsigned(elem):
    d = _dtypes.from_ir(elem)
    return d is not None and d.is_unsigned


def _unsigned_fill(shape, x, dt, loc):
    """A tensor of unsigned dt filled with the number x: the IR's scalars
    are signless, so the fill is the same bits as a signed full, then a
    bitcast (the unsigned ops take tensors where others take scalars)."""
    if isinstance(x, _dtypes.Element):
        x = x.value
    c = concrete(x) if isinstance(x, SymbolicScalar) else x
    if c is None or isinstance(c, bool):
        raise error_at(UnsupportedError, loc, f"a scalar of the unsigned {dt!r} tensor must "
                       f"be a number, got {x!r}")
    if isinstance(c, float) and not c.is_integer():
        raise error_at(TypeError, loc,
                       f"the float {c!r} cannot be a scalar of an integer tensor ({dt.ir})")
    v = int(c)
    lo, hi = dt.int_range
    if not lo <= v <= hi:
        raise error_at(OverflowError, loc, f"{v} does not fit the tensor's {dt.ir}")
    signed = {1: DataType.DT_INT8, 2: DataType.DT_INT16, 4: DataType.DT_INT32,
              8: DataType.DT_INT64}[dt.itemsize]
    if v > signed.int_range[1]:
        v -= 1 << (8 * dt.itemsize)
    return _bitcast(full(shape, v, signed), dt, loc)


def _scalar_operand(x, s, loc):
    """The scalar s as an operand of an op with tensor x: a scalar, or for
    an unsigned x a broadcasting tensor of its dtype."""
    if _unsigned(_elem(x)):
        return _unsigned_fill([1] * len(x._dims), s, x.dtype, loc)
    return None


def _scalar_value(x, elem, loc):
    """A scalar operand of element type `elem` from a Python number or a
    symbolic scalar."""
    t = _t()
    if _unsigned(elem):
        raise error_at(UnsupportedError, loc, f"this op takes no scalar for a {elem} tensor; "
                       "pass a tensor")
    if isinstance(x, _dtypes.Element):
        x = x.value
    if isinstance(x, SymbolicScalar) and x.concrete() is None:
        v = t.materialize(x, loc)
        if x.is_bool:
            if elem == "i1":
                return v
            x = _to_index(t, v, loc)
            v = x
        if elem.startswith("i"):
            return t.emit("arith.index_cast", [v], [_ty(elem)], "", loc).results[0]
        i64 = t.emit("arith.index_cast", [v], [_ty("i64")], "", loc).results[0]
        return t.emit("arith.sitofp", [i64], [_ty(elem)], "", loc).results[0]
    if isinstance(x, SymbolicScalar):
        x = x.concrete()
    if elem == "i1":
        return t.constant("i1", "true" if x else "false", loc)
    if elem.startswith("i"):
        if isinstance(x, float) and not x.is_integer():
            raise error_at(TypeError, loc,
                           f"the float {x!r} cannot be a scalar of an integer tensor ({elem})")
        v = int(x)
        lo, hi = _dtypes.from_ir(elem).int_range
        if not lo <= v <= hi:
            raise error_at(OverflowError, loc, f"{v} does not fit the tensor's {elem}")
        return t.constant(elem, f"{v} : {elem}", loc)
    return t.constant(elem, _float_text(float(x), elem), loc)


def _to_index(t, v, loc):
    return t.emit("arith.select", [v, t.index_const(1, loc), t.index_const(0, loc)], [INDEX],
                  "", loc).results[0]


def _ty(text):
    from ._ir import scalar_type
    return scalar_type(text)


def _dim_operands(t, dims, loc):
    """Builder `shape` (-1 for dynamic) and the index operands of the
    dynamic sizes."""
    shape, dyn = [], []
    for d in dims:
        c = concrete(d)
        if c is not None:
            if c <= 0:
                raise error_at(ValueError, loc, f"sizes must be positive, got {c}")
            shape.append(c)
        else:
            shape.append(-1)
            dyn.append(t.materialize(d, loc))
    return shape, dyn


def _ints_attr(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def _elem(x):
    return x._value.type.elem


# ---------------------------------------------------------- unary ops --

def _precision(precision_type):
    """PyPTO's accuracy mode: checked; the kernels here always compute at
    full precision (docs/python.md)."""
    if precision_type is not None:
        check_enum(precision_type, PrecisionType, "precision_type")


def _unary(mnemonic, precise=False):
    if precise:
        def op(input, precision_type=None):
            _precision(precision_type)
            return _keep_valid(_one(mnemonic, [_tensor(input)._value]), input)
    else:
        def op(input):
            return _keep_valid(_one(mnemonic, [_tensor(input)._value]), input)
    op.__name__ = mnemonic
    op.__doc__ = f"Element-wise {mnemonic} (traces pypto.{mnemonic})."
    return op


abs = _unary("abs")          # noqa: A001
neg = _unary("neg")
exp = _unary("exp", True)
sqrt = _unary("sqrt", True)
rsqrt = _unary("rsqrt", True)
reciprocal = _unary("reciprocal", True)
relu = _unary("relu")
sigmoid = _unary("sigmoid")
tanh = _unary("tanh")
silu = _unary("silu")
sin = _unary("sin")
cos = _unary("cos")
floor = _unary("floor")
ceil = _unary("ceil")
round = _unary("round")      # noqa: A001
erf = _unary("erf")
log1p = _unary("log1p")
expm1 = _unary("expm1")
sign = _unary("sign")
hardsigmoid = _unary("hardsigmoid")
trunc = _unary("trunc")
tan = _unary("tan")
sinh = _unary("sinh")
cosh = _unary("cosh")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
asinh = _unary("asinh")
acosh = _unary("acosh")
atanh = _unary("atanh")
erfc = _unary("erfc")
cbrt = _unary("cbrt")
exp2 = _unary("exp2")
log2 = _unary("log2", True)
log10 = _unary("log10", True)

_LOG_OP = {LogBaseType.LOG_E: "log", LogBaseType.LOG_2: "log2", LogBaseType.LOG_10: "log10"}


def log(input, base=LogBaseType.LOG_E, precision_type=None):
    """Element-wise logarithm, natural or of base LogBaseType.LOG_2 /
    LOG_10 (traces pypto.log, pypto.log2 or pypto.log10)."""
    check_enum(base, LogBaseType, "base")
    _precision(precision_type)
    return _one(_LOG_OP[base], [_tensor(input)._value])


def _float_attr(name, v):
    """A float parameter of a unary op, exact as an f64 attribute."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
        raise error_at(TypeError, user_loc(), f"{name} must be a number, got {v!r}")
    return f"{float(v)!r} : f64"


def leaky_relu(input, negative_slope=0.01):
    """Element-wise x, or negative_slope * x where x < 0 (pypto.leaky_relu)."""
    return _one("leaky_relu", [_tensor(input)._value],
                {"slope": _float_attr("negative_slope", negative_slope)})


def clip(input, min=None, max=None):  # noqa: A002
    """Element-wise x limited to [min, max]; an omitted bound is unbounded
    (pypto.clip)."""
    attrs = {}
    if min is not None:
        attrs["min"] = _float_attr("min", min)
    if max is not None:
        attrs["max"] = _float_attr("max", max)
    return _one("clip", [_tensor(input)._value], attrs)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise error_at(ValueError, user_loc(),
                       f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    attrs = {"approximate": '"tanh"'} if approximate == "tanh" else {}
    return _one("gelu", [_tensor(input)._value], attrs)


# --------------------------------------------------------- binary ops --

_SCALAR_FORM = {"add": "adds", "sub": "subs", "mul": "muls", "div": "divs",
                "maximum": "maxs", "minimum": "mins"}
_COMMUTATIVE = {"add", "mul", "maximum", "minimum"}


def _binary(mnemonic):
    def op(input, other, precision_type=None):
        return _keep_valid(traced(input, other, precision_type), input, other)

    def traced(input, other, precision_type):
        loc = user_loc()
        _precision(precision_type)
        a_t = isinstance(input, Tensor)
        b_t = isinstance(other, Tensor)
        if a_t and b_t:
            return _one(mnemonic, [_tensor(input)._value, _tensor(other)._value], loc=loc)
        if a_t and _is_scalar(other):
            x = _tensor(input)
            u = _scalar_operand(x, other, loc)
            if u is not None:
                return _one(mnemonic, [x._value, u._value], loc=loc)
            s = _scalar_value(other, _elem(x), loc)
            form = _SCALAR_FORM.get(mnemonic)
            if form:
                return _one(form, [x._value, s], loc=loc)
            return _one(mnemonic, [x._value, _fill_like(x, s, loc)._value], loc=loc)
        if b_t and _is_scalar(input):
            y = _tensor(other)
            u = _scalar_operand(y, input, loc)
            if u is not None:
                return _one(mnemonic, [u._value, y._value], loc=loc)
            s = _scalar_value(input, _elem(y), loc)
            if mnemonic in _COMMUTATIVE:
                return _one(_SCALAR_FORM[mnemonic], [y._value, s], loc=loc)
            return _one(mnemonic, [_fill_like(y, s, loc)._value, y._value], loc=loc)
        raise error_at(TypeError, loc,
                       f"{mnemonic}: expected tensors or scalars, got {input!r} and {other!r}")
    op.__name__ = mnemonic
    op.__doc__ = (f"Element-wise {mnemonic} of two tensors (numpy broadcasting) or of a "
                  f"tensor and a scalar (traces pypto.{mnemonic}"
                  + (f" / pypto.{_SCALAR_FORM[mnemonic]}" if mnemonic in _SCALAR_FORM else "")
                  + ").")
    return op


add = _binary("add")
sub = _binary("sub")
mul = _binary("mul")
div = _binary("div")
maximum = _binary("maximum")
minimum = _binary("minimum")
pow = _binary("pow")         # noqa: A001


def _fill_like(x, scalar_value, loc):
    """A tensor of x's shape filled with a scalar Value."""
    t = _t()
    shape, dyn = _dim_operands(t, x._dims, loc)
    return _one("full", [scalar_value] + dyn, {"shape": _ints_attr(shape)}, loc)


# --------------------------------------------------------- comparisons --

_FLIP = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def _compare(mnemonic):
    def op(input, other):
        return _keep_valid(traced(input, other), input, other)

    def traced(input, other):
        loc = user_loc()
        if not isinstance(input, Tensor) and isinstance(other, Tensor):
            return op_flipped(other, input, loc)
        x = _tensor(input)
        if isinstance(other, Tensor):
            return _one(mnemonic, [x._value, _tensor(other)._value], loc=loc)
        if _is_scalar(other):
            u = _scalar_operand(x, other, loc)
            if u is not None:
                return _one(mnemonic, [x._value, u._value], loc=loc)
            return _one(mnemonic, [x._value, _scalar_value(other, _elem(x), loc)], loc=loc)
        raise error_at(TypeError, loc, f"{mnemonic}: cannot compare a tensor with {other!r}")

    def op_flipped(x, s, loc):
        u = _scalar_operand(x, s, loc)
        if u is not None:
            return _one(_FLIP[mnemonic], [x._value, u._value], loc=loc)
        return _one(_FLIP[mnemonic], [x._value, _scalar_value(s, _elem(x), loc)], loc=loc)

    op.__name__ = mnemonic
    op.__doc__ = f"Element-wise {mnemonic} comparison, a DT_BOOL tensor (pypto.{mnemonic})."
    return op


eq = _compare("eq")
ne = _compare("ne")
lt = _compare("lt")
le = _compare("le")
gt = _compare("gt")
ge = _compare("ge")


def where(condition, input, other):
    """Element-wise condition ? input : other (tensors or scalars)."""
    loc = user_loc()
    c = _tensor(condition, "condition")
    ref = input if isinstance(input, Tensor) else other if isinstance(other, Tensor) else None
    if ref is not None:
        elem = _elem(_tensor(ref))
    elif all(isinstance(v, bool) for v in (input, other)):
        elem = "i1"
    elif any(isinstance(v, float) for v in (input, other)):
        elem = "f32"   # two Python scalars: numpy's float32/int32 defaults
    else:
        elem = "i32"
    ops = [c._value]
    for v in (input, other):
        if isinstance(v, Tensor):
            ops.append(_tensor(v)._value)
        elif _unsigned(elem):
            ops.append(_unsigned_fill([1] * len(c._dims), v, _dtypes.from_ir(elem), loc)._value)
        else:
            ops.append(_scalar_value(v, elem, loc))
    return _keep_valid(_one("where", ops, loc=loc), condition, input, other)


# ---------------------------------------------------------- reductions --

def _dim_attr(dim):
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise error_at(TypeError, user_loc(), f"dim must be an int, got {dim!r}")
    return f"{dim} : i64"


def _reduce(mnemonic):
    def op(input, dim=-1, keepdim=False):
        attrs = {"dim": _dim_attr(dim)}
        if keepdim:
            attrs["keepdim"] = None
        x = _tensor(input)
        if x._valid is None:
            return _one(mnemonic, [x._value], attrs)
        # the region beyond the valid shape must not count: fill it with
        # the reduction's neutral element first
        padded = _fill_invalid(x, _neutral(mnemonic, _elem(x)), user_loc())
        r = _one(mnemonic, [padded._value], attrs)
        d = dim % len(x._valid) if x._valid else 0
        rest = list(x._valid)
        if keepdim:
            rest[d] = 1
        else:
            del rest[d]
        return _set_valid(r, rest)
    op.__name__ = mnemonic
    op.__doc__ = f"{mnemonic} over one dim (pypto.{mnemonic})."
    return op


sum = _reduce("sum")         # noqa: A001
amax = _reduce("amax")
amin = _reduce("amin")
prod = _reduce("prod")
argmax = _reduce("argmax")
argmin = _reduce("argmin")


def softmax(input, dim=-1):
    x = _tensor(input)
    attrs = {"dim": _dim_attr(dim)}
    if x._valid is None:
        return _one("softmax", [x._value], attrs)
    padded = _fill_invalid(x, float("-inf"), user_loc())  # exp(-inf) = 0: no weight
    return _set_valid(_one("softmax", [padded._value], attrs), x._valid)


def _eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise error_at(TypeError, user_loc(), f"eps must be a number, got {eps!r}")
    return f"{float(eps):.9e} : f32"


def rms_norm(input, gamma, eps=1e-6):
    return _one("rms_norm", [_tensor(input)._value, _tensor(gamma, "gamma")._value],
                {"eps": _eps(eps)})


def layer_norm(input, gamma, beta, eps=1e-5):
    return _one("layer_norm", [_tensor(input)._value, _tensor(gamma, "gamma")._value,
                               _tensor(beta, "beta")._value], {"eps": _eps(eps)})


# -------------------------------------------------------------- matmul --

def matmul(input, mat2, out_dtype=None, *, a_trans=False, b_trans=False,
           c_matrix_nz=False, extend_params=None):
    """input @ mat2 with out_dtype results (default: the inputs' float type,
    DT_INT32 for DT_INT8). extend_params may add a bias ({'bias_tensor':
    t}), a ReLU ({'relu_type': pypto.ReLuType.RELU}) and, for DT_INT8
    inputs, a dequantisation to DT_FP16 / DT_BF16 / DT_FP32 on the way out
    of the i32 accumulator: {'scale': float} per tensor or {'scale_tensor':
    t} per output channel (t of shape [1, N]: DT_FP32, or DT_INT64 holding
    the f32 bits in its low 32 bits as PyPTO's FIX pipe reads them)."""
    loc = user_loc()
    a, b = _tensor(input), _tensor(mat2, "mat2")
    attrs = {}
    if out_dtype is not None:
        attrs["out_dtype"] = _dtypes.coerce(out_dtype, "out_dtype").ir
    if a_trans:
        attrs["a_trans"] = None
    if b_trans:
        attrs["b_trans"] = None
    if c_matrix_nz:
        raise error_at(UnsupportedError, loc, "c_matrix_nz: only ND results are supported")
    params = dict(extend_params or {})
    bias = params.pop("bias_tensor", None)
    relu_type = params.pop("relu_type", None)
    scale = params.pop("scale", None)
    scale_tensor = params.pop("scale_tensor", None)
    if params:
        raise error_at(UnsupportedError, loc, "matmul extend_params "
                       + ", ".join(sorted(params)) + " not supported (bias_tensor, "
                       "relu_type, scale and scale_tensor are)")
    if relu_type is not None and relu_type not in (ReLuType.NO_RELU, ReLuType.RELU):
        raise error_at(ValueError, loc, f"matmul: relu_type must be a pypto.ReLuType, "
                       f"got {relu_type!r}")
    relu = relu_type == ReLuType.RELU
    operands = _dequant_params(a, scale, scale_tensor, bias, attrs, loc)
    valid = None
    if a._valid is not None or b._valid is not None:
        # zeros beyond the valid shape add nothing along K; the rows and
        # columns beyond it stay outside the result's valid shape
        va = a._valid or list(a._dims)
        vb = b._valid or list(b._dims)
        m = va[-1] if a_trans else va[-2]
        n = vb[-2] if b_trans else vb[-1]
        a = _fill_invalid(a, 0, loc) if a._valid is not None else a
        b = _fill_invalid(b, 0, loc) if b._valid is not None else b
        valid = (m, n)
    if relu and bias is None:
        attrs["relu"] = None     # applied on the way out of the accumulator
    out = _one("matmul", [a._value, b._value] + operands, attrs, loc, vec=True, cube=True)
    if valid is not None:
        _set_valid(out, list(out._dims[:-2]) + list(valid))
    if bias is not None:
        out = _one("add", [out._value, _tensor(bias, "bias_tensor")._value], loc=loc)
        if relu:
            out = _one("relu", [out._value], loc=loc)
    return out


def _dequant_params(a, scale, scale_tensor, bias, attrs, loc):
    """matmul's dequantisation: sets the `scale` attribute or gives the
    per-channel scale operand (a [1, N] f32 tensor)."""
    if scale is None and scale_tensor is None:
        return []
    if _elem(a) != "i8":
        raise error_at(UnsupportedError, loc, "matmul: extend_params scale / scale_tensor "
                       "dequantise DT_INT8 products; quantising float products to DT_INT8 "
                       "is not supported")
    if scale is not None and scale_tensor is not None:
        raise error_at(ValueError, loc, "matmul: give extend_params scale or scale_tensor, "
                       "not both")
    if bias is not None:
        raise error_at(UnsupportedError, loc, "matmul: bias_tensor together with a "
                       "dequantising scale is not supported")
    if scale is not None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise error_at(TypeError, loc, f"matmul: extend_params scale must be a float, "
                           f"got {scale!r}")
        attrs["scale"] = _float_text(float(struct.unpack("<f", struct.pack("<f", scale))[0]),
                                     "f32")
        return []
    st = _tensor(scale_tensor, "scale_tensor")
    if _elem(st) == "i64":
        # PyPTO's per-channel scale: the f32 bits in the low half of each
        # 64-bit element (little-endian: the first f32 of each pair)
        dims = [concrete(d) for d in st._dims]
        if len(dims) != 2 or None in dims:
            raise error_at(ValueError, loc, "matmul: scale_tensor must have the static "
                           f"shape [1, N], got {list(st._dims)}")
        pairs = reshape(_bitcast(st, DataType.DT_FP32, loc), [dims[0], dims[1], 2])
        st = reshape(view(pairs, [dims[0], dims[1], 1], [0, 0, 0]), dims)
    elif _elem(st) != "f32":
        raise error_at(TypeError, loc, "matmul: scale_tensor must be DT_FP32, or DT_INT64 "
                       f"holding f32 bits, got {_dtypes.from_ir(_elem(st)).name}")
    return [st._value]


class ReLuType:
    NO_RELU = 0
    RELU = 1


# --------------------------------------------------------------- casts --

def cast(input, dtype, mode=CastMode.CAST_NONE, satmode=None):
    """input converted to dtype with a rounding mode (CastMode or its name:
    "rint", "round", "floor", "ceil", "trunc", "odd") and a saturation mode
    (SaturationMode, "on"/"off" or a bool). CAST_NONE is PyPTO's default:
    float to integer truncates and saturates, everything else rounds to
    nearest even."""
    loc = user_loc()
    x = _tensor(input)
    to = _dtypes.coerce(dtype)
    frm = _dtypes.from_ir(_elem(x))
    if mode is None:
        mode = CastMode.CAST_NONE
    if isinstance(mode, str):
        names = {m.value: m for m in CastMode}
        if mode in names:
            mode = names[mode]
        elif mode in CastMode.__members__:
            mode = CastMode[mode]
        else:
            raise error_at(ValueError, loc, f"cast: unknown mode {mode!r}; use a "
                           "pypto.CastMode or one of " + ", ".join(sorted(names)))
    if not isinstance(mode, CastMode):
        raise error_at(TypeError, loc, f"cast: mode must be a pypto.CastMode, got {mode!r}")
    (sat_on, sat_off), have_odd = _t().session.cast_spellings()
    if mode is CastMode.CAST_ODD and not have_odd:
        raise error_at(UnsupportedError, loc, "cast: CAST_ODD (round to odd) is not "
                       "supported by this library's pypto.cast")
    sat = None
    if isinstance(satmode, SaturationMode):
        sat = satmode is SaturationMode.ON
    elif isinstance(satmode, bool):
        sat = satmode
    elif isinstance(satmode, str) and satmode.lower() in _SAT_NAMES:
        sat = _SAT_NAMES[satmode.lower()]
    elif satmode is not None:
        raise error_at(TypeError, loc, "cast: satmode must be a pypto.SaturationMode, 'on' "
                       f"or 'off', got {satmode!r}")
    float_to_int = (frm is not None and (frm.is_float or frm.is_fp8)
                    and (to.is_int or to is DataType.DT_BOOL))
    if mode is CastMode.CAST_NONE:
        m = "trunc" if float_to_int else "rint"
        if sat is None and float_to_int:
            sat = True
    else:
        m = mode.value
    attrs = {"dtype": to.ir, "mode": f'"{m}"'}
    if sat is not None:
        attrs["satmode"] = f'"{sat_on if sat else sat_off}"'
    return _one("cast", [x._value], attrs, loc)


_SAT_NAMES = {"on": True, "off": False, "saturate": True, "wrap": False}


_cast_traced = cast


def cast(input, dtype, mode=CastMode.CAST_NONE, satmode=None):  # noqa: F811
    return _keep_valid(_cast_traced(input, dtype, mode, satmode), input)


cast.__doc__ = _cast_traced.__doc__


# ---------------------------------------------------------- shape ops --

def _offsets(t, offsets, rank, loc):
    if len(offsets) != rank:
        raise error_at(ValueError, loc, f"expected {rank} offsets, got {len(offsets)}")
    static, dyn = [], []
    for o in offsets:
        c = concrete(o)
        if c is not None:
            if c < 0:
                raise error_at(ValueError, loc, f"offsets must be non-negative, got {c}")
            static.append(c)
        elif isinstance(o, SymbolicScalar) and not o.is_bool:
            static.append(PTO_DYN)
            dyn.append(t.materialize(o, loc))
        else:
            raise error_at(TypeError, loc, f"an offset must be an int or a symbolic scalar, "
                           f"got {o!r}")
    return static, dyn


def view(input, shape=None, offsets=None, *, valid_shape=None, dtype=None):
    """The window of `shape` (static sizes) at `offsets` (ints or symbolic
    scalars) of input; with `dtype`, the window's bytes read as that type
    (the last dim scales with the element width)."""
    loc = user_loc()
    x = _tensor(input)
    t = _t()
    rank = x._value.type.rank
    if dtype is not None:
        dt = _dtypes.coerce(dtype, "dtype")
        if dt.ir != _elem(x):
            w = view(x, shape, offsets, valid_shape=valid_shape)
            return _bitcast(w, dt, loc)
    if shape is None:
        shape = x._dims
    shape = list(shape)
    if offsets is None:
        offsets = [0] * rank
    sizes = []
    for d in shape:
        c = concrete(d)
        if c is None:
            raise error_at(TraceError, loc,
                           f"view sizes must be static, got the symbolic size {d!r}; take "
                           "fixed-size windows inside a pypto.loop")
        sizes.append(c)
    valid = _valid_sizes(valid_shape, sizes, "view", loc)
    static, dyn = _offsets(t, list(offsets), rank, loc)
    w = _one("view", [x._value] + dyn,
             {"shape": _ints_attr(sizes), "static_offsets": _ints_attr(static)}, loc)
    return _set_valid(w, valid)


def _bitcast(x, dt, loc):
    """x's bytes in row-major order as elements of dt (pypto.bitcast)."""
    src = _dtypes.from_ir(_elem(x))
    if src is DataType.DT_BOOL or dt is DataType.DT_BOOL:
        raise error_at(TypeError, loc, f"view: cannot reinterpret the bits of {src.name} as "
                       f"{dt.name}: DT_BOOL has no bit layout to reinterpret")
    a, b = src.itemsize, dt.itemsize
    dims = list(x._dims)
    if a != b:
        last = concrete(dims[-1]) if dims else None
        if last is None or (last * a) % b:
            raise error_at(ValueError, loc,
                           f"view: the last dim ({dims[-1] if dims else 'none'}) of "
                           f"{src.name} elements does not hold a whole number of "
                           f"{dt.name} elements")
    return _one("bitcast", [x._value], {"dtype": dt.ir}, loc, vec=False)


def assemble(input, offsets, out):
    """Writes input into out at offsets; out (a tensor of the kernel) is
    updated in place and returned."""
    loc = user_loc()
    x, y = _tensor(input), _tensor(out, "out")
    _assemble_into(y, x, list(offsets), loc)
    return y


def _assemble_into(y, x, offsets, loc):
    t = _t()
    static, dyn = _offsets(t, offsets, y._value.type.rank, loc)
    if x._valid is not None:
        # only the valid part is written: the rest of the window keeps
        # what the destination holds
        sizes = [concrete(d) for d in x._dims]
        here = _one("view", [y._value] + dyn,
                    {"shape": _ints_attr(sizes), "static_offsets": _ints_attr(static)}, loc)
        x = _one("where", [_valid_mask(x, loc)._value, x._value, here._value], loc=loc)
    old = y._value
    (res,) = t.pypto("assemble", [x._value, old] + dyn,
                     dict({"static_offsets": _ints_attr(static)}, **_tuning(t)), loc)
    t.note_mutation(y, old)
    y._value = res


def reshape(input, shape, *, valid_shape=None, inplace=False):
    """The same elements with a new shape (one dim may be -1 or symbolic).
    inplace=True also makes the input handle the reshaped tensor."""
    loc = user_loc()
    x = _tensor(input)
    if isinstance(shape, int):
        shape = [shape]
    _full_valid(valid_shape, shape, "reshape", loc)
    dims = _reshape_dims(x, shape)
    r = _one("reshape", [x._value], {"shape": _ints_attr(dims)}, loc)
    if inplace:
        x._value, x._dims = r._value, r._dims
    return r


def _full_valid(valid_shape, shape, what, loc):
    if valid_shape is not None and (len(valid_shape) != len(shape) or any(
            concrete(v) is None or concrete(v) != concrete(s)
            for v, s in zip(valid_shape, shape))):
        raise error_at(UnsupportedError, loc, f"{what}: a valid_shape smaller than the "
                       "shape is not supported")


# ------------------------------------------------------- partial tiles --
# A window taken with valid_shape keeps its static shape; Tensor._valid
# holds the valid size of each dim (an int or a symbolic scalar; None when
# all of it is valid). Beyond it the window holds whatever it read.
# Elementwise ops carry the valid shape; the ops that would see the region
# beyond it fill it first (reductions with their neutral element, matmul
# with 0, softmax with -inf), and stores write only the valid part. Since
# this is composed of ordinary Tensor-level ops (an iota compared with the
# valid sizes, and where), every level runs it unchanged.

def _valid_sizes(valid_shape, sizes, what, loc):
    """valid_shape checked against the static sizes of the window: one int
    in [0, size] or symbolic scalar a dim; None when it covers everything."""
    if valid_shape is None:
        return None
    if not isinstance(valid_shape, (list, tuple)):
        raise error_at(TypeError, loc, f"{what}: valid_shape must be a list of ints or "
                       f"symbolic scalars, got {valid_shape!r}")
    if len(valid_shape) != len(sizes):
        raise error_at(ValueError, loc, f"{what}: valid_shape has {len(valid_shape)} "
                       f"entries, the shape {list(sizes)} has {len(sizes)} dims")
    out = []
    for i, (v, s) in enumerate(zip(valid_shape, sizes)):
        if isinstance(v, bool) or not isinstance(v, (int, SymbolicScalar)):
            raise error_at(TypeError, loc, f"{what}: valid_shape[{i}] must be an int or a "
                           f"symbolic scalar, got {v!r}")
        c = concrete(v)
        if c is not None and not 0 <= c <= s:
            raise error_at(ValueError, loc, f"{what}: valid_shape[{i}] is {c}, outside "
                           f"[0, {s}] (the size of dim {i})")
        out.append(c if c is not None else v)
    return _set_valid(None, out, sizes)


def _set_valid(x, valid, sizes=None):
    """x with the valid sizes `valid` (None when they cover x); with x None,
    the normalised sizes themselves."""
    if valid is not None:
        sizes = sizes if sizes is not None else [concrete(d) for d in x._dims]
        valid = [concrete(v) if concrete(v) is not None else v for v in valid]
        if all(isinstance(v, int) and v == s for v, s in zip(valid, sizes)):
            valid = None
    if x is None:
        return valid
    x._valid = valid
    return x


def _keep_valid(r, *inputs):
    """r (an elementwise result) valid where all its tensor inputs are: a
    broadcast dim (size 1 in an input) takes the others' valid size."""
    from ._symbolic import smin
    if not isinstance(r, Tensor) or all(getattr(v, "_valid", None) is None for v in inputs):
        return r
    out = [concrete(d) for d in r._dims]
    valid = [None] * len(out)
    for v in inputs:
        if not isinstance(v, Tensor) or v._valid is None:
            continue
        lead = len(out) - len(v._valid)
        for k, (vk, dk) in enumerate(zip(v._valid, v._dims)):
            j = lead + k
            if j >= 0 and concrete(dk) == out[j] and not (isinstance(vk, int) and vk == out[j]):
                a = valid[j]
                valid[j] = vk if a is None else builtins.min(a, vk) if isinstance(a, int) \
                    and isinstance(vk, int) else smin(a, vk)
    return _set_valid(r, [o if v is None else v for v, o in zip(valid, out)])


def _valid_mask(x, loc):
    """A DT_BOOL tensor of x's shape, true inside x's valid shape."""
    sizes = [concrete(d) for d in x._dims]
    masks = []
    for i, (v, s) in enumerate(zip(x._valid, sizes)):
        if isinstance(v, int) and v == s:
            continue
        axis = [1] * len(sizes)
        axis[i] = s
        masks.append(lt(_ramp(axis, loc), v))
    if len(masks) == 1 and [concrete(d) for d in masks[0]._dims] == sizes:
        return masks[0]
    # several dims, or one of several: combine (and broadcast) as 0/1 ints
    mask = cast(masks[0], DataType.DT_INT32)
    for m in masks[1:]:
        mask = mul(mask, cast(m, DataType.DT_INT32))
    if [concrete(d) for d in mask._dims] != sizes:
        mask = expand(mask, sizes)
    return ne(mask, 0)


def _ramp(axis, loc):
    """0, 1, ... along the one dim of `axis` that is not 1: built once per
    shape and region of the trace, since every mask of a loop body needs it."""
    from ._composite import _iota
    t = _t()
    region = t.regions[-1] if t.regions else None
    cache = t.__dict__.setdefault("_ramps", {})
    key = (tuple(axis), id(region))
    hit = cache.get(key)
    if hit is None or hit[0] is not region:
        hit = (region, _one("reshape", [_iota(builtins.max(axis))._value],
                            {"shape": _ints_attr(axis)}, loc))
        cache[key] = hit
    return hit[1]


def _fill_invalid(x, value, loc):
    """x with value beyond its valid shape (keeping the valid shape)."""
    s = _scalar_value(value, _elem(x), loc)
    r = _one("where", [_valid_mask(x, loc)._value, x._value, s], loc=loc)
    return _set_valid(r, x._valid)


def _neutral(mnemonic, elem):
    """The element a reduction ignores: 0 for sum, 1 for prod, the lowest
    value for amax/argmax and the highest for amin/argmin."""
    if mnemonic in ("sum", "prod"):
        return int(mnemonic == "prod")
    low = mnemonic in ("amax", "argmax")
    if elem == "i1":
        return not low
    if elem.startswith("i"):
        bits = int(elem[1:])
        return -(1 << (bits - 1)) if low else (1 << (bits - 1)) - 1
    return float("-inf") if low else float("inf")


def fillpad(input, mode="constant", value=0):
    """input with `value` beyond its valid shape (PyPTO's fillpad): the
    shape stays and all of the result is valid, so a store writes the fill
    too; a tensor without a valid shape is returned as it is."""
    loc = user_loc()
    x = _tensor(input)
    if mode != "constant":
        raise error_at(UnsupportedError, loc, f"fillpad: mode {mode!r} is not supported; "
                       "only 'constant'")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise error_at(ValueError, loc, f"fillpad: value {value!r} is not a number")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error_at(TypeError, loc, f"fillpad: value must be an int or a float, got "
                       f"{value!r}")
    if _elem(x).startswith("i") and isinstance(value, float) and not value.is_integer():
        raise error_at(ValueError, loc, f"fillpad: a {x.dtype!r} tensor takes an int value, "
                       f"got {value!r}")
    if x._valid is None:
        return x
    r = _fill_invalid(x, int(value) if _elem(x).startswith("i") else value, loc)
    return _set_valid(r, None)


def move(dst, src):
    """dst takes src's value (same shape and dtype), in place."""
    loc = user_loc()
    d, s = _tensor(dst, "the tensor"), _tensor(src, "other")
    if _elem(d) != _elem(s) or any(concrete(a) != concrete(b) or concrete(a) is None
                                   for a, b in zip(d._dims, s._dims)) \
            or len(d._dims) != len(s._dims):
        raise error_at(ValueError, loc, f"move: the source {s._value.type} must have the "
                       f"destination's static type {d._value.type}")
    _assemble_into(d, s, [0] * len(d._dims), loc)


def view_key(x, key, valid_shape):
    """x[key], with PyPTO's valid_shape (only the full window here)."""
    v = _getitem(x, key)
    if valid_shape is not None and not isinstance(v, Tensor):
        raise error_at(ValueError, user_loc(), "getitem: an element read has no valid_shape")
    return _set_valid(v, _valid_sizes(valid_shape, [concrete(d) for d in v._dims],
                                      "getitem", user_loc()))


def _reshape_dims(x, shape):
    """The builder shape of a reshape: -1 (or a symbolic size) for the one
    dim inferred at run time, resolved here when x's size is static (as
    numpy's -1)."""
    dims = [-1 if concrete(d) is None else concrete(d) for d in shape]
    sizes = [concrete(d) for d in x._dims]
    if dims.count(-1) == 1 and None not in sizes:
        known = 1
        for d in dims:
            if d != -1:
                known *= d
        numel = 1
        for d in sizes:
            numel *= d
        if known and numel % known == 0:
            dims[dims.index(-1)] = numel // known
    return dims


def transpose(input, dim0, dim1):
    """input with dims dim0 and dim1 swapped."""
    x = _tensor(input)
    rank = x._value.type.rank
    perm = list(range(rank))
    try:
        perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
    except (IndexError, TypeError):
        raise error_at(ValueError, user_loc(),
                       f"transpose: dims ({dim0}, {dim1}) out of range for rank {rank}") from None
    return _one("transpose", [x._value], {"perm": _ints_attr(perm)})


def permute(input, *dims):
    """input with its dims reordered (dims: a permutation)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    rank = _tensor(input)._value.type.rank
    perm = [d % rank if isinstance(d, int) and -rank <= d < rank else d for d in dims]
    return _one("transpose", [_tensor(input)._value], {"perm": _ints_attr(perm)})


def concat(tensors, dim=0):
    """Tensors joined along dim."""
    vals = [_tensor(x)._value for x in tensors]
    if not vals:
        raise error_at(ValueError, user_loc(), "concat: no tensors")
    return _one("concat", vals, {"dim": _dim_attr(dim)})


cat = concat


def expand(input, shape):
    """input broadcast to shape (sizes may be symbolic)."""
    loc = user_loc()
    t = _t()
    s, dyn = _dim_operands(t, shape, loc)
    return _one("expand", [_tensor(input)._value] + dyn, {"shape": _ints_attr(s)}, loc)


broadcast_to = expand


def full(size, fill_value, dtype=None, *, valid_shape=None):
    """A new tensor of `size` filled with fill_value (a number or symbolic
    scalar)."""
    loc = user_loc()
    t = _t()
    if dtype is None:
        dtype = DataType.DT_FP32 if isinstance(fill_value, float) else \
            DataType.DT_BOOL if isinstance(fill_value, bool) else DataType.DT_INT32
    dt = _dtypes.coerce(dtype)
    if dt.is_unsigned:
        if any(concrete(d) is None for d in size):
            raise error_at(UnsupportedError, loc, f"full: a {dt!r} tensor needs static sizes")
        return _unsigned_fill(list(size), fill_value, dt, loc)
    s, dyn = _dim_operands(t, list(size), loc)
    v = _scalar_value(fill_value, dt.ir, loc)
    return _one("full", [v] + dyn, {"shape": _ints_attr(s), "dtype": dt.ir}, loc)


def zeros(size, dtype=DataType.DT_FP32):
    """A new tensor of zeros."""
    loc = user_loc()
    t = _t()
    s, dyn = _dim_operands(t, list(size), loc)
    return _one("zeros", dyn, {"shape": _ints_attr(s), "dtype": _dtypes.coerce(dtype).ir}, loc)


def _random(mnemonic, what):
    def op(shape, key, counter, alg, dtype):
        loc = user_loc()

        def ints(v, n, name):
            if (not isinstance(v, (list, tuple)) or len(v) != n or
                    any(isinstance(x, bool) or not isinstance(x, int) for x in v)):
                raise error_at(TypeError, loc, f"{mnemonic}: {name} must be a list of {n} "
                               f"int{'s' if n > 1 else ''}, got {v!r}")
            return list(v)
        if (not isinstance(shape, (list, tuple)) or not 1 <= len(shape) <= 4 or
                any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in shape)):
            raise error_at(TypeError, loc, f"{mnemonic}: shape must be a list of 1 to 4 "
                           f"positive ints, got {shape!r}")
        (k,) = ints(key, 1, "key")
        _, c = ints(counter, 2, "counter")
        (a,) = ints(alg, 1, "alg")
        if a not in (1, 3):
            raise error_at(ValueError, loc, f"{mnemonic}: alg must be [1] (Philox) or [3] "
                           f"(auto, which picks Philox), got {alg!r}")
        for name, v in (("key", k), ("counter[1]", c)):
            if not -2 ** 63 <= v < 2 ** 64:
                raise error_at(ValueError, loc, f"{mnemonic}: {name} must fit in 64 bits, "
                               f"got {v}")
        dt = _dtypes.coerce(dtype)
        if not dt.is_float:
            raise error_at(TypeError, loc, f"{mnemonic}: dtype must be DT_FP32, DT_FP16 or "
                           f"DT_BF16, got {dt!r}")
        as_i64 = [v - 2 ** 64 if v >= 2 ** 63 else v for v in (k, c)]
        return _one(mnemonic, [], {"shape": _ints_attr(list(shape)), "dtype": dt.ir,
                                   "key": f"{as_i64[0]} : i64",
                                   "counter": f"{as_i64[1]} : i64"}, loc)
    op.__name__ = mnemonic
    op.__doc__ = (f"A new tensor of {what} from the counter-based Philox4x32-10 "
                  f"generator (traces pypto.{mnemonic}): the same key and counter give "
                  "the same numbers under any tiling; counter[0] is ignored, as in "
                  "PyPTO. docs/dialects/pypto.md defines every bit.")
    return op


uniform = _random("uniform", "values in [0, 1)")
normal = _random("normal", "standard normal values")


def ones(size, dtype=DataType.DT_FP32):
    return full(size, 1, dtype)


def tensor(shape=None, dtype=None, name=None, format=None):
    """A new tensor inside a kernel (zero-filled); outside a kernel, a
    parameter annotation like pypto.Tensor (no shape, or [], means any
    shape)."""
    from ._trace import active
    if active() is None:
        return Tensor(shape, dtype, name, format)
    if shape is None:
        raise error_at(TypeError, user_loc(), "pypto.tensor inside a kernel needs a shape")
    return zeros(shape, dtype or DataType.DT_FP32)


# ------------------------------------------------------------ indexing --

def gather(input, dim, index):
    """out[i..] = input[.., index[i..] at dim, ..] (torch.gather)."""
    return _one("gather", [_tensor(input)._value, _tensor(index, "index")._value],
                {"dim": _dim_attr(dim)})


def index_select(input, dim, index):
    """The slices of input at the 1-D index along dim."""
    return _one("index_select", [_tensor(input)._value, _tensor(index, "index")._value],
                {"dim": _dim_attr(dim)})


def scatter_update(input, dim, index, src):
    """Rows of input replaced by src at index, in place (the KV-cache write):
    input [T, d] with index [b, s] and src [b*s, d], or input [B, S, 1, d]
    (T = B*S slots) with src [b, s, 1, d]; a 1-D index scatters src's slices
    along dim. Returns input."""
    loc = user_loc()
    x, idx, s = _tensor(input), _tensor(index, "index"), _tensor(src, "src")
    t = _t()
    old = x._value
    tun = _tuning(t)
    if idx._value.type.rank == 1:
        (res,) = t.pypto("scatter_update", [old, idx._value, s._value],
                         dict({"dim": _dim_attr(dim)}, **tun), loc)
    else:
        xr = old.type.rank
        if xr not in (2, 4):
            raise error_at(UnsupportedError, loc,
                           "scatter_update with a 2-D index needs a 2-D or 4-D input")
        last = x._dims[-1]
        flat_idx = _one("reshape", [idx._value], {"shape": _ints_attr(_reshape_dims(idx, [-1]))},
                        loc)
        rows = x if xr == 2 else reshape(x, [-1, last])
        flat_src = s if s._value.type.rank == 2 else reshape(s, [-1, last])
        if xr == 4 and t.vec_tile and len(t.vec_tile) == 4:
            # the user's tile is for the 4-D cache; the scatter runs on its
            # [B*S*1, d] rows, so the leading tile dims fold the same way
            vt = t.vec_tile
            tun["vec_tile"] = f"[{vt[0] * vt[1] * vt[2]}, {vt[3]}]"
        (upd,) = t.pypto("scatter_update", [rows._value, flat_idx._value, flat_src._value],
                         dict({"dim": "0 : i64"}, **tun), loc)
        res = upd
        if xr == 4:
            back = Tensor._wrap(upd, t)
            res = reshape(back, x._dims)._value
    t.note_mutation(x, old)
    x._value = res
    return x


def _index_add(input, dim, index, source, alpha, loc, inplace, ub=False):
    x = _tensor(input)
    idx, s = _tensor(index, "index"), _tensor(source, "source")
    if not (x.dtype.is_float or x.dtype.is_int):
        raise error_at(TypeError, loc, f"index_add: input must be a float or integer tensor, "
                       f"got {x.dtype!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise error_at(TypeError, loc, f"index_add: alpha must be an int or a float, got "
                       f"{alpha!r}")
    if x.dtype.is_int and not isinstance(alpha, int):
        raise error_at(TypeError, loc, f"index_add: alpha must be an int for the integer "
                       f"input {x.dtype!r}, got {alpha!r}")
    if alpha != 1:
        s = mul(s, alpha)
    attrs = {"dim": _dim_attr(dim)}
    if ub:
        attrs["ub"] = None
    return _update("index_add", x, [idx._value, s._value], attrs, loc, inplace)


def _update(mnemonic, x, operands, attrs, loc, inplace):
    """The op that returns x updated (operand #0): in place rebinds x's
    handle to the result, otherwise the result is a new tensor."""
    t = _t()
    old = x._value
    (res,) = t.pypto(mnemonic, [old] + operands, dict(attrs, **_tuning(t)), loc)
    if not inplace:
        return Tensor._wrap(res, t)
    t.note_mutation(x, old)
    x._value = res
    return x


def index_add_(input, dim, index, source, *, alpha=1):
    """input[..., index[i], ...] += alpha * source[..., i, ...] along dim, in
    place (traces pypto.index_add): index is 1-D (DT_INT32 or DT_INT64);
    duplicate indices accumulate in index order, the same on every run.
    Returns input."""
    return _index_add(input, dim, index, source, alpha, user_loc(), True)


def index_add(input, dim, index, source, *, alpha=1):
    """index_add_ on a copy: input itself is unchanged."""
    return _index_add(input, dim, index, source, alpha, user_loc(), False)


def index_add__ub(input, dim, index, source, *, alpha=1):
    """index_add_ whose operands live in UB (PyPTO's variant): the same
    numbers; pypto.index_add carries the `ub` attribute, which every tile
    it expands to keeps."""
    return _index_add(input, dim, index, source, alpha, user_loc(), True, ub=True)


def index_add_ub(input, dim, index, source, *, alpha=1):
    """index_add__ub on a copy: input itself is unchanged."""
    return _index_add(input, dim, index, source, alpha, user_loc(), False, ub=True)


_SCATTER_REDUCE = (None, "add", "multiply")


def _scatter(input, dim, index, src, reduce, loc, inplace):
    x, idx = _tensor(input), _tensor(index, "index")
    if reduce not in _SCATTER_REDUCE:
        raise error_at(ValueError, loc, f"scatter: reduce must be None, 'add' or 'multiply', "
                       f"got {reduce!r}")
    if _is_scalar(src):
        if isinstance(src, float) and not math.isfinite(src):
            raise error_at(ValueError, loc, f"scatter: a scalar src must be finite, got {src!r}")
        src = full(list(idx._dims), src, x.dtype)
    s = _tensor(src, "src")
    attrs = {"dim": _dim_attr(dim)}
    if reduce:
        attrs["reduce"] = f'"{reduce}"'
    return _update("scatter", x, [idx._value, s._value], attrs, loc, inplace)


def scatter_(input, dim, index, src, *, reduce=None):
    """torch.scatter_ (traces pypto.scatter): for every position i of index,
    input[i with i[dim] replaced by index[i]] = src[i] (src a tensor at
    least index's size in every dim, or a number); reduce='add' or
    'multiply' combines with what input holds instead. index (DT_INT32 or
    DT_INT64) has input's rank. Duplicate positions apply in row-major
    order of index on every tiling. Updates input in place and returns it."""
    return _scatter(input, dim, index, src, reduce, user_loc(), True)


def scatter(input, dim, index, src, *, reduce=None):
    """scatter_ on a copy: input itself is unchanged."""
    return _scatter(input, dim, index, src, reduce, user_loc(), False)


def atomic_add(src, offsets, dst):
    """dst[offsets : offsets + src.shape] += src, in place (traces a view of
    dst, pypto.add and pypto.assemble). Updates happen in program order, so
    overlapping atomic_adds give the same result on every run."""
    loc = user_loc()
    s, y = _tensor(src, "src"), _tensor(dst, "dst")
    offsets = list(offsets)
    if len(offsets) != len(s._dims) or len(s._dims) != len(y._dims):
        raise error_at(ValueError, loc, f"atomic_add: offsets ({len(offsets)}), src "
                       f"({len(s._dims)} dims) and dst ({len(y._dims)} dims) must have one "
                       "length")
    if s.dtype is not y.dtype:
        raise error_at(TypeError, loc, f"atomic_add: src is {s.dtype!r} but dst is "
                       f"{y.dtype!r}")
    window = view(y, list(s._dims), offsets)
    _assemble_into(y, add(window, s), offsets, loc)


def topk(input, k, dim=-1, largest=True, algo=None):
    """(values, indices) of the k largest (or smallest) along dim; algo (a
    pypto.TopKAlgo) does not change the result."""
    if algo is not None:
        from ._enums import TopKAlgo
        check_enum(algo, TopKAlgo, "algo")
    if isinstance(k, bool) or not isinstance(k, int):
        raise error_at(TypeError, user_loc(), f"topk: k must be an int, got {k!r}")
    attrs = {"k": f"{k} : i64", "dim": _dim_attr(dim),
             "largest": "true" if largest else "false"}
    vals, idx = _emit("topk", [_tensor(input)._value], attrs)
    return vals, idx


def quantize(input):
    """(int8 values, f32 per-row scales) of symmetric per-row quantisation."""
    q, scale = _emit("quantize", [_tensor(input)._value])
    return q, scale


def dequantize(input, scale, dtype=DataType.DT_FP32):
    """f32(input) * scale, as dtype."""
    return _one("dequantize", [_tensor(input)._value, _tensor(scale, "scale")._value],
                {"dtype": _dtypes.coerce(dtype).ir})


# ----------------------------------------------------- slicing support --

def _norm_key(x, key, loc, assigning):
    """Per dim: (offset, size or None, drop) from a subscript."""
    dims = x._dims
    rank = len(dims)
    if not isinstance(key, tuple):
        key = (key,)
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise error_at(IndexError, loc, "an index may contain '...' once")
    n_real = builtins.sum(1 for k in key if k is not Ellipsis)
    if n_real > rank:
        raise error_at(IndexError, loc, f"too many indices: {n_real} for a tensor of rank {rank}")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (rank - n_real))
        else:
            out.append(k)
    out.extend([slice(None)] * (rank - len(out)))
    res = []
    for i, (k, d) in enumerate(zip(out, dims)):
        dc = concrete(d)
        if isinstance(k, slice):
            if k.step not in (None, 1):
                raise error_at(UnsupportedError, loc,
                               f"slices with a step are not supported (dim {i})")
            start = 0 if k.start is None else k.start
            stop = k.stop
            start = _wrap_index(start, dc, i, loc)
            if stop is not None:
                stop = _wrap_index(stop, dc, i, loc)
                if dc is not None and concrete(stop) is not None:
                    stop = builtins.min(concrete(stop), dc)
            if stop is None:
                size = None if assigning else (d - start)
            else:
                size = stop - start
            res.append((start, size, False))
        elif isinstance(k, (int, SymbolicScalar)) and not isinstance(k, bool):
            res.append((_wrap_index(k, dc, i, loc), 1, True))
        else:
            raise error_at(UnsupportedError, loc, f"unsupported index {k!r} in dim {i}")
    return res


def _wrap_index(v, dim, i, loc):
    c = concrete(v)
    if c is not None and c < 0:
        if dim is None:
            raise error_at(UnsupportedError, loc,
                           f"a negative index ({c}) in the dynamic dim {i}")
        return builtins.max(0, dim + c)
    if c is not None and dim is not None and c > dim:
        return dim
    if c is None and not isinstance(v, SymbolicScalar):
        raise error_at(TypeError, loc, f"an index must be an int or a symbolic scalar, got {v!r}")
    return v


def _static_size(size, i, loc, what):
    c = concrete(size)
    if c is None:
        raise error_at(TraceError, loc,
                       f"{what} size of dim {i} is symbolic ({size!r}); views have static "
                       "sizes: iterate with pypto.loop and take fixed-size windows")
    if c <= 0:
        raise error_at(IndexError, loc, f"{what} of dim {i} is empty (size {c})")
    return c


_INT_ELEMS = ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")


def _is_element_key(x, key):
    """Whether `key` picks one element: an int or symbolic index per dim."""
    key = key if isinstance(key, tuple) else (key,)
    return (len(key) == len(x._dims) and len(key) > 0 and
            all(isinstance(k, (int, SymbolicScalar)) and not isinstance(k, bool)
                for k in key))


def _load_scalar(x, key, loc):
    """x[b, j] on an integer tensor: the element as a run-time scalar
    (PyPTO's scalar read), usable as a loop bound, offset or size."""
    if _elem(x) not in _INT_ELEMS:
        raise error_at(TypeError, loc,
                       f"reading one element gives a symbolic scalar, which needs an integer "
                       f"tensor; this one holds {_dtypes.from_ir(_elem(x))!r} (take a window "
                       f"such as x[i:i+1] for a tensor)")
    parts = _norm_key(x, key, loc, False)
    for i, ((o, _, _), d) in enumerate(zip(parts, x._dims)):
        c, dc = concrete(o), concrete(d)
        if c is not None and dc is not None and c >= dc:
            raise error_at(IndexError, loc, f"index {c} is out of range for dim {i} of size {dc}")
        if isinstance(o, SymbolicScalar) and o.is_bool:
            raise error_at(TypeError, loc, f"index {i} is a condition, not an integer")
    t = _t()
    static, dyn = _offsets(t, [o for o, _, _ in parts], len(parts), loc)
    (v,) = t.pypto("load_scalar", [x._value] + dyn,
                   {"static_offsets": _ints_attr(static)}, loc)
    return SymbolicScalar.atom(Atom("value", value=v, name=f"{x.name or 'tensor'}[...]"))


def _getitem(x, key):
    loc = user_loc()
    _tensor(x)
    if _is_element_key(x, key):
        return _load_scalar(x, key, loc)
    parts = _norm_key(x, key, loc, False)
    sizes = [_static_size(s, i, loc, "the slice") for i, (_, s, _) in enumerate(parts)]
    offsets = [o for o, _, _ in parts]
    t = _t()
    static, dyn = _offsets(t, offsets, len(parts), loc)
    v = _one("view", [x._value] + dyn,
             {"shape": _ints_attr(sizes), "static_offsets": _ints_attr(static)}, loc)
    if any(drop for _, _, drop in parts):
        kept = [s for s, (_, _, drop) in zip(sizes, parts) if not drop]
        v = _one("reshape", [v._value], {"shape": _ints_attr(kept)}, loc)
    return v


def _setitem(y, key, value):
    loc = user_loc()
    _tensor(y)
    parts = _norm_key(y, key, loc, True)
    offsets = [o for o, _, _ in parts]
    if _is_scalar(value):
        sizes = [_static_size(s if s is not None else d - o, i, loc, "the assigned window")
                 for i, ((o, s, _), d) in enumerate(zip(parts, y._dims))]
        value = full(sizes, value, _dtypes.from_ir(_elem(y)))
    x = _tensor(value, "the assigned value")
    xs = list(x._dims)
    if any(drop for _, _, drop in parts) and len(xs) < len(parts):
        shape = []
        it = iter(xs)
        for (_, _, drop) in parts:
            shape.append(1 if drop else next(it, 1))
        x = _one("reshape", [x._value], {"shape": _ints_attr(
            [concrete(d) if concrete(d) is not None else -1 for d in shape])}, loc)
        xs = list(x._dims)
    if len(xs) != len(parts):
        raise error_at(ValueError, loc,
                       f"cannot assign a tensor of rank {len(xs)} to a window of rank "
                       f"{len(parts)}")
    window = []
    for i, ((_, size, _), have) in enumerate(zip(parts, xs)):
        if size is None:
            window.append(have)
            continue
        want = concrete(size)
        got = concrete(have)
        if want is not None and got is not None and want != got:
            if got != 1:
                raise error_at(ValueError, loc,
                               f"the assigned value has size {got} in dim {i}, the window "
                               f"has size {want}")
        window.append(size)
    if any(concrete(w) != concrete(h) for w, h in zip(window, xs)):
        x = expand(x, window)
    _assemble_into(y, x, offsets, loc)


# ------------------------------------------------- the C op list, mirrored --

# Every op of the pypto dialect (the C op table) and the Python function
# that traces it ("Tensor.shape": reading a dynamic size). The scalar forms
# (adds, ...) are what the binary functions emit for a Python number.
# test/Python/test_op_list.py holds this against the library's own list,
# so that an op is not forgotten on one side.
C_OPS = dict(
    {m: m for m in """abs neg exp log sqrt rsqrt reciprocal relu sigmoid tanh
     silu gelu sin cos floor ceil round erf log1p expm1 sign hardsigmoid
     leaky_relu clip trunc tan sinh cosh asin acos atan asinh acosh atanh erfc
     cbrt exp2 log2 log10 cast add sub mul div maximum minimum atan2 bitwise_and
     bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift
     pow eq ne lt le gt ge where sum amax amin prod argmax argmin matmul view
     assemble reshape transpose concat expand full zeros gather index_select
     scatter_update topk quantize dequantize softmax rms_norm layer_norm quant_mx
     scaled_mm""".split()},
    index_add="index_add", scatter="scatter",
    adds="add", subs="sub", muls="mul", divs="div", maxs="maximum", mins="minimum",
    dim="Tensor.shape", gcd="gcd", signbit="signbit", uniform="uniform", normal="normal",
    load_scalar="Tensor.__getitem__", bitcast="view",
    pass_verify_print="pass_verify_print", pass_verify_save="pass_verify_save")
