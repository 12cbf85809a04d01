"""numpy as the independent oracle of the reference interpreter.

usage: oracle.py SUITE WORKDIR

Each suite builds small functions (one pypto op, or a few), makes inputs
with numpy (random values plus the special ones: NaN, infinities, signed
zeros, rounding ties, index edges), runs them through `pto-run`, and
compares every output with a reference computed here from the docs'
definitions: in float64 (or Python integers), rounded once to the output
dtype. Results that the definitions make exact (arithmetic, comparisons,
casts, data movement, integer ops) must match bit for bit; transcendental
functions, reductions and products may differ by a few units in the last
place of the output dtype (see docs/numerics.md).

It prints "<suite>: N checks passed" and exits 0, or lists the failures and
exits 1.

PTO_ORACLE_SAMPLE=N (default 1) runs about one in N of the cases that run a
program, chosen by a hash of the case's name (so the choice does not follow
the loops' structure and is the same in every run); the checks of error
messages all run. The sanitizer builds' runs use it: there the cases check
memory safety, which a sample of the shapes and dtypes covers, and each
process costs many times what it does in an optimised build.
"""
import math
import os
import subprocess
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Npy", "Inputs"))
import npytest  # noqa: E402  (exact roundings shared with the .npy tests)

WORK = None
FAILURES = []
PASSED = [0]
SAMPLE = max(1, int(os.environ.get("PTO_ORACLE_SAMPLE", "1") or "1"))


def sampled(name):
    """Whether the case `name` runs under PTO_ORACLE_SAMPLE."""
    return SAMPLE == 1 or zlib.crc32(name.encode()) % SAMPLE == 0

FLOATS = ["f32", "f16", "bf16"]
INTS = ["i8", "i16", "i32", "i64"]
NUMERIC = FLOATS + INTS
STORAGE = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16,
           "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
           "i1": np.bool_}
EPS = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}
TINY = {"f32": 2.0 ** -126, "f16": 2.0 ** -14, "bf16": 2.0 ** -126}


# ---------------------------------------------------------------------------
# Values: float64 / int64 arrays tagged with a dtype
# ---------------------------------------------------------------------------

def round_to(x, dt):
    """float64 values rounded once (to nearest even) to float dtype dt."""
    x = np.asarray(x, dtype=np.float64)
    if dt == "f64":
        return x.copy()
    p, emin, emax = npytest.FLOAT_FORMAT[dt]
    out = x.copy()
    fin = np.isfinite(x) & (x != 0)
    v = x[fin]
    _, e = np.frexp(v)                      # |v| = m * 2^e, m in [0.5, 1)
    q = np.maximum(e - 1, emin) - (p - 1)   # exponent of the last digit
    r = np.ldexp(np.rint(np.ldexp(v, -q)), q)
    maxv = (2.0 - 2.0 ** (1 - p)) * 2.0 ** emax
    r = np.where(np.abs(r) > maxv, np.copysign(np.inf, r), r)
    out[fin] = r
    return out


def wrap(x, dt):
    """Python ints / int64 values wrapped to integer dtype dt."""
    if dt == "i1":
        return (np.asarray(x) != 0).astype(np.int64)
    bits = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}[dt]
    v = np.array([int(t) for t in np.ravel(x)], dtype=object)
    v = np.array([((int(t) + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))
                  for t in v], dtype=np.int64).reshape(np.shape(x))
    return v


def fit(x, dt):
    """Reference values stored as dt: rounded floats, wrapped integers."""
    if dt in FLOATS or dt == "f64":
        return round_to(x, dt)
    return wrap(x, dt)


def save(path, vals, dt):
    vals = np.asarray(vals)
    if dt == "bf16":
        f = round_to(vals, "bf16").astype(np.float32)
        arr = (f.view(np.uint32) >> 16).astype(np.uint16)
    elif dt == "i1":
        arr = vals.astype(np.bool_)
    else:
        arr = vals.astype(STORAGE[dt])
    np.save(path, arr)


def load(path, dt):
    a = np.load(path)
    if dt == "bf16":
        assert a.dtype == np.uint16, (path, a.dtype)
        f = (a.reshape(-1).astype(np.uint32) << 16).view(np.float32)
        return f.astype(np.float64).reshape(a.shape)
    want = np.dtype(STORAGE[dt])
    assert a.dtype == want, "%s: dtype %s, expected %s" % (path, a.dtype, want)
    return a.astype(np.float64) if dt in FLOATS else a.astype(np.int64)


RNG = np.random.default_rng(20261122)


def rand(shape, dt, lo=-2.0, hi=2.0, special=False):
    """Random values representable in dt; floats may include specials."""
    if dt in FLOATS:
        v = round_to(RNG.uniform(lo, hi, size=shape), dt)
        if special and v.size >= 8:
            flat = v.reshape(-1)
            sp = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -1.5, 2.5]
            idx = RNG.choice(flat.size, size=len(sp), replace=False)
            flat[idx] = sp
        return v
    if dt == "i1":
        return RNG.integers(0, 2, size=shape).astype(np.int64)
    lo_i, hi_i = {"i8": (-128, 127), "i16": (-300, 300), "i32": (-1000, 1000),
                  "i64": (-1000, 1000)}[dt]
    v = RNG.integers(lo_i, hi_i + 1, size=shape).astype(np.int64)
    if special and v.size >= 4:
        flat = v.reshape(-1)
        info = npytest.INT_RANGE[dt]
        flat[:3] = [info[0], info[1], 0]
    return v


# ---------------------------------------------------------------------------
# IR and running pto-run
# ---------------------------------------------------------------------------

def ttype(shape, dt):
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return "tensor<%s%s>" % (dims, dt)


class Arg:
    """A function argument: a tensor (values + dtype) or a scalar."""

    def __init__(self, vals, dt, irtype=None, scalar=False):
        self.vals, self.dt, self.scalar = vals, dt, scalar
        self.irtype = irtype or (dt if scalar else ttype(np.shape(vals), dt))


def T(vals, dt, dyn=()):
    """A tensor argument; dims listed in `dyn` are `?` in its type."""
    shape = [None if i in dyn else d for i, d in enumerate(np.shape(vals))]
    return Arg(np.asarray(vals), dt, ttype(shape, dt))


def S(value, dt):
    return Arg(value, dt, scalar=True)


def scalar_text(v, dt):
    if dt == "i1":
        return "true" if v else "false"
    if dt in FLOATS or dt == "f64":
        return repr(float(v))
    return str(int(v))


def prepare(name, args, body, results, rtypes):
    """Writes the function and its inputs under WORK/name; returns the
    directory, the IR text and the pto-run command that runs it."""
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    sig = ", ".join("%%a%d: %s" % (i, a.irtype) for i, a in enumerate(args))
    rts = ", ".join(rtypes)
    text = "func.func @f(%s) -> (%s) {\n" % (sig, rts)
    text += "".join("  %s\n" % line for line in body)
    text += "  func.return %s : %s\n}\n" % (", ".join(results), rts)
    src = os.path.join(d, "f.pto")
    with open(src, "w") as f:
        f.write(text)
    cmd = ["pto-run", src, "--quiet"]
    for i, a in enumerate(args):
        if a.scalar:
            cmd += ["--input", "%d=%s" % (i, scalar_text(a.vals, a.dt))]
        else:
            p = os.path.join(d, "in%d.npy" % i)
            save(p, a.vals, a.dt)
            cmd += ["--input", "%d=%s" % (i, p)]
    return d, text, cmd


