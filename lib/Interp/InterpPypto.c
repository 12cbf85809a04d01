/* Handlers of the pypto compute ops: elementwise (unary, cast, binary,
 * tensor-scalar, compare, where), reductions, matmul, the composites and
 * quantisation. Each checks the run-time shapes the verifier could not
 * (dynamic dims), then calls the shared kernel. */
#include "Interp/InterpPypto.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Shared helpers                                                       */
/* ------------------------------------------------------------------ */

PtoNdArray ip_operand_array(PtoInterpFrame *f, PtoOp *op, unsigned i,
                            uint64_t *buf) {
  const PtoInterpValue *v = pto_interp_operand(f, op, i);
  if (v->kind == PTO_IVAL_TENSOR) return *pto_tensor_array(v->tensor);
  if (pto_dtype_is_float(v->dtype)) pto_dtype_store_f64(v->dtype, buf, 0, v->f);
  else pto_dtype_store_i64(v->dtype, buf, 0, v->i);
  return pto_ndarray_scalar_view(v->dtype, buf);
}

PtoTensor *ip_new_result(PtoInterpFrame *f, PtoOp *op, unsigned i,
                         unsigned rank, const int64_t *shape) {
  PtoDType dt;
  if (pto_interp_result_dtype(f, op, i, &dt)) return NULL;
  return pto_interp_new_tensor(f, op, dt, rank, shape);
}

PtoResult ip_kernel_error(PtoInterpFrame *f, PtoOp *op,
                          const PtoKernelError *err, PtoTensor *t) {
  pto_tensor_release(t);
  return pto_interp_error(f, op, "%s", err->msg);
}

void ip_set_tensor(PtoInterpFrame *f, PtoOp *op, unsigned i, PtoTensor *t) {
  pto_interp_set_result(f, op, i, pto_interp_value_tensor(t));
}

PtoResult ip_shape_error(PtoInterpFrame *f, PtoOp *op, const char *what,
                         const PtoNdArray *a, const PtoNdArray *b,
                         const char *tail) {
  PtoContext *ctx = pto_interp_ctx(pto_interp_frame_interp(f));
  char *sa = pto_interp_array_type_str(ctx, a);
  char *sb = pto_interp_array_type_str(ctx, b);
  PtoResult r = pto_interp_error(f, op, "%s at run time: '%s' and '%s'%s",
                                 what, sa, sb, tail);
  pto_free(sa);
  pto_free(sb);
  return r;
}

PtoResult ip_broadcast(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *a,
                       const PtoNdArray *b, unsigned *rank, int64_t *shape) {
  unsigned bad;
  if (pto_broadcast_shapes(a->rank, a->shape, b->rank, b->shape, rank, shape,
                           &bad))
    return PTO_SUCCESS;
  unsigned r = a->rank > b->rank ? a->rank : b->rank;
  int64_t x = bad + a->rank >= r ? a->shape[bad + a->rank - r] : 1;
  int64_t y = bad + b->rank >= r ? b->shape[bad + b->rank - r] : 1;
  char tail[96];
  snprintf(tail, sizeof tail, " (dim %u: %" PRId64 " vs %" PRId64 ")", bad, x,
           y);
  return ip_shape_error(f, op, "operands are not broadcast-compatible", a, b,
                        tail);
}

PtoNdArray ip_window_of(const PtoNdArray *a, const int64_t *offs,
                        const int64_t *shape) {
  PtoNdArray w = *a;
  w.data = pto_ndarray_elem_ptr(a, offs);
  memcpy(w.shape, shape, a->rank * sizeof(int64_t));
  return w;
}

PtoResult ip_window_offsets(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *src,
                            unsigned n, int64_t *offs, PtoValue *const *dyn,
                            const int64_t *size, int free) {
  for (unsigned d = 0; d < n && d < src->rank; d++) {
    if (dyn[d]) offs[d] = pto_interp_value_as_i64(pto_interp_slot(f, dyn[d]));
    if ((int)d == free) continue;
    if (offs[d] < 0)
      return pto_interp_error(f, op, "offset #%u is %" PRId64 " at run time; "
                                     "offsets must be non-negative",
                              d, offs[d]);
    if (size[d] > src->shape[d] || offs[d] > src->shape[d] - size[d])
      return pto_interp_error(f, op, "window out of bounds in dim %u at run "
                                     "time: offset %" PRId64 " + size %" PRId64
                                     " > %" PRId64,
                              d, offs[d], size[d], src->shape[d]);
  }
  return PTO_SUCCESS;
}

