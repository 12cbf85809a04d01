"""pass_verify_print and pass_verify_save: PyPTO's debug hooks for pass
verification. Each call traces a pypto.pass_verify_print / _save op that
the Tensor-level run of enable_pass_verify executes (printing through a
callback into sys.stdout, saving .npy files); the Tile level drops them, so
they cost nothing on the compiled path (docs/python.md)."""

import re

from ._errors import error_at
from ._ir import quote
from ._loc import user_loc
from ._symbolic import SymbolicScalar, concrete
from ._tensor import Tensor
from ._trace import current
from . import _ops

_NAME = re.compile(r"\$([A-Za-z0-9_]+)")


def _condition(t, cond, what, loc):
    """The i1 operand of `cond`, or None when it is statically false."""
    if cond is None or not isinstance(cond, (bool, int, SymbolicScalar)):
        raise error_at(TypeError, loc, f"{what}: cond must be an int or a SymbolicScalar, "
                       f"got {cond!r}")
    c = concrete(cond)
    if c is not None:
        return t.constant("i1", "true", loc) if c else None
    return t.materialize(cond._as_cond(), loc)


def _escape(text):
    return text.replace("{", "{{").replace("}", "}}")


def pass_verify_print(*values, cond=1):
    """Prints the values when the kernel runs with enable_pass_verify and
    cond holds: tensors as nested lists, SymbolicScalars as their run-time
    value, anything else as str() does; separated by spaces as print()."""
    t = current("pypto.pass_verify_print")
    loc = user_loc()
    c = _condition(t, cond, "pass_verify_print", loc)
    if c is None:
        return None
    parts, operands = [], []
    for v in values:
        if isinstance(v, Tensor):
            operands.append(_ops._tensor(v, "a printed value")._value)
            parts.append("{}")
        elif isinstance(v, SymbolicScalar) and concrete(v) is None:
            operands.append(t.materialize(v, loc))
            parts.append("{}")
        else:
            parts.append(_escape(str(concrete(v) if isinstance(v, SymbolicScalar) else v)))
    _ops._emit("pass_verify_print", [c] + operands, {"format": quote(" ".join(parts))},
               loc, vec=False)
    return None


def pass_verify_save(tensor, fname, cond=1, **kwargs):
    """Saves `tensor` as <fname>.npy when the kernel runs with
    enable_pass_verify and cond holds. Each $NAME in fname is replaced by
    the keyword argument NAME (an int, or a SymbolicScalar read when the op
    runs). The folder is verify_options' pass_verify_save_tensor_dir, else
    a new output/output_*/tensor/ in the current directory."""
    t = current("pypto.pass_verify_save")
    loc = user_loc()
    x = _ops._tensor(tensor, "pass_verify_save: tensor")
    if isinstance(fname, SymbolicScalar) and concrete(fname) is None:
        kwargs = dict(kwargs, __fname=fname)
        fname = "$__fname"
    elif isinstance(fname, (int, SymbolicScalar)) and not isinstance(fname, bool):
        fname = str(concrete(fname))
    if not isinstance(fname, str) or not fname:
        raise error_at(TypeError, loc, f"pass_verify_save: fname must be a non-empty str, an "
                       f"int or a SymbolicScalar, got {fname!r}")
    if "/" in fname or "\\" in fname:
        raise error_at(ValueError, loc, f"pass_verify_save: fname {fname!r} must be a file "
                       "name prefix without a folder (set pass_verify_save_tensor_dir)")
    keys, operands = [], []

    def subst(m):
        name = m.group(1)
        if name not in kwargs:
            raise error_at(ValueError, loc, f"pass_verify_save: fname {fname!r} uses ${name}, "
                           "which no keyword argument gives")
        v = kwargs[name]
        if isinstance(v, bool) or not isinstance(v, (int, SymbolicScalar)):
            raise error_at(TypeError, loc, f"pass_verify_save: {name}= must be an int or a "
                           f"SymbolicScalar, got {v!r}")
        if concrete(v) is not None:
            return str(concrete(v))
        if name not in keys:
            keys.append(name)
            operands.append(t.materialize(v, loc))
        return m.group(0)

    template = _NAME.sub(subst, fname)
    c = _condition(t, cond, "pass_verify_save", loc)
    if c is None:
        return None
    attrs = {"fname": quote(template),
             "keys": "[" + ", ".join(quote(k) for k in keys) + "]"}
    _ops._emit("pass_verify_save", [c, x._value] + operands, attrs, loc, vec=False)
    return None
