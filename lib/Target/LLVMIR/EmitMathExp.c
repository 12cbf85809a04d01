/* log2, log10, log1p, exp2, expm1, sinh, cosh, asinh, acosh, atanh and
 * cbrt of float tiles computed in f64 as straight-line IR, so that the
 * tile loops vectorise (no libm call per element) and each result is
 * rounded once to the element type, as the Tile level rounds libm's
 * double result (f16 and bf16 through f32 rounded to odd). Built on
 * EmitMathF64.c's exp and log; the small-argument forms (log1p, expm1,
 * sinh) are series, so that no result near 0 comes from a cancellation.
 * Every f64 value below is within about 2^-50 of the true one, which
 * leaves the f32 rounding different from libm's only where the exact
 * value lies that close to a rounding boundary (EmitTest.c counts them). */
#include <math.h>

#include "Target/LLVMIR/EmitUtil.h"
#include "pto/PolyF64.h"

#define B (e->b)

/* f64 and i64 constants with as many lanes as `like` */
static LLVMValueRef lanes_of(LLVMValueRef c, LLVMValueRef like) {
  unsigned n = pto_emit_lanes_of(like);
  LLVMValueRef v[64];
  for (unsigned i = 0; i < n && i < 64; i++) v[i] = c;
  return n ? LLVMConstVector(v, n < 64 ? n : 64) : c;
}
static LLVMValueRef d64(PtoEmit *e, LLVMValueRef like, double v) {
  return lanes_of(LLVMConstReal(LLVMDoubleTypeInContext(e->ctx), v), like);
}
static LLVMValueRef i64c(PtoEmit *e, LLVMValueRef like, int64_t v) {
  return lanes_of(LLVMConstInt(LLVMInt64TypeInContext(e->ctx), (uint64_t)v, 1), like);
}
static LLVMValueRef fabs_d(PtoEmit *e, LLVMValueRef x) {
  return pto_emit_intrinsic(e, "llvm.fabs", &x, 1);
}
static LLVMValueRef with_sign(PtoEmit *e, LLVMValueRef mag, LLVMValueRef sign) {
  LLVMValueRef args[2] = {mag, sign};
  return pto_emit_intrinsic(e, "llvm.copysign", args, 2);
}
static LLVMValueRef widen(PtoEmit *e, LLVMValueRef x) {
  return LLVMBuildFPExt(
      B, x, pto_emit_vec_type(LLVMDoubleTypeInContext(e->ctx), pto_emit_lanes_of(x)), "");
}

/* log(1 + a) of any f64 a (log1p(-1) = -inf, log1p(a < -1) = NaN:
 * log's own special values): |a| < 1/4 as 2 atanh(s), s = a / (2 + a)
 * (s^2 <= 0.0205, inside PolyF64.h's series), else log(u), u = 1 + a,
 * plus the part of a that u lost, (a - (u - 1)) / u */
static LLVMValueRef log1p_f64(PtoEmit *e, LLVMValueRef a) {
  LLVMValueRef s = LLVMBuildFDiv(B, a, LLVMBuildFAdd(B, a, d64(e, a, 2.0), ""), "");
  LLVMValueRef z = LLVMBuildFMul(B, s, s, "");
  LLVMValueRef s2 = LLVMBuildFAdd(B, s, s, "");
  LLVMValueRef small =
      pto_emit_fma_f64(e, LLVMBuildFMul(B, s2, z, ""), pto_emit_horner_f64(e, z, pto_poly_atanh, 11), s2);
  LLVMValueRef u = LLVMBuildFAdd(B, a, d64(e, a, 1.0), "");
  LLVMValueRef lost = LLVMBuildFDiv(
      B, LLVMBuildFSub(B, a, LLVMBuildFSub(B, u, d64(e, a, 1.0), ""), ""), u, "");
  /* no correction where it would be inf / inf or 0 / 0 (and none is due) */
  LLVMValueRef fine = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGT, u, d64(e, a, 0.0), ""),
                                   LLVMBuildFCmp(B, LLVMRealOLT, u, d64(e, a, 0x1p53), ""), "");
  lost = LLVMBuildSelect(B, fine, lost, d64(e, a, 0.0), "");
  LLVMValueRef big = LLVMBuildFAdd(B, pto_emit_log_f64(e, u), lost, "");
  /* NaN fails the comparison and takes log(NaN) */
  return pto_emit_fselect(e, LLVMRealOLT, fabs_d(e, a), d64(e, a, 0.25), small, big);
}

