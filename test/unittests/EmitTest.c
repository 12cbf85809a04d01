/* The instruction-semantics emitters (lib/Target/LLVMIR/Emit.h), each
 * JIT-compiled and run on tiles inside one buffer (a memory space: tiles
 * at byte offsets, rows padded by a stride), against a C reference:
 * bit-exact for data movement, integers and correctly rounded float ops,
 * within the documented ulp bound for exp, log and tanh, and the
 * generated code checked for the host's vector registers. */
#include <float.h>
#include <llvm-c/Core.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "Target/LLVMIR/Emit.h"
#include "Test.h"
#include "pto/ExecutionEngine.h"
#include "pto/Float16.h"

static PtoJit *jit_;

/* ---- a kernel: void k(i8 *space, i64 rows, i64 cols) ---- */

typedef struct K {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  PtoEmit e;
  LLVMValueRef base, rows, cols;
} K;

static unsigned host_lanes(void) {
  return strcmp(pto_jit_get_vector_isa(jit_), "avx512f") == 0 ? 16 : 8;
}

static void k_begin(K *k) {
  k->ctx = LLVMContextCreate();
  k->mod = LLVMModuleCreateWithNameInContext("emit", k->ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(k->ctx);
  LLVMTypeRef params[3] = {LLVMPointerType(LLVMInt8TypeInContext(k->ctx), 0),
                           i64, i64};
  LLVMValueRef fn = LLVMAddFunction(
      k->mod, "k",
      LLVMFunctionType(LLVMVoidTypeInContext(k->ctx), params, 3, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(k->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(k->ctx, fn, "entry"));
  k->e = (PtoEmit){.ctx = k->ctx, .mod = k->mod, .b = b, .fn = fn, .lanes = host_lanes()};
  k->base = LLVMGetParam(fn, 0);
  k->rows = LLVMGetParam(fn, 1);
  k->cols = LLVMGetParam(fn, 2);
}

static PtoEmitTile k_tile(K *k, int64_t off, int64_t stride, PtoDType dt) {
  return pto_emit_tile(&k->e, k->base, pto_emit_i64(&k->e, off),
                       pto_emit_i64(&k->e, stride), dt);
}

/* The module's text (for the JIT or the assembly), the builder gone. */
static char *k_text(K *k) {
  LLVMBuildRetVoid(k->e.b);
  LLVMDisposeBuilder(k->e.b);
  char *s = LLVMPrintModuleToString(k->mod);
  LLVMContextDispose(k->ctx);
  return s;
}

typedef void (*KernelFn)(uint8_t *, int64_t, int64_t);
static KernelFn k_finish(K *k, int *failures_) {
  char *text = k_text(k);
  PtoError err = {{0}};
  PtoJitModule *m = pto_jit_compile(jit_, text, strlen(text), &err);
  LLVMDisposeMessage(text);
  void *p = m ? pto_jit_module_lookup(m, "k", &err) : NULL;
  if (!p) fprintf(stderr, "JIT: %s\n", err.msg);
  CHECK(p != NULL);
  KernelFn f = NULL;
  memcpy(&f, &p, sizeof p);
  return f;
}

/* ---- elements ---- */

enum { SPACE = 1 << 20, OFF_A = 0, OFF_B = 1 << 18, OFF_D = 2 << 18 };
static uint8_t space_[SPACE];

static uint64_t rng_ = 88172645463325252ULL;
static uint64_t rnd(void) {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_;
}
static float rndf(float lo, float hi) {
  return lo + (hi - lo) * (float)(rnd() >> 40) / (float)(1 << 24);
}

static bool is_fp(PtoDType dt) {
  return dt == PTO_DT_F32 || dt == PTO_DT_F16 || dt == PTO_DT_BF16;
}
static uint8_t *at(int64_t off, int64_t stride, PtoDType dt, int64_t r,
                   int64_t c) {
  return space_ + off + (r * stride + c) * (int64_t)pto_dtype_size(dt);
}
static float getf(PtoDType dt, const uint8_t *p) {
  uint16_t h;
  float f;
  switch (dt) {
  case PTO_DT_F16: memcpy(&h, p, 2); return pto_f16_bits_to_f32(h);
  case PTO_DT_BF16: memcpy(&h, p, 2); return pto_bf16_bits_to_f32(h);
  default: memcpy(&f, p, 4); return f;
  }
}
static void setf(PtoDType dt, uint8_t *p, float v) {
  uint16_t h;
  switch (dt) {
  case PTO_DT_F16: h = pto_f32_to_f16_bits(v); memcpy(p, &h, 2); break;
  case PTO_DT_BF16: h = pto_f32_to_bf16_bits(v); memcpy(p, &h, 2); break;
  default: memcpy(p, &v, 4); break;
  }
}
static int64_t geti(PtoDType dt, const uint8_t *p) {
  int8_t b;
  int16_t h;
  int32_t w;
  switch (dt) {
  case PTO_DT_I8: memcpy(&b, p, 1); return b;
  case PTO_DT_I16: memcpy(&h, p, 2); return h;
  default: memcpy(&w, p, 4); return w;
  }
}
static void seti(PtoDType dt, uint8_t *p, int64_t v) {
  /* wrap to the width (two's complement) */
  uint32_t u = (uint32_t)(uint64_t)v;
  memcpy(p, &u, pto_dtype_size(dt));
}

/* Random contents, with the float specials sprinkled in. */
static void fill(int64_t off, int64_t stride, PtoDType dt, int64_t rows,
                 int64_t cols, float lo, float hi, bool specials) {
  static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f};
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < stride; c++) {
      uint8_t *p = at(off, stride, dt, r, c);
      if (!is_fp(dt))
        seti(dt, p, (int64_t)rnd());
      else if (specials && rnd() % 11 == 0)
        setf(dt, p, sp[rnd() % 6]);
      else
        setf(dt, p, rndf(lo, hi));
    }
}

/* Same bits, or both NaN. */
static bool same_float(PtoDType dt, const uint8_t *got, float want) {
  uint8_t w[4];
  setf(dt, w, want);
  float g = getf(dt, got), wf = getf(dt, w);
  if (isnan(g) || isnan(wf)) return isnan(g) && isnan(wf);
  return memcmp(got, w, pto_dtype_size(dt)) == 0;
}

static float fmax_nan(float a, float b, bool mx) {
  if (isnan(a) || isnan(b)) return NAN;
  return mx ? (a >= b ? a : b) : (a <= b ? a : b);
}
static float ref_binf(PtoEmitBinary op, float a, float b) {
  switch (op) {
  case PTO_EMIT_BIN_ADD: return a + b;
  case PTO_EMIT_BIN_SUB: return a - b;
  case PTO_EMIT_BIN_MUL: return a * b;
  case PTO_EMIT_BIN_DIV: return a / b;
  case PTO_EMIT_BIN_MAX: return fmax_nan(a, b, true);
  case PTO_EMIT_BIN_MIN: return fmax_nan(a, b, false);
  }
  return 0;
}
static int64_t ref_bini(PtoEmitBinary op, int64_t a, int64_t b) {
  switch (op) {
  case PTO_EMIT_BIN_ADD: return a + b;
  case PTO_EMIT_BIN_SUB: return a - b;
  case PTO_EMIT_BIN_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
  case PTO_EMIT_BIN_MAX: return a >= b ? a : b;
  case PTO_EMIT_BIN_MIN: return a <= b ? a : b;
  default: return 0;
  }
}

static const PtoDType kDtypes[] = {PTO_DT_F32, PTO_DT_F16, PTO_DT_BF16,
                                   PTO_DT_I32, PTO_DT_I16, PTO_DT_I8};
/* a shape with whole vectors and a tail, rows padded */
enum { ROWS = 5, COLS = 45, STRIDE = 48 };

/* form: 0 tile-tile, 1 tile-scalar, 2 row-expand */
static void check_binary_form(int *failures_, int form) {
  for (size_t di = 0; di < sizeof kDtypes / sizeof kDtypes[0]; di++) {
    PtoDType dt = kDtypes[di];
    for (int op = 0; op <= PTO_EMIT_BIN_MIN; op++) {
      if (op == PTO_EMIT_BIN_DIV && !is_fp(dt)) continue;
      /* the scalar and row forms share the ops' code with the tile form:
       * two ops each are enough to cover how they get their operand */
      if (form != 0 && op != PTO_EMIT_BIN_SUB && op != PTO_EMIT_BIN_MAX)
        continue;
      K k;
      k_begin(&k);
      PtoEmitTile d = k_tile(&k, OFF_D, STRIDE, dt), a = k_tile(&k, OFF_A, STRIDE, dt);
      PtoEmitTile b = k_tile(&k, OFF_B, form == 2 ? 1 : STRIDE, dt);
      float sf = -1.5f;
      int64_t si = -7;
      PtoError err = {{0}};
      PtoResult r;
      if (form == 0) {
        r = pto_emit_binary(&k.e, op, d, a, b, k.rows, k.cols, &err);
      } else if (form == 1) {
        LLVMTypeRef ct = is_fp(dt) ? LLVMFloatTypeInContext(k.ctx)
                                   : LLVMIntTypeInContext(
                                         k.ctx, (unsigned)(8 * pto_dtype_size(dt)));
        LLVMValueRef s = is_fp(dt) ? LLVMConstReal(ct, sf)
                                   : LLVMConstInt(ct, (uint64_t)si, 1);
        r = pto_emit_binary_scalar(&k.e, op, d, a, s, k.rows, k.cols, &err);
      } else {
        r = pto_emit_row_expand(&k.e, op, d, a, b, k.rows, k.cols, &err);
      }
      CHECK(pto_succeeded(r));
      KernelFn f = k_finish(&k, failures_);
      if (!f) continue;
      fill(OFF_A, STRIDE, dt, ROWS, COLS, -8, 8, true);
      fill(OFF_B, form == 2 ? 1 : STRIDE, dt, ROWS, form == 2 ? 1 : COLS, -8, 8, true);
      memset(space_ + OFF_D, 0x5a, 1 << 16);
      f(space_, ROWS, COLS);
      int bad = 0;
      for (int64_t i = 0; i < ROWS; i++)
        for (int64_t j = 0; j < STRIDE; j++) {
          uint8_t *dp = at(OFF_D, STRIDE, dt, i, j);
          if (j >= COLS) { /* the padding stays untouched */
            bad += dp[0] != 0x5a;
            continue;
          }
          const uint8_t *ap = at(OFF_A, STRIDE, dt, i, j);
          const uint8_t *bp = form == 2 ? at(OFF_B, 1, dt, i, 0)
                                        : at(OFF_B, STRIDE, dt, i, j);
          if (is_fp(dt)) {
            float y = form == 1 ? sf : getf(dt, bp);
            bad += !same_float(dt, dp, ref_binf(op, getf(dt, ap), y));
          } else {
            int64_t y = form == 1 ? si : geti(dt, bp);
            uint8_t w[4];
            seti(dt, w, ref_bini(op, geti(dt, ap), y));
            bad += memcmp(dp, w, pto_dtype_size(dt)) != 0;
          }
        }
      if (bad)
        fprintf(stderr, "form %d %s %s: %d wrong\n", form,
                pto_emit_binary_name(op), pto_dtype_name(dt), bad);
      CHECK(bad == 0);
    }
  }
}

TEST(binary_bit_exact) { check_binary_form(failures_, 0); }
TEST(binary_scalar_bit_exact) { check_binary_form(failures_, 1); }
TEST(row_expand_bit_exact) { check_binary_form(failures_, 2); }

/* ---- unary ---- */

static KernelFn unary_kernel(int *failures_, PtoEmitUnary op, PtoDType dt) {
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  CHECK(pto_succeeded(pto_emit_unary(&k.e, op, k_tile(&k, OFF_D, STRIDE, dt),
                                     k_tile(&k, OFF_A, STRIDE, dt), k.rows,
                                     k.cols, &err)));
  return k_finish(&k, failures_);
}

TEST(unary_exact_ops) {
  for (int op = 0; op <= PTO_EMIT_UN_TANH; op++) {
    if (op == PTO_EMIT_UN_EXP || op == PTO_EMIT_UN_LOG || op == PTO_EMIT_UN_TANH)
      continue;
    for (size_t di = 0; di < sizeof kDtypes / sizeof kDtypes[0]; di++) {
      PtoDType dt = kDtypes[di];
      bool ints = op == PTO_EMIT_UN_RELU || op == PTO_EMIT_UN_ABS ||
                  op == PTO_EMIT_UN_NEG;
      if (!is_fp(dt) && !ints) continue;
      KernelFn f = unary_kernel(failures_, op, dt);
      if (!f) continue;
      fill(OFF_A, STRIDE, dt, ROWS, COLS, -4, 40, true);
      f(space_, ROWS, COLS);
      int bad = 0;
      for (int64_t i = 0; i < ROWS; i++)
        for (int64_t j = 0; j < COLS; j++) {
          const uint8_t *ap = at(OFF_A, STRIDE, dt, i, j);
          const uint8_t *dp = at(OFF_D, STRIDE, dt, i, j);
          if (is_fp(dt)) {
            float x = getf(dt, ap), y = 0;
            switch (op) {
            case PTO_EMIT_UN_SQRT: y = sqrtf(x); break;
            case PTO_EMIT_UN_RSQRT: y = 1.0f / sqrtf(x); break;
            case PTO_EMIT_UN_RECIP: y = 1.0f / x; break;
            case PTO_EMIT_UN_RELU: y = x < 0 ? 0.0f : x; break;
            case PTO_EMIT_UN_ABS: y = fabsf(x); break;
            case PTO_EMIT_UN_NEG: y = -x; break;
            }
            bad += !same_float(dt, dp, y);
          } else {
            int64_t x = geti(dt, ap), y = op == PTO_EMIT_UN_NEG ? -x
                                          : x < 0 ? (op == PTO_EMIT_UN_ABS ? -x : 0)
                                                  : x;
            uint8_t w[4];
            seti(dt, w, y);
            bad += memcmp(dp, w, pto_dtype_size(dt)) != 0;
          }
        }
      if (bad)
        fprintf(stderr, "%s %s: %d wrong\n", pto_emit_unary_name(op),
                pto_dtype_name(dt), bad);
      CHECK(bad == 0);
    }
  }
}

/* Distance in units in the last place, counting denormals as steps too;
 * NaN against NaN is 0, NaN against a number is huge. */
static int64_t ulps(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : INT64_MAX;
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  int64_t oa = ia < 0 ? (int64_t)INT32_MIN - ia : ia;
  int64_t ob = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
  return oa > ob ? oa - ob : ob - oa;
}

/* Over every 4099th float bit pattern (about a million, every sign,
 * exponent and class) and the edge cases, against libm in double rounded
 * once to f32. Returns the largest distance. */
static int64_t max_ulps(int *failures_, PtoEmitUnary op, double (*ref)(double),
                        float *worst) {
  static const float edges[] = {
      0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, FLT_MIN, -FLT_MIN,
      FLT_MAX, -FLT_MAX, 0x1p-149f, 0x1p-140f, -0x1p-149f, 88.72283f,
      88.7228394f, 88.72284f, 89.0f, -87.33654f, -87.3366f, -103.2789f,
      -103.9720f, -103.98f, -104.0f, -150.0f, 1e-30f, 0.625f, 0.62499994f,
      9.0f, -9.01f, 0.5f, 2.0f, 0x1.fffffep-1f, 0x1.000002p0f};
  enum { N = 1 << 16 };
  KernelFn f = unary_kernel(failures_, op, PTO_DT_F32);
  if (!f) return INT64_MAX;
  int64_t worst_d = 0;
  uint64_t bits = 0;
  size_t ne = sizeof edges / sizeof edges[0];
  bool done = false;
  while (!done) {
    /* one row of N inputs per call */
    float *in = (float *)(space_ + OFF_A), *out = (float *)(space_ + OFF_D);
    int64_t n = 0;
    if (bits == 0) {
      memcpy(in, edges, sizeof edges);
      n = (int64_t)ne;
    }
    for (; n < N && !done; n++, bits += 4099) {
      if (bits > UINT32_MAX) {
        done = true;
        break;
      }
      uint32_t b32 = (uint32_t)bits;
      memcpy(&in[n], &b32, 4);
    }
    f(space_, 1, n);
    for (int64_t i = 0; i < n; i++) {
      float want = (float)ref((double)in[i]);
      int64_t d = ulps(out[i], want);
      if (d > worst_d) {
        worst_d = d;
        *worst = in[i];
      }
    }
  }
  return worst_d;
}

TEST(transcendental_ulp_bounds) {
  static const struct {
    PtoEmitUnary op;
    double (*ref)(double);
  } fns[] = {{PTO_EMIT_UN_EXP, exp}, {PTO_EMIT_UN_LOG, log},
             {PTO_EMIT_UN_TANH, tanh}};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    float worst = 0;
    int64_t d = max_ulps(failures_, fns[i].op, fns[i].ref, &worst);
    printf("%s: at most %lld ulp (worst input %a)\n",
           pto_emit_unary_name(fns[i].op), (long long)d, (double)worst);
    CHECK(d <= 2); /* the bound Emit.h documents */
  }
}

