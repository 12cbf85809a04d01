/* The vector instructions over tiles (Emit.h): each one a loop nest over
 * rows and columns whose inner loop walks consecutive elements, in the
 * shape LLVM's loop vectoriser widens; reductions as explicit vectors of
 * partial results, which the vectoriser would not build for floats
 * without reassociating them. */
#include <math.h>

#include "Support/Alloc.h"
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

#define NAME(id, name) name,
static const char *const binary_names[] = {PTO_EMIT_BINARY_OPS(NAME)};
static const char *const unary_names[] = {PTO_EMIT_UNARY_OPS(NAME)};
static const char *const reduce_names[] = {PTO_EMIT_REDUCE_OPS(NAME)};
#undef NAME
const char *pto_emit_binary_name(PtoEmitBinary op) { return binary_names[op]; }
const char *pto_emit_unary_name(PtoEmitUnary op) { return unary_names[op]; }
const char *pto_emit_reduce_name(PtoEmitReduce op) { return reduce_names[op]; }

PtoEmitTile pto_emit_tile(PtoEmit *e, LLVMValueRef base,
                          LLVMValueRef byte_offset, LLVMValueRef row_stride,
                          PtoDType dtype) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
  LLVMValueRef p = LLVMBuildBitCast(B, base, LLVMPointerType(i8, 0), "");
  p = LLVMBuildInBoundsGEP2(B, i8, p, &byte_offset, 1, "");
  return (PtoEmitTile){p, row_stride, dtype};
}

LLVMValueRef pto_emit_i64(PtoEmit *e, int64_t v) {
  return LLVMConstInt(LLVMInt64TypeInContext(e->ctx), (uint64_t)v, 1);
}

static bool is_float(PtoDType dt) {
  return dt == PTO_DT_F32 || dt == PTO_DT_F16 || dt == PTO_DT_BF16;
}
static bool is_int(PtoDType dt) { return pto_emit_is_int(dt); }
static PtoResult check_dtype(PtoEmitTile t, const char *what, PtoError *err) {
  if (is_float(t.dtype) || is_int(t.dtype)) return PTO_SUCCESS;
  return pto_error_set(err, "%s on %s tiles has no LLVM translation yet", what,
                       pto_dtype_ir_name(t.dtype));
}
static PtoResult check_same(PtoEmitTile a, PtoEmitTile b, const char *what,
                            PtoError *err) {
  if (a.dtype == b.dtype) return PTO_SUCCESS;
  return pto_error_set(err, "%s needs tiles of one element type, not %s and %s",
                       what, pto_dtype_ir_name(a.dtype), pto_dtype_ir_name(b.dtype));
}

/* Tiles of one element type the emitters handle. */
static PtoResult check_pair(PtoEmitTile dst, PtoEmitTile src, const char *what,
                            PtoError *err) {
  if (pto_failed(check_dtype(dst, what, err))) return PTO_FAILURE;
  return check_same(dst, src, what, err);
}

/* Comparisons rather than maxnum/minnum: NaN in either operand gives NaN,
 * as in the interpreter (lib/Kernels). */
static LLVMValueRef fmax2(PtoEmit *e, LLVMValueRef a, LLVMValueRef b,
                          bool is_max) {
  LLVMValueRef nan = pto_emit_fconst(e, a, NAN);
  LLVMValueRef pick_b = LLVMBuildSelect(
      B, LLVMBuildFCmp(B, is_max ? LLVMRealOLT : LLVMRealOGT, a, b, ""), b,
      nan, "");
  return LLVMBuildSelect(
      B, LLVMBuildFCmp(B, is_max ? LLVMRealOGE : LLVMRealOLE, a, b, ""), a,
      pick_b, "");
}

LLVMValueRef pto_emit_apply_binary(PtoEmit *e, PtoEmitBinary op, PtoEmitNum num,
                                   LLVMValueRef a, LLVMValueRef b) {
  bool fp = num == PTO_EMIT_NUM_FLOAT;
  switch (op) {
  case PTO_EMIT_BIN_ADD:
    return fp ? LLVMBuildFAdd(B, a, b, "") : LLVMBuildAdd(B, a, b, "");
  case PTO_EMIT_BIN_SUB:
    return fp ? LLVMBuildFSub(B, a, b, "") : LLVMBuildSub(B, a, b, "");
  case PTO_EMIT_BIN_MUL:
    return fp ? LLVMBuildFMul(B, a, b, "") : LLVMBuildMul(B, a, b, "");
  case PTO_EMIT_BIN_DIV:
    return fp ? LLVMBuildFDiv(B, a, b, "") : pto_emit_int_div(e, num, a, b);
  case PTO_EMIT_BIN_MAX:
  case PTO_EMIT_BIN_MIN: {
    bool mx = op == PTO_EMIT_BIN_MAX;
    if (fp) return fmax2(e, a, b, mx);
    return LLVMBuildSelect(
        B, LLVMBuildICmp(B, pto_emit_int_pred(num, mx ? LLVMIntSGE : LLVMIntSLE), a, b, ""),
        a, b, "");
  }
  }
  return NULL;
}

