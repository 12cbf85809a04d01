/* The float destinations of tcvt (Emit.h): the f32 value whose rounding
 * to nearest even by the store (pto_emit_store) is the interpreter's
 * single rounding (lib/Array/Cast.c), with the saturation it asks for. */
#include <math.h>

#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

LLVMValueRef pto_emit_int_to_f32_round(PtoEmit *e, PtoRoundMode mode, PtoDType from,
                                       LLVMValueRef x) {
  LLVMTypeRef i64 = pto_emit_vec_type(LLVMInt64TypeInContext(e->ctx), pto_emit_lanes_of(x));
  LLVMTypeRef f32 = pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), pto_emit_lanes_of(x));
  if (from != PTO_DT_I64 && from != PTO_DT_U64) x = pto_emit_int_widen(e, from, x, i64);
  LLVMValueRef zero = LLVMConstNull(i64), one = pto_emit_iconst_like(x, 1);
  /* a ui64 is its own magnitude, up to 2^64 - 1 */
  LLVMValueRef neg = from == PTO_DT_U64
                         ? LLVMConstNull(pto_emit_vec_type(LLVMInt1TypeInContext(e->ctx),
                                                           pto_emit_lanes_of(x)))
                         : LLVMBuildICmp(B, LLVMIntSLT, x, zero, "");
  /* |MIN| = 2^63 is right as an unsigned magnitude */
  LLVMValueRef mag = LLVMBuildSelect(B, neg, LLVMBuildSub(B, zero, x, ""), x, "");
  LLVMValueRef args[2] = {mag, LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0)};
  LLVMValueRef drop = LLVMBuildSub(B, pto_emit_iconst_like(x, 40),
                                   pto_emit_intrinsic(e, "llvm.ctlz", args, 2), "");
  drop = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, drop, zero, ""), zero, drop, "");
  LLVMValueRef unit = LLVMBuildShl(B, one, drop, "");
  LLVMValueRef low = LLVMBuildAnd(B, mag, LLVMBuildSub(B, unit, one, ""), "");
  LLVMValueRef inexact = LLVMBuildICmp(B, LLVMIntNE, low, zero, "");
  LLVMValueRef up; /* the magnitude goes up to the next multiple of unit */
  switch (mode) {
  case PTO_ROUND_FLOOR: up = LLVMBuildAnd(B, neg, inexact, ""); break;
  case PTO_ROUND_CEIL: up = LLVMBuildAnd(B, LLVMBuildNot(B, neg, ""), inexact, ""); break;
  case PTO_ROUND_ROUND: /* half away from zero: low >= unit / 2 */
    up = LLVMBuildAnd(B, inexact,
                      LLVMBuildICmp(B, LLVMIntUGE, low, LLVMBuildLShr(B, unit, one, ""), ""), "");
    break;
  default: up = LLVMConstNull(LLVMTypeOf(neg)); break; /* trunc; odd below */
  }
  /* below 2^63 + 2^40: no wrap, and 24 significant bits convert exactly */
  LLVMValueRef kept = LLVMBuildAdd(B, LLVMBuildSub(B, mag, low, ""),
                                   LLVMBuildSelect(B, up, unit, zero, ""), "");
  if (mode == PTO_ROUND_ODD) /* an inexact one keeps its last bit set */
    kept = LLVMBuildOr(B, kept, LLVMBuildSelect(B, inexact, unit, zero, ""), "");
  LLVMValueRef r = LLVMBuildUIToFP(B, kept, f32, "");
  if (from == PTO_DT_U64) /* past 2^64 - 2^40 the magnitude rounds up to 2^64, kept to 0 */
    r = LLVMBuildSelect(B, LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, kept, zero, ""),
                                        LLVMBuildICmp(B, LLVMIntNE, mag, zero, ""), ""),
                        pto_emit_fconst(e, r, 0x1p64), r, "");
  return LLVMBuildSelect(B, neg, LLVMBuildFNeg(B, r, ""), r, "");
}

