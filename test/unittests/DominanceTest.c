/* Unit tests of dominator trees (pto_domtree_*): diamonds, loops,
 * unreachable blocks, trivial regions. */
#include "IRTestUtil.h"
#include "Test.h"

/* The dominator tree of the region of the module's first op. */
static PtoDomTree *tree_of(PtoOp *m) {
  return pto_domtree_create(pto_op_region(module_op(m, 0), 0));
}

TEST(diamond_and_loop) {
  PtoContext *ctx = ctx_with_test_dialect();
  /* 0 -> {1, 2} -> 3 -> {4 (loop back to 3), 5}; 6 unreachable */
  PtoOp *m = parse(ctx, "ptotest.region {\n"
                        "  %c = \"x.c\"() : () -> i1\n"
                        "  ptotest.cond_br %c, ^b1, ^b2\n"
                        "^b1:\n  ptotest.br ^b3\n"
                        "^b2:\n  ptotest.br ^b3\n"
                        "^b3:\n  ptotest.cond_br %c, ^b4, ^b5\n"
                        "^b4:\n  ptotest.br ^b3\n"
                        "^b5:\n  ptotest.yield\n"
                        "^b6:\n  ptotest.br ^b5\n"
                        "}\n");
  CHECK(m != NULL && pto_op_verify(m) == PTO_SUCCESS);
  PtoDomTree *t = tree_of(m);
  CHECK(pto_domtree_num_blocks(t) == 7);
  CHECK(pto_domtree_block(t, 0) == pto_region_first_block(pto_op_region(module_op(m, 0), 0)));
  static const int idom[] = {-1, 0, 0, 0, 3, 3, -1};
  for (unsigned i = 0; i < 7; i++) CHECK(pto_domtree_idom(t, i) == idom[i]);
  for (unsigned i = 0; i < 6; i++) CHECK(pto_domtree_reachable(t, i));
  CHECK(!pto_domtree_reachable(t, 6) && pto_domtree_num_children(t, 6) == 0);
  CHECK(pto_domtree_num_children(t, 0) == 3 && pto_domtree_num_children(t, 3) == 2);
  CHECK(pto_domtree_num_children(t, 1) == 0);
  /* the children of 0 are exactly {1, 2, 3}, of 3 exactly {4, 5} */
  unsigned seen = 0;
  for (unsigned k = 0; k < 3; k++) seen |= 1u << pto_domtree_child(t, 0, k);
  CHECK(seen == 0xE);
  seen = 0;
  for (unsigned k = 0; k < 2; k++) seen |= 1u << pto_domtree_child(t, 3, k);
  CHECK(seen == 0x30);
  pto_domtree_destroy(t);
  pto_domtree_destroy(NULL);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(trivial_regions) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "\"x.empty\"() ({}) : () -> ()\n"
                        "\"x.one\"() ({\n  \"x.a\"() : () -> ()\n}) : () -> ()\n");
  PtoDomTree *t = tree_of(m);
  CHECK(pto_domtree_num_blocks(t) == 0);
  pto_domtree_destroy(t);
  t = pto_domtree_create(pto_op_region(module_op(m, 1), 0));
  CHECK(pto_domtree_num_blocks(t) == 1 && pto_domtree_reachable(t, 0));
  CHECK(pto_domtree_idom(t, 0) == -1 && pto_domtree_num_children(t, 0) == 0);
  pto_domtree_destroy(t);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* An irreducible loop: 1 and 2 branch to each other and are both entered
 * from 0, so neither dominates the other. */
TEST(irreducible) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "ptotest.region {\n"
                        "  %c = \"x.c\"() : () -> i1\n"
                        "  ptotest.cond_br %c, ^b1, ^b2\n"
                        "^b1:\n  ptotest.cond_br %c, ^b2, ^b3\n"
                        "^b2:\n  ptotest.br ^b1\n"
                        "^b3:\n  ptotest.yield\n"
                        "}\n");
  CHECK(m != NULL && pto_op_verify(m) == PTO_SUCCESS);
  PtoDomTree *t = tree_of(m);
  CHECK(pto_domtree_idom(t, 1) == 0 && pto_domtree_idom(t, 2) == 0);
  CHECK(pto_domtree_idom(t, 3) == 1);
  pto_domtree_destroy(t);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(diamond_and_loop), T(trivial_regions), T(irreducible))
