/* Handlers of the pypto compute ops: elementwise (unary, cast, binary,
 * tensor-scalar, compare, where), reductions, matmul, the composites and
 * quantisation. Each checks the run-time shapes the verifier could not
 * (dynamic dims), then calls the shared kernel. */
#include "Interp/InterpPypto.h"

#include "Support/Alloc.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/Tile.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Shared helpers                                                       */
/* ------------------------------------------------------------------ */

PtoNdArray interp_operand_array(PtoInterpFrame *f, PtoOp *op, unsigned i,
                            uint64_t *buf) {
  const PtoInterpValue *v = pto_interp_operand(f, op, i);
  if (v->kind == PTO_IVAL_TENSOR) return *pto_tensor_array(v->tensor);
  if (pto_dtype_is_float(v->dtype)) pto_dtype_store_f64(v->dtype, buf, 0, v->f);
  else pto_dtype_store_i64(v->dtype, buf, 0, v->i);
  return pto_ndarray_scalar_view(v->dtype, buf);
}

PtoTensor *interp_new_result(PtoInterpFrame *f, PtoOp *op, unsigned i,
                         unsigned rank, const int64_t *shape) {
  PtoDType dt;
  if (pto_interp_result_dtype(f, op, i, &dt)) return NULL;
  return pto_interp_new_tensor(f, op, dt, rank, shape);
}

PtoResult interp_kernel_error(PtoInterpFrame *f, PtoOp *op,
                          const PtoKernelError *err, PtoTensor *t) {
  pto_tensor_release(t);
  return pto_interp_error(f, op, "%s", err->msg);
}

void interp_set_tensor(PtoInterpFrame *f, PtoOp *op, unsigned i, PtoTensor *t) {
  pto_interp_set_result(f, op, i, pto_interp_value_tensor(t));
}

