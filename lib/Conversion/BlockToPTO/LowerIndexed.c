/* lower-to-pto for the GM-indexed Tile ops. On the device a vector core
 * reaches GM only through MTE2 / MTE3, so a gather is not a vector
 * instruction on a loaded tile but an indexed load: pto.tgather_gm reads
 * the tensor (a kernel argument) at the positions of an index tile in UB,
 * into the result tile, with the Tile op's window and dim; index_select
 * is the same load with its 1-D index broadcast. */
#include "Conversion/BlockToPTO/LowerIndexed.h"

#include "Support/Alloc.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

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
  if (pto_op_is(op, "tile.index_select")) return lower_index_select(L, op);
  *done = false;
  return PTO_SUCCESS;
}
