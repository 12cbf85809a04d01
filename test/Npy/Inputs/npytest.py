"""Helpers shared by the .npy and dtype-conversion tests: running pto-npy,
comparing arrays bit for bit, and exact reference roundings computed with
Python integers (independent of numpy and of the C implementation)."""
import math
import os
import subprocess
import sys

import numpy as np

# Overflowing and NaN casts in the references are intended.
np.seterr(all="ignore")
FAILURES = []

# (numpy dtype or None for bf16, pto name, bits view dtype)
DTYPES = {
    "f16": np.dtype("<f2"), "f32": np.dtype("<f4"), "f64": np.dtype("<f8"),
    "i8": np.dtype("i1"), "i16": np.dtype("<i2"), "i32": np.dtype("<i4"),
    "i64": np.dtype("<i8"), "u8": np.dtype("u1"), "bool": np.dtype("?"),
    "bf16": np.dtype("<u2"),  # bf16 travels as raw bit patterns
}
INT_RANGE = {"i8": (-2**7, 2**7 - 1), "i16": (-2**15, 2**15 - 1),
             "i32": (-2**31, 2**31 - 1), "i64": (-2**63, 2**63 - 1),
             "u8": (0, 255), "bool": (0, 1)}
# precision (significand bits incl. the implicit one), min normal exponent,
# max exponent
FLOAT_FORMAT = {"f16": (11, -14, 15), "bf16": (8, -126, 127),
                "f32": (24, -126, 127), "f64": (53, -1022, 1023)}
ROUND_MODES = ["default", "rint", "round", "floor", "ceil", "trunc", "odd"]


def tool(*args, ok=True):
    r = subprocess.run(["pto-npy", *map(str, args)], capture_output=True,
                       text=True)
    if ok and r.returncode != 0:
        sys.exit("pto-npy %s failed:\n%s" % (" ".join(map(str, args)), r.stderr))
    return r


def tmp(name):
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name)


def convert(arr, dt, *opts):
    """Runs `pto-npy convert` on arr; returns the written array."""
    src, dst = tmp("in.npy"), tmp("out.npy")
    np.save(src, arr)
    tool("convert", src, dst, dt, *opts)
    out = np.load(dst)
    assert out.dtype == DTYPES[dt], (out.dtype, dt)
    return out


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def expect_equal(what, inputs, got, want, mask=None):
    """Records a failure unless got and want have the same bits (where mask)."""
    g, w = bits(got).ravel(), bits(want).ravel()
    bad = g != w
    if mask is not None:
        bad &= np.asarray(mask).ravel()
    n = int(bad.sum())
    if n:
        idx = np.flatnonzero(bad)[:5]
        inp = np.asarray(inputs).ravel()
        rows = ["  input %r: got 0x%x, want 0x%x" % (inp[i], g[i], w[i]) for i in idx]
        FAILURES.append("%s: %d of %d differ\n%s" % (what, n, g.size, "\n".join(rows)))
    return n


def finish(summary):
    if FAILURES:
        print("\n".join(FAILURES))
        print("FAILED: %d checks" % len(FAILURES))
        sys.exit(1)
    print(summary)


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


# ---- exact references ----

def _choose(lo, rem, half, neg, mode):
    """Whether the magnitude lo (with remainder rem of a 2*half quantum)
    rounds up under mode; neg is the sign of the value."""
    if rem == 0:
        return False
    if mode in ("default", "rint"):
        return rem > half or (rem == half and lo & 1)
    if mode == "round":
        return rem >= half
    if mode == "floor":
        return neg
    if mode == "ceil":
        return not neg
    if mode == "trunc":
        return False
    if mode == "odd":
        return not lo & 1
    raise ValueError(mode)


def round_int_to_float(neg, mag, exp2, fmt, mode, sat):
    """The value (-1)^neg * mag * 2^exp2 (mag an int) rounded to format fmt
    under mode; returns a Python float (or +-inf)."""
    p, emin, emax = FLOAT_FORMAT[fmt]
    maxv = ((1 << p) - 1) * 2.0 ** (emax - p + 1)
    if mag == 0:
        return -0.0 if neg else 0.0
    e = mag.bit_length() - 1 + exp2  # floor(log2(|x|))
    q = max(e, emin) - p + 1         # quantum exponent
    shift = q - exp2
    if shift <= 0:
        lo, rem, half = mag << -shift, 0, 1
    else:
        lo, rem, half = mag >> shift, mag & ((1 << shift) - 1), 1 << (shift - 1)
    lo += _choose(lo, rem, half, neg, mode)
    if lo.bit_length() > 1100:
        v = math.inf
    else:
        v = math.ldexp(float(lo), q) if lo < (1 << 53) else float(lo) * 2.0 ** q
    if v > maxv:
        # Modes rounding toward zero stop at the largest finite value.
        toward_zero = mode in ("trunc", "odd") or (mode == "floor" and not neg) \
            or (mode == "ceil" and neg)
        v = maxv if toward_zero else math.inf
    if sat and math.isinf(v):
        v = maxv
    return -v if neg else v


def float_ref(x, fmt, mode, sat):
    """Reference rounding of a finite or infinite Python float."""
    if math.isnan(x):
        return x
    if math.isinf(x):
        return x
    m, e = math.frexp(abs(x))
    mag = int(m * 2**53)
    return round_int_to_float(math.copysign(1, x) < 0, mag, e - 53, fmt, mode, sat)


def int_round(x, mode):
    """x (a finite float) rounded to an integer (a Python int) under mode."""
    t = math.trunc(x)
    if mode in ("default", "trunc"):
        return t
    if mode == "rint":
        return round(x)  # Python rounds half to even, exactly
    if mode == "round":
        f = math.floor(abs(x))
        r = f + (abs(x) - f >= 0.5)
        return -r if x < 0 else r
    if mode == "floor":
        return math.floor(x)
    if mode == "ceil":
        return math.ceil(x)
    if mode == "odd":
        if t != x and t % 2 == 0:
            t += 1 if x > 0 else -1
        return t
    raise ValueError(mode)


def int_ref(v, dt, sat):
    """An integer v (Python int), or nan/inf, stored into integer dtype dt."""
    if dt == "bool":
        return int(v != 0)  # nan != 0
    lo, hi = INT_RANGE[dt]
    if isinstance(v, float):  # nan or inf
        if math.isnan(v) or not sat:
            return 0
        return hi if v > 0 else lo
    if sat:
        return min(max(v, lo), hi)
    bits_ = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8}[dt]
    v &= (1 << bits_) - 1
    if lo < 0 and v >= 1 << (bits_ - 1):
        v -= 1 << bits_
    return v


def to_bf16_bits(values):
    """Python floats (already representable in bf16, or nan/inf) -> uint16."""
    f = np.array(values, dtype=np.float32)
    return (f.view(np.uint32) >> 16).astype(np.uint16)
