/* Column sums of f16 and bf16 tiles as LLVM IR (Emit.h): each column
 * summed in an f32 register down the rows and rounded once to the tile's
 * type, as the interpreter rounds its sum once (the row-by-row vector form
 * of pto_emit_col_reduce would round at every row). */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

PtoResult pto_emit_col_sum_narrow(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                                  LLVMValueRef rows, LLVMValueRef cols,
                                  PtoError *err) {
  if (dst.dtype != src.dtype || (src.dtype != PTO_DT_F16 && src.dtype != PTO_DT_BF16))
    return pto_error_set(err, "a narrow column sum takes f16 or bf16 tiles, not %s",
                         pto_dtype_ir_name(src.dtype));
  LLVMValueRef zero = pto_emit_i64(e, 0), one = pto_emit_i64(e, 1);
  PtoEmitLoop lc, lr;
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 0, NULL);
  /* +0 + the first row (a column of -0 sums to +0, as the interpreter's
   * sum from +0 gives), then the others in order: the order of the f32
   * form */
  LLVMValueRef first = pto_emit_load(e, src.dtype, pto_emit_elem_ptr(e, src, zero, lc.iv), 0);
  first = LLVMBuildFAdd(B, first, LLVMConstReal(LLVMTypeOf(first), 0.0), "");
  pto_emit_loop_begin(e, &lr, one, rows, 1, 1, &first);
  lr.next[0] = LLVMBuildFAdd(
      B, lr.carry[0], pto_emit_load(e, src.dtype, pto_emit_elem_ptr(e, src, lr.iv, lc.iv), 0),
      "");
  pto_emit_loop_end(e, &lr);
  pto_emit_store(e, dst.dtype, pto_emit_elem_ptr(e, dst, zero, lc.iv), lr.carry[0]);
  pto_emit_loop_end(e, &lc);
  return PTO_SUCCESS;
}
