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
                         pto_dtype_ir_name(tile.dtype));
  if (tile.dtype != gm.dtype && (load || !cast))
    return pto_error_set(err, "a copy between %s and %s needs a cast",
                         pto_dtype_ir_name(tile.dtype), pto_dtype_ir_name(gm.dtype));
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

/* ---- tpermute, trepeat ---- */

typedef struct Layout {
  PtoEmitTile dst, src;
  unsigned rank;
  const int64_t *shape, *stride;
} Layout;

/* dst[r][c] = the element of src the view maps (r, c) to: the digits of
 * r in the leading dims of the view, each times its stride in src (work
 * on r alone, which LLVM hoists out of the loop along the row), plus c
 * times the last dim's stride. */
static void layout_elem(PtoEmit *e, LLVMValueRef r, LLVMValueRef c,
                        const void *user) {
  const Layout *l = user;
  LLVMValueRef rest = r;
  LLVMValueRef at = LLVMBuildMul(e->b, c, pto_emit_i64(e, l->stride[l->rank - 1]), "");
  for (unsigned d = l->rank - 1; d-- > 0;) {
    LLVMValueRef size = pto_emit_i64(e, l->shape[d]);
    LLVMValueRef idx = LLVMBuildURem(e->b, rest, size, "");
    rest = LLVMBuildUDiv(e->b, rest, size, "");
    at = LLVMBuildAdd(e->b, at, LLVMBuildMul(e->b, idx, pto_emit_i64(e, l->stride[d]), ""), "");
  }
  /* both tiles are dense: an element's place is its row-major index */
  LLVMValueRef zero = pto_emit_i64(e, 0);
  LLVMValueRef to = LLVMBuildAdd(
      e->b, LLVMBuildMul(e->b, r, pto_emit_i64(e, l->shape[l->rank - 1]), ""), c, "");
  LLVMValueRef v = pto_emit_load_bits(e, l->src.dtype, pto_emit_elem_ptr(e, l->src, zero, at));
  pto_emit_store_bits(e, l->dst.dtype, pto_emit_elem_ptr(e, l->dst, zero, to), v);
}

PtoResult pto_emit_layout(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                          unsigned rank, const int64_t *shape,
                          const int64_t *src_stride, PtoError *err) {
  if (!pto_emit_storage_type(e, dst.dtype) || dst.dtype != src.dtype || rank < 1)
    return pto_error_set(err, "a layout copy of %s tiles has no LLVM translation yet",
                         pto_dtype_ir_name(src.dtype));
  int64_t rows = 1;
  for (unsigned d = 0; d + 1 < rank; d++) rows *= shape[d];
  Layout l = {dst, src, rank, shape, src_stride};
  pto_emit_each(e, pto_emit_i64(e, rows), pto_emit_i64(e, shape[rank - 1]),
                layout_elem, &l);
  return PTO_SUCCESS;
}
