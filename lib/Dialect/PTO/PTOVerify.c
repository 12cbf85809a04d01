/* The pto dialect's verifier: each instruction's operand kinds, memory
 * spaces, shapes and element types (per the KIND and DTYPES columns of
 * PTOOps.def), the flags' pipes (on the kernel's core) and event ids,
 * and the kernel rules (the core's buffers, all tiles planned or none).
 * An instruction on a pipe its core lacks always has a tile in a buffer
 * the core lacks, which the kernel rule reports. Every message is
 * listed with a test in test/Dialect/PTO/invalid.pto. */
#include "Dialect/Common/OpCheck.h"
#include "Dialect/PTO/PTOInternal.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/NdArray.h"

#include <stdio.h>
#include <string.h>

typedef struct Verifier {
  PtoOp *op;
  PtoPtoOp id;
  PtoOpCheck c;
} Verifier;

#define ERR(v, ...) PTO_CHECK_ERR(&(v)->c, __VA_ARGS__)

static const char *tstr(Verifier *v, PtoType *t) {
  return pto_opcheck_tstr(&v->c, t);
}

static PtoType *opnd(Verifier *v, unsigned i) {
  return pto_value_type(pto_op_operand(v->op, i));
}

static PtoType *res(Verifier *v, unsigned i) {
  return pto_value_type(pto_op_result(v->op, i));
}

static const char *mn(Verifier *v) { return pto_pto_op_mnemonic(v->id); }

/* ---- operand kinds and spaces ---- */

/* `what` #i ("operand #1", "result #0") must be a tile. */
static PtoResult need_tile(Verifier *v, const char *what, unsigned i,
                           PtoType *t) {
  if (!pto_type_is_pto_tile(t))
    return ERR(v, "%s #%u must be a '!pto.tile', got '%s'", what, i, tstr(v, t));
  return PTO_SUCCESS;
}

/* Every operand from `first` on and every result is a tile. */
static PtoResult all_tiles(Verifier *v, unsigned first) {
  for (unsigned i = first; i < pto_op_num_operands(v->op); i++)
    if (need_tile(v, "operand", i, opnd(v, i))) return PTO_FAILURE;
  for (unsigned i = 0; i < pto_op_num_results(v->op); i++)
    if (need_tile(v, "result", i, res(v, i))) return PTO_FAILURE;
  return PTO_SUCCESS;
}

static PtoResult need_space(Verifier *v, const char *what, unsigned i,
                            PtoType *t, PtoBufSpace want, const char *why) {
  PtoBufSpace s = pto_pto_tile_space(t);
  if (s != want)
    return ERR(v, "%s #%u must be in %s (%s), got '%s'", what, i,
               pto_buf_space_name(want), why, pto_buf_space_name(s));
  return PTO_SUCCESS;
}

/* Vector instructions: every tile in vec. */
static PtoResult all_vec(Verifier *v, unsigned first) {
  for (unsigned i = first; i < pto_op_num_operands(v->op); i++)
    if (pto_type_is_pto_tile(opnd(v, i)) &&
        need_space(v, "operand", i, opnd(v, i), PTO_BUF_VEC,
                   "vector instructions work on UB"))
      return PTO_FAILURE;
  for (unsigned i = 0; i < pto_op_num_results(v->op); i++)
    if (need_space(v, "result", i, res(v, i), PTO_BUF_VEC,
                   "vector instructions work on UB"))
      return PTO_FAILURE;
  return PTO_SUCCESS;
}

/* ---- shapes and element types ---- */

static PtoResult need_shape(Verifier *v, const char *what, unsigned i,
                            PtoType *t, int64_t rows, int64_t cols) {
  if (pto_pto_tile_rows(t) != rows || pto_pto_tile_cols(t) != cols)
    return ERR(v, "%s #%u is %lldx%lld; expected %lldx%lld", what, i,
               (long long)pto_pto_tile_rows(t), (long long)pto_pto_tile_cols(t),
               (long long)rows, (long long)cols);
  return PTO_SUCCESS;
}

static PtoResult need_elem(Verifier *v, const char *what, unsigned i,
                           PtoType *t, PtoType *elem) {
  if (pto_pto_tile_elem(t) != elem)
    return ERR(v, "%s #%u has element type '%s'; expected '%s'", what, i,
               tstr(v, pto_pto_tile_elem(t)), tstr(v, elem));
  return PTO_SUCCESS;
}

/* Shape and element type of `t` equal to `like` (offsets may differ). */
static PtoResult need_like(Verifier *v, const char *what, unsigned i,
                           PtoType *t, PtoType *like) {
  return need_shape(v, what, i, t, pto_pto_tile_rows(like),
                    pto_pto_tile_cols(like)) ||
         need_elem(v, what, i, t, pto_pto_tile_elem(like));
}

static bool is_float(PtoType *e) { return pto_type_is_float(e); }
static bool is_i1(PtoType *e) {
  return pto_type_is_integer(e) && pto_type_int_width(e) == 1;
}

static bool is_f8(PtoType *e) {
  if (!is_float(e)) return false;
  PtoFloatKind k = pto_type_float_kind(e);
  return k == PTO_F8E4M3FN || k == PTO_F8E5M2 || k == PTO_F8E8M0FNU;
}

/* The DTYPES column for the element type of tile `t`. The 8-bit floats
 * are storage types: the rows that move data (ANY) and tcvt take them,
 * every instruction that computes on its elements refuses them. */
static PtoResult need_dtypes(Verifier *v, PtoType *t) {
  PtoType *e = pto_pto_tile_elem(t);
  PtoPtoDtypes dts = pto_pto_op_dtypes(v->id);
  if (is_f8(e) && dts != PTO_PTO_DT_ANY && pto_pto_op_kind(v->id) != PTO_PTO_KIND_CVT)
    return ERR(v, "element type '%s' is a storage type: %s does not compute on "
                  "it (tcvt converts it to f32, f16 or bf16 first)", tstr(v, e), mn(v));
  switch (dts) {
  case PTO_PTO_DT_FLOAT:
    if (!is_float(e))
      return ERR(v, "element type '%s' is not supported; %s takes f32, f16 "
                    "or bf16", tstr(v, e), mn(v));
    break;
  case PTO_PTO_DT_INT:
    if (is_float(e) || is_i1(e))
      return ERR(v, "element type '%s' is not supported; %s takes i64, i32, "
                    "i16, i8, ui64, ui32, ui16 or ui8", tstr(v, e), mn(v));
    break;
  case PTO_PTO_DT_NUMERIC:
    if (is_i1(e))
      return ERR(v, "element type 'i1' is not supported; %s takes f32, f16, "
                    "bf16, i64, i32, i16, i8, ui64, ui32, ui16 or ui8", mn(v));
    break;
  case PTO_PTO_DT_BOOL:
    if (!is_i1(e))
      return ERR(v, "the mask (operand #0) must have element type 'i1', got "
                    "'%s'", tstr(v, e));
    break;
  default: break;
  }
  return PTO_SUCCESS;
}

