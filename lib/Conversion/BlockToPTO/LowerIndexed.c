/* lower-to-pto for the GM-indexed Tile ops. On the device a vector core
 * reaches GM only through MTE2 / MTE3, so a gather is not a vector
 * instruction on a loaded tile but an indexed load: pto.tgather_gm reads
 * the tensor (a kernel argument) at the positions of an index tile in UB,
 * into the result tile, with the Tile op's window and dim. The scatters
 * (scatter_elements, scatter, index_add) are the indexed store,
 * pto.tscatter_gm, which writes into the tensor in place. */
#include "Conversion/BlockToPTO/LowerIndexed.h"

#include "Support/Alloc.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

#include <string.h>

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

/* A GM operand the instruction reads or writes: a 2-D tensor. */
static PtoResult need_2d(PtoOp *op, unsigned i, const char *inst, const char *verb) {
  PtoType *t = pto_value_type(pto_op_operand(op, i));
  if (pto_type_is_tensor(t) && pto_type_tensor_rank(t) == 2) return PTO_SUCCESS;
  char *ts = pto_type_to_string(t);
  PtoResult r = pto_op_emit_error(op, "lower-to-pto: %s %s 2-D tensors; this op %s '%s'",
                                  inst, verb, verb, ts);
  pto_free(ts);
  return r;
}

/* tile.scatter_elements (reduce: none, add, multiply), tile.scatter and
 * tile.index_add: the Tile op's src, tensor, index and offsets are the
 * instruction's operands; a 1-D index tile is the instruction's row of
 * slice indices. The Tile op's result is the tensor it wrote. */
static PtoResult lower_scatter(Lower *L, PtoOp *op) {
  PtoContext *ctx = pto_op_ctx(op);
  if (need_2d(op, 1, "tscatter_gm", "writes")) return PTO_FAILURE;
  const char *reduce = pto_op_attr_str(op, PTO_ATTR_REDUCE);
  const char *mode = pto_op_is(op, "tile.index_add") ? "add"
                     : reduce && strcmp(reduce, "add") == 0 ? "add"
                     : reduce && strcmp(reduce, "multiply") == 0 ? "multiply"
                                                                 : "overwrite";
  PtoValue *ops[3 + 2];
  unsigned n = pto_op_num_operands(op) < 5 ? pto_op_num_operands(op) : 5;
  for (unsigned i = 0; i < n; i++) ops[i] = pto_op_operand(op, i);
  PtoOpState st;
  pto_op_state_init(&st, ctx, "pto.tscatter_gm", pto_op_loc(op));
  pto_op_state_add_operands(&st, ops, n);
  pto_op_state_add_attr(&st, PTO_ATTR_STATIC_OFFSETS, pto_op_attr(op, PTO_ATTR_STATIC_OFFSETS));
  pto_op_state_add_attr(&st, "dim", pto_attr_i64(ctx, (int64_t)pto_tile_get_dim(op)));
  pto_op_state_add_attr(&st, "mode", pto_attr_cstr(ctx, mode));
  PtoOp *s = pto_op_create(&st);
  pto_block_insert_before(op, s);
  pto_value_replace_all_uses(pto_op_result(op, 0), ops[1]);
  pto_op_erase(op);
  return PTO_SUCCESS;
}

PtoResult pto_lower_indexed(Lower *L, PtoOp *op, bool *done) {
  *done = true;
  if (pto_op_is(op, "tile.gather")) return lower_gather(L, op);
  if (pto_op_is(op, "tile.scatter_elements") || pto_op_is(op, "tile.scatter") ||
      pto_op_is(op, "tile.index_add"))
    return lower_scatter(L, op);
  *done = false;
  return PTO_SUCCESS;
}