def run(name, args, body, results, expect, tol="exact", pipeline=None):
    """Runs `body` (lines using %a0.. and ending in results %r0..) on args
    and compares output i with expect[i] = (values, dtype)."""
    if not sampled(name):
        return
    d, text, cmd = prepare(name, args, body, results, results_types(expect))
    cmd += ["--out-dir", d]
    if pipeline:
        cmd.append("--pass-pipeline=" + pipeline)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        FAILURES.append("%s: pto-run failed:\n%s\n%s" % (name, r.stderr, text))
        return
    for i, e in enumerate(expect):
        want, dt = e[0], e[1]
        got = load(os.path.join(d, "out%d.npy" % i), dt)
        compare(name, i, got, np.asarray(want), dt, tol, text)


def results_types(expect):
    """The function's result types: each expectation is (values, dtype) or
    (values, dtype, IR type) when the type has dynamic dims."""
    return [e[2] if len(e) > 2 else ttype(np.shape(e[0]), e[1]) for e in expect]


@np.errstate(all="ignore")
def compare(name, i, got, want, dt, tol, text):
    if got.shape != want.shape:
        FAILURES.append("%s: out%d has shape %s, expected %s\n%s"
                        % (name, i, got.shape, want.shape, text))
        return
    want = fit(want, dt) if dt != "i1" else (want != 0).astype(np.int64)
    if dt in FLOATS:
        both_nan = np.isnan(got) & np.isnan(want)
        same = (got == want) | both_nan
        if tol != "exact":
            # `ulps` units of the last place, or (ulps, floor): no scale
            # below `floor` (for results of cancellation)
            ulps, floor = tol if isinstance(tol, tuple) else (tol, 0.0)
            scale = np.maximum(np.abs(want), max(TINY[dt] / EPS[dt] * 16, floor))
            finite = np.isfinite(got) & np.isfinite(want)
            near = finite & (np.abs(got - want) <= ulps * EPS[dt] * scale)
            same |= near
        bad = ~same
    else:
        bad = got != want
    if bad.any():
        idx = np.argwhere(bad)[:4]
        rows = ["  at %s: got %r, expected %r" % (tuple(int(t) for t in j),
                                                 got[tuple(j)], want[tuple(j)])
                for j in idx]
        FAILURES.append("%s: out%d: %d of %d elements differ (%s)\n%s\n%s"
                        % (name, i, int(bad.sum()), bad.size,
                           "exact" if tol == "exact" else "%s ulps" % tol,
                           "\n".join(rows), text))
    else:
        PASSED[0] += 1


def expect_failure(name, args, body, results, rtypes, message):
    """The run must fail with `message` in its diagnostics (exit 1)."""
    _, _, cmd = prepare(name, args, body, results, rtypes)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 1 or message not in r.stderr:
        FAILURES.append("%s: expected exit 1 with %r, got exit %d:\n%s"
                        % (name, message, r.returncode, r.stderr))
    else:
        PASSED[0] += 1


# ---------------------------------------------------------------------------
# Reference definitions (docs/dialects/pypto.md), in float64 / Python ints
# ---------------------------------------------------------------------------

def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


UNARY = {
    "abs": np.abs, "neg": np.negative, "exp": np.exp, "log": np.log,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "reciprocal": lambda x: 1.0 / x,
    "relu": lambda x: np.where(np.isnan(x), x, np.where(x < 0, 0.0, x)),
    "sigmoid": sigmoid, "tanh": np.tanh, "silu": lambda x: x * sigmoid(x),
    "gelu": lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0))),
    "gelu_tanh": lambda x: 0.5 * x * (1.0 + np.tanh(
        math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    "sin": np.sin, "cos": np.cos, "floor": np.floor, "ceil": np.ceil,
    "round": np.rint, "erf": erf,
    "log1p": np.log1p, "expm1": np.expm1, "sign": np.sign,
    "hardsigmoid": lambda x: np.clip(x + 3.0, 0.0, 6.0) / 6.0,
    "leaky_relu": lambda x: np.where(x < 0, 0.01 * x, x),
    "leaky_relu_02": lambda x: np.where(x < 0, 0.2 * x, x),
    "clip": lambda x: np.clip(x, -1.5, 0.5),
    "clip_min": lambda x: np.maximum(x, -1.0),
    "trunc": np.trunc, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "erfc": lambda x: np.vectorize(
        math.erfc, otypes=[np.float64])(x), "cbrt": np.cbrt, "exp2": np.exp2,
    "log2": np.log2, "log10": np.log10,
}
# Input ranges other than [-3, 3]: the functions' domains, mostly.
UNARY_DOMAIN = {"log": (0.01, 4.0), "sqrt": (0.01, 4.0), "rsqrt": (0.01, 4.0),
                "log2": (0.01, 4.0), "log10": (0.01, 4.0), "asin": (-1.0, 1.0),
                "acos": (-1.0, 1.0), "atanh": (-0.99, 0.99), "acosh": (1.0, 4.0),
                "erfc": (-3.0, 9.0)}
# Test names that run an op with attributes: (mnemonic, attribute text).
UNARY_VARIANT = {
    "gelu_tanh": ("gelu", ' {approximate = "tanh"}'),
    "leaky_relu_02": ("leaky_relu", " {slope = 0.2 : f64}"),
    "clip": ("clip", " {max = 0.5 : f64, min = -1.5 : f64}"),
    "clip_min": ("clip", " {min = -1 : i64}"),
}
UNARY_INT = {"abs": np.abs, "neg": np.negative, "relu": lambda v: np.maximum(v, 0),
             "sign": np.sign, "trunc": lambda v: v}
# Ops whose float result is one correctly rounded operation (or exact):
# the reference computes the same double expression the kernel does.
EXACT_UNARY = {"abs", "neg", "sqrt", "reciprocal", "relu", "floor", "ceil",
               "round", "rsqrt", "sign", "hardsigmoid", "leaky_relu",
               "leaky_relu_02", "clip", "clip_min", "trunc"}
# The ops that come from one row of include/pto/UnaryOps.def only, run at
# the Tile level too (tile-expand with 2x4 vec tiles, edge tiles included).
TILE_LEVEL_UNARY = ["log1p", "expm1", "sign", "hardsigmoid", "leaky_relu",
                    "leaky_relu_02", "clip", "clip_min", "trunc", "tan", "sinh", "cosh",
                    "asin", "acos", "atan", "asinh", "acosh", "atanh", "erfc", "cbrt",
                    "exp2", "log2", "log10"]


def int_div(a, b):
    """Toward zero; x / 0 = 0 (the store wraps INT_MIN / -1)."""
    out = np.zeros(np.broadcast(a, b).shape, dtype=object)
    for idx in np.ndindex(out.shape):
        x, y = int(np.broadcast_to(a, out.shape)[idx]), \
            int(np.broadcast_to(b, out.shape)[idx])
        out[idx] = 0 if y == 0 else (abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1)
    return out


def nan_max(a, b):
    return np.where(np.isnan(a) | np.isnan(b), np.nan, np.maximum(a, b))


def nan_min(a, b):
    return np.where(np.isnan(a) | np.isnan(b), np.nan, np.minimum(a, b))


BINARY_F = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
            "div": np.divide, "maximum": nan_max, "minimum": nan_min,
            "pow": np.power, "atan2": np.arctan2}
BINARY_I = {"add": lambda a, b: a.astype(object) + b.astype(object),
            "sub": lambda a, b: a.astype(object) - b.astype(object),
            "mul": lambda a, b: a.astype(object) * b.astype(object),
            "div": int_div, "maximum": np.maximum, "minimum": np.minimum}
SCALAR_OPS = {"adds": "add", "subs": "sub", "muls": "mul", "divs": "div",
              "maxs": "maximum", "mins": "minimum"}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less,
           "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


# ---------------------------------------------------------------------------
# Suites
# ---------------------------------------------------------------------------

SHAPES = [(4, 8), (3, 1, 5), (1,), (17,), (2, 3, 4, 5)]


