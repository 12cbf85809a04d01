/* Reductions along one dim (sum, prod, amax, amin, argmax, argmin) and the
 * composites that reduce along a dim (softmax, rms_norm, layer_norm).
 * Floats accumulate in double, integers modulo 2^64, in index order. */
#include "Kernels/KernelUtil.h"

#include "Support/Alloc.h"

#include <math.h>
#include <string.h>

static const char *const reduce_names[] = {
#define NAME_OF(ID, NAME) NAME,
    PTO_REDUCE_KINDS(NAME_OF)
#undef NAME_OF
};

const char *pto_reduce_kind_name(PtoReduceKind k) {
  return (unsigned)k < PTO_ARRAY_SIZE(reduce_names) ? reduce_names[k] : "?";
}

/* ---- folding values with index r into running states ---- */

/* Running state of one output element. */
typedef struct Acc {
  double f;
  int64_t i;   /* integer accumulator, or the best value for arg kinds */
  int64_t idx; /* arg kinds: index of the best value so far */
} Acc;

static void acc_init(PtoReduceKind k, Acc *a) {
  a->f = k == PTO_REDUCE_PROD ? 1.0 : 0.0;
  a->i = k == PTO_REDUCE_PROD ? 1 : 0;
  a->idx = 0;
}

/* x replaces the best `b` of a max (min) search: NaN wins and sticks. */
static bool better_f(bool max, double x, double b) {
  if (isnan(b)) return false;
  return isnan(x) || (max ? x > b : x < b);
}

static void fold_f(PtoReduceKind k, Acc *a, double x, int64_t r) {
  switch (k) {
  case PTO_REDUCE_SUM: a->f += x; break;
  case PTO_REDUCE_PROD: a->f *= x; break;
  case PTO_REDUCE_MAX:
  case PTO_REDUCE_ARGMAX:
    if (r == 0 || better_f(true, x, a->f)) a->f = x, a->idx = r;
    break;
  case PTO_REDUCE_MIN:
  case PTO_REDUCE_ARGMIN:
    if (r == 0 || better_f(false, x, a->f)) a->f = x, a->idx = r;
    break;
  }
}

static void fold_i(PtoReduceKind k, Acc *a, int64_t x, int64_t r) {
  switch (k) {
  case PTO_REDUCE_SUM: a->i = (int64_t)((uint64_t)a->i + (uint64_t)x); break;
  case PTO_REDUCE_PROD: a->i = (int64_t)((uint64_t)a->i * (uint64_t)x); break;
  case PTO_REDUCE_MAX:
  case PTO_REDUCE_ARGMAX:
    if (r == 0 || x > a->i) a->i = x, a->idx = r;
    break;
  case PTO_REDUCE_MIN:
  case PTO_REDUCE_ARGMIN:
    if (r == 0 || x < a->i) a->i = x, a->idx = r;
    break;
  }
}

/* Folds values v[0..m) with indices r0.. into one state (per-element mode)
 * or into states acc[0..m) with index r (row-vector mode). The sum case is
 * kept apart so that it stays a tight loop. */
static void fold_chunk_f(PtoReduceKind k, Acc *acc, bool one, const double *v,
                         int64_t m, int64_t r) {
  if (one && k == PTO_REDUCE_SUM) {
    double s = acc->f;
    for (int64_t i = 0; i < m; i++) s += v[i];
    acc->f = s;
    return;
  }
  if (one && (k == PTO_REDUCE_MAX || k == PTO_REDUCE_MIN) && m > 0) {
    /* NaN-free runs reduce in a tight loop; a NaN takes the general path */
    double b = r == 0 ? v[0] : acc->f, nan_seen = 0;
    if (isnan(b)) { /* a NaN sticks */
      acc->f = b;
      return;
    }
    if (k == PTO_REDUCE_MAX)
      for (int64_t i = 0; i < m; i++) nan_seen += v[i] != v[i], b = v[i] > b ? v[i] : b;
    else
      for (int64_t i = 0; i < m; i++) nan_seen += v[i] != v[i], b = v[i] < b ? v[i] : b;
    if (!nan_seen) {
      acc->f = b;
      return;
    }
  }
  for (int64_t i = 0; i < m; i++)
    one ? fold_f(k, acc, v[i], r + i) : fold_f(k, &acc[i], v[i], r);
}
static void fold_chunk_i(PtoReduceKind k, Acc *acc, bool one, const int64_t *v,
                         int64_t m, int64_t r) {
  for (int64_t i = 0; i < m; i++)
    one ? fold_i(k, acc, v[i], r + i) : fold_i(k, &acc[i], v[i], r);
}

