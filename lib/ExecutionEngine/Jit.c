/* The JIT (pto/ExecutionEngine.h) over the LLVM-C API: ORC LLJIT for the
 * host CPU, LLVM's default<On> pipeline, a cache keyed by the module text. */
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
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Time.h"

struct PtoJitModule {
  PtoJit *jit;
  char *text; /* the source, to tell hash collisions apart */
  size_t len;
  char suffix[24]; /* appended to every name the module defines */
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
  PtoJit *jit = pto_calloc(1, sizeof *jit);
  jit->opt_level = level;
  pto_ptrmap_init(&jit->modules);
  jit->triple = dup_llvm_string(LLVMGetDefaultTargetTriple());
  jit->cpu = dup_llvm_string(LLVMGetHostCPUName());
  jit->features = dup_llvm_string(LLVMGetHostCPUFeatures());
  jit->isa = widest_isa(jit->features);

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

static PtoJitModule *compile(PtoJit *jit, const char *ll, size_t len,
                             PtoError *err) {
  uint64_t key = pto_hash_bytes(ll, len) | 1; /* 0 is the map's empty key */
  PtoJitModule *cached = find_cached(jit, key, ll, len);
  if (cached) {
    jit->stats.cache_hits++;
    return cached;
  }
  double t0 = pto_now_seconds();
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMModuleRef mod =
      parse_module(jit, LLVMOrcThreadSafeContextGetContext(tsc), ll, len, err);
  if (!mod || pto_failed(optimize(jit, mod, err))) {
    if (mod) LLVMDisposeModule(mod);
    LLVMOrcDisposeThreadSafeContext(tsc);
    return NULL;
  }
  PtoJitModule *m = pto_calloc(1, sizeof *m);
  m->jit = jit;
  snprintf(m->suffix, sizeof m->suffix, ".pto%llu",
           (unsigned long long)++jit->nmodules);
  size_t nfuncs;
  char **funcs = rename_definitions(mod, m->suffix, &nfuncs);

  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc); /* the module keeps it alive */
  /* A tracker of its own, so that a module that fails to link leaves
   * nothing behind. */
  LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(
      LLVMOrcLLJITGetMainJITDylib(jit->lljit));
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModuleWithRT(jit->lljit, rt, tsm);
  bool ok = true;
  if (e) { /* the JIT took tsm either way */
    take_error(e, err, "the JIT rejected the module");
    ok = false;
  }
  /* Compile now, not at the first call: the time is the module's, and an
   * unresolved symbol is reported here. The module is one unit, so the
   * first lookup materialises all of it. */
  for (size_t i = 0; ok && i < nfuncs; i++)
    if (!lookup_mangled(jit, funcs[i], err)) ok = false;
  for (size_t i = 0; i < nfuncs; i++) pto_free(funcs[i]);
  pto_free(funcs);
  if (!ok) {
    e = LLVMOrcResourceTrackerRemove(rt);
    if (e) LLVMConsumeError(e); /* the first error is the one to report */
    LLVMOrcReleaseResourceTracker(rt);
    pto_free(m);
    return NULL;
  }
  LLVMOrcReleaseResourceTracker(rt); /* the code lives as long as the JIT */
  m->seconds = pto_now_seconds() - t0;
  m->text = pto_strndup(ll, len);
  m->len = len;
  m->next_same_hash = pto_ptrmap_get(&jit->modules, key);
  pto_ptrmap_put(&jit->modules, key, m);
  jit->stats.compiled++;
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
