/* Unit tests of operations, blocks, regions, values and use-lists: the
 * builder, walks, replace-all-uses, erase, move, clone with a value map. */
#include "IRTestUtil.h"
#include "Test.h"

static PtoBlock *body(PtoOp *module) {
  return pto_region_first_block(pto_op_region(module, 0));
}

static bool prints_as(PtoOp *op, const char *expected) {
  char *s = pto_op_print_to_string(op, 0);
  bool ok = strcmp(s, expected) == 0;
  if (!ok) fprintf(stderr, "printed:\n%s\nexpected:\n%s\n", s, expected);
  pto_free(s);
  return ok;
}

TEST(builder_insertion_points) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "");
  PtoType *i32 = pto_type_int(ctx, 32);
  PtoBuilder b;
  pto_builder_init(&b, ctx);
  /* detached: created, not inserted */
  PtoOp *detached = pto_builder_create_simple(&b, "x.d", NULL, 0, &i32, 1, NULL, 0);
  CHECK(pto_op_block(detached) == NULL);
  pto_builder_set_block_end(&b, body(m));
  PtoOp *c = pto_builder_create_simple(&b, "x.c", NULL, 0, NULL, 0, NULL, 0);
  pto_builder_set_block_start(&b, body(m));
  PtoOp *a = pto_builder_create_simple(&b, "x.a", NULL, 0, NULL, 0, NULL, 0);
  pto_builder_set_after(&b, a);
  PtoOp *bb = pto_builder_create_simple(&b, "x.b", NULL, 0, NULL, 0, NULL, 0);
  pto_builder_set_before(&b, a);
  pto_builder_insert(&b, detached);
  CHECK(pto_op_next(detached) == a && pto_op_next(a) == bb && pto_op_next(bb) == c);
  CHECK(pto_op_prev(detached) == NULL && pto_op_next(c) == NULL);
  CHECK(pto_op_is_before_in_block(detached, c) && !pto_op_is_before_in_block(c, a));
  /* the builder's location is the default for created ops */
  b.loc = pto_loc_name(ctx, "built", NULL);
  pto_builder_set_block_end(&b, body(m));
  PtoOp *e = pto_builder_create_simple(&b, "x.e", NULL, 0, NULL, 0, NULL, 0);
  CHECK(pto_op_loc(e) == b.loc);
  PtoOpState st;
  pto_op_state_init(&st, ctx, "x.f", NULL);
  CHECK(pto_op_loc(pto_builder_create(&b, &st)) == b.loc);
  CHECK(prints_as(m, "module {\n  %0 = \"x.d\"() : () -> i32\n  \"x.a\"() : () -> ()\n"
                     "  \"x.b\"() : () -> ()\n  \"x.c\"() : () -> ()\n"
                     "  \"x.e\"() : () -> ()\n  \"x.f\"() : () -> ()\n}\n"));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(use_lists_and_replace_all_uses) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "%a = \"x.a\"() : () -> i32\n%b = \"x.b\"() : () -> i32\n"
                        "%u = \"x.u\"(%a, %a, %b) : (i32, i32, i32) -> i32\n"
                        "\"x.w\"() ({\n  \"x.v\"(%a) : (i32) -> ()\n}) : () -> ()\n");
  PtoValue *a = pto_op_result(module_op(m, 0), 0);
  PtoValue *b = pto_op_result(module_op(m, 1), 0);
  PtoOp *u = module_op(m, 2), *w = module_op(m, 3), *v = nested_op(w, 0, 0);
  CHECK(pto_value_num_uses(a) == 3 && pto_value_num_uses(b) == 1);
  CHECK(pto_value_has_one_use(b) && !pto_value_has_one_use(a));
  unsigned seen = 0;
  for (PtoUse *use = pto_value_first_use(a); use; use = pto_use_next(use)) {
    CHECK(pto_use_value(use) == a);
    CHECK(pto_op_operand(pto_use_owner(use), pto_use_operand_index(use)) == a);
    seen++;
  }
  CHECK(seen == 3);
  /* except: uses inside `w` stay */
  pto_value_replace_uses_except(a, b, w);
  CHECK(pto_op_operand(u, 0) == b && pto_op_operand(u, 1) == b);
  CHECK(pto_op_operand(v, 0) == a && pto_value_num_uses(a) == 1);
  pto_value_replace_all_uses(a, b);
  CHECK(!pto_value_has_uses(a) && pto_value_num_uses(b) == 4);
  /* replacing a value by itself changes nothing */
  pto_value_replace_all_uses(b, b);
  CHECK(pto_value_num_uses(b) == 4);
  /* set_operand / set_operands keep the lists right */
  pto_op_set_operand(u, 2, a);
  CHECK(pto_value_num_uses(a) == 1 && pto_value_num_uses(b) == 3);
  PtoValue *many[20];
  for (int i = 0; i < 20; i++) many[i] = i % 2 ? a : b;
  pto_op_set_operands(u, 1, 1, many, 20);
  CHECK(pto_op_num_operands(u) == 22);
  CHECK(pto_op_operand(u, 0) == b && pto_op_operand(u, 2) == a &&
        pto_op_operand(u, 21) == a);
  CHECK(pto_value_num_uses(a) == 11 && pto_value_num_uses(b) == 12);
  pto_op_set_operands(u, 0, 22, NULL, 0);
  CHECK(pto_op_num_operands(u) == 0 && pto_value_num_uses(a) == 0);
  /* results of an op replaced at once */
  PtoValue *vals[] = {a};
  pto_op_replace_all_uses(module_op(m, 1), vals);
  CHECK(!pto_value_has_uses(b) && pto_value_num_uses(a) == 1);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(erase_remove_and_move) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "\"x.a\"() : () -> ()\n\"x.b\"() : () -> ()\n"
                        "\"x.c\"() : () -> ()\n");
  PtoOp *a = module_op(m, 0), *b = module_op(m, 1), *c = module_op(m, 2);
  pto_op_move_after(a, c);
  CHECK(prints_as(m, "module {\n  \"x.b\"() : () -> ()\n  \"x.c\"() : () -> ()\n"
                     "  \"x.a\"() : () -> ()\n}\n"));
  CHECK(pto_op_is_before_in_block(b, a));
  pto_op_move_before(a, b);
  CHECK(pto_op_is_before_in_block(a, b) && pto_op_is_before_in_block(b, c));
  pto_op_remove(b);
  CHECK(pto_op_block(b) == NULL && pto_op_next(a) == c);
  pto_block_append(body(m), b);
  CHECK(pto_block_last_op(body(m)) == b);
  pto_op_erase(c);
  CHECK(prints_as(m, "module {\n  \"x.a\"() : () -> ()\n  \"x.b\"() : () -> ()\n}\n"));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(blocks_and_arguments) {
  PtoContext *ctx = test_ctx();
  PtoType *i32 = pto_type_int(ctx, 32), *f32 = pto_type_f32(ctx);
  PtoBlock *blk = pto_block_create(ctx);
  PtoValue *x = pto_block_add_arg(blk, i32, NULL);
  PtoValue *y = pto_block_add_arg(blk, f32, pto_loc_name(ctx, "y", NULL));
  PtoValue *w = pto_block_insert_arg(blk, 0, f32, NULL);
  CHECK(pto_block_num_args(blk) == 3);
  CHECK(pto_block_arg(blk, 0) == w && pto_value_index(x) == 1 &&
        pto_value_index(y) == 2);
  CHECK(pto_value_is_block_arg(x) && pto_value_owner_block(x) == blk);
  CHECK(pto_value_def_op(x) == NULL && pto_value_parent_block(x) == blk);
  CHECK(pto_loc_kind(pto_value_loc(x)) == PTO_LOC_UNKNOWN);
  CHECK(pto_block_arg_loc(y) == pto_loc_name(ctx, "y", NULL));
  pto_block_erase_arg(blk, 0);
  CHECK(pto_block_arg(blk, 0) == x && pto_value_index(y) == 1);
  for (int i = 0; i < 40; i++) pto_block_add_arg(blk, i32, NULL);
  CHECK(pto_block_num_args(blk) == 42 && pto_block_arg(blk, 1) == y);
  PtoOp *op = pto_op_create_simple(ctx, "x.t", NULL, &x, 1, NULL, 0, NULL, 0);
  pto_block_append(blk, op);
  CHECK(pto_block_terminator(blk) == op); /* unregistered: may terminate */
  CHECK(pto_block_parent_op(blk) == NULL && pto_block_region(blk) == NULL);
  pto_value_set_type(y, i32);
  CHECK(pto_value_type(y) == i32 && pto_value_ctx(y) == ctx);
  pto_block_erase(blk);
  pto_ctx_destroy(ctx);
}