/* The order-based kinds compare integers in their kernel_ord_key form. */
static bool is_order_kind(PtoReduceKind k) {
  return k != PTO_REDUCE_SUM && k != PTO_REDUCE_PROD;
}

static void load_ints(PtoReduceKind k, const PtoNdArray *x, int64_t off,
                      int64_t step, int64_t n, int64_t *v) {
  kernel_load_i64(x->dtype, x->data, off, step, n, v);
  if (is_order_kind(k)) kernel_ord_row(x->dtype, v, n);
}

static void store_acc(PtoReduceKind k, bool fl, const PtoNdArray *out,
                      int64_t off, int64_t step, const Acc *acc, int64_t m) {
  bool arg = k == PTO_REDUCE_ARGMAX || k == PTO_REDUCE_ARGMIN;
  if (fl && !arg) {
    double v[KERNEL_CHUNK];
    for (int64_t i = 0; i < m; i++) v[i] = acc[i].f;
    kernel_store_f64(out->dtype, out->data, off, step, m, v);
  } else {
    int64_t v[KERNEL_CHUNK];
    for (int64_t i = 0; i < m; i++) v[i] = arg ? acc[i].idx : acc[i].i;
    if (!arg && is_order_kind(k)) kernel_ord_row(out->dtype, v, m);
    kernel_store_i64(out->dtype, out->data, off, step, m, v);
  }
}

/* Checks that out is x's shape with `dim` set to 1. */
static PtoResult check_keepdim_shape(const char *what, const PtoNdArray *x,
                                     unsigned dim, const PtoNdArray *out,
                                     PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (dim >= x->rank)
    return pto_error_set(err, "%s: dim %u out of range for rank %u", what, dim,
                   x->rank);
  int64_t want[PTO_MAX_RANK];
  memcpy(want, x->shape, x->rank * sizeof *want);
  want[dim] = 1;
  if (!kernel_same_shape(out, x->rank, want))
    return pto_error_set(err, "%s: output shape %s, expected %s", what,
                   kernel_shape_str(b1, out), pto_shape_str(b2, x->rank, want));
  return PTO_SUCCESS;
}

