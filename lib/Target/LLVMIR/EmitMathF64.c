/* sin, cos, erf and pow of f32 computed in f64 as straight-line IR (so
 * that the tile loops vectorise: no libm call per element), and the f64
 * exp, log and sincos they are built from. f32 arguments are exact in
 * f64 and every result is within 2^-40 of the true value before its one
 * rounding to f32, which makes them correctly rounded but for rare ties
 * (test/unittests/EmitTest.c and JitDiffTest.c measure them). The
 * coefficients are Taylor series' (exact rationals) except erfc's on
 * [1, 4], a Chebyshev fit. */
#include <math.h>

#include "Target/LLVMIR/EmitUtil.h"
#include "pto/PolyF64.h"

#define B (e->b)

/* An f64 / i64 constant with as many lanes as `like`. */
static LLVMValueRef splat(LLVMValueRef c, LLVMValueRef like) {
  unsigned n = pto_emit_lanes_of(like);
  if (!n) return c;
  LLVMValueRef v[64];
  for (unsigned i = 0; i < n && i < 64; i++) v[i] = c;
  return LLVMConstVector(v, n < 64 ? n : 64);
}
static LLVMValueRef dc(PtoEmit *e, LLVMValueRef like, double v) {
  return splat(LLVMConstReal(LLVMDoubleTypeInContext(e->ctx), v), like);
}
static LLVMValueRef lc(PtoEmit *e, LLVMValueRef like, int64_t v) {
  return splat(LLVMConstInt(LLVMInt64TypeInContext(e->ctx), (uint64_t)v, 1), like);
}
static LLVMTypeRef vty(PtoEmit *e, LLVMTypeRef t, LLVMValueRef like) {
  return pto_emit_vec_type(t, pto_emit_lanes_of(like));
}
/* a * b + c rounded once (llvm.fma, not fmuladd: the C kernels that must
 * agree bit for bit call fma() too) */
LLVMValueRef pto_emit_fma_f64(PtoEmit *e, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
  LLVMValueRef args[3] = {a, b, c};
  return pto_emit_intrinsic(e, "llvm.fma", args, 3);
}
LLVMValueRef pto_emit_horner_f64(PtoEmit *e, LLVMValueRef x, const double *c, unsigned n) {
  LLVMValueRef y = dc(e, x, c[0]);
  for (unsigned i = 1; i < n; i++) y = pto_emit_fma_f64(e, y, x, dc(e, x, c[i]));
  return y;
}
LLVMValueRef pto_emit_fselect(PtoEmit *e, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b,
                             LLVMValueRef then, LLVMValueRef otherwise) {
  return LLVMBuildSelect(B, LLVMBuildFCmp(B, p, a, b, ""), then, otherwise, "");
}
static LLVMValueRef call1(PtoEmit *e, const char *name, LLVMValueRef x) {
  return pto_emit_intrinsic(e, name, &x, 1);
}

LLVMValueRef pto_emit_exp_f64(PtoEmit *e, LLVMValueRef y) {
  /* 1/k!, k = 13 down to 0: |r| <= ln2/2 leaves 2^-58 */
  static const double p[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
                             1.0 / 3628800.0,    1.0 / 362880.0,    1.0 / 40320.0,
                             1.0 / 5040.0,       1.0 / 720.0,       1.0 / 120.0,
                             1.0 / 24.0,         1.0 / 6.0,         0.5,
                             1.0,                1.0};
  /* e^+-700 are 0 and inf once rounded to f32, and 2^n stays normal */
  y = pto_emit_fselect(e, LLVMRealOLT, y, dc(e, y, -700.0), dc(e, y, -700.0), y);
  y = pto_emit_fselect(e, LLVMRealOGT, y, dc(e, y, 700.0), dc(e, y, 700.0), y);
  LLVMValueRef n = call1(e, "llvm.rint", LLVMBuildFMul(B, y, dc(e, y, 1.4426950408889634), ""));
  LLVMValueRef r = pto_emit_fma_f64(e, LLVMBuildFNeg(B, n, ""), dc(e, y, PTO_LN2_HI), y);
  r = pto_emit_fma_f64(e, LLVMBuildFNeg(B, n, ""), dc(e, y, PTO_LN2_LO), r);
  LLVMValueRef q = pto_emit_horner_f64(e, r, p, 14);
  /* NaN converts to poison: it scales by 2^0 and stays NaN through q */
  LLVMValueRef nn = pto_emit_fselect(e, LLVMRealUNO, n, n, dc(e, y, 0.0), n);
  LLVMTypeRef ity = vty(e, LLVMInt64TypeInContext(e->ctx), y);
  LLVMValueRef ni = LLVMBuildFPToSI(B, nn, ity, "");
  LLVMValueRef bits = LLVMBuildShl(B, LLVMBuildAdd(B, ni, lc(e, y, 1023), ""), lc(e, y, 52), "");
  return LLVMBuildFMul(B, q, LLVMBuildBitCast(B, bits, LLVMTypeOf(y), ""), "");
}

