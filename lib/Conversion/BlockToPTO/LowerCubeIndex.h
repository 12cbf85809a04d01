/* lower-to-pto's state as the files of its lowerings share it: the ops
 * of more than one PTO instruction (LowerCubeIndex.c) build with the
 * pass's helpers, so that tiles, provenance and errors mean the same. */
#ifndef PTO_CONVERSION_BLOCKTOPTO_LOWERCUBEINDEX_H
#define PTO_CONVERSION_BLOCKTOPTO_LOWERCUBEINDEX_H

#include <stdbool.h>

#include "pto/IR.h"

typedef struct Lower Lower;

/* The PTO tile of a Block buffer (its leading dims flattened into rows),
 * or NULL for other types. */
PtoType *pto_lower_tile_type(Lower *L, PtoType *buf);
/* `name` with the operands and one result, inserted before `at`. */
PtoOp *pto_lower_build(Lower *L, PtoOp *at, const char *name,
                       PtoValue *const *operands, unsigned n, PtoType *result);
/* `op`'s value is `last`'s result 0: marks its provenance, rewires the
 * users and erases `op`. */
void pto_lower_finish(Lower *L, PtoOp *op, PtoOp *last);

/* Lowers `op` when it is one of this file's (*done set), else leaves it. */
PtoResult pto_lower_cube_index(Lower *L, PtoOp *op, bool *done);

#endif
