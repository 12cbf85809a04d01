/* lower-to-pto for the GM-indexed Tile ops. On the device a vector core
 * reaches GM only through MTE2 / MTE3, so a gather is not a vector
 * instruction on a loaded tile but an indexed load: pto.tgather_gm reads
 * the tensor (a kernel argument) at the positions of an index tile in UB,
 * into the result tile, with the Tile op's window and dim; index_select
 * is the same load with its 1-D index broadcast. The scatters
 * (scatter_elements, scatter, index_add) are the indexed store,
 * pto.tscatter_gm, which writes into the tensor in place. */
#include "Conversion/BlockToPTO/LowerIndexed.h"

#include "Support/Alloc.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

#include <string.h>

/* The 2-D GM tensor `op` reads and its result tile, or an error at op
 * (NULL) for other ranks. */
static PtoType *gm_result(Lower *L, PtoOp *op, const char *what) {
  PtoType *tx = pto_value_type(pto_op_operand(op, 0));
  PtoType *out = pto_lower_tile_type(L, pto_value_type(pto_op_result(op, 0)));
  if (out && pto_type_is_tensor(tx) && pto_type_tensor_rank(tx) == 2) return out;
  char *ts = pto_type_to_string(tx);
  pto_op_emit_error(op, "lower-to-pto: tgather_gm reads 2-D tensors; this %s reads '%s'",
                    what, ts);
  pto_free(ts);
  return NULL;
}

/* op becomes tgather_gm of its tensor at the indices `ix`: the Tile op's
 * other operands are the instruction's (tensor, indices, then the dynamic
 * offsets: at most one per tensor dim, as verified), and so are its
 * offsets and dim. */
static PtoResult gather_gm(Lower *L, PtoOp *op, PtoValue *ix, PtoType *out) {
  PtoValue *ops[2 + 2];
  unsigned n = pto_op_num_operands(op) < 4 ? pto_op_num_operands(op) : 4;
  for (unsigned i = 0; i < n; i++) ops[i] = i == 1 ? ix : pto_op_operand(op, i);
  PtoOp *g = pto_lower_build(L, op, "pto.tgather_gm", ops, n, out);
  pto_op_set_attr(g, PTO_ATTR_STATIC_OFFSETS, pto_op_attr(op, PTO_ATTR_STATIC_OFFSETS));
  pto_op_set_attr(g, "dim", pto_attr_i64(pto_op_ctx(op), (int64_t)pto_tile_get_dim(op)));
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

static PtoResult lower_gather(Lower *L, PtoOp *op) {
  PtoType *out = gm_result(L, op, "gather");
  return out ? gather_gm(L, op, pto_op_operand(op, 1), out) : PTO_FAILURE;
}

/* tile.index_select picks whole rows (dim 0) or columns (dim 1) by a 1-D
 * index, the 1xN tile ix: tgather_gm with an index per element, ix
 * broadcast along the slices (dim 1: texpand of the 1xN row; dim 0:
 * ttrans to a column first, then texpand). */
static PtoResult lower_index_select(Lower *L, PtoOp *op) {
  PtoType *out = gm_result(L, op, "index_select");
  PtoValue *ix = pto_op_operand(op, 1);
  PtoType *ti = pto_value_type(ix);
  if (!out) return PTO_FAILURE;
  /* the Tile level's 1-D index: a tile of one row */
  if (!pto_type_is_pto_tile(ti) || pto_pto_tile_rows(ti) != 1)
    return pto_op_emit_error(op, "lower-to-pto: index_select takes a 1-D index");
  int64_t rows = pto_pto_tile_rows(out), cols = pto_pto_tile_cols(out);
  PtoType *elem = pto_pto_tile_elem(ti);
  if (pto_tile_get_dim(op) == 0 && rows > 1) {
    PtoType *col = pto_pto_tile_type(pto_op_ctx(op), rows, 1, elem, PTO_BUF_VEC,
                                     PTO_PTO_UNPLANNED);
    ix = pto_op_result(pto_lower_build(L, op, "pto.ttrans", &ix, 1, col), 0);
  }
  if (pto_pto_tile_rows(pto_value_type(ix)) != rows ||
      pto_pto_tile_cols(pto_value_type(ix)) != cols) {
    PtoType *full = pto_pto_tile_type(pto_op_ctx(op), rows, cols, elem, PTO_BUF_VEC,
                                      PTO_PTO_UNPLANNED);
    ix = pto_op_result(pto_lower_build(L, op, "pto.texpand", &ix, 1, full), 0);
  }
  return gather_gm(L, op, ix, out);
}

PtoResult pto_lower_indexed(Lower *L, PtoOp *op, bool *done) {
  *done = true;
  if (pto_op_is(op, "tile.gather")) return lower_gather(L, op);
  if (pto_op_is(op, "tile.scatter_elements") || pto_op_is(op, "tile.scatter") ||
      pto_op_is(op, "tile.index_add"))
    return lower_scatter(L, op);
  if (pto_op_is(op, "tile.index_select")) return lower_index_select(L, op);
  *done = false;
  return PTO_SUCCESS;
}
