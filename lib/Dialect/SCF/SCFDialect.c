/* The scf dialect: scf.for, scf.if and scf.yield with MLIR's custom forms
 * (an empty scf.yield is elided when printing and inserted when parsing),
 * their verifiers and registration. Patterns are in SCFCanonicalize.c. */
#include "Dialect/SCF/SCF.h"
#include "Dialect/DialectUtils.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* scf.for                                                              */
/* ------------------------------------------------------------------ */

typedef PTO_VEC(PtoRegionArg) ArgVec;
typedef PTO_VEC(PtoUnresolvedOperand) OperandVec;

/* `%i = %lb to %ub step %s iter_args(%a = %x) -> (t) : i32 {...} {attrs}` */
static PtoResult for_parse(PtoParser *p, PtoOpState *st) {
  PtoContext *ctx = st->ctx;
  ArgVec args = {0};
  OperandVec inits = {0};
  PtoUnresolvedOperand lb, ub, step;
  PtoType **types = NULL;
  unsigned ntypes = 0;
  PtoRegionArg iv;
  PtoResult r = PTO_FAILURE;
  if (pto_parser_parse_region_arg(p, &iv) ||
      pto_parser_parse_punct(p, PTO_P_EQUAL) ||
      pto_parser_parse_operand(p, &lb) || pto_parser_parse_keyword(p, "to") ||
      pto_parser_parse_operand(p, &ub) ||
      pto_parser_parse_keyword(p, "step") || pto_parser_parse_operand(p, &step))
    goto out;
  pto_vec_push(&args, iv);
  if (pto_parser_optional_keyword(p, "iter_args")) {
    PtoParserPos loc = pto_parser_pos(p);
    if (pto_parser_parse_punct(p, PTO_P_LPAREN)) goto out;
    do {
      PtoRegionArg a;
      PtoUnresolvedOperand init;
      if (pto_parser_parse_region_arg(p, &a) ||
          pto_parser_parse_punct(p, PTO_P_EQUAL) ||
          pto_parser_parse_operand(p, &init))
        goto out;
      pto_vec_push(&args, a);
      pto_vec_push(&inits, init);
    } while (pto_parser_optional_punct(p, PTO_P_COMMA));
    if (pto_parser_parse_punct(p, PTO_P_RPAREN) ||
        pto_parser_parse_punct(p, PTO_P_ARROW) ||
        pto_parser_parse_function_result_types(p, &types, &ntypes))
      goto out;
    if (ntypes != inits.len) {
      pto_parser_error_at(p, pto_parser_pos_loc(p, loc), "%u iter_args but %u result types; give one "
                                  "type per loop-carried value",
                          inits.len, ntypes);
      goto out;
    }
  }
  PtoType *bound = pto_type_index(ctx);
  if (pto_parser_optional_punct(p, PTO_P_COLON) &&
      pto_parser_parse_type(p, &bound))
    goto out;
  if (pto_parser_resolve_operand(p, &lb, bound, st) ||
      pto_parser_resolve_operand(p, &ub, bound, st) ||
      pto_parser_resolve_operand(p, &step, bound, st))
    goto out;
  for (unsigned i = 0; i < inits.len; i++)
    if (pto_parser_resolve_operand(p, &inits.data[i], types[i], st)) goto out;
  args.data[0].type = bound;
  for (unsigned i = 0; i < ntypes; i++) args.data[i + 1].type = types[i];
  PtoRegion *body = pto_op_state_add_region(st);
  PtoLoc *loc = pto_parser_loc(p);
  if (pto_parser_parse_region(p, body, args.data, args.len)) goto out;
  pto_dialect_ensure_terminator(ctx, body, "scf.yield", loc);
  if (pto_parser_parse_optional_attr_dict(p, st)) goto out;
  pto_op_state_add_results(st, types, ntypes);
  r = PTO_SUCCESS;
out:
  pto_vec_free(&args);
  pto_vec_free(&inits);
  return r;
}

