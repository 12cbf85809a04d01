/* The MX (microscaling) kernels: quant_mx's per-32-element E8M0 scales
 * and 8-bit float quotients, and scaled_mm's product of two such matrices.
 * Every step rounds where the Tensor-level ops of their decomposition
 * round, so the op and its decomposition agree to the bit. */
#include "Kernels/KernelUtil.h"

#include "Support/Alloc.h"

#include <math.h>
#include <string.h>

enum { MX_BLOCK = 32, MX_PAIR = 64 };

static bool is_mx(PtoDType d) { return d == PTO_DT_F8E4M3 || d == PTO_DT_F8E5M2; }

/* The largest power of two below the format's maximum (OCP MX's
 * emax_elem). */
static int mx_emax(PtoDType d) { return d == PTO_DT_F8E4M3 ? 8 : 15; }

/* Element [idx..., i, j] of a scale array of rank `lead` + 2. */
static int64_t scale_off(const PtoNdArray *s, const int64_t *idx, unsigned lead,
                         int64_t i, int64_t j) {
  int64_t o = i * s->strides[lead] + j * s->strides[lead + 1];
  for (unsigned d = 0; d < lead; d++) o += idx[d] * s->strides[d];
  return o;
}

/* Advances the odometer idx over shape[0..n); false after the last. */
static bool next_index(int64_t *idx, const int64_t *shape, unsigned n) {
  for (unsigned d = n; d-- > 0;) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

/* One block's scale (stored at *sbyte) and its value in f32. */
static float block_scale(const float *v, int emax, uint8_t *sbyte) {
  float amax = 0;
  for (int i = 0; i < MX_BLOCK; i++) {
    float a = fabsf(v[i]);
    if (isnan(a) || isnan(amax)) amax = NAN;
    else if (a > amax) amax = a;
  }
  float p = (float)((double)amax * ldexp(1.0, -emax));
  pto_dtype_cast_elem(PTO_DT_F32, &p, PTO_DT_F8E8M0, sbyte,
                      (PtoCastMode){PTO_ROUND_FLOOR, PTO_SAT_WRAP});
  float s;
  pto_dtype_cast_elem(PTO_DT_F8E8M0, sbyte, PTO_DT_F32, &s, PTO_CAST_DEFAULT);
  return s;
}

PtoResult pto_kernel_quant_mx(const PtoNdArray *x, const PtoNdArray *q,
                              const PtoNdArray *scale, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (x->rank == 0 || x->rank >= PTO_MAX_RANK || !pto_dtype_is_float(x->dtype) ||
      is_mx(x->dtype) || x->dtype == PTO_DT_F8E8M0 || x->shape[x->rank - 1] % MX_PAIR)
    return pto_error_set(err, "quant_mx needs an f32, f16 or bf16 input whose last dim "
                              "is a multiple of %d, got %s %s",
                         MX_PAIR, pto_dtype_name(x->dtype), kernel_shape_str(b1, x));
  unsigned lead = x->rank - 1;
  int64_t n = x->shape[lead], want[PTO_MAX_RANK];
  memcpy(want, x->shape, lead * sizeof *want);
  want[lead] = n / MX_PAIR;
  want[lead + 1] = 2;
  if (!is_mx(q->dtype) || !kernel_same_shape(q, x->rank, x->shape) ||
      scale->dtype != PTO_DT_F8E8M0 || !kernel_same_shape(scale, x->rank + 1, want))
    return pto_error_set(err, "quant_mx: q %s %s and scale %s %s, expected f8E4M3FN or "
                              "f8E5M2 of the input's shape and f8E8M0FNU %s",
                         pto_dtype_name(q->dtype), kernel_shape_str(b1, q),
                         pto_dtype_name(scale->dtype), kernel_shape_str(b2, scale),
                         pto_shape_str(b2, x->rank + 1, want));
  if (pto_ndarray_numel(x) == 0) return PTO_SUCCESS;
  int emax = mx_emax(q->dtype);
  PtoCastMode to_q = {PTO_ROUND_RINT, PTO_SAT_SATURATE};
  double *row = pto_malloc((size_t)n * sizeof *row);
  int64_t idx[PTO_MAX_RANK] = {0};
  do {
    int64_t xo = 0, qo = 0;
    for (unsigned d = 0; d < lead; d++) {
      xo += idx[d] * x->strides[d];
      qo += idx[d] * q->strides[d];
    }
    kernel_load_f64(x->dtype, x->data, xo, x->strides[lead], n, row);
    for (int64_t b = 0; b < n / MX_BLOCK; b++) {
      float v[MX_BLOCK];
      for (int i = 0; i < MX_BLOCK; i++) v[i] = (float)row[b * MX_BLOCK + i];
      uint8_t *sb = (uint8_t *)kernel_at(scale, scale_off(scale, idx, lead, b / 2, b % 2));
      float s = block_scale(v, emax, sb);
      for (int i = 0; i < MX_BLOCK; i++) {
        float r = (float)((double)v[i] / (double)s);
        int64_t at = qo + (b * MX_BLOCK + i) * q->strides[lead];
        pto_dtype_cast_elem(PTO_DT_F32, &r, q->dtype, kernel_at(q, at), to_q);
      }
    }
  } while (next_index(idx, x->shape, lead));
  pto_free(row);
  return PTO_SUCCESS;
}

/* The [rows, K] f32 matrix of m's elements times their blocks' scales;
 * m is [rows, K] ([K, rows] when trans), s [rows, K/64, 2] ([K/64, rows, 2]
 * when s_trans). */
static void scaled_rows(const PtoNdArray *m, bool trans, const PtoNdArray *s,
                        bool s_trans, int64_t rows, int64_t k, float *outp) {
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < k; j++) {
      int64_t mo = trans ? j * m->strides[0] + r * m->strides[1]
                         : r * m->strides[0] + j * m->strides[1];
      int64_t blk = j / MX_BLOCK, p = blk / 2, h = blk % 2;
      int64_t so = s_trans ? p * s->strides[0] + r * s->strides[1] + h * s->strides[2]
                           : r * s->strides[0] + p * s->strides[1] + h * s->strides[2];
      float v, sc;
      pto_dtype_cast_elem(m->dtype, kernel_at(m, mo), PTO_DT_F32, &v, PTO_CAST_DEFAULT);
      pto_dtype_cast_elem(PTO_DT_F8E8M0, kernel_at(s, so), PTO_DT_F32, &sc,
                          PTO_CAST_DEFAULT);
      outp[r * k + j] = (float)((double)v * (double)sc);
    }
}

