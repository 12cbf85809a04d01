/* Folds of pypto ops: ops that are the identity on their operand (cast to
 * the same type, identity transpose/reshape/expand, whole-tensor view or
 * assemble, single-operand concat) and `dim` of a static dim. */
#include "PyptoInternal.h"

static bool zero_offsets(PtoOp *op) {
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_offsets(op, offs, dyn);
  for (unsigned i = 0; i < n; i++)
    if (offs[i] != 0) return false;
  return true;
}

static bool same_static_type(PtoValue *a, PtoValue *b) {
  PtoType *t = pto_value_type(a);
  return t == pto_value_type(b) && pto_type_tensor_is_static(t);
}

static bool is_identity_perm(PtoOp *op) {
  int64_t perm[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_perm(op, perm);
  for (unsigned i = 0; i < n; i++)
    if (perm[i] != (int64_t)i) return false;
  return true;
}

PtoResult pypto_fold(PtoOp *op, PtoAttr *const *consts, PtoFoldResult *res) {
  (void)consts;
  PtoValue *x = pto_op_num_operands(op) ? pto_op_operand(op, 0) : NULL;
  PtoValue *r = pto_op_result(op, 0);
  PtoValue *out = NULL;
  switch (pto_pypto_op_id(op)) {
  case PTO_PYPTO_CAST:
    if (pto_value_type(x) == pto_value_type(r)) out = x;
    break;
  case PTO_PYPTO_RESHAPE:
    /* A reshape has at most one `?`, so an unchanged type is the identity. */
    if (pto_value_type(x) == pto_value_type(r)) out = x;
    break;
  case PTO_PYPTO_TRANSPOSE:
    if (is_identity_perm(op)) out = x;
    break;
  case PTO_PYPTO_EXPAND:
    if (same_static_type(x, r)) out = x;
    break;
  case PTO_PYPTO_CONCAT:
    if (pto_op_num_operands(op) == 1 && pto_value_type(x) == pto_value_type(r))
      out = x;
    break;
  case PTO_PYPTO_VIEW:
    if (same_static_type(x, r) && zero_offsets(op)) out = x;
    break;
  case PTO_PYPTO_ASSEMBLE:
    if (same_static_type(x, pto_op_operand(op, 1)) && zero_offsets(op)) out = x;
    break;
  case PTO_PYPTO_DIM: {
    int64_t d = pto_type_tensor_dim(pto_value_type(x), pto_pypto_get_dim(op));
    if (d == PTO_DYN) return PTO_FAILURE;
    res[0].attr = pto_attr_index(pto_op_ctx(op), d);
    return PTO_SUCCESS;
  }
  default:
    break;
  }
  if (!out) return PTO_FAILURE;
  res[0].value = out;
  return PTO_SUCCESS;
}
