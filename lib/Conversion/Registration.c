/* Registration of the lowering passes in lib/Conversion and of the named
 * pipelines built from them. */
#include "pto/Conversion.h"

#include "Conversion/Passes.h"

#include "Support/Alloc.h"

#include <string.h>

/* The named pipelines, usable as `--<name>` or inside --pass-pipeline. The
 * lowering is the one the Python front end compiles with by default. */
static const struct {
  const char *argument, *summary, *pipeline;
} pipelines[] = {
    {"pto-lower-to-tile",
     "Simplify the Tensor-level IR and expand it into ops on tiles "
     "(canonicalize, cse, tile-expand)",
     "canonicalize,cse,tile-expand"},
    {"pto-lower-to-pto",
     "Lower the Tensor level to planned, synchronised PTO kernels "
     "(pto-lower-to-block, lower-to-pto, memory-plan, insert-sync)",
     "pto-lower-to-block,lower-to-pto,memory-plan,insert-sync"},
};

static bool pipeline_registered(PtoContext *ctx, const char *argument) {
  for (unsigned i = 0; i < pto_pipeline_count(ctx); i++) {
    const char *arg;
    pto_pipeline_get(ctx, i, &arg, NULL, NULL);
    if (strcmp(arg, argument) == 0) return true;
  }
  return false;
}

static const PtoPassDef *const all_passes[] = {
    &pto_tile_expand_pass,
    &pto_cv_partition_pass,
    &pto_lower_to_pto_pass,
};

/* The Block-level passes pto-lower-to-block runs after cv-partition, in
 * this order, each when it is registered (before the lowerings are). */
static const char *const block_passes[] = {"subgraph-dedup", "l1-reuse",
                                           "nbuffer-merge"};

static void register_lower_to_block(PtoContext *ctx) {
  const char *name = "pto-lower-to-block";
  if (pipeline_registered(ctx, name)) return;
  /* cv-partition launches one kernel for identical subgraphs as it makes
   * them: what subgraph-dedup would leave, without making and verifying
   * every copy first */
  char text[256] = "decompose,tile-expand,cv-partition{dedup=true}";
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(block_passes); i++)
    if (pto_pass_lookup(ctx, block_passes[i])) {
      strcat(text, ",");
      strcat(text, block_passes[i]);
    }
  strcat(text, ",canonicalize,cse");
  pto_pipeline_register(ctx, name,
                        "Lower the Tensor level to the Block level: decompose, "
                        "tile-expand, cv-partition, the Block-level passes "
                        "that are registered (subgraph-dedup, l1-reuse, "
                        "nbuffer-merge), canonicalize, cse",
                        text);
}

void pto_conversion_register_passes(PtoContext *ctx) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(all_passes); i++)
    if (pto_pass_lookup(ctx, all_passes[i]->argument) != all_passes[i])
      pto_pass_register(ctx, all_passes[i]);
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(pipelines); i++)
    if (!pipeline_registered(ctx, pipelines[i].argument))
      pto_pipeline_register(ctx, pipelines[i].argument, pipelines[i].summary,
                            pipelines[i].pipeline);
  register_lower_to_block(ctx);
}