PtoBlock *pto_scf_for_body(const PtoOp *op) {
  return pto_region_first_block(pto_op_region(op, 0));
}
PtoValue *pto_scf_for_lower(const PtoOp *op) { return pto_op_operand(op, 0); }
PtoValue *pto_scf_for_upper(const PtoOp *op) { return pto_op_operand(op, 1); }
PtoValue *pto_scf_for_step(const PtoOp *op) { return pto_op_operand(op, 2); }
unsigned pto_scf_for_num_iter_args(const PtoOp *op) {
  return pto_op_num_operands(op) - 3;
}
PtoValue *pto_scf_for_init(const PtoOp *op, unsigned i) {
  return pto_op_operand(op, 3 + i);
}
PtoValue *pto_scf_for_iv(const PtoOp *op) {
  PtoBlock *b = pto_scf_for_body(op);
  return b && pto_block_num_args(b) ? pto_block_arg(b, 0) : NULL;
}
PtoValue *pto_scf_for_iter_arg(const PtoOp *op, unsigned i) {
  PtoBlock *b = pto_scf_for_body(op);
  return b && i + 1 < pto_block_num_args(b) ? pto_block_arg(b, i + 1) : NULL;
}

static void for_print(PtoPrinter *p, PtoOp *op) {
  PtoBlock *body = pto_scf_for_body(op);
  unsigned n = pto_scf_for_num_iter_args(op);
  bool well_formed = body && pto_block_num_args(body) == n + 1;
  pto_printer_puts(p, " ");
  if (well_formed)
    pto_printer_print_operand(p, pto_scf_for_iv(op));
  else
    pto_printer_puts(p, "<<malformed scf.for body>>");
  pto_printer_puts(p, " = ");
  pto_printer_print_operand(p, pto_scf_for_lower(op));
  pto_printer_puts(p, " to ");
  pto_printer_print_operand(p, pto_scf_for_upper(op));
  pto_printer_puts(p, " step ");
  pto_printer_print_operand(p, pto_scf_for_step(op));
  if (n) {
    pto_printer_puts(p, " iter_args(");
    for (unsigned i = 0; i < n; i++) {
      if (i) pto_printer_puts(p, ", ");
      if (well_formed) pto_printer_print_operand(p, pto_scf_for_iter_arg(op, i));
      pto_printer_puts(p, " = ");
      pto_printer_print_operand(p, pto_scf_for_init(op, i));
    }
    pto_printer_puts(p, ") -> (");
    for (unsigned i = 0; i < pto_op_num_results(op); i++) {
      if (i) pto_printer_puts(p, ", ");
      pto_printer_print_type(p, pto_value_type(pto_op_result(op, i)));
    }
    pto_printer_puts(p, ")");
  }
  PtoType *bound = pto_value_type(pto_scf_for_lower(op));
  if (pto_type_kind(bound) != PTO_TYPE_INDEX) {
    pto_printer_puts(p, " : ");
    pto_printer_print_type(p, bound);
  }
  pto_printer_puts(p, " ");
  pto_printer_print_region(p, pto_op_region(op, 0), false, n != 0);
  pto_printer_print_attr_dict(p, op, NULL, 0);
}

/* The region's single block must end in scf.yield. */
static PtoResult check_yield_terminated(PtoOp *op, PtoBlock *b,
                                        const char *what) {
  PtoOp *last = pto_block_last_op(b);
  if (!last)
    return pto_op_emit_error(op, "expects the %s to end with 'scf.yield', but "
                                 "it is empty",
                             what);
  if (!pto_op_is(last, "scf.yield"))
    return pto_op_emit_error(op, "expects the %s to end with 'scf.yield', but "
                                 "found '%s'",
                             what, pto_op_name_str(last));
  return PTO_SUCCESS;
}

