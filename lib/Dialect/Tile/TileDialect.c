/* The tile dialect's definition: the op table expanded from TileOps.def,
 * the !tile.tile type, op ids, accessors, builders and registration. */
#include "TileInternal.h"
#include "pto/Dialect/AttrNames.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const mnemonics[] = {
#define TILE_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) MN,
#include "pto/Dialect/TileOps.def"
};

static const PtoTileKind kinds[] = {
#define TILE_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) PTO_TILE_KIND_##KIND,
#include "pto/Dialect/TileOps.def"
};

static const PtoDtypeSet dtypes[] = {
#define TILE_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) PTO_DTYPES_##DT,
#include "pto/Dialect/TileOps.def"
};

const PtoOpDef tile_op_defs[PTO_TILE_NUM_OPS] = {
#define TILE_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM)                  \
  {"tile." MN, NOP, NRES, 0, 0, TR, AFF, tile_verify, tile_parse, tile_print, \
   NULL, NULL, SUM},
#include "pto/Dialect/TileOps.def"
};

/* Row + 1 of pto/UnaryOps.def, 0 for ops of other kinds. */
static const unsigned char unary_rows[PTO_TILE_NUM_OPS] = {
#define PTO_UNARY_OP(ID, ...) [PTO_TILE_##ID] = PTO_UNARY_ROW_##ID + 1,
#include "pto/UnaryOps.def"
};

const PtoOpTable tile_op_table = {"tile.", tile_op_defs, mnemonics,
                                  PTO_TILE_NUM_OPS, unary_rows};

PtoTileOp pto_tile_op_id(const PtoOp *op) {
  return (PtoTileOp)pto_optable_id(&tile_op_table, op);
}

PtoTileOp pto_tile_lookup(const char *name) {
  return (PtoTileOp)pto_optable_lookup(&tile_op_table, name);
}

const char *pto_tile_mnemonic(PtoTileOp id) { return mnemonics[id]; }
const char *pto_tile_op_name(PtoTileOp id) { return tile_op_defs[id].name; }
PtoTileKind pto_tile_kind(PtoTileOp id) { return kinds[id]; }

PtoUnaryRow pto_tile_unary_row(PtoTileOp id) {
  return pto_optable_unary_row(&tile_op_table, id);
}
PtoDtypeSet pto_tile_dtypes(PtoTileOp id) { return dtypes[id]; }
const PtoOpDef *pto_tile_op_def(PtoTileOp id) { return &tile_op_defs[id]; }

/* ------------------------------------------------------------------ */
/* The tile type                                                        */
/* ------------------------------------------------------------------ */

/* What is wrong with a tile shape / element type, written into buf; NULL
 * when it is a valid tile. */
static const char *tile_type_problem(const int64_t *shape, unsigned rank,
                                     PtoType *elem, char *buf, size_t cap) {
  if (rank < 1 || rank > PTO_TILE_MAX_RANK) {
    snprintf(buf, cap, "tile must have 1 to %u dims, got %u", PTO_TILE_MAX_RANK,
             rank);
    return buf;
  }
  for (unsigned i = 0; i < rank; i++) {
    if (shape[i] == PTO_DYN) {
      snprintf(buf, cap, "tile dim #%u is dynamic; tiles have a static shape "
                         "(view a static window of a dynamic tensor)", i);
      return buf;
    }
    if (shape[i] <= 0) {
      snprintf(buf, cap, "tile dim #%u must be positive, got %" PRId64, i,
               shape[i]);
      return buf;
    }
  }
  if (!elem || !pto_elem_is_supported(elem)) {
    char *t = elem ? pto_type_to_string(elem) : NULL;
    snprintf(buf, cap, "tile element type '%s' is not supported (f32, f16, "
                       "bf16, i8, i16, i32, i64, i1)", t ? t : "none");
    pto_free(t);
    return buf;
  }
  return NULL;
}

PtoResult pto_tile_type_check(const PtoErrSite *site, const int64_t *shape,
                              unsigned rank, PtoType *elem) {
  char buf[160];
  const char *msg = tile_type_problem(shape, rank, elem, buf, sizeof buf);
  return msg ? pto_site_error(site, "%s", msg) : PTO_SUCCESS;
}

