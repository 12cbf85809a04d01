"""pypto.conv: 1-D, 2-D and 3-D convolution (NCL, NCHW, NCDHW) written as
the cube computes it, a sum of matmuls over the kernel positions: for each
position the input window it meets (zero padding assembled around the
input; strides taken by splitting a dim into [out, stride] and keeping
index 0) is an im2col slab [N, Cin/groups, out positions], multiplied by
that position's [Cout/groups, Cin/groups] weights and accumulated in f32.
Every step is an ordinary Tensor-level op (docs/python.md says which
levels it reaches)."""

import math

from . import _dtypes, _ops
from ._dtypes import DataType
from ._errors import UnsupportedError, error_at
from ._symbolic import concrete
from ._loc import user_loc

_FLOATS = (DataType.DT_FP16, DataType.DT_BF16, DataType.DT_FP32)


def _ints(v, n, what, lo, hi, loc):
    if not isinstance(v, (list, tuple)) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in v):
        raise error_at(TypeError, loc, f"conv: {what} must be a list of ints, got {v!r}")
    if len(v) != n:
        raise error_at(ValueError, loc, f"conv: {what} needs {n} values for this "
                       f"convolution, got {len(v)}")
    if any(not lo <= i <= hi for i in v):
        raise error_at(ValueError, loc, f"conv: {what} must lie in [{lo}, {hi}], got {list(v)}")
    return list(v)


def _check(x, w, out_dtype, groups, transposed, output_paddings, loc):
    if transposed:
        raise error_at(UnsupportedError, loc, "conv: transposed convolution is not supported "
                       "(as in PyPTO)")
    if output_paddings:
        raise error_at(ValueError, loc, "conv: output_paddings apply to a transposed "
                       "convolution only")
    rank = len(x.shape)
    if rank not in (3, 4, 5) or len(w.shape) != rank:
        raise error_at(ValueError, loc, "conv: input_conv and weight must both have rank 3, "
                       f"4 or 5 (1-D, 2-D, 3-D), got {rank} and {len(w.shape)}")
    for t, what in ((x, "input_conv"), (w, "weight")):
        if t.dtype not in _FLOATS:
            raise error_at(TypeError, loc, f"conv: {what} must be DT_FP16, DT_BF16 or "
                           f"DT_FP32, got {t.dtype.name}")
    if w.dtype != x.dtype:
        raise error_at(TypeError, loc, f"conv: weight is {w.dtype.name}, input_conv "
                       f"{x.dtype.name}; they must agree")
    out = _dtypes.coerce(out_dtype, "out_dtype")
    if out != x.dtype:
        raise error_at(TypeError, loc, f"conv: out_dtype must be the input's dtype "
                       f"({x.dtype.name}), got {out.name}")
    dims = [concrete(d) for d in x.shape] + [concrete(d) for d in w.shape]
    if None in dims:
        raise error_at(ValueError, loc, "conv: input_conv and weight need static shapes")
    if isinstance(groups, bool) or not isinstance(groups, int) or not 1 <= groups <= 65535:
        raise error_at(ValueError, loc, f"conv: groups must be an int in [1, 65535], "
                       f"got {groups!r}")
    cin, cout, cin_w = x.shape[1], w.shape[0], w.shape[1]
    if cin % groups or cout % groups or cin_w * groups != cin:
        raise error_at(ValueError, loc, f"conv: {cin} input channels, {cout} output channels "
                       f"and weight's {cin_w} channels per group do not fit groups={groups} "
                       "(Cin = Cin_weight * groups, and groups divides Cout)")
    return out


