/* Host n-d arrays: creation with checked sizes, wrapping caller memory,
 * element addressing, conversion and comparison. */
#include "pto/NdArray.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *pto_shape_str(char *buf, unsigned rank, const int64_t *shape) {
  size_t n = 0;
  buf[n++] = '(';
  for (unsigned i = 0; i < rank && i < PTO_MAX_RANK; i++)
    n += (size_t)sprintf(buf + n, i ? ", %" PRId64 : "%" PRId64, shape[i]);
  if (rank == 1) buf[n++] = ',';
  buf[n++] = ')';
  buf[n] = 0;
  return buf;
}

/* Bytes of a C-contiguous array of `shape`: false if a dim is negative or
 * the size overflows size_t. */
static bool shape_nbytes(PtoDType dt, unsigned rank, const int64_t *shape,
                         size_t *out) {
  size_t n = pto_dtype_size(dt);
  for (unsigned i = 0; i < rank; i++) {
    if (shape[i] < 0 || (uint64_t)shape[i] > SIZE_MAX) return false;
    if (!pto_size_mul(n, (size_t)shape[i], &n)) return false;
  }
  *out = n;
  return true;
}

PtoResult pto_shape_check(PtoDType dt, unsigned rank, const int64_t *shape,
                          size_t *nbytes, PtoError *err) {
  char buf[PTO_SHAPE_STR_MAX];
  if (!pto_dtype_is_valid((int)dt))
    return pto_error_set(err, "invalid dtype %d", (int)dt);
  if (rank > PTO_MAX_RANK)
    return pto_error_set(err, "array of rank %u exceeds the maximum rank %d",
                         rank, PTO_MAX_RANK);
  for (unsigned i = 0; i < rank; i++)
    if (shape[i] < 0)
      return pto_error_set(err,
                           "invalid shape %s: dimensions must be non-negative",
                           pto_shape_str(buf, rank, shape));
  if (!shape_nbytes(dt, rank, shape, nbytes))
    return pto_error_set(err,
                         "array of shape %s and dtype %s is too large: its "
                         "size in bytes overflows",
                         pto_shape_str(buf, rank, shape), pto_dtype_name(dt));
  return PTO_SUCCESS;
}

static PtoNdArray *new_header(PtoDType dt, unsigned rank, const int64_t *shape,
                              const int64_t *strides, size_t nbytes) {
  PtoNdArray *a = pto_calloc(1, sizeof *a);
  a->dtype = dt;
  a->rank = rank;
  if (rank) memcpy(a->shape, shape, rank * sizeof *shape);
  if (strides && rank) memcpy(a->strides, strides, rank * sizeof *strides);
  else pto_contiguous_strides(rank, shape, a->strides);
  a->nbytes = nbytes;
  return a;
}

PtoNdArray *pto_ndarray_create(PtoDType dt, unsigned rank, const int64_t *shape,
                               PtoError *err) {
  size_t nbytes;
  if (pto_shape_check(dt, rank, shape, &nbytes, err)) return NULL;
  PtoNdArray *a = new_header(dt, rank, shape, NULL, nbytes);
  a->data = pto_calloc(1, nbytes);
  a->owns_data = true;
  return a;
}

PtoNdArray *pto_ndarray_wrap(PtoDType dt, unsigned rank, const int64_t *shape,
                             const int64_t *strides, void *data,
                             PtoError *err) {
  size_t nbytes;
  if (pto_shape_check(dt, rank, shape, &nbytes, err)) return NULL;
  PtoNdArray *a = new_header(dt, rank, shape, strides, nbytes);
  a->data = data;
  return a;
}

void pto_ndarray_destroy(PtoNdArray *a) {
  if (!a) return;
  if (a->owns_data) pto_free(a->data);
  pto_free(a);
}

/* An empty array may have huge other dims whose product overflows. */
static bool is_empty(const PtoNdArray *a) {
  for (unsigned i = 0; i < a->rank; i++)
    if (a->shape[i] == 0) return true;
  return false;
}

int64_t pto_ndarray_numel(const PtoNdArray *a) {
  if (is_empty(a)) return 0;
  int64_t n = 1;
  for (unsigned i = 0; i < a->rank; i++) n *= a->shape[i];
  return n;
}

bool pto_ndarray_is_contiguous(const PtoNdArray *a) {
  if (is_empty(a)) return true;
  int64_t expect = 1;
  for (unsigned i = a->rank; i-- > 0;) {
    /* strides of size-1 dims never matter */
    if (a->shape[i] != 1 && a->strides[i] != expect) return false;
    expect *= a->shape[i];
  }
  return true;
}

void *pto_ndarray_elem_ptr(const PtoNdArray *a, const int64_t *index) {
  int64_t off = 0;
  for (unsigned i = 0; i < a->rank; i++) off += index[i] * a->strides[i];
  return (char *)a->data + off * (int64_t)pto_dtype_size(a->dtype);
}

PtoNdArray *pto_ndarray_convert(const PtoNdArray *a, PtoDType dt,
                                PtoCastMode mode) {
  size_t nbytes;
  /* a's own size was checked; a narrower or wider dtype may not fit. */
  if (!shape_nbytes(dt, a->rank, a->shape, &nbytes)) return NULL;
  PtoNdArray *r = new_header(dt, a->rank, a->shape, NULL, nbytes);
  r->data = pto_malloc(nbytes);
  r->owns_data = true;
  pto_dtype_convert(a->dtype, a->data, a->strides, dt, r->data, NULL, a->rank,
                    a->shape, mode);
  return r;
}

bool pto_ndarray_equal(const PtoNdArray *a, const PtoNdArray *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (unsigned i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  if (pto_ndarray_is_contiguous(a) && pto_ndarray_is_contiguous(b))
    return a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0;
  PtoNdArray *ca = pto_ndarray_convert(a, a->dtype, PTO_CAST_DEFAULT);
  PtoNdArray *cb = pto_ndarray_convert(b, b->dtype, PTO_CAST_DEFAULT);
  bool eq = memcmp(ca->data, cb->data, ca->nbytes) == 0;
  pto_ndarray_destroy(ca);
  pto_ndarray_destroy(cb);
  return eq;
}