static PtoResult check_binary(PtoEmitBinary op, PtoDType dt, PtoError *err) {
  /* pto_emit_int_div divides the integers of 8 to 64 bits */
  if (op == PTO_EMIT_BIN_DIV && !is_float(dt) && !pto_emit_is_int(dt))
    return pto_error_set(err, "div on %s tiles has no LLVM translation yet",
                         pto_dtype_ir_name(dt));
  return PTO_SUCCESS;
}

LLVMValueRef pto_emit_apply_unary(PtoEmit *e, PtoEmitUnary op, PtoEmitNum num,
                                  LLVMValueRef x) {
  bool fp = num == PTO_EMIT_NUM_FLOAT;
  /* an unsigned value is never below 0: relu and abs keep it */
  LLVMIntPredicate below = pto_emit_int_pred(num, LLVMIntSLT);
  LLVMValueRef zero = fp ? pto_emit_fconst(e, x, 0.0)
                         : LLVMConstNull(LLVMTypeOf(x));
  switch (op) {
  case PTO_EMIT_UN_EXP: return pto_emit_exp_f32(e, x);
  case PTO_EMIT_UN_LOG: return pto_emit_log_f32(e, x);
  case PTO_EMIT_UN_TANH: return pto_emit_tanh_f32(e, x);
  case PTO_EMIT_UN_SQRT: return pto_emit_intrinsic(e, "llvm.sqrt", &x, 1);
  case PTO_EMIT_UN_RSQRT:
    return LLVMBuildFDiv(B, pto_emit_fconst(e, x, 1.0),
                         pto_emit_intrinsic(e, "llvm.sqrt", &x, 1), "");
  case PTO_EMIT_UN_RECIP:
    return LLVMBuildFDiv(B, pto_emit_fconst(e, x, 1.0), x, "");
  case PTO_EMIT_UN_RELU: /* x < 0 ? 0 : x, which keeps NaN and -0 */
    return LLVMBuildSelect(
        B,
        fp ? LLVMBuildFCmp(B, LLVMRealOLT, x, zero, "")
           : LLVMBuildICmp(B, below, x, zero, ""),
        zero, x, "");
  case PTO_EMIT_UN_ABS:
    if (fp) return pto_emit_intrinsic(e, "llvm.fabs", &x, 1);
    return LLVMBuildSelect(B, LLVMBuildICmp(B, below, x, zero, ""),
                           LLVMBuildSub(B, zero, x, ""), x, "");
  case PTO_EMIT_UN_NEG:
    return fp ? LLVMBuildFNeg(B, x, "") : LLVMBuildSub(B, zero, x, "");
  }
  return NULL;
}

static bool unary_takes_ints(PtoEmitUnary op) {
  return op == PTO_EMIT_UN_RELU || op == PTO_EMIT_UN_ABS ||
         op == PTO_EMIT_UN_NEG;
}

/* ---- the elementwise loop nest ---- */

typedef enum { EW_BINARY, EW_SCALAR, EW_ROWEXP, EW_UNARY, EW_CAST, EW_COPY } EwKind;
typedef struct Ew {
  EwKind kind;
  int op;
  PtoEmitTile dst, a, b;
  LLVMValueRef s;
  PtoCastMode mode;
} Ew;

static LLVMValueRef cast_value(PtoEmit *e, const Ew *w, LLVMValueRef x);