/* ---- attributes ---- */

static PtoResult known_attrs(Verifier *v, const char *const *known) {
  return pto_opcheck_known_attrs(&v->c, known, NULL,
                                 known[0] ? "and attributes with a dialect "
                                            "prefix"
                                          : "only attributes with a dialect "
                                            "prefix");
}

static const char *const no_attrs[] = {NULL};

/* ---- memory ---- */

/* A window given by `sizes` (one per dim of GM operand #gm) at the op's
 * offsets (dynamic ones from operand #first_dyn on): positive sizes, inside
 * the tensor's static dims. */
static PtoResult sized_window(Verifier *v, unsigned gm, unsigned first_dyn,
                              PtoShape *win) {
  PtoShape src;
  if (pto_opcheck_tensor(&v->c, "operand", gm, opnd(v, gm), &src))
    return PTO_FAILURE;
  int64_t sizes[PTO_MAX_RANK], offs[PTO_MAX_RANK];
  unsigned ns = 0, no = 0;
  PtoAttr *a = pto_op_attr(v->op, "sizes");
  if (!a || !pto_attr_get_i64_array(a, sizes, PTO_MAX_RANK, &ns) ||
      ns != src.rank)
    return ERR(v, "requires 'sizes' with one size per tensor dim (%u)",
               src.rank);
  for (unsigned d = 0; d < ns; d++)
    if (sizes[d] < 1)
      return ERR(v, "size of dim %u must be positive, got %lld", d,
                 (long long)sizes[d]);
  pto_shape_init(win, sizes, ns);
  if (pto_opcheck_offsets(&v->c, first_dyn, offs, &no)) return PTO_FAILURE;
  return pto_shape_window_check(&v->c.site, &src, offs, no, win);
}

/* The window of a tload / tstore: the tile's shape in a 2-D tensor, or
 * given by `sizes` in a tensor of any rank, whose non-unit sizes are the
 * tile's non-unit dims in order (a 4x64 tile in a [1, 4, 1, 64] window) or
 * whose leading sizes flatten into the rows (an 8x64 tile in [2, 4, 64],
 * its rows at one or several strides). */
static PtoResult tile_window(Verifier *v, PtoType *t, unsigned gm,
                             unsigned first_dyn) {
  if (!pto_op_attr(v->op, "sizes"))
    return pto_dialect_check_window(v->op, t, opnd(v, gm), first_dyn);
  PtoShape win;
  if (sized_window(v, gm, first_dyn, &win)) return PTO_FAILURE;
  PtoType *te = pto_type_tensor_elem(opnd(v, gm));
  if (pto_pto_tile_elem(t) != te)
    return ERR(v, "the tile has element type '%s' and the tensor '%s'",
               tstr(v, pto_pto_tile_elem(t)), tstr(v, te));
  /* rows at several strides are pieces of the tile, one burst each */
  PtoPtoWindowPieces pieces;
  if (!pto_pto_window_pieces(win.rank, win.dims, NULL, pto_pto_tile_rows(t),
                             pto_pto_tile_cols(t), &pieces)) {
    char buf[PTO_MAX_RANK * 24];
    return ERR(v, "a window of sizes %s does not hold a %lldx%lld tile: its "
                  "sizes other than 1 must be the tile's dims other than 1, "
                  "or its last size the tile's columns and the product of "
                  "its leading sizes the tile's rows",
               pto_shape_format(&win, buf, sizeof buf),
               (long long)pto_pto_tile_rows(t), (long long)pto_pto_tile_cols(t));
  }
  return PTO_SUCCESS;
}

static PtoResult verify_load(Verifier *v) {
  static const char *const known[] = {PTO_ATTR_STATIC_OFFSETS, "sizes", NULL};
  PtoType *t = res(v, 0);
  if (known_attrs(v, known) || need_tile(v, "result", 0, t)) return PTO_FAILURE;
  PtoBufSpace s = pto_pto_tile_space(t);
  if (s != PTO_BUF_VEC && s != PTO_BUF_MAT)
    return ERR(v, "result #0 must be in vec or mat (tload moves GM to UB or "
                  "L1), got '%s'", pto_buf_space_name(s));
  return tile_window(v, t, 0, 1);
}

static PtoResult verify_store(Verifier *v) {
  static const char *const known[] = {PTO_ATTR_STATIC_OFFSETS, "sizes", NULL};
  PtoType *t = opnd(v, 0);
  if (known_attrs(v, known) || need_tile(v, "operand", 0, t)) return PTO_FAILURE;
  PtoBufSpace s = pto_pto_tile_space(t);
  if (s != PTO_BUF_VEC && s != PTO_BUF_ACC)
    return ERR(v, "operand #0 must be in vec or acc (tstore moves UB or L0C "
                  "to GM), got '%s'", pto_buf_space_name(s));
  /* FIX converts on the way out: an f32 accumulator into f16 or bf16 */
  PtoType *te = pto_type_is_tensor(opnd(v, 1)) ? pto_type_tensor_elem(opnd(v, 1))
                                               : NULL;
  PtoType *e = pto_pto_tile_elem(t);
  if (te && te != e && s == PTO_BUF_ACC && is_float(e) &&
      pto_type_float_kind(e) == PTO_F32 && is_float(te) &&
      pto_type_float_kind(te) != PTO_F32)
    t = pto_pto_tile_type(v->c.ctx, pto_pto_tile_rows(t), pto_pto_tile_cols(t),
                          te, s, pto_pto_tile_offset(t));
  return tile_window(v, t, 1, 2);
}

static PtoResult verify_prefetch(Verifier *v) {
  static const char *const known[] = {PTO_ATTR_STATIC_OFFSETS, "sizes", NULL};
  PtoShape win;
  return known_attrs(v, known) || sized_window(v, 0, 1, &win);
}

/* trandom %key, %counter {dist, origin, full, window}: i64 scalars, a
 * float vec tile, and a window of the stream whose dims flatten to the
 * tile (the leading ones into its rows). */