static LLVMValueRef log2_f64(PtoEmit *e, LLVMValueRef d) {
  /* log(2^k) is k ln2 to an ulp, so exact powers of two come out exact */
  return LLVMBuildFMul(B, pto_emit_log_f64(e, d), d64(e, d, 1.4426950408889634), "");
}

static LLVMValueRef log10_f64(PtoEmit *e, LLVMValueRef d) {
  return LLVMBuildFMul(B, pto_emit_log_f64(e, d), d64(e, d, 0.43429448190325182), "");
}

static LLVMValueRef exp2_f64(PtoEmit *e, LLVMValueRef d) {
  /* 2^x = 2^n e^(f ln2), n = rint(x), f = x - n exact; past +-200 the
   * result is inf or 0 in f32 already, and 2^n stays a normal double */
  d = pto_emit_fselect(e, LLVMRealOLT, d, d64(e, d, -200.0), d64(e, d, -200.0), d);
  d = pto_emit_fselect(e, LLVMRealOGT, d, d64(e, d, 200.0), d64(e, d, 200.0), d);
  LLVMValueRef n = pto_emit_intrinsic(e, "llvm.rint", &d, 1);
  LLVMValueRef f = LLVMBuildFSub(B, d, n, "");
  LLVMValueRef q = pto_emit_exp_f64(e, LLVMBuildFMul(B, f, d64(e, d, 0.69314718055994531), ""));
  /* NaN would convert to poison: it scales by 2^0 and stays NaN in q */
  LLVMValueRef nn = pto_emit_fselect(e, LLVMRealUNO, n, n, d64(e, d, 0.0), n);
  LLVMTypeRef ity = pto_emit_vec_type(LLVMInt64TypeInContext(e->ctx), pto_emit_lanes_of(d));
  LLVMValueRef bits = LLVMBuildShl(
      B, LLVMBuildAdd(B, LLVMBuildFPToSI(B, nn, ity, ""), i64c(e, d, 1023), ""), i64c(e, d, 52), "");
  return LLVMBuildFMul(B, q, LLVMBuildBitCast(B, bits, LLVMTypeOf(d), ""), "");
}

static LLVMValueRef expm1_f64(PtoEmit *e, LLVMValueRef d) {
  /* |x| < 1/4: x P(x), P = sum x^k / (k+1)!, k = 12 down to 0 (x times
   * it keeps -0 and tiny x exact); else e^x - 1, which loses at most two
   * bits there and overflows to inf past 88.7 */
  static const double p[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
                             1.0 / 3628800.0,    1.0 / 362880.0,    1.0 / 40320.0,
                             1.0 / 5040.0,       1.0 / 720.0,       1.0 / 120.0,
                             1.0 / 24.0,         1.0 / 6.0,         0.5,
                             1.0};
  LLVMValueRef small = LLVMBuildFMul(B, d, pto_emit_horner_f64(e, d, p, 13), "");
  LLVMValueRef big = LLVMBuildFSub(B, pto_emit_exp_f64(e, d), d64(e, d, 1.0), "");
  return pto_emit_fselect(e, LLVMRealOLT, fabs_d(e, d), d64(e, d, 0.25), small, big);
}

