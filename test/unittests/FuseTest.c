/* Element-wise fusion in the LLVM translation against the translation
 * without it (PtoTranslateOptions.no_fuse): kernels with runs of vector
 * instructions (in place, a result read after the run, a row reduction
 * at the end, trowexpand columns) on every element type, at several tile
 * shapes and both vector widths, JIT-compiled both ways and run on the
 * same inputs and the same buffer image, must write the same bits (also
 * with tloads and tstores fused across flags, a tload fused across
 * another tload but not across one into its own bytes, and a fused
 * streaming tstore, and a result kept in registers over bytes the run
 * reads before it); the kernels whose instructions must not fuse
 * (overlapping tiles, a pipe barrier between them, a column the run
 * overwrites, a tload into bytes the run reads through another tile, a
 * result kept in registers over bytes the run reads after it, or read
 * after the run wrote over its bytes) must translate to the same IR both
 * ways. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DiagCapture.h"
#include "Test.h"
#include "pto/Dialects.h"
#include "pto/ExecutionEngine.h"
#include "pto/LLVMIR.h"

typedef struct Kernel {
  const char *name;
  bool floats_only, fuses;
  /* {F<k>}: a rows x cols tile at slot k, {V<k>}: rows x 1 at slot k,
   * {W<k>}: rows x 1 at slot k plus 64 bytes,
   * {G}: the rows x cols tensor, {C}: the rows x 1 tensor, {D}: the
   * dtype, {S}: a scalar constant's literal, {O<k>}: offset of slot k
   * plus 32 bytes (a tile that overlaps slot k) */
  const char *text;
} Kernel;

#define HEAD "pto.kernel vector @k(%X: {G}, %Y: {G}, %O: {G}, %P: {C}) {\n" \
             "  %s = arith.constant {S} : {D}\n"                           \
             "  %x = pto.tload %X[0, 0] : {G} -> {F0}\n"                   \
             "  %y = pto.tload %Y[0, 0] : {G} -> {F1}\n"

/* layer_norm's last run (kernels overlap-dead*) */
#define DEAD_RUN                                                          \
  HEAD "  pto.pipe_barrier V\n"                                           \
       "  %c = pto.tsub %x, %y : {F0}, {F1} -> {F2}\n"                     \
       "  %v = pto.trowmax %y : {F1} -> {W2}\n"                            \
       "  pto.pipe_barrier V\n"                                            \
       "  %n = pto.trowexpandmul %c, %v : {F2}, {W2} -> {F4}\n"            \
       "  %g = pto.tmul %n, %y : {F4}, {F1} -> {O2}\n"                     \
       "  %z = pto.tadd %g, %x : {O2}, {F0} -> {F4}\n"                     \
       "  pto.tstore %z, %O[0, 0] : {F4} into {G}\n"

