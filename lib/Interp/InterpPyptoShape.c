/* Handlers of the pypto shape and indexing ops: view (zero-copy window),
 * assemble and scatter_update (copy-on-write of the destination), reshape,
 * transpose, concat, expand, full, zeros, dim, load_scalar, bitcast, gather,
 * index_select and topk. Bounds that depend on run-time values are checked here. */
#include "Interp/InterpPypto.h"

#include "Support/Alloc.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/IRArray.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Windows: view and assemble                                           */
/* ------------------------------------------------------------------ */

/* Run-time offsets of a view/assemble, checked against the source dims
 * for a window of `size`. */
static PtoResult window_offsets(PtoInterpFrame *f, PtoOp *op,
                                const PtoNdArray *src, const int64_t *size,
                                int64_t *offs) {
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_offsets(op, offs, dyn);
  return interp_window_offsets(f, op, src, n, offs, dyn, size, -1);
}

static PtoResult h_view(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoTensor *x = pto_interp_operand_tensor(f, op, 0);
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  int64_t offs[PTO_MAX_RANK];
  const int64_t *size = pto_type_tensor_shape(rt);
  if (window_offsets(f, op, pto_tensor_array(x), size, offs))
    return PTO_FAILURE;
  interp_set_tensor(f, op, 0, pto_tensor_view(x, offs, size));
  return PTO_SUCCESS;
}

static PtoResult h_assemble(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *v = interp_tensor_arg(f, op, 0);
  int64_t offs[PTO_MAX_RANK];
  if (window_offsets(f, op, interp_tensor_arg(f, op, 1), v->shape, offs))
    return PTO_FAILURE;
  /* the destination is updated in place when this was its last use */
  PtoTensor *y = pto_tensor_make_unique(pto_interp_take_operand_tensor(f, op, 1));
  if (pto_ndarray_numel(v) == 0) {
    interp_set_tensor(f, op, 0, y);
    return PTO_SUCCESS;
  }
  PtoNdArray w = interp_window_of(pto_tensor_array(y), offs, v->shape);
  PtoKernelError err;
  return interp_finish(f, op, y, pto_kernel_unary(PTO_UNARY_IDENTITY, v, &w, &err),
                &err);
}

/* ------------------------------------------------------------------ */
/* reshape, transpose, concat, expand, full, zeros, dim                 */
/* ------------------------------------------------------------------ */

static PtoResult h_reshape(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoTensor *x = pto_interp_operand_tensor(f, op, 0);
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  unsigned rank = pto_type_tensor_rank(rt), dyn = rank;
  int64_t shape[PTO_MAX_RANK], known = 1, numel = pto_tensor_numel(x);
  for (unsigned d = 0; d < rank; d++) {
    shape[d] = pto_type_tensor_dim(rt, d);
    if (shape[d] == PTO_DYN) dyn = d;
    else known *= shape[d];
  }
  if (dyn < rank) shape[dyn] = known && numel % known == 0 ? numel / known : -1;
  if (dyn < rank ? shape[dyn] < 0 : known != numel) {
    char *ts = pto_type_to_string(rt);
    PtoResult r = pto_interp_error(f, op, "cannot reshape %" PRId64 " elements "
                                          "into '%s' at run time", numel, ts);
    pto_free(ts);
    return r;
  }
  interp_set_tensor(f, op, 0, pto_tensor_reshape(x, rank, shape));
  return PTO_SUCCESS;
}

