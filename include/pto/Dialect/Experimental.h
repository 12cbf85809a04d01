/* The `experimental` dialect: PyPTO's custom data-movement ops (gathers of
 * paged-cache rows into on-chip memory). Semantics and the way they are
 * built: docs/dialects/experimental.md. */
#ifndef PTO_DIALECT_EXPERIMENTAL_H
#define PTO_DIALECT_EXPERIMENTAL_H

#include "pto/IR.h"
#include "pto/NdArray.h"

#include <stddef.h>

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

/* The gather itself, shared by the interpreter's hook and the compiled
 * host program's task so that both copy the same rows: out (k x width,
 * allocated by the caller) gets, for each token of idx (1 x k), the first
 * width elements of its row of src through tab (1 x n). Any strides.
 * False with the message in err (without the op's name) when width
 * exceeds src's columns, a token has no block or its row lies past src.
 * It touches no IR and no context, so a runtime worker may call it. */
bool pto_experimental_gather(const PtoNdArray *src, const PtoNdArray *idx,
                             const PtoNdArray *tab, int64_t block_size,
                             PtoNdArray *out, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
