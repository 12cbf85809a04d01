/* Definitions of the lowering passes in lib/Conversion, for Registration.c. */
#ifndef PTO_CONVERSION_PASSES_H
#define PTO_CONVERSION_PASSES_H

#include "pto/Pass.h"

extern const PtoPassDef pto_tile_expand_pass;
extern const PtoPassDef pto_cv_partition_pass;
extern const PtoPassDef pto_lower_to_pto_pass;

#endif
