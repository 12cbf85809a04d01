/* Elementwise kernels: unary math, binary arithmetic and comparisons with
 * broadcasting, where, and pypto.cast's conversions (DType.h's). Rows are
 * processed in chunks: load into a double (or int64) buffer, one tight
 * loop per op, store with rounding. */
#include "Kernels/KernelUtil.h"

#include "Support/Alloc.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Unary: one chunk function per row of UnaryOps.def                   */
/* ------------------------------------------------------------------ */

typedef void (*UnaryF64)(double *v, int64_t n, const double *p);
typedef void (*UnaryI64)(int64_t *v, int64_t n, const double *p);

/* A chunk function computing EXPR of each element x of type T (double:
 * float dtypes; int64_t: integer dtypes, modulo 2^64, the store wrapping
 * to the width), with the parameters in p[0], p[1]. */
#define UNARY_FN(NAME, T, EXPR)                                             \
  static void NAME(T *v, int64_t n, const double *p) {                      \
    (void)p;                                                                \
    for (int64_t i = 0; i < n; i++) {                                       \
      T x = v[i];                                                           \
      v[i] = (EXPR);                                                        \
    }                                                                       \
  }
#define UNARY_F(NAME, EXPR) UNARY_FN(NAME, double, EXPR)
#define UNARY_I(NAME, EXPR) UNARY_FN(NAME, int64_t, EXPR)

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

UNARY_F(u_abs, fabs(x))
UNARY_F(u_neg, -x)
UNARY_F(u_exp, exp(x))
UNARY_F(u_log, log(x))
UNARY_F(u_sqrt, sqrt(x))
UNARY_F(u_rsqrt, 1.0 / sqrt(x))
UNARY_F(u_reciprocal, 1.0 / x)
UNARY_F(u_relu, x < 0 ? 0.0 : x)
UNARY_F(u_sigmoid, sigmoid(x))
UNARY_F(u_tanh, tanh(x))
UNARY_F(u_silu, x * sigmoid(x))
UNARY_F(u_gelu, 0.5 * x * (1.0 + erf(x * 0.70710678118654752440)))
UNARY_F(u_gelu_tanh,
        0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x))))
UNARY_F(u_sin, sin(x))
UNARY_F(u_cos, cos(x))
UNARY_F(u_floor, floor(x))
UNARY_F(u_ceil, ceil(x))
/* the default floating-point environment rounds ties to even */
UNARY_F(u_round, nearbyint(x))
UNARY_F(u_erf, erf(x))
UNARY_F(u_log1p, log1p(x))
UNARY_F(u_expm1, expm1(x))
/* comparisons keep NaN (and the zero's sign) where fmin/fmax would not */
UNARY_F(u_sign, x > 0 ? 1.0 : x < 0 ? -1.0 : x)
UNARY_F(u_hardsigmoid, (x + 3 < 0 ? 0.0 : x + 3 > 6 ? 6.0 : x + 3) / 6)
UNARY_F(u_leaky_relu, x < 0 ? p[0] * x : x)
UNARY_F(u_clip, x < p[0] ? p[0] : x > p[1] ? p[1] : x)
UNARY_F(u_trunc, trunc(x))
UNARY_F(u_tan, tan(x))
UNARY_F(u_sinh, sinh(x))
UNARY_F(u_cosh, cosh(x))
UNARY_F(u_asin, asin(x))
UNARY_F(u_acos, acos(x))
UNARY_F(u_atan, atan(x))
UNARY_F(u_asinh, asinh(x))
UNARY_F(u_acosh, acosh(x))
UNARY_F(u_atanh, atanh(x))
UNARY_F(u_erfc, erfc(x))
UNARY_F(u_cbrt, cbrt(x))
UNARY_F(u_exp2, exp2(x))
UNARY_F(u_log2, log2(x))
UNARY_F(u_log10, log10(x))
/* signbit reads the bit, so -0.0 and a NaN with its sign set count: the
 * load to double keeps both (Cast.c moves NaN payloads by shifting) */
