"""pypto.experimental: PyPTO's ops marked experimental, each composed of
Tensor-level ops here or an op of the `experimental` dialect (the gathers
of paged-cache rows), and the operation options."""

from . import _ops
from ._dtypes import DataType, coerce
from ._errors import error_at
from ._loc import user_loc
from ._options import check_group, get_group, set_group
from ._symbolic import concrete
from ._ir import tensor_type
from ._tensor import Tensor
from ._trace import active, current

__all__ = ["set_operation_options", "get_operation_options", "transposed_batchmatmul",
           "online_softmax", "online_softmax_update", "gather_in_ub", "gather_in_l1"]


def set_operation_options(**kw):
    """Operation options (combine_axis): inside a kernel for the current
    scope (the kernel or the pypto.loop the call is in; inner scopes
    inherit), outside for every kernel compiled from now on."""
    t = active()
    if t is None:
        set_group("operation_options", kw)
        return
    check_group("operation_options", kw, user_loc())
    r = t.regions[-1]
    r.operation_options = dict(getattr(r, "operation_options", {}), **kw)


def get_operation_options():
    t = active()
    scoped = {}
    if t is not None:
        for r in t.regions:
            scoped.update(getattr(r, "operation_options", {}))
    return get_group("operation_options", scoped)


def transposed_batchmatmul(tensor_a, tensor_b, out_dtype):
    """(M, B, K) x (B, K, N) -> (M, B, N): a's first two dims swapped, a
    batched matmul, the result's first two dims swapped back."""
    loc = user_loc()
    a, b = _ops._tensor(tensor_a, "tensor_a"), _ops._tensor(tensor_b, "tensor_b")
    if len(a.shape) != 3 or len(b.shape) != 3:
        raise error_at(ValueError, loc, "transposed_batchmatmul takes a (M, B, K) and a "
                       f"(B, K, N) tensor, got shapes {a.shape} and {b.shape}")
    if concrete(a.shape[1]) != concrete(b.shape[0]) or \
            concrete(a.shape[2]) != concrete(b.shape[1]):
        raise error_at(ValueError, loc, f"transposed_batchmatmul: a {a.shape} is (M, B, K) "
                       f"and b {b.shape} must be (B, K, N) with the same B and K")
    out = _ops.matmul(_ops.transpose(a, 0, 1), b, coerce(out_dtype, "out_dtype"))
    return _ops.transpose(out, 0, 1)


def _f32(x, what):
    x = _ops._tensor(x, what)
    if x.dtype is not DataType.DT_FP32:
        raise error_at(TypeError, user_loc(), f"{what} must be DT_FP32, got {x.dtype!r}")
    return x


def online_softmax(scores, scale):
    """One block of a column-wise online softmax over scores [k, q]:
    (exp(scores*scale - column max) as DT_BF16, the column max [1, q], the
    column sum of the exponentials [1, q], summed in f32)."""
    s = _f32(scores, "scores")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise error_at(TypeError, user_loc(), f"online_softmax: scale must be a number, "
                       f"got {scale!r}")
    if len(s.shape) != 2:
        raise error_at(ValueError, user_loc(), f"online_softmax: scores must be 2-D, got "
                       f"shape {s.shape}")
    scaled = _ops.mul(s, float(scale))
    col_max = _ops.amax(scaled, 0, keepdim=True)
    e = _ops.exp(_ops.sub(scaled, col_max))
    col_sum = _ops.sum(e, 0, keepdim=True)
    return _ops.cast(e, DataType.DT_BF16), col_max, col_sum


