#!/usr/bin/env python3
"""Random-program differential tester: random kernels through every back end,
compared with numpy.

Each case is a seeded random kernel over small static shapes: chains of ops
from every family of the pypto dialect (elementwise unary, binary and
tensor-scalar forms, compares and where, reductions, matmul, views, assemble,
reshape, transpose, concat, expand, gather, index_select, scatter_update,
topk, quantize/dequantize, the composites, casts and pypto.loop), in f32,
f16, bf16 and integer dtypes. The generator evaluates a numpy reference as
it goes (in float64, rounded to the element type after every op, as the
library rounds) and only keeps ops whose values stay finite and moderate.

The kernel is written as Python source for the `pypto` package and run
through the back ends of BACKENDS: the Python API, and `pto-run` on the
traced .pto text at the Tensor level, at the Tile level, and with
--check-levels through the Tile and Block levels. Outputs are compared with the reference: bit for bit where
every step is correctly rounded (data movement, + - * / sqrt, casts,
compares, selections), within a per-dtype tolerance elsewhere. A failing
case is shrunk (smaller shapes, fewer outputs, the inputs of ops replaced by
parameters holding their values, dead ops dropped) and printed as a
ready-to-run Python file, with the pto-run command for the pto-run back
ends.

A new level joins by adding an entry to BACKENDS (a pto-run pipeline, or a
function that runs the kernel and returns its outputs).

With --pto the generator keeps to what lower-to-pto takes (PTO tiles: no
i64; the vector instructions' elementwise ops without broadcasting,
reductions along the last dim or the rows of a 2-D tile, untransposed
matmuls into f32 or i32, topk along the last dim within one tile, casts,
the composites over the last dim; tiles whose leading dims are 1), and
the back end check-levels-pto runs --check-levels through the whole
pipeline to planned, synchronised PTO kernels, on both platforms.

usage: difftest.py [--cases N] [--seed S] [--backends a,b] [--pto-run PATH]
                   [--repro-dir DIR] [--max-ops N] [--no-shrink] [--pto] [-v]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

# The package of this checkout, unless PYTHONPATH names one.
_PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if _PYTHON_DIR not in sys.path and not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, _PYTHON_DIR)

# ----------------------------------------------------------- dtypes --

FLOATS = ("f32", "f16", "bf16")
INTS = ("i8", "i16", "i32", "i64")
NP = {"f32": np.float32, "f16": np.float16, "bf16": np.float32,
      "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "i1": np.bool_}
DT = {"f32": "DT_FP32", "f16": "DT_FP16", "bf16": "DT_BF16", "i8": "DT_INT8",
      "i16": "DT_INT16", "i32": "DT_INT32", "i64": "DT_INT64", "i1": "DT_BOOL"}
# (rtol, atol) for values that are not exact; atol scales with the output's
# largest magnitude, since errors of sums and products grow with it.
TOL = {"f32": (1e-4, 1e-4), "f16": (2e-2, 2e-2), "bf16": (8e-2, 8e-2)}
# Largest magnitude the generator lets a value reach (f16 overflows at 65504).
LIMIT = {"f32": 1e4, "f16": 1e3, "bf16": 1e4}


def bf16_round(x):
    """float values rounded to bf16 (nearest even), as float32."""
    f = np.asarray(x, dtype=np.float32)
    b = f.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint32) << 16
    out = r.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f), np.float32(np.nan), out).astype(np.float32)


def bf16_bits(x):
    return (np.ascontiguousarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_from_bits(u):
    return (np.asarray(u, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def rounded(dt, x):
    """A float64/int64 result as the element type `dt` (stored as NP[dt])."""
    x = np.asarray(x)
    if dt == "f32":
        return x.astype(np.float32)
    if dt == "f16":
        return x.astype(np.float16)
    if dt == "bf16":
        return bf16_round(x.astype(np.float64).astype(np.float32))
    if dt == "i1":
        return x.astype(np.bool_)
    return x.astype(np.int64).astype(NP[dt])  # integers wrap


def wide(a):
    return a.astype(np.int64) if a.dtype.kind in "iub" else a.astype(np.float64)


# ------------------------------------------------------------ program --

class Node:
    """One op (or a few lines of Python that make one value): kind, operand
    value ids, parameters, result value ids."""

    def __init__(self, kind, args, params, outs):
        self.kind, self.args, self.params, self.outs = kind, list(args), dict(params), list(outs)


class Program:
    def __init__(self):
        self.types = {}      # value id -> (shape tuple, dtype)
        self.inputs = []     # value ids of the parameters, in order
        self.data = {}       # parameter value id -> numpy array
        self.nodes = []
        self.returns = []
        self.exact = set()   # value ids computed by correctly rounded steps only
        self.tol = {}        # value id -> (rtol, atol) override
        self.next_id = 0

    def new_value(self, shape, dt):
        v = self.next_id
        self.next_id += 1
        self.types[v] = (tuple(int(d) for d in shape), dt)
        return v

    def copy(self):
        p = Program()
        p.types, p.inputs, p.data = dict(self.types), list(self.inputs), dict(self.data)
        p.nodes = [Node(n.kind, n.args, n.params, n.outs) for n in self.nodes]
        p.returns, p.exact, p.tol = list(self.returns), set(self.exact), dict(self.tol)
        p.next_id = self.next_id
        return p

    def evaluate(self, retype=False):
        """The reference value of every value; with `retype`, the values'
        shapes are taken from the results (after inputs were resized)."""
        env = dict(self.data)
        for n in self.nodes:
            with np.errstate(all="ignore"):
                res = EVAL[n.kind](n, [env[a] for a in n.args])
            for v, r in zip(n.outs, res):
                shape, dt = self.types[v]
                r = np.asarray(r)
                if retype:
                    self.types[v] = (r.shape, dt)
                else:
                    assert r.shape == shape, (n.kind, r.shape, shape)
                env[v] = r if r.dtype == NP[dt] else rounded(dt, r)
        return env

    def num_ops(self):
        return len(self.nodes)

    def tolerance(self, v):
        """(rtol, atol) a value is compared with when it is not exact."""
        if v in self.tol:
            return self.tol[v]
        return TOL.get(self.types[v][1], (0, 0))


def name(v):
    return f"v{v}"


# ------------------------------------------------------- op families --

UNARY_FLOAT = ["abs", "neg", "exp", "log", "sqrt", "rsqrt", "reciprocal", "relu",
               "sigmoid", "tanh", "silu", "sin", "cos", "floor", "ceil", "round",
               "erf", "gelu"]
UNARY_INT = ["abs", "neg", "relu"]
# Correctly rounded (or exact) elementwise ops: their results are compared
# bit for bit when their operands are exact.
EXACT_OPS = {"abs", "neg", "relu", "sqrt", "add", "sub", "mul", "div", "maximum",
             "minimum", "floor", "ceil", "round"}
ROUNDING_SENSITIVE = {"floor", "ceil", "round"}
# The unary ops with a PTO vector instruction.
PTO_UNARY = {"abs", "neg", "exp", "log", "sqrt", "rsqrt", "reciprocal", "relu",
             "sigmoid", "tanh", "silu", "floor", "ceil", "round"}


def _erf(x):
    from math import erf
    return np.vectorize(erf, otypes=[np.float64])(x) if x.size else x


def _gelu(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


UNARY_NP = {
    "abs": np.abs, "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x,
    "relu": lambda x: np.maximum(x, 0), "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh, "silu": lambda x: x / (1 + np.exp(-x)), "sin": np.sin,
    "cos": np.cos, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "erf": _erf,
}
BINARY_NP = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
             "div": np.divide, "maximum": np.maximum, "minimum": np.minimum,
             "pow": np.power}
COMPARE_NP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
              "gt": np.greater, "ge": np.greater_equal}


def ev_unary(n, a):
    x = wide(a[0])
    if n.params["op"] == "gelu":
        return [_gelu(x, n.params["approximate"])]
    return [UNARY_NP[n.params["op"]](x)]


def ev_binary(n, a):
    return [BINARY_NP[n.params["op"]](wide(a[0]), wide(a[1]))]


def ev_scalar(n, a):
    x, s = wide(a[0]), n.params["value"]
    f = BINARY_NP[n.params["op"]]
    return [f(s, x) if n.params["left"] else f(x, s)]


def ev_compare(n, a):
    b = wide(a[1]) if len(a) > 1 else n.params["value"]
    return [COMPARE_NP[n.params["op"]](wide(a[0]), b)]


def ev_where(n, a):
    other = wide(a[2]) if len(a) > 2 else n.params["value"]
    return [np.where(a[0], wide(a[1]), other)]


def ev_reduce(n, a):
    op, d, k = n.params["op"], n.params["dim"], n.params["keepdim"]
    x = a[0]
    if op in ("argmax", "argmin"):
        r = (np.argmax if op == "argmax" else np.argmin)(x, axis=d)
        return [np.expand_dims(r, d) if k else r]
    f = {"sum": np.sum, "amax": np.max, "amin": np.min, "prod": np.prod}[op]
    return [f(wide(x), axis=d, keepdims=k)]


def ev_matmul(n, a):
    x, y = wide(a[0]), wide(a[1])
    if n.params["a_trans"]:
        x = np.swapaxes(x, -1, -2)
    if n.params["b_trans"]:
        y = np.swapaxes(y, -1, -2)
    return [np.matmul(x, y)]


def ev_view(n, a):
    sl = tuple(slice(o, o + s) for o, s in zip(n.params["offsets"], n.params["shape"]))
    return [a[0][sl]]


def ev_assemble(n, a):
    out = np.full(n.params["shape"], n.params["fill"], dtype=a[0].dtype)
    sl = tuple(slice(o, o + s) for o, s in zip(n.params["offsets"], a[0].shape))
    out[sl] = a[0]
    return [out]


def ev_reshape(n, a):
    return [a[0].reshape(n.params["shape"])]


def ev_transpose(n, a):
    return [np.transpose(a[0], n.params["perm"])]


def ev_concat(n, a):
    return [np.concatenate(a, axis=n.params["dim"])]


def ev_expand(n, a):
    return [np.broadcast_to(a[0], n.params["shape"]).copy()]


def ev_gather(n, a):
    x, idx, d = a[0], a[1].astype(np.int64), n.params["dim"]
    sl = tuple(slice(0, s) if i != d else slice(None) for i, s in enumerate(idx.shape))
    return [np.take_along_axis(x[sl], idx, axis=d)]


def ev_index_select(n, a):
    return [np.take(a[0], a[1].astype(np.int64), axis=n.params["dim"])]


def ev_scatter(n, a):
    out, idx, src, d = a[0].copy(), a[1].astype(np.int64), a[2], n.params["dim"]
    for j, i in enumerate(idx):
        dst = [slice(None)] * out.ndim
        s = [slice(None)] * out.ndim
        dst[d], s[d] = i, j
        out[tuple(dst)] = src[tuple(s)]
    return [out]


def ev_topk(n, a):
    x, k, d, largest = a[0], n.params["k"], n.params["dim"], n.params["largest"]
    key = -wide(x) if largest else wide(x)
    order = np.argsort(key, axis=d, kind="stable")
    idx = np.take(order, np.arange(k), axis=d)
    return [np.take_along_axis(x, idx, axis=d), idx.astype(np.int32)]


def ev_quantize(n, a):
    x = a[0].astype(np.float32)
    amax = np.max(np.abs(x), axis=-1, keepdims=True)
    scale = (amax / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(scale == 0, 0, np.clip(np.rint(x / scale), -127, 127))
    return [q.astype(np.int8), scale]


def ev_dequantize(n, a):
    return [a[0].astype(np.float32) * a[1]]


def ev_softmax(n, a):
    x, d = wide(a[0]), n.params["dim"]
    e = np.exp(x - np.max(x, axis=d, keepdims=True))
    return [e / np.sum(e, axis=d, keepdims=True)]


def ev_rms_norm(n, a):
    x, g = wide(a[0]), wide(a[1])
    return [x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + n.params["eps"]) * g]


def ev_layer_norm(n, a):
    x, g, b = wide(a[0]), wide(a[1]), wide(a[2])
    m = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - m) ** 2, axis=-1, keepdims=True)
    return [(x - m) / np.sqrt(var + n.params["eps"]) * g + b]


CAST_MODES = {"none": None, "rint": np.rint, "floor": np.floor, "ceil": np.ceil,
              "trunc": np.trunc, "round": lambda x: np.where(x >= 0, np.floor(x + 0.5),
                                                             np.ceil(x - 0.5))}


def ev_cast(n, a):
    x, to, mode = a[0], n.params["to"], n.params["mode"]
    if to in INTS and x.dtype.kind == "f":
        r = (np.trunc if mode == "none" else CAST_MODES[mode])(wide(x))
        info = np.iinfo(NP[to])
        return [np.clip(r, info.min, info.max).astype(np.int64)]
    return [wide(x)]


def ev_loop(n, a):
    """out[i] = body(x[i]) for every row i of x's first dim."""
    x = a[0]
    rows = [loop_body_eval(n.params["body"], x[i:i + 1], n.params["dt"])
            for i in range(x.shape[0])]
    return [np.concatenate(rows, axis=0)]


