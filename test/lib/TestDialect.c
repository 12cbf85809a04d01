/* The `ptotest` dialect: small ops that exercise the IR core (custom syntax,
 * regions with declared arguments, implicit terminators, traits, symbols,
 * successors with operands, dialect types and attributes, diagnostics) and
 * the pass infrastructure (folds, canonicalization patterns, functions,
 * symbol users, side effects).
 * Registered only by the test tools. Its namespace is not `test` because
 * mlir-opt registers a `test` dialect of its own, and our generic output
 * must stay readable by mlir-opt. */
#include "TestDialect.h"
#include "pto/Pass.h"

#include <string.h>

/* ---- custom forms ---- */

/* `%r = ptotest.add %a, %b : type` */
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

/* Equal types are checked by the core (SAME_OPERANDS_AND_RESULT_TYPE). */
static PtoResult verify_int_type(PtoOp *op) {
  if (!pto_type_is_int_or_index(pto_value_type(pto_op_result(op, 0))))
    return pto_op_emit_error(op, "expects an integer or index type");
  return PTO_SUCCESS;
}

/* `%c = ptotest.constant 42 : i32` */
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

/* `ptotest.isolated attributes {...} { ... }` (also region, single_block,
 * symbol_table): an optional attribute dictionary, then one region whose
 * entry block may be written with its label and arguments. */
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

/* `: t1, t2` after an operand list; none when the list is empty. */
static PtoResult parse_typed_operands(PtoParser *p, PtoOpState *st) {
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

static void print_typed_operands(PtoPrinter *p, PtoOp *op) {
  unsigned n = pto_op_num_operands(op);
  if (!n) return;
  pto_printer_print_operands(p, op, 0, n);
  pto_printer_puts(p, " : ");
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, pto_value_type(pto_op_operand(op, i)));
  }
}

/* `ptotest.yield %a, %b : t1, t2` or `ptotest.yield` */
static PtoResult parse_yield(PtoParser *p, PtoOpState *st) {
  return parse_typed_operands(p, st);
}