PtoResult pto_kernel_reduce(PtoReduceKind k, const PtoNdArray *x, unsigned dim,
                            const PtoNdArray *out, PtoKernelError *err) {
  const char *name = pto_reduce_kind_name(k);
  if (check_keepdim_shape(name, x, dim, out, err)) return PTO_FAILURE;
  bool arg = k == PTO_REDUCE_ARGMAX || k == PTO_REDUCE_ARGMIN;
  if (arg ? !pto_dtype_is_int(out->dtype) : out->dtype != x->dtype)
    return pto_error_set(err, "%s: output dtype %s does not fit an input of %s",
                   name, pto_dtype_name(out->dtype), pto_dtype_name(x->dtype));
  int64_t R = x->shape[dim], sr = x->strides[dim];
  if (R == 0 && k != PTO_REDUCE_SUM && k != PTO_REDUCE_PROD)
    return pto_error_set(err, "%s over dim %u of size 0 has no value", name, dim);
  bool fl = pto_dtype_is_float(x->dtype);

  /* Walk the output; x's reduced dim is stepped by hand. */
  int64_t st[2][PTO_MAX_RANK];
  memcpy(st[0], x->strides, x->rank * sizeof(int64_t));
  memcpy(st[1], out->strides, out->rank * sizeof(int64_t));
  st[0][dim] = 0;
  KernelIter it;
  kernel_iter_init(&it, out->rank, out->shape, 2, st);
  if (it.empty) return PTO_SUCCESS;
  /* Contiguous reduced dim: reduce each output element's run at once;
   * otherwise accumulate whole output rows, one x row per index r. */
  bool per_elem = sr == 1 || R <= 1 || it.step[0] != 1;
  Acc acc[KERNEL_CHUNK];
  do {
    for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
      int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK;
      int64_t xo = it.off[0] + c * it.step[0];
      for (int64_t i = 0; i < m; i++) acc_init(k, &acc[i]);
      if (per_elem) {
        for (int64_t i = 0; i < m; i++) {
          int64_t base = xo + i * it.step[0];
          for (int64_t r = 0; r < R; r += KERNEL_CHUNK) {
            int64_t q = R - r < KERNEL_CHUNK ? R - r : KERNEL_CHUNK;
            if (fl) {
              double v[KERNEL_CHUNK];
              kernel_load_f64(x->dtype, x->data, base + r * sr, sr, q, v);
              fold_chunk_f(k, &acc[i], true, v, q, r);
            } else {
              int64_t v[KERNEL_CHUNK];
              load_ints(k, x, base + r * sr, sr, q, v);
              fold_chunk_i(k, &acc[i], true, v, q, r);
            }
          }
        }
      } else {
        for (int64_t r = 0; r < R; r++) {
          if (fl) {
            double v[KERNEL_CHUNK];
            kernel_load_f64(x->dtype, x->data, xo + r * sr, it.step[0], m, v);
            fold_chunk_f(k, acc, false, v, m, r);
          } else {
            int64_t v[KERNEL_CHUNK];
            load_ints(k, x, xo + r * sr, it.step[0], m, v);
            fold_chunk_i(k, acc, false, v, m, r);
          }
        }
      }
      store_acc(k, fl, out, it.off[1] + c * it.step[1], it.step[1], acc, m);
    }
  } while (kernel_iter_next(&it));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Merging partial argmax / argmin results                              */
/* ------------------------------------------------------------------ */

PtoResult pto_kernel_arg_combine(bool max, const PtoNdArray *v0,
                                 const PtoNdArray *i0, const PtoNdArray *v1,
                                 const PtoNdArray *i1, const PtoNdArray *vout,
                                 const PtoNdArray *iout, PtoKernelError *err) {
  const PtoNdArray *all[6] = {v0, i0, v1, i1, vout, iout};
  for (unsigned a = 1; a < 6; a++)
    if (!kernel_same_shape(all[a], v0->rank, v0->shape))
      return pto_error_set(err, "arg combine needs arrays of one shape");
  if (v1->dtype != v0->dtype || vout->dtype != v0->dtype ||
      !pto_dtype_is_int(i0->dtype) || !pto_dtype_is_int(i1->dtype) ||
      !pto_dtype_is_int(iout->dtype))
    return pto_error_set(err, "arg combine needs values of one dtype and integer "
                        "indices");
  bool fl = pto_dtype_is_float(v0->dtype);
  int64_t st[KERNEL_MAX_ARRAYS][PTO_MAX_RANK];
  KernelIter it;
  /* Two walks in the same element order: the values decide, the indices
   * follow the decisions recorded in `take`. */
  int64_t n = pto_ndarray_numel(v0), pos = 0;
  bool *take = pto_malloc((size_t)(n ? n : 1));
  const PtoNdArray *vs[3] = {v0, v1, vout}, *is[3] = {i0, i1, iout};
  for (unsigned a = 0; a < 3; a++)
    memcpy(st[a], vs[a]->strides, v0->rank * sizeof(int64_t));
  kernel_iter_init(&it, v0->rank, v0->shape, 3, st);
  if (!it.empty) do {
      for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
        int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK;
        if (fl) {
          double a[KERNEL_CHUNK], b[KERNEL_CHUNK];
          kernel_load_f64(v0->dtype, v0->data, it.off[0] + c * it.step[0], it.step[0], m, a);
          kernel_load_f64(v1->dtype, v1->data, it.off[1] + c * it.step[1], it.step[1], m, b);
          for (int64_t i = 0; i < m; i++) {
            take[pos + i] = better_f(max, b[i], a[i]);
            if (take[pos + i]) a[i] = b[i];
          }
          kernel_store_f64(vout->dtype, vout->data, it.off[2] + c * it.step[2], it.step[2], m, a);
        } else {
          int64_t a[KERNEL_CHUNK], b[KERNEL_CHUNK];
          kernel_load_i64(v0->dtype, v0->data, it.off[0] + c * it.step[0], it.step[0], m, a);
          kernel_load_i64(v1->dtype, v1->data, it.off[1] + c * it.step[1], it.step[1], m, b);
          for (int64_t i = 0; i < m; i++) {
            int64_t ka = kernel_ord_key(v0->dtype, a[i]), kb = kernel_ord_key(v0->dtype, b[i]);
            take[pos + i] = max ? kb > ka : kb < ka;
            if (take[pos + i]) a[i] = b[i];
          }
          kernel_store_i64(vout->dtype, vout->data, it.off[2] + c * it.step[2], it.step[2], m, a);
        }
        pos += m;
      }
    } while (kernel_iter_next(&it));
  for (unsigned a = 0; a < 3; a++)
    memcpy(st[a], is[a]->strides, v0->rank * sizeof(int64_t));
  kernel_iter_init(&it, v0->rank, v0->shape, 3, st);
  pos = 0;
  if (!it.empty) do {
      for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
        int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK, a[KERNEL_CHUNK], b[KERNEL_CHUNK];
        kernel_load_i64(i0->dtype, i0->data, it.off[0] + c * it.step[0], it.step[0], m, a);
        kernel_load_i64(i1->dtype, i1->data, it.off[1] + c * it.step[1], it.step[1], m, b);
        for (int64_t i = 0; i < m; i++)
          if (take[pos + i]) a[i] = b[i];
        kernel_store_i64(iout->dtype, iout->data, it.off[2] + c * it.step[2], it.step[2], m, a);
        pos += m;
      }
    } while (kernel_iter_next(&it));
  pto_free(take);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Composites: one lane (all elements along `dim`) at a time            */
