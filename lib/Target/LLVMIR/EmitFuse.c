/* Fused runs of vector instructions as one loop nest (Emit.h,
 * pto_emit_fused): the values of each step handed to the next in
 * registers, a row reduction at the end accumulated in vector registers,
 * a tload before the run and a tstore after it in the same iteration.
 * The caller (Fuse.c for the translation) proves that the run may fuse. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)
#define MAX_SLOTS (3 * PTO_EMIT_MAX_STEPS)

static PtoEmitNum fp_of(PtoEmit *e, PtoDType dt) {
  return LLVMGetTypeKind(pto_emit_compute_type(e, dt)) == LLVMFloatTypeKind
             ? PTO_EMIT_NUM_FLOAT
             : pto_emit_num_of(dt);
}

/* A tile operand at (r, c..c+lanes): the value a step of this iteration
 * left in its slot, or memory. */
static LLVMValueRef operand(PtoEmit *e, PtoEmitTile t, int slot,
                            LLVMValueRef *cur, LLVMValueRef r, LLVMValueRef c,
                            unsigned lanes) {
  if (slot >= 0 && cur[slot]) return cur[slot];
  return pto_emit_load(e, t.dtype, pto_emit_elem_ptr(e, t, r, c), lanes);
}

/* A fused tstore of `lanes` elements (one when 0) to GM; whole vectors
 * of a streaming one go out non-temporal, at the vector-aligned addresses
 * pto_emit_fused starts the vector loop at. */
