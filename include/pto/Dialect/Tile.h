/* The Tile-level dialect `tile`: the `!tile.tile<...>` type, op ids from the
 * op table (TileOps.def), typed accessors, result-type inference and
 * builders. `tile-expand` produces this level from the Tensor level.
 * Semantics of every op: docs/dialects/tile.md. */
#ifndef PTO_DIALECT_TILE_H
#define PTO_DIALECT_TILE_H

#include "pto/Dialect/Common.h"
#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

void pto_register_tile_dialect(PtoContext *ctx);

/* ------------------------------------------------------------------ */
/* The tile type: !tile.tile<32x32xf32>                                 */
/* ------------------------------------------------------------------ */

/* Tiles have 1 to PTO_TILE_MAX_RANK static dims. */
#define PTO_TILE_MAX_RANK 4

/* Checks a tile shape and element type; emits the exact diagnostic at
 * `site` (see docs/dialects/tile.md) and fails when they are invalid. */
PtoResult pto_tile_type_check(const PtoErrSite *site, const int64_t *shape,
                              unsigned rank, PtoType *elem);
/* Parses `<32x32xf32` (the parameters of a tile-like type up to what
 * follows the element type) and checks them as pto_tile_type_check does,
 * reporting at the `<`. dims has room for PTO_MAX_RANK + 1 entries. */
PtoResult pto_tile_parse_shape(PtoParser *p, int64_t *dims, unsigned *rank,
                               PtoType **elem);
/* The uniqued tile type, or NULL (silently) when invalid. */
PtoType *pto_tile_type(PtoContext *ctx, const int64_t *shape, unsigned rank,
                       PtoType *elem);
/* A well-formed tile type (valid shape and dtype): !tile.tile, or a
 * Block-level buffer !block.buf, on which tile ops compute too. */
bool pto_type_is_tile(const PtoType *t);
unsigned pto_tile_rank(const PtoType *t);
const int64_t *pto_tile_shape(const PtoType *t);
int64_t pto_tile_dim(const PtoType *t, unsigned i);
PtoType *pto_tile_elem(const PtoType *t);
int64_t pto_tile_numel(const PtoType *t);
/* The same shape with another element type (and the same memory space for
 * a Block-level buffer). */
PtoType *pto_tile_with_elem(const PtoType *t, PtoType *elem);
/* A tile of `shape` and `elem` of the kind of `like`: a !tile.tile, or a
 * buffer in like's memory space; NULL when the shape is invalid. */
PtoType *pto_tile_like(const PtoType *like, const int64_t *shape,
                       unsigned rank, PtoType *elem);

/* ------------------------------------------------------------------ */
/* Ops                                                                  */
/* ------------------------------------------------------------------ */

/* One id per row of TileOps.def, in table order. */
typedef enum PtoTileOp {
  PTO_TILE_NONE = -1,
#define TILE_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) PTO_TILE_##ID,
#include "pto/Dialect/TileOps.def"
  PTO_TILE_NUM_OPS
} PtoTileOp;

/* Verifier, syntax and shape class of an op (the KIND column). */
typedef enum PtoTileKind {
  PTO_TILE_KIND_VIEW,
  PTO_TILE_KIND_ASSEMBLE,
  PTO_TILE_KIND_EMPTY,
  PTO_TILE_KIND_TENSOR_RESHAPE,
  PTO_TILE_KIND_DIM,
  PTO_TILE_KIND_UNARY,
  PTO_TILE_KIND_CAST,
  PTO_TILE_KIND_BINARY,
  PTO_TILE_KIND_SCALAR,
  PTO_TILE_KIND_COMPARE,
  PTO_TILE_KIND_WHERE,
  PTO_TILE_KIND_ROWRED,
  PTO_TILE_KIND_COLRED,
  PTO_TILE_KIND_ROWARG,
  PTO_TILE_KIND_COLARG,
  PTO_TILE_KIND_ARGCOMBINE,
  PTO_TILE_KIND_ROWEXPAND,
  PTO_TILE_KIND_COLEXPAND,
  PTO_TILE_KIND_EXPAND,
  PTO_TILE_KIND_FULL,
  PTO_TILE_KIND_RESHAPE,
  PTO_TILE_KIND_TRANSPOSE,
  PTO_TILE_KIND_MATMUL,
  PTO_TILE_KIND_GATHER,
  PTO_TILE_KIND_INDEX_SELECT,
  PTO_TILE_KIND_SCATTER,
  PTO_TILE_KIND_TOPK,
  PTO_TILE_KIND_TOPK_MERGE,
  PTO_TILE_KIND_QUANTIZE,
  PTO_TILE_KIND_DEQUANTIZE,
  PTO_TILE_KIND_RANDOM,
  PTO_TILE_KIND_LOAD_SCALAR,
  PTO_TILE_KIND_TENSOR_BITCAST,
} PtoTileKind;

