/* The Tile level's elementwise math, rounding, bit tests and broadcasts as
 * LLVM IR (Emit.h's pto_emit_math, pto_emit_expand, pto_emit_fill):
 * straight-line bodies in loops that vectorise, sigmoid and silu from the
 * polynomial exp, the roundings as LLVM's rounding intrinsics, signbit
 * and the broadcasts on the stored bits. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

#define NAME(id, name) name,
static const char *const math_names[] = {PTO_EMIT_MATH_OPS(NAME)};
#undef NAME
const char *pto_emit_math_name(PtoEmitMath op) { return math_names[op]; }

/* The parts of sigmoid and silu: num / den * scale is the value for
 * x < 0 (num = e^-|x| for sigmoid, x e^-|x| for silu), 1 / den and x / den
 * for x >= 0, den = 1 + e^-|x|. Past |x| = 64 the exponential is taken of
 * 64 - |x| (exact there) and scaled by e^-64 (rounded to f32, half an ulp)
 * at the end, so that a result in the denormals is rounded once, not
 * computed from an e^-|x| that has already lost its bits (or underflowed
 * to 0). */
typedef struct Logistic {
  LLVMValueRef t, den, scale, neg;
} Logistic;

static Logistic logistic(PtoEmit *e, LLVMValueRef x) {
  Logistic l;
  LLVMValueRef ax = pto_emit_intrinsic(e, "llvm.fabs", &x, 1);
  LLVMValueRef big = LLVMBuildFCmp(B, LLVMRealOGT, ax, pto_emit_fconst(e, x, 64.0), "");
  LLVMValueRef arg = LLVMBuildSelect(
      B, big, LLVMBuildFSub(B, pto_emit_fconst(e, x, 64.0), ax, ""),
      LLVMBuildFNeg(B, ax, ""), "");
  l.t = pto_emit_exp_f32(e, arg);
  l.scale = LLVMBuildSelect(B, big, pto_emit_fconst(e, x, 1.6038108905486378e-28 /* e^-64 */),
                            pto_emit_fconst(e, x, 1.0), "");
  l.den = LLVMBuildFAdd(B, pto_emit_fconst(e, x, 1.0),
                        LLVMBuildFMul(B, l.t, l.scale, ""), "");
  l.neg = LLVMBuildFCmp(B, LLVMRealOLT, x, pto_emit_fconst(e, x, 0.0), "");
  return l;
}

LLVMValueRef pto_emit_sigmoid_f32(PtoEmit *e, LLVMValueRef x) {
  Logistic l = logistic(e, x);
  LLVMValueRef lo = LLVMBuildFMul(B, LLVMBuildFDiv(B, l.t, l.den, ""), l.scale, "");
  LLVMValueRef hi = LLVMBuildFDiv(B, pto_emit_fconst(e, x, 1.0), l.den, "");
  /* NaN: the exponential and so both quotients are NaN */
  return LLVMBuildSelect(B, l.neg, lo, hi, "");
}

static LLVMValueRef silu_f32(PtoEmit *e, LLVMValueRef x) {
  Logistic l = logistic(e, x);
  LLVMValueRef lo = LLVMBuildFMul(
      B, LLVMBuildFDiv(B, LLVMBuildFMul(B, x, l.t, ""), l.den, ""), l.scale, "");
  return LLVMBuildSelect(B, l.neg, lo, LLVMBuildFDiv(B, x, l.den, ""), "");
}

/* f(x) of the compute type (f32 for every float dtype; the functions
 * computed in f64 rounded to odd for an f16 or bf16 dst: `odd`). */
static LLVMValueRef float_math(PtoEmit *e, PtoEmitMath op, LLVMValueRef x, bool odd) {
  switch (op) {
  case PTO_EMIT_MATH_SIGMOID: return pto_emit_sigmoid_f32(e, x);
  case PTO_EMIT_MATH_TANH: return pto_emit_tanh_f32(e, x);
  case PTO_EMIT_MATH_SILU: return silu_f32(e, x);
  case PTO_EMIT_MATH_FLOOR: return pto_emit_intrinsic(e, "llvm.floor", &x, 1);
  case PTO_EMIT_MATH_CEIL: return pto_emit_intrinsic(e, "llvm.ceil", &x, 1);
  /* the default environment rounds ties to even, as nearbyint does */
  case PTO_EMIT_MATH_ROUND: return pto_emit_intrinsic(e, "llvm.rint", &x, 1);
  case PTO_EMIT_MATH_SIN: return pto_emit_sin_f32(e, x);
  case PTO_EMIT_MATH_COS: return pto_emit_cos_f32(e, x);
  case PTO_EMIT_MATH_ERF: return pto_emit_erf_f32(e, x);
  case PTO_EMIT_MATH_TAN: case PTO_EMIT_MATH_ATAN: case PTO_EMIT_MATH_ASIN:
  case PTO_EMIT_MATH_ACOS: case PTO_EMIT_MATH_ERFC: return pto_emit_trig_f32(e, op, x, odd);
  case PTO_EMIT_MATH_SIGNBIT: break;
  default: break; /* EmitMathExp.c's, in math_elem */
  }
  return x;
}

