/* The reference numeric kernels over host n-d arrays (PtoNdArray). Every
 * interpreted level (Tensor, Tile, Block) calls these, so that the numerics
 * of each operation are written once; docs/interpreter.md states them.
 *
 * Conventions shared by all kernels:
 * - Inputs may be strided; a zero stride repeats an element. Where a kernel
 *   says "broadcasts", an input broadcasts to the output with numpy's rule
 *   (right-aligned, size-1 or missing dims stretch).
 * - Outputs are written through their strides and must not overlap inputs,
 *   except where a kernel says it works in place.
 * - Floats compute in double and are rounded once, to nearest even, to the
 *   output dtype; integers compute modulo 2^64 and wrap to the output width.
 * - A kernel checks its shape preconditions and the data it indexes by;
 *   on failure it fills `err` (a sentence without a location; the caller
 *   reports it at its op) and returns PTO_FAILURE, writing nothing or a
 *   partial output. `err` may be NULL. */
#ifndef PTO_INTERP_KERNELS_H
#define PTO_INTERP_KERNELS_H

#include "pto/NdArray.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoKernelError {
  char msg[320];
} PtoKernelError;

/* ---- elementwise ---- */

typedef enum PtoUnaryKind {
  PTO_UNARY_ABS,  /* ints wrap: abs(INT_MIN) = INT_MIN */
  PTO_UNARY_NEG,  /* ints wrap */
  PTO_UNARY_EXP,
  PTO_UNARY_LOG,
  PTO_UNARY_SQRT,
  PTO_UNARY_RSQRT,
  PTO_UNARY_RECIPROCAL,
  PTO_UNARY_RELU, /* max(x, 0); NaN stays NaN */
  PTO_UNARY_SIGMOID,
  PTO_UNARY_TANH,
  PTO_UNARY_SILU,
  PTO_UNARY_GELU,      /* 0.5 x (1 + erf(x / sqrt 2)) */
  PTO_UNARY_GELU_TANH, /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  PTO_UNARY_SIN,
  PTO_UNARY_COS,
  PTO_UNARY_FLOOR,
  PTO_UNARY_CEIL,
  PTO_UNARY_ROUND, /* half to even */
  PTO_UNARY_ERF,
  PTO_UNARY_IDENTITY, /* a broadcasting copy (same dtype) */
} PtoUnaryKind;

typedef enum PtoBinaryKind {
  PTO_BINARY_ADD,
  PTO_BINARY_SUB,
  PTO_BINARY_MUL,
  PTO_BINARY_DIV, /* ints: toward zero, x / 0 = 0, INT_MIN / -1 = INT_MIN */
  PTO_BINARY_MAX, /* NaN propagates */
  PTO_BINARY_MIN,
  PTO_BINARY_POW, /* floats only */
  /* Comparisons write a bool (or any integer) output: 1 or 0. NaN compares
   * false except for NE. */
  PTO_BINARY_EQ,
  PTO_BINARY_NE,
  PTO_BINARY_LT,
  PTO_BINARY_LE,
  PTO_BINARY_GT,
  PTO_BINARY_GE,
} PtoBinaryKind;

/* Name of a kind, for messages ("exp", "add"). */
const char *pto_unary_kind_name(PtoUnaryKind k);
const char *pto_binary_kind_name(PtoBinaryKind k);

/* out = f(x); x broadcasts to out and has out's dtype. Float-only kinds
 * (exp ... erf) fail on integer dtypes. */
PtoResult pto_kernel_unary(PtoUnaryKind k, const PtoNdArray *x,
                           const PtoNdArray *out, PtoKernelError *err);

/* out = a (op) b; a and b have one dtype and broadcast to out, whose dtype
 * is theirs (arithmetic) or bool/integer (comparisons). A scalar operand is
 * a rank-0 array. */
PtoResult pto_kernel_binary(PtoBinaryKind k, const PtoNdArray *a,
                            const PtoNdArray *b, const PtoNdArray *out,
                            PtoKernelError *err);

/* out = cond ? x : y; all three broadcast to out; x, y and out have one
 * dtype; cond is bool (any non-zero is true). */
PtoResult pto_kernel_where(const PtoNdArray *cond, const PtoNdArray *x,
                           const PtoNdArray *y, const PtoNdArray *out,
                           PtoKernelError *err);

/* pypto.cast: x broadcasts to out; values are converted from x's dtype to
 * out's with `mode`, exactly as pto_dtype_cast_elem (DType.h,
 * docs/numerics.md) converts one element. */
PtoResult pto_kernel_cast(const PtoNdArray *x, const PtoNdArray *out,
                          PtoCastMode mode, PtoKernelError *err);

/* ---- reductions ---- */

typedef enum PtoReduceKind {
  PTO_REDUCE_SUM,
  PTO_REDUCE_PROD,
  PTO_REDUCE_MAX, /* NaN propagates */
  PTO_REDUCE_MIN,
  PTO_REDUCE_ARGMAX, /* first index of the extreme value, or of the first
                        NaN; written to an integer output */
  PTO_REDUCE_ARGMIN,
} PtoReduceKind;

const char *pto_reduce_kind_name(PtoReduceKind k); /* "sum", "amax", ... */

/* Reduces dim `dim` of x into out, which has x's rank with that dim 1
 * (the keepdim shape; callers drop the dim by relabelling the result).
 * Floats accumulate in double, integers modulo 2^64, in index order. An
 * empty dim gives 0 (sum) or 1 (prod); the other kinds fail on it. */
PtoResult pto_kernel_reduce(PtoReduceKind k, const PtoNdArray *x, unsigned dim,
                            const PtoNdArray *out, PtoKernelError *err);

