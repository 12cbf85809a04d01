/* exp, log and tanh of f32 as straight-line IR (range reduction and a
 * polynomial, the classic Cody-Waite/Cephes scheme) so that a loop over a
 * tile vectorises instead of calling libm once per element. Each works on
 * a float or on a vector of floats. */
#include <math.h>

#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

static LLVMValueRef fc(PtoEmit *e, LLVMValueRef like, double v) {
  return pto_emit_fconst(e, like, v);
}
static LLVMValueRef ic(PtoEmit *e, LLVMValueRef like, int64_t v) {
  return pto_emit_iconst(e, like, v);
}
/* a * b + c, fused where the host has FMA */
static LLVMValueRef fma3(PtoEmit *e, LLVMValueRef a, LLVMValueRef b,
                         LLVMValueRef c) {
  LLVMValueRef args[3] = {a, b, c};
  return pto_emit_intrinsic(e, "llvm.fmuladd", args, 3);
}
static LLVMValueRef call1(PtoEmit *e, const char *name, LLVMValueRef x) {
  return pto_emit_intrinsic(e, name, &x, 1);
}
/* Horner's scheme over coefficients from the highest degree down. */
static LLVMValueRef horner(PtoEmit *e, LLVMValueRef x, const double *c,
                           unsigned n) {
  LLVMValueRef y = fc(e, x, c[0]);
  for (unsigned i = 1; i < n; i++) y = fma3(e, y, x, fc(e, x, c[i]));
  return y;
}
static LLVMTypeRef i32_like(PtoEmit *e, LLVMValueRef x) {
  return pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx),
                           pto_emit_lanes_of(x));
}
static LLVMValueRef fsel(PtoEmit *e, LLVMRealPredicate p, LLVMValueRef a,
                         LLVMValueRef b, LLVMValueRef then,
                         LLVMValueRef otherwise) {
  return LLVMBuildSelect(B, LLVMBuildFCmp(B, p, a, b, ""), then, otherwise,
                         "");
}
/* 2^n for integer n in [-126, 127], built in the exponent field */
static LLVMValueRef pow2i(PtoEmit *e, LLVMValueRef n, LLVMTypeRef fty) {
  LLVMValueRef bits =
      LLVMBuildShl(B, LLVMBuildAdd(B, n, ic(e, n, 127), ""), ic(e, n, 23), "");
  return LLVMBuildBitCast(B, bits, fty, "");
}

/* ln 2 split so that n * LN2_HI is exact for the n that occur */
static const double LOG2E = 1.44269504088896340736,
                    SQRT1_2 = 0.70710678118654752440;
static const double LN2_HI = 0.693359375, LN2_LO = -2.12194440e-4;

/* e^r = 1 + r + r^2 P(r) for the reduced argument r = x - n ln2 (fn is
 * n as a float) */
static LLVMValueRef exp_reduced(PtoEmit *e, LLVMValueRef x, LLVMValueRef fn) {
  /* A minimax fit of (e^r - 1 - r) / r^2 on [-ln2/2, ln2/2], relative
   * error of e^r below 0.06 ulp before rounding (Cephes's P has one more
   * term for no measurable gain: both stay within 1 ulp; every constant
   * counts, AVX2 has 16 vector registers for all of them) */
  static const double p[] = {1.3814539415761828e-3, 8.36874544620514e-3,
                             4.166838899254799e-2, 1.666652113199234e-1,
                             4.999999403953552e-1};
  LLVMValueRef r = fma3(e, fn, fc(e, x, -LN2_HI), x);
  r = fma3(e, fn, fc(e, x, -LN2_LO), r);
  LLVMValueRef z = LLVMBuildFMul(B, r, r, "");
  LLVMValueRef y = horner(e, r, p, 5);
  y = fma3(e, y, z, r);
  return LLVMBuildFAdd(B, y, fc(e, x, 1.0), "");
}

/* 1.5 * 2^23: adding it rounds a float below 2^22 in magnitude to an
 * integer (to nearest even, as rint), which its low bits then hold */
static const double MAGIC = 12582912.0;

/* e^x for every x (NaN, infinities, results that overflow or are
 * denormal). */