static bool scale_shape_is(const PtoNdArray *s, int64_t d0, int64_t d1) {
  int64_t want[3] = {d0, d1, 2};
  return s->dtype == PTO_DT_F8E8M0 && kernel_same_shape(s, 3, want);
}

PtoResult pto_kernel_scaled_mm(const PtoNdArray *a, const PtoNdArray *b,
                               const PtoNdArray *scale_a, const PtoNdArray *scale_b,
                               bool a_trans, bool b_trans, bool sa_trans, bool sb_trans,
                               bool relu, const PtoNdArray *out, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (!is_mx(a->dtype) || !is_mx(b->dtype) || a->rank != 2 || b->rank != 2)
    return pto_error_set(err, "scaled_mm needs 2-d f8E4M3FN or f8E5M2 matrices, got %s %s "
                              "and %s %s",
                         pto_dtype_name(a->dtype), kernel_shape_str(b1, a),
                         pto_dtype_name(b->dtype), kernel_shape_str(b2, b));
  int64_t m = a->shape[a_trans], k = a->shape[!a_trans];
  int64_t n = b->shape[!b_trans], k2 = b->shape[b_trans];
  if (k != k2 || k % MX_PAIR)
    return pto_error_set(err, "scaled_mm: contracting dims %lld and %lld must agree and "
                              "be a multiple of %d", (long long)k, (long long)k2, MX_PAIR);
  int64_t kb = k / MX_PAIR;
  /* scale_b's plain layout is [K/64, N, 2]: scale_a's transposed */
  if (!scale_shape_is(scale_a, sa_trans ? kb : m, sa_trans ? m : kb) ||
      !scale_shape_is(scale_b, sb_trans ? n : kb, sb_trans ? kb : n))
    return pto_error_set(err, "scaled_mm: scales %s %s and %s %s do not match the "
                              "matrices", pto_dtype_name(scale_a->dtype),
                         kernel_shape_str(b1, scale_a), pto_dtype_name(scale_b->dtype),
                         kernel_shape_str(b2, scale_b));
  int64_t sa[2] = {m, k}, sb[2] = {n, k};
  PtoNdArray *af = pto_ndarray_create(PTO_DT_F32, 2, sa, err);
  PtoNdArray *bf = af ? pto_ndarray_create(PTO_DT_F32, 2, sb, err) : NULL;
  PtoResult r = PTO_FAILURE;
  if (bf) {
    scaled_rows(a, a_trans, scale_a, sa_trans, m, k, af->data);
    scaled_rows(b, !b_trans, scale_b, !sb_trans, n, k, bf->data);
    r = pto_kernel_matmul(af, bf, false, true, NULL, PTO_DT_F32, out, err);
    if (r == PTO_SUCCESS && relu) r = pto_kernel_unary(PTO_UNARY_RELU, out, out, err);
  }
  pto_ndarray_destroy(af);
  pto_ndarray_destroy(bf);
  return r;
}