/* A vector of exp whose every lane has |x| below about 87 takes the
 * short form (one scaling, no clamp); any other lane sends the whole
 * vector through the general one (pto_emit_exp_f32 on explicit vectors,
 * as a fused run has them). The two give the same bits: every 4099th
 * f32 with |x| < 89 (n = 127 and the denormal results of n = -126
 * included) and the edges of the short form's range, once in vectors of
 * their own and once with a NaN at every 8th column (so that every
 * vector, of 8 or 16 lanes, takes the general form), compared bit for
 * bit. */
TEST(exp_short_form_same_bits) {
  enum { N = 1 << 15 };
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  PtoEmitStep st = {.kind = PTO_EMIT_STEP_UNARY, .op = PTO_EMIT_UN_EXP,
                    .dst = k_tile(&k, OFF_D, STRIDE, PTO_DT_F32),
                    .a = k_tile(&k, OFF_A, STRIDE, PTO_DT_F32),
                    .dst_slot = 1, .a_slot = 0, .b_slot = -1, .store = true};
  unsigned bad_step = 0;
  CHECK(pto_succeeded(pto_emit_fused(&k.e, &st, 1, k.rows, k.cols, &bad_step, &err)));
  KernelFn f = k_finish(&k, failures_);
  if (!f) return;
  float *in = (float *)(space_ + OFF_A), *out = (float *)(space_ + OFF_D);
  static const float edges[] = {88.0f, 88.02969f, 88.3762626f, 88.37627f, 88.7f,
                                -87.0f, -87.3365f, -87.33655f, -87.6832f, -87.68f,
                                -87.9f, 0.0f, -0.0f, 0x1p-149f};
  static float xs[N], fast[N];
  int64_t bad = 0, compared = 0;
  uint64_t bits = 0;
  bool first = true;
  while (bits <= UINT32_MAX) {
    int64_t n = 0;
    if (first) {
      memcpy(xs, edges, sizeof edges);
      n = (int64_t)(sizeof edges / sizeof edges[0]);
      first = false;
    }
    for (; n < N && bits <= UINT32_MAX; bits += 4099) {
      uint32_t b32 = (uint32_t)bits;
      float x;
      memcpy(&x, &b32, 4);
      if (fabsf(x) < 89.0f) xs[n++] = x;
    }
    memcpy(in, xs, (size_t)n * 4);
    f(space_, 1, n);
    memcpy(fast, out, (size_t)n * 4);
    for (int64_t i = 0; i < n; i += 8) in[i] = NAN;
    f(space_, 1, n);
    for (int64_t i = 0; i < n; i++) {
      if (i % 8 == 0) {
        bad += !isnan(out[i]);
        continue;
      }
      compared++;
      bad += memcmp(&out[i], &fast[i], 4) != 0;
    }
  }
  printf("exp: %lld inputs, short and general forms differ on %lld\n",
         (long long)compared, (long long)bad);
  CHECK(compared > 100000);
  CHECK(bad == 0);
}