PtoType *pto_tile_type(PtoContext *ctx, const int64_t *shape, unsigned rank,
                       PtoType *elem) {
  if (pto_tile_type_check(NULL, shape, rank, elem)) return NULL;
  return pto_type_dialect(ctx, "tile", "tile", shape, rank, &elem, 1, NULL, 0);
}

/* Tile ops also compute on the Block level's on-chip buffers
 * (!block.buf<32x32xf32, vec>): a tile that also names its memory space,
 * with the tile's parameters plus the space as one attribute. Results of
 * tile ops on buffers are buffers (see pto_tile_with_elem); the block
 * dialect checks which spaces its kernels use. */
static bool is_tile_family(const PtoType *t) {
  if (pto_type_isa(t, "tile", "tile")) return pto_type_num_attrs(t) == 0;
  return pto_type_isa(t, "block", "buf") && pto_type_num_attrs(t) == 1;
}

bool pto_type_is_tile(const PtoType *t) {
  if (!t || !is_tile_family(t) || pto_type_num_types(t) != 1) return false;
  return pto_tile_type_check(NULL, pto_type_ints(t), pto_type_num_ints(t),
                             pto_type_type_param(t, 0)) == PTO_SUCCESS;
}

unsigned pto_tile_rank(const PtoType *t) { return pto_type_num_ints(t); }
const int64_t *pto_tile_shape(const PtoType *t) { return pto_type_ints(t); }
int64_t pto_tile_dim(const PtoType *t, unsigned i) { return pto_type_ints(t)[i]; }
PtoType *pto_tile_elem(const PtoType *t) { return pto_type_type_param(t, 0); }

int64_t pto_tile_numel(const PtoType *t) {
  int64_t n = 1;
  for (unsigned i = 0; i < pto_tile_rank(t); i++) n *= pto_tile_dim(t, i);
  return n;
}

PtoType *pto_tile_like(const PtoType *like, const int64_t *shape,
                       unsigned rank, PtoType *elem) {
  PtoContext *ctx = pto_type_ctx(like);
  unsigned na = pto_type_num_attrs(like);
  if (!na) return pto_tile_type(ctx, shape, rank, elem);
  if (pto_tile_type_check(NULL, shape, rank, elem)) return NULL;
  PtoAttr *attrs[1] = {pto_type_attr_param(like, 0)};
  return pto_type_dialect(ctx, pto_type_dialect_name(like),
                          pto_type_dialect_mnemonic(like), shape, rank, &elem,
                          1, attrs, 1);
}

PtoType *pto_tile_with_elem(const PtoType *t, PtoType *elem) {
  return pto_tile_like(t, pto_tile_shape(t), pto_tile_rank(t), elem);
}

PtoResult pto_tile_parse_shape(PtoParser *p, int64_t *dims, unsigned *rank,
                               PtoType **elem) {
  PtoParserPos epos = pto_parser_pos(p);
  if (pto_parser_parse_punct(p, PTO_P_LESS) ||
      pto_parser_parse_dimension_list(p, dims, PTO_MAX_RANK + 1, rank, true) ||
      pto_parser_parse_type(p, elem))
    return PTO_FAILURE;
  char buf[160];
  const char *msg = tile_type_problem(dims, *rank, *elem, buf, sizeof buf);
  if (msg) return pto_parser_error_at(p, pto_parser_pos_loc(p, epos), "%s", msg);
  return PTO_SUCCESS;
}

/* `<32x32xf32>` after the `tile` mnemonic. */
PtoType *tile_parse_type(PtoParser *p, const char *mnemonic) {
  if (strcmp(mnemonic, "tile") != 0) {
    pto_parser_error(p, "unknown tile type '%s'; the tile dialect has "
                        "'!tile.tile<...>'",
                     mnemonic);
    return NULL;
  }
  int64_t dims[PTO_MAX_RANK + 1];
  unsigned rank;
  PtoType *elem;
  if (pto_tile_parse_shape(p, dims, &rank, &elem) ||
      pto_parser_parse_punct(p, PTO_P_GREATER))
    return NULL;
  PtoContext *ctx = pto_parser_ctx(p);
  return pto_type_dialect(ctx, "tile", "tile", dims, rank, &elem, 1, NULL, 0);
}

