/* tile-expand of shape and indexing ops. view becomes a window that its
 * consumers read through (tiles of a grid when the window lines up with it,
 * tile.view of the source with offset arithmetic otherwise, also inside
 * loops with dynamic offsets); assemble and concat write tiles into GM
 * tensors; reshape and bitcast are GM reshapes; transpose permutes tiles; gather,
 * index_select and scatter_update read and write GM per tile of indices. */
#include "TensorToTile.h"
#include "pto/Dialect/AttrNames.h"

#include <string.h>

/* The op's tile grid over `type`'s shape from its vec tile. */
static PtoResult vec_grid(Lowering *t, PtoType *type, int64_t *tsize,
                          unsigned *trank) {
  unsigned R = pto_type_tensor_rank(type), nvec;
  int64_t vec[4];
  if (lower_vec_tile(t, R, vec, &nvec)) return PTO_FAILURE;
  lower_vec_sizes(pto_type_tensor_shape(type), R, vec, nvec, tsize, trank);
  return PTO_SUCCESS;
}

static LowerOffset off_of(int64_t c, PtoValue *v) {
  return v ? (LowerOffset){0, v} : (LowerOffset){c, NULL};
}

static PtoResult expand_view(Lowering *t, PtoOp *op) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  LoweredValue *base = lower_lookup(t, x);
  LoweredValue *w = lower_new_val(t, LOWERED_WINDOW, rt);
  int64_t so[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned R = pto_pypto_get_offsets(op, so, dyn);
  for (unsigned d = 0; d < R; d++) w->offs[d] = off_of(so[d], dyn[d]);
  if (base->kind == LOWERED_WINDOW) {
    /* A window of a window reads the outer base directly. */
    for (unsigned d = 0; d < R; d++) {
      LowerOffset o = base->offs[d];
      w->offs[d].c += o.c;
      if (o.v)
        w->offs[d].v = w->offs[d].v
                           ? pto_arith_build_binary(&t->b, "arith.addi",
                                                    w->offs[d].v, o.v)
                           : o.v;
    }
    base = base->base;
  }
  w->base = base;
  if (lower_vec_tile(t, R, w->vec, &w->nvec)) return PTO_FAILURE;
  lower_bind(t, pto_op_result(op, 0), w);
  return PTO_SUCCESS;
}

/* Writes every tile of `v` (its own grid, or tiles of `tsize` read through
 * it) into `dst` at `base` + the tile's offset; returns the new tensor. */
static PtoValue *write_tiles(Lowering *t, LoweredValue *v, PtoValue *dst, const LowerOffset *base,
                             const int64_t *tsize, unsigned trank) {
  const TileGrid *g;
  LoweredValue *tmp = NULL;
  if (v->kind == LOWERED_GRID) {
    g = &v->grid;
  } else {
    tmp = lower_new_grid(t, v->type, tsize, trank);
    g = &tmp->grid;
  }
  unsigned R = g->rank;
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK], at[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  for (int64_t k = 0; k < g->ntiles; k++) {
    lower_cell(g, k, offs, sizes);
    PtoValue *tile = v->kind == LOWERED_GRID ? g->tiles[k]
                                        : lower_get_tile_at(t, v, offs, sizes, trank);
    for (unsigned d = 0; d < R; d++) {
      LowerOffset o = lower_off_add(t, base[d], offs[d]);
      at[d] = o.v ? PTO_DYN : o.c;
      dyn[d] = o.v ? lower_offset_value(t, o) : NULL;
    }
    dst = lower_assemble(t, tile, dst, at, dyn);
  }
  return dst;
}

