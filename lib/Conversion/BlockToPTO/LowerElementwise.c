/* lower-to-pto for the Tile level's elementwise math, shape and generator
 * ops: each becomes the PTO instruction that computes the same numbers
 * with the same shared kernel in the interpreter (tile.sigmoid ->
 * pto.tsigmoid, ..., tile.expand -> pto.texpand, tile.full ->
 * pto.texpands). */
#include "Conversion/BlockToPTO/LowerElementwise.h"

#include <string.h>

#include "Support/Alloc.h"
#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"

/* Tile ops with one PTO instruction of the same operands and no
 * attributes. */
static const struct {
  const char *tile, *pto;
} unary[] = {
    {"tile.sigmoid", "pto.tsigmoid"}, {"tile.tanh", "pto.ttanh"},
    {"tile.silu", "pto.tsilu"},       {"tile.floor", "pto.tfloor"},
    {"tile.ceil", "pto.tceil"},       {"tile.round", "pto.tround"},
    {"tile.signbit", "pto.tsignbit"},
};

static const char *unary_instr(PtoOp *op) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(unary); i++)
    if (pto_op_is(op, unary[i].tile)) return unary[i].pto;
  return NULL;
}

bool pto_lower_elementwise_handles(PtoOp *op) {
  return unary_instr(op) || pto_op_is(op, "tile.expand") || pto_op_is(op, "tile.full");
}

static PtoOp *build(PtoContext *ctx, PtoOp *at, const char *name,
                    PtoValue *const *operands, unsigned n, PtoType *result) {
  PtoOpState st;
  pto_op_state_init(&st, ctx, name, pto_op_loc(at));
  pto_op_state_add_operands(&st, operands, n);
  pto_op_state_add_result(&st, result);
  PtoOp *op = pto_op_create(&st);
  pto_block_insert_before(at, op);
  return op;
}

/* tile.expand: texpand when the broadcast is one of whole rows or columns
 * of the 2-D tiles. With the leading dims flattened into rows that is
 * exactly when the operand's tile has the result's rows or one row: a
 * leading dim broadcast inside the rows (3x1x7 to 3x5x7) makes neither. */
static PtoOp *lower_expand(PtoContext *ctx, PtoOp *op, PtoType *buffer,
                           PtoType *result) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *from = pto_value_type(x);
  if (!pto_type_is_pto_tile(from)) {
    pto_op_emit_error(op, "lower-to-pto: the operand is not a PTO tile");
    return NULL;
  }
  int64_t ar = pto_pto_tile_rows(from), ac = pto_pto_tile_cols(from);
  if ((ar != 1 && ar != pto_pto_tile_rows(result)) ||
      (ac != 1 && ac != pto_pto_tile_cols(result))) {
    char *ts = pto_type_to_string(buffer);
    pto_op_emit_error(op, "lower-to-pto: this broadcast into '%s' repeats "
                          "the %lldx%lld tile inside the rows of the result's "
                          "%lldx%lld tile; texpand broadcasts whole rows or "
                          "columns only (broadcast the leading dims with one "
                          "tile per plane)",
                      ts, (long long)ar, (long long)ac,
                      (long long)pto_pto_tile_rows(result),
                      (long long)pto_pto_tile_cols(result));
    pto_free(ts);
    return NULL;
  }
  return build(ctx, op, "pto.texpand", &x, 1, result);
}

PtoOp *pto_lower_elementwise(PtoContext *ctx, PtoOp *op, PtoType *buffer,
                             PtoType *result) {
  if (pto_op_is(op, "tile.expand")) return lower_expand(ctx, op, buffer, result);
  if (pto_op_is(op, "tile.full")) {
    PtoValue *v = pto_op_operand(op, 0);
    return build(ctx, op, "pto.texpands", &v, 1, result);
  }
  const char *name = unary_instr(op);
  if (!name || pto_op_num_operands(op) != 1) {
    pto_op_emit_error(op, "lower-to-pto: no PTO instruction computes this op");
    return NULL;
  }
  PtoValue *x = pto_op_operand(op, 0);
  return build(ctx, op, name, &x, 1, result);
}
