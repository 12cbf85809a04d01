"""PyPTO ops that are exactly a few Tensor-level ops: each function here
traces its definition (pypto.isnan(x) is `pypto.ne %x, %x`), so that the
IR shows what is computed and every level below needs nothing new."""

from . import _dtypes, _ops
from ._dtypes import DataType
from ._enums import PrecisionType, check_enum
from ._errors import TraceError, UnsupportedError, error_at
from ._loc import user_loc
from ._symbolic import SymbolicScalar, concrete
from ._tensor import Tensor

__all__ = ["isnan", "isfinite", "logical_not", "logical_and", "lrelu", "prelu", "hypot",
           "fmod", "remainder", "floor_div", "ceil_div", "clone", "expand_clone",
           "unsqueeze", "var", "expand_exp_dif", "axpy_", "arange", "one_hot", "tril",
           "triu", "pad", "cumsum", "cumprod", "argsort", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
           "atan2", "interleave", "deinterleave", "gcd", "signbit", "gathermask",
           "index_put_", "pack", "unpack"]


def _float_only(x, what):
    dt = x.dtype
    if not dt.is_float:
        raise error_at(TypeError, user_loc(), f"{what} takes a float tensor "
                       f"(DT_FP32, DT_FP16, DT_BF16), got {dt!r}")


def _check_precision(precision_type):
    if precision_type is not None:
        check_enum(precision_type, PrecisionType, "precision_type")


def isnan(input):
    """DT_BOOL: where input is NaN (x != x; never for integers)."""
    x = _ops._tensor(input)
    return _ops.ne(x, x)


def isfinite(input):
    """DT_BOOL: where input is neither infinite nor NaN (x - x == 0, which
    fails exactly for those; always for integers)."""
    x = _ops._tensor(input)
    return _ops.eq(_ops.sub(x, x), 0)


def logical_not(input):
    """DT_BOOL: input == 0 (False for bools)."""
    return _ops.eq(_ops._tensor(input), 0)


def logical_and(input, other):
    """DT_BOOL: both non-zero, broadcast (numbers count as true when
    non-zero, as in PyPTO)."""
    a = _ops.ne(_ops._tensor(input), 0)
    b = _ops.ne(_ops._tensor(other, "other"), 0)
    return _ops.minimum(_ops.cast(a, DataType.DT_INT8), _ops.cast(b, DataType.DT_INT8)) != 0


def lrelu(input, negative_slope=0.01):
    """Leaky ReLU (PyPTO's name of leaky_relu); the slope may be an
    Element."""
    if isinstance(negative_slope, _dtypes.Element):
        negative_slope = negative_slope.value
    if isinstance(negative_slope, (int, float)) and not isinstance(negative_slope, bool) \
            and negative_slope < 0:
        raise error_at(ValueError, user_loc(),
                       f"lrelu: negative_slope must be >= 0, got {negative_slope}")
    return _ops.leaky_relu(input, negative_slope)


def prelu(input, weight):
    """x where x >= 0, else weight * x: weight is 1-D, of length 1 for a 1-D
    input and of the channel dim (dim 1) otherwise."""
    loc = user_loc()
    x, w = _ops._tensor(input), _ops._tensor(weight, "weight")
    rank = len(x.shape)
    if len(w.shape) != 1:
        raise error_at(ValueError, loc, f"prelu: weight must be 1-D, got shape {w.shape}")
    want = 1 if rank == 1 else concrete(x.shape[1])
    if concrete(w.shape[0]) != want:
        raise error_at(ValueError, loc, f"prelu: weight has {w.shape[0]} elements; a "
                       f"{rank}-D input needs {want} (its dim 1)" if rank > 1 else
                       f"prelu: weight has {w.shape[0]} elements; a 1-D input needs 1")
    if rank > 1:
        w = _ops.reshape(w, [1, want] + [1] * (rank - 2))
    return _ops.where(_ops.ge(x, 0), x, _ops.mul(x, w))


