/* Moves between global memory and on-chip buffers (block.load, block.store,
 * inside kernels) and GM workspaces (block.workspace, in the host
 * function). */
#include "Dialect/Block/BlockInternal.h"

#include "Dialect/Common/Syntax.h"
#include "pto/Dialect/Tile.h"

#include <string.h>

/* The window of `buf` at the op's offsets must lie in `tensor`: the
 * buffer placed as a tile is in a tensor, one offset per tensor dim, static offsets inside static dims. `first_dyn` is the
 * first dynamic-offset operand. */
static PtoResult check_window(PtoOp *op, PtoType *buf, PtoType *tensor,
                              unsigned first_dyn) {
  if (!pto_type_is_tensor(tensor))
    return pto_dialect_op_error(op, "expects a GM tensor, got '%T'", tensor);
  if (pto_tile_elem(buf) != pto_type_tensor_elem(tensor))
    return pto_dialect_op_error(op, "buffer '%T' and tensor '%T' have "
                                    "different element types",
                                buf, tensor);
  unsigned rank = pto_type_tensor_rank(tensor);
  /* placed as a tile is (pto_tile_window_shape): trailing dims aligned */
  int64_t win[PTO_MAX_RANK], wn = 1;
  pto_tile_window_shape(buf, rank, win);
  for (unsigned d = 0; d < rank; d++) wn *= win[d];
  if (wn != pto_tile_numel(buf))
    return pto_dialect_op_error(op, "buffer '%T' is no window of a tensor of "
                                    "rank %u: its dims before the tensor's "
                                    "trailing ones must be 1",
                                buf, rank);
  int64_t offs[PTO_MAX_RANK];
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_attr(op, "static_offsets"), offs,
                              PTO_MAX_RANK, &n) ||
      n != rank)
    return pto_op_emit_error(op, "requires 'static_offsets' with one offset "
                                 "per tensor dim (%u)", rank);
  unsigned ndyn = 0;
  for (unsigned d = 0; d < rank; d++) {
    int64_t dim = pto_type_tensor_dim(tensor, d), size = win[d];
    if (offs[d] == PTO_DYN) {
      ndyn++;
      if (dim != PTO_DYN && size > dim)
        return pto_op_emit_error(op, "the buffer's dim %u (%lld) is larger "
                                     "than the tensor's (%lld)",
                                 d, (long long)size, (long long)dim);
      continue;
    }
    if (offs[d] < 0 || (dim != PTO_DYN && offs[d] + size > dim))
      return pto_op_emit_error(op, "window [%lld, %lld) of dim %u is outside "
                                   "the tensor (size %lld)",
                               (long long)offs[d], (long long)(offs[d] + size),
                               d, (long long)dim);
  }
  unsigned nops = pto_op_num_operands(op);
  if (nops - first_dyn != ndyn)
    return pto_op_emit_error(op, "has %u dynamic offsets but %u index "
                                 "operands for them",
                             ndyn, nops - first_dyn);
  for (unsigned i = first_dyn; i < nops; i++)
    if (pto_type_kind(pto_value_type(pto_op_operand(op, i))) != PTO_TYPE_INDEX)
      return pto_dialect_op_error(op, "offset operand #%u must be an index, "
                                      "got '%T'",
                                  i, pto_value_type(pto_op_operand(op, i)));
  return PTO_SUCCESS;
}

static PtoResult require_kernel(PtoOp *op) {
  if (!block_enclosing_kernel(op))
    return pto_op_emit_error(op, "must be inside a 'block.kernel'");
  return PTO_SUCCESS;
}

unsigned pto_block_get_offsets(const PtoOp *op, int64_t *offs,
                               PtoValue **dyn) {
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_attr(op, "static_offsets"), offs,
                              PTO_MAX_RANK, &n))
    return 0;
  /* the dynamic offsets follow the load's tensor, the store's two operands */
  unsigned next = pto_op_is(op, "block.store") ? 2 : 1;
  for (unsigned i = 0; i < n; i++) {
    dyn[i] = NULL;
    if (offs[i] == PTO_DYN && next < pto_op_num_operands(op))
      dyn[i] = pto_op_operand(op, next++);
  }
  return n;
}

/* ------------------------------------------------------------------ */
/* block.load: %b = block.load %A[%i, 0] : tensor<..> -> !block.buf<..> */
/* ------------------------------------------------------------------ */

