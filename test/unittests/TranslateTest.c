/* pto-translate's library side (pto/LLVMIR.h) end to end: PTO kernels
 * parsed, translated to LLVM IR, JIT-compiled and run on a buffer image
 * per core, against a C reference: the worked example's three kernels
 * chained (C = rowsum((A*2 + B) @ W)), a row softmax, and an f16 matmul
 * split along k. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "Test.h"
#include "pto/Dialects.h"
#include "pto/ExecutionEngine.h"
#include "pto/Float16.h"
#include "pto/LLVMIR.h"

static const char kWorked[] =
    "pto.kernel vector @muls_add(%A: tensor<64x64xf32>, %B: tensor<64x64xf32>,\n"
    "                            %T: tensor<64x64xf32>, %i: index, %j: index) {\n"
    "  %c = arith.constant 2.0 : f32\n"
    "  %a = pto.tload %A[%i, %j] : tensor<64x64xf32> -> !pto.tile<32x32xf32, vec, offset = 0>\n"
    "  %b = pto.tload %B[%i, %j] : tensor<64x64xf32> -> !pto.tile<32x32xf32, vec, offset = 4096>\n"
    "  pto.set_flag MTE2 -> V, 0\n"
    "  pto.wait_flag MTE2 -> V, 0\n"
    "  %m = pto.tmuls %a, %c : !pto.tile<32x32xf32, vec, offset = 0>, f32 -> !pto.tile<32x32xf32, vec, offset = 8192>\n"
    "  %s = pto.tadd %m, %b : !pto.tile<32x32xf32, vec, offset = 8192>, !pto.tile<32x32xf32, vec, offset = 4096> -> !pto.tile<32x32xf32, vec, offset = 0>\n"
    "  pto.set_flag V -> MTE3, 0\n"
    "  pto.wait_flag V -> MTE3, 0\n"
    "  pto.tstore %s, %T[%i, %j] : !pto.tile<32x32xf32, vec, offset = 0> into tensor<64x64xf32>\n"
    "}\n"
    "pto.kernel cube @matmul(%T: tensor<64x64xf32>, %W: tensor<64x32xf32>,\n"
    "                        %P: tensor<64x32xf32>) {\n"
    "  %x = pto.tload %T[0, 0] : tensor<64x64xf32> -> !pto.tile<64x64xf32, mat, offset = 0>\n"
    "  %w = pto.tload %W[0, 0] : tensor<64x32xf32> -> !pto.tile<64x32xf32, mat, offset = 16384>\n"
    "  pto.set_flag MTE2 -> MTE1, 0\n"
    "  pto.wait_flag MTE2 -> MTE1, 0\n"
    "  %l = pto.tmov %x : !pto.tile<64x64xf32, mat, offset = 0> -> !pto.tile<64x64xf32, left, offset = 0>\n"
    "  %r = pto.tmov %w : !pto.tile<64x32xf32, mat, offset = 16384> -> !pto.tile<64x32xf32, right, offset = 0>\n"
    "  pto.set_flag MTE1 -> M, 0\n"
    "  pto.wait_flag MTE1 -> M, 0\n"
    "  %p = pto.tmatmul %l, %r : !pto.tile<64x64xf32, left, offset = 0>, !pto.tile<64x32xf32, right, offset = 0> -> !pto.tile<64x32xf32, acc, offset = 0>\n"
    "  pto.set_flag M -> FIX, 0\n"
    "  pto.wait_flag M -> FIX, 0\n"
    "  pto.tstore %p, %P[0, 0] : !pto.tile<64x32xf32, acc, offset = 0> into tensor<64x32xf32>\n"
    "}\n"
    "pto.kernel vector @rowsum(%P: tensor<64x32xf32>, %C: tensor<64x1xf32>, %i: index) {\n"
    "  %q = pto.tload %P[%i, 0] : tensor<64x32xf32> -> !pto.tile<32x32xf32, vec, offset = 0>\n"
    "  pto.set_flag MTE2 -> V, 0\n"
    "  pto.wait_flag MTE2 -> V, 0\n"
    "  %r = pto.trowsum %q : !pto.tile<32x32xf32, vec, offset = 0> -> !pto.tile<32x1xf32, vec, offset = 4096>\n"
    "  pto.set_flag V -> MTE3, 0\n"
    "  pto.wait_flag V -> MTE3, 0\n"
    "  pto.tstore %r, %C[%i, 0] : !pto.tile<32x1xf32, vec, offset = 4096> into tensor<64x1xf32>\n"
    "}\n";

/* Parses, verifies and translates; NULL (with the diagnostics printed) on
 * failure. */
static char *translate(const char *src) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoOp *m = pto_parse_module(ctx, src, strlen(src), NULL);
  char *ll = NULL;
  if (m && pto_succeeded(pto_op_verify(m)))
    pto_translate_to_llvmir(m, 0, &ll);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  return ll;
}