/* ------------------------------------------------------------------ */

typedef enum LaneOp { LANE_SOFTMAX, LANE_RMS_NORM, LANE_LAYER_NORM } LaneOp;

typedef struct LaneArgs {
  LaneOp op;
  const double *gamma, *beta;
  double eps;
} LaneArgs;

static void lane_compute(const LaneArgs *a, double *v, int64_t n) {
  switch (a->op) {
  case LANE_SOFTMAX: {
    double m = -INFINITY, s = 0;
    for (int64_t i = 0; i < n; i++)
      if (isnan(v[i]) || v[i] > m) m = isnan(m) ? m : v[i];
    for (int64_t i = 0; i < n; i++) s += v[i] = exp(v[i] - m);
    for (int64_t i = 0; i < n; i++) v[i] /= s;
    break;
  }
  case LANE_RMS_NORM: {
    double ss = 0;
    for (int64_t i = 0; i < n; i++) ss += v[i] * v[i];
    double r = 1.0 / sqrt(ss / (double)n + a->eps);
    for (int64_t i = 0; i < n; i++) v[i] = v[i] * r * a->gamma[i];
    break;
  }
  case LANE_LAYER_NORM: {
    double mu = 0, var = 0;
    for (int64_t i = 0; i < n; i++) mu += v[i];
    mu /= (double)n;
    for (int64_t i = 0; i < n; i++) var += (v[i] - mu) * (v[i] - mu);
    double r = 1.0 / sqrt(var / (double)n + a->eps);
    for (int64_t i = 0; i < n; i++)
      v[i] = (v[i] - mu) * r * a->gamma[i] + a->beta[i];
    break;
  }
  }
}