UNARY_F(u_signbit, signbit(x) ? 1.0 : 0.0)

UNARY_I(i_abs, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
UNARY_I(i_neg, (int64_t)(0 - (uint64_t)x))
UNARY_I(i_relu, x < 0 ? 0 : x)
UNARY_I(i_sign, x > 0 ? 1 : x < 0 ? -1 : 0)
UNARY_I(i_trunc, x)
UNARY_I(i_signbit, x < 0 ? 1 : 0)
/* u64 in its bit pattern: no value is negative */
UNARY_I(iu_sign, x != 0)
static void iu_zero(int64_t *v, int64_t n, const double *p) {
  (void)p;
  memset(v, 0, (size_t)n * sizeof *v);
}

/* The integer function of kind k for dtype dt: u64 has no negative
 * values, so abs and relu are the identity, sign is 0 or 1 and signbit
 * is 0 (neg wraps as for the signed types). */
static UnaryI64 unary_int_fn(PtoUnaryKind k, PtoDType dt, UnaryI64 fn) {
  if (dt != PTO_DT_U64) return fn;
  switch (k) {
  case PTO_UNARY_ABS:
  case PTO_UNARY_RELU: return i_trunc;
  case PTO_UNARY_SIGN: return iu_sign;
  case PTO_UNARY_SIGNBIT: return iu_zero;
  default: return fn;
  }
}

static const struct UnaryRow {
  const char *name;
  UnaryF64 f;
  UnaryI64 i;
  unsigned nparams;
  const char *param[2];
  double dflt[2];
} unary_rows[PTO_UNARY_NUM_KINDS] = {
#define PARAMS0 0, {NULL, NULL}, {0, 0}
#define PARAMS1(N0, D0) 1, {N0, NULL}, {D0, 0}
#define PARAMS2(N0, D0, N1, D1) 2, {N0, N1}, {D0, D1}
#define PTO_UNARY_OP(ID, MN, DT, FF, FI, PARAMS, SUM) {MN, FF, FI, PARAMS},
#define PTO_UNARY_KERNEL(ID, NAME, FF, FI) {NAME, FF, FI, PARAMS0},
#include "pto/UnaryOps.def"
#undef PARAMS0
#undef PARAMS1
#undef PARAMS2
};

static const char *const binary_names[] = {
#define PTO_BINARY_OP(ID, KIND, MN, ...) MN,
#define PTO_BINARY_COMPARE(ID, MN, ...) MN,
#include "pto/BinaryOps.def"
};

const char *pto_unary_kind_name(PtoUnaryKind k) {
  return (unsigned)k < PTO_UNARY_NUM_KINDS ? unary_rows[k].name : "?";
}
const char *pto_binary_kind_name(PtoBinaryKind k) {
  return (unsigned)k < PTO_BINARY_NUM_KINDS ? binary_names[k] : "?";
}
unsigned pto_unary_num_params(PtoUnaryKind k) {
  return (unsigned)k < PTO_UNARY_NUM_KINDS ? unary_rows[k].nparams : 0;
}
const char *pto_unary_param_name(PtoUnaryKind k, unsigned i) {
  return i < pto_unary_num_params(k) ? unary_rows[k].param[i] : NULL;
}
double pto_unary_param_default(PtoUnaryKind k, unsigned i) {
  return i < pto_unary_num_params(k) ? unary_rows[k].dflt[i] : 0.0;
}
bool pto_unary_has_int(PtoUnaryKind k) {
  return k == PTO_UNARY_IDENTITY ||
         ((unsigned)k < PTO_UNARY_NUM_KINDS && unary_rows[k].i);
}

/* Copies a row of same-dtype elements (bit-exact). */
static void copy_row(size_t esize, char *dst, int64_t dstep, const char *src,
                     int64_t sstep, int64_t n) {
  if (dstep == 1 && sstep == 1) {
    memcpy(dst, src, (size_t)n * esize);
    return;
  }
  switch (esize) {
#define COPY_AS(T)                                                          \
  for (int64_t i = 0; i < n; i++)                                           \
    ((T *)(void *)dst)[i * dstep] = ((const T *)(const void *)src)[i * sstep]; \
  break;
  case 1: COPY_AS(uint8_t)
  case 2: COPY_AS(uint16_t)
  case 4: COPY_AS(uint32_t)
  default: COPY_AS(uint64_t)
#undef COPY_AS
  }
}

PtoResult pto_kernel_unary(PtoUnaryKind k, const PtoNdArray *x,
                           const PtoNdArray *out, PtoKernelError *err) {
  return pto_kernel_unary_params(k, NULL, x, out, err);
}

PtoResult pto_kernel_unary_params(PtoUnaryKind k, const double *params,
                                  const PtoNdArray *x, const PtoNdArray *out,
                                  PtoKernelError *err) {
  if ((unsigned)k >= PTO_UNARY_NUM_KINDS)
    return pto_error_set(err, "unknown unary kernel %d", (int)k);
  const struct UnaryRow *row = &unary_rows[k];
  if (x->dtype != out->dtype)
    return pto_error_set(err, "%s: input dtype %s differs from the output's %s",
                   row->name, pto_dtype_name(x->dtype),
                   pto_dtype_name(out->dtype));
  bool fl = pto_dtype_is_float(x->dtype);
  if (!fl && !pto_unary_has_int(k))
    return pto_error_set(err, "%s needs a float dtype, got %s", row->name,
                   pto_dtype_name(x->dtype));
  const double *p = params ? params : row->dflt;
  UnaryI64 ifn = fl ? NULL : unary_int_fn(k, x->dtype, row->i);
  KernelIter it;
  if (!kernel_iter_map(&it, x, out, err)) return PTO_FAILURE;
  if (it.empty) return PTO_SUCCESS;
  size_t es = pto_dtype_size(x->dtype);
  do {
    if (k == PTO_UNARY_IDENTITY) {
      copy_row(es, kernel_at(out, it.off[1]), it.step[1], kernel_at(x, it.off[0]),
               it.step[0], it.n);
      continue;
    }
    for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
      int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK;
      int64_t xo = it.off[0] + c * it.step[0], oo = it.off[1] + c * it.step[1];
      if (fl) {
        double v[KERNEL_CHUNK];
        kernel_load_f64(x->dtype, x->data, xo, it.step[0], m, v);
        row->f(v, m, p);
        kernel_store_f64(out->dtype, out->data, oo, it.step[1], m, v);
      } else {
        int64_t v[KERNEL_CHUNK];
        kernel_load_i64(x->dtype, x->data, xo, it.step[0], m, v);
        ifn(v, m, p);
        kernel_store_i64(out->dtype, out->data, oo, it.step[1], m, v);
      }
    }
  } while (kernel_iter_next(&it));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Binary                                                               */
/* ------------------------------------------------------------------ */

static bool is_compare(PtoBinaryKind k) { return k >= PTO_BINARY_EQ; }

/* Which element types each kind accepts, from its row's DTYPES. */
#define ACCEPTS_FLOAT_FLOAT 1
#define ACCEPTS_FLOAT_INT 0
#define ACCEPTS_FLOAT_NUMERIC 1
#define ACCEPTS_FLOAT_ANY 1
#define ACCEPTS_INT_FLOAT 0
#define ACCEPTS_INT_INT 1
#define ACCEPTS_INT_NUMERIC 1
#define ACCEPTS_INT_ANY 1
static const struct {
  bool f, i;
} binary_accepts[] = {
#define PTO_BINARY_OP(ID, KIND, MN, DT, ...) {ACCEPTS_FLOAT_##DT, ACCEPTS_INT_##DT},
#define PTO_BINARY_COMPARE(ID, MN, DT, ...) {ACCEPTS_FLOAT_##DT, ACCEPTS_INT_##DT},
#include "pto/BinaryOps.def"
};

/* The element functions the rows of BinaryOps.def name. Integers compute
 * modulo 2^64 (the store wraps to the width), so + - * go through
 * uint64_t, where signed overflow would be undefined. */
static inline double b_add(double a, double b) { return a + b; }
static inline double b_sub(double a, double b) { return a - b; }
static inline double b_mul(double a, double b) { return a * b; }
static inline double b_div(double a, double b) { return a / b; }
static inline double b_max(double a, double b) {
  return isnan(a) || isnan(b) ? NAN : a >= b ? a : b;
}
static inline double b_min(double a, double b) {
  return isnan(a) || isnan(b) ? NAN : a <= b ? a : b;
}
static inline int64_t bi_add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t bi_sub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t bi_mul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}
static inline int64_t bi_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a); /* INT64_MIN / -1 wraps */
  return a / b;
}
static inline int64_t bi_max(int64_t a, int64_t b) { return a >= b ? a : b; }
static inline int64_t bi_min(int64_t a, int64_t b) { return a <= b ? a : b; }
static inline int64_t bi_and(int64_t a, int64_t b) { return a & b; }
static inline int64_t bi_or(int64_t a, int64_t b) { return a | b; }
static inline int64_t bi_xor(int64_t a, int64_t b) { return a ^ b; }
/* Shifts defined for every count: the store wraps a left shift to the
 * dtype's width; a right shift of a sign-extended value is arithmetic. */
