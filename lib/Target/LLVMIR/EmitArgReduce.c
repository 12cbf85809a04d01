/* Products and arg-reductions of rows and columns, and the merge of two
 * arg partials, as LLVM IR (Emit.h). `lanes` outputs are reduced side by
 * side in one vector, each along its own terms in index order, so that
 * every output is folded in the interpreter's order and comes out bit for
 * bit as it does (float products in double, rounded once). */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

typedef struct Red {
  PtoEmitTile src, dst, idx; /* idx: the arg forms' positions */
  bool col;                  /* outputs are columns, their terms rows */
  bool arg, max;             /* arg forms: which extreme */
} Red;

static bool is_float(PtoDType dt) {
  return dt == PTO_DT_F32 || dt == PTO_DT_F16 || dt == PTO_DT_BF16;
}

static LLVMValueRef i32c(PtoEmit *e, uint64_t v) {
  return LLVMConstInt(LLVMInt32TypeInContext(e->ctx), v, 0);
}

/* &src at term t of output o. */
static LLVMValueRef term_ptr(PtoEmit *e, const Red *k, LLVMValueRef o,
                             LLVMValueRef t) {
  return k->col ? pto_emit_elem_ptr(e, k->src, t, o)
                : pto_emit_elem_ptr(e, k->src, o, t);
}

/* Term t of outputs o .. o + lanes - 1 (one output when lanes is 0) in
 * the compute type: a row of a column reduction is contiguous, the
 * column of a row reduction is gathered lane by lane. */
static LLVMValueRef load_terms(PtoEmit *e, const Red *k, LLVMValueRef o,
                               LLVMValueRef t, unsigned lanes) {
  if (!lanes || k->col)
    return pto_emit_load(e, k->src.dtype, term_ptr(e, k, o, t), lanes);
  LLVMValueRef v = LLVMGetUndef(
      pto_emit_vec_type(pto_emit_compute_type(e, k->src.dtype), lanes));
  for (unsigned l = 0; l < lanes; l++) {
    LLVMValueRef ol = LLVMBuildAdd(B, o, pto_emit_i64(e, l), "");
    v = LLVMBuildInsertElement(
        B, v, pto_emit_load(e, k->src.dtype, term_ptr(e, k, ol, t), 0),
        i32c(e, l), "");
  }
  return v;
}

/* Whether x replaces the best so far: strictly better, or a NaN over a
 * number; a NaN already chosen stays (the first NaN wins). */
static LLVMValueRef better(PtoEmit *e, bool max, PtoEmitNum num, LLVMValueRef x,
                           LLVMValueRef best) {
  if (num != PTO_EMIT_NUM_FLOAT)
    return LLVMBuildICmp(B, pto_emit_int_pred(num, max ? LLVMIntSGT : LLVMIntSLT), x, best, "");
  LLVMValueRef strictly =
      LLVMBuildFCmp(B, max ? LLVMRealOGT : LLVMRealOLT, x, best, "");
  LLVMValueRef xnan = LLVMBuildFCmp(B, LLVMRealUNO, x, x, "");
  LLVMValueRef bnum = LLVMBuildFCmp(B, LLVMRealORD, best, best, "");
  return LLVMBuildAnd(B, bnum, LLVMBuildOr(B, xnan, strictly, ""), "");
}

LLVMValueRef pto_emit_f32_odd(PtoEmit *e, LLVMValueRef d) {
  unsigned lanes = pto_emit_lanes_of(d);
  LLVMTypeRef f32 = pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), lanes);
  LLVMTypeRef i32 = pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes);
  LLVMValueRef r = LLVMBuildFPTrunc(B, d, f32, "");
  LLVMValueRef back = LLVMBuildFPExt(B, r, LLVMTypeOf(d), "");
  LLVMValueRef ab = back, ad = d;
  ab = pto_emit_intrinsic(e, "llvm.fabs", &ab, 1);
  ad = pto_emit_intrinsic(e, "llvm.fabs", &ad, 1);
  LLVMValueRef bits = LLVMBuildBitCast(B, r, i32, "");
  LLVMValueRef one = pto_emit_iconst(e, bits, 1);
  /* rounded away from zero: the next f32 toward zero */
  bits = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, ab, ad, ""),
                         LLVMBuildSub(B, bits, one, ""), bits, "");
  bits = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNE, back, d, ""),
                         LLVMBuildOr(B, bits, one, ""), bits, "");
  return LLVMBuildBitCast(B, bits, f32, "");
}

