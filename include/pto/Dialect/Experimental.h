/* The `experimental` dialect: PyPTO's custom data-movement ops (gathers of
 * paged-cache rows into on-chip memory). Semantics and the way they are
 * built: docs/dialects/experimental.md. */
#ifndef PTO_DIALECT_EXPERIMENTAL_H
#define PTO_DIALECT_EXPERIMENTAL_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

void pto_register_experimental_dialect(PtoContext *ctx);

typedef enum PtoExperimentalOp {
  PTO_EXPERIMENTAL_NONE = -1,
#define EXPERIMENTAL_OP(ID, MN, SIZE, SUM) PTO_EXPERIMENTAL_##ID,
#include "pto/Dialect/ExperimentalOps.def"
  PTO_EXPERIMENTAL_NUM_OPS
} PtoExperimentalOp;

/* The op's id, or PTO_EXPERIMENTAL_NONE. */
PtoExperimentalOp pto_experimental_op_id(const PtoOp *op);

/* Row r of the source a gather reads for token `token`:
 * table[token / block_size] * block_size + token % block_size. False when
 * the token is negative or its block lies past the table (nblocks). */
bool pto_experimental_row(int64_t token, int64_t block_size,
                          const int64_t *table, int64_t nblocks, int64_t *row);

#ifdef __cplusplus
}
#endif

#endif
