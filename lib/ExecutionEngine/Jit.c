/* The JIT (pto/ExecutionEngine.h) over the LLVM-C API: ORC LLJIT for the
 * host CPU, LLVM's default<On> pipeline, a cache keyed by the module text
 * in memory and one of object files on disk for the next process. */
#include "pto/ExecutionEngine.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <threads.h>

#include "Support/Alloc.h"
#include "Support/File.h"
#include "Support/Hash.h"
#include "Support/Str.h"
#include "Support/Time.h"

/* Part of every disk cache key: bump it whenever what this file does to
 * a module (the pipeline, its options, the renaming) changes, so that
 * objects compiled the old way are never loaded. */
#define CACHE_FORMAT "pto-jit-cache 1"
#ifndef PTO_PROJECT_VERSION
#error "the build defines PTO_PROJECT_VERSION (lib/ExecutionEngine/CMakeLists.txt)"
#endif

struct PtoJitModule {
  PtoJit *jit;
  char *text; /* the source, to tell hash collisions apart */
  size_t len;
  char suffix[40]; /* appended to every name the module defines */
  double seconds;
  PtoJitModule *next_same_hash;
};

struct PtoJit {
  LLVMOrcLLJITRef lljit;
  /* Our own target machine, for the optimisation pipeline and assembly
   * output; the LLJIT owns another one built from the same description. */
  LLVMTargetMachineRef tm;
  char *triple, *cpu, *features;
  const char *isa;
  int opt_level;
  PtoPtrMap modules; /* text hash -> PtoJitModule chain */
  uint64_t nmodules;
  PtoJitStats stats;
  /* The disk cache's directory (NULL: off) and the hashes of everything
   * besides the module text that the object depends on. */
  char *cache_dir;
  uint64_t key_seed, check_seed;
  /* An error the execution session reported asynchronously (a symbol that
   * did not resolve while materialising), picked up by the next lookup. */
  char session_error[256];
  /* LLVM's message after a fatal error inside one of its calls: the JIT's
   * LLVM state is then abandoned half-way and not used again. */
  char broken[256];
};

/* LLVM reports some failures (an instruction its code generator cannot
 * select, ...) through report_fatal_error, which ends the process once
 * the installed handler returns. Ours does not return while a call of
 * this library on the same thread runs LLVM: `fatal_scope` then points
 * at that call's frame, and the handler jumps back to it with LLVM's
 * message. The pointer lives only as long as that call; outside one the
 * handler prints what LLVM would have printed and LLVM exits as before. */
typedef struct FatalScope {
  jmp_buf env;
  char reason[256];
} FatalScope;
static _Thread_local FatalScope *fatal_scope;

static void on_llvm_fatal_error(const char *reason) {
  FatalScope *s = fatal_scope;
  if (!s) {
    fprintf(stderr, "LLVM ERROR: %s\n", reason);
    return;
  }
  snprintf(s->reason, sizeof s->reason, "%s", reason);
  fatal_scope = NULL;
  longjmp(s->env, 1);
}

/* LLVM keeps one handler per process and, when built with assertions,
 * refuses a second installation: install it once, for every JIT. */
static once_flag handler_installed = ONCE_FLAG_INIT;
static void install_handler(void) { LLVMInstallFatalErrorHandler(on_llvm_fatal_error); }

/* Runs fn(arg) with LLVM's fatal errors turned into an error of `jit`:
 * false, err set and the JIT marked broken when one happened. What LLVM
 * had allocated in the abandoned frames is lost. */
static bool guarded(PtoJit *jit, void (*fn)(void *), void *arg, PtoError *err) {
  FatalScope scope;
  call_once(&handler_installed, install_handler);
  fatal_scope = &scope;
  if (setjmp(scope.env)) {
    snprintf(jit->broken, sizeof jit->broken, "%s", scope.reason);
    pto_error_set(err, "LLVM failed: %s (this JIT cannot be used any more: "
                  "create another)", scope.reason);
    return false;
  }
  fn(arg);
  fatal_scope = NULL;
  return true;
}