TEST(transcendentals_vectorise) {
  const char *isa = pto_jit_get_vector_isa(jit_);
  for (int op = PTO_EMIT_UN_EXP; op <= PTO_EMIT_UN_TANH; op++) {
    if (op != PTO_EMIT_UN_EXP && op != PTO_EMIT_UN_LOG && op != PTO_EMIT_UN_TANH &&
        op != PTO_EMIT_UN_SQRT)
      continue;
    K k;
    k_begin(&k);
    PtoError err = {{0}};
    pto_emit_unary(&k.e, op, k_tile(&k, OFF_D, STRIDE, PTO_DT_F32),
                   k_tile(&k, OFF_A, STRIDE, PTO_DT_F32), k.rows, k.cols, &err);
    char *text = k_text(&k);
    /* the long bodies ask not to be interleaved or unrolled (their
     * constants would spill); sqrt's short one may be; the loop over the
     * rows is never unrolled */
    bool long_body = op != PTO_EMIT_UN_SQRT;
    CHECK((strstr(text, "llvm.loop.interleave.count\", i32 1") != NULL) == long_body);
    CHECK(strstr(text, "llvm.loop.unroll.disable") != NULL);
    char *asm_text = NULL;
    CHECK(pto_succeeded(pto_jit_emit_assembly(jit_, text, strlen(text),
                                              &asm_text, &err)));
    LLVMDisposeMessage(text);
    if (!asm_text) continue;
    /* no call per element: no libm, no call at all */
    CHECK(strstr(asm_text, "call") == NULL);
    if (strcmp(isa, "avx512f") == 0 || strcmp(isa, "avx2") == 0) {
      bool wide = strstr(asm_text, "ymm") || strstr(asm_text, "zmm");
      if (!wide) fprintf(stderr, "%s not vectorised\n", pto_emit_unary_name(op));
      CHECK(wide);
    } else {
      printf("host vector ISA %s: no ymm/zmm check\n", isa);
    }
    pto_free(asm_text);
  }
}

/* The 8-bit float conversions (tcvt to and from f8E4M3FN, f8E5M2 and
 * f8E8M0FNU under every rounding mode, saturating or not) are integer
 * code the loop vectoriser widens: no call per element. Their values are
 * JitDiffTest's, bit for bit against the interpreter. */
