/* The data-layout instructions as LLVM IR: tload / tstore of a GM window
 * whose rows sit at several strides, one 2-D copy per piece. */
#include "Target/LLVMIR/EmitUtil.h"

/* p + n elements of dt, as an i8*. */
static LLVMValueRef advance(PtoEmit *e, LLVMValueRef p, LLVMValueRef n,
                            PtoDType dt) {
  LLVMValueRef bytes =
      LLVMBuildMul(e->b, n, pto_emit_i64(e, (int64_t)pto_dtype_size(dt)), "");
  return LLVMBuildInBoundsGEP2(e->b, LLVMInt8TypeInContext(e->ctx), p, &bytes,
                               1, "");
}

PtoResult pto_emit_copy_pieces(PtoEmit *e, bool load, PtoEmitTile tile,
                               PtoEmitTile gm, const PtoEmitPieces *pieces,
                               LLVMValueRef cols, const PtoCastMode *cast,
                               PtoError *err) {
  if (!pto_emit_storage_type(e, tile.dtype) || !pto_emit_storage_type(e, gm.dtype))
    return pto_error_set(err, "a copy of %s tiles has no LLVM translation yet",
                         pto_dtype_name(tile.dtype));
  if (tile.dtype != gm.dtype && (load || !cast))
    return pto_error_set(err, "a copy between %s and %s needs a cast",
                         pto_dtype_name(tile.dtype), pto_dtype_name(gm.dtype));
  int64_t total = 1;
  for (unsigned k = 0; k < pieces->n; k++) total *= pieces->size[k];
  /* one piece per trip: its rows after the previous piece's in the tile,
   * its GM start from the digits of the trip count */
  PtoEmitLoop l;
  pto_emit_loop_begin(e, &l, pto_emit_i64(e, 0), pto_emit_i64(e, total), 1, 0,
                      NULL);
  LLVMValueRef rest = l.iv, off = pto_emit_i64(e, 0);
  for (unsigned k = pieces->n; k-- > 0;) {
    LLVMValueRef size = pto_emit_i64(e, pieces->size[k]);
    LLVMValueRef idx = LLVMBuildURem(e->b, rest, size, "");
    rest = LLVMBuildUDiv(e->b, rest, size, "");
    off = LLVMBuildAdd(e->b, off, LLVMBuildMul(e->b, idx, pieces->stride[k], ""), "");
  }
  LLVMValueRef rows = pto_emit_i64(e, pieces->piece_rows);
  PtoEmitTile g = gm, t = tile;
  g.ptr = advance(e, gm.ptr, off, gm.dtype);
  t.ptr = advance(e, tile.ptr,
                  LLVMBuildMul(e->b, LLVMBuildMul(e->b, l.iv, rows, ""),
                               tile.row_stride, ""),
                  tile.dtype);
  PtoResult r = load ? pto_emit_copy(e, t, g, rows, cols, err)
                : tile.dtype != gm.dtype
                    ? pto_emit_cast(e, *cast, g, t, rows, cols, err)
                    : pto_emit_copy(e, g, t, rows, cols, err);
  pto_emit_loop_end(e, &l);
  pto_emit_loop_keep_rolled(e, &l);
  return r;
}
