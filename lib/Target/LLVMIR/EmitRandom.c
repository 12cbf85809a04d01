/* trandom as LLVM IR: per element, its index in the whole stream, the
 * Philox4x32-10 block of that index (integer code that vectorises: the
 * 32x32 -> 64-bit products are vpmuludq), and the value lib/Kernels'
 * pto_kernel_random makes of it, operation for operation (Box-Muller
 * through pto_emit_log_f64 and pto_emit_sincos_f64, which KernelRandom.c
 * mirrors), so the interpreter's bits exactly. */
#include <math.h>

#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

typedef struct RandomArgs {
  bool normal;
  unsigned rank;
  int64_t origin[8], full[8], window[8];
  LLVMValueRef key, counter; /* i64 */
} RandomArgs;

static LLVMValueRef i32c(PtoEmit *e, uint64_t v) {
  return LLVMConstInt(LLVMInt32TypeInContext(e->ctx), v, 0);
}
static LLVMValueRef i64c(PtoEmit *e, int64_t v) {
  return LLVMConstInt(LLVMInt64TypeInContext(e->ctx), (uint64_t)v, 1);
}
static LLVMValueRef lo32(PtoEmit *e, LLVMValueRef v) {
  return LLVMBuildTrunc(B, v, LLVMInt32TypeInContext(e->ctx), "");
}
static LLVMValueRef hi32(PtoEmit *e, LLVMValueRef v) {
  return lo32(e, LLVMBuildLShr(B, v, i64c(e, 32), ""));
}
/* a * b of two i32 as the i64 product */
static LLVMValueRef mul64(PtoEmit *e, LLVMValueRef a, uint32_t b) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->ctx);
  return LLVMBuildMul(B, LLVMBuildZExt(B, a, i64, ""), i64c(e, b), "");
}

static void philox(PtoEmit *e, LLVMValueRef c[4], LLVMValueRef k0, LLVMValueRef k1) {
  for (int r = 0; r < 10; r++) {
    LLVMValueRef p0 = mul64(e, c[0], 0xD2511F53u), p1 = mul64(e, c[2], 0xCD9E8D57u);
    LLVMValueRef n0 = LLVMBuildXor(B, LLVMBuildXor(B, hi32(e, p1), c[1], ""), k0, "");
    LLVMValueRef n2 = LLVMBuildXor(B, LLVMBuildXor(B, hi32(e, p0), c[3], ""), k1, "");
    c[1] = lo32(e, p1);
    c[3] = lo32(e, p0);
    c[0] = n0;
    c[2] = n2;
    k0 = LLVMBuildAdd(B, k0, i32c(e, 0x9E3779B9u), "");
    k1 = LLVMBuildAdd(B, k1, i32c(e, 0xBB67AE85u), "");
  }
}

static LLVMValueRef sel4(PtoEmit *e, LLVMValueRef lane, LLVMValueRef w[4]) {
  LLVMValueRef v = w[3];
  for (int i = 2; i >= 0; i--)
    v = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, lane, i64c(e, i), ""), w[i], v, "");
  return v;
}

/* d (f64) rounded to f32 to odd: then the store's rounding to f16 or bf16
 * is the one correct rounding of d, as the interpreter's */
static LLVMValueRef round_odd_f32(PtoEmit *e, LLVMValueRef d) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx), i32 = LLVMInt32TypeInContext(e->ctx);
  LLVMValueRef t = LLVMBuildFPTrunc(B, d, f32, "");
  LLVMValueRef back = LLVMBuildFPExt(B, t, LLVMDoubleTypeInContext(e->ctx), "");
  LLVMValueRef bits = LLVMBuildBitCast(B, t, i32, "");
  LLVMValueRef inexact = LLVMBuildFCmp(B, LLVMRealONE, back, d, "");
  LLVMValueRef even = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildAnd(B, bits, i32c(e, 1), ""),
                                    i32c(e, 0), "");
  LLVMValueRef fd = pto_emit_intrinsic(e, "llvm.fabs", &d, 1);
  LLVMValueRef fb = pto_emit_intrinsic(e, "llvm.fabs", &back, 1);
  /* the odd neighbour on d's side: away from zero when |t| < |d| */
  LLVMValueRef away = LLVMBuildFCmp(B, LLVMRealOLT, fb, fd, "");
  LLVMValueRef moved = LLVMBuildSelect(B, away, LLVMBuildAdd(B, bits, i32c(e, 1), ""),
                                       LLVMBuildSub(B, bits, i32c(e, 1), ""), "");
  bits = LLVMBuildSelect(B, LLVMBuildAnd(B, inexact, even, ""), moved, bits, "");
  return LLVMBuildBitCast(B, bits, f32, "");
}

typedef struct RandomTile {
  const RandomArgs *a;
  PtoEmitTile dst;
} RandomTile;

