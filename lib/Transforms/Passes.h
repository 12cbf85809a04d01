/* Definitions of the passes in lib/Transforms and lib/Analysis, for
 * Registration.c. */
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
extern const PtoPassDef pto_memory_plan_pass;
extern const PtoPassDef pto_insert_sync_pass;
extern const PtoPassDef pto_verify_hazards_pass;
extern const PtoPassDef pto_kernel_cost_pass;
extern const PtoPassDef pto_print_kernel_graph_pass;

#endif