def hypot(input, other):
    """sqrt(input^2 + other^2); f16/bf16 are computed in f32 so that the
    squares cannot overflow."""
    a, b = _ops._tensor(input), _ops._tensor(other, "other")
    _float_only(a, "hypot")
    dt = a.dtype
    if dt is not DataType.DT_FP32:
        a, b = _ops.cast(a, DataType.DT_FP32), _ops.cast(b, DataType.DT_FP32)
    r = _ops.sqrt(_ops.add(_ops.mul(a, a), _ops.mul(b, b)))
    return r if dt is DataType.DT_FP32 else _ops.cast(r, dt)


def _quotient(a, b, rounding):
    """rounding(a / b), rounding being _ops.floor or _ops.ceil. Integers
    stay integers: the truncating quotient q, corrected by one where the
    remainder a - q*b is non-zero with b's sign (ceil) or against it
    (floor); exact for every value."""
    dt = a.dtype
    if dt.is_float:
        return rounding(_ops.div(a, b))
    q = _ops.div(a, b)
    r = _ops.sub(a, _ops.mul(q, b))
    rb = _ops.mul(r, _ops.sign(b) if isinstance(b, Tensor) else (1 if b >= 0 else -1))
    if rounding is _ops.floor:
        return _ops.sub(q, _ops.cast(_ops.lt(rb, 0), dt))
    return _ops.add(q, _ops.cast(_ops.gt(rb, 0), dt))


def _operands(input, other, what):
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise error_at(TypeError, user_loc(), f"{what} needs a tensor operand")
        input = _ops.full(other.shape, input, other.dtype)
    a = _ops._tensor(input)
    if isinstance(other, Tensor):
        return a, _ops._tensor(other, "other")
    if isinstance(other, _dtypes.Element):
        other = other.value
    if isinstance(other, bool) or not isinstance(other, (int, float)):
        raise error_at(TypeError, user_loc(), f"{what}: other must be a tensor or a number, "
                       f"got {other!r}")
    return a, other


def fmod(input, other, precision_type=None):
    """input - trunc(input / other) * other: the remainder with input's sign
    (C's fmod), float tensors."""
    _check_precision(precision_type)
    a, b = _operands(input, other, "fmod")
    _float_only(a, "fmod")
    return _ops.sub(a, _ops.mul(_ops.trunc(_ops.div(a, b)), b))


def remainder(input, other, precision_type=None):
    """input - floor(input / other) * other: the remainder with other's sign
    (Python's %)."""
    _check_precision(precision_type)
    a, b = _operands(input, other, "remainder")
    return _ops.sub(a, _ops.mul(_quotient(a, b, _ops.floor), b))


def floor_div(input, other):
    """floor(input / other), elementwise (Python's //)."""
    a, b = _operands(input, other, "floor_div")
    return _quotient(a, b, _ops.floor)


def ceil_div(input, other):
    """ceil(input / other) of integer tensors."""
    a, b = _operands(input, other, "ceil_div")
    if not a.dtype.is_int:
        raise error_at(TypeError, user_loc(), f"ceil_div takes integer tensors, got "
                       f"{a.dtype!r}")
    return _quotient(a, b, _ops.ceil)


def clone(input):
    """A copy of input: tensors here are values, so the copy is the same
    value under a new handle (assigning into one leaves the other)."""
    x = _ops._tensor(input)
    return Tensor._wrap(x._value, _ops._t(), x._dims)


def expand_clone(input, shape, *, valid_shape=None):
    """input broadcast along its size-1 dims to shape."""
    x = _ops._tensor(input)
    shape = list(shape)
    if len(shape) != len(x.shape):
        raise error_at(ValueError, user_loc(), f"expand_clone: shape {shape} must have "
                       f"the input's rank {len(x.shape)}")
    if valid_shape is not None and any(concrete(v) != concrete(s)
                                       for v, s in zip(valid_shape, shape)):
        raise error_at(UnsupportedError, user_loc(), "expand_clone: a valid_shape smaller "
                       "than the shape is not supported")
    return _ops.expand(x, shape)