TEST(f8_casts_vectorise) {
  const char *isa = pto_jit_get_vector_isa(jit_);
  static const PtoDType f8[] = {PTO_DT_F8E4M3, PTO_DT_F8E5M2, PTO_DT_F8E8M0};
  static const PtoRoundMode modes[] = {PTO_ROUND_RINT, PTO_ROUND_TRUNC, PTO_ROUND_FLOOR,
                                       PTO_ROUND_CEIL, PTO_ROUND_ROUND};
  for (unsigned f = 0; f < 3; f++)
    for (unsigned m = 0; m < 6; m++) { /* m == 5: from the 8-bit float */
      bool from = m == 5;
      PtoCastMode mode = {from ? PTO_ROUND_RINT : modes[m],
                          m % 2 ? PTO_SAT_SATURATE : PTO_SAT_WRAP};
      K k;
      k_begin(&k);
      PtoError err = {{0}};
      CHECK(pto_succeeded(pto_emit_cast(&k.e, mode,
                                        k_tile(&k, OFF_D, STRIDE, from ? PTO_DT_F32 : f8[f]),
                                        k_tile(&k, OFF_A, STRIDE, from ? f8[f] : PTO_DT_F32),
                                        k.rows, k.cols, &err)));
      char *text = k_text(&k);
      char *asm_text = NULL;
      CHECK(pto_succeeded(pto_jit_emit_assembly(jit_, text, strlen(text), &asm_text, &err)));
      LLVMDisposeMessage(text);
      if (!asm_text) continue;
      CHECK(strstr(asm_text, "call") == NULL);
      if (strcmp(isa, "avx512f") == 0 || strcmp(isa, "avx2") == 0) {
        bool wide = strstr(asm_text, "ymm") || strstr(asm_text, "zmm");
        if (!wide)
          fprintf(stderr, "tcvt %s %s %s not vectorised\n", from ? "from" : "to",
                  pto_dtype_name(f8[f]), pto_round_mode_name(mode.round));
        CHECK(wide);
      }
      pto_free(asm_text);
    }
}

/* ---- the exponential, logarithmic and hyperbolic functions ---- */

/* EmitMathExp.c's functions against libm's in double rounded once to the
 * dtype, as the Tile level computes them. */
static const struct {
  PtoEmitMath op;
  double (*ref)(double);
} kExpMath[] = {{PTO_EMIT_MATH_LOG2, log2},   {PTO_EMIT_MATH_LOG10, log10},
                {PTO_EMIT_MATH_LOG1P, log1p}, {PTO_EMIT_MATH_EXP2, exp2},
                {PTO_EMIT_MATH_EXPM1, expm1}, {PTO_EMIT_MATH_SINH, sinh},
                {PTO_EMIT_MATH_COSH, cosh},   {PTO_EMIT_MATH_ASINH, asinh},
                {PTO_EMIT_MATH_ACOSH, acosh}, {PTO_EMIT_MATH_ATANH, atanh},
                {PTO_EMIT_MATH_CBRT, cbrt}};

static KernelFn math_kernel(int *failures_, PtoEmitMath op, PtoDType dt, char **text_out) {
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  CHECK(pto_succeeded(pto_emit_math(&k.e, op, k_tile(&k, OFF_D, STRIDE, dt),
                                    k_tile(&k, OFF_A, STRIDE, dt), k.rows, k.cols, &err)));
  if (text_out) {
    *text_out = k_text(&k);
    return NULL;
  }
  return k_finish(&k, failures_);
}

/* The bits of element i of a row of dt as an ordered integer (NaN: a
 * marker that equals any other NaN). */
static int64_t ordered_bits(PtoDType dt, const uint8_t *p, int64_t i) {
  if (dt == PTO_DT_F32) {
    float f;
    memcpy(&f, p + 4 * i, 4);
    if (isnan(f)) return INT64_MIN;
    int32_t b;
    memcpy(&b, &f, 4);
    return b < 0 ? (int64_t)INT32_MIN - b : b;
  }
  uint16_t h;
  memcpy(&h, p + 2 * i, 2);
  if (isnan(pto_dtype_load_f64(dt, &h, 0))) return INT64_MIN;
  int16_t b = (int16_t)h;
  return b < 0 ? (int64_t)INT16_MIN - b : b;
}

/* Over every 4099th f32 bit pattern (every sign, exponent and class) and
 * the domain edges, or every f16 / bf16 bit pattern: the results that
 * differ from libm's rounded once (*wrong), the largest distance in ulps
 * (returned), and the inputs run (*total). */
static int64_t exp_math_sweep(int *failures_, PtoEmitMath op, double (*ref)(double),
                              PtoDType dt, int64_t *wrong, int64_t *total) {
  static const float edges[] = {
      0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -1.0f, 0x1.fffffep-1f,
      -0x1.fffffep-1f, 0x1.000002p0f, -0x1.000002p0f, 2.0f, 8.0f, 27.0f, 10.0f, 1000.0f,
      1e-30f, -1e-30f, 0x1p-149f, -0x1p-149f, FLT_MIN, FLT_MAX, -FLT_MAX, 0.25f,
      -0.25f, 0.24999999f, 1.0f - 0x1p-24f, 88.72283f, 89.4159851f, 89.42f, -89.42f,
      127.99999f, 128.0f, -149.0f, -150.0f, -151.0f, 0.5f, -0.5f, 3.0f, -3.0f};
  enum { N = 1 << 16 };
  KernelFn f = math_kernel(failures_, op, dt, NULL);
  *wrong = *total = 0;
  if (!f) return INT64_MAX;
  int64_t worst = 0;
  uint8_t *in = space_ + OFF_A, *out = space_ + OFF_D;
  uint8_t want[4];
  size_t ne = sizeof edges / sizeof edges[0];
  uint64_t bits = 0;
  for (bool done = false; !done;) {
    int64_t n = 0;
    if (dt != PTO_DT_F32) {
      for (; n < N; n++) memcpy(in + 2 * n, &(uint16_t){(uint16_t)n}, 2);
      done = true;
    } else {
      if (bits == 0) memcpy(in, edges, sizeof edges), n = (int64_t)ne;
      for (; n < N; n++, bits += 4099) {
        if (bits > UINT32_MAX) {
          done = true;
          break;
        }
        memcpy(in + 4 * n, &(uint32_t){(uint32_t)bits}, 4);
      }
    }
    f(space_, 1, n);
    for (int64_t i = 0; i < n; i++) {
      pto_dtype_store_f64(dt, want, 0, ref(pto_dtype_load_f64(dt, in, i)));
      int64_t w = ordered_bits(dt, want, 0), g = ordered_bits(dt, out, i);
      int64_t d = w == g ? 0 : w == INT64_MIN || g == INT64_MIN ? INT64_MAX
                               : w > g ? w - g : g - w;
      if (d && (*wrong)++ < 3)
        fprintf(stderr, "%s %s(%.9g): libm %.9g, compiled %.9g\n", pto_emit_math_name(op),
                pto_dtype_name(dt), pto_dtype_load_f64(dt, in, i),
                pto_dtype_load_f64(dt, want, 0), pto_dtype_load_f64(dt, out, i));
      if (d > worst) worst = d;
    }
    *total += n;
  }
  return worst;
}