void tile_print_type(PtoPrinter *p, PtoType *t) {
  pto_printer_puts(p, "tile<");
  pto_printer_print_dims(p, pto_type_ints(t), pto_type_num_ints(t));
  if (pto_type_num_types(t)) pto_printer_print_type(p, pto_type_type_param(t, 0));
  pto_printer_puts(p, ">");
}

void pto_tile_window_shape(const PtoType *tile, unsigned R, int64_t *win) {
  unsigned r = pto_tile_rank(tile);
  const int64_t *s = pto_tile_shape(tile);
  for (unsigned i = 0; i < R; i++) {
    /* tensor dim i matches tile dim i + r - R when that exists */
    int64_t k = (int64_t)i + (int64_t)r - (int64_t)R;
    win[i] = k >= 0 ? s[k] : 1;
  }
}

/* ------------------------------------------------------------------ */
/* Accessors                                                            */
/* ------------------------------------------------------------------ */

unsigned tile_first_index_operand(PtoTileKind k, unsigned n) {
  unsigned f;
  switch (k) {
  case PTO_TILE_KIND_EMPTY: f = 0; break;
  case PTO_TILE_KIND_VIEW: f = 1; break;
  case PTO_TILE_KIND_ASSEMBLE:
  case PTO_TILE_KIND_GATHER:
  case PTO_TILE_KIND_INDEX_SELECT: f = 2; break;
  case PTO_TILE_KIND_SCATTER: f = 3; break;
  default: return n;
  }
  return f < n ? f : n;
}

unsigned pto_tile_first_index_operand(const PtoOp *op) {
  return tile_first_index_operand(pto_tile_kind(pto_tile_op_id(op)),
                                  pto_op_num_operands(op));
}

PtoValue *pto_tile_get_tensor(const PtoOp *op) {
  switch (pto_tile_kind(pto_tile_op_id(op))) {
  case PTO_TILE_KIND_ASSEMBLE:
  case PTO_TILE_KIND_SCATTER: return pto_op_operand(op, 1);
  default: return pto_op_operand(op, 0);
  }
}

unsigned pto_tile_get_offsets(const PtoOp *op, int64_t *offs, PtoValue **dyn) {
  int64_t tmp[PTO_MAX_RANK];
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_STATIC_OFFSETS), tmp,
                              PTO_MAX_RANK, &n))
    return 0;
  unsigned next = pto_tile_first_index_operand(op);
  for (unsigned i = 0; i < n; i++) {
    if (offs) offs[i] = tmp[i];
    if (dyn)
      dyn[i] = tmp[i] == PTO_DYN && next < pto_op_num_operands(op)
                   ? pto_op_operand(op, next)
                   : NULL;
    if (tmp[i] == PTO_DYN) next++;
  }
  return n;
}

unsigned pto_tile_get_dim(const PtoOp *op) {
  int64_t d = pto_op_named_int(op, PTO_ATTR_ID_DIM, 0);
  PtoType *t = pto_value_type(pto_tile_get_tensor(op));
  int64_t r = pto_type_is_tensor(t) ? (int64_t)pto_type_tensor_rank(t) : 0;
  return (unsigned)(d < 0 ? d + r : d);
}

unsigned pto_tile_get_perm(const PtoOp *op, int64_t perm[PTO_TILE_MAX_RANK]) {
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_PERM), perm, PTO_TILE_MAX_RANK,
                              &n))
    return 0;
  return n;
}

int64_t pto_tile_get_k(const PtoOp *op) { return pto_op_named_int(op, PTO_ATTR_ID_K, 0); }

bool pto_tile_get_largest(const PtoOp *op) {
  PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_LARGEST);
  return !a || pto_attr_int_value(a) != 0;
}

/* ------------------------------------------------------------------ */
/* Builders                                                             */
/* ------------------------------------------------------------------ */

