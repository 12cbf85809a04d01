/* Handlers of the tile dialect. A tile is a tensor of its static shape.
 * Ops with a Tensor-level twin of the same semantics (elementwise, cast,
 * compare, where, dequantize, transpose, the row/column expand forms as
 * broadcasting binaries, tensor_reshape, dim) run the pypto handler, so both
 * levels share one implementation; the others call the shared kernels
 * (docs/interpreter.md) on the tiles. */
#include "Interp/InterpPypto.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <string.h>

static PtoType *result_type(PtoOp *op, unsigned i) {
  return pto_value_type(pto_op_result(op, i));
}

static const PtoNdArray *arg(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  return pto_tensor_array(pto_interp_operand_tensor(f, op, i));
}

/* A new tensor for result i with its tile type's shape. */
static PtoTensor *new_tile(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  PtoType *t = result_type(op, i);
  return interp_new_result(f, op, i, pto_tile_rank(t), pto_tile_shape(t));
}

/* `a` seen with another shape of the same element count; `a` must be
 * contiguous (tiles are). */
static PtoNdArray relabel(const PtoNdArray *a, unsigned rank,
                          const int64_t *shape) {
  PtoNdArray r = *a;
  r.rank = rank;
  memcpy(r.shape, shape, rank * sizeof *shape);
  pto_contiguous_strides(rank, shape, r.strides);
  return r;
}