def suite_unary():
    for op in UNARY:
        mnemonic, attr = UNARY_VARIANT.get(op, (op, ""))
        dts = NUMERIC if op in UNARY_INT else FLOATS
        for dt in dts:
            for shape in SHAPES[:3] if dt in INTS else SHAPES:
                lo, hi = UNARY_DOMAIN.get(op, (-3.0, 3.0))
                x = rand(shape, dt, lo, hi, special=dt in FLOATS)
                if dt in INTS:  # Python ints; the store wraps
                    want = UNARY_INT[op](x.astype(object))
                else:
                    with np.errstate(all="ignore"):
                        want = UNARY[op](x)
                tol = "exact" if op in EXACT_UNARY or dt in INTS else 2
                levels = [None, "tile-expand"] if op in TILE_LEVEL_UNARY else [None]
                for pipe in levels:
                    tiling = " {vec_tile = [2, 4]}" if pipe and len(shape) > 1 else ""
                    text = attr[:-1] + ", vec_tile = [2, 4]}" if tiling and attr else attr or tiling
                    run("unary-%s-%s-%s-%s" % (op, dt, "x".join(map(str, shape)), pipe),
                        [T(x, dt)],
                        ["%%r0 = pypto.%s %%a0%s : %s" % (mnemonic, text, ttype(shape, dt))],
                        ["%r0"], [(want, dt)], tol, pipeline=pipe)


def cast_ref(x, src, dst, mode, sat):
    """pypto.cast of the values x (already exact in src): numerics.md's
    conversions, from the exact reference roundings of the .npy tests."""
    flat = []
    for v in np.ravel(x):
        v = float(v) if src in FLOATS else int(v)
        if dst == "i1":
            flat.append(int(v != 0))
        elif dst in FLOATS:
            if src in FLOATS:
                flat.append(npytest.float_ref(v, dst, mode, sat))
            else:
                flat.append(npytest.round_int_to_float(v < 0, abs(v), 0, dst,
                                                       mode, sat))
        elif src in FLOATS:
            t = v if math.isnan(v) or math.isinf(v) else npytest.int_round(v, mode)
            flat.append(npytest.int_ref(t, dst, sat))
        else:
            flat.append(npytest.int_ref(v, dst, sat))
    out = np.array(flat, dtype=np.float64 if dst in FLOATS else np.int64)
    return out.reshape(np.shape(x))


def suite_cast():
    all_dt = FLOATS + INTS + ["i1"]
    modes = ["rint", "round", "floor", "ceil", "trunc"]
    for src in all_dt:
        for dst in all_dt:
            if src == dst:
                continue
            for mode in modes if (src in FLOATS or dst in FLOATS) else ["rint"]:
                for sat in (False, True):
                    if src in FLOATS:
                        x = rand((6, 7), src, -300.0, 300.0, special=True)
                        x.reshape(-1)[8:14] = round_to(
                            [0.5, -2.5, 1e10, -1e10, 65519.0, 70000.0], src)
                    else:
                        x = rand((6, 7), src, special=True)
                    want = cast_ref(x, src, dst, mode, sat)
                    attrs = ' {mode = "%s", satmode = "%s"}' % (
                        mode, "on" if sat else "off")
                    run("cast-%s-%s-%s-%s" % (src, dst, mode, "sat" if sat else "wrap"),
                        [T(x, src)],
                        ["%%r0 = pypto.cast %%a0%s : %s -> %s"
                         % (attrs, ttype(x.shape, src), ttype(x.shape, dst))],
                        ["%r0"], [(want, dst)])
    # without attributes: rint, and wrap (not numpy's astype, which
    # truncates)
    x = rand((4, 5), "f32", -300.0, 300.0, special=True)
    run("cast-default-attrs", [T(x, "f32")],
        ["%r0 = pypto.cast %a0 : tensor<4x5xf32> -> tensor<4x5xi8>"],
        ["%r0"], [(cast_ref(x, "f32", "i8", "rint", False), "i8")])


BCAST = [((4, 8), (4, 8)), ((4, 1), (1, 8)), ((2, 3, 4), (4,)), ((1,), (5,)),
         ((3, 1, 5), (3, 4, 1)), ((7,), (1,))]


def binary_want(op, a, b, dt):
    if dt in FLOATS:
        with np.errstate(all="ignore"):
            return BINARY_F[op](a, b)
    return BINARY_I[op](a, b)


def suite_binary():
    for op in BINARY_F:
        for dt in FLOATS if op in ("pow", "atan2") else NUMERIC:
            for sa, sb in BCAST:
                lo = 0.1 if op == "pow" else -4.0
                a = rand(sa, dt, lo, 4.0, special=dt in FLOATS and op != "pow")
                b = rand(sb, dt, -3.0 if op != "pow" else -2.0, 3.0)
                if dt in INTS and op == "div":
                    b.reshape(-1)[0] = 0
                    if a.size > 1:
                        a.reshape(-1)[1] = npytest.INT_RANGE[dt][0]
                        if b.size > 1:
                            b.reshape(-1)[1] = -1
                want = binary_want(op, a, b, dt)
                out = np.broadcast_shapes(sa, sb)
                types = "%s, %s -> %s" % (ttype(sa, dt), ttype(sb, dt), ttype(out, dt))
                run("binary-%s-%s-%s-%s" % (op, dt, "x".join(map(str, sa)),
                                            "x".join(map(str, sb))),
                    [T(a, dt), T(b, dt)],
                    ["%%r0 = pypto.%s %%a0, %%a1 : %s" % (op, types)],
                    ["%r0"], [(want, dt)], 2 if op in ("pow", "atan2") else "exact")
    for op, base in SCALAR_OPS.items():
        for dt in NUMERIC:
            x = rand((3, 5), dt, special=dt in FLOATS)
            for s in ([0.5, -2.25] if dt in FLOATS else [3, -7, 0]):
                want = binary_want(base, x, np.array(s, dtype=np.float64 if dt in FLOATS else np.int64), dt)
                run("scalar-%s-%s-%s" % (op, dt, s), [T(x, dt), S(s, dt)],
                    ["%%r0 = pypto.%s %%a0, %%a1 : %s, %s" % (op, ttype(x.shape, dt), dt)],
                    ["%r0"], [(want, dt)])


BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
           "bitwise_xor": np.bitwise_xor, "bitwise_left_shift": np.left_shift,
           "bitwise_right_shift": np.right_shift}


def suite_bitwise():
    """The integer bitwise ops, broadcasting, at the Tensor level and
    through tile-expand; shift counts in [0, width)."""
    for op, fn in BITWISE.items():
        for dt in INTS:
            for sa, sb in BCAST[:4]:
                a = rand(sa, dt)
                b = rand(sb, dt, 0, 7) if "shift" in op else rand(sb, dt)
                want = fn(a.astype(np.int64), b.astype(np.int64))
                out = np.broadcast_shapes(sa, sb)
                for pipe in (None, "tile-expand"):
                    tiling = " {vec_tile = [2, 4]}" if pipe and len(out) > 1 else ""
                    types = "%s, %s -> %s" % (ttype(sa, dt), ttype(sb, dt), ttype(out, dt))
                    run("bitwise-%s-%s-%s-%s-%s" % (op, dt, "x".join(map(str, sa)),
                                                    "x".join(map(str, sb)), pipe),
                        [T(a, dt), T(b, dt)],
                        ["%%r0 = pypto.%s %%a0, %%a1%s : %s" % (op, tiling, types)],
                        ["%r0"], [(want, dt)], "exact", pipeline=pipe)


