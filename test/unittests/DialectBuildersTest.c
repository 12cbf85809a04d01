/* Unit tests of the public builders and accessors of func, arith and scf
 * (include/pto/Dialects.h): what passes and front ends build must verify
 * and print as the textual IR would. */
#include "Test.h"
#include "pto/Dialects.h"

static PtoOp *new_module(PtoContext *ctx, PtoBuilder *b) {
  PtoOp *m = pto_parse_module(ctx, "", 0, NULL);
  pto_builder_init(b, ctx);
  pto_builder_set_block_end(b, pto_region_first_block(pto_op_region(m, 0)));
  return m;
}

TEST(build_function_with_loop_and_if) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoBuilder b;
  PtoOp *m = new_module(ctx, &b);
  PtoType *idx = pto_type_index(ctx), *f32 = pto_type_f32(ctx);
  PtoType *ins[2] = {idx, f32};
  PtoType *helper_ty = pto_type_function(ctx, &f32, 1, &f32, 1);
  PtoOp *decl = pto_func_build_decl(&b, "helper", helper_ty);
  PtoOp *fn = pto_func_build(&b, "sum", pto_type_function(ctx, ins, 2, &f32, 1),
                             false);
  PtoBlock *entry = pto_func_entry_block(fn);
  CHECK(pto_func_entry_block(decl) == NULL);
  CHECK(pto_block_num_args(entry) == 2);
  pto_builder_set_block_end(&b, entry);
  PtoValue *c0 = pto_arith_build_constant_index(&b, 0);
  PtoValue *c1 = pto_arith_build_constant_index(&b, 1);
  PtoValue *x = pto_block_arg(entry, 1);
  PtoBlock *body;
  PtoOp *loop = pto_scf_build_for(&b, c0, pto_block_arg(entry, 0), c1, &x, 1,
                                  &body);
  CHECK(pto_scf_for_body(loop) == body);
  CHECK(pto_scf_for_num_iter_args(loop) == 1);
  CHECK(pto_scf_for_init(loop, 0) == x);
  CHECK(pto_value_type(pto_scf_for_iv(loop)) == idx);
  pto_builder_set_block_end(&b, body);
  PtoValue *first = pto_arith_build_cmpi(&b, PTO_CMPI_EQ, pto_scf_for_iv(loop), c0);
  PtoBlock *tb, *eb;
  PtoOp *iff = pto_scf_build_if(&b, first, &f32, 1, true, &tb, &eb);
  pto_builder_set_block_end(&b, tb);
  PtoValue *acc = pto_scf_for_iter_arg(loop, 0);
  pto_scf_build_yield(&b, &acc, 1);
  pto_builder_set_block_end(&b, eb);
  PtoValue *two = pto_arith_build_constant_float(&b, f32, 2.0);
  PtoValue *sum = pto_arith_build_binary(&b, "arith.addf", acc, two);
  PtoOp *call = pto_func_build_call(&b, "helper", helper_ty, &sum, 1);
  PtoValue *cr = pto_op_result(call, 0);
  pto_scf_build_yield(&b, &cr, 1);
  pto_builder_set_after(&b, iff);
  PtoValue *ir = pto_op_result(iff, 0);
  pto_scf_build_yield(&b, &ir, 1);
  pto_builder_set_block_end(&b, entry);
  PtoValue *lr = pto_op_result(loop, 0);
  pto_func_build_return(&b, &lr, 1);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  CHECK(pto_func_call_resolve(call) == decl);
  char *s = pto_op_print_to_string(m, 0);
  static const char expected[] =
      "module {\n"
      "  func.func private @helper(f32) -> f32\n"
      "  func.func @sum(%arg0: index, %arg1: f32) -> f32 {\n"
      "    %0 = arith.constant 0 : index\n"
      "    %1 = arith.constant 1 : index\n"
      "    %2 = scf.for %arg2 = %0 to %arg0 step %1 iter_args(%arg3 = %arg1) -> (f32) {\n"
      "      %3 = arith.cmpi eq, %arg2, %0 : index\n"
      "      %4 = scf.if %3 -> (f32) {\n"
      "        scf.yield %arg3 : f32\n"
      "      } else {\n"
      "        %5 = arith.constant 2.000000e+00 : f32\n"
      "        %6 = arith.addf %arg3, %5 : f32\n"
      "        %7 = func.call @helper(%6) : (f32) -> f32\n"
      "        scf.yield %7 : f32\n"
      "      }\n"
      "      scf.yield %4 : f32\n"
      "    }\n"
      "    func.return %2 : f32\n"
      "  }\n"
      "}\n";
  CHECK_STR(s, expected);
  /* and it reads back to the same text */
  PtoOp *m2 = pto_parse_module(ctx, s, strlen(s), NULL);
  CHECK(m2 != NULL);
  if (m2) {
    char *s2 = pto_op_print_to_string(m2, 0);
    CHECK_STR(s2, expected);
    pto_free(s2);
    pto_op_destroy(m2);
  }
  pto_free(s);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(builders_of_every_arith_kind) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoBuilder b;
  PtoOp *m = new_module(ctx, &b);
  PtoType *i32 = pto_type_int(ctx, 32), *f16 = pto_type_float(ctx, PTO_F16);
  PtoOp *fn = pto_func_build(&b, "f", pto_type_function(ctx, NULL, 0, NULL, 0),
                             false);
  pto_builder_set_block_end(&b, pto_func_entry_block(fn));
  PtoValue *a = pto_arith_build_constant_int(&b, i32, -3);
  PtoValue *h = pto_arith_build_constant_float(&b, f16, 0.5);
  PtoValue *c = pto_arith_build_cmpf(&b, PTO_CMPF_ULT, h, h);
  PtoValue *s = pto_arith_build_select(&b, c, a, a);
  pto_arith_build_cast(&b, "arith.sitofp", s, f16);
  pto_func_build_return(&b, NULL, 0);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  char *str = pto_op_print_to_string(fn, PTO_PRINT_LOCAL_SCOPE);
  CHECK_STR(str, "func.func @f() {\n"
                 "  %0 = arith.constant -3 : i32\n"
                 "  %1 = arith.constant 5.000000e-01 : f16\n"
                 "  %2 = arith.cmpf ult, %1, %1 : f16\n"
                 "  %3 = arith.select %2, %0, %0 : i32\n"
                 "  %4 = arith.sitofp %3 : i32 to f16\n"
                 "  func.return\n"
                 "}\n");
  pto_free(str);
  CHECK_STR(pto_cmpi_predicate_name(PTO_CMPI_UGE), "uge");
  CHECK_STR(pto_cmpf_predicate_name(PTO_CMPF_UNO), "uno");
  CHECK(pto_cmpi_predicate_name(10) == NULL);
  CHECK(pto_cmpf_predicate_name(-1) == NULL);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* Trip count of `scf.for` over constants lb, ub, step of type t. */
