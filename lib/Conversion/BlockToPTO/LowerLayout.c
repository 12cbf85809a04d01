/* lower-to-pto for the layout of N-D buffers. A buffer of rank N is the
 * 2-D tile of its leading dims' product by its last dim; a Tile op that
 * moves elements between those dims (a transpose of more than two, a
 * column reduction in each of several planes, a broadcast of a leading
 * dim) is not a 2-D instruction, but a pto.tpermute / pto.trepeat of the
 * tile seen as the buffer's N-D array, and 2-D instructions around it. */
#include "Conversion/BlockToPTO/LowerLayout.h"

#include <string.h>

#include "Support/Alloc.h"
#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

static PtoAttr *ints(PtoOp *op, const int64_t *v, unsigned n) {
  return pto_attr_i64_array(pto_op_ctx(op), v, n);
}

static PtoType *tile_like(PtoOp *op, PtoType *elem, int64_t rows, int64_t cols) {
  return pto_pto_tile_type(pto_op_ctx(op), rows, cols, elem, PTO_BUF_VEC,
                           PTO_PTO_UNPLANNED);
}

/* tpermute of x seen as shape[0..n) by perm, into `result`. */
static PtoOp *permute(Lower *L, PtoOp *at, PtoValue *x, const int64_t *shape,
                      const int64_t *perm, unsigned n, PtoType *result) {
  PtoOp *p = pto_lower_build(L, at, "pto.tpermute", &x, 1, result);
  pto_op_set_attr(p, "shape", ints(at, shape, n));
  pto_op_set_attr(p, "perm", ints(at, perm, n));
  return p;
}

static PtoResult not_a_tile(PtoOp *op) {
  return pto_op_emit_error(op, "lower-to-pto: the operand is not a PTO tile "
                               "in vec");
}

static bool vec_tile(PtoValue *v) {
  PtoType *t = pto_value_type(v);
  return pto_type_is_pto_tile(t) && pto_pto_tile_space(t) == PTO_BUF_VEC;
}

PtoResult pto_lower_permute(Lower *L, PtoOp *op, const int64_t *perm,
                            unsigned rank) {
  PtoType *out = pto_value_type(pto_op_result(op, 0));
  PtoType *t = pto_lower_tile_type(L, out);
  PtoValue *x = pto_op_operand(op, 0);
  if (!t || !vec_tile(x)) return not_a_tile(op);
  int64_t in[PTO_TILE_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) in[perm[d]] = pto_tile_dim(out, d);
  pto_lower_finish(L, op, permute(L, op, x, in, perm, rank, t));
  return PTO_SUCCESS;
}

PtoResult pto_lower_reshape(Lower *L, PtoOp *op, PtoType *want) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *t = pto_value_type(x);
  const int64_t shape[2] = {pto_pto_tile_rows(t), pto_pto_tile_cols(t)};
  static const int64_t same[2] = {0, 1};
  pto_lower_finish(L, op, permute(L, op, x, shape, same, 2, want));
  return PTO_SUCCESS;
}

/* The row form of each column reduction. */
static const struct {
  const char *col, *row;
} by_row[] = {
    {"tile.colsum", "pto.trowsum"},       {"tile.colmax", "pto.trowmax"},
    {"tile.colmin", "pto.trowmin"},       {"tile.colprod", "pto.trowprod"},
    {"tile.colargmax", "pto.trowargmax"}, {"tile.colargmin", "pto.trowargmin"},
};

