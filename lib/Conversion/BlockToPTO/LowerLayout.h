/* lower-to-pto for the Tile ops that move elements between the dims of an
 * N-D buffer (LowerLayout.c): transposes of more than two dims, column
 * reductions inside several planes, and broadcasts inside the rows of the
 * flattened tile, through pto.tpermute and pto.trepeat. */
#ifndef PTO_CONVERSION_BLOCKTOPTO_LOWERLAYOUT_H
#define PTO_CONVERSION_BLOCKTOPTO_LOWERLAYOUT_H

#include "Conversion/BlockToPTO/LowerCubeIndex.h"

/* The Block buffer type of `op`'s operand 0 (a tile.dequantize's scale,
 * operand 1) before the operand was rewritten (the flattened tile does
 * not tell [2, 1, 4] from [1, 2, 4]). */
PtoType *pto_lower_operand_buffer(Lower *L, PtoOp *op);
/* `op`'s result i is result 0 of lasts[i]: marks their provenance,
 * rewires the users and erases `op`. */
void pto_lower_finish_results(Lower *L, PtoOp *op, PtoOp *const *lasts);

/* tile.transpose by `perm` (rank dims) of a buffer whose 2-D tile no
 * ttrans computes: one tpermute. */
PtoResult pto_lower_permute(Lower *L, PtoOp *op, const int64_t *perm,
                            unsigned rank);
/* A reshape (or a transpose of unit dims) whose operand tile has another
 * shape than `want`, the same elements in the same order: tpermute by the
 * identity. */
PtoResult pto_lower_reshape(Lower *L, PtoOp *op, PtoType *want);
/* A column reduction (tile.col*) of a buffer of several planes: the row
 * reduction of the tile with each plane transposed, transposed back. */
PtoResult pto_lower_plane_reduce(Lower *L, PtoOp *op);
/* tile.colexpand_* of a buffer of several planes: b's row of each plane
 * repeated down the plane (trepeat), then the elementwise `binary`
 * instruction (pto.tadd, ...) of the whole tiles. */
PtoResult pto_lower_plane_colexpand(Lower *L, PtoOp *op, const char *binary);
/* Lowers `op` when it is one of this file's (*done set: a tile.expand
 * repeating its operand inside the rows of the result), else leaves it. */
PtoResult pto_lower_layout(Lower *L, PtoOp *op, bool *done);

#endif