LLVMValueRef pto_emit_log_f64(PtoEmit *e, LLVMValueRef x) {
  /* log(m) = 2 atanh(s) (PolyF64.h) */
  LLVMTypeRef ity = vty(e, LLVMInt64TypeInContext(e->ctx), x);
  LLVMValueRef bits = LLVMBuildBitCast(B, x, ity, "");
  LLVMValueRef ex = LLVMBuildSub(B, LLVMBuildLShr(B, bits, lc(e, x, 52), ""), lc(e, x, 1023), "");
  LLVMValueRef m = LLVMBuildBitCast(
      B,
      LLVMBuildOr(B, LLVMBuildAnd(B, bits, lc(e, x, 0x000fffffffffffffLL), ""),
                  lc(e, x, 0x3ff0000000000000LL), ""),
      LLVMTypeOf(x), "");
  /* m in [sqrt(1/2), sqrt(2)) */
  LLVMValueRef big = LLVMBuildFCmp(B, LLVMRealOGT, m, dc(e, x, 1.4142135623730951), "");
  m = LLVMBuildSelect(B, big, LLVMBuildFMul(B, m, dc(e, x, 0.5), ""), m, "");
  ex = LLVMBuildAdd(B, ex, LLVMBuildZExt(B, big, ity, ""), "");
  LLVMValueRef f = LLVMBuildFSub(B, m, dc(e, x, 1.0), "");
  LLVMValueRef s = LLVMBuildFDiv(B, f, LLVMBuildFAdd(B, f, dc(e, x, 2.0), ""), "");
  LLVMValueRef z = LLVMBuildFMul(B, s, s, "");
  LLVMValueRef s2 = LLVMBuildFAdd(B, s, s, "");
  LLVMValueRef lm = pto_emit_fma_f64(e, LLVMBuildFMul(B, s2, z, ""), pto_emit_horner_f64(e, z, pto_poly_atanh, 11), s2);
  LLVMValueRef fe = LLVMBuildSIToFP(B, ex, LLVMTypeOf(x), "");
  LLVMValueRef r = pto_emit_fma_f64(e, fe, dc(e, x, PTO_LN2_HI), pto_emit_fma_f64(e, fe, dc(e, x, PTO_LN2_LO), lm));
  /* log(+inf) = +inf, log(0) = -inf, log(x < 0) and log(NaN) = NaN */
  r = pto_emit_fselect(e, LLVMRealOEQ, x, dc(e, x, INFINITY), x, r);
  r = pto_emit_fselect(e, LLVMRealOEQ, x, dc(e, x, 0.0), dc(e, x, -INFINITY), r);
  return pto_emit_fselect(e, LLVMRealULT, x, dc(e, x, 0.0), dc(e, x, NAN), r);
}

