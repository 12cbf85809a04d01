/* The pypto side of op checking: the inference state around the shared
 * PtoOpCheck (lib/Dialect/Common/OpCheck.h), the attributes each op kind
 * defines, operand rules of the Tensor level, and the final comparison with
 * the op's actual result types. */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

#include <string.h>

/* The dtype columns of the pypto and tile op tables share one order. */

void pypto_infer_init(PyInfer *in, PtoContext *ctx, PtoLoc *loc, PtoPyptoOp id,
                      PtoType *const *opnd, unsigned nopnd,
                      const PtoNamedAttr *attrs, unsigned nattrs) {
  memset(in, 0, sizeof *in);
  pto_opcheck_init(&in->c, ctx, loc, pto_pypto_op_name(id), opnd, nopnd, attrs,
                   nattrs);
  in->id = id;
}

void pypto_infer_done(PyInfer *in) { pto_opcheck_done(&in->c); }

/* Attributes each kind defines (besides the tuning attributes). */
const char *const *pto_pypto_op_attrs(PtoPyptoOp id) {
  static const char *const none[] = {NULL};
  static const char *const cast[] = {PTO_ATTR_MODE, PTO_ATTR_SATMODE, NULL};
  static const char *const reduce[] = {PTO_ATTR_DIM, PTO_ATTR_KEEPDIM, NULL};
  static const char *const matmul[] = {PTO_ATTR_A_TRANS, PTO_ATTR_B_TRANS, PTO_ATTR_ACC_DTYPE,
                                       PTO_ATTR_SCALE, PTO_ATTR_RELU, NULL};
  static const char *const window[] = {PTO_ATTR_STATIC_OFFSETS, NULL};
  static const char *const perm[] = {PTO_ATTR_PERM, NULL};
  static const char *const dim[] = {PTO_ATTR_DIM, NULL};
  static const char *const topk[] = {PTO_ATTR_K, PTO_ATTR_DIM, PTO_ATTR_LARGEST, NULL};
  static const char *const eps[] = {PTO_ATTR_EPS, NULL};
  static const char *const random[] = {PTO_ATTR_KEY, PTO_ATTR_COUNTER, NULL};
  static const char *const scatter[] = {PTO_ATTR_DIM, PTO_ATTR_REDUCE, NULL};
  static const char *const index_add[] = {PTO_ATTR_DIM, PTO_ATTR_UB, NULL};
  static const char *const scaled_mm[] = {PTO_ATTR_A_TRANS, PTO_ATTR_B_TRANS,
                                          PTO_ATTR_SCALE_A_TRANS, PTO_ATTR_SCALE_B_TRANS,
                                          PTO_ATTR_RELU, NULL};
  static const char *const print[] = {PTO_ATTR_FORMAT, NULL};
  static const char *const save[] = {PTO_ATTR_FNAME, PTO_ATTR_KEYS, NULL};
  if (id == PTO_PYPTO_PASS_VERIFY_PRINT) return print;
  if (id == PTO_PYPTO_PASS_VERIFY_SAVE) return save;
  if (id == PTO_PYPTO_SCATTER) return scatter;
  if (id == PTO_PYPTO_INDEX_ADD) return index_add;
  switch (pto_pypto_kind(id)) {
  case PTO_PYPTO_KIND_UNARY: return pto_unary_row_attrs(pto_pypto_unary_row(id));
  case PTO_PYPTO_KIND_CAST: return cast;
  case PTO_PYPTO_KIND_REDUCE:
  case PTO_PYPTO_KIND_ARGREDUCE: return reduce;
  case PTO_PYPTO_KIND_MATMUL: return matmul;
  case PTO_PYPTO_KIND_VIEW:
  case PTO_PYPTO_KIND_ASSEMBLE:
  case PTO_PYPTO_KIND_LOAD_SCALAR: return window;
  case PTO_PYPTO_KIND_TRANSPOSE: return perm;
  case PTO_PYPTO_KIND_CONCAT:
  case PTO_PYPTO_KIND_DIM:
  case PTO_PYPTO_KIND_GATHER:
  case PTO_PYPTO_KIND_INDEX_SELECT:
  case PTO_PYPTO_KIND_SCATTER:
  case PTO_PYPTO_KIND_SOFTMAX: return dim;
  case PTO_PYPTO_KIND_TOPK: return topk;
  case PTO_PYPTO_KIND_RMS_NORM:
  case PTO_PYPTO_KIND_LAYER_NORM: return eps;
  case PTO_PYPTO_KIND_RANDOM: return random;
  case PTO_PYPTO_KIND_SCALED_MM: return scaled_mm;
  default: return none;
  }
}