def suite_gcd_signbit():
    """gcd over every integer dtype (negatives, zeros, the dtype's minimum,
    broadcasting) and signbit over every numeric dtype with -0.0, -NaN and
    the infinities, at the Tensor level and through tile-expand."""
    for dt in INTS:
        lo, hi = npytest.INT_RANGE[dt]
        for sa, sb in BCAST[:4]:
            a, b = rand(sa, dt, special=True), rand(sb, dt)
            b.reshape(-1)[:1] = 0
            want = np.gcd(a.astype(np.int64), b.astype(np.int64))
            out = np.broadcast_shapes(sa, sb)
            for pipe in (None, "tile-expand"):
                tiling = " {vec_tile = [2, 4]}" if pipe and len(out) > 1 else ""
                types = "%s, %s -> %s" % (ttype(sa, dt), ttype(sb, dt), ttype(out, dt))
                run("gcd-%s-%s-%s-%s" % (dt, "x".join(map(str, sa)),
                                         "x".join(map(str, sb)), pipe),
                    [T(a, dt), T(b, dt)],
                    ["%%r0 = pypto.gcd %%a0, %%a1%s : %s" % (tiling, types)],
                    ["%r0"], [(want, dt)], "exact", pipeline=pipe)
        # gcd(0, 0) = 0, gcd(min, 0) = |min| wrapped back to min (numpy's)
        edge = np.array([[0, lo, lo, 12, -12, hi]], dtype=np.int64)
        other = np.array([[0, 0, lo, -18, -18, hi]], dtype=np.int64)
        run("gcd-edges-%s" % dt, [T(edge, dt), T(other, dt)],
            ["%%r0 = pypto.gcd %%a0, %%a1 : %s" % ttype(edge.shape, dt)],
            ["%r0"], [(np.gcd(edge, other), dt)], "exact")
    neg_nan = np.copysign(np.nan, -1.0)
    for dt in NUMERIC:
        for shape in [(4, 8), (3, 5)]:
            x = rand(shape, dt, special=True)
            if dt in FLOATS:
                x.reshape(-1)[:6] = [neg_nan, np.nan, -0.0, 0.0, -np.inf, np.inf]
            want = np.signbit(x).astype(np.float64)
            for pipe in (None, "tile-expand"):
                tiling = " {vec_tile = [2, 4]}" if pipe else ""
                run("signbit-%s-%s-%s" % (dt, "x".join(map(str, shape)), pipe), [T(x, dt)],
                    ["%%r0 = pypto.signbit %%a0%s : %s" % (tiling, ttype(shape, dt))],
                    ["%r0"], [(want, dt)], "exact", pipeline=pipe)


def philox4x32_10(ctr, key):
    """Philox4x32-10 (Salmon et al.) on uint64 arrays holding 32-bit words:
    ctr is a list of 4 arrays, key a pair of ints; returns 4 arrays."""
    m = 0xFFFFFFFF
    c = [np.asarray(x, dtype=np.uint64) & m for x in ctr]
    k0, k1 = key[0] & m, key[1] & m
    for _ in range(10):
        p0 = c[0] * np.uint64(0xD2511F53)
        p1 = c[2] * np.uint64(0xCD9E8D57)
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0), p1 & np.uint64(m),
             (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1), p0 & np.uint64(m)]
        k0, k1 = (k0 + 0x9E3779B9) & m, (k1 + 0xBB67AE85) & m
    return c


def random_ref(kind, shape, key, counter, dt):
    """docs/dialects/pypto.md's definition of pypto.uniform / normal."""
    n = int(np.prod(shape))
    li = np.arange(n, dtype=np.uint64)
    blk = li // np.uint64(4)
    key &= (1 << 64) - 1
    counter &= (1 << 64) - 1
    w = philox4x32_10([blk & np.uint64(0xFFFFFFFF), blk >> np.uint64(32),
                       np.full(n, counter & 0xFFFFFFFF, np.uint64),
                       np.full(n, counter >> 32, np.uint64)],
                      (key & 0xFFFFFFFF, key >> 32))
    w = np.stack(w, -1).astype(np.float64)          # [n, 4]
    lane = (li % np.uint64(4)).astype(np.int64)
    if kind == "uniform":
        bits = {"f32": 24, "f16": 11, "bf16": 8}[dt]
        v = np.floor(w[np.arange(n), lane] / 2.0 ** (32 - bits)) * 2.0 ** -bits
    else:
        pair = lane & ~1
        u1 = (w[np.arange(n), pair] + 1.0) * 2.0 ** -32
        u2 = w[np.arange(n), pair + 1] * 2.0 ** -32
        r = np.sqrt(-2.0 * np.log(u1))
        a = 2.0 * np.pi * u2
        v = np.where(lane & 1, r * np.sin(a), r * np.cos(a))
    return v.reshape(shape)


def suite_random():
    """uniform / normal against a numpy Philox4x32-10 over every float
    dtype, at the Tensor level and through tile-expand under tile shapes
    that do and do not divide the tensor (the numbers must not change)."""
    cases = [((4, 8), 1234, 1), ((3, 5, 7), 2 ** 40 + 5, 0), ((37,), -1, 2 ** 33 + 7),
             ((2, 3, 4, 5), 0, 0)]
    tilings = {2: ["[2, 4]", "[3, 5]", "[4, 8]"], 3: ["[1, 2, 4]", "[3, 5, 7]"],
               1: ["[8]", "[37]"], 4: ["[1, 2, 2, 5]"]}
    for kind in ("uniform", "normal"):
        for dt in FLOATS:
            for shape, key, counter in cases:
                want = random_ref(kind, shape, key, counter, dt)
                tol = "exact" if kind == "uniform" else 2
                attrs = "key = %d : i64, counter = %d : i64" % (key, counter)
                runs = [(None, "")] + [("tile-expand", ", vec_tile = %s" % v)
                                       for v in tilings[len(shape)]]
                for pipe, tiling in runs:
                    run("random-%s-%s-%s-%s%s" % (kind, dt, "x".join(map(str, shape)),
                                                  pipe, tiling.replace(" ", "")),
                        [], ["%%r0 = pypto.%s {%s%s} : %s" % (kind, attrs, tiling,
                                                             ttype(shape, dt))],
                        ["%r0"], [(want, dt)], tol, pipeline=pipe)


def index_add_ref(x, dim, idx, src, dt):
    """x with src's slices added at idx along dim, one rounding per step."""
    out = np.array(x, dtype=np.float64 if dt in FLOATS else object)
    xs = np.moveaxis(out, dim, 0)
    ss = np.moveaxis(np.asarray(src, dtype=out.dtype), dim, 0)
    for j, i in enumerate(idx):
        xs[i] = fit(xs[i] + ss[j], dt)
    return out


def suite_index_add():
    """index_add over every numeric dtype, along each dim, with duplicate
    indices (accumulated in index order), at the Tensor level and through
    tile-expand with tiles that split the index dim."""
    cases = [((5, 6), 0, [4, 0, 4, 2, 4, 1, 0], "[3, 4]"),
             ((4, 9), 1, [8, 8, 0, 3, 8], "[2, 2]"),
             ((3, 4, 5), 1, [3, 1, 3], "[2, 2, 3]"),
             ((6,), 0, [5, 5, 5, 0], "[3]")]
    for dt in NUMERIC:
        for shape, dim, index, tile in cases:
            x = rand(shape, dt)
            sshape = list(shape)
            sshape[dim] = len(index)
            src = rand(tuple(sshape), dt)
            want = index_add_ref(x, dim, index, src, dt)
            for idt in ("i32", "i64"):
                for pipe in (None, "tile-expand"):
                    tiling = ", vec_tile = %s" % tile if pipe else ""
                    run("index_add-%s-%s-%d-%s-%s" % (dt, "x".join(map(str, shape)), dim,
                                                       idt, pipe),
                        [T(x, dt), T(np.array(index), idt), T(src, dt)],
                        ["%%r0 = pypto.index_add %%a0, %%a1, %%a2 {dim = %d : i64%s} : "
                         "%s, %s, %s" % (dim, tiling, ttype(shape, dt),
                                         ttype((len(index),), idt), ttype(tuple(sshape), dt))],
                        ["%r0"], [(want, dt)], "exact", pipeline=pipe)
    x = rand((4, 4), "f32")
    expect_failure("index_add-out-of-range", [T(x, "f32"), T(np.array([1, 4]), "i32"),
                                              T(rand((2, 4), "f32"), "f32")],
                   ["%r0 = pypto.index_add %a0, %a1, %a2 {dim = 0 : i64} : "
                    "tensor<4x4xf32>, tensor<2xi32>, tensor<2x4xf32>"],
                   ["%r0"], ["tensor<4x4xf32>"], "index 4 at position")