static void elementwise(PtoEmit *e, const Ew *w, LLVMValueRef rows,
                        LLVMValueRef cols) {
  LLVMValueRef zero = pto_emit_i64(e, 0);
  PtoEmitNum fp = pto_emit_num_of(w->a.dtype);
  PtoEmitLoop lr, lc;
  /* an empty tile runs no iteration of either loop */
  LLVMValueRef hi_r = LLVMBuildSelect(
      B, LLVMBuildICmp(B, LLVMIntSGT, cols, zero, ""), rows, zero, "");
  pto_emit_loop_begin(e, &lr, zero, hi_r, 1, 0, NULL);
  LLVMValueRef r = lr.iv, row_scalar = NULL;
  if (w->kind == EW_ROWEXP)
    row_scalar = pto_emit_load(e, w->b.dtype,
                               pto_emit_elem_ptr(e, w->b, r, zero), 0);
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 0, NULL);
  LLVMValueRef c = lc.iv;
  LLVMValueRef dp = pto_emit_elem_ptr(e, w->dst, r, c);
  LLVMValueRef ap = pto_emit_elem_ptr(e, w->a, r, c);
  LLVMValueRef out;
  if (w->kind == EW_COPY) {
    /* as integers of the same width: bit for bit, NaN payloads too */
    LLVMTypeRef it = LLVMIntTypeInContext(
        e->ctx, (unsigned)(8 * pto_dtype_size(w->a.dtype)));
    LLVMValueRef v = LLVMBuildLoad2(
        B, it, LLVMBuildBitCast(B, ap, LLVMPointerType(it, 0), ""), "");
    LLVMSetAlignment(v, (unsigned)pto_dtype_size(w->a.dtype));
    LLVMValueRef st = LLVMBuildStore(
        B, v, LLVMBuildBitCast(B, dp, LLVMPointerType(it, 0), ""));
    LLVMSetAlignment(st, (unsigned)pto_dtype_size(w->a.dtype));
  } else {
    LLVMValueRef x = pto_emit_load(e, w->a.dtype, ap, 0);
    switch (w->kind) {
    case EW_BINARY:
      out = pto_emit_apply_binary(
          e, (PtoEmitBinary)w->op, fp, x,
          pto_emit_load(e, w->b.dtype, pto_emit_elem_ptr(e, w->b, r, c), 0));
      break;
    case EW_SCALAR: out = pto_emit_apply_binary(e, (PtoEmitBinary)w->op, fp, x, w->s); break;
    case EW_ROWEXP:
      out = pto_emit_apply_binary(e, (PtoEmitBinary)w->op, fp, x, row_scalar);
      break;
    case EW_UNARY: out = pto_emit_apply_unary(e, (PtoEmitUnary)w->op, fp, x); break;
    default: out = cast_value(e, w, x); break;
    }
    pto_emit_store(e, w->dst.dtype, dp, out);
  }
  pto_emit_loop_end(e, &lc);
  if (w->kind == EW_UNARY && (w->op == PTO_EMIT_UN_EXP || w->op == PTO_EMIT_UN_LOG ||
                              w->op == PTO_EMIT_UN_TANH))
    pto_emit_loop_keep_single(e, &lc);
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
}

PtoResult pto_emit_step_check(PtoEmit *e, const PtoEmitStep *st,
                              PtoError *err) {
  if (st->kind == PTO_EMIT_STEP_PREFETCH) { /* any window of any dtype */
    if (!st->a.ptr) return pto_error_set(err, "a fused prefetch has no window");
    return PTO_SUCCESS;
  }
  if (st->kind == PTO_EMIT_STEP_LOAD || st->kind == PTO_EMIT_STEP_STORE) {
    const char *n = st->kind == PTO_EMIT_STEP_LOAD ? "a fused tload" : "a fused tstore";
    if (st->stream && (st->kind == PTO_EMIT_STEP_LOAD || pto_dtype_size(st->dst.dtype) != 4))
      return pto_error_set(err, "%s streams only 4-byte elements to GM", n);
    return check_pair(st->dst, st->a, n, err);
  }
  bool red = st->kind == PTO_EMIT_STEP_ROWREDUCE, un = st->kind == PTO_EMIT_STEP_UNARY;
  const char *n = red  ? reduce_names[st->op]
                  : un ? unary_names[st->op]
                       : binary_names[st->op];
  if (pto_failed(check_pair(st->dst, st->a, n, err))) return PTO_FAILURE;
  switch (st->kind) {
  case PTO_EMIT_STEP_BINARY:
  case PTO_EMIT_STEP_ROWEXPAND:
    if (pto_failed(check_same(st->dst, st->b, n, err))) return PTO_FAILURE;
    return check_binary((PtoEmitBinary)st->op, st->dst.dtype, err);
  case PTO_EMIT_STEP_SCALAR:
    if (pto_failed(check_binary((PtoEmitBinary)st->op, st->dst.dtype, err)))
      return PTO_FAILURE;
    if (LLVMTypeOf(st->s) != pto_emit_compute_type(e, st->dst.dtype))
      return pto_error_set(err, "%s of a %s tile needs a scalar of its compute "
                           "type", n, pto_dtype_ir_name(st->dst.dtype));
    return PTO_SUCCESS;
  case PTO_EMIT_STEP_UNARY:
    if (!is_float(st->dst.dtype) && !unary_takes_ints((PtoEmitUnary)st->op))
      return pto_error_set(err, "%s takes float tiles, not %s", n,
                           pto_dtype_ir_name(st->dst.dtype));
    return PTO_SUCCESS;
  case PTO_EMIT_STEP_ROWREDUCE:
  case PTO_EMIT_STEP_LOAD:
  case PTO_EMIT_STEP_STORE:
  case PTO_EMIT_STEP_PREFETCH: return PTO_SUCCESS;
  }
  return PTO_SUCCESS;
}

