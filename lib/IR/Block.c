/* Regions and blocks: creation, the op list of a block, block arguments
 * and successors. */
#include "IR/IRInternal.h"

#include <assert.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Regions                                                              */
/* ------------------------------------------------------------------ */

PtoRegion *pto_region_create(PtoContext *ctx) {
  PtoRegion *r = pto_ir_alloc(ctx, sizeof *r);
  pto_region_init(r, ctx, NULL);
  return r;
}

void pto_region_destroy(PtoRegion *r) {
  pto_region_clear(r);
  pto_ir_free(r->ctx, r, sizeof *r);
}

PtoOp *pto_region_parent_op(const PtoRegion *r) { return r->parent; }
PtoBlock *pto_region_first_block(const PtoRegion *r) {
  return pto_list_empty(&r->blocks) ? NULL : block_from_node(r->blocks.next);
}
PtoBlock *pto_region_last_block(const PtoRegion *r) {
  return pto_list_empty(&r->blocks) ? NULL : block_from_node(r->blocks.prev);
}
bool pto_region_empty(const PtoRegion *r) { return pto_list_empty(&r->blocks); }
unsigned pto_region_num_blocks(const PtoRegion *r) {
  unsigned n = 0;
  for (PtoListNode *x = r->blocks.next; x != &r->blocks; x = x->next) n++;
  return n;
}

void pto_region_push_block(PtoRegion *r, PtoBlock *b) {
  assert(!b->parent);
  pto_list_push_back(&r->blocks, &b->node);
  b->parent = r;
}

void pto_region_insert_block_after(PtoRegion *r, PtoBlock *pos, PtoBlock *b) {
  assert(!b->parent);
  pto_list_insert_after(pos ? &pos->node : &r->blocks, &b->node);
  b->parent = r;
}

void pto_region_take_body(PtoRegion *to, PtoRegion *from) {
  while (!pto_list_empty(&from->blocks)) {
    PtoBlock *b = block_from_node(from->blocks.next);
    pto_list_remove(&b->node);
    b->parent = NULL;
    pto_region_push_block(to, b);
  }
}

/* ------------------------------------------------------------------ */
/* Blocks                                                               */
/* ------------------------------------------------------------------ */

PtoBlock *pto_block_create(PtoContext *ctx) {
  PtoBlock *b = pto_ir_alloc(ctx, sizeof *b);
  memset(b, 0, sizeof *b);
  pto_list_init(&b->node);
  pto_list_init(&b->ops);
  b->ctx = ctx;
  b->order_valid = true;
  return b;
}

void pto_block_erase(PtoBlock *b) {
  if (b->parent) {
    pto_list_remove(&b->node);
    b->parent = NULL;
  }
  /* Drop uses inside first (ops may use values of later ops in graph-like
   * or invalid IR), then destroy back to front. */
  PTO_FOR_OPS(b, op) {
    for (unsigned i = 0; i < op->num_operands; i++)
      pto_use_unlink(&op->operands[i]);
  }
  while (!pto_list_empty(&b->ops)) {
    PtoOp *op = op_from_node(b->ops.prev);
    for (unsigned i = 0; i < op->num_results; i++) {
      /* any remaining uses come from outside the block: detach them */
      while (op->results[i].first_use) pto_use_unlink(op->results[i].first_use);
    }
    pto_op_erase(op);
  }
  for (uint32_t i = 0; i < b->nargs; i++) {
    while (b->args[i]->v.first_use) pto_use_unlink(b->args[i]->v.first_use);
    pto_ir_free(b->ctx, b->args[i], sizeof(PtoBlockArg));
  }
  pto_ir_free(b->ctx, b->args, b->cap_args * sizeof(PtoBlockArg *));
  pto_ir_free(b->ctx, b, sizeof *b);
}

