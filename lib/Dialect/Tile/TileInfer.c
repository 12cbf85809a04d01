/* Checks and result-type inference of every tile op. The verifier and the
 * checked builder both run these, so the messages are the same either way.
 * Shape rules come from lib/Dialect/Common; this file adds the tile rules
 * (static shapes of 1 to 4 dims, equal shapes for elementwise ops, row and
 * column vectors for reductions and broadcasts). */
#include "TileInternal.h"
#include "pto/Dialect/AttrNames.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <string.h>

void tile_infer_init(TileInfer *in, PtoContext *ctx, PtoLoc *loc, PtoTileOp id,
                     PtoType *const *opnd, unsigned nopnd,
                     const PtoNamedAttr *attrs, unsigned nattrs) {
  pto_opcheck_init(&in->c, ctx, loc, pto_tile_op_name(id), opnd, nopnd, attrs,
                   nattrs);
  in->id = id;
  in->want[0] = in->want[1] = in->res[0] = in->res[1] = NULL;
  in->nres = 0;
}

void tile_infer_done(TileInfer *in) { pto_opcheck_done(&in->c); }

#define ERR(...) PTO_CHECK_ERR(&in->c, __VA_ARGS__)
#define TSTR(t) pto_opcheck_tstr(&in->c, (t))

/* ---- attributes ---- */

static bool is_label(const char *name) { return strcmp(name, PTO_ATTR_LABEL) == 0; }

static const char *const *kind_attrs(PtoTileOp id) {
  static const char *const none[] = {NULL};
  static const char *const cast[] = {PTO_ATTR_MODE, PTO_ATTR_SATMODE, NULL};
  static const char *const matmul[] = {PTO_ATTR_A_TRANS, PTO_ATTR_B_TRANS, PTO_ATTR_ACC_DTYPE, NULL};
  static const char *const window[] = {PTO_ATTR_STATIC_OFFSETS, NULL};
  static const char *const index[] = {PTO_ATTR_STATIC_OFFSETS, PTO_ATTR_DIM, NULL};
  static const char *const perm[] = {PTO_ATTR_PERM, NULL};
  static const char *const dim[] = {PTO_ATTR_DIM, NULL};
  static const char *const topk[] = {PTO_ATTR_K, PTO_ATTR_LARGEST, NULL};
  static const char *const random[] = {PTO_ATTR_KEY, PTO_ATTR_COUNTER, PTO_ATTR_ORIGIN,
                                       PTO_ATTR_FULL, NULL};
  static const char *const scatter[] = {PTO_ATTR_STATIC_OFFSETS, PTO_ATTR_DIM,
                                        PTO_ATTR_REDUCE, NULL};
  static const char *const index_add[] = {PTO_ATTR_STATIC_OFFSETS, PTO_ATTR_DIM, PTO_ATTR_UB,
                                          NULL};
  if (id == PTO_TILE_SCATTER_ELEMENTS) return scatter;
  if (id == PTO_TILE_INDEX_ADD) return index_add;
  switch (pto_tile_kind(id)) {
  case PTO_TILE_KIND_UNARY: return pto_unary_row_attrs(pto_tile_unary_row(id));
  case PTO_TILE_KIND_CAST: return cast;
  case PTO_TILE_KIND_MATMUL: return matmul;
  case PTO_TILE_KIND_VIEW:
  case PTO_TILE_KIND_ASSEMBLE:
  case PTO_TILE_KIND_LOAD_SCALAR: return window;
  case PTO_TILE_KIND_GATHER:
  case PTO_TILE_KIND_INDEX_SELECT:
  case PTO_TILE_KIND_SCATTER: return index;
  case PTO_TILE_KIND_TRANSPOSE: return perm;
  case PTO_TILE_KIND_DIM: return dim;
  case PTO_TILE_KIND_TOPK:
  case PTO_TILE_KIND_TOPK_MERGE: return topk;
  case PTO_TILE_KIND_RANDOM: return random;
  default: return none;
  }
}

/* ---- operands and results ---- */

static PtoResult opnd_tile(TileInfer *in, unsigned i, PtoType **t) {
  if (i >= in->c.nopnd || !pto_type_is_tile(in->c.opnd[i]))
    return ERR("operand #%u must be a tile, got '%s'", i,
               i < in->c.nopnd ? TSTR(in->c.opnd[i]) : "nothing");
  *t = in->c.opnd[i];
  return PTO_SUCCESS;
}

static PtoResult opnd_class(TileInfer *in, unsigned i, PtoDtypeSet set) {
  PtoType *t = in->c.opnd[i];
  if (!pto_dtype_in_set(pto_tile_elem(t), set))
    return ERR("operand #%u must be a tile of %s, got '%s'", i,
               pto_dtype_set_text(set), TSTR(t));
  return PTO_SUCCESS;
}

/* Operand #i is a tile of the op's DTYPES class. */
static PtoResult opnd_tile_of_class(TileInfer *in, unsigned i, PtoType **t) {
  return opnd_tile(in, i, t) ||
         opnd_class(in, i, pto_tile_dtypes(in->id));
}

static PtoResult opnd_gm(TileInfer *in, unsigned i, PtoShape *s) {
  return pto_opcheck_tensor(&in->c, "operand", i, in->c.opnd[i], s);
}

/* A scalar of a supported element type (not index, tensor or tile). */
static bool is_scalar(PtoType *t) {
  PtoTypeKind k = pto_type_kind(t);
  return (k == PTO_TYPE_INTEGER || k == PTO_TYPE_FLOAT) &&
         pto_elem_is_supported(t);
}

