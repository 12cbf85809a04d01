/* Private interface between the files of the block dialect: op ids from
 * BlockOps.def and the hooks each file defines. */
#ifndef PTO_DIALECT_BLOCK_BLOCKINTERNAL_H
#define PTO_DIALECT_BLOCK_BLOCKINTERNAL_H

#include "Dialect/DialectUtils.h"
#include "pto/Dialect/Block.h"
#include "pto/DialectImplementation.h"

typedef enum BlockOpId {
#define PTO_OP(id, ...) BLOCK_##id,
#include "Dialect/Block/BlockOps.def"
#undef PTO_OP
  BLOCK_NUM_OPS
} BlockOpId;

#define BLOCK_HOOKS(name)                                                  \
  PtoResult name##_verify(PtoOp *op);                                      \
  PtoResult name##_parse(PtoParser *p, PtoOpState *st);                    \
  void name##_print(PtoPrinter *p, PtoOp *op);
BLOCK_HOOKS(kernel)
BLOCK_HOOKS(return)
BLOCK_HOOKS(load)
BLOCK_HOOKS(store)
BLOCK_HOOKS(workspace)
BLOCK_HOOKS(launch)
#undef BLOCK_HOOKS

/* The block.kernel op enclosing `op`, or NULL. */
PtoOp *block_enclosing_kernel(PtoOp *op);

#endif