PtoRegion *pto_block_region(const PtoBlock *b) { return b->parent; }
PtoOp *pto_block_parent_op(const PtoBlock *b) {
  return b->parent ? b->parent->parent : NULL;
}
PtoBlock *pto_block_next(const PtoBlock *b) {
  if (!b->parent || b->node.next == &b->parent->blocks) return NULL;
  return block_from_node(b->node.next);
}
PtoBlock *pto_block_prev(const PtoBlock *b) {
  if (!b->parent || b->node.prev == &b->parent->blocks) return NULL;
  return block_from_node(b->node.prev);
}
unsigned pto_block_num_args(const PtoBlock *b) { return b->nargs; }
PtoValue *pto_block_arg(const PtoBlock *b, unsigned i) {
  return &b->args[i]->v;
}

PtoValue *pto_block_insert_arg(PtoBlock *b, unsigned i, PtoType *t,
                               PtoLoc *loc) {
  if (b->nargs == b->cap_args) {
    uint32_t ncap = b->cap_args ? b->cap_args * 2 : 4;
    PtoBlockArg **na = pto_ir_alloc(b->ctx, ncap * sizeof *na);
    if (b->nargs) memcpy(na, b->args, b->nargs * sizeof *na);
    pto_ir_free(b->ctx, b->args, b->cap_args * sizeof *na);
    b->args = na;
    b->cap_args = ncap;
  }
  PtoBlockArg *a = pto_ir_alloc(b->ctx, sizeof *a);
  memset(a, 0, sizeof *a);
  a->v.type = t;
  a->v.is_arg = 1;
  a->block = b;
  a->loc = loc ? loc : b->ctx->l_unknown;
  memmove(&b->args[i + 1], &b->args[i], (b->nargs - i) * sizeof *b->args);
  b->args[i] = a;
  b->nargs++;
  for (uint32_t k = i; k < b->nargs; k++) b->args[k]->v.index = k;
  return &a->v;
}

PtoValue *pto_block_add_arg(PtoBlock *b, PtoType *t, PtoLoc *loc) {
  return pto_block_insert_arg(b, b->nargs, t, loc);
}

void pto_block_erase_arg(PtoBlock *b, unsigned i) {
  assert(i < b->nargs && !b->args[i]->v.first_use);
  pto_ir_free(b->ctx, b->args[i], sizeof(PtoBlockArg));
  memmove(&b->args[i], &b->args[i + 1], (b->nargs - i - 1) * sizeof *b->args);
  b->nargs--;
  for (uint32_t k = i; k < b->nargs; k++) b->args[k]->v.index = k;
}

PtoLoc *pto_block_arg_loc(const PtoValue *arg) {
  return ((const PtoBlockArg *)arg)->loc;
}

PtoOp *pto_block_first_op(const PtoBlock *b) {
  return pto_list_empty(&b->ops) ? NULL : op_from_node(b->ops.next);
}
PtoOp *pto_block_last_op(const PtoBlock *b) {
  return pto_list_empty(&b->ops) ? NULL : op_from_node(b->ops.prev);
}
bool pto_block_empty(const PtoBlock *b) { return pto_list_empty(&b->ops); }

PtoOp *pto_block_terminator(const PtoBlock *b) {
  PtoOp *last = pto_block_last_op(b);
  if (!last) return NULL;
  if (!op_def(last) || (op_def(last)->traits & PTO_TRAIT_TERMINATOR)) return last;
  return NULL;
}

void pto_block_append(PtoBlock *b, PtoOp *op) {
  pto_block_insert_node(b, &b->ops, op);
}
void pto_block_prepend(PtoBlock *b, PtoOp *op) {
  pto_block_insert_node(b, b->ops.next, op);
}
void pto_block_insert_before(PtoOp *pos, PtoOp *op) {
  pto_block_insert_node(pos->block, &pos->node, op);
}
void pto_block_insert_after(PtoOp *pos, PtoOp *op) {
  pto_block_insert_node(pos->block, pos->node.next, op);
}

void pto_block_splice(PtoBlock *to, PtoOp *pos, PtoBlock *from, PtoOp *first) {
  PtoOp *o = first;
  while (o) {
    PtoOp *next = pto_op_next(o);
    pto_op_remove(o);
    if (pos)
      pto_block_insert_node(to, &pos->node, o);
    else
      pto_block_insert_node(to, &to->ops, o);
    o = next;
  }
  (void)from;
}
