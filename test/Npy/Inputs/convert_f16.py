"""All 65536 f16 bit patterns (and all bf16 ones) through pto-npy convert,
against numpy's astype bit for bit (NaN payloads included) and against the
exact references of npytest for the targets numpy lacks."""
import math

import numpy as np

from npytest import (FAILURES, bits, convert, expect_equal, finish, float_ref,
                     int_ref, to_bf16_bits)

h = np.arange(65536, dtype=np.uint32).astype(np.uint16)
x = h.view(np.float16)
finite = np.isfinite(x)

for dt, npdt in [("f32", np.float32), ("f64", np.float64)]:
    got = convert(x, dt)
    expect_equal("f16->%s" % dt, h, got, x.astype(npdt))
    # and back: every pattern, NaN payloads included, survives
    expect_equal("f16->%s->f16" % dt, h, convert(got, "f16"), x)

# f16 -> bf16: an exact rounding of the value; NaNs stay NaNs (quiet, sign
# kept, top payload bits kept).
want = to_bf16_bits([float_ref(float(v), "bf16", "default", False) for v in x])
f32bits = x.astype(np.float32).view(np.uint32)
nan_bf16 = ((f32bits >> 16) | 0x40).astype(np.uint16)
want = np.where(np.isnan(x), nan_bf16, want)
expect_equal("f16->bf16", h, convert(x, "bf16"), want)

for dt in ["i8", "i16", "i32", "i64", "u8", "bool"]:
    got = convert(x, dt)
    npdt = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
            "u8": np.uint8, "bool": np.bool_}[dt]
    with np.errstate(invalid="ignore"):
        ref_np = x.astype(npdt)
    # numpy's result for inf/NaN -> int is platform-defined; ours is 0.
    expect_equal("f16->%s vs numpy" % dt, h, got, ref_np,
                 mask=finite | (dt == "bool"))
    ref = np.array([int_ref(float(v) if dt == "bool" or not math.isfinite(v)
                            else math.trunc(float(v)), dt, False)
                    for v in x]).astype(npdt)
    expect_equal("f16->%s" % dt, h, got, ref)

# All bf16 patterns: to f32 exactly (a shift), to f16 by exact rounding.
b = np.arange(65536, dtype=np.uint32).astype(np.uint16)
bf_as_f32 = (b.astype(np.uint32) << 16).view(np.float32)
expect_equal("bf16->f32", b, convert(b, "f32"), bf_as_f32)
want16 = np.array([float_ref(float(v), "f16", "default", False) for v in bf_as_f32],
                  dtype=np.float16)
nan_mask = np.isnan(bf_as_f32)
got16 = convert(b, "f16")
expect_equal("bf16->f16", b, got16, want16, mask=~nan_mask)
if not np.isnan(got16[nan_mask]).all():
    FAILURES.append("bf16->f16: a NaN became a number")
# f32 -> bf16 quietens a signalling NaN (as bf16 hardware does).
quiet = np.where(nan_mask, b | 0x40, b).astype(np.uint16)
expect_equal("bf16->f32->bf16", b, convert(convert(b, "f32"), "bf16"), quiet)

finish("f16 and bf16: all 65536 patterns ok")