def scatter_ref(x, dim, idx, src, reduce, dt):
    """torch.scatter in row-major index order, one rounding per step."""
    out = np.array(x, dtype=np.float64 if dt in FLOATS else object)
    src = np.asarray(src, dtype=out.dtype)
    for pos in np.ndindex(*idx.shape):
        at = list(pos)
        at[dim] = idx[pos]
        at = tuple(at)
        if reduce is None:
            out[at] = src[pos]
        else:
            out[at] = fit(out[at] + src[pos] if reduce == "add" else out[at] * src[pos], dt)
    return out


def suite_scatter():
    """scatter over every numeric dtype, each reduce mode, with duplicate
    indices and a src larger than the index, at the Tensor level and
    through tile-expand with tiles that split every dim: two index
    positions can only meet when they differ along dim alone, and every
    tiling visits those in increasing order, so the results are exact even
    where a rounding reduce makes the order visible."""
    cases = [((5, 6), 0, (4, 6), (5, 6), "[3, 4]"),
             ((4, 9), 1, (3, 5), (3, 5), "[2, 2]"),
             ((3, 4, 5), 2, (2, 4, 3), (3, 4, 3), "[1, 3, 2]"),
             ((6,), 0, (8,), (8,), "[3]")]
    n = 0
    for dt in NUMERIC:
        for shape, dim, ishape, sshape, tile in cases:
            x = rand(shape, dt)
            src = rand(sshape, dt)
            idx = RNG.integers(0, shape[dim], size=ishape)
            idt = ("i32", "i64")[n % 2]
            n += 1
            for reduce in (None, "add", "multiply"):
                want = scatter_ref(x, dim, idx, src, reduce, dt)
                attr = ', reduce = "%s"' % reduce if reduce else ""
                for pipe in (None, "tile-expand"):
                    tiling = ", vec_tile = %s" % tile if pipe else ""
                    run("scatter-%s-%s-%d-%s-%s" % (dt, "x".join(map(str, shape)), dim,
                                                     reduce, pipe),
                        [T(x, dt), T(idx, idt), T(src, dt)],
                        ["%%r0 = pypto.scatter %%a0, %%a1, %%a2 {dim = %d : i64%s%s} : "
                         "%s, %s, %s" % (dim, attr, tiling, ttype(shape, dt),
                                         ttype(ishape, idt), ttype(sshape, dt))],
                        ["%r0"], [(want, dt)], "exact", pipeline=pipe)
    expect_failure("scatter-out-of-range",
                   [T(rand((4, 4), "f32"), "f32"), T(np.array([[1, 4]]), "i32"),
                    T(rand((1, 2), "f32"), "f32")],
                   ["%r0 = pypto.scatter %a0, %a1, %a2 {dim = 1 : i64} : "
                    "tensor<4x4xf32>, tensor<1x2xi32>, tensor<1x2xf32>"],
                   ["%r0"], ["tensor<4x4xf32>"], "index 4 at position (0, 1)")


def suite_compare():
    for op, fn in COMPARE.items():
        dts = NUMERIC + (["i1"] if op in ("eq", "ne") else [])
        for dt in dts:
            for sa, sb in BCAST[:4]:
                a = rand(sa, dt, special=dt in FLOATS)
                b = rand(sb, dt)
                if a.size >= 2 and b.size >= 2:  # some equal elements
                    b.reshape(-1)[0] = a.reshape(-1)[0] if a.shape == b.shape else b.reshape(-1)[0]
                want = fn(a, b).astype(np.int64)
                out = np.broadcast_shapes(sa, sb)
                run("compare-%s-%s-%s" % (op, dt, "x".join(map(str, sa))),
                    [T(a, dt), T(b, dt)],
                    ["%%r0 = pypto.%s %%a0, %%a1 : %s, %s -> %s"
                     % (op, ttype(sa, dt), ttype(sb, dt), ttype(out, "i1"))],
                    ["%r0"], [(want, "i1")])
            s = 1 if dt in INTS + ["i1"] else 0.5
            a = rand((4, 3), dt, special=dt in FLOATS)
            run("compare-scalar-%s-%s" % (op, dt), [T(a, dt), S(s, dt)],
                ["%%r0 = pypto.%s %%a0, %%a1 : %s, %s -> %s"
                 % (op, ttype(a.shape, dt), dt, ttype(a.shape, "i1"))],
                ["%r0"], [(fn(a, s).astype(np.int64), "i1")])
    for dt in NUMERIC + ["i1"]:
        c = rand((4, 1), "i1")
        x = rand((1, 5), dt)
        y = rand((4, 5), dt)
        run("where-%s" % dt, [T(c, "i1"), T(x, dt), T(y, dt)],
            ["%%r0 = pypto.where %%a0, %%a1, %%a2 : %s, %s, %s -> %s"
             % (ttype(c.shape, "i1"), ttype(x.shape, dt), ttype(y.shape, dt),
                ttype((4, 5), dt))],
            ["%r0"], [(np.where(c != 0, x, y), dt)])
        s = 1 if dt in INTS + ["i1"] else -0.75
        run("where-scalar-%s" % dt, [T(c, "i1"), T(x, dt), S(s, dt)],
            ["%%r0 = pypto.where %%a0, %%a1, %%a2 : %s, %s, %s -> %s"
             % (ttype(c.shape, "i1"), ttype(x.shape, dt), dt, ttype((4, 5), dt))],
            ["%r0"], [(np.where(c != 0, x, s), dt)])


def reduce_ref(op, x, dim, dt):
    if op in ("argmax", "argmin"):
        out = np.zeros(np.delete(x.shape, dim), dtype=np.int64)
        xm = np.moveaxis(x, dim, -1)
        for idx in np.ndindex(out.shape):
            row = xm[idx]
            nans = np.flatnonzero(np.isnan(row)) if dt in FLOATS else []
            out[idx] = nans[0] if len(nans) else (np.argmax(row) if op == "argmax" else np.argmin(row))
        return out
    if dt in FLOATS:
        fn = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min}[op]
        return fn(x, axis=dim)
    fn = {"sum": lambda v: sum(int(t) for t in v),
          "prod": lambda v: math.prod(int(t) for t in v),
          "amax": lambda v: max(int(t) for t in v),
          "amin": lambda v: min(int(t) for t in v)}[op]
    return np.apply_along_axis(lambda v: np.array(fn(v), dtype=object), dim,
                               x.astype(object))


def suite_reduce():
    cases = [((4, 8), -1), ((4, 8), 0), ((2, 3, 5), 1), ((2, 3, 5), -3),
             ((1, 7), 0), ((5, 1), 1), ((9,), 0), ((3, 33, 2), 1)]
    for op in ["sum", "prod", "amax", "amin", "argmax", "argmin"]:
        for dt in NUMERIC:
            for shape, dim in cases:
                lo, hi = (0.5, 1.5) if op == "prod" else (-4.0, 4.0)
                x = rand(shape, dt, lo, hi)
                if dt in FLOATS and op in ("amax", "amin", "argmax", "argmin") \
                        and x.size > 6:
                    x.reshape(-1)[5] = np.nan
                if op in ("argmax", "argmin") and x.size > 3:  # ties
                    x.reshape(-1)[2] = x.reshape(-1)[3]
                if dt in INTS and op == "prod":
                    x = rand(shape, dt, special=True)
                want = reduce_ref(op, x, dim % len(shape), dt)
                odt = "i32" if op.startswith("arg") else dt
                for keep in (False, True):
                    w = np.expand_dims(np.asarray(want), dim % len(shape)) if keep else np.asarray(want)
                    attrs = "{dim = %d : i64%s}" % (dim, ", keepdim" if keep else "")
                    tol = 2 if dt in FLOATS and op in ("sum", "prod") else "exact"
                    run("reduce-%s-%s-%s-d%d-%s" % (op, dt, "x".join(map(str, shape)),
                                                    dim, keep),
                        [T(x, dt)],
                        ["%%r0 = pypto.%s %%a0 %s : %s -> %s"
                         % (op, attrs, ttype(shape, dt), ttype(w.shape, odt))],
                        ["%r0"], [(w, odt)], tol)


