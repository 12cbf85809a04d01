/* tile-expand of the ops that map element to element: unary, cast, binary
 * with broadcasting, tensor-scalar, compare, where, expand, full, zeros,
 * uniform / normal (each tile the window of the stream at its offsets) and
 * dequantize. The result is tiled by the op's vec tile; each operand gives
 * the tile of its (broadcast) window, and size-1 broadcast dims become row
 * or column expand ops, or tile.expand. */
#include "TensorToTile.h"
#include "pto/Dialect/AttrNames.h"

#include <string.h>

/* The tile of tensor operand `v` for the result window offs/sizes (rank R):
 * size-1 dims of the operand that the result stretches read offset 0. */
static PtoValue *bcast_tile(Lowering *t, LoweredValue *v, const int64_t *rshape,
                            unsigned R, const int64_t *offs,
                            const int64_t *sizes, unsigned trank) {
  unsigned Ro = pto_type_tensor_rank(v->type);
  int64_t o[PTO_MAX_RANK], s[PTO_MAX_RANK];
  for (unsigned j = 0; j < Ro; j++) {
    unsigned i = j + R - Ro;
    if (pto_type_tensor_dim(v->type, j) == 1 && rshape[i] != 1) {
      o[j] = 0;
      s[j] = 1;
    } else {
      o[j] = offs[i];
      s[j] = sizes[i];
    }
  }
  return lower_get_tile_at(t, v, o, s, trank);
}

/* The tile op a pypto op of the shared rows (UnaryOps.def, BinaryOps.def)
 * becomes: the row's op at the Tile level, by id. Ids are stored + 1. */
static PtoTileOp same_row(PtoPyptoOp id) {
  static const unsigned short tile_of[PTO_PYPTO_NUM_OPS] = {
#define PTO_UNARY_OP(ID, ...) [PTO_PYPTO_##ID] = PTO_TILE_##ID + 1,
#include "pto/UnaryOps.def"
#define PTO_BINARY_OP(ID, ...) [PTO_PYPTO_##ID] = PTO_TILE_##ID + 1,
#define PTO_BINARY_SCALAR(ID, ...) [PTO_PYPTO_##ID] = PTO_TILE_##ID + 1,
#define PTO_BINARY_COMPARE(ID, ...) [PTO_PYPTO_##ID] = PTO_TILE_##ID + 1,
#include "pto/BinaryOps.def"
      [PTO_PYPTO_WHERE] = PTO_TILE_WHERE + 1,
  };
  return (unsigned)id < PTO_PYPTO_NUM_OPS && tile_of[id] ? (PtoTileOp)(tile_of[id] - 1)
                                                         : PTO_TILE_NONE;
}

/* Copies the named attributes of the pypto op onto the tile op's list. */
static unsigned copy_attrs(Lowering *t, PtoOp *op, PtoIdent *const *names, unsigned n,
                           PtoNamedAttr *out) {
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++) {
    PtoAttr *a = pto_op_attr_id(op, names[i]);
    if (a) out[k++] = (PtoNamedAttr){names[i], a};
  }
  (void)t;
  return k;
}