/* Operand #i: a tile of `like`'s type, or a scalar of its element type. */
static PtoResult opnd_tile_or_scalar(TileInfer *in, unsigned i, PtoType *like) {
  PtoType *t = in->c.opnd[i];
  if (pto_type_is_tile(t)) {
    if (pto_opcheck_same_elem(&in->c, pto_tile_elem(like), pto_tile_elem(t)))
      return PTO_FAILURE;
    if (t != like)
      return ERR("operand #%u must have type '%s', got '%s'", i, TSTR(like),
                 TSTR(t));
    return PTO_SUCCESS;
  }
  if (t != pto_tile_elem(like))
    return ERR("operand #%u must be a tile of type '%s' or a scalar of type "
               "'%s', got '%s'",
               i, TSTR(like), TSTR(pto_tile_elem(like)), TSTR(t));
  return PTO_SUCCESS;
}

/* Operand #i must be exactly `want` (shape rules of rows, indices, ...);
 * `why` explains the expected type in the message. */
static PtoResult opnd_exact(TileInfer *in, unsigned i, PtoType *want,
                            const char *why) {
  PtoType *t = in->c.opnd[i];
  if (t != want)
    return ERR("operand #%u must have type '%s'%s, got '%s'", i, TSTR(want), why,
               TSTR(t));
  return PTO_SUCCESS;
}

static PtoResult want_tile(TileInfer *in, unsigned r) {
  PtoType *t = in->want[r];
  if (!t) return ERR("requires a result type");
  if (!pto_type_is_tile(t))
    return ERR("result #%u must be a tile, got '%s'", r, TSTR(t));
  return PTO_SUCCESS;
}

/* A result tile of the op's kind: a buffer when the op computes on
 * buffers, in the memory space of the requested result if there is one (a
 * matmul reads L0A/L0B and writes L0C), else of its first tile operand. */
static PtoType *tile_of(TileInfer *in, const int64_t *shape, unsigned rank,
                        PtoType *elem) {
  const PtoType *like = in->want[0] && pto_type_is_tile(in->want[0])
                            ? in->want[0] : NULL;
  for (unsigned i = 0; !like && i < in->c.nopnd; i++)
    if (pto_type_is_tile(in->c.opnd[i])) like = in->c.opnd[i];
  if (!like) return pto_tile_type(in->c.ctx, shape, rank, elem);
  return pto_tile_like(like, shape, rank, elem);
}

/* `t` with dim `d` set to `size`. */
static PtoType *with_dim(TileInfer *in, PtoType *t, unsigned d, int64_t size,
                         PtoType *elem) {
  int64_t s[PTO_TILE_MAX_RANK];
  unsigned r = pto_tile_rank(t);
  memcpy(s, pto_tile_shape(t), r * sizeof s[0]);
  s[d] = size;
  return tile_of(in, s, r, elem ? elem : pto_tile_elem(t));
}

static void set_res(TileInfer *in, PtoType *t) { in->res[in->nres++] = t; }

static PtoType *i1(TileInfer *in) { return pto_type_int(in->c.ctx, 1); }
static PtoType *i32(TileInfer *in) { return pto_type_int(in->c.ctx, 32); }

static bool same_shape(PtoType *a, PtoType *b) {
  unsigned r = pto_tile_rank(a);
  return r == pto_tile_rank(b) &&
         memcmp(pto_tile_shape(a), pto_tile_shape(b), r * sizeof(int64_t)) == 0;
}

/* ---- GM windows ---- */

/* A tile placed in a tensor of rank R: extra leading tile dims must be 1.
 * `role` is "source" or "destination". */
static PtoResult tile_fits_rank(TileInfer *in, PtoType *tile, unsigned R,
                                const char *role) {
  unsigned r = pto_tile_rank(tile);
  for (unsigned k = 0; k + R < r; k++)
    if (pto_tile_dim(tile, k) != 1)
      return ERR("tile rank %u exceeds the %s rank %u and tile dim #%u is "
                 "%" PRId64 ", not 1",
                 r, role, R, k, pto_tile_dim(tile, k));
  return PTO_SUCCESS;
}

static PtoResult window_check(TileInfer *in, const PtoShape *src,
                              const int64_t *offs, unsigned n,
                              const int64_t *win) {
  PtoShape w;
  pto_shape_init(&w, win, src->rank);
  return pto_shape_window_check(&in->c.site, src, offs, n, &w);
}

/* Offsets of gather / index_select / scatter along `dim` are 0: the index
 * tile gives the positions there. */
static PtoResult zero_offset_along(TileInfer *in, const int64_t *offs,
                                   unsigned n, unsigned dim) {
  if (dim < n && offs[dim] != 0)
    return ERR("offset #%u must be 0: the index tile gives the positions "
               "along dim %u",
               dim, dim);
  return PTO_SUCCESS;
}

static PtoResult infer_view(TileInfer *in) {
  PtoShape s;
  int64_t offs[PTO_MAX_RANK], win[PTO_MAX_RANK];
  unsigned n;
  if (opnd_gm(in, 0, &s) || pto_opcheck_offsets(&in->c, 1, offs, &n) ||
      want_tile(in, 0))
    return PTO_FAILURE;
  PtoType *t = in->want[0], *e = pto_type_tensor_elem(in->c.opnd[0]);
  if (pto_tile_elem(t) != e)
    return ERR("result element type '%s' differs from the source's '%s'",
               TSTR(pto_tile_elem(t)), TSTR(e));
  if (tile_fits_rank(in, t, s.rank, "source")) return PTO_FAILURE;
  pto_tile_window_shape(t, s.rank, win);
  if (window_check(in, &s, offs, n, win)) return PTO_FAILURE;
  set_res(in, t);
  return PTO_SUCCESS;
}

