/* tile-expand of reductions, topk and quantize: each tile along the
 * reduced dim gives a partial result, and partials are combined by a
 * balanced tree of tile ops (in index order, so that the first of equal
 * candidates wins where that matters).
 *
 * The reduced dim decides the tile op: the last dim uses the row forms
 * (rowsum, rowargmax), the second-to-last the column forms; any other dim
 * is tiled with extent 1 so that each tile is one slice, and slices are
 * combined elementwise (add, maximum, argmax_combine with constant index
 * tiles). */
#include "TensorToTile.h"

#include <string.h>

typedef struct Partial {
  PtoValue *v; /* values (or the only result) */
  PtoValue *i; /* i32 indices, for argmax / argmin / topk */
} Partial;

typedef enum RedForm { RED_ROW, RED_COL, RED_SLICE } RedForm;

/* The iteration grid of a reduction over x: x's shape tiled by the op's vec
 * tile, with the reduced dim in the tile (row/column forms) or tiled by 1. */
static PtoResult reduce_grid(Lowering *t, PtoType *xt, unsigned d, RedForm *form,
                             int64_t *tsize, unsigned *trank) {
  unsigned R = pto_type_tensor_rank(xt), nvec;
  int64_t vec[4];
  if (lower_vec_tile(t, R, vec, &nvec)) return PTO_FAILURE;
  lower_vec_sizes(pto_type_tensor_shape(xt), R, vec, nvec, tsize, trank);
  if (d == R - 1) *form = RED_ROW;
  else if (d == R - 2) *form = RED_COL;
  else *form = RED_SLICE;
  if (*form == RED_SLICE) tsize[d] = 1;
  else if (*trank < R - d) *trank = R - d;
  return PTO_SUCCESS;
}

/* The window of tile j along dim d of a grid over `shape`. */
static void along(const int64_t *shape, const int64_t *tsize, unsigned d,
                  int64_t j, int64_t *offs, int64_t *sizes) {
  offs[d] = j * tsize[d];
  int64_t rest = shape[d] - offs[d];
  sizes[d] = rest < tsize[d] ? rest : tsize[d];
}

static int64_t count_along(const int64_t *shape, const int64_t *tsize,
                           unsigned d) {
  return (shape[d] + tsize[d] - 1) / tsize[d];
}

/* The tile j along dim d of x (a grid over x's `shape` with tiles of
 * `tsize`) in the row/column/slice of the cell offs/sizes; its offset along
 * d in *off and its window sizes in ws. */
static PtoValue *tile_along(Lowering *t, LoweredValue *xv, const int64_t *shape,
                            const int64_t *tsize, unsigned d, int64_t j,
                            const int64_t *offs, const int64_t *sizes,
                            unsigned trank, int64_t *off, int64_t *ws) {
  unsigned R = pto_type_tensor_rank(xv->type);
  int64_t wo[PTO_MAX_RANK];
  memcpy(wo, offs, R * sizeof *wo);
  memcpy(ws, sizes, R * sizeof *ws);
  along(shape, tsize, d, j, wo, ws);
  *off = wo[d];
  return lower_get_tile_at(t, xv, wo, ws, trank);
}

/* i + off as an i32 tile (local positions made global). */
static PtoValue *shift_index(Lowering *t, PtoValue *i, int64_t off) {
  if (!off) return i;
  PtoValue *ops[2] = {i, lower_const_scalar(t, pto_type_int(t->ctx, 32), 0, off)};
  return lower_emit(t, PTO_TILE_ADDS, ops, 2, pto_value_type(i), NULL, 0);
}

/* Pairwise tree over p[0..n): left operands cover lower indices. */
typedef Partial (*CombineFn)(Lowering *t, Partial a, Partial b, void *user);

static Partial tree(Lowering *t, Partial *p, int64_t n, CombineFn fn, void *user) {
  while (n > 1) {
    int64_t m = 0;
    for (int64_t i = 0; i + 1 < n; i += 2) p[m++] = fn(t, p[i], p[i + 1], user);
    if (n % 2) p[m++] = p[n - 1];
    n = m;
  }
  return p[0];
}

/* ---- sum, amax, amin, prod, argmax, argmin ---- */

