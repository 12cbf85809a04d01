/* Fused runs of vector instructions as one loop nest (Emit.h,
 * pto_emit_fused): the values of each step handed to the next in
 * registers, a row reduction at the end accumulated in vector registers.
 * The caller (Fuse.c for the translation) proves that the run may fuse. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)
#define MAX_SLOTS (3 * PTO_EMIT_MAX_STEPS)

static bool fp_of(PtoEmit *e, PtoDType dt) {
  return LLVMGetTypeKind(pto_emit_compute_type(e, dt)) == LLVMFloatTypeKind;
}

/* A tile operand at (r, c..c+lanes): the value a step of this iteration
 * left in its slot, or memory. */
static LLVMValueRef operand(PtoEmit *e, PtoEmitTile t, int slot,
                            LLVMValueRef *cur, LLVMValueRef r, LLVMValueRef c,
                            unsigned lanes) {
  if (slot >= 0 && cur[slot]) return cur[slot];
  return pto_emit_load(e, t.dtype, pto_emit_elem_ptr(e, t, r, c), lanes);
}

/* The steps on `lanes` consecutive elements of row r from column c (one
 * element when lanes is 0). Returns the input of a final row reduction,
 * NULL when the run has none. */
static LLVMValueRef body(PtoEmit *e, const PtoEmitStep *st, unsigned n,
                         const LLVMValueRef *rowv, LLVMValueRef r,
                         LLVMValueRef c, unsigned lanes) {
  LLVMValueRef cur[MAX_SLOTS] = {0};
  for (unsigned i = 0; i < n; i++) {
    const PtoEmitStep *s = &st[i];
    LLVMValueRef x = operand(e, s->a, s->a_slot, cur, r, c, lanes), y = NULL;
    if (s->kind == PTO_EMIT_STEP_ROWREDUCE) return x;
    bool fp = fp_of(e, s->a.dtype);
    switch (s->kind) {
    case PTO_EMIT_STEP_BINARY:
      y = pto_emit_apply_binary(e, (PtoEmitBinary)s->op, fp, x,
                                operand(e, s->b, s->b_slot, cur, r, c, lanes));
      break;
    case PTO_EMIT_STEP_SCALAR:
      y = pto_emit_apply_binary(e, (PtoEmitBinary)s->op, fp, x,
                                pto_emit_splat(e, s->s, lanes));
      break;
    case PTO_EMIT_STEP_ROWEXPAND:
      y = pto_emit_apply_binary(e, (PtoEmitBinary)s->op, fp, x,
                                pto_emit_splat(e, rowv[i], lanes));
      break;
    default: y = pto_emit_apply_unary(e, (PtoEmitUnary)s->op, fp, x); break;
    }
    if (s->store)
      pto_emit_store(e, s->dst.dtype, pto_emit_elem_ptr(e, s->dst, r, c), y);
    /* what a load of the stored value gives: f16 and bf16 round here */
    if (s->dst_slot >= 0)
      cur[s->dst_slot] =
          pto_emit_from_storage(e, s->dst.dtype, pto_emit_to_storage(e, s->dst.dtype, y));
  }
  return NULL;
}

static bool transcendental(const PtoEmitStep *s) {
  return s->kind == PTO_EMIT_STEP_UNARY &&
         (s->op == PTO_EMIT_UN_EXP || s->op == PTO_EMIT_UN_LOG ||
          s->op == PTO_EMIT_UN_TANH);
}

