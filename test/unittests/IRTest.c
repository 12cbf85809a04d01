/* Unit tests of the IR core API. */
#include "Test.h"
#include "pto/IR.h"

#include <pthread.h>

TEST(types_are_uniqued) {
  PtoContext *ctx = pto_ctx_create();
  int64_t shape[] = {4, PTO_DYN, 8};
  PtoType *a = pto_type_tensor(ctx, shape, 3, pto_type_f32(ctx));
  PtoType *b = pto_type_tensor(ctx, shape, 3, pto_type_f32(ctx));
  CHECK(a == b);
  char *s = pto_type_to_string(a);
  CHECK_STR(s, "tensor<4x?x8xf32>");
  pto_free(s);
  CHECK(pto_type_int(ctx, 32) == pto_parse_type_str(ctx, "i32"));
  pto_ctx_destroy(ctx);
}

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

static void *parse_many(void *arg) {
  int *ok = arg;
  for (int iter = 0; iter < 50; iter++) {
    PtoContext *ctx = pto_ctx_create();
    pto_ctx_set_allow_unregistered(ctx, true);
    const char *src =
        "%0 = \"t.a\"() {v = [1, 2.5, \"s\"]} : () -> tensor<4x?xf32>\n"
        "\"t.b\"(%0) ({ ^bb0(%x: i32): \"t.c\"(%x) : (i32) -> () }) : "
        "(tensor<4x?xf32>) -> ()\n";
    PtoOp *m = pto_parse_module(ctx, src, strlen(src), NULL);
    if (!m || pto_op_verify(m)) {
      *ok = 0;
    } else {
      char *s = pto_op_print_to_string(m, PTO_PRINT_GENERIC);
      if (!strstr(s, "tensor<4x?xf32>")) *ok = 0;
      pto_free(s);
    }
    if (m) pto_op_destroy(m);
    pto_ctx_destroy(ctx);
  }
  return NULL;
}

TEST(two_contexts_two_threads) {
  pthread_t th[2];
  int ok[2] = {1, 1};
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, parse_many, &ok[i]);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  CHECK(ok[0] && ok[1]);
}

RUN_TESTS(T(types_are_uniqued), T(build_and_print), T(two_contexts_two_threads))
