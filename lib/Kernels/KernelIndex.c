/* Indexing kernels: gather, index_select, scatter_update, index_add,
 * scatter (element-wise) and topk. Index
 * arrays are validated in full before anything is written, so that an
 * out-of-range index is reported with its position and leaves the output
 * untouched. */
#include "Kernels/KernelUtil.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sub-array at index i of dim `dim` (rank - 1 dims). */
static PtoNdArray select_slice(const PtoNdArray *a, unsigned dim, int64_t i) {
  PtoNdArray s = *a;
  s.data = kernel_at(a, i * a->strides[dim]);
  for (unsigned d = dim; d + 1 < a->rank; d++) {
    s.shape[d] = a->shape[d + 1];
    s.strides[d] = a->strides[d + 1];
  }
  s.rank = a->rank - 1;
  return s;
}

static void format_pos(char *buf, unsigned rank, const int64_t *pos) {
  pto_shape_str(buf, rank, pos);
}

/* Every element of `idx` in [0, size); otherwise err names the first bad
 * one (row-major order) and its position. */
static PtoResult check_indices(const PtoNdArray *idx, int64_t size,
                               unsigned dim, PtoKernelError *err) {
  if (!pto_dtype_is_int(idx->dtype) || idx->dtype == PTO_DT_BOOL)
    return pto_error_set(err, "indices must be integers, got %s",
                   pto_dtype_name(idx->dtype));
  int64_t pos[PTO_MAX_RANK] = {0};
  for (unsigned d = 0; d < idx->rank; d++)
    if (idx->shape[d] == 0) return PTO_SUCCESS;
  for (;;) {
    int64_t off = 0;
    for (unsigned d = 0; d < idx->rank; d++) off += pos[d] * idx->strides[d];
    int64_t v = pto_dtype_load_i64(idx->dtype, idx->data, off);
    if (v < 0 || v >= size) {
      char b[PTO_SHAPE_STR_MAX];
      format_pos(b, idx->rank, pos);
      return pto_error_set(err, "index %" PRId64 " at position %s is out of range "
                          "[0, %" PRId64 ") for dim %u", v, b, size, dim);
    }
    unsigned d = idx->rank;
    for (;;) {
      if (d == 0) return PTO_SUCCESS;
      d--;
      if (++pos[d] < idx->shape[d]) break;
      pos[d] = 0;
    }
  }
}

static PtoResult copy_slice(const PtoNdArray *src, const PtoNdArray *dst,
                            PtoKernelError *err) {
  return pto_kernel_unary(PTO_UNARY_IDENTITY, src, dst, err);
}

static PtoResult check_dim(const char *what, unsigned dim, unsigned rank,
                           PtoKernelError *err) {
  if (dim >= rank)
    return pto_error_set(err, "%s: dim %u out of range for rank %u", what, dim, rank);
  return PTO_SUCCESS;
}

/* What walk_indexed does at one position: `x` at element `xo` (the
 * position with its `dim` coordinate from the index) and `dense` at `dof`
 * (the position itself). */
typedef void (*IndexedFn)(const PtoNdArray *x, int64_t xo, const PtoNdArray *dense,
                          int64_t dof, const void *ctx);

/* Every position of `index` in row-major order, for gather (x -> dense)
 * and scatter (dense -> x); the indices are checked already. */
static void walk_indexed(const PtoNdArray *index, const PtoNdArray *dense,
                         const PtoNdArray *x, unsigned dim, IndexedFn fn,
                         const void *ctx) {
  int64_t st[3][PTO_MAX_RANK];
  memcpy(st[0], index->strides, index->rank * sizeof(int64_t));
  memcpy(st[1], dense->strides, dense->rank * sizeof(int64_t));
  memcpy(st[2], x->strides, x->rank * sizeof(int64_t));
  st[2][dim] = 0; /* the index supplies this coordinate */
  KernelIter it;
  kernel_iter_init(&it, index->rank, index->shape, 3, st);
  if (it.empty) return;
  int64_t sd = x->strides[dim];
  do {
    for (int64_t c = 0; c < it.n; c += KERNEL_CHUNK) {
      int64_t m = it.n - c < KERNEL_CHUNK ? it.n - c : KERNEL_CHUNK, iv[KERNEL_CHUNK];
      kernel_load_i64(index->dtype, index->data, it.off[0] + c * it.step[0],
                      it.step[0], m, iv);
      for (int64_t i = 0; i < m; i++) {
        int64_t j = c + i;
        fn(x, it.off[2] + j * it.step[2] + iv[i] * sd, dense, it.off[1] + j * it.step[1],
           ctx);
      }
    }
  } while (kernel_iter_next(&it));
}

static void gather_one(const PtoNdArray *x, int64_t xo, const PtoNdArray *out,
                       int64_t oo, const void *ctx) {
  (void)ctx;
  memcpy(kernel_at(out, oo), kernel_at(x, xo), pto_dtype_size(x->dtype));
}

