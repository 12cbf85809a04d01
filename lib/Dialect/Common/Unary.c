/* The elementwise unary ops as every level's verifier sees them: the
 * attributes each row of pto/UnaryOps.def defines and their checks. */
#include "Dialect/Common/OpCheck.h"
#include "pto/Dialect/AttrNames.h"

#include <math.h>

static const struct {
  const char *attrs[3]; /* NULL-terminated */
  double dflt[2];
} rows[PTO_UNARY_NUM_ROWS] = {
#define PARAMS0 {NULL}, {0, 0}
#define PARAMS1(N0, D0) {N0, NULL}, {D0, 0}
#define PARAMS2(N0, D0, N1, D1) {N0, N1, NULL}, {D0, D1}
#define PTO_UNARY_OP(ID, MN, DT, FF, FI, PARAMS, SUM) {PARAMS},
#include "pto/UnaryOps.def"
#undef PARAMS0
#undef PARAMS1
#undef PARAMS2
};

const char *const *pto_unary_row_attrs(PtoUnaryRow row) {
  static const char *const gelu[] = {PTO_ATTR_APPROXIMATE, NULL};
  return row == PTO_UNARY_ROW_GELU ? gelu : rows[row].attrs;
}

void pto_unary_row_params(PtoOp *op, PtoUnaryRow row, double out[2]) {
  out[0] = out[1] = 0;
  for (unsigned i = 0; i < 2 && rows[row].attrs[i]; i++) {
    PtoAttr *a = pto_op_attr(op, rows[row].attrs[i]);
    out[i] = !a ? rows[row].dflt[i]
             : pto_attr_kind(a) == PTO_ATTR_FLOAT ? pto_attr_float_value(a)
                                                  : (double)pto_attr_int_value(a);
  }
}

/* A float parameter: a float or integer attribute (bools are not). */
static PtoResult param(PtoOpCheck *c, PtoUnaryRow row, unsigned i,
                       double *out) {
  const char *name = rows[row].attrs[i];
  PtoAttr *a = pto_opcheck_attr(c, name);
  *out = rows[row].dflt[i];
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) == PTO_ATTR_FLOAT) *out = pto_attr_float_value(a);
  else if (pto_attr_kind(a) == PTO_ATTR_INTEGER && !pto_attr_is_bool(a))
    *out = (double)pto_attr_int_value(a);
  else
    return PTO_CHECK_ERR(c, "attribute '%s' must be a number", name);
  if (isnan(*out))
    return PTO_CHECK_ERR(c, "attribute '%s' must not be NaN", name);
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_unary_attrs(PtoOpCheck *c, PtoUnaryRow row) {
  if (row == PTO_UNARY_ROW_GELU) return pto_opcheck_gelu_attrs(c);
  double v[2] = {0, 0};
  for (unsigned i = 0; i < 2 && rows[row].attrs[i]; i++)
    if (param(c, row, i, &v[i])) return PTO_FAILURE;
  if (row == PTO_UNARY_ROW_CLIP && v[0] > v[1])
    return PTO_CHECK_ERR(c, "attribute 'min' (%g) must not exceed 'max' (%g)",
                         v[0], v[1]);
  return PTO_SUCCESS;
}
