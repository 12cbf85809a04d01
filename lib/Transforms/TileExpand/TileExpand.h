/* Private interface of the tile-expand pass (lib/Transforms/tile-expand.c):
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
#ifndef PTO_TRANSFORMS_TILEEXPAND_H
#define PTO_TRANSFORMS_TILEEXPAND_H

#include "pto/Dialect/Pypto.h"
#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/Pass.h"

#include "Support/Arena.h"
#include "Support/Hash.h"

/* An offset `v + c`: v is an index value or NULL. */
typedef struct TxOff {
  int64_t c;
  PtoValue *v;
} TxOff;

typedef enum TxKind { TX_GM, TX_GRID, TX_WINDOW } TxKind;

/* A regular grid over a static shape: cell k along dim d starts at
 * k * tsize[d] and is min(tsize[d], shape[d] - start) long. Tiles have the
 * last `trank` dims of their window (the others are 1). */
typedef struct TxGrid {
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  int64_t tsize[PTO_MAX_RANK];
  int64_t count[PTO_MAX_RANK];
  unsigned trank;
  int64_t ntiles;
  PtoValue **tiles; /* row-major over count */
} TxGrid;

typedef struct TxVal TxVal;
struct TxVal {
  TxKind kind;
  PtoType *type;  /* the tensor type */
  PtoValue *gm;   /* TX_GM: the value; otherwise its materialised form */
  TxGrid grid;    /* TX_GRID */
  TxVal *base;    /* TX_WINDOW */
  TxOff offs[PTO_MAX_RANK];
  PtoOp *anchor;  /* GRID / WINDOW: GM forms are built before this op */
  int64_t vec[4]; /* WINDOW: tile shape for materialising (the view's) */
  unsigned nvec;
};

typedef struct TxMemo TxMemo;

/* The state of one run over a function. */
typedef struct Tx {
  PtoContext *ctx;
  PtoPass *pass;
  PtoBuilder b;
  PtoArena arena; /* TxVals, grids, memo keys */
  PtoPtrMap vals; /* tensor-level PtoValue* -> TxVal* */
  TxMemo *memo;
  /* Options. */
  int64_t vec_default[4];
  unsigned nvec_default;
  int64_t cube_default[6];
  bool provenance;
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
  PtoIdent *id_label, *id_origin, *id_offsets, *id_dim, *id_perm, *id_k,
      *id_largest, *id_a_trans, *id_b_trans, *id_acc_dtype, *id_mode,
      *id_satmode, *id_approximate;
} Tx;

/* ---- TxCore.c ---- */

void tx_init(Tx *t, PtoPass *pass);
void tx_release(Tx *t);
/* Resets the per-function state; constants go to the start of `entry`. */
void tx_begin_func(Tx *t, PtoBlock *entry);