typedef struct RedKind {
  PtoTileOp row, col, combine; /* combine: binary op or *_combine */
  bool arg;
} RedKind;

static RedKind red_kind(PtoPyptoOp id) {
  switch (id) {
  case PTO_PYPTO_SUM: return (RedKind){PTO_TILE_ROWSUM, PTO_TILE_COLSUM, PTO_TILE_ADD, false};
  case PTO_PYPTO_AMAX: return (RedKind){PTO_TILE_ROWMAX, PTO_TILE_COLMAX, PTO_TILE_MAXIMUM, false};
  case PTO_PYPTO_AMIN: return (RedKind){PTO_TILE_ROWMIN, PTO_TILE_COLMIN, PTO_TILE_MINIMUM, false};
  case PTO_PYPTO_PROD: return (RedKind){PTO_TILE_ROWPROD, PTO_TILE_COLPROD, PTO_TILE_MUL, false};
  case PTO_PYPTO_ARGMAX:
    return (RedKind){PTO_TILE_ROWARGMAX, PTO_TILE_COLARGMAX, PTO_TILE_ARGMAX_COMBINE, true};
  default:
    return (RedKind){PTO_TILE_ROWARGMIN, PTO_TILE_COLARGMIN, PTO_TILE_ARGMIN_COMBINE, true};
  }
}

static Partial combine_red(Lowering *t, Partial a, Partial b, void *user) {
  const RedKind *rk = user;
  if (!rk->arg) {
    PtoValue *ops[2] = {a.v, b.v};
    return (Partial){lower_emit(t, rk->combine, ops, 2, pto_value_type(a.v), NULL, 0),
                     NULL};
  }
  PtoValue *ops[4] = {a.v, a.i, b.v, b.i};
  PtoType *res[2] = {pto_value_type(a.v), pto_value_type(a.i)};
  PtoOp *o = lower_emit_op(t, rk->combine, ops, 4, res, 2, NULL, 0);
  return (Partial){pto_op_result(o, 0), pto_op_result(o, 1)};
}

/* The grid of a reduction result: keepdim keeps dim d with size 1, else it
 * is dropped (and the tiles lose it too). */
static LoweredValue *result_grid(Lowering *t, PtoType *rt, const int64_t *tsize,
                          unsigned trank, unsigned R, unsigned d, bool keep,
                          unsigned *rtrank) {
  int64_t rs[PTO_MAX_RANK];
  unsigned n = 0;
  for (unsigned i = 0; i < R; i++) {
    if (i == d && !keep) continue;
    rs[n++] = i == d ? 1 : tsize[i];
  }
  *rtrank = trank;
  if (!keep) {
    if (d + trank >= R && trank > 1) *rtrank = trank - 1;
    if (*rtrank > n && n) *rtrank = n;
  }
  return lower_new_grid(t, rt, rs, *rtrank);
}

