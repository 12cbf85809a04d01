/* Unit tests of the printer API: fallback to the generic form for IR that
 * does not verify, nesting limits, printing nested ops, naming. */
#include "IRTestUtil.h"
#include "Test.h"

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
  DiagCapture log;
  diag_capture_begin(&log, ctx);
  s = pto_op_print_to_string(m, 0);
  diag_capture_end(&log);
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

TEST(deep_nesting) {
  PtoContext *ctx = test_ctx();
  PtoOp *ok = nest_regions(ctx, 200);
  char *s = pto_op_print_to_string(ok, 0);
  CHECK(strstr(s, "nested too deeply") == NULL);
  pto_free(s);
  pto_op_destroy(ok);
  PtoOp *deep = nest_regions(ctx, 5000);
  DiagCapture log;
  diag_capture_begin(&log, ctx);
  s = pto_op_print_to_string(deep, 0);
  diag_capture_end(&log);
  CHECK(strstr(s, "{ <<regions nested too deeply>> }") != NULL);
  CHECK(log.count == 1);
  CHECK(diag_capture_has(&log, "error: regions nested too deeply to print (at most "
                           "256 levels)"));
  pto_free(s);
  pto_op_destroy(deep);
  pto_ctx_destroy(ctx);
}

/* Names are given in program order, per isolated scope in the custom form
 * and once for everything in the generic form; printing twice gives the
 * same text. */
TEST(naming) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "%z = \"x.a\"() : () -> i32\n"
                        "ptotest.isolated {\n^bb0(%p: i32):\n"
                        "  %q = \"x.b\"(%p) : (i32) -> i32\n}\n"
                        "%y:2 = \"x.c\"(%z) : (i32) -> (i32, i32)\n");
  char *a = pto_op_print_to_string(m, 0), *b = pto_op_print_to_string(m, 0);
  CHECK_STR(a, b);
  CHECK_STR(a, "module {\n  %0 = \"x.a\"() : () -> i32\n  ptotest.isolated {\n"
               "  ^bb0(%arg0: i32):\n    %0 = \"x.b\"(%arg0) : (i32) -> i32\n  }\n"
               "  %1:2 = \"x.c\"(%0) : (i32) -> (i32, i32)\n}\n");
  pto_free(a);
  pto_free(b);
  a = pto_op_print_to_string(m, PTO_PRINT_GENERIC);
  CHECK(strstr(a, "%2 = \"x.b\"(%arg0)") != NULL);
  CHECK(strstr(a, "%1:2 = \"x.c\"(%0)") != NULL);
  pto_free(a);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* A nested op prints with the names it has in the whole printout; with
 * PTO_PRINT_LOCAL_SCOPE it is numbered on its own. */
TEST(print_nested_op) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "%a = \"x.a\"() : () -> i32\n%b = \"x.b\"() : () -> i32\n"
                        "\"x.w\"() ({\n  %c = \"x.c\"(%b) : (i32) -> i32\n}) : () -> ()\n");
  PtoOp *c = nested_op(module_op(m, 2), 0, 0);
  char *s = pto_op_print_to_string(c, 0);
  CHECK_STR(s, "%2 = \"x.c\"(%1) : (i32) -> i32\n");
  pto_free(s);
  s = pto_op_print_to_string(module_op(m, 2), PTO_PRINT_LOCAL_SCOPE);
  CHECK(strstr(s, "\"x.w\"() ({\n") == s);
  pto_free(s);
  s = pto_op_print_to_string(module_op(m, 1), PTO_PRINT_LOCAL_SCOPE);
  CHECK_STR(s, "%0 = \"x.b\"() : () -> i32\n");
  pto_free(s);
  /* to a FILE, and the dump helpers */
  FILE *f = tmpfile();
  pto_op_print(module_op(m, 0), f, PTO_PRINT_DEBUGINFO);
  pto_type_dump(pto_type_int(ctx, 8), f);
  pto_attr_dump(pto_attr_i64(ctx, 3), f);
  rewind(f);
  char buf[256] = {0};
  CHECK(fread(buf, 1, sizeof buf - 1, f) > 0);
  CHECK_STR(buf, "%0 = \"x.a\"() : () -> i32 loc(\"test.pto\":1:1)\ni83");
  fclose(f);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* The printer API used by custom forms (through the ptotest dialect), and
 * the escaping of names that are not identifiers. */
TEST(printer_api_through_hooks) {
  PtoContext *ctx = ctx_with_test_dialect();
  const char *src =
      "ptotest.literals kw -1.5e3 \"a\\nb\" @\"s q\" -42 [optional 7] {x}\n"
      "\"x.n\"() {\"not an id\" = 1, ok_id = 2, \"9\" = 3} : () -> ()\n";
  PtoOp *m = parse(ctx, src);
  CHECK(m != NULL);
  if (!m) return;
  char *s = pto_op_print_to_string(m, 0);
  CHECK_STR(s, "module {\n  ptotest.literals kw -1.500000e+03 \"a\\nb\" @\"s q\" -42 "
               "[optional 7] {x}\n  \"x.n\"() {\"9\" = 3, \"not an id\" = 1, ok_id = 2} "
               ": () -> ()\n}\n");
  pto_free(s);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(invalid_ir_prints_generic), T(invalid_symbol_prints_generic),
          T(deep_nesting), T(naming), T(print_nested_op),
          T(printer_api_through_hooks))