static bool refuse_if_broken(const PtoJit *jit, PtoError *err) {
  if (!jit->broken[0]) return false;
  pto_error_set(err, "this JIT cannot be used after LLVM failed (%s): create another",
                jit->broken);
  return true;
}

/* Moves an LLVM error's message into err and releases the error. */
static PtoResult take_error(LLVMErrorRef e, PtoError *err, const char *what) {
  char *m = LLVMGetErrorMessage(e);
  pto_error_set(err, "%s: %s", what, m);
  LLVMDisposeErrorMessage(m);
  return PTO_FAILURE;
}

static void report_session_error(void *ctx, LLVMErrorRef e) {
  PtoJit *jit = ctx;
  char *m = LLVMGetErrorMessage(e);
  if (!jit->session_error[0])
    snprintf(jit->session_error, sizeof jit->session_error, "%s", m);
  LLVMDisposeErrorMessage(m);
}

static char *dup_llvm_string(char *s) {
  size_t n = strlen(s);
  char *d = pto_strndup(s, n);
  LLVMDisposeMessage(s);
  return d;
}

static const char *widest_isa(const char *features) {
  static const char *const isas[] = {"avx512f", "avx2", "avx", "sse2"};
  for (size_t i = 0; i < PTO_ARRAY_SIZE(isas); i++) {
    size_t n = strlen(isas[i]);
    /* features is "+sse2,-avx512f,+avx2,...": match "+name" as a whole item */
    for (const char *p = features; (p = strstr(p, isas[i])); p += n)
      if (p > features && p[-1] == '+' && (p[n] == ',' || p[n] == 0))
        return isas[i];
  }
  return "none";
}

/* ---- the cache on disk ---- */

/* A second hash of the key, kept in the entry: a file whose name matches
 * by a collision of the first is not taken for the module's. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
  return h;
}

/* An entry: this header, the NUL-terminated names of the functions the
 * object defines (to link it now, as a compile does), then the object
 * file. The hash of both makes a damaged or truncated entry a miss. */
typedef struct EntryHeader {
  char magic[8];
  uint64_t check;
  uint64_t names_len, obj_len;
  uint64_t payload_hash;
} EntryHeader;
static const char kEntryMagic[8] = {'P', 'T', 'O', 'J', 'I', 'T', 0, 1};
/* Far above any kernel's object: a larger file is not ours. */
#define MAX_ENTRY_BYTES ((uint64_t)1 << 30)

static uint64_t payload_hash(const char *names, size_t nl, const char *obj,
                             size_t ol) {
  return pto_hash_combine(pto_hash_bytes(names, nl), pto_hash_bytes(obj, ol));
}

/* Where the objects go, from the options and the environment; NULL and
 * success when the cache is off. */
