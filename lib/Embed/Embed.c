/* The embedding API's contexts, diagnostics buffer, modules and pipelines
 * (include/pto/Embed.h). */
#include "Embed/EmbedInternal.h"

#include "pto/Dialects.h"
#include "pto/Pass.h"
#include "pto/Transforms.h"

#include <assert.h>
#include <string.h>

unsigned pto_embed_api_version(void) { return PTO_EMBED_API_VERSION; }
const char *pto_embed_version_string(void) { return PTO_VERSION_STRING; }

/* ------------------------------------------------------------------ */
/* Contexts and diagnostics                                             */
/* ------------------------------------------------------------------ */

static bool collect_diag(const PtoDiagInfo *d, void *user) {
  PtoEmbed *e = user;
  char *text = pto_diag_render(e->ctx, d);
  pto_str_puts(&e->diags, text);
  pto_free(text);
  if (d->severity == PTO_DIAG_ERROR) e->errors++;
  return true;
}

PtoEmbed *pto_embed_create(void) {
  PtoEmbed *e = pto_calloc(1, sizeof *e);
  e->ctx = pto_ctx_create();
  pto_str_init(&e->diags);
  pto_str_init(&e->trace_buf);
  pto_ctx_push_diag_handler(e->ctx, collect_diag, e);
  pto_register_all_dialects(e->ctx);
  pto_register_all_passes(e->ctx);
  /* The default description is built in; not loading it is a build bug. */
  bool loaded = pto_platform_load(&e->platform, NULL, NULL);
  assert(loaded);
  (void)loaded;
  return e;
}

PtoResult pto_embed_set_platform(PtoEmbed *e, const char *spec) {
  PtoPlatform p;
  PtoPlatformError err;
  if (pto_platform_load(&p, spec, &err)) {
    e->platform = p;
    return PTO_SUCCESS;
  }
  char msg[1024];
  pto_platform_error_format(&err, msg, sizeof msg);
  pto_str_printf(&e->diags, "%s\n", msg);
  e->errors++;
  return PTO_FAILURE;
}

const char *pto_embed_platform_name(PtoEmbed *e) { return e->platform.name; }

void pto_embed_destroy(PtoEmbed *e) {
  if (!e) return;
  pto_ctx_destroy(e->ctx);
  pto_str_release(&e->diags);
  pto_str_release(&e->trace_buf);
  pto_vec_free(&e->trace_offs);
  pto_free(e->default_pipeline);
  pto_free(e);
}

PtoContext *pto_embed_context(PtoEmbed *e) { return e->ctx; }

const char *pto_embed_diagnostics(PtoEmbed *e) {
  return e->diags.data ? e->diags.data : "";
}

unsigned pto_embed_num_errors(PtoEmbed *e) { return e->errors; }

void pto_embed_clear_diagnostics(PtoEmbed *e) {
  e->diags.len = 0;
  if (e->diags.data) e->diags.data[0] = 0;
  e->errors = 0;
}

void pto_embed_add_source(PtoEmbed *e, const char *name, const char *text,
                          size_t len) {
  pto_ctx_add_source(e->ctx, name, text, len);
}

/* ------------------------------------------------------------------ */
/* Modules                                                              */
/* ------------------------------------------------------------------ */

PtoEmbedModule *pto_embed_module_wrap(PtoEmbed *e, PtoOp *module_op) {
  PtoEmbedModule *m = pto_calloc(1, sizeof *m);
  m->e = e;
  m->op = module_op;
  return m;
}

PtoEmbedModule *pto_embed_parse(PtoEmbed *e, const char *text, size_t len,
                                const char *filename) {
  PtoParseOptions po = {filename ? filename : "<embed>", 1};
  /* diagnostics at locations in the text quote it */
  pto_ctx_add_source(e->ctx, po.filename, text, len);
  PtoOp *op = pto_parse_module(e->ctx, text, len, &po);
  if (!op) return NULL;
  if (pto_op_verify(op)) {
    pto_op_destroy(op);
    return NULL;
  }
  return pto_embed_module_wrap(e, op);
}

void pto_embed_module_clear_stages(PtoEmbedModule *m) {
  pto_vec_foreach(&m->stages, s) {
    pto_free(s->name);
    pto_free(s->ir);
  }
  pto_vec_clear(&m->stages);
}

void pto_embed_module_destroy(PtoEmbedModule *m) {
  if (!m) return;
  pto_embed_module_clear_stages(m);
  pto_vec_free(&m->stages);
  if (m->op) pto_op_destroy(m->op);
  pto_free(m);
}

PtoEmbedModule *pto_embed_module_clone(PtoEmbedModule *m) {
  return pto_embed_module_wrap(m->e, pto_op_clone(m->op, NULL));
}

PtoOp *pto_embed_module_op(PtoEmbedModule *m) { return m->op; }

char *pto_embed_module_print(PtoEmbedModule *m, unsigned flags) {
  return pto_op_print_to_string(m->op, flags);
}

void pto_embed_module_add_stage(PtoEmbedModule *m, const char *name,
                                unsigned flags) {
  EmbedStage s;
  s.name = pto_strndup(name, strlen(name));
  s.ir = pto_op_print_to_string(m->op, flags);
  pto_vec_push(&m->stages, s);
}

typedef struct StageRecorder {
  PtoEmbedModule *m;
  unsigned flags;
} StageRecorder;

static PtoResult record_stage(unsigned stage, const char *pass,
                                         PtoOp *top, void *user) {
  StageRecorder *r = user;
  (void)stage;
  (void)top;
  pto_embed_module_add_stage(r->m, pass, r->flags);
  return PTO_SUCCESS;
}

PtoResult pto_embed_run_pipeline(PtoEmbedModule *m, const char *pipeline,
                                 const PtoEmbedPipelineOptions *opts) {
  PtoEmbedPipelineOptions none;
  memset(&none, 0, sizeof none);
  if (!opts) opts = &none;
  PtoContext *ctx = m->e->ctx;
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  if (pto_pm_add_pipeline(pm, pipeline ? pipeline : "")) {
    pto_pm_destroy(pm);
    return PTO_FAILURE;
  }
  pto_pm_set_verify_each(pm, true);
  PtoInstrumentation ins;
  memset(&ins, 0, sizeof ins);
  ins.dump_dir = opts->dump_dir;
  ins.print_flags = opts->debuginfo ? PTO_PRINT_DEBUGINFO : 0;
  StageRecorder rec = {m, ins.print_flags};
  if (opts->record_stages) {
    pto_embed_module_clear_stages(m);
    pto_embed_module_add_stage(m, "input", rec.flags);
    ins.after_stage = record_stage;
    ins.after_stage_user = &rec;
  }
  pto_pm_set_instrumentation(pm, &ins);
  PtoResult r = pto_pm_run(pm, m->op);
  pto_pm_destroy(pm);
  return r;
}

unsigned pto_embed_module_num_stages(PtoEmbedModule *m) {
  return m->stages.len;
}

const char *pto_embed_module_stage_name(PtoEmbedModule *m, unsigned i) {
  return i < m->stages.len ? m->stages.data[i].name : NULL;
}

const char *pto_embed_module_stage_ir(PtoEmbedModule *m, unsigned i) {
  return i < m->stages.len ? m->stages.data[i].ir : NULL;
}
