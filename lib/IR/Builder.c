/* The builder (an insertion point and a location) and walks over nested
 * ops. */
#include "IR/IRInternal.h"

#include <assert.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Builder                                                              */
/* ------------------------------------------------------------------ */

void pto_builder_init(PtoBuilder *b, PtoContext *ctx) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  b->loc = ctx->l_unknown;
}
void pto_builder_set_before(PtoBuilder *b, PtoOp *op) {
  b->block = op->block;
  b->before = op;
}
void pto_builder_set_after(PtoBuilder *b, PtoOp *op) {
  b->block = op->block;
  b->before = pto_op_next(op);
}
void pto_builder_set_block_end(PtoBuilder *b, PtoBlock *blk) {
  b->block = blk;
  b->before = NULL;
}
void pto_builder_set_block_start(PtoBuilder *b, PtoBlock *blk) {
  b->block = blk;
  b->before = pto_block_first_op(blk);
}
PtoOp *pto_builder_insert(PtoBuilder *b, PtoOp *op) {
  if (!b->block) return op;
  if (b->before)
    pto_block_insert_before(b->before, op);
  else
    pto_block_append(b->block, op);
  return op;
}
PtoOp *pto_builder_create(PtoBuilder *b, PtoOpState *st) {
  if (!st->loc || st->loc == b->ctx->l_unknown) st->loc = b->loc;
  return pto_builder_insert(b, pto_op_create(st));
}
PtoOp *pto_builder_create_simple(PtoBuilder *b, const char *name,
                                 PtoValue *const *operands, unsigned nops,
                                 PtoType *const *result_types, unsigned nres,
                                 const PtoNamedAttr *attrs, unsigned nattrs) {
  return pto_builder_insert(
      b, pto_op_create_simple(b->ctx, name, b->loc, operands, nops,
                              result_types, nres, attrs, nattrs));
}

/* ------------------------------------------------------------------ */
/* Walks                                                                */
/* ------------------------------------------------------------------ */

PtoWalkResult pto_region_walk(PtoRegion *r, PtoWalkOrder order, PtoWalkFn fn,
                              void *user) {
  PtoBlock *b = pto_region_first_block(r);
  while (b) {
    PtoBlock *nb = pto_block_next(b);
    PtoOp *o = pto_block_first_op(b);
    while (o) {
      PtoOp *next = pto_op_next(o);
      if (pto_op_walk(o, order, fn, user) == PTO_WALK_INTERRUPT)
        return PTO_WALK_INTERRUPT;
      o = next;
    }
    b = nb;
  }
  return PTO_WALK_ADVANCE;
}

PtoWalkResult pto_op_walk(PtoOp *op, PtoWalkOrder order, PtoWalkFn fn,
                          void *user) {
  if (order == PTO_WALK_PRE) {
    PtoWalkResult r = fn(op, user);
    if (r == PTO_WALK_INTERRUPT) return r;
    if (r == PTO_WALK_SKIP) return PTO_WALK_ADVANCE;
  }
  for (unsigned i = 0; i < op->num_regions; i++)
    if (pto_region_walk(&op_regions(op)[i], order, fn, user) == PTO_WALK_INTERRUPT)
      return PTO_WALK_INTERRUPT;
  if (order == PTO_WALK_POST) {
    PtoWalkResult r = fn(op, user);
    if (r == PTO_WALK_INTERRUPT) return r;
  }
  return PTO_WALK_ADVANCE;
}