PtoOp *pto_tile_build(PtoBuilder *b, PtoTileOp id, PtoValue *const *operands,
                      unsigned n, PtoType *const *results, unsigned nres,
                      const PtoNamedAttr *attrs, unsigned nattrs) {
  PtoOpState st;
  pto_op_state_init(&st, b->ctx, NULL, b->loc);
  /* The op table entry is the definition; interning its name once per
   * context keeps bulk building free of string hashing. */
  st.def = &tile_op_defs[id];
  st.name = pto_ident_cstr(b->ctx, tile_op_defs[id].name);
  pto_op_state_add_operands(&st, operands, n);
  pto_op_state_add_results(&st, results, nres);
  for (unsigned i = 0; i < nattrs; i++)
    pto_op_state_set_attr(&st, attrs[i].name, attrs[i].value);
  return pto_builder_insert(b, pto_op_create(&st));
}

PtoOp *pto_tile_create(PtoBuilder *b, PtoTileOp id, PtoValue *const *operands,
                       unsigned n, PtoType *const *want,
                       const PtoNamedAttr *attrs, unsigned nattrs) {
  PtoType *stack[8] = {NULL}, **types = n <= 8 ? stack : pto_malloc(n * sizeof *types);
  for (unsigned i = 0; i < n; i++) types[i] = pto_value_type(operands[i]);
  PtoType *res[2] = {NULL, NULL};
  unsigned nres = 0;
  PtoOp *op = NULL;
  if (!pto_tile_infer_types(b->ctx, b->loc, id, types, n, attrs, nattrs, want,
                            res, &nres))
    op = pto_tile_build(b, id, operands, n, res, nres, attrs, nattrs);
  if (types != stack) pto_free(types);
  return op;
}

static PtoValue *build_window(PtoBuilder *b, PtoTileOp id, PtoValue *const *lead,
                              unsigned nlead, PtoType *res, unsigned rank,
                              const int64_t *offs, PtoValue *const *dyn) {
  PtoValue *ops[2 + PTO_MAX_RANK];
  unsigned n = 0;
  for (unsigned i = 0; i < nlead; i++) ops[n++] = lead[i];
  for (unsigned i = 0, k = 0; i < rank; i++)
    if (offs[i] == PTO_DYN) ops[n++] = dyn[k++];
  PtoNamedAttr a = {pto_ident_cstr(b->ctx, PTO_ATTR_STATIC_OFFSETS),
                    pto_attr_i64_array(b->ctx, offs, rank)};
  return pto_op_result(pto_tile_build(b, id, ops, n, &res, 1, &a, 1), 0);
}

PtoValue *pto_tile_build_view(PtoBuilder *b, PtoValue *src,
                              const int64_t *offsets, PtoValue *const *dynamic,
                              PtoType *tile_type) {
  return build_window(b, PTO_TILE_VIEW, &src, 1, tile_type,
                      pto_type_tensor_rank(pto_value_type(src)), offsets,
                      dynamic);
}

PtoValue *pto_tile_build_assemble(PtoBuilder *b, PtoValue *tile, PtoValue *dst,
                                  const int64_t *offsets,
                                  PtoValue *const *dynamic) {
  PtoValue *lead[2] = {tile, dst};
  PtoType *t = pto_value_type(dst);
  return build_window(b, PTO_TILE_ASSEMBLE, lead, 2, t,
                      pto_type_tensor_rank(t), offsets, dynamic);
}

PtoValue *pto_tile_build_empty(PtoBuilder *b, PtoType *tensor_type,
                               PtoValue *const *dyn_sizes, unsigned n) {
  return pto_op_result(
      pto_tile_build(b, PTO_TILE_EMPTY, dyn_sizes, n, &tensor_type, 1, NULL, 0),
      0);
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

static const PtoDialectDef tile_dialect = {
    "tile",
    tile_op_defs,
    PTO_TILE_NUM_OPS,
    tile_parse_type,
    tile_print_type,
    NULL,
    NULL,
    NULL,
    "Tile level: tensor ops split into ops on static on-chip tiles",
    pto_attr_name_table,
    PTO_ATTR_NUM_IDS,
};

void pto_register_tile_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &tile_dialect);
}