TEST(regions_take_body_and_splice) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "\"x.r\"() ({\n  \"x.a\"() : () -> ()\n^bb1:\n"
                        "  \"x.b\"() : () -> ()\n}) : () -> ()\n"
                        "\"x.s\"() ({\n}) : () -> ()\n");
  PtoRegion *r = pto_op_region(module_op(m, 0), 0);
  PtoRegion *s = pto_op_region(module_op(m, 1), 0);
  CHECK(pto_region_num_blocks(r) == 2 && pto_region_empty(s));
  CHECK(pto_region_parent_op(r) == module_op(m, 0));
  pto_region_take_body(s, r);
  CHECK(pto_region_empty(r) && pto_region_num_blocks(s) == 2);
  PtoBlock *first = pto_region_first_block(s), *last = pto_region_last_block(s);
  CHECK(pto_block_next(first) == last && pto_block_prev(last) == first);
  CHECK(pto_block_region(first) == s && pto_block_parent_op(first) == module_op(m, 1));
  /* splice all ops of the second block to the end of the first */
  pto_block_splice(first, NULL, last, pto_block_first_op(last));
  CHECK(pto_block_empty(last));
  pto_block_erase(last);
  PtoBlock *nb = pto_block_create(ctx);
  pto_region_insert_block_after(s, NULL, nb); /* at the front */
  CHECK(pto_region_first_block(s) == nb);
  pto_block_erase(nb);
  CHECK(prints_as(m, "module {\n  \"x.r\"() ({\n  }) : () -> ()\n  \"x.s\"() ({\n"
                     "    \"x.a\"() : () -> ()\n    \"x.b\"() : () -> ()\n"
                     "  }) : () -> ()\n}\n"));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* ---- walks ---- */

