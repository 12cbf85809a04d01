/* An end-to-end use of the IR core API: build a module, print it, clone,
 * replace uses, erase and verify. (The other *Test.c files test each part
 * in detail.) */
#include "Test.h"
#include "pto/IR.h"

TEST(build_and_print) {
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_set_allow_unregistered(ctx, true);
  PtoOp *m = pto_parse_module(ctx, "", 0, NULL);
  CHECK(m != NULL);
  PtoBlock *body = pto_region_first_block(pto_op_region(m, 0));
  PtoBuilder b;
  pto_builder_init(&b, ctx);
  pto_builder_set_block_end(&b, body);
  PtoType *i32 = pto_type_int(ctx, 32);
  PtoNamedAttr va = {pto_ident_cstr(ctx, "value"), pto_attr_int(ctx, i32, 7)};
  PtoOp *c = pto_builder_create_simple(&b, "x.const", NULL, 0, &i32, 1, &va, 1);
  PtoValue *ops[2] = {pto_op_result(c, 0), pto_op_result(c, 0)};
  PtoOp *add = pto_builder_create_simple(&b, "x.add", ops, 2, &i32, 1, NULL, 0);
  CHECK(pto_value_num_uses(pto_op_result(c, 0)) == 2);
  char *s = pto_op_print_to_string(m, 0);
  CHECK_STR(s, "module {\n"
               "  %0 = \"x.const\"() {value = 7 : i32} : () -> i32\n"
               "  %1 = \"x.add\"(%0, %0) : (i32, i32) -> i32\n"
               "}\n");
  pto_free(s);
  /* clone with a value map, then RAUW and erase */
  PtoValueMap *map = pto_value_map_create();
  PtoOp *c2 = pto_op_clone(c, map);
  pto_block_insert_before(add, c2);
  CHECK(pto_value_map_get(map, pto_op_result(c, 0)) == pto_op_result(c2, 0));
  pto_value_replace_all_uses(pto_op_result(c, 0), pto_op_result(c2, 0));
  CHECK(!pto_value_has_uses(pto_op_result(c, 0)));
  pto_op_erase(c);
  CHECK(pto_op_operand(add, 1) == pto_op_result(c2, 0));
  pto_value_map_destroy(map);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(build_and_print))
