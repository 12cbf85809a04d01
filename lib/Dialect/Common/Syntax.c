/* Custom-assembly pieces shared by the dialects of the Tensor, Tile,
 * Block and PTO levels (see Syntax.h). */
#include "Dialect/Common/Syntax.h"
#include "pto/Dialect/AttrNames.h"

PtoResult pto_syntax_parse_offsets(PtoParser *p, int64_t *offs, unsigned *n,
                                   PtoUnresolvedOperand *dyn, unsigned *ndyn) {
  *n = *ndyn = 0;
  if (pto_parser_parse_punct(p, PTO_P_LSQUARE)) return PTO_FAILURE;
  if (pto_parser_optional_punct(p, PTO_P_RSQUARE)) return PTO_SUCCESS;
  do {
    if (*n == PTO_MAX_RANK)
      return pto_parser_error(p, "at most %u offsets are supported",
                              PTO_MAX_RANK);
    PtoResult st;
    int64_t v;
    if (pto_parser_optional_integer(p, &v, &st)) {
      if (st) return st;
      if (v == PTO_DYN) return pto_parser_error(p, "offset out of range");
      offs[(*n)++] = v;
    } else if (pto_parser_optional_operand(p, &dyn[*ndyn], &st)) {
      if (st) return st;
      (*ndyn)++;
      offs[(*n)++] = PTO_DYN;
    } else {
      return pto_parser_error(p, "expected an integer offset or an index value");
    }
  } while (pto_parser_optional_punct(p, PTO_P_COMMA));
  return pto_parser_parse_punct(p, PTO_P_RSQUARE);
}

void pto_syntax_print_offsets(PtoPrinter *p, const int64_t *offs, unsigned n,
                              PtoValue *const *dyn) {
  pto_printer_puts(p, "[");
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_printer_puts(p, ", ");
    if (dyn && dyn[i]) pto_printer_print_operand(p, dyn[i]);
    else pto_printer_print_int(p, offs[i]);
  }
  pto_printer_puts(p, "]");
}

PtoResult pto_syntax_resolve_index(PtoParser *p, const PtoUnresolvedOperand *u,
                                   unsigned n, PtoOpState *st) {
  PtoType *idx = pto_type_index(st->ctx);
  for (unsigned i = 0; i < n; i++)
    if (pto_parser_resolve_operand(p, &u[i], idx, st)) return PTO_FAILURE;
  return PTO_SUCCESS;
}

PtoResult pto_syntax_parse_window(PtoParser *p, PtoOpState *st, bool into,
                                  bool index) {
  PtoUnresolvedOperand a, b, c, dyn[PTO_MAX_RANK];
  int64_t offs[PTO_MAX_RANK];
  unsigned n, ndyn;
  PtoType *ta, *tb = NULL, *tc = NULL;
  if (pto_parser_parse_operand(p, &a)) return PTO_FAILURE;
  if (into && (pto_parser_parse_keyword(p, "into") ||
               pto_parser_parse_operand(p, &b)))
    return PTO_FAILURE;
  if (pto_syntax_parse_offsets(p, offs, &n, dyn, &ndyn)) return PTO_FAILURE;
  if (index && (pto_parser_parse_punct(p, PTO_P_COMMA) ||
                pto_parser_parse_operand(p, &c)))
    return PTO_FAILURE;
  if (pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &ta))
    return PTO_FAILURE;
  if (index && (pto_parser_parse_punct(p, PTO_P_COMMA) ||
                pto_parser_parse_type(p, &tc)))
    return PTO_FAILURE;
  if (into ? pto_parser_parse_keyword(p, "into")
           : pto_parser_parse_punct(p, PTO_P_ARROW))
    return PTO_FAILURE;
  if (pto_parser_parse_type(p, &tb) || pto_parser_resolve_operand(p, &a, ta, st) ||
      (into && pto_parser_resolve_operand(p, &b, tb, st)) ||
      (index && pto_parser_resolve_operand(p, &c, tc, st)) ||
      pto_syntax_resolve_index(p, dyn, ndyn, st))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, PTO_ATTR_STATIC_OFFSETS,
                        pto_attr_i64_array(st->ctx, offs, n));
  pto_op_state_add_result(st, tb);
  return PTO_SUCCESS;
}

