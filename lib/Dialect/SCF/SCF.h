/* The scf dialect's internals shared by its files: op ids (from
 * SCFOps.def) and the canonicalization hooks. */
#ifndef PTO_DIALECT_SCF_H
#define PTO_DIALECT_SCF_H

#include "pto/Dialects.h"
#include "pto/DialectImplementation.h"

typedef enum ScfOpId {
#define PTO_OP(id, ...) SCF_##id,
#include "Dialect/SCF/SCFOps.def"
#undef PTO_OP
  SCF_NUM_OPS
} ScfOpId;

void pto_scf_canon_for(void *patterns, PtoContext *ctx);
void pto_scf_canon_if(void *patterns, PtoContext *ctx);

#endif