static PtoResult check_run(PtoEmit *e, const PtoEmitStep *st, unsigned n,
                           unsigned *bad, PtoError *err) {
  if (n == 0 || n > PTO_EMIT_MAX_STEPS) {
    *bad = 0;
    return pto_error_set(err, "a fused run has 1 to %d steps, not %u",
                         PTO_EMIT_MAX_STEPS, n);
  }
  for (unsigned i = 0; i < n; i++) {
    *bad = i;
    const PtoEmitStep *s = &st[i];
    if (pto_failed(pto_emit_step_check(e, s, err))) return PTO_FAILURE;
    if (s->kind == PTO_EMIT_STEP_ROWREDUCE && i + 1 != n)
      return pto_error_set(err, "a row reduction ends a fused run");
    if (s->dst_slot >= MAX_SLOTS || s->a_slot >= MAX_SLOTS || s->b_slot >= MAX_SLOTS)
      return pto_error_set(err, "a fused run has at most %d slots", MAX_SLOTS);
  }
  return PTO_SUCCESS;
}

PtoResult pto_emit_fused(PtoEmit *e, const PtoEmitStep *st, unsigned n,
                         LLVMValueRef rows, LLVMValueRef cols, unsigned *bad,
                         PtoError *err) {
  if (pto_failed(check_run(e, st, n, bad, err))) return PTO_FAILURE;
  const PtoEmitStep *red = st[n - 1].kind == PTO_EMIT_STEP_ROWREDUCE ? &st[n - 1] : NULL;
  bool fp = red && fp_of(e, red->a.dtype), keep_single = false;
  unsigned lanes = e->lanes ? e->lanes : 8;
  LLVMValueRef zero = pto_emit_i64(e, 0);
  /* an empty row still gets its reduction's start value, as in
   * pto_emit_row_reduce; elementwise steps run no iteration */
  LLVMValueRef hi_r = red ? rows
                          : LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, cols, zero, ""),
                                            rows, zero, "");
  PtoEmitLoop lr, lv, lt;
  pto_emit_loop_begin(e, &lr, zero, hi_r, 1, 0, NULL);
  LLVMValueRef r = lr.iv;
  LLVMValueRef rowv[PTO_EMIT_MAX_STEPS];
  for (unsigned i = 0; i < n; i++) {
    keep_single = keep_single || transcendental(&st[i]);
    rowv[i] = st[i].kind == PTO_EMIT_STEP_ROWEXPAND
                  ? pto_emit_load(e, st[i].b.dtype, pto_emit_elem_ptr(e, st[i].b, r, zero), 0)
                  : NULL;
  }
  LLVMValueRef init =
      red ? pto_emit_reduce_init(e, (PtoEmitReduce)red->op, red->a.dtype,
                                 pto_emit_compute_type(e, red->a.dtype))
          : NULL;
  /* whole vectors, with `lanes` partial results of the reduction */
  LLVMValueRef vend = LLVMBuildAnd(B, cols, pto_emit_i64(e, -(int64_t)lanes), "");
  LLVMValueRef acc0 = red ? pto_emit_splat(e, init, lanes) : NULL;
  pto_emit_loop_begin(e, &lv, zero, vend, lanes, red ? 1 : 0, &acc0);
  LLVMValueRef x = body(e, st, n, rowv, r, lv.iv, lanes);
  if (red) lv.next[0] = pto_emit_reduce2(e, (PtoEmitReduce)red->op, fp, lv.carry[0], x);
  pto_emit_loop_end(e, &lv);
  /* bodies this long spill their constants when copied */
  if (keep_single) pto_emit_loop_keep_single(e, &lv);
  LLVMValueRef s = red ? pto_emit_reduce_tree(e, (PtoEmitReduce)red->op, fp, lv.carry[0]) : NULL;
  /* the columns after the last whole vector, one at a time */
  pto_emit_loop_begin(e, &lt, vend, cols, 1, red ? 1 : 0, &s);
  x = body(e, st, n, rowv, r, lt.iv, 0);
  if (red) lt.next[0] = pto_emit_reduce2(e, (PtoEmitReduce)red->op, fp, lt.carry[0], x);
  pto_emit_loop_end(e, &lt);
  if (red)
    pto_emit_store(e, red->dst.dtype, pto_emit_elem_ptr(e, red->dst, r, zero), lt.carry[0]);
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
  return PTO_SUCCESS;
}