typedef struct WalkLog {
  char names[512];
  const char *skip, *stop, *erase;
} WalkLog;

static PtoWalkResult log_walk(PtoOp *op, void *user) {
  WalkLog *w = user;
  const char *n = pto_op_name_str(op);
  strcat(w->names, strncmp(n, "x.", 2) == 0 ? n + 2 : n); /* "x.a" -> "a" */
  strcat(w->names, " ");
  if (w->stop && strcmp(n, w->stop) == 0) return PTO_WALK_INTERRUPT;
  if (w->skip && strcmp(n, w->skip) == 0) return PTO_WALK_SKIP;
  if (w->erase && strncmp(n, w->erase, strlen(w->erase)) == 0) pto_op_erase(op);
  return PTO_WALK_ADVANCE;
}

TEST(walks) {
  PtoContext *ctx = test_ctx();
  const char *src = "\"x.a\"() ({\n  \"x.b\"() ({\n    \"x.c\"() : () -> ()\n"
                    "  }) : () -> ()\n  \"x.d\"() : () -> ()\n}, {\n"
                    "  \"x.e\"() : () -> ()\n}) : () -> ()\n\"x.f\"() : () -> ()\n";
  PtoOp *m = parse(ctx, src);
  WalkLog w = {{0}, NULL, NULL, NULL};
  CHECK(pto_op_walk(m, PTO_WALK_PRE, log_walk, &w) == PTO_WALK_ADVANCE);
  CHECK_STR(w.names, "builtin.module a b c d e f ");
  memset(&w, 0, sizeof w);
  pto_op_walk(m, PTO_WALK_POST, log_walk, &w);
  CHECK_STR(w.names, "c b d e a f builtin.module ");
  memset(&w, 0, sizeof w);
  w.skip = "x.b";
  pto_op_walk(m, PTO_WALK_PRE, log_walk, &w);
  CHECK_STR(w.names, "builtin.module a b d e f ");
  memset(&w, 0, sizeof w);
  w.stop = "x.d";
  CHECK(pto_op_walk(m, PTO_WALK_PRE, log_walk, &w) == PTO_WALK_INTERRUPT);
  CHECK_STR(w.names, "builtin.module a b c d ");
  memset(&w, 0, sizeof w);
  w.stop = "x.b";
  CHECK(pto_op_walk(m, PTO_WALK_POST, log_walk, &w) == PTO_WALK_INTERRUPT);
  CHECK_STR(w.names, "c b ");
  /* a region walk visits the ops of one region */
  memset(&w, 0, sizeof w);
  pto_region_walk(pto_op_region(module_op(m, 0), 1), PTO_WALK_PRE, log_walk, &w);
  CHECK_STR(w.names, "e ");
  /* post-order walks may erase the op they are given */
  memset(&w, 0, sizeof w);
  w.erase = "x.";
  pto_op_walk(m, PTO_WALK_POST, log_walk, &w);
  CHECK_STR(w.names, "c b d e a f builtin.module ");
  CHECK(pto_block_empty(body(m)));
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* ---- cloning ---- */

TEST(clone_with_value_map) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx,
      "%outer = \"x.outer\"() : () -> i32\n"
      "%r = \"x.op\"(%outer) ({\n"
      "^bb0(%arg: i32):\n"
      "  %c = \"x.cond\"(%arg, %outer) : (i32, i32) -> i1\n"
      "  ptotest.cond_br %c, ^bb1, ^bb2\n"
      "^bb1:\n  ptotest.br ^bb2\n"
      "^bb2:\n  \"x.inner\"() ({\n    \"x.use\"(%c, %arg) : (i1, i32) -> ()\n"
      "  }) : () -> ()\n  ptotest.yield\n"
      "}) {k = 1} : (i32) -> i32\n");
  CHECK(m != NULL);
  PtoOp *outer = module_op(m, 0), *op = module_op(m, 1);
  PtoValueMap *map = pto_value_map_create();
  PtoOp *clone = pto_op_clone(op, map);
  pto_block_append(body(m), clone);
  /* everything defined inside is new, everything outside is shared */
  CHECK(pto_value_map_get(map, pto_op_result(op, 0)) == pto_op_result(clone, 0));
  CHECK(pto_op_operand(clone, 0) == pto_op_result(outer, 0));
  PtoBlock *ob = pto_region_first_block(pto_op_region(op, 0));
  PtoBlock *cb = pto_region_first_block(pto_op_region(clone, 0));
  CHECK(cb != ob && pto_value_map_get_block(map, ob) == cb);
  CHECK(pto_value_map_get(map, pto_block_arg(ob, 0)) == pto_block_arg(cb, 0));
  /* successors point at the cloned blocks */
  PtoOp *cbr = pto_block_last_op(cb);
  CHECK(pto_op_successor(cbr, 0) == pto_block_next(cb));
  CHECK(pto_block_region(pto_op_successor(cbr, 1)) == pto_op_region(clone, 0));
  /* nested uses refer to the clone's values */
  PtoOp *cuse = nested_op(pto_block_first_op(pto_region_last_block(pto_op_region(clone, 0))), 0, 0);
  CHECK(pto_op_operand(cuse, 0) == pto_op_result(pto_block_first_op(cb), 0));
  CHECK(pto_op_operand(cuse, 1) == pto_block_arg(cb, 0));
  CHECK(pto_op_attr_int(clone, "k", 0) == 1);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  pto_value_map_destroy(map);
  /* a mapping given beforehand remaps operands from outside */
  map = pto_value_map_create();
  PtoOp *other = pto_op_create_simple(ctx, "x.other", NULL, NULL, 0,
                                      (PtoType *[]){pto_type_int(ctx, 32)}, 1,
                                      NULL, 0);
  pto_block_prepend(body(m), other);
  pto_value_map_set(map, pto_op_result(outer, 0), pto_op_result(other, 0));
  PtoOp *clone2 = pto_op_clone(op, map);
  pto_block_append(body(m), clone2);
  CHECK(pto_op_operand(clone2, 0) == pto_op_result(other, 0));
  CHECK(pto_op_operand(pto_block_first_op(pto_region_first_block(pto_op_region(clone2, 0))), 1) ==
        pto_op_result(other, 0));
  CHECK(pto_value_map_lookup(map, pto_op_result(other, 0)) == pto_op_result(other, 0));
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  pto_value_map_destroy(map);
  /* without a map */
  pto_block_append(body(m), pto_op_clone(op, NULL));
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* A use that comes before its definition in the text (the defining block
 * dominates but is printed later) must refer to the cloned definition.
 * Found while testing: the clone used the original value. */
