/* Internal state of the embedding API (include/pto/Embed.h), shared by its
 * files: contexts and diagnostics, modules and pipelines, tracing, and
 * compiled kernels. */
#ifndef PTO_EMBED_INTERNAL_H
#define PTO_EMBED_INTERNAL_H

#include "pto/Embed.h"
#include "pto/Platform.h"

#include "Support/Str.h"
#include "Support/Vec.h"

typedef PTO_VEC(char *) EmbedStrings;

struct PtoEmbed {
  PtoContext *ctx;
  PtoStr diags;      /* rendered diagnostics since the last clear */
  unsigned errors;   /* errors among them */
  char *default_pipeline;
  PtoPlatform platform; /* the target: capacities checked while tracing */
  /* Storage for the strings a tracing call returns. */
  PtoStr trace_buf;
  PTO_VEC(size_t) trace_offs;
};

typedef struct EmbedStage {
  char *name;
  char *ir;
} EmbedStage;

struct PtoEmbedModule {
  PtoEmbed *e;
  PtoOp *op; /* builtin.module */
  PTO_VEC(EmbedStage) stages;
};

/* The per-stage check of a kernel (check_stages): the input module and
 * every stage of the compile pipeline run on the same arguments; the first
 * stage (and op) whose results differ beyond tolerance is reported as an
 * error. */
typedef struct PtoEmbedLevelCheck PtoEmbedLevelCheck;
struct PtoInterpValue;
struct PtoInterpOptions;
PtoEmbedLevelCheck *pto_embed_level_check_create(PtoEmbedModule *m,
                                                 const char *pipeline,
                                                 const char *entry, double rtol,
                                                 double atol,
                                                 const struct PtoInterpOptions *iopts);
PtoResult pto_embed_level_check_run(PtoEmbedLevelCheck *c,
                                    const struct PtoInterpValue *args,
                                    unsigned nargs);
void pto_embed_level_check_destroy(PtoEmbedLevelCheck *c);

/* The function to run: `entry`, else the module's only public func.func
 * with a body; NULL after a diagnostic. */
PtoOp *pto_embed_find_entry(PtoEmbed *e, PtoOp *module, const char *entry);

PtoEmbedModule *pto_embed_module_wrap(PtoEmbed *e, PtoOp *module_op);
void pto_embed_module_clear_stages(PtoEmbedModule *m);
void pto_embed_module_add_stage(PtoEmbedModule *m, const char *name,
                                unsigned flags);

#endif
