/* The reference numeric kernels over host n-d arrays (PtoNdArray). Every
 * interpreted level (Tensor, Tile, Block) calls these, so that the numerics
 * of each operation are written once; docs/interpreter.md states them.
 *
 * Conventions shared by all kernels:
 * - Inputs may be strided; a zero stride repeats an element. Where a kernel
 *   says "broadcasts", an input broadcasts to the output with numpy's rule
 *   (right-aligned, size-1 or missing dims stretch).
 * - Outputs are written through their strides and must not overlap inputs,
 *   except where a kernel says it works in place. The elementwise kernels
 *   (unary, binary, where, cast) may write over an input of the output's
 *   own shape and layout: each element is read before it is written.
 * - Floats compute in double and are rounded once, to nearest even, to the
 *   output dtype; integers compute modulo 2^64 and wrap to the output width.
 * - A kernel checks its shape preconditions and the data it indexes by;
 *   on failure it fills `err` (a sentence without a location; the caller
 *   reports it at its op) and returns PTO_FAILURE, writing nothing or a
 *   partial output. `err` may be NULL. */
#ifndef PTO_KERNELS_H
#define PTO_KERNELS_H

#include "pto/Float16.h"
#include "pto/NdArray.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef PtoError PtoKernelError;

/* ---- elementwise ---- */

/* Unary kinds, one per row of UnaryOps.def (ops first, then the kernels
 * no op names by itself). Integers: abs and neg wrap (abs(INT_MIN) =
 * INT_MIN); relu is max(x, 0) and keeps NaN; gelu is 0.5 x (1 + erf(x /
 * sqrt 2)), GELU_TANH 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
 * round is half to even; IDENTITY is a broadcasting copy (same dtype). */
typedef enum PtoUnaryKind {
#define PTO_UNARY_OP(ID, MN, DT, FF, FI, PARAMS, SUM) PTO_UNARY_##ID,
#define PTO_UNARY_KERNEL(ID, NAME, FF, FI) PTO_UNARY_##ID,
#include "pto/UnaryOps.def"
} PtoUnaryKind;
/* Separate from the enum, so that switches over a kind need no case for
 * it. */
enum {
#define PTO_UNARY_OP(ID, MN, DT, FF, FI, PARAMS, SUM) +1
#define PTO_UNARY_KERNEL(ID, NAME, FF, FI) +1
  PTO_UNARY_NUM_KINDS = 0
#include "pto/UnaryOps.def"
};

/* Binary kinds, one per PTO_BINARY_OP row of BinaryOps.def, then one
 * per comparison (kept last). Integer div is toward zero with x / 0 = 0
 * and INT_MIN / -1 = INT_MIN; max and min propagate NaN; pow and atan2
 * (libm's atan2(a, b), the angle of the point (b, a)) are float only; the
 * bitwise kinds are integer only (shifts by a count outside [0, 63]: left
 * gives 0, right the sign fill; right shifts are arithmetic; gcd, integer
 * only too, is non-negative except where |INT_MIN| wraps, gcd(0, 0) = 0). The
 * comparisons write a bool (or any integer) output, 1 or 0; NaN compares
 * false except for NE. */
typedef enum PtoBinaryKind {
#define PTO_BINARY_OP(ID, KIND, ...) PTO_BINARY_##KIND,
#define PTO_BINARY_COMPARE(ID, ...) PTO_BINARY_##ID,
#include "pto/BinaryOps.def"
} PtoBinaryKind;
enum {
#define PTO_BINARY_OP(ID, ...) +1
#define PTO_BINARY_COMPARE(ID, ...) +1
  PTO_BINARY_NUM_KINDS = 0
#include "pto/BinaryOps.def"
};

/* Name of a kind, for messages ("exp", "add"). */
const char *pto_unary_kind_name(PtoUnaryKind k);
const char *pto_binary_kind_name(PtoBinaryKind k);

/* out = f(x); x broadcasts to out and has out's dtype. Kinds without an
 * integer form (UnaryOps.def's FLOAT rows) fail on integer dtypes. The
 * kinds with parameters (UnaryOps.def's PARAMS) use their defaults. */