static PtoResult h_transpose(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  int64_t perm[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_perm(op, perm);
  PtoNdArray p = *x; /* x's elements seen in the permuted order */
  for (unsigned d = 0; d < n; d++) {
    p.shape[d] = x->shape[perm[d]];
    p.strides[d] = x->strides[perm[d]];
  }
  PtoTensor *t = interp_new_result(f, op, 0, n, p.shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return interp_finish(f, op, t,
                pto_kernel_unary(PTO_UNARY_IDENTITY, &p, pto_tensor_array(t), &err),
                &err);
}

static PtoResult h_concat(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  unsigned n = pto_op_num_operands(op), dim = pto_pypto_get_dim(op);
  const PtoNdArray *x0 = interp_tensor_arg(f, op, 0);
  int64_t shape[PTO_MAX_RANK];
  memcpy(shape, x0->shape, x0->rank * sizeof *shape);
  shape[dim] = 0;
  for (unsigned i = 0; i < n; i++) {
    const PtoNdArray *x = interp_tensor_arg(f, op, i);
    for (unsigned d = 0; d < x->rank; d++)
      if (d != dim && x->shape[d] != x0->shape[d])
        return pto_interp_error(f, op, "operand #%u dim %u is %" PRId64 " at "
                                       "run time, expected %" PRId64,
                                i, d, x->shape[d], x0->shape[d]);
    shape[dim] += x->shape[dim];
  }
  PtoTensor *t = interp_new_result(f, op, 0, x0->rank, shape);
  if (!t) return PTO_FAILURE;
  int64_t offs[PTO_MAX_RANK] = {0};
  PtoKernelError err;
  for (unsigned i = 0; i < n; i++) {
    const PtoNdArray *x = interp_tensor_arg(f, op, i);
    if (pto_ndarray_numel(x) == 0) continue;
    PtoNdArray w = interp_window_of(pto_tensor_array(t), offs, x->shape);
    if (pto_kernel_unary(PTO_UNARY_IDENTITY, x, &w, &err))
      return interp_kernel_error(f, op, &err, t);
    offs[dim] += x->shape[dim];
  }
  interp_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

static PtoResult h_expand(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (interp_result_sizes(f, op, 1, &rank, shape)) return PTO_FAILURE;
  unsigned lead = rank - x->rank;
  for (unsigned d = 0; d < x->rank; d++)
    if (x->shape[d] != 1 && x->shape[d] != shape[lead + d])
      return pto_interp_error(f, op, "cannot expand dim %u of size %" PRId64
                                     " to %" PRId64 " at run time",
                              d, x->shape[d], shape[lead + d]);
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return interp_finish(f, op, t,
                pto_kernel_unary(PTO_UNARY_IDENTITY, x, pto_tensor_array(t), &err),
                &err);
}

/* full (fill value first) and zeros */
static PtoResult h_fill(PtoInterpFrame *f, PtoOp *op, void *user) {
  bool full = (PtoPyptoOp)(intptr_t)user == PTO_PYPTO_FULL;
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (interp_result_sizes(f, op, full ? 1 : 0, &rank, shape)) return PTO_FAILURE;
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  if (full) {
    uint64_t buf;
    PtoNdArray v = interp_operand_array(f, op, 0, &buf);
    if (pto_kernel_unary(PTO_UNARY_IDENTITY, &v, pto_tensor_array(t), &err))
      return interp_kernel_error(f, op, &err, t);
  }
  interp_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

static PtoResult h_dim(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  pto_interp_set_result(f, op, 0,
                        pto_interp_value_int(PTO_DT_INDEX,
                                             x->shape[pto_pypto_get_dim(op)]));
  return PTO_SUCCESS;
}

/* bitcast: the operand's bytes in row-major order (it may be a strided
 * view) copied into a contiguous tensor of the result's type. */
static PtoResult h_bitcast(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  unsigned rank = x->rank;
  int64_t shape[PTO_MAX_RANK];
  memcpy(shape, x->shape, rank * sizeof *shape);
  PtoDType dt;
  if (!pto_dtype_from_type(pto_type_tensor_elem(rt), &dt))
    return pto_interp_error(f, op, "unsupported result element type");
  size_t from = pto_dtype_size(x->dtype), to = pto_dtype_size(dt);
  if (rank) shape[rank - 1] = shape[rank - 1] * (int64_t)from / (int64_t)to;
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  char *out = pto_tensor_array(t)->data;
  int64_t n = pto_ndarray_numel(x), idx[PTO_MAX_RANK] = {0};
  for (int64_t k = 0; k < n; k++) {
    int64_t at = 0;
    for (unsigned d = 0; d < rank; d++) at += idx[d] * x->strides[d];
    memcpy(out + k * (int64_t)from, (const char *)x->data + at * (int64_t)from, from);
    for (unsigned d = rank; d-- > 0;) {
      if (++idx[d] < x->shape[d]) break;
      idx[d] = 0;
    }
  }
  interp_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

/* load_scalar (and tile.load_scalar, its alias): operand #0 is the tensor,
 * the dynamic indices follow it, as the op tables of both levels have it. */
static PtoResult h_load_scalar(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  int64_t idx[PTO_MAX_RANK];
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_attr(op, PTO_ATTR_STATIC_OFFSETS), idx,
                              PTO_MAX_RANK, &n) ||
      n != x->rank)
    return pto_interp_error(f, op, "expected %u indices, got %u", x->rank, n);
  unsigned next = 1;
  int64_t at = 0;
  for (unsigned d = 0; d < n; d++) {
    if (idx[d] == PTO_DYN) idx[d] = pto_interp_operand_int(f, op, next++);
    if (idx[d] < 0 || idx[d] >= x->shape[d])
      return pto_interp_error(f, op, "index %" PRId64 " is out of range for dim %u "
                                     "of size %" PRId64 " at run time",
                              idx[d], d, x->shape[d]);
    at += idx[d] * x->strides[d];
  }
  pto_interp_set_result(f, op, 0,
                        pto_interp_value_int(PTO_DT_INDEX,
                                             pto_dtype_load_i64(x->dtype, x->data, at)));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Indexing                                                             */
/* ------------------------------------------------------------------ */

static PtoResult h_gather(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0), *idx = interp_tensor_arg(f, op, 1);
  PtoTensor *t = interp_new_result(f, op, 0, idx->rank, idx->shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return interp_finish(f, op, t,
                pto_kernel_gather(x, idx, pto_pypto_get_dim(op),
                                  pto_tensor_array(t), &err),
                &err);
}

static PtoResult h_index_select(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0), *idx = interp_tensor_arg(f, op, 1);
  unsigned dim = pto_pypto_get_dim(op);
  int64_t shape[PTO_MAX_RANK];
  memcpy(shape, x->shape, x->rank * sizeof *shape);
  shape[dim] = idx->shape[0];
  PtoTensor *t = interp_new_result(f, op, 0, x->rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return interp_finish(f, op, t,
                pto_kernel_index_select(x, idx, dim, pto_tensor_array(t), &err),
                &err);
}

static PtoResult h_scatter(PtoInterpFrame *f, PtoOp *op, void *user) {
  bool add = (PtoPyptoOp)(intptr_t)user == PTO_PYPTO_INDEX_ADD;
  const PtoNdArray *idx = interp_tensor_arg(f, op, 1), *src = interp_tensor_arg(f, op, 2);
  PtoTensor *y = pto_tensor_make_unique(pto_interp_take_operand_tensor(f, op, 0));
  PtoKernelError err;
  unsigned dim = pto_pypto_get_dim(op);
  PtoResult r = add ? pto_kernel_index_add(pto_tensor_array(y), idx, src, dim, &err)
                    : pto_kernel_scatter_update(pto_tensor_array(y), idx, src, dim, &err);
  return interp_finish(f, op, y, r, &err);
}

PtoScatterReduce interp_scatter_reduce(const PtoOp *op) {
  PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_REDUCE);
  if (!a) return PTO_SCATTER_REPLACE;
  return strcmp(pto_attr_str(a), "add") == 0 ? PTO_SCATTER_ADD : PTO_SCATTER_MULTIPLY;
}

static PtoResult h_scatter_elements(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *idx = interp_tensor_arg(f, op, 1), *src = interp_tensor_arg(f, op, 2);
  PtoTensor *y = pto_tensor_make_unique(pto_interp_take_operand_tensor(f, op, 0));
  PtoKernelError err;
  PtoResult r = pto_kernel_scatter_elements(pto_tensor_array(y), idx, src,
                                            pto_pypto_get_dim(op),
                                            interp_scatter_reduce(op), &err);
  return interp_finish(f, op, y, r, &err);
}

static PtoResult h_topk(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  unsigned dim = pto_pypto_get_dim(op);
  int64_t k = pto_pypto_get_k(op), shape[PTO_MAX_RANK];
  if (k > x->shape[dim])
    return pto_interp_error(f, op, "attribute 'k' (%" PRId64 ") exceeds dim %u "
                                   "of size %" PRId64 " at run time",
                            k, dim, x->shape[dim]);
  memcpy(shape, x->shape, x->rank * sizeof *shape);
  shape[dim] = k;
  PtoTensor *v = interp_new_result(f, op, 0, x->rank, shape);
  PtoTensor *i = v ? interp_new_result(f, op, 1, x->rank, shape) : NULL;
  if (!i) {
    pto_tensor_release(v);
    return PTO_FAILURE;
  }
  PtoKernelError err;
  if (pto_kernel_topk(x, k, dim, pto_pypto_get_largest(op), pto_tensor_array(v),
                      pto_tensor_array(i), &err)) {
    pto_tensor_release(i);
    return interp_kernel_error(f, op, &err, v);
  }
  interp_set_tensor(f, op, 0, v);
  interp_set_tensor(f, op, 1, i);
  return PTO_SUCCESS;
}

void interp_register_shape_ops(PtoInterp *I) {
  static const struct {
    PtoPyptoOp id;
    PtoInterpHandler fn;
  } ops[] = {
      {PTO_PYPTO_VIEW, h_view},
      {PTO_PYPTO_ASSEMBLE, h_assemble},
      {PTO_PYPTO_RESHAPE, h_reshape},
      {PTO_PYPTO_TRANSPOSE, h_transpose},
      {PTO_PYPTO_CONCAT, h_concat},
      {PTO_PYPTO_EXPAND, h_expand},
      {PTO_PYPTO_FULL, h_fill},
      {PTO_PYPTO_ZEROS, h_fill},
      {PTO_PYPTO_DIM, h_dim},
      {PTO_PYPTO_LOAD_SCALAR, h_load_scalar},
      {PTO_PYPTO_BITCAST, h_bitcast},
      {PTO_PYPTO_GATHER, h_gather},
      {PTO_PYPTO_INDEX_SELECT, h_index_select},
      {PTO_PYPTO_SCATTER_UPDATE, h_scatter},
      {PTO_PYPTO_INDEX_ADD, h_scatter},
      {PTO_PYPTO_SCATTER, h_scatter_elements},
      {PTO_PYPTO_TOPK, h_topk},
  };
  for (size_t i = 0; i < PTO_ARRAY_SIZE(ops); i++)
    pto_interp_register(I, pto_pypto_op_name(ops[i].id), ops[i].fn,
                        (void *)(intptr_t)ops[i].id);
}
