/* The checking state every Tensor- and Tile-level op verifier runs on: the
 * error site ("'tile.add' op ..."), operand types, attributes, and the
 * attribute and dtype rules both levels share, so that the two dialects
 * report the same messages from one implementation. Private to lib/Dialect. */
#ifndef PTO_DIALECT_COMMON_OPCHECK_H
#define PTO_DIALECT_COMMON_OPCHECK_H

#include "pto/Dialect/Common.h"

typedef struct PtoOpCheck {
  PtoContext *ctx;
  PtoErrSite site;
  char prefix[64];
  const char *op_name;
  PtoType *const *opnd;
  unsigned nopnd;
  const PtoNamedAttr *attrs;
  unsigned nattrs;
  char *strs[12]; /* type spellings for messages, freed by _done */
  unsigned nstrs;
} PtoOpCheck;

void pto_opcheck_init(PtoOpCheck *c, PtoContext *ctx, PtoLoc *loc,
                      const char *op_name, PtoType *const *opnd, unsigned n,
                      const PtoNamedAttr *attrs, unsigned nattrs);
void pto_opcheck_done(PtoOpCheck *c);
/* The type's spelling, owned by `c` (the last few stay valid). */
const char *pto_opcheck_tstr(PtoOpCheck *c, PtoType *t);

#define PTO_CHECK_ERR(c, ...) pto_site_error(&(c)->site, __VA_ARGS__)

/* ---- attributes ---- */
PtoAttr *pto_opcheck_attr(const PtoOpCheck *c, const char *name);
/* An integer (not bool) attribute; absent: error when required, else
 * *out = dflt. */
PtoResult pto_opcheck_int(PtoOpCheck *c, const char *name, bool required,
                          int64_t dflt, int64_t *out);
/* Unit attribute or boolean; absent is false. */
PtoResult pto_opcheck_flag(PtoOpCheck *c, const char *name, bool *out);
/* A boolean attribute with a default. */
PtoResult pto_opcheck_bool(PtoOpCheck *c, const char *name, bool dflt,
                           bool *out);
/* A string among `values` (NULL-terminated); `msg` completes "attribute
 * 'x' must be ...". Absent is fine. */
PtoResult pto_opcheck_enum(PtoOpCheck *c, const char *name,
                           const char *const *values, const char *msg);
/* The `dim` attribute normalised against `rank`. */
PtoResult pto_opcheck_dim(PtoOpCheck *c, bool required, int64_t dflt,
                          unsigned rank, unsigned *out);
/* Every attribute must be dialect-prefixed (contains '.'), one of `known`
 * (NULL-terminated), or accepted by `also` (may be NULL); otherwise
 * "unknown attribute 'x'; 'd.op' accepts <known>, <also_text>". */
PtoResult pto_opcheck_known_attrs(PtoOpCheck *c, const char *const *known,
                                  bool (*also)(const char *name),
                                  const char *also_text);

/* ---- operands ---- */
/* A valid tensor type: supported dtype, rank, no zero-sized dim. `what` is
 * "operand" or "result" ("operand #1 must be a tensor, got 'f32'"). */
PtoResult pto_opcheck_tensor(PtoOpCheck *c, const char *what, unsigned i,
                             PtoType *t, PtoShape *s);
/* Operands [first, n) must be `index`. */
PtoResult pto_opcheck_index_operands(PtoOpCheck *c, unsigned first);
/* `static_offsets` (one entry per dim, PTO_DYN for dynamic ones) checked
 * against the dynamic offset operands from `first`. */
/* A bit-level reinterpretation of tensor `src` as tensor `dst`: the same
 * bytes in row-major order, so equal dims except the last, which holds as
 * many bits in both (static when the element width changes). */
PtoResult pto_opcheck_bitcast(PtoOpCheck *c, PtoType *src, PtoType *dst);
/* The shape `src` (element width `from` bits) has as elements of `to`
 * bits: the last dim scaled when it is static and divides evenly,
 * unchanged otherwise (pto_opcheck_bitcast then says why). */
void pto_opcheck_bitcast_shape(PtoShape *s, unsigned from, unsigned to);
PtoResult pto_opcheck_offsets(PtoOpCheck *c, unsigned first, int64_t *offs,
                              unsigned *n);
/* The `?` dims of `s` are given by index operands from `first`. */
PtoResult pto_opcheck_dyn_sizes(PtoOpCheck *c, const PtoShape *s,
                                unsigned first);
/* "operand element types differ: 'f32' vs 'f16'" */
PtoResult pto_opcheck_same_elem(PtoOpCheck *c, PtoType *a, PtoType *b);
/* transpose's `perm` (required) applied to `s`: a permutation of
 * [0, rank) ("attribute 'perm' must be a permutation of [0, 2), got
 * [0, 0]"); the permuted shape in *out. */
PtoResult pto_opcheck_transpose(PtoOpCheck *c, const PtoShape *s,
                                PtoShape *out);
/* The attributes of the unary op of `row` (UnaryOps.def): each float
 * parameter a number ("attribute 'slope' must be a float, got ..."),
 * clip's `min` not above its `max`, gelu's `approximate`. */
PtoResult pto_opcheck_unary_attrs(PtoOpCheck *c, PtoUnaryRow row);
/* gelu's `approximate`, cast's `mode`/`satmode`. */
PtoResult pto_opcheck_gelu_attrs(PtoOpCheck *c);
PtoResult pto_opcheck_cast_attrs(PtoOpCheck *c);

/* Matmul dtypes: operands `ea` (both the same, checked by the caller) among
 * f32 f16 bf16 i8 ("operands must be f32, f16, bf16 or i8 <what>, got
 * '<a0>'"), `acc_dtype`, and the result element type `out` (NULL: the
 * default, written back). Returns the accumulation type in *acc. */
PtoResult pto_opcheck_matmul_dtypes(PtoOpCheck *c, const char *what,
                                    PtoType *ea, PtoType **out, PtoType **acc);

#endif
