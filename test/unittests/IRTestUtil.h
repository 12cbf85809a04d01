/* Helpers shared by the IR unit tests: contexts, parsing strings, finding
 * ops, building nested IR (diagnostics are captured with DiagCapture.h). */
#ifndef PTO_IR_TEST_UTIL_H
#define PTO_IR_TEST_UTIL_H

#include "DiagCapture.h"
#include "TestDialect.h"
#include "pto/IR.h"

#include <string.h>

/* A context that accepts unregistered ops. */
static inline PtoContext *test_ctx(void) {
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_set_allow_unregistered(ctx, true);
  return ctx;
}

/* ... that also knows the ptotest dialect. */
static inline PtoContext *ctx_with_test_dialect(void) {
  PtoContext *ctx = test_ctx();
  pto_register_test_dialect(ctx);
  return ctx;
}

static inline PtoOp *parse(PtoContext *ctx, const char *src) {
  PtoParseOptions o = {"test.pto", 1};
  return pto_parse_module(ctx, src, strlen(src), &o);
}

/* The first op of the module's body, then the next ones. */
static inline PtoOp *module_op(PtoOp *module, unsigned i) {
  PtoOp *op = pto_block_first_op(pto_region_first_block(pto_op_region(module, 0)));
  while (op && i--) op = pto_op_next(op);
  return op;
}

/* The first op of region r of op, then the next ones. */
static inline PtoOp *nested_op(PtoOp *op, unsigned r, unsigned i) {
  PtoOp *o = pto_block_first_op(pto_region_first_block(pto_op_region(op, r)));
  while (o && i--) o = pto_op_next(o);
  return o;
}

/* A module holding `depth` "x.wrap" ops nested in each other's region. */
static inline PtoOp *nest_regions(PtoContext *ctx, unsigned depth) {
  PtoOp *m = parse(ctx, "");
  PtoBlock *b = pto_region_first_block(pto_op_region(m, 0));
  for (unsigned i = 0; i < depth; i++) {
    PtoOpState st;
    pto_op_state_init(&st, ctx, "x.wrap", NULL);
    PtoRegion *r = pto_op_state_add_region(&st);
    PtoBlock *inner = pto_block_create(ctx);
    pto_region_push_block(r, inner);
    pto_block_append(b, pto_op_create(&st));
    b = inner;
  }
  return m;
}

#endif
