/* Custom assembly of tile ops (grammar in docs/dialects/tile.md). Compute
 * ops use the Tensor level's common form
 *   %r = tile.op operands attr-dict : operand-types [-> result-types]
 * and the GM ops address a window of a tensor:
 *   %t  = tile.view %A[%i, 0] : tensor<..> -> !tile.tile<..>
 *   %s  = tile.load_scalar %A[%i, 0] : tensor<..> -> index
 *   %A1 = tile.assemble %t into %A[%i, 0] : !tile.tile<..> into tensor<..>
 *   %g  = tile.gather %X[0, 0], %idx {dim = 1 : i64} : tensor<..>, !tile.tile<..> -> !tile.tile<..>
 *   %X1 = tile.scatter %t into %X[0, 0], %idx {dim = 0 : i64} : !tile.tile<..>, !tile.tile<..> into tensor<..> */
#include "Dialect/Common/Syntax.h"
#include "pto/Dialect/AttrNames.h"
#include "TileInternal.h"

static bool is_window(PtoTileKind k) {
  return k == PTO_TILE_KIND_VIEW || k == PTO_TILE_KIND_ASSEMBLE ||
         k == PTO_TILE_KIND_GATHER || k == PTO_TILE_KIND_INDEX_SELECT ||
         k == PTO_TILE_KIND_SCATTER || k == PTO_TILE_KIND_LOAD_SCALAR;
}

static bool has_into(PtoTileKind k) {
  return k == PTO_TILE_KIND_ASSEMBLE || k == PTO_TILE_KIND_SCATTER;
}

static bool has_index(PtoTileKind k) {
  return k == PTO_TILE_KIND_GATHER || k == PTO_TILE_KIND_INDEX_SELECT ||
         k == PTO_TILE_KIND_SCATTER;
}

PtoResult tile_parse(PtoParser *p, PtoOpState *st) {
  PtoTileKind k = pto_tile_kind((PtoTileOp)(st->def - tile_op_defs));
  if (is_window(k)) return pto_syntax_parse_window(p, st, has_into(k), has_index(k));
  bool empty = k == PTO_TILE_KIND_EMPTY;
  return pto_syntax_parse_common(p, st, !empty && k != PTO_TILE_KIND_RANDOM, empty);
}

/* The custom form needs the operands its syntax spells; anything else
 * (only reachable for ops that do not verify) prints a marker. */
static bool printable(PtoOp *op, PtoTileKind k) {
  unsigned n = pto_op_num_operands(op);
  if (pto_op_num_results(op) == 0) return false;
  if (!is_window(k))
    return k == PTO_TILE_KIND_EMPTY || k == PTO_TILE_KIND_RANDOM || n > 0;
  unsigned first = tile_first_index_operand(k, n);
  unsigned lead = has_into(k) + has_index(k) + 1u;
  PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_STATIC_OFFSETS);
  int64_t offs[PTO_MAX_RANK];
  unsigned nofs, ndyn = 0;
  if (n < lead || !pto_attr_get_i64_array(a, offs, PTO_MAX_RANK, &nofs))
    return false;
  for (unsigned i = 0; i < nofs; i++) ndyn += offs[i] == PTO_DYN;
  return ndyn == n - first;
}

void tile_print(PtoPrinter *p, PtoOp *op) {
  PtoTileKind k = pto_tile_kind(pto_tile_op_id(op));
  if (!printable(op, k)) {
    /* Keeps the text parseable: the verifier reports the problem. */
    pto_printer_puts(p, " <<invalid tile op; print with --print-generic>>");
    return;
  }
  if (is_window(k)) {
    int64_t offs[PTO_MAX_RANK];
    PtoValue *dyn[PTO_MAX_RANK];
    unsigned n = pto_tile_get_offsets(op, offs, dyn);
    pto_syntax_print_window(p, op, has_into(k), has_index(k), offs, dyn, n);
    return;
  }
  unsigned n = pto_op_num_operands(op);
  pto_syntax_print_common(p, op, k == PTO_TILE_KIND_EMPTY ? 0 : n, NULL, 0);
}
