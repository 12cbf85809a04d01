/* Custom assembly of the pto dialect (grammar in docs/dialects/pto.md):
 *   pto.kernel vector @k(%A: tensor<..>, %i: index) { ... }
 *   %t = pto.tload %A[%i, 0] : tensor<..> -> !pto.tile<..>
 *   pto.tstore %t, %A[%i, 0] : !pto.tile<..> into tensor<..>
 *   pto.tprefetch %A[%i, 0] {sizes = [32, 32]} : tensor<..>
 *   %g = pto.tgather_gm %A[0, 0], %ix {dim = 1} : tensor<..>, !pto.tile<..> -> !pto.tile<..>
 *   pto.tscatter_gm %t, %A[0, 0], %ix {dim = 1} : !pto.tile<..>, !pto.tile<..> into tensor<..>
 *   %r = pto.tadd %a, %b : !pto.tile<..>          (the common form)
 *   pto.set_flag MTE2 -> V, 0      pto.pipe_barrier V */
#include "Dialect/Common/Syntax.h"
#include "Dialect/PTO/PTOInternal.h"
#include "pto/Dialect/AttrNames.h"

static PtoPtoKind state_kind(const PtoOpState *st) {
  return pto_pto_op_kind((PtoPtoOp)(st->def - pto_pto_op_defs));
}

static PtoResult parse_pipe(PtoParser *p, PtoOpState *st, const char *attr) {
  PtoParserPos pos = pto_parser_pos(p);
  PtoIdent *name;
  if (pto_parser_parse_any_keyword(p, &name)) return PTO_FAILURE;
  if (pto_pipe_lookup(pto_ident_str(name)) == PTO_PIPE_NONE)
    return pto_parser_error_at(p, pto_parser_pos_loc(p, pos),
                               "unknown pipe '%s' (expected MTE2, MTE1, M, V, "
                               "FIX, MTE3 or S)", pto_ident_str(name));
  pto_op_state_add_attr(st, attr, pto_attr_cstr(st->ctx, pto_ident_str(name)));
  return PTO_SUCCESS;
}

/* `SRC -> DST, event` */
static PtoResult parse_flag(PtoParser *p, PtoOpState *st) {
  int64_t ev;
  if (parse_pipe(p, st, "src_pipe") || pto_parser_parse_punct(p, PTO_P_ARROW) ||
      parse_pipe(p, st, "dst_pipe") || pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_integer(p, &ev))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, "event", pto_attr_i64(st->ctx, ev));
  return pto_parser_parse_optional_attr_dict(p, st);
}

/* tscatter_gm: `%t, %A[offsets], %ix {attrs} : tile, index tile into
 * tensor`, the operands in that order and then the dynamic offsets. */
static PtoResult parse_scatter_gm(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand src, gm, ix, dyn[PTO_MAX_RANK];
  int64_t offs[PTO_MAX_RANK];
  unsigned n, ndyn;
  PtoType *ts, *ti, *tg;
  if (pto_parser_parse_operand(p, &src) || pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_operand(p, &gm) ||
      pto_syntax_parse_offsets(p, offs, &n, dyn, &ndyn) ||
      pto_parser_parse_punct(p, PTO_P_COMMA) || pto_parser_parse_operand(p, &ix) ||
      pto_parser_parse_optional_attr_dict(p, st) || pto_parser_parse_colon_type(p, &ts) ||
      pto_parser_parse_punct(p, PTO_P_COMMA) || pto_parser_parse_type(p, &ti) ||
      pto_parser_parse_keyword(p, "into") || pto_parser_parse_type(p, &tg) ||
      pto_parser_resolve_operand(p, &src, ts, st) ||
      pto_parser_resolve_operand(p, &gm, tg, st) ||
      pto_parser_resolve_operand(p, &ix, ti, st) ||
      pto_syntax_resolve_index(p, dyn, ndyn, st))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, PTO_ATTR_STATIC_OFFSETS, pto_attr_i64_array(st->ctx, offs, n));
  return PTO_SUCCESS;
}

