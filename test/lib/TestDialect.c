/* The `test` dialect: small ops that exercise the IR core (custom syntax,
 * regions, traits, symbols, successors, dialect types and attributes) and
 * the pass infrastructure (folds, canonicalization patterns, functions,
 * symbol users, side effects). Registered only by the test tools. */
#include "pto/IR.h"
#include "pto/Pass.h"

#include <string.h>

/* ---- custom forms ---- */

/* `%r = test.add %a, %b : type` */
static PtoResult parse_binary(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand a, b;
  PtoType *t;
  if (pto_parser_parse_operand(p, &a) || pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_operand(p, &b) ||
      pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &t))
    return PTO_FAILURE;
  if (pto_parser_resolve_operand(p, &a, t, st) ||
      pto_parser_resolve_operand(p, &b, t, st))
    return PTO_FAILURE;
  pto_op_state_add_result(st, t);
  return PTO_SUCCESS;
}

static void print_binary(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_operands(p, op, 0, 2);
  pto_printer_print_attr_dict(p, op, NULL, 0);
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, pto_value_type(pto_op_result(op, 0)));
}

static PtoResult verify_same_types(PtoOp *op) {
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    if (pto_value_type(pto_op_operand(op, i)) != t)
      return pto_op_emit_error(op, "requires the same type for all operands "
                                   "and results");
  return PTO_SUCCESS;
}

/* `%c = test.constant 42 : i32` */
static PtoResult parse_constant(PtoParser *p, PtoOpState *st) {
  PtoAttr *v;
  if (pto_parser_parse_attr(p, NULL, &v)) return PTO_FAILURE;
  if (pto_parser_parse_optional_attr_dict(p, st)) return PTO_FAILURE;
  pto_op_state_add_attr(st, "value", v);
  PtoType *t = pto_attr_get_type(v);
  if (!t) return pto_parser_error(p, "expected a typed constant");
  pto_op_state_add_result(st, t);
  return PTO_SUCCESS;
}

static void print_constant(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_attr(p, pto_op_attr(op, "value"));
  static const char *el[] = {"value"};
  pto_printer_print_attr_dict(p, op, el, 1);
}

static PtoResult verify_constant(PtoOp *op) {
  PtoAttr *v = pto_op_attr(op, "value");
  if (!v) return pto_op_emit_error(op, "requires attribute 'value'");
  if (pto_attr_get_type(v) != pto_value_type(pto_op_result(op, 0)))
    return pto_op_emit_error(op, "result type must match the type of 'value'");
  return PTO_SUCCESS;
}

/* `test.isolated { ... }` */
static PtoResult parse_region_op(PtoParser *p, PtoOpState *st) {
  if (pto_parser_parse_optional_attr_dict_with_keyword(p, st)) return PTO_FAILURE;
  PtoRegion *r = pto_op_state_add_region(st);
  return pto_parser_parse_region(p, r, NULL, 0);
}

static void print_region_op(PtoPrinter *p, PtoOp *op) {
  pto_printer_print_attr_dict_with_keyword(p, op, NULL, 0);
  pto_printer_puts(p, " ");
  pto_printer_print_region(p, pto_op_region(op, 0), true, true);
}

/* `test.yield %a, %b : t1, t2` or `test.yield` */
static PtoResult parse_yield(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand *ops;
  unsigned n;
  if (pto_parser_parse_operand_list(p, &ops, &n)) return PTO_FAILURE;
  if (n == 0) return PTO_SUCCESS;
  PtoType **types;
  unsigned nt;
  PtoLoc *loc = pto_parser_loc(p);
  if (pto_parser_parse_punct(p, PTO_P_COLON) ||
      pto_parser_parse_type_list(p, &types, &nt))
    return PTO_FAILURE;
  return pto_parser_resolve_operands(p, ops, n, types, nt, loc, st);
}

static void print_yield(PtoPrinter *p, PtoOp *op) {
  unsigned n = pto_op_num_operands(op);
  if (!n) return;
  pto_printer_puts(p, " ");
  pto_printer_print_operands(p, op, 0, n);
  pto_printer_puts(p, " : ");
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, pto_value_type(pto_op_operand(op, i)));
  }
}