static PtoResult cache_dir_of(const PtoJitOptions *opts, char **out, PtoError *err) {
  *out = NULL;
  PtoJitDiskCache mode = opts ? opts->disk_cache : PTO_JIT_DISK_CACHE_FROM_ENV;
  if (mode == PTO_JIT_DISK_CACHE_FROM_ENV) {
    const char *v = getenv("PTO_JIT_CACHE");
    if (!v || !*v || strcmp(v, "1") == 0)
      mode = PTO_JIT_DISK_CACHE_ON;
    else if (strcmp(v, "0") == 0)
      mode = PTO_JIT_DISK_CACHE_OFF;
    else
      return pto_error_set(err, "PTO_JIT_CACHE=%s: expected 0 (no JIT cache on disk) "
                           "or 1", v);
  }
  if (mode == PTO_JIT_DISK_CACHE_OFF) return PTO_SUCCESS;
  if (mode != PTO_JIT_DISK_CACHE_ON)
    return pto_error_set(err, "JIT disk cache mode %d is not one of PtoJitDiskCache's",
                         (int)mode);
  PtoStr d;
  pto_str_init(&d);
  const char *dir = opts && opts->cache_dir ? opts->cache_dir : getenv("PTO_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (dir && *dir)
    pto_str_puts(&d, dir);
  else if (xdg && xdg[0] == '/') /* the XDG spec ignores relative paths */
    pto_str_printf(&d, "%s/pto/jit", xdg);
  else if (home && *home)
    pto_str_printf(&d, "%s/.cache/pto/jit", home);
  else
    return PTO_SUCCESS; /* nowhere to keep it */
  *out = pto_str_take(&d);
  return PTO_SUCCESS;
}

/* The hashes of what besides the module text makes the object what it is:
 * the target, the optimisation level, LLVM's and PTO's versions. */
static void cache_seed(PtoJit *jit) {
  PtoStr k;
  pto_str_init(&k);
  pto_str_printf(&k, "%s\n%s\n%s\n%s\nO%d\nLLVM %s\nPTO %s\n", CACHE_FORMAT, jit->triple,
                 jit->cpu, jit->features, jit->opt_level, LLVM_VERSION_STRING,
                 PTO_PROJECT_VERSION);
  jit->key_seed = pto_hash_bytes(k.data, k.len);
  jit->check_seed = fnv1a(0xcbf29ce484222325ULL, k.data, k.len);
  pto_str_release(&k);
}

static char *entry_path(const PtoJit *jit, uint64_t key) {
  PtoStr p;
  pto_str_init(&p);
  pto_str_printf(&p, "%s/%016llx.ptojit", jit->cache_dir, (unsigned long long)key);
  return pto_str_take(&p);
}

/* A cache entry read back: the file's bytes, its names and its object. */
typedef struct Entry {
  char *bytes;
  const char *names, *obj;
  size_t names_len, obj_len;
} Entry;

/* Reads and checks the entry at path; false for a missing, foreign,
 * truncated or damaged one. */
static bool entry_read(const char *path, uint64_t check, Entry *en) {
  memset(en, 0, sizeof *en);
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  struct stat st;
  EntryHeader h;
  bool ok = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
            (uint64_t)st.st_size >= sizeof h && (uint64_t)st.st_size <= MAX_ENTRY_BYTES &&
            fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, kEntryMagic, 8) == 0 &&
            h.check == check && h.names_len > 0 && h.obj_len > 0 &&
            h.names_len <= MAX_ENTRY_BYTES && h.obj_len <= MAX_ENTRY_BYTES &&
            sizeof h + h.names_len + h.obj_len == (uint64_t)st.st_size;
  if (ok) {
    en->names_len = (size_t)h.names_len;
    en->obj_len = (size_t)h.obj_len;
    en->bytes = pto_malloc(en->names_len + en->obj_len);
    ok = fread(en->bytes, 1, en->names_len + en->obj_len, f) == en->names_len + en->obj_len &&
         en->bytes[en->names_len - 1] == 0 &&
         payload_hash(en->bytes, en->names_len, en->bytes + en->names_len, en->obj_len) ==
             h.payload_hash;
  }
  fclose(f);
  if (!ok) {
    pto_free(en->bytes);
    en->bytes = NULL;
    return false;
  }
  en->names = en->bytes;
  en->obj = en->bytes + en->names_len;
  return true;
}

/* Writes the entry whole or not at all (a temporary file renamed over the
 * old one): a failure only costs the next process a compile. */
