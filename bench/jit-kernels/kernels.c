/* The measuring side of bench/jit-kernels: a row softmax, rms_norm and
 * layer_norm as the pto.kernels the PTO level gives them, translated to
 * LLVM IR as the JIT's translation does on this host (with element-wise
 * fusion, and without for comparison); a matmul written with the
 * instruction-semantics emitters the way the PTO level spells it (the
 * cube's tmov to L0A/L0B, tmatmul_acc along k, L0C out). All
 * JIT-compiled for this host and run on worker threads, each with its
 * own buffers; and the memory floor, a streaming copy of the same bytes
 * on as many threads. Prints one line per figure for run.py; checks its
 * own results. */
#include <llvm-c/Core.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Support/Alloc.h"
#include "Target/LLVMIR/EmitUtil.h"
#include "pto/Dialects.h"
#include "pto/ExecutionEngine.h"
#include "pto/IR.h"
#include "pto/LLVMIR.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const char *msg) {
  fprintf(stderr, "jit-kernels: %s: %s\n", what, msg);
  exit(1);
}

/* ---- building a function with the emitters ---- */

typedef struct Fn {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  PtoEmit e;
} Fn;

static void fn_begin(Fn *f, PtoJit *jit, const char *name, unsigned nptr,
                     unsigned nidx) {
  f->ctx = LLVMContextCreate();
  f->mod = LLVMModuleCreateWithNameInContext(name, f->ctx);
  LLVMTypeRef ps[8];
  for (unsigned i = 0; i < nptr + nidx; i++)
    ps[i] = i < nptr ? LLVMPointerType(LLVMInt8TypeInContext(f->ctx), 0)
                     : LLVMInt64TypeInContext(f->ctx);
  LLVMValueRef fn = LLVMAddFunction(
      f->mod, name,
      LLVMFunctionType(LLVMVoidTypeInContext(f->ctx), ps, nptr + nidx, 0));
  /* distinct buffers: GM tensors and on-chip buffers never overlap */
  for (unsigned i = 0; i < nptr; i++)
    LLVMAddAttributeAtIndex(
        fn, i + 1,
        LLVMCreateEnumAttribute(f->ctx, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(f->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(f->ctx, fn, "entry"));
  unsigned lanes = strcmp(pto_jit_get_vector_isa(jit), "avx512f") == 0 ? 16 : 8;
  f->e = (PtoEmit){.ctx = f->ctx, .mod = f->mod, .b = b, .fn = fn, .lanes = lanes};
}

static void *fn_finish(Fn *f, PtoJit *jit, const char *name, double *secs) {
  LLVMBuildRetVoid(f->e.b);
  LLVMDisposeBuilder(f->e.b);
  char *text = LLVMPrintModuleToString(f->mod);
  LLVMContextDispose(f->ctx);
  PtoError err;
  PtoJitModule *m = pto_jit_compile(jit, text, strlen(text), &err);
  LLVMDisposeMessage(text);
  void *p = m ? pto_jit_module_lookup(m, name, &err) : NULL;
  if (!p) die(name, err.msg);
  *secs = pto_jit_module_compile_seconds(m);
  return p;
}

static void check(PtoResult r, const PtoError *err) {
  if (pto_failed(r)) die("emit", err->msg);
}

/* What --no-prefetch and --no-forward turn off (PtoTranslateOptions) */
enum { NO_PREFETCH = 1, NO_FORWARD = 2 };

/* A kernel's text, parsed, translated as pto-translate does (with
 * element-wise fusion, or without it for comparison; with prefetching of
 * the next task's windows and forwarding unless `off` says otherwise)
 * and compiled. */
static void *translate_kernel(PtoJit *jit, const char *text, const char *name,
                              bool fuse, unsigned off, double *secs) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoOp *mod = pto_parse_module(ctx, text, strlen(text), NULL);
  unsigned lanes = strcmp(pto_jit_get_vector_isa(jit), "avx512f") == 0 ? 16 : 8;
  PtoTranslateOptions o = {.lanes = lanes, .no_fuse = !fuse, .x86 = pto_llvmir_host_is_x86(),
                           .no_prefetch = (off & NO_PREFETCH) != 0,
                           .no_forward = (off & NO_FORWARD) != 0};
  char *ll = NULL;
  if (!mod || pto_failed(pto_op_verify(mod)) ||
      pto_failed(pto_translate_to_llvmir_with(mod, &o, &ll)))
    die(name, "the kernel does not translate");
  PtoError err;
  PtoJitModule *jm = pto_jit_compile(jit, ll, strlen(ll), &err);
  pto_free(ll);
  void *p = jm ? pto_jit_module_lookup(jm, name, &err) : NULL;
  if (!p) die(name, err.msg);
  *secs = pto_jit_module_compile_seconds(jm);
  pto_op_destroy(mod);
  pto_ctx_destroy(ctx);
  return p;
}

/* ---- softmax over rows: the pto.kernel a PyPTO user's softmax lowers
 * to, translated as pto-translate does (with element-wise fusion, or
 * without it for comparison) and called once per tile of tr rows:
 * void softmax(ub, in, out, row) ---- */

typedef void (*SoftmaxFn)(void *, const float *, float *, int64_t);

static SoftmaxFn build_softmax(PtoJit *jit, bool fuse, unsigned off, int64_t rows,
                               int64_t cols, int64_t tr, double *secs) {
  /* UB: the tile x (tr x cols), then its row maxima and row sums */
  char g[64], x[96], m[96], sum[96];
  snprintf(g, sizeof g, "tensor<%lldx%lldxf32>", (long long)rows, (long long)cols);
  snprintf(x, sizeof x, "!pto.tile<%lldx%lldxf32, vec, offset = 0>", (long long)tr,
           (long long)cols);
  snprintf(m, sizeof m, "!pto.tile<%lldx1xf32, vec, offset = %lld>", (long long)tr,
           (long long)(tr * cols * 4));
  snprintf(sum, sizeof sum, "!pto.tile<%lldx1xf32, vec, offset = %lld>", (long long)tr,
           (long long)(tr * cols * 4 + 256));
  char text[2048];
  snprintf(text, sizeof text,
           "pto.kernel vector @softmax(%%X: %s, %%Y: %s, %%i: index) {\n"
           "  %%x = pto.tload %%X[%%i, 0] : %s -> %s\n"
           "  %%m = pto.trowmax %%x : %s -> %s\n"
           "  %%t = pto.trowexpandsub %%x, %%m : %s, %s -> %s\n"
           "  %%e = pto.texp %%t : %s -> %s\n"
           "  %%s = pto.trowsum %%e : %s -> %s\n"
           "  %%q = pto.trowexpanddiv %%e, %%s : %s, %s -> %s\n"
           "  pto.tstore %%q, %%Y[%%i, 0] : %s into %s\n}\n",
           g, g, g, x, x, m, x, m, x, x, x, x, sum, x, sum, x, x, g);
  void *p = translate_kernel(jit, text, "softmax", fuse, off, secs);
  SoftmaxFn fn;
  memcpy(&fn, &p, sizeof p);
  return fn;
}

/* ---- rms_norm and layer_norm over rows, one 1 x cols tile per call: the
 * pto.kernel the PTO level gives a PyPTO user's norm with vector tile
 * [1, cols] (gamma and beta [1, cols] tensors, loaded by every call),
 * with its placement:
 * void rms_norm(ub, x, row, gamma, y, row)
 * void layer_norm(ub, x, row, gamma, beta, y, row) ---- */

typedef void (*RmsFn)(void *, const float *, int64_t, const float *, float *, int64_t);
typedef void (*LayerFn)(void *, const float *, int64_t, const float *, const float *,
                        float *, int64_t);

static void *build_norm(PtoJit *jit, bool fuse, unsigned off, bool layer, int64_t rows,
                        int64_t cols, double *secs) {
  long long R = rows, C = cols, T = cols * 4; /* a row tile's bytes */
  char g[64], v[64], x[64];
  snprintf(g, sizeof g, "tensor<%lldx%lldxf32>", R, C);
  snprintf(v, sizeof v, "tensor<1x%lldxf32>", C);
  snprintf(x, sizeof x, "tile<1x%lldxf32, vec, offset", C);
  char text[8192];
  if (!layer) /* x, gamma, x*x / r, s and its scalars, x*r */
    snprintf(text, sizeof text,
             "pto.kernel vector @rms_norm(%%X: %s, %%i: index, %%G: %s, %%Y: %s, %%j: index) {\n"
             "  %%eps = arith.constant 1.000000e-05 : f32\n"
             "  %%inv = arith.constant %.9e : f32\n"
             "  %%x = pto.tload %%X[%%i, 0] : %s -> !pto.%s = 0>\n"
             "  %%g = pto.tload %%G[0, 0] : %s -> !pto.%s = %lld>\n"
             "  pto.set_flag MTE2 -> V, 0\n"
             "  pto.wait_flag MTE2 -> V, 0\n"
             "  %%q = pto.tmul %%x, %%x : !pto.%s = 0> -> !pto.%s = %lld>\n"
             "  %%s = pto.trowsum %%q : !pto.%s = %lld> -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%m = pto.tmuls %%s, %%inv : !pto.tile<1x1xf32, vec, offset = %lld>, f32 -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%e = pto.tadds %%m, %%eps : !pto.tile<1x1xf32, vec, offset = %lld>, f32 -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%r = pto.trsqrt %%e : !pto.tile<1x1xf32, vec, offset = %lld> -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%n = pto.trowexpandmul %%x, %%r : !pto.%s = 0>, !pto.tile<1x1xf32, vec, offset = %lld> -> !pto.%s = %lld>\n"
             "  %%y = pto.tmul %%n, %%g : !pto.%s = %lld>, !pto.%s = %lld> -> !pto.%s = 0>\n"
             "  pto.set_flag V -> MTE3, 0\n"
             "  pto.wait_flag V -> MTE3, 0\n"
             "  pto.tstore %%y, %%Y[%%j, 0] : !pto.%s = 0> into %s\n}\n",
             g, v, g, 1.0 / (double)cols, g, x, v, x, T, x, x, 2 * T, x, 2 * T, 3 * T,
             3 * T, 2 * T, 2 * T, 2 * T + 32, 2 * T + 32, 2 * T, x, 2 * T, x,
             2 * T + 32, x, 2 * T + 32, x, T, x, x, g);
  else /* x, gamma, beta, then the sums and scalars, x - mean */
    snprintf(text, sizeof text,
             "pto.kernel vector @layer_norm(%%X: %s, %%i: index, %%G: %s, %%B: %s, %%Y: %s, %%j: index) {\n"
             "  %%eps = arith.constant 1.000000e-05 : f32\n"
             "  %%inv = arith.constant %.9e : f32\n"
             "  %%x = pto.tload %%X[%%i, 0] : %s -> !pto.%s = 0>\n"
             "  %%g = pto.tload %%G[0, 0] : %s -> !pto.%s = %lld>\n"
             "  %%b = pto.tload %%B[0, 0] : %s -> !pto.%s = %lld>\n"
             "  pto.set_flag MTE2 -> V, 0\n"
             "  pto.wait_flag MTE2 -> V, 0\n"
             "  %%s = pto.trowsum %%x : !pto.%s = 0> -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%m = pto.tmuls %%s, %%inv : !pto.tile<1x1xf32, vec, offset = %lld>, f32 -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%c = pto.trowexpandsub %%x, %%m : !pto.%s = 0>, !pto.tile<1x1xf32, vec, offset = %lld> -> !pto.%s = %lld>\n"
             "  %%q = pto.tmul %%c, %%c : !pto.%s = %lld> -> !pto.%s = 0>\n"
             "  %%v = pto.trowsum %%q : !pto.%s = 0> -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%vm = pto.tmuls %%v, %%inv : !pto.tile<1x1xf32, vec, offset = %lld>, f32 -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%ve = pto.tadds %%vm, %%eps : !pto.tile<1x1xf32, vec, offset = %lld>, f32 -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%r = pto.trsqrt %%ve : !pto.tile<1x1xf32, vec, offset = %lld> -> !pto.tile<1x1xf32, vec, offset = %lld>\n"
             "  %%n = pto.trowexpandmul %%c, %%r : !pto.%s = %lld>, !pto.tile<1x1xf32, vec, offset = %lld> -> !pto.%s = 0>\n"
             "  %%ng = pto.tmul %%n, %%g : !pto.%s = 0>, !pto.%s = %lld> -> !pto.%s = %lld>\n"
             "  %%y = pto.tadd %%ng, %%b : !pto.%s = %lld>, !pto.%s = %lld> -> !pto.%s = 0>\n"
             "  pto.set_flag V -> MTE3, 0\n"
             "  pto.wait_flag V -> MTE3, 0\n"
             "  pto.tstore %%y, %%Y[%%j, 0] : !pto.%s = 0> into %s\n}\n",
             g, v, v, g, 1.0 / (double)cols, g, x, v, x, T, v, x, 2 * T,
             x, 3 * T, 3 * T, 3 * T + 32, x, 3 * T + 32, x, 3 * T + 64,
             x, 3 * T + 64, x, x, 3 * T, 3 * T, 3 * T + 32, 3 * T + 32, 3 * T,
             3 * T, 3 * T + 32, x, 3 * T + 64, 3 * T + 32, x,
             x, x, T, x, 3 * T,
             x, 3 * T, x, 2 * T, x, x, g);
  (void)R;
  return translate_kernel(jit, text, layer ? "layer_norm" : "rms_norm", fuse, off,
                          secs);
}

/* ---- matmul: void mm(A, B, C, l0a, l0b, l0c, i0, j0) for one mt x nt
 * tile of C = A (M x K) * B (K x N) ---- */

typedef void (*MatmulFn)(const float *, const float *, float *, void *,
                         void *, void *, int64_t, int64_t);

static MatmulFn build_matmul(PtoJit *jit, int64_t K, int64_t N, int64_t mt,
                             int64_t kt, int64_t nt, double *secs) {
  Fn f;
  fn_begin(&f, jit, "mm", 6, 2);
  PtoEmit *e = &f.e;
  LLVMValueRef A = LLVMGetParam(e->fn, 0), Bm = LLVMGetParam(e->fn, 1);
  LLVMValueRef C = LLVMGetParam(e->fn, 2), l0a = LLVMGetParam(e->fn, 3);
  LLVMValueRef l0b = LLVMGetParam(e->fn, 4), l0c = LLVMGetParam(e->fn, 5);
  LLVMValueRef i0 = LLVMGetParam(e->fn, 6), j0 = LLVMGetParam(e->fn, 7);
  PtoError err;
  LLVMValueRef zero = pto_emit_i64(e, 0);
  PtoEmitTile ta = pto_emit_tile(e, l0a, zero, pto_emit_i64(e, kt), PTO_DT_F32);
  PtoEmitTile tb = pto_emit_tile(e, l0b, zero, pto_emit_i64(e, nt), PTO_DT_F32);
  PtoEmitTile tc = pto_emit_tile(e, l0c, zero, pto_emit_i64(e, nt), PTO_DT_F32);
  for (int first = 1; first >= 0; first--) {
    /* the first k step overwrites L0C, the others accumulate */
    PtoEmitLoop l;
    pto_emit_loop_begin(e, &l, pto_emit_i64(e, first ? 0 : kt),
                        pto_emit_i64(e, first ? kt : K), kt, 0, NULL);
    LLVMBuilderRef b = e->b;
    LLVMValueRef aoff = LLVMBuildMul(
        b, LLVMBuildAdd(b, LLVMBuildMul(b, i0, pto_emit_i64(e, K), ""), l.iv, ""),
        pto_emit_i64(e, 4), "");
    LLVMValueRef boff = LLVMBuildMul(
        b, LLVMBuildAdd(b, LLVMBuildMul(b, l.iv, pto_emit_i64(e, N), ""), j0, ""),
        pto_emit_i64(e, 4), "");
    check(pto_emit_copy(e, ta, pto_emit_tile(e, A, aoff, pto_emit_i64(e, K), PTO_DT_F32),
                        pto_emit_i64(e, mt), pto_emit_i64(e, kt), &err), &err);
    check(pto_emit_copy(e, tb, pto_emit_tile(e, Bm, boff, pto_emit_i64(e, N), PTO_DT_F32),
                        pto_emit_i64(e, kt), pto_emit_i64(e, nt), &err), &err);
    check(pto_emit_matmul(e, tc, ta, tb, mt, kt, nt, !first, &err), &err);
    pto_emit_loop_end(e, &l);
  }
  LLVMValueRef coff = LLVMBuildMul(
      e->b,
      LLVMBuildAdd(e->b, LLVMBuildMul(e->b, i0, pto_emit_i64(e, N), ""), j0, ""),
      pto_emit_i64(e, 4), "");
  check(pto_emit_copy(e, pto_emit_tile(e, C, coff, pto_emit_i64(e, N), PTO_DT_F32),
                      tc, pto_emit_i64(e, mt), pto_emit_i64(e, nt), &err), &err);
  void *p = fn_finish(&f, jit, "mm", secs);
  MatmulFn fn;
  memcpy(&fn, &p, sizeof p);
  return fn;
}

/* ---- threads ---- */

typedef struct Job {
  int kind, id, nthreads;
  /* softmax, and the norms (kind 3) */
  SoftmaxFn softmax;
  void *norm; /* RmsFn or LayerFn */
  bool layer;
  const float *in, *gamma, *beta;
  float *out;
  int64_t rows, cols, tr;
  /* matmul */
  MatmulFn mm[2]; /* full tiles, and the last row of tiles when shorter */
  const float *A, *Bm;
  float *C;
  int64_t M, N, mt, nt;
  /* copy */
  const char *src;
  char *dst;
  size_t bytes;
  void *buf;
  double cpu; /* the thread's CPU time for its share */
} Job;

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *run_job(void *arg) {
  Job *j = arg;
  double c0 = thread_cpu();
  if (j->kind == 0 || j->kind == 3) {
    int64_t per = (j->rows + j->nthreads - 1) / j->nthreads;
    int64_t r0 = per * j->id, r1 = r0 + per < j->rows ? r0 + per : j->rows;
    if (j->kind == 0) { /* whole tiles: per is a multiple of tr */
      per = (j->rows / j->tr + j->nthreads - 1) / j->nthreads * j->tr;
      r0 = per * j->id;
      r1 = r0 + per < j->rows ? r0 + per : j->rows;
      for (int64_t r = r0; r < r1; r += j->tr) j->softmax(j->buf, j->in, j->out, r);
    }
    if (j->kind == 3 && j->layer) {
      LayerFn f;
      memcpy(&f, &j->norm, sizeof f);
      for (int64_t r = r0; r < r1; r++) f(j->buf, j->in, r, j->gamma, j->beta, j->out, r);
    } else if (j->kind == 3) {
      RmsFn f;
      memcpy(&f, &j->norm, sizeof f);
      for (int64_t r = r0; r < r1; r++) f(j->buf, j->in, r, j->gamma, j->out, r);
    }
  } else if (j->kind == 1) {
    char *b = j->buf;
    int64_t tiles_n = j->N / j->nt, tiles = ((j->M + j->mt - 1) / j->mt) * tiles_n;
    for (int64_t t = j->id; t < tiles; t += j->nthreads) {
      int64_t i0 = t / tiles_n * j->mt, j0 = t % tiles_n * j->nt;
      MatmulFn f = i0 + j->mt <= j->M ? j->mm[0] : j->mm[1];
      f(j->A, j->Bm, j->C, b, b + (64 << 10), b + (128 << 10), i0, j0);
    }
  } else {
    size_t per = j->bytes / (size_t)j->nthreads;
    memcpy(j->dst + per * (size_t)j->id, j->src + per * (size_t)j->id, per);
  }
  j->cpu = thread_cpu() - c0;
  return NULL;
}

/* Wall time of one run; *cpu the longest CPU time of one thread, which
 * other processes on a busy machine inflate far less than the wall time. */
static double run_threads(Job *proto, int nthreads, void **bufs, double *cpu) {
  pthread_t th[64];
  Job jobs[64];
  double t0 = now();
  for (int i = 0; i < nthreads; i++) {
    jobs[i] = *proto;
    jobs[i].id = i;
    jobs[i].nthreads = nthreads;
    jobs[i].buf = bufs[i];
    pthread_create(&th[i], NULL, run_job, &jobs[i]);
  }
  *cpu = 0;
  for (int i = 0; i < nthreads; i++) {
    pthread_join(th[i], NULL);
    if (jobs[i].cpu > *cpu) *cpu = jobs[i].cpu;
  }
  return now() - t0;
}

typedef struct Best {
  double wall, cpu; /* each the best over the runs */
} Best;

static Best best_of(Job *j, int nthreads, void **bufs, int reps) {
  Best b = {1e30, 1e30};
  for (int r = 0; r < reps; r++) {
    double cpu, t = run_threads(j, nthreads, bufs, &cpu);
    if (t < b.wall) b.wall = t;
    if (cpu < b.cpu) b.cpu = cpu;
  }
  return b;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static float rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (float)(rng >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
}

int main(int argc, char **argv) {
  int64_t rows = 4096, cols = 4096, tr = 4, mmn = 1024;
  int reps = 5, nthreads = 2;
  unsigned off = 0;
  for (int i = 1; i < argc; i += 2) {
    int64_t v = i + 1 < argc ? atoll(argv[i + 1]) : 0;
    if (!strcmp(argv[i], "--no-prefetch") || !strcmp(argv[i], "--no-forward")) {
      off |= !strcmp(argv[i], "--no-prefetch") ? NO_PREFETCH : NO_FORWARD;
      i--;
    } else if (!strcmp(argv[i], "--rows")) rows = v;
    else if (!strcmp(argv[i], "--cols")) cols = v;
    else if (!strcmp(argv[i], "--tile-rows")) tr = v;
    else if (!strcmp(argv[i], "--matmul")) mmn = v;
    else if (!strcmp(argv[i], "--reps")) reps = (int)v;
    else if (!strcmp(argv[i], "--threads")) nthreads = (int)v;
    else die("usage", "jit-kernels [--rows R] [--cols C] [--tile-rows T] "
                      "[--matmul N] [--reps K] [--threads T] [--no-prefetch] "
                      "[--no-forward]");
  }
  if (rows < 1 || cols < 1 || tr < 1 || mmn < 128 || mmn % 128 || reps < 1 ||
      nthreads < 1 || nthreads > 64 || tr * cols * 4 + 512 > (192 << 10) || rows % tr ||
      tr > 64 ||
      cols * 16 + 256 > (256 << 10))
    die("usage", "sizes must be positive, --matmul a multiple of 128, "
                 "--threads at most 64, a softmax tile of at most 64 rows within "
                 "192 KiB (UB) whose rows divide --rows");
  PtoError err;
  PtoJit *jit = pto_jit_create(NULL, &err);
  if (!jit) die("JIT", err.msg);
  printf("isa %s cpu %s threads %d reps %d\n", pto_jit_get_vector_isa(jit),
         pto_jit_get_cpu_name(jit), nthreads, reps);

  void *bufs[64];
  for (int i = 0; i < nthreads; i++) bufs[i] = calloc(1, 256 << 10); /* per core */

  /* softmax, rms_norm and layer_norm, each fused (what pto-translate
   * emits) and --no-fuse, and the floor: each run once and checked in
   * double on a few rows, then timed in interleaved rounds (every kernel
   * once per round), so that a busy spell of a shared machine falls on
   * all of them alike rather than on whichever ran then */
  size_t n = (size_t)rows * (size_t)cols;
  float *in = malloc(n * 4), *out = malloc(n * 4);
  float *gamma = malloc((size_t)cols * 4), *beta = malloc((size_t)cols * 4);
  for (size_t i = 0; i < n; i++) in[i] = 4.0f * rnd();
  for (int64_t c = 0; c < cols; c++) {
    gamma[c] = 1.0f + 0.5f * rnd();
    beta[c] = rnd();
  }
  enum { NJOBS = 7, COPY = 6 };
  Job jobs[NJOBS];
  double csec[NJOBS] = {0}, maxerr[NJOBS] = {0};
  for (int k = 0; k < NJOBS; k++) {
    bool fuse = k % 2 == 0;
    double cpu;
    if (k < 2) {
      jobs[k] = (Job){.kind = 0, .in = in, .out = out, .rows = rows, .cols = cols, .tr = tr};
      jobs[k].softmax = build_softmax(jit, fuse, off, rows, cols, tr, &csec[k]);
    } else if (k < COPY) {
      bool layer = k >= 4;
      jobs[k] = (Job){.kind = 3, .in = in, .out = out, .gamma = gamma, .beta = beta,
                      .rows = rows, .cols = cols, .layer = layer};
      jobs[k].norm = build_norm(jit, fuse, off, layer, rows, cols, &csec[k]);
    } else {
      jobs[k] = (Job){.kind = 2, .src = (const char *)in, .dst = (char *)out, .bytes = n * 4};
      continue;
    }
    memset(out, 0, n * 4);
    run_threads(&jobs[k], nthreads, bufs, &cpu);
    for (int64_t r = 0; r < rows; r += rows / 7 + 1) { /* a few rows, in double */
      const float *xr = in + r * cols;
      if (k < 2) {
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c < cols; c++) mx = fmax(mx, xr[c]);
        for (int64_t c = 0; c < cols; c++) sum += exp(xr[c] - mx);
        for (int64_t c = 0; c < cols; c++) {
          double want = exp(xr[c] - mx) / sum;
          maxerr[k] = fmax(maxerr[k], fabs(out[r * cols + c] - want) / want);
        }
        continue;
      }
      double mean = 0, ss = 0;
      if (jobs[k].layer) {
        for (int64_t c = 0; c < cols; c++) mean += xr[c];
        mean /= (double)cols;
      }
      for (int64_t c = 0; c < cols; c++) ss += (xr[c] - mean) * (xr[c] - mean);
      double rs = 1.0 / sqrt(ss / (double)cols + 1e-5);
      for (int64_t c = 0; c < cols; c++) {
        double want = (xr[c] - mean) * rs * gamma[c] + (jobs[k].layer ? beta[c] : 0);
        maxerr[k] = fmax(maxerr[k], fabs(out[r * cols + c] - want));
      }
    }
    const char *name = k < 2 ? "softmax" : k < 4 ? "rms_norm" : "layer_norm";
    if (!(maxerr[k] < (k < 2 ? 1e-5 : 1e-4))) die(name, "wrong results");
  }
  Best best[NJOBS];
  for (int k = 0; k < NJOBS; k++) best[k] = (Best){1e30, 1e30};
  for (int r = 0; r < reps; r++)
    for (int k = 0; k < NJOBS; k++) {
      double cpu, t = run_threads(&jobs[k], nthreads, bufs, &cpu);
      if (t < best[k].wall) best[k].wall = t;
      if (cpu < best[k].cpu) best[k].cpu = cpu;
    }
  for (int k = 0; k < COPY; k++) {
    const char *nofuse = k % 2 ? "_nofuse" : "";
    if (k < 2)
      printf("softmax%s %lldx%lld tile %lldx%lld compile %.6f run %.6f cpu %.6f "
             "maxrelerr %.3g\n", nofuse, (long long)rows, (long long)cols,
             (long long)tr, (long long)cols, csec[k], best[k].wall, best[k].cpu, maxerr[k]);
    else
      printf("%s%s %lldx%lld tile 1x%lld compile %.6f run %.6f cpu %.6f "
             "maxabserr %.3g\n", k < 4 ? "rms_norm" : "layer_norm", nofuse,
             (long long)rows, (long long)cols, (long long)cols, csec[k], best[k].wall,
             best[k].cpu, maxerr[k]);
  }
  printf("copy %zu bytes run %.6f cpu %.6f\n", n * 4, best[COPY].wall, best[COPY].cpu);
  free(gamma);
  free(beta);
  free(in);
  free(out);

  /* matmul */
  int64_t M = mmn, K = mmn, N = mmn, mt = 96, kt = 128, nt = 128;
  float *A = malloc((size_t)(M * K) * 4), *Bm = malloc((size_t)(K * N) * 4);
  float *C = malloc((size_t)(M * N) * 4);
  for (int64_t i = 0; i < M * K; i++) A[i] = rnd();
  for (int64_t i = 0; i < K * N; i++) Bm[i] = rnd();
  double c1, c2 = 0;
  Job jm = {.kind = 1, .A = A, .Bm = Bm, .C = C, .M = M, .N = N, .mt = mt, .nt = nt};
  jm.mm[0] = build_matmul(jit, K, N, mt, kt, nt, &c1);
  jm.mm[1] = M % mt ? build_matmul(jit, K, N, M % mt, kt, nt, &c2) : jm.mm[0];
  Best t = best_of(&jm, nthreads, bufs, reps);
  double mmerr = 0;
  for (int64_t i = 0; i < M; i += 37)
    for (int64_t j = 0; j < N; j += 29) {
      double want = 0;
      for (int64_t k = 0; k < K; k++) want += (double)A[i * K + k] * Bm[k * N + j];
      mmerr = fmax(mmerr, fabs(C[i * N + j] - want));
    }
  printf("matmul %lldx%lldx%lld tile %lldx%lldx%lld compile %.6f run %.6f cpu %.6f "
         "maxabserr %.3g\n", (long long)M, (long long)K, (long long)N,
         (long long)mt, (long long)kt, (long long)nt, c1 + c2, t.wall, t.cpu,
         mmerr);
  if (!(mmerr < 1e-3)) die("matmul", "wrong results");
  free(A);
  free(Bm);
  free(C);
  for (int i = 0; i < nthreads; i++) free(bufs[i]);
  pto_jit_destroy(jit);
  return 0;
}