/* `@name` into the `sym_name` attribute. */
static PtoResult parse_symbol_name_attr(PtoParser *p, PtoOpState *st) {
  PtoIdent *name;
  if (pto_parser_parse_symbol_name(p, &name)) return PTO_FAILURE;
  pto_op_state_add_attr(st, "sym_name",
                        pto_attr_string(st->ctx, pto_ident_str(name),
                                        pto_ident_len(name)));
  return PTO_SUCCESS;
}

/* `test.symbol @name` */
static PtoResult parse_symbol(PtoParser *p, PtoOpState *st) {
  if (parse_symbol_name_attr(p, st)) return PTO_FAILURE;
  return pto_parser_parse_optional_attr_dict(p, st);
}

static void print_symbol(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_symbol_name(p, pto_op_symbol_name(op));
  static const char *el[] = {"sym_name"};
  pto_printer_print_attr_dict(p, op, el, 1);
}

static PtoResult verify_positive(PtoOp *op) {
  PtoAttr *v = pto_op_attr(op, "value");
  if (!v || pto_attr_kind(v) != PTO_ATTR_INTEGER)
    return pto_op_emit_error(op, "requires integer attribute 'value'");
  if (pto_attr_int_value(v) <= 0)
    return pto_op_emit_error(op, "attribute 'value' must be positive, got %lld",
                             (long long)pto_attr_int_value(v));
  return PTO_SUCCESS;
}

/* `test.br ^bb1` */
static PtoResult parse_br(PtoParser *p, PtoOpState *st) {
  PtoBlock *b;
  if (pto_parser_parse_successor(p, &b)) return PTO_FAILURE;
  pto_op_state_add_successor(st, b);
  return PTO_SUCCESS;
}

static void print_br(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_successor(p, pto_op_successor(op, 0));
}

/* `test.cond_br %c, ^bb1, ^bb2` */
static PtoResult parse_cond_br(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand c;
  PtoBlock *t, *f;
  if (pto_parser_parse_operand(p, &c) || pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_successor(p, &t) || pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_successor(p, &f))
    return PTO_FAILURE;
  if (pto_parser_resolve_operand(p, &c, pto_type_int(st->ctx, 1), st))
    return PTO_FAILURE;
  pto_op_state_add_successor(st, t);
  pto_op_state_add_successor(st, f);
  return PTO_SUCCESS;
}

static void print_cond_br(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  pto_printer_puts(p, ", ");
  pto_printer_print_successor(p, pto_op_successor(op, 0));
  pto_printer_puts(p, ", ");
  pto_printer_print_successor(p, pto_op_successor(op, 1));
}

static bool is_int(PtoAttr *a) { return a && pto_attr_kind(a) == PTO_ATTR_INTEGER; }

/* Constant-folds; `x + 0` folds to the existing value `x` (constants are
 * moved to the right of commutative ops before folding). */
static PtoResult fold_add(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  if (is_int(c[0]) && is_int(c[1])) {
    r[0].attr = pto_attr_int(pto_op_ctx(op), pto_attr_get_type(c[0]),
                             pto_attr_int_value(c[0]) + pto_attr_int_value(c[1]));
    return PTO_SUCCESS;
  }
  if (is_int(c[1]) && pto_attr_int_value(c[1]) == 0) {
    r[0].value = pto_op_operand(op, 0);
    return PTO_SUCCESS;
  }
  return PTO_FAILURE;
}

/* `test.neg`: constant-folds, and `neg(neg(x))` becomes `x` by a pattern. */
static PtoResult fold_neg(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  if (!is_int(c[0])) return PTO_FAILURE;
  r[0].attr = pto_attr_int(pto_op_ctx(op), pto_attr_get_type(c[0]),
                           -pto_attr_int_value(c[0]));
  return PTO_SUCCESS;
}

static PtoResult neg_neg(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoOp *inner = pto_value_def_op(pto_op_operand(op, 0));
  if (!inner || !pto_op_is(inner, "test.neg")) return PTO_FAILURE;
  PtoValue *x = pto_op_operand(inner, 0);
  pto_rewriter_replace_op(rw, op, &x);
  return PTO_SUCCESS;
}

static void canon_neg(void *set, PtoContext *ctx) {
  (void)ctx;
  pto_pattern_add(set, "test.neg", 1, neg_neg, NULL, "test-neg-neg");
}

/* `test.double`: two patterns on one root; the higher benefit one makes a
 * constant when it can, the other rewrites to `test.add %x, %x`. */
