/* Private interface of the tile-expand pass (lib/Conversion/TensorToTile/tile-expand.c):
 * how a Tensor-level value is represented while its ops are rewritten, and
 * the expanders of each op family.
 *
 * A tensor value is one of
 *  - GM:     a tensor value that exists in the output IR (function and loop
 *            arguments, results of assembles, workspaces);
 *  - GRID:   a grid of tiles covering the tensor (the results of compute
 *            ops); its GM form is assembled into a workspace on demand;
 *  - WINDOW: a static window of another value at static or dynamic offsets
 *            (pypto.view), read through the base value.
 * A consumer asks for the tile of a window of a value (get_tile): a GRID
 * cell with exactly that window connects tile to tile, anything else is
 * read from the value's GM form with tile.view. */
#ifndef PTO_CONVERSION_TENSORTOTILE_H
#define PTO_CONVERSION_TENSORTOTILE_H

#include "pto/Dialect/Pypto.h"
#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/Pass.h"

#include "Support/Arena.h"
#include "Support/Hash.h"

/* An offset `v + c`: v is an index value or NULL. */
typedef struct LowerOffset {
  int64_t c;
  PtoValue *v;
} LowerOffset;

typedef enum LoweredKind { LOWERED_GM, LOWERED_GRID, LOWERED_WINDOW } LoweredKind;

/* A regular grid over a static shape: cell k along dim d starts at
 * k * tsize[d] and is min(tsize[d], shape[d] - start) long. Tiles have the
 * last `trank` dims of their window (the others are 1). */
typedef struct TileGrid {
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  int64_t tsize[PTO_MAX_RANK];
  int64_t count[PTO_MAX_RANK];
  unsigned trank;
  int64_t ntiles;
  PtoValue **tiles; /* row-major over count */
} TileGrid;

typedef struct LoweredValue LoweredValue;
struct LoweredValue {
  LoweredKind kind;
  PtoType *type;  /* the tensor type */
  PtoValue *gm;   /* LOWERED_GM: the value; otherwise its materialised form */
  TileGrid grid;    /* LOWERED_GRID */
  LoweredValue *base;    /* LOWERED_WINDOW */
  LowerOffset offs[PTO_MAX_RANK];
  PtoOp *anchor;  /* GRID / WINDOW: GM forms are built before this op */
  int64_t vec[4]; /* WINDOW: tile shape for materialising (the view's) */
  unsigned nvec;
};

typedef struct TileMemo TileMemo;

/* The state of one run over a function. */
typedef struct Lowering {
  PtoContext *ctx;
  PtoPass *pass;
  PtoBuilder b;
  PtoArena arena; /* LoweredValues, grids, memo keys */
  PtoPtrMap vals; /* tensor-level PtoValue* -> LoweredValue* */
  TileMemo *memo;
  /* Options. */
  int64_t vec_default[4];
  unsigned nvec_default;
  int64_t cube_default[6];
  bool provenance;
  int64_t max_tiles; /* per op (option max-tiles) */
  /* > 0 while lower_gm builds before an earlier op than the current one:
   * views and offsets memoised since then lie after the insertion point
   * and do not dominate it, so they are not reused */
  unsigned rewound;
  bool failed;       /* a lowering reported an error and kept going */
  /* Constants are hoisted to the start of the function's entry block,
   * after the last one hoisted (NULL: none yet). */
  PtoOp *const_pos;
  PtoBlock *entry;
  /* The pypto op being expanded, its label and its number (-1: none). */
  PtoOp *op;
  PtoAttr *label;
  int64_t origin;
  PtoPtrMap ordinals; /* pypto op -> number + 1 */
  int64_t counts[PTO_TILE_NUM_OPS];
  PtoIdent *id_label, *id_offsets, *id_dim, *id_perm, *id_k,
      *id_largest, *id_a_trans, *id_b_trans, *id_acc_dtype, *id_mode,
      *id_satmode, *id_approximate;
} Lowering;

/* ---- LowerCore.c ---- */

void lower_init(Lowering *t, PtoPass *pass);
void lower_release(Lowering *t);
/* Resets the per-function state; constants go to the start of `entry`. */
void lower_begin_func(Lowering *t, PtoBlock *entry);

