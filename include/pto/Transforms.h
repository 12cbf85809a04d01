/* The generic transforms that ship with PTO: canonicalize, cse, dce,
 * symbol-dce, print-op-graph, ... (lib/Transforms, one file per pass). */
#ifndef PTO_TRANSFORMS_H
#define PTO_TRANSFORMS_H

#include "pto/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every pass that ships with PTO (and the named pipelines): the
 * generic transforms, the passes of each dialect (pypto's decompose) and
 * the lowerings between levels (tile-expand). Calling it again on the same
 * context is a no-op. */
void pto_register_all_passes(PtoContext *ctx);

#ifdef __cplusplus
}
#endif
#endif
