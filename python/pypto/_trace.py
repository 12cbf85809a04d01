"""Tracing: running a kernel's Python code to build Tensor-level IR.

Every pypto call appends an op to the current block. Control flow follows
two rules:

* ``pypto.loop`` bodies become ``scf.for`` ops. Tensors defined outside a
  loop and assigned inside it (``y[i:] = t``) become loop-carried values
  (``iter_args``) once the body is complete.
* A condition on a run-time value (``if pypto.cond(c):``, ``if idx < 2:``)
  cannot pick one Python branch, so the enclosing body (the function or the
  loop body) is run again for every combination of branches: each run is a
  *path*. A decision becomes an ``scf.if`` whose two regions hold the rest
  of the body for each outcome, and which yields the body's carried values.
  Runs after the first replay the ops they share with earlier runs (the
  kernel's Python code must be deterministic: it is checked op by op).
"""

import sys
import threading

from . import _ir
from ._errors import TraceError, UnsupportedError, CompileError, error_at
from ._ir import INDEX, I1, Op, Block
from ._loc import frame_loc
from ._symbolic import SymbolicScalar, Atom, concrete

__all__ = ["current", "Tracer"]

_state = threading.local()
MAX_DECISIONS = 64


def current(what=None):
    """The tracer of the kernel being traced on this thread."""
    t = getattr(_state, "tracer", None)
    if t is None:
        from ._loc import user_loc
        what = what or "this pypto function"
        raise error_at(TraceError, user_loc(),
                       f"{what} can only be used while a @pypto.frontend.jit kernel "
                       "is traced (inside the kernel function)")
    return t


def active():
    return getattr(_state, "tracer", None)


class Region:
    """A body traced path by path: the function, a loop body."""

    def __init__(self, body, kind, op=None, replay=False):
        self.body = body
        self.kind = kind      # "func" or "loop"
        self.op = op          # the scf.for of a loop
        self.replay = replay  # re-running a loop built by an earlier path
        self.mutated = {}     # handle -> its value when the body was entered
        self.prefix = []      # decisions of the current path
        self.pos = 0
        self.leaves = {}      # leaf block -> ({handle: value}, returned values)
        self.entry_tuning = None
        self.pass_options = {}


class LoopInfo:
    """What a built scf.for keeps for later paths that replay it."""

    def __init__(self, entries):
        self.entries = entries  # entry value of each carried tensor