static void print_yield(PtoPrinter *p, PtoOp *op) {
  if (!pto_op_num_operands(op)) return;
  pto_printer_puts(p, " ");
  print_typed_operands(p, op);
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

/* `ptotest.symbol @name` */
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

/* `ptotest.br ^bb1` or `ptotest.br ^bb1(%a, %b : i32, f32)`: the operands
 * are passed to the successor's arguments. */
static PtoResult parse_br(PtoParser *p, PtoOpState *st) {
  PtoBlock *b;
  if (pto_parser_parse_successor(p, &b)) return PTO_FAILURE;
  pto_op_state_add_successor(st, b);
  if (!pto_parser_optional_punct(p, PTO_P_LPAREN)) return PTO_SUCCESS;
  if (parse_typed_operands(p, st)) return PTO_FAILURE;
  return pto_parser_parse_punct(p, PTO_P_RPAREN);
}

static void print_br(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_successor(p, pto_op_successor(op, 0));
  if (!pto_op_num_operands(op)) return;
  pto_printer_puts(p, "(");
  print_typed_operands(p, op);
  pto_printer_puts(p, ")");
}

static PtoResult verify_br(PtoOp *op) {
  PtoBlock *dest = pto_op_successor(op, 0);
  unsigned n = pto_op_num_operands(op), m = pto_block_num_args(dest);
  if (n != m)
    return pto_op_emit_error(op, "branch has %u operands for successor #0, "
                                 "but target block has %u", n, m);
  for (unsigned i = 0; i < n; i++)
    if (pto_value_type(pto_op_operand(op, i)) !=
        pto_value_type(pto_block_arg(dest, i)))
      return pto_op_emit_error(op, "type mismatch for bb argument #%u of "
                                   "successor #0", i);
  return PTO_SUCCESS;
}

/* `ptotest.cond_br %c, ^bb1, ^bb2` */
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

/* `ptotest.loop %i = %lb to %ub { ... }`: the region's argument is declared
 * by the syntax and its `ptotest.yield` terminator is implicit. */
static PtoResult parse_loop(PtoParser *p, PtoOpState *st) {
  PtoRegionArg iv;
  PtoUnresolvedOperand lb, ub;
  PtoType *index = pto_type_index(st->ctx);
  if (pto_parser_parse_region_arg(p, &iv) ||
      pto_parser_parse_punct(p, PTO_P_EQUAL) ||
      pto_parser_parse_operand(p, &lb) ||
      pto_parser_parse_keyword(p, "to") || pto_parser_parse_operand(p, &ub) ||
      pto_parser_resolve_operand(p, &lb, index, st) ||
      pto_parser_resolve_operand(p, &ub, index, st) ||
      pto_parser_parse_optional_attr_dict_with_keyword(p, st))
    return PTO_FAILURE;
  iv.type = index;
  PtoRegion *r = pto_op_state_add_region(st);
  if (pto_parser_parse_region(p, r, &iv, 1)) return PTO_FAILURE;
  PtoBlock *body = pto_region_first_block(r);
  PtoOp *last = pto_block_last_op(body);
  if (!last || !pto_op_has_trait(last, PTO_TRAIT_TERMINATOR))
    pto_block_append(body, pto_op_create_simple(st->ctx, "ptotest.yield",
                                                st->loc, NULL, 0, NULL, 0,
                                                NULL, 0));
  return PTO_SUCCESS;
}

static void print_loop(PtoPrinter *p, PtoOp *op) {
  PtoRegion *r = pto_op_region(op, 0);
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_block_arg(pto_region_first_block(r), 0));
  pto_printer_puts(p, " = ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  pto_printer_puts(p, " to ");
  pto_printer_print_operand(p, pto_op_operand(op, 1));
  pto_printer_print_attr_dict_with_keyword(p, op, NULL, 0);
  pto_printer_puts(p, " ");
  pto_printer_print_region(p, r, false, false);
}

static PtoResult verify_loop(PtoOp *op) {
  PtoBlock *body = pto_region_first_block(pto_op_region(op, 0));
  if (!body || pto_block_num_args(body) != 1 ||
      pto_type_kind(pto_value_type(pto_block_arg(body, 0))) != PTO_TYPE_INDEX)
    return pto_op_emit_error(op, "expects one 'index' region argument");
  PtoOp *term = pto_block_last_op(body);
  if (term && pto_op_is(term, "ptotest.yield") && pto_op_num_operands(term))
    return pto_op_emit_error(op, "expects its region to yield no values");
  return PTO_SUCCESS;
}

/* `%a:3 = ptotest.dup %x : t`: as many results as names are bound. */
static PtoResult parse_dup(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand x;
  PtoType *t;
  if (pto_parser_parse_operand(p, &x) || pto_parser_parse_colon_type(p, &t) ||
      pto_parser_resolve_operand(p, &x, t, st))
    return PTO_FAILURE;
  for (unsigned i = 0; i < pto_parser_num_results(p); i++)
    pto_op_state_add_result(st, t);
  return PTO_SUCCESS;
}

static void print_dup(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 0)));
}

/* `ptotest.literals kw -1.5e3 "str" @sym 42 [optional 7]`: one of each
 * literal the parser API reads, kept as attributes kw, f, s, sym, i and
 * (when present) opt. */
static PtoResult parse_literals(PtoParser *p, PtoOpState *st) {
  PtoContext *ctx = st->ctx;
  PtoIdent *kw, *sym;
  double f;
  char *s;
  size_t n;
  int64_t i;
  if (pto_parser_parse_any_keyword(p, &kw) || pto_parser_parse_float(p, &f) ||
      pto_parser_parse_string(p, &s, &n) ||
      pto_parser_parse_symbol_name(p, &sym) || pto_parser_parse_integer(p, &i))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, "kw", pto_attr_cstr(ctx, pto_ident_str(kw)));
  pto_op_state_add_attr(st, "f", pto_attr_float(ctx, pto_type_float(ctx, PTO_F64), f));
  pto_op_state_add_attr(st, "s", pto_attr_string(ctx, s, n));
  pto_op_state_add_attr(st, "sym", pto_attr_symref(ctx, sym, NULL, 0));
  pto_op_state_add_attr(st, "i", pto_attr_i64(ctx, i));
  if (pto_parser_optional_punct(p, PTO_P_LSQUARE)) {
    PtoResult status;
    if (pto_parser_parse_keyword(p, "optional")) return PTO_FAILURE;
    if (!pto_parser_optional_integer(p, &i, &status))
      return pto_parser_error(p, "expected an integer after 'optional'");
    if (status || pto_parser_parse_punct(p, PTO_P_RSQUARE)) return PTO_FAILURE;
    pto_op_state_add_attr(st, "opt", pto_attr_i64(ctx, i));
  }
  return pto_parser_parse_optional_attr_dict(p, st);
}

