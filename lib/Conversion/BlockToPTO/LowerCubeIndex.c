/* The lowerings of lower-to-pto that take more than one PTO instruction
 * for one Block-level op of the index and quantisation families:
 * tile.dequantize as tcvt to f32, the scale multiplied in along each row,
 * and tcvt to the result's type. */
#include "Conversion/BlockToPTO/LowerCubeIndex.h"

#include "pto/Dialect/PTO.h"

static PtoType *with(PtoContext *ctx, PtoType *tile, PtoType *elem) {
  return pto_pto_tile_type(ctx, pto_pto_tile_rows(tile), pto_pto_tile_cols(tile),
                           elem, pto_pto_tile_space(tile), PTO_PTO_UNPLANNED);
}

/* q * scale, with q converted to f32 first and the product rounded once
 * to the result (as the Tile level's dequantize): f32(q) is exact for i8
 * and i16 (i32 rounds as f32(q) does), an f32 product of two f32 values
 * is the double product rounded once, and an f16 / bf16 result rounds
 * that f32 once more. The scale is one per row (Mx1) or per element. */
static PtoResult lower_dequantize(Lower *L, PtoOp *op) {
  PtoContext *ctx = pto_op_ctx(op);
  PtoValue *q = pto_op_operand(op, 0), *s = pto_op_operand(op, 1);
  PtoType *tq = pto_value_type(q), *ts = pto_value_type(s);
  PtoType *out = pto_lower_tile_type(L, pto_value_type(pto_op_result(op, 0)));
  if (!out || !pto_type_is_pto_tile(tq) || !pto_type_is_pto_tile(ts))
    return pto_op_emit_error(op, "lower-to-pto: dequantize needs vec tiles");
  int64_t m = pto_pto_tile_rows(tq), n = pto_pto_tile_cols(tq);
  bool per_row = pto_pto_tile_rows(ts) == m && pto_pto_tile_cols(ts) == 1;
  bool per_elem = pto_pto_tile_rows(ts) == m && pto_pto_tile_cols(ts) == n;
  if (!per_row && !per_elem)
    return pto_op_emit_error(
        op, "lower-to-pto: a dequantize scale of %lldx%lld for a %lldx%lld tile "
            "has no PTO form; trowexpandmul takes one scale per row (%lldx1)",
        (long long)pto_pto_tile_rows(ts), (long long)pto_pto_tile_cols(ts),
        (long long)m, (long long)n, (long long)m);
  PtoType *f32 = with(ctx, tq, pto_type_f32(ctx));
  PtoValue *qf = pto_op_result(pto_lower_build(L, op, "pto.tcvt", &q, 1, f32), 0);
  PtoValue *ops[2] = {qf, s};
  PtoOp *last = pto_lower_build(L, op, per_elem ? "pto.tmul" : "pto.trowexpandmul",
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
