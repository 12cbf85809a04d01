/* Registration of the passes on Block IR. */
#include "pto/Dialect/BlockTransforms.h"

#include "Dialect/Block/Transforms/BlockPasses.h"

#include "Support/Alloc.h"

static const PtoPassDef *const all_passes[] = {
    &pto_subgraph_dedup_pass, &pto_l1_reuse_pass, &pto_nbuffer_merge_pass};

void pto_block_register_passes(PtoContext *ctx) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(all_passes); i++)
    if (pto_pass_lookup(ctx, all_passes[i]->argument) != all_passes[i])
      pto_pass_register(ctx, all_passes[i]);
}