static const Kernel kKernels[] = {
    {"chain", false, true,
     HEAD "  %a = pto.tmul %x, %y : {F0}, {F1} -> {F2}\n"
          "  %b = pto.tmuls %a, %s : {F2}, {D} -> {F2}\n"
          "  %c = pto.tmax %b, %x : {F2}, {F0} -> {F3}\n"
          "  %d = pto.tabs %c : {F3} -> {F3}\n"
          "  %m = pto.trowmax %d : {F3} -> {V4}\n"
          "  pto.tstore %d, %O[0, 0] : {F3} into {G}\n"
          "  pto.tstore %m, %P[0, 0] : {V4} into {C}\n}\n"},
    {"softmax", true, true,
     HEAD "  %m = pto.trowmax %x : {F0} -> {V2}\n"
          "  %t = pto.trowexpandsub %x, %m : {F0}, {V2} -> {F0}\n"
          "  %e = pto.texp %t : {F0} -> {F0}\n"
          "  %r = pto.trowsum %e : {F0} -> {V3}\n"
          "  %q = pto.trowexpanddiv %e, %r : {F0}, {V3} -> {F0}\n"
          "  %z = pto.tdiv %q, %y : {F0}, {F1} -> {F4}\n"
          "  %w = pto.tsqrt %z : {F4} -> {F4}\n"
          "  pto.tstore %w, %O[0, 0] : {F4} into {G}\n"
          "  pto.tstore %r, %P[0, 0] : {V3} into {C}\n}\n"},
    {"read-after", false, true,
     HEAD "  %a = pto.tsub %x, %y : {F0}, {F1} -> {F2}\n"
          "  %b = pto.tadds %a, %s : {F2}, {D} -> {F3}\n"
          "  %n = pto.tneg %b : {F3} -> {F3}\n"
          "  pto.tstore %n, %O[0, 0] : {F3} into {G}\n"
          "  %c = pto.tmul %a, %n : {F2}, {F3} -> {F2}\n"
          "  %m = pto.trowsum %c : {F2} -> {V4}\n"
          "  pto.tstore %m, %P[0, 0] : {V4} into {C}\n}\n"},
    /* the barriers keep the tloads and tstores out of the runs these
     * kernels are about */
    {"overlap", false, false,
     HEAD "  pto.pipe_barrier V\n"
          "  %m = pto.trowmax %y : {F1} -> {V3}\n"
          "  %a = pto.tmuls %x, %s : {F0}, {D} -> {F2}\n"
          "  %b = pto.tadd %a, %y : {F2}, {F1} -> {O0}\n"
          "  pto.pipe_barrier V\n"
          "  pto.tstore %b, %O[0, 0] : {O0} into {G}\n"
          "  pto.tstore %m, %P[0, 0] : {V3} into {C}\n}\n"},
    {"barrier", false, false,
     HEAD "  pto.pipe_barrier V\n"
          "  %a = pto.tmul %x, %y : {F0}, {F1} -> {F2}\n"
          "  pto.pipe_barrier V\n"
          "  %b = pto.tadds %a, %s : {F2}, {D} -> {F3}\n"
          "  pto.pipe_barrier V\n"
          "  %m = pto.trowmax %b : {F3} -> {V4}\n"
          "  pto.tstore %b, %O[0, 0] : {F3} into {G}\n"
          "  pto.tstore %m, %P[0, 0] : {V4} into {C}\n}\n"},
    {"column-overwritten", false, false,
     HEAD "  pto.pipe_barrier V\n"
          "  %v = pto.trowmax %y : {F1} -> {V2}\n"
          "  %a = pto.tmuls %x, %s : {F0}, {D} -> {F2}\n"
          "  %b = pto.trowexpandadd %a, %v : {F2}, {V2} -> {F3}\n"
          "  pto.pipe_barrier V\n"
          "  pto.tstore %b, %O[0, 0] : {F3} into {G}\n"
          "  pto.tstore %v, %P[0, 0] : {V2} into {C}\n}\n"},
    /* layer_norm's last run: a result the run keeps in registers (g) over
     * bytes of a tile (c) and a column (v) it reads before writing it */
    {"overlap-dead", false, true,
     DEAD_RUN "  pto.tstore %v, %P[0, 0] : {W2} into {C}\n}\n"},
    /* the same, g read after the run: stored, it may not overlap c; the
     * run gives up its steps from the end and starts again at tmul */
    {"overlap-dead-stored", false, true,
     DEAD_RUN "  pto.pipe_barrier V\n"
              "  %m = pto.trowsum %g : {O2} -> {V5}\n"
              "  pto.tstore %m, %P[0, 0] : {V5} into {C}\n}\n"},
    /* a result the run keeps in registers over bytes of a tile it reads
     * from memory after writing it: not fused */
    {"overlap-read-after-write", false, false,
     HEAD "  pto.pipe_barrier V\n"
          "  %a = pto.tmuls %x, %s : {F0}, {D} -> {O1}\n"
          "  %b = pto.tadd %a, %y : {O1}, {F1} -> {F2}\n"
          "  pto.pipe_barrier V\n"
          "  pto.tstore %b, %O[0, 0] : {F2} into {G}\n}\n"},
    /* a result kept in registers (g) read after a later step of the run
     * wrote a tile over its bytes (h): one instruction after the other,
     * tadd reads h's values there; not fused */
    {"overlap-clobber", false, false,
     HEAD "  pto.pipe_barrier V\n"
          "  %g = pto.tmuls %x, %s : {F0}, {D} -> {F2}\n"
          "  %h = pto.tadds %x, %s : {F0}, {D} -> {O2}\n"
          "  %z = pto.tadd %g, %y : {F2}, {F1} -> {F3}\n"
          "  pto.pipe_barrier V\n"
          "  pto.tstore %z, %O[0, 0] : {F3} into {G}\n}\n"},
    /* a tload into bytes the run reads through another tile */
    {"overlap-load", false, false,
     HEAD "  pto.pipe_barrier V\n"
          "  %z = pto.tload %Y[0, 0] : {G} -> {O1}\n"
          "  %a = pto.tadd %z, %y : {O1}, {F1} -> {F2}\n"
          "  pto.pipe_barrier V\n"
          "  pto.tstore %a, %O[0, 0] : {F2} into {G}\n}\n"},
    /* a tload and a tstore with flags between them and their runs */
    {"flags", false, true,
     HEAD "  pto.set_flag MTE2 -> V, 0\n"
          "  pto.wait_flag MTE2 -> V, 0\n"
          "  %a = pto.tsub %y, %x : {F1}, {F0} -> {F1}\n"
          "  %b = pto.tmuls %a, %s : {F1}, {D} -> {F2}\n"
          "  pto.pipe_barrier V\n"
          "  %c = pto.tadds %b, %s : {F2}, {D} -> {F3}\n"
          "  pto.set_flag V -> MTE3, 0\n"
          "  pto.wait_flag V -> MTE3, 0\n"
          "  pto.tstore %c, %O[0, 0] : {F3} into {G}\n"
          "  %m = pto.trowsum %a : {F1} -> {V4}\n"
          "  pto.tstore %m, %P[0, 0] : {V4} into {C}\n}\n"},
    /* x's tload fuses with the run across y's (a tile apart), which the
     * run emits first, and a scalar op between */
    {"load-across-load", false, true,
     HEAD "  %t = arith.constant {S} : {D}\n"
          "  %a = pto.tmuls %x, %t : {F0}, {D} -> {F2}\n"
          "  %m = pto.trowsum %a : {F2} -> {V3}\n"
          "  %b = pto.tmul %x, %y : {F0}, {F1} -> {F4}\n"
          "  pto.tstore %b, %O[0, 0] : {F4} into {G}\n"
          "  pto.tstore %m, %P[0, 0] : {V3} into {C}\n}\n"},
    /* a tload into bytes of x's tile after it: x's tload may not move
     * past it (x then holds some of z's bytes) */
    {"load-across-overlap", false, true,
     HEAD "  %z = pto.tload %Y[0, 0] : {G} -> {O0}\n"
          "  %a = pto.tmuls %x, %s : {F0}, {D} -> {F2}\n"
          "  %b = pto.tadds %a, %s : {F2}, {D} -> {F3}\n"
          "  pto.tstore %b, %O[0, 0] : {F3} into {G}\n"
          "  %m = pto.trowsum %z : {O0} -> {V4}\n"
          "  pto.tstore %m, %P[0, 0] : {V4} into {C}\n}\n"},
};

