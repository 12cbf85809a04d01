/* Tensors: refcounted host buffers with value semantics. A view or a
 * reshape of a contiguous tensor shares the buffer of the tensor that owns
 * it; writing requires pto_tensor_make_unique, which copies unless the
 * caller holds the only reference to both the tensor and its buffer. */
#include "pto/Interp.h"
#include "pto/Kernels.h"

#include "Support/Alloc.h"

#include <string.h>

struct PtoTensor {
  unsigned refs;
  PtoTensor *base; /* the tensor owning the buffer, for views; else NULL */
  void *buffer;    /* owned buffer, NULL for views */
  PtoNdArray arr;
};

static PtoTensor *new_owner(PtoDType dt, unsigned rank, const int64_t *shape,
                            size_t nbytes) {
  PtoTensor *t = pto_calloc(1, sizeof *t);
  t->refs = 1;
  t->buffer = pto_calloc(1, nbytes ? nbytes : 1);
  t->arr.dtype = dt;
  t->arr.rank = rank;
  memcpy(t->arr.shape, shape, rank * sizeof *shape);
  pto_contiguous_strides(rank, shape, t->arr.strides);
  t->arr.data = t->buffer;
  t->arr.nbytes = nbytes;
  return t;
}

PtoTensor *pto_tensor_create(PtoContext *ctx, PtoLoc *loc, PtoDType dt,
                             unsigned rank, const int64_t *shape) {
  size_t nbytes;
  PtoError err;
  if (pto_shape_check(dt, rank, shape, &nbytes, &err)) {
    if (ctx) pto_emit_plain_error(ctx, loc, &err);
    return NULL;
  }
  return new_owner(dt, rank, shape, nbytes);
}

static void copy_values(const PtoNdArray *src, const PtoNdArray *dst) {
  pto_dtype_convert(src->dtype, src->data, src->strides, dst->dtype,
                    dst->data, dst->strides, src->rank, src->shape,
                    PTO_CAST_DEFAULT);
}

PtoTensor *pto_tensor_from_ndarray(const PtoNdArray *a) {
  PtoTensor *t = new_owner(a->dtype, a->rank, a->shape,
                           (size_t)pto_ndarray_numel(a) * pto_dtype_size(a->dtype));
  copy_values(a, &t->arr);
  return t;
}

PtoTensor *pto_tensor_take_ndarray(PtoNdArray *a) {
  if (!a->owns_data || !pto_ndarray_is_contiguous(a)) {
    PtoTensor *t = pto_tensor_from_ndarray(a);
    pto_ndarray_destroy(a);
    return t;
  }
  PtoTensor *t = pto_calloc(1, sizeof *t);
  t->refs = 1;
  t->buffer = a->data;
  t->arr = *a;
  pto_contiguous_strides(a->rank, a->shape, t->arr.strides);
  t->arr.owns_data = false;
  a->owns_data = false;
  pto_ndarray_destroy(a);
  return t;
}

static PtoTensor *owner_of(PtoTensor *t) { return t->base ? t->base : t; }

/* A header sharing `t`'s buffer. */
static PtoTensor *new_alias(PtoTensor *t, void *data, unsigned rank,
                            const int64_t *shape, const int64_t *strides) {
  PtoTensor *v = pto_calloc(1, sizeof *v);
  v->refs = 1;
  v->base = pto_tensor_retain(owner_of(t));
  v->arr.dtype = t->arr.dtype;
  v->arr.rank = rank;
  memcpy(v->arr.shape, shape, rank * sizeof *shape);
  memcpy(v->arr.strides, strides, rank * sizeof *strides);
  v->arr.data = data;
  v->arr.nbytes = (size_t)pto_ndarray_numel(&v->arr) * pto_dtype_size(t->arr.dtype);
  return v;
}

PtoTensor *pto_tensor_view(PtoTensor *t, const int64_t *offsets,
                           const int64_t *shape) {
  bool empty = false;
  for (unsigned d = 0; d < t->arr.rank; d++) empty |= shape[d] == 0;
  /* an empty window addresses nothing; its offsets may point past the end */
  void *data = empty ? t->arr.data : pto_ndarray_elem_ptr(&t->arr, offsets);
  return new_alias(t, data, t->arr.rank, shape, t->arr.strides);
}

PtoTensor *pto_tensor_reshape(PtoTensor *t, unsigned rank,
                              const int64_t *shape) {
  int64_t strides[PTO_MAX_RANK];
  pto_contiguous_strides(rank, shape, strides);
  if (pto_ndarray_is_contiguous(&t->arr))
    return new_alias(t, t->arr.data, rank, shape, strides);
  PtoTensor *c = new_owner(t->arr.dtype, t->arr.rank, t->arr.shape,
                           (size_t)pto_ndarray_numel(&t->arr) *
                               pto_dtype_size(t->arr.dtype));
  copy_values(&t->arr, &c->arr);
  c->arr.rank = rank;
  memcpy(c->arr.shape, shape, rank * sizeof *shape);
  memcpy(c->arr.strides, strides, rank * sizeof *strides);
  return c;
}

PtoTensor *pto_tensor_retain(PtoTensor *t) {
  t->refs++;
  return t;
}

void pto_tensor_release(PtoTensor *t) {
  if (!t || --t->refs) return;
  if (t->base) pto_tensor_release(t->base);
  pto_free(t->buffer);
  pto_free(t);
}

const PtoNdArray *pto_tensor_array(const PtoTensor *t) { return &t->arr; }
PtoDType pto_tensor_dtype(const PtoTensor *t) { return t->arr.dtype; }
unsigned pto_tensor_rank(const PtoTensor *t) { return t->arr.rank; }
const int64_t *pto_tensor_shape(const PtoTensor *t) { return t->arr.shape; }
int64_t pto_tensor_numel(const PtoTensor *t) {
  return pto_ndarray_numel(&t->arr);
}

bool pto_tensor_is_unique(const PtoTensor *t) {
  return t->refs == 1 && !t->base;
}

PtoTensor *pto_tensor_make_unique(PtoTensor *t) {
  if (pto_tensor_is_unique(t) && pto_ndarray_is_contiguous(&t->arr)) return t;
  PtoTensor *c = new_owner(t->arr.dtype, t->arr.rank, t->arr.shape,
                           (size_t)pto_ndarray_numel(&t->arr) *
                               pto_dtype_size(t->arr.dtype));
  copy_values(&t->arr, &c->arr);
  pto_tensor_release(t);
  return c;
}
