/* lower-to-pto's rewrites of the Tile level's elementwise math, shape and
 * generator ops (LowerElementwise.c), called from lower-to-pto.c. */
#ifndef PTO_CONVERSION_BLOCKTOPTO_LOWERELEMENTWISE_H
#define PTO_CONVERSION_BLOCKTOPTO_LOWERELEMENTWISE_H

#include <stdbool.h>

#include "pto/IR.h"

/* Whether `op` is one of the Tile ops LowerElementwise.c lowers. */
bool pto_lower_elementwise_handles(PtoOp *op);

/* Builds before `op` the PTO instructions that compute it from its
 * operands (tile operands already PTO tiles), its result being the PTO
 * tile `result` (its Block buffer `buffer` flattened to rows x cols).
 * Returns the instruction whose result replaces op's, or NULL after an
 * error reported at op. */
PtoOp *pto_lower_elementwise(PtoContext *ctx, PtoOp *op, PtoType *buffer,
                             PtoType *result);

#endif