def loop_body_eval(body, t, dt):
    for op, arg in body:
        t = wide(t)
        if op == "unary":
            t = UNARY_NP[arg](t)
        elif op == "scalar":
            t = BINARY_NP[arg[0]](t, arg[1])
        elif op == "center":  # t - amax(t, -1)
            t = t - np.max(t, axis=-1, keepdims=True)
        elif op == "sum":
            t = np.sum(t, axis=-1, keepdims=True)
        t = rounded(dt, t)
    return t


EVAL = {"unary": ev_unary, "binary": ev_binary, "scalar": ev_scalar,
        "compare": ev_compare, "where": ev_where, "reduce": ev_reduce,
        "matmul": ev_matmul, "view": ev_view, "assemble": ev_assemble,
        "reshape": ev_reshape, "transpose": ev_transpose, "concat": ev_concat,
        "expand": ev_expand, "gather": ev_gather, "index_select": ev_index_select,
        "scatter_update": ev_scatter, "topk": ev_topk, "quantize": ev_quantize,
        "dequantize": ev_dequantize, "softmax": ev_softmax, "rms_norm": ev_rms_norm,
        "layer_norm": ev_layer_norm, "cast": ev_cast, "loop": ev_loop}


# ----------------------------------------------------------- rendering --

def pylit(v):
    if isinstance(v, float):
        return repr(v)
    return str(v)


def dt_expr(dt):
    return f"pypto.{DT[dt]}"


