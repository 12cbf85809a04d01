/* Rules shared by the Tensor and Tile levels: element-type classes, shape
 * inference (numpy broadcasting, reductions, matmul, windows, reshape,
 * transpose, concat, expand) and the tuning attributes (vec_tile,
 * cube_tile, label). Each rule lives here once; the dialects call it with
 * their own spelling of the types in messages. */
#ifndef PTO_DIALECT_COMMON_H
#define PTO_DIALECT_COMMON_H

#include "pto/DType.h"
#include "pto/DialectImplementation.h"
#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Where errors go                                                      */
/* ------------------------------------------------------------------ */

/* Errors are emitted through `ctx` at `loc` as `<prefix><message>` (e.g.
 * prefix "'pypto.add' op "). A NULL site or ctx makes the checks silent:
 * they still return failure. */
typedef struct PtoErrSite {
  PtoContext *ctx;
  PtoLoc *loc;
  const char *prefix;
} PtoErrSite;

PtoResult pto_site_error(const PtoErrSite *site, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ */
/* Element types                                                        */
/* ------------------------------------------------------------------ */

typedef enum PtoDtypeClass {
  PTO_DTYPE_UNSUPPORTED,
  PTO_DTYPE_FLOAT, /* f32, f16, bf16 */
  PTO_DTYPE_INT,   /* i8, i16, i32, i64 (signless, read as signed) */
  PTO_DTYPE_BOOL,  /* i1 */
  /* f8E4M3FN f8E5M2 f8E8M0FNU: stored, moved and converted (cast,
   * quant_mx, scaled_mm), not computed on */
  PTO_DTYPE_F8,
} PtoDtypeClass;

PtoDtypeClass pto_dtype_class(const PtoType *t);
static inline bool pto_elem_is_float(const PtoType *t) {
  return pto_dtype_class(t) == PTO_DTYPE_FLOAT;
}
static inline bool pto_elem_is_int(const PtoType *t) {
  return pto_dtype_class(t) == PTO_DTYPE_INT;
}
static inline bool pto_elem_is_numeric(const PtoType *t) {
  PtoDtypeClass c = pto_dtype_class(t);
  return c == PTO_DTYPE_FLOAT || c == PTO_DTYPE_INT;
}
static inline bool pto_elem_is_supported(const PtoType *t) {
  return pto_dtype_class(t) != PTO_DTYPE_UNSUPPORTED;
}

/* The element types an op's main operand accepts (the DTYPES column of
 * the Tensor and Tile op tables). */
typedef enum PtoDtypeSet {
  PTO_DTYPES_FLOAT,   /* f32 f16 bf16 */
  PTO_DTYPES_NUMERIC, /* float and i8 i16 i32 i64 */
  PTO_DTYPES_ANY,     /* numeric and i1 */
  PTO_DTYPES_MATMUL,  /* f32 f16 bf16 i8 */
  PTO_DTYPES_DEQUANT, /* i8 i32 */
  PTO_DTYPES_INT,     /* i8 i16 i32 i64 */
} PtoDtypeSet;
bool pto_dtype_in_set(const PtoType *elem, PtoDtypeSet set);
/* "float values (f32, f16, bf16)", for diagnostics. */
const char *pto_dtype_set_text(PtoDtypeSet set);

/* ------------------------------------------------------------------ */
/* Elementwise unary ops                                                */
/* ------------------------------------------------------------------ */

/* The rows of pto/UnaryOps.def: every level has one op per row, whose id
 * carries the row's ID (PTO_PYPTO_EXP, PTO_TILE_EXP). */
typedef enum PtoUnaryRow {
  PTO_UNARY_ROW_NONE = -1,
#define PTO_UNARY_OP(ID, ...) PTO_UNARY_ROW_##ID,
#include "pto/UnaryOps.def"
} PtoUnaryRow;
enum {
#define PTO_UNARY_OP(ID, ...) +1
  PTO_UNARY_NUM_ROWS = 0
#include "pto/UnaryOps.def"
};

/* The attributes the row's op defines (NULL-terminated): its float
 * parameters, and gelu's `approximate`. */
const char *const *pto_unary_row_attrs(PtoUnaryRow row);
/* The row's float parameters of a verified `op` in UnaryOps.def's order,
 * each its attribute's value or the row's default (gelu has none). */
void pto_unary_row_params(PtoOp *op, PtoUnaryRow row, double out[2]);

/* ------------------------------------------------------------------ */
/* Table-driven dialects                                                */
/* ------------------------------------------------------------------ */

/* What a dialect generated from a `.def` op table (one row per op, the row
 * index being the op's id) hands the shared machinery below. A new
 * table-driven dialect fills one of these from its X-macro rows (see
 * lib/Dialect/Tile/TileDialect.c) and gets op ids, lookup and
 * verify-by-inference in a few lines. */
typedef struct PtoOpTable {
  const char *prefix;           /* "tile." */
  const PtoOpDef *defs;         /* the registered definitions, by id */
  const char *const *mnemonics; /* "add", by id */
  unsigned num_ops;
  /* Row + 1 of pto/UnaryOps.def for the elementwise unary ops, 0 for the
   * others; may be NULL. */
  const unsigned char *unary_rows;
} PtoOpTable;

/* The op's id: its definition's index in the table (a pointer compare, no
 * name), or -1 when it is not one of the table's ops. */
int pto_optable_id(const PtoOpTable *t, const PtoOp *op);
/* The id of "tile.add" or "add", or -1. A scan of the names: for parsing
 * user input and tests, not for passes (which compare ids). */
int pto_optable_lookup(const PtoOpTable *t, const char *name);
/* The row of pto/UnaryOps.def op `id` comes from, or PTO_UNARY_ROW_NONE. */
PtoUnaryRow pto_optable_unary_row(const PtoOpTable *t, int id);

/* A dialect's checks over an op's parts: emits a diagnostic at `loc` and
 * fails when they do not hold; `results` are the op's actual result types
 * (up to 2 are given), which the check compares with what it infers. */
typedef PtoResult (*PtoOpInferCheck)(PtoContext *ctx, PtoLoc *loc, int id,
                                     PtoType *const *operands, unsigned n,
                                     const PtoNamedAttr *attrs, unsigned nattrs,
                                     PtoType *const *results, unsigned nres);
/* The verifier of an op of the table: runs `check` on its operand types,
 * attributes and result types, so that the verifier and the checked
 * builder share one set of messages. */
PtoResult pto_optable_verify(const PtoOpTable *t, PtoOp *op,
                             PtoOpInferCheck check);

/* ------------------------------------------------------------------ */
/* Shapes                                                               */
/* ------------------------------------------------------------------ */

/* A shape of at most PTO_MAX_RANK (DType.h) dims; PTO_DYN marks `?`. */
typedef struct PtoShape {
  unsigned rank;
  int64_t dims[PTO_MAX_RANK];
} PtoShape;

/* Fails (silently) when the rank exceeds PTO_MAX_RANK. */
PtoResult pto_shape_init(PtoShape *s, const int64_t *dims, unsigned rank);
PtoResult pto_shape_from_tensor(const PtoType *tensor, PtoShape *s);
PtoType *pto_shape_tensor(PtoContext *ctx, const PtoShape *s, PtoType *elem);
bool pto_shape_equal(const PtoShape *a, const PtoShape *b);
bool pto_shape_is_static(const PtoShape *s);
/* Writes `4x?x8` (empty for rank 0) into buf; returns buf. */
char *pto_shape_format(const PtoShape *s, char *buf, size_t cap);
/* `4` or `?`, for messages. */
const char *pto_dim_format(int64_t d, char buf[24]);

/* Normalises a Python-style dim (negative counts from the end). `what` names
 * it in messages: "attribute 'dim' is -3, out of range [-2, 1] for rank 2". */
PtoResult pto_shape_normalize_dim(const PtoErrSite *site, const char *what,
                                  int64_t dim, unsigned rank, unsigned *out);

/* numpy broadcasting of two shapes (right-aligned, size-1 dims stretch).
 * `what` starts the message: "<what> are not broadcast-compatible: '<an>'
 * and '<bn>' (dim 0: 4 vs 3)", dims counted in the result. */
PtoResult pto_shape_broadcast(const PtoErrSite *site, const char *what,
                              const PtoShape *a, const char *an,
                              const PtoShape *b, const char *bn,
                              PtoShape *out);
/* Whether `from` broadcasts to exactly `to` (`to` unchanged). */
bool pto_shape_broadcasts_to(const PtoShape *from, const PtoShape *to);

/* The shape after reducing normalised dim `dim`. */
void pto_shape_reduce(const PtoShape *in, unsigned dim, bool keepdim,
                      PtoShape *out);
/* `in` with dim `dim` set to `size`. */
void pto_shape_replace_dim(const PtoShape *in, unsigned dim, int64_t size,
                           PtoShape *out);

/* a: [..., M, K] ([..., K, M] when a_trans); b: [..., K, N] ([..., N, K]).
 * Ranks >= 2 are the caller's check. Batch dims broadcast; a static K
 * mismatch is "contracting dims differ: 64 vs 32". */
PtoResult pto_shape_matmul(const PtoErrSite *site, const PtoShape *a,
                           const char *an, bool a_trans, const PtoShape *b,
                           const char *bn, bool b_trans, PtoShape *out);

/* `perm` must be a permutation of [0, rank). */
PtoResult pto_shape_transpose(const PtoErrSite *site, const PtoShape *in,
                              const int64_t *perm, unsigned nperm,
                              PtoShape *out);

/* Checks that a reshape from `in` to `out` may be valid; see the pypto
 * documentation for the rules on dynamic dims. `outn` names `out`. */
PtoResult pto_shape_reshape_check(const PtoErrSite *site, const PtoShape *in,
                                  const PtoShape *out, const char *outn);

/* A window of shape `win` at `offsets` (PTO_DYN: dynamic) of `src`: counts,
 * non-negative static offsets, static bounds. */
PtoResult pto_shape_window_check(const PtoErrSite *site, const PtoShape *src,
                                 const int64_t *offsets, unsigned noffsets,
                                 const PtoShape *win);

/* Concatenation of n shapes along normalised `dim`. */
PtoResult pto_shape_concat(const PtoErrSite *site, const PtoShape *in,
                           unsigned n, unsigned dim, PtoShape *out);

/* Broadcast of `in` to `out` (expand): rank(in) <= rank(out), each
 * right-aligned dim of `in` is 1 or equals `out`'s. */
PtoResult pto_shape_expand_check(const PtoErrSite *site, const PtoShape *in,
                                 const PtoShape *out);

/* ------------------------------------------------------------------ */
/* Tuning attributes                                                    */
/* ------------------------------------------------------------------ */

/* vec_tile: 1 to 4 positive sizes. `what` names the value in messages
 * ("attribute 'vec_tile'", "option 'vec-tile'"). */
PtoResult pto_tuning_check_vec_tile(const PtoErrSite *site, const char *what,
                                    const int64_t *v, unsigned n);
/* cube_tile as {mL0, mL1, kL0, kL1, nL0, nL1}: positive, L0 <= L1,
 * L1 % L0 == 0. */
PtoResult pto_tuning_check_cube_tile(const PtoErrSite *site, const char *what,
                                     const int64_t v[6]);
/* Checks the `vec_tile`, `cube_tile` and `label` attributes among `attrs`
 * (others are ignored). */
PtoResult pto_tuning_verify_attrs(const PtoErrSite *site,
                                  const PtoNamedAttr *attrs, unsigned n);
/* The same on an op's attributes, reported as the op's error. */
PtoResult pto_tuning_verify_op(PtoOp *op);
bool pto_tuning_is_attr_name(const char *name);
/* Reads vec_tile (false when absent or malformed). */
bool pto_tuning_vec_tile(const PtoOp *op, int64_t out[4], unsigned *n);
/* Reads cube_tile as {mL0, mL1, kL0, kL1, nL0, nL1}. */
bool pto_tuning_cube_tile(const PtoOp *op, int64_t out[6]);
/* Copies vec_tile, cube_tile and label from `from` to `to` (rewrites keep
 * them). */
void pto_tuning_copy(const PtoOp *from, PtoOp *to);

#ifdef __cplusplus
}
#endif
#endif