void pto_emit_sincos_f64(PtoEmit *e, LLVMValueRef x, LLVMValueRef *sin_out,
                         LLVMValueRef *cos_out) {
  /* x = j pi/2 + r: with fma the first step is exact and the three parts
   * leave r accurate for |j| < 2^50 */
  LLVMValueRef j = call1(e, "llvm.rint", LLVMBuildFMul(B, x, dc(e, x, PTO_2_OVER_PI), ""));
  LLVMValueRef nj = LLVMBuildFNeg(B, j, "");
  LLVMValueRef r = pto_emit_fma_f64(e, nj, dc(e, x, PTO_PIO2_1), x);
  r = pto_emit_fma_f64(e, nj, dc(e, x, PTO_PIO2_2), r);
  r = pto_emit_fma_f64(e, nj, dc(e, x, PTO_PIO2_3), r);
  LLVMValueRef z = LLVMBuildFMul(B, r, r, "");
  LLVMValueRef s = pto_emit_fma_f64(e, LLVMBuildFMul(B, r, z, ""), pto_emit_horner_f64(e, z, pto_poly_sin, 8), r);
  LLVMValueRef c = pto_emit_fma_f64(e, z, pto_emit_horner_f64(e, z, pto_poly_cos, 9), dc(e, x, 1.0));
  /* the quadrant j mod 4, in f64 (exact, and NaN and inf need no care) */
  LLVMValueRef q = LLVMBuildFSub(
      B, j,
      LLVMBuildFMul(B, call1(e, "llvm.floor", LLVMBuildFMul(B, j, dc(e, x, 0.25), "")),
                    dc(e, x, 4.0), ""),
      "");
  LLVMValueRef odd = pto_emit_fselect(e, LLVMRealOEQ, q, dc(e, x, 1.0), dc(e, x, 1.0),
                          pto_emit_fselect(e, LLVMRealOEQ, q, dc(e, x, 3.0), dc(e, x, 1.0), dc(e, x, 0.0)));
  LLVMValueRef swap = LLVMBuildFCmp(B, LLVMRealOEQ, odd, dc(e, x, 1.0), "");
  LLVMValueRef ss = LLVMBuildSelect(B, swap, c, s, ""), cc = LLVMBuildSelect(B, swap, s, c, "");
  /* sin is negative in quadrants 2 and 3, cos in 1 and 2 */
  LLVMValueRef sneg = LLVMBuildFCmp(B, LLVMRealOGE, q, dc(e, x, 2.0), "");
  LLVMValueRef cneg = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGE, q, dc(e, x, 1.0), ""),
                                   LLVMBuildFCmp(B, LLVMRealOLE, q, dc(e, x, 2.0), ""), "");
  *sin_out = LLVMBuildSelect(B, sneg, LLVMBuildFNeg(B, ss, ""), ss, "");
  /* sin(-0) = -0: the reduction's x - 0 pi/2 is +0 */
  *sin_out = pto_emit_fselect(e, LLVMRealOEQ, x, dc(e, x, 0.0), x, *sin_out);
  *cos_out = LLVMBuildSelect(B, cneg, LLVMBuildFNeg(B, cc, ""), cc, "");
}

static LLVMValueRef to64(PtoEmit *e, LLVMValueRef x) {
  return LLVMBuildFPExt(B, x, vty(e, LLVMDoubleTypeInContext(e->ctx), x), "");
}
static LLVMValueRef to32(PtoEmit *e, LLVMValueRef x) {
  return LLVMBuildFPTrunc(B, x, vty(e, LLVMFloatTypeInContext(e->ctx), x), "");
}

/* Beyond |x| = 2^50 the reduction above loses r: NaN there, not a
 * number that looks right (docs/jit.md). */
static LLVMValueRef trig_f32(PtoEmit *e, LLVMValueRef x, bool cosine) {
  LLVMValueRef d = to64(e, x), s, c;
  pto_emit_sincos_f64(e, d, &s, &c);
  LLVMValueRef r = cosine ? c : s;
  r = pto_emit_fselect(e, LLVMRealOGT, call1(e, "llvm.fabs", d), dc(e, d, 0x1p50), dc(e, d, NAN), r);
  return to32(e, r);
}
LLVMValueRef pto_emit_sin_f32(PtoEmit *e, LLVMValueRef x) { return trig_f32(e, x, false); }
LLVMValueRef pto_emit_cos_f32(PtoEmit *e, LLVMValueRef x) { return trig_f32(e, x, true); }

LLVMValueRef pto_emit_erf_f32(PtoEmit *e, LLVMValueRef x) {
  /* |x| < 1: x P(x^2), P pto_poly_erf */
  /* 1 <= |x| < 4: erfc(x) = e^(-x^2) g(x), g a Chebyshev fit in
   * t = (x - 2.5) / 1.5, relative error 1e-12 */
  static const double gp[] = {
      -7.231108685560614e-08, 2.1942834112044903e-07, -3.296676048392839e-07,
      9.352982065743381e-07,  -3.2072814115210902e-06, 8.899832715077125e-06,
      -2.357331003786315e-05, 6.246551056079055e-05,  -0.00016202449046711056,
      0.00040912486725745657, -0.0010058289396187602, 0.00240363982613611,
      -0.005570706424997376,  0.012489374649691548,   -0.02700529665533597,
      0.05611049341600414,    -0.11152102018474919,   0.21080636406132255};
  LLVMValueRef d = to64(e, x);
  LLVMValueRef ax = call1(e, "llvm.fabs", d);
  LLVMValueRef x2 = LLVMBuildFMul(B, d, d, ""); /* exact */
  LLVMValueRef small = LLVMBuildFMul(B, d, pto_emit_horner_f64(e, x2, pto_poly_erf, 16), "");
  LLVMValueRef t = LLVMBuildFMul(B, LLVMBuildFSub(B, ax, dc(e, d, 2.5), ""),
                                 dc(e, d, 1.0 / 1.5), "");
  LLVMValueRef ec = LLVMBuildFMul(B, pto_emit_exp_f64(e, LLVMBuildFNeg(B, x2, "")),
                                  pto_emit_horner_f64(e, t, gp, 18), "");
  LLVMValueRef big = LLVMBuildFSub(B, dc(e, d, 1.0), ec, "");
  /* erf(4) rounds to 1 in every float dtype */
  big = pto_emit_fselect(e, LLVMRealOGE, ax, dc(e, d, 4.0), dc(e, d, 1.0), big);
  LLVMValueRef args[2] = {big, d};
  big = pto_emit_intrinsic(e, "llvm.copysign", args, 2);
  /* NaN fails the comparison and takes the second form, which keeps it */
  return to32(e, pto_emit_fselect(e, LLVMRealOLT, ax, dc(e, d, 1.0), small, big));
}

