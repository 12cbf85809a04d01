/* Unit tests of symbols and symbol tables: names, lookup in a table, nested
 * references, the cached table, visibility. */
#include "IRTestUtil.h"
#include "Test.h"

static const char *src =
    "ptotest.symbol @top\n"
    "ptotest.symbol @priv {sym_visibility = \"private\"}\n"
    "module @inner {\n"
    "  ptotest.symbol @leaf\n"
    "  module @deeper {\n"
    "    ptotest.symbol @leaf\n"
    "  }\n"
    "  \"x.user\"() : () -> ()\n"
    "}\n"
    "\"x.user\"() ({\n  \"x.nested_user\"() : () -> ()\n}) : () -> ()\n";

TEST(names_and_lookup) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, src);
  CHECK(m != NULL && pto_op_verify(m) == PTO_SUCCESS);
  PtoOp *top = module_op(m, 0), *priv = module_op(m, 1), *inner = module_op(m, 2);
  CHECK(pto_op_symbol_name(top) == pto_ident_cstr(ctx, "top"));
  CHECK(pto_op_symbol_name(module_op(m, 3)) == NULL);
  CHECK(pto_symbol_is_private(priv) && !pto_symbol_is_private(top));
  CHECK(pto_symbol_lookup(m, "top") == top && pto_symbol_lookup(m, "inner") == inner);
  CHECK(pto_symbol_lookup(m, "leaf") == NULL); /* only direct children */
  CHECK(pto_symbol_lookup(NULL, "top") == NULL);
  /* the nearest symbol table of an op */
  PtoOp *inner_user = nested_op(inner, 0, 2);
  CHECK(pto_symbol_table_op_of(inner_user) == inner);
  CHECK(pto_symbol_table_op_of(nested_op(module_op(m, 3), 0, 0)) == m);
  CHECK(pto_symbol_table_op_of(m) == NULL);
  /* references resolve in the nearest table only (as in MLIR: the outer
   * module's @top is not visible from inside @inner); nested references
   * descend through nested tables */
  PtoAttr *leaf = pto_attr_symref(ctx, pto_ident_cstr(ctx, "leaf"), NULL, 0);
  CHECK(pto_symbol_lookup_from(inner_user, leaf) == nested_op(inner, 0, 0));
  PtoAttr *top_ref = pto_attr_symref(ctx, pto_ident_cstr(ctx, "top"), NULL, 0);
  CHECK(pto_symbol_lookup_from(inner_user, top_ref) == NULL);
  CHECK(pto_symbol_lookup_from(module_op(m, 3), top_ref) == top);
  PtoIdent *path[] = {pto_ident_cstr(ctx, "deeper"), pto_ident_cstr(ctx, "leaf")};
  PtoAttr *deep = pto_attr_symref(ctx, pto_ident_cstr(ctx, "inner"), path, 2);
  PtoOp *deeper = nested_op(inner, 0, 1);
  CHECK(pto_symbol_lookup_from(module_op(m, 3), deep) == nested_op(deeper, 0, 0));
  PtoIdent *bad_path[] = {pto_ident_cstr(ctx, "nope")};
  PtoAttr *bad = pto_attr_symref(ctx, pto_ident_cstr(ctx, "inner"), bad_path, 1);
  CHECK(pto_symbol_lookup_from(module_op(m, 3), bad) == NULL);
  CHECK(pto_symbol_lookup_from(module_op(m, 3), leaf) == NULL);
  CHECK(pto_symbol_lookup_from(top, pto_attr_i64(ctx, 1)) == NULL);
  CHECK(pto_symbol_lookup_from(top, NULL) == NULL);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(cached_table) {
  PtoContext *ctx = ctx_with_test_dialect();
  PtoOp *m = parse(ctx, src);
  PtoSymbolTable *st = pto_symtab_create(m);
  PtoOp *top = module_op(m, 0);
  CHECK(pto_symtab_lookup(st, pto_ident_cstr(ctx, "top")) == top);
  CHECK(pto_symtab_lookup(st, pto_ident_cstr(ctx, "leaf")) == NULL);
  /* insert and erase keep it in step with the IR */
  PtoOpState s;
  pto_op_state_init(&s, ctx, "ptotest.symbol", NULL);
  pto_op_state_add_attr(&s, "sym_name", pto_attr_cstr(ctx, "added"));
  PtoOp *added = pto_op_create(&s);
  pto_block_append(pto_op_block(top), added);
  pto_symtab_insert(st, added);
  CHECK(pto_symtab_lookup(st, pto_ident_cstr(ctx, "added")) == added);
  pto_symtab_erase(st, added);
  CHECK(pto_symtab_lookup(st, pto_ident_cstr(ctx, "added")) == NULL);
  /* erasing an op that is not the one registered under its name keeps it */
  pto_symtab_insert(st, added);
  pto_op_state_init(&s, ctx, "ptotest.symbol", NULL);
  pto_op_state_add_attr(&s, "sym_name", pto_attr_cstr(ctx, "added"));
  PtoOp *twin = pto_op_create(&s);
  pto_symtab_erase(st, twin);
  CHECK(pto_symtab_lookup(st, pto_ident_cstr(ctx, "added")) == added);
  pto_op_destroy(twin);
  pto_symtab_destroy(st);
  pto_symtab_destroy(NULL);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(names_and_lookup), T(cached_table))