static PtoResult expand_assemble(Lowering *t, PtoOp *op) {
  PtoValue *v = pto_op_operand(op, 0), *y = pto_op_operand(op, 1);
  PtoType *vt = pto_value_type(v);
  if (lower_require_static(t, vt, "operand #0")) return PTO_FAILURE;
  int64_t tsize[PTO_MAX_RANK], so[PTO_MAX_RANK];
  unsigned trank;
  if (vec_grid(t, vt, tsize, &trank)) return PTO_FAILURE;
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned R = pto_pypto_get_offsets(op, so, dyn);
  LowerOffset base[PTO_MAX_RANK];
  for (unsigned d = 0; d < R; d++) base[d] = off_of(so[d], dyn[d]);
  PtoValue *dst = lower_gm(t, lower_lookup(t, y));
  LoweredValue *r = lower_new_val(t, LOWERED_GM, pto_value_type(pto_op_result(op, 0)));
  r->gm = write_tiles(t, lower_lookup(t, v), dst, base, tsize, trank);
  lower_bind(t, pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

static PtoResult expand_concat(Lowering *t, PtoOp *op) {
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  unsigned n = pto_op_num_operands(op), d = pto_pypto_get_dim(op);
  char what[32];
  for (unsigned i = 0; i < n; i++) {
    snprintf(what, sizeof what, "operand #%u", i);
    if (lower_require_static(t, pto_value_type(pto_op_operand(op, i)), what))
      return PTO_FAILURE;
  }
  if (lower_require_static(t, rt, NULL)) return PTO_FAILURE;
  PtoValue *dst = lower_emit(t, PTO_TILE_EMPTY, NULL, 0, rt, NULL, 0);
  unsigned R = pto_type_tensor_rank(rt);
  LowerOffset base[PTO_MAX_RANK];
  for (unsigned i = 0; i < R; i++) base[i] = (LowerOffset){0, NULL};
  for (unsigned i = 0; i < n; i++) {
    PtoValue *v = pto_op_operand(op, i);
    int64_t tsize[PTO_MAX_RANK];
    unsigned trank;
    if (vec_grid(t, pto_value_type(v), tsize, &trank)) return PTO_FAILURE;
    dst = write_tiles(t, lower_lookup(t, v), dst, base, tsize, trank);
    base[d].c += pto_type_tensor_dim(pto_value_type(v), d);
  }
  LoweredValue *r = lower_new_val(t, LOWERED_GM, rt);
  r->gm = dst;
  lower_bind(t, pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

/* reshape and bitcast: the same bytes of the tensor in GM, seen as
 * another tensor type. */
static PtoResult expand_reshape(Lowering *t, PtoOp *op, PtoTileOp id) {
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  PtoValue *src = lower_gm(t, lower_lookup(t, pto_op_operand(op, 0)));
  LoweredValue *r = lower_new_val(t, LOWERED_GM, rt);
  r->gm = src;
  if (pto_value_type(src) != rt)
    r->gm = lower_emit(t, id, &src, 1, rt, NULL, 0);
  lower_bind(t, pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

static PtoResult expand_dim(Lowering *t, PtoOp *op) {
  PtoValue *x = pto_op_operand(op, 0);
  unsigned d = pto_pypto_get_dim(op);
  int64_t size = pto_type_tensor_dim(pto_value_type(x), d);
  PtoValue *r;
  if (size != PTO_DYN) {
    r = lower_const_index(t, size);
  } else {
    PtoValue *gm = lower_gm(t, lower_lookup(t, x));
    PtoNamedAttr a = {t->id_dim, pto_attr_i64(t->ctx, d)};
    r = lower_emit(t, PTO_TILE_DIM, &gm, 1, pto_type_index(t->ctx), &a, 1);
  }
  pto_value_replace_all_uses(pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

/* load_scalar reads GM: a window's element is its base's at the window's
 * offset plus the index, so a view of an input costs no copy. */
static PtoResult expand_load_scalar(Lowering *t, PtoOp *op) {
  LoweredValue *x = lower_lookup(t, pto_op_operand(op, 0));
  int64_t so[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned R = pto_pypto_get_offsets(op, so, dyn);
  LowerOffset at[PTO_MAX_RANK];
  for (unsigned d = 0; d < R; d++) at[d] = off_of(dyn[d] ? 0 : so[d], dyn[d]);
  if (x->kind == LOWERED_WINDOW) {
    for (unsigned d = 0; d < R; d++) {
      LowerOffset o = x->offs[d];
      at[d].c += o.c;
      if (o.v)
        at[d].v = at[d].v ? pto_arith_build_binary(&t->b, "arith.addi", at[d].v, o.v) : o.v;
    }
    x = x->base;
  }
  PtoValue *ops[PTO_MAX_RANK + 1];
  unsigned n = 0;
  ops[n++] = lower_gm(t, x);
  int64_t st[PTO_MAX_RANK];
  for (unsigned d = 0; d < R; d++) {
    st[d] = at[d].v ? PTO_DYN : at[d].c;
    if (at[d].v) ops[n++] = lower_offset_value(t, at[d]);
  }
  PtoNamedAttr a = {t->id_offsets, pto_attr_i64_array(t->ctx, st, R)};
  PtoValue *r = lower_emit(t, PTO_TILE_LOAD_SCALAR, ops, n, pto_type_index(t->ctx), &a, 1);
  pto_value_replace_all_uses(pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

/* transpose: a tile of the result is the transposed tile of the permuted
 * window of the operand. With more than 4 dims the tiles keep to the last
 * four and every dim the permutation moves across them is tiled by 1. */
static PtoResult expand_transpose(Lowering *t, PtoOp *op) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  if (lower_require_static(t, pto_value_type(x), "operand #0") ||
      lower_require_static(t, rt, NULL))
    return PTO_FAILURE;
  int64_t perm[PTO_MAX_RANK], tsize[PTO_MAX_RANK];
  unsigned R = pto_pypto_get_perm(op, perm), trank;
  if (vec_grid(t, rt, tsize, &trank)) return PTO_FAILURE;
  unsigned lo = R > PTO_TILE_MAX_RANK ? R - PTO_TILE_MAX_RANK : 0;
  trank = R - lo ? R - lo : 1;
  for (unsigned i = 0; i < R; i++)
    if (i < lo || (unsigned)perm[i] < lo) tsize[i] = 1;
  /* The permutation of the tile dims: output tile dim j holds input tile
   * dim perm[lo + j] - lo; dims that come from outside the tile (extent 1)
   * take the input tile dims left over, in order. */
  int64_t tperm[PTO_TILE_MAX_RANK];
  bool used[PTO_TILE_MAX_RANK] = {false};
  bool identity = true;
  for (unsigned j = 0; j < R - lo; j++) {
    tperm[j] = (unsigned)perm[lo + j] >= lo ? perm[lo + j] - (int64_t)lo : -1;
    if (tperm[j] >= 0) used[tperm[j]] = true;
  }
  for (unsigned j = 0, f = 0; j < R - lo; j++) {
    if (tperm[j] >= 0) continue;
    while (used[f]) f++;
    tperm[j] = f;
    used[f] = true;
  }
  for (unsigned j = 0; j < R - lo; j++) identity &= tperm[j] == (int64_t)j;
  LoweredValue *res = lower_new_grid(t, rt, tsize, trank);
  LoweredValue *xv = lower_lookup(t, x);
  PtoNamedAttr pa = {t->id_perm, pto_attr_i64_array(t->ctx, tperm, R - lo)};
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK], io[PTO_MAX_RANK],
      is[PTO_MAX_RANK];
  PtoType *elem = pto_type_tensor_elem(rt);
  for (int64_t k = 0; k < res->grid.ntiles; k++) {
    lower_cell(&res->grid, k, offs, sizes);
    for (unsigned i = 0; i < R; i++) {
      io[perm[i]] = offs[i];
      is[perm[i]] = sizes[i];
    }
    PtoValue *in = lower_get_tile_at(t, xv, io, is, trank);
    PtoType *rtile = lower_tile_type(t, sizes, R, trank, elem);
    res->grid.tiles[k] = identity || R == 0
                             ? lower_reshape(t, in, rtile)
                             : lower_emit(t, PTO_TILE_TRANSPOSE, &in, 1, rtile, &pa, 1);
  }
  lower_mark_grid(t, res, 0);
  lower_bind(t, pto_op_result(op, 0), res);
  return PTO_SUCCESS;
}

PtoResult lower_shape(Lowering *t, PtoOp *op) {
  switch (pto_pypto_kind(pto_pypto_op_id(op))) {
  case PTO_PYPTO_KIND_VIEW: return expand_view(t, op);
  case PTO_PYPTO_KIND_ASSEMBLE: return expand_assemble(t, op);
  case PTO_PYPTO_KIND_CONCAT: return expand_concat(t, op);
  case PTO_PYPTO_KIND_RESHAPE: return expand_reshape(t, op, PTO_TILE_TENSOR_RESHAPE);
  case PTO_PYPTO_KIND_BITCAST: return expand_reshape(t, op, PTO_TILE_TENSOR_BITCAST);
  case PTO_PYPTO_KIND_DIM: return expand_dim(t, op);
  case PTO_PYPTO_KIND_LOAD_SCALAR: return expand_load_scalar(t, op);
  default: return expand_transpose(t, op);
  }
}

/* ---- gather, index_select, scatter_update ---- */

/* A GM-addressing tile op (gather, index_select, scatter) at offsets
 * `offs` of the tensor; the offset along `dim` is 0. `extra` (may be NULL)
 * is one more attribute the op carries over from the Tensor level. */
static PtoValue *emit_indexed(Lowering *t, PtoTileOp id, PtoValue *const *lead,
                              unsigned nlead, const int64_t *offs, unsigned R,
                              unsigned dim, PtoType *res, const PtoNamedAttr *extra) {
  int64_t o[PTO_MAX_RANK];
  memcpy(o, offs, R * sizeof *o);
  o[dim] = 0;
  PtoNamedAttr a[3] = {{t->id_offsets, pto_attr_i64_array(t->ctx, o, R)},
                       {t->id_dim, pto_attr_i64(t->ctx, dim)}};
  if (extra) a[2] = *extra;
  return lower_emit(t, id, lead, nlead, res, a, extra ? 3 : 2);
}

/* scatter: tiles of the index and the same windows of src, in row-major
 * tile order, each a tile.scatter_elements into the GM tensor; the input's
 * `dim` stays whole, since an index may name any position along it. */
static PtoResult lower_scatter_elements(Lowering *t, PtoOp *op, unsigned dim) {
  PtoValue *index = pto_op_operand(op, 1), *src = pto_op_operand(op, 2);
  PtoType *it = pto_value_type(index);
  unsigned R = pto_type_tensor_rank(it), trank;
  int64_t tsize[PTO_MAX_RANK], offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  if (lower_require_static(t, pto_value_type(src), "operand #2") ||
      vec_grid(t, it, tsize, &trank))
    return PTO_FAILURE;
  PtoValue *gm = lower_gm(t, lower_lookup(t, pto_op_operand(op, 0)));
  LoweredValue *grid = lower_new_grid(t, it, tsize, trank);
  LoweredValue *iv = lower_lookup(t, index), *sv = lower_lookup(t, src);
  PtoAttr *reduce = pto_op_named_attr(op, PTO_ATTR_ID_REDUCE);
  for (int64_t k = 0; k < grid->grid.ntiles; k++) {
    lower_cell(&grid->grid, k, offs, sizes);
    PtoValue *ops[3] = {lower_get_tile_at(t, sv, offs, sizes, trank), gm,
                        lower_get_tile_at(t, iv, offs, sizes, trank)};
    int64_t o[PTO_MAX_RANK];
    memcpy(o, offs, R * sizeof *o);
    o[dim] = 0;
    PtoNamedAttr a[3] = {{t->id_offsets, pto_attr_i64_array(t->ctx, o, R)},
                         {t->id_dim, pto_attr_i64(t->ctx, dim)},
                         {pto_ident_cstr(t->ctx, PTO_ATTR_REDUCE), reduce}};
    gm = lower_emit(t, PTO_TILE_SCATTER_ELEMENTS, ops, 3, pto_value_type(gm), a,
                    reduce ? 3 : 2);
  }
  LoweredValue *r = lower_new_val(t, LOWERED_GM, pto_value_type(pto_op_result(op, 0)));
  r->gm = gm;
  lower_bind(t, pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

PtoResult lower_index(Lowering *t, PtoOp *op) {
  PtoPyptoKind kind = pto_pypto_kind(pto_pypto_op_id(op));
  PtoValue *x = pto_op_operand(op, 0), *index = pto_op_operand(op, 1);
  unsigned dim = pto_pypto_get_dim(op);
  unsigned R = pto_type_tensor_rank(pto_value_type(x));
  if (lower_require_static(t, pto_value_type(index), "operand #1"))
    return PTO_FAILURE;
  if (pto_pypto_op_id(op) == PTO_PYPTO_SCATTER) return lower_scatter_elements(t, op, dim);
  LoweredValue *iv = lower_lookup(t, index);
  PtoValue *gm = lower_gm(t, lower_lookup(t, x));
  int64_t tsize[PTO_MAX_RANK], offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  unsigned trank;

  if (kind == PTO_PYPTO_KIND_SCATTER) {
    PtoValue *src = pto_op_operand(op, 2);
    PtoType *st = pto_value_type(src);
    if (lower_require_static(t, st, "operand #2") || vec_grid(t, st, tsize, &trank))
      return PTO_FAILURE;
    /* Row-major over src: for one region, lower positions along dim come
     * first, so a later duplicate index still wins. */
    LoweredValue *grid = lower_new_grid(t, st, tsize, trank), *sv = lower_lookup(t, src);
    /* index_add's `ub` (operands on chip) stays on each of its tiles */
    bool add = pto_pypto_op_id(op) == PTO_PYPTO_INDEX_ADD;
    PtoAttr *ub = add ? pto_op_named_attr(op, PTO_ATTR_ID_UB) : NULL;
    PtoNamedAttr ub_attr = {pto_ident_cstr(t->ctx, PTO_ATTR_UB), ub};
    for (int64_t k = 0; k < grid->grid.ntiles; k++) {
      lower_cell(&grid->grid, k, offs, sizes);
      PtoValue *ops[3];
      ops[0] = lower_get_tile_at(t, sv, offs, sizes, trank);
      ops[1] = gm;
      ops[2] = lower_get_tile_at(t, iv, &offs[dim], &sizes[dim], 1);
      gm = emit_indexed(t, add ? PTO_TILE_INDEX_ADD : PTO_TILE_SCATTER, ops, 3, offs, R, dim,
                        pto_value_type(gm), ub ? &ub_attr : NULL);
    }
    LoweredValue *r = lower_new_val(t, LOWERED_GM, pto_value_type(pto_op_result(op, 0)));
    r->gm = gm;
    lower_bind(t, pto_op_result(op, 0), r);
    return PTO_SUCCESS;
  }

  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  if (lower_require_static(t, rt, NULL) || vec_grid(t, rt, tsize, &trank))
    return PTO_FAILURE;
  LoweredValue *res = lower_new_grid(t, rt, tsize, trank);
  PtoType *elem = pto_type_tensor_elem(rt);
  for (int64_t k = 0; k < res->grid.ntiles; k++) {
    lower_cell(&res->grid, k, offs, sizes);
    PtoType *rtile = lower_tile_type(t, sizes, R, trank, elem);
    PtoValue *ops[2] = {gm, NULL};
    if (kind == PTO_PYPTO_KIND_GATHER) {
      ops[1] = lower_get_tile_at(t, iv, offs, sizes, trank);
      res->grid.tiles[k] =
          emit_indexed(t, PTO_TILE_GATHER, ops, 2, offs, R, dim, rtile, NULL);
    } else {
      ops[1] = lower_get_tile_at(t, iv, &offs[dim], &sizes[dim], 1);
      res->grid.tiles[k] =
          emit_indexed(t, PTO_TILE_INDEX_SELECT, ops, 2, offs, R, dim, rtile, NULL);
    }
  }
  lower_mark_grid(t, res, 0);
  lower_bind(t, pto_op_result(op, 0), res);
  return PTO_SUCCESS;
}