/* "'pypto.x' op <message>" at the op being expanded. */
PtoResult tx_error(Tx *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

TxVal *tx_new_val(Tx *t, TxKind kind, PtoType *type);
/* The representation of a tensor-level value (GM when unknown). */
TxVal *tx_lookup(Tx *t, PtoValue *v);
void tx_bind(Tx *t, PtoValue *v, TxVal *tv);

/* A grid over `type`'s static shape with tiles of `tsize` and rank
 * `trank` (tiles not yet filled in). */
TxVal *tx_new_grid(Tx *t, PtoType *type, const int64_t *tsize, unsigned trank);
/* Cell `k` (row-major) of a grid: window offsets and sizes. */
void tx_cell(const TxGrid *g, int64_t k, int64_t *offs, int64_t *sizes);
/* The tile type of a window with `trank` tile dims. */
PtoType *tx_tile_type(Tx *t, const int64_t *sizes, unsigned R, unsigned trank,
                      PtoType *elem);
/* Tile sizes for a tensor shape from a vec tile (trailing dims; leading
 * dims 1; each clamped to the dim) and the tile rank that goes with them. */
void tx_vec_sizes(const int64_t *shape, unsigned R, const int64_t *vec,
                  unsigned nvec, int64_t *tsize, unsigned *trank);

/* The tile of `v`'s window at offs/sizes, with `trank` dims. */
PtoValue *tx_get_tile(Tx *t, TxVal *v, const TxOff *offs, const int64_t *sizes,
                      unsigned trank);
/* Same with static offsets. */
PtoValue *tx_get_tile_at(Tx *t, TxVal *v, const int64_t *offs,
                         const int64_t *sizes, unsigned trank);
/* tile.assemble of `tile` into `dst` at offsets (PTO_DYN: the value in
 * dyn[d]); returns the new tensor. */
PtoValue *tx_assemble(Tx *t, PtoValue *tile, PtoValue *dst, const int64_t *offs,
                      PtoValue *const *dyn);
/* The GM tensor holding v (assembling a GRID into a workspace once). */
PtoValue *tx_gm(Tx *t, TxVal *v);

/* Builds a tile op with the current label (and counts it). */
PtoOp *tx_emit_op(Tx *t, PtoTileOp id, PtoValue *const *ops, unsigned n,
                  PtoType *const *res, unsigned nres, const PtoNamedAttr *attrs,
                  unsigned nattrs);
PtoValue *tx_emit(Tx *t, PtoTileOp id, PtoValue *const *ops, unsigned n,
                  PtoType *res, const PtoNamedAttr *attrs, unsigned nattrs);
/* tile.reshape unless `v` already has type `to`. */
PtoValue *tx_reshape(Tx *t, PtoValue *v, PtoType *to);
/* tile.expand unless `v` already has type `to`. */
PtoValue *tx_expand(Tx *t, PtoValue *v, PtoType *to);
/* A binary tile op on tiles whose shapes may differ by size-1 dims, using
 * the row/column expand forms where they apply. */
PtoValue *tx_binary(Tx *t, PtoTileOp id, PtoValue *a, PtoValue *b,
                    PtoType *res);

/* Hoisted constants. */
PtoValue *tx_const_index(Tx *t, int64_t v);
PtoValue *tx_const_scalar(Tx *t, PtoType *type, double f, int64_t i);
/* An SSA index for an offset (arith.addi when it has both parts). */
PtoValue *tx_offset_value(Tx *t, TxOff o);
TxOff tx_off_add(Tx *t, TxOff a, int64_t c);

/* Marks the op defining `tile` as the tile of result `res` of the current
 * pypto op at static `offs` (option `provenance`). */
void tx_mark(Tx *t, PtoValue *tile, unsigned res, const int64_t *offs,
             unsigned R);
/* Marks every tile of a grid result. */
void tx_mark_grid(Tx *t, TxVal *v, unsigned res);

/* Fails unless every dim of `type` is static; names the dim. `what` is
 * NULL for the result, else "operand #i". */
PtoResult tx_require_static(Tx *t, PtoType *type, const char *what);

/* ---- the expanders: one per op family, each binds the op's results ---- */
PtoResult tx_expand_elementwise(Tx *t, PtoOp *op); /* TxElementwise.c */
PtoResult tx_expand_reduce(Tx *t, PtoOp *op);      /* TxReduce.c */
PtoResult tx_expand_topk(Tx *t, PtoOp *op);
PtoResult tx_expand_quantize(Tx *t, PtoOp *op);
PtoResult tx_expand_matmul(Tx *t, PtoOp *op);      /* TxMatmul.c */
PtoResult tx_expand_shape(Tx *t, PtoOp *op);       /* TxShape.c */
PtoResult tx_expand_index(Tx *t, PtoOp *op);

/* The vec tile of the current op: its `vec_tile` (error when it has more
 * dims than `rank`), else the pass option's trailing entries. */
PtoResult tx_vec_tile(Tx *t, unsigned rank, int64_t *vec, unsigned *nvec);

#endif
