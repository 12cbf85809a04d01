/* The float destinations of tcvt (Emit.h): the f32 value whose rounding
 * to nearest even by the store (pto_emit_store) is the interpreter's
 * single rounding (lib/Array/Cast.c), with the saturation it asks for. */
#include <math.h>

#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

/* i32 -> f32 rounded to odd: exact results stay, inexact ones take the
 * neighbour toward zero with its last bit set. Rounding that again to a
 * narrower format (bf16) is the single rounding of the integer. */
static LLVMValueRef i32_to_f32_odd(PtoEmit *e, LLVMValueRef x) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx), i32 = LLVMInt32TypeInContext(e->ctx),
              i64 = LLVMInt64TypeInContext(e->ctx);
  LLVMValueRef r = LLVMBuildSIToFP(B, x, f32, "");
  /* |r| <= 2^31 is an integer: its i64 is exact */
  LLVMValueRef back = LLVMBuildFPToSI(B, r, i64, ""), x64 = LLVMBuildSExt(B, x, i64, "");
  LLVMValueRef bits = LLVMBuildBitCast(B, r, i32, "");
  /* the magnitude went up: one step down in magnitude is toward zero */
  LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, x64, LLVMConstInt(i64, 0, 0), "");
  LLVMValueRef up = LLVMBuildSelect(B, neg, LLVMBuildICmp(B, LLVMIntSLT, back, x64, ""),
                                    LLVMBuildICmp(B, LLVMIntSGT, back, x64, ""), "");
  bits = LLVMBuildSelect(B, up, LLVMBuildSub(B, bits, LLVMConstInt(i32, 1, 0), ""), bits, "");
  LLVMValueRef inexact = LLVMBuildICmp(B, LLVMIntNE, back, x64, "");
  bits = LLVMBuildSelect(B, inexact, LLVMBuildOr(B, bits, LLVMConstInt(i32, 1, 0), ""),
                         bits, "");
  return LLVMBuildBitCast(B, bits, f32, "");
}

LLVMValueRef pto_emit_cast_to_float(PtoEmit *e, PtoSatMode sat, PtoDType from,
                                    PtoDType to, LLVMValueRef x) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx);
  bool int_src = from == PTO_DT_I32 || from == PTO_DT_I16 || from == PTO_DT_I8;
  if (int_src)
    x = from == PTO_DT_I32 && to == PTO_DT_BF16 ? i32_to_f32_odd(e, x)
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
