/* lower-to-pto for the GM-indexed Tile ops. On the device a vector core
 * reaches GM only through MTE2 / MTE3, so a gather is not a vector
 * instruction on a loaded tile but an indexed load: pto.tgather_gm reads
 * the tensor (a kernel argument) at the positions of an index tile in UB,
 * into the result tile, with the Tile op's window and dim. */
#include "Conversion/BlockToPTO/LowerIndexed.h"

#include "Support/Alloc.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

static PtoResult lower_gather(Lower *L, PtoOp *op) {
  PtoContext *ctx = pto_op_ctx(op);
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *tx = pto_value_type(x);
  PtoType *out = pto_lower_tile_type(L, pto_value_type(pto_op_result(op, 0)));
  if (!out || !pto_type_is_tensor(tx) || pto_type_tensor_rank(tx) != 2) {
    char *ts = pto_type_to_string(tx);
    PtoResult r = pto_op_emit_error(
        op, "lower-to-pto: tgather_gm reads 2-D tensors; this gather reads "
            "'%s'", ts);
    pto_free(ts);
    return r;
  }
  /* the Tile op's operands are the instruction's: tensor, indices, then
   * the dynamic offsets (at most one per tensor dim, as verified) */
  PtoValue *ops[2 + 2];
  unsigned n = pto_op_num_operands(op) < 4 ? pto_op_num_operands(op) : 4;
  for (unsigned i = 0; i < n; i++) ops[i] = pto_op_operand(op, i);
  PtoOp *g = pto_lower_build(L, op, "pto.tgather_gm", ops, n, out);
  pto_op_set_attr(g, PTO_ATTR_STATIC_OFFSETS, pto_op_attr(op, PTO_ATTR_STATIC_OFFSETS));
  pto_op_set_attr(g, "dim", pto_attr_i64(ctx, (int64_t)pto_tile_get_dim(op)));
  pto_lower_finish(L, op, g);
  return PTO_SUCCESS;
}

PtoResult pto_lower_indexed(Lower *L, PtoOp *op, bool *done) {
  *done = true;
  if (pto_op_is(op, "tile.gather")) return lower_gather(L, op);
  *done = false;
  return PTO_SUCCESS;
}