def matmul_ref(a, b, at, bt, acc):
    if at:
        a = np.swapaxes(a, -1, -2)
    if bt:
        b = np.swapaxes(b, -1, -2)
    # an f16 accumulator sums as the cube's f32 L0C does, rounded once to
    # the result (acc is not used: the same as f32 accumulation)
    if a.dtype == object or b.dtype == object:
        return np.matmul(a.astype(object), b.astype(object))
    return np.matmul(a, b)


def suite_matmul():
    cases = [((5, 7), (7, 3), False, False), ((7, 5), (7, 3), True, False),
             ((5, 7), (3, 7), False, True), ((7, 5), (3, 7), True, True),
             ((2, 3, 4, 5), (5, 6), False, False), ((2, 1, 4, 5), (3, 5, 6), False, False),
             ((1, 1), (1, 1), False, False), ((16, 33), (33, 8), False, False)]
    for sa, sb, at, bt in cases:
        for dt, odt, acc in [("f32", "f32", None), ("f16", "f32", None),
                             ("f16", "f16", None), ("bf16", "f32", None),
                             ("bf16", "bf16", None), ("f16", "f16", "f16"),
                             ("i8", "i32", None)]:
            a = rand(sa, dt, -2.0, 2.0)
            b = rand(sb, dt, -2.0, 2.0)
            if dt == "i8":
                want = matmul_ref(a.astype(object), b.astype(object), at, bt, None)
            else:
                want = matmul_ref(a, b, at, bt, acc)
            attrs = []
            if at:
                attrs.append("a_trans")
            if bt:
                attrs.append("b_trans")
            if acc:
                attrs.append("acc_dtype = %s" % acc)
            attr = " {%s}" % ", ".join(attrs) if attrs else ""
            shape = np.shape(want)
            run("matmul-%s-%s-%s-%s-%s%s%s" % (dt, odt, acc, "x".join(map(str, sa)),
                                              "x".join(map(str, sb)), "T" if at else "",
                                              "T" if bt else ""),
                [T(a, dt), T(b, dt)],
                ["%%r0 = pypto.matmul %%a0, %%a1%s : %s, %s -> %s"
                 % (attr, ttype(sa, dt), ttype(sb, dt), ttype(shape, odt))],
                ["%r0"], [(want, odt)], "exact" if dt == "i8" else 4)

    # the way out of the accumulator (PyPTO's extend_params): i8 sums kept
    # exactly in i32, then f32(acc) * scale in f32, relu, rounded to the result
    for sa, sb, at, bt in cases[:4] + cases[6:]:
        for odt, per_channel, relu in [("f16", False, True), ("bf16", True, False),
                                       ("f32", True, True), ("f16", True, True),
                                       ("bf16", False, False)]:
            a, b = rand(sa, "i8"), rand(sb, "i8")
            acc = matmul_ref(a.astype(object), b.astype(object), at, bt, None)
            n = np.shape(acc)[-1]
            scale = (round_to(RNG.uniform(-0.02, 0.02, size=(1, n)), "f32") if per_channel
                     else float(np.float32(0.0137)))
            want = round_to(np.asarray(acc, dtype=np.float64).astype(np.float32)
                            .astype(np.float64) * scale, "f32")
            if relu:
                want = np.maximum(want, 0.0)
            attrs = (["a_trans"] if at else []) + (["b_trans"] if bt else [])
            attrs += ["relu"] if relu else []
            args = [T(a, "i8"), T(b, "i8")]
            operands, types = "%a0, %a1", [ttype(sa, "i8"), ttype(sb, "i8")]
            if per_channel:
                args.append(T(scale, "f32"))
                operands += ", %a2"
                types.append(ttype((1, n), "f32"))
            else:
                attrs.append("scale = %.9e : f32" % scale)
            attr = " {%s}" % ", ".join(attrs) if attrs else ""
            run("matmul-dequant-%s-%s-%s-%s%s%s%s" % (
                odt, "channel" if per_channel else "tensor", "x".join(map(str, sa)),
                "x".join(map(str, sb)), "T" if at else "", "T" if bt else "",
                "-relu" if relu else ""),
                args, ["%%r0 = pypto.matmul %s%s : %s -> %s"
                       % (operands, attr, ", ".join(types), ttype(np.shape(acc), odt))],
                ["%r0"], [(round_to(want, odt), odt)])
    # relu on the way out of a float product
    a, b = rand((5, 7), "f32"), rand((7, 3), "f32")
    run("matmul-relu-f32", [T(a, "f32"), T(b, "f32")],
        ["%%r0 = pypto.matmul %%a0, %%a1 {relu} : %s, %s -> %s"
         % (ttype((5, 7), "f32"), ttype((7, 3), "f32"), ttype((5, 3), "f32"))],
        ["%r0"], [(np.maximum(matmul_ref(a, b, False, False, None), 0.0), "f32")], 4)


def suite_shape():
    for dt in NUMERIC + ["i1"]:
        x = rand((6, 8, 3), dt)
        run("view-%s" % dt, [T(x, dt)],
            ["%%r0 = pypto.view %%a0[2, 3, 0] : %s -> %s"
             % (ttype(x.shape, dt), ttype((4, 5, 3), dt))],
            ["%r0"], [(x[2:6, 3:8, 0:3], dt)])
        v = rand((2, 8, 1), dt)
        y = x.copy()
        y[4:6, 0:8, 2:3] = v
        run("assemble-%s" % dt, [T(v, dt), T(x, dt)],
            ["%%r0 = pypto.assemble %%a0 into %%a1[4, 0, 2] : %s into %s"
             % (ttype(v.shape, dt), ttype(x.shape, dt))],
            ["%r0"], [(y, dt)])
        run("reshape-%s" % dt, [T(x, dt, dyn=(0,))],
            ["%%r0 = pypto.reshape %%a0 : %s -> %s"
             % (ttype((None, 8, 3), dt), ttype((None, 4), dt))],
            ["%r0"], [(x.reshape(-1, 4), dt, ttype((None, 4), dt))])
        for perm in [(1, 0, 2), (2, 0, 1), (0, 1, 2)]:
            t = np.transpose(x, perm)
            run("transpose-%s-%s" % (dt, "".join(map(str, perm))), [T(x, dt)],
                ["%%r0 = pypto.transpose %%a0 {perm = [%s]} : %s -> %s"
                 % (", ".join(map(str, perm)), ttype(x.shape, dt), ttype(t.shape, dt))],
                ["%r0"], [(t, dt)])
        a, b, c = rand((2, 4), dt), rand((3, 4), dt), rand((1, 4), dt)
        run("concat0-%s" % dt, [T(a, dt), T(b, dt), T(c, dt)],
            ["%%r0 = pypto.concat %%a0, %%a1, %%a2 {dim = 0 : i64} : %s, %s, %s -> %s"
             % (ttype(a.shape, dt), ttype(b.shape, dt), ttype(c.shape, dt),
                ttype((6, 4), dt))],
            ["%r0"], [(np.concatenate([a, b, c], 0), dt)])
        run("concat1-%s" % dt, [T(a, dt), T(a, dt)],
            ["%%r0 = pypto.concat %%a0, %%a1 {dim = -1 : i64} : %s, %s -> %s"
             % (ttype(a.shape, dt), ttype(a.shape, dt), ttype((2, 8), dt))],
            ["%r0"], [(np.concatenate([a, a], 1), dt)])
        e = rand((3, 1), dt)
        run("expand-%s" % dt, [T(e, dt), S(5, "index")],
            ["%%r0 = pypto.expand %%a0 (%%a1) : %s -> %s"
             % (ttype(e.shape, dt), ttype((2, 3, None), dt))],
            ["%r0"], [(np.broadcast_to(e, (2, 3, 5)), dt, ttype((2, 3, None), dt))])
        fv = 1 if dt in INTS + ["i1"] else -1.5
        run("full-%s" % dt, [S(fv, dt), S(3, "index")],
            ["%%r0 = pypto.full %%a0 (%%a1) : %s -> %s" % (dt, ttype((None, 2), dt))],
            ["%r0"], [(np.full((3, 2), fv, dtype=np.float64), dt, ttype((None, 2), dt))])
        run("zeros-%s" % dt, [S(4, "index")],
            ["%%r0 = pypto.zeros (%%a0) : %s" % ttype((2, None), dt)],
            ["%r0"], [(np.zeros((2, 4)), dt, ttype((2, None), dt))])