def unsqueeze(input, dim):
    """input with a new size-1 dim at dim (-rank-1 <= dim <= rank)."""
    x = _ops._tensor(input)
    rank = len(x.shape)
    if isinstance(dim, bool) or not isinstance(dim, int) or not -rank - 1 <= dim <= rank:
        raise error_at(IndexError, user_loc(), f"unsqueeze: dim must be an int in "
                       f"[{-rank - 1}, {rank}], got {dim!r}")
    if dim < 0:
        dim += rank + 1
    dims = list(x.shape)
    dims.insert(dim, 1)
    return _ops.reshape(x, dims)


def _reduce_dims(x, dim, what):
    rank = len(x.shape)
    dims = list(range(rank)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    out = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int) or not -rank <= d < rank:
            raise error_at(IndexError, user_loc(), f"{what}: dim {d!r} out of range for "
                           f"rank {rank}")
        d %= rank
        if d in out:
            raise error_at(ValueError, user_loc(), f"{what}: dim {d} given twice")
        out.append(d)
    return sorted(out)


def var(input, dim=None, *, correction=1, keepdim=False):
    """The variance over dim (an int, several, or None: all), with
    sum((x - mean)^2) / max(0, N - correction)."""
    loc = user_loc()
    x = _ops._tensor(input)
    _float_only(x, "var")
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise error_at(TypeError, loc, f"var: correction must be a number, got {correction!r}")
    dims = _reduce_dims(x, dim, "var")
    n = 1
    for d in dims:
        c = concrete(x.shape[d])
        if c is None:
            raise error_at(TraceError, loc, f"var: dim {d} is dynamic; reduce over static "
                           "dims (take fixed-size windows inside a pypto.loop)")
        n *= c
    s = x
    for d in dims:
        s = _ops.sum(s, d, keepdim=True)
    centred = _ops.sub(x, _ops.div(s, float(n)))
    ss = _ops.mul(centred, centred)
    for d in dims:
        ss = _ops.sum(ss, d, keepdim=True)
    r = _ops.div(ss, float(max(0.0, n - correction)))
    if not keepdim:
        r = _ops.reshape(r, [s for i, s in enumerate(r.shape) if i not in dims] or [1])
    return r


def expand_exp_dif(input, other):
    """exp(input - other), broadcast."""
    return _ops.exp(_ops.sub(_ops._tensor(input), _ops._tensor(other, "other")))


def axpy_(y, x, alpha=1.0):
    """y = alpha * x + y in place (x broadcasts to y's shape; an f16 x into
    an f32 y is widened first). Returns y."""
    loc = user_loc()
    t, s = _ops._tensor(y, "y"), _ops._tensor(x, "x")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise error_at(TypeError, loc, f"axpy_: alpha must be a number, got {alpha!r}")
    if s.dtype is not t.dtype:
        if not (t.dtype is DataType.DT_FP32 and s.dtype is DataType.DT_FP16):
            raise error_at(TypeError, loc, f"axpy_: x ({s.dtype!r}) and y ({t.dtype!r}) "
                           "must have one dtype, or be DT_FP16 into DT_FP32")
        s = _ops.cast(s, t.dtype)
    if len(s.shape) != len(t.shape):
        raise error_at(ValueError, loc, "axpy_: x and y must have the same rank")
    upd = _ops.add(t, _ops.mul(s, float(alpha)))
    if any(concrete(a) != concrete(b) for a, b in zip(upd.shape, t.shape)):
        raise error_at(ValueError, loc, f"axpy_: y {t.shape} cannot take the broadcast "
                       f"shape {upd.shape}")
    _ops._assemble_into(t, upd, [0] * len(t.shape), loc)
    return t


# ------------------------------------------------------- index sequences --

def _iota(n):
    """DT_INT32 [0, 1, ..., n-1] by doubling: [0], then a ++ (a + len(a))
    until n fit, then the first n; 2*log2(n) ops over about 4n elements."""
    a = _ops.full([1], 0, DataType.DT_INT32)
    m = 1
    while m < n:
        a = _ops.concat([a, _ops.add(a, m)], 0)
        m *= 2
    return a if m == n else _ops.view(a, [n], [0])


