/* The per-stage check of compiled kernels (check_stages). */
#include "Embed/EmbedInternal.h"

#include "pto/Interp.h"

struct PtoEmbedLevelCheck {
  int unused;
};

PtoEmbedLevelCheck *pto_embed_level_check_create(PtoEmbedModule *m,
                                                 const char *pipeline,
                                                 const char *entry, double rtol,
                                                 double atol) {
  (void)pipeline; (void)entry; (void)rtol; (void)atol;
  pto_emit_error(m->e->ctx, NULL, "check_stages: not implemented yet");
  return NULL;
}

PtoResult pto_embed_level_check_run(PtoEmbedLevelCheck *c,
                                    const struct PtoInterpValue *args,
                                    unsigned nargs) {
  (void)c; (void)args; (void)nargs;
  return PTO_FAILURE;
}

void pto_embed_level_check_destroy(PtoEmbedLevelCheck *c) { pto_free(c); }
