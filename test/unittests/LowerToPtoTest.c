/* lower-to-pto's refusals of ops the Tile dialect's verifier rejects: a
 * pass manager verifies the IR after each pass, not the IR it is given, so
 * a module built (or parsed) through the C API and not verified reaches
 * the pass as it is. Each refusal is an error at the op, and the pass
 * fails instead of building PTO that means something else. */
#include "DiagCapture.h"
#include "Test.h"
#include "pto/Dialects.h"
#include "pto/Pass.h"
#include "pto/Transforms.h"

/* Runs lower-to-pto on `text`, parsed and not verified; returns whether it
 * ran and failed, with the diagnostics in `cap`. */
static bool lowering_fails(const char *text, DiagCapture *cap) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
  PtoParseOptions po = {"t.pto", 1};
  PtoOp *m = pto_parse_module(ctx, text, strlen(text), &po);
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  PtoInstrumentation ins = {0}; /* no IR dump on failure */
  pto_pm_set_instrumentation(pm, &ins);
  pto_pm_set_verify_each(pm, false);
  bool failed = false;
  diag_capture_begin(cap, ctx);
  if (m && pto_pm_add_pass(pm, "lower-to-pto", NULL) == PTO_SUCCESS)
    failed = pto_pm_run(pm, m) == PTO_FAILURE;
  diag_capture_end(cap);
  pto_pm_destroy(pm);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  return failed;
}

/* A mask (i1) is compared by selecting, which gives eq and ne only. */
TEST(mask_ordering_compare) {
  DiagCapture cap;
  CHECK(lowering_fails(
      "block.kernel vector @k(%M: tensor<4x8xi1>, %Y: tensor<4x8xi1>) {\n"
      "  %m = block.load %M[0, 0] : tensor<4x8xi1> -> !block.buf<4x8xi1, vec>\n"
      "  %l = tile.lt %m, %m : !block.buf<4x8xi1, vec> -> !block.buf<4x8xi1, vec>\n"
      "  block.store %l, %Y[0, 0] : !block.buf<4x8xi1, vec> into tensor<4x8xi1>\n"
      "}\n",
      &cap));
  CHECK_STR(cap.text, "t.pto:3:3: error: 'tile.lt' op lower-to-pto: masks (i1) "
                      "compare by eq and ne only (tcmp compares numbers; two "
                      "masks are compared by selecting), not by lt\n");
}

/* index_select's index is one row (the Tile level's 1-D index). */
TEST(index_select_with_a_2d_index) {
  DiagCapture cap;
  CHECK(lowering_fails(
      "block.kernel vector @k(%X: tensor<16x12xf32>, %I: tensor<2x7xi32>, %Y: tensor<7x12xf32>) {\n"
      "  %i = block.load %I[0, 0] : tensor<2x7xi32> -> !block.buf<2x7xi32, vec>\n"
      "  %a = tile.index_select %X[0, 0], %i {dim = 0 : i64} : tensor<16x12xf32>, "
      "!block.buf<2x7xi32, vec> -> !block.buf<7x12xf32, vec>\n"
      "  block.store %a, %Y[0, 0] : !block.buf<7x12xf32, vec> into tensor<7x12xf32>\n"
      "}\n",
      &cap));
  CHECK_STR(cap.text, "t.pto:3:3: error: 'tile.index_select' op lower-to-pto: "
                      "index_select takes a 1-D index (a tile of one row), got "
                      "'!pto.tile<2x7xi32, vec>'\n");
  /* and one entry per slice of the result along `dim` */
  CHECK(lowering_fails(
      "block.kernel vector @k(%X: tensor<16x12xf32>, %I: tensor<7xi32>, %Y: tensor<6x12xf32>) {\n"
      "  %i = block.load %I[0] : tensor<7xi32> -> !block.buf<7xi32, vec>\n"
      "  %a = tile.index_select %X[0, 0], %i {dim = 0 : i64} : tensor<16x12xf32>, "
      "!block.buf<7xi32, vec> -> !block.buf<6x12xf32, vec>\n"
      "  block.store %a, %Y[0, 0] : !block.buf<6x12xf32, vec> into tensor<6x12xf32>\n"
      "}\n",
      &cap));
  CHECK_STR(cap.text, "t.pto:3:3: error: 'tile.index_select' op lower-to-pto: "
                      "index_select's index has 7 entries, not one per slice "
                      "along dim 0 of the rank-2 result\n");
}

RUN_TESTS(T(mask_ordering_compare), T(index_select_with_a_2d_index))