static PtoResult for_verify(PtoOp *op) {
  PtoType *lb = pto_value_type(pto_scf_for_lower(op));
  PtoType *ub = pto_value_type(pto_scf_for_upper(op));
  PtoType *st = pto_value_type(pto_scf_for_step(op));
  if (!pto_type_is_signless_int_or_index(lb))
    return pto_dialect_op_error(op, "lower bound must be index or a signless "
                                    "integer, but got '%T'",
                                lb);
  if (lb != ub || lb != st)
    return pto_dialect_op_error(op, "lower bound, upper bound and step must "
                                    "have the same type, but got '%T', '%T' "
                                    "and '%T'",
                                lb, ub, st);
  /* A step that is not positive is not checked here: folding can make one
   * out of a valid loop (`step (%c1 - %c1)`), in code that may never run,
   * and a verifier only checks the op itself (MLIR dropped this rule too).
   * Such a loop is undefined if it runs; passes leave it alone. */
  unsigned n = pto_scf_for_num_iter_args(op);
  if (pto_op_num_results(op) != n)
    return pto_op_emit_error(op, "mismatch in number of loop-carried values "
                                 "and defined values: %u iter operands, %u "
                                 "results",
                             n, pto_op_num_results(op));
  PtoBlock *body = pto_scf_for_body(op);
  if (!body)
    return pto_op_emit_error(op, "expects a body region with one block");
  if (pto_block_num_args(body) != n + 1)
    return pto_op_emit_error(op, "expects the body to have %u arguments (the "
                                 "induction variable and %u loop-carried "
                                 "values), but it has %u",
                             n + 1, n, pto_block_num_args(body));
  if (pto_value_type(pto_scf_for_iv(op)) != lb)
    return pto_dialect_op_error(op, "expected induction variable to be same "
                                    "type as bounds and step, but got '%T' "
                                    "and '%T'",
                                pto_value_type(pto_scf_for_iv(op)), lb);
  for (unsigned i = 0; i < n; i++) {
    PtoType *it = pto_value_type(pto_scf_for_init(op, i));
    PtoType *rt = pto_value_type(pto_op_result(op, i));
    PtoType *at = pto_value_type(pto_scf_for_iter_arg(op, i));
    if (it != rt)
      return pto_dialect_op_error(op, "types mismatch between iter operand #%u "
                                      "('%T') and result #%u ('%T')",
                                  i, it, i, rt);
    if (at != rt)
      return pto_dialect_op_error(op, "types mismatch between body argument "
                                      "#%u ('%T') and result #%u ('%T')",
                                  i + 1, at, i, rt);
  }
  return check_yield_terminated(op, body, "body");
}

/* ------------------------------------------------------------------ */
/* scf.if                                                               */
/* ------------------------------------------------------------------ */

/* `scf.if %c -> (t) { ... } else { ... } {attrs}` */
static PtoResult if_parse(PtoParser *p, PtoOpState *st) {
  PtoContext *ctx = st->ctx;
  PtoUnresolvedOperand c;
  if (pto_parser_parse_operand(p, &c) ||
      pto_parser_resolve_operand(p, &c, pto_type_int(ctx, 1), st))
    return PTO_FAILURE;
  if (pto_parser_optional_punct(p, PTO_P_ARROW)) {
    PtoType **types;
    unsigned n;
    if (pto_parser_parse_function_result_types(p, &types, &n))
      return PTO_FAILURE;
    pto_op_state_add_results(st, types, n);
  }
  PtoRegion *then_r = pto_op_state_add_region(st);
  PtoRegion *else_r = pto_op_state_add_region(st);
  PtoLoc *loc = pto_parser_loc(p);
  if (pto_parser_parse_region(p, then_r, NULL, 0)) return PTO_FAILURE;
  pto_dialect_ensure_terminator(ctx, then_r, "scf.yield", loc);
  if (pto_parser_optional_keyword(p, "else")) {
    loc = pto_parser_loc(p);
    if (pto_parser_parse_region(p, else_r, NULL, 0)) return PTO_FAILURE;
    pto_dialect_ensure_terminator(ctx, else_r, "scf.yield", loc);
  }
  return pto_parser_parse_optional_attr_dict(p, st);
}