TEST(exp_math_match_libm) {
  static const PtoDType dts[] = {PTO_DT_F32, PTO_DT_F16, PTO_DT_BF16};
  for (size_t i = 0; i < sizeof kExpMath / sizeof kExpMath[0]; i++)
    for (size_t d = 0; d < 3; d++) {
      int64_t wrong, total;
      int64_t worst = exp_math_sweep(failures_, kExpMath[i].op, kExpMath[i].ref, dts[d],
                                     &wrong, &total);
      printf("%s %s: %lld of %lld differ from libm rounded once, at most %lld ulp\n",
             pto_emit_math_name(kExpMath[i].op), pto_dtype_name(dts[d]), (long long)wrong,
             (long long)total, (long long)worst);
      /* the documented bound (docs/jit.md): 1 ulp, on fewer than 1 in 10^5 */
      CHECK(worst <= 1);
      CHECK(wrong * 100000 <= total);
    }
}

TEST(exp_math_vectorises) {
  const char *isa = pto_jit_get_vector_isa(jit_);
  for (size_t i = 0; i < sizeof kExpMath / sizeof kExpMath[0]; i++) {
    char *text = NULL;
    math_kernel(failures_, kExpMath[i].op, PTO_DT_F32, &text);
    PtoError err = {{0}};
    char *asm_text = NULL;
    CHECK(pto_succeeded(pto_jit_emit_assembly(jit_, text, strlen(text), &asm_text, &err)));
    LLVMDisposeMessage(text);
    if (!asm_text) continue;
    /* no libm, no call at all */
    bool call = strstr(asm_text, "call") != NULL;
    bool wide = strstr(asm_text, "ymm") || strstr(asm_text, "zmm");
    if (call || !wide)
      fprintf(stderr, "%s: %s\n", pto_emit_math_name(kExpMath[i].op),
              call ? "calls a function" : "not vectorised");
    CHECK(!call);
    if (strcmp(isa, "avx512f") == 0 || strcmp(isa, "avx2") == 0) CHECK(wide);
    pto_free(asm_text);
  }
}

/* ---- reductions ---- */

TEST(row_reduce) {
  static const int64_t shapes[][2] = {{3, 45}, {4, 7}, {2, 64}, {1, 1000}};
  for (size_t di = 0; di < sizeof kDtypes / sizeof kDtypes[0]; di++) {
    PtoDType dt = kDtypes[di];
    for (int op = 0; op <= PTO_EMIT_RED_MIN; op++) {
      K k;
      k_begin(&k);
      PtoError err = {{0}};
      CHECK(pto_succeeded(pto_emit_row_reduce(
          &k.e, op, k_tile(&k, OFF_D, 1, dt), k_tile(&k, OFF_A, 1000, dt),
          k.rows, k.cols, &err)));
      KernelFn f = k_finish(&k, failures_);
      if (!f) continue;
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t rows = shapes[s][0], cols = shapes[s][1];
        fill(OFF_A, 1000, dt, rows, 1000, -3, 5, false);
        if (is_fp(dt) && op != PTO_EMIT_RED_SUM && cols > 10) /* NaN wins */
          setf(dt, at(OFF_A, 1000, dt, 0, 9), NAN);
        f(space_, rows, cols);
        int bad = 0;
        for (int64_t r = 0; r < rows; r++) {
          const uint8_t *dp = at(OFF_D, 1, dt, r, 0);
          if (is_fp(dt)) {
            double acc = op == PTO_EMIT_RED_SUM ? 0 : op == PTO_EMIT_RED_MAX ? -INFINITY : INFINITY;
            double mag = 0;
            for (int64_t c = 0; c < cols; c++) {
              float x = getf(dt, at(OFF_A, 1000, dt, r, c));
              if (op == PTO_EMIT_RED_SUM) acc += x, mag += fabs(x);
              else acc = fmax_nan((float)acc, x, op == PTO_EMIT_RED_MAX);
            }
            if (op == PTO_EMIT_RED_SUM) {
              /* f32 partial sums, then rounded to the tile's type */
              double tol = mag * 1e-5 + fabs(acc) * (dt == PTO_DT_F32 ? 1e-6 : 1e-2);
              bad += !(fabs(getf(dt, dp) - acc) <= tol);
            } else {
              bad += !same_float(dt, dp, (float)acc);
            }
          } else {
            int64_t acc = op == PTO_EMIT_RED_SUM ? 0 : geti(dt, at(OFF_A, 1000, dt, r, 0));
            for (int64_t c = op == PTO_EMIT_RED_SUM ? 0 : 1; c < cols; c++) {
              int64_t x = geti(dt, at(OFF_A, 1000, dt, r, c));
              acc = op == PTO_EMIT_RED_SUM ? acc + x
                    : op == PTO_EMIT_RED_MAX ? (x > acc ? x : acc)
                                             : (x < acc ? x : acc);
            }
            uint8_t w[4];
            seti(dt, w, acc);
            bad += memcmp(dp, w, pto_dtype_size(dt)) != 0;
          }
        }
        if (bad)
          fprintf(stderr, "row%s %s %lldx%lld: %d wrong\n",
                  pto_emit_reduce_name(op), pto_dtype_name(dt),
                  (long long)rows, (long long)cols, bad);
        CHECK(bad == 0);
      }
    }
  }
}

/* An f32 row sum in the order Emit.h documents (pto_emit_reduce_vectors):
 * whole vectors of `lanes` round-robin into PTO_EMIT_REDUCE_CHAINS
 * accumulators while a group remains, the rest into the first; chains
 * (0 + 1) + (2 + 3); the lanes by halves; the remaining columns in
 * order. chains = 1 gives the order of one accumulator. */
static float model_row_sum(const float *x, int64_t cols, unsigned lanes, unsigned chains) {
  float acc[PTO_EMIT_REDUCE_CHAINS][16] = {{0}};
  int64_t vend = cols / lanes * lanes, group = (int64_t)chains * lanes;
  int64_t gend = vend / group * group, c = 0;
  for (; c < gend; c += group)
    for (unsigned k = 0; k < chains; k++)
      for (unsigned l = 0; l < lanes; l++) acc[k][l] += x[c + k * lanes + l];
  for (; c < vend; c += lanes)
    for (unsigned l = 0; l < lanes; l++) acc[0][l] += x[c + l];
  float v[16];
  for (unsigned l = 0; l < lanes; l++)
    v[l] = chains == 1 ? acc[0][l] : (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
  for (unsigned w = lanes / 2; w >= 1; w /= 2)
    for (unsigned l = 0; l < w; l++) v[l] = v[l] + v[l + w];
  float s = v[0];
  for (; c < cols; c++) s += x[c];
  return s;
}

/* Row sums of f32 are the documented order's bits exactly, on inputs
 * whose sum depends on the order (a wide range of magnitudes), fused or
 * not (FuseTest compares the two); the inputs tell the documented order
 * from one accumulator's. */
TEST(row_sum_order) {
  static const int64_t widths[] = {37, 100, 300, 1000, 4096};
  unsigned lanes = host_lanes();
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  CHECK(pto_succeeded(pto_emit_row_reduce(&k.e, PTO_EMIT_RED_SUM,
                                          k_tile(&k, OFF_D, 1, PTO_DT_F32),
                                          k_tile(&k, OFF_A, 4096, PTO_DT_F32), k.rows,
                                          k.cols, &err)));
  KernelFn f = k_finish(&k, failures_);
  if (!f) return;
  float *in = (float *)(space_ + OFF_A), *out = (float *)(space_ + OFF_D);
  uint32_t seed = 12345;
  for (int64_t i = 0; i < 4 * 4096; i++) {
    seed = seed * 1664525u + 1013904223u;
    /* sign, and a magnitude from 2^-12 to 2^12 */
    in[i] = ldexpf((float)(seed >> 8 & 0xffff) / 65536.0f + 0.5f, (int)(seed >> 24) % 25 - 12) *
            (seed & 1 ? -1.0f : 1.0f);
  }
  int wrong = 0, distinct = 0;
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    f(space_, 4, widths[w]);
    for (int64_t r = 0; r < 4; r++) {
      float want = model_row_sum(in + r * 4096, widths[w], lanes, PTO_EMIT_REDUCE_CHAINS);
      wrong += memcmp(&out[r], &want, sizeof want) != 0;
      float one = model_row_sum(in + r * 4096, widths[w], lanes, 1);
      distinct += memcmp(&one, &want, sizeof one) != 0;
    }
  }
  if (wrong) fprintf(stderr, "row sums: %d of 20 differ from the documented order\n", wrong);
  CHECK(wrong == 0);
  CHECK(distinct > 0);
}

