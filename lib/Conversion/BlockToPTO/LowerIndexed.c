/* lower-to-pto for the GM-indexed Tile ops. On the device a vector core
 * reaches GM only through MTE2 / MTE3, so a gather is not a vector
 * instruction on a loaded tile but an indexed load: pto.tgather_gm reads
 * the tensor (a kernel argument) at the positions of an index tile in UB,
 * into the result tile, with the Tile op's window and dim; index_select
 * is the same load with its 1-D index broadcast. The scatters
 * (scatter_elements, scatter, index_add) are the indexed store,
 * pto.tscatter_gm, which writes into the tensor in place. */
#include "Conversion/BlockToPTO/LowerIndexed.h"
#include "Conversion/BlockToPTO/LowerLayout.h"

#include "Support/Alloc.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

#include <inttypes.h>
#include <string.h>

/* The tile of an indexed op seen in its tensor's rank: the Block buffer
 * `buf`'s dims are the window's trailing ones, its leading ones 1 (the
 * Tile level's rule); a buffer of more dims than the tensor drops its
 * leading dims of 1, and one that still has more is an error here, not a
 * wrong window. Returns the tensor's rank (0 on error). */
static unsigned tile_shape(PtoOp *op, PtoType *buf, PtoType *tensor, int64_t *shape) {
  unsigned k = pto_type_is_block_buf(buf) ? pto_tile_rank(buf) : 0;
  unsigned n = pto_type_is_tensor(tensor) ? pto_type_tensor_rank(tensor) : 0;
  unsigned skip = 0;
  while (k - skip > n && pto_tile_dim(buf, skip) == 1) skip++;
  if (k == 0 || k - skip > n) {
    char *ts = pto_type_to_string(tensor);
    pto_op_emit_error(op, "lower-to-pto: the indexed tile has rank %u; the tensor '%s' "
                          "holds tiles of rank 1 to %u", k, ts, n);
    pto_free(ts);
    return 0;
  }
  k -= skip;
  for (unsigned d = 0; d < n; d++) shape[d] = d < n - k ? 1 : pto_tile_dim(buf, skip + d - (n - k));
  return n;
}

/* The instruction's `shape`, the tile in the tensor's rank: spelled out
 * unless the tensor is 2-D (the tile's own rows and columns then). */
static PtoAttr *shape_attr(PtoOp *op, const int64_t *shape, unsigned n) {
  return n == 2 ? NULL : pto_attr_i64_array(pto_op_ctx(op), shape, n);
}

/* op becomes tgather_gm of its tensor at the indices `ix`: the Tile op's
 * other operands are the instruction's (tensor, indices, then the dynamic
 * offsets: at most one per tensor dim, as verified), and so are its
 * offsets and dim. */
static PtoResult gather_gm(Lower *L, PtoOp *op, PtoValue *ix, PtoType *out,
                           const int64_t *shape, unsigned rank) {
  PtoValue *ops[2 + PTO_MAX_RANK];
  unsigned n = pto_op_num_operands(op) < 2 + rank ? pto_op_num_operands(op) : 2 + rank;
  for (unsigned i = 0; i < n; i++) ops[i] = i == 1 ? ix : pto_op_operand(op, i);
  PtoOp *g = pto_lower_build(L, op, "pto.tgather_gm", ops, n, out);
  pto_op_set_attr(g, PTO_ATTR_STATIC_OFFSETS, pto_op_attr(op, PTO_ATTR_STATIC_OFFSETS));
  pto_op_set_attr(g, "dim", pto_attr_i64(pto_op_ctx(op), (int64_t)pto_tile_get_dim(op)));
  PtoAttr *sa = shape_attr(op, shape, rank);
  if (sa) pto_op_set_attr(g, "shape", sa);
  pto_lower_finish(L, op, g);
  return PTO_SUCCESS;
}

/* tile.scatter_elements (reduce: none, add, multiply), tile.scatter and
 * tile.index_add: the Tile op's src, tensor, index and offsets are the
 * instruction's operands; a 1-D index tile is the instruction's row of
 * slice indices. The Tile op's result is the tensor it wrote. */
static PtoResult lower_scatter(Lower *L, PtoOp *op) {
  PtoContext *ctx = pto_op_ctx(op);
  int64_t shape[PTO_MAX_RANK];
  unsigned rank = tile_shape(op, pto_lower_operand_buffer(L, op),
                             pto_value_type(pto_op_operand(op, 1)), shape);
  if (!rank) return PTO_FAILURE;
  const char *reduce = pto_op_attr_str(op, PTO_ATTR_REDUCE);
  const char *mode = pto_op_is(op, "tile.index_add") ? "add"
                     : reduce && strcmp(reduce, "add") == 0 ? "add"
                     : reduce && strcmp(reduce, "multiply") == 0 ? "multiply"
                                                                 : "overwrite";
  PtoValue *ops[3 + PTO_MAX_RANK];
  unsigned n = pto_op_num_operands(op) < 3 + rank ? pto_op_num_operands(op) : 3 + rank;
  for (unsigned i = 0; i < n; i++) ops[i] = pto_op_operand(op, i);
  PtoOpState st;
  pto_op_state_init(&st, ctx, "pto.tscatter_gm", pto_op_loc(op));
  pto_op_state_add_operands(&st, ops, n);
  pto_op_state_add_attr(&st, PTO_ATTR_STATIC_OFFSETS, pto_op_attr(op, PTO_ATTR_STATIC_OFFSETS));
  pto_op_state_add_attr(&st, "dim", pto_attr_i64(ctx, (int64_t)pto_tile_get_dim(op)));
  pto_op_state_add_attr(&st, "mode", pto_attr_cstr(ctx, mode));
  PtoAttr *sa = shape_attr(op, shape, rank);
  if (sa) pto_op_state_add_attr(&st, "shape", sa);
  PtoOp *s = pto_op_create(&st);
  pto_block_insert_before(op, s);
  pto_value_replace_all_uses(pto_op_result(op, 0), ops[1]);
  pto_op_erase(op);
  return PTO_SUCCESS;
}