PtoResult pto_lower_plane_reduce(Lower *L, PtoOp *op) {
  const char *row = NULL;
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(by_row); i++)
    if (pto_op_is(op, by_row[i].col)) row = by_row[i].row;
  PtoType *out = pto_value_type(pto_op_result(op, 0));
  PtoValue *x = pto_op_operand(op, 0);
  unsigned k = pto_type_is_block_buf(out) ? pto_tile_rank(out) : 0;
  if (!row || k < 3 || !vec_tile(x)) return not_a_tile(op);
  /* [P, R, C] with the planes P, a plane's R rows and C columns */
  int64_t p = 1, c = pto_tile_dim(out, k - 1);
  for (unsigned d = 0; d + 2 < k; d++) p *= pto_tile_dim(out, d);
  PtoType *tx = pto_value_type(x);
  int64_t r = pto_pto_tile_rows(tx) / p;
  if (r * p != pto_pto_tile_rows(tx) || pto_pto_tile_cols(tx) != c)
    return not_a_tile(op);
  static const int64_t swap[3] = {0, 2, 1};
  const int64_t in[3] = {p, r, c}, red[3] = {p, c, 1};
  PtoValue *xt = pto_op_result(
      permute(L, op, x, in, swap, 3, tile_like(op, pto_pto_tile_elem(tx), p * c, r)), 0);
  /* each plane's columns are now rows: reduce them, and turn the p x c
   * column of results back into the p rows of c */
  unsigned nres = pto_op_num_results(op);
  PtoType *types[2], *final[2];
  for (unsigned i = 0; i < nres && i < 2; i++) {
    final[i] = pto_lower_tile_type(L, pto_value_type(pto_op_result(op, i)));
    if (!final[i]) return not_a_tile(op);
    types[i] = tile_like(op, pto_pto_tile_elem(final[i]), p * c, 1);
  }
  PtoOpState st;
  pto_op_state_init(&st, pto_op_ctx(op), row, pto_op_loc(op));
  pto_op_state_add_operand(&st, xt);
  pto_op_state_add_results(&st, types, nres);
  PtoOp *red_op = pto_op_create(&st);
  pto_block_insert_before(op, red_op);
  PtoOp *lasts[2];
  for (unsigned i = 0; i < nres; i++)
    lasts[i] = permute(L, op, pto_op_result(red_op, i), red, swap, 3, final[i]);
  pto_lower_finish_results(L, op, lasts);
  return PTO_SUCCESS;
}

/* tile.expand whose operand, flattened, has neither the result's rows nor
 * one row: a leading dim of 1 broadcast inside the rows (3x1x7 to 3x5x7)
 * is trepeat of the operand seen as its buffer (of the result's rank). */
static PtoResult lower_expand(Lower *L, PtoOp *op, bool *done) {
  PtoType *out = pto_value_type(pto_op_result(op, 0));
  PtoType *in = pto_lower_operand_buffer(L, op);
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *t = pto_lower_tile_type(L, out);
  if (!t || !in || !pto_type_is_block_buf(in) || !vec_tile(x)) return PTO_SUCCESS;
  PtoType *tx = pto_value_type(x);
  int64_t ar = pto_pto_tile_rows(tx), ac = pto_pto_tile_cols(tx);
  if ((ar == 1 || ar == pto_pto_tile_rows(t)) && (ac == 1 || ac == pto_pto_tile_cols(t)))
    return PTO_SUCCESS; /* texpand's (LowerElementwise.c) */
  unsigned k = pto_tile_rank(out);
  if (pto_tile_rank(in) != k) return PTO_SUCCESS;
  int64_t shape[PTO_TILE_MAX_RANK], repeats[PTO_TILE_MAX_RANK];
  for (unsigned d = 0; d < k; d++) {
    shape[d] = pto_tile_dim(in, d);
    repeats[d] = shape[d] == 1 ? pto_tile_dim(out, d) : 1;
  }
  *done = true;
  PtoOp *rep = pto_lower_build(L, op, "pto.trepeat", &x, 1, t);
  pto_op_set_attr(rep, "shape", ints(op, shape, k));
  pto_op_set_attr(rep, "repeats", ints(op, repeats, k));
  pto_lower_finish(L, op, rep);
  return PTO_SUCCESS;
}

PtoResult pto_lower_plane_colexpand(Lower *L, PtoOp *op, const char *binary) {
  PtoType *out = pto_value_type(pto_op_result(op, 0));
  PtoType *t = pto_lower_tile_type(L, out);
  PtoValue *a = pto_op_operand(op, 0), *b = pto_op_operand(op, 1);
  if (!t || !pto_type_is_block_buf(out) || !vec_tile(a) || !vec_tile(b))
    return not_a_tile(op);
  /* b is a's shape with the second-to-last dim 1: P planes of one row,
   * each repeated down its plane's m rows */
  unsigned k = pto_tile_rank(out);
  int64_t m = pto_tile_dim(out, k - 2), n = pto_tile_dim(out, k - 1);
  const int64_t shape[3] = {pto_pto_tile_rows(t) / m, 1, n}, repeats[3] = {1, m, 1};
  PtoOp *rep = pto_lower_build(L, op, "pto.trepeat", &b, 1, t);
  pto_op_set_attr(rep, "shape", ints(op, shape, 3));
  pto_op_set_attr(rep, "repeats", ints(op, repeats, 3));
  PtoValue *ops[2] = {a, pto_op_result(rep, 0)};
  pto_lower_finish(L, op, pto_lower_build(L, op, binary, ops, 2, t));
  return PTO_SUCCESS;
}

PtoResult pto_lower_layout(Lower *L, PtoOp *op, bool *done) {
  *done = false;
  if (pto_op_is(op, "tile.expand")) return lower_expand(L, op, done);
  return PTO_SUCCESS;
}
