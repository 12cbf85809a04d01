/* tcmp and tsel as LLVM IR (Emit.h): comparisons into i1 tiles (one byte
 * each, 0 or 1, as the interpreter stores them) and the selection that
 * reads them back, both loops over rows and columns that vectorise. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

#define NAME(id, name) name,
static const char *const cmp_names[] = {PTO_EMIT_COMPARE_OPS(NAME)};
#undef NAME
const char *pto_emit_compare_name(PtoEmitCompare op) { return cmp_names[op]; }

/* numpy's comparisons: ordered for all but ne, so NaN compares false to
 * everything and unequal to everything; integers signed or unsigned as
 * their dtype. */
static LLVMValueRef compare(PtoEmit *e, PtoEmitCompare op, PtoEmitNum num,
                            LLVMValueRef a, LLVMValueRef b) {
  static const LLVMRealPredicate fpred[] = {LLVMRealOEQ, LLVMRealUNE,
                                            LLVMRealOLT, LLVMRealOLE,
                                            LLVMRealOGT, LLVMRealOGE};
  static const LLVMIntPredicate ipred[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT,
                                           LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
  return num == PTO_EMIT_NUM_FLOAT ? LLVMBuildFCmp(B, fpred[op], a, b, "")
                                   : LLVMBuildICmp(B, pto_emit_int_pred(num, ipred[op]), a, b, "");
}

static void cmp_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                     LLVMValueRef c) {
  PtoEmitTile a = t->src[0], b = t->src[1];
  LLVMValueRef x = pto_emit_load(e, a.dtype, pto_emit_elem_ptr(e, a, r, c), 0);
  LLVMValueRef y = pto_emit_load(e, b.dtype, pto_emit_elem_ptr(e, b, r, c), 0);
  LLVMValueRef m = compare(e, (PtoEmitCompare)t->op, pto_emit_num_of(a.dtype), x, y);
  pto_emit_store_bits(e, PTO_DT_BOOL, pto_emit_elem_ptr(e, t->dst, r, c),
                      LLVMBuildZExt(B, m, LLVMInt8TypeInContext(e->ctx), ""));
}

PtoResult pto_emit_compare(PtoEmit *e, PtoEmitCompare op, PtoEmitTile dst,
                           PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                           LLVMValueRef cols, PtoError *err) {
  if (!pto_emit_is_float(a.dtype) && !pto_emit_is_int(a.dtype))
    return pto_error_set(err, "a comparison of %s tiles has no LLVM translation yet",
                         pto_dtype_ir_name(a.dtype));
  PtoEmitTiles t = {.dst = dst, .src = {a, b}, .op = op};
  return pto_emit_tiles_each(
      e, &t, 2, a.dtype == b.dtype && dst.dtype == PTO_DT_BOOL,
      "a comparison needs two tiles of one element type and an i1 result",
      rows, cols, cmp_elem, err);
}

static void sel_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                     LLVMValueRef c) {
  PtoDType dt = t->dst.dtype;
  LLVMValueRef m = pto_emit_load_bits(e, PTO_DT_BOOL, pto_emit_elem_ptr(e, t->src[0], r, c));
  LLVMValueRef x = pto_emit_load_bits(e, dt, pto_emit_elem_ptr(e, t->src[1], r, c));
  LLVMValueRef y = pto_emit_load_bits(e, dt, pto_emit_elem_ptr(e, t->src[2], r, c));
  /* any nonzero byte is true, as the interpreter reads a mask */
  LLVMValueRef on = LLVMBuildICmp(B, LLVMIntNE, m, LLVMConstNull(LLVMTypeOf(m)), "");
  pto_emit_store_bits(e, dt, pto_emit_elem_ptr(e, t->dst, r, c),
                      LLVMBuildSelect(B, on, x, y, ""));
}

PtoResult pto_emit_select(PtoEmit *e, PtoEmitTile dst, PtoEmitTile mask,
                          PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {mask, a, b}};
  return pto_emit_tiles_each(
      e, &t, 3,
      mask.dtype == PTO_DT_BOOL && a.dtype == dst.dtype && b.dtype == dst.dtype,
      "a selection needs an i1 mask and tiles of one element type", rows,
      cols, sel_elem, err);
}