class Tracer:
    def __init__(self, session, kernel_name):
        self.session = session
        self.kernel_name = kernel_name
        self.body = Block(None)
        self.prologue = []    # hoisted ops: constants, dims of arguments
        self.hoisted = {}
        self.block = self.body
        self.cursor = {}      # block -> position of the next op (this path)
        self.memo = {}        # block -> {key: Value} (this path)
        self.regions = []
        self.vec_tile = None
        self.cube_tile = None
        self.label = None
        self.conv_tile = None
        self.matrix_size = None
        self.dyn_bindings = {}  # DynamicDim -> SymbolicScalar of its dim
        self.broken_loop = None
        self.num_ops = 0

    # ---- activation ----
    def __enter__(self):
        if active() is not None:
            raise TraceError("a kernel is already being traced on this thread; "
                             "call kernels from outside other kernels")
        _state.tracer = self
        return self

    def __exit__(self, *exc):
        _state.tracer = None
        return False

    # ---- emission ----
    def _replayed(self, name, loc):
        blk = self.block
        pos = self.cursor.get(blk, 0)
        if pos < len(blk.ops):
            op = blk.ops[pos]
            if op.name != name:
                raise error_at(
                    TraceError, loc,
                    f"the kernel traced differently when run again for another branch "
                    f"of a condition (expected '{op.name}' here, got '{name}'); its "
                    "Python code must build the same ops every time it runs")
            self.cursor[blk] = pos + 1
            return op
        return None

    def check_visible(self, v, loc):
        if not v.block.encloses(self.block):
            where = v.op.loc if v.op is not None else None
            notes = [(where, "the value is defined here")] if where else []
            raise error_at(
                TraceError, loc,
                "a value computed inside a pypto.loop body or a branch of a condition is "
                "used outside of it; assign it into a tensor defined outside (y[...] = t) "
                "to carry it out", notes)

    def emit(self, name, operands, result_types, attrs="", loc=None, nregions=0):
        op = self._replayed(name, loc)
        if op is not None:
            return op
        for v in operands:
            self.check_visible(v, loc)
        blk = self.block
        op = Op(name, operands, result_types, attrs, loc, blk)
        for _ in range(nregions):
            op.add_region()
        blk.ops.append(op)
        self.cursor[blk] = len(blk.ops)
        self.num_ops += 1
        return op

    def hoist(self, key, name, operands, result_type, attrs, loc):
        """An effect-free op placed at the top of the function, built once."""
        v = self.hoisted.get(key)
        if v is None:
            op = Op(name, operands, [result_type], attrs, loc, self.body)
            self.prologue.append(op)
            v = self.hoisted[key] = op.results[0]
        return v

    def memo_get(self, key):
        b = self.block
        while b is not None:
            m = self.memo.get(b)
            if m is not None and key in m:
                return m[key]
            b = b.parent
        return None

    def memo_set(self, key, v):
        self.memo.setdefault(self.block, {})[key] = v

    # ---- pypto ops ----
    def pypto(self, mnemonic, operands, attrs, loc):
        """Emits pypto.<mnemonic>; returns its result Values. `attrs` maps
        attribute names to IR text (builder-only ones included)."""
        name = "pypto." + mnemonic
        op = self._replayed(name, loc)
        if op is not None:
            return op.results
        for v in operands:
            self.check_visible(v, loc)
        text = "{" + ", ".join(f"{k} = {v}" if v is not None else k
                               for k, v in attrs.items()) + "}"
        res = self.session.infer(mnemonic, [str(v.type) for v in operands], text, loc)
        if res is None:
            raise CompileError(self.session.take_diagnostics())
        types, kept = res
        blk = self.block
        op = Op(name, operands, [_ir.parse_type(t) for t in types], kept, loc, blk)
        blk.ops.append(op)
        self.cursor[blk] = len(blk.ops)
        self.num_ops += 1
        return op.results

    # ---- scalars ----
    def constant(self, type_text, value_text, loc=None):
        return self.hoist(("const", type_text, value_text), "arith.constant", [],
                          _ir.scalar_type(type_text),
                          f"{{value = {value_text}}}", loc)

    def index_const(self, v, loc=None):
        return self.constant("index", f"{int(v)} : index", loc)

    def dim_of(self, value, d, loc):
        """The size of dim d of a tensor value (hoisted for arguments)."""
        attrs = f"{{dim = {d} : i64}}"
        if value.op is None and value.block is self.body:
            return self.hoist(("dim", id(value), d), "pypto.dim", [value], INDEX, attrs, loc)
        key = ("dim", id(value), d)
        v = self.memo_get(key)
        if v is None:
            v = self.emit("pypto.dim", [value], [INDEX], attrs, loc).results[0]
            self.memo_set(key, v)
        return v

    def materialize(self, s, loc):
        """The index (or i1) Value of an int or SymbolicScalar."""
        c = concrete(s)
        if c is not None:
            if isinstance(s, SymbolicScalar) and s.is_bool:
                return self.constant("i1", "true" if c else "false", loc)
            return self.index_const(c, loc)
        key = ("sym", s._terms, s._const, s._kind)
        v = self.memo_get(key)
        if v is not None:
            return v
        acc = None
        for atom, coeff in s._terms:
            a = self._atom(atom, loc)
            if coeff != 1:
                a = self._arith("arith.muli", a, self.index_const(coeff, loc), loc)
            acc = a if acc is None else self._arith("arith.addi", acc, a, loc)
        if s._const:
            acc = self._arith("arith.addi", acc, self.index_const(s._const, loc), loc)
        self.memo_set(key, acc)
        return acc

    def _arith(self, name, a, b, loc, result=INDEX, attrs=""):
        key = (name, a, b, attrs)
        v = self.memo_get(key)
        if v is None:
            v = self.emit(name, [a, b], [result], attrs, loc).results[0]
            self.memo_set(key, v)
        return v

    def _atom(self, atom, loc):
        if atom.kind == "value":
            v = atom.value
            if not v.block.encloses(self.block):
                what = (f"the loop index '{atom.name}'" if atom.args
                        else f"the scalar '{atom.name}'")
                raise error_at(TraceError, loc,
                               f"{what} is used outside the pypto.loop it was made in")
            return v
        if atom.kind == "dim":
            value, d = atom.value
            return self.dim_of(value, d, loc)
        if atom.kind == "dyn":
            bound = self.dyn_bindings.get(atom.value)
            if bound is None:
                raise error_at(TraceError, loc,
                               f"dynamic dim '{atom.name}' is not used by any tensor parameter "
                               "of this kernel, so its size is unknown")
            return self.materialize(bound, loc)
        if atom.kind == "name":
            raise error_at(TraceError, loc,
                           f"the symbolic scalar '{atom.name}' is a bare name "
                           f"(SymbolicScalar(\"{atom.name}\")) with no value in this kernel; "
                           "use a dim, a loop index or a value read from a tensor")
        # expr
        args = atom.args
        if atom.op == "arith.cmpi":
            a, b, pred = args
            from ._symbolic import _CMP
            return self._arith("arith.cmpi", self.materialize(a, loc), self.materialize(b, loc),
                               loc, I1, f"{{predicate = {_CMP[pred]} : i64}}")
        if atom.op == "arith.select":
            c, a, b = (self.materialize(x, loc) for x in args)
            key = ("select", c, a, b)
            v = self.memo_get(key)
            if v is None:
                v = self.emit("arith.select", [c, a, b], [I1], "", loc).results[0]
                self.memo_set(key, v)
            return v
        a, b = (self.materialize(x, loc) for x in args)
        return self._arith(atom.op, a, b, loc)

    # ---- regions and paths ----
    def _tuning(self):
        return (self.vec_tile, self.cube_tile, self.label)

    def _set_tuning(self, t):
        self.vec_tile, self.cube_tile, self.label = t

    def begin_path(self, region):
        region.pos = 0
        body = region.body
        for blk in [b for b in self.cursor if body.encloses(b)]:
            del self.cursor[blk]
        for blk in [b for b in self.memo if body.encloses(b)]:
            del self.memo[blk]
        for h, v0 in region.mutated.items():
            h._value = v0
        if region.entry_tuning is None:
            region.entry_tuning = self._tuning()
        else:
            self._set_tuning(region.entry_tuning)
        self.block = body

    def end_path(self, region, returned=None):
        if self.block.decision is not None:
            raise AssertionError("a path ended at a decision")
        region.leaves[self.block] = ({h: h._value for h in region.mutated}, returned)

    @staticmethod
    def next_path(region):
        p = region.prefix
        while p and not p[-1]:
            p.pop()
        if not p:
            return False
        p[-1] = False
        return True

    def decide(self, cond, loc):
        """The branch a path takes at a run-time condition (True first)."""
        if not self.regions:
            raise error_at(TraceError, loc, "a condition outside of the kernel body")
        region = self.regions[-1]
        c = self.materialize(cond, loc)
        blk = self.block
        op = self._replayed("scf.if", loc)
        if op is None:
            op = self.emit("scf.if", [c], [], "", loc, nregions=2)
            blk.decision = op
        if region.pos < len(region.prefix):
            d = region.prefix[region.pos]
        else:
            if len(region.prefix) >= MAX_DECISIONS:
                raise error_at(
                    TraceError, loc,
                    f"more than {MAX_DECISIONS} run-time conditions in one path of a body; "
                    "a Python while loop on a symbolic value cannot be traced (use "
                    "pypto.loop)")
            d = True
            region.prefix.append(True)
        region.pos += 1
        self.block = op.regions[0 if d else 1]
        return d

    def note_mutation(self, handle, old_value):
        """`handle` (a Tensor) is about to change from old_value."""
        for region in reversed(self.regions):
            if region is handle._origin:
                break
            if handle not in region.mutated:
                region.mutated[handle] = old_value

    def _terminate(self, region, block, carried, extra_types, term, loc):
        if block.decision is not None:
            ifop = block.decision
            types = [e.type for _, e in carried] + list(extra_types)
            res = ifop.set_results(types)
            for r in ifop.regions:
                self._terminate(region, r, carried, extra_types, "scf.yield", ifop.loc)
            vals = res
        else:
            values, returned = region.leaves[block]
            vals = [values.get(h, e) for h, e in carried] + list(returned or ())
        block.ops.append(Op(term, vals, [], "", loc, block))

    def loop(self, lb, ub, step, attrs, loc, iv_name):
        """Generator behind pypto.loop: yields the index once per path."""
        outer = self.block
        lbv, ubv, stv = (self.materialize(x, loc) for x in (lb, ub, step))
        op = self._replayed("scf.for", loc)
        replay = op is not None
        if not replay:
            op = self.emit("scf.for", [lbv, ubv, stv], [], attrs, loc, nregions=1)
            op.regions[0].add_arg(INDEX)
        body = op.regions[0]
        region = Region(body, "loop", op, replay)
        iv = SymbolicScalar.atom(Atom("value", value=body.args[0], args=(lb, ub, step),
                                      name=iv_name or "idx"))
        self.regions.append(region)
        try:
            while True:
                self.begin_path(region)
                yield iv
                if self.broken_loop is not None:
                    return
                self.end_path(region)
                if replay or not self.next_path(region):
                    break
        except GeneratorExit:
            # `break`, `return` or an exception left the body early
            if self.broken_loop is None:
                self.broken_loop = loc
            return
        finally:
            if self.regions and self.regions[-1] is region:
                self.regions.pop()
            self.block = outer
        if replay:
            entries = op.info.entries
            for h, e in region.mutated.items():
                idx = next(i for i, x in enumerate(entries) if x is e)
                h._value = op.results[idx]
            return
        self._finish_loop(region)

    def _finish_loop(self, region):
        op, body = region.op, region.body
        carried = list(region.mutated.items())
        iter_args = [body.add_arg(e.type) for _, e in carried]
        op.operands.extend(e for _, e in carried)
        results = op.set_results([e.type for _, e in carried])
        self._terminate(region, body, carried, (), "scf.yield", op.loc)
        replace_uses(body, {e: a for (_, e), a in zip(carried, iter_args)})
        op.info = LoopInfo([e for _, e in carried])
        if region.pass_options:
            from ._options import pass_options_attr
            extra = f"pypto.pass_options = {pass_options_attr(region.pass_options)}"
            op.attrs = op.attrs[:-1] + (", " if op.attrs != "{}" else "") + extra + "}" \
                if op.attrs else "{" + extra + "}"
        for (h, _), r in zip(carried, results):
            h._value = r

    def run_function(self, fn, args, kwargs, params, loc=None):
        """Traces fn over all its paths; returns (carried params, returned
        value types) and leaves the body terminated."""
        region = Region(self.body, "func")
        self.regions.append(region)
        rets = None
        while True:
            self.begin_path(region)
            returned, ret_loc = _call_noting_return(fn, args, kwargs)
            if self.broken_loop is not None:
                raise error_at(UnsupportedError, self.broken_loop,
                               "the body of this pypto.loop was left early (break, return "
                               "or an exception caught outside it); pypto loops run every "
                               "iteration: use pypto.cond to skip work")
            vals = _returned_values(returned)
            for v in vals:
                self.check_visible(v, ret_loc or loc)
            if rets is None:
                rets = [v.type for v in vals]
            elif [v.type for v in vals] != rets:
                raise TraceError("the kernel returns different tensors on different "
                                 "branches of a condition")
            self.end_path(region, vals)
            if not self.next_path(region):
                break
        self.regions.pop()
        order = {id(p): i for i, p in enumerate(params)}
        carried = sorted(region.mutated.items(), key=lambda t: order.get(id(t[0]), 1 << 30))
        self._terminate(region, self.body, carried, rets, "func.return", loc)
        return carried, rets, region