PtoResult pto_kernel_unary(PtoUnaryKind k, const PtoNdArray *x,
                           const PtoNdArray *out, PtoKernelError *err);
/* pto_kernel_unary with the kind's parameters in UnaryOps.def's order
 * (params may be NULL for the defaults). */
PtoResult pto_kernel_unary_params(PtoUnaryKind k, const double *params,
                                  const PtoNdArray *x, const PtoNdArray *out,
                                  PtoKernelError *err);
/* The kind's parameters: how many (0 to 2), and each one's attribute name
 * and default. */
unsigned pto_unary_num_params(PtoUnaryKind k);
const char *pto_unary_param_name(PtoUnaryKind k, unsigned i);
double pto_unary_param_default(PtoUnaryKind k, unsigned i);
/* True when the kind has an integer form. */
bool pto_unary_has_int(PtoUnaryKind k);

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
 * docs/numerics.md) converts one element (pypto.cast's default is
 * {PTO_ROUND_RINT, PTO_SAT_WRAP}). */
PtoResult pto_kernel_cast(const PtoNdArray *x, const PtoNdArray *out,
                          PtoCastMode mode, PtoKernelError *err);

/* ---- reductions ---- */

/* Reduction kinds: X(ID, name). MAX and MIN propagate NaN; ARGMAX and
 * ARGMIN give the first index of the extreme value, or of the first NaN,
 * written to an integer output. */
#define PTO_REDUCE_KINDS(X)                                                 \
  X(SUM, "sum") X(PROD, "prod") X(MAX, "amax") X(MIN, "amin")               \
  X(ARGMAX, "argmax") X(ARGMIN, "argmin")

typedef enum PtoReduceKind {
#define PTO_KIND_ENUM_(ID, NAME) PTO_REDUCE_##ID,
  PTO_REDUCE_KINDS(PTO_KIND_ENUM_)
#undef PTO_KIND_ENUM_
} PtoReduceKind;
#define PTO_KIND_COUNT_(ID, NAME) +1
enum { PTO_REDUCE_NUM_KINDS = 0 PTO_REDUCE_KINDS(PTO_KIND_COUNT_) };
#undef PTO_KIND_COUNT_

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

/* The dequantising matmul (PyPTO's matmul with extend_params scale /
 * scale_tensor): the i8 product accumulates exactly in i32, then leaves
 * the accumulator as f32(acc) * scale computed in f32, through relu when
 * asked, and rounded to out's float dtype. scale broadcasts to out:
 * rank 0 for one per-tensor scale, [1, N] per output channel. */
PtoResult pto_kernel_matmul_dequant(const PtoNdArray *a, const PtoNdArray *b,
                                    bool a_trans, bool b_trans,
                                    const PtoNdArray *scale, bool relu,
                                    const PtoNdArray *out, PtoKernelError *err);

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
/* In place: for j in order, dst.select(dim, index[j]) += src.select(dim, j),
 * each addition rounded to the dtype (integers wrap): duplicates
 * accumulate in index order, the same on every run. Indices are checked
 * first. */
PtoResult pto_kernel_index_add(const PtoNdArray *dst, const PtoNdArray *index,
                               const PtoNdArray *src, unsigned dim,
                               PtoKernelError *err);
/* How scatter_elements combines src with what dst holds. */
typedef enum PtoScatterReduce {
  PTO_SCATTER_REPLACE = 0,
  PTO_SCATTER_ADD = 1,
  PTO_SCATTER_MULTIPLY = 2,
} PtoScatterReduce;
/* torch.scatter in place: for every position i of index (row-major),
 * dst[i with i[dim] replaced by index[i]] = src[i] (or += / *= with
 * `reduce`, each result rounded to the dtype, integers wrapping). index has
 * dst's rank, its dims other than `dim` no larger than dst's, and every dim
 * no larger than src's. Every index is checked before dst changes. */
PtoResult pto_kernel_scatter_elements(const PtoNdArray *dst,
                                      const PtoNdArray *index,
                                      const PtoNdArray *src, unsigned dim,
                                      PtoScatterReduce reduce,
                                      PtoKernelError *err);
/* The k largest (smallest) values along `dim` and their indices, sorted;
 * ties keep the lower index first; NaN is larger than any number. values
 * and indices have x's shape with dim `dim` = k. */
