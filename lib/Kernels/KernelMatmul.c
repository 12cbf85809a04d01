/* Batched matrix product with optional transposes and accumulator. Per
 * batch, B is converted once to a dense double (or int64) K x N block and
 * each output row accumulates rank-1 updates in K order, a loop a compiler
 * vectorises. */
#include "Kernels/KernelUtil.h"

#include "Support/Alloc.h"

#include <string.h>

typedef struct MatDims {
  int64_t M, N, K;
  int64_t sai, sak; /* element strides of a along i and k */
  int64_t sbk, sbj;
  int64_t sci, scj; /* acc */
  int64_t soi, soj; /* out */
} MatDims;

/* Strides of acc along its last two dims after broadcasting to out. */
static bool acc_strides(const PtoNdArray *acc, const PtoNdArray *out,
                        int64_t *full, PtoKernelError *err) {
  return kernel_bcast_strides(acc, out->rank, out->shape, full, "accumulator",
                          err);
}

/* Floats accumulate in double and round once, to out's dtype, whatever
 * the accumulation dtype: the cube keeps every float sum in its f32 L0C
 * and FIX rounds it once on the way out (PyPTO's f16 matmul result is
 * that), so an f16 or bf16 accumulator only rounds where its partial sum
 * is stored (out, or an accumulator operand of that dtype). */
static void matmul_f64(const PtoNdArray *a, const PtoNdArray *b,
                       const PtoNdArray *acc, const PtoNdArray *out,
                       const MatDims *d, int64_t ao, int64_t bo, int64_t co,
                       int64_t oo, double *bd, double *arow, double *c) {
  for (int64_t k = 0; k < d->K; k++)
    kernel_load_f64(b->dtype, b->data, bo + k * d->sbk, d->sbj, d->N,
                bd + k * d->N);
  for (int64_t i = 0; i < d->M; i++) {
    kernel_load_f64(a->dtype, a->data, ao + i * d->sai, d->sak, d->K, arow);
    if (acc)
      kernel_load_f64(acc->dtype, acc->data, co + i * d->sci, d->scj, d->N, c);
    else
      memset(c, 0, (size_t)d->N * sizeof *c);
    for (int64_t k = 0; k < d->K; k++) {
      double aik = arow[k];
      const double *brow = bd + k * d->N;
      for (int64_t j = 0; j < d->N; j++) c[j] += aik * brow[j];
    }
    kernel_store_f64(out->dtype, out->data, oo + i * d->soi, d->soj, d->N, c);
  }
}

static void matmul_i64(const PtoNdArray *a, const PtoNdArray *b,
                       const PtoNdArray *acc, const PtoNdArray *out,
                       const MatDims *d, int64_t ao, int64_t bo, int64_t co,
                       int64_t oo, int64_t *bd, int64_t *arow, int64_t *c) {
  for (int64_t k = 0; k < d->K; k++)
    kernel_load_i64(b->dtype, b->data, bo + k * d->sbk, d->sbj, d->N,
                bd + k * d->N);
  for (int64_t i = 0; i < d->M; i++) {
    kernel_load_i64(a->dtype, a->data, ao + i * d->sai, d->sak, d->K, arow);
    if (acc) kernel_load_i64(acc->dtype, acc->data, co + i * d->sci, d->scj, d->N, c);
    else memset(c, 0, (size_t)d->N * sizeof *c);
    for (int64_t k = 0; k < d->K; k++) {
      uint64_t aik = (uint64_t)arow[k];
      const int64_t *brow = bd + k * d->N;
      for (int64_t j = 0; j < d->N; j++)
        c[j] = (int64_t)((uint64_t)c[j] + aik * (uint64_t)brow[j]);
    }
    kernel_store_i64(out->dtype, out->data, oo + i * d->soi, d->soj, d->N, c);
  }
}