PtoResult pypto_check_known_attrs(PyInfer *in) {
  return pto_opcheck_known_attrs(&in->c, pto_pypto_op_attrs(in->id), pto_tuning_is_attr_name,
                                 "vec_tile, cube_tile, label");
}

/* ---- operands and results ---- */

PtoResult pypto_opnd_tensor(PyInfer *in, unsigned i, PtoShape *s,
                             PtoType **elem) {
  if (elem) *elem = NULL;
  if (pto_opcheck_tensor(&in->c, "operand", i, in->c.opnd[i], s)) return PTO_FAILURE;
  if (elem) *elem = pto_type_tensor_elem(in->c.opnd[i]);
  return PTO_SUCCESS;
}

PtoResult pypto_opnd_min_rank(PyInfer *in, unsigned i, const PtoShape *s,
                               unsigned r) {
  if (s->rank < r) return ERR("operand #%u must have rank >= %u", i, r);
  return PTO_SUCCESS;
}

PtoResult pypto_want_tensor(PyInfer *in, unsigned r, PtoShape *s) {
  return pto_opcheck_tensor(&in->c, "result", r, in->want[r], s);
}

PtoResult pypto_opnd_class(PyInfer *in, unsigned i, PtoDtypeSet c) {
  PtoType *t = in->c.opnd[i];
  PtoType *e = pto_type_is_tensor(t) ? pto_type_tensor_elem(t) : t;
  if (!pto_dtype_in_set(e, (PtoDtypeSet)c))
    return ERR("operand #%u must be a tensor of %s, got '%s'", i,
               pto_dtype_set_text((PtoDtypeSet)c), pto_opcheck_tstr(&in->c, t));
  return PTO_SUCCESS;
}

/* A tensor or a scalar of a supported dtype; a scalar has rank 0. */
PtoResult pypto_opnd_tensor_or_scalar(PyInfer *in, unsigned i, PtoShape *s,
                                       PtoType **elem) {
  PtoType *t = in->c.opnd[i];
  *elem = NULL;
  if (pto_type_is_tensor(t)) return pypto_opnd_tensor(in, i, s, elem);
  if (!pto_elem_is_supported(t))
    return ERR("operand #%u has unsupported element type '%s'", i,
               pto_opcheck_tstr(&in->c, t));
  s->rank = 0;
  *elem = t;
  return PTO_SUCCESS;
}

/* Index tensors of gather / index_select / scatter_update. */
PtoResult pypto_opnd_indices(PyInfer *in, unsigned i, PtoShape *s) {
  PtoType *e;
  if (pypto_opnd_tensor(in, i, s, &e)) return PTO_FAILURE;
  if (!pto_elem_is_int(e) ||
      (pto_type_int_width(e) != 32 && pto_type_int_width(e) != 64))
    return ERR("operand #%u must be a tensor of i32 or i64 indices, got '%s'", i,
               pto_opcheck_tstr(&in->c, in->c.opnd[i]));
  return PTO_SUCCESS;
}

PtoType *pypto_tensor_of(PyInfer *in, const PtoShape *s, PtoType *elem) {
  return pto_shape_tensor(in->c.ctx, s, elem);
}

void pypto_set_res(PyInfer *in, PtoType *t) { in->res[in->nres++] = t; }

/* Two shapes agree where both are static. */
bool pypto_compatible(const PtoShape *a, const PtoShape *b) {
  if (a->rank != b->rank) return false;
  for (unsigned i = 0; i < a->rank; i++)
    if (a->dims[i] != PTO_DYN && b->dims[i] != PTO_DYN && a->dims[i] != b->dims[i])
      return false;
  return true;
}

PtoResult pypto_need_want(PyInfer *in, const char *battr) {
  if (!in->want[0]) return ERR("requires builder attribute '%s'", battr);
  return PTO_SUCCESS;
}

PtoResult pypto_infer_check_results(PyInfer *in) {
  for (unsigned i = 0; i < in->nres; i++) {
    if (in->want[i] == in->res[i]) continue;
    PtoShape s;
    if (pto_type_is_tensor(in->res[i]) && in->want[i] &&
        pto_opcheck_tensor(&in->c, "result", i, in->want[i], &s))
      return PTO_FAILURE;
    return ERR("result #%u has type '%s' but the inferred type is '%s'", i,
               in->want[i] ? pto_opcheck_tstr(&in->c, in->want[i]) : "nothing",
               pto_opcheck_tstr(&in->c, in->res[i]));
  }
  return PTO_SUCCESS;
}
