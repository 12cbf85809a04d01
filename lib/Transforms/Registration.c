/* Registration of the passes in lib/Transforms. */
#include "pto/Transforms.h"

#include "Transforms/Passes.h"

#include "Support/Alloc.h"

static const PtoPassDef *const all_passes[] = {
    &pto_canonicalize_pass, &pto_cse_pass, &pto_dce_pass,
    &pto_symbol_dce_pass, &pto_print_op_graph_pass, &pto_decompose_pass,
    &pto_inline_pass, &pto_loop_unroll_pass, &pto_tile_expand_pass,
};

void pto_register_all_passes(PtoContext *ctx) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(all_passes); i++)
    if (pto_lookup_pass(ctx, all_passes[i]->argument) != all_passes[i])
      pto_register_pass(ctx, all_passes[i]);
}