static PtoResult verify_random(Verifier *v) {
  static const char *const known[] = {"dist", "origin", "full", "window", NULL};
  static const char *const dists[] = {"uniform", "normal", NULL};
  PtoType *i64 = pto_type_int(v->c.ctx, 64), *r = res(v, 0);
  if (known_attrs(v, known) || need_tile(v, "result", 0, r) || all_vec(v, 0) ||
      need_dtypes(v, r))
    return PTO_FAILURE;
  for (unsigned i = 0; i < 2; i++)
    if (opnd(v, i) != i64)
      return ERR(v, "the %s (operand #%u) must be 'i64', got '%s'", i ? "counter" : "key", i,
                 tstr(v, opnd(v, i)));
  if (!pto_op_attr_str(v->op, "dist"))
    return ERR(v, "requires the attribute 'dist' (\"uniform\" or \"normal\")");
  if (pto_opcheck_enum(&v->c, "dist", dists, "\"uniform\" or \"normal\""))
    return PTO_FAILURE;
  int64_t o[PTO_MAX_RANK], f[PTO_MAX_RANK], w[PTO_MAX_RANK];
  unsigned no, nf, nw;
  if (!pto_attr_get_i64_array(pto_op_attr(v->op, "origin"), o, PTO_MAX_RANK, &no) ||
      !pto_attr_get_i64_array(pto_op_attr(v->op, "full"), f, PTO_MAX_RANK, &nf) ||
      !pto_attr_get_i64_array(pto_op_attr(v->op, "window"), w, PTO_MAX_RANK, &nw) ||
      no != nf || nw != nf || nf == 0)
    return ERR(v, "requires i64 array attributes 'origin', 'full' and 'window' of one "
                  "length, 1 to %d entries", PTO_MAX_RANK);
  int64_t rows = 1;
  for (unsigned d = 0; d < nf; d++) {
    if (f[d] <= 0 || w[d] < 0 || o[d] < 0 || o[d] > f[d] - w[d])
      return ERR(v, "window of dim %u (origin %lld, size %lld) is outside 'full' (%lld)", d,
                 (long long)o[d], (long long)w[d], (long long)f[d]);
    if (d + 1 < nf) rows *= w[d];
  }
  return need_shape(v, "result", 0, r, rows, w[nf - 1]);
}

/* An index tile's element type: i32 or i64. */
static PtoResult need_index_elem(Verifier *v, unsigned i) {
  PtoType *ie = pto_pto_tile_elem(opnd(v, i));
  if (ie == pto_type_int(v->c.ctx, 32) || ie == pto_type_int(v->c.ctx, 64))
    return PTO_SUCCESS;
  return ERR(v, "operand #%u has element type '%s'; expected 'i32' or 'i64'", i,
             tstr(v, ie));
}

/* The GM window of tgather_gm / tscatter_gm (tensor operand `gi`, the
 * tile t): the tile seen in the tensor's rank (`shape`, required unless
 * the tensor is 2-D), `dim` one of the tensor's dims, the offset along it
 * 0 (the index tile gives the positions), and the window, the tile's
 * shape but the whole tensor along dim, inside the tensor. */
static PtoResult indexed_window(Verifier *v, unsigned gi, PtoType *t, const PtoShape *x,
                                unsigned *dim, int64_t *shape) {
  PtoAttr *d = pto_op_attr(v->op, "dim");
  if (!pto_op_attr(v->op, "shape") && x->rank != 2)
    return ERR(v, "requires the attribute 'shape' (the tile's dims in the rank-%u tensor)",
               x->rank);
  if (pto_pto_indexed_shape(v->op, shape) != x->rank) {
    int64_t got[PTO_MAX_RANK];
    unsigned n = 0;
    char b[PTO_SHAPE_STR_MAX];
    if (!pto_attr_get_i64_array(pto_op_attr(v->op, "shape"), got, PTO_MAX_RANK, &n))
      return ERR(v, "attribute 'shape' must be an array of 1 to %d integers", PTO_MAX_RANK);
    size_t at = 0;
    for (unsigned d = 0; d < n; d++)
      at += (size_t)snprintf(b + at, sizeof b - at, "%s%lld", d ? ", " : "", (long long)got[d]);
    return ERR(v, "attribute 'shape' [%s] is not the %lldx%lld tile in the rank-%u tensor "
                  "(its leading sizes multiply to the rows, its last is the columns)",
               b, (long long)pto_pto_tile_rows(t), (long long)pto_pto_tile_cols(t), x->rank);
  }
  if (!d || pto_attr_kind(d) != PTO_ATTR_INTEGER || pto_attr_int_value(d) < 0 ||
      pto_attr_int_value(d) >= (int64_t)x->rank)
    return x->rank == 2 ? ERR(v, "requires an integer 'dim' of 0 or 1")
                        : ERR(v, "requires an integer 'dim' in [0, %u)", x->rank);
  *dim = (unsigned)pto_attr_int_value(d);
  unsigned no = 0;
  int64_t offs[PTO_MAX_RANK], win[PTO_MAX_RANK];
  if (pto_opcheck_offsets(&v->c, gi + 2, offs, &no)) return PTO_FAILURE;
  if (no == x->rank && offs[*dim] != 0)
    return ERR(v, "offset #%u must be 0: the index tile gives the positions "
                  "along dim %u", *dim, *dim);
  memcpy(win, shape, x->rank * sizeof *win);
  win[*dim] = x->dims[*dim];
  PtoShape w;
  pto_shape_init(&w, win, x->rank);
  return pto_shape_window_check(&v->c.site, x, offs, no, &w);
}

/* tgather_gm: torch.gather of a GM window into vec, the index tile (i32
 * or i64, in vec: MTE2 reads it for the addresses) giving the positions
 * along `dim`; the result has the index tile's shape. */
static PtoResult verify_gather_gm(Verifier *v) {
  static const char *const known[] = {PTO_ATTR_STATIC_OFFSETS, "dim", "shape", NULL};
  PtoShape src;
  PtoType *ix = opnd(v, 1), *r = res(v, 0);
  int64_t shape[PTO_MAX_RANK];
  unsigned dim;
  if (known_attrs(v, known) ||
      pto_opcheck_tensor(&v->c, "operand", 0, opnd(v, 0), &src) ||
      need_tile(v, "operand", 1, ix) || need_tile(v, "result", 0, r) ||
      all_vec(v, 1) || need_index_elem(v, 1))
    return PTO_FAILURE;
  if (need_like(v, "result", 0, r,
                pto_pto_tile_type(v->c.ctx, pto_pto_tile_rows(ix),
                                  pto_pto_tile_cols(ix),
                                  pto_type_tensor_elem(opnd(v, 0)), PTO_BUF_VEC, 0)))
    return PTO_FAILURE;
  return indexed_window(v, 0, r, &src, &dim, shape);
}