PtoResult lower_elementwise(Lowering *t, PtoOp *op) {
  PtoPyptoOp id = pto_pypto_op_id(op);
  PtoPyptoKind kind = pto_pypto_kind(id);
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  unsigned m = pto_pypto_num_tensor_operands(op);
  char what[32];
  if (lower_require_static(t, rt, NULL)) return PTO_FAILURE;
  for (unsigned i = 0; i < m; i++) {
    snprintf(what, sizeof what, "operand #%u", i);
    if (lower_require_static(t, pto_value_type(pto_op_operand(op, i)), what))
      return PTO_FAILURE;
  }

  unsigned R = pto_type_tensor_rank(rt), nvec, trank;
  int64_t vec[4], tsize[PTO_MAX_RANK];
  if (lower_vec_tile(t, R, vec, &nvec)) return PTO_FAILURE;
  const int64_t *rshape = pto_type_tensor_shape(rt);
  lower_vec_sizes(rshape, R, vec, nvec, tsize, &trank);
  LoweredValue *res = lower_new_grid(t, rt, tsize, trank);
  PtoType *relem = pto_type_tensor_elem(rt);

  /* Operands: tensors by representation, scalars as they are. */
  LoweredValue *tv[3] = {NULL, NULL, NULL};
  PtoValue *sv[3] = {NULL, NULL, NULL};
  unsigned nops = m < 3 ? m : 3;
  for (unsigned i = 0; i < nops; i++) {
    PtoValue *v = pto_op_operand(op, i);
    if (pto_type_is_tensor(pto_value_type(v))) tv[i] = lower_lookup(t, v);
    else sv[i] = v;
  }

  PtoNamedAttr attrs[4];
  unsigned nattrs = 0;
  PtoTileOp tid = PTO_TILE_NONE;
  switch (kind) {
  case PTO_PYPTO_KIND_UNARY: {
    /* the tile op takes the pypto op's parameters (UnaryOps.def) */
    PtoIdent *names[3];
    unsigned n = 0;
    for (const char *const *a = pto_pypto_op_attrs(id); *a && n < 3; a++)
      names[n++] = pto_ident_cstr(pto_op_ctx(op), *a);
    tid = same_row(id);
    nattrs = copy_attrs(t, op, names, n, attrs);
    break;
  }
  case PTO_PYPTO_KIND_CAST: {
    PtoIdent *names[2] = {t->id_mode, t->id_satmode};
    tid = PTO_TILE_CAST;
    nattrs = copy_attrs(t, op, names, 2, attrs);
    break;
  }
  case PTO_PYPTO_KIND_FULL: tid = PTO_TILE_FULL; break;
  case PTO_PYPTO_KIND_ZEROS:
    tid = PTO_TILE_FULL;
    sv[0] = lower_const_scalar(t, relem, 0.0, 0);
    break;
  case PTO_PYPTO_KIND_EXPAND: break;
  case PTO_PYPTO_KIND_DEQUANTIZE: tid = PTO_TILE_DEQUANTIZE; break;
  case PTO_PYPTO_KIND_RANDOM: {
    PtoIdent *names[2] = {pto_ident_cstr(pto_op_ctx(op), PTO_ATTR_KEY),
                          pto_ident_cstr(pto_op_ctx(op), PTO_ATTR_COUNTER)};
    tid = id == PTO_PYPTO_UNIFORM ? PTO_TILE_UNIFORM : PTO_TILE_NORMAL;
    nattrs = copy_attrs(t, op, names, 2, attrs);
    attrs[nattrs++] = (PtoNamedAttr){pto_ident_cstr(pto_op_ctx(op), PTO_ATTR_FULL),
                                     pto_attr_i64_array(pto_op_ctx(op), rshape, R)};
    break;
  }
  default: tid = same_row(id); break;
  }
  if (tid == PTO_TILE_NONE && kind != PTO_PYPTO_KIND_EXPAND)
    return lower_error(t, "no tile op computes 'pypto.%s'", pto_pypto_mnemonic(id));

  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (int64_t k = 0; k < res->grid.ntiles; k++) {
    lower_cell(&res->grid, k, offs, sizes);
    PtoType *rtile = lower_tile_type(t, sizes, R, trank, relem);
    PtoValue *x[3];
    for (unsigned i = 0; i < nops; i++)
      x[i] = tv[i] ? bcast_tile(t, tv[i], rshape, R, offs, sizes, trank) : sv[i];
    PtoValue *out;
    switch (kind) {
    case PTO_PYPTO_KIND_BINARY: out = lower_binary(t, tid, x[0], x[1], rtile); break;
    case PTO_PYPTO_KIND_EXPAND: out = lower_expand_to(t, x[0], rtile); break;
    case PTO_PYPTO_KIND_FULL:
    case PTO_PYPTO_KIND_ZEROS: out = lower_emit(t, tid, sv, 1, rtile, NULL, 0); break;
    case PTO_PYPTO_KIND_RANDOM:
      /* the tile's place in the stream, so tiling does not change it */
      attrs[nattrs] = (PtoNamedAttr){pto_ident_cstr(pto_op_ctx(op), PTO_ATTR_ORIGIN),
                                     pto_attr_i64_array(pto_op_ctx(op), offs, R)};
      out = lower_emit(t, tid, NULL, 0, rtile, attrs, nattrs + 1);
      break;
    case PTO_PYPTO_KIND_DEQUANTIZE:
      /* tile.dequantize broadcasts its scale tile itself. */
      out = lower_emit(t, tid, x, 2, rtile, NULL, 0);
      break;
    case PTO_PYPTO_KIND_COMPARE:
    case PTO_PYPTO_KIND_WHERE:
      /* Both sides at the result's shape; scalars stay scalars. */
      for (unsigned i = 0; i < nops; i++)
        if (tv[i])
          x[i] = lower_expand_to(
              t, x[i],
              pto_tile_with_elem(rtile, pto_tile_elem(pto_value_type(x[i]))));
      out = lower_emit(t, tid, x, nops, rtile, NULL, 0);
      break;
    default: /* unary, cast, tensor-scalar */
      out = lower_emit(t, tid, x, nops, rtile, attrs, nattrs);
      break;
    }
    res->grid.tiles[k] = out;
  }
  lower_mark_grid(t, res, 0);
  lower_bind(t, pto_op_result(op, 0), res);
  return PTO_SUCCESS;
}