/* Stores lane l of v (or v itself) as output o + l. */
static void store_lanes(PtoEmit *e, PtoEmitTile t, bool col, LLVMValueRef o,
                        LLVMValueRef v, unsigned lanes) {
  LLVMValueRef zero = pto_emit_i64(e, 0);
  for (unsigned l = 0; l < (lanes ? lanes : 1); l++) {
    LLVMValueRef ol = LLVMBuildAdd(B, o, pto_emit_i64(e, l), "");
    LLVMValueRef x = lanes ? LLVMBuildExtractElement(B, v, i32c(e, l), "") : v;
    pto_emit_store(e, t.dtype,
                   col ? pto_emit_elem_ptr(e, t, zero, ol)
                       : pto_emit_elem_ptr(e, t, ol, zero),
                   x);
  }
}

/* Outputs o .. o + lanes - 1 over their `nterms` terms. */
static void reduce_outputs(PtoEmit *e, const Red *k, LLVMValueRef o,
                           LLVMValueRef nterms, unsigned lanes) {
  bool fp = is_float(k->src.dtype);
  LLVMTypeRef dbl = pto_emit_vec_type(LLVMDoubleTypeInContext(e->ctx), lanes);
  LLVMValueRef zero = pto_emit_i64(e, 0), one = pto_emit_i64(e, 1);
  LLVMValueRef x0 = load_terms(e, k, o, zero, lanes);
  LLVMValueRef init[2] = {x0, NULL};
  if (k->arg)
    init[1] = pto_emit_splat(e, i32c(e, 0), lanes);
  else if (fp)
    init[0] = LLVMBuildFPExt(B, x0, dbl, "");
  PtoEmitLoop lt;
  pto_emit_loop_begin(e, &lt, one, nterms, 1, k->arg ? 2 : 1, init);
  LLVMValueRef x = load_terms(e, k, o, lt.iv, lanes);
  if (k->arg) {
    LLVMValueRef take = better(e, k->max, pto_emit_num_of(k->src.dtype), x, lt.carry[0]);
    LLVMValueRef t = pto_emit_splat(
        e, LLVMBuildTrunc(B, lt.iv, LLVMInt32TypeInContext(e->ctx), ""), lanes);
    lt.next[0] = LLVMBuildSelect(B, take, x, lt.carry[0], "");
    lt.next[1] = LLVMBuildSelect(B, take, t, lt.carry[1], "");
  } else {
    lt.next[0] = fp ? LLVMBuildFMul(B, lt.carry[0], LLVMBuildFPExt(B, x, dbl, ""), "")
                    : LLVMBuildMul(B, lt.carry[0], x, "");
  }
  pto_emit_loop_end(e, &lt);
  LLVMValueRef v = lt.carry[0];
  if (!k->arg && fp)
    v = k->dst.dtype == PTO_DT_F32
            ? LLVMBuildFPTrunc(
                  B, v, pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), lanes), "")
            : pto_emit_f32_odd(e, v);
  store_lanes(e, k->dst, k->col, o, v, lanes);
  if (k->arg) store_lanes(e, k->idx, k->col, o, lt.carry[1], lanes);
}

