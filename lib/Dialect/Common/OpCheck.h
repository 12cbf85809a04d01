/* The checks every Tensor- and Tile-level op verifier is built from: typed
 * and known attributes, operand kinds, dtype classes, offsets and dynamic
 * sizes, matmul dtypes. Each reports through an error site ("'tile.add' op
 * ..."), so that both dialects give the same messages from one
 * implementation. PtoOpCheck bundles the state of one op's check for the
 * dialects that keep it in one place. Private to lib/Dialect. */
#ifndef PTO_DIALECT_COMMON_OPCHECK_H
#define PTO_DIALECT_COMMON_OPCHECK_H

#include "pto/Dialect/Common.h"

#include "Support/Vec.h"

/* Element-type classes of op tables (same order in every dialect's DTYPES
 * column). */
typedef enum PtoDtypeSet {
  PTO_DTYPES_FLOAT,   /* f32 f16 bf16 */
  PTO_DTYPES_NUMERIC, /* float and i8 i16 i32 i64 */
  PTO_DTYPES_ANY,     /* numeric and i1 */
  PTO_DTYPES_MATMUL,  /* f32 f16 bf16 i8 */
  PTO_DTYPES_DEQUANT, /* i8 i32 */
} PtoDtypeSet;

bool pto_dtype_in_set(const PtoType *elem, PtoDtypeSet set);
/* "float values (f32, f16, bf16)", ... for "must be a tensor of <text>". */
const char *pto_dtype_set_text(PtoDtypeSet set);

/* Type spellings made for messages, freed together. */
typedef PTO_VEC(char *) PtoCheckStrs;
const char *pto_check_tstr(PtoCheckStrs *strs, PtoType *t);
void pto_check_strs_release(PtoCheckStrs *strs);

/* ---- attributes (of `attrs[0..n)`) ---- */
PtoAttr *pto_check_find_attr(const PtoNamedAttr *attrs, unsigned n,
                             const char *name);
/* An integer (not bool) attribute; absent: error when required, else
 * *out = dflt. */
PtoResult pto_check_attr_int(const PtoErrSite *site, const PtoNamedAttr *attrs,
                             unsigned n, const char *name, bool required,
                             int64_t dflt, int64_t *out);
/* Unit attribute or boolean; absent is false. */
PtoResult pto_check_attr_flag(const PtoErrSite *site,
                              const PtoNamedAttr *attrs, unsigned n,
                              const char *name, bool *out);
/* A boolean attribute with a default. */
PtoResult pto_check_attr_bool(const PtoErrSite *site,
                              const PtoNamedAttr *attrs, unsigned n,
                              const char *name, bool dflt, bool *out);
/* A string among `values` (NULL-terminated); `msg` completes "attribute
 * 'x' must be ...". Absent is fine. */
PtoResult pto_check_attr_enum(const PtoErrSite *site,
                              const PtoNamedAttr *attrs, unsigned n,
                              const char *name, const char *const *values,
                              const char *msg);
/* The `dim` attribute normalised against `rank`. */
PtoResult pto_check_attr_dim(const PtoErrSite *site, const PtoNamedAttr *attrs,
                             unsigned n, bool required, int64_t dflt,
                             unsigned rank, unsigned *out);
/* Every attribute must be dialect-prefixed (contains '.'), one of `known`
 * (NULL-terminated), or accepted by `also` (may be NULL); otherwise
 * "unknown attribute 'x'; '<op_name>' accepts <known>, <also_text>". */
PtoResult pto_check_known_attrs(const PtoErrSite *site,
                                const PtoNamedAttr *attrs, unsigned n,
                                const char *op_name, const char *const *known,
                                bool (*also)(const char *name),
                                const char *also_text);
/* gelu's `approximate`: "none" or "tanh". */
PtoResult pto_check_gelu_attrs(const PtoErrSite *site,
                               const PtoNamedAttr *attrs, unsigned n);
/* cast's `mode` (a DType.h rounding mode name) and `satmode` ("wrap" or
 * "saturate"): "attribute 'mode' must be one of "default", "rint", ...". */
PtoResult pto_check_cast_attrs(const PtoErrSite *site,
                               const PtoNamedAttr *attrs, unsigned n);
/* transpose's required `perm`, a permutation of [0, rank): writes it and
 * its length. */
PtoResult pto_check_perm_attr(const PtoErrSite *site, const PtoNamedAttr *attrs,
                              unsigned n, unsigned rank,
                              int64_t perm[PTO_MAX_RANK], unsigned *nperm);

/* ---- operands (types[0..n)) ---- */
/* A valid tensor type: supported dtype, rank, no zero-sized dim. `what` is
 * "operand" or "result" ("operand #1 must be a tensor, got 'f32'"). */
PtoResult pto_check_tensor(const PtoErrSite *site, PtoCheckStrs *strs,
                           const char *what, unsigned i, PtoType *t,
                           PtoShape *s);
/* Operands [first, n) must be `index`. */
PtoResult pto_check_index_operands(const PtoErrSite *site, PtoCheckStrs *strs,
                                   PtoType *const *types, unsigned n,
                                   unsigned first);
/* `static_offsets` (one entry per dim, PTO_DYN for dynamic ones) checked
 * against the dynamic offset operands from `first`. */