static void *lookup(PtoJitModule *m, const char *name) {
  PtoError err;
  void *p = m ? pto_jit_module_lookup(m, name, &err) : NULL;
  if (!p && m) fprintf(stderr, "%s\n", err.msg);
  return p;
}

/* Translates src and JIT-compiles it with a JIT of its own (*jit, to
 * destroy); the module, or NULL. */
static PtoJitModule *compile(const char *src, PtoJit **jit) {
  char *ll = translate(src);
  PtoError err;
  *jit = pto_jit_create(NULL, &err);
  PtoJitModule *m = ll && *jit ? pto_jit_compile(*jit, ll, strlen(ll), &err) : NULL;
  if (ll && !m) fprintf(stderr, "%s\n", err.msg);
  pto_free(ll);
  return m;
}

static uint64_t rng_ = 0x2545f4914f6cdd1dULL;
static float rnd(void) {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return (float)(rng_ >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
}

TEST(worked_example_end_to_end) {
  PtoJit *jit;
  PtoJitModule *m = compile(kWorked, &jit);
  CHECK(m != NULL);
  void *pm = lookup(m, "muls_add"), *pmm = lookup(m, "matmul"),
       *pr = lookup(m, "rowsum");
  CHECK(pm && pmm && pr);
  if (!pm || !pmm || !pr) {
    pto_jit_destroy(jit);
    return;
  }
  void (*muls_add)(void *, float *, float *, float *, int64_t, int64_t);
  void (*matmul)(void *, void *, void *, void *, float *, float *, float *);
  void (*rowsum)(void *, float *, float *, int64_t);
  memcpy(&muls_add, &pm, sizeof pm);
  memcpy(&matmul, &pmm, sizeof pmm);
  memcpy(&rowsum, &pr, sizeof pr);

  static float A[64 * 64], B[64 * 64], T[64 * 64], W[64 * 32], P[64 * 32],
      C[64];
  for (int i = 0; i < 64 * 64; i++) A[i] = rnd(), B[i] = rnd();
  for (int i = 0; i < 64 * 32; i++) W[i] = rnd();
  /* one core's buffers each: UB; L1, L0A, L0B, L0C */
  static unsigned char ub[192 << 10], l1[512 << 10], l0a[64 << 10],
      l0b[64 << 10], l0c[128 << 10];
  for (int64_t i = 0; i < 64; i += 32)
    for (int64_t j = 0; j < 64; j += 32) muls_add(ub, A, B, T, i, j);
  matmul(l1, l0a, l0b, l0c, T, W, P);
  rowsum(ub, P, C, 0);
  rowsum(ub, P, C, 32);

  int bad = 0;
  for (int i = 0; i < 64; i++) {
    double want = 0, mag = 0;
    for (int j = 0; j < 32; j++)
      for (int k = 0; k < 64; k++) {
        double x = (double)(A[i * 64 + k] * 2.0f + B[i * 64 + k]) * W[k * 32 + j];
        want += x;
        mag += fabs(x);
      }
    bad += !(fabs(C[i] - want) <= 1e-5 * mag + 1e-6);
  }
  CHECK(bad == 0);
  pto_jit_destroy(jit);
}

static const char kSoftmax[] =
    "pto.kernel vector @softmax_rows(%X: tensor<64x64xf32>, %Y: tensor<64x64xf32>, %i: index) {\n"
    "  %x = pto.tload %X[%i, 0] : tensor<64x64xf32> -> !pto.tile<8x64xf32, vec, offset = 0>\n"
    "  %m = pto.trowmax %x : !pto.tile<8x64xf32, vec, offset = 0> -> !pto.tile<8x1xf32, vec, offset = 4096>\n"
    "  %d = pto.trowexpandsub %x, %m : !pto.tile<8x64xf32, vec, offset = 0>, !pto.tile<8x1xf32, vec, offset = 4096> -> !pto.tile<8x64xf32, vec, offset = 2048>\n"
    "  %e = pto.texp %d : !pto.tile<8x64xf32, vec, offset = 2048> -> !pto.tile<8x64xf32, vec, offset = 0>\n"
    "  %s = pto.trowsum %e : !pto.tile<8x64xf32, vec, offset = 0> -> !pto.tile<8x1xf32, vec, offset = 4128>\n"
    "  %y = pto.trowexpanddiv %e, %s : !pto.tile<8x64xf32, vec, offset = 0>, !pto.tile<8x1xf32, vec, offset = 4128> -> !pto.tile<8x64xf32, vec, offset = 2048>\n"
    "  pto.tstore %y, %Y[%i, 0] : !pto.tile<8x64xf32, vec, offset = 2048> into tensor<64x64xf32>\n"
    "}\n";

TEST(softmax_end_to_end) {
  PtoJit *jit;
  PtoJitModule *m = compile(kSoftmax, &jit);
  void *p = lookup(m, "softmax_rows");
  CHECK(p != NULL);
  if (p) {
    void (*f)(void *, float *, float *, int64_t);
    memcpy(&f, &p, sizeof p);
    static float X[64 * 64], Y[64 * 64];
    static unsigned char ub[192 << 10];
    for (int i = 0; i < 64 * 64; i++) X[i] = 6.0f * rnd();
    for (int64_t i = 0; i < 64; i += 8) f(ub, X, Y, i);
    double worst = 0;
    for (int i = 0; i < 64; i++) {
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < 64; j++) mx = fmax(mx, X[i * 64 + j]);
      for (int j = 0; j < 64; j++) sum += exp((double)X[i * 64 + j] - mx);
      for (int j = 0; j < 64; j++) {
        double want = exp((double)X[i * 64 + j] - mx) / sum;
        worst = fmax(worst, fabs(Y[i * 64 + j] - want) / want);
      }
    }
    CHECK(worst < 1e-6);
  }
  pto_jit_destroy(jit);
}