static void store_gm(PtoEmit *e, const PtoEmitStep *s, LLVMValueRef r,
                     LLVMValueRef c, LLVMValueRef v, unsigned lanes) {
  LLVMValueRef p = pto_emit_elem_ptr(e, s->dst, r, c);
  if (!s->stream || !lanes) {
    pto_emit_store(e, s->dst.dtype, p, v);
    return;
  }
  v = pto_emit_to_storage(e, s->dst.dtype, v);
  p = LLVMBuildBitCast(B, p, LLVMPointerType(LLVMTypeOf(v), 0), "");
  LLVMValueRef st = LLVMBuildStore(B, v, p);
  LLVMSetAlignment(st, 4 * lanes);
  pto_emit_mark_nontemporal(e, st);
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
    if (s->kind == PTO_EMIT_STEP_PREFETCH) {
      /* one line of whole vectors' worth: the single columns would only
       * repeat the prefetches of their neighbours */
      if (lanes) pto_emit_prefetch(e, pto_emit_elem_ptr(e, s->a, r, c));
      continue;
    }
    if (s->kind == PTO_EMIT_STEP_STORE) {
      store_gm(e, s, r, c, operand(e, s->a, s->a_slot, cur, r, c, lanes), lanes);
      continue;
    }
    /* a fused tload reads GM, the other steps their slots or memory */
    LLVMValueRef x = s->kind == PTO_EMIT_STEP_LOAD
                         ? pto_emit_load(e, s->a.dtype, pto_emit_elem_ptr(e, s->a, r, c), lanes)
                         : operand(e, s->a, s->a_slot, cur, r, c, lanes),
                 y = NULL;
    if (s->kind == PTO_EMIT_STEP_ROWREDUCE) return x;
    PtoEmitNum fp = fp_of(e, s->a.dtype);
    switch (s->kind) {
    case PTO_EMIT_STEP_LOAD: y = x; break;
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

/* The run's steps on a whole vector of row r (a reduction's vectors,
 * pto_emit_reduce_vectors) */
typedef struct RunVector {
  const PtoEmitStep *st;
  unsigned n, lanes;
  const LLVMValueRef *rowv;
  LLVMValueRef r;
} RunVector;

static LLVMValueRef run_vector(PtoEmit *e, LLVMValueRef c, const void *user) {
  const RunVector *v = user;
  return body(e, v->st, v->n, v->rowv, v->r, c, v->lanes);
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
    if (s->kind == PTO_EMIT_STEP_STORE && s->stream &&
        st[n - 1].kind == PTO_EMIT_STEP_ROWREDUCE)
      return pto_error_set(err, "a streaming tstore and a row reduction do "
                           "not fuse: the vectors start at GM's alignment");
    if (s->kind == PTO_EMIT_STEP_LOAD && (s->a_slot >= 0 || s->dst_slot < 0))
      return pto_error_set(err, "a fused tload reads GM into a slot of the run");
    if (s->kind == PTO_EMIT_STEP_STORE && (s->a_slot < 0 || s->dst_slot >= 0))
      return pto_error_set(err, "a fused tstore writes a slot of the run to GM");
    if (s->kind == PTO_EMIT_STEP_PREFETCH &&
        (s->a_slot >= 0 || s->b_slot >= 0 || s->dst_slot >= 0))
      return pto_error_set(err, "a fused prefetch uses no slot of the run");
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
  PtoEmitNum fp = red ? fp_of(e, red->a.dtype) : PTO_EMIT_NUM_INT;
  bool keep_single = false;
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
  /* a streaming tstore's vectors are aligned in GM: the columns before
   * the first aligned one of its row go one at a time (all of them when
   * the row's elements are not even element-aligned) */
  const PtoEmitStep *nt = NULL;
  for (unsigned i = 0; i < n; i++)
    if (st[i].kind == PTO_EMIT_STEP_STORE && st[i].stream) nt = &st[i];
  LLVMValueRef vlo = zero;
  if (nt) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(e->ctx);
    int64_t w = 4 * (int64_t)lanes;
    LLVMValueRef mis = LLVMBuildAnd(
        B, LLVMBuildPtrToInt(B, pto_emit_elem_ptr(e, nt->dst, r, zero), i64, ""),
        pto_emit_i64(e, w - 1), "");
    LLVMValueRef head = LLVMBuildLShr(
        B, LLVMBuildAnd(B, LLVMBuildSub(B, pto_emit_i64(e, w), mis, ""),
                        pto_emit_i64(e, w - 1), ""),
        pto_emit_i64(e, 2), "");
    LLVMValueRef odd = LLVMBuildICmp(
        B, LLVMIntNE, LLVMBuildAnd(B, mis, pto_emit_i64(e, 3), ""), zero, "");
    head = LLVMBuildSelect(B, odd, cols, head, "");
    vlo = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, head, cols, ""), head,
                          cols, "");
    PtoEmitLoop lh;
    pto_emit_loop_begin(e, &lh, zero, vlo, 1, 0, NULL);
    body(e, st, n, rowv, r, lh.iv, 0);
    pto_emit_loop_end(e, &lh);
  }
  /* whole vectors, with `lanes` partial results of the reduction in the
   * chains of pto_emit_reduce_vectors; bodies this long (exp, log, tanh)
   * spill their constants when copied further */
  LLVMValueRef vend = LLVMBuildAdd(
      B, vlo,
      LLVMBuildAnd(B, LLVMBuildSub(B, cols, vlo, ""), pto_emit_i64(e, -(int64_t)lanes), ""),
      "");
  LLVMValueRef x, s = NULL;
  if (red) {
    RunVector rv = {st, n, lanes, rowv, r};
    s = pto_emit_reduce_tree(
        e, (PtoEmitReduce)red->op, fp,
        pto_emit_reduce_vectors(e, (PtoEmitReduce)red->op, fp, pto_emit_splat(e, init, lanes),
                                vlo, vend, keep_single, run_vector, &rv));
  } else {
    pto_emit_loop_begin(e, &lv, vlo, vend, lanes, 0, NULL);
    body(e, st, n, rowv, r, lv.iv, lanes);
    pto_emit_loop_end(e, &lv);
    if (keep_single) pto_emit_loop_keep_single(e, &lv);
  }
  /* the columns after the last whole vector, one at a time */
  pto_emit_loop_begin(e, &lt, vend, cols, 1, red ? 1 : 0, &s);
  x = body(e, st, n, rowv, r, lt.iv, 0);
  if (red) lt.next[0] = pto_emit_reduce2(e, (PtoEmitReduce)red->op, fp, lt.carry[0], x);
  pto_emit_loop_end(e, &lt);
  if (red)
    pto_emit_store(e, red->dst.dtype, pto_emit_elem_ptr(e, red->dst, r, zero), lt.carry[0]);
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
  /* as after pto_emit_copy_streaming: visible before the kernel is done */
  if (nt) pto_emit_streaming_fence(e);
  return PTO_SUCCESS;
}