static void entry_write(PtoJit *jit, const char *path, uint64_t check, char **funcs,
                        size_t nfuncs, const char *obj, size_t obj_len) {
  PtoStr names;
  pto_str_init(&names);
  for (size_t i = 0; i < nfuncs; i++) pto_str_append(&names, funcs[i], strlen(funcs[i]) + 1);
  EntryHeader h = {{0}, check, names.len, obj_len, 0};
  memcpy(h.magic, kEntryMagic, 8);
  h.payload_hash = payload_hash(names.data, names.len, obj, obj_len);
  PtoOutFile o;
  if (names.len && pto_make_dirs(jit->cache_dir) == 0 && pto_out_file_open(&o, path) == 0) {
    fwrite(&h, sizeof h, 1, o.f);
    fwrite(names.data, 1, names.len, o.f);
    fwrite(obj, 1, obj_len, o.f);
    if (pto_out_file_commit(&o) == 0) jit->stats.disk_writes++;
  }
  pto_str_release(&names);
}

static LLVMTargetMachineRef make_tm(const PtoJit *jit, LLVMTargetRef target) {
  LLVMCodeGenOptLevel lvl = jit->opt_level >= 3   ? LLVMCodeGenLevelAggressive
                            : jit->opt_level == 0 ? LLVMCodeGenLevelNone
                                                  : LLVMCodeGenLevelDefault;
  return LLVMCreateTargetMachine(target, jit->triple, jit->cpu, jit->features,
                                 lvl, LLVMRelocDefault,
                                 LLVMCodeModelJITDefault);
}

PtoJit *pto_jit_create(const PtoJitOptions *opts, PtoError *err) {
  int level = opts ? opts->opt_level : 2;
  if (!opts) {
    /* the tools' default, which a sanitizer test run lowers to 0: there
     * LLVM's pipeline (uninstrumented, on the sanitizer's allocator) is
     * most of the time */
    const char *v = getenv("PTO_JIT_OPT_LEVEL");
    if (v && *v) {
      if (v[0] < '0' || v[0] > '3' || v[1]) {
        pto_error_set(err, "PTO_JIT_OPT_LEVEL=%s: expected 0, 1, 2 or 3", v);
        return NULL;
      }
      level = v[0] - '0';
    }
  }
  if (level < 0 || level > 3) {
    pto_error_set(err, "JIT optimisation level %d is not one of 0, 1, 2, 3",
                  level);
    return NULL;
  }
  /* Idempotent and thread-safe inside LLVM: registers the host target. */
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter() ||
      LLVMInitializeNativeAsmParser()) {
    pto_error_set(err, "LLVM was built without a code generator for this host");
    return NULL;
  }
  char *cache_dir;
  if (pto_failed(cache_dir_of(opts, &cache_dir, err))) return NULL;
  PtoJit *jit = pto_calloc(1, sizeof *jit);
  jit->opt_level = level;
  jit->cache_dir = cache_dir;
  pto_ptrmap_init(&jit->modules);
  jit->triple = dup_llvm_string(LLVMGetDefaultTargetTriple());
  jit->cpu = dup_llvm_string(LLVMGetHostCPUName());
  jit->features = dup_llvm_string(LLVMGetHostCPUFeatures());
  jit->isa = widest_isa(jit->features);
  cache_seed(jit);

  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(jit->triple, &target, &msg)) {
    pto_error_set(err, "no LLVM target for the host triple %s: %s",
                  jit->triple, msg);
    LLVMDisposeMessage(msg);
    pto_jit_destroy(jit);
    return NULL;
  }
  jit->tm = make_tm(jit, target);

  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
      builder,
      LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(make_tm(jit, target)));
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit->lljit, builder); /* takes builder */
  if (e) {
    take_error(e, err, "cannot create the JIT");
    jit->lljit = NULL;
    pto_jit_destroy(jit);
    return NULL;
  }
  LLVMOrcExecutionSessionSetErrorReporter(
      LLVMOrcLLJITGetExecutionSession(jit->lljit), report_session_error, jit);

  /* JIT'd code calls the runtime, libc and libm by name. */
  LLVMOrcDefinitionGeneratorRef gen;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(jit->lljit), NULL, NULL);
  if (e) {
    take_error(e, err, "cannot make the process's symbols visible to the JIT");
    pto_jit_destroy(jit);
    return NULL;
  }
  LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit->lljit), gen);
  return jit;
}