static void if_print(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  unsigned n = pto_op_num_results(op);
  if (n) {
    pto_printer_puts(p, " -> (");
    for (unsigned i = 0; i < n; i++) {
      if (i) pto_printer_puts(p, ", ");
      pto_printer_print_type(p, pto_value_type(pto_op_result(op, i)));
    }
    pto_printer_puts(p, ")");
  }
  pto_printer_puts(p, " ");
  pto_printer_print_region(p, pto_op_region(op, 0), false, n != 0);
  PtoRegion *else_r = pto_op_region(op, 1);
  if (!pto_region_empty(else_r)) {
    pto_printer_puts(p, " else ");
    pto_printer_print_region(p, else_r, false, n != 0);
  }
  pto_printer_print_attr_dict(p, op, NULL, 0);
}

static PtoResult check_if_region(PtoOp *op, unsigned i, const char *what) {
  PtoBlock *b = pto_region_first_block(pto_op_region(op, i));
  if (!b) return PTO_SUCCESS;
  if (pto_block_num_args(b))
    return pto_op_emit_error(op, "expects the %s to have no arguments", what);
  return check_yield_terminated(op, b, what);
}

static PtoResult if_verify(PtoOp *op) {
  PtoType *ct = pto_value_type(pto_op_operand(op, 0));
  if (ct != pto_type_int(pto_op_ctx(op), 1))
    return pto_dialect_op_error(op, "operand #0 (the condition) must be i1, "
                                    "but got '%T'",
                                ct);
  if (pto_region_empty(pto_op_region(op, 0)))
    return pto_op_emit_error(op, "expects a 'then' region with one block");
  if (pto_op_num_results(op) && pto_region_empty(pto_op_region(op, 1)))
    return pto_op_emit_error(op, "must have an else block if defining values");
  if (check_if_region(op, 0, "'then' region") ||
      check_if_region(op, 1, "'else' region"))
    return PTO_FAILURE;
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* scf.yield                                                            */
/* ------------------------------------------------------------------ */

static PtoResult yield_verify(PtoOp *op) {
  PtoOp *parent = pto_op_parent_op(op);
  bool is_for = parent && pto_op_is(parent, "scf.for");
  if (!parent || (!is_for && !pto_op_is(parent, "scf.if")))
    return pto_op_emit_error(op, "expects parent op to be one of 'scf.for, "
                                 "scf.if'");
  const char *what = is_for ? "loop-carried value" : "result";
  unsigned n = pto_op_num_operands(op), expected = pto_op_num_results(parent);
  if (n != expected)
    return pto_op_emit_error(op, "has %u operands, but the enclosing '%s' has "
                                 "%u %s%s",
                             n, pto_op_name_str(parent), expected, what,
                             expected == 1 ? "" : "s");
  for (unsigned i = 0; i < n; i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    PtoType *want = pto_value_type(pto_op_result(parent, i));
    if (t != want)
      return pto_dialect_op_error(op, "type of operand #%u ('%T') does not "
                                      "match the type of %s #%u ('%T') of the "
                                      "enclosing '%s'",
                                  i, t, what, i, want, pto_op_name_str(parent));
  }
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

#define SCF_CANON(name) pto_scf_canon_##name

#define PTO_OP PTO_OPDEF_ROW
static const PtoOpDef scf_ops[SCF_NUM_OPS] = {
#include "Dialect/SCF/SCFOps.def"
};
#undef PTO_OP

static const PtoDialectDef scf_dialect = {
    "scf", scf_ops, SCF_NUM_OPS, NULL, NULL, NULL, NULL, NULL,
    "structured control flow: counted loops and conditionals", NULL, 0};

void pto_register_scf_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &scf_dialect);
}