/* tscatter_gm %t, %A[offsets], %ix {dim, mode}: the vec tile written
 * into a GM window along `dim` (the window as tgather_gm's). The index
 * tile (i32 or i64, in vec: MTE3 reads the addresses from it) is the
 * tile's shape, one index per element, or a single row of one index per
 * slice along dim. add and multiply combine with what GM holds, so they
 * need numbers. */
static PtoResult verify_scatter_gm(Verifier *v) {
  static const char *const known[] = {PTO_ATTR_STATIC_OFFSETS, "dim", "mode", "shape",
                                      NULL};
  static const char *const modes[] = {"overwrite", "add", "multiply", NULL};
  PtoShape dst;
  PtoType *t = opnd(v, 0), *ix = opnd(v, 2);
  int64_t shape[PTO_MAX_RANK];
  unsigned dim;
  if (known_attrs(v, known) || need_tile(v, "operand", 0, t) ||
      pto_opcheck_tensor(&v->c, "operand", 1, opnd(v, 1), &dst) ||
      need_tile(v, "operand", 2, ix) ||
      need_space(v, "operand", 0, t, PTO_BUF_VEC, "MTE3 scatters from UB") ||
      all_vec(v, 2) || need_index_elem(v, 2))
    return PTO_FAILURE;
  if (need_elem(v, "operand", 0, t, pto_type_tensor_elem(opnd(v, 1)))) return PTO_FAILURE;
  if (pto_opcheck_enum(&v->c, "mode", modes, "\"overwrite\", \"add\" or \"multiply\""))
    return PTO_FAILURE;
  const char *mode = pto_op_attr_str(v->op, "mode");
  if (mode && strcmp(mode, "overwrite") != 0 && is_i1(pto_pto_tile_elem(t)))
    return ERR(v, "mode \"%s\" combines numbers; element type 'i1' can only be "
                  "overwritten", mode);
  if (indexed_window(v, 1, t, &dst, &dim, shape)) return PTO_FAILURE;
  int64_t rows = pto_pto_tile_rows(t), cols = pto_pto_tile_cols(t);
  int64_t slices = shape[dim];
  bool each = pto_pto_tile_rows(ix) == rows && pto_pto_tile_cols(ix) == cols;
  if (!each && (pto_pto_tile_rows(ix) != 1 || pto_pto_tile_cols(ix) != slices))
    return ERR(v, "index tile (operand #2) is %lldx%lld; expected %lldx%lld (one index "
                  "per element) or 1x%lld (one per slice along dim %u)",
               (long long)pto_pto_tile_rows(ix), (long long)pto_pto_tile_cols(ix),
               (long long)rows, (long long)cols, (long long)slices, dim);
  return PTO_SUCCESS;
}

static PtoResult verify_mov(Verifier *v) {
  PtoType *a = opnd(v, 0), *r = res(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) ||
      need_like(v, "result", 0, r, a))
    return PTO_FAILURE;
  PtoBufSpace s = pto_pto_tile_space(a), d = pto_pto_tile_space(r);
  bool ok = (s == PTO_BUF_MAT && (d == PTO_BUF_LEFT || d == PTO_BUF_RIGHT)) ||
            (s == PTO_BUF_ACC && d == PTO_BUF_MAT);
  if (!ok)
    return ERR(v, "cannot move a tile from '%s' to '%s'; tmov moves mat to "
                  "left or right, and acc to mat",
               pto_buf_space_name(s), pto_buf_space_name(d));
  return PTO_SUCCESS;
}

/* ---- vector ---- */

/* Instructions whose operands and result all have one shape and element
 * type: binary, unary, and the tile part of the scalar forms. */
static PtoResult verify_elementwise(Verifier *v, unsigned ntiles) {
  PtoType *a = opnd(v, 0);
  /* tlrelu's slope, tclip's min and max: the Tile level's attributes */
  PtoUnaryRow row = pto_pto_unary_row(v->id);
  if (known_attrs(v, row == PTO_UNARY_ROW_NONE ? no_attrs : pto_unary_row_attrs(row)) ||
      (row != PTO_UNARY_ROW_NONE && pto_opcheck_unary_attrs(&v->c, row)))
    return PTO_FAILURE;
  for (unsigned i = 0; i < ntiles; i++)
    if (need_tile(v, "operand", i, opnd(v, i))) return PTO_FAILURE;
  if (need_tile(v, "result", 0, res(v, 0)) || all_vec(v, 0) ||
      need_dtypes(v, a))
    return PTO_FAILURE;
  for (unsigned i = 1; i < ntiles; i++)
    if (need_like(v, "operand", i, opnd(v, i), a)) return PTO_FAILURE;
  return need_like(v, "result", 0, res(v, 0), a);
}

static PtoResult verify_scalar(Verifier *v) {
  if (verify_elementwise(v, 1)) return PTO_FAILURE;
  PtoType *e = pto_pto_tile_elem(opnd(v, 0)), *s = opnd(v, 1);
  if (s != e)
    return ERR(v, "the scalar (operand #1) must have the tile's element type "
                  "'%s', got '%s'", tstr(v, e), tstr(v, s));
  return PTO_SUCCESS;
}

static PtoResult verify_cvt(Verifier *v) {
  PtoType *a = opnd(v, 0), *r = res(v, 0);
  static const char *const known[] = {PTO_ATTR_MODE, PTO_ATTR_SATMODE, NULL};
  if (known_attrs(v, known) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a) || need_dtypes(v, r) ||
      need_shape(v, "result", 0, r, pto_pto_tile_rows(a), pto_pto_tile_cols(a)))
    return PTO_FAILURE;
  return pto_opcheck_cast_attrs(&v->c);
}

static PtoResult verify_cmp(Verifier *v) {
  static const char *const known[] = {"cmp", NULL};
  static const char *const preds[] = {"eq", "ne", "lt", "le", "gt", "ge", NULL};
  PtoType *a = opnd(v, 0), *r = res(v, 0);
  if (known_attrs(v, known) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a) || need_like(v, "operand", 1, opnd(v, 1), a) ||
      need_shape(v, "result", 0, r, pto_pto_tile_rows(a), pto_pto_tile_cols(a)))
    return PTO_FAILURE;
  if (!is_i1(pto_pto_tile_elem(r)))
    return ERR(v, "result #0 must have element type 'i1', got '%s'",
               tstr(v, pto_pto_tile_elem(r)));
  if (!pto_op_attr(v->op, "cmp")) return ERR(v, "requires attribute 'cmp'");
  return pto_opcheck_enum(&v->c, "cmp", preds,
                          "one of \"eq\", \"ne\", \"lt\", \"le\", \"gt\", "
                          "\"ge\"");
}

