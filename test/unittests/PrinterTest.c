/* Unit tests of the printer API: fallback to the generic form for IR that
 * does not verify, nesting limits, printing nested ops, naming. */
#include "IRTestUtil.h"
#include "Test.h"
#include "TestDialect.h"

static PtoContext *ctx_with_test_dialect(void) {
  PtoContext *ctx = test_ctx();
  pto_register_test_dialect(ctx);
  return ctx;
}

/* A custom printer may index operands its op must have: IR that fails
 * verification is printed in the generic form, quietly. */
TEST(invalid_ir_prints_generic) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "%0 = ptotest.constant 1 : i32\n"
                        "%1 = ptotest.add %0, %0 : i32\n");
  PtoOp *add = module_op(m, 1);
  char *s = pto_op_print_to_string(m, 0);
  CHECK(strstr(s, "%1 = ptotest.add %0, %0 : i32") != NULL);
  pto_free(s);
  /* drop one operand: the op no longer verifies */
  pto_op_set_operands(add, 1, 1, NULL, 0);
  unsigned errors = pto_ctx_num_errors(ctx);
  DiagLog log;
  diag_log_start(&log, ctx);
  s = pto_op_print_to_string(m, 0);
  diag_log_stop(&log);
  CHECK(strstr(s, "%1 = \"ptotest.add\"(%0) : (i32) -> i32") != NULL);
  CHECK(strstr(s, "module {") == NULL); /* the module is generic too */
  CHECK(log.count == 0);
  CHECK(pto_ctx_num_errors(ctx) == errors);
  pto_free(s);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* Found by fuzzing: a symbol whose name is not a string crashed the custom
 * printer. */
TEST(invalid_symbol_prints_generic) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "\"ptotest.symbol\"() {sym_name = 1} : () -> ()\n");
  CHECK(m != NULL);
  char *s = pto_op_print_to_string(m, 0);
  CHECK(strstr(s, "\"ptotest.symbol\"() {sym_name = 1} : () -> ()") != NULL);
  pto_free(s);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

static PtoOp *nest(PtoContext *ctx, unsigned depth) {
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

TEST(deep_nesting) {
  PtoContext *ctx = test_ctx();
  PtoOp *ok = nest(ctx, 200);
  char *s = pto_op_print_to_string(ok, 0);
  CHECK(strstr(s, "nested too deeply") == NULL);
  pto_free(s);
  pto_op_destroy(ok);
  PtoOp *deep = nest(ctx, 5000);
  DiagLog log;
  diag_log_start(&log, ctx);
  s = pto_op_print_to_string(deep, 0);
  diag_log_stop(&log);
  CHECK(strstr(s, "{ <<regions nested too deeply>> }") != NULL);
  CHECK(log.count == 1);
  CHECK(diag_log_has(&log, "error: regions nested too deeply to print (at most "
                           "256 levels)"));
  pto_free(s);
  pto_op_destroy(deep);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(invalid_ir_prints_generic), T(invalid_symbol_prints_generic),
          T(deep_nesting))