def render_node(p, n):
    """Python lines computing the node's results."""
    a = [name(x) for x in n.args]
    o = [name(x) for x in n.outs]
    pr = n.params
    k = n.kind
    if k == "unary":
        if pr["op"] == "gelu":
            return [f"{o[0]} = pypto.gelu({a[0]}, approximate={pr['approximate']!r})"]
        return [f"{o[0]} = pypto.{pr['op']}({a[0]})"]
    if k == "binary":
        return [f"{o[0]} = pypto.{pr['op']}({a[0]}, {a[1]})"]
    if k == "scalar":
        s = pylit(pr["value"])
        sym = {"add": "+", "sub": "-", "mul": "*", "div": "/"}.get(pr["op"])
        if pr["left"]:
            return [f"{o[0]} = {s} {sym} {a[0]}"]
        if sym and pr.get("operator"):
            return [f"{o[0]} = {a[0]} {sym} {s}"]
        return [f"{o[0]} = pypto.{pr['op']}({a[0]}, {s})"]
    if k == "compare":
        b = a[1] if len(a) > 1 else pylit(pr["value"])
        return [f"{o[0]} = pypto.{pr['op']}({a[0]}, {b})"]
    if k == "where":
        other = a[2] if len(a) > 2 else pylit(pr["value"])
        return [f"{o[0]} = pypto.where({a[0]}, {a[1]}, {other})"]
    if k == "reduce":
        return [f"{o[0]} = pypto.{pr['op']}({a[0]}, dim={pr['dim']}, keepdim={pr['keepdim']})"]
    if k == "matmul":
        return [f"{o[0]} = pypto.matmul({a[0]}, {a[1]}, {dt_expr(pr['out'])}, "
                f"a_trans={pr['a_trans']}, b_trans={pr['b_trans']})"]
    if k == "view":
        sl = ", ".join(f"{x}:{x + s}" for x, s in zip(pr["offsets"], pr["shape"]))
        return [f"{o[0]} = {a[0]}[{sl}]"]
    if k == "assemble":
        shape, dt = p.types[n.outs[0]]
        sl = ", ".join(f"{x}:{x + s}" for x, s in zip(pr["offsets"], p.types[n.args[0]][0]))
        return [f"{o[0]} = pypto.full({list(shape)}, {pylit(pr['fill'])}, {dt_expr(dt)})",
                f"{o[0]}[{sl}] = {a[0]}"]
    if k == "reshape":
        return [f"{o[0]} = pypto.reshape({a[0]}, {list(pr['shape'])})"]
    if k == "transpose":
        if "dims" in pr:
            return [f"{o[0]} = pypto.transpose({a[0]}, {pr['dims'][0]}, {pr['dims'][1]})"]
        return [f"{o[0]} = pypto.permute({a[0]}, {list(pr['perm'])})"]
    if k == "concat":
        return [f"{o[0]} = pypto.concat([{', '.join(a)}], dim={pr['dim']})"]
    if k == "expand":
        return [f"{o[0]} = pypto.expand({a[0]}, {list(pr['shape'])})"]
    if k == "gather":
        return [f"{o[0]} = pypto.gather({a[0]}, {pr['dim']}, {a[1]})"]
    if k == "index_select":
        return [f"{o[0]} = pypto.index_select({a[0]}, {pr['dim']}, {a[1]})"]
    if k == "scatter_update":
        one = "1" if p.types[n.args[0]][1] in INTS else "1.0"
        return [f"{o[0]} = {a[0]} * {one}",
                f"pypto.scatter_update({o[0]}, {pr['dim']}, {a[1]}, {a[2]})"]
    if k == "topk":
        return [f"{o[0]}, {o[1]} = pypto.topk({a[0]}, {pr['k']}, dim={pr['dim']}, "
                f"largest={pr['largest']})"]
    if k == "quantize":
        return [f"{o[0]}, {o[1]} = pypto.quantize({a[0]})"]
    if k == "dequantize":
        return [f"{o[0]} = pypto.dequantize({a[0]}, {a[1]}, pypto.DT_FP32)"]
    if k == "softmax":
        return [f"{o[0]} = pypto.softmax({a[0]}, dim={pr['dim']})"]
    if k == "rms_norm":
        return [f"{o[0]} = pypto.rms_norm({a[0]}, {a[1]}, eps={pr['eps']!r})"]
    if k == "layer_norm":
        return [f"{o[0]} = pypto.layer_norm({a[0]}, {a[1]}, {a[2]}, eps={pr['eps']!r})"]
    if k == "cast":
        mode = "" if pr["mode"] == "none" else f", mode={pr['mode']!r}, satmode='on'"
        return [f"{o[0]} = pypto.cast({a[0]}, {dt_expr(pr['to'])}{mode})"]
    if k == "loop":
        shape, dt = p.types[n.outs[0]]
        rest = ", ".join(":" for _ in shape[1:])
        lines = [f"{o[0]} = pypto.full({list(shape)}, 0, {dt_expr(dt)})",
                 f"for i in pypto.loop(0, {shape[0]}, 1):",
                 f"    t = {a[0]}[i:i + 1, {rest}]"]
        for op, arg in pr["body"]:
            if op == "unary":
                lines.append(f"    t = pypto.{arg}(t)")
            elif op == "scalar":
                lines.append(f"    t = pypto.{arg[0]}(t, {pylit(arg[1])})")
            elif op == "center":
                lines.append("    t = t - pypto.amax(t, dim=-1, keepdim=True)")
            elif op == "sum":
                lines.append("    t = pypto.sum(t, dim=-1, keepdim=True)")
        lines.append(f"    {o[0]}[i:i + 1, {rest}] = t")
        return lines
    raise AssertionError(k)


def render_kernel(p, tiles):
    params = ", ".join(
        f"{name(v)}: pypto.Tensor({list(p.types[v][0])}, {dt_expr(p.types[v][1])})"
        for v in p.inputs)
    lines = ["@pypto.frontend.jit", f"def kernel({params}):"]
    current = None
    for n in p.nodes:
        # An op's vec_tile may not have more dims than its tensors.
        rank = min(len(p.types[v][0]) for v in n.outs + n.args)
        if tiles and rank >= 1 and tiles[-rank:] != current:
            current = tiles[-rank:]
            lines.append(f"    pypto.set_vec_tile_shapes({', '.join(map(str, current))})")
        lines += ["    " + line for line in render_node(p, n)]
    rets = ", ".join(name(v) for v in p.returns)
    lines.append(f"    return {rets}" + ("," if len(p.returns) == 1 else ""))
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------- generator --