/* Merges two partial results of argmax (max = true) or argmin over
 * disjoint index ranges, the first covering the lower indices: element by
 * element, (v1, i1) replaces (v0, i0) when v1 is a NaN and v0 is not, or
 * v1 is strictly better; otherwise (v0, i0) stays (the first extreme value,
 * or the first NaN, wins, as in pto_kernel_reduce). All six arrays have
 * one shape; values one dtype, indices integers. */
PtoResult pto_kernel_arg_combine(bool max, const PtoNdArray *v0,
                                 const PtoNdArray *i0, const PtoNdArray *v1,
                                 const PtoNdArray *i1, const PtoNdArray *vout,
                                 const PtoNdArray *iout, PtoKernelError *err);

/* ---- matrix products ---- */

/* out[..., M, N] = acc + a[..., M, K] @ b[..., K, N] (a given as [..., K,
 * M] when a_trans, b as [..., N, K] when b_trans). Batch dims of a, b and
 * acc broadcast to out's. acc (may be NULL) broadcasts to out. acc_dtype
 * is the accumulation type: integer products accumulate exactly (modulo
 * 2^64) and wrap to the output; F32 and F64 accumulate in double; F16 and
 * BF16 round the running sum to that format after every step, in K order. */
PtoResult pto_kernel_matmul(const PtoNdArray *a, const PtoNdArray *b,
                            bool a_trans, bool b_trans, const PtoNdArray *acc,
                            PtoDType acc_dtype, const PtoNdArray *out,
                            PtoKernelError *err);

/* ---- composites (computed in double, rounded once) ---- */

/* exp(x - max) / sum(exp(x - max)) along `dim`; out has x's shape. */
PtoResult pto_kernel_softmax(const PtoNdArray *x, unsigned dim,
                             const PtoNdArray *out, PtoKernelError *err);
/* x * rsqrt(mean(x^2) + eps) * gamma over the last dim; gamma is 1-D. */
PtoResult pto_kernel_rms_norm(const PtoNdArray *x, const PtoNdArray *gamma,
                              double eps, const PtoNdArray *out,
                              PtoKernelError *err);
/* (x - mean) * rsqrt(var + eps) * gamma + beta over the last dim, with the
 * biased variance. */
PtoResult pto_kernel_layer_norm(const PtoNdArray *x, const PtoNdArray *gamma,
                                const PtoNdArray *beta, double eps,
                                const PtoNdArray *out, PtoKernelError *err);

/* ---- indexing (index arrays hold any integer dtype) ---- */

/* torch.gather: out has index's shape; out[i] = x[i with i[dim] replaced
 * by index[i]]. index's dims other than `dim` must not exceed x's. */
PtoResult pto_kernel_gather(const PtoNdArray *x, const PtoNdArray *index,
                            unsigned dim, const PtoNdArray *out,
                            PtoKernelError *err);
/* out = x with dim `dim` picked by the 1-D index. */
PtoResult pto_kernel_index_select(const PtoNdArray *x,
                                  const PtoNdArray *index, unsigned dim,
                                  const PtoNdArray *out, PtoKernelError *err);
/* In place: for j in order, dst.select(dim, index[j]) = src.select(dim, j)
 * (a later duplicate wins). Every index is checked before dst changes. */
PtoResult pto_kernel_scatter_update(const PtoNdArray *dst,
                                    const PtoNdArray *index,
                                    const PtoNdArray *src, unsigned dim,
                                    PtoKernelError *err);
/* The k largest (smallest) values along `dim` and their indices, sorted;
 * ties keep the lower index first; NaN is larger than any number. values
 * and indices have x's shape with dim `dim` = k. */
PtoResult pto_kernel_topk(const PtoNdArray *x, int64_t k, unsigned dim,
                          bool largest, const PtoNdArray *values,
                          const PtoNdArray *indices, PtoKernelError *err);

/* ---- quantisation ---- */

/* Symmetric per-row int8 over the last dim, in f32: amax = max |x|,
 * scale = amax / 127, q = clamp(rint(x / scale), -127, 127); a zero row
 * gives scale 0 and q 0. q is i8 of x's shape, scale f32 with the last
 * dim 1. */
PtoResult pto_kernel_quantize(const PtoNdArray *x, const PtoNdArray *q,
                              const PtoNdArray *scale, PtoKernelError *err);
/* The int8 part of quantize for given per-row scales (f32, x's shape with
 * the last dim 1): q = clamp(rint(x / scale), -127, 127), and 0 on rows
 * whose scale is 0. pto_kernel_quantize is this with scale = amax / 127
 * (a row whose amax is a subnormal below 127 * 2^-149 has scale 0 but is
 * only zero there when amax is). */
PtoResult pto_kernel_quantize_scaled(const PtoNdArray *x,
                                     const PtoNdArray *scale,
                                     const PtoNdArray *q, PtoKernelError *err);
/* out = f32(q) * scale rounded to out's dtype; scale (f32) broadcasts. */
PtoResult pto_kernel_dequantize(const PtoNdArray *q, const PtoNdArray *scale,
                                const PtoNdArray *out, PtoKernelError *err);

/* ---- helpers for callers ---- */

/* numpy broadcast of two shapes into `out` (rank = the larger rank); false
 * when a dim pair is neither equal nor 1 (*bad_dim: that dim, counted in
 * the result). */
bool pto_broadcast_shapes(unsigned ra, const int64_t *a, unsigned rb,
                          const int64_t *b, unsigned *rout, int64_t *out,
                          unsigned *bad_dim);
/* A read-only descriptor of one element (rank 0) at `data`. */
PtoNdArray pto_ndarray_scalar_view(PtoDType dt, void *data);

#ifdef __cplusplus
}
#endif
#endif
