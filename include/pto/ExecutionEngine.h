/* The JIT: compiles LLVM IR (textual .ll) for this host's CPU with LLVM's
 * ORC LLJIT and hands out the addresses of its functions. It knows nothing
 * of the PTO IR (lib/Target/LLVMIR produces the modules it runs). */
#ifndef PTO_EXECUTIONENGINE_H
#define PTO_EXECUTIONENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "pto/Error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One JIT: a target machine for the host (its CPU name and features), an
 * LLJIT whose code may call any symbol of the process (the runtime, libc,
 * libm) and a cache of the modules it compiled. Not safe for concurrent
 * compiles; the code it returns may be called from any thread until
 * pto_jit_destroy. */
typedef struct PtoJit PtoJit;
/* A compiled module, owned by its PtoJit. */
typedef struct PtoJitModule PtoJitModule;

/* Whether compiled objects are kept on disk for the next process
 * (docs/jit.md, "The cache on disk"). */
typedef enum PtoJitDiskCache {
  PTO_JIT_DISK_CACHE_FROM_ENV = 0, /* on unless PTO_JIT_CACHE=0 */
  PTO_JIT_DISK_CACHE_OFF = 1,
  PTO_JIT_DISK_CACHE_ON = 2,
} PtoJitDiskCache;

typedef struct PtoJitOptions {
  /* LLVM's default<On> pipeline, 0..3 (the JIT's default is 2). */
  int opt_level;
  PtoJitDiskCache disk_cache;
  /* Where the objects go; NULL: $PTO_CACHE_DIR, else
   * $XDG_CACHE_HOME/pto/jit, else $HOME/.cache/pto/jit. Created when
   * missing. */
  const char *cache_dir;
} PtoJitOptions;

/* NULL opts means the defaults: level 2 unless the environment's
 * PTO_JIT_OPT_LEVEL (0..3) says otherwise, the disk cache as
 * PTO_JIT_CACHE says. Returns NULL and fills err when LLVM has no target
 * for this host, or either variable holds something else. */
PtoJit *pto_jit_create(const PtoJitOptions *opts, PtoError *err);
void pto_jit_destroy(PtoJit *jit);

/* Parses, verifies, optimises and compiles the module `ll` (len bytes of
 * textual LLVM IR; need not be NUL-terminated), or returns the module
 * compiled earlier from the same text without doing any work, or loads
 * the object an earlier process compiled from it (the disk cache). Errors
 * (syntax, verifier, unresolved symbols) come back in err with LLVM's
 * message; the JIT stays usable. */
PtoJitModule *pto_jit_compile(PtoJit *jit, const char *ll, size_t len,
                              PtoError *err);
/* The address of the function `name` defined in the module, or NULL (err
 * says why). Names are per module: two modules may define the same one. */
void *pto_jit_module_lookup(PtoJitModule *mod, const char *name,
                            PtoError *err);
/* Seconds spent compiling the module (parse to machine code). */
double pto_jit_module_compile_seconds(const PtoJitModule *mod);

/* Counters: modules compiled by LLVM, compiles answered from the cache in
 * memory, and the seconds spent compiling in all (loads from disk
 * included); modules loaded from the disk cache instead of compiled, and
 * objects written to it. */
typedef struct PtoJitStats {
  uint64_t compiled;
  uint64_t cache_hits;
  double compile_seconds;
  uint64_t disk_hits;
  uint64_t disk_writes;
} PtoJitStats;
PtoJitStats pto_jit_get_stats(const PtoJit *jit);
/* The directory of the disk cache, or NULL when it is off. Borrowed. */
const char *pto_jit_get_cache_dir(const PtoJit *jit);

void pto_free(void *p); /* frees memory the API hands to the caller */

/* The host as the JIT sees it: LLVM's CPU name ("skylake-avx512") and the
 * widest vector ISA among its features: "avx512f", "avx2", "avx", "sse2"
 * or "none". Borrowed from the JIT. */
const char *pto_jit_get_cpu_name(const PtoJit *jit);
const char *pto_jit_get_vector_isa(const PtoJit *jit);
const char *pto_jit_get_triple(const PtoJit *jit);

/* The machine code the JIT would produce for `ll`, as assembly text (AT&T
 * syntax), after the same optimisation pipeline: for checking that loops
 * were vectorised. *out is the caller's (pto_free); returns PTO_FAILURE
 * with err filled on bad IR. */
PtoResult pto_jit_emit_assembly(PtoJit *jit, const char *ll, size_t len,
                                char **out, PtoError *err);
/* The optimised module as textual IR, same contract. */
PtoResult pto_jit_emit_optimized_ir(PtoJit *jit, const char *ll, size_t len,
                                    char **out, PtoError *err);

#ifdef __cplusplus
}
#endif
#endif
