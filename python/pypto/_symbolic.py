"""Symbolic scalars: run-time integers (dynamic dims, loop indices) and
conditions, with Python arithmetic.

A SymbolicScalar is an affine form ``c0 + c1*a1 + c2*a2 + ...`` over atoms,
so that ``(idx + 1) - idx`` is the constant 1 and a slice ``x[idx:idx+1]``
has the static size a view needs. Atoms are values the kernel computes at
run time: a dim of a tensor, a loop index, or a non-affine expression
(``a * b``, ``a // b``, ``min``, comparisons). They become ``arith`` ops on
``index`` (``i1`` for conditions) when an op needs them as operands."""

import itertools

from ._errors import SymbolicValueError, error_at
from ._loc import user_loc

__all__ = ["SymbolicScalar", "symbolic_scalar", "DynamicDim", "DYNAMIC", "DYN",
           "as_symbolic", "concrete", "smin", "smax"]

_ids = itertools.count(1)


class Atom:
    """A run-time value an affine form is built on."""
    __slots__ = ("id", "kind", "value", "op", "args", "name", "__weakref__")

    def __init__(self, kind, value=None, op=None, args=(), name=None):
        self.id = next(_ids)
        self.kind = kind      # "value", "dim", "dyn", "expr", "name"
        self.value = value    # "value": a traced Value; "dim": (Value, dim)
        self.op = op          # "expr": arith op name ("arith.floordivsi", ...)
        self.args = args      # "expr": operand SymbolicScalars (+ predicate);
                              # loop indices: the loop's (start, stop, step)
        self.name = name      # for messages and repr


_CMP = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5}
_CMP_TEXT = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">="}
_PY_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
           "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b,
           "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b}