def _number(v, what, loc):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise error_at(TypeError, loc, f"{what} must be an int or a float, got {v!r}")
    return v


def arange(start=0, end=None, step=1):
    """[start, start + step, ...) below end (above it for a negative step):
    DT_INT32 when all three are ints, else DT_FP32 (start + i * step)."""
    loc = user_loc()
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v, w, loc) for v, w in
                        ((start, "start"), (end, "end"), (step, "step")))
    if step == 0 or abs(step) <= 1e-8:
        raise error_at(ValueError, loc, f"arange: step must not be 0, got {step}")
    import math
    n = math.ceil((end - start) / step)
    if n <= 0:
        raise error_at(ValueError, loc, f"arange({start}, {end}, {step}) is empty: "
                       "(end - start) / step must be positive")
    ints = all(isinstance(v, int) for v in (start, end, step))
    if ints and not all(-2 ** 31 <= v < 2 ** 31 for v in (start, end, step)):
        raise error_at(OverflowError, loc, "arange: int start, end and step must fit int32")
    i = _iota(n)
    if not ints:
        i = _ops.cast(i, DataType.DT_FP32)
    if step != 1:
        i = _ops.mul(i, step)
    return _ops.add(i, start) if start != 0 else i


def one_hot(input, num_classes):
    """DT_INT64 [..., num_classes]: 1 where the last index equals input."""
    loc = user_loc()
    x = _ops._tensor(input)
    if not x.dtype.is_int:
        raise error_at(TypeError, loc, f"one_hot takes an integer tensor, got {x.dtype!r}")
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes <= 0:
        raise error_at(ValueError, loc, f"one_hot: num_classes must be a positive int, got "
                       f"{num_classes!r}")
    classes = _ops.cast(_iota(num_classes), x.dtype)
    hit = _ops.eq(unsqueeze(x, -1), classes)
    return _ops.cast(hit, DataType.DT_INT64)


def _triangle(input, diagonal, lower, what):
    loc = user_loc()
    x = _ops._tensor(input)
    if len(x.shape) < 2:
        raise error_at(ValueError, loc, f"{what} takes a tensor of 2 or more dims, got "
                       f"shape {x.shape}")
    rows, cols = (concrete(d) for d in x.shape[-2:])
    if rows is None or cols is None:
        raise error_at(TraceError, loc, f"{what}: the last two dims must be static, got "
                       f"{x.shape[-2:]}")
    if isinstance(diagonal, bool) or not isinstance(diagonal, (int, SymbolicScalar)):
        raise error_at(TypeError, loc, f"{what}: diagonal must be an int or a symbolic "
                       f"scalar, got {diagonal!r}")
    r = _ops.reshape(_iota(rows), [rows, 1])
    c = _ops.reshape(_iota(cols), [1, cols])
    offset = _ops.sub(c, r)              # column - row, [rows, cols]
    keep = _ops.le(offset, diagonal) if lower else _ops.ge(offset, diagonal)
    return _ops.where(keep, x, 0)


def tril(input, diagonal=0):
    """input with the elements above the diagonal-th diagonal of its last
    two dims set to 0."""
    return _triangle(input, diagonal, True, "tril")


def triu(input, diagonal=0):
    """input with the elements below the diagonal-th diagonal set to 0."""
    return _triangle(input, diagonal, False, "triu")


def pad(input, pad, mode="constant", value=0):
    """input grown by pad = (left, right[, top, bottom, ...]) elements per
    dim from the last, filled with value (mode "constant")."""
    loc = user_loc()
    x = _ops._tensor(input)
    if mode != "constant":
        raise error_at(UnsupportedError, loc, f"pad: mode {mode!r} is not supported; only "
                       "'constant'")
    if not isinstance(pad, (list, tuple)) or len(pad) % 2 or not pad or \
            len(pad) // 2 > len(x.shape) or not all(
                isinstance(p, int) and not isinstance(p, bool) for p in pad):
        raise error_at(TypeError, loc, "pad: pad must be an even-length sequence of ints, "
                       f"two per padded dim (at most {len(x.shape)} dims), got {pad!r}")
    if any(p < 0 for p in pad):
        raise error_at(ValueError, loc, f"pad: negative padding is not supported, got {pad!r}")
    _number(value, "pad: value", loc)
    if x.dtype.is_int and isinstance(value, float):
        raise error_at(ValueError, loc, f"pad: a {x.dtype!r} tensor takes an int value, got "
                       f"{value!r}")
    shape, offsets = list(x.shape), [0] * len(x.shape)
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        shape[d] = shape[d] + pad[2 * i] + pad[2 * i + 1]
        offsets[d] = pad[2 * i]
    out = _ops.full(shape, value, x.dtype)
    _ops._assemble_into(out, x, offsets, loc)
    return out


