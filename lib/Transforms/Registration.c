/* Registration of every pass that ships with PTO: the generic transforms of
 * lib/Transforms, then the passes of each dialect, then the lowerings. */
#include "pto/Transforms.h"

#include "Transforms/Passes.h"

#include "pto/Conversion.h"
#include "pto/Dialect/BlockTransforms.h"
#include "pto/Dialect/PyptoTransforms.h"

#include "Support/Alloc.h"

static const PtoPassDef *const all_passes[] = {
    &pto_canonicalize_pass, &pto_cse_pass,         &pto_dce_pass,
    &pto_inline_pass,       &pto_loop_unroll_pass, &pto_symbol_dce_pass,
    &pto_print_op_graph_pass, &pto_print_kernel_graph_pass,
    &pto_memory_plan_pass,  &pto_insert_sync_pass, &pto_verify_hazards_pass,
    &pto_kernel_cost_pass,
};

void pto_register_all_passes(PtoContext *ctx) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(all_passes); i++)
    if (pto_pass_lookup(ctx, all_passes[i]->argument) != all_passes[i])
      pto_pass_register(ctx, all_passes[i]);
  pto_pypto_register_passes(ctx);
  pto_block_register_passes(ctx);
  pto_conversion_register_passes(ctx);
}