/* sinh (cosine false) or cosh of |x| from one e^|x|: (t -+ 1/t) / 2 */
static LLVMValueRef hyperbolic(PtoEmit *e, LLVMValueRef d, bool cosine) {
  LLVMValueRef t = pto_emit_exp_f64(e, fabs_d(e, d));
  LLVMValueRef inv = LLVMBuildFDiv(B, d64(e, d, 1.0), t, "");
  LLVMValueRef sum = cosine ? LLVMBuildFAdd(B, t, inv, "") : LLVMBuildFSub(B, t, inv, "");
  return LLVMBuildFMul(B, sum, d64(e, d, 0.5), "");
}

static LLVMValueRef sinh_f64(PtoEmit *e, LLVMValueRef d) {
  /* |x| < 1: x S(x^2), S = sum z^k / (2k+1)!, k = 9 down to 0, where
   * t - 1/t would cancel */
  static const double s[] = {1.0 / 121645100408832000.0, 1.0 / 355687428096000.0,
                             1.0 / 1307674368000.0,      1.0 / 6227020800.0,
                             1.0 / 39916800.0,           1.0 / 362880.0,
                             1.0 / 5040.0,               1.0 / 120.0,
                             1.0 / 6.0,                  1.0};
  LLVMValueRef small = LLVMBuildFMul(B, d, pto_emit_horner_f64(e, LLVMBuildFMul(B, d, d, ""), s, 10), "");
  LLVMValueRef big = with_sign(e, hyperbolic(e, d, false), d);
  /* NaN fails the comparison: exp(NaN) keeps it */
  return pto_emit_fselect(e, LLVMRealOLT, fabs_d(e, d), d64(e, d, 1.0), small, big);
}

static LLVMValueRef cosh_f64(PtoEmit *e, LLVMValueRef d) {
  return hyperbolic(e, d, true);
}

static LLVMValueRef asinh_f64(PtoEmit *e, LLVMValueRef d) {
  /* asinh|x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))): x^2 is exact for
   * every f32 x and nothing cancels; +-inf keep themselves */
  LLVMValueRef ax = fabs_d(e, d);
  LLVMValueRef x2 = LLVMBuildFMul(B, d, d, "");
  LLVMValueRef root = LLVMBuildFAdd(B, x2, d64(e, d, 1.0), "");
  root = pto_emit_intrinsic(e, "llvm.sqrt", &root, 1);
  LLVMValueRef a = LLVMBuildFAdd(
      B, ax, LLVMBuildFDiv(B, x2, LLVMBuildFAdd(B, root, d64(e, d, 1.0), ""), ""), "");
  LLVMValueRef r = with_sign(e, log1p_f64(e, a), d);
  return pto_emit_fselect(e, LLVMRealOEQ, ax, d64(e, d, INFINITY), d, r);
}

static LLVMValueRef acosh_f64(PtoEmit *e, LLVMValueRef d) {
  /* acosh x = log1p(t + sqrt(t (t + 2))), t = x - 1 exact: no
   * cancellation near 1; x < 1 and NaN give NaN, +inf gives +inf */
  LLVMValueRef t = LLVMBuildFSub(B, d, d64(e, d, 1.0), "");
  LLVMValueRef q = LLVMBuildFMul(B, t, LLVMBuildFAdd(B, t, d64(e, d, 2.0), ""), "");
  q = pto_emit_intrinsic(e, "llvm.sqrt", &q, 1);
  LLVMValueRef r = log1p_f64(e, LLVMBuildFAdd(B, t, q, ""));
  return pto_emit_fselect(e, LLVMRealULT, d, d64(e, d, 1.0), d64(e, d, NAN), r);
}

static LLVMValueRef atanh_f64(PtoEmit *e, LLVMValueRef d) {
  /* atanh|x| = log1p(2|x| / (1 - |x|)) / 2: +-1 give +-inf, |x| > 1 NaN */
  LLVMValueRef ax = fabs_d(e, d);
  LLVMValueRef a = LLVMBuildFDiv(B, LLVMBuildFAdd(B, ax, ax, ""),
                                 LLVMBuildFSub(B, d64(e, d, 1.0), ax, ""), "");
  LLVMValueRef r =
      with_sign(e, LLVMBuildFMul(B, log1p_f64(e, a), d64(e, d, 0.5), ""), d);
  return pto_emit_fselect(e, LLVMRealOGT, ax, d64(e, d, 1.0), d64(e, d, NAN), r);
}

