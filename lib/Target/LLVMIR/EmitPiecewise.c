/* The Tile level's piecewise-linear functions as LLVM IR (Emit.h's
 * pto_emit_piecewise): sign, trunc, hardsigmoid, leaky_relu and clip,
 * bit for bit with lib/Kernels/KernelElementwise.c, which computes them in
 * double and rounds once. The arithmetic ones (hardsigmoid, leaky_relu)
 * do the same here, in f64 lanes; the others are exact in f32. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

/* The operands and the constants of the body: the parameters as f64
 * (compared and multiplied in f64), and clip's bounds as stored in the
 * tile's dtype (its result where it clips). */
typedef struct Piece {
  PtoEmitTiles t; /* first: the loop hands the body a pointer to it */
  LLVMValueRef p[2], stored[2];
} Piece;

/* d (f64) in the compute type, so that the store rounds it once. */
static LLVMValueRef round_once(PtoEmit *e, PtoDType dt, LLVMValueRef d) {
  if (dt == PTO_DT_F32) return LLVMBuildFPTrunc(B, d, LLVMFloatTypeInContext(e->ctx), "");
  return pto_emit_f32_odd(e, d);
}

static LLVMValueRef fcmp(PtoEmit *e, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildFCmp(B, p, a, b, "");
}

static LLVMValueRef int_elem(PtoEmit *e, PtoEmitPiecewise op, PtoDType dt, LLVMValueRef x) {
  if (op == PTO_EMIT_PIECEWISE_TRUNC) return x;
  PtoEmitNum num = pto_emit_num_of(dt);
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(x));
  LLVMValueRef pos = LLVMBuildICmp(B, pto_emit_int_pred(num, LLVMIntSGT), x, zero, "");
  LLVMValueRef neg = LLVMBuildICmp(B, pto_emit_int_pred(num, LLVMIntSLT), x, zero, "");
  return LLVMBuildSelect(B, pos, pto_emit_iconst_like(x, 1),
                         LLVMBuildSelect(B, neg, pto_emit_iconst_like(x, -1), zero, ""), "");
}

static LLVMValueRef float_elem(PtoEmit *e, const Piece *k, LLVMValueRef x) {
  PtoDType dt = k->t.dst.dtype;
  LLVMTypeRef f64 = LLVMDoubleTypeInContext(e->ctx);
  LLVMValueRef d = LLVMBuildFPExt(B, x, f64, ""); /* exact */
  LLVMValueRef zero = LLVMConstReal(f64, 0);
  switch ((PtoEmitPiecewise)k->t.op) {
  case PTO_EMIT_PIECEWISE_SIGN: /* -0, +0 and NaN are their own sign */
    return LLVMBuildSelect(
        B, fcmp(e, LLVMRealOGT, x, pto_emit_fconst(e, x, 0)), pto_emit_fconst(e, x, 1),
        LLVMBuildSelect(B, fcmp(e, LLVMRealOLT, x, pto_emit_fconst(e, x, 0)),
                        pto_emit_fconst(e, x, -1), x, ""),
        "");
  case PTO_EMIT_PIECEWISE_TRUNC: return pto_emit_intrinsic(e, "llvm.trunc", &x, 1);
  case PTO_EMIT_PIECEWISE_HARDSIGMOID: {
    /* (x + 3 < 0 ? 0 : x + 3 > 6 ? 6 : x + 3) / 6; NaN passes both tests */
    LLVMValueRef u = LLVMBuildFAdd(B, d, LLVMConstReal(f64, 3), "");
    LLVMValueRef six = LLVMConstReal(f64, 6);
    u = LLVMBuildSelect(B, fcmp(e, LLVMRealOLT, u, zero), zero,
                        LLVMBuildSelect(B, fcmp(e, LLVMRealOGT, u, six), six, u, ""), "");
    return round_once(e, dt, LLVMBuildFDiv(B, u, six, ""));
  }
  case PTO_EMIT_PIECEWISE_LRELU: /* x < 0 ? slope * x : x */
    return LLVMBuildSelect(B, fcmp(e, LLVMRealOLT, d, zero),
                           round_once(e, dt, LLVMBuildFMul(B, k->p[0], d, "")), x, "");
  default: { /* clip: x < min ? min : x > max ? max : x, NaN kept */
    /* chosen on the bits: LLVM 14 folds a choice between x and a 0 bound
     * made by comparing x with 0 into the bound, -0 becoming +0 */
    LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
    LLVMValueRef lo = LLVMConstBitCast(k->stored[0], i32);
    LLVMValueRef hi = LLVMConstBitCast(k->stored[1], i32);
    LLVMValueRef v = LLVMBuildSelect(
        B, fcmp(e, LLVMRealOLT, d, k->p[0]), lo,
        LLVMBuildSelect(B, fcmp(e, LLVMRealOGT, d, k->p[1]), hi, LLVMBuildBitCast(B, x, i32, ""), ""),
        "");
    return LLVMBuildBitCast(B, v, LLVMTypeOf(x), "");
  }
  }
}

static void piece_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                       LLVMValueRef c) {
  const Piece *k = (const Piece *)t;
  PtoDType dt = t->dst.dtype;
  LLVMValueRef x = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[0], r, c), 0);
  LLVMValueRef v = pto_emit_is_float(dt) ? float_elem(e, k, x)
                                         : int_elem(e, (PtoEmitPiecewise)t->op, dt, x);
  pto_emit_store(e, dt, pto_emit_elem_ptr(e, t->dst, r, c), v);
}

PtoResult pto_emit_piecewise(PtoEmit *e, PtoEmitPiecewise op, const double p[2],
                             PtoEmitTile dst, PtoEmitTile src, LLVMValueRef rows,
                             LLVMValueRef cols, PtoError *err) {
  PtoDType dt = dst.dtype;
  Piece k = {.t = {.dst = dst, .src = {src}, .op = op}};
  for (unsigned i = 0; i < 2; i++) {
    k.p[i] = LLVMConstReal(LLVMDoubleTypeInContext(e->ctx), p[i]);
    /* the bound as the interpreter's store rounds it (exact in f32) */
    unsigned char bits[8];
    double v = p[i];
    if (pto_emit_is_float(dt)) {
      pto_dtype_store_f64(dt, bits, 0, p[i]);
      v = pto_dtype_load_f64(dt, bits, 0);
    }
    k.stored[i] = LLVMConstReal(LLVMFloatTypeInContext(e->ctx), v);
  }
  bool ints = op == PTO_EMIT_PIECEWISE_SIGN || op == PTO_EMIT_PIECEWISE_TRUNC;
  bool ok = dst.dtype == src.dtype &&
            (pto_emit_is_float(dt) || (ints && pto_emit_is_int(dt)));
  return pto_emit_tiles_each(e, &k.t, 1, ok,
                             ints ? "sign and trunc need one float or integer element type"
                                  : "this instruction needs one float element type",
                             rows, cols, piece_elem, err);
}
