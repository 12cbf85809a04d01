/* tgather and the bias row of tmatmul_bias as LLVM IR (Emit.h): element
 * moves that keep every bit, addressed through an index tile or repeated
 * down the rows. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

typedef struct Gather {
  PtoEmitTile dst, src, index;
  LLVMValueRef src_cols;
} Gather;

static void gather_elem(PtoEmit *e, LLVMValueRef r, LLVMValueRef c, const void *user) {
  const Gather *g = user;
  LLVMValueRef zero = pto_emit_i64(e, 0);
  LLVMValueRef ix = LLVMBuildSExt(
      B, pto_emit_load_bits(e, PTO_DT_I32, pto_emit_elem_ptr(e, g->index, r, c)),
      LLVMInt64TypeInContext(e->ctx), "");
  /* an index outside the row reads column 0 and gives 0: the interpreter
   * reports it, compiled code must not read outside the tile */
  LLVMValueRef in = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, ix, zero, ""),
                                 LLVMBuildICmp(B, LLVMIntSLT, ix, g->src_cols, ""), "");
  LLVMValueRef v = pto_emit_load_bits(
      e, g->src.dtype, pto_emit_elem_ptr(e, g->src, r, LLVMBuildSelect(B, in, ix, zero, "")));
  pto_emit_store_bits(e, g->dst.dtype, pto_emit_elem_ptr(e, g->dst, r, c),
                      LLVMBuildSelect(B, in, v, LLVMConstNull(LLVMTypeOf(v)), ""));
}

PtoResult pto_emit_gather(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                          PtoEmitTile index, LLVMValueRef rows,
                          LLVMValueRef src_cols, LLVMValueRef cols,
                          PtoError *err) {
  if (src.dtype != dst.dtype || index.dtype != PTO_DT_I32 ||
      !pto_emit_storage_type(e, src.dtype))
    return pto_error_set(err, "a gather needs i32 indices and a result of the "
                         "source's element type, not %s, %s -> %s",
                         pto_dtype_name(src.dtype), pto_dtype_name(index.dtype),
                         pto_dtype_name(dst.dtype));
  Gather g = {dst, src, index, src_cols};
  pto_emit_each(e, rows, cols, gather_elem, &g);
  return PTO_SUCCESS;
}

typedef struct Bcast {
  PtoEmitTile dst, row;
} Bcast;

static void bcast_elem(PtoEmit *e, LLVMValueRef r, LLVMValueRef c, const void *user) {
  const Bcast *k = user;
  pto_emit_store_bits(
      e, k->dst.dtype, pto_emit_elem_ptr(e, k->dst, r, c),
      pto_emit_load_bits(e, k->row.dtype, pto_emit_elem_ptr(e, k->row, pto_emit_i64(e, 0), c)));
}

PtoResult pto_emit_broadcast_row(PtoEmit *e, PtoEmitTile dst, PtoEmitTile row,
                                 LLVMValueRef rows, LLVMValueRef cols,
                                 PtoError *err) {
  if (row.dtype != dst.dtype || !pto_emit_storage_type(e, dst.dtype))
    return pto_error_set(err, "a row broadcast needs one element type, not %s "
                         "-> %s", pto_dtype_name(row.dtype), pto_dtype_name(dst.dtype));
  Bcast k = {dst, row};
  pto_emit_each(e, rows, cols, bcast_elem, &k);
  return PTO_SUCCESS;
}
