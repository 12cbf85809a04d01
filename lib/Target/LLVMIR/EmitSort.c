/* tsort32 and tmrgsort as LLVM IR (Emit.h): each window of w elements of
 * each row sorted in descending order, stably, NaN above every number, as
 * the interpreter sorts (pto_kernel_topk). Every element's place is its
 * rank, counted against the whole window: branch-free compares that
 * vectorise, w^2 per window, and no assumption that the runs tmrgsort
 * merges are sorted (the result is the interpreter's whatever they hold). */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

PtoResult pto_emit_sort(PtoEmit *e, PtoEmitTile dst, PtoEmitTile dst_index,
                        PtoEmitTile src, const PtoEmitTile *src_index,
                        LLVMValueRef rows, int64_t cols, int64_t window,
                        PtoError *err) {
  bool fp = src.dtype == PTO_DT_F32 || src.dtype == PTO_DT_F16 || src.dtype == PTO_DT_BF16;
  if (!fp || dst.dtype != src.dtype || dst_index.dtype != PTO_DT_I32 ||
      (src_index && src_index->dtype != PTO_DT_I32))
    return pto_error_set(err, "a sort takes float values and i32 indices, not %s",
                         pto_dtype_ir_name(src.dtype));
  if (window < 1 || cols % window)
    return pto_error_set(err, "rows of %lld elements are not whole windows of %lld",
                         (long long)cols, (long long)window);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->ctx);
  LLVMValueRef zero = pto_emit_i64(e, 0), w = pto_emit_i64(e, window);
  PtoEmitLoop lr, lb, li, lj;
  pto_emit_loop_begin(e, &lr, zero, rows, 1, 0, NULL);
  pto_emit_loop_begin(e, &lb, zero, pto_emit_i64(e, cols), window, 0, NULL);
  pto_emit_loop_begin(e, &li, zero, w, 1, 0, NULL);
  LLVMValueRef ci = LLVMBuildAdd(B, lb.iv, li.iv, "");
  LLVMValueRef xi = pto_emit_load(e, src.dtype, pto_emit_elem_ptr(e, src, lr.iv, ci), 0);
  LLVMValueRef nan_i = LLVMBuildFCmp(B, LLVMRealUNO, xi, xi, "");
  pto_emit_loop_begin(e, &lj, zero, w, 1, 1, &zero);
  LLVMValueRef xj = pto_emit_load(
      e, src.dtype, pto_emit_elem_ptr(e, src, lr.iv, LLVMBuildAdd(B, lb.iv, lj.iv, "")), 0);
  LLVMValueRef nan_j = LLVMBuildFCmp(B, LLVMRealUNO, xj, xj, "");
  /* j goes before i: larger, or NaN over a number, or equal (NaN to NaN)
   * and earlier */
  LLVMValueRef above = LLVMBuildOr(
      B, LLVMBuildFCmp(B, LLVMRealOGT, xj, xi, ""),
      LLVMBuildAnd(B, nan_j, LLVMBuildNot(B, nan_i, ""), ""), "");
  LLVMValueRef same = LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealOEQ, xj, xi, ""),
                                  LLVMBuildAnd(B, nan_j, nan_i, ""), "");
  LLVMValueRef before = LLVMBuildOr(
      B, above, LLVMBuildAnd(B, same, LLVMBuildICmp(B, LLVMIntSLT, lj.iv, li.iv, ""), ""),
      "");
  lj.next[0] = LLVMBuildAdd(B, lj.carry[0], LLVMBuildZExt(B, before, i64, ""), "");
  pto_emit_loop_end(e, &lj);
  LLVMValueRef at = LLVMBuildAdd(B, lb.iv, lj.carry[0], "");
  pto_emit_store_bits(e, src.dtype, pto_emit_elem_ptr(e, dst, lr.iv, at),
                      pto_emit_load_bits(e, src.dtype, pto_emit_elem_ptr(e, src, lr.iv, ci)));
  LLVMValueRef ix =
      src_index ? pto_emit_load_bits(e, PTO_DT_I32, pto_emit_elem_ptr(e, *src_index, lr.iv, ci))
                : LLVMBuildTrunc(B, ci, LLVMInt32TypeInContext(e->ctx), "");
  pto_emit_store_bits(e, PTO_DT_I32, pto_emit_elem_ptr(e, dst_index, lr.iv, at), ix);
  pto_emit_loop_end(e, &li);
  pto_emit_loop_end(e, &lb);
  pto_emit_loop_end(e, &lr);
  return PTO_SUCCESS;
}