def suite_index():
    for dt in NUMERIC + ["i1"]:
        for idt in ["i32", "i64"]:
            x = rand((4, 6), dt)
            idx = RNG.integers(0, 6, size=(3, 5))
            run("gather1-%s-%s" % (dt, idt), [T(x, dt), T(idx, idt)],
                ["%%r0 = pypto.gather %%a0, %%a1 {dim = 1 : i64} : %s, %s -> %s"
                 % (ttype(x.shape, dt), ttype(idx.shape, idt), ttype(idx.shape, dt))],
                ["%r0"], [(np.array([[x[i, idx[i, j]] for j in range(5)]
                                     for i in range(3)]), dt)])
            idx0 = RNG.integers(0, 4, size=(2, 6))
            run("gather0-%s-%s" % (dt, idt), [T(x, dt), T(idx0, idt)],
                ["%%r0 = pypto.gather %%a0, %%a1 {dim = -2 : i64} : %s, %s -> %s"
                 % (ttype(x.shape, dt), ttype(idx0.shape, idt), ttype(idx0.shape, dt))],
                ["%r0"], [(np.array([[x[idx0[i, j], j] for j in range(6)]
                                     for i in range(2)]), dt)])
            sel = np.array([3, 0, 3, 1, 2])
            run("index_select-%s-%s" % (dt, idt), [T(x, dt), T(sel, idt)],
                ["%%r0 = pypto.index_select %%a0, %%a1 {dim = 0 : i64} : %s, %s -> %s"
                 % (ttype(x.shape, dt), ttype(sel.shape, idt), ttype((5, 6), dt))],
                ["%r0"], [(x[sel], dt)])
            pos = np.array([5, 1, 5])
            src = rand((4, 3), dt)
            y = x.copy()
            for j, p in enumerate(pos):
                y[:, p] = src[:, j]
            run("scatter_update-%s-%s" % (dt, idt), [T(x, dt), T(pos, idt), T(src, dt)],
                ["%%r0 = pypto.scatter_update %%a0, %%a1, %%a2 {dim = 1 : i64} : %s, %s, %s"
                 % (ttype(x.shape, dt), ttype(pos.shape, idt), ttype(src.shape, dt))],
                ["%r0"], [(y, dt)])
    for dt in NUMERIC:
        for largest in (True, False):
            for dim in (-1, 0):
                x = rand((5, 9), dt, special=False)
                x.reshape(-1)[[1, 2]] = x.reshape(-1)[0]  # ties
                if dt in FLOATS:
                    x[3, 4] = np.nan
                k = 3
                xm = np.moveaxis(x, dim, -1)
                vals = np.zeros(xm.shape[:-1] + (k,))
                inds = np.zeros(xm.shape[:-1] + (k,), dtype=np.int64)
                for i in np.ndindex(xm.shape[:-1]):
                    row = list(enumerate(xm[i]))
                    key = (lambda t: (0 if np.isnan(t[1]) else 1, -t[1], t[0])) if largest \
                        else (lambda t: (1 if np.isnan(t[1]) else 0, t[1], t[0]))
                    row.sort(key=key)
                    vals[i] = [v for _, v in row[:k]]
                    inds[i] = [j for j, _ in row[:k]]
                vals, inds = np.moveaxis(vals, -1, dim), np.moveaxis(inds, -1, dim)
                attrs = "{dim = %d : i64, k = 3 : i64%s}" % (dim, "" if largest else ", largest = false")
                run("topk-%s-%s-%d" % (dt, largest, dim), [T(x, dt)],
                    ["%%r0, %%r1 = pypto.topk %%a0 %s : %s -> %s, %s"
                     % (attrs, ttype(x.shape, dt), ttype(vals.shape, dt),
                        ttype(vals.shape, "i32"))],
                    ["%r0", "%r1"], [(vals, dt), (inds, "i32")])


def suite_quant():
    for dt in FLOATS:
        x = rand((6, 10), dt, -3.0, 3.0)
        x[2, :] = 0.0
        xf = x.astype(np.float32)
        amax = np.max(np.abs(xf), axis=-1, keepdims=True)
        scale = (amax / np.float32(127)).astype(np.float32)
        with np.errstate(all="ignore"):
            q = np.where(amax == 0, 0, np.clip(np.rint((xf / scale).astype(np.float32)), -127, 127))
        run("quantize-%s" % dt, [T(x, dt)],
            ["%%r0, %%r1 = pypto.quantize %%a0 : %s -> %s, %s"
             % (ttype(x.shape, dt), ttype(x.shape, "i8"), ttype((6, 1), "f32"))],
            ["%r0", "%r1"], [(q.astype(np.int64), "i8"), (scale.astype(np.float64), "f32")])
    for qdt in ["i8", "i32"]:
        for odt in FLOATS:
            for sshape in [(6, 1), (1, 10), (10,)]:
                q = rand((6, 10), qdt)
                if qdt == "i32":
                    q = RNG.integers(-2 ** 31, 2 ** 31 - 1, size=(6, 10))
                s = rand(sshape, "f32", 0.001, 0.1)
                # the product in f32, then converted to the result type
                want = (q.astype(np.float32) * s.astype(np.float32)).astype(np.float64)
                run("dequantize-%s-%s-%s" % (qdt, odt, "x".join(map(str, sshape))),
                    [T(q, qdt), T(s, "f32")],
                    ["%%r0 = pypto.dequantize %%a0, %%a1 : %s, %s -> %s"
                     % (ttype(q.shape, qdt), ttype(sshape, "f32"), ttype(q.shape, odt))],
                    ["%r0"], [(want, odt)])