static void print_literals(PtoPrinter *p, PtoOp *op) {
  pto_printer_printf(p, " %s ", pto_op_attr_str(op, "kw"));
  pto_printer_print_attr_no_type(p, pto_op_attr(op, "f"));
  pto_printer_puts(p, " ");
  PtoAttr *s = pto_op_attr(op, "s");
  pto_printer_print_string(p, pto_attr_str(s), pto_attr_str_len(s));
  pto_printer_puts(p, " ");
  pto_printer_print_symbol_name(p, pto_attr_symref_root(pto_op_attr(op, "sym")));
  pto_printer_puts(p, " ");
  pto_printer_print_int(p, pto_op_attr_int(op, "i", 0));
  if (pto_op_attr(op, "opt")) {
    pto_printer_puts(p, " [optional ");
    pto_printer_print_int(p, pto_op_attr_int(op, "opt", 0));
    pto_printer_puts(p, "]");
  }
  static const char *el[] = {"kw", "f", "s", "sym", "i", "opt"};
  pto_printer_print_attr_dict(p, op, el, 6);
}

static PtoResult verify_literals(PtoOp *op) {
  static const char *names[] = {"kw", "f", "s", "sym", "i"};
  for (unsigned k = 0; k < 5; k++)
    if (!pto_op_attr(op, names[k]))
      return pto_op_emit_error(op, "requires attribute '%s'", names[k]);
  return PTO_SUCCESS;
}

/* A hook that declares a region argument but forgets its type: the core
 * reports the mistake instead of crashing. */
static PtoResult parse_untyped_region(PtoParser *p, PtoOpState *st) {
  PtoRegionArg arg;
  if (pto_parser_parse_region_arg(p, &arg)) return PTO_FAILURE;
  return pto_parser_parse_region(p, pto_op_state_add_region(st), &arg, 1);
}

/* A parse hook that fails without saying why: the core must still report
 * an error. */
static PtoResult parse_silent_fail(PtoParser *p, PtoOpState *st) {
  (void)p;
  (void)st;
  return PTO_FAILURE;
}

/* `"ptotest.diagnose"() {severity = "warning", message = "...", note =
 * "..."}` reports the given diagnostic while being verified, so that tests
 * can produce every severity with notes at will. */
