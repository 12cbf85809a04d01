/* The machinery every table-driven dialect (pypto, tile, and the levels
 * still to come) shares: op ids from definitions, lookup by name, the
 * unary rows, and verification by running the dialect's inference on an
 * op's parts (pto/Dialect/Common.h). */
#include "pto/Dialect/Common.h"

#include "Support/Alloc.h"

#include <string.h>

int pto_optable_id(const PtoOpTable *t, const PtoOp *op) {
  const PtoOpDef *d = op ? pto_op_def(op) : NULL;
  uintptr_t p = (uintptr_t)d, lo = (uintptr_t)t->defs,
            hi = (uintptr_t)(t->defs + t->num_ops);
  if (!d || p < lo || p >= hi) return -1;
  return (int)(d - t->defs);
}

int pto_optable_lookup(const PtoOpTable *t, const char *name) {
  size_t n = strlen(t->prefix);
  if (strncmp(name, t->prefix, n) == 0) name += n;
  for (unsigned i = 0; i < t->num_ops; i++)
    if (strcmp(t->mnemonics[i], name) == 0) return (int)i;
  return -1;
}

PtoUnaryRow pto_optable_unary_row(const PtoOpTable *t, int id) {
  if (!t->unary_rows || id < 0 || (unsigned)id >= t->num_ops)
    return PTO_UNARY_ROW_NONE;
  return (PtoUnaryRow)(t->unary_rows[id] - 1);
}

PtoResult pto_optable_verify(const PtoOpTable *t, PtoOp *op,
                             PtoOpInferCheck check) {
  unsigned n = pto_op_num_operands(op);
  PtoType *stack[8], **types = n <= 8 ? stack : pto_malloc(n * sizeof *types);
  for (unsigned i = 0; i < n; i++) types[i] = pto_value_type(pto_op_operand(op, i));
  PtoType *res[2] = {NULL, NULL};
  unsigned nres = pto_op_num_results(op) < 2 ? pto_op_num_results(op) : 2;
  for (unsigned i = 0; i < nres; i++) res[i] = pto_value_type(pto_op_result(op, i));
  PtoResult r = check(pto_op_ctx(op), pto_op_loc(op), pto_optable_id(t, op), types,
                      n, pto_op_attrs(op), pto_op_num_attrs(op), res, nres);
  if (types != stack) pto_free(types);
  return r;
}
