/* The Tile level's integer arithmetic beyond + - * / as LLVM IR (Emit.h's
 * pto_emit_gcd): a fixed number of branch-free binary-gcd steps per
 * element, straight-line code in a loop that vectorises (the hardware has
 * no vector division to run Euclid's remainders on). */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

static LLVMValueRef cttz(PtoEmit *e, LLVMValueRef x) {
  LLVMValueRef args[2] = {x, LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0)};
  return pto_emit_intrinsic(e, "llvm.cttz", args, 2);
}

static LLVMValueRef umin(PtoEmit *e, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, a, b, ""), a, b, "");
}

/* gcd(|a|, |b|) of two integers of one width w, as the interpreter's
 * Euclid computes it modulo 2^w: the magnitudes are taken unsigned (|MIN|
 * = 2^(w-1) fits), their common power of two set aside, and each step
 * replaces (u odd, v) by (min(u, v'), |u - v'|) with v' = v without its
 * trailing zeros. Every step with v != 0 at least halves u * v < 2^(2w),
 * so 2w + 1 steps leave v = 0 and u the odd part of the gcd; later steps
 * keep it. Unsigned integers are their own magnitudes. */
static LLVMValueRef gcd(PtoEmit *e, PtoEmitNum num, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef ty = LLVMTypeOf(a);
  unsigned w = LLVMGetIntTypeWidth(ty);
  LLVMValueRef zero = LLVMConstNull(ty), one = LLVMConstInt(ty, 1, 0);
  LLVMIntPredicate neg = pto_emit_int_pred(num, LLVMIntSLT); /* never, unsigned */
  LLVMValueRef ua = LLVMBuildSelect(B, LLVMBuildICmp(B, neg, a, zero, ""),
                                    LLVMBuildSub(B, zero, a, ""), a, "");
  LLVMValueRef ub = LLVMBuildSelect(B, LLVMBuildICmp(B, neg, b, zero, ""),
                                    LLVMBuildSub(B, zero, b, ""), b, "");
  LLVMValueRef a0 = LLVMBuildICmp(B, LLVMIntEQ, ua, zero, "");
  LLVMValueRef b0 = LLVMBuildICmp(B, LLVMIntEQ, ub, zero, "");
  /* with either magnitude 0 the answer is the other one, chosen at the
   * end; the steps run on 1 instead, so that no shift is by w */
  LLVMValueRef u = LLVMBuildSelect(B, a0, one, ua, "");
  LLVMValueRef v = LLVMBuildSelect(B, b0, one, ub, "");
  LLVMValueRef k = cttz(e, LLVMBuildOr(B, u, v, ""));
  u = LLVMBuildLShr(B, u, cttz(e, u), "");
  for (unsigned i = 0; i < 2 * w + 1; i++) {
    LLVMValueRef done = LLVMBuildICmp(B, LLVMIntEQ, v, zero, "");
    /* v | done: 1 when v is 0, so that the shift stays below w */
    LLVMValueRef odd = LLVMBuildLShr(
        B, v, cttz(e, LLVMBuildOr(B, v, LLVMBuildZExt(B, done, ty, ""), "")), "");
    LLVMValueRef lo = umin(e, u, odd);
    LLVMValueRef hi = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, u, odd, ""),
                                      odd, u, "");
    u = LLVMBuildSelect(B, done, u, lo, "");
    v = LLVMBuildSelect(B, done, zero, LLVMBuildSub(B, hi, lo, ""), "");
  }
  LLVMValueRef g = LLVMBuildShl(B, u, k, "");
  return LLVMBuildSelect(B, a0, ub, LLVMBuildSelect(B, b0, ua, g, ""), "");
}

static void gcd_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                     LLVMValueRef c) {
  PtoDType dt = t->dst.dtype;
  LLVMValueRef x = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[0], r, c), 0);
  LLVMValueRef y = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[1], r, c), 0);
  pto_emit_store(e, dt, pto_emit_elem_ptr(e, t->dst, r, c), gcd(e, pto_emit_num_of(dt), x, y));
}