void pto_syntax_print_window(PtoPrinter *p, PtoOp *op, bool into, bool index,
                             const int64_t *offs, PtoValue *const *dyn,
                             unsigned n) {
  static const char *const elided[] = {PTO_ATTR_STATIC_OFFSETS};
  unsigned ix = into ? 2 : 1;
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  if (into) {
    pto_printer_puts(p, " into ");
    pto_printer_print_operand(p, pto_op_operand(op, 1));
  }
  pto_syntax_print_offsets(p, offs, n, dyn);
  if (index) {
    pto_printer_puts(p, ", ");
    pto_printer_print_operand(p, pto_op_operand(op, ix));
  }
  pto_printer_print_attr_dict(p, op, elided, 1);
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 0)));
  if (index) {
    pto_printer_puts(p, ", ");
    pto_printer_print_type(p, pto_value_type(pto_op_operand(op, ix)));
  }
  pto_printer_puts(p, into ? " into " : " -> ");
  pto_printer_print_type(p, pto_value_type(pto_op_result(op, 0)));
}

PtoResult pto_syntax_parse_gm_window(PtoParser *p, PtoOpState *st,
                                     bool tile) {
  PtoUnresolvedOperand buf, dst, dyn[PTO_MAX_RANK];
  int64_t offs[PTO_MAX_RANK];
  unsigned n, ndyn;
  PtoType *tb = NULL, *tt;
  if ((tile && (pto_parser_parse_operand(p, &buf) ||
                pto_parser_parse_punct(p, PTO_P_COMMA))) ||
      pto_parser_parse_operand(p, &dst) ||
      pto_syntax_parse_offsets(p, offs, &n, dyn, &ndyn) ||
      pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_punct(p, PTO_P_COLON))
    return PTO_FAILURE;
  if (tile && (pto_parser_parse_type(p, &tb) ||
               pto_parser_parse_keyword(p, "into")))
    return PTO_FAILURE;
  if (pto_parser_parse_type(p, &tt) ||
      (tile && pto_parser_resolve_operand(p, &buf, tb, st)) ||
      pto_parser_resolve_operand(p, &dst, tt, st) ||
      pto_syntax_resolve_index(p, dyn, ndyn, st))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, PTO_ATTR_STATIC_OFFSETS,
                        pto_attr_i64_array(st->ctx, offs, n));
  return PTO_SUCCESS;
}

void pto_syntax_print_gm_window(PtoPrinter *p, PtoOp *op, bool tile,
                                const int64_t *offs, PtoValue *const *dyn,
                                unsigned n) {
  static const char *const elided[] = {PTO_ATTR_STATIC_OFFSETS};
  unsigned t = tile ? 1 : 0;
  pto_printer_puts(p, " ");
  if (tile) {
    pto_printer_print_operand(p, pto_op_operand(op, 0));
    pto_printer_puts(p, ", ");
  }
  pto_printer_print_operand(p, pto_op_operand(op, t));
  pto_syntax_print_offsets(p, offs, n, dyn);
  pto_printer_print_attr_dict(p, op, elided, 1);
  pto_printer_puts(p, " : ");
  if (tile) {
    pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 0)));
    pto_printer_puts(p, " into ");
  }
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, t)));
}

/* Optional `(` %size, ... `)`. */
static PtoResult parse_sizes(PtoParser *p, PtoUnresolvedOperand **u,
                             unsigned *n) {
  *n = 0;
  if (!pto_parser_optional_punct(p, PTO_P_LPAREN)) return PTO_SUCCESS;
  if (pto_parser_parse_operand_list(p, u, n)) return PTO_FAILURE;
  return pto_parser_parse_punct(p, PTO_P_RPAREN);
}

