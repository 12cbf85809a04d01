/* The Tile level's bitwise ops as LLVM IR (Emit.h's pto_emit_bitwise):
 * and, or, xor and the shifts on integers of the tile's own width, with
 * the count made safe before LLVM's shift (whose result is poison past
 * the width), straight-line code in a loop that vectorises. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

/* x << s and x >> s as the interpreter computes them on the values
 * widened to i64 and wraps them back to w bits: a left shift by s >= w
 * leaves no bit of x, a right one only the sign fill (0 for unsigned
 * values, which widen with zeros); a negative count, taken unsigned, is
 * past the width too. */
static LLVMValueRef shift(PtoEmit *e, bool left, PtoEmitNum num, LLVMValueRef x,
                          LLVMValueRef s) {
  unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(x));
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(x));
  LLVMValueRef in = LLVMBuildICmp(B, LLVMIntULT, s, pto_emit_iconst_like(x, w), "");
  if (!left && num == PTO_EMIT_NUM_INT) {
    LLVMValueRef top = pto_emit_iconst_like(x, w - 1);
    return LLVMBuildAShr(B, x, LLVMBuildSelect(B, in, s, top, ""), "");
  }
  LLVMValueRef safe = LLVMBuildSelect(B, in, s, zero, "");
  LLVMValueRef r = left ? LLVMBuildShl(B, x, safe, "") : LLVMBuildLShr(B, x, safe, "");
  return LLVMBuildSelect(B, in, r, zero, "");
}

static void bitwise_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                         LLVMValueRef c) {
  PtoDType dt = t->dst.dtype;
  LLVMValueRef x = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[0], r, c), 0);
  LLVMValueRef y = pto_emit_load(e, dt, pto_emit_elem_ptr(e, t->src[1], r, c), 0);
  LLVMValueRef v;
  switch ((PtoEmitBitwise)t->op) {
  case PTO_EMIT_BITWISE_AND: v = LLVMBuildAnd(B, x, y, ""); break;
  case PTO_EMIT_BITWISE_OR: v = LLVMBuildOr(B, x, y, ""); break;
  case PTO_EMIT_BITWISE_XOR: v = LLVMBuildXor(B, x, y, ""); break;
  case PTO_EMIT_BITWISE_SHL: v = shift(e, true, pto_emit_num_of(dt), x, y); break;
  default: v = shift(e, false, pto_emit_num_of(dt), x, y); break;
  }
  pto_emit_store(e, dt, pto_emit_elem_ptr(e, t->dst, r, c), v);
}

PtoResult pto_emit_bitwise(PtoEmit *e, PtoEmitBitwise op, PtoEmitTile dst,
                           PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                           LLVMValueRef cols, PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {a, b}, .op = op};
  bool ok = pto_emit_is_int(dst.dtype) && a.dtype == dst.dtype && b.dtype == dst.dtype;
  return pto_emit_tiles_each(e, &t, 2, ok, "a bitwise instruction needs one integer element type",
                             rows, cols, bitwise_elem, err);
}