class Gen:
    """Grows a program one op at a time, keeping only ops whose reference
    values are finite and moderate."""

    # Programs lower-to-pto takes (--pto): set by main.
    pto = False

    def __init__(self, seed, max_ops, max_dim):
        self.rng = np.random.default_rng(seed)
        self.max_ops, self.max_dim = max_ops, max_dim
        self.p = Program()
        self.env = {}
        r = self.rng
        self.main_dt = str(r.choice(["f32", "f32", "f32", "f16", "f16", "bf16", "bf16",
                                     "i32", "i8", "i16"] + ([] if self.pto else ["i64"])))
        rank = int(r.integers(1, 4))
        self.base = tuple(int(r.integers(1, max_dim + 1)) for _ in range(rank))
        self.tiles = [int(r.choice([1, 2, 4, 8])) for _ in range(4)] if r.random() < 0.8 else []
        if self.pto and self.tiles:
            # a 2-D tile per window: the leading tile dims 1
            self.tiles[:2] = [1, 1]

    # -- values
    def input(self, shape, dt, lo=None, hi=None):
        r = self.rng
        shape = tuple(int(d) for d in shape)
        if dt in FLOATS:
            x = rounded(dt, r.uniform(-2 if lo is None else lo, 2 if hi is None else hi,
                                      size=shape))
        elif dt == "i1":
            x = r.integers(0, 2, size=shape).astype(np.bool_)
        else:
            lo = -10 if lo is None else lo
            hi = 10 if hi is None else hi
            x = r.integers(lo, hi + 1, size=shape).astype(NP[dt])
        v = self.p.new_value(shape, dt)
        self.p.inputs.append(v)
        self.p.data[v] = x
        self.env[v] = x
        self.p.exact.add(v)
        return v

    def pick(self, pred=lambda v: True):
        cands = [v for v in self.env if pred(v)]
        if not cands:
            return None
        # prefer recent values, so that chains grow deep
        w = np.arange(1, len(cands) + 1, dtype=np.float64) ** 2
        return int(cands[self.rng.choice(len(cands), p=w / w.sum())])

    def shape(self, v):
        return self.p.types[v][0]

    def dt(self, v):
        return self.p.types[v][1]

    def add(self, kind, args, params, outs, exact=False, tol=None):
        """Appends the node if its values are acceptable; returns it or None."""
        n = Node(kind, args, params, [self.p.new_value(s, d) for s, d in outs])
        try:
            with np.errstate(all="ignore"):
                res = EVAL[kind](n, [self.env[a] for a in args])
        except (ValueError, IndexError, ZeroDivisionError):
            return None
        vals = []
        for v, r in zip(n.outs, res):
            shape, dt = self.p.types[v]
            r = np.asarray(r)
            if r.shape != shape:
                return None
            if dt in FLOATS:
                if not np.all(np.isfinite(r)) or (r.size and np.max(np.abs(r)) > LIMIT[dt]):
                    return None
            elif dt in INTS and dt != "i64":
                info = np.iinfo(NP[dt])
                if r.size and (np.max(r) > info.max or np.min(r) < info.min):
                    return None  # keep integer results free of wrapping
            vals.append(rounded(dt, r) if r.dtype != NP[dt] else r)
        self.p.nodes.append(n)
        # Errors of inexact operands carry into the results: a result is
        # compared at least as loosely as its loosest inexact operand.
        # An int8 quantized value off by `atol` units is off by atol/127 of
        # its row's range.
        inherited = max([max(self.p.tolerance(a)[0], self.p.tolerance(a)[1] / 127)
                         for a in args if a not in self.p.exact], default=0.0)
        for i, (v, r) in enumerate(zip(n.outs, vals)):
            self.env[v] = r
            dt = self.p.types[v][1]
            if exact:
                self.p.exact.add(v)
            if tol and i == 0:
                # the int8 result of quantize: off by one where x / scale
                # rounds differently, and by the operand's relative error
                # times the range 127
                self.p.tol[v] = (0, 1 + int(np.ceil(127 * inherited)))
            elif dt in FLOATS and not exact and inherited > TOL[dt][0]:
                self.p.tol[v] = (inherited, inherited)
        return n

    def all_exact(self, args):
        return all(a in self.p.exact for a in args)

    # -- families
    def g_unary(self):
        a = self.pick(lambda v: self.dt(v) in FLOATS) if self.rng.random() < 0.8 else None
        a = self.pick() if a is None else a
        if a is None or self.dt(a) == "i1":
            return None
        dt = self.dt(a)
        ops = UNARY_FLOAT if dt in FLOATS else UNARY_INT
        if self.pto:
            ops = [o for o in ops if o in PTO_UNARY]
        op = str(self.rng.choice(ops))
        if op in ("log", "sqrt", "rsqrt", "reciprocal"):
            # a positive operand, from the program or a new parameter
            a = self.pick(lambda v: self.dt(v) == dt and self.env[v].size
                          and float(np.min(self.env[v])) > 0.05)
            if a is None:
                a = self.input(self.base, dt, 0.25, 2)
        if op in ROUNDING_SENSITIVE and a not in self.p.exact:
            return None
        if op in ("sin", "cos") and self.env[a].size and float(np.max(np.abs(self.env[a]))) > 4:
            return None  # an error in a large argument is a large error in the result
        params = {"op": op}
        if op == "gelu":
            params["approximate"] = str(self.rng.choice(["none", "tanh"]))
        return self.add("unary", [a], params, [(self.shape(a), dt)],
                        exact=op in EXACT_OPS and self.all_exact([a]))

    def broadcast_partner(self, a):
        """A value of a's dtype whose shape broadcasts with a's."""
        dt, sa = self.dt(a), self.shape(a)

        def fits(v):
            if self.dt(v) != dt:
                return False
            sb = self.shape(v)
            if len(sb) > len(sa):
                return False
            return all(x == y or y == 1 for x, y in zip(sa[::-1], sb[::-1]))
        b = self.pick(fits) if self.rng.random() < 0.6 else None
        if b is None:
            shape = [1 if self.rng.random() < 0.3 else d for d in sa]
            if len(shape) > 1 and self.rng.random() < 0.2:
                shape = shape[1:]
            b = self.input(shape, dt)
        return b

    def g_binary(self):
        a = self.pick(lambda v: self.dt(v) != "i1")
        if a is None:
            return None
        dt = self.dt(a)
        ops = ["add", "sub", "mul", "div", "maximum", "minimum", "pow"] if dt in FLOATS \
            else ["add", "sub", "mul", "maximum", "minimum"]
        if self.pto:
            ops = [o for o in ops if o != "pow"]
        op = str(self.rng.choice(ops))
        b = self.broadcast_partner(a)
        if self.pto and self.shape(b) != self.shape(a):
            # no broadcasting instruction but the row and column forms
            b = self.pick(lambda v: self.dt(v) == dt and self.shape(v) == self.shape(a)) \
                or self.input(self.shape(a), dt)
        if self.rng.random() < 0.5:
            a, b = b, a
        if op in ("div", "pow") and self.env[b].size and (
                float(np.min(np.abs(self.env[b]))) < 0.1 or
                (op == "pow" and float(np.max(np.abs(self.env[b]))) > 3)):
            return None  # dividing by nearly 0 magnifies the divisor's error
        shape = np.broadcast_shapes(self.shape(a), self.shape(b))
        return self.add("binary", [a, b], {"op": op}, [(shape, dt)],
                        exact=op in EXACT_OPS and self.all_exact([a, b]))

    def g_scalar(self):
        a = self.pick(lambda v: self.dt(v) != "i1")
        if a is None:
            return None
        dt = self.dt(a)
        if dt in FLOATS:
            op = str(self.rng.choice(["add", "sub", "mul", "div", "maximum", "minimum"]))
            value = float(self.rng.choice([0.5, 2.0, -1.5, 3.0, 0.25, -1.0]))
        else:
            op = str(self.rng.choice(["add", "sub", "mul", "maximum", "minimum"]))
            value = int(self.rng.choice([2, -3, 5, 1]))
        left = op in ("add", "sub", "mul", "div") and self.rng.random() < 0.3 and not self.pto
        params = {"op": op, "value": value, "left": left,
                  "operator": bool(self.rng.random() < 0.5)}
        return self.add("scalar", [a], params, [(self.shape(a), dt)],
                        exact=op in EXACT_OPS and self.all_exact([a]))

    def g_compare(self):
        a = self.pick(lambda v: self.dt(v) != "i1" and v in self.p.exact)
        if a is None:
            return None
        op = str(self.rng.choice(list(COMPARE_NP)))
        if self.rng.random() < 0.5:
            b = self.broadcast_partner(a)
            if b not in self.p.exact:
                return None
            shape = np.broadcast_shapes(self.shape(a), self.shape(b))
            return self.add("compare", [a, b], {"op": op}, [(shape, "i1")], exact=True)
        value = 0.5 if self.dt(a) in FLOATS else 1
        return self.add("compare", [a], {"op": op, "value": value},
                        [(self.shape(a), "i1")], exact=True)

    def g_where(self):
        c = self.pick(lambda v: self.dt(v) == "i1")
        if c is None:
            return self.g_compare()
        a = self.pick(lambda v: self.dt(v) != "i1" and self.shape(v) == self.shape(c))
        if a is None:
            return None
        if self.rng.random() < 0.5:
            b = self.pick(lambda v: self.dt(v) == self.dt(a) and self.shape(v) == self.shape(c))
            if b is None:
                b = self.input(self.shape(c), self.dt(a))
            return self.add("where", [c, a, b], {}, [(self.shape(c), self.dt(a))],
                            exact=self.all_exact([a, b]))
        value = -1.0 if self.dt(a) in FLOATS else -1
        return self.add("where", [c, a], {"value": value}, [(self.shape(c), self.dt(a))],
                        exact=self.all_exact([a]))

    def g_reduce(self):
        a = self.pick(lambda v: self.dt(v) != "i1" and len(self.shape(v)) >= 1
                      and min(self.shape(v)) >= 1)
        if a is None:
            return None
        sa, dt = self.shape(a), self.dt(a)
        op = str(self.rng.choice(["sum", "amax", "amin", "prod", "argmax", "argmin", "sum"]))
        if op in ("argmax", "argmin") and a not in self.p.exact:
            return None
        d = int(self.rng.integers(0, len(sa)))
        if self.pto:
            # trow* along the last dim, tcol* down the rows of a 2-D tile
            op = str(self.rng.choice(["sum", "amax", "amin"]))
            d = len(sa) - 1 if len(sa) != 2 or self.rng.random() < 0.6 else 0
        keep = bool(self.rng.random() < 0.5) or len(sa) == 1
        shape = tuple(1 if i == d else s for i, s in enumerate(sa)) if keep else \
            tuple(s for i, s in enumerate(sa) if i != d)
        out_dt = "i32" if op.startswith("arg") else dt
        dim = d - len(sa) if self.rng.random() < 0.5 else d
        exact = op in ("amax", "amin", "argmax", "argmin") and self.all_exact([a])
        if op in ("sum", "prod") and dt in INTS:
            exact = self.all_exact([a])
        return self.add("reduce", [a], {"op": op, "dim": dim, "keepdim": keep},
                        [(shape, out_dt)], exact=exact)

    def g_matmul(self):
        a = self.pick(lambda v: self.dt(v) in FLOATS + ("i8",) and len(self.shape(v)) in (2, 3))
        if a is None:
            return None
        sa, dt = self.shape(a), self.dt(a)
        if self.pto and len(sa) != 2:
            return None
        a_trans = bool(self.rng.random() < 0.25) and not self.pto
        b_trans = bool(self.rng.random() < 0.25) and not self.pto
        m, k = (sa[-1], sa[-2]) if a_trans else (sa[-2], sa[-1])
        nn = int(self.rng.integers(1, self.max_dim + 1))
        bshape = (nn, k) if b_trans else (k, nn)
        if len(sa) == 3 and self.rng.random() < 0.5:
            bshape = (sa[0],) + bshape
        b = self.input(bshape, dt, -3, 3)
        out = "i32" if dt == "i8" else str(self.rng.choice(["f32", dt]))
        if self.pto and dt != "i8":
            out = "f32"  # tmatmul accumulates f16 and bf16 in f32
        shape = sa[:-2] + (m, nn)
        return self.add("matmul", [a, b], {"a_trans": a_trans, "b_trans": b_trans, "out": out},
                        [(shape, out)], exact=dt == "i8" and self.all_exact([a, b]))

    def g_view(self):
        a = self.pick(lambda v: len(self.shape(v)) >= 1)
        if a is None:
            return None
        sa = self.shape(a)
        shape = tuple(int(self.rng.integers(1, s + 1)) if s > 0 else 0 for s in sa)
        offs = tuple(int(self.rng.integers(0, s - w + 1)) for s, w in zip(sa, shape))
        return self.add("view", [a], {"offsets": offs, "shape": shape},
                        [(shape, self.dt(a))], exact=self.all_exact([a]))

    def g_assemble(self):
        a = self.pick(lambda v: len(self.shape(v)) >= 1 and self.dt(v) != "i1")
        if a is None:
            return None
        sa = self.shape(a)
        extra = [int(self.rng.integers(0, 3)) for _ in sa]
        shape = tuple(s + e for s, e in zip(sa, extra))
        offs = tuple(int(self.rng.integers(0, e + 1)) for e in extra)
        fill = 0.5 if self.dt(a) in FLOATS else 3
        return self.add("assemble", [a], {"offsets": offs, "fill": fill, "shape": shape},
                        [(shape, self.dt(a))], exact=self.all_exact([a]))

    def g_reshape(self):
        a = self.pick(lambda v: len(self.shape(v)) >= 1)
        if a is None:
            return None
        n = int(np.prod(self.shape(a)))
        dims, rest = [], n
        for _ in range(int(self.rng.integers(1, 4)) - 1):
            divs = [d for d in range(1, rest + 1) if rest % d == 0]
            d = int(self.rng.choice(divs))
            dims.append(d)
            rest //= d
        dims.append(rest)
        self.rng.shuffle(dims)
        shape = tuple(dims)
        params = {"shape": shape}
        if len(shape) > 1 and self.rng.random() < 0.3:
            i = int(self.rng.integers(0, len(shape)))
            params["shape"] = tuple(-1 if j == i else s for j, s in enumerate(shape))
        return self.add("reshape", [a], params, [(shape, self.dt(a))], exact=self.all_exact([a]))

    def g_transpose(self):
        a = self.pick(lambda v: len(self.shape(v)) >= 2)
        if a is None:
            return None
        sa = self.shape(a)
        if self.rng.random() < 0.5:
            d0, d1 = (int(x) for x in self.rng.choice(len(sa), size=2, replace=False))
            perm = list(range(len(sa)))
            perm[d0], perm[d1] = perm[d1], perm[d0]
            params = {"dims": (d0, d1), "perm": tuple(perm)}
        else:
            perm = tuple(int(x) for x in self.rng.permutation(len(sa)))
            params = {"perm": perm}
        shape = tuple(sa[i] for i in params["perm"])
        return self.add("transpose", [a], params, [(shape, self.dt(a))],
                        exact=self.all_exact([a]))

    def g_concat(self):
        a = self.pick(lambda v: len(self.shape(v)) >= 1 and self.dt(v) != "i1")
        if a is None:
            return None
        sa, dt = self.shape(a), self.dt(a)
        d = int(self.rng.integers(0, len(sa)))

        def fits(v):
            sb = self.shape(v)
            return v != a and self.dt(v) == dt and len(sb) == len(sa) and all(
                x == y for i, (x, y) in enumerate(zip(sa, sb)) if i != d)
        b = self.pick(fits)
        if b is None:
            b = self.input(tuple(int(self.rng.integers(1, 4)) if i == d else s
                                 for i, s in enumerate(sa)), dt)
        args = [a, b] if self.rng.random() < 0.5 else [b, a]
        shape = tuple(self.shape(args[0])[i] + self.shape(args[1])[i] if i == d else s
                      for i, s in enumerate(sa))
        return self.add("concat", args, {"dim": d}, [(shape, dt)], exact=self.all_exact(args))

    def g_expand(self):
        a = self.pick(lambda v: 1 in self.shape(v) and len(self.shape(v)) <= 3)
        if a is None:
            return None
        shape = tuple(int(self.rng.integers(2, self.max_dim + 2)) if s == 1 else s
                      for s in self.shape(a))
        if len(shape) < 3 and self.rng.random() < 0.3:
            shape = (2,) + shape
        return self.add("expand", [a], {"shape": shape}, [(shape, self.dt(a))],
                        exact=self.all_exact([a]))

    def g_index(self):
        a = self.pick(lambda v: len(self.shape(v)) >= 1 and min(self.shape(v)) >= 1
                      and self.dt(v) != "i1")
        if a is None:
            return None
        sa, dt = self.shape(a), self.dt(a)
        d = int(self.rng.integers(0, len(sa)))
        idt = str(self.rng.choice(["i32", "i64"]))
        kind = str(self.rng.choice(["gather", "index_select", "scatter_update"]))
        if kind == "gather":
            ishape = tuple(int(self.rng.integers(1, 5)) if i == d else
                           int(self.rng.integers(1, s + 1)) for i, s in enumerate(sa))
            idx = self.input(ishape, idt, 0, sa[d] - 1)
            return self.add("gather", [a, idx], {"dim": d}, [(ishape, dt)],
                            exact=self.all_exact([a]))
        if kind == "index_select":
            idx = self.input((int(self.rng.integers(1, 6)),), idt, 0, sa[d] - 1)
            shape = tuple(self.shape(idx)[0] if i == d else s for i, s in enumerate(sa))
            return self.add("index_select", [a, idx], {"dim": d}, [(shape, dt)],
                            exact=self.all_exact([a]))
        n = int(self.rng.integers(1, sa[d] + 1))
        idx = self.input((n,), idt)
        perm = self.rng.permutation(sa[d])[:n].astype(NP[idt])
        self.p.data[idx] = perm
        self.env[idx] = perm
        src = self.input(tuple(n if i == d else s for i, s in enumerate(sa)), dt)
        return self.add("scatter_update", [a, idx, src], {"dim": d}, [(sa, dt)],
                        exact=self.all_exact([a, src]))

    def g_topk(self):
        a = self.pick(lambda v: len(self.shape(v)) >= 1 and min(self.shape(v)) >= 1
                      and self.dt(v) != "i1" and v in self.p.exact)
        if a is None:
            return None
        sa = self.shape(a)
        if self.pto and self.tiles and self.tiles[-1] < sa[-1]:
            return None  # rows over several tiles merge with topk_merge: no PTO form
        d = int(self.rng.integers(0, len(sa))) if not self.pto else len(sa) - 1
        k = int(self.rng.integers(1, sa[d] + 1))
        shape = tuple(k if i == d else s for i, s in enumerate(sa))
        dim = d if self.rng.random() < 0.5 else d - len(sa)
        return self.add("topk", [a], {"k": k, "dim": dim, "largest": bool(self.rng.random() < 0.7)},
                        [(shape, self.dt(a)), (shape, "i32")], exact=True)

    def g_quant(self):
        a = self.pick(lambda v: self.dt(v) in FLOATS and len(self.shape(v)) >= 1
                      and min(self.shape(v)) >= 1)
        if a is None:
            return None
        sa = self.shape(a)
        q = self.add("quantize", [a], {}, [(sa, "i8"), (sa[:-1] + (1,), "f32")],
                     tol=(0, 1))
        if q is None or self.rng.random() < 0.5:
            return q
        return self.add("dequantize", q.outs, {}, [(sa, "f32")])

    def g_composite(self):
        a = self.pick(lambda v: self.dt(v) in FLOATS and len(self.shape(v)) >= 1
                      and min(self.shape(v)) >= 1)
        if a is None:
            return None
        sa, dt = self.shape(a), self.dt(a)
        kind = str(self.rng.choice(["softmax", "rms_norm", "layer_norm"]))
        x = wide(self.env[a])
        ms = np.mean(x * x, axis=-1)
        var = np.var(x, axis=-1)
        # Normalising rows that are nearly 0 (rms_norm) or nearly constant
        # (layer_norm) divides rounding errors by nearly 0.
        if kind == "rms_norm" and np.min(ms) < 0.05:
            return None
        if kind == "layer_norm" and (sa[-1] < 4 or np.min(var) < 0.1 * np.max(ms)):
            return None
        if kind == "softmax":
            d = int(self.rng.integers(-len(sa), len(sa))) if not self.pto else -1
            return self.add("softmax", [a], {"dim": d}, [(sa, dt)])
        g = self.input((sa[-1],), dt)
        if kind == "rms_norm":
            return self.add("rms_norm", [a, g], {"eps": 1e-6}, [(sa, dt)])
        if sa[-1] < 2:
            return None
        b = self.input((sa[-1],), dt)
        return self.add("layer_norm", [a, g, b], {"eps": 1e-5}, [(sa, dt)])

    def g_cast(self):
        a = self.pick(lambda v: self.dt(v) != "i1")
        if a is None:
            return None
        dt = self.dt(a)
        to = str(self.rng.choice([t for t in FLOATS + ("i32", "i8", "i16") if t != dt]))
        mode = "none"
        if dt in FLOATS and to in INTS:
            if a not in self.p.exact:
                return None
            mode = str(self.rng.choice(list(CAST_MODES)))
        return self.add("cast", [a], {"to": to, "mode": mode}, [(self.shape(a), to)],
                        exact=self.all_exact([a]))

    def g_loop(self):
        a = self.pick(lambda v: self.dt(v) in FLOATS and len(self.shape(v)) >= 2
                      and min(self.shape(v)) >= 1)
        if a is None:
            return None
        sa, dt = self.shape(a), self.dt(a)
        body = []
        for _ in range(int(self.rng.integers(1, 4))):
            c = self.rng.random()
            if c < 0.4:
                body.append(("unary", str(self.rng.choice(["exp", "tanh", "abs", "sigmoid", "neg"]))))
            elif c < 0.7:
                body.append(("scalar", (str(self.rng.choice(["add", "mul", "sub"])),
                                        float(self.rng.choice([0.5, 2.0, -1.0])))))
            elif c < 0.85:
                body.append(("center", None))
            else:
                body.append(("sum", None))
        shape = sa[:-1] + (1,) if any(op == "sum" for op, _ in body) else sa
        return self.add("loop", [a], {"body": body, "dt": dt}, [(shape, dt)])

    FAMILIES = ["unary"] * 5 + ["binary"] * 3 + ["scalar"] * 2 + [
        "compare", "where", "reduce", "reduce", "matmul", "view", "assemble", "reshape",
        "transpose", "concat", "expand", "index", "topk", "quant", "composite", "cast",
        "loop"]

    PTO_FAMILIES = ["unary"] * 5 + ["binary"] * 3 + ["scalar"] * 2 + [
        "reduce", "reduce", "matmul", "topk", "composite", "cast"]

    def run(self):
        self.input(self.base, self.main_dt)
        if self.rng.random() < 0.5:
            self.input(self.base, self.main_dt)
        fams = self.PTO_FAMILIES if self.pto else self.FAMILIES
        attempts = 0
        while len(self.p.nodes) < self.max_ops and attempts < self.max_ops * 20:
            attempts += 1
            fam = str(self.rng.choice(fams))
            getattr(self, "g_" + fam)()
        self.finish()
        return self.p

    def finish(self):
        p = self.p
        produced = [v for n in p.nodes if n.kind != "view" for v in n.outs]
        if not produced:
            a = p.inputs[0]
            n = self.add("scalar", [a], {"op": "add", "value": 1 if self.dt(a) in INTS else 0.5,
                                         "left": False, "operator": True},
                         [(self.shape(a), self.dt(a))], exact=True)
            produced = n.outs
        # Every value no op uses is a result, so that every op is checked.
        # (A view's value is not returned as it is: tile-expand cannot yet
        # return a view that another op also reads.)
        used = {a for n in p.nodes for a in n.args}
        rets = [v for v in produced if v not in used][-6:]
        p.returns = rets or [produced[-1]]
        prune(p)