/* One step on its own, as a loop nest the loop vectoriser widens. */
static PtoResult single(PtoEmit *e, const PtoEmitStep *st, EwKind kind,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  if (pto_failed(pto_emit_step_check(e, st, err))) return PTO_FAILURE;
  Ew w = {.kind = kind, .op = st->op, .dst = st->dst, .a = st->a, .b = st->b,
          .s = st->s};
  elementwise(e, &w, rows, cols);
  return PTO_SUCCESS;
}

PtoResult pto_emit_binary(PtoEmit *e, PtoEmitBinary op, PtoEmitTile dst,
                          PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err) {
  PtoEmitStep st = {.kind = PTO_EMIT_STEP_BINARY, .op = op, .dst = dst, .a = a, .b = b};
  return single(e, &st, EW_BINARY, rows, cols, err);
}

PtoResult pto_emit_binary_scalar(PtoEmit *e, PtoEmitBinary op,
                                 PtoEmitTile dst, PtoEmitTile a,
                                 LLVMValueRef s, LLVMValueRef rows,
                                 LLVMValueRef cols, PtoError *err) {
  PtoEmitStep st = {.kind = PTO_EMIT_STEP_SCALAR, .op = op, .dst = dst, .a = a, .s = s};
  return single(e, &st, EW_SCALAR, rows, cols, err);
}

PtoResult pto_emit_row_expand(PtoEmit *e, PtoEmitBinary op, PtoEmitTile dst,
                              PtoEmitTile a, PtoEmitTile v, LLVMValueRef rows,
                              LLVMValueRef cols, PtoError *err) {
  PtoEmitStep st = {.kind = PTO_EMIT_STEP_ROWEXPAND, .op = op, .dst = dst, .a = a, .b = v};
  return single(e, &st, EW_ROWEXP, rows, cols, err);
}

PtoResult pto_emit_unary(PtoEmit *e, PtoEmitUnary op, PtoEmitTile dst,
                         PtoEmitTile src, LLVMValueRef rows,
                         LLVMValueRef cols, PtoError *err) {
  PtoEmitStep st = {.kind = PTO_EMIT_STEP_UNARY, .op = op, .dst = dst, .a = src};
  return single(e, &st, EW_UNARY, rows, cols, err);
}

/* Moves take i1 tiles too (one byte each), which compute nothing. */
static PtoResult check_move(PtoEmitTile dst, PtoEmitTile src, const char *what,
                            PtoError *err) {
  if (dst.dtype == PTO_DT_BOOL || pto_emit_is_f8(dst.dtype))
    return check_same(dst, src, what, err);
  return check_pair(dst, src, what, err);
}

PtoResult pto_emit_copy(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  if (pto_failed(check_move(dst, src, "copy", err))) return PTO_FAILURE;
  Ew w = {.kind = EW_COPY, .dst = dst, .a = src};
  elementwise(e, &w, rows, cols);
  return PTO_SUCCESS;
}

/* ---- casts ---- */

static const char *round_intrinsic(PtoRoundMode m) {
  switch (m) {
  case PTO_ROUND_DEFAULT:
  case PTO_ROUND_TRUNC: return "llvm.trunc";
  case PTO_ROUND_RINT: return "llvm.rint";
  case PTO_ROUND_ROUND: return "llvm.round";
  case PTO_ROUND_FLOOR: return "llvm.floor";
  case PTO_ROUND_CEIL: return "llvm.ceil";
  default: return NULL;
  }
}

static bool directed(PtoRoundMode m) {
  return m == PTO_ROUND_FLOOR || m == PTO_ROUND_CEIL || m == PTO_ROUND_TRUNC ||
         m == PTO_ROUND_ROUND;
}

/* A directed rounding into f16 or bf16: pto_emit_round_directed16 of
 * pto_emit_cast_to_float's f32, which is the source exactly or, for the
 * integers f32 does not hold, a value in the same interval between f16 or
 * bf16 neighbours (at the same one when exact): beyond f16's range, or
 * rounded to odd for bf16. */
static bool directed16(PtoRoundMode m, PtoDType from, PtoDType to) {
  return (to == PTO_DT_F16 || to == PTO_DT_BF16) && from != to && directed(m);
}

/* A directed rounding into f32 of an integer f32 does not hold:
 * pto_emit_int_to_f32_round. */
static bool directed_int32(PtoRoundMode m, PtoDType from, PtoDType to) {
  return to == PTO_DT_F32 && pto_emit_int_past_f32(from) &&
         directed(m);
}

/* An f32 of magnitude >= 2^63 modulo 2^64, for an i64 that wraps: its
 * significand shifted to its exponent in i64 arithmetic, which drops the
 * multiples of 2^64 (all of them from 2^88 on, and inf and NaN give 0). */