PtoResult pto_kernel_gather(const PtoNdArray *x, const PtoNdArray *index,
                            unsigned dim, const PtoNdArray *out,
                            PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (check_dim("gather", dim, x->rank, err)) return PTO_FAILURE;
  if (index->rank != x->rank)
    return pto_error_set(err, "gather: index rank %u differs from the input rank %u",
                   index->rank, x->rank);
  for (unsigned d = 0; d < x->rank; d++)
    if (d != dim && index->shape[d] > x->shape[d])
      return pto_error_set(err, "index dim %u is %" PRId64 ", larger than the "
                          "input's %" PRId64, d, index->shape[d], x->shape[d]);
  if (out->dtype != x->dtype || !kernel_same_shape(out, index->rank, index->shape))
    return pto_error_set(err, "gather: output %s %s, expected %s %s",
                   pto_dtype_name(out->dtype), kernel_shape_str(b1, out),
                   pto_dtype_name(x->dtype), kernel_shape_str(b2, index));
  if (check_indices(index, x->shape[dim], dim, err)) return PTO_FAILURE;
  walk_indexed(index, out, x, dim, gather_one, NULL);
  return PTO_SUCCESS;
}

/* One element of scatter_elements: the value `reduce` leaves at dst[d]
 * given src[s]. Floats combine in double and round once (exact for the
 * product or sum of two floats of at most 32 bits); integers combine in
 * unsigned 64-bit arithmetic and wrap when stored. */
static void scatter_one(const PtoNdArray *dst, int64_t d, const PtoNdArray *src,
                        int64_t s, const void *ctx) {
  PtoScatterReduce reduce = *(const PtoScatterReduce *)ctx;
  PtoDType dt = dst->dtype;
  if (reduce == PTO_SCATTER_REPLACE) {
    size_t es = pto_dtype_size(dt);
    memcpy(kernel_at(dst, d), kernel_at(src, s), es);
  } else if (pto_dtype_is_float(dt)) {
    double a = pto_dtype_load_f64(dt, dst->data, d), b = pto_dtype_load_f64(dt, src->data, s);
    pto_dtype_store_f64(dt, dst->data, d, reduce == PTO_SCATTER_ADD ? a + b : a * b);
  } else {
    uint64_t a = (uint64_t)pto_dtype_load_i64(dt, dst->data, d),
             b = (uint64_t)pto_dtype_load_i64(dt, src->data, s);
    uint64_t v = reduce == PTO_SCATTER_ADD ? a + b : a * b;
    pto_dtype_store_i64(dt, dst->data, d, (int64_t)v);
  }
}

PtoResult pto_kernel_scatter_elements(const PtoNdArray *dst,
                                      const PtoNdArray *index,
                                      const PtoNdArray *src, unsigned dim,
                                      PtoScatterReduce reduce,
                                      PtoKernelError *err) {
  if (check_dim("scatter", dim, dst->rank, err)) return PTO_FAILURE;
  if (index->rank != dst->rank || src->rank != dst->rank)
    return pto_error_set(err, "scatter: index rank %u and src rank %u must equal the "
                         "input rank %u", index->rank, src->rank, dst->rank);
  if (src->dtype != dst->dtype)
    return pto_error_set(err, "scatter: src is %s but the input is %s",
                         pto_dtype_name(src->dtype), pto_dtype_name(dst->dtype));
  for (unsigned d = 0; d < dst->rank; d++) {
    if (d != dim && index->shape[d] > dst->shape[d])
      return pto_error_set(err, "scatter: index dim %u is %" PRId64 ", larger than the "
                           "input's %" PRId64, d, index->shape[d], dst->shape[d]);
    if (index->shape[d] > src->shape[d])
      return pto_error_set(err, "scatter: index dim %u is %" PRId64 ", larger than "
                           "src's %" PRId64, d, index->shape[d], src->shape[d]);
  }
  if (check_indices(index, dst->shape[dim], dim, err)) return PTO_FAILURE;
  walk_indexed(index, src, dst, dim, scatter_one, &reduce);
  return PTO_SUCCESS;
}

/* How move_slices moves: gather into `dense`, or scatter into `table`
 * overwriting or adding. */
typedef enum SliceMove { SLICE_GATHER, SLICE_SCATTER, SLICE_ADD } SliceMove;

/* index_select, scatter_update and index_add move slices along `dim`
 * between `table` (picked by the 1-D index) and `dense` (table's shape with
 * `dim` the index's length): dense[j] = table[index[j]], or the reverse
 * (=, or += in index order, so duplicates accumulate deterministically).
 * `dense_name` names `dense` in messages. */
