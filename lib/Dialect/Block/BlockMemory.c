/* Moves between global memory and on-chip buffers (block.load, block.store,
 * inside kernels) and GM workspaces (block.workspace, in the host
 * function). */
#include "Dialect/Block/BlockInternal.h"

#include "Dialect/Common/Syntax.h"
#include "pto/Dialect/Tile.h"

#include <string.h>

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
         pto_dialect_check_tile_window(op, buf,
                                       pto_value_type(pto_op_operand(op, tensor)),
                                       tensor + 1);
}

PtoResult load_verify(PtoOp *op) {
  return verify_move(op, pto_value_type(pto_op_result(op, 0)), "result", 0);
}

/* ------------------------------------------------------------------ */
/* block.store: block.store %b, %T[%i, 0] : !block.buf<..> into tensor<..> */
/* ------------------------------------------------------------------ */

PtoResult store_parse(PtoParser *p, PtoOpState *st) {
  return pto_syntax_parse_gm_window(p, st, true);
}

void store_print(PtoPrinter *p, PtoOp *op) {
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_block_get_offsets(op, offs, dyn);
  pto_syntax_print_gm_window(p, op, true, offs, dyn, n);
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
