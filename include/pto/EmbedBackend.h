/* The embedding API's compiled back ends: a kernel of include/pto/Embed.h
 * run as JIT-compiled PTO kernels on the MPMD runtime instead of the
 * reference interpreter, on the host's worker threads (real numbers) or,
 * in addition, on the simulated machine (its timeline), with the trace,
 * SVG swimlane and health report of the last run. docs/c-api.md shows it
 * in use; the Python front end's run modes bind it. */
#ifndef PTO_EMBEDBACKEND_H
#define PTO_EMBEDBACKEND_H

#include "pto/Embed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A JIT and its cache of compiled modules (keyed by the module's text),
 * shared by the kernels given it: the same kernel compiled twice is
 * compiled once. Not for concurrent use; it must outlive those kernels. */
typedef struct PtoEmbedEngine PtoEmbedEngine;
/* NULL when LLVM has no target for this host (`err`, if non-NULL, gets
 * the reason, at most `cap` bytes). */
PtoEmbedEngine *pto_embed_engine_create(char *err, size_t cap);
/* The same with LLVM's default<O`opt_level`> pipeline, 0..3 (the default
 * is 2; 0 compiles several times faster into slower code, for test runs
 * under a sanitizer). Any other level is an error. */
PtoEmbedEngine *pto_embed_engine_create_with_opt_level(int opt_level, char *err,
                                                       size_t cap);
void pto_embed_engine_destroy(PtoEmbedEngine *eng);
/* Modules compiled, compiles answered from the cache, seconds spent. */
uint64_t pto_embed_engine_num_compiled(const PtoEmbedEngine *eng);
uint64_t pto_embed_engine_num_cache_hits(const PtoEmbedEngine *eng);
double pto_embed_engine_compile_seconds(const PtoEmbedEngine *eng);

/* Which back end: the host's worker threads, or those and the simulator
 * (results from the host, timeline from the simulator). */
typedef enum PtoEmbedBackendKind {
  PTO_EMBED_BACKEND_HOST = 1,
  PTO_EMBED_BACKEND_SIM = 3
} PtoEmbedBackendKind;

typedef struct PtoEmbedBackendOptions {
  PtoEmbedBackendKind kind;
  /* The entry function (NULL: the module's only public one). */
  const char *entry;
  /* The pipeline that lowers the source module to PTO (NULL:
   * "pto-lower-to-pto"). */
  const char *pipeline;
  /* The machine: a built-in name or an XML description (NULL: the
   * default). */
  const char *platform;
} PtoEmbedBackendOptions;

typedef struct PtoEmbedBackend PtoEmbedBackend;
/* Lowers a copy of `source` (the module `k` was compiled from) to PTO,
 * compiles it with `eng` and makes `k`'s runs use it. The handle belongs
 * to `k` (freed with it or when another executor is installed). NULL
 * after diagnostics (on the handle `k` came from); `k` is then unchanged. */
PtoEmbedBackend *pto_embed_kernel_use_backend(PtoEmbedKernel *k,
                                              PtoEmbedEngine *eng,
                                              PtoEmbedModule *source,
                                              const PtoEmbedBackendOptions *opts);
/* Runs of the compiled kernels so far. */
uint64_t pto_embed_backend_num_runs(const PtoEmbedBackend *b);
/* Kernels (pto.kernel) and tasks of the last run. */
unsigned pto_embed_backend_num_kernels(const PtoEmbedBackend *b);
uint64_t pto_embed_backend_num_tasks(const PtoEmbedBackend *b);
/* Writes the last run's timeline (the simulator's for the SIM kind, else
 * the host's): Trace Event JSON, SVG swimlane, health report as text and
 * as JSON; a NULL path skips that file. Fails after a diagnostic. */
PtoResult pto_embed_backend_write_timeline(PtoEmbedBackend *b, const char *trace,
                                           const char *svg, const char *report,
                                           const char *report_json);
/* pto_host_program_set_gm_check and _write_dependencies of the kernel's
 * compiled program (pto/HostProgram.h). */
void pto_embed_backend_set_gm_check(PtoEmbedBackend *b, bool on);
PtoResult pto_embed_backend_write_dependencies(PtoEmbedBackend *b, const char *path);

#ifdef __cplusplus
}
#endif
#endif