static PtoResult verify_sel(Verifier *v) {
  PtoType *m = opnd(v, 0), *a = opnd(v, 1);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, m) ||
      need_shape(v, "operand", 0, m, pto_pto_tile_rows(a), pto_pto_tile_cols(a)) ||
      need_like(v, "operand", 2, opnd(v, 2), a))
    return PTO_FAILURE;
  return need_like(v, "result", 0, res(v, 0), a);
}

/* trow*: MxN -> Mx1; tcol*: MxN -> 1xN. */
static PtoResult verify_reduce(Verifier *v, bool rows) {
  PtoType *a = opnd(v, 0), *r = res(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a))
    return PTO_FAILURE;
  int64_t m = pto_pto_tile_rows(a), n = pto_pto_tile_cols(a);
  return need_shape(v, "result", 0, r, rows ? m : 1, rows ? 1 : n) ||
         need_elem(v, "result", 0, r, pto_pto_tile_elem(a));
}

/* trowarg* (Mx1 values and i32 columns) and tcolarg* (1xN values and
 * i32 rows). */
static PtoResult verify_arg(Verifier *v, bool rows) {
  PtoType *a = opnd(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a))
    return PTO_FAILURE;
  int64_t m = rows ? pto_pto_tile_rows(a) : 1, n = rows ? 1 : pto_pto_tile_cols(a);
  return need_shape(v, "result", 0, res(v, 0), m, n) ||
         need_elem(v, "result", 0, res(v, 0), pto_pto_tile_elem(a)) ||
         need_shape(v, "result", 1, res(v, 1), m, n) ||
         need_elem(v, "result", 1, res(v, 1), pto_type_int(v->c.ctx, 32));
}

/* targ*_combine (v0, i0, v1, i1) -> (v, i): one shape throughout, the
 * values of one element type, the positions i32. */
static PtoResult verify_arg_combine(Verifier *v) {
  PtoType *a = opnd(v, 0), *i32 = pto_type_int(v->c.ctx, 32);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a))
    return PTO_FAILURE;
  for (unsigned i = 1; i < 4; i++)
    if (need_shape(v, "operand", i, opnd(v, i), pto_pto_tile_rows(a),
                   pto_pto_tile_cols(a)) ||
        need_elem(v, "operand", i, opnd(v, i),
                  i == 2 ? pto_pto_tile_elem(a) : i32))
      return PTO_FAILURE;
  return need_like(v, "result", 0, res(v, 0), a) ||
         need_like(v, "result", 1, res(v, 1), opnd(v, 1));
}

static PtoResult verify_rowexpand(Verifier *v) {
  PtoType *a = opnd(v, 0), *b = opnd(v, 1);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a) ||
      need_shape(v, "operand", 1, b, pto_pto_tile_rows(a), 1) ||
      need_elem(v, "operand", 1, b, pto_pto_tile_elem(a)))
    return PTO_FAILURE;
  return need_like(v, "result", 0, res(v, 0), a);
}

static PtoResult verify_trans(Verifier *v) {
  PtoType *a = opnd(v, 0), *r = res(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0)) return PTO_FAILURE;
  if (v->id == PTO_PTO_TMOV_TRANS) {
    PtoBufSpace d = pto_pto_tile_space(r);
    if (need_space(v, "operand", 0, a, PTO_BUF_MAT,
                   "tmov_trans moves L1 to L0A or L0B"))
      return PTO_FAILURE;
    if (d != PTO_BUF_LEFT && d != PTO_BUF_RIGHT)
      return ERR(v, "result #0 must be in left or right (tmov_trans moves L1 "
                    "to L0A or L0B), got '%s'", pto_buf_space_name(d));
  } else if (all_vec(v, 0)) {
    return PTO_FAILURE;
  }
  return need_shape(v, "result", 0, r, pto_pto_tile_cols(a),
                    pto_pto_tile_rows(a)) ||
         need_elem(v, "result", 0, r, pto_pto_tile_elem(a));
}

/* tpermute / trepeat: in vec, the operand a view of `shape`, the result
 * the view permuted (repeated) (pto_pto_layout_map). */
static PtoResult verify_layout(Verifier *v) {
  static const char *const permute[] = {"shape", "perm", NULL};
  static const char *const repeat[] = {"shape", "repeats", NULL};
  if (known_attrs(v, v->id == PTO_PTO_TPERMUTE ? permute : repeat) ||
      all_tiles(v, 0) || all_vec(v, 0))
    return PTO_FAILURE;
  int64_t shape[PTO_MAX_RANK], stride[PTO_MAX_RANK];
  char why[256];
  if (!pto_pto_layout_explain(v->op, shape, stride, why, sizeof why))
    return ERR(v, "%s", why);
  return PTO_SUCCESS;
}

static PtoResult verify_expand(Verifier *v) {
  PtoType *a = opnd(v, 0), *r = res(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_elem(v, "result", 0, r, pto_pto_tile_elem(a)))
    return PTO_FAILURE;
  int64_t ar = pto_pto_tile_rows(a), ac = pto_pto_tile_cols(a);
  int64_t rr = pto_pto_tile_rows(r), rc = pto_pto_tile_cols(r);
  if ((ar != 1 && ar != rr) || (ac != 1 && ac != rc))
    return ERR(v, "operand #0 is %lldx%lld; each of its dims must be 1 or the "
                  "result's %lldx%lld",
               (long long)ar, (long long)ac, (long long)rr, (long long)rc);
  return PTO_SUCCESS;
}

static PtoResult verify_expands(Verifier *v) {
  PtoType *s = opnd(v, 0), *r = res(v, 0);
  if (known_attrs(v, no_attrs) || need_tile(v, "result", 0, r) || all_vec(v, 1))
    return PTO_FAILURE;
  if (s != pto_pto_tile_elem(r))
    return ERR(v, "the scalar (operand #0) must have the result's element "
                  "type '%s', got '%s'", tstr(v, pto_pto_tile_elem(r)), tstr(v, s));
  return PTO_SUCCESS;
}

static PtoResult verify_gather(Verifier *v) {
  PtoType *a = opnd(v, 0), *ix = opnd(v, 1), *r = res(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a) ||
      need_elem(v, "operand", 1, ix, pto_type_int(v->c.ctx, 32)))
    return PTO_FAILURE;
  if (pto_pto_tile_rows(ix) != pto_pto_tile_rows(a))
    return ERR(v, "the index tile has %lld rows; expected %lld (one index row "
                  "per source row)",
               (long long)pto_pto_tile_rows(ix), (long long)pto_pto_tile_rows(a));
  return need_shape(v, "result", 0, r, pto_pto_tile_rows(ix),
                    pto_pto_tile_cols(ix)) ||
         need_elem(v, "result", 0, r, pto_pto_tile_elem(a));
}