PtoResult pto_kernel_topk(const PtoNdArray *x, int64_t k, unsigned dim,
                          bool largest, const PtoNdArray *values,
                          const PtoNdArray *indices, PtoKernelError *err);
/* topk along the last dim of the two lists (v0, i0) and (v1, i1) side by
 * side, v0's first (ties keep the first list, then the lower position),
 * carrying the index values: indices holds the i0 / i1 entry of each
 * value chosen. The lists share their leading dims; v0 and v1 one dtype. */
PtoResult pto_kernel_topk_merge(const PtoNdArray *v0, const PtoNdArray *i0,
                                const PtoNdArray *v1, const PtoNdArray *i1,
                                int64_t k, bool largest,
                                const PtoNdArray *values,
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
/* out = f32(f32(q) * scale) converted to out's dtype (an f16 / bf16 result
 * rounds the f32 product once more); scale (f32) broadcasts. */
PtoResult pto_kernel_dequantize(const PtoNdArray *q, const PtoNdArray *scale,
                                const PtoNdArray *out, PtoKernelError *err);

/* ---- MX (microscaling) 8-bit floats (pypto.quant_mx, pypto.scaled_mm) ---- */

/* MX quantisation of x's last dim (N, a multiple of 64; x f32, f16 or bf16)
 * in blocks of 32: with amax the block's largest |f32(x)| (NaN wins),
 * scale = E8M0(f32(amax * 2^-emax)) rounded toward -inf (emax 8 for
 * f8E4M3FN, 15 for f8E5M2) and q = f8(f32(f32(x) / f32(scale))) to nearest
 * even, saturating: exactly the steps pypto.quant_mx's decomposition takes
 * (docs/dialects/pypto.md). q has x's shape and an MX dtype; scale is
 * f8E8M0 of shape [..., N/64, 2]. */
PtoResult pto_kernel_quant_mx(const PtoNdArray *x, const PtoNdArray *q,
                              const PtoNdArray *scale, PtoKernelError *err);
/* out[M, N] = (a * scale_a) @ (b * scale_b): a [M, K] ([K, M] when
 * a_trans) and b [K, N] ([N, K] when b_trans) of f8E4M3FN or f8E5M2, each
 * element times its 32-element block's E8M0 scale in f32; scale_a is [M,
 * K/64, 2] ([K/64, M, 2] when sa_trans), scale_b [K/64, N, 2] ([N, K/64,
 * 2] when sb_trans). The scaled f32 products accumulate as
 * pto_kernel_matmul's f32 accumulator does, then relu when asked, rounded
 * to out's float dtype. */
PtoResult pto_kernel_scaled_mm(const PtoNdArray *a, const PtoNdArray *b,
                               const PtoNdArray *scale_a, const PtoNdArray *scale_b,
                               bool a_trans, bool b_trans, bool sa_trans, bool sb_trans,
                               bool relu, const PtoNdArray *out, PtoKernelError *err);

/* ---- random numbers (pypto.uniform, pypto.normal) ---- */

typedef enum PtoRandomKind { PTO_RANDOM_UNIFORM, PTO_RANDOM_NORMAL } PtoRandomKind;

/* One Philox4x32-10 block: ten rounds over counter `ctr` with `key`. */
void pto_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                       uint32_t out[4]);
/* Fills float array `out` with the window at `origin` of a `rank`-dim
 * tensor of shape `full` (out's dims are the window's trailing ones). The
 * element at row-major index i of the whole tensor is lane i % 4 of the
 * Philox block for counter (i / 4, `counter`) and `key` (both as two 32-bit
 * words, low first): uniform keeps the top p bits of the lane (p = the
 * dtype's significand bits) as a value in [0, 1); normal pairs lanes
 * (0, 1) and (2, 3) in a Box-Muller transform. So the numbers do not
 * depend on how the tensor is tiled. docs/dialects/pypto.md. */
PtoResult pto_kernel_random(PtoRandomKind k, uint64_t key, uint64_t counter,
                            unsigned rank, const int64_t *full,
                            const int64_t *origin, const PtoNdArray *out,
                            PtoKernelError *err);

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
