"""f32 and f64 values (random bit patterns, exact ties of f16/bf16/f32,
values just off ties, subnormals, overflow, specials) converted by pto-npy
to the float and integer dtypes under every rounding and saturation mode,
against exact integer references, and against numpy's astype where numpy
defines the result."""
import math

import numpy as np

from npytest import (FAILURES, ROUND_MODES, bits, convert, expect_equal,
                     finish, float_ref, int_ref, int_round, to_bf16_bits)

rng = np.random.default_rng(7)


def ties(fmt, n):
    """Values halfway between neighbours of fmt, as f64 (exact)."""
    if fmt == "f16":
        h = rng.integers(0, 0x7bff, n).astype(np.uint16)
        lo = h.view(np.float16).astype(np.float64)
        hi = (h + 1).astype(np.uint16).view(np.float16).astype(np.float64)
    elif fmt == "bf16":
        h = rng.integers(0, 0x7f7f, n).astype(np.uint32)
        lo = (h << 16).view(np.float32).astype(np.float64)
        hi = ((h + 1) << 16).view(np.float32).astype(np.float64)
    else:
        h = rng.integers(0, 0x7f7fffff, n).astype(np.uint32)
        lo = h.view(np.float32).astype(np.float64)
        hi = (h + 1).view(np.float32).astype(np.float64)
    mid = (lo + hi) / 2
    sign = np.where(rng.integers(0, 2, n) == 1, -1.0, 1.0)
    return mid * sign


SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, -0.5,
           1.5, 2.5, -2.5, 65504.0, 65519.99, 65520.0, 65536.0, 1e5, -1e5,
           6.0e-8, 5.96e-8, 2.98e-8, 2.9802322387695312e-08, 1e-40, 3.4e38,
           3.3961775292304e38, 3.3895313892515355e38, 1e39, 127.5, 128.0,
           -128.5, 255.5, 256.0, 2147483647.5, 2147483648.0, -2147483649.0,
           9.2233720368547758e18, -9.2233720368547758e18, 1e19, 1.8e19,
           1e20, -1e300]

# f32 inputs: random bit patterns, ties of the 16-bit formats, specials.
f32 = np.concatenate([
    rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32).view(np.float32),
    ties("f16", 1500).astype(np.float32), ties("bf16", 1500).astype(np.float32),
    np.nextafter(ties("f16", 300).astype(np.float32), np.float32(np.inf)),
    np.nextafter(ties("bf16", 300).astype(np.float32), np.float32(-np.inf)),
    np.array(SPECIAL, dtype=np.float32),
    np.array([0x7f800001, 0xff800001, 0x7fa00000, 0x7fc00000, 0x7f802000,
              0x7fbfffff, 0xffffffff], dtype=np.uint32).view(np.float32)])

# f64 inputs: ties of every narrower format and values a hair off them (a
# double rounding through f32 would get these wrong), random doubles.
tf16, tbf, tf32 = ties("f16", 800), ties("bf16", 800), ties("f32", 800)
f64 = np.concatenate([
    tf16, tf16 * (1 + 2.0**-40), tf16 * (1 - 2.0**-40),
    tbf, tbf * (1 + 2.0**-45), tf32, tf32 * (1 + 2.0**-50),
    rng.standard_normal(800) * 10.0 ** rng.integers(-45, 45, 800),
    rng.integers(0, 2**64, 800, dtype=np.uint64).view(np.float64),
    np.array(SPECIAL),
    np.array([0x7ff0000000000001, 0xfff0000000000001, 0x7ff4000000000000,
              0x7ff8000000000000, 0x7ff0040000000000, 0x7fffffffffffffff],
             dtype=np.uint64).view(np.float64)])


def float_expect(xs, fmt, mode, sat):
    vals = [float_ref(float(v), fmt, mode, sat) for v in xs]
    if fmt == "bf16":
        return to_bf16_bits(vals)
    return np.array(vals, dtype={"f16": np.float16, "f32": np.float32}[fmt])


checks = 0
for name, xs in [("f32", f32), ("f64", f64)]:
    nan = np.isnan(xs)
    for fmt in ["f16", "bf16"] + (["f32"] if name == "f64" else []):
        for mode in ROUND_MODES:
            for sat in (False, True):
                opts = ["--round=" + mode] + (["--sat=saturate"] if sat else [])
                got = convert(xs, fmt, *opts)
                expect_equal("%s->%s %s" % (name, fmt, " ".join(opts)), xs, got,
                             float_expect(xs, fmt, mode, sat), mask=~nan)
                if fmt != "bf16" and not np.isnan(got[nan].astype(np.float32)).all():
                    FAILURES.append("%s->%s: a NaN became a number" % (name, fmt))
                checks += 1
        if fmt != "bf16":
            # numpy's astype, NaN payloads included
            npdt = {"f16": np.float16, "f32": np.float32}[fmt]
            with np.errstate(over="ignore", invalid="ignore"):
                expect_equal("%s->%s vs numpy" % (name, fmt), xs,
                             convert(xs, fmt), xs.astype(npdt))
        else:
            q = convert(xs, "bf16")
            expect_bits = ((xs[nan].astype(np.float32).view(np.uint32) >> 16) | 0x40)
            expect_equal("%s->bf16 NaN" % name, xs[nan], q[nan],
                         expect_bits.astype(np.uint16))
    other = "f64" if name == "f32" else "f32"
    with np.errstate(over="ignore", invalid="ignore"):
        expect_equal("%s->%s vs numpy" % (name, other), xs, convert(xs, other),
                     xs.astype({"f32": np.float32, "f64": np.float64}[other]))

    # to integers: every mode, wrap and saturate
    NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "u8": np.uint8, "bool": np.bool_}
    for dt, npdt in NP.items():
        for mode in ROUND_MODES:
            for sat in (False, True):
                opts = ["--round=" + mode] + (["--sat=saturate"] if sat else [])
                got = convert(xs, dt, *opts)
                want = []
                for v in xs.astype(np.float64):
                    v = float(v)
                    if dt == "bool" or not math.isfinite(v):
                        want.append(int_ref(v, dt, sat))
                    else:
                        want.append(int_ref(int_round(v, mode), dt, sat))
                expect_equal("%s->%s %s" % (name, dt, " ".join(opts)), xs, got,
                             np.array(want, dtype=object).astype(npdt))
                checks += 1
        # numpy's astype agrees where it defines the result: finite values
        # whose truncation fits the int32 (narrow targets) or int64 range.
        limit = 2.0**63 if dt == "i64" else 2.0**31
        t = np.trunc(xs.astype(np.float64))
        defined = np.isfinite(t) & (t >= -limit) & (t < limit)
        if dt == "bool":
            defined[:] = True
        with np.errstate(invalid="ignore"):
            expect_equal("%s->%s vs numpy" % (name, dt), xs, convert(xs, dt),
                         xs.astype(npdt), mask=defined)

finish("floats: %d conversions of %d values ok" % (checks, len(f32) + len(f64)))
