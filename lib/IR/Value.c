/* Values (op results and block arguments) and their use-lists. */
#include "IR/IRInternal.h"

#include <assert.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Values and uses                                                      */
/* ------------------------------------------------------------------ */

PtoType *pto_value_type(const PtoValue *v) { return v->type; }
void pto_value_set_type(PtoValue *v, PtoType *t) { v->type = t; }
PtoContext *pto_value_ctx(const PtoValue *v) { return v->type->ctx; }
bool pto_value_is_block_arg(const PtoValue *v) { return v->is_arg; }
PtoOp *pto_value_def_op(const PtoValue *v) {
  return v->is_arg ? NULL : result_op(v);
}
PtoBlock *pto_value_owner_block(const PtoValue *v) {
  return v->is_arg ? arg_block(v) : NULL;
}
PtoBlock *pto_value_parent_block(const PtoValue *v) {
  return v->is_arg ? arg_block(v) : result_op(v)->block;
}
unsigned pto_value_index(const PtoValue *v) { return v->index; }
PtoLoc *pto_value_loc(const PtoValue *v) {
  return v->is_arg ? ((const PtoBlockArg *)v)->loc : op_loc(result_op(v));
}
PtoUse *pto_value_first_use(const PtoValue *v) { return v->first_use; }
bool pto_value_has_uses(const PtoValue *v) { return v->first_use != NULL; }
bool pto_value_has_one_use(const PtoValue *v) {
  return v->first_use && !v->first_use->next;
}
unsigned pto_value_num_uses(const PtoValue *v) {
  unsigned n = 0;
  for (PtoUse *u = v->first_use; u; u = u->next) n++;
  return n;
}

void pto_value_replace_all_uses(PtoValue *from, PtoValue *to) {
  if (from == to) return;
  while (from->first_use) {
    PtoUse *u = from->first_use;
    pto_use_unlink(u);
    pto_use_link(u, to);
  }
}

void pto_value_replace_uses_except(PtoValue *from, PtoValue *to,
                                   PtoOp *except) {
  PtoUse *u = from->first_use;
  while (u) {
    PtoUse *next = u->next;
    if (!pto_op_is_ancestor_of(except, u->owner)) {
      pto_use_unlink(u);
      pto_use_link(u, to);
    }
    u = next;
  }
}

PtoAttr *pto_value_constant(const PtoValue *v) {
  if (v->is_arg) return NULL;
  return pto_op_constant_value(result_op(v));
}

PtoUse *pto_use_next(const PtoUse *u) { return u->next; }
PtoOp *pto_use_owner(const PtoUse *u) { return u->owner; }
unsigned pto_use_operand_index(const PtoUse *u) {
  return (unsigned)(u - u->owner->operands);
}
PtoValue *pto_use_value(const PtoUse *u) { return u->value; }

void pto_op_replace_all_uses(PtoOp *op, PtoValue *const *vals) {
  for (unsigned i = 0; i < op->num_results; i++)
    pto_value_replace_all_uses(&op->results[i], vals[i]);
}
