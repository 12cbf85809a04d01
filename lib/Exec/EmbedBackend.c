/* The embedding API's compiled back ends (include/pto/EmbedBackend.h): a
 * kernel's source lowered to PTO and compiled into a PtoHostProgram that
 * replaces the interpreter as the kernel's executor. */
#include "pto/EmbedBackend.h"

#include "pto/HostProgram.h"
#include "pto/Pass.h"

#include "Embed/EmbedInternal.h"
#include "Support/Alloc.h"
#include "Support/Str.h"

#include <stdio.h>
#include <string.h>

struct PtoEmbedEngine {
  PtoJit *jit;
};

struct PtoEmbedBackend {
  PtoEmbed *e;
  PtoOp *module; /* the lowered copy; the program's code came from it */
  PtoHostProgram *prog;
  uint64_t runs;
};

PtoEmbedEngine *pto_embed_engine_create(char *err, size_t cap) {
  return pto_embed_engine_create_with_opt_level(2, err, cap);
}

PtoEmbedEngine *pto_embed_engine_create_with_opt_level(int opt_level, char *err,
                                                       size_t cap) {
  PtoError e;
  PtoJitOptions opts = {.opt_level = opt_level};
  PtoJit *jit = pto_jit_create(&opts, &e);
  if (!jit) {
    if (err && cap) snprintf(err, cap, "%s", e.msg);
    return NULL;
  }
  PtoEmbedEngine *eng = pto_calloc(1, sizeof *eng);
  eng->jit = jit;
  return eng;
}

void pto_embed_engine_destroy(PtoEmbedEngine *eng) {
  if (!eng) return;
  pto_jit_destroy(eng->jit);
  pto_free(eng);
}

uint64_t pto_embed_engine_num_compiled(const PtoEmbedEngine *eng) {
  return pto_jit_get_stats(eng->jit).compiled;
}
uint64_t pto_embed_engine_num_cache_hits(const PtoEmbedEngine *eng) {
  return pto_jit_get_stats(eng->jit).cache_hits;
}
double pto_embed_engine_compile_seconds(const PtoEmbedEngine *eng) {
  return pto_jit_get_stats(eng->jit).compile_seconds;
}

static void backend_destroy(void *state) {
  PtoEmbedBackend *b = state;
  pto_host_program_destroy(b->prog);
  if (b->module) pto_op_destroy(b->module);
  pto_free(b);
}

static PtoResult backend_run(void *state, const PtoInterpValue *args, unsigned nargs,
                             PtoInterpValue **results, unsigned *nres) {
  PtoEmbedBackend *b = state;
  unsigned n = pto_host_program_num_results(b->prog);
  *results = NULL;
  *nres = 0;
  if (pto_host_program_build(b->prog, args, nargs) || pto_host_program_run(b->prog, NULL))
    return PTO_FAILURE;
  PtoInterpValue *res = pto_calloc(n ? n : 1, sizeof *res);
  for (unsigned i = 0; i < n; i++)
    if (pto_host_program_result(b->prog, i, NULL, &res[i])) {
      for (unsigned j = 0; j < i; j++) pto_interp_value_release(&res[j]);
      pto_free(res);
      return PTO_FAILURE;
    }
  b->runs++;
  *results = res;
  *nres = n;
  return PTO_SUCCESS;
}

static bool has_kernels(PtoOp *module) {
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = top ? pto_block_first_op(top) : NULL; op; op = pto_op_next(op))
    if (pto_op_is(op, "pto.kernel")) return true;
  return false;
}

PtoEmbedBackend *pto_embed_kernel_use_backend(PtoEmbedKernel *k, PtoEmbedEngine *eng,
                                              PtoEmbedModule *source,
                                              const PtoEmbedBackendOptions *opts) {
  PtoEmbed *e = source->e;
  PtoEmbedBackendOptions none = {PTO_EMBED_BACKEND_HOST, NULL, NULL, NULL};
  if (!opts) opts = &none;
  /* by default, lowered for the platform the kernels run on */
  char *own = !opts->pipeline && opts->platform && *opts->platform
                  ? pto_pass_text_with_option("pto-lower-to-pto", "platform", opts->platform)
                  : NULL;
  const char *pipeline = opts->pipeline ? opts->pipeline : own ? own : "pto-lower-to-pto";
  PtoEmbedModule *m = pto_embed_module_clone(source);
  PtoOp *func = NULL;
  bool lowered = !pto_embed_run_pipeline(m, pipeline, NULL);
  pto_free(own);
  pipeline = opts->pipeline ? opts->pipeline : "pto-lower-to-pto";
  if (!lowered || !(func = pto_embed_find_entry(e, m->op, opts->entry))) {
    pto_embed_module_destroy(m);
    return NULL;
  }
  if (!has_kernels(m->op)) {
    pto_emit_error(e->ctx, pto_op_loc(func),
                   "@%s has no pto.kernel after '%s'; the compiled back ends run PTO kernels",
                   pto_ident_str(pto_op_symbol_name(func)), pipeline);
    pto_embed_module_destroy(m);
    return NULL;
  }
  PtoPlatform plat;
  PtoPlatformError perr;
  const char *spec = opts->platform && *opts->platform ? opts->platform : PTO_PLATFORM_DEFAULT;
  if (!pto_platform_load(&plat, spec, &perr)) {
    pto_emit_error(e->ctx, pto_op_loc(func), "cannot load the platform '%s': %s", spec,
                   perr.message);
    pto_embed_module_destroy(m);
    return NULL;
  }
  PtoHostProgramOptions hopts = {
      .platform = &plat,
      .backend = opts->kind == PTO_EMBED_BACKEND_SIM ? PTO_RT_BOTH : PTO_RT_HOST,
      .jit = eng->jit};
  PtoHostProgram *prog = pto_host_program_create(e->ctx, m->op, func, &hopts);
  if (!prog) {
    pto_embed_module_destroy(m);
    return NULL;
  }
  PtoEmbedBackend *b = pto_calloc(1, sizeof *b);
  b->e = e;
  b->prog = prog;
  /* the lowered module lives as long as the program that refers to it */
  b->module = m->op;
  m->op = NULL;
  pto_embed_module_destroy(m);
  PtoEmbedExecutor x = {b, backend_run, backend_destroy};
  pto_embed_kernel_set_executor(k, &x);
  return b;
}

uint64_t pto_embed_backend_num_runs(const PtoEmbedBackend *b) { return b->runs; }
unsigned pto_embed_backend_num_kernels(const PtoEmbedBackend *b) {
  return pto_host_program_num_kernels(b->prog);
}
uint64_t pto_embed_backend_num_tasks(const PtoEmbedBackend *b) {
  PtoGraph *g = pto_host_program_graph(b->prog);
  if (!g) return 0;
  PtoRtGraphStats st;
  pto_graph_get_stats(g, &st);
  return st.tasks;
}

PtoResult pto_embed_backend_write_timeline(PtoEmbedBackend *b, const char *trace,
                                           const char *svg, const char *report,
                                           const char *report_json) {
  return pto_host_program_write_timeline(b->prog, trace, svg, report, report_json);
}

void pto_embed_backend_set_gm_check(PtoEmbedBackend *b, bool on) {
  pto_host_program_set_gm_check(b->prog, on);
}
PtoResult pto_embed_backend_write_dependencies(PtoEmbedBackend *b, const char *path) {
  return pto_host_program_write_dependencies(b->prog, path);
}
