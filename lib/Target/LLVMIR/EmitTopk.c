/* ttopk as LLVM IR (Emit.h): a selection per row, k passes over the row,
 * each taking the best element after the previous pass's in one total
 * order (value, NaN above every number, then the lower column), so that
 * the result is the interpreter's bit for bit, ties and NaN included. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

static bool topk_dtype(PtoDType dt) {
  return dt == PTO_DT_F32 || dt == PTO_DT_F16 || dt == PTO_DT_BF16 ||
         dt == PTO_DT_I32 || dt == PTO_DT_I16 || dt == PTO_DT_I8;
}

/* Whether (a, ia) comes before (b, ib): for the largest, greater values
 * first and NaN above every number; for the smallest, the reverse order
 * of the values; equal values (and two NaN) by the lower column. */
static LLVMValueRef before(PtoEmit *e, bool fp, bool largest, LLVMValueRef a,
                           LLVMValueRef ia, LLVMValueRef b, LLVMValueRef ib) {
  LLVMValueRef lower = LLVMBuildICmp(B, LLVMIntSLT, ia, ib, "");
  if (!fp) {
    LLVMValueRef gt = LLVMBuildICmp(B, largest ? LLVMIntSGT : LLVMIntSLT, a, b, "");
    LLVMValueRef eq = LLVMBuildICmp(B, LLVMIntEQ, a, b, "");
    return LLVMBuildOr(B, gt, LLVMBuildAnd(B, eq, lower, ""), "");
  }
  LLVMValueRef na = LLVMBuildFCmp(B, LLVMRealUNO, a, a, "");
  LLVMValueRef nb = LLVMBuildFCmp(B, LLVMRealUNO, b, b, "");
  LLVMValueRef gt = LLVMBuildFCmp(B, largest ? LLVMRealOGT : LLVMRealOLT, a, b, "");
  LLVMValueRef eq = LLVMBuildFCmp(B, LLVMRealOEQ, a, b, "");
  LLVMValueRef numbers = LLVMBuildOr(B, gt, LLVMBuildAnd(B, eq, lower, ""), "");
  LLVMValueRef t = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
  LLVMValueRef f = LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0);
  /* a NaN: first among the largest, last among the smallest */
  LLVMValueRef a_nan = LLVMBuildSelect(B, nb, lower, largest ? t : f, "");
  LLVMValueRef b_nan = largest ? f : t;
  return LLVMBuildSelect(B, na, a_nan, LLVMBuildSelect(B, nb, b_nan, numbers, ""), "");
}

PtoResult pto_emit_topk(PtoEmit *e, PtoEmitTile values, PtoEmitTile indices,
                        PtoEmitTile src, LLVMValueRef rows, LLVMValueRef cols,
                        int64_t k, bool largest, PtoError *err) {
  if (!topk_dtype(src.dtype) || values.dtype != src.dtype)
    return pto_error_set(err, "topk of %s into %s tiles has no LLVM "
                         "translation yet", pto_dtype_name(src.dtype),
                         pto_dtype_name(values.dtype));
  if (indices.dtype != PTO_DT_I32)
    return pto_error_set(err, "topk indices of %s have no LLVM translation yet",
                         pto_dtype_name(indices.dtype));
  bool fp = src.dtype == PTO_DT_F32 || src.dtype == PTO_DT_F16 ||
            src.dtype == PTO_DT_BF16;
  LLVMTypeRef ct = pto_emit_compute_type(e, src.dtype);
  LLVMValueRef zero = pto_emit_i64(e, 0), none = pto_emit_i64(e, -1);
  PtoEmitLoop lr, lj, lc;
  pto_emit_loop_begin(e, &lr, zero, rows, 1, 0, NULL);
  LLVMValueRef r = lr.iv;
  /* carried: the previous pass's pick (none before the first) */
  LLVMValueRef init[2] = {LLVMConstNull(ct), none};
  pto_emit_loop_begin(e, &lj, zero, pto_emit_i64(e, k), 1, 2, init);
  LLVMValueRef prev = lj.carry[0], prev_i = lj.carry[1];
  LLVMValueRef binit[2] = {LLVMConstNull(ct), none};
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 2, binit);
  LLVMValueRef c = lc.iv, best = lc.carry[0], best_i = lc.carry[1];
  LLVMValueRef x = pto_emit_load(e, src.dtype, pto_emit_elem_ptr(e, src, r, c), 0);
  /* a candidate comes after the previous pick, and is taken when it comes
   * before the best so far */
  LLVMValueRef after = LLVMBuildOr(
      B, LLVMBuildICmp(B, LLVMIntSLT, prev_i, zero, ""),
      before(e, fp, largest, prev, prev_i, x, c), "");
  LLVMValueRef better = LLVMBuildOr(
      B, LLVMBuildICmp(B, LLVMIntSLT, best_i, zero, ""),
      before(e, fp, largest, x, c, best, best_i), "");
  LLVMValueRef take = LLVMBuildAnd(B, after, better, "");
  lc.next[0] = LLVMBuildSelect(B, take, x, best, "");
  lc.next[1] = LLVMBuildSelect(B, take, c, best_i, "");
  pto_emit_loop_end(e, &lc);
  LLVMValueRef pick = lc.carry[0], pick_i = lc.carry[1];
  /* the value's bits as the source holds them (NaN payloads too) */
  LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, (unsigned)(8 * pto_dtype_size(src.dtype)));
  LLVMTypeRef itp = LLVMPointerType(it, 0);
  LLVMValueRef bits = LLVMBuildLoad2(
      B, it, LLVMBuildBitCast(B, pto_emit_elem_ptr(e, src, r, pick_i), itp, ""), "");
  LLVMSetAlignment(bits, (unsigned)pto_dtype_size(src.dtype));
  LLVMValueRef st = LLVMBuildStore(
      B, bits, LLVMBuildBitCast(B, pto_emit_elem_ptr(e, values, r, lj.iv), itp, ""));
  LLVMSetAlignment(st, (unsigned)pto_dtype_size(src.dtype));
  LLVMValueRef idx = LLVMBuildTrunc(B, pick_i, LLVMInt32TypeInContext(e->ctx), "");
  pto_emit_store(e, indices.dtype, pto_emit_elem_ptr(e, indices, r, lj.iv), idx);
  lj.next[0] = pick;
  lj.next[1] = pick_i;
  pto_emit_loop_end(e, &lj);
  pto_emit_loop_end(e, &lr);
  return PTO_SUCCESS;
}