static LLVMValueRef wrap_huge_i64(PtoEmit *e, LLVMValueRef x) {
  unsigned lanes = pto_emit_lanes_of(x);
  LLVMTypeRef i32 = pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes),
              i64 = pto_emit_vec_type(LLVMInt64TypeInContext(e->ctx), lanes);
  LLVMValueRef bits = LLVMBuildBitCast(B, x, i32, "");
  LLVMValueRef exp = LLVMBuildAnd(B, LLVMBuildLShr(B, bits, pto_emit_iconst(e, x, 23), ""),
                                  pto_emit_iconst(e, x, 0xff), "");
  LLVMValueRef sig = LLVMBuildOr(B, LLVMBuildAnd(B, bits, pto_emit_iconst(e, x, 0x7fffff), ""),
                                 pto_emit_iconst(e, x, 0x800000), "");
  /* value = sig * 2^(exp - 150), exp - 150 >= 40 here */
  LLVMValueRef sh = LLVMBuildZExt(B, LLVMBuildSub(B, exp, pto_emit_iconst(e, x, 150), ""), i64, "");
  LLVMValueRef big = LLVMBuildICmp(B, LLVMIntUGE, sh, pto_emit_iconst_like(sh, 64), "");
  LLVMValueRef m = LLVMBuildShl(B, LLVMBuildZExt(B, sig, i64, ""),
                                LLVMBuildSelect(B, big, LLVMConstNull(i64), sh, ""), "");
  m = LLVMBuildSelect(B, big, LLVMConstNull(i64), m, "");
  LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, bits, LLVMConstNull(i32), "");
  return LLVMBuildSelect(B, neg, LLVMBuildSub(B, LLVMConstNull(i64), m, ""), m, "");
}

static LLVMValueRef cast_value(PtoEmit *e, const Ew *w, LLVMValueRef x) {
  PtoDType from = w->a.dtype, to = w->dst.dtype;
  /* an 8-bit float source is exact in f32, and converts on from there;
   * into its own type it is a copy (E5M2's NaN payloads stay) */
  if (pto_emit_is_f8(from) && from == to) return x;
  if (pto_emit_is_f8(from)) {
    x = pto_emit_f8_to_f32(e, from, x);
    from = PTO_DT_F32;
  }
  if (pto_emit_is_f8(to)) return pto_emit_cast_to_f8(e, w->mode, from, to, x);
  LLVMTypeRef ct = pto_emit_compute_type(e, to);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->ctx);
  if (directed_int32(w->mode.round, from, to))
    return pto_emit_int_to_f32_round(e, w->mode.round, from, x);
  if (is_float(to)) {
    x = pto_emit_cast_to_float(e, w->mode.sat, from, to, x);
    return directed16(w->mode.round, from, to)
               ? pto_emit_round_directed16(e, w->mode.round, to, x)
               : x;
  }
  if (is_float(from)) {
    x = pto_emit_intrinsic(e, round_intrinsic(w->mode.round), &x, 1);
    if (w->mode.sat == PTO_SAT_SATURATE) {
      /* NaN gives 0, the rest clamps to the range */
      LLVMTypeRef tys[2] = {ct, LLVMTypeOf(x)};
      unsigned id = pto_emit_is_uint(to) ? LLVMLookupIntrinsicID("llvm.fptoui.sat", 15)
                                         : LLVMLookupIntrinsicID("llvm.fptosi.sat", 15);
      LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, id, tys, 2);
      return LLVMBuildCall2(B, LLVMIntrinsicGetType(e->ctx, id, tys, 2), fn,
                            &x, 1, "");
    }
    /* wrap modulo 2^bits: exact through i64 below 2^63; every float above
     * is a multiple of 2^32, and NaN and inf give 0 */
    LLVMTypeRef tys[2] = {i64, LLVMTypeOf(x)};
    unsigned id = LLVMLookupIntrinsicID("llvm.fptosi.sat", 15);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, id, tys, 2);
    LLVMValueRef v = LLVMBuildCall2(B, LLVMIntrinsicGetType(e->ctx, id, tys, 2),
                                    fn, &x, 1, "");
    LLVMValueRef ax = pto_emit_intrinsic(e, "llvm.fabs", &x, 1);
    LLVMValueRef huge = LLVMBuildFCmp(B, LLVMRealUGE, ax,
                                      pto_emit_fconst(e, x, 0x1p63), "");
    v = LLVMBuildSelect(B, huge, LLVMGetIntTypeWidth(ct) == 64 ? wrap_huge_i64(e, x) : LLVMConstNull(LLVMTypeOf(v)), v, "");
    return LLVMBuildTrunc(B, v, ct, "");
  }
  /* integer to integer: the source's value (sign- or zero-extended)
   * wraps to the destination, or clamps to its range in i64, which holds
   * every value of both */
  unsigned fb = LLVMGetIntTypeWidth(LLVMTypeOf(x)), tb = LLVMGetIntTypeWidth(ct);
  if (w->mode.sat == PTO_SAT_SATURATE && from != to) {
    x = pto_emit_int_widen(e, from, x, i64);
    LLVMValueRef zero = LLVMConstNull(i64);
    if (to == PTO_DT_U64) /* holds every value but the negative ones */
      return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, x, zero, ""), zero, x, "");
    LLVMValueRef lo = LLVMConstInt(i64, (uint64_t)pto_dtype_int_min(to), 1);
    LLVMValueRef hi = LLVMConstInt(i64, (uint64_t)pto_dtype_int_max(to), 1);
    /* a ui64 is never below the range, and past 2^63 is above it */
    if (from != PTO_DT_U64)
      x = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, x, lo, ""), lo, x, "");
    x = LLVMBuildSelect(B, LLVMBuildICmp(B, from == PTO_DT_U64 ? LLVMIntUGT : LLVMIntSGT, x, hi, ""),
                        hi, x, "");
    return LLVMBuildTrunc(B, x, ct, "");
  }
  return tb < fb ? LLVMBuildTrunc(B, x, ct, "")
         : tb == fb ? x
                    : pto_emit_int_widen(e, from, x, ct);
}