/* Column reductions fold rows in order, so even float sums are exact
 * against the same order in C. */
TEST(col_reduce) {
  for (size_t di = 0; di < sizeof kDtypes / sizeof kDtypes[0]; di++) {
    PtoDType dt = kDtypes[di];
    for (int op = 0; op <= PTO_EMIT_RED_MIN; op++) {
      bool half = dt == PTO_DT_F16 || dt == PTO_DT_BF16;
      K k;
      k_begin(&k);
      PtoError err = {{0}};
      PtoResult r = pto_emit_col_reduce(&k.e, op, k_tile(&k, OFF_D, STRIDE, dt),
                                        k_tile(&k, OFF_A, STRIDE, dt), k.rows,
                                        k.cols, &err);
      if (op == PTO_EMIT_RED_SUM && half) {
        CHECK(pto_failed(r) && strstr(err.msg, "column sum") != NULL);
        LLVMDisposeMessage(k_text(&k)); /* nothing was emitted */
        continue;
      }
      CHECK(pto_succeeded(r));
      KernelFn f = k_finish(&k, failures_);
      if (!f) continue;
      fill(OFF_A, STRIDE, dt, ROWS, COLS, -8, 8, true);
      f(space_, ROWS, COLS);
      int bad = 0;
      for (int64_t j = 0; j < COLS; j++) {
        const uint8_t *dp = at(OFF_D, STRIDE, dt, 0, j);
        if (is_fp(dt)) {
          float acc = getf(dt, at(OFF_A, STRIDE, dt, 0, j));
          for (int64_t i = 1; i < ROWS; i++) {
            float x = getf(dt, at(OFF_A, STRIDE, dt, i, j));
            acc = op == PTO_EMIT_RED_SUM ? acc + x : fmax_nan(acc, x, op == PTO_EMIT_RED_MAX);
          }
          bad += !same_float(dt, dp, acc);
        } else {
          int64_t acc = geti(dt, at(OFF_A, STRIDE, dt, 0, j));
          for (int64_t i = 1; i < ROWS; i++) {
            int64_t x = geti(dt, at(OFF_A, STRIDE, dt, i, j));
            acc = op == PTO_EMIT_RED_SUM ? acc + x
                  : op == PTO_EMIT_RED_MAX ? (x > acc ? x : acc)
                                           : (x < acc ? x : acc);
          }
          uint8_t w[4];
          seti(dt, w, acc);
          bad += memcmp(dp, w, pto_dtype_size(dt)) != 0;
        }
      }
      if (bad)
        fprintf(stderr, "col%s %s: %d wrong\n", pto_emit_reduce_name(op),
                pto_dtype_name(dt), bad);
      CHECK(bad == 0);
    }
  }
}

/* ---- casts and copies ---- */

static int64_t ref_f2i(float x, PtoCastMode m, PtoDType to) {
  double v = x;
  switch (m.round) {
  case PTO_ROUND_RINT: v = nearbyint(v); break;
  case PTO_ROUND_ROUND: v = round(v); break;
  case PTO_ROUND_FLOOR: v = floor(v); break;
  case PTO_ROUND_CEIL: v = ceil(v); break;
  default: v = trunc(v); break;
  }
  if (isnan(v)) return 0;
  if (m.sat == PTO_SAT_SATURATE) {
    if (v < (double)pto_dtype_int_min(to)) return pto_dtype_int_min(to);
    if (v > (double)pto_dtype_int_max(to)) return pto_dtype_int_max(to);
    return (int64_t)v;
  }
  if (!(fabs(v) < 0x1p63)) return 0;
  return (int64_t)v; /* seti wraps it */
}

TEST(casts) {
  static const PtoCastMode modes[] = {
      {PTO_ROUND_DEFAULT, PTO_SAT_WRAP}, {PTO_ROUND_RINT, PTO_SAT_SATURATE},
      {PTO_ROUND_FLOOR, PTO_SAT_WRAP}, {PTO_ROUND_ROUND, PTO_SAT_SATURATE},
      {PTO_ROUND_CEIL, PTO_SAT_WRAP}};
  for (size_t fi = 0; fi < sizeof kDtypes / sizeof kDtypes[0]; fi++)
    for (size_t ti = 0; ti < sizeof kDtypes / sizeof kDtypes[0]; ti++)
      for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        PtoDType from = kDtypes[fi], to = kDtypes[ti];
        PtoCastMode m = modes[mi];
        bool f2i = is_fp(from) && !is_fp(to);
        /* rounding modes matter for f2i only, and are the same code for
         * every pair */
        if (mi > 1 && !(from == PTO_DT_F32 && to == PTO_DT_I32)) continue;
        if (!f2i && m.sat == PTO_SAT_SATURATE && is_fp(to)) continue;
        if (!f2i && m.round == PTO_ROUND_RINT && !is_fp(from) && !is_fp(to))
          m.round = PTO_ROUND_DEFAULT;
        K k;
        k_begin(&k);
        PtoError err = {{0}};
        PtoResult r = pto_emit_cast(&k.e, m, k_tile(&k, OFF_D, STRIDE, to),
                                    k_tile(&k, OFF_A, STRIDE, from), k.rows,
                                    k.cols, &err);
        if (pto_failed(r)) fprintf(stderr, "cast: %s\n", err.msg);
        CHECK(pto_succeeded(r));
        KernelFn f = k_finish(&k, failures_);
        if (!f) continue;
        fill(OFF_A, STRIDE, from, ROWS, COLS, -70000, 70000, true);
        if (is_fp(from)) /* also huge ones and halves */
          for (int64_t j = 0; j < COLS; j += 3) {
            setf(from, at(OFF_A, STRIDE, from, 1, j), rndf(-1e12f, 1e12f));
            setf(from, at(OFF_A, STRIDE, from, 2, j), (float)(int)rndf(-9, 9) + 0.5f);
          }
        f(space_, ROWS, COLS);
        int bad = 0;
        for (int64_t i = 0; i < ROWS; i++)
          for (int64_t j = 0; j < COLS; j++) {
            const uint8_t *ap = at(OFF_A, STRIDE, from, i, j);
            const uint8_t *dp = at(OFF_D, STRIDE, to, i, j);
            uint8_t w[4];
            if (is_fp(to)) {
              float x = is_fp(from) ? getf(from, ap) : (float)geti(from, ap);
              bad += !same_float(to, dp, x);
              continue;
            }
            int64_t y;
            if (f2i) {
              y = ref_f2i(getf(from, ap), m, to);
            } else {
              y = geti(from, ap);
              if (m.sat == PTO_SAT_SATURATE && y < pto_dtype_int_min(to)) y = pto_dtype_int_min(to);
              if (m.sat == PTO_SAT_SATURATE && y > pto_dtype_int_max(to)) y = pto_dtype_int_max(to);
            }
            seti(to, w, y);
            bad += memcmp(dp, w, pto_dtype_size(to)) != 0;
          }
        if (bad)
          fprintf(stderr, "cast %s -> %s (%s, %s): %d wrong\n",
                  pto_dtype_name(from), pto_dtype_name(to),
                  pto_round_mode_name(m.round), pto_sat_mode_name(m.sat), bad);
        CHECK(bad == 0);
      }
}