/* Values and their i32 indices: results (values, indices) like the
 * operands. */
static PtoResult verify_sorted_pair(Verifier *v, PtoType *vals) {
  PtoType *i32 = pto_type_int(v->c.ctx, 32);
  int64_t m = pto_pto_tile_rows(vals), n = pto_pto_tile_cols(vals);
  return need_like(v, "result", 0, res(v, 0), vals) ||
         need_shape(v, "result", 1, res(v, 1), m, n) ||
         need_elem(v, "result", 1, res(v, 1), i32);
}

static PtoResult verify_sort32(Verifier *v) {
  PtoType *a = opnd(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a))
    return PTO_FAILURE;
  if (pto_pto_tile_cols(a) % 32)
    return ERR(v, "rows of %lld elements are not whole 32-element blocks",
               (long long)pto_pto_tile_cols(a));
  return verify_sorted_pair(v, a);
}

static PtoResult verify_mrgsort(Verifier *v) {
  static const char *const known[] = {"block", NULL};
  PtoType *a = opnd(v, 0);
  int64_t block;
  if (known_attrs(v, known) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a) ||
      need_shape(v, "operand", 1, opnd(v, 1), pto_pto_tile_rows(a),
                 pto_pto_tile_cols(a)) ||
      need_elem(v, "operand", 1, opnd(v, 1), pto_type_int(v->c.ctx, 32)) ||
      pto_opcheck_int(&v->c, "block", true, 0, &block))
    return PTO_FAILURE;
  int64_t n = pto_pto_tile_cols(a);
  if (block < 1 || n % (2 * block))
    return ERR(v, "attribute 'block' (%lld) must be positive and rows (%lld "
                  "elements) whole pairs of blocks", (long long)block,
               (long long)n);
  return verify_sorted_pair(v, a);
}

/* The attributes and tiles of ttopk and ttopk_merge: k and largest, every
 * tile in vec, operand #0 of a numeric type. */
static PtoResult topk_head(Verifier *v, int64_t *k) {
  static const char *const known[] = {"k", "largest", NULL};
  bool largest;
  return known_attrs(v, known) || all_tiles(v, 0) || all_vec(v, 0) ||
         need_dtypes(v, opnd(v, 0)) || pto_opcheck_int(&v->c, "k", true, 0, k) ||
         pto_opcheck_bool(&v->c, "largest", true, &largest);
}

/* k in [1, n], then the Mxk values of operand #0's type and i32 indices. */
static PtoResult topk_results(Verifier *v, int64_t m, int64_t n, int64_t k,
                              const char *what) {
  if (k < 1 || k > n)
    return ERR(v, "attribute 'k' (%lld) must be in [1, %lld], %s", (long long)k,
               (long long)n, what);
  return need_shape(v, "result", 0, res(v, 0), m, k) ||
         need_elem(v, "result", 0, res(v, 0), pto_pto_tile_elem(opnd(v, 0))) ||
         need_shape(v, "result", 1, res(v, 1), m, k) ||
         need_elem(v, "result", 1, res(v, 1), pto_type_int(v->c.ctx, 32));
}

/* ttopk {k, largest}: MxN -> (Mxk values, Mxk i32 columns). */
static PtoResult verify_topk(Verifier *v) {
  PtoType *a = opnd(v, 0);
  int64_t k;
  if (topk_head(v, &k)) return PTO_FAILURE;
  return topk_results(v, pto_pto_tile_rows(a), pto_pto_tile_cols(a), k,
                      "the row length");
}

/* ttopk_merge (v0, i0, v1, i1) {k, largest}: two lists of each row, their
 * i32 index values beside them, into the k best and their index values. */
static PtoResult verify_topk_merge(Verifier *v) {
  PtoType *a = opnd(v, 0), *b = opnd(v, 2), *i32 = pto_type_int(v->c.ctx, 32);
  int64_t k;
  if (topk_head(v, &k)) return PTO_FAILURE;
  int64_t m = pto_pto_tile_rows(a), n0 = pto_pto_tile_cols(a),
          n1 = pto_pto_tile_cols(b);
  if (need_shape(v, "operand", 1, opnd(v, 1), m, n0) ||
      need_elem(v, "operand", 1, opnd(v, 1), i32) ||
      need_shape(v, "operand", 2, b, m, n1) ||
      need_elem(v, "operand", 2, b, pto_pto_tile_elem(a)) ||
      need_shape(v, "operand", 3, opnd(v, 3), m, n1) ||
      need_elem(v, "operand", 3, opnd(v, 3), i32))
    return PTO_FAILURE;
  return topk_results(v, m, n0 + n1, k, "the two lists' length");
}

static PtoResult verify_quant(Verifier *v) {
  PtoType *a = opnd(v, 0), *s = opnd(v, 1), *r = res(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) || all_vec(v, 0) ||
      need_dtypes(v, a) ||
      need_shape(v, "operand", 1, s, pto_pto_tile_rows(a), 1) ||
      need_elem(v, "operand", 1, s, pto_type_f32(v->c.ctx)) ||
      need_shape(v, "result", 0, r, pto_pto_tile_rows(a), pto_pto_tile_cols(a)))
    return PTO_FAILURE;
  return need_elem(v, "result", 0, r, pto_type_int(v->c.ctx, 8));
}

/* ---- cube ---- */

static const char *elem_name(PtoType *t) {
  PtoType *e = pto_pto_tile_elem(t);
  if (is_float(e)) {
    PtoFloatKind k = pto_type_float_kind(e);
    return k == PTO_F32 ? "f32" : k == PTO_F16 ? "f16" : k == PTO_BF16 ? "bf16"
         : k == PTO_F8E4M3FN ? "f8E4M3FN" : k == PTO_F8E5M2 ? "f8E5M2" : "f8E8M0FNU";
  }
  unsigned w = pto_type_int_width(e);
  if (pto_type_int_signedness(e) == PTO_UNSIGNED)
    return w == 32 ? "ui32" : w == 16 ? "ui16" : "ui8";
  return w == 64 ? "i64" : w == 32 ? "i32" : w == 16 ? "i16" : w == 8 ? "i8" : "i1";
}

