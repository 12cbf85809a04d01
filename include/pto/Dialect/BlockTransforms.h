/* Passes that belong to the Block level's dialect (`block`) alone, kept
 * next to it in lib/Dialect/Block/Transforms: subgraph-dedup, l1-reuse,
 * nbuffer-merge. */
#ifndef PTO_DIALECT_BLOCKTRANSFORMS_H
#define PTO_DIALECT_BLOCKTRANSFORMS_H

#include "pto/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the block passes in the context. Calling it again on the same
 * context is a no-op. */
void pto_block_register_passes(PtoContext *ctx);

#ifdef __cplusplus
}
#endif
#endif
