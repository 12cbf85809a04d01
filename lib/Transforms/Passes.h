/* Definitions of the passes in lib/Transforms, for Registration.c. */
#ifndef PTO_TRANSFORMS_PASSES_H
#define PTO_TRANSFORMS_PASSES_H

#include "pto/Pass.h"

extern const PtoPassDef pto_canonicalize_pass;
extern const PtoPassDef pto_cse_pass;
extern const PtoPassDef pto_dce_pass;
extern const PtoPassDef pto_inline_pass;
extern const PtoPassDef pto_loop_unroll_pass;
extern const PtoPassDef pto_symbol_dce_pass;
extern const PtoPassDef pto_print_op_graph_pass;
extern const PtoPassDef pto_print_kernel_graph_pass;

#endif