/* The op's id, or PTO_TILE_NONE when it is not a registered tile op. */
PtoTileOp pto_tile_op_id(const PtoOp *op);
/* Id of "add" or "tile.add"; PTO_TILE_NONE if unknown. */
PtoTileOp pto_tile_lookup(const char *name);
const char *pto_tile_mnemonic(PtoTileOp id); /* "add" */
const char *pto_tile_op_name(PtoTileOp id);  /* "tile.add" */
PtoTileKind pto_tile_kind(PtoTileOp id);
/* The row of pto/UnaryOps.def an elementwise unary op comes from, or
 * PTO_UNARY_ROW_NONE. */
PtoUnaryRow pto_tile_unary_row(PtoTileOp id);
PtoDtypeSet pto_tile_dtypes(PtoTileOp id);
/* The op's definition in the op table (traits, affinity, summary). */
const PtoOpDef *pto_tile_op_def(PtoTileOp id);

/* ---- accessors for verified ops ---- */

/* The GM tensor operand of view, assemble (the destination), gather,
 * index_select and scatter (the destination). */
PtoValue *pto_tile_get_tensor(const PtoOp *op);
/* view, assemble, gather, index_select, scatter: writes one offset per dim
 * of the GM tensor (PTO_DYN for dynamic ones) and the index operand holding
 * each dynamic offset (NULL for static ones). Either array may be NULL.
 * Returns the rank. */
unsigned pto_tile_get_offsets(const PtoOp *op, int64_t *static_offsets,
                              PtoValue **dynamic);
/* Index of the first dynamic offset / size operand: view 1, assemble 2,
 * gather 2, index_select 2, scatter 3, empty 0. */
unsigned pto_tile_first_index_operand(const PtoOp *op);
/* The `dim` attribute (gather, index_select, scatter, dim) normalised. */
unsigned pto_tile_get_dim(const PtoOp *op);
/* transpose: the permutation; returns its length. */
unsigned pto_tile_get_perm(const PtoOp *op, int64_t perm[PTO_TILE_MAX_RANK]);
/* topk / topk_merge */
int64_t pto_tile_get_k(const PtoOp *op);
bool pto_tile_get_largest(const PtoOp *op);

/* Where an op's tile sits in a GM tensor: a tile of rank r placed in a
 * tensor of rank R covers the window whose last min(r, R) sizes are the
 * tile's trailing dims and whose other sizes are 1 (a tile may have more
 * dims than the tensor when the extra leading ones are 1). Writes the R
 * window sizes. */
void pto_tile_window_shape(const PtoType *tile, unsigned tensor_rank,
                           int64_t *window);

/* ---- inference and building ---- */

/* Runs the op's checks on operand types and attributes and returns its
 * result types (up to 2). Ops whose result does not follow from the
 * operands (view, empty, cast, reshape, transpose with `perm`, expand,
 * full, matmul's element type, dequantize, tensor_reshape, gather,
 * index_select) take it from `want` (one type per result, or NULL). Emits
 * the verifier's diagnostic at `loc` and fails on invalid input. */
PtoResult pto_tile_infer_types(PtoContext *ctx, PtoLoc *loc, PtoTileOp id,
                               PtoType *const *operand_types, unsigned n,
                               const PtoNamedAttr *attrs, unsigned nattrs,
                               PtoType *const *want, PtoType **results,
                               unsigned *nresults);

/* Builds a tile op at the builder's insertion point without checking it
 * (the verifier runs later): passes that create many ops use this with
 * result types they already know. Attributes are copied. */
PtoOp *pto_tile_build(PtoBuilder *b, PtoTileOp id, PtoValue *const *operands,
                      unsigned n, PtoType *const *results, unsigned nres,
                      const PtoNamedAttr *attrs, unsigned nattrs);

/* Checked builder: infers the result types (`want` as for inference, may
 * be NULL), verifies, and returns NULL after emitting a diagnostic at the
 * builder's location (nothing is inserted). */
PtoOp *pto_tile_create(PtoBuilder *b, PtoTileOp id, PtoValue *const *operands,
                       unsigned n, PtoType *const *want,
                       const PtoNamedAttr *attrs, unsigned nattrs);

/* tile.view of `src` at `offsets` (PTO_DYN entries take the next value of
 * `dynamic`, in order), producing `tile_type`. Unchecked. */
PtoValue *pto_tile_build_view(PtoBuilder *b, PtoValue *src,
                              const int64_t *offsets, PtoValue *const *dynamic,
                              PtoType *tile_type);
/* tile.assemble of `tile` into `dst` at offsets; returns the new tensor. */
PtoValue *pto_tile_build_assemble(PtoBuilder *b, PtoValue *tile,
                                  PtoValue *dst, const int64_t *offsets,
                                  PtoValue *const *dynamic);
/* tile.empty of a tensor type; one size per dynamic dim. */
PtoValue *pto_tile_build_empty(PtoBuilder *b, PtoType *tensor_type,
                               PtoValue *const *dyn_sizes, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