# ------------------------------------------------------------- scans, sort --

def _scan(x, dim, combine, identity, what):
    """Inclusive scan along dim by doubling (Hillis-Steele): for k = 1, 2,
    4, ... x = combine(x, x shifted by k along dim, identity-filled):
    log2(n) steps of n elements each."""
    loc = user_loc()
    rank = len(x.shape)
    if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
        raise error_at(IndexError, loc, f"{what}: dim must be an int in [{-rank}, {rank}), "
                       f"got {dim!r}")
    dim %= rank
    n = concrete(x.shape[dim])
    if n is None:
        raise error_at(TraceError, loc, f"{what}: dim {dim} is dynamic; scan a static dim "
                       "(take fixed-size windows inside a pypto.loop)")
    k = 1
    while k < n:
        head = list(x.shape)
        head[dim] = k
        rest = list(x.shape)
        rest[dim] = n - k
        shifted = _ops.concat([_ops.full(head, identity, x.dtype),
                               _ops.view(x, rest, [0] * rank)], dim)
        x = combine(x, shifted)
        k *= 2
    return x


def cumsum(input, dim):
    """Running sums along dim; DT_INT16/DT_INT32 inputs give DT_INT64 (as
    PyPTO). Float sums are added pairwise by the scan, not left to right,
    so they may differ from a sequential sum in the last bits."""
    x = _ops._tensor(input)
    if x.dtype in (DataType.DT_INT8, DataType.DT_INT16, DataType.DT_INT32):
        x = _ops.cast(x, DataType.DT_INT64)
    return _scan(x, dim, _ops.add, 0, "cumsum")


def cumprod(input, dim):
    """Running products along dim (float tensors)."""
    x = _ops._tensor(input)
    _float_only(x, "cumprod")
    return _scan(x, dim, _ops.mul, 1.0, "cumprod")


def argsort(input, dim=None, descending=True):
    """DT_INT32 indices that sort input along dim (the last when None),
    largest first unless descending=False: the indices of a top-k over the
    whole dim."""
    loc = user_loc()
    x = _ops._tensor(input)
    rank = len(x.shape)
    d = -1 if dim is None else dim
    if isinstance(d, bool) or not isinstance(d, int) or not -rank <= d < rank:
        raise error_at(IndexError, loc, f"argsort: dim must be an int in [{-rank}, {rank}), "
                       f"got {dim!r}")
    n = concrete(x.shape[d])
    if n is None:
        raise error_at(TraceError, loc, f"argsort: dim {d % rank} is dynamic; sort a static "
                       "dim")
    if not isinstance(descending, bool):
        raise error_at(TypeError, loc, f"argsort: descending must be a bool, got "
                       f"{descending!r}")
    return _ops.topk(x, n, d, descending)[1]


# ------------------------------------------------------------ bitwise ops --

_BOOL_BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")