static PtoResult verify_diagnose(PtoOp *op) {
  const char *sev = pto_op_attr_str(op, "severity");
  const char *msg = pto_op_attr_str(op, "message");
  const char *note = pto_op_attr_str(op, "note");
  if (!sev || !msg)
    return pto_op_emit_error(op, "requires string attributes 'severity' and "
                                 "'message'");
  PtoDiagSeverity s;
  if (strcmp(sev, "error") == 0) s = PTO_DIAG_ERROR;
  else if (strcmp(sev, "warning") == 0) s = PTO_DIAG_WARNING;
  else if (strcmp(sev, "remark") == 0) s = PTO_DIAG_REMARK;
  else if (strcmp(sev, "note") == 0) s = PTO_DIAG_NOTE;
  else return pto_op_emit_error(op, "unknown severity '%s'", sev);
  PtoDiag *d = pto_diag_begin(pto_op_ctx(op), s, pto_op_loc(op));
  pto_diag_printf(d, "%s", msg);
  if (note) {
    PtoOp *parent = pto_op_parent_op(op);
    pto_diag_note(d, parent ? pto_op_loc(parent) : pto_op_loc(op), "%s", note);
  }
  return pto_diag_emit(d);
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

/* `ptotest.neg`: constant-folds, and `neg(neg(x))` becomes `x` by a pattern. */
static PtoResult fold_neg(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  if (!is_int(c[0])) return PTO_FAILURE;
  r[0].attr = pto_attr_int(pto_op_ctx(op), pto_attr_get_type(c[0]),
                           -pto_attr_int_value(c[0]));
  return PTO_SUCCESS;
}

static PtoResult neg_neg(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoOp *inner = pto_value_def_op(pto_op_operand(op, 0));
  if (!inner || !pto_op_is(inner, "ptotest.neg")) return PTO_FAILURE;
  PtoValue *x = pto_op_operand(inner, 0);
  pto_rewriter_replace_op(rw, op, &x);
  return PTO_SUCCESS;
}

static void canon_neg(void *set, PtoContext *ctx) {
  (void)ctx;
  pto_pattern_set_add(set, "ptotest.neg", 1, neg_neg, NULL, "test-neg-neg");
}

/* `ptotest.double`: two patterns on one root; the higher benefit one makes a
 * constant when it can, the other rewrites to `ptotest.add %x, %x`. */
static PtoResult double_const(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoAttr *c = pto_value_constant(pto_op_operand(op, 0));
  if (!is_int(c)) return PTO_FAILURE;
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  PtoContext *ctx = pto_rewriter_ctx(rw);
  PtoOp *k = pto_rewriter_materialize_constant(
      rw, pto_ctx_lookup_dialect(ctx, "ptotest", 7),
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
  pto_op_state_init(&st, pto_rewriter_ctx(rw), "ptotest.add", pto_op_loc(op));
  pto_op_state_add_operands(&st, ops, 2);
  pto_op_state_add_result(&st, t);
  pto_rewriter_replace_op_with_op(rw, op, pto_rewriter_create(rw, &st));
  return PTO_SUCCESS;
}

static void canon_double(void *set, PtoContext *ctx) {
  (void)ctx;
  pto_pattern_set_add(set, "ptotest.double", 1, double_to_add, NULL,
                      "test-double-to-add");
  pto_pattern_set_add(set, "ptotest.double", 2, double_const, NULL,
                      "test-double-const");
}

/* `ptotest.flip`: a pattern that toggles an attribute forever, for the
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
  pto_pattern_set_add(set, "ptotest.flip", 1, flip, NULL, "test-flip");
}

/* `ptotest.in_place {count = N}` folds in place, counting down to 0. */
static PtoResult fold_in_place(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  (void)c;
  (void)r;
  int64_t n = pto_op_attr_int(op, "count", 0);
  if (n <= 0) return PTO_FAILURE;
  pto_op_set_attr(op, "count", pto_attr_i64(pto_op_ctx(op), n - 1));
  return PTO_SUCCESS;
}

/* `ptotest.divmod` folds both results to constants. */
static PtoResult fold_divmod(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  if (!is_int(c[0]) || !is_int(c[1]) || pto_attr_int_value(c[1]) == 0)
    return PTO_FAILURE;
  PtoContext *ctx = pto_op_ctx(op);
  int64_t a = pto_attr_int_value(c[0]), b = pto_attr_int_value(c[1]);
  r[0].attr = pto_attr_int(ctx, pto_attr_get_type(c[0]), a / b);
  r[1].attr = pto_attr_int(ctx, pto_attr_get_type(c[0]), a % b);
  return PTO_SUCCESS;
}

/* `ptotest.func @name attributes {...} { ^bb0(...): ... }` */
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

/* `ptotest.lossy {...}` deliberately drops its attributes when printed, so
 * that the round-trip check has something to catch. */
static PtoResult parse_lossy(PtoParser *p, PtoOpState *st) {
  return pto_parser_parse_optional_attr_dict(p, st);
}

static void print_lossy(PtoPrinter *p, PtoOp *op) { (void)p, (void)op; }

enum {
  PURE = PTO_TRAIT_PURE,
  TERM = PTO_TRAIT_TERMINATOR,
};
#define NONE PTO_AFFINITY_NONE

static const PtoOpDef test_ops[] = {
    {"ptotest.add", 2, 1, 0, 0,
     PURE | PTO_TRAIT_COMMUTATIVE | PTO_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE,
     NONE, verify_int_type, parse_binary, print_binary, fold_add, NULL,
     "integer addition with a custom form"},
    {"ptotest.constant", 0, 1, 0, 0, PURE | PTO_TRAIT_CONSTANT_LIKE, NONE,
     verify_constant, parse_constant, print_constant, NULL, NULL, "a constant"},
    {"ptotest.isolated", 0, 0, 1, 0,
     PTO_TRAIT_ISOLATED_FROM_ABOVE | PTO_TRAIT_NO_TERMINATOR, NONE, NULL,
     parse_region_op, print_region_op, NULL, NULL,
     "a region isolated from above"},
    {"ptotest.region", 0, 0, 1, 0, 0, NONE, NULL, parse_region_op,
     print_region_op, NULL, NULL, "a region that needs terminators"},
    {"ptotest.single_block", 0, 0, 1, 0,
     PTO_TRAIT_SINGLE_BLOCK | PTO_TRAIT_NO_TERMINATOR, NONE, NULL,
     parse_region_op, print_region_op, NULL, NULL, "at most one block"},
    {"ptotest.yield", PTO_VARIADIC(0), 0, 0, 0, TERM | PURE, NONE, NULL,
     parse_yield, print_yield, NULL, NULL, "region terminator"},
    {"ptotest.br", PTO_VARIADIC(0), 0, 0, 1, TERM, NONE, verify_br, parse_br,
     print_br, NULL, NULL, "unconditional branch with block arguments"},
    {"ptotest.cond_br", 1, 0, 0, 2, TERM, NONE, NULL, parse_cond_br,
     print_cond_br, NULL, NULL, "conditional branch"},
    {"ptotest.symbol_table", 0, 0, 1, 0,
     PTO_TRAIT_SYMBOL_TABLE | PTO_TRAIT_NO_TERMINATOR, NONE, NULL,
     parse_region_op, print_region_op, NULL, NULL, "a symbol table"},
    {"ptotest.symbol", 0, 0, 0, 0,
     PTO_TRAIT_SYMBOL | PTO_TRAIT_HAS_PARENT_SYMBOL_TABLE, NONE, NULL,
     parse_symbol, print_symbol, NULL, NULL, "a symbol"},
    {"ptotest.positive", 0, 0, 0, 0, 0, NONE, verify_positive, NULL, NULL, NULL,
     NULL, "requires value > 0 (custom verifier)"},
    {"ptotest.two_operands", 2, PTO_VARIADIC(0), 0, 0, 0, NONE, NULL, NULL,
     NULL, NULL, NULL, "exactly two operands"},
    {"ptotest.one_result", PTO_VARIADIC(0), 1, 0, 0, 0, NONE, NULL, NULL, NULL,
     NULL, NULL, "exactly one result"},
    {"ptotest.at_least_one", PTO_VARIADIC(1), PTO_VARIADIC(0), 0, 0, 0, NONE,
     NULL, NULL, NULL, NULL, NULL, "one or more operands"},
    {"ptotest.two_regions", 0, 0, 2, 0, PTO_TRAIT_NO_TERMINATOR, NONE, NULL,
     NULL, NULL, NULL, NULL, "exactly two regions"},
    {"ptotest.same_type", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0,
     PTO_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE, NONE, NULL, NULL, NULL, NULL,
     NULL, "operands and results of one type"},
    {"ptotest.same_operands", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0,
     PTO_TRAIT_SAME_OPERANDS_TYPE, NONE, NULL, NULL, NULL, NULL, NULL,
     "operands of one type"},
    {"ptotest.same_shape", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0,
     PTO_TRAIT_SAME_OPERANDS_SHAPE, NONE, NULL, NULL, NULL, NULL, NULL,
     "operands of one shape"},
    {"ptotest.side_effect", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0, NONE,
     NULL, NULL, NULL, NULL, NULL, "an op with effects"},
    {"ptotest.pure", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, PURE, NONE, NULL,
     NULL, NULL, NULL, NULL, "an op without effects"},
    {"ptotest.loop", 2, 0, 1, 0,
     PTO_TRAIT_SINGLE_BLOCK | PTO_TRAIT_RECURSIVE_EFFECTS, NONE, verify_loop,
     parse_loop, print_loop, NULL, NULL,
     "a loop with a declared induction variable"},
    {"ptotest.dup", 1, PTO_VARIADIC(0), 0, 0, PURE, NONE, NULL, parse_dup,
     print_dup, NULL, NULL, "copies its operand to every result"},
    {"ptotest.silent_fail", 0, 0, 0, 0, 0, NONE, NULL, parse_silent_fail,
     NULL, NULL, NULL, "a custom form that always fails to parse"},
    {"ptotest.literals", 0, 0, 0, 0, PURE, NONE, verify_literals,
     parse_literals, print_literals, NULL, NULL,
     "keyword, float, string, symbol and integer literals"},
    {"ptotest.untyped_region", 0, 0, 1, 0, PTO_TRAIT_NO_TERMINATOR, NONE, NULL,
     parse_untyped_region, NULL, NULL, NULL,
     "declares a region argument without a type (a hook bug)"},
    {"ptotest.diagnose", 0, 0, 0, 0, 0, NONE, verify_diagnose, NULL, NULL,
     NULL, NULL, "reports a diagnostic while being verified"},
    {"ptotest.neg", 1, 1, 0, 0, PURE, NONE, NULL, NULL, NULL,
     fold_neg, canon_neg, "negation: folds, neg(neg(x)) -> x"},
    {"ptotest.double", 1, 1, 0, 0, PURE, NONE, NULL, NULL, NULL,
     NULL, canon_double, "2*x through two patterns of different benefit"},
    {"ptotest.flip", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0, NONE,
     NULL, NULL, NULL, NULL, canon_flip, "a pattern that never converges"},
    {"ptotest.in_place", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0,
     NONE, NULL, NULL, NULL, fold_in_place, NULL,
     "folds in place until its count is 0"},
    {"ptotest.divmod", 2, 2, 0, 0, PURE, NONE, NULL, NULL, NULL,
     fold_divmod, NULL, "quotient and remainder: folds to two constants"},
    {"ptotest.func", 0, 0, 1, 0,
     PTO_TRAIT_SYMBOL | PTO_TRAIT_ISOLATED_FROM_ABOVE | PTO_TRAIT_IS_FUNCTION,
     NONE, NULL, parse_func, print_func, NULL, NULL,
     "a function"},
    {"ptotest.return", PTO_VARIADIC(0), 0, 0, 0,
     TERM | PURE | PTO_TRAIT_RETURN_LIKE, NONE, NULL, parse_yield,
     print_yield, NULL, NULL, "returns from a ptotest.func"},
    {"ptotest.use_symbol", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, 0,
     NONE, NULL, NULL, NULL, NULL, NULL,
     "refers to symbols through its attributes (has effects)"},
    {"ptotest.pure_region", PTO_VARIADIC(0), PTO_VARIADIC(0), 1, 0,
     PTO_TRAIT_RECURSIVE_EFFECTS, NONE, NULL, NULL, NULL, NULL,
     NULL, "a region op whose effects are those of its body"},
    {"ptotest.vector_op", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, PURE,
     PTO_AFFINITY_VECTOR, NULL, NULL, NULL, NULL, NULL, "runs on vector cores"},
    {"ptotest.cube_op", PTO_VARIADIC(0), PTO_VARIADIC(0), 0, 0, PURE,
     PTO_AFFINITY_CUBE, NULL, NULL, NULL, NULL, NULL, "runs on cube cores"},
    {"ptotest.lossy", 0, 0, 0, 0, 0, NONE, NULL, parse_lossy,
     print_lossy, NULL, NULL, "a printer that loses attributes"},
};

/* `!ptotest.box<T>`: a type wrapping another type; `!ptotest.unit`;
 * `!ptotest.tile<4x8xf32>`: a static shape and an element type. */
static PtoType *parse_test_type(PtoParser *p, const char *mnemonic) {
  PtoContext *ctx = pto_parser_ctx(p);
  if (strcmp(mnemonic, "tile") == 0) {
    int64_t dims[4];
    unsigned rank;
    PtoType *elem;
    if (pto_parser_parse_punct(p, PTO_P_LESS) ||
        pto_parser_parse_dimension_list(p, dims, 4, &rank, false) ||
        pto_parser_parse_type(p, &elem) ||
        pto_parser_parse_punct(p, PTO_P_GREATER))
      return NULL;
    return pto_type_dialect(ctx, "ptotest", "tile", dims, rank, &elem, 1, NULL, 0);
  }
  if (strcmp(mnemonic, "box") == 0) {
    PtoType *inner;
    if (pto_parser_parse_punct(p, PTO_P_LESS) || pto_parser_parse_type(p, &inner) ||
        pto_parser_parse_punct(p, PTO_P_GREATER))
      return NULL;
    return pto_type_dialect(ctx, "ptotest", "box", NULL, 0, &inner, 1, NULL, 0);
  }
  if (strcmp(mnemonic, "unit") == 0)
    return pto_type_dialect(ctx, "ptotest", "unit", NULL, 0, NULL, 0, NULL, 0);
  if (strcmp(mnemonic, "silent") == 0) return NULL; /* no diagnostic */
  pto_parser_error(p, "unknown ptotest type '%s'", mnemonic);
  return NULL;
}

static void print_test_type(PtoPrinter *p, PtoType *t) {
  pto_printer_puts(p, pto_type_dialect_mnemonic(t));
  if (strcmp(pto_type_dialect_mnemonic(t), "tile") == 0) {
    pto_printer_puts(p, "<");
    pto_printer_print_dims(p, pto_type_ints(t), pto_type_num_ints(t));
    pto_printer_print_type(p, pto_type_type_param(t, 0));
    pto_printer_puts(p, ">");
    return;
  }
  if (pto_type_num_types(t)) {
    pto_printer_puts(p, "<");
    pto_printer_print_type(p, pto_type_type_param(t, 0));
    pto_printer_puts(p, ">");
  }
}

/* `#ptotest.pair<1, 2>` */
static PtoAttr *parse_test_attr(PtoParser *p, const char *mnemonic) {
  if (strcmp(mnemonic, "silent") == 0) return NULL; /* no diagnostic */
  if (strcmp(mnemonic, "pair") != 0) {
    pto_parser_error(p, "unknown ptotest attribute '%s'", mnemonic);
    return NULL;
  }
  int64_t v[2];
  if (pto_parser_parse_punct(p, PTO_P_LESS) || pto_parser_parse_integer(p, &v[0]) ||
      pto_parser_parse_punct(p, PTO_P_COMMA) || pto_parser_parse_integer(p, &v[1]) ||
      pto_parser_parse_punct(p, PTO_P_GREATER))
    return NULL;
  return pto_attr_dialect(pto_parser_ctx(p), "ptotest", "pair", v, 2, NULL, 0,
                          NULL, 0);
}

static void print_test_attr(PtoPrinter *p, PtoAttr *a) {
  pto_printer_printf(p, "pair<%lld, %lld>", (long long)pto_attr_ints(a)[0],
                     (long long)pto_attr_ints(a)[1]);
}

static PtoOp *test_materialize(PtoContext *ctx, PtoAttr *value, PtoType *type,
                               PtoLoc *loc) {
  PtoNamedAttr na = {pto_ident_cstr(ctx, "value"), value};
  return pto_op_create_simple(ctx, "ptotest.constant", loc, NULL, 0, &type, 1,
                              &na, 1);
}

/* Interned per context at registration (ContextTest's attribute-name
 * test reads them). */
static const char *const test_attr_names[] = {"value", "label"};

static const PtoDialectDef test_dialect = {
    "ptotest",       test_ops,        sizeof test_ops / sizeof test_ops[0],
    parse_test_type, print_test_type, parse_test_attr,
    print_test_attr, test_materialize, "ops for testing the IR core",
    test_attr_names, 2};

void pto_register_test_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &test_dialect);
}
