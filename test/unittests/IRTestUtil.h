/* Helpers shared by the IR unit tests: parsing strings and capturing the
 * diagnostics a context reports. */
#ifndef PTO_IR_TEST_UTIL_H
#define PTO_IR_TEST_UTIL_H

#include "TestDialect.h"
#include "pto/IR.h"

#include <string.h>

/* Diagnostics captured as rendered text ("file:line:col: error: ..."),
 * one after the other. */
typedef struct DiagLog {
  PtoContext *ctx;
  char text[16384];
  unsigned count;
} DiagLog;

static inline bool diag_log_handler(const PtoDiagInfo *d, void *user) {
  DiagLog *log = user;
  char *s = pto_diag_render(log->ctx, d);
  size_t have = strlen(log->text), n = strlen(s);
  if (have + n < sizeof log->text) memcpy(log->text + have, s, n + 1);
  pto_free(s);
  log->count++;
  return true;
}

static inline void diag_log_start(DiagLog *log, PtoContext *ctx) {
  memset(log, 0, sizeof *log);
  log->ctx = ctx;
  pto_ctx_push_diag_handler(ctx, diag_log_handler, log);
}

static inline void diag_log_stop(DiagLog *log) {
  pto_ctx_pop_diag_handler(log->ctx);
}

static inline bool diag_log_has(const DiagLog *log, const char *needle) {
  return strstr(log->text, needle) != NULL;
}

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