def _bitwise(mnemonic):
    def op(input, other):
        """Elementwise (traces pypto.<mnemonic>); integer tensors or ints,
        broadcast; bool tensors for and/or/xor (computed on i8)."""
        loc = user_loc()
        if not isinstance(input, Tensor):
            if not isinstance(other, Tensor):
                raise error_at(TypeError, loc, f"{mnemonic} needs a tensor operand")
            input = _ops.full(other.shape, input, other.dtype)
        a = _ops._tensor(input)
        b = other if isinstance(other, Tensor) else _int_scalar_like(a, other, mnemonic, loc)
        b = _ops._tensor(b, "other")
        is_bool = a.dtype is DataType.DT_BOOL
        if is_bool and b.dtype is DataType.DT_BOOL and mnemonic in _BOOL_BITWISE:
            r = _ops._one(mnemonic, [_ops.cast(a, DataType.DT_INT8)._value,
                                     _ops.cast(b, DataType.DT_INT8)._value], loc=loc)
            return _ops.ne(r, 0)
        for t in (a, b):
            if not t.dtype.is_int:
                raise error_at(TypeError, loc, f"{mnemonic} takes integer tensors"
                               + (" (or bools)" if mnemonic in _BOOL_BITWISE else "")
                               + f", got {t.dtype!r}")
        return _ops._one(mnemonic, [a._value, b._value], loc=loc)
    op.__name__ = mnemonic
    op.__doc__ = op.__doc__.replace("<mnemonic>", mnemonic)
    return op


def _int_scalar_like(x, v, what, loc):
    if isinstance(v, _dtypes.Element):
        v = v.value
    if isinstance(v, bool) and x.dtype is DataType.DT_BOOL:
        return _ops.full(x.shape, v, DataType.DT_BOOL)
    if isinstance(v, bool) or not isinstance(v, int):
        raise error_at(TypeError, loc, f"{what}: other must be a tensor or an int, got {v!r}")
    return _ops.full(x.shape, v, x.dtype)


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")
bitwise_left_shift = _bitwise("bitwise_left_shift")
bitwise_right_shift = _bitwise("bitwise_right_shift")
gcd = _bitwise("gcd")
gcd.__doc__ = """Greatest common divisor of integer tensors (or a tensor and an int),
broadcast (traces pypto.gcd): non-negative, gcd(0, 0) = 0."""


def signbit(input):
    """True where the sign bit is set: negatives, -0.0, -inf and NaNs whose
    sign bit is set (traces pypto.signbit, 1 or 0 in x's dtype, then ne 0)."""
    x = _ops._tensor(input)
    if x.dtype is DataType.DT_BOOL:
        raise error_at(TypeError, user_loc(), "signbit takes a float or integer tensor, "
                       "got DataType.DT_BOOL")
    return _ops.ne(_ops._one("signbit", [x._value]), 0)


def bitwise_not(input):
    """~x: x ^ -1 for integers (all bits flipped: x ^ MAX for unsigned
    ones, where -1 does not fit), not x for bools."""
    x = _ops._tensor(input)
    if x.dtype is DataType.DT_BOOL:
        return _ops.eq(x, False)
    if not x.dtype.is_int:
        raise error_at(TypeError, user_loc(), f"bitwise_not takes an integer or bool tensor, "
                       f"got {x.dtype!r}")
    return bitwise_xor(x, x.dtype.int_range[1] if x.dtype.is_unsigned else -1)


def atan2(y, x):
    """The angle of the point (x, y), elementwise (traces pypto.atan2);
    float tensors, broadcast."""
    loc = user_loc()
    a, b = _ops._tensor(y, "y"), _ops._tensor(x, "x")
    for t, what in ((a, "y"), (b, "x")):
        if not t.dtype.is_float:
            raise error_at(TypeError, loc, f"atan2 takes float tensors, {what} is {t.dtype!r}")
    return _ops._one("atan2", [a._value, b._value], loc=loc)


# ------------------------------------------------------- (de)interleaving --

def _pairs(x, what):
    n = concrete(x.shape[-1])
    if n is None or n % 2:
        raise error_at(ValueError, user_loc(), f"{what}: the last dim must be static and "
                       f"even, got {x.shape[-1]!r}")
    return n


