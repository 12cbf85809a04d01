/* The instructions that address GM through an index tile as LLVM IR
 * (Emit.h): tgather_gm, one load per element at the position its index
 * names, bit for bit. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

/* t->src[0] is the GM window (its first element at the window's offset
 * along the other dim and 0 along dim), src[1] the index tile; t->op the
 * dim and t->extra the tensor's extent along it. */
static void gather_gm_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                           LLVMValueRef c) {
  /* an index outside the tensor reads its first element and gives 0: the
   * interpreter reports it, the compiled kernel must not read outside
   * the tensor */
  LLVMValueRef in, at = pto_emit_load_index(e, t->src[1], r, c, t->extra, &in);
  LLVMValueRef v = pto_emit_load_bits(
      e, t->src[0].dtype,
      pto_emit_elem_ptr(e, t->src[0], t->op == 0 ? at : r, t->op == 0 ? c : at));
  pto_emit_store_bits(e, t->dst.dtype, pto_emit_elem_ptr(e, t->dst, r, c),
                      LLVMBuildSelect(B, in, v, LLVMConstNull(LLVMTypeOf(v)), ""));
}

PtoResult pto_emit_gather_gm(PtoEmit *e, PtoEmitTile dst, PtoEmitTile gm,
                             PtoEmitTile index, unsigned dim, LLVMValueRef extent,
                             LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  PtoEmitTiles t = {.dst = dst, .src = {gm, index}, .op = (int)dim, .extra = extent};
  return pto_emit_tiles_each(
      e, &t, 2, gm.dtype == dst.dtype && index.dtype == PTO_DT_I32 && dim < 2,
      "a GM gather needs i32 indices, dim 0 or 1 and a result of the tensor's "
      "element type",
      rows, cols, gather_gm_elem, err);
}