def conv(input_conv, weight, out_dtype, strides, paddings, dilations, *, groups=1,
         transposed=False, output_paddings=None, extend_params=None):
    """input_conv (N, Cin, *spatial) convolved with weight (Cout, Cin/groups,
    *kernel): strides and dilations one per spatial dim, paddings two per
    spatial dim (front, back), extend_params {'bias_tensor': (Cout,)}."""
    loc = user_loc()
    x, w = _ops._tensor(input_conv, "input_conv"), _ops._tensor(weight, "weight")
    out = _check(x, w, out_dtype, groups, transposed, output_paddings, loc)
    nd = len(x.shape) - 2
    strides = _ints(strides, nd, "strides", 1, 63, loc)
    dilations = _ints(dilations, nd, "dilations", 1, 63, loc)
    paddings = _ints(paddings, 2 * nd, "paddings", 0, 255, loc)
    params = dict(extend_params or {})
    bias = params.pop("bias_tensor", None)
    if params:
        raise error_at(UnsupportedError, loc, "conv: extend_params " + ", ".join(sorted(params))
                       + " not supported (bias_tensor is; PyPTO's conv has no quantisation "
                       "or ReLU either)")
    n, cin, sizes = x.shape[0], x.shape[1], list(x.shape[2:])
    cout, kernel = w.shape[0], list(w.shape[2:])
    if any(p >= k for p, k in zip(paddings, [k for k in kernel for _ in (0, 1)])):
        raise error_at(ValueError, loc, f"conv: each padding must be smaller than its kernel "
                       f"size, got paddings {paddings} for the kernel {kernel}")
    outs = []
    for i in range(nd):
        span = dilations[i] * (kernel[i] - 1) + 1
        o = (sizes[i] + paddings[2 * i] + paddings[2 * i + 1] - span) // strides[i] + 1
        if o < 1:
            raise error_at(ValueError, loc, f"conv: spatial dim {i} of size {sizes[i]} (padded "
                           f"{paddings[2 * i]} + {paddings[2 * i + 1]}) is smaller than the "
                           f"kernel's span {span}")
        outs.append(o)
    if bias is not None:
        b = _ops._tensor(bias, "bias_tensor")
        if list(b.shape) != [cout] or b.dtype not in (x.dtype, DataType.DT_FP32):
            raise error_at(ValueError, loc, f"conv: bias_tensor must be ({cout},) of "
                           f"{x.dtype.name} or DT_FP32, got {tuple(b.shape)} of {b.dtype.name}")
    xp = _padded(x, sizes, paddings, strides, dilations, kernel, outs, loc)
    cg, og, positions = cin // groups, cout // groups, math.prod(outs)
    acc = [None] * groups
    for k in _positions(kernel):
        slab = _window(xp, k, strides, dilations, outs)
        for g in range(groups):
            xs = _ops.reshape(_ops.view(slab, [n, cg] + outs, [0, g * cg] + [0] * nd),
                              [n, cg, positions])
            wk = _ops.reshape(_ops.view(w, [og, cg] + [1] * nd, [g * og, 0] + k), [1, og, cg])
            p = _ops.matmul(wk, xs, DataType.DT_FP32)
            acc[g] = p if acc[g] is None else acc[g] + p
    y = acc[0] if groups == 1 else _ops.concat(acc, 1)
    if bias is not None:
        y = y + _ops.reshape(_ops.cast(b, DataType.DT_FP32), [1, cout, 1])
    if out != DataType.DT_FP32:
        y = _ops.cast(y, out)
    return _ops.reshape(y, [n, cout] + outs)


def _positions(kernel):
    """Every kernel position, the last dim fastest."""
    pos = [[]]
    for k in kernel:
        pos = [p + [i] for p in pos for i in range(k)]
    return pos


def _padded(x, sizes, paddings, strides, dilations, kernel, outs, loc):
    """x with the zero padding around each spatial dim, and at the back as
    many more zeros as the [out, stride] split of the last window needs."""
    front, total = [], []
    for i, s in enumerate(sizes):
        need = dilations[i] * (kernel[i] - 1) + outs[i] * strides[i]
        front.append(paddings[2 * i])
        total.append(max(s + paddings[2 * i] + paddings[2 * i + 1], need))
    if total == sizes:
        return x
    z = _ops.full(list(x.shape[:2]) + total, 0.0, x.dtype)
    _ops._assemble_into(z, x, [0, 0] + front, loc)
    return z


def _window(xp, k, strides, dilations, outs):
    """The [N, C, *outs] elements that kernel position k meets."""
    t = xp
    for i, (ki, s, d, o) in enumerate(zip(k, strides, dilations, outs)):
        a = 2 + i
        shape = list(t.shape)
        shape[a] = o * s
        offsets = [0] * len(shape)
        offsets[a] = ki * d
        t = _ops.view(t, shape, offsets)
        if s > 1:
            split = shape[:a] + [o, s] + shape[a + 1:]
            t = _ops.view(_ops.reshape(t, split), split[:a + 1] + [1] + split[a + 2:],
                          [0] * len(split))
            shape[a] = o
            t = _ops.reshape(t, shape)
    return t
