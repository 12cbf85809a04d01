/* The lowerings between levels that ship with PTO (lib/Conversion, one
 * folder per pair of levels: TensorToTile/ holds tile-expand). */
#ifndef PTO_CONVERSION_H
#define PTO_CONVERSION_H

#include "pto/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every lowering pass in the context. Calling it again on the
 * same context is a no-op. */
void pto_conversion_register_passes(PtoContext *ctx);

#ifdef __cplusplus
}
#endif
#endif