/* f16 operands, k split in two: tmatmul, then tmatmul_acc in place. */
static const char kMatmul16[] =
    "pto.kernel cube @mm16(%A: tensor<32x64xf16>, %B: tensor<64x32xf16>, %C: tensor<32x32xf32>) {\n"
    "  %a0 = pto.tload %A[0, 0] : tensor<32x64xf16> -> !pto.tile<32x32xf16, mat, offset = 0>\n"
    "  %b0 = pto.tload %B[0, 0] : tensor<64x32xf16> -> !pto.tile<32x32xf16, mat, offset = 2048>\n"
    "  %a1 = pto.tload %A[0, 32] : tensor<32x64xf16> -> !pto.tile<32x32xf16, mat, offset = 4096>\n"
    "  %b1 = pto.tload %B[32, 0] : tensor<64x32xf16> -> !pto.tile<32x32xf16, mat, offset = 6144>\n"
    "  %l0 = pto.tmov %a0 : !pto.tile<32x32xf16, mat, offset = 0> -> !pto.tile<32x32xf16, left, offset = 0>\n"
    "  %r0 = pto.tmov %b0 : !pto.tile<32x32xf16, mat, offset = 2048> -> !pto.tile<32x32xf16, right, offset = 0>\n"
    "  %l1 = pto.tmov %a1 : !pto.tile<32x32xf16, mat, offset = 4096> -> !pto.tile<32x32xf16, left, offset = 2048>\n"
    "  %r1 = pto.tmov %b1 : !pto.tile<32x32xf16, mat, offset = 6144> -> !pto.tile<32x32xf16, right, offset = 2048>\n"
    "  %c0 = pto.tmatmul %l0, %r0 : !pto.tile<32x32xf16, left, offset = 0>, !pto.tile<32x32xf16, right, offset = 0> -> !pto.tile<32x32xf32, acc, offset = 0>\n"
    "  %c1 = pto.tmatmul_acc %c0, %l1, %r1 : !pto.tile<32x32xf32, acc, offset = 0>, !pto.tile<32x32xf16, left, offset = 2048>, !pto.tile<32x32xf16, right, offset = 2048> -> !pto.tile<32x32xf32, acc, offset = 0>\n"
    "  pto.tstore %c1, %C[0, 0] : !pto.tile<32x32xf32, acc, offset = 0> into tensor<32x32xf32>\n"
    "}\n";

TEST(f16_matmul_end_to_end) {
  PtoJit *jit;
  PtoJitModule *m = compile(kMatmul16, &jit);
  void *p = lookup(m, "mm16");
  CHECK(p != NULL);
  if (p) {
    void (*f)(void *, void *, void *, void *, uint16_t *, uint16_t *, float *);
    memcpy(&f, &p, sizeof p);
    static uint16_t A[32 * 64], Bm[64 * 32];
    static float C[32 * 32];
    static unsigned char l1[512 << 10], l0a[64 << 10], l0b[64 << 10], l0c[128 << 10];
    for (int i = 0; i < 32 * 64; i++) A[i] = pto_f32_to_f16_bits(rnd());
    for (int i = 0; i < 64 * 32; i++) Bm[i] = pto_f32_to_f16_bits(rnd());
    f(l1, l0a, l0b, l0c, A, Bm, C);
    int bad = 0;
    for (int i = 0; i < 32; i++)
      for (int j = 0; j < 32; j++) {
        double want = 0; /* f16 products are exact in f32 and double */
        for (int k = 0; k < 64; k++)
          want += (double)pto_f16_bits_to_f32(A[i * 64 + k]) *
                  pto_f16_bits_to_f32(Bm[k * 32 + j]);
        bad += !(fabs(C[i * 32 + j] - want) <= 1e-4);
      }
    CHECK(bad == 0);
  }
  pto_jit_destroy(jit);
}

RUN_TESTS(T(worked_example_end_to_end), T(softmax_end_to_end),
          T(f16_matmul_end_to_end))