LLVMValueRef pto_emit_pow_f32(PtoEmit *e, LLVMValueRef a, LLVMValueRef b, bool to_odd) {
  LLVMValueRef da = to64(e, a), db = to64(e, b);
  LLVMValueRef one = dc(e, da, 1.0), zero = dc(e, da, 0.0);
  LLVMValueRef aa = call1(e, "llvm.fabs", da);
  /* |a|^b = e^(b log|a|): b log|a| is within 2^-50 of its value, so the
   * result is within 2^-40 of |a|^b wherever that is an f32 */
  LLVMValueRef r = pto_emit_exp_f64(e, LLVMBuildFMul(B, db, pto_emit_log_f64(e, aa), ""));
  /* b an odd integer: b - 2 floor(b / 2) = 1 (inf and NaN give NaN) */
  LLVMValueRef half = call1(e, "llvm.floor", LLVMBuildFMul(B, db, dc(e, da, 0.5), ""));
  LLVMValueRef odd = LLVMBuildFCmp(
      B, LLVMRealOEQ, LLVMBuildFSub(B, db, LLVMBuildFAdd(B, half, half, ""), ""), one, "");
  LLVMValueRef ai = LLVMBuildBitCast(B, da, vty(e, LLVMInt64TypeInContext(e->ctx), da), "");
  LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, ai, lc(e, da, 0), "");
  r = LLVMBuildSelect(B, LLVMBuildAnd(B, neg, odd, ""), LLVMBuildFNeg(B, r, ""), r, "");
  /* a finite negative a and a b that is no integer: NaN */
  LLVMValueRef notint = LLVMBuildFCmp(B, LLVMRealUNE, call1(e, "llvm.floor", db), db, "");
  LLVMValueRef finneg = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOLT, da, zero, ""),
                                     LLVMBuildFCmp(B, LLVMRealOGT, da, dc(e, da, -INFINITY), ""),
                                     "");
  r = LLVMBuildSelect(B, LLVMBuildAnd(B, finneg, notint, ""), dc(e, da, NAN), r, "");
  /* C's pow: pow(a, 0) = 1 and pow(1, b) = 1 for every a and b (NaN too),
   * pow(-1, +-inf) = 1 */
  LLVMValueRef is1 = LLVMBuildOr(
      B, LLVMBuildFCmp(B, LLVMRealOEQ, db, zero, ""),
      LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealOEQ, da, one, ""),
                  LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, aa, one, ""),
                               LLVMBuildFCmp(B, LLVMRealOEQ, call1(e, "llvm.fabs", db),
                                             dc(e, da, INFINITY), ""),
                               ""),
                  ""),
      "");
  r = LLVMBuildSelect(B, is1, one, r, "");
  return to_odd ? pto_emit_f32_odd(e, r) : to32(e, r);
}

static void pow_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r, LLVMValueRef c) {
  PtoDType dt = t->dst.dtype;
  LLVMValueRef a = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[0], r, c), 0);
  LLVMValueRef b = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[1], r, c), 0);
  pto_emit_store(e, dt, pto_emit_elem_ptr(e, t->dst, r, c),
                 t->op ? pto_emit_atan2_f32(e, a, b, dt == PTO_DT_F16 || dt == PTO_DT_BF16)
                       : pto_emit_pow_f32(e, a, b, dt == PTO_DT_F16 || dt == PTO_DT_BF16));
}