static bool trip(PtoContext *ctx, PtoType *t, int64_t lb, int64_t ub,
                 int64_t step, int64_t *n) {
  PtoBuilder b;
  PtoOp *m = new_module(ctx, &b);
  PtoValue *l = pto_arith_build_constant_int(&b, t, lb);
  PtoValue *u = pto_arith_build_constant_int(&b, t, ub);
  PtoValue *s = pto_arith_build_constant_int(&b, t, step);
  PtoOp *loop = pto_scf_build_for(&b, l, u, s, NULL, 0, NULL);
  bool ok = pto_scf_for_const_trip_count(loop, n);
  pto_op_destroy(m);
  return ok;
}

TEST(constant_trip_counts) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoType *idx = pto_type_index(ctx), *i8 = pto_type_int(ctx, 8);
  int64_t n = -1;
  CHECK(trip(ctx, idx, 0, 10, 3, &n) && n == 4);
  CHECK(trip(ctx, idx, 0, 9, 3, &n) && n == 3);
  CHECK(trip(ctx, idx, 5, 5, 1, &n) && n == 0);
  CHECK(trip(ctx, idx, 7, -2, 1, &n) && n == 0);
  CHECK(trip(ctx, idx, -4, 4, 4, &n) && n == 2);
  CHECK(trip(ctx, i8, -128, 127, 1, &n) && n == 255);
  CHECK(trip(ctx, idx, INT64_MIN, INT64_MAX, INT64_MAX, &n) && n == 3);
  CHECK(!trip(ctx, idx, INT64_MIN, INT64_MAX, 1, &n)); /* > INT64_MAX trips */
  CHECK(!trip(ctx, idx, 0, 4, 0, &n));
  CHECK(!trip(ctx, i8, 0, 4, -1, &n));
  /* dynamic bounds */
  PtoBuilder b;
  PtoOp *m = new_module(ctx, &b);
  PtoOp *fn = pto_func_build(&b, "f", pto_type_function(ctx, &idx, 1, NULL, 0),
                             false);
  pto_builder_set_block_end(&b, pto_func_entry_block(fn));
  PtoValue *c = pto_arith_build_constant_index(&b, 1);
  PtoOp *loop = pto_scf_build_for(&b, c, pto_block_arg(pto_func_entry_block(fn), 0),
                                  c, NULL, 0, NULL);
  CHECK(!pto_scf_for_const_trip_count(loop, &n));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(build_function_with_loop_and_if), T(builders_of_every_arith_kind),
          T(constant_trip_counts))
