/* The checks every pypto op's inference is built from: attributes
 * (required, typed, known to the op), operand and result kinds, dtype
 * classes, and the final comparison with the op's actual result types. */
#include "PyptoInternal.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void pypto_infer_init(PyInfer *in, PtoContext *ctx, PtoLoc *loc, PtoPyptoOp id,
                      PtoType *const *opnd, unsigned nopnd,
                      const PtoNamedAttr *attrs, unsigned nattrs) {
  memset(in, 0, sizeof *in);
  in->ctx = ctx;
  in->id = id;
  in->site.ctx = ctx;
  in->site.loc = loc;
  in->site.prefix = pypto_err_prefix(id);
  in->opnd = opnd;
  in->nopnd = nopnd;
  in->attrs = attrs;
  in->nattrs = nattrs;
}

void pypto_infer_done(PyInfer *in) { pto_check_strs_release(&in->strs); }

const char *pypto_tstr(PyInfer *in, PtoType *t) {
  return pto_check_tstr(&in->strs, t);
}

PtoAttr *pypto_infer_attr(const PyInfer *in, const char *name) {
  return pto_check_find_attr(in->attrs, in->nattrs, name);
}

/* ---- attributes ---- */

/* The shared rules (lib/Dialect/Common/OpCheck.c) on this op's attributes. */
PtoResult pypto_attr_int(PyInfer *in, const char *name, bool required,
                          int64_t dflt, int64_t *out) {
  return pto_check_attr_int(&in->site, in->attrs, in->nattrs, name, required,
                            dflt, out);
}

PtoResult pypto_attr_flag(PyInfer *in, const char *name, bool *out) {
  return pto_check_attr_flag(&in->site, in->attrs, in->nattrs, name, out);
}

PtoResult pypto_attr_bool(PyInfer *in, const char *name, bool dflt, bool *out) {
  return pto_check_attr_bool(&in->site, in->attrs, in->nattrs, name, dflt, out);
}

PtoResult pypto_attr_enum(PyInfer *in, const char *name,
                           const char *const *values, const char *msg) {
  return pto_check_attr_enum(&in->site, in->attrs, in->nattrs, name, values,
                             msg);
}

PtoResult pypto_attr_dim(PyInfer *in, bool required, int64_t dflt,
                          unsigned rank, unsigned *out) {
  return pto_check_attr_dim(&in->site, in->attrs, in->nattrs, required, dflt,
                            rank, out);
}

/* Attributes each kind defines (besides the tuning attributes). */
static const char *const *kind_attrs(PtoPyptoOp id) {
  static const char *const none[] = {NULL};
  static const char *const gelu[] = {"approximate", NULL};
  static const char *const cast[] = {"mode", "satmode", NULL};
  static const char *const reduce[] = {"dim", "keepdim", NULL};
  static const char *const matmul[] = {"a_trans", "b_trans", "acc_dtype", NULL};
  static const char *const window[] = {"static_offsets", NULL};
  static const char *const perm[] = {"perm", NULL};
  static const char *const dim[] = {"dim", NULL};
  static const char *const topk[] = {"k", "dim", "largest", NULL};
  static const char *const eps[] = {"eps", NULL};
  if (id == PTO_PYPTO_GELU) return gelu;
  switch (pto_pypto_kind(id)) {
  case PTO_PYPTO_KIND_CAST: return cast;
  case PTO_PYPTO_KIND_REDUCE:
  case PTO_PYPTO_KIND_ARGREDUCE: return reduce;
  case PTO_PYPTO_KIND_MATMUL: return matmul;
  case PTO_PYPTO_KIND_VIEW:
  case PTO_PYPTO_KIND_ASSEMBLE: return window;
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
  default: return none;
  }
}

PtoResult pypto_check_known_attrs(PyInfer *in) {
  return pto_check_known_attrs(&in->site, in->attrs, in->nattrs,
                               pto_pypto_op_name(in->id), kind_attrs(in->id),
                               pto_tuning_is_attr_name,
                               "vec_tile, cube_tile, label");
}

/* ---- operands and results ---- */

/* A valid tensor type: supported dtype, rank, no zero-sized dim. `what` is
 * "operand" or "result". */
