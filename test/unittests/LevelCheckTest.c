/* Unit tests of the level checker (pto/LevelCheck.h) with more than two
 * levels: a test lowering from the Tile level to a third level ("Tile2",
 * the same ops, each traced to itself with pto.origin) plugs in through its
 * pass definition alone, and the checker walks Tensor -> Tile -> Tile2,
 * traces each level to the one before and pins a wrong value of the third
 * level to its op. */
#include "DiagCapture.h"
#include "Test.h"
#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/LevelCheck.h"
#include "pto/Origin.h"
#include "pto/Transforms.h"

#include <stdlib.h>

/* ---- test-relower: Tile -> Tile2, every tile result traced to itself ---- */

static PtoResult relower_run(PtoPass *pass, PtoOp *module) {
  if (!pto_pass_option_bool(pass, "provenance")) return PTO_SUCCESS;
  PtoOp **ops;
  unsigned n = pto_origin_ops(module, &ops);
  for (unsigned k = 0; k < n; k++)
    for (unsigned i = 0; i < pto_op_num_results(ops[k]); i++) {
      PtoType *t = pto_value_type(pto_op_result(ops[k], i));
      if (!pto_type_is_tile(t)) continue;
      PtoOrigin o = {(int64_t)k, i, pto_tile_rank(t), {0}};
      pto_origin_set(ops[k], i, &o);
    }
  pto_free(ops);
  return PTO_SUCCESS;
}

static const PtoPassOptionDef relower_options[] = {
    {"provenance", PTO_OPT_BOOL, "false", "trace each tile to itself", 0, 0,
     NULL},
};

static const PtoPassDef relower_pass = {
    .argument = "test-relower",
    .summary = "A third level: the Tile level's ops, traced to themselves",
    .anchor = "builtin.module",
    .options = relower_options,
    .num_options = 1,
    .run = relower_run,
    .level_from = "Tile",
    .level_to = "Tile2",
};

static const char program[] =
    "func.func @f(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x1xf32> {\n"
    "  %0 = pypto.mul %x, %y {vec_tile = [4, 8]} : tensor<8x16xf32>\n"
    "  %1 = pypto.exp %0 {vec_tile = [4, 8]} : tensor<8x16xf32>\n"
    "  %2 = pypto.sum %1 {dim = 1 : i64, keepdim, vec_tile = [4, 8]} "
    ": tensor<8x16xf32> -> tensor<8x1xf32>\n"
    "  func.return %2 : tensor<8x1xf32>\n"
    "}\n";

static PtoContext *new_ctx(void) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
  pto_pass_register(ctx, &relower_pass);
  return ctx;
}

static PtoOp *parse(PtoContext *ctx) {
  PtoParseOptions po = {"t.pto", 1};
  return pto_parse_module(ctx, program, strlen(program), &po);
}

static void make_args(PtoInterpValue *args) {
  int64_t shape[2] = {8, 16};
  for (unsigned a = 0; a < 2; a++) {
    PtoTensor *t = pto_tensor_create(NULL, NULL, PTO_DT_F32, 2, shape);
    float *d = pto_tensor_array(t)->data;
    for (int i = 0; i < 128; i++) d[i] = (float)((i * 7 + a * 3) % 11) / 16.0f;
    args[a] = pto_interp_value_tensor(t);
  }
}