LLVMValueRef pto_emit_cast_to_float(PtoEmit *e, PtoSatMode sat, PtoDType from,
                                    PtoDType to, LLVMValueRef x) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx);
  if (pto_emit_is_int(from))
    /* rounded to odd, rounding that again to bf16 is the single rounding
     * of the integer */
    x = pto_emit_int_past_f32(from) && to == PTO_DT_BF16
            ? pto_emit_int_to_f32_round(e, PTO_ROUND_ODD, from, x)
        : pto_emit_is_uint(from) ? LLVMBuildUIToFP(B, x, f32, "")
                                 : LLVMBuildSIToFP(B, x, f32, "");
  if (sat != PTO_SAT_SATURATE || to == PTO_DT_F32) return x; /* f32 holds them all */
  /* a finite value beyond the largest finite one would round to inf:
   * clamping it first gives the largest; inf and NaN pass */
  double max = to == PTO_DT_F16 ? 65504.0 : 0x1.fep127;
  LLVMValueRef inf = pto_emit_fconst(e, x, INFINITY), ax = pto_emit_intrinsic(e, "llvm.fabs", &x, 1);
  LLVMValueRef over = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGT, ax, pto_emit_fconst(e, x, max), ""),
                                   LLVMBuildFCmp(B, LLVMRealONE, ax, inf, ""), "");
  LLVMValueRef args[2] = {pto_emit_fconst(e, x, max), x};
  return LLVMBuildSelect(B, over, pto_emit_intrinsic(e, "llvm.copysign", args, 2), x, "");
}

/* The 16-bit float next to the one of bits h (an i16) toward +inf when up
 * (an i1), else toward -inf, as the interpreter steps: sign-magnitude
 * bits ordered as integers, and a step onto zero keeps h's sign. */
static LLVMValueRef step16(PtoEmit *e, LLVMValueRef h, LLVMValueRef up) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx), i16 = LLVMTypeOf(h);
  LLVMValueRef w = LLVMBuildSExt(B, h, i32, "");
  LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, w, LLVMConstNull(i32), "");
  LLVMValueRef mag = LLVMBuildAnd(B, w, LLVMConstInt(i32, 0x7fff, 0), "");
  LLVMValueRef ord = LLVMBuildSelect(B, neg, LLVMBuildNeg(B, mag, ""), mag, "");
  ord = LLVMBuildAdd(B, ord,
                     LLVMBuildSelect(B, up, LLVMConstInt(i32, 1, 0),
                                     LLVMConstAllOnes(i32), ""), "");
  LLVMValueRef back = LLVMBuildSelect(
      B, LLVMBuildICmp(B, LLVMIntSLT, ord, LLVMConstNull(i32), ""),
      LLVMBuildOr(B, LLVMBuildNeg(B, ord, ""), LLVMConstInt(i32, 0x8000, 0), ""), ord, "");
  LLVMValueRef zero = LLVMBuildSelect(B, neg, LLVMConstInt(i32, 0x8000, 0),
                                      LLVMConstNull(i32), "");
  back = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, ord, LLVMConstNull(i32), ""),
                         zero, back, "");
  return LLVMBuildTrunc(B, back, i16, "");
}

static LLVMValueRef bits16(PtoEmit *e, PtoDType to, LLVMValueRef x) {
  LLVMValueRef s = pto_emit_to_storage(e, to, x);
  return to == PTO_DT_F16 ? LLVMBuildBitCast(B, s, LLVMInt16TypeInContext(e->ctx), "") : s;
}

static LLVMValueRef value16(PtoEmit *e, PtoDType to, LLVMValueRef h) {
  if (to == PTO_DT_F16) h = LLVMBuildBitCast(B, h, LLVMHalfTypeInContext(e->ctx), "");
  return pto_emit_from_storage(e, to, h);
}