PtoResult ip_result_sizes(PtoInterpFrame *f, PtoOp *op, unsigned first,
                          unsigned *rank, int64_t *shape) {
  PtoType *ty = pto_value_type(pto_op_result(op, 0));
  *rank = pto_type_tensor_rank(ty);
  unsigned next = first;
  for (unsigned d = 0; d < *rank; d++) {
    shape[d] = pto_type_tensor_dim(ty, d);
    if (shape[d] != PTO_DYN) continue;
    shape[d] = pto_interp_operand_int(f, op, next);
    if (shape[d] < 0)
      return pto_interp_error(f, op, "size operand #%u is %" PRId64 " at run "
                                     "time; sizes must be non-negative",
                              next, shape[d]);
    next++;
  }
  return PTO_SUCCESS;
}

static const PtoNdArray *tensor_arg(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  return pto_tensor_array(pto_interp_operand_tensor(f, op, i));
}

/* Runs `r` (a kernel call) on result tensor t and sets it as result 0. */
static PtoResult finish(PtoInterpFrame *f, PtoOp *op, PtoTensor *t,
                        PtoResult r, const PtoKernelError *err) {
  if (r) return ip_kernel_error(f, op, err, t);
  ip_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

static PtoPyptoOp id_of(void *user) { return (PtoPyptoOp)(intptr_t)user; }

/* ------------------------------------------------------------------ */
/* Elementwise                                                          */
/* ------------------------------------------------------------------ */

static PtoUnaryKind unary_kind(PtoPyptoOp id, PtoOp *op) {
  switch (id) {
  case PTO_PYPTO_ABS: return PTO_UNARY_ABS;
  case PTO_PYPTO_NEG: return PTO_UNARY_NEG;
  case PTO_PYPTO_EXP: return PTO_UNARY_EXP;
  case PTO_PYPTO_LOG: return PTO_UNARY_LOG;
  case PTO_PYPTO_SQRT: return PTO_UNARY_SQRT;
  case PTO_PYPTO_RSQRT: return PTO_UNARY_RSQRT;
  case PTO_PYPTO_RECIPROCAL: return PTO_UNARY_RECIPROCAL;
  case PTO_PYPTO_RELU: return PTO_UNARY_RELU;
  case PTO_PYPTO_SIGMOID: return PTO_UNARY_SIGMOID;
  case PTO_PYPTO_TANH: return PTO_UNARY_TANH;
  case PTO_PYPTO_SILU: return PTO_UNARY_SILU;
  case PTO_PYPTO_GELU:
    return pto_pypto_get_gelu_tanh(op) ? PTO_UNARY_GELU_TANH : PTO_UNARY_GELU;
  case PTO_PYPTO_SIN: return PTO_UNARY_SIN;
  case PTO_PYPTO_COS: return PTO_UNARY_COS;
  case PTO_PYPTO_FLOOR: return PTO_UNARY_FLOOR;
  case PTO_PYPTO_CEIL: return PTO_UNARY_CEIL;
  case PTO_PYPTO_ROUND: return PTO_UNARY_ROUND;
  default: return PTO_UNARY_ERF;
  }
}

static PtoResult h_unary(PtoInterpFrame *f, PtoOp *op, void *user) {
  const PtoNdArray *x = tensor_arg(f, op, 0);
  PtoTensor *t = ip_new_result(f, op, 0, x->rank, x->shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_unary(unary_kind(id_of(user), op), x,
                                 pto_tensor_array(t), &err);
  return finish(f, op, t, r, &err);
}

static PtoResult h_cast(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = tensor_arg(f, op, 0);
  PtoTensor *t = ip_new_result(f, op, 0, x->rank, x->shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_cast(x, pto_tensor_array(t),
                                pto_pypto_get_cast_mode(op), &err);
  return finish(f, op, t, r, &err);
}

static PtoBinaryKind binary_kind(PtoPyptoOp id) {
  switch (id) {
  case PTO_PYPTO_ADD: case PTO_PYPTO_ADDS: return PTO_BINARY_ADD;
  case PTO_PYPTO_SUB: case PTO_PYPTO_SUBS: return PTO_BINARY_SUB;
  case PTO_PYPTO_MUL: case PTO_PYPTO_MULS: return PTO_BINARY_MUL;
  case PTO_PYPTO_DIV: case PTO_PYPTO_DIVS: return PTO_BINARY_DIV;
  case PTO_PYPTO_MAXIMUM: case PTO_PYPTO_MAXS: return PTO_BINARY_MAX;
  case PTO_PYPTO_MINIMUM: case PTO_PYPTO_MINS: return PTO_BINARY_MIN;
  case PTO_PYPTO_POW: return PTO_BINARY_POW;
  case PTO_PYPTO_EQ: return PTO_BINARY_EQ;
  case PTO_PYPTO_NE: return PTO_BINARY_NE;
  case PTO_PYPTO_LT: return PTO_BINARY_LT;
  case PTO_PYPTO_LE: return PTO_BINARY_LE;
  case PTO_PYPTO_GT: return PTO_BINARY_GT;
  default: return PTO_BINARY_GE;
  }
}

/* binary, tensor-scalar and compare ops */
static PtoResult h_binary(PtoInterpFrame *f, PtoOp *op, void *user) {
  uint64_t ba, bb;
  PtoNdArray a = ip_operand_array(f, op, 0, &ba);
  PtoNdArray b = ip_operand_array(f, op, 1, &bb);
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (ip_broadcast(f, op, &a, &b, &rank, shape)) return PTO_FAILURE;
  PtoTensor *t = ip_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_binary(binary_kind(id_of(user)), &a, &b,
                                  pto_tensor_array(t), &err);
  return finish(f, op, t, r, &err);
}

static PtoResult h_where(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  uint64_t bufs[3];
  PtoNdArray a[3];
  for (unsigned i = 0; i < 3; i++) a[i] = ip_operand_array(f, op, i, &bufs[i]);
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (ip_broadcast(f, op, &a[0], &a[1], &rank, shape)) return PTO_FAILURE;
  PtoNdArray cx = a[0];
  cx.rank = rank;
  memcpy(cx.shape, shape, sizeof shape);
  if (ip_broadcast(f, op, &cx, &a[2], &rank, shape)) return PTO_FAILURE;
  PtoTensor *t = ip_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_where(&a[0], &a[1], &a[2], pto_tensor_array(t), &err);
  return finish(f, op, t, r, &err);
}

/* ------------------------------------------------------------------ */
/* Reductions                                                           */
/* ------------------------------------------------------------------ */

/* `a` (contiguous) seen with the reduced dim kept as size 1. */
static PtoNdArray keepdim_array(const PtoNdArray *a, const PtoNdArray *x,
                                unsigned dim) {
  PtoNdArray k = *a;
  k.rank = x->rank;
  memcpy(k.shape, x->shape, x->rank * sizeof(int64_t));
  k.shape[dim] = 1;
  pto_contiguous_strides(k.rank, k.shape, k.strides);
  return k;
}

static PtoResult h_reduce(PtoInterpFrame *f, PtoOp *op, void *user) {
  PtoReduceKind k;
  switch (id_of(user)) {
  case PTO_PYPTO_SUM: k = PTO_REDUCE_SUM; break;
  case PTO_PYPTO_PROD: k = PTO_REDUCE_PROD; break;
  case PTO_PYPTO_AMAX: k = PTO_REDUCE_MAX; break;
  case PTO_PYPTO_AMIN: k = PTO_REDUCE_MIN; break;
  case PTO_PYPTO_ARGMAX: k = PTO_REDUCE_ARGMAX; break;
  default: k = PTO_REDUCE_ARGMIN; break;
  }
  const PtoNdArray *x = tensor_arg(f, op, 0);
  unsigned dim = pto_pypto_get_dim(op);
  int64_t shape[PTO_MAX_RANK];
  unsigned rank = 0;
  for (unsigned d = 0; d < x->rank; d++) {
    if (d != dim) shape[rank++] = x->shape[d];
    else if (pto_pypto_get_keepdim(op)) shape[rank++] = 1;
  }
  PtoTensor *t = ip_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoNdArray out = keepdim_array(pto_tensor_array(t), x, dim);
  PtoKernelError err;
  return finish(f, op, t, pto_kernel_reduce(k, x, dim, &out, &err), &err);
}

/* ------------------------------------------------------------------ */
/* matmul                                                               */
/* ------------------------------------------------------------------ */

static PtoResult h_matmul(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *a = tensor_arg(f, op, 0), *b = tensor_arg(f, op, 1);
  bool at = pto_pypto_get_a_trans(op), bt = pto_pypto_get_b_trans(op);
  int64_t m = a->shape[a->rank - (at ? 1 : 2)];
  int64_t ka = a->shape[a->rank - (at ? 2 : 1)];
  int64_t kb = b->shape[b->rank - (bt ? 1 : 2)];
  int64_t n = b->shape[b->rank - (bt ? 2 : 1)];
  if (ka != kb)
    return ip_shape_error(f, op, "contracting dims differ", a, b, "");
  /* batch dims: everything but the matrix dims, broadcast */
  PtoNdArray ab = *a, bb = *b;
  ab.rank -= 2;
  bb.rank -= 2;
  unsigned bad, rank;
  int64_t shape[PTO_MAX_RANK];
  if (!pto_broadcast_shapes(ab.rank, ab.shape, bb.rank, bb.shape, &rank, shape,
                            &bad))
    return ip_shape_error(f, op, "batch dims are not broadcast-compatible", a,
                          b, "");
  shape[rank++] = m;
  shape[rank++] = n;
  PtoTensor *t = ip_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoDType acc;
  pto_interp_type_dtype(pto_pypto_get_acc_dtype(op), &acc);
  PtoKernelError err;
  PtoResult r = pto_kernel_matmul(a, b, at, bt, NULL, acc, pto_tensor_array(t),
                                  &err);
  return finish(f, op, t, r, &err);
}

/* ------------------------------------------------------------------ */
/* Composites and quantisation                                          */
/* ------------------------------------------------------------------ */

static PtoResult h_norm(PtoInterpFrame *f, PtoOp *op, void *user) {
  PtoPyptoOp id = id_of(user);
  const PtoNdArray *x = tensor_arg(f, op, 0);
  PtoTensor *t = ip_new_result(f, op, 0, x->rank, x->shape);
  if (!t) return PTO_FAILURE;
  const PtoNdArray *o = pto_tensor_array(t);
  PtoKernelError err;
  PtoResult r;
  if (id == PTO_PYPTO_SOFTMAX)
    r = pto_kernel_softmax(x, pto_pypto_get_dim(op), o, &err);
  else if (id == PTO_PYPTO_RMS_NORM)
    r = pto_kernel_rms_norm(x, tensor_arg(f, op, 1), pto_pypto_get_eps(op), o,
                            &err);
  else
    r = pto_kernel_layer_norm(x, tensor_arg(f, op, 1), tensor_arg(f, op, 2),
                              pto_pypto_get_eps(op), o, &err);
  return finish(f, op, t, r, &err);
}

static PtoResult h_quantize(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = tensor_arg(f, op, 0);
  int64_t sshape[PTO_MAX_RANK];
  memcpy(sshape, x->shape, x->rank * sizeof *sshape);
  sshape[x->rank - 1] = 1;
  PtoTensor *q = ip_new_result(f, op, 0, x->rank, x->shape);
  PtoTensor *s = q ? ip_new_result(f, op, 1, x->rank, sshape) : NULL;
  if (!s) {
    pto_tensor_release(q);
    return PTO_FAILURE;
  }
  PtoKernelError err;
  if (pto_kernel_quantize(x, pto_tensor_array(q), pto_tensor_array(s), &err)) {
    pto_tensor_release(s);
    return ip_kernel_error(f, op, &err, q);
  }
  ip_set_tensor(f, op, 0, q);
  ip_set_tensor(f, op, 1, s);
  return PTO_SUCCESS;
}

static PtoResult h_dequantize(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *q = tensor_arg(f, op, 0), *s = tensor_arg(f, op, 1);
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (!pto_broadcast_shapes(q->rank, q->shape, s->rank, s->shape, &rank,
                            shape, NULL) ||
      rank != q->rank || memcmp(shape, q->shape, rank * sizeof *shape) != 0)
    return ip_shape_error(f, op, "scale does not broadcast to the values", s,
                          q, "");
  PtoTensor *t = ip_new_result(f, op, 0, q->rank, q->shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return finish(f, op, t, pto_kernel_dequantize(q, s, pto_tensor_array(t), &err),
                &err);
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

static PtoInterpHandler compute_handler(PtoPyptoKind k) {
  switch (k) {
  case PTO_PYPTO_KIND_UNARY: return h_unary;
  case PTO_PYPTO_KIND_CAST: return h_cast;
  case PTO_PYPTO_KIND_BINARY:
  case PTO_PYPTO_KIND_SCALAR:
  case PTO_PYPTO_KIND_COMPARE: return h_binary;
  case PTO_PYPTO_KIND_WHERE: return h_where;
  case PTO_PYPTO_KIND_REDUCE:
  case PTO_PYPTO_KIND_ARGREDUCE: return h_reduce;
  case PTO_PYPTO_KIND_MATMUL: return h_matmul;
  case PTO_PYPTO_KIND_SOFTMAX:
  case PTO_PYPTO_KIND_RMS_NORM:
  case PTO_PYPTO_KIND_LAYER_NORM: return h_norm;
  case PTO_PYPTO_KIND_QUANTIZE: return h_quantize;
  case PTO_PYPTO_KIND_DEQUANTIZE: return h_dequantize;
  default: return NULL;
  }
}

void pto_interp_register_pypto(PtoInterp *I) {
  for (int id = 0; id < PTO_PYPTO_NUM_OPS; id++) {
    PtoInterpHandler h = compute_handler(pto_pypto_kind((PtoPyptoOp)id));
    if (h)
      pto_interp_register(I, pto_pypto_op_name((PtoPyptoOp)id), h,
                          (void *)(intptr_t)id);
  }
  ip_register_shape_ops(I);
}