def prune(p):
    """Drops ops that no returned value depends on, and unused parameters."""
    live = set(p.returns)
    keep = []
    for n in reversed(p.nodes):
        if any(o in live for o in n.outs):
            keep.append(n)
            live.update(n.args)
    p.nodes = keep[::-1]
    # Every result of a kept multi-result op stays declared (topk, quantize).
    p.inputs = [v for v in p.inputs if v in live]
    p.data = {v: p.data[v] for v in p.inputs}


# ------------------------------------------------------------ backends --

def np_input(p, v):
    x = p.data[v]
    return bf16_bits(x) if p.types[v][1] == "bf16" else x


def from_output(dt, x):
    x = np.asarray(x)
    if dt == "bf16":
        if x.dtype == np.uint16:
            return bf16_from_bits(x)
        return np.asarray(x, dtype=np.float32)
    return x


class Failure(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message


def make_kernel(p, tiles, workdir, jit_args=""):
    import pypto  # noqa: F401  (the kernel's source names it)
    src = "import pypto\n" + render_kernel(p, tiles)
    if jit_args:
        src = src.replace("@pypto.frontend.jit\n", f"@pypto.frontend.jit({jit_args})\n")
    # a real file, so that diagnostics show the kernel's lines
    path = os.path.join(workdir, "kernel.py")
    with open(path, "w") as f:
        f.write(src)
    ns = {"__name__": "difftest_kernel", "__file__": path}
    exec(compile(src, path, "exec"), ns)
    return ns["kernel"]


def run_python(p, tiles, workdir, opts, jit_args=""):
    kernel = make_kernel(p, tiles, workdir, jit_args)
    try:
        outs = kernel(*[np_input(p, v) for v in p.inputs])
    except Exception as e:  # noqa: BLE001 - any error is the finding
        raise Failure("error", f"{type(e).__name__}: {e}")
    finally:
        kernel.clear_cache()
    if not isinstance(outs, tuple):
        outs = (outs,)
    return [from_output(p.types[v][1], o) for v, o in zip(p.returns, outs)]


def traced_text(p, tiles, workdir):
    kernel = make_kernel(p, tiles, workdir)
    try:
        return kernel.traced_text(*[np_input(p, v) for v in p.inputs])
    except Exception as e:  # noqa: BLE001
        raise Failure("error", f"tracing: {type(e).__name__}: {e}")
    finally:
        kernel.clear_cache()


def pto_run_cmd(opts, pto, extra):
    return [opts.pto_run, pto, "--quiet"] + extra


def levels_tolerance(p):
    """The one tolerance a comparison between levels uses for a program:
    the loosest of its values (the levels differ by rounding and order of
    accumulation as the reference does); None when no single tolerance
    fits: an int8 quantization of inexact values may differ by more than
    one unit between levels, which a tolerance that still checks the float
    values cannot allow."""
    if any(p.types[v][1] in INTS and p.tol.get(v, (0, 0))[1] > 1 for v in p.types):
        return None
    return max([p.tolerance(v)[0] for v in p.types if p.types[v][1] in FLOATS],
               default=0.0)


def run_verify(p, tiles, workdir, opts):
    t = levels_tolerance(p)
    if t is None:
        opts.skipped += 1
        return None
    return run_python(p, tiles, workdir, opts, 'verify_options={"enable_pass_verify": '
                      f'True, "pass_verify_error_tol": [{t!r}, {t!r}]}}')


def run_pto(p, tiles, workdir, opts, pipeline=None, check_levels=False, platform=None):
    t = levels_tolerance(p) if check_levels else 0.0
    if t is None:
        opts.skipped += 1
        return None
    pto = os.path.join(workdir, "kernel.pto")
    with open(pto, "w") as f:
        f.write(traced_text(p, tiles, workdir))
    args = []
    for i, v in enumerate(p.inputs):
        path = os.path.join(workdir, f"in{i}.npy")
        np.save(path, np_input(p, v))
        args += ["--input", path]
    out_dir = os.path.join(workdir, "out")
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.unlink(os.path.join(out_dir, f))
    if pipeline:
        args.append(f"--pass-pipeline={pipeline}")
    if platform:
        args += ["--platform", platform]
    if check_levels:
        args += ["--check-levels", f"--rtol={t}", f"--atol={t}"]
    else:
        args += ["--out-dir", out_dir]
    cmd = pto_run_cmd(opts, pto, args)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if r.returncode != 0:
        kind = "crash" if r.returncode < 0 or r.returncode > 1 else (
            "level-mismatch" if check_levels and "differ" in r.stderr else "error")
        raise Failure(kind, f"pto-run exit {r.returncode}: {r.stderr.strip()[-2000:]}")
    if check_levels:
        return None
    return [from_output(p.types[v][1], np.load(os.path.join(out_dir, f"out{i}.npy")))
            for i, v in enumerate(p.returns)]


def run_pto_platforms(p, tiles, workdir, opts):
    """--check-levels through the PTO level, on each platform."""
    for platform in ("a2a3", "a3"):
        run_pto(p, tiles, workdir, opts, PTO_PIPELINE.format(platform), True, platform)


TILE_PIPELINE = "decompose,canonicalize,cse,tile-expand"
# --check-levels goes on to the Block level.
BLOCK_PIPELINE = TILE_PIPELINE + ",cv-partition"
# ... and through to planned, synchronised PTO kernels on a platform.
PTO_PIPELINE = (BLOCK_PIPELINE + ",lower-to-pto{{platform={0}}},memory-plan{{platform={0}}},"
                "insert-sync{{platform={0}}}")

# name -> function(program, tiles, workdir, options) returning the outputs
# (or None when the back end checks itself, as --check-levels does).
BACKENDS = {
    "python": run_python,
    "pto-run": lambda p, t, w, o: run_pto(p, t, w, o),
    "pto-run-tile": lambda p, t, w, o: run_pto(p, t, w, o, TILE_PIPELINE),
    "check-levels": lambda p, t, w, o: run_pto(p, t, w, o, BLOCK_PIPELINE, True),
    "check-levels-pto": lambda p, t, w, o: run_pto_platforms(p, t, w, o),
    "python-verify": run_verify,
}
DEFAULT_BACKENDS = "python,pto-run,pto-run-tile,check-levels"


# ---------------------------------------------------------- comparison --

def compare(p, v, got, want):
    """None when `got` matches the reference value `want`, else why not."""
    shape, dt = p.types[v]
    got = np.asarray(got)
    if got.shape != shape:
        return f"shape {got.shape}, expected {shape}"
    if dt in FLOATS:
        g, w = got.astype(np.float64), want.astype(np.float64)
        if v in p.exact and v not in p.tol:
            bad = ~((g == w) | (np.isnan(g) & np.isnan(w)))
            how = "bit for bit"
        else:
            rtol, atol = p.tol.get(v, TOL[dt])
            scale = max(1.0, float(np.max(np.abs(w)))) if w.size else 1.0
            bad = ~(np.abs(g - w) <= atol * scale + rtol * np.abs(w))
            how = f"rtol={rtol} atol={atol}*{scale:.3g}"
    else:
        g, w = got.astype(np.int64), want.astype(np.int64)
        rtol, atol = p.tol.get(v, (0, 0))
        bad = np.abs(g - w) > atol
        how = "exactly" if atol == 0 else f"within {atol}"
    if not bad.any():
        return None
    i = tuple(int(x) for x in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ ({how}); first at {i}: "
            f"got {g[i]!r}, expected {w[i]!r}")


def check(p, tiles, backend, opts):
    """Runs one back end; raises Failure on an error or a mismatch."""
    env = p.evaluate()
    with tempfile.TemporaryDirectory(prefix="difftest_") as wd:
        try:
            outs = BACKENDS[backend](p, tiles, wd, opts)
        except Failure:
            raise
        except subprocess.TimeoutExpired:
            raise Failure("timeout", "pto-run took more than 120 s")
    if outs is None:
        return
    for i, (v, o) in enumerate(zip(p.returns, outs)):
        why = compare(p, v, o, env[v])
        if why:
            raise Failure("mismatch", f"result #{i} ({name(v)}: {p.types[v][1]}"
                                      f"{list(p.types[v][0])}): {why}")


# ----------------------------------------------------------- shrinking --

def still_fails(p, tiles, backend, kind, opts):
    try:
        check(p, tiles, backend, opts)
    except Failure as f:
        return f.kind == kind
    except Exception:  # noqa: BLE001 - a broken candidate is not the bug
        return False
    return False


def cut(p, v):
    """p with value v made a parameter holding its reference value."""
    q = p.copy()
    env = p.evaluate()
    w = q.new_value(*q.types[v])
    q.data[w] = env[v]
    q.inputs.append(w)
    q.exact.add(w)
    for n in q.nodes:
        n.args = [w if a == v else a for a in n.args]
    q.returns = [w if r == v else r for r in q.returns]
    prune(q)
    return q


def shrink(p, tiles, backend, kind, opts, seed, budget=60.0):
    start = time.time()

    def ok(q, t=tiles):
        return time.time() - start < budget and still_fails(q, t, backend, kind, opts)

    # Smaller shapes: the same seed with fewer ops and smaller dims.
    for max_ops in (1, 2, 4):
        for max_dim in (2, 3, 4):
            g = Gen(seed, max_ops, max_dim)
            q = g.run()
            if q.num_ops() < p.num_ops() and ok(q, g.tiles):
                p, tiles = q, g.tiles
                break
        else:
            continue
        break
    changed = True
    while changed and time.time() - start < budget:
        changed = False
        # One result, as early in the program as still fails.
        for v in [o for n in p.nodes for o in n.outs]:
            if p.returns == [v]:
                break
            q = p.copy()
            q.returns = [v]
            prune(q)
            if q.num_ops() <= p.num_ops() and ok(q):
                p, changed = q, True
                break
        if changed:
            continue
        # An op's operand made a parameter holding its value.
        for n in list(p.nodes):
            for a in n.args:
                if a in p.inputs:
                    continue
                q = cut(p, a)
                if q.num_ops() < p.num_ops() and ok(q):
                    p, changed = q, True
                    break
            if changed:
                break
        if changed:
            continue
        # Shorter loop bodies.
        for i, n in enumerate(p.nodes):
            if n.kind != "loop" or len(n.params["body"]) < 2:
                continue
            for j in range(len(n.params["body"])):
                body = n.params["body"][:j] + n.params["body"][j + 1:]
                if any(op == "sum" for op, _ in body) != any(
                        op == "sum" for op, _ in n.params["body"]):
                    continue
                q = p.copy()
                q.nodes[i].params = dict(n.params, body=body)
                if ok(q):
                    p, changed = q, True
                    break
            if changed:
                break
        if changed:
            continue
        # Smaller parameters (ops whose attributes no longer fit fail to
        # evaluate, and the candidate is dropped).
        for v in p.inputs:
            for d, size in enumerate(p.types[v][0]):
                for new in sorted({1, size // 2}):
                    if new >= size or new < 1:
                        continue
                    q = p.copy()
                    q.data[v] = np.take(q.data[v], np.arange(new), axis=d)
                    q.types[v] = (q.data[v].shape, q.types[v][1])
                    try:
                        env = q.evaluate(retype=True)
                    except Exception:  # noqa: BLE001 - shapes no longer fit
                        continue
                    if any(r.size == 0 for r in env.values()):
                        continue
                    if ok(q):
                        p, changed = q, True
                        break
                if changed:
                    break
            if changed:
                break
        if tiles and not changed:
            for t in ([], [1] * 4):
                if t != tiles and ok(p, t):
                    tiles, changed = t, True
                    break
    return p, tiles


def arr_lit(x, dt):
    if dt == "bf16":
        return f"numpy.array({bf16_bits(x).tolist()!r}, dtype=numpy.uint16)"
    return f"numpy.array({x.tolist()!r}, dtype=numpy.{np.dtype(NP[dt]).name})"


def pto_run_args(p, backend):
    """pto-run's options for a back end, with the inputs as in0.npy, ..."""
    args = " ".join(f"--input in{i}.npy" for i in range(len(p.inputs)))
    if backend == "pto-run-tile":
        args += f" --pass-pipeline={TILE_PIPELINE}"
    if backend == "check-levels":
        args += f" --pass-pipeline={BLOCK_PIPELINE} --check-levels"
    if backend == "check-levels-pto":
        args += f" '--pass-pipeline={PTO_PIPELINE.format('a2a3')}' --check-levels --platform a2a3"
    return args


def repro_file(p, tiles, backend, failure):
    env = p.evaluate()
    lines = [
        "# A reproducer from test/Random/difftest.py, shrunk.",
        f"# back end: {backend}; {failure.kind}: {failure.message.splitlines()[0][:300]}",
        "# run: PYTHONPATH=python python3 THIS_FILE (with libpto.so found as",
        "# docs/python.md says); it raises on the failure. With --save-inputs it",
        "# writes kernel.pto and in0.npy, ... for pto-run instead:",
        f"#   pto-run kernel.pto {pto_run_args(p, backend)}",
        "import sys",
        "import numpy",
        "import pypto", "",
        render_kernel(p, tiles).rstrip(), "",
        "args = ["]
    for v in p.inputs:
        lines.append(f"    {arr_lit(p.data[v], p.types[v][1])},")
    lines += ["]", "expected = ["]
    for v in p.returns:
        lines.append(f"    {arr_lit(env[v], p.types[v][1])},")
    lines += [
        "]",
        "if sys.argv[1:] == ['--save-inputs']:",
        "    # the inputs as in0.npy, ... for pto-run on the kernel's traced text",
        "    for i, a in enumerate(args):",
        "        numpy.save(f'in{i}.npy', a)",
        "    with open('kernel.pto', 'w') as f:",
        "        f.write(kernel.traced_text(*args))",
        "    sys.exit(0)",
        "# (rtol, atol) per result; None: bit for bit", "tolerances = ["]
    for v in p.returns:
        dt = p.types[v][1]
        if v in p.tol:
            t = p.tol[v]
        elif v in p.exact or dt not in FLOATS:
            t = None
        else:
            t = TOL[dt]
        lines.append(f"    {t!r},")
    lines += [
        "]",
        "outs = kernel(*args)",
        "outs = outs if isinstance(outs, tuple) else (outs,)",
        "for i, (got, want, tol) in enumerate(zip(outs, expected, tolerances)):",
        "    got, want = numpy.asarray(got), numpy.asarray(want)",
        "    if want.dtype == numpy.uint16:  # bf16 bit patterns",
        "        got = (got.astype(numpy.uint32) << 16).view(numpy.float32)",
        "        want = (want.astype(numpy.uint32) << 16).view(numpy.float32)",
        "    assert got.shape == want.shape, (i, got.shape, want.shape)",
        "    g, w = got.astype(numpy.float64), want.astype(numpy.float64)",
        "    if tol is None:",
        "        ok = (g == w) | (numpy.isnan(g) & numpy.isnan(w))",
        "    else:",
        "        scale = max(1.0, float(numpy.max(numpy.abs(w)))) if w.size else 1.0",
        "        ok = numpy.abs(g - w) <= tol[1] * scale + tol[0] * numpy.abs(w)",
        "    assert ok.all(), f'result #{i}: got\\n{got}\\nexpected\\n{want}'",
        "print('ok')",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------- driver --

def run_case(seed, opts, backends):
    g = Gen(seed, opts.max_ops, opts.max_dim)
    p = g.run()
    for b in backends:
        try:
            check(p, g.tiles, b, opts)
        except Failure as f:
            return p, g.tiles, b, f
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backends", default=DEFAULT_BACKENDS)
    ap.add_argument("--pto-run", default="pto-run")
    ap.add_argument("--max-ops", type=int, default=6)
    ap.add_argument("--max-dim", type=int, default=8)
    ap.add_argument("--repro-dir", default=None)
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--keep-going", action="store_true",
                    help="run every case even after a failure")
    ap.add_argument("--inject-bug", metavar="OP", default=None,
                    help="self-test: perturb the reference of unary OP by 1%% "
                         "and exit 0 only if a case fails and shrinks to <= 3 ops")
    ap.add_argument("--pto", action="store_true",
                    help="generate only programs lower-to-pto takes")
    ap.add_argument("-v", "--verbose", action="store_true")
    opts = ap.parse_args(argv)
    Gen.pto = opts.pto
    opts.skipped = 0
    if opts.inject_bug:
        if opts.inject_bug not in UNARY_NP:
            ap.error(f"--inject-bug takes a unary op: {', '.join(UNARY_NP)}")
        right = UNARY_NP[opts.inject_bug]
        UNARY_NP[opts.inject_bug] = lambda x: right(x) * 1.01
    backends = [b for b in opts.backends.split(",") if b]
    for b in backends:
        if b not in BACKENDS:
            ap.error(f"unknown back end {b!r}; known: {', '.join(BACKENDS)}")
    t0 = time.time()
    failures = 0
    for seed in range(opts.seed, opts.seed + opts.cases):
        try:
            res = run_case(seed, opts, backends)
        except Exception:  # noqa: BLE001 - a bug of the tester itself
            print(f"difftest: seed {seed}: internal error", file=sys.stderr)
            traceback.print_exc()
            return 2
        if opts.verbose:
            p = Gen(seed, opts.max_ops, opts.max_dim).run()
            print(f"seed {seed}: {p.num_ops()} ops: "
                  f"{', '.join(n.params.get('op', n.kind) for n in p.nodes)}"
                  + (" FAIL" if res else ""))
        if res is None:
            continue
        failures += 1
        p, tiles, backend, f = res
        print(f"difftest: seed {seed}: back end {backend}: {f.kind}: {f.message}")
        if not opts.no_shrink:
            p, tiles = shrink(p, tiles, backend, f.kind, opts, seed)
            try:
                check(p, tiles, backend, opts)
            except Failure as f2:
                f = f2
        text = repro_file(p, tiles, backend, f)
        print(f"---- reproducer ({p.num_ops()} ops) ----\n{text}----")
        if backend.startswith("pto-run") or backend.startswith("check-levels"):
            with tempfile.TemporaryDirectory(prefix="difftest_") as wd:
                try:
                    print("---- kernel.pto ----\n" + traced_text(p, tiles, wd) + "----")
                except Failure:
                    pass
        if opts.repro_dir:
            os.makedirs(opts.repro_dir, exist_ok=True)
            with open(os.path.join(opts.repro_dir, f"repro_{seed}.py"), "w") as fh:
                fh.write(text)
        if not opts.keep_going:
            break
    dt = time.time() - t0
    print(f"difftest: {opts.cases if opts.keep_going or not failures else seed - opts.seed + 1} "
          f"cases from seed {opts.seed}, back ends {','.join(backends)}: "
          f"{failures} failing, {dt:.1f} s"
          + (f" ({opts.skipped} level comparisons not applicable)" if opts.skipped else ""))
    if opts.inject_bug:
        found = failures > 0 and p.num_ops() <= 3
        print(f"difftest: self-test: the injected error in {opts.inject_bug} was "
              + (f"found and shrunk to {p.num_ops()} op(s)" if found else "not found or not shrunk"))
        return 0 if found else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