static void random_elem(PtoEmit *e, LLVMValueRef r, LLVMValueRef c, const void *user) {
  const RandomTile *rt = user;
  const RandomArgs *a = rt->a;
  LLVMTypeRef f64 = LLVMDoubleTypeInContext(e->ctx);
  /* the element's row-major index in the whole tensor: row r of the tile
   * is the window's leading dims in row-major order */
  unsigned n = a->rank;
  int64_t stride[8], s = 1;
  for (unsigned d = n; d-- > 0;) stride[d] = s, s *= a->full[d];
  LLVMValueRef li = LLVMBuildAdd(B, c, i64c(e, a->origin[n - 1]), "");
  LLVMValueRef rest = r;
  for (unsigned d = n - 1; d-- > 0;) {
    LLVMValueRef idx = LLVMBuildSRem(B, rest, i64c(e, a->window[d]), "");
    rest = LLVMBuildSDiv(B, rest, i64c(e, a->window[d]), "");
    li = LLVMBuildAdd(
        B, li,
        LLVMBuildMul(B, LLVMBuildAdd(B, idx, i64c(e, a->origin[d]), ""), i64c(e, stride[d]), ""),
        "");
  }
  LLVMValueRef blk = LLVMBuildLShr(B, li, i64c(e, 2), "");
  LLVMValueRef lane = LLVMBuildAnd(B, li, i64c(e, 3), "");
  LLVMValueRef w[4] = {lo32(e, blk), hi32(e, blk), lo32(e, a->counter), hi32(e, a->counter)};
  philox(e, w, lo32(e, a->key), hi32(e, a->key));
  PtoDType dt = rt->dst.dtype;
  LLVMValueRef v;
  if (!a->normal) {
    int bits = dt == PTO_DT_F16 ? 11 : dt == PTO_DT_BF16 ? 8 : 24;
    LLVMValueRef x = LLVMBuildLShr(B, sel4(e, lane, w), i32c(e, (uint64_t)(32 - bits)), "");
    v = LLVMBuildFMul(B, LLVMBuildUIToFP(B, x, f64, ""),
                      LLVMConstReal(f64, ldexp(1.0, -bits)), "");
  } else {
    LLVMValueRef lo = LLVMBuildICmp(B, LLVMIntULT, lane, i64c(e, 2), "");
    LLVMValueRef wa = LLVMBuildSelect(B, lo, w[0], w[2], "");
    LLVMValueRef wb = LLVMBuildSelect(B, lo, w[1], w[3], "");
    LLVMValueRef u1 = LLVMBuildFMul(
        B, LLVMBuildFAdd(B, LLVMBuildUIToFP(B, wa, f64, ""), LLVMConstReal(f64, 1.0), ""),
        LLVMConstReal(f64, 0x1p-32), "");
    LLVMValueRef u2 =
        LLVMBuildFMul(B, LLVMBuildUIToFP(B, wb, f64, ""), LLVMConstReal(f64, 0x1p-32), "");
    LLVMValueRef rad = LLVMBuildFMul(B, LLVMConstReal(f64, -2.0), pto_emit_log_f64(e, u1), "");
    rad = pto_emit_intrinsic(e, "llvm.sqrt", &rad, 1);
    LLVMValueRef ang = LLVMBuildFMul(B, LLVMConstReal(f64, 6.283185307179586476925), u2, "");
    LLVMValueRef sn, cs;
    pto_emit_sincos_f64(e, ang, &sn, &cs);
    LLVMValueRef odd = LLVMBuildICmp(B, LLVMIntNE, LLVMBuildAnd(B, lane, i64c(e, 1), ""),
                                     i64c(e, 0), "");
    v = LLVMBuildFMul(B, rad, LLVMBuildSelect(B, odd, sn, cs, ""), "");
  }
  /* uniform values are exact in the dtype; normal ones round once */
  LLVMValueRef f = dt == PTO_DT_F32 ? LLVMBuildFPTrunc(B, v, LLVMFloatTypeInContext(e->ctx), "")
                                    : round_odd_f32(e, v);
  pto_emit_store(e, dt, pto_emit_elem_ptr(e, rt->dst, r, c), f);
}

PtoResult pto_emit_random(PtoEmit *e, bool normal, PtoEmitTile dst, LLVMValueRef key,
                          LLVMValueRef counter, unsigned rank, const int64_t *origin,
                          const int64_t *full, const int64_t *window, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err) {
  if (!pto_emit_is_float(dst.dtype))
    return pto_error_set(err, "trandom makes float tiles, not %s", pto_dtype_ir_name(dst.dtype));
  if (rank < 1 || rank > 8)
    return pto_error_set(err, "trandom: a stream of rank %u (1 to 8)", rank);
  RandomArgs a = {.normal = normal, .rank = rank, .key = key, .counter = counter};
  for (unsigned d = 0; d < rank; d++)
    a.origin[d] = origin[d], a.full[d] = full[d], a.window[d] = window[d];
  RandomTile rt = {&a, dst};
  pto_emit_each(e, rows, cols, random_elem, &rt);
  return PTO_SUCCESS;
}
