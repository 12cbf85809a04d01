/* Unit tests of the verifier on IR that the parser cannot produce (the
 * textual rules are tested by test/IR/invalid-*.pto). */
#include "IRTestUtil.h"
#include "Test.h"

/* Verifies `op` capturing diagnostics; returns whether it failed and the
 * log holds `message`. */
static bool fails_with(PtoOp *op, const char *message) {
  DiagCapture log;
  diag_capture_begin(&log, pto_op_ctx(op));
  bool failed = pto_op_verify(op) == PTO_FAILURE;
  diag_capture_end(&log);
  if (!diag_capture_has(&log, message))
    fprintf(stderr, "diagnostics were:\n%s", log.text);
  return failed && diag_capture_has(&log, message);
}

TEST(value_from_nested_region_used_outside) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "\"x.wrap\"() ({\n  %inner = \"x.def\"() : () -> i32\n"
                        "}) : () -> ()\n\"x.use\"() : () -> ()\n");
  PtoOp *wrap = module_op(m, 0), *use = module_op(m, 1);
  PtoValue *inner = pto_op_result(nested_op(wrap, 0, 0), 0);
  pto_op_set_operands(use, 0, 0, &inner, 1);
  CHECK(fails_with(m, "test.pto:4:1: error: operand #0 does not dominate this use"));
  CHECK(fails_with(m, "test.pto:2:3: note: operand defined here"));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(isolation_violation) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "%outer = \"x.def\"() : () -> i32\n"
                        "ptotest.isolated {\n  \"x.wrap\"() ({\n"
                        "    \"x.use\"() : () -> ()\n  }) : () -> ()\n}\n");
  PtoValue *outer = pto_op_result(module_op(m, 0), 0);
  PtoOp *use = nested_op(nested_op(module_op(m, 1), 0, 0), 0, 0);
  pto_op_set_operands(use, 0, 0, &outer, 1);
  CHECK(fails_with(m, "test.pto:4:5: error: 'x.use' op using value defined "
                      "outside the region"));
  CHECK(fails_with(m, "test.pto:2:1: note: required by region isolation "
                      "constraints"));
  /* the same when verifying the isolated op alone, or the inner op */
  CHECK(fails_with(module_op(m, 1), "using value defined outside the region"));
  CHECK(fails_with(use, "using value defined outside the region"));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(successor_in_another_region) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "\"ptotest.region\"() ({\n^a:\n  ptotest.yield\n"
                        "^b:\n  ptotest.yield\n}) : () -> ()\n"
                        "\"ptotest.region\"() ({\n  ptotest.yield\n}) : () -> ()\n");
  PtoBlock *b = pto_block_next(pto_region_first_block(pto_op_region(module_op(m, 0), 0)));
  PtoOp *yield = nested_op(module_op(m, 1), 0, 0);
  PtoOpState st;
  pto_op_state_init(&st, ctx, "ptotest.br", pto_op_loc(yield));
  pto_op_state_add_successor(&st, b);
  pto_block_insert_before(yield, pto_op_create(&st));
  pto_op_erase(yield);
  CHECK(fails_with(m, "'ptotest.br' op reference to block defined in another "
                      "region"));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(null_operand) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "");
  PtoValue *none = NULL;
  PtoOp *op = pto_op_create_simple(ctx, "x.null", NULL, &none, 1, NULL, 0,
                                   NULL, 0);
  pto_block_append(pto_region_first_block(pto_op_region(m, 0)), op);
  CHECK(fails_with(m, "'x.null' op null operand found at position 0"));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* Marks left in values by printing (or an earlier verification) must not
 * make a value defined later look visible to a nested op. */
TEST(verify_nested_op_after_printing) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "%0 = \"x.a\"() : () -> i32\n"
                        "\"x.wrap\"() ({\n  \"x.use\"(%1) : (i32) -> ()\n"
                        "}) : () -> ()\n%1 = \"x.late\"() : () -> i32\n");
  CHECK(m != NULL);
  for (int round = 0; round < 3; round++) {
    char *s = pto_op_print_to_string(m, 0);
    pto_free(s);
    CHECK(fails_with(module_op(m, 1), "operand #0 does not dominate this use"));
    CHECK(fails_with(nested_op(module_op(m, 1), 0, 0),
                     "operand #0 does not dominate this use"));
    CHECK(fails_with(m, "operand #0 does not dominate this use"));
  }
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* A nested op sees the values defined above it. */
TEST(verify_nested_op_sees_values_above) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "%0 = \"x.a\"() : () -> i32\n"
                        "\"x.wrap\"() ({\n^bb0(%arg: i32):\n"
                        "  %1 = \"x.b\"() : () -> i32\n"
                        "  \"x.wrap\"() ({\n    \"x.use\"(%0, %arg, %1) : (i32, i32, i32) -> ()\n"
                        "  }) : () -> ()\n}) : () -> ()\n");
  CHECK(m != NULL);
  PtoOp *outer = module_op(m, 1);
  PtoOp *inner = nested_op(outer, 0, 1);
  PtoOp *use = nested_op(inner, 0, 0);
  CHECK(pto_op_verify(use) == PTO_SUCCESS);
  CHECK(pto_op_verify(inner) == PTO_SUCCESS);
  CHECK(pto_op_verify(outer) == PTO_SUCCESS);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(deep_nesting_is_reported) {
  PtoContext *ctx = test_ctx();
  PtoOp *ok = nest_regions(ctx, 200);
  CHECK(pto_op_verify(ok) == PTO_SUCCESS);
  pto_op_destroy(ok);
  PtoOp *deep = nest_regions(ctx, 5000);
  CHECK(fails_with(deep, "'x.wrap' op regions nested too deeply to verify (at "
                         "most 256 levels)"));
  pto_op_destroy(deep);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(value_from_nested_region_used_outside), T(isolation_violation),
          T(successor_in_another_region), T(null_operand),
          T(verify_nested_op_after_printing),
          T(verify_nested_op_sees_values_above), T(deep_nesting_is_reported))