static void print_scatter_gm(PtoPrinter *p, PtoOp *op, const int64_t *offs,
                             PtoValue *const *dyn, unsigned n) {
  static const char *const elided[] = {PTO_ATTR_STATIC_OFFSETS};
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  pto_printer_puts(p, ", ");
  pto_printer_print_operand(p, pto_op_operand(op, 1));
  pto_syntax_print_offsets(p, offs, n, dyn);
  pto_printer_puts(p, ", ");
  pto_printer_print_operand(p, pto_op_operand(op, 2));
  pto_printer_print_attr_dict(p, op, elided, 1);
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 0)));
  pto_printer_puts(p, ", ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 2)));
  pto_printer_puts(p, " into ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 1)));
}

PtoResult pto_pto_parse(PtoParser *p, PtoOpState *st) {
  switch (state_kind(st)) {
  case PTO_PTO_KIND_KERNEL: return pto_dialect_parse_kernel(p, st, "pto.return");
  case PTO_PTO_KIND_RETURN: return pto_parser_parse_optional_attr_dict(p, st);
  case PTO_PTO_KIND_LOAD: return pto_syntax_parse_window(p, st, false, false);
  case PTO_PTO_KIND_STORE: return pto_syntax_parse_gm_window(p, st, true);
  case PTO_PTO_KIND_PREFETCH: return pto_syntax_parse_gm_window(p, st, false);
  case PTO_PTO_KIND_GATHERGM: return pto_syntax_parse_window(p, st, false, true);
  case PTO_PTO_KIND_SCATTERGM: return parse_scatter_gm(p, st);
  case PTO_PTO_KIND_SETFLAG:
  case PTO_PTO_KIND_WAITFLAG: return parse_flag(p, st);
  case PTO_PTO_KIND_BARRIER:
    return parse_pipe(p, st, "pipe") || pto_parser_parse_optional_attr_dict(p, st);
  default: return pto_syntax_parse_common(p, st, true, false);
  }
}

static bool has_str(PtoOp *op, const char *name) {
  return pto_op_attr_str(op, name) != NULL;
}

/* Whether the op has what its custom form spells; anything else (only
 * reachable for ops that do not verify) prints a marker that keeps the
 * text parseable up to the verifier's report. */
static bool printable(PtoOp *op, PtoPtoKind k) {
  unsigned n = pto_op_num_operands(op), nres = pto_op_num_results(op);
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  switch (k) {
  case PTO_PTO_KIND_KERNEL: case PTO_PTO_KIND_RETURN: return true;
  case PTO_PTO_KIND_LOAD: case PTO_PTO_KIND_STORE: case PTO_PTO_KIND_PREFETCH: {
    unsigned lead = k == PTO_PTO_KIND_STORE ? 2 : 1, ndyn = 0;
    unsigned r = pto_pto_get_offsets(op, offs, dyn);
    for (unsigned i = 0; i < r; i++) ndyn += offs[i] == PTO_DYN;
    if (n < lead || n - lead != ndyn) return false;
    return k == PTO_PTO_KIND_LOAD ? nres == 1 : nres == 0;
  }
  case PTO_PTO_KIND_GATHERGM: {
    unsigned ndyn = 0, r = pto_pto_get_offsets(op, offs, dyn);
    for (unsigned i = 0; i < r; i++) ndyn += offs[i] == PTO_DYN;
    return n >= 2 && n - 2 == ndyn && nres == 1;
  }
  case PTO_PTO_KIND_SCATTERGM: {
    unsigned ndyn = 0, r = pto_pto_get_offsets(op, offs, dyn);
    for (unsigned i = 0; i < r; i++) ndyn += offs[i] == PTO_DYN;
    return n >= 3 && n - 3 == ndyn && nres == 0;
  }
  case PTO_PTO_KIND_SETFLAG: case PTO_PTO_KIND_WAITFLAG: {
    PtoAttr *e = pto_op_attr(op, "event");
    return has_str(op, "src_pipe") && has_str(op, "dst_pipe") && e &&
           pto_attr_kind(e) == PTO_ATTR_INTEGER;
  }
  case PTO_PTO_KIND_BARRIER: return has_str(op, "pipe");
  default: return n > 0 && nres > 0;
  }
}

void pto_pto_print(PtoPrinter *p, PtoOp *op) {
  PtoPtoKind k = pto_pto_op_kind(pto_pto_op_id(op));
  if (!printable(op, k)) {
    pto_printer_puts(p, " <<invalid pto op; print with --print-generic>>");
    return;
  }
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  static const char *const flag_attrs[] = {"src_pipe", "dst_pipe", "event"};
  static const char *const barrier_attrs[] = {"pipe"};
  switch (k) {
  case PTO_PTO_KIND_KERNEL: pto_dialect_print_kernel(p, op); return;
  case PTO_PTO_KIND_RETURN: pto_printer_print_attr_dict(p, op, NULL, 0); return;
  case PTO_PTO_KIND_LOAD: {
    unsigned n = pto_pto_get_offsets(op, offs, dyn);
    pto_syntax_print_window(p, op, false, false, offs, dyn, n);
    return;
  }
  case PTO_PTO_KIND_STORE:
  case PTO_PTO_KIND_PREFETCH: {
    unsigned n = pto_pto_get_offsets(op, offs, dyn);
    pto_syntax_print_gm_window(p, op, k == PTO_PTO_KIND_STORE, offs, dyn, n);
    return;
  }
  case PTO_PTO_KIND_GATHERGM: {
    unsigned n = pto_pto_get_offsets(op, offs, dyn);
    pto_syntax_print_window(p, op, false, true, offs, dyn, n);
    return;
  }
  case PTO_PTO_KIND_SCATTERGM: {
    unsigned n = pto_pto_get_offsets(op, offs, dyn);
    print_scatter_gm(p, op, offs, dyn, n);
    return;
  }
  case PTO_PTO_KIND_SETFLAG:
  case PTO_PTO_KIND_WAITFLAG:
    pto_printer_printf(p, " %s -> %s, %lld", pto_op_attr_str(op, "src_pipe"),
                       pto_op_attr_str(op, "dst_pipe"),
                       (long long)pto_attr_int_value(pto_op_attr(op, "event")));
    pto_printer_print_attr_dict(p, op, flag_attrs, 3);
    return;
  case PTO_PTO_KIND_BARRIER:
    pto_printer_printf(p, " %s", pto_op_attr_str(op, "pipe"));
    pto_printer_print_attr_dict(p, op, barrier_attrs, 1);
    return;
  default:
    pto_syntax_print_common(p, op, pto_op_num_operands(op), NULL, 0);
    return;
  }
}