PtoResult pto_emit_pow(PtoEmit *e, bool angle, PtoEmitTile dst, PtoEmitTile a, PtoEmitTile b,
                       LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {a, b}, .op = angle};
  return pto_emit_tiles_each(e, &t, 2,
                             pto_emit_is_float(dst.dtype) && a.dtype == dst.dtype &&
                                 b.dtype == dst.dtype,
                             angle ? "atan2 needs float tiles of one element type"
                                   : "pow needs float tiles of one element type",
                             rows, cols, pow_elem, err);
}

/* ---- tsin, tcos, ttan: the polynomial loop, or libm past its range ---- */

static void trig_fast(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r, LLVMValueRef c) {
  PtoDType dt = t->dst.dtype;
  LLVMValueRef x = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[0], r, c), 0);
  bool odd = dt == PTO_DT_F16 || dt == PTO_DT_BF16;
  LLVMValueRef y = t->op == PTO_EMIT_MATH_TAN   ? pto_emit_trig_f32(e, PTO_EMIT_MATH_TAN, x, odd)
                   : t->op == PTO_EMIT_MATH_COS ? pto_emit_cos_f32(e, x)
                                                : pto_emit_sin_f32(e, x);
  pto_emit_store(e, dt, pto_emit_elem_ptr(e, t->dst, r, c), y);
}

/* libm's sin, cos or tan of the f64 argument, rounded once to the dtype
 * (through f32 rounded to odd for f16 and bf16): what the interpreter
 * computes */
static void trig_libm(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r, LLVMValueRef c) {
  PtoDType dt = t->dst.dtype;
  LLVMTypeRef d = LLVMDoubleTypeInContext(e->ctx);
  LLVMTypeRef fty = LLVMFunctionType(d, &d, 1, 0);
  const char *name = pto_emit_math_name((PtoEmitMath)t->op); /* libm's names */
  LLVMValueRef fn = LLVMGetNamedFunction(e->mod, name);
  if (!fn) fn = LLVMAddFunction(e->mod, name, fty);
  LLVMValueRef x = LLVMBuildFPExt(
      B, pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[0], r, c), 0), d, "");
  LLVMValueRef y = LLVMBuildCall2(B, fty, fn, &x, 1, "");
  pto_emit_store(e, dt, pto_emit_elem_ptr(e, t->dst, r, c),
                 dt == PTO_DT_F16 || dt == PTO_DT_BF16
                     ? pto_emit_f32_odd(e, y)
                     : LLVMBuildFPTrunc(B, y, LLVMFloatTypeInContext(e->ctx), ""));
}

PtoResult pto_emit_trig(PtoEmit *e, PtoEmitMath op, PtoEmitTile dst, PtoEmitTile src,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {src}, .op = (int)op};
  const char *needs = "an elementwise instruction needs one float element type";
  if (!pto_emit_is_float(src.dtype) || dst.dtype != src.dtype)
    return pto_emit_tiles_each(e, &t, 1, false, needs, rows, cols, trig_fast, err);
  /* whether any |x| > 2^50 (NaN is not): one pass that vectorises, and
   * only tiles that have such an x take libm's calls, element by element */
  LLVMValueRef zero = pto_emit_i64(e, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
  LLVMValueRef none = LLVMConstInt(i32, 0, 0);
  PtoEmitLoop lr, lc;
  LLVMValueRef hi_r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, cols, zero, ""), rows,
                                      zero, "");
  pto_emit_loop_begin(e, &lr, zero, hi_r, 1, 1, &none);
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 1, &lr.carry[0]);
  LLVMValueRef x = pto_emit_load(e, src.dtype, pto_emit_elem_ptr(e, src, lr.iv, lc.iv), 0);
  LLVMValueRef big = LLVMBuildFCmp(B, LLVMRealOGT, call1(e, "llvm.fabs", x),
                                   pto_emit_fconst(e, x, 0x1p50), "");
  lc.next[0] = LLVMBuildOr(B, lc.carry[0], LLVMBuildZExt(B, big, i32, ""), "");
  pto_emit_loop_end(e, &lc);
  lr.next[0] = lc.carry[0];
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
  LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "trig.libm");
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "trig.poly");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "trig.done");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, lr.carry[0], none, ""), slow, fast);
  LLVMPositionBuilderAtEnd(B, slow);
  pto_emit_tiles_each(e, &t, 1, true, needs, rows, cols, trig_libm, err);
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, fast);
  pto_emit_tiles_each(e, &t, 1, true, needs, rows, cols, trig_fast, err);
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
  return PTO_SUCCESS;
}

/* ---- the helpers above, for the other f64 math (EmitMathF64.h) ---- */

LLVMValueRef pto_emit_f64_const(PtoEmit *e, LLVMValueRef like, double v) {
  return dc(e, like, v);
}