PtoResult pto_kernel_matmul(const PtoNdArray *a, const PtoNdArray *b,
                            bool a_trans, bool b_trans, const PtoNdArray *acc,
                            PtoDType acc_dtype, const PtoNdArray *out,
                            PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX];
  if (a->rank < 2 || b->rank < 2 || out->rank < 2)
    return pto_error_set(err, "matmul needs operands and output of rank >= 2");
  if (a->dtype != b->dtype)
    return pto_error_set(err, "matmul: operand dtypes differ: %s vs %s",
                   pto_dtype_name(a->dtype), pto_dtype_name(b->dtype));
  bool ints = pto_dtype_is_int(a->dtype);
  if (ints != pto_dtype_is_int(acc_dtype))
    return pto_error_set(err, "matmul: accumulation dtype %s does not fit operands "
                        "of %s", pto_dtype_name(acc_dtype),
                   pto_dtype_name(a->dtype));
  unsigned ra = a->rank, rb = b->rank, ro = out->rank;
  MatDims d;
  d.M = a->shape[ra - (a_trans ? 1 : 2)];
  d.K = a->shape[ra - (a_trans ? 2 : 1)];
  int64_t kb = b->shape[rb - (b_trans ? 1 : 2)];
  d.N = b->shape[rb - (b_trans ? 2 : 1)];
  if (d.K != kb)
    return pto_error_set(err, "contracting dims differ: %lld vs %lld",
                   (long long)d.K, (long long)kb);
  if (out->shape[ro - 2] != d.M || out->shape[ro - 1] != d.N)
    return pto_error_set(err, "matmul: output shape %s does not end in (%lld, %lld)",
                   kernel_shape_str(b1, out), (long long)d.M, (long long)d.N);
  d.sai = a->strides[ra - (a_trans ? 1 : 2)];
  d.sak = a->strides[ra - (a_trans ? 2 : 1)];
  d.sbk = b->strides[rb - (b_trans ? 1 : 2)];
  d.sbj = b->strides[rb - (b_trans ? 2 : 1)];
  d.soi = out->strides[ro - 2];
  d.soj = out->strides[ro - 1];

  /* Batch dims: a's and b's broadcast to out's (matrix dims excluded). */
  unsigned nb = ro - 2;
  int64_t st[4][PTO_MAX_RANK];
  PtoNdArray ab = *a, bb = *b;
  ab.rank = ra - 2;
  bb.rank = rb - 2;
  if (!kernel_bcast_strides(&ab, nb, out->shape, st[0], "batch of operand #0", err) ||
      !kernel_bcast_strides(&bb, nb, out->shape, st[1], "batch of operand #1", err))
    return PTO_FAILURE;
  memcpy(st[2], out->strides, nb * sizeof(int64_t));
  unsigned narr = 3;
  d.sci = d.scj = 0;
  if (acc) {
    int64_t full[PTO_MAX_RANK];
    if (!acc_strides(acc, out, full, err)) return PTO_FAILURE;
    memcpy(st[3], full, nb * sizeof(int64_t));
    d.sci = full[ro - 2];
    d.scj = full[ro - 1];
    narr = 4;
  }
  KernelIter it;
  kernel_iter_init(&it, nb, out->shape, narr, st);
  if (it.empty || d.M == 0 || d.N == 0) return PTO_SUCCESS;

  size_t kn, es = ints ? sizeof(int64_t) : sizeof(double);
  if (!pto_size_mul((size_t)d.K, (size_t)d.N, &kn) ||
      !pto_size_mul(kn ? kn : 1, es, &kn))
    return pto_error_set(err, "matmul: %lld x %lld operand too large",
                   (long long)d.K, (long long)d.N);
  void *bd = pto_malloc(kn ? kn : 1);
  void *arow = pto_malloc((size_t)(d.K ? d.K : 1) * es);
  void *c = pto_malloc((size_t)d.N * es);
  do {
    for (int64_t j = 0; j < it.n; j++) {
      int64_t ao = it.off[0] + j * it.step[0], bo = it.off[1] + j * it.step[1];
      int64_t oo = it.off[2] + j * it.step[2];
      int64_t co = acc ? it.off[3] + j * it.step[3] : 0;
      if (ints)
        matmul_i64(a, b, acc, out, &d, ao, bo, co, oo, bd, arow, c);
      else
        matmul_f64(a, b, acc, out, &d, ao, bo, co, oo, bd, arow, c);
    }
  } while (kernel_iter_next(&it));
  pto_free(bd);
  pto_free(arow);
  pto_free(c);
  return PTO_SUCCESS;
}