PtoResult pto_syntax_parse_common(PtoParser *p, PtoOpState *st, bool main,
                                  bool sizes) {
  PtoUnresolvedOperand *ops = NULL, *sz = NULL;
  unsigned nops = 0, nsz = 0;
  if (main && pto_parser_parse_operand_list(p, &ops, &nops)) return PTO_FAILURE;
  if (sizes && parse_sizes(p, &sz, &nsz)) return PTO_FAILURE;
  if (pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_punct(p, PTO_P_COLON))
    return PTO_FAILURE;
  if (!main) {
    PtoType *t;
    if (pto_parser_parse_type(p, &t) || pto_syntax_resolve_index(p, sz, nsz, st))
      return PTO_FAILURE;
    pto_op_state_add_result(st, t);
    return PTO_SUCCESS;
  }
  PtoParserPos tpos = pto_parser_pos(p);
  PtoType **types, **res = NULL;
  unsigned ntypes, nres = 0;
  if (pto_parser_parse_type_list(p, &types, &ntypes)) return PTO_FAILURE;
  if (pto_parser_optional_punct(p, PTO_P_ARROW) &&
      pto_parser_parse_type_list(p, &res, &nres))
    return PTO_FAILURE;
  if (ntypes != nops && !(ntypes == 1 && nops > 1))
    return pto_parser_error_at(p, pto_parser_pos_loc(p, tpos),
                               "expected %u operand types, got %u", nops,
                               ntypes);
  for (unsigned i = 0; i < nops; i++)
    if (pto_parser_resolve_operand(p, &ops[i], types[ntypes == 1 ? 0 : i], st))
      return PTO_FAILURE;
  if (pto_syntax_resolve_index(p, sz, nsz, st)) return PTO_FAILURE;
  if (nres) pto_op_state_add_results(st, res, nres);
  else pto_op_state_add_result(st, types[0]);
  return PTO_SUCCESS;
}

static bool is_scalar(PtoType *t) {
  PtoTypeKind k = pto_type_kind(t);
  return k == PTO_TYPE_INTEGER || k == PTO_TYPE_FLOAT || k == PTO_TYPE_INDEX;
}

void pto_syntax_print_common(PtoPrinter *p, PtoOp *op, unsigned m,
                             const char *const *elided, unsigned nelided) {
  unsigned n = pto_op_num_operands(op), nres = pto_op_num_results(op);
  if (m) {
    pto_printer_puts(p, " ");
    pto_printer_print_operands(p, op, 0, m);
  }
  if (n > m) {
    pto_printer_puts(p, " (");
    pto_printer_print_operands(p, op, m, n - m);
    pto_printer_puts(p, ")");
  }
  pto_printer_print_attr_dict(p, op, elided, nelided);
  pto_printer_puts(p, " : ");
  if (!m) {
    pto_printer_print_type(p, pto_value_type(pto_op_result(op, 0)));
    return;
  }
  PtoType *t0 = pto_value_type(pto_op_operand(op, 0));
  bool same = true;
  for (unsigned i = 1; i < m; i++)
    same &= pto_value_type(pto_op_operand(op, i)) == t0;
  for (unsigned i = 0; i < (same ? 1 : m); i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, pto_value_type(pto_op_operand(op, i)));
  }
  /* `-> type` is implied when the only result has the type of every
   * non-scalar main operand (`add` without broadcasting, `muls`). */
  bool implied = nres == 1 && pto_value_type(pto_op_result(op, 0)) == t0;
  for (unsigned i = 1; i < m && implied; i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    implied = is_scalar(t) || t == t0;
  }
  if (implied) return;
  pto_printer_puts(p, " -> ");
  for (unsigned i = 0; i < nres; i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, pto_value_type(pto_op_result(op, i)));
  }
}