TEST(three_levels_from_the_pass_definitions) {
  PtoContext *ctx = new_ctx();
  PtoOp *m = parse(ctx);
  CHECK(m != NULL);
  PtoLevelCheck *c = pto_level_check_create(ctx, m, "decompose,tile-expand,cse,test-relower", -1, -1);
  CHECK(c != NULL);
  /* Tensor, Tensor after decompose, Tile (with cse), Tile2. */
  CHECK(pto_level_check_num_stages(c) == 4);
  CHECK_STR(pto_level_check_level(c, 0), "Tensor");
  CHECK_STR(pto_level_check_level(c, 1), "Tensor");
  CHECK_STR(pto_level_check_level(c, 2), "Tile");
  CHECK_STR(pto_level_check_level(c, 3), "Tile2");
  CHECK(!pto_level_check_lowered(c, 1) && pto_level_check_lowered(c, 2) &&
        pto_level_check_lowered(c, 3));
  CHECK_STR(pto_level_check_pipeline(c, 1), "decompose");
  CHECK_STR(pto_level_check_pipeline(c, 2), "tile-expand{provenance=true},cse");
  CHECK_STR(pto_level_check_pipeline(c, 3), "test-relower{provenance=true}");
  PtoInterpValue args[2];
  make_args(args);
  CHECK(pto_level_check_run(c, "f", args, 2, NULL, NULL) == PTO_SUCCESS);
  for (unsigned s = 1; s < 4; s++) {
    PtoCompareResult r;
    double rtol, atol;
    CHECK(pto_level_check_compare(c, s, 0, &r, &rtol, &atol));
  }
  /* Tile2 compares every tile with the Tile level's own value. */
  CHECK(pto_level_check_traced_checked(c, 3) > pto_level_check_traced_checked(c, 2));
  CHECK(pto_level_check_traced_differing(c, 2) == 0);
  CHECK(pto_level_check_traced_differing(c, 3) == 0);
  for (unsigned a = 0; a < 2; a++) pto_interp_value_release(&args[a]);
  pto_level_check_destroy(c);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(a_wrong_op_of_the_third_level_is_named) {
  PtoContext *ctx = new_ctx();
  PtoOp *m = parse(ctx);
  PtoLevelCheck *c = pto_level_check_create(ctx, m, "tile-expand,test-relower", -1, -1);
  CHECK(c != NULL && pto_level_check_num_stages(c) == 3);
  /* Make the first tile.exp of Tile2 compute a tile.neg instead: the
   * Tile level stays right, Tile2 goes wrong at that op. */
  PtoOp *exp = NULL;
  PtoOp *f = pto_symbol_lookup(pto_level_check_module(c, 2), "f");
  PtoBlock *b = pto_region_first_block(pto_op_region(f, 0));
  for (PtoOp *op = pto_block_first_op(b); op && !exp; op = pto_op_next(op))
    if (pto_op_is(op, "tile.exp")) exp = op;
  CHECK(exp != NULL);
  PtoBuilder bld;
  pto_builder_init(&bld, ctx);
  pto_builder_set_before(&bld, exp);
  bld.loc = pto_op_loc(exp);
  PtoValue *in = pto_op_operand(exp, 0);
  PtoType *t = pto_value_type(in);
  PtoOp *neg = pto_tile_build(&bld, PTO_TILE_NEG, &in, 1, &t, 1, NULL, 0);
  PtoOrigin o;
  CHECK(pto_origin_get(exp, 0, &o));
  pto_origin_set(neg, 0, &o);
  pto_value_replace_all_uses(pto_op_result(exp, 0), pto_op_result(neg, 0));
  pto_op_erase(exp);
  PtoInterpValue args[2];
  make_args(args);
  CHECK(pto_level_check_run(c, "f", args, 2, NULL, NULL) == PTO_SUCCESS);
  PtoCompareResult r;
  double rtol, atol;
  CHECK(pto_level_check_compare(c, 1, 0, &r, &rtol, &atol));
  CHECK(!pto_level_check_compare(c, 2, 0, &r, &rtol, &atol));
  CHECK(pto_level_check_traced_differing(c, 1) == 0);
  CHECK(pto_level_check_traced_differing(c, 2) > 0);
  DiagCapture cap;
  diag_capture_begin(&cap, ctx);
  pto_level_check_report_traced(c, 2, false);
  diag_capture_end(&cap);
  CHECK(strstr(cap.text, "is the first tile2 op whose value differs from the "
                         "Tile level: its tile2 at [0, 0] of result #0 of "
                         "'tile.exp'") != NULL);
  for (unsigned a = 0; a < 2; a++) pto_interp_value_release(&args[a]);
  pto_level_check_destroy(c);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

int main(void) {
  static const TestCase tests[] = {
      T(three_levels_from_the_pass_definitions),
      T(a_wrong_op_of_the_third_level_is_named),
  };
  return run_tests(tests, sizeof tests / sizeof tests[0]);
}
