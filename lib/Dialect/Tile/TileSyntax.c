/* Custom assembly of tile ops (grammar in docs/dialects/tile.md). Compute
 * ops use the Tensor level's common form
 *   %r = tile.op operands attr-dict : operand-types [-> result-types]
 * and the GM ops address a window of a tensor:
 *   %t  = tile.view %A[%i, 0] : tensor<..> -> !tile.tile<..>
 *   %A1 = tile.assemble %t into %A[%i, 0] : !tile.tile<..> into tensor<..>
 *   %g  = tile.gather %X[0, 0], %idx {dim = 1 : i64} : tensor<..>, !tile.tile<..> -> !tile.tile<..>
 *   %X1 = tile.scatter %t into %X[0, 0], %idx {dim = 0 : i64} : !tile.tile<..>, !tile.tile<..> into tensor<..> */
#include "Dialect/Common/Syntax.h"
#include "TileInternal.h"

static bool is_window(PtoTileKind k) {
  return k == PTO_TILE_KIND_VIEW || k == PTO_TILE_KIND_ASSEMBLE ||
         k == PTO_TILE_KIND_GATHER || k == PTO_TILE_KIND_INDEX_SELECT ||
         k == PTO_TILE_KIND_SCATTER;
}

static bool has_into(PtoTileKind k) {
  return k == PTO_TILE_KIND_ASSEMBLE || k == PTO_TILE_KIND_SCATTER;
}

static bool has_index(PtoTileKind k) {
  return k == PTO_TILE_KIND_GATHER || k == PTO_TILE_KIND_INDEX_SELECT ||
         k == PTO_TILE_KIND_SCATTER;
}

static PtoResult parse_window(PtoParser *p, PtoOpState *st, PtoTileKind k) {
  PtoUnresolvedOperand a, b, c, dyn[PTO_MAX_RANK];
  int64_t offs[PTO_MAX_RANK];
  unsigned n, ndyn;
  PtoType *ta, *tb = NULL, *tc = NULL;
  bool into = has_into(k), idx = has_index(k);
  if (pto_parser_parse_operand(p, &a)) return PTO_FAILURE;
  if (into && (pto_parser_parse_keyword(p, "into") ||
               pto_parser_parse_operand(p, &b)))
    return PTO_FAILURE;
  if (pto_syntax_parse_offsets(p, offs, &n, dyn, &ndyn)) return PTO_FAILURE;
  if (idx && (pto_parser_parse_punct(p, PTO_P_COMMA) ||
              pto_parser_parse_operand(p, &c)))
    return PTO_FAILURE;
  if (pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &ta))
    return PTO_FAILURE;
  if (idx && (pto_parser_parse_punct(p, PTO_P_COMMA) ||
              pto_parser_parse_type(p, &tc)))
    return PTO_FAILURE;
  if (into ? pto_parser_parse_keyword(p, "into")
           : pto_parser_parse_punct(p, PTO_P_ARROW))
    return PTO_FAILURE;
  if (pto_parser_parse_type(p, &tb) || pto_parser_resolve_operand(p, &a, ta, st) ||
      (into && pto_parser_resolve_operand(p, &b, tb, st)) ||
      (idx && pto_parser_resolve_operand(p, &c, tc, st)) ||
      pto_syntax_resolve_index(p, dyn, ndyn, st))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, "static_offsets",
                        pto_attr_i64_array(st->ctx, offs, n));
  pto_op_state_add_result(st, tb);
  return PTO_SUCCESS;
}

PtoResult tile_parse(PtoParser *p, PtoOpState *st) {
  PtoTileKind k = pto_tile_kind((PtoTileOp)(st->def - tile_op_defs));
  if (is_window(k)) return parse_window(p, st, k);
  bool empty = k == PTO_TILE_KIND_EMPTY;
  return pto_syntax_parse_common(p, st, !empty, empty);
}

static PtoType *operand_type(PtoOp *op, unsigned i) {
  return pto_value_type(pto_op_operand(op, i));
}

/* The custom form needs the operands its syntax spells; anything else
 * (only reachable for ops that do not verify) prints a marker. */
static bool printable(PtoOp *op, PtoTileKind k) {
  unsigned n = pto_op_num_operands(op);
  if (pto_op_num_results(op) == 0) return false;
  if (!is_window(k)) return k == PTO_TILE_KIND_EMPTY || n > 0;
  unsigned first = tile_first_index_operand(k, n);
  unsigned lead = has_into(k) + has_index(k) + 1u;
  PtoAttr *a = pto_op_attr(op, "static_offsets");
  int64_t offs[PTO_MAX_RANK];
  unsigned nofs, ndyn = 0;
  if (n < lead || !pto_attr_get_i64_array(a, offs, PTO_MAX_RANK, &nofs))
    return false;
  for (unsigned i = 0; i < nofs; i++) ndyn += offs[i] == PTO_DYN;
  return ndyn == n - first;
}

static void print_window(PtoPrinter *p, PtoOp *op, PtoTileKind k) {
  static const char *const elided[] = {"static_offsets"};
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_tile_get_offsets(op, offs, dyn);
  bool into = has_into(k), idx = has_index(k);
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  if (into) {
    pto_printer_puts(p, " into ");
    pto_printer_print_operand(p, pto_op_operand(op, 1));
  }
  pto_syntax_print_offsets(p, offs, n, dyn);
  unsigned ix = into ? 2 : 1;
  if (idx) {
    pto_printer_puts(p, ", ");
    pto_printer_print_operand(p, pto_op_operand(op, ix));
  }
  pto_printer_print_attr_dict(p, op, elided, 1);
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, operand_type(op, 0));
  if (idx) {
    pto_printer_puts(p, ", ");
    pto_printer_print_type(p, operand_type(op, ix));
  }
  pto_printer_puts(p, into ? " into " : " -> ");
  pto_printer_print_type(p, pto_value_type(pto_op_result(op, 0)));
}

void tile_print(PtoPrinter *p, PtoOp *op) {
  PtoTileKind k = pto_tile_kind(pto_tile_op_id(op));
  if (!printable(op, k)) {
    /* Keeps the text parseable: the verifier reports the problem. */
    pto_printer_puts(p, " <<invalid tile op; print with --print-generic>>");
    return;
  }
  if (is_window(k)) {
    print_window(p, op, k);
    return;
  }
  unsigned n = pto_op_num_operands(op);
  pto_syntax_print_common(p, op, k == PTO_TILE_KIND_EMPTY ? 0 : n, NULL, 0);
}