def _split_last(x, n):
    """x's last dim split in two halves."""
    rank = len(x.shape)
    head = list(x.shape[:-1])
    return (_ops.view(x, head + [n // 2], [0] * rank),
            _ops.view(x, head + [n // 2], [0] * (rank - 1) + [n // 2]))


def interleave(input, other):
    """(out0, out1): the stream input[0], other[0], input[1], other[1], ...
    of each row, its first half in out0 and its second in out1."""
    a, b = _ops._tensor(input), _ops._tensor(other, "other")
    if [concrete(d) for d in a.shape] != [concrete(d) for d in b.shape] or a.dtype != b.dtype:
        raise error_at(ValueError, user_loc(), f"interleave: other {b.shape} {b.dtype!r} "
                       f"must have input's shape and dtype {a.shape} {a.dtype!r}")
    n = _pairs(a, "interleave")
    head = list(a.shape[:-1])
    both = _ops.concat([unsqueeze(a, -1), unsqueeze(b, -1)], -1)   # [..., n, 2]
    return _split_last(_ops.reshape(both, head + [2 * n]), 2 * n)


def deinterleave(input, other=None):
    """(even, odd) elements of an interleaved stream along the last dim:
    the stream is input, or input followed by other."""
    x = _ops._tensor(input)
    if other is not None:
        y = _ops._tensor(other, "other")
        if [concrete(d) for d in x.shape] != [concrete(d) for d in y.shape] or \
                x.dtype != y.dtype:
            raise error_at(ValueError, user_loc(), f"deinterleave: other {y.shape} must have "
                           f"input's shape and dtype {x.shape}")
        _pairs(x, "deinterleave")
        x = _ops.concat([x, y], -1)
    n = _pairs(x, "deinterleave")
    return (_every(x, n, 2, 0), _every(x, n, 2, 1))


def _every(x, n, k, p):
    """Element p of every group of k along the last dim (of static size n,
    a multiple of k): a reshape to [..., n/k, k], a window of column p and
    a reshape back."""
    head = list(x.shape[:-1])
    groups = _ops.reshape(x, head + [n // k, k])
    rank = len(head) + 2
    col = _ops.view(groups, head + [n // k, 1], [0] * (rank - 1) + [p])
    return _ops.reshape(col, head + [n // k])


# PyPTO's pattern modes: (group size, position in the group)
_GATHERMASK_PATTERNS = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3)}


def gathermask(self, pattern_mode):
    """The elements a built-in mask picks along the last dim: pattern_mode 1
    and 2 take the first / second of every 2, 3..6 the first..fourth of
    every 4 (the last dim must be a multiple of 2 or 4), 7 all of them."""
    x = _ops._tensor(self)
    loc = user_loc()
    if isinstance(pattern_mode, bool) or pattern_mode not in range(1, 8):
        raise error_at(ValueError, loc, f"gathermask: pattern_mode must be an int in 1..7, "
                       f"got {pattern_mode!r}")
    if pattern_mode == 7:
        return clone(x)
    k, p = _GATHERMASK_PATTERNS[pattern_mode]
    n = concrete(x.shape[-1]) if x.shape else None
    if n is None or n % k:
        raise error_at(ValueError, loc, f"gathermask: pattern_mode {pattern_mode} needs a "
                       f"static last dim that is a multiple of {k}, got "
                       f"{x.shape[-1] if x.shape else 'a rank-0 tensor'!r}")
    return _every(x, n, k, p)


def pack(self):
    """self flattened to 1-D and its bytes read as DT_UINT8 elements (a
    reshape and a bitcast)."""
    x = _ops._tensor(self)
    if x.dtype is DataType.DT_BOOL:
        raise error_at(TypeError, user_loc(), "pack: DT_BOOL has no byte layout to pack")
    flat = _ops.reshape(x, [-1])
    if x.dtype is DataType.DT_UINT8:
        return flat
    return _ops._bitcast(flat, DataType.DT_UINT8, user_loc())


def unpack(self, dstDataType):
    """The bytes of a 1-D DT_UINT8 tensor read as elements of dstDataType
    (its length must be a multiple of their size): pack's inverse."""
    x = _ops._tensor(self)
    loc = user_loc()
    dt = _dtypes.coerce(dstDataType, "dstDataType")
    if x.dtype is not DataType.DT_UINT8 or len(x.shape) != 1:
        raise error_at(TypeError, loc, f"unpack: self must be a 1-D DT_UINT8 tensor, got "
                       f"{list(x.shape)} {x.dtype!r}")
    if dt is DataType.DT_BOOL:
        raise error_at(TypeError, loc, "unpack: DT_BOOL has no byte layout to unpack into")
    if dt is DataType.DT_UINT8:
        return clone(x)
    n = concrete(x.shape[0])
    if n is None or n % dt.itemsize:
        raise error_at(ValueError, loc, f"unpack: {x.shape[0]!r} bytes do not hold a whole "
                       f"number of {dt.name} elements ({dt.itemsize} bytes each)")
    return _ops._bitcast(x, dt, loc)


def index_put_(input, indices, values, accumulate=False):
    """input[indices[0][j], ..., indices[k-1][j], ...] = values[j, ...] for
    every j (or += with accumulate), in place: indices is a tuple of k 1-D
    integer tensors of one length t, values has shape [t] + input.shape[k:].
    Traces the linear position of each j over input's first k dims and a
    scatter_update (index_add with accumulate) along the first dim of
    input seen as [prod(shape[:k])] + shape[k:]; an index outside its dim
    is a run-time error (reported on the linear position). Returns None,
    as PyPTO's does."""
    x = _ops._tensor(input)
    loc = user_loc()
    if not isinstance(indices, (tuple, list)) or not indices:
        raise error_at(TypeError, loc, f"index_put_: indices must be a non-empty tuple of "
                       f"1-D tensors, got {indices!r}")
    idx = [_ops._tensor(i, "an index") for i in indices]
    v = _ops._tensor(values, "values")
    shape = list(x.shape)
    k = len(idx)
    if k > len(shape):
        raise error_at(ValueError, loc, f"index_put_: {k} index tensors for a tensor of "
                       f"rank {len(shape)}")
    for i in idx:
        if not i.dtype.is_int:
            raise error_at(TypeError, loc, f"index_put_: indices must be integer tensors, "
                           f"got {i.dtype!r}")
        if len(i.shape) != 1 or concrete(i.shape[0]) != concrete(idx[0].shape[0]):
            raise error_at(ValueError, loc, f"index_put_: the index tensors must be 1-D of "
                           f"one length, got {[list(j.shape) for j in idx]}")
    t = concrete(idx[0].shape[0])
    want = [t] + shape[k:]
    if [concrete(d) for d in v.shape] != [concrete(d) for d in want]:
        raise error_at(ValueError, loc, f"index_put_: values must have shape {want} (the "
                       f"index length, then input's dims after the {k} indexed), got "
                       f"{list(v.shape)}")
    if v.dtype is not x.dtype:
        raise error_at(TypeError, loc, f"index_put_: values are {v.dtype!r} but input is "
                       f"{x.dtype!r}")
    sizes = [concrete(d) for d in shape[:k]]
    if None in sizes:
        raise error_at(UnsupportedError, loc, "index_put_: the indexed dims must be static")
    if k == 1 and idx[0].dtype in (DataType.DT_INT32, DataType.DT_INT64):
        lin = idx[0]
    else:
        total = 1
        for s in sizes:
            total *= s
        lin = None
        for d, i in enumerate(idx):
            i = _ops.cast(i, DataType.DT_INT64)
            stride = 1
            for s in sizes[d + 1:]:
                stride *= s
            term = i if stride == 1 else _ops.mul(i, stride)
            lin = term if lin is None else _ops.add(lin, term)
            if d:
                # keep an out-of-range index out of range once flattened
                bad = _ops.where(_ops.lt(i, 0), total, lin)
                lin = _ops.where(_ops.ge(i, sizes[d]), total, bad)
    op = "index_add" if accumulate else "scatter_update"
    if k == 1:
        _ops._update(op, x, [lin._value, v._value], {"dim": "0 : i64"}, loc, True)
        return None
    flat = _ops._update(op, _ops.reshape(x, [-1] + shape[k:]), [lin._value, v._value],
                        {"dim": "0 : i64"}, loc, False)
    res = _ops.reshape(flat, shape)._value
    tr = _ops._t()
    tr.note_mutation(x, x._value)
    x._value = res
    return None