PtoResult pto_emit_cast(PtoEmit *e, PtoCastMode mode, PtoEmitTile dst,
                        PtoEmitTile src, LLVMValueRef rows, LLVMValueRef cols,
                        PtoError *err) {
  if ((!pto_emit_is_f8(dst.dtype) && pto_failed(check_dtype(dst, "cast", err))) ||
      (!pto_emit_is_f8(src.dtype) && pto_failed(check_dtype(src, "cast", err))))
    return PTO_FAILURE;
  bool f8_in = pto_emit_is_f8(src.dtype);
  bool f2i = (is_float(src.dtype) || f8_in) && is_int(dst.dtype);
  /* integers wrap or clamp, and some float destinations hold every
   * source value: no rounding for the mode to direct */
  bool exact = (is_int(src.dtype) && is_int(dst.dtype)) || src.dtype == dst.dtype ||
               (dst.dtype == PTO_DT_F32 && !pto_emit_int_past_f32(src.dtype)) ||
               ((src.dtype == PTO_DT_I8 || src.dtype == PTO_DT_U8) && is_float(dst.dtype)) ||
               /* into an 8-bit float every mode is translated; out of one,
                * E4M3 and E5M2 fit f16 and bf16, E8M0 bf16 */
               pto_emit_is_f8(dst.dtype) ||
               (f8_in && (dst.dtype == PTO_DT_BF16 || dst.dtype == PTO_DT_F32 ||
                          src.dtype != PTO_DT_F8E8M0));
  if (f2i ? !round_intrinsic(mode.round)
          : !exact && mode.round != PTO_ROUND_DEFAULT && mode.round != PTO_ROUND_RINT &&
                !directed16(mode.round, f8_in ? PTO_DT_F32 : src.dtype, dst.dtype) &&
                !directed_int32(mode.round, src.dtype, dst.dtype))
    return pto_error_set(err, "a cast from %s to %s rounding '%s' has no LLVM "
                         "translation yet", pto_dtype_ir_name(src.dtype),
                         pto_dtype_ir_name(dst.dtype),
                         pto_round_mode_name(mode.round));
  Ew w = {.kind = EW_CAST, .dst = dst, .a = src, .mode = mode};
  elementwise(e, &w, rows, cols);
  return PTO_SUCCESS;
}

/* ---- row reductions ---- */

LLVMValueRef pto_emit_reduce_init(PtoEmit *e, PtoEmitReduce op, PtoDType dt,
                                  LLVMTypeRef ct) {
  if (is_float(dt))
    return LLVMConstReal(ct, op == PTO_EMIT_RED_SUM   ? 0.0
                             : op == PTO_EMIT_RED_MAX ? -INFINITY
                                                      : INFINITY);
  unsigned bits = LLVMGetIntTypeWidth(ct);
  /* the smallest and largest values of the type */
  uint64_t lo = pto_emit_is_uint(dt) ? 0 : (uint64_t)1 << (bits - 1);
  uint64_t hi = lo - 1;
  return LLVMConstInt(ct, op == PTO_EMIT_RED_SUM ? 0 : op == PTO_EMIT_RED_MAX ? lo : hi, 0);
}

LLVMValueRef pto_emit_reduce2(PtoEmit *e, PtoEmitReduce op, PtoEmitNum num,
                              LLVMValueRef a, LLVMValueRef b) {
  PtoEmitBinary bop = op == PTO_EMIT_RED_SUM   ? PTO_EMIT_BIN_ADD
                      : op == PTO_EMIT_RED_MAX ? PTO_EMIT_BIN_MAX
                                               : PTO_EMIT_BIN_MIN;
  return pto_emit_apply_binary(e, bop, num, a, b);
}