/* tload/tstore/tmov, the streaming tstore and ttrans: any bits (NaN
 * payloads too) arrive as they left, between tiles of different strides,
 * and nothing between the destination's rows changes. */
enum { MOVE_COPY, MOVE_STREAM, MOVE_TRANSPOSE };
static void check_moves(int *failures_, int how) {
  bool transpose = how == MOVE_TRANSPOSE;
  for (size_t di = 0; di < sizeof kDtypes / sizeof kDtypes[0]; di++) {
    PtoDType dt = kDtypes[di];
    K k;
    k_begin(&k);
    PtoError err = {{0}};
    /* src ROWS x COLS (stride STRIDE); dst the same (stride STRIDE + 5,
     * so that its rows start at every alignment) or COLS x ROWS (stride
     * ROWS + 3) */
    PtoEmitTile src = k_tile(&k, OFF_A, STRIDE, dt);
    int64_t ds = transpose ? ROWS + 3 : STRIDE + 5;
    PtoEmitTile dst = k_tile(&k, OFF_D, ds, dt);
    CHECK(pto_succeeded(
        how == MOVE_TRANSPOSE ? pto_emit_transpose(&k.e, dst, src, k.rows, k.cols, &err)
        : how == MOVE_STREAM  ? pto_emit_copy_streaming(&k.e, dst, src, k.rows, k.cols, &err)
                              : pto_emit_copy(&k.e, dst, src, k.rows, k.cols, &err)));
    KernelFn f = k_finish(&k, failures_);
    if (!f) continue;
    for (size_t i = 0; i < (size_t)(ROWS * STRIDE) * 4; i++)
      space_[OFF_A + i] = (uint8_t)rnd();
    memset(space_ + OFF_D, 0xa5, (size_t)(COLS * ds) * 4);
    f(space_, ROWS, COLS);
    int bad = 0;
    for (int64_t i = 0; i < ROWS; i++)
      for (int64_t j = 0; j < COLS; j++)
        bad += memcmp(transpose ? at(OFF_D, ds, dt, j, i) : at(OFF_D, ds, dt, i, j),
                      at(OFF_A, STRIDE, dt, i, j), pto_dtype_size(dt)) != 0;
    for (int64_t i = 0; i < ROWS && !transpose; i++)
      for (int64_t j = COLS; j < ds; j++)
        bad += *at(OFF_D, ds, dt, i, j) != 0xa5;
    CHECK(bad == 0);
  }
}
TEST(copy_keeps_every_bit) { check_moves(failures_, MOVE_COPY); }
TEST(streaming_copy_keeps_every_bit) { check_moves(failures_, MOVE_STREAM); }
TEST(transpose_keeps_every_bit) { check_moves(failures_, MOVE_TRANSPOSE); }

/* ---- matmul ---- */

/* The cube's (C, A, B) combinations. */
static const PtoDType kMatmulTypes[][2] = {{PTO_DT_F32, PTO_DT_F32},
                                           {PTO_DT_F32, PTO_DT_F16},
                                           {PTO_DT_F32, PTO_DT_BF16},
                                           {PTO_DT_I32, PTO_DT_I8}};

static KernelFn matmul_kernel(int *failures_, PtoDType ct, PtoDType at,
                              int64_t m, int64_t kk, int64_t n, bool acc,
                              int64_t sa, int64_t sb, int64_t sc) {
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  CHECK(pto_succeeded(pto_emit_matmul(
      &k.e, k_tile(&k, OFF_D, sc, ct), k_tile(&k, OFF_A, sa, at),
      k_tile(&k, OFF_B, sb, at), m, kk, n, acc, &err)));
  return k_finish(&k, failures_);
}

static double elem(PtoDType dt, int64_t off, int64_t stride, int64_t r,
                   int64_t c) {
  const uint8_t *p = at(off, stride, dt, r, c);
  return is_fp(dt) ? (double)getf(dt, p) : (double)geti(dt, p);
}

TEST(matmul) {
  static const int64_t shapes[][3] = {{6, 16, 16}, {13, 7, 37}, {64, 64, 64},
                                      {1, 5, 3},   {12, 0, 32}, {30, 33, 100},
                                      {7, 128, 17}, {12, 600, 40},
                                      {18, 256, 33}};
  for (size_t ty = 0; ty < sizeof kMatmulTypes / sizeof kMatmulTypes[0]; ty++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (int acc = 0; acc < 2; acc++) {
        PtoDType ct = kMatmulTypes[ty][0], at_ = kMatmulTypes[ty][1];
        /* every shape for f32, a few for the others (k beyond one
         * packed run of B among them) */
        if (ty > 0 && s != 1 && s != 2 && s != 6 && s != 7) continue;
        int64_t m = shapes[s][0], kk = shapes[s][1], n = shapes[s][2];
        int64_t sa = kk + 1, sb = n + 2, sc = n + 3;
        KernelFn f = matmul_kernel(failures_, ct, at_, m, kk, n, acc, sa, sb, sc);
        if (!f) continue;
        fill(OFF_A, sa, at_, m, sa, -1, 1, false);
        fill(OFF_B, sb, at_, kk, sb, -1, 1, false);
        fill(OFF_D, sc, ct, m, sc, -1, 1, false);
        static double want[128 * 128];
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++) {
            double x = acc ? elem(ct, OFF_D, sc, i, j) : 0;
            for (int64_t p = 0; p < kk; p++)
              x += elem(at_, OFF_A, sa, i, p) * elem(at_, OFF_B, sb, p, j);
            want[i * n + j] = x;
          }
        f(space_, 0, 0);
        int bad = 0;
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++) {
            double got = elem(ct, OFF_D, sc, i, j);
            if (ct == PTO_DT_I32) /* exact, wrapping to 32 bits */
              bad += (int32_t)(int64_t)got != (int32_t)(int64_t)want[i * n + j];
            else
              bad += !(fabs(got - want[i * n + j]) <= 1e-5 * (double)(kk + 1));
          }
        if (bad)
          fprintf(stderr, "matmul %s = %s %lldx%lldx%lld acc=%d: %d wrong\n",
                  pto_dtype_name(ct), pto_dtype_name(at_), (long long)m,
                  (long long)kk, (long long)n, acc, bad);
        CHECK(bad == 0);
      }
}

TEST(matmul_uses_vector_fma) {
  const char *isa = pto_jit_get_vector_isa(jit_);
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  pto_emit_matmul(&k.e, k_tile(&k, OFF_D, 64, PTO_DT_F32),
                  k_tile(&k, OFF_A, 64, PTO_DT_F32),
                  k_tile(&k, OFF_B, 64, PTO_DT_F32), 60, 64, 64, false, &err);
  char *text = k_text(&k);
  char *asm_text = NULL;
  CHECK(pto_succeeded(pto_jit_emit_assembly(jit_, text, strlen(text), &asm_text, &err)));
  LLVMDisposeMessage(text);
  if (asm_text && (strcmp(isa, "avx2") == 0 || strcmp(isa, "avx512f") == 0))
    CHECK((strstr(asm_text, "vfmadd") || strstr(asm_text, "vmulps")) &&
          strstr(asm_text, "vbroadcastss"));
  pto_free(asm_text);
}

