"""pypto.experimental: PyPTO's ops marked experimental, each composed of
Tensor-level ops here, and the operation options."""

from . import _ops
from ._dtypes import DataType, coerce
from ._errors import error_at
from ._loc import user_loc
from ._options import check_group, get_group, set_group
from ._symbolic import concrete
from ._trace import active

__all__ = ["set_operation_options", "get_operation_options", "transposed_batchmatmul",
           "online_softmax", "online_softmax_update"]


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