PtoResult lower_reduce(Lowering *t, PtoOp *op) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *xt = pto_value_type(x), *rt = pto_value_type(pto_op_result(op, 0));
  if (lower_require_static(t, xt, "operand #0")) return PTO_FAILURE;
  unsigned R = pto_type_tensor_rank(xt), d = pto_pypto_get_dim(op), trank;
  bool keep = pto_pypto_get_keepdim(op);
  RedForm form;
  int64_t tsize[PTO_MAX_RANK];
  if (reduce_grid(t, xt, d, &form, tsize, &trank)) return PTO_FAILURE;
  RedKind rk = red_kind(pto_pypto_op_id(op));
  const int64_t *shape = pto_type_tensor_shape(xt);
  LoweredValue *xv = lower_lookup(t, x);
  unsigned rtrank;
  LoweredValue *res = result_grid(t, rt, tsize, trank, R, d, keep, &rtrank);
  int64_t nj = count_along(shape, tsize, d);
  Partial *parts = pto_arena_alloc(&t->arena, (size_t)nj * sizeof *parts);
  PtoType *i32 = pto_type_int(t->ctx, 32);

  /* Cells of the keepdim grid, in the same order as the result's. */
  TileGrid kg;
  memset(&kg, 0, sizeof kg);
  kg.rank = R;
  kg.ntiles = 1;
  for (unsigned i = 0; i < R; i++) {
    kg.shape[i] = i == d ? 1 : shape[i];
    kg.tsize[i] = i == d ? 1 : tsize[i];
    kg.count[i] = (kg.shape[i] + kg.tsize[i] - 1) / kg.tsize[i];
    kg.ntiles *= kg.count[i];
  }
  /* every input tile is read once: the result's cells times those along d */
  if (lower_check_tiles(t, kg.count, R, nj)) return PTO_FAILURE;
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (int64_t k = 0; k < kg.ntiles; k++) {
    lower_cell(&kg, k, offs, sizes);
    for (int64_t j = 0; j < nj; j++) {
      int64_t off, ws[PTO_MAX_RANK];
      PtoValue *xt_ = tile_along(t, xv, shape, tsize, d, j, offs, sizes, trank,
                                 &off, ws);
      PtoType *pt = lower_tile_type(t, sizes, R, trank, pto_tile_elem(pto_value_type(xt_)));
      if (form == RED_SLICE) {
        parts[j].v = xt_;
        parts[j].i = rk.arg ? lower_emit(t, PTO_TILE_FULL,
                                      (PtoValue *[]){lower_const_scalar(t, i32, 0, off)},
                                      1, pto_tile_with_elem(pt, i32), NULL, 0)
                            : NULL;
        continue;
      }
      PtoTileOp rop = form == RED_ROW ? rk.row : rk.col;
      if (!rk.arg) {
        parts[j] = (Partial){lower_emit(t, rop, &xt_, 1, pt, NULL, 0), NULL};
      } else {
        PtoType *res2[2] = {pt, pto_tile_with_elem(pt, i32)};
        PtoOp *o = lower_emit_op(t, rop, &xt_, 1, res2, 2, NULL, 0);
        parts[j] = (Partial){pto_op_result(o, 0),
                             shift_index(t, pto_op_result(o, 1), off)};
      }
    }
    Partial p = tree(t, parts, nj, combine_red, &rk);
    PtoValue *final = rk.arg ? p.i : p.v;
    int64_t ro[PTO_MAX_RANK], rsz[PTO_MAX_RANK];
    lower_cell(&res->grid, k, ro, rsz);
    res->grid.tiles[k] = lower_reshape(
        t, final,
        lower_tile_type(t, rsz, res->grid.rank, rtrank, pto_type_tensor_elem(rt)));
  }
  lower_mark_grid(t, res, 0);
  lower_bind(t, pto_op_result(op, 0), res);
  return PTO_SUCCESS;
}

/* ---- topk: per-tile sort, then merges ---- */

typedef struct TopkCtx {
  int64_t k;
  bool largest;
} TopkCtx;

static PtoNamedAttr topk_attrs(Lowering *t, int64_t k, bool largest,
                               PtoNamedAttr *second) {
  *second = (PtoNamedAttr){t->id_largest, pto_attr_bool(t->ctx, largest)};
  return (PtoNamedAttr){t->id_k, pto_attr_i64(t->ctx, k)};
}

static Partial merge(Lowering *t, Partial a, Partial b, void *user) {
  const TopkCtx *c = user;
  PtoType *ta = pto_value_type(a.v), *tb = pto_value_type(b.v);
  unsigned last = pto_tile_rank(ta) - 1;
  int64_t avail = pto_tile_dim(ta, last) + pto_tile_dim(tb, last);
  int64_t k = c->k < avail ? c->k : avail;
  int64_t shape[PTO_TILE_MAX_RANK];
  memcpy(shape, pto_tile_shape(ta), (last + 1) * sizeof *shape);
  shape[last] = k;
  PtoType *res[2] = {pto_tile_type(t->ctx, shape, last + 1, pto_tile_elem(ta)),
                     pto_tile_type(t->ctx, shape, last + 1, pto_type_int(t->ctx, 32))};
  PtoNamedAttr attrs[2];
  attrs[0] = topk_attrs(t, k, c->largest, &attrs[1]);
  PtoValue *ops[4] = {a.v, a.i, b.v, b.i};
  PtoOp *o = lower_emit_op(t, PTO_TILE_TOPK_MERGE, ops, 4, res, 2, attrs, 2);
  return (Partial){pto_op_result(o, 0), pto_op_result(o, 1)};
}