LLVMValueRef pto_emit_round_directed16(PtoEmit *e, PtoRoundMode mode, PtoDType to,
                                       LLVMValueRef x) {
  LLVMValueRef h = bits16(e, to, x), r = value16(e, to, h);
  LLVMValueRef step, up;
  switch (mode) {
  case PTO_ROUND_FLOOR:
    step = LLVMBuildFCmp(B, LLVMRealOGT, r, x, "");
    up = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0);
    break;
  case PTO_ROUND_CEIL:
    step = LLVMBuildFCmp(B, LLVMRealOLT, r, x, "");
    up = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
    break;
  case PTO_ROUND_ROUND: {
    /* a tie (x - r and o - x are exact) goes to the larger magnitude */
    up = LLVMBuildFCmp(B, LLVMRealOGT, x, r, "");
    LLVMValueRef o = value16(e, to, step16(e, h, up));
    LLVMValueRef tie = LLVMBuildFCmp(B, LLVMRealOEQ, LLVMBuildFSub(B, x, r, ""),
                                     LLVMBuildFSub(B, o, x, ""), "");
    LLVMValueRef ao = pto_emit_intrinsic(e, "llvm.fabs", &o, 1);
    LLVMValueRef ar = pto_emit_intrinsic(e, "llvm.fabs", &r, 1);
    step = LLVMBuildAnd(B, LLVMBuildAnd(B, tie, LLVMBuildFCmp(B, LLVMRealOGT, ao, ar, ""), ""),
                        LLVMBuildFCmp(B, LLVMRealONE, r, x, ""), "");
    break;
  }
  default: { /* trunc: toward zero */
    LLVMValueRef ax = pto_emit_intrinsic(e, "llvm.fabs", &x, 1);
    LLVMValueRef ar = pto_emit_intrinsic(e, "llvm.fabs", &r, 1);
    step = LLVMBuildFCmp(B, LLVMRealOGT, ar, ax, "");
    up = LLVMBuildFCmp(B, LLVMRealOLT, r, pto_emit_fconst(e, r, 0.0), "");
    break;
  }
  }
  LLVMValueRef d = value16(e, to, LLVMBuildSelect(B, step, step16(e, h, up), h, ""));
  /* NaN goes to the store as it is: its conversion there is the default
   * one's */
  return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNO, x, x, ""), x, d, "");
}

/* ---- the 8-bit floats (lib/Array/Cast.c's rules, as integer code) ----
 *
 * Each conversion is straight-line i32 arithmetic and selects on one
 * element, which the loop vectoriser widens like any other elementwise
 * step: no call per element, no table. */

/* The signed formats' fields: mantissa bits, bias, largest finite code. */
typedef struct F8Fields {
  int mbits, bias;
  unsigned max_code;
} F8Fields;

static F8Fields f8_fields(PtoDType dt) {
  return dt == PTO_DT_F8E4M3   ? (F8Fields){3, 7, 0x7e}
         : dt == PTO_DT_F8E5M2 ? (F8Fields){2, 15, 0x7b}
                               : (F8Fields){0, 127, 0xfe};
}

#define I32C(v) pto_emit_iconst(e, like, (int64_t)(v))

LLVMValueRef pto_emit_f8_to_f32(PtoEmit *e, PtoDType from, LLVMValueRef x) {
  unsigned lanes = pto_emit_lanes_of(x);
  LLVMTypeRef i32 = pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes);
  LLVMTypeRef f32 = pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), lanes);
  LLVMValueRef c = LLVMBuildZExt(B, x, i32, ""), like = c;
  LLVMValueRef qnan = I32C(0x7fc00000), bits;
  if (from == PTO_DT_F8E8M0) {
    /* 2^(c - 127): the code is the f32 exponent field; 2^-127 is the
     * f32 denormal 0x00400000 */
    bits = LLVMBuildShl(B, c, I32C(23), "");
    bits = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, c, I32C(0), ""),
                           I32C(0x00400000), bits, "");
    bits = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, c, I32C(0xff), ""), qnan,
                           bits, "");
    return LLVMBuildBitCast(B, bits, f32, "");
  }
  F8Fields f = f8_fields(from);
  LLVMValueRef sign = LLVMBuildShl(B, LLVMBuildAnd(B, c, I32C(0x80), ""), I32C(24), "");
  LLVMValueRef mag = LLVMBuildAnd(B, c, I32C(0x7f), "");
  /* normal: the fields moved into place, the exponent rebiased */
  LLVMValueRef normal = LLVMBuildAdd(B, LLVMBuildShl(B, mag, I32C(23 - f.mbits), ""),
                                     I32C((127 - f.bias) << 23), "");
  /* subnormal: m * 2^(1 - bias - mbits), exact in f32 (no f32 denormal) */
  LLVMValueRef sub = LLVMBuildFMul(B, LLVMBuildUIToFP(B, mag, f32, ""),
                                   pto_emit_fconst(e, c, ldexp(1.0, 1 - f.bias - f.mbits)),
                                   "");
  sub = LLVMBuildBitCast(B, sub, i32, "");
  bits = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, mag, I32C(1 << f.mbits), ""),
                         sub, normal, "");
  if (from == PTO_DT_F8E5M2) { /* E5M2 has infinities and several NaNs */
    bits = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, mag, I32C(0x7c), ""),
                           I32C(0x7f800000), bits, "");
    bits = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, mag, I32C(0x7c), ""), qnan,
                           bits, "");
  } else { /* E4M3FN: S.1111.111 alone is NaN */
    bits = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, mag, I32C(0x7f), ""), qnan,
                           bits, "");
  }
  return LLVMBuildBitCast(B, LLVMBuildOr(B, bits, sign, ""), f32, "");
}