static PtoResult lower_gather(Lower *L, PtoOp *op) {
  PtoType *buf = pto_value_type(pto_op_result(op, 0));
  PtoType *out = pto_lower_tile_type(L, buf);
  int64_t shape[PTO_MAX_RANK];
  unsigned rank = tile_shape(op, buf, pto_value_type(pto_op_operand(op, 0)), shape);
  if (!rank || !out) return rank ? pto_op_emit_error(op, "lower-to-pto: the gather's result "
                                                         "has no PTO tile")
                                 : PTO_FAILURE;
  return gather_gm(L, op, pto_op_operand(op, 1), out, shape, rank);
}

/* tile.index_select picks whole slices along dim by a 1-D index, the 1xN
 * tile ix: tgather_gm with an index per element, ix broadcast along the
 * other dims (2-D, dim 1: texpand of the 1xN row; dim 0: ttrans to a
 * column first, then texpand; other ranks: trepeat of ix seen as the
 * result's shape with every dim but dim 1). */
static PtoResult lower_index_select(Lower *L, PtoOp *op) {
  PtoType *buf = pto_value_type(pto_op_result(op, 0));
  PtoType *out = pto_lower_tile_type(L, buf);
  int64_t shape[PTO_MAX_RANK];
  unsigned rank = tile_shape(op, buf, pto_value_type(pto_op_operand(op, 0)), shape);
  if (!rank) return PTO_FAILURE;
  PtoValue *ix = pto_op_operand(op, 1);
  PtoType *ti = pto_value_type(ix);
  unsigned dim = pto_tile_get_dim(op);
  /* the Tile level's 1-D index: a tile of one row, an entry per slice
   * (what the verifier checks; a module not verified may differ) */
  if (!out || !pto_type_is_pto_tile(ti) || pto_pto_tile_rows(ti) != 1) {
    char *ts = pto_type_to_string(ti);
    PtoResult r = pto_op_emit_error(
        op, "lower-to-pto: index_select takes a 1-D index (a tile of one row), got '%s'",
        ts);
    pto_free(ts);
    return r;
  }
  if (dim >= rank || pto_pto_tile_cols(ti) != shape[dim])
    return pto_op_emit_error(op,
                             "lower-to-pto: index_select's index has %" PRId64
                             " entries, not one per slice along dim %u of the "
                             "rank-%u result",
                             pto_pto_tile_cols(ti), dim, rank);
  int64_t rows = pto_pto_tile_rows(out), cols = pto_pto_tile_cols(out);
  PtoType *elem = pto_pto_tile_elem(ti);
  PtoType *full = pto_pto_tile_type(pto_op_ctx(op), rows, cols, elem, PTO_BUF_VEC,
                                    PTO_PTO_UNPLANNED);
  if (rank != 2 && (rows != 1 || cols != pto_pto_tile_cols(ti))) {
    int64_t one[PTO_MAX_RANK], repeats[PTO_MAX_RANK];
    for (unsigned d = 0; d < rank; d++) {
      one[d] = d == dim ? shape[d] : 1;
      repeats[d] = d == dim ? 1 : shape[d];
    }
    PtoOp *rep = pto_lower_build(L, op, "pto.trepeat", &ix, 1, full);
    pto_op_set_attr(rep, "shape", pto_attr_i64_array(pto_op_ctx(op), one, rank));
    pto_op_set_attr(rep, "repeats", pto_attr_i64_array(pto_op_ctx(op), repeats, rank));
    ix = pto_op_result(rep, 0);
  }
  if (rank == 2 && dim == 0 && rows > 1) {
    PtoType *col = pto_pto_tile_type(pto_op_ctx(op), rows, 1, elem, PTO_BUF_VEC,
                                     PTO_PTO_UNPLANNED);
    ix = pto_op_result(pto_lower_build(L, op, "pto.ttrans", &ix, 1, col), 0);
  }
  if (pto_pto_tile_rows(pto_value_type(ix)) != rows ||
      pto_pto_tile_cols(pto_value_type(ix)) != cols)
    ix = pto_op_result(pto_lower_build(L, op, "pto.texpand", &ix, 1, full), 0);
  return gather_gm(L, op, ix, out, shape, rank);
}

bool pto_lower_indexed_stores(PtoOp *op) {
  return pto_op_is(op, "tile.scatter_elements") || pto_op_is(op, "tile.scatter") ||
         pto_op_is(op, "tile.index_add");
}

PtoResult pto_lower_indexed(Lower *L, PtoOp *op, bool *done) {
  *done = true;
  if (pto_op_is(op, "tile.gather")) return lower_gather(L, op);
  if (pto_lower_indexed_stores(op)) return lower_scatter(L, op);
  if (pto_op_is(op, "tile.index_select")) return lower_index_select(L, op);
  *done = false;
  return PTO_SUCCESS;
}