void pto_jit_destroy(PtoJit *jit) {
  if (!jit) return;
  /* a broken JIT's LLVM objects were left in the middle of a call: tearing
   * them down could block or crash, so they are left (a leak, once) */
  if (jit->lljit && !jit->broken[0]) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(jit->lljit);
    if (e) LLVMConsumeError(e); /* nothing left to report it to */
  }
  if (jit->tm && !jit->broken[0]) LLVMDisposeTargetMachine(jit->tm);
  uint64_t key;
  void *val;
  for (uint32_t it = 0; pto_ptrmap_next(&jit->modules, &it, &key, &val);) {
    for (PtoJitModule *m = val, *next; m; m = next) {
      next = m->next_same_hash;
      pto_free(m->text);
      pto_free(m);
    }
  }
  pto_ptrmap_release(&jit->modules);
  pto_free(jit->triple);
  pto_free(jit->cpu);
  pto_free(jit->features);
  pto_free(jit->cache_dir);
  pto_free(jit);
}

/* Parses and verifies `ll` into a fresh module of ctx, with the host's
 * triple and data layout so that the optimiser sees the real target. */
static LLVMModuleRef parse_module(PtoJit *jit, LLVMContextRef ctx,
                                  const char *ll, size_t len, PtoError *err) {
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ll, len, "module.ll");
  LLVMModuleRef mod = NULL;
  char *msg = NULL;
  /* takes buf */
  if (LLVMParseIRInContext(ctx, buf, &mod, &msg)) {
    /* the first line; LLVM adds the source line and a caret */
    size_t n = msg ? strcspn(msg, "\n") : 0;
    pto_error_set(err, "invalid LLVM IR: %.*s", (int)n, msg ? msg : "");
    LLVMDisposeMessage(msg);
    return NULL;
  }
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    /* LLVM's message ends with a newline; one sentence is enough */
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    pto_error_set(err, "the LLVM module does not verify: %s", msg);
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(mod);
    return NULL;
  }
  LLVMDisposeMessage(msg);
  LLVMSetTarget(mod, jit->triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(jit->tm);
  LLVMSetModuleDataLayout(mod, dl);
  LLVMDisposeTargetData(dl);
  return mod;
}

static PtoResult optimize(PtoJit *jit, LLVMModuleRef mod, PtoError *err) {
  static const char *const pipelines[] = {"default<O0>", "default<O1>",
                                          "default<O2>", "default<O3>"};
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(po, jit->opt_level >= 2);
  LLVMPassBuilderOptionsSetSLPVectorization(po, jit->opt_level >= 2);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, jit->opt_level >= 2);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, jit->opt_level >= 2);
  LLVMErrorRef e = LLVMRunPasses(mod, pipelines[jit->opt_level], jit->tm, po);
  LLVMDisposePassBuilderOptions(po);
  return e ? take_error(e, err, "LLVM's optimisation pipeline failed")
           : PTO_SUCCESS;
}

static bool is_definition(LLVMValueRef g) {
  return !LLVMIsDeclaration(g) && LLVMGetLinkage(g) != LLVMInternalLinkage &&
         LLVMGetLinkage(g) != LLVMPrivateLinkage;
}

/* Gives every external definition the module's suffix, so that modules
 * defining the same name live side by side in the one JITDylib. Returns
 * the new names of the functions (to look them up eagerly). */
