/* The generic transforms that ship with PTO: canonicalize, cse, dce,
 * symbol-dce, print-op-graph, ... (lib/Transforms, one file per pass). */
#ifndef PTO_TRANSFORMS_H
#define PTO_TRANSFORMS_H

#include "pto/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every pass of lib/Transforms (and its named pipelines) in the
 * context. Calling it again on the same context is a no-op. */
void pto_register_all_passes(PtoContext *ctx);

/* The split the `decompose` pass applies to one composite pypto op
 * (softmax, rms_norm, layer_norm): builds the primitive ops before it,
 * replaces its uses and erases it. Returns the value that replaced its
 * result, or NULL after emitting an error at the op (which is then left
 * in place). */
PtoValue *pto_pypto_decompose(PtoOp *op);

#ifdef __cplusplus
}
#endif
#endif