static PtoResult reduce(PtoEmit *e, const Red *k, LLVMValueRef rows,
                        LLVMValueRef cols, PtoError *err) {
  if (!pto_emit_storage_type(e, k->src.dtype) || k->src.dtype == PTO_DT_BOOL ||
      k->dst.dtype != k->src.dtype || (k->arg && k->idx.dtype != PTO_DT_I32))
    return pto_error_set(err, "a %s reduction needs numeric tiles of one "
                         "element type%s, not %s -> %s",
                         k->arg ? "arg" : "product",
                         k->arg ? " and i32 positions" : "",
                         pto_dtype_ir_name(k->src.dtype), pto_dtype_ir_name(k->dst.dtype));
  unsigned lanes = e->lanes ? e->lanes : 8;
  LLVMValueRef nout = k->col ? cols : rows, nterms = k->col ? rows : cols;
  LLVMValueRef vend = LLVMBuildAnd(B, nout, pto_emit_i64(e, -(int64_t)lanes), "");
  PtoEmitLoop lv, ls;
  pto_emit_loop_begin(e, &lv, pto_emit_i64(e, 0), vend, lanes, 0, NULL);
  reduce_outputs(e, k, lv.iv, nterms, lanes);
  pto_emit_loop_end(e, &lv);
  pto_emit_loop_begin(e, &ls, vend, nout, 1, 0, NULL);
  reduce_outputs(e, k, ls.iv, nterms, 0);
  pto_emit_loop_end(e, &ls);
  return PTO_SUCCESS;
}

PtoResult pto_emit_prod(PtoEmit *e, bool col, PtoEmitTile dst, PtoEmitTile src,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  Red k = {src, dst, dst, col, false, false};
  return reduce(e, &k, rows, cols, err);
}

PtoResult pto_emit_arg(PtoEmit *e, bool col, bool max, PtoEmitTile values,
                       PtoEmitTile indices, PtoEmitTile src, LLVMValueRef rows,
                       LLVMValueRef cols, PtoError *err) {
  Red k = {src, values, indices, col, true, max};
  return reduce(e, &k, rows, cols, err);
}

typedef struct Combine {
  PtoEmitTile v, i, v0, i0, v1, i1;
  bool max;
  PtoEmitNum num;
} Combine;

static void combine_elem(PtoEmit *e, LLVMValueRef r, LLVMValueRef c,
                         const void *user) {
  const Combine *k = user;
  PtoDType dt = k->v0.dtype;
  LLVMValueRef a = pto_emit_load(e, dt, pto_emit_elem_ptr(e, k->v0, r, c), 0);
  LLVMValueRef b = pto_emit_load(e, dt, pto_emit_elem_ptr(e, k->v1, r, c), 0);
  LLVMValueRef take = better(e, k->max, k->num, b, a);
  /* the chosen value's bits, NaN payloads too */
  pto_emit_store_bits(
      e, dt, pto_emit_elem_ptr(e, k->v, r, c),
      LLVMBuildSelect(B, take, pto_emit_load_bits(e, dt, pto_emit_elem_ptr(e, k->v1, r, c)),
                      pto_emit_load_bits(e, dt, pto_emit_elem_ptr(e, k->v0, r, c)), ""));
  pto_emit_store_bits(
      e, PTO_DT_I32, pto_emit_elem_ptr(e, k->i, r, c),
      LLVMBuildSelect(B, take,
                      pto_emit_load_bits(e, PTO_DT_I32, pto_emit_elem_ptr(e, k->i1, r, c)),
                      pto_emit_load_bits(e, PTO_DT_I32, pto_emit_elem_ptr(e, k->i0, r, c)),
                      ""));
}

PtoResult pto_emit_arg_combine(PtoEmit *e, bool max, PtoEmitTile values,
                               PtoEmitTile indices, PtoEmitTile v0,
                               PtoEmitTile i0, PtoEmitTile v1, PtoEmitTile i1,
                               LLVMValueRef rows, LLVMValueRef cols,
                               PtoError *err) {
  PtoDType dt = v0.dtype;
  if (!pto_emit_storage_type(e, dt) || dt == PTO_DT_BOOL || v1.dtype != dt ||
      values.dtype != dt || i0.dtype != PTO_DT_I32 || i1.dtype != PTO_DT_I32 ||
      indices.dtype != PTO_DT_I32)
    return pto_error_set(err, "an arg merge needs numeric values of one element "
                         "type and i32 positions, not %s, %s",
                         pto_dtype_ir_name(dt), pto_dtype_ir_name(v1.dtype));
  Combine k = {values, indices, v0, i0, v1, i1, max, pto_emit_num_of(dt)};
  pto_emit_each(e, rows, cols, combine_elem, &k);
  return PTO_SUCCESS;
}