static char **rename_definitions(LLVMModuleRef mod, const char *suffix,
                                 size_t *nfuncs) {
  size_t n = 0, cap = 8;
  char **funcs = pto_malloc(cap * sizeof *funcs);
  for (int pass = 0; pass < 2; pass++) {
    LLVMValueRef g = pass ? LLVMGetFirstGlobal(mod) : LLVMGetFirstFunction(mod);
    for (; g; g = pass ? LLVMGetNextGlobal(g) : LLVMGetNextFunction(g)) {
      if (!is_definition(g)) continue;
      size_t len;
      const char *name = LLVMGetValueName2(g, &len);
      size_t slen = strlen(suffix);
      char *renamed = pto_malloc(len + slen + 1);
      memcpy(renamed, name, len);
      memcpy(renamed + len, suffix, slen + 1);
      LLVMSetValueName2(g, renamed, len + slen);
      if (pass == 0) {
        if (n == cap) funcs = pto_realloc(funcs, (cap *= 2) * sizeof *funcs);
        funcs[n++] = renamed;
      } else {
        pto_free(renamed);
      }
    }
  }
  *nfuncs = n;
  return funcs;
}

static PtoJitModule *find_cached(PtoJit *jit, uint64_t key, const char *ll,
                                 size_t len) {
  for (PtoJitModule *m = pto_ptrmap_get(&jit->modules, key); m;
       m = m->next_same_hash)
    if (m->len == len && pto_bytes_eq(m->text, ll, len)) return m;
  return NULL;
}

static void *lookup_mangled(PtoJit *jit, const char *name, PtoError *err) {
  LLVMOrcExecutorAddress addr = 0;
  jit->session_error[0] = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(jit->lljit, &addr, name);
  if (e) {
    char *m = LLVMGetErrorMessage(e);
    /* the session's own report says which symbol failed to resolve */
    pto_error_set(err, "%s", jit->session_error[0] ? jit->session_error : m);
    LLVMDisposeErrorMessage(m);
    return NULL;
  }
  return (void *)(uintptr_t)addr;
}

/* Parses, optimises and compiles `ll` to an object file, its external
 * definitions renamed with `suffix`; *funcs gets the new names of its
 * functions. */
static LLVMMemoryBufferRef compile_object(PtoJit *jit, const char *ll, size_t len,
                                          const char *suffix, char ***funcs,
                                          size_t *nfuncs, PtoError *err) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = parse_module(jit, ctx, ll, len, err);
  LLVMMemoryBufferRef obj = NULL;
  if (mod && pto_succeeded(optimize(jit, mod, err))) {
    *funcs = rename_definitions(mod, suffix, nfuncs);
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(jit->tm, mod, LLVMObjectFile, &msg, &obj)) {
      pto_error_set(err, "LLVM's code generator failed: %s", msg);
      LLVMDisposeMessage(msg);
      for (size_t i = 0; i < *nfuncs; i++) pto_free((*funcs)[i]);
      pto_free(*funcs);
      obj = NULL;
    }
  }
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  return obj;
}

/* Links the object (taking it) into the JIT and resolves every function
 * now: the time is the module's, and an unresolved symbol is reported
 * here. On failure nothing of it stays behind. */
static bool link_object(PtoJit *jit, LLVMMemoryBufferRef obj, char *const *funcs,
                        size_t nfuncs, PtoError *err) {
  LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(
      LLVMOrcLLJITGetMainJITDylib(jit->lljit));
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(jit->lljit, rt, obj);
  bool ok = true;
  if (e) {
    take_error(e, err, "the JIT rejected the module");
    ok = false;
  }
  for (size_t i = 0; ok && i < nfuncs; i++)
    if (!lookup_mangled(jit, funcs[i], err)) ok = false;
  if (!ok) {
    e = LLVMOrcResourceTrackerRemove(rt);
    if (e) LLVMConsumeError(e); /* the first error is the one to report */
  }
  LLVMOrcReleaseResourceTracker(rt); /* the code lives as long as the JIT */
  return ok;
}

/* The module's functions from a cache entry, linked; false (nothing
 * linked) when there is no usable entry. */