static void math_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                      LLVMValueRef c) {
  PtoEmitTile src = t->src[0];
  PtoDType dt = src.dtype;
  LLVMValueRef sp = pto_emit_elem_ptr(e, src, r, c);
  LLVMValueRef dp = pto_emit_elem_ptr(e, t->dst, r, c);
  if (t->op == PTO_EMIT_MATH_SIGNBIT) {
    /* the stored sign bit: -0.0 and NaNs with the sign set count */
    LLVMValueRef bits = pto_emit_load_bits(e, dt, sp);
    LLVMValueRef neg = LLVMBuildICmp(B, pto_emit_int_pred(pto_emit_num_of(dt), LLVMIntSLT),
                                     bits, LLVMConstNull(LLVMTypeOf(bits)), "");
    LLVMTypeRef ct = pto_emit_compute_type(e, dt);
    LLVMValueRef one = pto_emit_is_float(dt) ? LLVMConstReal(ct, 1.0) : LLVMConstInt(ct, 1, 0);
    pto_emit_store(e, dt, dp, LLVMBuildSelect(B, neg, one, LLVMConstNull(ct), ""));
    return;
  }
  LLVMValueRef x = pto_emit_load(e, dt, sp, 0);
  LLVMValueRef y = pto_emit_exp_math(e, (PtoEmitMath)t->op, dt, x);
  pto_emit_store(e, dt, dp,
                 y ? y : float_math(e, (PtoEmitMath)t->op, x,
                                    dt == PTO_DT_F16 || dt == PTO_DT_BF16));
}

PtoResult pto_emit_math(PtoEmit *e, PtoEmitMath op, PtoEmitTile dst,
                        PtoEmitTile src, LLVMValueRef rows, LLVMValueRef cols,
                        PtoError *err) {
  if (op == PTO_EMIT_MATH_SIN || op == PTO_EMIT_MATH_COS || op == PTO_EMIT_MATH_TAN)
    return pto_emit_trig(e, op, dst, src, rows, cols, err);
  bool fp = pto_emit_is_float(src.dtype);
  bool ints = pto_emit_is_int(src.dtype);
  if (!fp && !(op == PTO_EMIT_MATH_SIGNBIT && ints))
    return pto_error_set(err, "%s on %s tiles has no LLVM translation yet",
                         math_names[op], pto_dtype_ir_name(src.dtype));
  PtoEmitTiles t = {.dst = dst, .src = {src}, .op = op};
  return pto_emit_tiles_each(e, &t, 1, dst.dtype == src.dtype,
                             "an elementwise instruction needs one element type",
                             rows, cols, math_elem, err);
}

static void expand_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                        LLVMValueRef c) {
  LLVMValueRef zero = pto_emit_i64(e, 0);
  PtoEmitTile src = t->src[0];
  LLVMValueRef v = pto_emit_load_bits(
      e, src.dtype,
      pto_emit_elem_ptr(e, src, t->op & 1 ? zero : r, t->op & 2 ? zero : c));
  pto_emit_store_bits(e, t->dst.dtype, pto_emit_elem_ptr(e, t->dst, r, c), v);
}

PtoResult pto_emit_expand(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                          bool rows_one, bool cols_one, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {src}, .op = (rows_one ? 1 : 0) | (cols_one ? 2 : 0)};
  return pto_emit_tiles_each(e, &t, 1, dst.dtype == src.dtype,
                             "a broadcast needs one element type", rows, cols,
                             expand_elem, err);
}

static void fill_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                      LLVMValueRef c) {
  pto_emit_store_bits(e, t->dst.dtype, pto_emit_elem_ptr(e, t->dst, r, c), t->extra);
}

PtoResult pto_emit_fill(PtoEmit *e, PtoEmitTile dst, LLVMValueRef bits,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  LLVMTypeRef st = pto_emit_storage_type(e, dst.dtype);
  bool ok = st && LLVMGetTypeKind(LLVMTypeOf(bits)) == LLVMIntegerTypeKind &&
            LLVMGetIntTypeWidth(LLVMTypeOf(bits)) == 8 * pto_dtype_size(dst.dtype);
  PtoEmitTiles t = {.dst = dst, .src = {dst}, .extra = bits};
  return pto_emit_tiles_each(e, &t, 1, ok,
                             "a fill needs a scalar as wide as the tile's elements",
                             rows, cols, fill_elem, err);
}