static PtoResult double_const(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoAttr *c = pto_value_constant(pto_op_operand(op, 0));
  if (!is_int(c)) return PTO_FAILURE;
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  PtoContext *ctx = pto_rewriter_ctx(rw);
  PtoOp *k = pto_rewriter_materialize_constant(
      rw, pto_ctx_lookup_dialect(ctx, "test", 4),
      pto_attr_int(ctx, t, 2 * pto_attr_int_value(c)), t, pto_op_loc(op));
  if (!k) return PTO_FAILURE;
  PtoValue *v = pto_op_result(k, 0);
  pto_rewriter_replace_op(rw, op, &v);
  return PTO_SUCCESS;
}

static PtoResult double_to_add(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoValue *x = pto_op_operand(op, 0);
  PtoValue *ops[2] = {x, x};
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  PtoOpState st;
  pto_op_state_init(&st, pto_rewriter_ctx(rw), "test.add", pto_op_loc(op));
  pto_op_state_add_operands(&st, ops, 2);
  pto_op_state_add_result(&st, t);
  pto_rewriter_replace_op_with_op(rw, op, pto_rewriter_create(rw, &st));
  return PTO_SUCCESS;
}

static void canon_double(void *set, PtoContext *ctx) {
  (void)ctx;
  pto_pattern_add(set, "test.double", 1, double_to_add, NULL,
                  "test-double-to-add");
  pto_pattern_add(set, "test.double", 2, double_const, NULL,
                  "test-double-const");
}

/* `test.flip`: a pattern that toggles an attribute forever, for the
 * driver's non-convergence diagnostic. */
static PtoResult flip(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  pto_op_set_attr(op, "state",
                  pto_attr_bool(pto_rewriter_ctx(rw),
                                !pto_op_attr_flag(op, "state")));
  pto_rewriter_notify_modified(rw, op);
  return PTO_SUCCESS;
}

static void canon_flip(void *set, PtoContext *ctx) {
  (void)ctx;
  pto_pattern_add(set, "test.flip", 1, flip, NULL, "test-flip");
}

/* `test.in_place {count = N}` folds in place, counting down to 0. */
static PtoResult fold_in_place(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  (void)c;
  (void)r;
  int64_t n = pto_op_attr_int(op, "count", 0);
  if (n <= 0) return PTO_FAILURE;
  pto_op_set_attr(op, "count", pto_attr_i64(pto_op_ctx(op), n - 1));
  return PTO_SUCCESS;
}

/* `test.divmod` folds both results to constants. */
static PtoResult fold_divmod(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  if (!is_int(c[0]) || !is_int(c[1]) || pto_attr_int_value(c[1]) == 0)
    return PTO_FAILURE;
  PtoContext *ctx = pto_op_ctx(op);
  int64_t a = pto_attr_int_value(c[0]), b = pto_attr_int_value(c[1]);
  r[0].attr = pto_attr_int(ctx, pto_attr_get_type(c[0]), a / b);
  r[1].attr = pto_attr_int(ctx, pto_attr_get_type(c[0]), a % b);
  return PTO_SUCCESS;
}

/* `test.func @name attributes {...} { ^bb0(...): ... }` */
static PtoResult parse_func(PtoParser *p, PtoOpState *st) {
  if (parse_symbol_name_attr(p, st) ||
      pto_parser_parse_optional_attr_dict_with_keyword(p, st))
    return PTO_FAILURE;
  return pto_parser_parse_region(p, pto_op_state_add_region(st), NULL, 0);
}

static void print_func(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_symbol_name(p, pto_op_symbol_name(op));
  static const char *el[] = {"sym_name"};
  pto_printer_print_attr_dict_with_keyword(p, op, el, 1);
  pto_printer_puts(p, " ");
  pto_printer_print_region(p, pto_op_region(op, 0), true, true);
}

/* `test.lossy {...}` deliberately drops its attributes when printed, so
 * that the round-trip check has something to catch. */
static PtoResult parse_lossy(PtoParser *p, PtoOpState *st) {
  return pto_parser_parse_optional_attr_dict(p, st);
}

static void print_lossy(PtoPrinter *p, PtoOp *op) { (void)p, (void)op; }

enum {
  PURE = PTO_TRAIT_PURE,
  TERM = PTO_TRAIT_TERMINATOR,
};