TEST(clone_forward_reference) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "ptotest.region {\n  ptotest.br ^def\n^use:\n"
                        "  \"x.use\"(%v) : (i32) -> ()\n  ptotest.yield\n"
                        "^def:\n  %v = \"x.def\"() : () -> i32\n"
                        "  ptotest.br ^use\n}\n");
  CHECK(m != NULL);
  PtoOp *r = module_op(m, 0);
  PtoOp *clone = pto_op_clone(r, NULL);
  pto_block_append(body(m), clone);
  PtoBlock *use_b = pto_block_next(pto_region_first_block(pto_op_region(clone, 0)));
  PtoBlock *def_b = pto_block_next(use_b);
  CHECK(pto_op_operand(pto_block_first_op(use_b), 0) ==
        pto_op_result(pto_block_first_op(def_b), 0));
  CHECK(pto_value_num_uses(pto_op_result(pto_block_first_op(pto_block_next(
            pto_block_next(pto_region_first_block(pto_op_region(r, 0))))), 0)) == 1);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  /* the same through pto_region_clone_into */
  PtoOpState st;
  pto_op_state_init(&st, ctx, "ptotest.region", NULL);
  PtoRegion *nr = pto_op_state_add_region(&st);
  pto_region_clone_into(pto_op_region(r, 0), nr, NULL);
  PtoOp *copy = pto_op_create(&st);
  pto_block_append(body(m), copy);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(op_accessors_and_attributes) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, "%c = ptotest.constant 5 : i64 {flag, s = \"str\", z = false}\n");
  PtoOp *c = module_op(m, 0);
  CHECK(pto_op_is(c, "ptotest.constant") && !pto_op_is(c, "ptotest.add"));
  CHECK(strcmp(pto_op_name_str(c), "ptotest.constant") == 0);
  CHECK(pto_op_name(c) == pto_ident_cstr(ctx, "ptotest.constant"));
  CHECK(pto_op_def(c) == pto_ctx_lookup_op(ctx, "ptotest.constant"));
  CHECK(pto_op_has_trait(c, PTO_TRAIT_PURE | PTO_TRAIT_CONSTANT_LIKE));
  CHECK(!pto_op_has_trait(c, PTO_TRAIT_TERMINATOR));
  CHECK(pto_opdef_has_trait(pto_op_def(c), PTO_TRAIT_PURE));
  CHECK(strcmp(pto_opdef_name(pto_op_def(c)), "ptotest.constant") == 0);
  CHECK(pto_op_is_effect_free(c));
  CHECK(pto_attr_int_value(pto_op_constant_value(c)) == 5);
  CHECK(pto_value_constant(pto_op_result(c, 0)) == pto_op_constant_value(c));
  CHECK(pto_op_parent_op(c) == m && pto_op_parent_region(c) == pto_op_region(m, 0));
  CHECK(pto_op_block(c) == body(m) && pto_op_ctx(c) == ctx);
  CHECK(pto_op_is_ancestor_of(m, c) && !pto_op_is_ancestor_of(c, m));
  /* attributes: sorted, typed getters with defaults */
  CHECK(pto_op_num_attrs(c) == 4);
  const PtoNamedAttr *as = pto_op_attrs(c);
  CHECK_STR(pto_ident_str(as[0].name), "flag");
  CHECK_STR(pto_ident_str(as[3].name), "z");
  CHECK(pto_op_attr_flag(c, "flag") && !pto_op_attr_flag(c, "z") &&
        !pto_op_attr_flag(c, "missing"));
  CHECK_STR(pto_op_attr_str(c, "s"), "str");
  CHECK(pto_op_attr_str(c, "value") == NULL);
  CHECK(pto_op_attr_int(c, "value", -1) == 5 && pto_op_attr_int(c, "s", -1) == -1);
  pto_op_set_attr(c, "a", pto_attr_i64(ctx, 3));
  CHECK_STR(pto_ident_str(pto_op_attrs(c)[0].name), "a");
  pto_op_set_attr(c, "a", pto_attr_i64(ctx, 4)); /* replaces */
  CHECK(pto_op_num_attrs(c) == 5 && pto_op_attr_int(c, "a", 0) == 4);
  CHECK(pto_op_attr_id(c, pto_ident_cstr(ctx, "a")) == pto_attr_i64(ctx, 4));
  pto_op_set_attr_id(c, pto_ident_cstr(ctx, "a"), NULL); /* removes */
  CHECK(pto_op_attr(c, "a") == NULL && pto_op_num_attrs(c) == 4);
  CHECK(pto_op_remove_attr(c, "flag") && !pto_op_remove_attr(c, "flag"));
  for (int i = 0; i < 30; i++) {
    char name[16];
    snprintf(name, sizeof name, "k%02d", 29 - i);
    pto_op_set_attr(c, name, pto_attr_i64(ctx, i));
  }
  CHECK(pto_op_num_attrs(c) == 33);
  CHECK_STR(pto_ident_str(pto_op_attrs(c)[0].name), "k00");
  CHECK(pto_op_attr_int(c, "k00", 0) == 29);
  pto_op_set_loc(c, pto_loc_name(ctx, "moved", NULL));
  CHECK(pto_loc_kind(pto_op_loc(c)) == PTO_LOC_NAME);
  CHECK(pto_op_verify(m) == PTO_SUCCESS);
  /* effects: unregistered ops have effects, recursive effects follow the
   * ops in the regions */
  PtoOp *m2 = parse(ctx, "%i = \"x.i\"() : () -> index\n"
                         "ptotest.loop %k = %i to %i {\n  %p = \"ptotest.pure\"() : () -> i1\n}\n"
                         "ptotest.loop %k = %i to %i {\n  \"ptotest.side_effect\"() : () -> ()\n}\n");
  CHECK(!pto_op_is_effect_free(module_op(m2, 0)));
  CHECK(pto_op_is_effect_free(module_op(m2, 1)));
  CHECK(!pto_op_is_effect_free(module_op(m2, 2)));
  pto_op_destroy(m2);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(op_state) {
  PtoContext *ctx = test_ctx();
  PtoType *i32 = pto_type_int(ctx, 32);
  PtoOpState st;
  pto_op_state_init(&st, ctx, "x.s", NULL);
  CHECK(st.def == NULL && pto_loc_kind(st.loc) == PTO_LOC_UNKNOWN);
  PtoType *types[] = {i32, i32, i32};
  pto_op_state_add_results(&st, types, 3);
  pto_op_state_add_attr(&st, "b", pto_attr_i64(ctx, 1));
  pto_op_state_add_attr(&st, "a", pto_attr_i64(ctx, 2));
  pto_op_state_add_attr(&st, "b", pto_attr_i64(ctx, 3));
  CHECK(pto_op_state_get_attr(&st, "b") == pto_attr_i64(ctx, 3));
  CHECK(pto_op_state_get_attr(&st, "c") == NULL);
  PtoRegion *r = pto_op_state_add_region(&st);
  pto_region_push_block(r, pto_block_create(ctx));
  pto_op_state_add_region(&st);
  PtoOp *op = pto_op_create(&st);
  CHECK(pto_op_num_results(op) == 3 && pto_op_num_regions(op) == 2);
  CHECK(pto_op_num_attrs(op) == 2 && pto_op_attr_int(op, "b", 0) == 3);
  CHECK(pto_region_num_blocks(pto_op_region(op, 0)) == 1);
  CHECK(pto_value_index(pto_op_result(op, 2)) == 2);
  CHECK(pto_value_def_op(pto_op_result(op, 1)) == op);
  pto_op_destroy(op);
  /* released states free their regions */
  pto_op_state_init(&st, ctx, "x.t", NULL);
  r = pto_op_state_add_region(&st);
  PtoBlock *blk = pto_block_create(ctx);
  pto_region_push_block(r, blk);
  pto_block_append(blk, pto_op_create_simple(ctx, "x.in", NULL, NULL, 0, NULL, 0,
                                             NULL, 0));
  pto_op_state_release(&st);
  CHECK(st.num_regions == 0 && st.ctx == ctx);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(builder_insertion_points), T(use_lists_and_replace_all_uses),
          T(erase_remove_and_move), T(blocks_and_arguments),
          T(regions_take_body_and_splice), T(walks), T(clone_with_value_map),
          T(clone_forward_reference), T(op_accessors_and_attributes),
          T(op_state))