static PtoResult infer_assemble(TileInfer *in) {
  PtoShape y;
  PtoType *t = NULL;
  int64_t offs[PTO_MAX_RANK], win[PTO_MAX_RANK];
  unsigned n;
  if (opnd_tile(in, 0, &t) || opnd_gm(in, 1, &y) ||
      pto_opcheck_offsets(&in->c, 2, offs, &n))
    return PTO_FAILURE;
  PtoType *e = pto_type_tensor_elem(in->c.opnd[1]);
  if (pto_tile_elem(t) != e)
    return ERR("tile element type '%s' differs from the destination's '%s'",
               TSTR(pto_tile_elem(t)), TSTR(e));
  if (tile_fits_rank(in, t, y.rank, "destination")) return PTO_FAILURE;
  pto_tile_window_shape(t, y.rank, win);
  if (window_check(in, &y, offs, n, win)) return PTO_FAILURE;
  set_res(in, in->c.opnd[1]);
  return PTO_SUCCESS;
}

static PtoResult infer_empty(TileInfer *in) {
  PtoShape w;
  if (!in->want[0]) return ERR("requires a result type");
  if (pto_opcheck_tensor(&in->c, "result", 0, in->want[0], &w) ||
      pto_opcheck_dyn_sizes(&in->c, &w, 0))
    return PTO_FAILURE;
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_tensor_reshape(TileInfer *in) {
  PtoShape s, w;
  if (opnd_gm(in, 0, &s)) return PTO_FAILURE;
  if (!in->want[0]) return ERR("requires a result type");
  if (pto_opcheck_tensor(&in->c, "result", 0, in->want[0], &w)) return PTO_FAILURE;
  PtoType *e = pto_type_tensor_elem(in->c.opnd[0]),
          *we = pto_type_tensor_elem(in->want[0]);
  if (we != e)
    return ERR("result element type '%s' differs from the source's '%s'",
               TSTR(we), TSTR(e));
  if (pto_shape_reshape_check(&in->c.site, &s, &w, TSTR(in->want[0])))
    return PTO_FAILURE;
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_tensor_bitcast(TileInfer *in) {
  PtoShape s, w;
  if (opnd_gm(in, 0, &s)) return PTO_FAILURE;
  if (!in->want[0]) return ERR("requires a result type");
  if (pto_opcheck_tensor(&in->c, "result", 0, in->want[0], &w) ||
      pto_opcheck_bitcast(&in->c, in->c.opnd[0], in->want[0]))
    return PTO_FAILURE;
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_dim(TileInfer *in) {
  PtoShape s;
  unsigned d;
  if (opnd_gm(in, 0, &s) || pto_opcheck_dim(&in->c, true, 0, s.rank, &d))
    return PTO_FAILURE;
  set_res(in, pto_type_index(in->c.ctx));
  return PTO_SUCCESS;
}

/* One element of an integer GM tensor: an index per dim, static ones
 * inside static dims. */
static PtoResult infer_load_scalar(TileInfer *in) {
  PtoShape s;
  int64_t offs[PTO_MAX_RANK];
  unsigned n;
  if (opnd_gm(in, 0, &s) || pto_opcheck_offsets(&in->c, 1, offs, &n)) return PTO_FAILURE;
  PtoType *e = pto_type_tensor_elem(in->c.opnd[0]);
  if (!pto_dtype_in_set(e, PTO_DTYPES_INT))
    return ERR("operand #0 must be a tensor of %s, got '%s'",
               pto_dtype_set_text(PTO_DTYPES_INT), TSTR(in->c.opnd[0]));
  if (n != s.rank)
    return ERR("expected %u indices for a tensor of rank %u, got %u", s.rank, s.rank, n);
  for (unsigned d = 0; d < n; d++)
    if (offs[d] != PTO_DYN && (offs[d] < 0 || (s.dims[d] != PTO_DYN && offs[d] >= s.dims[d])))
      return ERR("index %" PRId64 " is out of range for dim %u", offs[d], d);
  set_res(in, pto_type_index(in->c.ctx));
  return PTO_SUCCESS;
}

/* ---- elementwise ---- */

static PtoResult infer_unary(TileInfer *in) {
  PtoType *t = NULL;
  if (opnd_tile_of_class(in, 0, &t)) return PTO_FAILURE;
  if (pto_opcheck_unary_attrs(&in->c, pto_tile_unary_row(in->id))) return PTO_FAILURE;
  set_res(in, t);
  return PTO_SUCCESS;
}

static PtoResult infer_cast(TileInfer *in) {
  PtoType *t = NULL;
  if (opnd_tile(in, 0, &t) || pto_opcheck_cast_attrs(&in->c) || want_tile(in, 0))
    return PTO_FAILURE;
  if (!same_shape(t, in->want[0]))
    return ERR("result #0 must have the operand's shape '%s', got '%s'", TSTR(t),
               TSTR(in->want[0]));
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_binary(TileInfer *in) {
  PtoType *a = NULL, *b = NULL;
  if (opnd_tile(in, 0, &a) || opnd_tile(in, 1, &b) ||
      pto_opcheck_same_elem(&in->c, pto_tile_elem(a), pto_tile_elem(b)) ||
      opnd_class(in, 0, pto_tile_dtypes(in->id)))
    return PTO_FAILURE;
  if (a != b && same_shape(a, b))
    return ERR("operands must be in the same memory space, got '%s' and '%s'",
               TSTR(a), TSTR(b));
  if (a != b)
    return ERR("operands must have the same shape, got '%s' and '%s'; broadcast "
               "with tile.rowexpand_*, tile.colexpand_* or tile.expand",
               TSTR(a), TSTR(b));
  set_res(in, a);
  return PTO_SUCCESS;
}

static PtoResult infer_scalar(TileInfer *in) {
  PtoType *t = NULL;
  if (opnd_tile_of_class(in, 0, &t)) return PTO_FAILURE;
  if (in->c.opnd[1] != pto_tile_elem(t))
    return ERR("operand #1 must be a scalar of type '%s', got '%s'",
               TSTR(pto_tile_elem(t)), TSTR(in->c.opnd[1]));
  set_res(in, t);
  return PTO_SUCCESS;
}

static PtoResult infer_compare(TileInfer *in) {
  PtoType *t = NULL;
  if (opnd_tile(in, 0, &t) || opnd_tile_or_scalar(in, 1, t) ||
      opnd_class(in, 0, pto_tile_dtypes(in->id)))
    return PTO_FAILURE;
  set_res(in, pto_tile_with_elem(t, i1(in)));
  return PTO_SUCCESS;
}

static PtoResult infer_where(TileInfer *in) {
  PtoType *c = NULL;
  if (opnd_tile(in, 0, &c)) return PTO_FAILURE;
  if (pto_tile_elem(c) != i1(in))
    return ERR("operand #0 must be a tile of i1 values, got '%s'", TSTR(c));
  PtoType *x = in->c.opnd[1], *y = in->c.opnd[2];
  PtoType *ex = pto_type_is_tile(x) ? pto_tile_elem(x) : x;
  PtoType *ey = pto_type_is_tile(y) ? pto_tile_elem(y) : y;
  for (unsigned i = 1; i < 3; i++) {
    PtoType *t = in->c.opnd[i];
    if (!pto_type_is_tile(t) && !is_scalar(t))
      return ERR("operand #%u must be a tile or a scalar, got '%s'", i, TSTR(t));
  }
  if (pto_opcheck_same_elem(&in->c, ex, ey)) return PTO_FAILURE;
  PtoType *r = pto_tile_with_elem(c, ex);
  for (unsigned i = 1; i < 3; i++)
    if (pto_type_is_tile(in->c.opnd[i]) &&
        opnd_exact(in, i, r, " (the condition's shape)"))
      return PTO_FAILURE;
  set_res(in, r);
  return PTO_SUCCESS;
}

/* ---- reductions and broadcasts ---- */

static PtoResult min_rank(TileInfer *in, unsigned i, unsigned r) {
  if (pto_tile_rank(in->c.opnd[i]) < r)
    return ERR("operand #%u must have rank >= %u", i, r);
  return PTO_SUCCESS;
}

/* The reduced dim: the last (row) or second-to-last (column) one. */
static PtoResult reduced_dim(TileInfer *in, bool col, unsigned *d) {
  PtoType *t = NULL;
  if (opnd_tile_of_class(in, 0, &t) || min_rank(in, 0, col ? 2 : 1))
    return PTO_FAILURE;
  *d = pto_tile_rank(t) - (col ? 2 : 1);
  return PTO_SUCCESS;
}

static PtoResult infer_reduce(TileInfer *in, bool col, bool arg) {
  unsigned d;
  if (reduced_dim(in, col, &d)) return PTO_FAILURE;
  PtoType *t = in->c.opnd[0];
  set_res(in, with_dim(in, t, d, 1, NULL));
  if (arg) set_res(in, with_dim(in, t, d, 1, i32(in)));
  return PTO_SUCCESS;
}

static PtoResult infer_argcombine(TileInfer *in) {
  PtoType *v = NULL;
  if (opnd_tile_of_class(in, 0, &v)) return PTO_FAILURE;
  PtoType *idx = pto_tile_with_elem(v, i32(in));
  if (opnd_exact(in, 1, idx, " (operand #0's shape, i32)") ||
      opnd_exact(in, 2, v, " (operand #0's type)") ||
      opnd_exact(in, 3, idx, " (operand #0's shape, i32)"))
    return PTO_FAILURE;
  set_res(in, v);
  set_res(in, idx);
  return PTO_SUCCESS;
}

static PtoResult infer_rowcol_expand(TileInfer *in, bool col) {
  unsigned d;
  PtoType *b = NULL;
  if (reduced_dim(in, col, &d) || opnd_tile(in, 1, &b)) return PTO_FAILURE;
  PtoType *a = in->c.opnd[0];
  if (pto_opcheck_same_elem(&in->c, pto_tile_elem(a), pto_tile_elem(b)) ||
      opnd_exact(in, 1, with_dim(in, a, d, 1, NULL),
                 col ? " (operand #0's shape with the second-to-last dim 1)"
                     : " (operand #0's shape with the last dim 1)"))
    return PTO_FAILURE;
  set_res(in, a);
  return PTO_SUCCESS;
}

/* Operand #0 is a tile and the written result a tile of its element type
 * (ops that change only the shape). */
static PtoResult same_elem_result(TileInfer *in, PtoType **t) {
  if (opnd_tile(in, 0, t) || want_tile(in, 0)) return PTO_FAILURE;
  PtoType *we = pto_tile_elem(in->want[0]), *e = pto_tile_elem(*t);
  if (we != e)
    return ERR("result element type '%s' differs from the operand's '%s'",
               TSTR(we), TSTR(e));
  return PTO_SUCCESS;
}

static PtoResult infer_expand(TileInfer *in) {
  PtoType *t = NULL;
  if (same_elem_result(in, &t)) return PTO_FAILURE;
  PtoType *w = in->want[0];
  if (pto_tile_rank(w) != pto_tile_rank(t))
    return ERR("result rank %u differs from the operand rank %u; reshape the "
               "operand first",
               pto_tile_rank(w), pto_tile_rank(t));
  PtoShape s, r;
  pto_shape_init(&s, pto_tile_shape(t), pto_tile_rank(t));
  pto_shape_init(&r, pto_tile_shape(w), pto_tile_rank(w));
  if (pto_shape_expand_check(&in->c.site, &s, &r)) return PTO_FAILURE;
  set_res(in, w);
  return PTO_SUCCESS;
}

static PtoResult infer_full(TileInfer *in) {
  PtoType *v = in->c.opnd[0];
  if (!is_scalar(v)) return ERR("operand #0 must be a scalar, got '%s'", TSTR(v));
  if (want_tile(in, 0)) return PTO_FAILURE;
  PtoType *we = pto_tile_elem(in->want[0]);
  if (v != we)
    return ERR("fill value type '%s' differs from the element type '%s'", TSTR(v),
               TSTR(we));
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

/* uniform / normal tiles: the tile is the window at `origin` of a stream
 * of shape `full` (both i64 arrays of one length >= the tile's rank, the
 * tile's dims the window's trailing ones, the leading ones 1). */
static PtoResult infer_random(TileInfer *in) {
  int64_t v, origin[PTO_MAX_RANK], full[PTO_MAX_RANK];
  unsigned no, nf;
  if (want_tile(in, 0) || pto_opcheck_int(&in->c, PTO_ATTR_KEY, true, 0, &v) ||
      pto_opcheck_int(&in->c, PTO_ATTR_COUNTER, false, 0, &v))
    return PTO_FAILURE;
  PtoType *w = in->want[0];
  if (!pto_dtype_in_set(pto_tile_elem(w), pto_tile_dtypes(in->id)))
    return ERR("result must be a tile of %s, got '%s'",
               pto_dtype_set_text(pto_tile_dtypes(in->id)), TSTR(w));
  if (!pto_attr_get_i64_array(pto_opcheck_attr(&in->c, PTO_ATTR_ORIGIN), origin,
                              PTO_MAX_RANK, &no) ||
      !pto_attr_get_i64_array(pto_opcheck_attr(&in->c, PTO_ATTR_FULL), full,
                              PTO_MAX_RANK, &nf))
    return ERR("requires i64 array attributes 'origin' and 'full' (at most %d "
               "entries)", PTO_MAX_RANK);
  unsigned r = pto_tile_rank(w);
  if (no != nf || nf < r)
    return ERR("'origin' (%u entries) and 'full' (%u) must have one length, at "
               "least the tile's rank %u", no, nf, r);
  const int64_t *ts = pto_tile_shape(w);
  for (unsigned d = 0; d < nf; d++) {
    int64_t size = d < nf - r ? 1 : ts[d - (nf - r)];
    if (full[d] <= 0 || origin[d] < 0 || origin[d] > full[d] - size)
      return ERR("window of dim %u (origin %" PRId64 ", size %" PRId64
                 ") is outside 'full' (%" PRId64 ")", d, origin[d], size, full[d]);
  }
  set_res(in, w);
  return PTO_SUCCESS;
}

static PtoResult infer_reshape(TileInfer *in) {
  PtoType *t = NULL;
  if (same_elem_result(in, &t)) return PTO_FAILURE;
  PtoType *w = in->want[0];
  if (pto_tile_numel(w) != pto_tile_numel(t))
    return ERR("reshape changes the number of elements: %" PRId64 " vs %" PRId64,
               pto_tile_numel(t), pto_tile_numel(w));
  set_res(in, w);
  return PTO_SUCCESS;
}

static PtoResult infer_transpose(TileInfer *in) {
  PtoType *t = NULL;
  if (opnd_tile(in, 0, &t)) return PTO_FAILURE;
  PtoShape s, r;
  pto_shape_init(&s, pto_tile_shape(t), pto_tile_rank(t));
  if (pto_opcheck_transpose(&in->c, &s, &r)) return PTO_FAILURE;
  set_res(in, tile_of(in, r.dims, r.rank, pto_tile_elem(t)));
  return PTO_SUCCESS;
}

/* ---- matmul ---- */

static PtoResult opnd_2d(TileInfer *in, unsigned i, PtoType **t) {
  if (opnd_tile(in, i, t)) return PTO_FAILURE;
  if (pto_tile_rank(*t) != 2)
    return ERR("operand #%u must be a 2-D tile, got '%s'", i, TSTR(*t));
  return PTO_SUCCESS;
}

static PtoResult infer_matmul(TileInfer *in) {
  if (in->c.nopnd > 3)
    return ERR("expected 2 operands, or 3 with an accumulator, got %u",
               in->c.nopnd);
  PtoType *a = NULL, *b = NULL, *acc = NULL;
  bool at, bt;
  if (opnd_2d(in, 0, &a) || opnd_2d(in, 1, &b) ||
      pto_opcheck_same_elem(&in->c, pto_tile_elem(a), pto_tile_elem(b)))
    return PTO_FAILURE;
  PtoType *out = NULL;
  if (in->want[0]) {
    if (want_tile(in, 0)) return PTO_FAILURE;
    out = pto_tile_elem(in->want[0]);
  }
  if (pto_opcheck_matmul_dtypes(&in->c, "tiles", pto_tile_elem(a), &out, &acc) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_A_TRANS, &at) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_B_TRANS, &bt))
    return PTO_FAILURE;
  PtoShape sa, sb, r;
  pto_shape_init(&sa, pto_tile_shape(a), 2);
  pto_shape_init(&sb, pto_tile_shape(b), 2);
  if (pto_shape_matmul(&in->c.site, &sa, TSTR(a), at, &sb, TSTR(b), bt, &r))
    return PTO_FAILURE;
  if (in->c.nopnd == 3) {
    PtoType *c = NULL;
    if (opnd_tile(in, 2, &c)) return PTO_FAILURE;
    if (opnd_exact(in, 2, tile_of(in, r.dims, 2, acc),
                   " (the result's shape in the accumulation type)"))
      return PTO_FAILURE;
  }
  set_res(in, tile_of(in, r.dims, 2, out));
  return PTO_SUCCESS;
}

/* ---- indexing ---- */

static PtoResult opnd_index_tile(TileInfer *in, unsigned i, bool one_d,
                                 PtoType **t) {
  if (opnd_tile(in, i, t)) return PTO_FAILURE;
  PtoType *e = pto_tile_elem(*t);
  if (!pto_elem_is_int(e) ||
      (pto_type_int_width(e) != 32 && pto_type_int_width(e) != 64))
    return ERR("operand #%u must be a tile of i32 or i64 indices, got '%s'", i,
               TSTR(*t));
  if (one_d && pto_tile_rank(*t) != 1)
    return ERR("operand #%u must be a 1-D tile of indices, got '%s'", i, TSTR(*t));
  return PTO_SUCCESS;
}

/* The common part of gather / index_select / scatter: the GM tensor
 * (operand `gm`), its offsets from `first`, `dim`, and the tile whose
 * window is addressed (`tile`); checks everything but the index length. */
static PtoResult index_window(TileInfer *in, unsigned gm, unsigned first,
                              PtoType *tile, const char *role, unsigned *dim,
                              int64_t *win, PtoShape *s) {
  int64_t offs[PTO_MAX_RANK];
  unsigned n;
  if (opnd_gm(in, gm, s) || pto_opcheck_offsets(&in->c, first, offs, &n) ||
      pto_opcheck_dim(&in->c, true, 0, s->rank, dim))
    return PTO_FAILURE;
  PtoType *e = pto_type_tensor_elem(in->c.opnd[gm]);
  if (pto_tile_elem(tile) != e)
    return ERR("tile element type '%s' differs from the %s's '%s'",
               TSTR(pto_tile_elem(tile)), role, TSTR(e));
  if (tile_fits_rank(in, tile, s->rank, role) ||
      zero_offset_along(in, offs, n, *dim))
    return PTO_FAILURE;
  pto_tile_window_shape(tile, s->rank, win);
  /* Along `dim` the positions come from the index tile: check one row. */
  int64_t saved = win[*dim];
  win[*dim] = 1;
  PtoResult r = window_check(in, s, offs, n, win);
  win[*dim] = saved;
  return r;
}

static PtoResult index_length(TileInfer *in, PtoType *idx, const int64_t *win,
                              unsigned dim) {
  if (pto_tile_dim(idx, 0) != win[dim])
    return ERR("index tile has %" PRId64 " entries but the tile's extent along "
               "dim %u is %" PRId64,
               pto_tile_dim(idx, 0), dim, win[dim]);
  return PTO_SUCCESS;
}

static PtoResult infer_gather(TileInfer *in) {
  PtoType *idx = NULL;
  PtoShape s;
  unsigned dim;
  int64_t win[PTO_MAX_RANK];
  if (opnd_index_tile(in, 1, false, &idx) || opnd_gm(in, 0, &s)) return PTO_FAILURE;
  PtoType *r = pto_tile_with_elem(idx, pto_type_tensor_elem(in->c.opnd[0]));
  if (index_window(in, 0, 2, r, "source", &dim, win, &s)) return PTO_FAILURE;
  set_res(in, r);
  return PTO_SUCCESS;
}

static PtoResult infer_index_select(TileInfer *in) {
  PtoType *idx = NULL;
  PtoShape s;
  unsigned dim;
  int64_t win[PTO_MAX_RANK];
  if (opnd_index_tile(in, 1, true, &idx) || want_tile(in, 0) ||
      index_window(in, 0, 2, in->want[0], "source", &dim, win, &s) ||
      index_length(in, idx, win, dim))
    return PTO_FAILURE;
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_scatter(TileInfer *in) {
  PtoType *src = NULL, *idx = NULL;
  PtoShape s;
  unsigned dim;
  int64_t win[PTO_MAX_RANK];
  bool ub;
  if (opnd_tile_of_class(in, 0, &src) || opnd_index_tile(in, 2, true, &idx) ||
      index_window(in, 1, 3, src, "destination", &dim, win, &s) ||
      index_length(in, idx, win, dim) || pto_opcheck_flag(&in->c, PTO_ATTR_UB, &ub))
    return PTO_FAILURE;
  set_res(in, in->c.opnd[1]);
  return PTO_SUCCESS;
}

/* scatter_elements: the index tile has the src tile's shape; each element
 * goes to the GM position of its own place in the window, along `dim` the
 * position its index names. */
static PtoResult infer_scatter_elements(TileInfer *in) {
  static const char *const reduce[] = {"add", "multiply", NULL};
  PtoType *src = NULL, *idx = NULL;
  PtoShape s;
  unsigned dim;
  int64_t win[PTO_MAX_RANK];
  if (opnd_tile_of_class(in, 0, &src) || opnd_index_tile(in, 2, false, &idx) ||
      index_window(in, 1, 3, src, "destination", &dim, win, &s) ||
      pto_opcheck_enum(&in->c, PTO_ATTR_REDUCE, reduce, "\"add\" or \"multiply\""))
    return PTO_FAILURE;
  if (pto_tile_with_elem(idx, pto_tile_elem(src)) != src)
    return ERR("index tile '%s' must have the shape of the src tile '%s'", TSTR(idx),
               TSTR(src));
  set_res(in, in->c.opnd[1]);
  return PTO_SUCCESS;
}

/* ---- topk ---- */

static PtoResult topk_attrs(TileInfer *in, int64_t avail, const char *what,
                            int64_t *k) {
  bool largest;
  if (pto_opcheck_int(&in->c, PTO_ATTR_K, true, 0, k)) return PTO_FAILURE;
  if (*k <= 0) return ERR("attribute 'k' must be positive, got %" PRId64, *k);
  if (*k > avail)
    return ERR("attribute 'k' (%" PRId64 ") exceeds %s (%" PRId64 ")", *k, what,
               avail);
  return pto_opcheck_bool(&in->c, PTO_ATTR_LARGEST, true, &largest);
}

static PtoResult infer_topk(TileInfer *in) {
  PtoType *t = NULL;
  int64_t k;
  if (opnd_tile_of_class(in, 0, &t)) return PTO_FAILURE;
  unsigned last = pto_tile_rank(t) - 1;
  if (topk_attrs(in, pto_tile_dim(t, last), "the last dim", &k)) return PTO_FAILURE;
  set_res(in, with_dim(in, t, last, k, NULL));
  set_res(in, with_dim(in, t, last, k, i32(in)));
  return PTO_SUCCESS;
}

static PtoResult infer_topk_merge(TileInfer *in) {
  PtoType *v0 = NULL, *v1 = NULL;
  int64_t k;
  if (opnd_tile_of_class(in, 0, &v0) || opnd_tile(in, 2, &v1) ||
      pto_opcheck_same_elem(&in->c, pto_tile_elem(v0), pto_tile_elem(v1)))
    return PTO_FAILURE;
  unsigned last = pto_tile_rank(v0) - 1;
  if (pto_tile_rank(v1) != last + 1 ||
      with_dim(in, v1, last, pto_tile_dim(v0, last), NULL) != v0)
    return ERR("operands #0 and #2 must agree in all but the last dim, got '%s' "
               "and '%s'",
               TSTR(v0), TSTR(v1));
  if (opnd_exact(in, 1, pto_tile_with_elem(v0, i32(in)),
                 " (operand #0's shape, i32)") ||
      opnd_exact(in, 3, pto_tile_with_elem(v1, i32(in)),
                 " (operand #2's shape, i32)"))
    return PTO_FAILURE;
  int64_t avail = pto_tile_dim(v0, last) + pto_tile_dim(v1, last);
  if (topk_attrs(in, avail, "the number of merged entries", &k))
    return PTO_FAILURE;
  set_res(in, with_dim(in, v0, last, k, NULL));
  set_res(in, with_dim(in, v0, last, k, i32(in)));
  return PTO_SUCCESS;
}

/* ---- quantisation ---- */

static PtoResult infer_quantize(TileInfer *in) {
  PtoType *x = NULL, *s = NULL;
  if (opnd_tile_of_class(in, 0, &x) || opnd_tile(in, 1, &s)) return PTO_FAILURE;
  unsigned last = pto_tile_rank(x) - 1;
  if (opnd_exact(in, 1, with_dim(in, x, last, 1, pto_type_f32(in->c.ctx)),
                 " (one f32 scale per row)"))
    return PTO_FAILURE;
  set_res(in, pto_tile_with_elem(x, pto_type_int(in->c.ctx, 8)));
  return PTO_SUCCESS;
}

static PtoResult infer_dequantize(TileInfer *in) {
  PtoType *q = NULL, *s = NULL;
  if (opnd_tile_of_class(in, 0, &q) || opnd_tile(in, 1, &s)) return PTO_FAILURE;
  if (pto_tile_elem(s) != pto_type_f32(in->c.ctx))
    return ERR("operand #1 must be a tile of f32 values, got '%s'", TSTR(s));
  PtoShape sq, ss;
  pto_shape_init(&sq, pto_tile_shape(q), pto_tile_rank(q));
  pto_shape_init(&ss, pto_tile_shape(s), pto_tile_rank(s));
  if (ss.rank != sq.rank || !pto_shape_broadcasts_to(&ss, &sq))
    return ERR("scale '%s' does not broadcast to '%s' (same rank, each dim 1 or "
               "equal)",
               TSTR(s), TSTR(q));
  PtoType *out = pto_type_f32(in->c.ctx);
  if (in->want[0]) {
    if (want_tile(in, 0)) return PTO_FAILURE;
    out = pto_tile_elem(in->want[0]);
  }
  if (!pto_elem_is_float(out))
    return ERR("result element type '%s' must be f32, f16 or bf16", TSTR(out));
  set_res(in, pto_tile_with_elem(q, out));
  return PTO_SUCCESS;
}

PtoResult tile_infer(TileInfer *in) {
  in->nres = 0;
  if (pto_tuning_verify_attrs(&in->c.site, in->c.attrs, in->c.nattrs) ||
      pto_opcheck_known_attrs(&in->c, kind_attrs(in->id), is_label, PTO_ATTR_LABEL))
    return PTO_FAILURE;
  switch (pto_tile_kind(in->id)) {
  case PTO_TILE_KIND_VIEW: return infer_view(in);
  case PTO_TILE_KIND_ASSEMBLE: return infer_assemble(in);
  case PTO_TILE_KIND_EMPTY: return infer_empty(in);
  case PTO_TILE_KIND_TENSOR_RESHAPE: return infer_tensor_reshape(in);
  case PTO_TILE_KIND_TENSOR_BITCAST: return infer_tensor_bitcast(in);
  case PTO_TILE_KIND_DIM: return infer_dim(in);
  case PTO_TILE_KIND_LOAD_SCALAR: return infer_load_scalar(in);
  case PTO_TILE_KIND_UNARY: return infer_unary(in);
  case PTO_TILE_KIND_CAST: return infer_cast(in);
  case PTO_TILE_KIND_BINARY: return infer_binary(in);
  case PTO_TILE_KIND_SCALAR: return infer_scalar(in);
  case PTO_TILE_KIND_COMPARE: return infer_compare(in);
  case PTO_TILE_KIND_WHERE: return infer_where(in);
  case PTO_TILE_KIND_ROWRED: return infer_reduce(in, false, false);
  case PTO_TILE_KIND_COLRED: return infer_reduce(in, true, false);
  case PTO_TILE_KIND_ROWARG: return infer_reduce(in, false, true);
  case PTO_TILE_KIND_COLARG: return infer_reduce(in, true, true);
  case PTO_TILE_KIND_ARGCOMBINE: return infer_argcombine(in);
  case PTO_TILE_KIND_ROWEXPAND: return infer_rowcol_expand(in, false);
  case PTO_TILE_KIND_COLEXPAND: return infer_rowcol_expand(in, true);
  case PTO_TILE_KIND_EXPAND: return infer_expand(in);
  case PTO_TILE_KIND_FULL: return infer_full(in);
  case PTO_TILE_KIND_RESHAPE: return infer_reshape(in);
  case PTO_TILE_KIND_TRANSPOSE: return infer_transpose(in);
  case PTO_TILE_KIND_MATMUL: return infer_matmul(in);
  case PTO_TILE_KIND_GATHER: return infer_gather(in);
  case PTO_TILE_KIND_INDEX_SELECT: return infer_index_select(in);
  case PTO_TILE_KIND_SCATTER:
    return in->id == PTO_TILE_SCATTER_ELEMENTS ? infer_scatter_elements(in) : infer_scatter(in);
  case PTO_TILE_KIND_TOPK: return infer_topk(in);
  case PTO_TILE_KIND_TOPK_MERGE: return infer_topk_merge(in);
  case PTO_TILE_KIND_QUANTIZE: return infer_quantize(in);
  case PTO_TILE_KIND_DEQUANTIZE: return infer_dequantize(in);
  case PTO_TILE_KIND_RANDOM: return infer_random(in);
  }
  return ERR("unknown op kind");
}

PtoResult tile_infer_check_results(TileInfer *in) {
  for (unsigned i = 0; i < in->nres; i++) {
    if (in->want[i] == in->res[i]) continue;
    return ERR("result #%u has type '%s' but the inferred type is '%s'", i,
               in->want[i] ? TSTR(in->want[i]) : "nothing", TSTR(in->res[i]));
  }
  return PTO_SUCCESS;
}

PtoResult pto_tile_infer_types(PtoContext *ctx, PtoLoc *loc, PtoTileOp id,
                               PtoType *const *operand_types, unsigned n,
                               const PtoNamedAttr *attrs, unsigned nattrs,
                               PtoType *const *want, PtoType **results,
                               unsigned *nresults) {
  TileInfer in;
  tile_infer_init(&in, ctx, loc, id, operand_types, n, attrs, nattrs);
  unsigned nres = tile_op_defs[id].num_results;
  for (unsigned i = 0; want && i < nres && i < 2; i++) in.want[i] = want[i];
  PtoResult r = tile_infer(&in);
  if (!r) {
    for (unsigned i = 0; i < in.nres; i++) results[i] = in.res[i];
    *nresults = in.nres;
  }
  tile_infer_done(&in);
  return r;
}

static PtoResult check(PtoContext *ctx, PtoLoc *loc, int id,
                       PtoType *const *operands, unsigned n,
                       const PtoNamedAttr *attrs, unsigned nattrs,
                       PtoType *const *results, unsigned nres) {
  TileInfer in;
  tile_infer_init(&in, ctx, loc, (PtoTileOp)id, operands, n, attrs, nattrs);
  for (unsigned i = 0; i < nres; i++) in.want[i] = results[i];
  PtoResult r = tile_infer(&in);
  if (!r) r = tile_infer_check_results(&in);
  tile_infer_done(&in);
  return r;
}

PtoResult tile_verify(PtoOp *op) {
  return pto_optable_verify(&tile_op_table, op, check);
}
