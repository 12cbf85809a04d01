/* Registration of the lowering passes in lib/Conversion. */
#include "pto/Conversion.h"

#include "Conversion/Passes.h"

#include "Support/Alloc.h"

static const PtoPassDef *const all_passes[] = {
    &pto_tile_expand_pass,
};

void pto_conversion_register_passes(PtoContext *ctx) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(all_passes); i++)
    if (pto_pass_lookup(ctx, all_passes[i]->argument) != all_passes[i])
      pto_pass_register(ctx, all_passes[i]);
}
