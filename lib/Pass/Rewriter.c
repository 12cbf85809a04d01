/* The rewriter: every IR change a pattern makes goes through these calls,
 * which tell the listener (the greedy driver) what changed. */
#include "Pass/RewriteInternal.h"

#include <assert.h>

void pto_rewriter_init(PtoRewriter *rw, PtoContext *ctx,
                       const PtoRewriteListener *listener, void *user,
                       PtoOpFolder *folder) {
  rw->ctx = ctx;
  pto_builder_init(&rw->builder, ctx);
  rw->listener = listener;
  rw->user = user;
  rw->folder = folder;
  rw->loc_pending = false;
  rw->pending_loc.bits = 0;
}

static void notify_inserted(PtoRewriter *rw, PtoOp *op) {
  if (rw->listener && rw->listener->inserted)
    rw->listener->inserted(rw->user, op);
}

static void notify_removing(PtoRewriter *rw, PtoOp *op) {
  if (rw->listener && rw->listener->removing)
    rw->listener->removing(rw->user, op);
}

PtoContext *pto_rewriter_ctx(PtoRewriter *rw) { return rw->ctx; }
PtoBuilder *pto_rewriter_builder(PtoRewriter *rw) {
  if (rw->loc_pending) {
    rw->builder.loc = pto_loc_ref_resolve(rw->ctx, rw->pending_loc);
    rw->loc_pending = false;
  }
  return &rw->builder;
}

PtoOp *pto_rewriter_insert(PtoRewriter *rw, PtoOp *detached) {
  pto_builder_insert(&rw->builder, detached);
  notify_inserted(rw, detached);
  return detached;
}

PtoOp *pto_rewriter_create(PtoRewriter *rw, PtoOpState *st) {
  return pto_rewriter_insert(rw, pto_op_create(st));
}

void pto_rewriter_notify_modified(PtoRewriter *rw, PtoOp *op) {
  if (rw->listener && rw->listener->modified)
    rw->listener->modified(rw->user, op);
}

void pto_rewriter_erase_op(PtoRewriter *rw, PtoOp *op) {
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    assert(!pto_value_has_uses(pto_op_result(op, i)) &&
           "erasing an op whose results are still used; replace it instead");
  notify_removing(rw, op);
  if (pto_op_block(op))
    pto_op_erase(op);
  else
    pto_op_destroy(op);
}

void pto_rewriter_replace_op(PtoRewriter *rw, PtoOp *op,
                             PtoValue *const *new_values) {
  if (rw->listener && rw->listener->replacing)
    rw->listener->replacing(rw->user, op);
  pto_op_replace_all_uses(op, new_values);
  pto_rewriter_erase_op(rw, op);
}

void pto_rewriter_replace_op_with_op(PtoRewriter *rw, PtoOp *op,
                                     PtoOp *new_op) {
  assert(pto_op_num_results(op) == pto_op_num_results(new_op));
  if (!pto_op_block(new_op)) {
    pto_block_insert_before(op, new_op);
    notify_inserted(rw, new_op);
  }
  unsigned n = pto_op_num_results(op);
  PtoValue *buf[8];
  PtoValue **vals = n <= 8 ? buf : pto_malloc(n * sizeof *vals);
  for (unsigned i = 0; i < n; i++) vals[i] = pto_op_result(new_op, i);
  pto_rewriter_replace_op(rw, op, vals);
  if (vals != buf) pto_free(vals);
}

void pto_rewriter_inline_block_before(PtoRewriter *rw, PtoBlock *block,
                                      PtoOp *pos, PtoValue *const *args) {
  for (unsigned i = 0; i < pto_block_num_args(block); i++) {
    PtoValue *arg = pto_block_arg(block, i);
    for (PtoUse *u = pto_value_first_use(arg); u; u = pto_use_next(u))
      pto_rewriter_notify_modified(rw, pto_use_owner(u));
    pto_value_replace_all_uses(arg, args[i]);
  }
  PtoOp *first = pto_block_first_op(block);
  PtoOp *last = pto_block_last_op(block);
  if (first) {
    pto_block_splice(pto_op_block(pos), pos, block, first);
    for (PtoOp *o = first;; o = pto_op_next(o)) {
      notify_inserted(rw, o);
      if (o == last) break;
    }
  }
  pto_block_erase(block);
}

PtoOp *pto_rewriter_materialize_constant(PtoRewriter *rw,
                                         const PtoDialectDef *dialect,
                                         PtoAttr *value, PtoType *type,
                                         PtoLoc *loc) {
  if (!dialect || !dialect->materialize_constant) return NULL;
  PtoOp *c = dialect->materialize_constant(rw->ctx, value, type, loc);
  if (!c) return NULL;
  if (pto_op_num_results(c) != 1 ||
      pto_value_type(pto_op_result(c, 0)) != type) {
    pto_op_destroy(c);
    return NULL;
  }
  return pto_rewriter_insert(rw, c);
}
