/* Symmetric per-row int8 quantisation and dequantisation, in f32 as the
 * pypto dialect specifies (every f32 step is computed in double and
 * rounded to f32, which is exact for these operations). */
#include "Kernels/KernelUtil.h"

#include "Support/Alloc.h"

#include <math.h>
#include <string.h>

static float f32(double v) { return (float)v; }

/* One row of int8 values for scale s (q = 0 when `zero`). */
static void quant_row(const double *v, int64_t n, float s, bool zero,
                      int64_t *qi) {
  for (int64_t i = 0; i < n; i++) {
    if (zero) {
      qi[i] = 0;
      continue;
    }
    double r = nearbyint((double)f32(v[i] / (double)s));
    qi[i] = isnan(r) ? 0 : r > 127 ? 127 : r < -127 ? -127 : (int64_t)r;
  }
}

/* The checks both quantize kernels make: x float of rank >= 1, q i8 of its
 * shape, scale f32 of its shape with the last dim 1 (in *want). */
static PtoResult check_quant(const char *what, const PtoNdArray *x,
                             const PtoNdArray *q, const PtoNdArray *scale,
                             int64_t *want, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (x->rank == 0 || !pto_dtype_is_float(x->dtype))
    return pto_error_set(err, "%s needs a float input of rank >= 1", what);
  memcpy(want, x->shape, x->rank * sizeof *want);
  want[x->rank - 1] = 1;
  if (q->dtype != PTO_DT_I8 || !kernel_same_shape(q, x->rank, x->shape) ||
      scale->dtype != PTO_DT_F32 || !kernel_same_shape(scale, x->rank, want))
    return pto_error_set(err, "%s: q %s %s and scale %s %s, expected i8 of the "
                        "input's shape and f32 %s",
                   what, pto_dtype_name(q->dtype), kernel_shape_str(b1, q),
                   pto_dtype_name(scale->dtype), kernel_shape_str(b2, scale),
                   pto_shape_str(b2, x->rank, want));
  return PTO_SUCCESS;
}

/* Walks the rows of x; computes each row's scale (amax / 127) when
 * `compute_scale`, else reads it, and writes the row's int8 values. */
static PtoResult quantize_rows(const PtoNdArray *x, const PtoNdArray *q,
                               const PtoNdArray *scale, bool compute_scale,
                               const int64_t *want) {
  unsigned last = x->rank - 1;
  int64_t n = x->shape[last], st[3][PTO_MAX_RANK];
  memcpy(st[0], x->strides, x->rank * sizeof(int64_t));
  memcpy(st[1], q->strides, x->rank * sizeof(int64_t));
  memcpy(st[2], scale->strides, x->rank * sizeof(int64_t));
  KernelIter it;
  kernel_iter_init(&it, x->rank, want, 3, st);
  if (it.empty) return PTO_SUCCESS;
  double *v = pto_malloc((size_t)(n ? n : 1) * sizeof *v);
  int64_t *qi = pto_malloc((size_t)(n ? n : 1) * sizeof *qi);
  do {
    for (int64_t j = 0; j < it.n; j++) {
      int64_t xo = it.off[0] + j * it.step[0];
      int64_t so = it.off[2] + j * it.step[2];
      kernel_load_f64(x->dtype, x->data, xo, x->strides[last], n, v);
      float s;
      bool zero;
      if (compute_scale) {
        float amax = 0;
        for (int64_t i = 0; i < n; i++) {
          float a = fabsf(f32(v[i]));
          if (isnan(a) || isnan(amax)) amax = NAN;
          else if (a > amax) amax = a;
        }
        s = f32((double)amax / 127.0);
        zero = amax == 0;
        double sd = s;
        kernel_store_f64(scale->dtype, scale->data, so, 0, 1, &sd);
      } else {
        double sd;
        kernel_load_f64(scale->dtype, scale->data, so, 0, 1, &sd);
        s = f32(sd);
        zero = s == 0;
      }
      quant_row(v, n, s, zero, qi);
      kernel_store_i64(q->dtype, q->data, it.off[1] + j * it.step[1],
                   q->strides[last], n, qi);
    }
  } while (kernel_iter_next(&it));
  pto_free(v);
  pto_free(qi);
  return PTO_SUCCESS;
}

PtoResult pto_kernel_quantize(const PtoNdArray *x, const PtoNdArray *q,
                              const PtoNdArray *scale, PtoKernelError *err) {
  int64_t want[PTO_MAX_RANK];
  if (check_quant("quantize", x, q, scale, want, err)) return PTO_FAILURE;
  return quantize_rows(x, q, scale, true, want);
}