def concrete(x):
    """The Python int of an int or a constant SymbolicScalar, else None."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    if isinstance(x, SymbolicScalar) and not x._terms:
        return x._const
    return None


def as_symbolic(x):
    if isinstance(x, SymbolicScalar):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return SymbolicScalar((), x)
    if isinstance(x, bool):
        return SymbolicScalar((), int(x), "bool")
    return None


class SymbolicScalar:
    """A run-time integer (``index``) or condition (``bool``)."""
    __slots__ = ("_terms", "_const", "_kind", "_variable", "__weakref__")

    def __init__(self, terms=(), const=0, kind="index"):
        # PyPTO's constructor forms: SymbolicScalar(10), SymbolicScalar("x")
        if isinstance(terms, str):
            terms = ((Atom("name", name=terms), 1),)
        elif isinstance(terms, bool):
            terms, const, kind = (), int(terms), "bool"
        elif isinstance(terms, int):
            terms, const = (), terms
        elif not isinstance(terms, tuple):
            raise error_at(TypeError, user_loc(), "SymbolicScalar takes an int or a name, "
                           f"got {terms!r}")
        self._terms = terms  # ((Atom, coeff), ...) sorted by atom id
        self._const = const
        self._kind = kind
        self._variable = False

    # ---- construction ----
    @staticmethod
    def atom(atom, kind="index"):
        return SymbolicScalar(((atom, 1),), 0, kind)

    @property
    def is_bool(self):
        return self._kind == "bool"

    def concrete(self):
        return None if self._terms else self._const

    def is_concrete(self):
        """Whether the value is known while tracing (a constant)."""
        return not self._terms

    is_immediate = is_concrete

    def is_symbol(self):
        """Whether this is one run-time name (a dim, a loop index, a value
        read from a tensor), not an expression over names."""
        if len(self._terms) != 1 or self._const:
            return False
        atom, coeff = self._terms[0]
        return coeff == 1 and atom.kind != "expr"

    def is_expression(self):
        """Whether this is an expression over run-time names."""
        return bool(self._terms) and not self.is_symbol()

    def as_variable(self):
        """Marks the value as an intermediate variable (PyPTO's hint that
        an expression is computed once); every expression here is already
        computed once per scope, so only the mark is kept."""
        self._variable = True

    def max(self, other):
        """max(self, other), folded when both are known."""
        return _extreme(self, _operand(other, "max"), False)

    def min(self, other):
        """min(self, other), folded when both are known."""
        return _extreme(self, _operand(other, "min"), True)

    # ---- affine arithmetic ----
    def _combine(self, other, sign):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        if self.is_bool or o.is_bool:
            self._no_arith_on_bool()
        terms = dict(self._terms)
        for a, c in o._terms:
            terms[a] = terms.get(a, 0) + sign * c
        items = tuple(sorted(((a, c) for a, c in terms.items() if c), key=lambda t: t[0].id))
        return SymbolicScalar(items, self._const + sign * o._const)

    def __add__(self, other):
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, -1)

    def __rsub__(self, other):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        return o._combine(self, -1)

    def __neg__(self):
        return SymbolicScalar(tuple((a, -c) for a, c in self._terms), -self._const)

    def __pos__(self):
        return self

    def _scale(self, k):
        if k == 0:
            return SymbolicScalar()
        return SymbolicScalar(tuple((a, c * k) for a, c in self._terms), self._const * k)

    def __mul__(self, other):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        if self.is_bool or o.is_bool:
            self._no_arith_on_bool()
        if not o._terms:
            return self._scale(o._const)
        if not self._terms:
            return o._scale(self._const)
        return _expr("arith.muli", (self, o), f"({self!r} * {o!r})")

    __rmul__ = __mul__

    def __floordiv__(self, other):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        if self.is_bool or o.is_bool:
            self._no_arith_on_bool()
        k = o.concrete()
        if k is not None:
            if k == 0:
                raise error_at(ZeroDivisionError, user_loc(), "symbolic division by zero")
            if k == 1:
                return self
            if all(c % k == 0 for _, c in self._terms) and self._const % k == 0:
                return SymbolicScalar(tuple((a, c // k) for a, c in self._terms),
                                      self._const // k)
            if not self._terms:
                return SymbolicScalar((), self._const // k)
        return _expr("arith.floordivsi", (self, o), f"({self!r} // {o!r})")

    def __rfloordiv__(self, other):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        return o.__floordiv__(self)

    # symbolic sizes divide as integers (PyPTO's `b / tile_b`)
    __truediv__ = __floordiv__
    __rtruediv__ = __rfloordiv__

    def __mod__(self, other):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        k = o.concrete()
        if k == 1:
            return SymbolicScalar()
        if k is not None and not self._terms and k:
            return SymbolicScalar((), self._const % k)
        return self - (self // o) * o  # floor modulo, as Python's %

    def __rmod__(self, other):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        return o.__mod__(self)

    # ---- comparisons and conditions ----
    def _cmp(self, other, pred):
        o = as_symbolic(other)
        if o is None:
            return NotImplemented
        if self.is_bool != o.is_bool and pred not in ("eq", "ne"):
            self._no_arith_on_bool()
        diff = self._combine(o, -1) if not (self.is_bool or o.is_bool) else None
        if diff is not None and not diff._terms:
            return _PY_CMP[pred](diff._const, 0)
        if self.is_bool or o.is_bool:
            a, b = self.concrete(), o.concrete()
            if a is not None and b is not None:
                return _PY_CMP[pred](a, b)
        return _expr("arith.cmpi", (self, o, pred),
                     f"({self!r} {_CMP_TEXT[pred]} {o!r})", kind="bool")

    def __lt__(self, other):
        return self._cmp(other, "slt")

    def __le__(self, other):
        return self._cmp(other, "sle")

    def __gt__(self, other):
        return self._cmp(other, "sgt")

    def __ge__(self, other):
        return self._cmp(other, "sge")

    def __eq__(self, other):
        r = self._cmp(other, "eq")
        return False if r is NotImplemented else r

    def __ne__(self, other):
        r = self._cmp(other, "ne")
        return True if r is NotImplemented else r

    __hash__ = object.__hash__

    def _as_cond(self):
        return self if self.is_bool else self._cmp(0, "ne")

    def __and__(self, other):
        a, b = self._as_cond(), _cond_of(other)
        if b is None:
            return NotImplemented
        return _select(a, b, False)

    __rand__ = __and__

    def __or__(self, other):
        a, b = self._as_cond(), _cond_of(other)
        if b is None:
            return NotImplemented
        return _select(a, True, b)

    __ror__ = __or__

    def __invert__(self):
        if not self.is_bool:
            self._no_arith_on_bool()
        return _select(self, False, True)

    def __bool__(self):
        """A Python ``if`` on a run-time condition: both branches are traced
        (see pypto.cond)."""
        c = self.concrete()
        if c is not None:
            return bool(c)
        from ._trace import current
        return current("a condition on a symbolic value").decide(self._as_cond(), user_loc())

    # ---- things a run-time value cannot be ----
    def _not_concrete(self, what):
        raise error_at(
            SymbolicValueError, user_loc(),
            f"{self!r} is a symbolic value known only when the kernel runs; it "
            f"cannot be used as {what}. Use pypto.loop(...) instead of range(...), "
            "and pypto ops instead of Python arithmetic on its value")

    def __index__(self):
        c = self.concrete()
        if c is not None:
            return c
        self._not_concrete("a Python int")

    def __int__(self):
        return self.__index__()

    def __float__(self):
        c = self.concrete()
        if c is not None:
            return float(c)
        self._not_concrete("a Python float")

    def __len__(self):
        self._not_concrete("a length")

    def __iter__(self):
        self._not_concrete("an iterable")

    def _no_arith_on_bool(self):
        raise error_at(SymbolicValueError, user_loc(),
                       "integer arithmetic on a symbolic condition; combine conditions "
                       "with &, | and ~")

    def __repr__(self):
        if self.is_bool and not self._terms:
            return repr(bool(self._const))
        parts = []
        for a, c in self._terms:
            name = a.name or f"s{a.id}"
            if c == 1:
                parts.append(("+", name))
            elif c == -1:
                parts.append(("-", name))
            elif c < 0:
                parts.append(("-", f"{-c}*{name}"))
            else:
                parts.append(("+", f"{c}*{name}"))
        if self._const or not parts:
            parts.append(("-" if self._const < 0 else "+", str(abs(self._const))))
        text = parts[0][1] if parts[0][0] == "+" else "-" + parts[0][1]
        for sign, p in parts[1:]:
            text += f" {sign} {p}"
        return text


def _operand(x, what):
    if isinstance(x, SymbolicScalar) or (isinstance(x, int) and not isinstance(x, bool)):
        return x
    raise error_at(TypeError, user_loc(), f"SymbolicScalar.{what} takes an int or a "
                   f"symbolic scalar, got {x!r}")


def _cond_of(x):
    if isinstance(x, bool):
        return SymbolicScalar((), int(x), "bool")
    if isinstance(x, SymbolicScalar):
        return x._as_cond()
    return None


def _expr(op, args, name, kind="index"):
    # conditions and non-affine values are atoms of their own
    return SymbolicScalar.atom(Atom("expr", op=op, args=args, name=name), kind)


def _select(c, a, b):
    """c ? a : b over conditions (a, b: bool or SymbolicScalar)."""
    cv = c.concrete()
    if cv is not None:
        return a if cv else b
    a = _cond_of(a)
    b = _cond_of(b)
    return _expr("arith.select", (c, a, b), f"({c!r} ? {a!r} : {b!r})", kind="bool")


def _extreme(a, b, smaller):
    ca, cb = concrete(a), concrete(b)
    if ca is not None and cb is not None:
        return min(ca, cb) if smaller else max(ca, cb)
    a, b = as_symbolic(a), as_symbolic(b)
    d = (a - b).concrete()
    if d is not None:
        return a if (d <= 0) == smaller else b
    name = "min" if smaller else "max"
    return _expr("arith.minsi" if smaller else "arith.maxsi", (a, b), f"{name}({a!r}, {b!r})")


def _extreme_args(a, b, name):
    for x in (a, b):
        if not (isinstance(x, SymbolicScalar) or
                (isinstance(x, int) and not isinstance(x, bool))):
            hint = (f"; for tensors use pypto.{'maximum' if name == 'max' else 'minimum'}"
                    if type(x).__name__ == "Tensor" or isinstance(x, float) else "")
            raise error_at(TypeError, user_loc(), f"pypto.{name} takes ints or symbolic "
                           f"scalars, got {x!r}{hint}")


def smin(a, b):
    """Minimum of two ints or symbolic scalars."""
    _extreme_args(a, b, "min")
    return _extreme(a, b, True)


def smax(a, b):
    """Maximum of two ints or symbolic scalars."""
    _extreme_args(a, b, "max")
    return _extreme(a, b, False)


class DynamicDim(SymbolicScalar):
    """A named dynamic dimension (``pypto.frontend.dynamic("bs")``): every
    tensor parameter annotated with it must have the same size there, and
    inside the kernel it stands for that size."""
    __slots__ = ("name",)

    def __init__(self, name):
        super().__init__(((Atom("dyn", value=self, name=name), 1),), 0)
        self.name = name

    def __repr__(self):
        return self.name


class _Dynamic:
    """``pypto.DYNAMIC``: a dynamic dim in a parameter annotation."""

    def __repr__(self):
        return "pypto.DYNAMIC"

    def __reduce__(self):
        return "DYNAMIC"


DYNAMIC = DYN = _Dynamic()


def symbolic_scalar(value=0, name=None):
    """A SymbolicScalar of an int (a constant) or of another symbolic
    scalar (returned as is)."""
    if isinstance(value, SymbolicScalar):
        return value
    if isinstance(value, int):
        return SymbolicScalar((), int(value), "bool" if isinstance(value, bool) else "index")
    raise TypeError(f"symbolic_scalar() takes an int or a SymbolicScalar, got {value!r}")
