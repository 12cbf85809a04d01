"""The traced IR as Python objects (values, ops, blocks) and its printer to
MLIR's generic textual form, which the C library parses and verifies.

Ops are kept as objects rather than written out directly because tracing
edits what it has built: loop-carried tensors become block arguments once
the loop body is complete, and conditionals get their result types after
all of their paths are known."""

import re

__all__ = ["TensorType", "ScalarType", "Value", "Op", "Block", "tensor_type",
           "scalar_type", "parse_type", "print_function"]


class TensorType:
    __slots__ = ("shape", "elem", "text")

    def __init__(self, shape, elem):
        self.shape = tuple(shape)  # ints; None for a dynamic dim
        self.elem = elem           # IR spelling of the element type
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        self.text = f"tensor<{dims}{elem}>"

    @property
    def rank(self):
        return len(self.shape)

    def __str__(self):
        return self.text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return isinstance(other, TensorType) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


class ScalarType:
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, ScalarType) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


_types = {}
_TENSOR_RE = re.compile(r"^tensor<((?:(?:\?|\d+)x)*)([a-zA-Z0-9]+)>$")


def parse_type(text):
    t = _types.get(text)
    if t is not None:
        return t
    m = _TENSOR_RE.match(text)
    if m:
        dims = [None if d == "?" else int(d) for d in m.group(1).split("x")[:-1]]
        t = TensorType(dims, m.group(2))
    else:
        t = ScalarType(text)
    _types[text] = t
    return t


def tensor_type(shape, elem):
    return parse_type(str(TensorType(shape, elem)))


def scalar_type(text):
    return parse_type(text)


INDEX = scalar_type("index")
I1 = scalar_type("i1")


class Value:
    __slots__ = ("type", "block", "op", "index", "__weakref__")

    def __init__(self, type_, block, op=None, index=0):
        self.type = type_
        self.block = block  # where it is defined
        self.op = op        # defining op, None for block arguments
        self.index = index


class Block:
    __slots__ = ("args", "ops", "parent", "owner", "decision")

    def __init__(self, parent):
        self.args = []
        self.ops = []
        self.parent = parent  # enclosing block (None: the function body)
        self.owner = None     # op whose region this block is
        self.decision = None  # the scf.if that ends this block, if any

    def add_arg(self, type_):
        v = Value(type_, self)
        self.args.append(v)
        return v

    def encloses(self, block):
        """Whether values defined here are visible in `block`."""
        while block is not None:
            if block is self:
                return True
            block = block.parent
        return False


class Op:
    __slots__ = ("name", "operands", "results", "attrs", "regions", "loc", "block",
                 "info")

    def __init__(self, name, operands, result_types, attrs, loc, block):
        self.name = name
        self.operands = list(operands)
        self.block = block
        self.results = [Value(t, block, self, i) for i, t in enumerate(result_types)]
        self.attrs = attrs  # dictionary text "{...}" or ""
        self.regions = []
        self.loc = loc
        self.info = None    # tracing bookkeeping (loops: carried entries)

    def add_region(self):
        b = Block(self.block)
        b.owner = self
        self.regions.append(b)
        return b

    def set_results(self, types):
        self.results = [Value(t, self.block, self, i) for i, t in enumerate(types)]
        return self.results


def quote(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= o < 127:
            out.append(ch)
        else:
            out.extend("\\%02X" % b for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def loc_text(loc):
    if not loc:
        return "loc(unknown)"
    file, line, col = loc
    return f"loc({quote(file)}:{line}:{col})"


class _Printer:
    def __init__(self):
        self.names = {}
        self.next = 0
        self.lines = []

    def name(self, v):
        n = self.names.get(v)
        if n is None:
            raise AssertionError("value used before it is named")
        return n

    def define_results(self, op):
        if not op.results:
            return ""
        base = f"%{self.next}"
        self.next += 1
        if len(op.results) == 1:
            self.names[op.results[0]] = base
            return base + " = "
        for i, r in enumerate(op.results):
            self.names[r] = f"{base}#{i}"
        return f"{base}:{len(op.results)} = "

    def define_arg(self, v):
        n = f"%{self.next}"
        self.next += 1
        self.names[v] = n
        return n

    def block(self, block, indent):
        pad = "  " * indent
        if block.args:
            args = ", ".join(f"{self.define_arg(a)}: {a.type}" for a in block.args)
            self.lines.append(f"{pad[:-2]}^bb0({args}):")
        for op in block.ops:
            self.op(op, indent)

    def op(self, op, indent):
        pad = "  " * indent
        head = pad + self.define_results(op)
        operands = ", ".join(self.name(v) for v in op.operands)
        text = f'{head}"{op.name}"({operands})'
        if op.regions:
            self.lines.append(text + " ({")
            for i, r in enumerate(op.regions):
                if i:
                    self.lines.append(pad + "}, {")
                self.block(r, indent + 1)
            text = pad + "})"
        attrs = f" {op.attrs}" if op.attrs and op.attrs != "{}" else ""
        ins = ", ".join(str(v.type) for v in op.operands)
        outs = ", ".join(str(v.type) for v in op.results)
        text += f"{attrs} : ({ins}) -> ({outs}) {loc_text(op.loc)}"
        self.lines.append(text)


def print_function(name, body, result_types, res_attrs, func_attrs, loc):
    """A module holding one func.func whose body is `body` (a Block with
    the function's arguments), in generic form."""
    p = _Printer()
    p.lines.append('"func.func"() ({')
    p.block(body, 1)
    ins = ", ".join(str(a.type) for a in body.args)
    outs = ", ".join(str(t) for t in result_types)
    attrs = [f"function_type = ({ins}) -> ({outs})", f"sym_name = {quote(name)}"]
    if any(res_attrs):
        attrs.append("res_attrs = [" + ", ".join(a or "{}" for a in res_attrs) + "]")
    attrs.extend(func_attrs)
    p.lines.append("}) {" + ", ".join(attrs) + "} : () -> () " + loc_text(loc))
    return "\n".join(p.lines) + "\n"