static PtoResult finish(PtoInterpFrame *f, PtoOp *op, PtoTensor *t,
                        PtoResult r, const PtoKernelError *err) {
  if (r) return interp_kernel_error(f, op, err, t);
  interp_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

/* A contiguous form of operand i's tile (shared when it already is). */
static PtoTensor *contiguous(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  PtoTensor *t = pto_interp_operand_tensor(f, op, i);
  return pto_tensor_reshape(t, pto_tensor_rank(t), pto_tensor_shape(t));
}

/* ------------------------------------------------------------------ */
/* GM windows: view, assemble, gather, index_select, scatter            */
/* ------------------------------------------------------------------ */

/* The run-time offsets of a window op into `src`, and the window of
 * `tile` (pto_tile_window_shape), checked against the source's dims; the
 * dim `free` (gather/index_select/scatter's dim, or -1) is the full
 * extent, addressed by indices. */
static PtoResult window(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *src,
                        PtoType *tile, int free, int64_t *offs, int64_t *win) {
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_tile_get_offsets(op, offs, dyn);
  pto_tile_window_shape(tile, src->rank, win);
  if (free >= 0) win[free] = src->shape[free];
  return interp_window_offsets(f, op, src, n, offs, dyn, win, free);
}

static PtoResult h_view(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoTensor *x = pto_interp_operand_tensor(f, op, 0);
  PtoType *tt = result_type(op, 0);
  int64_t offs[PTO_MAX_RANK], win[PTO_MAX_RANK];
  if (window(f, op, pto_tensor_array(x), tt, -1, offs, win)) return PTO_FAILURE;
  PtoTensor *w = pto_tensor_view(x, offs, win);
  PtoTensor *t = pto_tensor_reshape(w, pto_tile_rank(tt), pto_tile_shape(tt));
  pto_tensor_release(w);
  interp_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

/* The destination of assemble / scatter, writable: updated in place when
 * this op is its last use. */
static PtoTensor *take_dst(PtoInterpFrame *f, PtoOp *op) {
  return pto_tensor_make_unique(pto_interp_take_operand_tensor(f, op, 1));
}

static PtoResult h_assemble(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoType *tt = pto_value_type(pto_op_operand(op, 0));
  int64_t offs[PTO_MAX_RANK], win[PTO_MAX_RANK];
  if (window(f, op, arg(f, op, 1), tt, -1, offs, win)) return PTO_FAILURE;
  PtoTensor *src = contiguous(f, op, 0);
  PtoTensor *y = take_dst(f, op);
  const PtoNdArray *ya = pto_tensor_array(y);
  PtoNdArray v = relabel(pto_tensor_array(src), ya->rank, win);
  PtoNdArray w = interp_window_of(ya, offs, win);
  PtoKernelError err;
  PtoResult r = pto_kernel_unary(PTO_UNARY_IDENTITY, &v, &w, &err);
  pto_tensor_release(src);
  return finish(f, op, y, r, &err);
}

static PtoResult h_gather(PtoInterpFrame *f, PtoOp *op, void *user) {
  bool select = ((const InterpKernel *)user)->family == INTERP_INDEX_SELECT;
  const PtoNdArray *x = arg(f, op, 0);
  unsigned dim = pto_tile_get_dim(op);
  PtoType *tt = result_type(op, 0);
  int64_t offs[PTO_MAX_RANK], win[PTO_MAX_RANK], owin[PTO_MAX_RANK];
  if (window(f, op, x, tt, (int)dim, offs, win)) return PTO_FAILURE;
  pto_tile_window_shape(tt, x->rank, owin);
  PtoTensor *idx = contiguous(f, op, 1);
  PtoTensor *t = new_tile(f, op, 0);
  if (!t) {
    pto_tensor_release(idx);
    return PTO_FAILURE;
  }
  PtoNdArray xw = interp_window_of(x, offs, win);
  PtoNdArray out = relabel(pto_tensor_array(t), x->rank, owin);
  const PtoNdArray *ia = pto_tensor_array(idx);
  PtoNdArray iw = select ? *ia : relabel(ia, x->rank, owin);
  PtoKernelError err;
  PtoResult r = select ? pto_kernel_index_select(&xw, &iw, dim, &out, &err)
                       : pto_kernel_gather(&xw, &iw, dim, &out, &err);
  pto_tensor_release(idx);
  return finish(f, op, t, r, &err);
}

static PtoResult h_scatter(PtoInterpFrame *f, PtoOp *op, void *user) {
  /* user: the row's kernel, scatter_update, index_add or scatter_elements */
  PtoType *tt = pto_value_type(pto_op_operand(op, 0));
  const PtoNdArray *y0 = arg(f, op, 1);
  unsigned dim = pto_tile_get_dim(op);
  int64_t offs[PTO_MAX_RANK], win[PTO_MAX_RANK], swin[PTO_MAX_RANK];
  if (window(f, op, y0, tt, (int)dim, offs, win)) return PTO_FAILURE;
  unsigned rank = y0->rank; /* take_dst may free what y0 points at */
  pto_tile_window_shape(tt, rank, swin);
  PtoTensor *src = contiguous(f, op, 0);
  /* In a Block-level kernel a GM tensor is memory: the scatter writes
   * into it (as block.store does) rather than into a copy. */
  PtoOp *parent = pto_op_parent_op(op);
  bool in_place = parent && pto_op_is(parent, "block.kernel");
  PtoTensor *y = in_place ? pto_tensor_retain(pto_interp_operand_tensor(f, op, 1))
                          : take_dst(f, op);
  PtoNdArray yw = interp_window_of(pto_tensor_array(y), offs, win);
  PtoNdArray sw = relabel(pto_tensor_array(src), rank, swin);
  PtoKernelError err;
  InterpFamily fam = ((const InterpKernel *)user)->family;
  PtoResult r;
  if (fam == INTERP_SCATTER_ELEMENTS) {
    /* the index tile is laid out as the src tile */
    PtoTensor *idx = contiguous(f, op, 2);
    PtoNdArray iw = relabel(pto_tensor_array(idx), rank, swin);
    r = pto_kernel_scatter_elements(&yw, &iw, &sw, dim, interp_scatter_reduce(op), &err);
    pto_tensor_release(idx);
  } else {
    r = fam == INTERP_INDEX_ADD
            ? pto_kernel_index_add(&yw, arg(f, op, 2), &sw, dim, &err)
            : pto_kernel_scatter_update(&yw, arg(f, op, 2), &sw, dim, &err);
  }
  pto_tensor_release(src);
  return finish(f, op, y, r, &err);
}

static PtoResult h_empty(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  unsigned rank;
  int64_t shape[PTO_MAX_RANK];
  if (interp_result_sizes(f, op, 0, &rank, shape)) return PTO_FAILURE;
  PtoTensor *t = interp_new_result(f, op, 0, rank, shape);
  if (!t) return PTO_FAILURE;
  interp_set_tensor(f, op, 0, t);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Tile shape: reshape, expand, full                                    */
/* ------------------------------------------------------------------ */

static PtoResult h_reshape(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoType *tt = result_type(op, 0);
  interp_set_tensor(f, op, 0,
                pto_tensor_reshape(pto_interp_operand_tensor(f, op, 0),
                                   pto_tile_rank(tt), pto_tile_shape(tt)));
  return PTO_SUCCESS;
}

/* expand (a tile operand) and full (a scalar): a broadcasting copy. */
static PtoResult h_broadcast(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  uint64_t buf;
  PtoNdArray x = interp_operand_array(f, op, 0, &buf);
  PtoTensor *t = new_tile(f, op, 0);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return finish(f, op, t,
                pto_kernel_unary(PTO_UNARY_IDENTITY, &x, pto_tensor_array(t), &err),
                &err);
}

/* ------------------------------------------------------------------ */
/* Reductions                                                           */
/* ------------------------------------------------------------------ */

typedef struct RedInfo {
  PtoReduceKind value, index; /* index: ARGMAX/ARGMIN for the arg forms */
  bool col, arg;
} RedInfo;

/* The row's kernel: an arg form reduces the values with MAX / MIN and
 * the positions with ARGMAX / ARGMIN. */
static RedInfo red_info(PtoOp *op, const InterpKernel *k) {
  PtoTileKind tk = pto_tile_kind(pto_tile_op_id(op));
  RedInfo ri = {(PtoReduceKind)k->kind, (PtoReduceKind)k->kind,
                tk == PTO_TILE_KIND_COLRED || tk == PTO_TILE_KIND_COLARG, false};
  if (k->kind == PTO_REDUCE_ARGMAX || k->kind == PTO_REDUCE_ARGMIN) {
    ri.arg = true;
    ri.value = k->kind == PTO_REDUCE_ARGMAX ? PTO_REDUCE_MAX : PTO_REDUCE_MIN;
  }
  return ri;
}

static PtoResult h_reduce(PtoInterpFrame *f, PtoOp *op, void *user) {
  RedInfo ri = red_info(op, user);
  const PtoNdArray *x = arg(f, op, 0);
  unsigned dim = x->rank - (ri.col ? 2 : 1);
  PtoTensor *v = new_tile(f, op, 0);
  PtoTensor *i = v && ri.arg ? new_tile(f, op, 1) : NULL;
  if (!v || (ri.arg && !i)) {
    pto_tensor_release(v);
    return PTO_FAILURE;
  }
  PtoKernelError err;
  PtoResult r = pto_kernel_reduce(ri.value, x, dim, pto_tensor_array(v), &err);
  if (!r && ri.arg)
    r = pto_kernel_reduce(ri.index, x, dim, pto_tensor_array(i), &err);
  if (r) {
    pto_tensor_release(i);
    return interp_kernel_error(f, op, &err, v);
  }
  interp_set_tensor(f, op, 0, v);
  if (ri.arg) interp_set_tensor(f, op, 1, i);
  return PTO_SUCCESS;
}

/* Sets results 0 and 1 (or releases both and reports). */
static PtoResult finish2(PtoInterpFrame *f, PtoOp *op, PtoTensor *a,
                         PtoTensor *b, PtoResult r, const PtoKernelError *err) {
  if (r) {
    pto_tensor_release(b);
    return interp_kernel_error(f, op, err, a);
  }
  interp_set_tensor(f, op, 0, a);
  interp_set_tensor(f, op, 1, b);
  return PTO_SUCCESS;
}

/* Both result tiles, or NULL after an error. */
static bool new_tiles2(PtoInterpFrame *f, PtoOp *op, PtoTensor **a,
                       PtoTensor **b) {
  *a = new_tile(f, op, 0);
  *b = *a ? new_tile(f, op, 1) : NULL;
  if (!*b) pto_tensor_release(*a);
  return *b != NULL;
}

static PtoResult h_arg_combine(PtoInterpFrame *f, PtoOp *op, void *user) {
  bool max = ((const InterpKernel *)user)->kind == PTO_REDUCE_ARGMAX;
  PtoTensor *v, *i;
  if (!new_tiles2(f, op, &v, &i)) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_arg_combine(max, arg(f, op, 0), arg(f, op, 1),
                                       arg(f, op, 2), arg(f, op, 3),
                                       pto_tensor_array(v), pto_tensor_array(i),
                                       &err);
  return finish2(f, op, v, i, r, &err);
}

/* ------------------------------------------------------------------ */
/* matmul                                                               */
/* ------------------------------------------------------------------ */

static PtoResult h_matmul(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoType *ea = pto_tile_elem(pto_value_type(pto_op_operand(op, 0)));
  PtoAttr *acc_attr = pto_op_attr(op, "acc_dtype");
  PtoType *acc_t = acc_attr ? pto_attr_type_value(acc_attr)
                   : pto_elem_is_int(ea) ? pto_type_int(pto_op_ctx(op), 32)
                                         : pto_type_f32(pto_op_ctx(op));
  PtoDType acc;
  pto_interp_type_dtype(acc_t, &acc);
  PtoTensor *t = new_tile(f, op, 0);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_matmul(
      arg(f, op, 0), arg(f, op, 1), pto_op_attr_flag(op, "a_trans"),
      pto_op_attr_flag(op, "b_trans"),
      pto_op_num_operands(op) > 2 ? arg(f, op, 2) : NULL, acc,
      pto_tensor_array(t), &err);
  return finish(f, op, t, r, &err);
}

/* ------------------------------------------------------------------ */
/* topk and its merge; quantize                                         */
/* ------------------------------------------------------------------ */

static PtoResult h_topk(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *x = arg(f, op, 0);
  PtoTensor *v, *i;
  if (!new_tiles2(f, op, &v, &i)) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_topk(x, pto_tile_get_k(op), x->rank - 1,
                                pto_tile_get_largest(op), pto_tensor_array(v),
                                pto_tensor_array(i), &err);
  return finish2(f, op, v, i, r, &err);
}

/* The merge is topk over the two lists side by side (first list first, so
 * that ties keep the lower indices), carrying their index values: the
 * winners' positions pick the indices with a gather. */
static PtoResult h_topk_merge(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *v0 = arg(f, op, 0), *v1 = arg(f, op, 2);
  unsigned r = v0->rank, last = r - 1;
  int64_t shape[PTO_MAX_RANK], offs[PTO_MAX_RANK] = {0};
  memcpy(shape, v0->shape, r * sizeof *shape);
  shape[last] += v1->shape[last];
  PtoContext *ctx = pto_op_ctx(op);
  PtoTensor *vals = pto_tensor_create(ctx, pto_op_loc(op), v0->dtype, r, shape);
  PtoTensor *idxs =
      pto_tensor_create(ctx, pto_op_loc(op), arg(f, op, 1)->dtype, r, shape);
  PtoTensor *ov = NULL, *oi = NULL, *pos = NULL;
  PtoKernelError err;
  PtoResult res = PTO_FAILURE;
  if (!vals || !idxs || !new_tiles2(f, op, &ov, &oi)) goto out;
  /* side by side */
  for (unsigned k = 0; k < 2; k++) {
    const PtoNdArray *v = arg(f, op, 2 * k), *i = arg(f, op, 2 * k + 1);
    PtoNdArray wv = interp_window_of(pto_tensor_array(vals), offs, v->shape);
    PtoNdArray wi = interp_window_of(pto_tensor_array(idxs), offs, v->shape);
    if (pto_kernel_unary(PTO_UNARY_IDENTITY, v, &wv, &err) ||
        pto_kernel_unary(PTO_UNARY_IDENTITY, i, &wi, &err))
      goto kernel_error;
    offs[last] += v->shape[last];
  }
  pos = pto_tensor_create(ctx, pto_op_loc(op), PTO_DT_I64, r,
                          pto_tensor_shape(ov));
  if (!pos) goto out;
  if (pto_kernel_topk(pto_tensor_array(vals), pto_tile_get_k(op), last,
                      pto_tile_get_largest(op), pto_tensor_array(ov),
                      pto_tensor_array(pos), &err) ||
      pto_kernel_gather(pto_tensor_array(idxs), pto_tensor_array(pos), last,
                        pto_tensor_array(oi), &err))
    goto kernel_error;
  interp_set_tensor(f, op, 0, ov);
  interp_set_tensor(f, op, 1, oi);
  ov = oi = NULL;
  res = PTO_SUCCESS;
  goto out;
kernel_error:
  res = pto_interp_error(f, op, "%s", err.msg);
out:
  pto_tensor_release(vals);
  pto_tensor_release(idxs);
  pto_tensor_release(pos);
  pto_tensor_release(ov);
  pto_tensor_release(oi);
  return res;
}

static PtoResult h_quantize(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoTensor *t = new_tile(f, op, 0);
  if (!t) return PTO_FAILURE;
  PtoKernelError err;
  return finish(f, op, t,
                pto_kernel_quantize_scaled(arg(f, op, 0), arg(f, op, 1),
                                           pto_tensor_array(t), &err),
                &err);
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

static const InterpKernel kernels[PTO_TILE_NUM_OPS] = {
#define TILE_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM)           \
  INTERP_KERNEL_##KERNEL,
#include "pto/Dialect/TileOps.def"
};

/* Data movement with the semantics of a pypto op runs that op's handler
 * (a tile is a tensor of its static shape); NULL when none. */
static const char *move_twin(PtoTileKind k) {
  switch (k) {
  case PTO_TILE_KIND_TRANSPOSE: return "pypto.transpose";
  case PTO_TILE_KIND_DIM: return "pypto.dim";
  case PTO_TILE_KIND_LOAD_SCALAR: return "pypto.load_scalar";
  case PTO_TILE_KIND_TENSOR_RESHAPE: return "pypto.reshape";
  case PTO_TILE_KIND_TENSOR_BITCAST: return "pypto.bitcast";
  default: return NULL;
  }
}

static PtoInterpHandler move_handler(PtoTileKind k) {
  switch (k) {
  case PTO_TILE_KIND_VIEW: return h_view;
  case PTO_TILE_KIND_ASSEMBLE: return h_assemble;
  case PTO_TILE_KIND_EMPTY: return h_empty;
  case PTO_TILE_KIND_RESHAPE: return h_reshape;
  case PTO_TILE_KIND_EXPAND:
  case PTO_TILE_KIND_FULL: return h_broadcast;
  default: return NULL;
  }
}

static PtoInterpHandler own_handler(InterpFamily f, PtoTileKind k) {
  switch (f) {
  case INTERP_MOVE: return move_handler(k);
  case INTERP_REDUCE: return h_reduce;
  case INTERP_ARG_COMBINE: return h_arg_combine;
  case INTERP_MATMUL: return h_matmul;
  case INTERP_GATHER:
  case INTERP_INDEX_SELECT: return h_gather;
  case INTERP_SCATTER_UPDATE:
  case INTERP_INDEX_ADD:
  case INTERP_SCATTER_ELEMENTS: return h_scatter;
  case INTERP_TOPK: return h_topk;
  case INTERP_TOPK_MERGE: return h_topk_merge;
  case INTERP_QUANTIZE: return h_quantize;
  default: return interp_elementwise_handler(f);
  }
}

void pto_interp_register_tile(PtoInterp *I) {
  for (int i = 0; i < PTO_TILE_NUM_OPS; i++) {
    PtoTileOp id = (PtoTileOp)i;
    const char *tw = move_twin(pto_tile_kind(id));
    PtoInterpHandler h = own_handler(kernels[i].family, pto_tile_kind(id));
    if (tw)
      pto_interp_register_alias(I, pto_tile_op_name(id), tw);
    else if (h)
      pto_interp_register(I, pto_tile_op_name(id), h, (void *)&kernels[i]);
  }
}
