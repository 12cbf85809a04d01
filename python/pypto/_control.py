"""Control flow while tracing: pypto.loop (scf.for), pypto.loop_unroll and
conditions on run-time values (pypto.cond, scf.if)."""

import itertools

from ._errors import error_at
from ._ir import quote
from ._loc import user_loc
from ._symbolic import SymbolicScalar, as_symbolic, concrete, smax
from ._trace import current

__all__ = ["loop", "loop_unroll", "cond", "is_loop_begin", "is_loop_end"]

_loop_ids = itertools.count()


def _bound(x, what, loc):
    s = as_symbolic(x)
    if s is None or s.is_bool:
        raise error_at(TypeError, loc,
                       f"pypto.loop {what} must be an int or a symbolic scalar, got {x!r}")
    return s


def _parse(args, loc):
    if len(args) == 1:
        start, stop, step = 0, args[0], 1
    elif len(args) == 2:
        (start, stop), step = args, 1
    elif len(args) == 3:
        start, stop, step = args
    else:
        raise error_at(TypeError, loc,
                       f"pypto.loop takes (stop) or (start, stop[, step]), got {len(args)} "
                       "arguments")
    start, stop, step = (_bound(v, w, loc) for v, w in
                         ((start, "start"), (stop, "stop"), (step, "step")))
    c = step.concrete()
    if c is not None and c <= 0:
        raise error_at(ValueError, loc, f"pypto.loop step must be positive, got {c}")
    return start, stop, step


def _loop_attrs(name, idx_name, extra=()):
    items = [f"pypto.loop_name = {quote(name)}"]
    if idx_name:
        items.append(f"pypto.idx_name = {quote(idx_name)}")
    items.extend(extra)
    return "{" + ", ".join(items) + "}"


def loop(*args, name=None, idx_name=None, unroll_list=None, submit_before_loop=False,
         parallel=False):
    """``for i in pypto.loop(stop)`` / ``pypto.loop(start, stop, step=1, *,
    name, idx_name)``: a loop run by the kernel (scf.for). The body is
    traced (run in Python) once per path, with ``i`` a SymbolicScalar.
    With unroll_list, yields (i, factor) as pypto.loop_unroll does."""
    if unroll_list is not None:
        return loop_unroll(*args, name=name, idx_name=idx_name, unroll_list=unroll_list)
    loc = user_loc()
    t = current("pypto.loop")
    start, stop, step = _parse(args, loc)
    n = next(_loop_ids)
    name = name or f"loop_{n}"
    extra = ["pypto.parallel"] if parallel else []
    return t.loop(start, stop, step, _loop_attrs(name, idx_name, extra), loc,
                  idx_name or f"loop_idx_{n}")


def loop_unroll(*args, name=None, idx_name=None, unroll_list=(), submit_before_loop=False):
    """Like pypto.loop with the iterations split by unroll factors: for each
    factor f of unroll_list (largest first, 1 always included) a loop whose
    step is step*f runs while f more iterations fit; yields (i, f) so that
    the body handles f iterations from i."""
    loc = user_loc()
    t = current("pypto.loop_unroll")
    start, stop, step = _parse(args, loc)
    factors = set()
    for f in unroll_list or ():
        if isinstance(f, bool) or not isinstance(f, int) or f <= 0:
            raise error_at(ValueError, loc,
                           f"unroll_list entries must be positive ints, got {f!r}")
        factors.add(f)
    factors.add(1)
    n = next(_loop_ids)
    name = name or f"loop_{n}"
    return _unrolled(t, start, stop, step, sorted(factors, reverse=True), name, idx_name,
                     loc, n)


def _unrolled(t, start, stop, step, factors, name, idx_name, loc, n):
    cur = start
    for f in factors:
        span = step * f
        count = smax((stop - cur) // span, 0) if f != 1 else None
        if count is not None and concrete(count) == 0:
            continue  # a factor the static trip count cannot fill: no loop
        end = stop if f == 1 else cur + count * span
        attrs = _loop_attrs(f"{name}_unroll{f}", idx_name, [f"pypto.unroll = {f} : i64"])
        for iv in t.loop(cur, end, span, attrs, loc, idx_name or f"loop_idx_{n}"):
            yield iv, f
        cur = end


def _loop_bounds(idx, what, loc):
    if isinstance(idx, SymbolicScalar) and len(idx._terms) == 1 and idx._const == 0 \
            and idx._terms[0][1] == 1:
        atom = idx._terms[0][0]
        if atom.kind == "value" and atom.args:
            return atom.args
    raise error_at(TypeError, loc, f"pypto.{what} takes the index of a pypto.loop, got {idx!r}")


def is_loop_begin(idx):
    """Condition: idx is the first index of its pypto.loop."""
    start, _, _ = _loop_bounds(idx, "is_loop_begin", user_loc())
    return idx == start


def is_loop_end(idx, *unused):
    """Condition: idx is the last index of its pypto.loop."""
    _, stop, step = _loop_bounds(idx, "is_loop_end", user_loc())
    return idx + step >= stop


def cond(scalar):
    """``if pypto.cond(c):`` — a branch on a run-time condition (an int, a
    bool or a SymbolicScalar). Both branches are traced: the kernel's body
    is run again for each outcome, and the rest of the body after the
    ``if`` is traced inside each branch (scf.if)."""
    c = concrete(scalar)
    if c is not None:
        return bool(c)
    if not isinstance(scalar, SymbolicScalar):
        raise error_at(TypeError, user_loc(),
                       f"pypto.cond takes an int, a bool or a symbolic scalar, got {scalar!r}")
    return current("pypto.cond").decide(scalar._as_cond(), user_loc())