static const PtoOpDef test_ops[] = {
    {"test.add", 2, 1, 0, 0, PURE | PTO_TRAIT_COMMUTATIVE, PTO_AFFINITY_NONE,
     verify_same_types, parse_binary, print_binary, fold_add, NULL,
     "integer addition with a custom form"},
    {"test.constant", 0, 1, 0, 0, PURE | PTO_TRAIT_CONSTANT_LIKE,
     PTO_AFFINITY_NONE, verify_constant, parse_constant, print_constant, NULL,
     NULL, "a constant"},
    {"test.isolated", 0, 0, 1, 0,
     PTO_TRAIT_ISOLATED_FROM_ABOVE | PTO_TRAIT_NO_TERMINATOR, PTO_AFFINITY_NONE,
     NULL, parse_region_op, print_region_op, NULL, NULL,
     "a region isolated from above"},
    {"test.region", 0, 0, 1, 0, 0, PTO_AFFINITY_NONE, NULL, parse_region_op,
     print_region_op, NULL, NULL, "a region that needs terminators"},
    {"test.single_block", 0, 0, 1, 0,
     PTO_TRAIT_SINGLE_BLOCK | PTO_TRAIT_NO_TERMINATOR, PTO_AFFINITY_NONE, NULL,
     parse_region_op, print_region_op, NULL, NULL, "at most one block"},
    {"test.yield", PTO_VARIADIC(0), 0, 0, 0, TERM | PURE, PTO_AFFINITY_NONE,
     NULL, parse_yield, print_yield, NULL, NULL, "region terminator"},
    {"test.br", 0, 0, 0, 1, TERM, PTO_AFFINITY_NONE, NULL, parse_br, print_br,
     NULL, NULL, "unconditional branch"},
    {"test.cond_br", 1, 0, 0, 2, TERM, PTO_AFFINITY_NONE, NULL, parse_cond_br,
     print_cond_br, NULL, NULL, "conditional branch"},
    {"test.symbol_table", 0, 0, 1, 0,
     PTO_TRAIT_SYMBOL_TABLE | PTO_TRAIT_NO_TERMINATOR, PTO_AFFINITY_NONE, NULL,
     parse_region_op, print_region_op, NULL, NULL, "a symbol table"},
    {"test.symbol", 0, 0, 0, 0,
     PTO_TRAIT_SYMBOL | PTO_TRAIT_HAS_PARENT_SYMBOL_TABLE, PTO_AFFINITY_NONE,
     NULL, parse_symbol, print_symbol, NULL, NULL, "a symbol"},
    {"test.positive", 0, 0, 0, 0, 0, PTO_AFFINITY_NONE, verify_positive, NULL,
     NULL, NULL, NULL, "requires value > 0 (custom verifier)"},
    {"test.two_operands", 2, PTO_VARIADIC(0), 0, 0, 0, PTO_AFFINITY_NONE, NULL,
     NULL, NULL, NULL, NULL, "exactly two operands"},
    {"test.one_result", PTO_VARIADIC(0), 1, 0, 0, 0, PTO_AFFINITY_NONE, NULL,
     NULL, NULL, NULL, NULL, "exactly one result"},
    {"test.at_least_one", PTO_VARIADIC(1), PTO_VARIADIC(0), 0, 0, 0,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL, NULL, "one or more operands"},
    {"test.side_effect", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL, NULL, "an op with effects"},
    {"test.pure", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, PURE,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL, NULL, "an op without effects"},
    {"test.neg", 1, 1, 0, 0, PURE, PTO_AFFINITY_NONE, NULL, NULL, NULL,
     fold_neg, canon_neg, "negation: folds, neg(neg(x)) -> x"},
    {"test.double", 1, 1, 0, 0, PURE, PTO_AFFINITY_NONE, NULL, NULL, NULL,
     NULL, canon_double, "2*x through two patterns of different benefit"},
    {"test.flip", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0, PTO_AFFINITY_NONE,
     NULL, NULL, NULL, NULL, canon_flip, "a pattern that never converges"},
    {"test.in_place", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, fold_in_place, NULL,
     "folds in place until its count is 0"},
    {"test.divmod", 2, 2, 0, 0, PURE, PTO_AFFINITY_NONE, NULL, NULL, NULL,
     fold_divmod, NULL, "quotient and remainder: folds to two constants"},
    {"test.func", 0, 0, 1, 0,
     PTO_TRAIT_SYMBOL | PTO_TRAIT_ISOLATED_FROM_ABOVE | PTO_TRAIT_IS_FUNCTION,
     PTO_AFFINITY_NONE, NULL, parse_func, print_func, NULL, NULL,
     "a function"},
    {"test.return", PTO_VARIADIC(0), 0, 0, 0,
     TERM | PURE | PTO_TRAIT_RETURN_LIKE, PTO_AFFINITY_NONE, NULL, parse_yield,
     print_yield, NULL, NULL, "returns from a test.func"},
    {"test.use_symbol", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL, NULL,
     "refers to symbols through its attributes (has effects)"},
    {"test.pure_region", PTO_VARIADIC(0), PTO_VARIADIC(0), 1, 0,
     PTO_TRAIT_RECURSIVE_EFFECTS, PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL,
     NULL, "a region op whose effects are those of its body"},
    {"test.vector_op", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, PURE,
     PTO_AFFINITY_VECTOR, NULL, NULL, NULL, NULL, NULL, "runs on vector cores"},
    {"test.cube_op", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, PURE,
     PTO_AFFINITY_CUBE, NULL, NULL, NULL, NULL, NULL, "runs on cube cores"},
    {"test.lossy", 0, 0, 0, 0, 0, PTO_AFFINITY_NONE, NULL, parse_lossy,
     print_lossy, NULL, NULL, "a printer that loses attributes"},
};