static LLVMValueRef cbrt_f64(PtoEmit *e, LLVMValueRef d) {
  /* a first guess within 4% from the exponent field's high word divided
   * by three (the fdlibm constant), then three Halley steps
   * y (y^3 + 2a) / (2y^3 + a), each cubing the relative error */
  LLVMValueRef a = fabs_d(e, d);
  unsigned lanes = pto_emit_lanes_of(d);
  LLVMTypeRef i64t = pto_emit_vec_type(LLVMInt64TypeInContext(e->ctx), lanes);
  LLVMTypeRef i32t = pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes);
  LLVMValueRef hi = LLVMBuildTrunc(
      B, LLVMBuildLShr(B, LLVMBuildBitCast(B, a, i64t, ""), i64c(e, d, 32), ""), i32t, "");
  LLVMValueRef three = pto_emit_iconst_like(hi, 3);
  hi = LLVMBuildAdd(B, LLVMBuildUDiv(B, hi, three, ""), pto_emit_iconst_like(hi, 715094163), "");
  LLVMValueRef y = LLVMBuildBitCast(
      B, LLVMBuildShl(B, LLVMBuildZExt(B, hi, i64t, ""), i64c(e, d, 32), ""), LLVMTypeOf(d), "");
  for (int i = 0; i < 3; i++) {
    LLVMValueRef y3 = LLVMBuildFMul(B, LLVMBuildFMul(B, y, y, ""), y, "");
    LLVMValueRef num = pto_emit_fma_f64(e, a, d64(e, d, 2.0), y3);
    LLVMValueRef den = pto_emit_fma_f64(e, y3, d64(e, d, 2.0), a);
    y = LLVMBuildFMul(B, y, LLVMBuildFDiv(B, num, den, ""), "");
  }
  y = with_sign(e, y, d);
  /* +-0, +-inf and NaN are their own cube roots */
  LLVMValueRef keep = LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealUEQ, a, d64(e, d, 0.0), ""),
                                  LLVMBuildFCmp(B, LLVMRealOEQ, a, d64(e, d, INFINITY), ""), "");
  return LLVMBuildSelect(B, keep, d, y, "");
}

LLVMValueRef pto_emit_exp_math(PtoEmit *e, PtoEmitMath op, PtoDType dt, LLVMValueRef x) {
  LLVMValueRef (*fn)(PtoEmit *, LLVMValueRef) = NULL;
  switch (op) {
  case PTO_EMIT_MATH_LOG2: fn = log2_f64; break;
  case PTO_EMIT_MATH_LOG10: fn = log10_f64; break;
  case PTO_EMIT_MATH_LOG1P: fn = log1p_f64; break;
  case PTO_EMIT_MATH_EXP2: fn = exp2_f64; break;
  case PTO_EMIT_MATH_EXPM1: fn = expm1_f64; break;
  case PTO_EMIT_MATH_SINH: fn = sinh_f64; break;
  case PTO_EMIT_MATH_COSH: fn = cosh_f64; break;
  case PTO_EMIT_MATH_ASINH: fn = asinh_f64; break;
  case PTO_EMIT_MATH_ACOSH: fn = acosh_f64; break;
  case PTO_EMIT_MATH_ATANH: fn = atanh_f64; break;
  case PTO_EMIT_MATH_CBRT: fn = cbrt_f64; break;
  default: return NULL;
  }
  LLVMValueRef d = fn(e, widen(e, x));
  /* f16 and bf16: rounded to odd first, so that the store's rounding to
   * nearest even is the one rounding of d (to nearest, the two roundings
   * would differ from one at the f32 results that fall on a tie) */
  if (dt != PTO_DT_F32) return pto_emit_f32_odd(e, d);
  return LLVMBuildFPTrunc(
      B, d, pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), pto_emit_lanes_of(d)), "");
}