static LLVMValueRef exp_any(PtoEmit *e, LLVMValueRef x) {
  LLVMTypeRef fty = LLVMTypeOf(x);
  LLVMTypeRef ity = i32_like(e, x);
  /* Beyond [-104, 89] the result is 0 or +inf already; clamping keeps n
   * in range of the two-step scaling below. NaN fails both comparisons
   * and stays NaN through every step that follows: no integer conversion
   * of it (fptosi of NaN would be poison), so no test and select for it,
   * which matter in a loop this hot. */
  LLVMValueRef xc = fsel(e, LLVMRealOLT, x, fc(e, x, -104.0), fc(e, x, -104.0), x);
  xc = fsel(e, LLVMRealOGT, xc, fc(e, x, 89.0), fc(e, x, 89.0), xc);
  /* x = n ln2 + r, |r| <= ln2 / 2 (a hair more when the product is
   * fused and rounds the other way at a tie, which costs nothing) */
  LLVMValueRef t = fma3(e, xc, fc(e, x, LOG2E), fc(e, x, MAGIC));
  LLVMValueRef n = LLVMBuildSub(B, LLVMBuildBitCast(B, t, ity, ""),
                                ic(e, x, 0x4b400000), "");
  /* exact, and one constant fewer than t - MAGIC */
  LLVMValueRef y = exp_reduced(e, xc, LLVMBuildSIToFP(B, n, fty, ""));
  /* times 2^n in two steps, 2^(n/2) each, so that results near the top
   * overflow to inf and those below 2^-126 round once into a denormal */
  LLVMValueRef n1 = LLVMBuildAShr(B, n, ic(e, n, 1), "");
  LLVMValueRef n2 = LLVMBuildSub(B, n, n1, "");
  y = LLVMBuildFMul(B, y, pow2i(e, n1, fty), "");
  return LLVMBuildFMul(B, y, pow2i(e, n2, fty), "");
}

LLVMValueRef pto_emit_exp_f32(PtoEmit *e, LLVMValueRef x) {
  if (!pto_emit_lanes_of(x)) return exp_any(e, x);
  /* A vector whose every n = rint(x log2 e) lies in [-126, 127] (|x| up
   * to about 87, every lane of a softmax's exp) needs no clamp, and 2^n
   * is one normal float: y 2^n in one product, which rounds where
   * exp_any's second product does (y 2^n1 is exact), so the bits are
   * exp_any's. Other vectors take exp_any, behind a branch that a
   * tile's loop predicts. NaN, the infinities and every x past the
   * magic constant's range give an n far outside [-126, 127]. */
  LLVMTypeRef fty = LLVMTypeOf(x);
  LLVMTypeRef ity = i32_like(e, x);
  LLVMValueRef t = fma3(e, x, fc(e, x, LOG2E), fc(e, x, MAGIC));
  LLVMValueRef n = LLVMBuildSub(B, LLVMBuildBitCast(B, t, ity, ""),
                                ic(e, x, 0x4b400000), "");
  LLVMValueRef in = LLVMBuildICmp(B, LLVMIntULE, LLVMBuildAdd(B, n, ic(e, n, 126), ""),
                                  ic(e, n, 253), "");
  /* frozen: a branch on an undef or poison lane (a tile never written)
   * would be undefined, where before only that lane's result was */
  LLVMValueRef all = LLVMBuildFreeze(
      B, pto_emit_intrinsic(e, "llvm.vector.reduce.and", &in, 1), "");
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "exp.fast");
  LLVMBasicBlockRef any = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "exp.any");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "exp.join");
  LLVMBuildCondBr(B, all, fast, any);
  LLVMPositionBuilderAtEnd(B, fast);
  /* t - MAGIC is n exactly */
  LLVMValueRef yf = exp_reduced(e, x, LLVMBuildFSub(B, t, fc(e, x, MAGIC), ""));
  yf = LLVMBuildFMul(B, yf, pow2i(e, n, fty), "");
  LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, any);
  LLVMValueRef ya = exp_any(e, x);
  LLVMBasicBlockRef any_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef phi = LLVMBuildPhi(B, fty, "");
  LLVMValueRef vals[2] = {yf, ya};
  LLVMBasicBlockRef from[2] = {fast_end, any_end};
  LLVMAddIncoming(phi, vals, from, 2);
  return phi;
}

