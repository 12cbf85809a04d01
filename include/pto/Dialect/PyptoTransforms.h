/* Passes that belong to the Tensor level's dialect (`pypto`) alone, kept
 * next to it in lib/Dialect/Tensor/Transforms: decompose. */
#ifndef PTO_DIALECT_PYPTOTRANSFORMS_H
#define PTO_DIALECT_PYPTOTRANSFORMS_H

#include "pto/Dialect/Pypto.h"
#include "pto/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the pypto passes in the context. Calling it again on the same
 * context is a no-op. */
void pto_pypto_register_passes(PtoContext *ctx);

/* Whether `decompose` splits ops of this id: softmax, rms_norm,
 * layer_norm, quant_mx, scaled_mm. */
bool pto_pypto_is_composite(PtoPyptoOp id);

/* The split the `decompose` pass applies to one composite pypto op:
 * builds the primitive ops before it, replaces its uses and erases it.
 * Returns the value that replaced its result #0, or NULL after emitting an
 * error at the op (which is then left in place). */
PtoValue *pto_pypto_decompose(PtoOp *op);

#ifdef __cplusplus
}
#endif
#endif
