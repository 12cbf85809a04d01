/* tan, atan, asin, acos, atan2 and erfc of f32 computed in f64 as
 * straight-line IR (so that the tile loops vectorise: no libm call per
 * element) and rounded once, as EmitMathF64.c does for sin and erf. The
 * inverse functions share one arctangent: asin and acos are arctangents
 * of quotients of exact f64 differences, atan2 the arctangent of min/max
 * placed in its quadrant. erfc keeps its relative accuracy in the tail by
 * computing e^(-x^2) times a fitted factor there, never 1 - erf. */
#include <math.h>

#include "Target/LLVMIR/EmitMathF64.h"
#include "pto/PolyF64.h"

#define B (e->b)

static LLVMValueRef copysign2(PtoEmit *e, LLVMValueRef mag, LLVMValueRef sign) {
  LLVMValueRef args[2] = {mag, sign};
  return pto_emit_intrinsic(e, "llvm.copysign", args, 2);
}
static LLVMValueRef fabs1(PtoEmit *e, LLVMValueRef x) {
  return pto_emit_intrinsic(e, "llvm.fabs", &x, 1);
}
static LLVMValueRef to64(PtoEmit *e, LLVMValueRef x) {
  return LLVMBuildFPExt(
      B, x, pto_emit_vec_type(LLVMDoubleTypeInContext(e->ctx), pto_emit_lanes_of(x)), "");
}
/* to f32 to nearest, or to odd (for the store's rounding to f16 / bf16) */
static LLVMValueRef to32(PtoEmit *e, LLVMValueRef x, bool odd) {
  if (odd)
    return pto_emit_f32_odd(e, x);
  return LLVMBuildFPTrunc(
      B, x, pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), pto_emit_lanes_of(x)), "");
}

static const double PI = 3.141592653589793, PI_2 = 1.5707963267948966, PI_4 = 0.7853981633974483;
static const double TAN_PI_8 = 0.41421356237309503, TAN_3PI_8 = 2.414213562373095;

/* atan(t) for t >= 0 (NaN and +inf too): t itself, (t - 1) / (t + 1)
 * around 1 (exact differences for the t that take it) or -1 / t, so that
 * |u| <= tan(pi/8), then 0, pi/4 or pi/2 plus u - u^3/3 + ... (the Taylor
 * series to u^41, within 2^-56 there). */
static LLVMValueRef atan_pos(PtoEmit *e, LLVMValueRef t) {
  static const double p[20] = {-1.0 / 41, 1.0 / 39,  -1.0 / 37, 1.0 / 35,  -1.0 / 33,
                               1.0 / 31,  -1.0 / 29, 1.0 / 27,  -1.0 / 25, 1.0 / 23,
                               -1.0 / 21, 1.0 / 19,  -1.0 / 17, 1.0 / 15,  -1.0 / 13,
                               1.0 / 11,  -1.0 / 9,  1.0 / 7,   -1.0 / 5,  1.0 / 3};
  LLVMValueRef one = pto_emit_f64_const(e, t, 1.0);
  LLVMValueRef mid =
      LLVMBuildFDiv(B, LLVMBuildFSub(B, t, one, ""), LLVMBuildFAdd(B, t, one, ""), "");
  LLVMValueRef far = LLVMBuildFDiv(B, pto_emit_f64_const(e, t, -1.0), t, "");
  LLVMValueRef small = LLVMBuildFCmp(B, LLVMRealOLE, t, pto_emit_f64_const(e, t, TAN_PI_8), "");
  LLVMValueRef near = LLVMBuildFCmp(B, LLVMRealOLT, t, pto_emit_f64_const(e, t, TAN_3PI_8), "");
  LLVMValueRef u = LLVMBuildSelect(B, small, t, LLVMBuildSelect(B, near, mid, far, ""), "");
  LLVMValueRef base = LLVMBuildSelect(
      B, small, pto_emit_f64_const(e, t, 0.0),
      LLVMBuildSelect(B, near, pto_emit_f64_const(e, t, PI_4), pto_emit_f64_const(e, t, PI_2), ""),
      "");
  LLVMValueRef z = LLVMBuildFMul(B, u, u, "");
  /* u - u z (1/3 - z/5 + ...): the series' signs, the first one kept */
  LLVMValueRef a = pto_emit_fma_f64(e, LLVMBuildFNeg(B, LLVMBuildFMul(B, u, z, ""), ""),
                                    pto_emit_horner_f64(e, z, p, 20), u);
  return LLVMBuildFAdd(B, base, a, "");
}

/* atan(|x|) rounded to f32 and given x's sign: -0 stays -0 and NaN
 * passes through. The sign goes on after the rounding (which is
 * symmetric): LLVM 14's x86 instruction selection fails on the f64
 * copysign whose result is truncated to f32 in vectors. */
static LLVMValueRef atan_signed(PtoEmit *e, LLVMValueRef d, LLVMValueRef x, bool odd) {
  return copysign2(e, to32(e, atan_pos(e, fabs1(e, d)), odd), x);
}