static bool load_cached(PtoJit *jit, const char *path, uint64_t check) {
  Entry en;
  if (!entry_read(path, check, &en)) return false;
  size_t n = 0;
  for (size_t i = 0; i < en.names_len; i++) n += en.names[i] == 0;
  char **funcs = pto_malloc(n * sizeof *funcs);
  const char *p = en.names;
  for (size_t i = 0; i < n; i++, p += strlen(p) + 1) funcs[i] = (char *)p;
  LLVMMemoryBufferRef obj =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(en.obj, en.obj_len, "cached.o");
  PtoError ignored;
  bool ok = link_object(jit, obj, funcs, n, &ignored);
  pto_free(funcs);
  pto_free(en.bytes);
  return ok;
}

static PtoJitModule *compile(PtoJit *jit, const char *ll, size_t len,
                             PtoError *err) {
  uint64_t key = pto_hash_bytes(ll, len) | 1; /* 0 is the map's empty key */
  PtoJitModule *cached = find_cached(jit, key, ll, len);
  if (cached) {
    jit->stats.cache_hits++;
    return cached;
  }
  double t0 = pto_now_seconds();
  PtoJitModule *m = pto_calloc(1, sizeof *m);
  m->jit = jit;
  /* Names from the text's hash, the same in every process: a stored
   * object defines the names a later process looks up. A second text of
   * the same hash here gets a counter too and stays off the disk. */
  bool collided = pto_ptrmap_get(&jit->modules, key) != NULL;
  if (collided)
    snprintf(m->suffix, sizeof m->suffix, ".pto%016llx.%llu", (unsigned long long)key,
             (unsigned long long)++jit->nmodules);
  else
    snprintf(m->suffix, sizeof m->suffix, ".pto%016llx", (unsigned long long)key);
  char *path = NULL;
  uint64_t check = 0;
  if (jit->cache_dir && !collided) {
    path = entry_path(jit, pto_hash_combine(jit->key_seed, pto_hash_bytes(ll, len)));
    check = fnv1a(jit->check_seed, ll, len);
  }
  bool ok;
  if (path && load_cached(jit, path, check)) {
    jit->stats.disk_hits++;
    ok = true;
  } else {
    size_t nfuncs = 0;
    char **funcs = NULL;
    LLVMMemoryBufferRef obj = compile_object(jit, ll, len, m->suffix, &funcs, &nfuncs, err);
    ok = obj != NULL;
    if (ok) {
      /* linking takes the buffer: what is stored is a copy, written once
       * the object linked (its symbols resolved) */
      size_t olen = LLVMGetBufferSize(obj);
      char *copy = path ? pto_strndup(LLVMGetBufferStart(obj), olen) : NULL;
      ok = link_object(jit, obj, funcs, nfuncs, err);
      if (ok) jit->stats.compiled++;
      if (ok && copy) entry_write(jit, path, check, funcs, nfuncs, copy, olen);
      pto_free(copy);
      for (size_t i = 0; i < nfuncs; i++) pto_free(funcs[i]);
      pto_free(funcs);
    }
  }
  pto_free(path);
  if (!ok) {
    pto_free(m);
    return NULL;
  }
  m->seconds = pto_now_seconds() - t0;
  m->text = pto_strndup(ll, len);
  m->len = len;
  m->next_same_hash = pto_ptrmap_get(&jit->modules, key);
  pto_ptrmap_put(&jit->modules, key, m);
  jit->stats.compile_seconds += m->seconds;
  return m;
}

typedef struct CompileCall {
  PtoJit *jit;
  const char *ll;
  size_t len;
  PtoError *err;
  PtoJitModule *m;
} CompileCall;

static void compile_call(void *arg) {
  CompileCall *c = arg;
  c->m = compile(c->jit, c->ll, c->len, c->err);
}

PtoJitModule *pto_jit_compile(PtoJit *jit, const char *ll, size_t len,
                              PtoError *err) {
  if (refuse_if_broken(jit, err)) return NULL;
  CompileCall c = {jit, ll, len, err, NULL};
  return guarded(jit, compile_call, &c, err) ? c.m : NULL;
}

