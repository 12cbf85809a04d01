/* Unit tests of PtoOpState: ops larger than its inline buffers, states
 * initialised by zero-filling, release without create. */
#include "Test.h"
#include "pto/IR.h"

/* A context that accepts the test's unregistered ops, and a detached op
 * "x.c" with one i32 result to use as an operand. */
static PtoContext *new_ctx(PtoOp **c) {
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_set_allow_unregistered(ctx, true);
  PtoType *i32 = pto_type_int(ctx, 32);
  *c = pto_op_create_simple(ctx, "x.c", NULL, NULL, 0, &i32, 1, NULL, 0);
  return ctx;
}

/* An op with more of everything than the state keeps inline. */
static PtoOp *make_big(PtoContext *ctx, PtoOpState *st, PtoValue *v) {
  PtoType *i32 = pto_type_int(ctx, 32);
  for (unsigned i = 0; i < 9; i++) pto_op_state_add_operand(st, v);
  for (unsigned i = 0; i < 5; i++) pto_op_state_add_result(st, i32);
  static const char *names[] = {"f", "e", "d", "c", "b", "a", "g"};
  for (unsigned i = 0; i < 7; i++)
    pto_op_state_add_attr(st, names[i], pto_attr_i64(ctx, i));
  for (unsigned i = 0; i < 3; i++) pto_op_state_add_region(st);
  return pto_op_create(st);
}

TEST(state_beyond_inline_buffers) {
  PtoOp *c;
  PtoContext *ctx = new_ctx(&c);
  PtoOpState st;
  pto_op_state_init(&st, ctx, "x.big", NULL);
  PtoOp *op = make_big(ctx, &st, pto_op_result(c, 0));
  CHECK(pto_op_num_operands(op) == 9);
  CHECK(pto_op_num_results(op) == 5);
  CHECK(pto_op_num_regions(op) == 3);
  CHECK(pto_op_num_attrs(op) == 7);
  CHECK(pto_value_num_uses(pto_op_result(c, 0)) == 9);
  const PtoNamedAttr *a = pto_op_attrs(op);
  CHECK_STR(pto_ident_str(a[0].name), "a");
  CHECK_STR(pto_ident_str(a[6].name), "g");
  CHECK(pto_attr_int_value(pto_op_attr(op, "g")) == 6);
  /* the state is reusable after pto_op_create */
  CHECK(st.num_operands == 0 && st.num_attrs == 0 && st.num_regions == 0);
  PtoOp *clone = pto_op_clone(op, NULL);
  char *s1 = pto_op_print_to_string(op, PTO_PRINT_GENERIC);
  char *s2 = pto_op_print_to_string(clone, PTO_PRINT_GENERIC);
  CHECK_STR(s2, s1);
  pto_free(s1);
  pto_free(s2);
  pto_op_destroy(clone);
  pto_op_destroy(op);
  pto_op_destroy(c);
  pto_ctx_destroy(ctx);
}

TEST(zero_filled_state) {
  PtoOp *c;
  PtoContext *ctx = new_ctx(&c);
  PtoOpState st;
  memset(&st, 0, sizeof st);
  st.ctx = ctx;
  st.name = pto_ident_cstr(ctx, "x.big");
  PtoOp *op = make_big(ctx, &st, pto_op_result(c, 0));
  CHECK(pto_op_num_operands(op) == 9 && pto_op_num_attrs(op) == 7);
  pto_op_destroy(op);
  pto_op_destroy(c);
  pto_ctx_destroy(ctx);
}

TEST(release_without_create) {
  PtoContext *ctx = pto_ctx_create();
  PtoOpState st;
  pto_op_state_init(&st, ctx, "x.a", NULL);
  PtoType *f32 = pto_type_f32(ctx);
  for (unsigned i = 0; i < 20; i++) pto_op_state_add_result(&st, f32);
  for (unsigned i = 0; i < 5; i++) pto_op_state_add_region(&st);
  pto_op_state_release(&st); /* frees the regions and the heap arrays */
  CHECK(st.num_results == 0 && st.num_regions == 0);
  pto_op_state_release(&st); /* twice is harmless */
  pto_ctx_destroy(ctx);
}

/* Attributes and operands start in the op's own allocation and move out
 * when they outgrow it. */
TEST(attrs_and_operands_outgrow_the_op) {
  PtoOp *c;
  PtoContext *ctx = new_ctx(&c);
  PtoValue *v = pto_op_result(c, 0);
  PtoNamedAttr na = {pto_ident_cstr(ctx, "m"), pto_attr_i64(ctx, 1)};
  PtoType *i32 = pto_type_int(ctx, 32);
  PtoOp *op = pto_op_create_simple(ctx, "x.op", NULL, &v, 1, &i32, 1, &na, 1);
  static const char *names[] = {"z", "a", "q", "b", "y", "m"};
  for (unsigned i = 0; i < 6; i++)
    pto_op_set_attr(op, names[i], pto_attr_i64(ctx, 10 + i));
  CHECK(pto_op_num_attrs(op) == 6);
  CHECK(pto_attr_int_value(pto_op_attr(op, "m")) == 15);
  CHECK(pto_op_remove_attr(op, "q") && !pto_op_attr(op, "q"));
  char *s = pto_op_print_to_string(op, PTO_PRINT_GENERIC | PTO_PRINT_LOCAL_SCOPE);
  CHECK(strstr(s, "{a = 11, b = 13, m = 15, y = 14, z = 10}") != NULL);
  pto_free(s);
  PtoValue *more[5] = {v, v, v, v, v};
  pto_op_set_operands(op, 1, 0, more, 5);
  CHECK(pto_op_num_operands(op) == 6);
  CHECK(pto_value_num_uses(v) == 6);
  pto_op_set_operands(op, 0, 6, NULL, 0);
  CHECK(pto_op_num_operands(op) == 0 && !pto_value_has_uses(v));
  CHECK(pto_value_def_op(pto_op_result(op, 0)) == op);
  pto_op_destroy(op);
  pto_op_destroy(c);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(state_beyond_inline_buffers), T(zero_filled_state),
          T(release_without_create), T(attrs_and_operands_outgrow_the_op))