PtoResult pypto_check_tensor(PyInfer *in, const char *what, unsigned i,
                              PtoType *t, PtoShape *s) {
  return pto_check_tensor(&in->site, &in->strs, what, i, t, s);
}

PtoResult pypto_opnd_tensor(PyInfer *in, unsigned i, PtoShape *s,
                             PtoType **elem) {
  if (elem) *elem = NULL;
  if (pypto_check_tensor(in, "operand", i, in->opnd[i], s)) return PTO_FAILURE;
  if (elem) *elem = pto_type_tensor_elem(in->opnd[i]);
  return PTO_SUCCESS;
}

PtoResult pypto_opnd_min_rank(PyInfer *in, unsigned i, const PtoShape *s,
                               unsigned r) {
  if (s->rank < r) return ERR("operand #%u must have rank >= %u", i, r);
  return PTO_SUCCESS;
}

PtoResult pypto_want_tensor(PyInfer *in, unsigned r, PtoShape *s) {
  return pypto_check_tensor(in, "result", r, in->want[r], s);
}

/* The DTYPES column lists the classes in PtoDtypeSet's order. */
bool pypto_dtype_in(PtoType *e, PtoPyptoDtypes c) {
  return pto_dtype_in_set(e, (PtoDtypeSet)c);
}

PtoResult pypto_opnd_class(PyInfer *in, unsigned i, PtoPyptoDtypes c) {
  PtoType *t = in->opnd[i];
  PtoType *e = pto_type_is_tensor(t) ? pto_type_tensor_elem(t) : t;
  if (!pypto_dtype_in(e, c))
    return ERR("operand #%u must be a tensor of %s, got '%s'", i,
               pto_dtype_set_text((PtoDtypeSet)c),
               pypto_tstr(in, t));
  return PTO_SUCCESS;
}

/* A tensor or a scalar of a supported dtype; a scalar has rank 0. */
PtoResult pypto_opnd_tensor_or_scalar(PyInfer *in, unsigned i, PtoShape *s,
                                       PtoType **elem) {
  PtoType *t = in->opnd[i];
  *elem = NULL;
  if (pto_type_is_tensor(t)) return pypto_opnd_tensor(in, i, s, elem);
  if (!pto_elem_is_supported(t))
    return ERR("operand #%u has unsupported element type '%s'", i,
               pypto_tstr(in, t));
  s->rank = 0;
  *elem = t;
  return PTO_SUCCESS;
}

PtoResult pypto_same_elem(PyInfer *in, PtoType *a, PtoType *b) {
  return pto_check_same_elem(&in->site, &in->strs, a, b);
}

PtoResult pypto_opnd_index(PyInfer *in, unsigned first) {
  return pto_check_index_operands(&in->site, &in->strs, in->opnd, in->nopnd,
                                  first);
}

/* Index tensors of gather / index_select / scatter_update. */
PtoResult pypto_opnd_indices(PyInfer *in, unsigned i, PtoShape *s) {
  PtoType *e;
  if (pypto_opnd_tensor(in, i, s, &e)) return PTO_FAILURE;
  if (!pto_elem_is_int(e) ||
      (pto_type_int_width(e) != 32 && pto_type_int_width(e) != 64))
    return ERR("operand #%u must be a tensor of i32 or i64 indices, got '%s'", i,
               pypto_tstr(in, in->opnd[i]));
  return PTO_SUCCESS;
}

PtoType *pypto_tensor_of(PyInfer *in, const PtoShape *s, PtoType *elem) {
  return pto_shape_tensor(in->ctx, s, elem);
}

void pypto_set_res(PyInfer *in, PtoType *t) { in->res[in->nres++] = t; }

/* The `?` dims of a result are given by index operands from `first`. */
PtoResult pypto_dyn_sizes(PyInfer *in, const PtoShape *s, unsigned first) {
  return pto_check_dyn_sizes(&in->site, &in->strs, in->opnd, in->nopnd, s,
                             first);
}

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
        pypto_check_tensor(in, "result", i, in->want[i], &s))
      return PTO_FAILURE;
    return ERR("result #%u has type '%s' but the inferred type is '%s'", i,
               in->want[i] ? pypto_tstr(in, in->want[i]) : "nothing",
               pypto_tstr(in, in->res[i]));
  }
  return PTO_SUCCESS;
}