/* tile.transpose swapping tile dims `a` and `b` (no-op when equal). */
static PtoValue *swap_dims(Lowering *t, PtoValue *v, unsigned a, unsigned b) {
  if (a == b) return v;
  PtoType *ty = pto_value_type(v);
  unsigned r = pto_tile_rank(ty);
  int64_t perm[PTO_TILE_MAX_RANK], shape[PTO_TILE_MAX_RANK];
  for (unsigned i = 0; i < r; i++) perm[i] = i;
  perm[a] = b;
  perm[b] = a;
  for (unsigned i = 0; i < r; i++) shape[i] = pto_tile_dim(ty, (unsigned)perm[i]);
  PtoNamedAttr at = {t->id_perm, pto_attr_i64_array(t->ctx, perm, r)};
  return lower_emit(t, PTO_TILE_TRANSPOSE, &v, 1,
                 pto_tile_type(t->ctx, shape, r, pto_tile_elem(ty)), &at, 1);
}

PtoResult lower_topk(Lowering *t, PtoOp *op) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *xt = pto_value_type(x);
  if (lower_require_static(t, xt, "operand #0")) return PTO_FAILURE;
  unsigned R = pto_type_tensor_rank(xt), d = pto_pypto_get_dim(op), nvec, trank;
  int64_t vec[4], tsize[PTO_MAX_RANK];
  if (lower_vec_tile(t, R, vec, &nvec)) return PTO_FAILURE;
  const int64_t *shape = pto_type_tensor_shape(xt);
  lower_vec_sizes(shape, R, vec, nvec, tsize, &trank);
  if (R - d > PTO_TILE_MAX_RANK)
    return lower_error(t, "topk along dim %u of a rank-%u tensor needs %u tile "
                       "dims; tiles have at most %u (transpose the dim "
                       "towards the end first)",
                    d, R, R - d, PTO_TILE_MAX_RANK);
  if (trank < R - d) trank = R - d;
  TopkCtx c = {pto_pypto_get_k(op), pto_pypto_get_largest(op)};
  unsigned td = trank - (R - d), last = trank - 1; /* d's tile dim */

  int64_t rts[PTO_MAX_RANK];
  memcpy(rts, tsize, R * sizeof *rts);
  rts[d] = c.k;
  LoweredValue *vals = lower_new_grid(t, pto_value_type(pto_op_result(op, 0)), rts, trank);
  LoweredValue *idxs = lower_new_grid(t, pto_value_type(pto_op_result(op, 1)), rts, trank);
  LoweredValue *xv = lower_lookup(t, x);
  int64_t nj = count_along(shape, tsize, d);
  Partial *parts = pto_arena_alloc(&t->arena, (size_t)nj * sizeof *parts);
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (int64_t k = 0; k < vals->grid.ntiles; k++) {
    lower_cell(&vals->grid, k, offs, sizes);
    for (int64_t j = 0; j < nj; j++) {
      int64_t off, ws[PTO_MAX_RANK];
      PtoValue *xt_ = swap_dims(t,
                                tile_along(t, xv, shape, tsize, d, j, offs, sizes,
                                           trank, &off, ws),
                                td, last);
      PtoType *ty = pto_value_type(xt_);
      int64_t kj = c.k < ws[d] ? c.k : ws[d];
      int64_t s[PTO_TILE_MAX_RANK];
      memcpy(s, pto_tile_shape(ty), trank * sizeof *s);
      s[last] = kj;
      PtoType *res[2] = {pto_tile_type(t->ctx, s, trank, pto_tile_elem(ty)),
                         pto_tile_type(t->ctx, s, trank, pto_type_int(t->ctx, 32))};
      PtoNamedAttr attrs[2];
      attrs[0] = topk_attrs(t, kj, c.largest, &attrs[1]);
      PtoOp *o = lower_emit_op(t, PTO_TILE_TOPK, &xt_, 1, res, 2, attrs, 2);
      parts[j] = (Partial){pto_op_result(o, 0),
                           shift_index(t, pto_op_result(o, 1), off)};
    }
    Partial p = tree(t, parts, nj, merge, &c);
    vals->grid.tiles[k] = swap_dims(t, p.v, td, last);
    idxs->grid.tiles[k] = swap_dims(t, p.i, td, last);
  }
  lower_mark_grid(t, vals, 0);
  lower_mark_grid(t, idxs, 1);
  lower_bind(t, pto_op_result(op, 0), vals);
  lower_bind(t, pto_op_result(op, 1), idxs);
  return PTO_SUCCESS;
}