/* `!test.box<T>`: a type wrapping another type. */
static PtoType *parse_test_type(PtoParser *p, const char *mnemonic) {
  PtoContext *ctx = pto_parser_ctx(p);
  if (strcmp(mnemonic, "box") == 0) {
    PtoType *inner;
    if (pto_parser_parse_punct(p, PTO_P_LESS) || pto_parser_parse_type(p, &inner) ||
        pto_parser_parse_punct(p, PTO_P_GREATER))
      return NULL;
    return pto_type_dialect(ctx, "test", "box", NULL, 0, &inner, 1, NULL, 0);
  }
  if (strcmp(mnemonic, "unit") == 0)
    return pto_type_dialect(ctx, "test", "unit", NULL, 0, NULL, 0, NULL, 0);
  pto_parser_error(p, "unknown test type '%s'", mnemonic);
  return NULL;
}

static void print_test_type(PtoPrinter *p, PtoType *t) {
  pto_printer_puts(p, pto_type_dialect_mnemonic(t));
  if (pto_type_num_types(t)) {
    pto_printer_puts(p, "<");
    pto_printer_print_type(p, pto_type_type_param(t, 0));
    pto_printer_puts(p, ">");
  }
}

/* `#test.pair<1, 2>` */
static PtoAttr *parse_test_attr(PtoParser *p, const char *mnemonic) {
  if (strcmp(mnemonic, "pair") != 0) {
    pto_parser_error(p, "unknown test attribute '%s'", mnemonic);
    return NULL;
  }
  int64_t v[2];
  if (pto_parser_parse_punct(p, PTO_P_LESS) || pto_parser_parse_integer(p, &v[0]) ||
      pto_parser_parse_punct(p, PTO_P_COMMA) || pto_parser_parse_integer(p, &v[1]) ||
      pto_parser_parse_punct(p, PTO_P_GREATER))
    return NULL;
  return pto_attr_dialect(pto_parser_ctx(p), "test", "pair", v, 2, NULL, 0,
                          NULL, 0);
}

static void print_test_attr(PtoPrinter *p, PtoAttr *a) {
  pto_printer_printf(p, "pair<%lld, %lld>", (long long)pto_attr_ints(a)[0],
                     (long long)pto_attr_ints(a)[1]);
}

static PtoOp *test_materialize(PtoContext *ctx, PtoAttr *value, PtoType *type,
                               PtoLoc *loc) {
  PtoNamedAttr na = {pto_ident_cstr(ctx, "value"), value};
  return pto_op_create_simple(ctx, "test.constant", loc, NULL, 0, &type, 1,
                              &na, 1);
}

static const PtoDialectDef test_dialect = {
    "test",          test_ops,        sizeof test_ops / sizeof test_ops[0],
    parse_test_type, print_test_type, parse_test_attr,
    print_test_attr, test_materialize, "ops for testing the IR core"};

void pto_register_test_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &test_dialect);
}