PtoResult pto_check_offsets(const PtoErrSite *site, PtoCheckStrs *strs,
                            PtoType *const *types, unsigned n, unsigned first,
                            const PtoNamedAttr *attrs, unsigned nattrs,
                            int64_t *offs, unsigned *noffs);
/* The `?` dims of `s` are given by index operands from `first`. */
PtoResult pto_check_dyn_sizes(const PtoErrSite *site, PtoCheckStrs *strs,
                              PtoType *const *types, unsigned n,
                              const PtoShape *s, unsigned first);
/* "operand element types differ: 'f32' vs 'f16'" */
PtoResult pto_check_same_elem(const PtoErrSite *site, PtoCheckStrs *strs,
                              PtoType *a, PtoType *b);
/* Matmul operands of element type `ea` among f32 f16 bf16 i8: "operands
 * must be f32, f16, bf16 or i8 <what>, got '<operand0>'". */
PtoResult pto_check_matmul_operands(const PtoErrSite *site, PtoCheckStrs *strs,
                                    const char *what, PtoType *operand0,
                                    PtoType *ea);
/* Matmul's `acc_dtype` (written to *acc, defaulted) and result element
 * type `out` for operands of element type `ea`. */
PtoResult pto_check_matmul_elems(const PtoErrSite *site, PtoCheckStrs *strs,
                                 const PtoNamedAttr *attrs, unsigned n,
                                 PtoType *ea, PtoType *out, PtoType **acc);

/* ---- one op's check in one struct ---- */

typedef struct PtoOpCheck {
  PtoContext *ctx;
  PtoErrSite site;
  const char *op_name;
  PtoType *const *opnd;
  unsigned nopnd;
  const PtoNamedAttr *attrs;
  unsigned nattrs;
  PtoCheckStrs strs;
} PtoOpCheck;

/* `prefix` is the message prefix "'d.op' op " (a string that outlives the
 * check: op tables spell it at compile time, so that verifying many ops
 * formats nothing until there is an error). */
void pto_opcheck_init(PtoOpCheck *c, PtoContext *ctx, PtoLoc *loc,
                      const char *op_name, const char *prefix,
                      PtoType *const *opnd, unsigned n,
                      const PtoNamedAttr *attrs, unsigned nattrs);
void pto_opcheck_done(PtoOpCheck *c);

#define PTO_CHECK_ERR(c, ...) pto_site_error(&(c)->site, __VA_ARGS__)

static inline const char *pto_opcheck_tstr(PtoOpCheck *c, PtoType *t) {
  return pto_check_tstr(&c->strs, t);
}
static inline PtoAttr *pto_opcheck_attr(const PtoOpCheck *c, const char *name) {
  return pto_check_find_attr(c->attrs, c->nattrs, name);
}
static inline PtoResult pto_opcheck_int(PtoOpCheck *c, const char *name,
                                        bool required, int64_t dflt,
                                        int64_t *out) {
  return pto_check_attr_int(&c->site, c->attrs, c->nattrs, name, required,
                            dflt, out);
}
static inline PtoResult pto_opcheck_flag(PtoOpCheck *c, const char *name,
                                         bool *out) {
  return pto_check_attr_flag(&c->site, c->attrs, c->nattrs, name, out);
}
static inline PtoResult pto_opcheck_bool(PtoOpCheck *c, const char *name,
                                         bool dflt, bool *out) {
  return pto_check_attr_bool(&c->site, c->attrs, c->nattrs, name, dflt, out);
}
static inline PtoResult pto_opcheck_dim(PtoOpCheck *c, bool required,
                                        int64_t dflt, unsigned rank,
                                        unsigned *out) {
  return pto_check_attr_dim(&c->site, c->attrs, c->nattrs, required, dflt,
                            rank, out);
}
static inline PtoResult pto_opcheck_known_attrs(PtoOpCheck *c,
                                                const char *const *known,
                                                bool (*also)(const char *name),
                                                const char *also_text) {
  return pto_check_known_attrs(&c->site, c->attrs, c->nattrs, c->op_name,
                               known, also, also_text);
}
static inline PtoResult pto_opcheck_gelu_attrs(PtoOpCheck *c) {
  return pto_check_gelu_attrs(&c->site, c->attrs, c->nattrs);
}
static inline PtoResult pto_opcheck_cast_attrs(PtoOpCheck *c) {
  return pto_check_cast_attrs(&c->site, c->attrs, c->nattrs);
}
static inline PtoResult pto_opcheck_tensor(PtoOpCheck *c, const char *what,
                                           unsigned i, PtoType *t,
                                           PtoShape *s) {
  return pto_check_tensor(&c->site, &c->strs, what, i, t, s);
}
static inline PtoResult pto_opcheck_offsets(PtoOpCheck *c, unsigned first,
                                            int64_t *offs, unsigned *n) {
  return pto_check_offsets(&c->site, &c->strs, c->opnd, c->nopnd, first,
                           c->attrs, c->nattrs, offs, n);
}
static inline PtoResult pto_opcheck_dyn_sizes(PtoOpCheck *c, const PtoShape *s,
                                              unsigned first) {
  return pto_check_dyn_sizes(&c->site, &c->strs, c->opnd, c->nopnd, s, first);
}
static inline PtoResult pto_opcheck_same_elem(PtoOpCheck *c, PtoType *a,
                                              PtoType *b) {
  return pto_check_same_elem(&c->site, &c->strs, a, b);
}

#endif