/* ---- quantize: per-row scales from a max tree, then per-tile int8 ---- */

static Partial combine_max(Lowering *t, Partial a, Partial b, void *user) {
  (void)user;
  PtoValue *ops[2] = {a.v, b.v};
  return (Partial){lower_emit(t, PTO_TILE_MAXIMUM, ops, 2, pto_value_type(a.v), NULL, 0),
                   NULL};
}

PtoResult lower_quantize(Lowering *t, PtoOp *op) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *xt = pto_value_type(x);
  if (lower_require_static(t, xt, "operand #0")) return PTO_FAILURE;
  unsigned R = pto_type_tensor_rank(xt), d = R - 1, trank;
  RedForm form;
  int64_t tsize[PTO_MAX_RANK];
  if (reduce_grid(t, xt, d, &form, tsize, &trank)) return PTO_FAILURE;
  const int64_t *shape = pto_type_tensor_shape(xt);
  PtoType *f32 = pto_type_f32(t->ctx);
  LoweredValue *q = lower_new_grid(t, pto_value_type(pto_op_result(op, 0)), tsize, trank);
  int64_t sts[PTO_MAX_RANK];
  memcpy(sts, tsize, R * sizeof *sts);
  sts[d] = 1;
  LoweredValue *sc = lower_new_grid(t, pto_value_type(pto_op_result(op, 1)), sts, trank);
  LoweredValue *xv = lower_lookup(t, x);
  int64_t nj = count_along(shape, tsize, d);
  Partial *parts = pto_arena_alloc(&t->arena, (size_t)nj * sizeof *parts);
  PtoValue **xtiles = pto_arena_alloc(&t->arena, (size_t)nj * sizeof *xtiles);
  PtoValue *c127 = lower_const_scalar(t, f32, 127.0, 0);
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (int64_t k = 0; k < sc->grid.ntiles; k++) {
    lower_cell(&sc->grid, k, offs, sizes);
    for (int64_t j = 0; j < nj; j++) {
      int64_t off, ws[PTO_MAX_RANK];
      xtiles[j] = tile_along(t, xv, shape, tsize, d, j, offs, sizes, trank, &off,
                             ws);
      PtoType *ty = pto_value_type(xtiles[j]);
      PtoValue *a = lower_emit(t, PTO_TILE_ABS, &xtiles[j], 1, ty, NULL, 0);
      parts[j] = (Partial){lower_emit(t, PTO_TILE_ROWMAX, &a, 1,
                                   lower_tile_type(t, sizes, R, trank, pto_tile_elem(ty)),
                                   NULL, 0),
                           NULL};
    }
    PtoValue *m = tree(t, parts, nj, combine_max, NULL).v;
    PtoType *mf = pto_tile_with_elem(pto_value_type(m), f32);
    if (pto_value_type(m) != mf) m = lower_emit(t, PTO_TILE_CAST, &m, 1, mf, NULL, 0);
    PtoValue *ops[2] = {m, c127};
    PtoValue *s = lower_emit(t, PTO_TILE_DIVS, ops, 2, mf, NULL, 0);
    sc->grid.tiles[k] = s;
    /* The q tiles of this row block are cells k * nj + j of q's grid. */
    for (int64_t j = 0; j < nj; j++) {
      PtoValue *qo[2] = {xtiles[j], s};
      q->grid.tiles[k * nj + j] =
          lower_emit(t, PTO_TILE_QUANTIZE, qo, 2,
                  pto_tile_with_elem(pto_value_type(xtiles[j]),
                                     pto_type_int(t->ctx, 8)),
                  NULL, 0);
    }
  }
  lower_mark_grid(t, q, 0);
  lower_mark_grid(t, sc, 1);
  lower_bind(t, pto_op_result(op, 0), q);
  lower_bind(t, pto_op_result(op, 1), sc);
  return PTO_SUCCESS;
}