def online_softmax_update(previous_max, previous_sum, previous_output, current_max,
                          current_sum, current_output):
    """Merges two online-softmax states: m = max(pm, cm), sum = ps*e^(pm-m)
    + cs*e^(cm-m), output likewise (the [1, q] factors broadcast over the
    [d, q] outputs). Returns (m, sum, output)."""
    pm, ps, po = (_f32(x, n) for x, n in ((previous_max, "previous_max"),
                                          (previous_sum, "previous_sum"),
                                          (previous_output, "previous_output")))
    cm, cs, co = (_f32(x, n) for x, n in ((current_max, "current_max"),
                                          (current_sum, "current_sum"),
                                          (current_output, "current_output")))
    if [concrete(d) for d in po.shape] != [concrete(d) for d in co.shape]:
        raise error_at(ValueError, user_loc(), "online_softmax_update: current_output "
                       f"{co.shape} must have previous_output's shape {po.shape}")
    m = _ops.maximum(pm, cm)
    a = _ops.exp(_ops.sub(pm, m))
    b = _ops.exp(_ops.sub(cm, m))
    total = _ops.add(_ops.mul(ps, a), _ops.mul(cs, b))
    out = _ops.add(_ops.mul(po, a), _ops.mul(co, b))
    return m, total, out


def _gather(name, src, indices, block_table, block_size, width, attrs, src_dtypes):
    loc = user_loc()
    x = _ops._tensor(src, "param" if name == "gather_in_ub" else "src")
    idx, tab = _ops._tensor(indices, "indices"), _ops._tensor(block_table, "block_table")
    for what, v, ok in (("the source", x, src_dtypes),
                        ("indices", idx, (DataType.DT_INT32, DataType.DT_INT64)),
                        ("block_table", tab, (DataType.DT_INT32, DataType.DT_INT64))):
        if len(v.shape) != 2:
            raise error_at(ValueError, loc, f"{name}: {what} must be 2-D, got shape {v.shape}")
        if v.dtype not in ok:
            raise error_at(TypeError, loc, f"{name}: {what} must be "
                           + " or ".join(d.name for d in ok) + f", got {v.dtype.name}")
    if concrete(idx.shape[0]) != 1 or concrete(tab.shape[0]) != 1:
        raise error_at(ValueError, loc, f"{name}: indices and block_table must have shape "
                       f"[1, n], got {idx.shape} and {tab.shape}")
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size <= 0:
        raise error_at(ValueError, loc, f"{name}: block_size must be a positive int, got "
                       f"{block_size!r}")
    t = current()
    rtype = tensor_type([concrete(idx.shape[1]), concrete(width)], x._value.type.elem)
    text = "{" + ", ".join([f"block_size = {block_size} : i64"] + attrs) + "}"
    op = t.emit("experimental." + name, [x._value, idx._value, tab._value], [rtype], text, loc)
    return Tensor._wrap(op.results[0], t)


def gather_in_ub(param, indices, block_table, block_size, axis=-2):
    """Rows of the paged cache `param` [tokens, hidden] for the token
    indices [1, k]: token i is row block_table[0, i // block_size] *
    block_size + i % block_size. Returns [k, hidden] (loaded into UB on
    the accelerator)."""
    if axis not in (-2, 0):
        raise error_at(ValueError, user_loc(), f"gather_in_ub: only axis -2 is supported, "
                       f"got {axis!r}")
    x = _ops._tensor(param, "param")
    return _gather("gather_in_ub", x, indices, block_table, block_size, x.shape[-1],
                   [f"axis = {axis} : i64"],
                   (DataType.DT_FP32, DataType.DT_FP16, DataType.DT_BF16))


def gather_in_l1(src, indices, block_table, block_size, size, is_b_matrix=False,
                 is_trans=False):
    """The first `size` elements of the rows of `src` that gather_in_ub
    would pick: [k, size] (loaded into L1 on the accelerator; is_b_matrix
    and is_trans say how the matmul that reads it takes it, and are kept on
    the op)."""
    x = _ops._tensor(src, "src")
    h = concrete(x.shape[-1]) if len(x.shape) == 2 else None
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0 or \
            (h is not None and size > h):
        raise error_at(ValueError, user_loc(), f"gather_in_l1: size must be an int in [1, "
                       f"{h}], got {size!r}")
    flags = [f"size = {size} : i64"]
    flags += ["is_b_matrix"] if is_b_matrix else []
    flags += ["is_trans"] if is_trans else []
    return _gather("gather_in_l1", x, indices, block_table, block_size, size, flags,
                   (DataType.DT_FP32, DataType.DT_FP16, DataType.DT_BF16, DataType.DT_INT8))