LLVMValueRef pto_emit_reduce_tree(PtoEmit *e, PtoEmitReduce op, PtoEmitNum num,
                                  LLVMValueRef acc) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
  for (unsigned w = pto_emit_lanes_of(acc) / 2; w >= 1; w /= 2) {
    LLVMValueRef lo_idx[32], hi_idx[32];
    for (unsigned i = 0; i < w; i++) {
      lo_idx[i] = LLVMConstInt(i32, i, 0);
      hi_idx[i] = LLVMConstInt(i32, i + w, 0);
    }
    LLVMValueRef lo = LLVMBuildShuffleVector(B, acc, LLVMGetUndef(LLVMTypeOf(acc)),
                                             LLVMConstVector(lo_idx, w), "");
    LLVMValueRef hi = LLVMBuildShuffleVector(B, acc, LLVMGetUndef(LLVMTypeOf(acc)),
                                             LLVMConstVector(hi_idx, w), "");
    acc = pto_emit_reduce2(e, op, num, lo, hi);
  }
  return LLVMBuildExtractElement(B, acc, LLVMConstInt(i32, 0, 0), "");
}

LLVMValueRef pto_emit_reduce_vectors(PtoEmit *e, PtoEmitReduce op, PtoEmitNum num,
                                     LLVMValueRef init, LLVMValueRef lo, LLVMValueRef hi,
                                     bool single, PtoEmitVectorFn fn, const void *user) {
  enum { K = PTO_EMIT_REDUCE_CHAINS };
  _Static_assert(K == 4, "the chains combine as (0 + 1) + (2 + 3)");
  int64_t lanes = (int64_t)pto_emit_lanes_of(init);
  LLVMValueRef acc[K];
  for (unsigned k = 0; k < K; k++) acc[k] = init;
  /* whole groups of K vectors, one chain per vector of a group */
  LLVMValueRef gend = LLVMBuildAdd(
      B, lo, LLVMBuildAnd(B, LLVMBuildSub(B, hi, lo, ""), pto_emit_i64(e, -K * lanes), ""), "");
  PtoEmitLoop lg, lv;
  pto_emit_loop_begin(e, &lg, lo, gend, K * lanes, K, acc);
  for (unsigned k = 0; k < K; k++) {
    LLVMValueRef c = LLVMBuildAdd(B, lg.iv, pto_emit_i64(e, (int64_t)k * lanes), "");
    lg.next[k] = pto_emit_reduce2(e, op, num, lg.carry[k], fn(e, c, user));
  }
  pto_emit_loop_end(e, &lg);
  if (single) pto_emit_loop_keep_single(e, &lg);
  /* the vectors after the last whole group, into chain 0 */
  pto_emit_loop_begin(e, &lv, gend, hi, lanes, 1, &lg.carry[0]);
  lv.next[0] = pto_emit_reduce2(e, op, num, lv.carry[0], fn(e, lv.iv, user));
  pto_emit_loop_end(e, &lv);
  if (single) pto_emit_loop_keep_single(e, &lv);
  LLVMValueRef a01 = pto_emit_reduce2(e, op, num, lv.carry[0], lg.carry[1]);
  LLVMValueRef a23 = pto_emit_reduce2(e, op, num, lg.carry[2], lg.carry[3]);
  return pto_emit_reduce2(e, op, num, a01, a23);
}

/* pto_emit_row_reduce's vectors: loads of row r */
typedef struct RowVector {
  PtoEmitTile src;
  LLVMValueRef r;
  unsigned lanes;
} RowVector;

static LLVMValueRef row_vector(PtoEmit *e, LLVMValueRef c, const void *user) {
  const RowVector *v = user;
  return pto_emit_load(e, v->src.dtype, pto_emit_elem_ptr(e, v->src, v->r, c), v->lanes);
}