/* The f32 value x (exact, or rounded to odd from a 32-bit integer) as the
 * 8-bit float `to` under `mode`. The magnitude is truncated to the
 * format's precision as a code T (codes are ordered as the magnitudes,
 * and the increment from a binade's last code reaches the next binade's
 * first) with the dropped bits `rem` measured against `half`; the mode
 * then adds 0 or 1. A result past the largest finite code is an overflow:
 * infinity (E5M2), NaN (E4M3FN, E8M0FNU) or, saturating, the largest
 * finite value; modes that round the magnitude down stop at the largest
 * finite value, as IEEE's directed overflow and the interpreter's steps
 * from infinity do. */
static LLVMValueRef f32_to_f8(PtoEmit *e, PtoCastMode mode, PtoDType to, LLVMValueRef x) {
  unsigned lanes = pto_emit_lanes_of(x);
  LLVMTypeRef i32 = pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes);
  LLVMTypeRef i8 = pto_emit_vec_type(LLVMInt8TypeInContext(e->ctx), lanes);
  LLVMTypeRef i1 = pto_emit_vec_type(LLVMInt1TypeInContext(e->ctx), lanes);
  LLVMValueRef u = LLVMBuildBitCast(B, x, i32, ""), like = u;
  LLVMValueRef a = LLVMBuildAnd(B, u, I32C(0x7fffffff), "");
  LLVMValueRef ef = LLVMBuildLShr(B, a, I32C(23), "");
  LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, u, I32C(0), "");
  LLVMValueRef isnan = LLVMBuildICmp(B, LLVMIntUGT, a, I32C(0x7f800000), "");
  LLVMValueRef isinf = LLVMBuildICmp(B, LLVMIntEQ, a, I32C(0x7f800000), "");
  bool sat = mode.sat == PTO_SAT_SATURATE, e8m0 = to == PTO_DT_F8E8M0;
  F8Fields f = f8_fields(to);
  LLVMValueRef T, rem, half, lsb;
  if (e8m0) {
    /* 2^E's code is E + 127, the f32 exponent field; below 2^-126 only
     * the denormals from 2^-127 up round, everything smaller is 2^-127 */
    LLVMValueRef sub = LLVMBuildICmp(B, LLVMIntEQ, ef, I32C(0), "");
    T = ef;
    rem = LLVMBuildSelect(
        B, sub,
        LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, a, I32C(0x00400000), ""),
                        LLVMBuildAnd(B, a, I32C(0x3fffff), ""), I32C(0), ""),
        LLVMBuildAnd(B, a, I32C(0x7fffff), ""), "");
    half = LLVMBuildSelect(B, sub, I32C(0x200000), I32C(0x400000), "");
    lsb = LLVMConstAllOnes(i1); /* the significand is 1: a tie goes up */
    neg = LLVMConstNull(i1);
  } else {
    int emin = 1 - f.bias;
    LLVMValueRef zero_e = LLVMBuildICmp(B, LLVMIntEQ, ef, I32C(0), "");
    LLVMValueRef efe = LLVMBuildSelect(B, zero_e, I32C(1), ef, "");
    LLVMValueRef sig = LLVMBuildOr(B, LLVMBuildAnd(B, a, I32C(0x7fffff), ""),
                                   LLVMBuildSelect(B, zero_e, I32C(0), I32C(0x800000), ""),
                                   "");
    /* the exponent of the result's quantum: the value's, or the
     * subnormals' below emin */
    LLVMValueRef E = LLVMBuildSub(B, efe, I32C(127), "");
    LLVMValueRef et = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, E, I32C(emin), ""),
                                      I32C(emin), E, "");
    LLVMValueRef sh = LLVMBuildSub(B, LLVMBuildAdd(B, et, I32C(150 - f.mbits), ""), efe, "");
    /* sh >= 23 - mbits; beyond 31 every bit of sig is below half */
    sh = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, sh, I32C(31), ""), I32C(31), sh, "");
    LLVMValueRef n = LLVMBuildLShr(B, sig, sh, "");
    rem = LLVMBuildAnd(B, sig, LLVMBuildSub(B, LLVMBuildShl(B, I32C(1), sh, ""), I32C(1), ""),
                       "");
    half = LLVMBuildShl(B, I32C(1), LLVMBuildSub(B, sh, I32C(1), ""), "");
    T = LLVMBuildAdd(B, LLVMBuildShl(B, LLVMBuildSub(B, et, I32C(emin), ""), I32C(f.mbits), ""),
                     n, "");
    lsb = LLVMBuildTrunc(B, n, i1, "");
  }
  LLVMValueRef max = I32C(f.max_code);
  LLVMValueRef sticky = LLVMBuildICmp(B, LLVMIntNE, rem, I32C(0), "");
  LLVMValueRef gt = LLVMBuildICmp(B, LLVMIntUGT, rem, half, "");
  LLVMValueRef tie = LLVMBuildICmp(B, LLVMIntEQ, rem, half, "");
  LLVMValueRef rne = LLVMBuildOr(B, gt, LLVMBuildAnd(B, tie, lsb, ""), "");
  LLVMValueRef no = LLVMConstNull(i1), up, C;
  bool clamp = false; /* the magnitude rounds down: overflow stops at max */
  switch (mode.round) {
  case PTO_ROUND_ROUND:
    /* a tie goes away from zero, past the largest finite value too,
     * where it overflows below (E4M3FN's 464: NaN, or 448 saturating) */
    up = LLVMBuildOr(B, gt, tie, "");
    break;
  case PTO_ROUND_FLOOR:
    up = LLVMBuildAnd(B, neg, sticky, "");
    break;
  case PTO_ROUND_CEIL:
    up = LLVMBuildAnd(B, LLVMBuildNot(B, neg, ""), sticky, "");
    break;
  case PTO_ROUND_TRUNC:
    up = no;
    clamp = true;
    break;
  default: /* rint (the IR has no rounding to odd) */
    up = rne;
    break;
  }
  C = LLVMBuildAdd(B, T, LLVMBuildZExt(B, up, i32, ""), "");
  LLVMValueRef down = clamp                            ? LLVMConstAllOnes(i1)
                      : mode.round == PTO_ROUND_FLOOR ? LLVMBuildNot(B, neg, "")
                      : mode.round == PTO_ROUND_CEIL  ? neg
                                                      : no;
  LLVMValueRef over = LLVMBuildICmp(B, LLVMIntUGT, C, max, "");
  LLVMValueRef nan = I32C(e8m0 ? 0xff : 0x7f);
  LLVMValueRef overflow = sat ? max : to == PTO_DT_F8E5M2 ? I32C(0x7c) : nan;
  C = LLVMBuildSelect(B, over, LLVMBuildSelect(B, down, max, overflow, ""), C, "");
  /* the inputs the rounding does not see */
  LLVMValueRef inf = to == PTO_DT_F8E5M2 ? I32C(0x7c) : sat ? max : nan;
  C = LLVMBuildSelect(B, isinf, inf, C, "");
  C = LLVMBuildSelect(B, isnan, nan, C, "");
  if (e8m0) { /* no sign: a negative value (not -0) is NaN */
    LLVMValueRef negv = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSLT, u, I32C(0), ""),
                                     LLVMBuildICmp(B, LLVMIntNE, a, I32C(0), ""), "");
    C = LLVMBuildSelect(B, negv, nan, C, "");
  } else {
    C = LLVMBuildOr(B, C, LLVMBuildAnd(B, LLVMBuildLShr(B, u, I32C(24), ""), I32C(0x80), ""),
                    "");
  }
  return LLVMBuildTrunc(B, C, i8, "");
}

LLVMValueRef pto_emit_cast_to_f8(PtoEmit *e, PtoCastMode mode, PtoDType from,
                                 PtoDType to, LLVMValueRef x) {
  if (pto_emit_int_past_f32(from))
    /* rounding it again is the single rounding */
    x = pto_emit_int_to_f32_round(e, PTO_ROUND_ODD, from, x);
  else if (pto_emit_is_int(from))
  {
    LLVMTypeRef f32 = pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), pto_emit_lanes_of(x));
    x = pto_emit_is_uint(from) ? LLVMBuildUIToFP(B, x, f32, "") : LLVMBuildSIToFP(B, x, f32, "");
  }
  return f32_to_f8(e, mode, to, x);
}
