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
  if (from != PTO_DT_I64) x = pto_emit_int_widen(e, from, x, i64);
  LLVMValueRef zero = LLVMConstNull(i64), one = pto_emit_iconst_like(x, 1);
  LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, x, zero, "");
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
  return LLVMBuildSelect(B, neg, LLVMBuildFNeg(B, r, ""), r, "");
}

LLVMValueRef pto_emit_cast_to_float(PtoEmit *e, PtoSatMode sat, PtoDType from,
                                    PtoDType to, LLVMValueRef x) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx);
  if (pto_emit_is_int(from))
    /* rounded to odd, rounding that again to bf16 is the single rounding
     * of the integer */
    x = (from == PTO_DT_I32 || from == PTO_DT_U32 || from == PTO_DT_I64) && to == PTO_DT_BF16
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