PtoResult pto_kernel_quantize_scaled(const PtoNdArray *x,
                                     const PtoNdArray *scale,
                                     const PtoNdArray *q, PtoKernelError *err) {
  int64_t want[PTO_MAX_RANK];
  if (check_quant("quantize with scales", x, q, scale, want, err))
    return PTO_FAILURE;
  return quantize_rows(x, q, scale, false, want);
}

PtoResult pto_kernel_dequantize(const PtoNdArray *q, const PtoNdArray *scale,
                                const PtoNdArray *out, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (!pto_dtype_is_int(q->dtype) || scale->dtype != PTO_DT_F32 ||
      !pto_dtype_is_float(out->dtype))
    return pto_error_set(err, "dequantize needs integer values, f32 scales and a "
                        "float output, got %s, %s and %s",
                   pto_dtype_name(q->dtype), pto_dtype_name(scale->dtype),
                   pto_dtype_name(out->dtype));
  if (!kernel_same_shape(out, q->rank, q->shape))
    return pto_error_set(err, "dequantize: output shape %s differs from %s",
                   kernel_shape_str(b1, out), kernel_shape_str(b2, q));
  int64_t st[3][PTO_MAX_RANK];
  memcpy(st[0], q->strides, q->rank * sizeof(int64_t));
  if (!kernel_bcast_strides(scale, q->rank, q->shape, st[1], "scale", err))
    return PTO_FAILURE;
  memcpy(st[2], out->strides, out->rank * sizeof(int64_t));
  KernelIter it;
  kernel_iter_init(&it, q->rank, q->shape, 3, st);
  if (it.empty) return PTO_SUCCESS;
  do {
    for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
      int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK;
      double a[KERNEL_CHUNK], s[KERNEL_CHUNK];
      kernel_load_f64(q->dtype, q->data, it.off[0] + c * it.step[0], it.step[0], m, a);
      kernel_load_f64(scale->dtype, scale->data, it.off[1] + c * it.step[1],
                  it.step[1], m, s);
      /* f32(q) first (i32 may need rounding), then the f32 product (the
       * exact product of two f32 values rounded once to f32), and that
       * converted to the output: Ascend's vector unit multiplies in f32
       * and converts, so an f16 / bf16 result is rounded twice, as the
       * compiled kernels' tcvt after their f32 product does */
      for (int64_t i = 0; i < m; i++) a[i] = f32((double)f32(a[i]) * s[i]);
      kernel_store_f64(out->dtype, out->data, it.off[2] + c * it.step[2],
                   it.step[2], m, a);
    }
  } while (kernel_iter_next(&it));
  return PTO_SUCCESS;
}

PtoResult pto_kernel_matmul_dequant(const PtoNdArray *a, const PtoNdArray *b,
                                    bool a_trans, bool b_trans,
                                    const PtoNdArray *scale, bool relu,
                                    const PtoNdArray *out, PtoKernelError *err) {
  if (a->dtype != PTO_DT_I8 || !pto_dtype_is_float(out->dtype))
    return pto_error_set(err, "a dequantising matmul needs i8 operands and a float "
                         "output, got %s and %s", pto_dtype_name(a->dtype),
                         pto_dtype_name(out->dtype));
  PtoNdArray *acc = pto_ndarray_create(PTO_DT_I32, out->rank, out->shape, err);
  PtoNdArray *f = out->dtype == PTO_DT_F32 ? NULL
                  : pto_ndarray_create(PTO_DT_F32, out->rank, out->shape, err);
  const PtoNdArray *mid = f ? f : out;
  PtoResult r = acc && (f || out->dtype == PTO_DT_F32) ? PTO_SUCCESS : PTO_FAILURE;
  if (r == PTO_SUCCESS) r = pto_kernel_matmul(a, b, a_trans, b_trans, NULL, PTO_DT_I32, acc, err);
  if (r == PTO_SUCCESS) r = pto_kernel_dequantize(acc, scale, mid, err);
  if (r == PTO_SUCCESS && relu) r = pto_kernel_unary(PTO_UNARY_RELU, mid, mid, err);
  /* the f32 values rounded once more to a narrower result, as the FIX pipe
   * (and the Tile level's tile.cast) does */
  if (r == PTO_SUCCESS && f)
    r = pto_kernel_cast(f, out, PTO_CAST_DEFAULT, err);
  pto_ndarray_destroy(acc);
  pto_ndarray_destroy(f);
  return r;
}