static PtoResult run_lanes(const LaneArgs *la, const char *what,
                           const PtoNdArray *x, unsigned dim,
                           const PtoNdArray *out, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (!pto_dtype_is_float(x->dtype) || out->dtype != x->dtype)
    return pto_error_set(err, "%s needs float input and output of one dtype, got "
                        "%s and %s", what, pto_dtype_name(x->dtype),
                   pto_dtype_name(out->dtype));
  if (dim >= x->rank)
    return pto_error_set(err, "%s: dim %u out of range for rank %u", what, dim,
                   x->rank);
  if (!kernel_same_shape(out, x->rank, x->shape))
    return pto_error_set(err, "%s: output shape %s differs from the input's %s",
                   what, kernel_shape_str(b1, out), kernel_shape_str(b2, x));
  int64_t n = x->shape[dim], lane_shape[PTO_MAX_RANK];
  int64_t st[2][PTO_MAX_RANK];
  memcpy(lane_shape, x->shape, x->rank * sizeof(int64_t));
  lane_shape[dim] = 1;
  memcpy(st[0], x->strides, x->rank * sizeof(int64_t));
  memcpy(st[1], out->strides, out->rank * sizeof(int64_t));
  KernelIter it;
  kernel_iter_init(&it, x->rank, lane_shape, 2, st);
  if (it.empty || n == 0) return PTO_SUCCESS;
  double *v = pto_malloc((size_t)n * sizeof *v);
  do {
    for (int64_t j = 0; j < it.n; j++) {
      int64_t xo = it.off[0] + j * it.step[0], oo = it.off[1] + j * it.step[1];
      kernel_load_f64(x->dtype, x->data, xo, x->strides[dim], n, v);
      lane_compute(la, v, n);
      kernel_store_f64(out->dtype, out->data, oo, out->strides[dim], n, v);
    }
  } while (kernel_iter_next(&it));
  pto_free(v);
  return PTO_SUCCESS;
}

PtoResult pto_kernel_softmax(const PtoNdArray *x, unsigned dim,
                             const PtoNdArray *out, PtoKernelError *err) {
  LaneArgs la = {LANE_SOFTMAX, NULL, NULL, 0};
  return run_lanes(&la, "softmax", x, dim, out, err);
}

/* gamma/beta as doubles of the last dim's length. */
static double *load_vec(const char *what, const char *name,
                        const PtoNdArray *v, int64_t n, PtoKernelError *err) {
  char b[PTO_SHAPE_STR_MAX];
  if (v->rank != 1 || v->shape[0] != n) {
    pto_error_set(err, "%s: %s of shape %s, expected (%lld,)", what, name,
            kernel_shape_str(b, v), (long long)n);
    return NULL;
  }
  double *d = pto_malloc((size_t)(n ? n : 1) * sizeof *d);
  kernel_load_f64(v->dtype, v->data, 0, v->strides[0], n, d);
  return d;
}

PtoResult pto_kernel_rms_norm(const PtoNdArray *x, const PtoNdArray *gamma,
                              double eps, const PtoNdArray *out,
                              PtoKernelError *err) {
  if (x->rank == 0) return pto_error_set(err, "rms_norm needs rank >= 1");
  double *g = load_vec("rms_norm", "gamma", gamma, x->shape[x->rank - 1], err);
  if (!g) return PTO_FAILURE;
  LaneArgs la = {LANE_RMS_NORM, g, NULL, eps};
  PtoResult r = run_lanes(&la, "rms_norm", x, x->rank - 1, out, err);
  pto_free(g);
  return r;
}

PtoResult pto_kernel_layer_norm(const PtoNdArray *x, const PtoNdArray *gamma,
                                const PtoNdArray *beta, double eps,
                                const PtoNdArray *out, PtoKernelError *err) {
  if (x->rank == 0) return pto_error_set(err, "layer_norm needs rank >= 1");
  int64_t n = x->shape[x->rank - 1];
  double *g = load_vec("layer_norm", "gamma", gamma, n, err);
  if (!g) return PTO_FAILURE;
  double *b = load_vec("layer_norm", "beta", beta, n, err);
  if (!b) {
    pto_free(g);
    return PTO_FAILURE;
  }
  LaneArgs la = {LANE_LAYER_NORM, g, b, eps};
  PtoResult r = run_lanes(&la, "layer_norm", x, x->rank - 1, out, err);
  pto_free(g);
  pto_free(b);
  return r;
}