/* asin(x) = atan(x / sqrt((1 - x)(1 + x))): both factors exact in f64,
 * +-inf at x = +-1, NaN for |x| > 1 (the square root of a negative) and
 * for +-inf (its product is -inf). */
static LLVMValueRef asin_f32(PtoEmit *e, LLVMValueRef x, bool odd) {
  LLVMValueRef d = to64(e, x), one = pto_emit_f64_const(e, d, 1.0);
  LLVMValueRef w = LLVMBuildFMul(B, LLVMBuildFSub(B, one, d, ""), LLVMBuildFAdd(B, one, d, ""), "");
  w = pto_emit_intrinsic(e, "llvm.sqrt", &w, 1);
  return atan_signed(e, LLVMBuildFDiv(B, d, w, ""), x, odd);
}

/* acos(x) = 2 atan(sqrt((1 - x) / (1 + x))): pi at x = -1 (the quotient
 * is +inf), NaN for |x| > 1 and +-inf (a negative or NaN quotient). */
static LLVMValueRef acos_f32(PtoEmit *e, LLVMValueRef x, bool odd) {
  LLVMValueRef d = to64(e, x), one = pto_emit_f64_const(e, d, 1.0);
  LLVMValueRef q = LLVMBuildFDiv(B, LLVMBuildFSub(B, one, d, ""), LLVMBuildFAdd(B, one, d, ""), "");
  q = pto_emit_intrinsic(e, "llvm.sqrt", &q, 1);
  LLVMValueRef a = atan_pos(e, q);
  return to32(e, LLVMBuildFAdd(B, a, a, ""), odd);
}

/* C's atan2(a, b), the angle of the point (b, a): atan(min / max) of the
 * magnitudes, pi/2 minus it when |a| > |b|, pi minus that when b's sign
 * bit is set (-0 too), with a's sign. min / max is 0 when both are 0 and
 * 1 when both are infinite, which gives C's +-0, +-pi, +-pi/4 and
 * +-3pi/4 there; NaN in either operand gives NaN. */
LLVMValueRef pto_emit_atan2_f32(PtoEmit *e, LLVMValueRef a, LLVMValueRef b, bool odd) {
  LLVMValueRef y = to64(e, a), x = to64(e, b);
  LLVMValueRef ay = fabs1(e, y), ax = fabs1(e, x);
  LLVMValueRef steep = LLVMBuildFCmp(B, LLVMRealOGT, ay, ax, "");
  LLVMValueRef mn = LLVMBuildSelect(B, steep, ax, ay, "");
  LLVMValueRef mx = LLVMBuildSelect(B, steep, ay, ax, "");
  LLVMValueRef q = LLVMBuildFDiv(B, mn, mx, "");
  q = pto_emit_fselect(e, LLVMRealOEQ, mn, mx, pto_emit_f64_const(e, y, 1.0), q);
  q = pto_emit_fselect(e, LLVMRealOEQ, mx, pto_emit_f64_const(e, y, 0.0),
                          pto_emit_f64_const(e, y, 0.0), q);
  LLVMValueRef r = atan_pos(e, q);
  r = LLVMBuildSelect(B, steep, LLVMBuildFSub(B, pto_emit_f64_const(e, y, PI_2), r, ""), r, "");
  LLVMTypeRef ity = pto_emit_vec_type(LLVMInt64TypeInContext(e->ctx), pto_emit_lanes_of(x));
  LLVMValueRef xneg =
      LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildBitCast(B, x, ity, ""), LLVMConstNull(ity), "");
  r = LLVMBuildSelect(B, xneg, LLVMBuildFSub(B, pto_emit_f64_const(e, y, PI), r, ""), r, "");
  r = copysign2(e, to32(e, r, odd), a); /* after the rounding: atan_signed */
  return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNO, y, x, ""), pto_emit_fconst(e, a, NAN), r,
                         "");
}

/* tan(x) = sin(x) / cos(x) of the reduction EmitMathF64.c shares, each
 * within a few f64 ulp of its value, so the quotient is too, near the
 * poles as well (no f32 argument lies close enough to one to matter);
 * NaN past |x| = 2^50, where pto_emit_trig takes libm instead. */
static LLVMValueRef tan_f32(PtoEmit *e, LLVMValueRef x, bool odd) {
  LLVMValueRef d = to64(e, x), s, c;
  pto_emit_sincos_f64(e, d, &s, &c);
  LLVMValueRef r = LLVMBuildFDiv(B, s, c, "");
  return to32(e,
              pto_emit_fselect(e, LLVMRealOGT, fabs1(e, d), pto_emit_f64_const(e, d, 0x1p50),
                                  pto_emit_f64_const(e, d, NAN), r),
              odd);
}