TEST(matmuls_share_one_pack_buffer) {
  /* B's packing buffer is a stack slot of the function, not one per
   * tmatmul: a kernel of many matmuls must not grow its frame with them */
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  for (int acc = 0; acc < 3; acc++)
    CHECK(pto_succeeded(pto_emit_matmul(&k.e, k_tile(&k, OFF_D, 64, PTO_DT_F32),
                                        k_tile(&k, OFF_A, 64, PTO_DT_F32),
                                        k_tile(&k, OFF_B, 64, PTO_DT_F32), 12,
                                        64, 64, acc > 0, &err)));
  char *text = k_text(&k);
  int allocas = 0;
  for (const char *p = text; (p = strstr(p, " alloca ")) != NULL; p++) allocas++;
  CHECK(allocas == 1);
  LLVMDisposeMessage(text);
}

/* A fused run with a prefetch step: the prefetch (of the next rows'
 * window, as the translation puts it) changes no result, and it may use
 * no slot of the run. */
TEST(fused_prefetch) {
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  PtoEmitStep st[2] = {
      {.kind = PTO_EMIT_STEP_PREFETCH, .a = k_tile(&k, OFF_A + ROWS * STRIDE * 4, STRIDE,
                                                   PTO_DT_F32),
       .dst_slot = -1, .a_slot = -1, .b_slot = -1},
      {.kind = PTO_EMIT_STEP_UNARY, .op = PTO_EMIT_UN_NEG,
       .dst = k_tile(&k, OFF_D, STRIDE, PTO_DT_F32), .a = k_tile(&k, OFF_A, STRIDE, PTO_DT_F32),
       .dst_slot = 1, .a_slot = 0, .b_slot = -1, .store = true}};
  unsigned bad = 9;
  st[0].a_slot = 0;
  CHECK(pto_failed(pto_emit_fused(&k.e, st, 2, k.rows, k.cols, &bad, &err)));
  CHECK_STR(err.msg, "a fused prefetch uses no slot of the run");
  CHECK(bad == 0);
  st[0].a_slot = -1;
  CHECK(pto_succeeded(pto_emit_fused(&k.e, st, 2, k.rows, k.cols, &bad, &err)));
  KernelFn f = k_finish(&k, failures_);
  if (!f) return;
  float *in = (float *)(space_ + OFF_A), *out = (float *)(space_ + OFF_D);
  for (int i = 0; i < ROWS * STRIDE; i++) in[i] = (float)i - 100.5f;
  f(space_, ROWS, COLS);
  int64_t wrong = 0;
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) wrong += out[r * STRIDE + c] != -in[r * STRIDE + c];
  CHECK(wrong == 0);
}

/* ---- what the emitters refuse ---- */

TEST(unsupported_is_an_error) {
  K k;
  k_begin(&k);
  PtoError err = {{0}};
  PtoEmitTile i32 = k_tile(&k, 0, 8, PTO_DT_I32), f32 = k_tile(&k, 64, 8, PTO_DT_F32);
  CHECK(pto_failed(pto_emit_unary(&k.e, PTO_EMIT_UN_EXP, i32, i32, k.rows, k.cols, &err)));
  CHECK_STR(err.msg, "exp takes float tiles, not i32");
  CHECK(pto_failed(pto_emit_binary(&k.e, PTO_EMIT_BIN_ADD, f32, f32, i32, k.rows, k.cols, &err)));
  CHECK_STR(err.msg, "add needs tiles of one element type, not f32 and i32");
  CHECK(pto_failed(pto_emit_matmul(&k.e, f32, i32, i32, 4, 4, 4, false, &err)));
  CHECK_STR(err.msg, "matmul of f32 = i32 x i32 is not one the cube has: (f32, f32, f32), "
                     "(f32, f16, f16), (f32, bf16, bf16) or (i32, i8, i8)");
  PtoCastMode odd = {PTO_ROUND_ODD, PTO_SAT_WRAP};
  CHECK(pto_failed(pto_emit_cast(&k.e, odd, f32, i32, k.rows, k.cols, &err)));
  CHECK_STR(err.msg, "a cast from i32 to f32 rounding 'odd' has no LLVM translation yet");
  PtoEmitTile f64 = k_tile(&k, 0, 8, PTO_DT_F64);
  CHECK(pto_failed(pto_emit_copy(&k.e, f64, f64, k.rows, k.cols, &err)));
  CHECK_STR(err.msg, "copy on f64 tiles has no LLVM translation yet");
  /* element types in the IR's spelling: ui32, i1, f8E4M3FN (not u32,
   * bool, f8e4m3) */
  PtoEmitTile u32 = k_tile(&k, 0, 8, PTO_DT_U32), i1 = k_tile(&k, 0, 8, PTO_DT_BOOL),
              f8 = k_tile(&k, 0, 8, PTO_DT_F8E4M3);
  CHECK(pto_failed(pto_emit_unary(&k.e, PTO_EMIT_UN_EXP, u32, u32, k.rows, k.cols, &err)));
  CHECK_STR(err.msg, "exp takes float tiles, not ui32");
  CHECK(pto_failed(pto_emit_binary(&k.e, PTO_EMIT_BIN_ADD, u32, u32, i1, k.rows, k.cols, &err)));
  CHECK_STR(err.msg, "add needs tiles of one element type, not ui32 and i1");
  CHECK(pto_failed(pto_emit_matmul(&k.e, f32, f8, f8, 4, 4, 4, false, &err)));
  CHECK_STR(err.msg, "matmul of f32 = f8E4M3FN x f8E4M3FN is not one the cube has: (f32, f32, "
                     "f32), (f32, f16, f16), (f32, bf16, bf16) or (i32, i8, i8)");
  /* nothing half-built: the function still verifies */
  char *text = k_text(&k);
  PtoJitModule *m = pto_jit_compile(jit_, text, strlen(text), &err);
  CHECK(m != NULL);
  LLVMDisposeMessage(text);
}

static void setup(int *failures_) {
  PtoError err = {{0}};
  /* LLVM's O2 whatever PTO_JIT_OPT_LEVEL says: the test checks that the
   * emitters' loops vectorise there */
  PtoJitOptions opts = {.opt_level = 2};
  jit_ = pto_jit_create(&opts, &err);
  if (!jit_) fprintf(stderr, "%s\n", err.msg);
  CHECK(jit_ != NULL);
  if (!jit_) exit(1);
  printf("host: %s, %s\n", pto_jit_get_cpu_name(jit_), pto_jit_get_vector_isa(jit_));
}
static void teardown(int *failures_) {
  PtoJitStats s = pto_jit_get_stats(jit_);
  printf("%llu modules compiled in %.3f s\n", (unsigned long long)s.compiled,
         s.compile_seconds);
  CHECK(s.compiled > 0);
  pto_jit_destroy(jit_);
}
TEST(setup) { setup(failures_); }
TEST(teardown) { teardown(failures_); }

RUN_TESTS(T(setup), T(binary_bit_exact), T(binary_scalar_bit_exact),
          T(row_expand_bit_exact), T(unary_exact_ops),
          T(transcendental_ulp_bounds), T(exp_short_form_same_bits), T(transcendentals_vectorise), T(f8_casts_vectorise),
          T(exp_math_match_libm), T(exp_math_vectorises),
          T(row_reduce), T(row_sum_order), T(col_reduce), T(transpose_keeps_every_bit), T(casts), T(copy_keeps_every_bit),
          T(streaming_copy_keeps_every_bit), T(matmul), T(matmuls_share_one_pack_buffer),
          T(matmul_uses_vector_fma), T(fused_prefetch), T(unsupported_is_an_error), T(teardown))
