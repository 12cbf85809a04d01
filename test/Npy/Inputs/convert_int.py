"""Integer sources through pto-npy convert: int64 values (boundaries of
every integer dtype, values past 2^53, random) to every dtype under every
rounding and saturation mode, and every narrow integer / bool source to
every dtype, against numpy's astype (wrap), np.clip (saturate) and exact
references."""
import numpy as np

from npytest import (FAILURES, INT_RANGE, ROUND_MODES, convert, expect_equal,
                     finish, int_ref, round_int_to_float, to_bf16_bits)

rng = np.random.default_rng(99)
edges = []
for lo, hi in INT_RANGE.values():
    for v in (lo, hi):
        edges += [v - 2, v - 1, v, v + 1, v + 2]
for k in range(1, 63):
    edges += [2**k - 1, 2**k, 2**k + 1, -2**k - 1, -2**k, -2**k + 1]
# just above and below ties of bf16/f16/f32/f64 among large integers
for k in (11, 24, 31, 53, 62):
    for p in (8, 11, 24, 53):
        if k > p:
            half = 2**(k - p)
            edges += [2**k + half, 2**k + half + 1, 2**k + half - 1,
                      2**k + 3 * half, -(2**k + half)]
vals = np.array([v for v in edges if -2**63 <= v < 2**63], dtype=np.int64)
vals = np.concatenate([vals, rng.integers(-2**63, 2**63 - 1, 3000, dtype=np.int64),
                       rng.integers(-70000, 70000, 2000, dtype=np.int64)])

NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "u8": np.uint8, "bool": np.bool_}
checks = 0
for dt, npdt in NP.items():
    got = convert(vals, dt)
    expect_equal("i64->%s vs numpy" % dt, vals, got, vals.astype(npdt))
    got = convert(vals, dt, "--sat=saturate")
    lo, hi = INT_RANGE[dt]
    want = np.clip(vals, lo, hi).astype(npdt) if dt != "bool" else vals.astype(bool)
    expect_equal("i64->%s saturate vs numpy" % dt, vals, got, want)
    checks += 2

for fmt in ["f16", "bf16", "f32", "f64"]:
    for mode in ROUND_MODES:
        for sat in (False, True):
            opts = ["--round=" + mode] + (["--sat=saturate"] if sat else [])
            got = convert(vals, fmt, *opts)
            ref = [round_int_to_float(int(v) < 0, abs(int(v)), 0, fmt, mode, sat)
                   for v in vals]
            want = to_bf16_bits(ref) if fmt == "bf16" else np.array(
                ref, dtype={"f16": np.float16, "f32": np.float32, "f64": np.float64}[fmt])
            expect_equal("i64->%s %s" % (fmt, " ".join(opts)), vals, got, want)
            checks += 1
    if fmt != "bf16":
        npdt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[fmt]
        expect_equal("i64->%s vs numpy" % fmt, vals, convert(vals, fmt),
                     vals.astype(npdt))

# Every narrow source to every dtype (default mode) against numpy.
small = {
    "i8": np.arange(-128, 128, dtype=np.int8),
    "u8": np.arange(256, dtype=np.uint8),
    "i16": np.arange(-32768, 32768, dtype=np.int16),
    "i32": np.concatenate([np.arange(-70000, 70000, 7),
                           [-2**31, 2**31 - 1, 2**24 + 1, -2**24 - 1]]).astype(np.int32),
    "bool": np.array([False, True, True, False]),
}
for src, a in small.items():
    for dt, npdt in list(NP.items()) + [("f16", np.float16), ("f32", np.float32),
                                        ("f64", np.float64)]:
        expect_equal("%s->%s vs numpy" % (src, dt), a, convert(a, dt),
                     a.astype(npdt))
        checks += 1
    want = to_bf16_bits([round_int_to_float(int(v) < 0, abs(int(v)), 0, "bf16",
                                            "default", False) for v in a])
    expect_equal("%s->bf16" % src, a, convert(a, "bf16"), want)

finish("integers: %d conversions ok" % checks)
