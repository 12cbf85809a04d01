/* ttopk and ttopk_merge as LLVM IR (Emit.h): a selection per row, k
 * passes over the row (for a merge, the two lists side by side), each
 * taking the best element after the previous pass's in one total order
 * (value, NaN above every number, then the lower position), so that the
 * result is the interpreter's bit for bit, ties and NaN included. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

static bool topk_dtype(PtoDType dt) {
  return pto_emit_is_float(dt) || pto_emit_is_int(dt);
}

/* Whether (a, ia) comes before (b, ib): for the largest, greater values
 * first and NaN above every number; for the smallest, the reverse order
 * of the values; equal values (and two NaN) by the lower column. */
static LLVMValueRef before(PtoEmit *e, PtoEmitNum num, bool largest, LLVMValueRef a,
                           LLVMValueRef ia, LLVMValueRef b, LLVMValueRef ib) {
  LLVMValueRef lower = LLVMBuildICmp(B, LLVMIntSLT, ia, ib, "");
  if (num != PTO_EMIT_NUM_FLOAT) {
    LLVMValueRef gt =
        LLVMBuildICmp(B, pto_emit_int_pred(num, largest ? LLVMIntSGT : LLVMIntSLT), a, b, "");
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

/* The row a selection walks: src's columns, or for a merge the columns
 * of src then those of src2 (n0 = src's count), with the index values
 * i0 / i1 they carry. */
typedef struct Lists {
  PtoEmitTile src, src2, i0, i1;
  LLVMValueRef n0; /* NULL: one list, its columns are the indices */
} Lists;

/* &element c of row r of the walked row, and of its index value. */
static LLVMValueRef at(PtoEmit *e, const Lists *l, PtoEmitTile a, PtoEmitTile b,
                       LLVMValueRef r, LLVMValueRef c) {
  if (!l->n0) return pto_emit_elem_ptr(e, a, r, c);
  LLVMValueRef first = LLVMBuildICmp(B, LLVMIntSLT, c, l->n0, "");
  return LLVMBuildSelect(B, first, pto_emit_elem_ptr(e, a, r, c),
                         pto_emit_elem_ptr(e, b, r, LLVMBuildSub(B, c, l->n0, "")), "");
}

static PtoResult select_k(PtoEmit *e, const Lists *l, PtoEmitTile values,
                          PtoEmitTile indices, LLVMValueRef rows, LLVMValueRef cols,
                          int64_t k, bool largest, PtoError *err) {
  PtoEmitTile src = l->src;
  if (!topk_dtype(src.dtype) || values.dtype != src.dtype ||
      (l->n0 && l->src2.dtype != src.dtype))
    return pto_error_set(err, "topk of %s into %s tiles has no LLVM "
                         "translation yet", pto_dtype_ir_name(src.dtype),
                         pto_dtype_ir_name(values.dtype));
  if (indices.dtype != PTO_DT_I32 ||
      (l->n0 && (l->i0.dtype != PTO_DT_I32 || l->i1.dtype != PTO_DT_I32)))
    return pto_error_set(err, "topk indices of %s have no LLVM translation yet",
                         pto_dtype_ir_name(indices.dtype));
  PtoEmitNum fp = pto_emit_num_of(src.dtype);
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
  LLVMValueRef x = pto_emit_load(e, src.dtype, at(e, l, src, l->src2, r, c), 0);
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
  pto_emit_store_bits(e, src.dtype, pto_emit_elem_ptr(e, values, r, lj.iv),
                      pto_emit_load_bits(e, src.dtype,
                                         at(e, l, src, l->src2, r, pick_i)));
  LLVMValueRef idx =
      l->n0 ? pto_emit_load_bits(e, PTO_DT_I32, at(e, l, l->i0, l->i1, r, pick_i))
            : LLVMBuildTrunc(B, pick_i, LLVMInt32TypeInContext(e->ctx), "");
  pto_emit_store(e, indices.dtype, pto_emit_elem_ptr(e, indices, r, lj.iv), idx);
  lj.next[0] = pick;
  lj.next[1] = pick_i;
  pto_emit_loop_end(e, &lj);
  pto_emit_loop_end(e, &lr);
  return PTO_SUCCESS;
}

PtoResult pto_emit_topk(PtoEmit *e, PtoEmitTile values, PtoEmitTile indices,
                        PtoEmitTile src, LLVMValueRef rows, LLVMValueRef cols,
                        int64_t k, bool largest, PtoError *err) {
  Lists l = {src, src, src, src, NULL};
  return select_k(e, &l, values, indices, rows, cols, k, largest, err);
}

PtoResult pto_emit_topk_merge(PtoEmit *e, PtoEmitTile values, PtoEmitTile indices,
                              PtoEmitTile v0, PtoEmitTile i0, PtoEmitTile v1,
                              PtoEmitTile i1, LLVMValueRef rows, LLVMValueRef n0,
                              LLVMValueRef n1, int64_t k, bool largest,
                              PtoError *err) {
  Lists l = {v0, v1, i0, i1, n0};
  return select_k(e, &l, values, indices, rows, LLVMBuildAdd(B, n0, n1, ""), k,
                  largest, err);
}
