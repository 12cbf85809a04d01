/* Builders of arith ops for passes and front ends. */
#include "pto/Dialects.h"

PtoValue *pto_arith_build_constant(PtoBuilder *b, PtoAttr *value) {
  PtoType *t = pto_attr_get_type(value);
  PtoNamedAttr na = {pto_ident_cstr(b->ctx, "value"), value};
  PtoOp *op = pto_builder_create_simple(b, "arith.constant", NULL, 0, &t, 1,
                                        &na, 1);
  return pto_op_result(op, 0);
}

PtoValue *pto_arith_build_constant_index(PtoBuilder *b, int64_t v) {
  return pto_arith_build_constant(b, pto_attr_index(b->ctx, v));
}

PtoValue *pto_arith_build_constant_int(PtoBuilder *b, PtoType *type,
                                       int64_t v) {
  return pto_arith_build_constant(b, pto_attr_int(b->ctx, type, v));
}

PtoValue *pto_arith_build_constant_float(PtoBuilder *b, PtoType *type,
                                         double v) {
  return pto_arith_build_constant(b, pto_attr_float(b->ctx, type, v));
}

PtoValue *pto_arith_build_binary(PtoBuilder *b, const char *op_name,
                                 PtoValue *lhs, PtoValue *rhs) {
  PtoValue *ops[2] = {lhs, rhs};
  PtoType *t = pto_value_type(lhs);
  return pto_op_result(
      pto_builder_create_simple(b, op_name, ops, 2, &t, 1, NULL, 0), 0);
}

static PtoValue *build_cmp(PtoBuilder *b, const char *name, int64_t pred,
                           PtoValue *lhs, PtoValue *rhs) {
  PtoValue *ops[2] = {lhs, rhs};
  PtoType *i1 = pto_type_int(b->ctx, 1);
  PtoNamedAttr na = {pto_ident_cstr(b->ctx, "predicate"),
                     pto_attr_i64(b->ctx, pred)};
  return pto_op_result(
      pto_builder_create_simple(b, name, ops, 2, &i1, 1, &na, 1), 0);
}

PtoValue *pto_arith_build_cmpi(PtoBuilder *b, PtoCmpIPredicate pred,
                               PtoValue *lhs, PtoValue *rhs) {
  return build_cmp(b, "arith.cmpi", pred, lhs, rhs);
}

PtoValue *pto_arith_build_cmpf(PtoBuilder *b, PtoCmpFPredicate pred,
                               PtoValue *lhs, PtoValue *rhs) {
  return build_cmp(b, "arith.cmpf", pred, lhs, rhs);
}

PtoValue *pto_arith_build_select(PtoBuilder *b, PtoValue *cond, PtoValue *t,
                                 PtoValue *f) {
  PtoValue *ops[3] = {cond, t, f};
  PtoType *ty = pto_value_type(t);
  return pto_op_result(
      pto_builder_create_simple(b, "arith.select", ops, 3, &ty, 1, NULL, 0), 0);
}

PtoValue *pto_arith_build_cast(PtoBuilder *b, const char *op_name,
                               PtoValue *v, PtoType *type) {
  return pto_op_result(
      pto_builder_create_simple(b, op_name, &v, 1, &type, 1, NULL, 0), 0);
}