static PtoResult move_slices(const char *what, const char *dense_name,
                             const PtoNdArray *table, const PtoNdArray *index,
                             const PtoNdArray *dense, unsigned dim,
                             SliceMove how, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (check_dim(what, dim, table->rank, err)) return PTO_FAILURE;
  if (index->rank != 1)
    return pto_error_set(err, "%s: the index must be 1-D, got shape %s", what,
                   kernel_shape_str(b1, index));
  int64_t want[PTO_MAX_RANK];
  memcpy(want, table->shape, table->rank * sizeof *want);
  want[dim] = index->shape[0];
  if (dense->dtype != table->dtype || !kernel_same_shape(dense, table->rank, want))
    return pto_error_set(err, "%s has shape %s, expected %s", dense_name,
                   kernel_shape_str(b1, dense), pto_shape_str(b2, table->rank, want));
  if (check_indices(index, table->shape[dim], dim, err)) return PTO_FAILURE;
  for (int64_t j = 0; j < index->shape[0]; j++) {
    int64_t v = pto_dtype_load_i64(index->dtype, index->data,
                                   j * index->strides[0]);
    PtoNdArray ts = select_slice(table, dim, v), ds = select_slice(dense, dim, j);
    PtoResult r = how == SLICE_GATHER  ? copy_slice(&ts, &ds, err)
                  : how == SLICE_SCATTER ? copy_slice(&ds, &ts, err)
                                         : pto_kernel_binary(PTO_BINARY_ADD, &ts, &ds, &ts, err);
    if (r) return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

PtoResult pto_kernel_index_select(const PtoNdArray *x,
                                  const PtoNdArray *index, unsigned dim,
                                  const PtoNdArray *out, PtoKernelError *err) {
  return move_slices("index_select", "the output", x, index, out, dim, SLICE_GATHER,
                     err);
}

PtoResult pto_kernel_scatter_update(const PtoNdArray *dst,
                                    const PtoNdArray *index,
                                    const PtoNdArray *src, unsigned dim,
                                    PtoKernelError *err) {
  return move_slices("scatter_update", "src", dst, index, src, dim, SLICE_SCATTER,
                     err);
}

PtoResult pto_kernel_index_add(const PtoNdArray *dst, const PtoNdArray *index,
                               const PtoNdArray *src, unsigned dim,
                               PtoKernelError *err) {
  return move_slices("index_add", "source", dst, index, src, dim, SLICE_ADD, err);
}

/* ------------------------------------------------------------------ */
/* topk                                                                 */
/* ------------------------------------------------------------------ */

typedef struct SortItem {
  double f;
  int64_t i;
  int64_t idx;
} SortItem;

/* Orders by value (descending for the `desc` comparators), NaN above every
 * number, then by index: a total order, so qsort's instability is moot. */
static int cmp_idx(const SortItem *a, const SortItem *b) {
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}
static int cmp_f(const void *pa, const void *pb, bool desc) {
  const SortItem *a = pa, *b = pb;
  bool na = isnan(a->f), nb = isnan(b->f);
  if (na != nb) return (na ? -1 : 1) * (desc ? 1 : -1);
  if (!na && a->f != b->f) return (a->f > b->f ? -1 : 1) * (desc ? 1 : -1);
  return cmp_idx(a, b);
}
static int cmp_i(const void *pa, const void *pb, bool desc) {
  const SortItem *a = pa, *b = pb;
  if (a->i != b->i) return (a->i > b->i ? -1 : 1) * (desc ? 1 : -1);
  return cmp_idx(a, b);
}
static int cmp_f_desc(const void *a, const void *b) { return cmp_f(a, b, true); }
static int cmp_f_asc(const void *a, const void *b) { return cmp_f(a, b, false); }
static int cmp_i_desc(const void *a, const void *b) { return cmp_i(a, b, true); }
static int cmp_i_asc(const void *a, const void *b) { return cmp_i(a, b, false); }

PtoResult pto_kernel_topk(const PtoNdArray *x, int64_t k, unsigned dim,
                          bool largest, const PtoNdArray *values,
                          const PtoNdArray *indices, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (check_dim("topk", dim, x->rank, err)) return PTO_FAILURE;
  int64_t R = x->shape[dim];
  if (k < 1 || k > R)
    return pto_error_set(err, "k (%" PRId64 ") must be in [1, %" PRId64 "], the "
                        "size of dim %u", k, R, dim);
  int64_t want[PTO_MAX_RANK];
  memcpy(want, x->shape, x->rank * sizeof *want);
  want[dim] = k;
  if (values->dtype != x->dtype || !kernel_same_shape(values, x->rank, want) ||
      !pto_dtype_is_int(indices->dtype) ||
      !kernel_same_shape(indices, x->rank, want))
    return pto_error_set(err, "topk: outputs of shapes %s and %s, expected %s",
                   kernel_shape_str(b1, values), kernel_shape_str(b2, indices),
                   pto_shape_str(b2, x->rank, want));
  bool fl = pto_dtype_is_float(x->dtype);
  int (*cmp)(const void *, const void *) =
      fl ? (largest ? cmp_f_desc : cmp_f_asc) : (largest ? cmp_i_desc : cmp_i_asc);
  int64_t lane[PTO_MAX_RANK], st[3][PTO_MAX_RANK];
  memcpy(lane, x->shape, x->rank * sizeof *lane);
  lane[dim] = 1;
  memcpy(st[0], x->strides, x->rank * sizeof(int64_t));
  memcpy(st[1], values->strides, x->rank * sizeof(int64_t));
  memcpy(st[2], indices->strides, x->rank * sizeof(int64_t));
  KernelIter it;
  kernel_iter_init(&it, x->rank, lane, 3, st);
  if (it.empty) return PTO_SUCCESS;
  SortItem *items = pto_malloc((size_t)R * sizeof *items);
  size_t es = pto_dtype_size(x->dtype);
  do {
    for (int64_t j = 0; j < it.n; j++) {
      int64_t xo = it.off[0] + j * it.step[0];
      int64_t vo = it.off[1] + j * it.step[1], io = it.off[2] + j * it.step[2];
      for (int64_t r = 0; r < R; r++) {
        int64_t o = xo + r * x->strides[dim];
        items[r].idx = r;
        if (fl) items[r].f = pto_dtype_load_f64(x->dtype, x->data, o);
        else items[r].i = kernel_ord_key(x->dtype, pto_dtype_load_i64(x->dtype, x->data, o));
      }
      qsort(items, (size_t)R, sizeof *items, cmp);
      for (int64_t r = 0; r < k; r++) {
        memcpy(kernel_at(values, vo + r * values->strides[dim]),
               kernel_at(x, xo + items[r].idx * x->strides[dim]), es);
        kernel_store_i64(indices->dtype, indices->data,
                     io + r * indices->strides[dim], 0, 1, &items[r].idx);
      }
    }
  } while (kernel_iter_next(&it));
  pto_free(items);
  return PTO_SUCCESS;
}

/* A view of the last-dim columns [c0, c0 + n) of contiguous array a. */
static PtoNdArray columns(const PtoNdArray *a, int64_t c0, int64_t n) {
  PtoNdArray v = *a;
  v.shape[v.rank - 1] = n;
  v.data = (char *)a->data + c0 * a->strides[a->rank - 1] *
                                 (int64_t)pto_dtype_size(a->dtype);
  v.owns_data = false;
  return v;
}

PtoResult pto_kernel_topk_merge(const PtoNdArray *v0, const PtoNdArray *i0,
                                const PtoNdArray *v1, const PtoNdArray *i1,
                                int64_t k, bool largest,
                                const PtoNdArray *values,
                                const PtoNdArray *indices, PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  unsigned r = v0->rank;
  if (r == 0 || v1->rank != r || i0->rank != r || i1->rank != r ||
      v1->dtype != v0->dtype)
    return pto_error_set(err, "topk_merge: lists of shapes %s and %s (%s, %s)",
                         kernel_shape_str(b1, v0), kernel_shape_str(b2, v1),
                         pto_dtype_name(v0->dtype), pto_dtype_name(v1->dtype));
  int64_t shape[PTO_MAX_RANK];
  memcpy(shape, v0->shape, r * sizeof *shape);
  shape[r - 1] += v1->shape[r - 1];
  PtoNdArray *vals = pto_ndarray_create(v0->dtype, r, shape, err);
  PtoNdArray *idxs = vals ? pto_ndarray_create(i0->dtype, r, shape, err) : NULL;
  memcpy(shape, values->shape, r * sizeof *shape);
  PtoNdArray *pos = idxs ? pto_ndarray_create(PTO_DT_I64, r, shape, err) : NULL;
  PtoResult res = PTO_FAILURE;
  if (pos) {
    int64_t n0 = v0->shape[r - 1], n1 = v1->shape[r - 1];
    PtoNdArray w[4] = {columns(vals, 0, n0), columns(idxs, 0, n0),
                       columns(vals, n0, n1), columns(idxs, n0, n1)};
    const PtoNdArray *in[4] = {v0, i0, v1, i1};
    res = PTO_SUCCESS;
    for (unsigned j = 0; j < 4 && !res; j++)
      res = pto_kernel_unary(PTO_UNARY_IDENTITY, in[j], &w[j], err);
    if (!res) res = pto_kernel_topk(vals, k, r - 1, largest, values, pos, err);
    if (!res) res = pto_kernel_gather(idxs, pos, r - 1, indices, err);
  }
  pto_ndarray_destroy(vals);
  pto_ndarray_destroy(idxs);
  pto_ndarray_destroy(pos);
  return res;
}