PtoResult pto_emit_gcd(PtoEmit *e, PtoEmitTile dst, PtoEmitTile a,
                       PtoEmitTile b, LLVMValueRef rows, LLVMValueRef cols,
                       PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {a, b}};
  bool ok = pto_emit_is_int(dst.dtype) && a.dtype == dst.dtype && b.dtype == dst.dtype;
  return pto_emit_tiles_each(e, &t, 2, ok, "gcd needs one integer element type",
                             rows, cols, gcd_elem, err);
}

/* 64-bit a / b: no float holds every i64 exactly, so LLVM's own integer
 * division on a divisor made safe (0 and -1 become 1; a / -1 is -a, which
 * wraps MIN to itself). x86 has no vector form: the vectoriser
 * scalarises it to one idiv per lane, still no library call. */
static LLVMValueRef int_div64(PtoEmit *e, PtoEmitNum num, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstNull(ty), one = pto_emit_iconst_like(a, 1);
  LLVMValueRef b0 = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
  if (num == PTO_EMIT_NUM_UINT)
    return LLVMBuildSelect(B, b0, zero,
                           LLVMBuildUDiv(B, a, LLVMBuildSelect(B, b0, one, b, ""), ""), "");
  LLVMValueRef bm1 = LLVMBuildICmp(B, LLVMIntEQ, b, pto_emit_iconst_like(a, -1), "");
  LLVMValueRef bs = LLVMBuildSelect(B, LLVMBuildOr(B, b0, bm1, ""), one, b, "");
  LLVMValueRef q = LLVMBuildSelect(B, bm1, LLVMBuildSub(B, zero, a, ""),
                                   LLVMBuildSDiv(B, a, bs, ""), "");
  return LLVMBuildSelect(B, b0, zero, q, "");
}

/* a / b toward zero, a / 0 = 0 and MIN / -1 = MIN (wrapping), as the
 * interpreter's integer division: through floats, which vectorise where
 * integer division does not. The quotient of two w-bit integers is exact
 * enough there: when a / b is not an integer it lies at least 1 / |b| from
 * the next one, a relative distance of at least 2^-(w-1), above the float's
 * rounding (2^-24 in f32 for w <= 16, 2^-53 in f64 for w = 32), so the
 * rounded quotient truncates to the true one. Unsigned integers (below
 * 2^w, exact there too) are at least 2^-w apart, the same argument. */
LLVMValueRef pto_emit_int_div(PtoEmit *e, PtoEmitNum num, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef ty = LLVMTypeOf(a);
  unsigned lanes = pto_emit_lanes_of(a);
  LLVMTypeRef elem = lanes ? LLVMGetElementType(ty) : ty;
  unsigned w = LLVMGetIntTypeWidth(elem);
  if (w == 64) return int_div64(e, num, a, b);
  LLVMTypeRef ft = pto_emit_vec_type(
      w > 16 ? LLVMDoubleTypeInContext(e->ctx) : LLVMFloatTypeInContext(e->ctx), lanes);
  LLVMTypeRef wide = pto_emit_vec_type(LLVMIntTypeInContext(e->ctx, 2 * w), lanes);
  LLVMValueRef zero = LLVMConstNull(ty);
  LLVMValueRef b0 = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
  LLVMValueRef bs = LLVMBuildSelect(
      B, b0, lanes ? pto_emit_splat(e, LLVMConstInt(elem, 1, 0), lanes) : LLVMConstInt(ty, 1, 0),
      b, "");
  if (num == PTO_EMIT_NUM_UINT) {
    LLVMValueRef q = LLVMBuildFDiv(B, LLVMBuildUIToFP(B, a, ft, ""),
                                   LLVMBuildUIToFP(B, bs, ft, ""), "");
    return LLVMBuildSelect(B, b0, zero, LLVMBuildFPToUI(B, q, ty, ""), "");
  }
  LLVMValueRef q = LLVMBuildFDiv(B, LLVMBuildSIToFP(B, a, ft, ""),
                                 LLVMBuildSIToFP(B, bs, ft, ""), "");
  /* 2^(w-1) (MIN / -1) fits the wider integer and wraps back to MIN */
  LLVMValueRef qi = LLVMBuildTrunc(B, LLVMBuildFPToSI(B, q, wide, ""), ty, "");
  return LLVMBuildSelect(B, b0, zero, qi, "");
}