LLVMValueRef pto_emit_log_f32(PtoEmit *e, LLVMValueRef x) {
  static const double p[] = {7.0376836292e-2, -1.1514610310e-1,
                             1.1676998740e-1, -1.2420140846e-1,
                             1.4249322787e-1, -1.6668057665e-1,
                             2.0000714765e-1, -2.4999993993e-1,
                             3.3333331174e-1};
  LLVMTypeRef fty = LLVMTypeOf(x);
  LLVMTypeRef ity = i32_like(e, x);
  /* denormals: scale into the normal range first */
  LLVMValueRef den = LLVMBuildFCmp(B, LLVMRealOLT, x, fc(e, x, 0x1p-126), "");
  LLVMValueRef xs = LLVMBuildSelect(
      B, den, LLVMBuildFMul(B, x, fc(e, x, 0x1p23), ""), x, "");
  LLVMValueRef bits = LLVMBuildBitCast(B, xs, ity, "");
  /* x = m 2^ex with m in [0.5, 1) */
  LLVMValueRef ex = LLVMBuildSub(
      B,
      LLVMBuildAnd(B, LLVMBuildLShr(B, bits, ic(e, bits, 23), ""),
                   ic(e, bits, 0xff), ""),
      ic(e, bits, 126), "");
  ex = LLVMBuildSub(B, ex,
                    LLVMBuildSelect(B, den, ic(e, bits, 23), ic(e, bits, 0), ""),
                    "");
  LLVMValueRef m = LLVMBuildBitCast(
      B,
      LLVMBuildOr(B, LLVMBuildAnd(B, bits, ic(e, bits, 0x807fffff), ""),
                  ic(e, bits, 0x3f000000), ""),
      fty, "");
  /* m in [sqrt(1/2), sqrt(2)) around 1, exactly */
  LLVMValueRef small = LLVMBuildFCmp(B, LLVMRealOLT, m, fc(e, x, SQRT1_2), "");
  ex = LLVMBuildSub(B, ex, LLVMBuildZExt(B, small, ity, ""), "");
  LLVMValueRef m1 = LLVMBuildFSub(B, m, fc(e, x, 1.0), "");
  LLVMValueRef m2 = LLVMBuildFSub(B, LLVMBuildFAdd(B, m, m, ""),
                                  fc(e, x, 1.0), "");
  m = LLVMBuildSelect(B, small, m2, m1, "");
  /* log(1 + m) = m - m^2/2 + m^3 P(m) */
  LLVMValueRef z = LLVMBuildFMul(B, m, m, "");
  LLVMValueRef y = horner(e, m, p, 9);
  y = LLVMBuildFMul(B, LLVMBuildFMul(B, y, m, ""), z, "");
  LLVMValueRef fe = LLVMBuildSIToFP(B, ex, fty, "");
  y = fma3(e, fe, fc(e, x, LN2_LO), y);
  y = fma3(e, z, fc(e, x, -0.5), y);
  LLVMValueRef r = LLVMBuildFAdd(B, m, y, "");
  r = fma3(e, fe, fc(e, x, LN2_HI), r);
  /* log(+inf) = +inf, log(0) = -inf, log(x < 0) and log(NaN) = NaN */
  r = fsel(e, LLVMRealOEQ, x, fc(e, x, INFINITY), x, r);
  r = fsel(e, LLVMRealOEQ, x, fc(e, x, 0.0), fc(e, x, -INFINITY), r);
  r = fsel(e, LLVMRealULT, x, fc(e, x, 0.0), fc(e, x, NAN), r);
  return r;
}

LLVMValueRef pto_emit_tanh_f32(PtoEmit *e, LLVMValueRef x) {
  static const double p[] = {-5.70498872745e-3, 2.06390887954e-2,
                             -5.37397155531e-2, 1.33314422036e-1,
                             -3.33332819422e-1};
  LLVMValueRef ax = call1(e, "llvm.fabs", x);
  /* near 0: x + x^3 P(x^2), no cancellation */
  LLVMValueRef z = LLVMBuildFMul(B, x, x, "");
  LLVMValueRef ps = horner(e, z, p, 5);
  ps = fma3(e, LLVMBuildFMul(B, ps, z, ""), x, x);
  /* elsewhere: 1 - 2 / (e^(2|x|) + 1), with the sign of x */
  LLVMValueRef ez = pto_emit_exp_f32(e, LLVMBuildFAdd(B, ax, ax, ""));
  LLVMValueRef big = LLVMBuildFSub(
      B, fc(e, x, 1.0),
      LLVMBuildFDiv(B, fc(e, x, 2.0),
                    LLVMBuildFAdd(B, ez, fc(e, x, 1.0), ""), ""),
      "");
  /* NaN fails the comparison and takes the exp form, which keeps it */
  LLVMValueRef r = fsel(e, LLVMRealOLT, ax, fc(e, x, 0.625), ps, big);
  /* tanh is odd: x's sign on both forms; the series alone would turn -0
   * into +0 (x^3 P(x^2) is (-0)(-0) there, and +0 + -0 = +0) */
  LLVMValueRef args[2] = {r, x};
  return pto_emit_intrinsic(e, "llvm.copysign", args, 2);
}