PtoResult load_parse(PtoParser *p, PtoOpState *st) {
  return pto_syntax_parse_window(p, st, false, false);
}

void load_print(PtoPrinter *p, PtoOp *op) {
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_block_get_offsets(op, offs, dyn);
  pto_syntax_print_window(p, op, false, false, offs, dyn, n);
}

/* A load or store: `buf` (named `what` in messages) moves to or from
 * operand #tensor, inside a kernel. */
static PtoResult verify_move(PtoOp *op, PtoType *buf, const char *what,
                             unsigned tensor) {
  if (!pto_type_is_block_buf(buf))
    return pto_dialect_op_error(op, "%s must be an on-chip buffer "
                                    "('!block.buf'), got '%T'",
                                what, buf);
  return require_kernel(op) ||
         check_window(op, buf, pto_value_type(pto_op_operand(op, tensor)),
                      tensor + 1);
}

PtoResult load_verify(PtoOp *op) {
  return verify_move(op, pto_value_type(pto_op_result(op, 0)), "result", 0);
}

/* ------------------------------------------------------------------ */
/* block.store: block.store %b, %T[%i, 0] : !block.buf<..> into tensor<..> */
/* ------------------------------------------------------------------ */

PtoResult store_parse(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand buf, dst, dyn[PTO_MAX_RANK];
  int64_t offs[PTO_MAX_RANK];
  unsigned n, ndyn;
  PtoType *tb, *tt;
  if (pto_parser_parse_operand(p, &buf) ||
      pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_operand(p, &dst) ||
      pto_syntax_parse_offsets(p, offs, &n, dyn, &ndyn) ||
      pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &tb) ||
      pto_parser_parse_keyword(p, "into") || pto_parser_parse_type(p, &tt) ||
      pto_parser_resolve_operand(p, &buf, tb, st) ||
      pto_parser_resolve_operand(p, &dst, tt, st) ||
      pto_syntax_resolve_index(p, dyn, ndyn, st))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, "static_offsets",
                        pto_attr_i64_array(st->ctx, offs, n));
  return PTO_SUCCESS;
}

void store_print(PtoPrinter *p, PtoOp *op) {
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_block_get_offsets(op, offs, dyn);
  static const char *const elided[] = {"static_offsets"};
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  pto_printer_puts(p, ", ");
  pto_printer_print_operand(p, pto_op_operand(op, 1));
  pto_syntax_print_offsets(p, offs, n, dyn);
  pto_printer_print_attr_dict(p, op, elided, 1);
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 0)));
  pto_printer_puts(p, " into ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 1)));
}

PtoResult store_verify(PtoOp *op) {
  return verify_move(op, pto_value_type(pto_op_operand(op, 0)), "operand #0",
                     1);
}

/* ------------------------------------------------------------------ */
/* block.workspace: %T = block.workspace (%n) : tensor<?x64xf32>        */
/* ------------------------------------------------------------------ */

PtoResult workspace_parse(PtoParser *p, PtoOpState *st) {
  return pto_syntax_parse_common(p, st, false, true);
}

void workspace_print(PtoPrinter *p, PtoOp *op) {
  pto_syntax_print_common(p, op, 0, NULL, 0);
}

PtoResult workspace_verify(PtoOp *op) {
  if (block_enclosing_kernel(op))
    return pto_op_emit_error(op, "cannot be inside a 'block.kernel': "
                                 "workspaces are allocated by the host "
                                 "function");
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  if (!pto_type_is_tensor(t))
    return pto_dialect_op_error(op, "result must be a GM tensor, got '%T'", t);
  unsigned ndyn = 0;
  for (unsigned d = 0; d < pto_type_tensor_rank(t); d++)
    ndyn += pto_type_tensor_dim(t, d) == PTO_DYN;
  if (pto_op_num_operands(op) != ndyn)
    return pto_dialect_op_error(op, "'%T' has %u dynamic dims but %u sizes "
                                    "are given",
                                t, ndyn, pto_op_num_operands(op));
  for (unsigned i = 0; i < ndyn; i++)
    if (pto_type_kind(pto_value_type(pto_op_operand(op, i))) != PTO_TYPE_INDEX)
      return pto_dialect_op_error(op, "size #%u must be an index, got '%T'", i,
                                  pto_value_type(pto_op_operand(op, i)));
  return PTO_SUCCESS;
}
