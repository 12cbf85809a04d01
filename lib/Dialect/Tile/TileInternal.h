/* Private interface between the files of the tile dialect: the checking
 * state shared by the verifier and the checked builder, the op table and
 * the syntax hooks. */
#ifndef PTO_DIALECT_TILE_TILEINTERNAL_H
#define PTO_DIALECT_TILE_TILEINTERNAL_H

#include "Dialect/Common/OpCheck.h"
#include "pto/Dialect/Tile.h"

/* One run of an op's checks: `want` holds the op's actual result types
 * (verifier) or the caller's requested ones (builder, may be NULL); `res`
 * receives the inferred ones. */
typedef struct TileInfer {
  PtoOpCheck c;
  PtoTileOp id;
  PtoType *want[2];
  PtoType *res[2];
  unsigned nres;
} TileInfer;

void tile_infer_init(TileInfer *in, PtoContext *ctx, PtoLoc *loc, PtoTileOp id,
                     PtoType *const *opnd, unsigned nopnd,
                     const PtoNamedAttr *attrs, unsigned nattrs);
PtoResult tile_infer(TileInfer *in);
/* Compares res with want. */
PtoResult tile_infer_check_results(TileInfer *in);
void tile_infer_done(TileInfer *in);

extern const PtoOpDef tile_op_defs[PTO_TILE_NUM_OPS];
extern const PtoOpTable tile_op_table;
PtoResult tile_verify(PtoOp *op);
PtoResult tile_parse(PtoParser *p, PtoOpState *st);
void tile_print(PtoPrinter *p, PtoOp *op);
PtoType *tile_parse_type(PtoParser *p, const char *mnemonic);
void tile_print_type(PtoPrinter *p, PtoType *t);

/* Index of the first dynamic offset / size operand of a kind with `n`
 * operands (n when the kind has none). */
unsigned tile_first_index_operand(PtoTileKind k, unsigned n);

#endif
