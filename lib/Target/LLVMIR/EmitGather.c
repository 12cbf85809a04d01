/* tgather and the bias row of tmatmul_bias as LLVM IR (Emit.h): element
 * moves that keep every bit, addressed through an index tile or repeated
 * down the rows. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

static void gather_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                        LLVMValueRef c) {
  PtoEmitTile src = t->src[0];
  /* an index outside the row reads column 0 and gives 0: the interpreter
   * reports it, compiled code must not read outside the tile */
  LLVMValueRef in, at = pto_emit_load_index(e, t->src[1], r, c, t->extra, &in);
  LLVMValueRef v = pto_emit_load_bits(e, src.dtype, pto_emit_elem_ptr(e, src, r, at));
  pto_emit_store_bits(e, t->dst.dtype, pto_emit_elem_ptr(e, t->dst, r, c),
                      LLVMBuildSelect(B, in, v, LLVMConstNull(LLVMTypeOf(v)), ""));
}

PtoResult pto_emit_gather(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                          PtoEmitTile index, LLVMValueRef rows,
                          LLVMValueRef src_cols, LLVMValueRef cols,
                          PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {src, index}, .extra = src_cols};
  return pto_emit_tiles_each(
      e, &t, 2, src.dtype == dst.dtype && index.dtype == PTO_DT_I32,
      "a gather needs i32 indices and a result of the source's element type",
      rows, cols, gather_elem, err);
}

static void bcast_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                       LLVMValueRef c) {
  pto_emit_store_bits(
      e, t->dst.dtype, pto_emit_elem_ptr(e, t->dst, r, c),
      pto_emit_load_bits(e, t->src[0].dtype,
                         pto_emit_elem_ptr(e, t->src[0], pto_emit_i64(e, 0), c)));
}

PtoResult pto_emit_broadcast_row(PtoEmit *e, PtoEmitTile dst, PtoEmitTile row,
                                 LLVMValueRef rows, LLVMValueRef cols,
                                 PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {row}};
  return pto_emit_tiles_each(e, &t, 1, row.dtype == dst.dtype,
                             "a row broadcast needs one element type", rows,
                             cols, bcast_elem, err);
}