static const struct {
  const char *name, *scalar;
  size_t size;
  bool fp;
} kTypes[] = {{"f32", "0.75", 4, true}, {"f16", "0.75", 2, true},
              {"bf16", "0.75", 2, true}, {"i32", "3", 4, false},
              {"i16", "3", 2, false},   {"i8", "3", 1, false}};

/* 1 x 84: whole groups of the reduction's chains, vectors after them and
 * columns after those, at 8 and 16 lanes (Emit.h, pto_emit_row_reduce) */
static const int64_t kShapes[][2] = {{5, 37}, {1, 1}, {2, 100}, {1, 84}};

enum { SLOT_BYTES = 1024 };

static void append(char **s, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  *s = realloc(*s, *len + (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(*s + *len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  *len += (size_t)n;
}

/* The kernel's text for one dtype and shape. */
static char *expand(const char *t, unsigned ty, int64_t r, int64_t c) {
  char *s = NULL;
  size_t len = 0;
  append(&s, &len, "%s", "");
  const char *d = kTypes[ty].name;
  for (; *t; t++) {
    if (*t != '{' || !t[1] || !strchr("FVWOGCDS", t[1])) {
      append(&s, &len, "%c", *t);
      continue;
    }
    char k = t[1];
    int slot = k == 'F' || k == 'V' || k == 'W' || k == 'O' ? t[2] - '0' : 0;
    if (k == 'F' || k == 'O')
      append(&s, &len, "!pto.tile<%lldx%lldx%s, vec, offset = %d>", (long long)r,
             (long long)c, d, slot * SLOT_BYTES + (k == 'O' ? 32 : 0));
    else if (k == 'V' || k == 'W')
      append(&s, &len, "!pto.tile<%lldx1x%s, vec, offset = %d>", (long long)r, d,
             slot * SLOT_BYTES + (k == 'W' ? 64 : 0));
    else if (k == 'G')
      append(&s, &len, "tensor<%lldx%lldx%s>", (long long)r, (long long)c, d);
    else if (k == 'C')
      append(&s, &len, "tensor<%lldx1x%s>", (long long)r, d);
    else if (k == 'D')
      append(&s, &len, "%s", d);
    else
      append(&s, &len, "%s", kTypes[ty].scalar);
    t = strchr(t, '}');
  }
  return s;
}

static uint64_t rng_ = 0x2545f4914f6cdd1dULL;
static uint64_t rnd(void) {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_;
}

/* Floats in [-4, 4) (no NaN: both sides would still agree, but the
 * comparison below is of bytes); integers of any bits. */
static void fill(unsigned ty, void *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float f = (float)(rnd() >> 40) / (float)(1 << 24) * 8.0f - 4.0f;
    uint32_t b;
    memcpy(&b, &f, 4);
    uint64_t v = rnd();
    if (!kTypes[ty].fp) memcpy((char *)p + i * (int64_t)kTypes[ty].size, &v, kTypes[ty].size);
    else if (kTypes[ty].size == 4) memcpy((char *)p + i * 4, &f, 4);
    else if (!strcmp(kTypes[ty].name, "bf16")) ((uint16_t *)p)[i] = (uint16_t)(b >> 16);
    else { /* f16: sign, an exponent of 2^-2 .. 2^1, mantissa bits */
      ((uint16_t *)p)[i] = (uint16_t)((v & 0x8000) | ((13 + (v >> 20) % 4) << 10) | (v & 0x3ff));
    }
  }
}

static PtoJit *jit_;
static uint8_t ub_[SLOT_BYTES * 8];

/* The JIT every test compiles with (jit_), reported when it cannot be
 * created. */
static PtoJit *jit_open(void) {
  PtoError err;
  jit_ = pto_jit_create(NULL, &err);
  if (!jit_) fprintf(stderr, "the JIT: %s\n", err.msg);
  return jit_;
}

/* Translates, compiles and runs the module; out O (rows x cols) and P
 * (rows x 1) filled. NULL text on a failure, reported. */
static char *run(PtoOp *m, unsigned lanes, bool fuse, unsigned ty, int64_t r,
                 int64_t c, void *const *in, void *o, void *p) {
  PtoTranslateOptions opts = {.lanes = lanes, .no_fuse = !fuse};
  char *ll = NULL;
  if (pto_failed(pto_translate_to_llvmir_with(m, &opts, &ll))) return NULL;
  const char *entry = "define void @entry(i8** %a) {\n"
                      "  %p0 = getelementptr i8*, i8** %a, i64 0\n  %v0 = load i8*, i8** %p0\n"
                      "  %p1 = getelementptr i8*, i8** %a, i64 1\n  %v1 = load i8*, i8** %p1\n"
                      "  %p2 = getelementptr i8*, i8** %a, i64 2\n  %v2 = load i8*, i8** %p2\n"
                      "  %p3 = getelementptr i8*, i8** %a, i64 3\n  %v3 = load i8*, i8** %p3\n"
                      "  %p4 = getelementptr i8*, i8** %a, i64 4\n  %v4 = load i8*, i8** %p4\n"
                      "  call void @k(i8* %v0, i8* %v1, i8* %v2, i8* %v3, i8* %v4)\n"
                      "  ret void\n}\n";
  size_t n = strlen(ll) + strlen(entry);
  char *full = malloc(n + 1);
  strcpy(full, ll);
  strcat(full, entry);
  PtoError err;
  PtoJitModule *jm = pto_jit_compile(jit_, full, n, &err);
  free(full);
  void *fp = jm ? pto_jit_module_lookup(jm, "entry", &err) : NULL;
  if (!fp) {
    fprintf(stderr, "the JIT failed: %s\n", err.msg);
    free(ll);
    return NULL;
  }
  void (*fn)(void **);
  memcpy(&fn, &fp, sizeof fp);
  memset(ub_, 0x5a, sizeof ub_);
  memset(o, 0xa5, (size_t)(r * c) * kTypes[ty].size);
  memset(p, 0xa5, (size_t)r * kTypes[ty].size);
  void *args[5] = {ub_, in[0], in[1], o, p};
  fn(args);
  (void)c;
  return ll;
}

/* Two random inputs of r x c elements of kTypes[ty], and per variant
 * (unfused, fused) the output tile and the per-row results. */
typedef struct Bufs {
  void *in[2], *o[2], *p[2];
} Bufs;

static Bufs bufs_alloc(unsigned ty, int64_t r, int64_t c) {
  size_t es = kTypes[ty].size, nb = (size_t)(r * c) * es;
  Bufs b;
  for (unsigned i = 0; i < 2; i++) {
    b.in[i] = malloc(nb);
    fill(ty, b.in[i], r * c);
    b.o[i] = malloc(nb);
    b.p[i] = malloc((size_t)r * es);
  }
  return b;
}

static void bufs_free(Bufs *b) {
  for (unsigned i = 0; i < 2; i++) {
    free(b->in[i]);
    free(b->o[i]);
    free(b->p[i]);
  }
}

TEST(fused_and_unfused_write_the_same_bits) {
  CHECK(jit_open() != NULL);
  if (!jit_) return;
  unsigned fused_runs = 0;
  for (size_t k = 0; k < sizeof kKernels / sizeof kKernels[0]; k++)
    for (unsigned ty = 0; ty < sizeof kTypes / sizeof kTypes[0]; ty++) {
      if (kKernels[k].floats_only && !kTypes[ty].fp) continue;
      for (size_t sh = 0; sh < sizeof kShapes / sizeof kShapes[0]; sh++) {
        int64_t r = kShapes[sh][0], c = kShapes[sh][1];
        char *text = expand(kKernels[k].text, ty, r, c);
        PtoContext *ctx = pto_ctx_create();
        pto_register_all_dialects(ctx);
        DiagCapture dc;
        diag_capture_begin(&dc, ctx);
        PtoOp *m = pto_parse_module(ctx, text, strlen(text), NULL);
        bool ok = m && pto_succeeded(pto_op_verify(m));
        if (!ok)
          fprintf(stderr, "%s %s: does not verify:\n%s\n%s", kKernels[k].name,
                  kTypes[ty].name, diag_capture_take(&dc), text);
        CHECK(ok);
        size_t es = kTypes[ty].size, nb = (size_t)(r * c) * es;
        Bufs b = bufs_alloc(ty, r, c);
        void **o = b.o, **p = b.p;
        /* 16 lanes (AVX-512's) for f32 alone: the other dtypes' code does
         * not depend on the width but for the row reductions' order */
        for (unsigned lanes = 8; ok && lanes <= (ty == 0 ? 16u : 8u); lanes += 8) {
          char *ll[2];
          for (unsigned f = 0; f < 2; f++) ll[f] = run(m, lanes, f, ty, r, c, b.in, o[f], p[f]);
          CHECK(ll[0] && ll[1]);
          if (!ll[0] || !ll[1]) {
            fprintf(stderr, "%s %s: %s\n", kKernels[k].name, kTypes[ty].name,
                    diag_capture_take(&dc));
          } else {
            bool differs = strcmp(ll[0], ll[1]) != 0;
            /* a tile of at most 32 bytes does not reach the one 32 bytes
             * after it: those may fuse */
            bool want = kKernels[k].fuses ||
                        (!strncmp(kKernels[k].name, "overlap", 7) && nb <= 32);
            fused_runs += differs;
            if (differs != want)
              fprintf(stderr, "%s %s %lldx%lld: fusion %s\n", kKernels[k].name,
                      kTypes[ty].name, (long long)r, (long long)c,
                      differs ? "happened where it must not" : "did not happen");
            CHECK(differs == want);
            bool same = !memcmp(o[0], o[1], nb) && !memcmp(p[0], p[1], (size_t)r * es);
            if (!same)
              fprintf(stderr, "%s %s %lldx%lld %u lanes: fused and unfused results "
                      "differ\n", kKernels[k].name, kTypes[ty].name, (long long)r,
                      (long long)c, lanes);
            CHECK(same);
          }
          free(ll[0]);
          free(ll[1]);
        }
        bufs_free(&b);
        diag_capture_end(&dc);
        if (m) pto_op_destroy(m);
        pto_ctx_destroy(ctx);
        free(text);
      }
    }
  CHECK(fused_runs > 0);
  pto_jit_destroy(jit_);
}

/* A tstore into a tensor of 16 MiB streams; fused, each row's vectors
 * start at its first 32-byte-aligned (64 with 16 lanes) column in GM, which
 * differs from row to row with an odd row length: the same bits as the
 * streaming copy on its own, the elements around the window untouched. */
TEST(fused_streaming_tstore_writes_the_same_bits) {
  CHECK(jit_open() != NULL);
  if (!jit_) return;
  const char *text =
      "pto.kernel vector @k(%X: tensor<2048x2049xf32>, %Y: tensor<2048x2049xf32>, "
      "%O: tensor<2048x2049xf32>, %P: tensor<2048x1xf32>) {\n"
      "  %x = pto.tload %X[5, 3] : tensor<2048x2049xf32> -> !pto.tile<3x500xf32, vec, offset = 0>\n"
      "  %m = pto.trowmax %x : !pto.tile<3x500xf32, vec, offset = 0> -> "
      "!pto.tile<3x1xf32, vec, offset = 6144>\n"
      "  %t = pto.trowexpandsub %x, %m : !pto.tile<3x500xf32, vec, offset = 0>, "
      "!pto.tile<3x1xf32, vec, offset = 6144> -> !pto.tile<3x500xf32, vec, offset = 0>\n"
      "  pto.tstore %t, %O[7, 11] : !pto.tile<3x500xf32, vec, offset = 0> into "
      "tensor<2048x2049xf32>\n"
      "  pto.tstore %m, %P[4, 0] : !pto.tile<3x1xf32, vec, offset = 6144> into "
      "tensor<2048x1xf32>\n}\n";
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoOp *m = pto_parse_module(ctx, text, strlen(text), NULL);
  CHECK(m && pto_succeeded(pto_op_verify(m)));
  int64_t r = 2048, c = 2049;
  size_t nb = (size_t)(r * c) * 4;
  Bufs b = bufs_alloc(0, r, c);
  void **o = b.o, **p = b.p;
  for (unsigned lanes = 8; m && lanes <= 16; lanes += 8) {
    char *ll[2];
    for (unsigned f = 0; f < 2; f++) ll[f] = run(m, lanes, f, 0, r, c, b.in, o[f], p[f]);
    CHECK(ll[0] && ll[1]);
    if (ll[0] && ll[1]) {
      CHECK(strcmp(ll[0], ll[1]) != 0); /* the tstore fused */
      bool same = !memcmp(o[0], o[1], nb) && !memcmp(p[0], p[1], (size_t)r * 4);
      if (!same) fprintf(stderr, "%u lanes: fused and unfused results differ\n", lanes);
      CHECK(same);
    }
    free(ll[0]);
    free(ll[1]);
  }
  bufs_free(&b);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  pto_jit_destroy(jit_);
}

/* Forwarding (Fuse.h): in an rms_norm-like kernel the readers of
 * gamma's tile read G itself, in the run that also stores Y, which the
 * caller may place over G (tensor arguments may share a buffer). With Y
 * one element after G, the fused run's store of element c overwrites G's
 * element c + 1 before its product reads it: the translation must see
 * the overlap at run time and read a copy, as the tload's semantics say.
 * Fused and not, forwarded and not, at both widths, Y over G or apart. */
typedef void (*NormFn)(void *, const float *, const float *, float *, int64_t);

TEST(forwarded_tload_with_overlapping_tensors) {
  CHECK(jit_open() != NULL);
  if (!jit_) return;
  const char *text =
      "pto.kernel vector @k(%X: tensor<4x64xf32>, %G: tensor<1x64xf32>, "
      "%Y: tensor<4x64xf32>, %i: index) {\n"
      "  %x = pto.tload %X[%i, 0] : tensor<4x64xf32> -> !pto.tile<1x64xf32, vec, offset = 0>\n"
      "  %g = pto.tload %G[0, 0] : tensor<1x64xf32> -> !pto.tile<1x64xf32, vec, offset = 256>\n"
      "  %s = pto.trowsum %x : !pto.tile<1x64xf32, vec, offset = 0> -> "
      "!pto.tile<1x1xf32, vec, offset = 768>\n"
      "  %n = pto.trowexpandmul %x, %s : !pto.tile<1x64xf32, vec, offset = 0>, "
      "!pto.tile<1x1xf32, vec, offset = 768> -> !pto.tile<1x64xf32, vec, offset = 512>\n"
      "  %y = pto.tmul %n, %g : !pto.tile<1x64xf32, vec, offset = 512>, "
      "!pto.tile<1x64xf32, vec, offset = 256> -> !pto.tile<1x64xf32, vec, offset = 512>\n"
      "  pto.tstore %y, %Y[%i, 0] : !pto.tile<1x64xf32, vec, offset = 512> into "
      "tensor<4x64xf32>\n}\n";
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoOp *m = pto_parse_module(ctx, text, strlen(text), NULL);
  CHECK(m && pto_succeeded(pto_op_verify(m)));
  /* G at buf[192..256); row r of Y one element after G's start, or Y
   * a buffer of its own */
  float x[4 * 64], g0[64], buf[192 + 1 + 4 * 64], own[4 * 64], want[64];
  for (int i = 0; i < 4 * 64; i++) x[i] = (float)(i % 13) - 6.0f;
  for (int c = 0; c < 64; c++) g0[c] = 0.5f + (float)c;
  for (unsigned v = 0; m && v < 8; v++) {
    bool fuse = v & 1, forward = !(v & 2), apart = v & 4;
    for (unsigned lanes = 8; lanes <= 16; lanes += 8) {
      PtoTranslateOptions o = {.lanes = lanes, .no_fuse = !fuse, .no_forward = !forward};
      char *ll = NULL;
      CHECK(pto_succeeded(pto_translate_to_llvmir_with(m, &o, &ll)));
      if (!ll) continue;
      /* the forwarded tloads check for overlap; without forwarding, none */
      CHECK((strstr(ll, "fwd.copy") != NULL) == forward);
      PtoError err;
      PtoJitModule *jm = pto_jit_compile(jit_, ll, strlen(ll), &err);
      void *p = jm ? pto_jit_module_lookup(jm, "k", &err) : NULL;
      free(ll);
      CHECK(p != NULL);
      if (!p) continue;
      NormFn fn;
      memcpy(&fn, &p, sizeof p);
      float *g = buf + 192;
      int bad = 0;
      for (int64_t row = 0; row < 4; row += 3) {
        float *y = apart ? own : g + 1 - row * 64;
        for (size_t k = 0; k < sizeof buf / sizeof buf[0]; k++) buf[k] = -1.0f;
        memcpy(g, g0, sizeof g0);
        /* small integers times g0: every sum and product exact */
        float sum = 0;
        for (int c = 0; c < 64; c++) sum += x[row * 64 + c];
        for (int c = 0; c < 64; c++) want[c] = x[row * 64 + c] * sum * g0[c];
        memset(ub_, 0x5a, sizeof ub_);
        fn(ub_, x, g, y, row);
        const float *got = y + row * 64;
        bad += memcmp(got, want, sizeof want) != 0;
      }
      if (bad)
        fprintf(stderr, "fuse %d forward %d %s, %u lanes: %d rows wrong\n", fuse, forward,
                apart ? "apart" : "overlapping", lanes, bad);
      CHECK(bad == 0);
    }
  }
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  pto_jit_destroy(jit_);
}

RUN_TESTS(T(fused_and_unfused_write_the_same_bits),
          T(fused_streaming_tstore_writes_the_same_bits),
          T(forwarded_tload_with_overlapping_tensors))