/* "'pypto.x' op <message>" at the op being expanded. */
PtoResult lower_error(Lowering *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

LoweredValue *lower_new_val(Lowering *t, LoweredKind kind, PtoType *type);
/* The representation of a tensor-level value (GM when unknown). */
LoweredValue *lower_lookup(Lowering *t, PtoValue *v);
void lower_bind(Lowering *t, PtoValue *v, LoweredValue *tv);

/* Checks that `factor` times the product of count[0, rank) tiles is
 * within the op's budget (max-tiles), with checked multiplication; else
 * reports at the op how many tiles it would make and sets t->failed. */
PtoResult lower_check_tiles(Lowering *t, const int64_t *count, unsigned rank,
                            int64_t factor);
/* A grid over `type`'s static shape with tiles of `tsize` and rank
 * `trank` (tiles not yet filled in). Past the tile budget it reports the
 * error and degrades to one cell, so that the caller's loops stay short;
 * the driver fails the op afterwards (t->failed). */
LoweredValue *lower_new_grid(Lowering *t, PtoType *type, const int64_t *tsize, unsigned trank);
/* Cell `k` (row-major) of a grid: window offsets and sizes. */
void lower_cell(const TileGrid *g, int64_t k, int64_t *offs, int64_t *sizes);
/* The tile type of a window with `trank` tile dims. */
PtoType *lower_tile_type(Lowering *t, const int64_t *sizes, unsigned R, unsigned trank,
                      PtoType *elem);
/* Tile sizes for a tensor shape from a vec tile (trailing dims; leading
 * dims 1; each clamped to the dim) and the tile rank that goes with them. */
void lower_vec_sizes(const int64_t *shape, unsigned R, const int64_t *vec,
                  unsigned nvec, int64_t *tsize, unsigned *trank);

/* The tile of `v`'s window at offs/sizes, with `trank` dims. */
PtoValue *lower_get_tile(Lowering *t, LoweredValue *v, const LowerOffset *offs, const int64_t *sizes,
                      unsigned trank);
/* Same with static offsets. */
PtoValue *lower_get_tile_at(Lowering *t, LoweredValue *v, const int64_t *offs,
                         const int64_t *sizes, unsigned trank);
/* tile.assemble of `tile` into `dst` at offsets (PTO_DYN: the value in
 * dyn[d]); returns the new tensor. */
PtoValue *lower_assemble(Lowering *t, PtoValue *tile, PtoValue *dst, const int64_t *offs,
                      PtoValue *const *dyn);
/* The GM tensor holding v (assembling a GRID into a workspace once). */
PtoValue *lower_gm(Lowering *t, LoweredValue *v);

/* Builds a tile op with the current label (and counts it). */
PtoOp *lower_emit_op(Lowering *t, PtoTileOp id, PtoValue *const *ops, unsigned n,
                  PtoType *const *res, unsigned nres, const PtoNamedAttr *attrs,
                  unsigned nattrs);
PtoValue *lower_emit(Lowering *t, PtoTileOp id, PtoValue *const *ops, unsigned n,
                  PtoType *res, const PtoNamedAttr *attrs, unsigned nattrs);
/* tile.reshape unless `v` already has type `to`. */
PtoValue *lower_reshape(Lowering *t, PtoValue *v, PtoType *to);
/* tile.expand unless `v` already has type `to`. */
PtoValue *lower_expand_to(Lowering *t, PtoValue *v, PtoType *to);
/* A binary tile op on tiles whose shapes may differ by size-1 dims, using
 * the row/column expand forms where they apply. */
PtoValue *lower_binary(Lowering *t, PtoTileOp id, PtoValue *a, PtoValue *b,
                    PtoType *res);

/* Hoisted constants. */
PtoValue *lower_const_index(Lowering *t, int64_t v);
PtoValue *lower_const_scalar(Lowering *t, PtoType *type, double f, int64_t i);
/* An SSA index for an offset (arith.addi when it has both parts). */
PtoValue *lower_offset_value(Lowering *t, LowerOffset o);
LowerOffset lower_off_add(Lowering *t, LowerOffset a, int64_t c);

/* Marks the op defining `tile` as the tile of result `res` of the current
 * pypto op at static `offs` (option `provenance`). */
void lower_mark(Lowering *t, PtoValue *tile, unsigned res, const int64_t *offs,
             unsigned R);
/* Marks every tile of a grid result. */
void lower_mark_grid(Lowering *t, LoweredValue *v, unsigned res);

/* Fails unless every dim of `type` is static; names the dim. `what` is
 * NULL for the result, else "operand #i". */
PtoResult lower_require_static(Lowering *t, PtoType *type, const char *what);

/* ---- the expanders: one per op family, each binds the op's results ---- */
PtoResult lower_elementwise(Lowering *t, PtoOp *op); /* LowerElementwise.c */
PtoResult lower_reduce(Lowering *t, PtoOp *op);      /* LowerReduce.c */
PtoResult lower_topk(Lowering *t, PtoOp *op);
PtoResult lower_quantize(Lowering *t, PtoOp *op);
PtoResult lower_matmul(Lowering *t, PtoOp *op);      /* LowerMatmul.c */
PtoResult lower_shape(Lowering *t, PtoOp *op);       /* LowerShape.c */
PtoResult lower_index(Lowering *t, PtoOp *op);

/* The vec tile of the current op: its `vec_tile` (error when it has more
 * dims than `rank`), else the pass option's trailing entries. */
PtoResult lower_vec_tile(Lowering *t, unsigned rank, int64_t *vec, unsigned *nvec);

#endif
