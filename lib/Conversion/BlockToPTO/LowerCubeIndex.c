/* The lowerings of lower-to-pto that take more than one PTO instruction
 * for one Block-level op of the index and quantisation families:
 * tile.dequantize as tcvt to f32, the scale multiplied in (along each row,
 * per element, or broadcast into a scratch tile first), and tcvt to the
 * result's type. */
#include "Conversion/BlockToPTO/LowerCubeIndex.h"
#include "Conversion/BlockToPTO/LowerLayout.h"

#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

static PtoType *with(PtoContext *ctx, PtoType *tile, PtoType *elem) {
  return pto_pto_tile_type(ctx, pto_pto_tile_rows(tile), pto_pto_tile_cols(tile),
                           elem, pto_pto_tile_space(tile), PTO_PTO_UNPLANNED);
}

/* The scale `s` (tile ts) broadcast to q's m x n tile in f32 scratch
 * `full`: texpand when it broadcasts whole rows or columns of the 2-D
 * tile (1xN, 1x1), else trepeat of it seen as its Block buffer `buf`
 * (a leading dim of 1 repeated inside the rows: 2x1x8 for 2x4x8). */
static PtoValue *broadcast_scale(Lower *L, PtoOp *op, PtoValue *s, PtoType *ts,
                                 PtoType *buf, PtoType *full) {
  int64_t m = pto_pto_tile_rows(full), n = pto_pto_tile_cols(full);
  int64_t sr = pto_pto_tile_rows(ts), sc = pto_pto_tile_cols(ts);
  if ((sr == 1 || sr == m) && (sc == 1 || sc == n))
    return pto_op_result(pto_lower_build(L, op, "pto.texpand", &s, 1, full), 0);
  PtoType *out = pto_value_type(pto_op_result(op, 0));
  unsigned k = pto_tile_rank(out);
  int64_t shape[PTO_TILE_MAX_RANK], repeats[PTO_TILE_MAX_RANK];
  for (unsigned d = 0; d < k; d++) {
    shape[d] = pto_tile_dim(buf, d);
    repeats[d] = shape[d] == 1 ? pto_tile_dim(out, d) : 1;
  }
  PtoOp *rep = pto_lower_build(L, op, "pto.trepeat", &s, 1, full);
  pto_op_set_attr(rep, "shape", pto_attr_i64_array(pto_op_ctx(op), shape, k));
  pto_op_set_attr(rep, "repeats", pto_attr_i64_array(pto_op_ctx(op), repeats, k));
  return pto_op_result(rep, 0);
}

/* q * scale, with q converted to f32 first, the product computed in f32
 * and then converted to the result, as the Tile level's dequantize
 * defines it: f32(q) is exact for i8 and i16 (i32 rounds as f32(q)
 * does), an f32 product of two f32 values is the double product rounded
 * once, and an f16 / bf16 result rounds that f32 once more. A scale of one per row (Mx1) is trowexpandmul's,
 * one per element tmul's; any other broadcast (one per column, one for
 * the tile, ...) is first expanded to the whole tile in a scratch f32
 * tile, which memory-plan places as any other. */
static PtoResult lower_dequantize(Lower *L, PtoOp *op) {
  PtoContext *ctx = pto_op_ctx(op);
  PtoValue *q = pto_op_operand(op, 0), *s = pto_op_operand(op, 1);
  PtoType *tq = pto_value_type(q), *ts = pto_value_type(s);
  PtoType *out = pto_lower_tile_type(L, pto_value_type(pto_op_result(op, 0)));
  PtoType *sbuf = pto_lower_operand_buffer(L, op);
  if (!out || !sbuf || !pto_type_is_pto_tile(tq) || !pto_type_is_pto_tile(ts) ||
      pto_pto_tile_space(tq) != PTO_BUF_VEC || pto_pto_tile_space(ts) != PTO_BUF_VEC)
    return pto_op_emit_error(op, "lower-to-pto: dequantize needs vec tiles");
  int64_t m = pto_pto_tile_rows(tq), n = pto_pto_tile_cols(tq);
  bool per_row = pto_pto_tile_rows(ts) == m && pto_pto_tile_cols(ts) == 1;
  bool per_elem = pto_pto_tile_rows(ts) == m && pto_pto_tile_cols(ts) == n;
  PtoType *f32 = with(ctx, tq, pto_type_f32(ctx));
  PtoValue *qf = pto_op_result(pto_lower_build(L, op, "pto.tcvt", &q, 1, f32), 0);
  if (!per_row && !per_elem)
    s = broadcast_scale(L, op, s, ts, sbuf, f32);
  PtoValue *ops[2] = {qf, s};
  PtoOp *last = pto_lower_build(L, op, per_row ? "pto.trowexpandmul" : "pto.tmul",
                                ops, 2, f32);
  if (pto_pto_tile_elem(out) != pto_type_f32(ctx)) {
    PtoValue *p = pto_op_result(last, 0);
    last = pto_lower_build(L, op, "pto.tcvt", &p, 1, out);
  }
  pto_lower_finish(L, op, last);
  return PTO_SUCCESS;
}

PtoResult pto_lower_cube_index(Lower *L, PtoOp *op, bool *done) {
  *done = true;
  if (pto_op_is(op, "tile.dequantize")) return lower_dequantize(L, op);
  *done = false;
  return PTO_SUCCESS;
}