static PtoResult verify_matmul(Verifier *v) {
  /* tmatmul (a, b); tmatmul_acc (c0, a, b); tmatmul_bias (a, b, bias) */
  unsigned ia = v->id == PTO_PTO_TMATMUL_ACC ? 1 : 0;
  PtoType *a = opnd(v, ia), *b = opnd(v, ia + 1), *c = res(v, 0);
  if (known_attrs(v, no_attrs) || all_tiles(v, 0) ||
      need_space(v, "operand", ia, a, PTO_BUF_LEFT, "A is read from L0A") ||
      need_space(v, "operand", ia + 1, b, PTO_BUF_RIGHT, "B is read from L0B") ||
      need_space(v, "result", 0, c, PTO_BUF_ACC, "C is written to L0C"))
    return PTO_FAILURE;
  const char *ec = elem_name(c), *ea = elem_name(a), *eb = elem_name(b);
  bool ok = strcmp(ea, eb) == 0 &&
            (strcmp(ea, "i8") == 0 ? strcmp(ec, "i32") == 0
             : strcmp(ea, "f16") == 0 || strcmp(ea, "bf16") == 0 ||
                     strcmp(ea, "f32") == 0
                 ? strcmp(ec, "f32") == 0
                 : false);
  if (!ok)
    return ERR(v, "element types (C, A, B) = (%s, %s, %s) are not supported; "
                  "%s accepts (i32, i8, i8), (f32, f16, f16), (f32, bf16, "
                  "bf16) and (f32, f32, f32)", ec, ea, eb, mn(v));
  int64_t m = pto_pto_tile_rows(a), k = pto_pto_tile_cols(a),
          n = pto_pto_tile_cols(b);
  if (pto_pto_tile_rows(b) != k)
    return ERR(v, "A is %lldx%lld and B is %lldx%lld: the contracting dims "
                  "differ (%lld vs %lld)", (long long)m, (long long)k,
               (long long)pto_pto_tile_rows(b), (long long)n, (long long)k,
               (long long)pto_pto_tile_rows(b));
  static const char names[3] = {'m', 'k', 'n'};
  int64_t dims[3] = {m, k, n};
  for (unsigned d = 0; d < 3; d++)
    if (dims[d] > 4095)
      return ERR(v, "%c = %lld is out of range [1, 4095]", names[d],
                 (long long)dims[d]);
  if (need_shape(v, "result", 0, c, m, n)) return PTO_FAILURE;
  if (v->id == PTO_PTO_TMATMUL_ACC) {
    PtoType *c0 = opnd(v, 0);
    if (need_space(v, "operand", 0, c0, PTO_BUF_ACC,
                   "the accumulator is in L0C") ||
        need_like(v, "operand", 0, c0, c))
      return PTO_FAILURE;
    if (pto_pto_tile_offset(c0) != pto_pto_tile_offset(c))
      return ERR(v, "accumulates in place: the result must have the "
                    "accumulator's offset (%lld), got %lld",
                 (long long)pto_pto_tile_offset(c0),
                 (long long)pto_pto_tile_offset(c));
  }
  if (v->id == PTO_PTO_TMATMUL_BIAS) {
    PtoType *bias = opnd(v, 2);
    if (need_space(v, "operand", 2, bias, PTO_BUF_MAT,
                   "the bias row is read from L1") ||
        need_shape(v, "operand", 2, bias, 1, n) ||
        need_elem(v, "operand", 2, bias, pto_pto_tile_elem(c)))
      return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

/* ---- synchronisation ---- */

static const char *core_pipes(PtoBlockCore core) {
  return core == PTO_BLOCK_CORE_VECTOR ? "MTE2, V, MTE3 and S"
                                       : "MTE2, MTE1, M, FIX and S";
}

static PtoResult need_pipe(Verifier *v, const char *attr, PtoBlockCore core) {
  PtoAttr *a = pto_op_attr(v->op, attr);
  if (!a) return ERR(v, "requires attribute '%s'", attr);
  PtoPipe p = pto_pipe_lookup(pto_op_attr_str(v->op, attr));
  if (p == PTO_PIPE_NONE)
    return ERR(v, "attribute '%s' must name a pipe (\"MTE2\", \"MTE1\", "
                  "\"M\", \"V\", \"FIX\", \"MTE3\" or \"S\")", attr);
  if (core != PTO_BLOCK_CORE_NONE && !pto_pipe_on_core(p, core))
    return ERR(v, "pipe '%s' is not on a %s core (it has %s)", pto_pipe_name(p),
               core == PTO_BLOCK_CORE_VECTOR ? "vector" : "cube",
               core_pipes(core));
  return PTO_SUCCESS;
}

static PtoResult verify_flag(Verifier *v, PtoBlockCore core) {
  static const char *const known[] = {"src_pipe", "dst_pipe", "event", NULL};
  int64_t ev;
  if (known_attrs(v, known) || need_pipe(v, "src_pipe", core) ||
      need_pipe(v, "dst_pipe", core) ||
      pto_opcheck_int(&v->c, "event", true, 0, &ev))
    return PTO_FAILURE;
  const char *src = pto_op_attr_str(v->op, "src_pipe");
  if (strcmp(src, pto_op_attr_str(v->op, "dst_pipe")) == 0)
    return ERR(v, "source and destination pipes are both '%s'; order a pipe "
                  "with itself by pto.pipe_barrier", src);
  if (ev < 0 || ev >= PTO_PTO_NUM_EVENTS)
    return ERR(v, "event id %lld is out of range [0, %d]", (long long)ev,
               PTO_PTO_NUM_EVENTS - 1);
  return PTO_SUCCESS;
}

/* ---- kernels ---- */

typedef struct KernelCheck {
  PtoBlockCore core;
  PtoOp *planned, *unplanned; /* the first op with a tile of each kind */
  PtoResult r;
} KernelCheck;

static bool space_on_core(PtoBufSpace s, PtoBlockCore core) {
  return core == PTO_BLOCK_CORE_VECTOR ? s == PTO_BUF_VEC : s != PTO_BUF_VEC;
}

static PtoResult check_value(KernelCheck *kc, PtoOp *op, PtoType *t,
                             unsigned i) {
  if (!pto_type_is_pto_tile(t)) {
    PtoTypeKind k = pto_type_kind(t);
    if (k == PTO_TYPE_INDEX || k == PTO_TYPE_INTEGER || k == PTO_TYPE_FLOAT)
      return PTO_SUCCESS;
    return pto_dialect_op_error(op, "result #%u has type '%T'; a pto.kernel "
                                    "computes on '!pto.tile' values, indices "
                                    "and scalars", i, t);
  }
  PtoBufSpace s = pto_pto_tile_space(t);
  if (!space_on_core(s, kc->core))
    return pto_dialect_op_error(
        op, "result #%u is in memory space '%s', which a %s kernel does not "
            "have (%s)", i, pto_buf_space_name(s),
        kc->core == PTO_BLOCK_CORE_VECTOR ? "vector" : "cube",
        kc->core == PTO_BLOCK_CORE_VECTOR ? "it has vec"
                                          : "it has mat, left, right and acc");
  PtoOp **first = pto_pto_tile_offset(t) == PTO_PTO_UNPLANNED ? &kc->unplanned
                                                              : &kc->planned;
  if (!*first) *first = op;
  if (kc->planned && kc->unplanned)
    return pto_op_emit_error(op, "mixes planned and unplanned tiles: memory "
                                 "planning gives every tile of a kernel an "
                                 "offset, or none");
  return PTO_SUCCESS;
}

static PtoWalkResult kernel_walk(PtoOp *op, void *user) {
  KernelCheck *kc = user;
  for (unsigned i = 0; i < pto_op_num_results(op) && !kc->r; i++)
    kc->r = check_value(kc, op, pto_value_type(pto_op_result(op, i)), i);
  for (unsigned r = 0; r < pto_op_num_regions(op) && !kc->r; r++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(op, r)); b && !kc->r;
         b = pto_block_next(b))
      for (unsigned i = 0; i < pto_block_num_args(b) && !kc->r; i++)
        kc->r = check_value(kc, op, pto_value_type(pto_block_arg(b, i)), i);
  return kc->r ? PTO_WALK_INTERRUPT : PTO_WALK_ADVANCE;
}

static PtoResult verify_kernel(PtoOp *op) {
  if (pto_dialect_verify_kernel(op)) return PTO_FAILURE;
  PtoBlock *entry = pto_region_first_block(pto_op_region(op, 0));
  KernelCheck kc = {pto_block_kernel_core(op), NULL, NULL, PTO_SUCCESS};
  for (PtoOp *o = pto_block_first_op(entry); o && !kc.r; o = pto_op_next(o))
    pto_op_walk(o, PTO_WALK_PRE, kernel_walk, &kc);
  return kc.r;
}

/* ------------------------------------------------------------------ */

static PtoResult verify_kind(Verifier *v, PtoBlockCore core) {
  switch (pto_pto_op_kind(v->id)) {
  case PTO_PTO_KIND_LOAD: return verify_load(v);
  case PTO_PTO_KIND_STORE: return verify_store(v);
  case PTO_PTO_KIND_PREFETCH: return verify_prefetch(v);
  case PTO_PTO_KIND_MOV: return verify_mov(v);
  case PTO_PTO_KIND_BINARY: return verify_elementwise(v, 2);
  case PTO_PTO_KIND_UNARY: return verify_elementwise(v, 1);
  case PTO_PTO_KIND_SCALAR: return verify_scalar(v);
  case PTO_PTO_KIND_CVT: return verify_cvt(v);
  case PTO_PTO_KIND_CMP: return verify_cmp(v);
  case PTO_PTO_KIND_SEL: return verify_sel(v);
  case PTO_PTO_KIND_ROWRED: return verify_reduce(v, true);
  case PTO_PTO_KIND_COLRED: return verify_reduce(v, false);
  case PTO_PTO_KIND_ROWARG: return verify_arg(v, true);
  case PTO_PTO_KIND_COLARG: return verify_arg(v, false);
  case PTO_PTO_KIND_ARGCOMBINE: return verify_arg_combine(v);
  case PTO_PTO_KIND_TOPKMERGE: return verify_topk_merge(v);
  case PTO_PTO_KIND_ROWEXPAND: return verify_rowexpand(v);
  case PTO_PTO_KIND_TRANS: return verify_trans(v);
  case PTO_PTO_KIND_GATHER: return verify_gather(v);
  case PTO_PTO_KIND_GATHERGM: return verify_gather_gm(v);
  case PTO_PTO_KIND_SCATTERGM: return verify_scatter_gm(v);
  case PTO_PTO_KIND_RANDOM: return verify_random(v);
  case PTO_PTO_KIND_SORT32: return verify_sort32(v);
  case PTO_PTO_KIND_MRGSORT: return verify_mrgsort(v);
  case PTO_PTO_KIND_TOPK: return verify_topk(v);
  case PTO_PTO_KIND_QUANT: return verify_quant(v);
  case PTO_PTO_KIND_MATMUL: return verify_matmul(v);
  case PTO_PTO_KIND_EXPAND: return verify_expand(v);
  case PTO_PTO_KIND_PERMUTE:
  case PTO_PTO_KIND_REPEAT: return verify_layout(v);
  case PTO_PTO_KIND_EXPANDS: return verify_expands(v);
  case PTO_PTO_KIND_SETFLAG:
  case PTO_PTO_KIND_WAITFLAG: return verify_flag(v, core);
  case PTO_PTO_KIND_BARRIER: {
    static const char *const known[] = {"pipe", NULL};
    return known_attrs(v, known) || need_pipe(v, "pipe", core);
  }
  default: return PTO_SUCCESS;
  }
}

PtoResult pto_pto_verify(PtoOp *op) {
  PtoPtoOp id = pto_pto_op_id(op);
  PtoPtoKind kind = pto_pto_op_kind(id);
  if (kind == PTO_PTO_KIND_KERNEL) return verify_kernel(op);
  if (kind == PTO_PTO_KIND_RETURN) {
    PtoOp *parent = pto_op_parent_op(op);
    if (!parent || pto_pto_op_id(parent) != PTO_PTO_KERNEL)
      return pto_op_emit_error(op, "expects parent op 'pto.kernel'");
    return PTO_SUCCESS;
  }
  PtoOp *kernel = pto_pto_enclosing_kernel(op);
  if (!kernel) return pto_op_emit_error(op, "must be inside a 'pto.kernel'");
  unsigned n = pto_op_num_operands(op);
  PtoType *stack[8], **types = n <= 8 ? stack : NULL;
  if (!types) return pto_op_emit_error(op, "has %u operands; no pto "
                                           "instruction takes more than 8", n);
  for (unsigned i = 0; i < n; i++) types[i] = pto_value_type(pto_op_operand(op, i));
  Verifier v = {op, id, {0}};
  pto_opcheck_init(&v.c, pto_op_ctx(op), pto_op_loc(op),
                   pto_ident_str(pto_op_name(op)), types,
                   n, pto_op_attrs(op), pto_op_num_attrs(op));
  PtoResult r = verify_kind(&v, pto_block_kernel_core(kernel));
  pto_opcheck_done(&v.c);
  return r;
}