def softmax_ref(x, dim):
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def suite_composite():
    for dt in FLOATS:
        for shape, dim in [((4, 16), -1), ((3, 5, 7), 1), ((8,), 0), ((2, 1, 33), -1)]:
            x = rand(shape, dt, -5.0, 5.0)
            for pipe, tol in [(None, 4), ("decompose", 8 if dt == "f32" else 16)]:
                run("softmax-%s-%s-%d-%s" % (dt, "x".join(map(str, shape)), dim, pipe),
                    [T(x, dt)],
                    ["%%r0 = pypto.softmax %%a0 {dim = %d : i64} : %s" % (dim, ttype(shape, dt))],
                    ["%r0"], [(softmax_ref(x, dim), dt)], tol, pipeline=pipe)
        for shape in [(4, 16), (2, 3, 8), (5,)]:
            x = rand(shape, dt, -2.0, 2.0)
            g = rand(shape[-1:], dt, 0.5, 1.5)
            bt = rand(shape[-1:], dt, -1.0, 1.0)
            eps = 1e-6
            ms = np.mean(x * x, axis=-1, keepdims=True)
            rms = x / np.sqrt(ms + eps) * g
            mu = np.mean(x, axis=-1, keepdims=True)
            var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
            ln = (x - mu) / np.sqrt(var + 1e-5) * g + bt
            # the decomposition rounds every intermediate to dt: x - mean
            # cancels, so errors scale with the row's magnitude, not the
            # (possibly tiny) result
            for pipe, tol in [(None, 4), ("decompose", (8, 1.0))]:
                run("rms_norm-%s-%s-%s" % (dt, "x".join(map(str, shape)), pipe),
                    [T(x, dt), T(g, dt)],
                    ["%%r0 = pypto.rms_norm %%a0, %%a1 {eps = 1.0e-06 : f32} : %s, %s -> %s"
                     % (ttype(shape, dt), ttype(g.shape, dt), ttype(shape, dt))],
                    ["%r0"], [(rms, dt)], tol, pipeline=pipe)
                run("layer_norm-%s-%s-%s" % (dt, "x".join(map(str, shape)), pipe),
                    [T(x, dt), T(g, dt), T(bt, dt)],
                    ["%%r0 = pypto.layer_norm %%a0, %%a1, %%a2 : %s, %s, %s -> %s"
                     % (ttype(shape, dt), ttype(g.shape, dt), ttype(bt.shape, dt),
                        ttype(shape, dt))],
                    ["%r0"], [(ln, dt)], tol, pipeline=pipe)


def suite_dynamic():
    # dynamic dims come from the inputs
    for dt in ["f32", "f16", "i32"]:
        a = rand((5, 8), dt)
        b = rand((1, 8), dt)
        run("dyn-add-%s" % dt, [T(a, dt, dyn=(0,)), T(b, dt, dyn=(0,))],
            ["%%r0 = pypto.add %%a0, %%a1 : %s, %s -> %s"
             % (ttype((None, 8), dt), ttype((None, 8), dt), ttype((None, 8), dt))],
            ["%r0"], [(binary_want("add", a, b, dt), dt, ttype((None, 8), dt))])
        run("dyn-sum-%s" % dt, [T(a, dt, dyn=(0, 1))],
            ["%%r0 = pypto.sum %%a0 {dim = 0 : i64} : %s -> %s"
             % (ttype((None, None), dt), ttype((None,), dt))],
            ["%r0"], [(reduce_ref("sum", a, 0, dt), dt, ttype((None,), dt))],
            2 if dt != "i32" else "exact")
        run("dyn-dim-%s" % dt, [T(a, dt, dyn=(0,))],
            ["%%n = pypto.dim %%a0 {dim = 0 : i64} : %s -> index" % ttype((None, 8), dt),
             "%%r0 = pypto.zeros (%%n) : %s" % ttype((None, 3), dt)],
            ["%r0"], [(np.zeros((5, 3)), dt, ttype((None, 3), dt))])
    # dynamic-offset views inside scf.for: reverse the rows of x two at a time
    x = rand((6, 4), "f32")
    body = [
        "%c0 = arith.constant 0 : index",
        "%c2 = arith.constant 2 : index",
        "%n = pypto.dim %a0 {dim = 0 : i64} : tensor<?x4xf32> -> index",
        "%y0 = pypto.zeros (%n) : tensor<?x4xf32>",
        "%r0 = scf.for %i = %c0 to %n step %c2 iter_args(%y = %y0) -> (tensor<?x4xf32>) {",
        "  %v = pypto.view %a0[%i, 0] : tensor<?x4xf32> -> tensor<2x4xf32>",
        "  %e = pypto.exp %v : tensor<2x4xf32>",
        "  %t = arith.subi %n, %i : index",
        "  %o = arith.subi %t, %c2 : index",
        "  %y1 = pypto.assemble %e into %y[%o, 0] : tensor<2x4xf32> into tensor<?x4xf32>",
        "  scf.yield %y1 : tensor<?x4xf32>",
        "}",
    ]
    want = np.exp(x).reshape(3, 2, 4)[::-1].reshape(6, 4)
    run("loop-views", [T(x, "f32", dyn=(0,))], body, ["%r0"],
        [(want, "f32", "tensor<?x4xf32>")], 2)
    # a loop-carried scalar and an scf.if: sum of rows with index < k
    body = [
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%z = pypto.zeros : tensor<1x4xf32>",
        "%n = pypto.dim %a0 {dim = 0 : i64} : tensor<?x4xf32> -> index",
        "%r0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<1x4xf32>) {",
        "  %lt = arith.cmpi slt, %i, %a1 : index",
        "  %next = scf.if %lt -> (tensor<1x4xf32>) {",
        "    %row = pypto.view %a0[%i, 0] : tensor<?x4xf32> -> tensor<1x4xf32>",
        "    %s = pypto.add %acc, %row : tensor<1x4xf32>",
        "    scf.yield %s : tensor<1x4xf32>",
        "  } else {",
        "    scf.yield %acc : tensor<1x4xf32>",
        "  }",
        "  scf.yield %next : tensor<1x4xf32>",
        "}",
    ]
    acc = np.zeros((1, 4))
    for i in range(4):
        acc = round_to(acc + x[i:i + 1], "f32")
    run("loop-if", [T(x, "f32", dyn=(0,)), S(4, "index")], body, ["%r0"], [(acc, "f32")])
    # run-time errors inside a loop
    expect_failure("err-loop-view", [T(x, "f32", dyn=(0,))], [
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%n = pypto.dim %a0 {dim = 0 : i64} : tensor<?x4xf32> -> index",
        "%r0 = scf.for %i = %c0 to %n step %c1 iter_args(%y = %a0) -> (tensor<?x4xf32>) {",
        "  %v = pypto.view %a0[%i, 0] : tensor<?x4xf32> -> tensor<2x4xf32>",
        "  scf.yield %y : tensor<?x4xf32>",
        "}"], ["%r0"], ["tensor<?x4xf32>"],
        "error: 'pypto.view' op window out of bounds in dim 0 at run time: "
        "offset 5 + size 2 > 6")
    expect_failure("err-broadcast", [T(rand((3, 4), "f32"), "f32", dyn=(0,)),
                                     T(rand((2, 4), "f32"), "f32", dyn=(0,))],
                   ["%r0 = pypto.add %a0, %a1 : tensor<?x4xf32>"], ["%r0"],
                   ["tensor<?x4xf32>"],
                   "error: 'pypto.add' op operands are not broadcast-compatible at "
                   "run time: 'tensor<3x4xf32>' and 'tensor<2x4xf32>' (dim 0: 3 vs 2)")
    expect_failure("err-gather", [T(rand((2, 4), "f32"), "f32"),
                                  T(np.array([[0, 4]]), "i32")],
                   ["%r0 = pypto.gather %a0, %a1 {dim = 1 : i64} : tensor<2x4xf32>, "
                    "tensor<1x2xi32> -> tensor<1x2xf32>"], ["%r0"], ["tensor<1x2xf32>"],
                   "error: 'pypto.gather' op index 4 at position (0, 1) is out of "
                   "range [0, 4) for dim 1")


SUITES = {name[6:]: fn for name, fn in globals().items()
          if name.startswith("suite_")}


def main():
    global WORK
    suite, WORK = sys.argv[1], sys.argv[2]
    os.makedirs(WORK, exist_ok=True)
    SUITES[suite]()
    if FAILURES:
        print("\n\n".join(FAILURES[:20]))
        print("%s: %d checks passed, %d failed" % (suite, PASSED[0], len(FAILURES)))
        return 1
    print("%s: %d checks passed" % (suite, PASSED[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
