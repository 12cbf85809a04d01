/* tquant as LLVM IR (Emit.h): per-row int8 quantisation with given
 * scales, in f32 as the interpreter computes it (lib/Kernels/KernelQuant.c):
 * q = clamp(rint(x / s), -127, 127), 0 for NaN and on rows of scale 0. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

PtoResult pto_emit_quant(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                         PtoEmitTile scale, LLVMValueRef rows,
                         LLVMValueRef cols, PtoError *err) {
  bool fp = src.dtype == PTO_DT_F32 || src.dtype == PTO_DT_F16 || src.dtype == PTO_DT_BF16;
  if (!fp || scale.dtype != PTO_DT_F32 || dst.dtype != PTO_DT_I8)
    return pto_error_set(err, "a quantisation takes a float tile and f32 "
                         "scales to i8, not %s, %s -> %s",
                         pto_dtype_ir_name(src.dtype), pto_dtype_ir_name(scale.dtype),
                         pto_dtype_ir_name(dst.dtype));
  LLVMValueRef zero = pto_emit_i64(e, 0);
  PtoEmitLoop lr, lc;
  pto_emit_loop_begin(e, &lr, zero, rows, 1, 0, NULL);
  LLVMValueRef s = pto_emit_load(e, PTO_DT_F32, pto_emit_elem_ptr(e, scale, lr.iv, zero), 0);
  LLVMValueRef s_zero = LLVMBuildFCmp(B, LLVMRealOEQ, s, pto_emit_fconst(e, s, 0.0), "");
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 0, NULL);
  LLVMValueRef x = pto_emit_load(e, src.dtype, pto_emit_elem_ptr(e, src, lr.iv, lc.iv), 0);
  LLVMValueRef q = LLVMBuildFDiv(B, x, s, "");
  q = pto_emit_intrinsic(e, "llvm.rint", &q, 1);
  LLVMValueRef lo = pto_emit_fconst(e, q, -127.0), hi = pto_emit_fconst(e, q, 127.0);
  q = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, q, lo, ""), lo, q, "");
  q = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, q, hi, ""), hi, q, "");
  /* NaN and a zero scale give 0; what is left is in [-127, 127] */
  LLVMValueRef none = LLVMBuildOr(B, s_zero, LLVMBuildFCmp(B, LLVMRealUNO, q, q, ""), "");
  q = LLVMBuildSelect(B, none, pto_emit_fconst(e, q, 0.0), q, "");
  pto_emit_store_bits(e, PTO_DT_I8, pto_emit_elem_ptr(e, dst, lr.iv, lc.iv),
                      LLVMBuildFPToSI(B, q, LLVMInt8TypeInContext(e->ctx), ""));
  pto_emit_loop_end(e, &lc);
  pto_emit_loop_end(e, &lr);
  return PTO_SUCCESS;
}