/* erfc(x):
 * - |x| < 1: 1 - x P(x^2), P erf's Taylor series (1 - erf loses at most
 *   a factor 6.4 of relative accuracy there: erfc(1) = 0.157);
 * - 1 <= |x| < 4: e^(-x^2) g(t), t = (|x| - 2.5) / 1.5, g a Chebyshev
 *   interpolant of e^(x^2) erfc(x) of degree 23 (relative error 3e-16);
 * - 4 <= |x| < 10.1: e^(-x^2) / |x| h(v), h a Chebyshev interpolant of
 *   x e^(x^2) erfc(x) of degree 12 in v linear in 1/x^2 (2e-16); past
 *   10.1 erfc(x) < 2^-150 rounds to 0 in every float dtype;
 * - x <= -1: 2 - erfc(-x), no cancellation (erfc(-x) <= 0.16). */
static LLVMValueRef erfc_f32(PtoEmit *e, LLVMValueRef x, bool odd) {
  static const double ga[] = {
      -7.751594935510192e-11,  2.5758333457220134e-10, -3.796239836582862e-10,
      1.187277565726771e-09,   -4.870441492817128e-09, 1.5072218531917978e-08,
      -4.407121041940884e-08,  1.314690868085025e-07,  -3.870768068519776e-07,
      1.114499516627685e-06,   -3.146872008041223e-06, 8.711057383039733e-06,
      -2.3609745554805573e-05, 6.257944419007883e-05,  -0.00016201169238434074,
      0.0004090848309141283,   -0.0010058314516520018, 0.0024036476866907425,
      -0.005570706178889759,   0.012489373879450934,   -0.027005296664593156,
      0.05611049344497882,     -0.11152102018469201,   0.2108063640611436};
  static const double hb[] = {
      7.943550088653477e-14,   -4.589443009655752e-13, 2.5506455550807603e-12,
      -1.685777700208454e-11,  1.203733820566451e-10,  -9.342515640907074e-10,
      8.035286173648511e-09,   -7.826563839346298e-08, 8.904836599744738e-07,
      -1.2412816709115775e-05, 0.00023003888071919263, -0.0067205521126227855,
      0.5544999371241154};
  LLVMValueRef d = to64(e, x);
  LLVMValueRef ax = fabs1(e, d), one = pto_emit_f64_const(e, d, 1.0);
  LLVMValueRef x2 = LLVMBuildFMul(B, d, d, ""); /* exact */
  LLVMValueRef small = LLVMBuildFSub(
      B, one, LLVMBuildFMul(B, d, pto_emit_horner_f64(e, x2, pto_poly_erf, 16), ""), "");
  LLVMValueRef ex = pto_emit_exp_f64(e, LLVMBuildFNeg(B, x2, ""));
  LLVMValueRef ta = LLVMBuildFMul(B, LLVMBuildFSub(B, ax, pto_emit_f64_const(e, d, 2.5), ""),
                                  pto_emit_f64_const(e, d, 1.0 / 1.5), "");
  LLVMValueRef mida = pto_emit_horner_f64(e, ta, ga, 24);
  LLVMValueRef v = LLVMBuildFDiv(B, one, x2, "");
  LLVMValueRef tb =
      LLVMBuildFMul(B, LLVMBuildFSub(B, v, pto_emit_f64_const(e, d, 0.03615148024703461), ""),
                    pto_emit_f64_const(e, d, 1.0 / 0.026348519752965396), "");
  LLVMValueRef tailb = LLVMBuildFDiv(B, pto_emit_horner_f64(e, tb, hb, 13), ax, "");
  LLVMValueRef tail = LLVMBuildFMul(
      B, ex, pto_emit_fselect(e, LLVMRealOLT, ax, pto_emit_f64_const(e, d, 4.0), mida, tailb),
      "");
  tail = pto_emit_fselect(e, LLVMRealOGE, ax, pto_emit_f64_const(e, d, 10.1),
                             pto_emit_f64_const(e, d, 0.0), tail);
  tail = pto_emit_fselect(e, LLVMRealOLT, d, pto_emit_f64_const(e, d, 0.0),
                             LLVMBuildFSub(B, pto_emit_f64_const(e, d, 2.0), tail, ""), tail);
  /* NaN fails the comparison and takes the tail, whose exponential of
   * NaN keeps it */
  return to32(e, pto_emit_fselect(e, LLVMRealOLT, ax, one, small, tail), odd);
}

LLVMValueRef pto_emit_trig_f32(PtoEmit *e, PtoEmitMath op, LLVMValueRef x, bool odd) {
  switch (op) {
  case PTO_EMIT_MATH_TAN:
    return tan_f32(e, x, odd);
  case PTO_EMIT_MATH_ASIN:
    return asin_f32(e, x, odd);
  case PTO_EMIT_MATH_ACOS:
    return acos_f32(e, x, odd);
  case PTO_EMIT_MATH_ERFC:
    return erfc_f32(e, x, odd);
  default:
    return atan_signed(e, to64(e, x), x, odd);
  }
}