PtoResult interp_finish(PtoInterpFrame *f, PtoOp *op, PtoTensor *t, PtoResult r,
                    const PtoKernelError *err) {
  if (r) return interp_kernel_error(f, op, err, t);
  interp_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

const PtoNdArray *interp_tensor_arg(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  return pto_tensor_array(pto_interp_operand_tensor(f, op, i));
}

PtoResult interp_shape_error(PtoInterpFrame *f, PtoOp *op, const char *what,
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

PtoResult interp_broadcast(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *a,
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
  return interp_shape_error(f, op, "operands are not broadcast-compatible", a, b,
                        tail);
}

PtoNdArray interp_window_of(const PtoNdArray *a, const int64_t *offs,
                        const int64_t *shape) {
  PtoNdArray w = *a;
  w.data = pto_ndarray_elem_ptr(a, offs);
  memcpy(w.shape, shape, a->rank * sizeof(int64_t));
  return w;
}

PtoResult interp_window_offsets(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *src,
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

PtoResult interp_result_sizes(PtoInterpFrame *f, PtoOp *op, unsigned first,
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

static const InterpKernel *kernel_of(void *user) { return user; }

/* The result of an elementwise op of `shape`: the tensor of one of the
 * first `n` operands, written in place, when this op is its last use,
 * nothing else shares it and it has the result's dtype and shape (the
 * kernels read each element before writing it); a new tensor otherwise. */
static PtoTensor *elementwise_result(PtoInterpFrame *f, PtoOp *op, unsigned n,
                                     unsigned rank, const int64_t *shape) {
  PtoDType dt;
  if (pto_interp_result_dtype(f, op, 0, &dt)) return NULL;
  for (unsigned i = 0; i < n; i++) {
    const PtoInterpValue *v = pto_interp_operand(f, op, i);
    if (v->kind != PTO_IVAL_TENSOR || !pto_interp_is_last_use(f, op, i) ||
        !pto_tensor_is_unique(v->tensor))
      continue;
    const PtoNdArray *a = pto_tensor_array(v->tensor);
    if (a->dtype == dt && pto_ndarray_is_contiguous(a) && a->rank == rank &&
        memcmp(a->shape, shape, rank * sizeof *shape) == 0)
      return pto_interp_take_operand_tensor(f, op, i);
  }
  return pto_interp_new_tensor(f, op, dt, rank, shape);
}

/* ------------------------------------------------------------------ */
/* Elementwise                                                          */
/* ------------------------------------------------------------------ */

/* The row's kernel; gelu's `approximate = "tanh"` picks its tanh form. */
static PtoUnaryKind unary_kind(const InterpKernel *k, PtoOp *op) {
  if (k->kind == PTO_UNARY_GELU && pto_pypto_get_gelu_tanh(op))
    return PTO_UNARY_GELU_TANH;
  return (PtoUnaryKind)k->kind;
}

static PtoResult h_unary(PtoInterpFrame *f, PtoOp *op, void *user) {
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  PtoTensor *t = elementwise_result(f, op, 1, x->rank, x->shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoUnaryKind k = unary_kind(kernel_of(user), op);
  double params[2] = {0, 0};
  if ((int)k < PTO_UNARY_NUM_ROWS) pto_unary_row_params(op, (PtoUnaryRow)k, params);
  PtoResult r = pto_kernel_unary_params(k, params, x, pto_tensor_array(t), &err);
  return interp_finish(f, op, t, r, &err);
}

static PtoResult h_cast(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  PtoTensor *t = interp_new_result(f, op, 0, x->rank, x->shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoCastMode mode = {pto_pypto_get_cast_mode(op),
                      pto_pypto_get_saturate(op) ? PTO_SAT_SATURATE : PTO_SAT_WRAP};
  PtoResult r = pto_kernel_cast(x, pto_tensor_array(t), mode, &err);
  return interp_finish(f, op, t, r, &err);
}

/* binary, tensor-scalar and compare ops */
static PtoResult h_binary(PtoInterpFrame *f, PtoOp *op, void *user) {
  uint64_t ba, bb;
  PtoNdArray a = interp_operand_array(f, op, 0, &ba);
  PtoNdArray b = interp_operand_array(f, op, 1, &bb);
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (interp_broadcast(f, op, &a, &b, &rank, shape)) return PTO_FAILURE;
  PtoTensor *t = elementwise_result(f, op, 2, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_binary((PtoBinaryKind)kernel_of(user)->kind, &a, &b,
                                  pto_tensor_array(t), &err);
  return interp_finish(f, op, t, r, &err);
}

static PtoResult h_where(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  uint64_t bufs[3];
  PtoNdArray a[3];
  for (unsigned i = 0; i < 3; i++) a[i] = interp_operand_array(f, op, i, &bufs[i]);
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (interp_broadcast(f, op, &a[0], &a[1], &rank, shape)) return PTO_FAILURE;
  PtoNdArray cx = a[0];
  cx.rank = rank;
  memcpy(cx.shape, shape, sizeof shape);
  if (interp_broadcast(f, op, &cx, &a[2], &rank, shape)) return PTO_FAILURE;
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_where(&a[0], &a[1], &a[2], pto_tensor_array(t), &err);
  return interp_finish(f, op, t, r, &err);
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
  PtoReduceKind k = (PtoReduceKind)kernel_of(user)->kind;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  unsigned dim = pto_pypto_get_dim(op);
  int64_t shape[PTO_MAX_RANK];
  unsigned rank = 0;
  for (unsigned d = 0; d < x->rank; d++) {
    if (d != dim) shape[rank++] = x->shape[d];
    else if (pto_pypto_get_keepdim(op)) shape[rank++] = 1;
  }
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoNdArray out = keepdim_array(pto_tensor_array(t), x, dim);
  PtoKernelError err;
  return interp_finish(f, op, t, pto_kernel_reduce(k, x, dim, &out, &err), &err);
}

/* ------------------------------------------------------------------ */
/* matmul                                                               */
/* ------------------------------------------------------------------ */

static PtoResult h_matmul(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *a = interp_tensor_arg(f, op, 0), *b = interp_tensor_arg(f, op, 1);
  bool at = pto_pypto_get_a_trans(op), bt = pto_pypto_get_b_trans(op);
  int64_t m = a->shape[a->rank - (at ? 1 : 2)];
  int64_t ka = a->shape[a->rank - (at ? 2 : 1)];
  int64_t kb = b->shape[b->rank - (bt ? 1 : 2)];
  int64_t n = b->shape[b->rank - (bt ? 2 : 1)];
  if (ka != kb)
    return interp_shape_error(f, op, "contracting dims differ", a, b, "");
  /* batch dims: everything but the matrix dims, broadcast */
  PtoNdArray ab = *a, bb = *b;
  ab.rank -= 2;
  bb.rank -= 2;
  unsigned bad, rank;
  int64_t shape[PTO_MAX_RANK];
  if (!pto_broadcast_shapes(ab.rank, ab.shape, bb.rank, bb.shape, &rank, shape,
                            &bad))
    return interp_shape_error(f, op, "batch dims are not broadcast-compatible", a,
                          b, "");
  shape[rank++] = m;
  shape[rank++] = n;
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r;
  double s;
  float s32 = 0;
  PtoNdArray one = {.dtype = PTO_DT_F32, .rank = 0, .data = &s32, .nbytes = sizeof s32};
  const PtoNdArray *scale = pto_pypto_get_scale_tensor(op) ? interp_tensor_arg(f, op, 2)
                            : pto_pypto_get_scale(op, &s) ? (s32 = (float)s, &one)
                                                          : NULL;
  if (scale) {
    r = pto_kernel_matmul_dequant(a, b, at, bt, scale, pto_pypto_get_relu(op),
                                  pto_tensor_array(t), &err);
  } else {
    PtoDType acc;
    pto_interp_type_dtype(pto_pypto_get_acc_dtype(op), &acc);
    r = pto_kernel_matmul(a, b, at, bt, NULL, acc, pto_tensor_array(t), &err);
    if (r == PTO_SUCCESS && pto_pypto_get_relu(op))
      r = pto_kernel_unary(PTO_UNARY_RELU, pto_tensor_array(t), pto_tensor_array(t), &err);
  }
  return interp_finish(f, op, t, r, &err);
}

/* ------------------------------------------------------------------ */
/* Composites and quantisation                                          */
/* ------------------------------------------------------------------ */

static PtoResult h_norm(PtoInterpFrame *f, PtoOp *op, void *user) {
  InterpFamily fam = kernel_of(user)->family;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  PtoTensor *t = interp_new_result(f, op, 0, x->rank, x->shape);
  if (!t) return PTO_FAILURE;
  const PtoNdArray *o = pto_tensor_array(t);
  PtoKernelError err;
  PtoResult r;
  if (fam == INTERP_SOFTMAX)
    r = pto_kernel_softmax(x, pto_pypto_get_dim(op), o, &err);
  else if (fam == INTERP_RMS_NORM)
    r = pto_kernel_rms_norm(x, interp_tensor_arg(f, op, 1), pto_pypto_get_eps(op), o,
                            &err);
  else
    r = pto_kernel_layer_norm(x, interp_tensor_arg(f, op, 1), interp_tensor_arg(f, op, 2),
                              pto_pypto_get_eps(op), o, &err);
  return interp_finish(f, op, t, r, &err);
}

/* Runs a kernel that fills two new results: q of x's shape and s of
 * `sshape` (rank `srank`), set as results 0 and 1. */
typedef PtoResult (*TwoResultKernel)(const PtoNdArray *x, const PtoNdArray *q,
                                     const PtoNdArray *s, PtoKernelError *err);
static PtoResult run_two_results(PtoInterpFrame *f, PtoOp *op, TwoResultKernel k,
                                 unsigned srank, const int64_t *sshape) {
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  PtoTensor *q = interp_new_result(f, op, 0, x->rank, x->shape);
  PtoTensor *s = q ? interp_new_result(f, op, 1, srank, sshape) : NULL;
  if (!s) {
    pto_tensor_release(q);
    return PTO_FAILURE;
  }
  PtoKernelError err;
  if (k(x, pto_tensor_array(q), pto_tensor_array(s), &err)) {
    pto_tensor_release(s);
    return interp_kernel_error(f, op, &err, q);
  }
  interp_set_tensor(f, op, 0, q);
  interp_set_tensor(f, op, 1, s);
  return PTO_SUCCESS;
}

static PtoResult h_quantize(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  int64_t sshape[PTO_MAX_RANK];
  memcpy(sshape, x->shape, x->rank * sizeof *sshape);
  sshape[x->rank - 1] = 1;
  return run_two_results(f, op, pto_kernel_quantize, x->rank, sshape);
}

static PtoResult h_dequantize(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *q = interp_tensor_arg(f, op, 0), *s = interp_tensor_arg(f, op, 1);
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (!pto_broadcast_shapes(q->rank, q->shape, s->rank, s->shape, &rank,
                            shape, NULL) ||
      rank != q->rank || memcmp(shape, q->shape, rank * sizeof *shape) != 0)
    return interp_shape_error(f, op, "scale does not broadcast to the values", s,
                          q, "");
  PtoTensor *t = interp_new_result(f, op, 0, q->rank, q->shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return interp_finish(f, op, t, pto_kernel_dequantize(q, s, pto_tensor_array(t), &err),
                &err);
}

static PtoResult h_quant_mx(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = interp_tensor_arg(f, op, 0);
  if (x->rank == 0 || x->rank >= PTO_MAX_RANK)
    return pto_interp_error(f, op, "operand #0 has rank %u at run time", x->rank);
  int64_t sshape[PTO_MAX_RANK];
  memcpy(sshape, x->shape, x->rank * sizeof *sshape);
  sshape[x->rank - 1] /= 64;
  sshape[x->rank] = 2;
  return run_two_results(f, op, pto_kernel_quant_mx, x->rank + 1, sshape);
}

static PtoResult h_scaled_mm(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *a = interp_tensor_arg(f, op, 0), *b = interp_tensor_arg(f, op, 1);
  bool at = pto_pypto_get_a_trans(op), bt = pto_pypto_get_b_trans(op);
  int64_t shape[2] = {a->shape[at ? 1 : 0], b->shape[bt ? 0 : 1]};
  PtoTensor *t = interp_new_result(f, op, 0, 2, shape);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_scaled_mm(
      a, b, interp_tensor_arg(f, op, 2), interp_tensor_arg(f, op, 3), at, bt,
      pto_pypto_get_scale_a_trans(op), pto_pypto_get_scale_b_trans(op),
      pto_pypto_get_relu(op), pto_tensor_array(t), &err);
  return interp_finish(f, op, t, r, &err);
}

/* uniform / normal at both levels: a tensor result is the whole stream, a
 * tile result the window of it that its `origin` and `full` name. */
static PtoResult h_random(PtoInterpFrame *f, PtoOp *op, void *user) {
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  bool tile = !pto_type_is_tensor(rt);
  unsigned rank = tile ? pto_tile_rank(rt) : pto_type_tensor_rank(rt);
  const int64_t *shape = tile ? pto_tile_shape(rt) : pto_type_tensor_shape(rt);
  int64_t origin[PTO_MAX_RANK] = {0}, full[PTO_MAX_RANK];
  unsigned n = rank, no = rank;
  memcpy(full, shape, rank * sizeof *full);
  if (tile && (!pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_ORIGIN), origin,
                                       PTO_MAX_RANK, &no) ||
               !pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_FULL), full,
                                       PTO_MAX_RANK, &n) || no != n))
    return pto_interp_error(f, op, "needs i64 array attributes 'origin' and 'full' "
                            "of one length");
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  uint64_t key = (uint64_t)pto_op_named_int(op, PTO_ATTR_ID_KEY, 0);
  uint64_t ctr = (uint64_t)pto_op_named_int(op, PTO_ATTR_ID_COUNTER, 0);
  PtoKernelError err;
  PtoResult r = pto_kernel_random((PtoRandomKind)kernel_of(user)->kind, key, ctr, n,
                                  full, origin, pto_tensor_array(t), &err);
  return interp_finish(f, op, t, r, &err);
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

static const InterpKernel kernels[PTO_PYPTO_NUM_OPS] = {
#define PYPTO_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM)          \
  INTERP_KERNEL_##KERNEL,
#include "pto/Dialect/PyptoOps.def"
};

PtoInterpHandler interp_elementwise_handler(InterpFamily f) {
  switch (f) {
  case INTERP_UNARY: return h_unary;
  case INTERP_CAST: return h_cast;
  case INTERP_BINARY: return h_binary;
  case INTERP_WHERE: return h_where;
  case INTERP_DEQUANTIZE: return h_dequantize;
  case INTERP_RANDOM: return h_random;
  default: return NULL;
  }
}

/* The handler of a compute family; the data-movement and indexing
 * families are InterpPyptoShape.c's. */
static PtoInterpHandler compute_handler(InterpFamily f) {
  switch (f) {
  case INTERP_REDUCE: return h_reduce;
  case INTERP_MATMUL: return h_matmul;
  case INTERP_SOFTMAX:
  case INTERP_RMS_NORM:
  case INTERP_LAYER_NORM: return h_norm;
  case INTERP_QUANTIZE: return h_quantize;
  case INTERP_QUANT_MX: return h_quant_mx;
  case INTERP_SCALED_MM: return h_scaled_mm;
  default: return interp_elementwise_handler(f);
  }
}

void pto_interp_register_pypto(PtoInterp *I) {
  for (int id = 0; id < PTO_PYPTO_NUM_OPS; id++) {
    PtoInterpHandler h = compute_handler(kernels[id].family);
    if (h)
      pto_interp_register(I, pto_pypto_op_name((PtoPyptoOp)id), h,
                          (void *)&kernels[id]);
  }
  interp_register_shape_ops(I);
  interp_register_debug_ops(I);
}