PtoResult pto_emit_row_reduce(PtoEmit *e, PtoEmitReduce op, PtoEmitTile dst,
                              PtoEmitTile src, LLVMValueRef rows,
                              LLVMValueRef cols, PtoError *err) {
  PtoEmitStep st = {.kind = PTO_EMIT_STEP_ROWREDUCE, .op = op, .dst = dst, .a = src};
  if (pto_failed(pto_emit_step_check(e, &st, err))) return PTO_FAILURE;
  PtoEmitNum fp = pto_emit_num_of(src.dtype);
  unsigned lanes = e->lanes ? e->lanes : 8;
  LLVMTypeRef ct = pto_emit_compute_type(e, src.dtype);
  LLVMValueRef zero = pto_emit_i64(e, 0);
  LLVMValueRef init = pto_emit_reduce_init(e, op, src.dtype, ct);
  PtoEmitLoop lr, lt;
  pto_emit_loop_begin(e, &lr, zero, rows, 1, 0, NULL);
  LLVMValueRef r = lr.iv;
  /* whole vectors: `lanes` partial results side by side, in chains */
  LLVMValueRef vend = LLVMBuildAnd(B, cols, pto_emit_i64(e, -(int64_t)lanes), "");
  RowVector rv = {src, r, lanes};
  LLVMValueRef s = pto_emit_reduce_tree(
      e, op, fp,
      pto_emit_reduce_vectors(e, op, fp, pto_emit_splat(e, init, lanes), zero, vend, false,
                              row_vector, &rv));
  /* the columns after the last whole vector */
  pto_emit_loop_begin(e, &lt, vend, cols, 1, 1, &s);
  LLVMValueRef x = pto_emit_load(e, src.dtype,
                                 pto_emit_elem_ptr(e, src, r, lt.iv), 0);
  lt.next[0] = pto_emit_reduce2(e, op, fp, lt.carry[0], x);
  pto_emit_loop_end(e, &lt);
  pto_emit_store(e, dst.dtype, pto_emit_elem_ptr(e, dst, r, zero), lt.carry[0]);
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
  return PTO_SUCCESS;
}

/* ---- column reductions and transposes ---- */

PtoResult pto_emit_col_reduce(PtoEmit *e, PtoEmitReduce op, PtoEmitTile dst,
                              PtoEmitTile src, LLVMValueRef rows,
                              LLVMValueRef cols, PtoError *err) {
  const char *n = reduce_names[op];
  if (pto_failed(check_pair(dst, src, n, err))) return PTO_FAILURE;
  if (op == PTO_EMIT_RED_SUM && (src.dtype == PTO_DT_F16 || src.dtype == PTO_DT_BF16))
    return pto_error_set(err, "a column sum of %s tiles has no LLVM "
                         "translation yet", pto_dtype_ir_name(src.dtype));
  LLVMValueRef one = pto_emit_i64(e, 1);
  /* dst = row 0, then dst = dst (op) row r for each further row; a float
   * sum starts as +0 + row 0, as the interpreter's sum starts from +0
   * (numpy's too): a column of -0 sums to +0 */
  Ew first = {.kind = EW_COPY, .dst = dst, .a = src};
  if (op == PTO_EMIT_RED_SUM && is_float(src.dtype))
    first = (Ew){.kind = EW_SCALAR, .op = PTO_EMIT_BIN_ADD, .dst = dst, .a = src,
                 .s = LLVMConstReal(pto_emit_compute_type(e, src.dtype), 0.0)};
  elementwise(e, &first, one, cols);
  PtoEmitLoop lr;
  pto_emit_loop_begin(e, &lr, one, rows, 1, 0, NULL);
  LLVMValueRef off = LLVMBuildMul(
      B, LLVMBuildMul(B, lr.iv, src.row_stride, ""),
      pto_emit_i64(e, (int64_t)pto_dtype_size(src.dtype)), "");
  PtoEmitTile row = pto_emit_tile(e, src.ptr, off, src.row_stride, src.dtype);
  PtoEmitBinary bop = op == PTO_EMIT_RED_SUM   ? PTO_EMIT_BIN_ADD
                      : op == PTO_EMIT_RED_MAX ? PTO_EMIT_BIN_MAX
                                               : PTO_EMIT_BIN_MIN;
  Ew w = {.kind = EW_BINARY, .op = bop, .dst = dst, .a = dst, .b = row};
  elementwise(e, &w, one, cols);
  pto_emit_loop_end(e, &lr);
  return PTO_SUCCESS;
}

PtoResult pto_emit_transpose(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                             LLVMValueRef rows, LLVMValueRef cols,
                             PtoError *err) {
  if (pto_failed(check_move(dst, src, "transpose", err))) return PTO_FAILURE;
  unsigned size = (unsigned)pto_dtype_size(src.dtype);
  LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, 8 * size);
  LLVMTypeRef ip = LLVMPointerType(it, 0);
  LLVMValueRef zero = pto_emit_i64(e, 0);
  PtoEmitLoop lr, lc;
  pto_emit_loop_begin(e, &lr, zero, rows, 1, 0, NULL);
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 0, NULL);
  /* as integers: bit for bit */
  LLVMValueRef v = LLVMBuildLoad2(
      B, it, LLVMBuildBitCast(B, pto_emit_elem_ptr(e, src, lr.iv, lc.iv), ip, ""),
      "");
  LLVMSetAlignment(v, size);
  LLVMValueRef st = LLVMBuildStore(
      B, v, LLVMBuildBitCast(B, pto_emit_elem_ptr(e, dst, lc.iv, lr.iv), ip, ""));
  LLVMSetAlignment(st, size);
  pto_emit_loop_end(e, &lc);
  pto_emit_loop_end(e, &lr);
  return PTO_SUCCESS;
}
