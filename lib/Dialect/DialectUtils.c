/* Pieces shared by the dialects: type-aware diagnostics, typed operand
 * lists, scalar type predicates, implicit terminators. */
#include "Dialect/DialectUtils.h"

#include <string.h>

/* Copies the literal text of fmt[start, end) into the diagnostic. */
static void put_span(PtoDiag *d, const char *s, size_t n) {
  if (n) pto_diag_printf(d, "%.*s", (int)n, s);
}

static void vformat(PtoDiag *d, const char *fmt, va_list ap) {
  const char *lit = fmt;
  for (const char *c = fmt; *c; c++) {
    if (*c != '%') continue;
    put_span(d, lit, (size_t)(c - lit));
    c++;
    switch (*c) {
    case 's': pto_diag_printf(d, "%s", va_arg(ap, const char *)); break;
    case 'd': pto_diag_printf(d, "%d", va_arg(ap, int)); break;
    case 'u': pto_diag_printf(d, "%u", va_arg(ap, unsigned)); break;
    case 'T': pto_diag_print_type(d, va_arg(ap, PtoType *)); break;
    case 'A': pto_diag_print_attr(d, va_arg(ap, PtoAttr *)); break;
    case 'l':
      /* only %lld is supported */
      if (c[1] == 'l' && c[2] == 'd') {
        pto_diag_printf(d, "%lld", va_arg(ap, long long));
        c += 2;
      }
      break;
    case '%': pto_diag_printf(d, "%%"); break;
    default: c--; break; /* a lone '%' at the end: print it as is */
    }
    lit = c + 1;
    if (!*c) break;
  }
  put_span(d, lit, strlen(lit));
}

PtoDiag *pto_dialect_op_diag(PtoOp *op, const char *fmt, ...) {
  PtoDiag *d = pto_op_diag(op, PTO_DIAG_ERROR, "%s", "");
  va_list ap;
  va_start(ap, fmt);
  vformat(d, fmt, ap);
  va_end(ap);
  return d;
}

PtoResult pto_dialect_op_error(PtoOp *op, const char *fmt, ...) {
  PtoDiag *d = pto_op_diag(op, PTO_DIAG_ERROR, "%s", "");
  va_list ap;
  va_start(ap, fmt);
  vformat(d, fmt, ap);
  va_end(ap);
  return pto_diag_emit(d);
}

PtoResult pto_dialect_parse_terminator(PtoParser *p, PtoOpState *st) {
  if (pto_parser_parse_optional_attr_dict(p, st)) return PTO_FAILURE;
  PtoUnresolvedOperand *ops;
  unsigned n;
  if (pto_parser_parse_operand_list(p, &ops, &n)) return PTO_FAILURE;
  if (n == 0) return PTO_SUCCESS;
  PtoType **types;
  unsigned nt;
  if (pto_parser_parse_punct(p, PTO_P_COLON) ||
      pto_parser_parse_type_list(p, &types, &nt))
    return PTO_FAILURE;
  return pto_parser_resolve_operands(p, ops, n, types, nt, NULL, st);
}

void pto_dialect_print_terminator(PtoPrinter *p, PtoOp *op) {
  pto_printer_print_attr_dict(p, op, NULL, 0);
  unsigned n = pto_op_num_operands(op);
  if (!n) return;
  pto_printer_puts(p, " ");
  pto_printer_print_operands(p, op, 0, n);
  pto_printer_puts(p, " : ");
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_printer_puts(p, ", ");
    PtoValue *v = pto_op_operand(op, i);
    pto_printer_print_type(p, v ? pto_value_type(v) : NULL);
  }
}

bool pto_type_is_signless_int(const PtoType *t) {
  return t && pto_type_is_integer(t) &&
         pto_type_int_signedness(t) == PTO_SIGNLESS;
}

bool pto_type_is_signless_int_or_index(const PtoType *t) {
  return t && (pto_type_kind(t) == PTO_TYPE_INDEX || pto_type_is_signless_int(t));
}

void pto_dialect_ensure_terminator(PtoContext *ctx, PtoRegion *r,
                                   const char *terminator_name, PtoLoc *loc) {
  if (pto_region_empty(r)) pto_region_push_block(r, pto_block_create(ctx));
  for (PtoBlock *b = pto_region_first_block(r); b; b = pto_block_next(b)) {
    PtoOp *last = pto_block_last_op(b);
    if (last && pto_op_has_trait(last, PTO_TRAIT_TERMINATOR)) continue;
    pto_block_append(b, pto_op_create_simple(ctx, terminator_name, loc, NULL,
                                             0, NULL, 0, NULL, 0));
  }
}

void pto_dialect_print_symbol_call(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  PtoAttr *callee = pto_op_attr(op, "callee");
  if (callee) pto_printer_print_attr(p, callee);
  pto_printer_puts(p, "(");
  pto_printer_print_operands(p, op, 0, pto_op_num_operands(op));
  pto_printer_puts(p, ")");
  static const char *const elided[] = {"callee"};
  pto_printer_print_attr_dict(p, op, elided, 1);
  pto_printer_puts(p, " : (");
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, pto_value_type(pto_op_operand(op, i)));
  }
  pto_printer_puts(p, ")");
}

PtoResult pto_dialect_parse_symbol_call(PtoParser *p, PtoOpState *st,
                                        PtoUnresolvedOperand **ops,
                                        unsigned *n) {
  PtoIdent *callee;
  if (pto_parser_parse_symbol_name(p, &callee) ||
      pto_parser_parse_punct(p, PTO_P_LPAREN) ||
      pto_parser_parse_operand_list(p, ops, n) ||
      pto_parser_parse_punct(p, PTO_P_RPAREN) ||
      pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_punct(p, PTO_P_COLON))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, "callee", pto_attr_symref(st->ctx, callee, NULL, 0));
  return PTO_SUCCESS;
}
