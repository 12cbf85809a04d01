/* Builders of scf ops for passes and front ends, and the constant trip
 * count of a loop. */
#include "Dialect/SCF/SCF.h"

PtoOp *pto_scf_build_for(PtoBuilder *b, PtoValue *lb, PtoValue *ub,
                         PtoValue *step, PtoValue *const *inits, unsigned n,
                         PtoBlock **body) {
  PtoOpState st;
  pto_op_state_init(&st, b->ctx, "scf.for", b->loc);
  PtoValue *bounds[3] = {lb, ub, step};
  pto_op_state_add_operands(&st, bounds, 3);
  pto_op_state_add_operands(&st, inits, n);
  PtoBlock *blk = pto_block_create(b->ctx);
  pto_block_add_arg(blk, pto_value_type(lb), b->loc);
  for (unsigned i = 0; i < n; i++) {
    pto_op_state_add_result(&st, pto_value_type(inits[i]));
    pto_block_add_arg(blk, pto_value_type(inits[i]), b->loc);
  }
  pto_region_push_block(pto_op_state_add_region(&st), blk);
  if (body) *body = blk;
  return pto_builder_create(b, &st);
}

PtoOp *pto_scf_build_if(PtoBuilder *b, PtoValue *cond,
                        PtoType *const *result_types, unsigned n,
                        bool with_else, PtoBlock **then_block,
                        PtoBlock **else_block) {
  PtoOpState st;
  pto_op_state_init(&st, b->ctx, "scf.if", b->loc);
  pto_op_state_add_operand(&st, cond);
  pto_op_state_add_results(&st, result_types, n);
  PtoBlock *tb = pto_block_create(b->ctx);
  pto_region_push_block(pto_op_state_add_region(&st), tb);
  PtoRegion *else_r = pto_op_state_add_region(&st);
  PtoBlock *eb = NULL;
  if (with_else) {
    eb = pto_block_create(b->ctx);
    pto_region_push_block(else_r, eb);
  }
  if (then_block) *then_block = tb;
  if (else_block) *else_block = eb;
  return pto_builder_create(b, &st);
}

PtoOp *pto_scf_build_yield(PtoBuilder *b, PtoValue *const *vals, unsigned n) {
  return pto_builder_create_simple(b, "scf.yield", vals, n, NULL, 0, NULL, 0);
}

/* Reads v as a constant of its integer/index type, sign-extended. */
static bool const_int(PtoValue *v, int64_t *out) {
  PtoAttr *a = pto_value_constant(v);
  if (!a || pto_attr_kind(a) != PTO_ATTR_INTEGER) return false;
  *out = pto_attr_int_value(a);
  return true;
}

bool pto_scf_for_const_trip_count(const PtoOp *op, int64_t *count) {
  int64_t lb, ub, step;
  if (!const_int(pto_scf_for_lower(op), &lb) ||
      !const_int(pto_scf_for_upper(op), &ub) ||
      !const_int(pto_scf_for_step(op), &step) || step <= 0)
    return false;
  if (ub <= lb) {
    *count = 0;
    return true;
  }
  /* ub - lb fits in uint64 even when it overflows int64 */
  uint64_t diff = (uint64_t)ub - (uint64_t)lb, s = (uint64_t)step;
  uint64_t n = diff / s + (diff % s != 0);
  if (n > (uint64_t)INT64_MAX) return false;
  *count = (int64_t)n;
  return true;
}