static inline int64_t bi_shl(int64_t a, int64_t s) {
  return s < 0 || s > 63 ? 0 : (int64_t)((uint64_t)a << s);
}
static inline int64_t bi_shr(int64_t a, int64_t s) {
  if (s < 0 || s > 63) return a < 0 ? -1 : 0;
  return a < 0 ? ~(~a >> s) : a >> s; /* arithmetic without relying on >> of negatives */
}

/* Euclid on magnitudes: gcd(a, b) >= 0, and |INT64_MIN| = 2^63 wraps back
 * to INT64_MIN as numpy's gcd does (narrower dtypes wrap at the store). */
static inline int64_t bi_gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return (int64_t)x;
}

/* u64 in its bit pattern: division, shifts right and gcd read unsigned
 * values (the other kinds either give the same bits or, for max and min,
 * run on kernel_ord_key forms). */
static inline int64_t bu_div(int64_t a, int64_t b) {
  return b == 0 ? 0 : (int64_t)((uint64_t)a / (uint64_t)b);
}
static inline int64_t bu_shr(int64_t a, int64_t s) {
  return (uint64_t)s > 63 ? 0 : (int64_t)((uint64_t)a >> s);
}
static inline int64_t bu_gcd(int64_t a, int64_t b) {
  uint64_t x = (uint64_t)a, y = (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return (int64_t)x;
}

/* a = a (op) b over a chunk of u64 values; false for the kinds that
 * binary_i64 computes the same. */
static bool binary_u64(PtoBinaryKind k, int64_t *a, int64_t *b, int64_t n) {
  int64_t (*fn)(int64_t, int64_t);
  switch (k) {
  case PTO_BINARY_DIV: fn = bu_div; break;
  case PTO_BINARY_SHR: fn = bu_shr; break;
  case PTO_BINARY_GCD: fn = bu_gcd; break;
  case PTO_BINARY_MAX:
  case PTO_BINARY_MIN:
    kernel_ord_row(PTO_DT_U64, a, n);
    kernel_ord_row(PTO_DT_U64, b, n);
    for (int64_t i = 0; i < n; i++)
      a[i] = k == PTO_BINARY_MAX ? bi_max(a[i], b[i]) : bi_min(a[i], b[i]);
    kernel_ord_row(PTO_DT_U64, a, n);
    return true;
  default: return false;
  }
  for (int64_t i = 0; i < n; i++) a[i] = fn(a[i], b[i]);
  return true;
}

/* a = a (op) b over a chunk, one loop per row. A row's NO_FLOAT / NO_INT
 * side has no case: pto_kernel_binary refused the dtype before. */
static void binary_f64(PtoBinaryKind k, double *a, const double *b,
                       int64_t n) {
#define NO_FLOAT 0
#define FLOAT_CASE_0(KIND, FN)
#define FLOAT_CASE_1(KIND, FN)                                              \
  case PTO_BINARY_##KIND:                                                   \
    for (int64_t i = 0; i < n; i++) a[i] = FN(a[i], b[i]);                  \
    break;
#define FLOAT_CASE_PICK(HAS, KIND, FN) FLOAT_CASE_##HAS(KIND, FN)
#define FLOAT_CASE(HAS, KIND, FN) FLOAT_CASE_PICK(HAS, KIND, FN)
  switch (k) {
#define PTO_BINARY_OP(ID, KIND, MN, DT, TR, FN_F, FN_I, SUM)                \
  FLOAT_CASE(ACCEPTS_FLOAT_##DT, KIND, FN_F)
#include "pto/BinaryOps.def"
  default: break;
  }
#undef FLOAT_CASE
#undef FLOAT_CASE_PICK
#undef FLOAT_CASE_0
#undef FLOAT_CASE_1
#undef NO_FLOAT
}

static void binary_i64(PtoBinaryKind k, int64_t *a, const int64_t *b,
                       int64_t n) {
#define NO_INT 0
#define INT_CASE_0(KIND, FN)
#define INT_CASE_1(KIND, FN)                                                \
  case PTO_BINARY_##KIND:                                                   \
    for (int64_t i = 0; i < n; i++) a[i] = FN(a[i], b[i]);                  \
    break;
#define INT_CASE_PICK(HAS, KIND, FN) INT_CASE_##HAS(KIND, FN)
#define INT_CASE(HAS, KIND, FN) INT_CASE_PICK(HAS, KIND, FN)
  switch (k) {
#define PTO_BINARY_OP(ID, KIND, MN, DT, TR, FN_F, FN_I, SUM)                \
  INT_CASE(ACCEPTS_INT_##DT, KIND, FN_I)
#include "pto/BinaryOps.def"
  default: break;
  }
#undef INT_CASE
#undef INT_CASE_PICK
#undef INT_CASE_0
#undef INT_CASE_1
#undef NO_INT
}

/* Comparisons of a chunk into 0/1, one function per element type. */
#define COMPARE_CASE(ID, OPERATOR)                                          \
  case PTO_BINARY_##ID:                                                     \
    for (int64_t i = 0; i < n; i++) r[i] = a[i] OPERATOR b[i];              \
    break;
static void compare_f64(PtoBinaryKind k, const double *a, const double *b,
                        int64_t *r, int64_t n) {
  switch (k) {
#define PTO_BINARY_COMPARE(ID, MN, DT, TR, OPERATOR, SUM) COMPARE_CASE(ID, OPERATOR)
#include "pto/BinaryOps.def"
  default: break;
  }
}
static void compare_i64(PtoBinaryKind k, const int64_t *a, const int64_t *b,
                        int64_t *r, int64_t n) {
  switch (k) {
#define PTO_BINARY_COMPARE(ID, MN, DT, TR, OPERATOR, SUM) COMPARE_CASE(ID, OPERATOR)
#include "pto/BinaryOps.def"
  default: break;
  }
}
#undef COMPARE_CASE

PtoResult pto_kernel_binary(PtoBinaryKind k, const PtoNdArray *a,
                            const PtoNdArray *b, const PtoNdArray *out,
                            PtoKernelError *err) {
  const char *name = pto_binary_kind_name(k);
  if (a->dtype != b->dtype)
    return pto_error_set(err, "%s: operand dtypes differ: %s vs %s", name,
                   pto_dtype_name(a->dtype), pto_dtype_name(b->dtype));
  bool cmp = is_compare(k);
  if (cmp ? !pto_dtype_is_int(out->dtype) : out->dtype != a->dtype)
    return pto_error_set(err, "%s: output dtype %s does not fit operands of %s",
                   name, pto_dtype_name(out->dtype), pto_dtype_name(a->dtype));
  if ((unsigned)k >= PTO_BINARY_NUM_KINDS)
    return pto_error_set(err, "binary kernel %u does not exist", (unsigned)k);
  bool fl = pto_dtype_is_float(a->dtype);
  if (fl ? !binary_accepts[k].f : !binary_accepts[k].i)
    return pto_error_set(err, "%s needs %s dtype, got %s", name,
                   fl ? "an integer" : "a float", pto_dtype_name(a->dtype));
  int64_t st[3][PTO_MAX_RANK];
  if (!kernel_bcast_strides(a, out->rank, out->shape, st[0], "operand #0", err) ||
      !kernel_bcast_strides(b, out->rank, out->shape, st[1], "operand #1", err))
    return PTO_FAILURE;
  memcpy(st[2], out->strides, out->rank * sizeof(int64_t));
  KernelIter it;
  kernel_iter_init(&it, out->rank, out->shape, 3, st);
  if (it.empty) return PTO_SUCCESS;
  do {
    for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
      int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK;
      int64_t ao = it.off[0] + c * it.step[0], bo = it.off[1] + c * it.step[1];
      int64_t oo = it.off[2] + c * it.step[2];
      int64_t r[KERNEL_CHUNK];
      if (fl) {
        double va[KERNEL_CHUNK], vb[KERNEL_CHUNK];
        kernel_load_f64(a->dtype, a->data, ao, it.step[0], m, va);
        kernel_load_f64(b->dtype, b->data, bo, it.step[1], m, vb);
        if (cmp) {
          compare_f64(k, va, vb, r, m);
          kernel_store_i64(out->dtype, out->data, oo, it.step[2], m, r);
        } else {
          binary_f64(k, va, vb, m);
          kernel_store_f64(out->dtype, out->data, oo, it.step[2], m, va);
        }
      } else {
        int64_t vb[KERNEL_CHUNK];
        kernel_load_i64(a->dtype, a->data, ao, it.step[0], m, r);
        kernel_load_i64(b->dtype, b->data, bo, it.step[1], m, vb);
        if (cmp) {
          kernel_ord_row(a->dtype, r, m);
          kernel_ord_row(a->dtype, vb, m);
          compare_i64(k, r, vb, r, m);
        } else if (a->dtype != PTO_DT_U64 || !binary_u64(k, r, vb, m)) {
          binary_i64(k, r, vb, m);
        }
        kernel_store_i64(out->dtype, out->data, oo, it.step[2], m, r);
      }
    }
  } while (kernel_iter_next(&it));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* where                                                                */
/* ------------------------------------------------------------------ */

PtoResult pto_kernel_where(const PtoNdArray *cond, const PtoNdArray *x,
                           const PtoNdArray *y, const PtoNdArray *out,
                           PtoKernelError *err) {
  if (x->dtype != out->dtype || y->dtype != out->dtype)
    return pto_error_set(err, "where: value dtypes %s and %s differ from the "
                        "output's %s", pto_dtype_name(x->dtype),
                   pto_dtype_name(y->dtype), pto_dtype_name(out->dtype));
  if (!pto_dtype_is_int(cond->dtype))
    return pto_error_set(err, "where: the condition must be bool, got %s",
                   pto_dtype_name(cond->dtype));
  int64_t st[4][PTO_MAX_RANK];
  if (!kernel_bcast_strides(cond, out->rank, out->shape, st[0], "condition", err) ||
      !kernel_bcast_strides(x, out->rank, out->shape, st[1], "operand #1", err) ||
      !kernel_bcast_strides(y, out->rank, out->shape, st[2], "operand #2", err))
    return PTO_FAILURE;
  memcpy(st[3], out->strides, out->rank * sizeof(int64_t));
  KernelIter it;
  kernel_iter_init(&it, out->rank, out->shape, 4, st);
  if (it.empty) return PTO_SUCCESS;
  size_t es = pto_dtype_size(out->dtype);
  do {
    for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
      int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK, cv[KERNEL_CHUNK];
      kernel_load_i64(cond->dtype, cond->data, it.off[0] + c * it.step[0],
                  it.step[0], m, cv);
      for (int64_t i = 0; i < m; i++) {
        int64_t j = c + i;
        const char *src = cv[i] ? kernel_at(x, it.off[1] + j * it.step[1])
                                : kernel_at(y, it.off[2] + j * it.step[2]);
        memcpy(kernel_at(out, it.off[3] + j * it.step[3]), src, es);
      }
    }
  } while (kernel_iter_next(&it));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* cast                                                                 */
/* ------------------------------------------------------------------ */

/* Conversions exact through double and rounded to nearest even on store:
 * float to float and small integers to float, without saturation. */
static bool cast_via_double(PtoDType s, PtoDType d, PtoCastMode mode) {
  if (mode.sat != PTO_SAT_WRAP || !pto_dtype_is_float(d) ||
      (mode.round != PTO_ROUND_DEFAULT && mode.round != PTO_ROUND_RINT))
    return false;
  return s != PTO_DT_I64 && s != PTO_DT_INDEX && s != PTO_DT_U64;
}

PtoResult pto_kernel_cast(const PtoNdArray *x, const PtoNdArray *out,
                          PtoCastMode mode, PtoKernelError *err) {
  KernelIter it;
  if (!kernel_iter_map(&it, x, out, err)) return PTO_FAILURE;
  if (it.empty) return PTO_SUCCESS;
  PtoDType s = x->dtype, d = out->dtype;
  bool fast = cast_via_double(s, d, mode);
  bool ints = pto_dtype_is_int(s) && pto_dtype_is_int(d) &&
              mode.sat == PTO_SAT_WRAP;
  do {
    if (s == d) {
      copy_row(pto_dtype_size(s), kernel_at(out, it.off[1]), it.step[1],
               kernel_at(x, it.off[0]), it.step[0], it.n);
      continue;
    }
    for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
      int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK;
      int64_t xo = it.off[0] + c * it.step[0], oo = it.off[1] + c * it.step[1];
      if (fast) {
        double v[KERNEL_CHUNK];
        kernel_load_f64(s, x->data, xo, it.step[0], m, v);
        kernel_store_f64(d, out->data, oo, it.step[1], m, v);
      } else if (ints) {
        int64_t v[KERNEL_CHUNK];
        kernel_load_i64(s, x->data, xo, it.step[0], m, v);
        kernel_store_i64(d, out->data, oo, it.step[1], m, v);
      } else {
        for (int64_t i = 0; i < m; i++)
          pto_dtype_cast_elem(s, kernel_at(x, xo + i * it.step[0]), d,
                              kernel_at(out, oo + i * it.step[1]), mode);
      }
    }
  } while (kernel_iter_next(&it));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

bool pto_broadcast_shapes(unsigned ra, const int64_t *a, unsigned rb,
                          const int64_t *b, unsigned *rout, int64_t *out,
                          unsigned *bad_dim) {
  unsigned r = ra > rb ? ra : rb;
  for (unsigned d = 0; d < r; d++) {
    int64_t x = d + ra >= r ? a[d + ra - r] : 1;
    int64_t y = d + rb >= r ? b[d + rb - r] : 1;
    if (x != y && x != 1 && y != 1) {
      if (bad_dim) *bad_dim = d;
      return false;
    }
    out[d] = x == 1 ? y : x;
  }
  *rout = r;
  return true;
}

PtoNdArray pto_ndarray_scalar_view(PtoDType dt, void *data) {
  PtoNdArray a;
  memset(&a, 0, sizeof a);
  a.dtype = dt;
  a.data = data;
  a.nbytes = pto_dtype_size(dt);
  return a;
}
