/* lower-to-pto for the Tile ops that address GM through an index tile
 * (LowerIndexed.c): tile.gather becomes pto.tgather_gm, MTE2 reading each
 * element at the address its index names, and the scatters pto.tscatter_gm,
 * MTE3 writing each at the address its index names. */
#ifndef PTO_CONVERSION_BLOCKTOPTO_LOWERINDEXED_H
#define PTO_CONVERSION_BLOCKTOPTO_LOWERINDEXED_H

#include "Conversion/BlockToPTO/LowerCubeIndex.h"

/* Lowers `op` when it is one of this file's (*done set), else leaves it. */
PtoResult pto_lower_indexed(Lower *L, PtoOp *op, bool *done);

/* Whether `op` is a scatter, whose tile operand's Block buffer
 * (pto_lower_operand_buffer) gives the shape of its GM window. */
bool pto_lower_indexed_stores(PtoOp *op);

#endif