def _call_noting_return(fn, args, kwargs):
    """fn(*args, **kwargs) and where it returned (file, line, col), for
    errors about the returned values: its frame is gone by then."""
    code = getattr(fn, "__code__", None)
    where = []
    prev = sys.getprofile()

    def note(frame, event, arg):
        if event == "return" and frame.f_code is code:
            where.append(frame_loc(frame))
        if prev is not None:
            prev(frame, event, arg)
    if code is not None:
        sys.setprofile(note)
    try:
        returned = fn(*args, **kwargs)
    finally:
        if code is not None:
            sys.setprofile(prev)
    return returned, (where[-1] if where else None)


def _returned_values(returned):
    from ._tensor import Tensor
    if returned is None:
        return []
    items = returned if isinstance(returned, (tuple, list)) else [returned]
    out = []
    for r in items:
        if not isinstance(r, Tensor) or r._value is None:
            raise TraceError(f"a kernel may return tensors only, got {r!r}")
        out.append(r._value)
    return out


def replace_uses(block, mapping):
    """Replaces operands found in `mapping` in every op nested in block."""
    for op in block.ops:
        ops = op.operands
        for i, v in enumerate(ops):
            r = mapping.get(v)
            if r is not None:
                ops[i] = r
        for r in op.regions:
            replace_uses(r, mapping)