void *pto_jit_module_lookup(PtoJitModule *mod, const char *name,
                            PtoError *err) {
  if (refuse_if_broken(mod->jit, err)) return NULL;
  size_t n = strlen(name), s = strlen(mod->suffix);
  char *mangled = pto_malloc(n + s + 1);
  memcpy(mangled, name, n);
  memcpy(mangled + n, mod->suffix, s + 1);
  void *p = lookup_mangled(mod->jit, mangled, err);
  pto_free(mangled);
  if (!p) pto_error_set(err, "the module defines no function '%s'", name);
  return p;
}

double pto_jit_module_compile_seconds(const PtoJitModule *mod) {
  return mod->seconds;
}

PtoJitStats pto_jit_get_stats(const PtoJit *jit) { return jit->stats; }
const char *pto_jit_get_cache_dir(const PtoJit *jit) { return jit->cache_dir; }
const char *pto_jit_get_cpu_name(const PtoJit *jit) { return jit->cpu; }
const char *pto_jit_get_vector_isa(const PtoJit *jit) { return jit->isa; }
const char *pto_jit_get_triple(const PtoJit *jit) { return jit->triple; }

typedef PtoResult (*EmitFn)(PtoJit *, LLVMModuleRef, char **, PtoError *);

/* Parses and optimises `ll` in a context of its own and hands the module
 * to emit(), which fills *out. */
static PtoResult with_optimized_unguarded(PtoJit *jit, const char *ll, size_t len,
                                          char **out, PtoError *err, EmitFn emit) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = parse_module(jit, ctx, ll, len, err);
  PtoResult r = PTO_FAILURE;
  if (mod && pto_succeeded(optimize(jit, mod, err)))
    r = emit(jit, mod, out, err);
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  return r;
}

typedef struct EmitCall {
  PtoJit *jit;
  const char *ll;
  size_t len;
  char **out;
  PtoError *err;
  EmitFn emit;
  PtoResult r;
} EmitCall;

static void emit_call(void *arg) {
  EmitCall *c = arg;
  c->r = with_optimized_unguarded(c->jit, c->ll, c->len, c->out, c->err, c->emit);
}

static PtoResult with_optimized(PtoJit *jit, const char *ll, size_t len, char **out,
                                PtoError *err, EmitFn emit) {
  *out = NULL;
  if (refuse_if_broken(jit, err)) return PTO_FAILURE;
  EmitCall c = {jit, ll, len, out, err, emit, PTO_FAILURE};
  return guarded(jit, emit_call, &c, err) ? c.r : PTO_FAILURE;
}

static PtoResult emit_asm(PtoJit *jit, LLVMModuleRef mod, char **out,
                          PtoError *err) {
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(jit->tm, mod, LLVMAssemblyFile, &msg,
                                          &buf)) {
    pto_error_set(err, "LLVM's code generator failed: %s", msg);
    LLVMDisposeMessage(msg);
    return PTO_FAILURE;
  }
  *out = pto_strndup(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
  LLVMDisposeMemoryBuffer(buf);
  return PTO_SUCCESS;
}

static PtoResult emit_ir(PtoJit *jit, LLVMModuleRef mod, char **out,
                         PtoError *err) {
  *out = dup_llvm_string(LLVMPrintModuleToString(mod));
  return PTO_SUCCESS;
}

PtoResult pto_jit_emit_assembly(PtoJit *jit, const char *ll, size_t len,
                                char **out, PtoError *err) {
  return with_optimized(jit, ll, len, out, err, emit_asm);
}

PtoResult pto_jit_emit_optimized_ir(PtoJit *jit, const char *ll, size_t len,
                                    char **out, PtoError *err) {
  return with_optimized(jit, ll, len, out, err, emit_ir);
}
