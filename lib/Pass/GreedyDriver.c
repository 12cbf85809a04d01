/* The greedy pattern-rewrite driver. Each iteration seeds a worklist with
 * every op under the root (constants are uniqued on the way) and processes
 * it: erase trivially dead ops, fold, then try the op's patterns by
 * benefit. Rewriter notifications push what a change may affect (users of
 * replaced values, defining ops of dropped operands, new and modified ops)
 * back on the worklist, so one iteration normally reaches the fixed point
 * and the next confirms it. */
#include "Pass/RewriteInternal.h"

#include <string.h>

typedef struct Driver {
  PtoContext *ctx;
  PtoOp *root;
  const PtoPatternSet *set;
  PtoGreedyConfig cfg;
  PtoGreedyStats stats;
  PTO_VEC(PtoOp *) worklist; /* erased entries become NULL */
  PtoPtrMap index;           /* op -> its worklist slot + 1 */
  PtoRewriter rw;
  PtoOpFolder *folder;
  /* multi-block regions seen while seeding, for region simplification;
   * regions of erased ops leave the set */
  PTO_VEC(PtoRegion *) cfg_regions;
  PtoPtrMap cfg_live;
  bool changed;
  /* the last change, to point at when the driver does not converge */
  const char *last_what;    /* a kind of change, or */
  const char *last_pattern; /* the pattern that made it */
  PtoIdent *last_op;
  PtoLocRef last_loc; /* resolved only when reported */
} Driver;

/* ---- worklist ---- */

static void wl_add(Driver *d, PtoOp *op) {
  /* one probe in the common case: put, and undo if it was there */
  uintptr_t slot = d->worklist.len + 1;
  void *old = pto_ptrmap_put(&d->index, (uintptr_t)op, (void *)slot);
  if (old) {
    pto_ptrmap_put(&d->index, (uintptr_t)op, old);
    return;
  }
  pto_vec_push(&d->worklist, op);
}

static void wl_remove(Driver *d, PtoOp *op) {
  uintptr_t slot = (uintptr_t)pto_ptrmap_get(&d->index, (uintptr_t)op);
  if (!slot) return;
  d->worklist.data[slot - 1] = NULL;
  pto_ptrmap_remove(&d->index, (uintptr_t)op);
}

static PtoOp *wl_pop(Driver *d) {
  while (d->worklist.len) {
    PtoOp *op = pto_vec_pop(&d->worklist);
    if (op) {
      pto_ptrmap_remove(&d->index, (uintptr_t)op);
      return op;
    }
  }
  return NULL;
}

static void wl_clear(Driver *d) {
  pto_vec_clear(&d->worklist);
  pto_ptrmap_clear(&d->index);
}

/* ---- listener ---- */

static PtoWalkResult add_walk(PtoOp *op, void *user) {
  wl_add(user, op);
  return PTO_WALK_ADVANCE;
}

static void on_inserted(void *user, PtoOp *op) {
  pto_op_walk(op, PTO_WALK_PRE, add_walk, user);
}

typedef struct RemoveCtx {
  Driver *d;
  PtoOp *top;
} RemoveCtx;

static PtoWalkResult remove_walk(PtoOp *op, void *user) {
  RemoveCtx *rc = user;
  Driver *d = rc->d;
  wl_remove(d, op);
  if (d->folder) pto_folder_forget(d->folder, op);
  if (d->cfg_live.len)
    for (unsigned i = 0; i < pto_op_num_regions(op); i++)
      pto_ptrmap_remove(&d->cfg_live, (uintptr_t)pto_op_region(op, i));
  /* operands defined outside the erased op may now be dead */
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoValue *v = pto_op_operand(op, i);
    PtoOp *def = v ? pto_value_def_op(v) : NULL;
    if (def && (op == rc->top || !pto_op_is_ancestor_of(rc->top, def)))
      wl_add(d, def);
  }
  return PTO_WALK_ADVANCE;
}

static void on_removing(void *user, PtoOp *op) {
  RemoveCtx rc = {user, op};
  pto_op_walk(op, PTO_WALK_PRE, remove_walk, &rc);
}

static void on_replacing(void *user, PtoOp *op) {
  Driver *d = user;
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    for (PtoUse *u = pto_value_first_use(pto_op_result(op, i)); u;
         u = pto_use_next(u))
      wl_add(d, pto_use_owner(u));
}

static void on_modified(void *user, PtoOp *op) { wl_add(user, op); }

static const PtoRewriteListener listener = {on_inserted, on_removing,
                                            on_replacing, on_modified};

/* ---- processing ---- */

bool pto_op_is_trivially_dead(const PtoOp *op) {
  if (pto_op_has_trait(op, PTO_TRAIT_TERMINATOR) ||
      pto_op_has_trait(op, PTO_TRAIT_SYMBOL))
    return false;
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    if (pto_value_has_uses(pto_op_result(op, i))) return false;
  return pto_op_is_effect_free(op);
}

static void record(Driver *d, const char *what, const char *pattern,
                   PtoIdent *name, PtoLocRef loc) {
  d->changed = true;
  d->last_what = what;
  d->last_pattern = pattern;
  d->last_op = name;
  d->last_loc = loc;
}

static void note_change(Driver *d, const char *what, PtoOp *op) {
  record(d, what, NULL, pto_op_name(op), pto_op_loc_ref(op));
}

/* Replaces a constant by an equal one the folder already has. */
static bool unique_constant(Driver *d, PtoOp *op) {
  PtoAttr *value = pto_folder_constant_of(d->folder, op);
  if (!value || pto_op_num_results(op) != 1) return false;
  PtoOp *keep = pto_folder_known_constant(d->folder, op, value);
  if (keep == op) return false;
  note_change(d, "constant uniquing", op);
  PtoValue *v = pto_op_result(keep, 0);
  pto_rewriter_replace_op(&d->rw, op, &v);
  d->stats.erased++;
  return true;
}

static void process(Driver *d, PtoOp *op) {
  if (pto_op_is_trivially_dead(op)) {
    note_change(d, "dead-op erasure", op);
    pto_rewriter_erase_op(&d->rw, op);
    d->stats.erased++;
    return;
  }
  if (d->folder && unique_constant(d, op)) return;
  PtoBuilder *b = &d->rw.builder;
  if (!d->cfg.disable_folding) {
    pto_builder_set_before(b, op);
    bool in_place;
    PtoIdent *name = pto_op_name(op);
    PtoLocRef loc = pto_op_loc_ref(op);
    if (pto_fold_op(op, &d->rw, &in_place) == PTO_SUCCESS) {
      record(d, "folding", NULL, name, loc);
      d->stats.folded++;
      if (!in_place) return;
    }
  }
  if (!d->set) return;
  const PatternList *l = pto_pattern_set_lookup(d->set, pto_op_name(op));
  for (uint32_t i = 0; i < l->len; i++) {
    const Pattern *p = l->data[i];
    PtoIdent *name = pto_op_name(op);
    PtoLocRef loc = pto_op_loc_ref(op);
    pto_builder_set_before(b, op);
    d->rw.pending_loc = loc;
    d->rw.loc_pending = true;
    if (p->fn(op, &d->rw, p->user) == PTO_SUCCESS) {
      record(d, NULL, p->debug_name, name, loc);
      d->stats.patterns_applied++;
      return;
    }
  }
}

/* ---- seeding ---- */

typedef struct SeedCtx {
  Driver *d;
  PTO_VEC(PtoOp *) order;
} SeedCtx;

static void note_regions(Driver *d, PtoOp *op) {
  if (!d->cfg.region_simplify) return;
  for (unsigned i = 0; i < pto_op_num_regions(op); i++) {
    PtoRegion *r = pto_op_region(op, i);
    PtoBlock *b = pto_region_first_block(r);
    if (b && pto_block_next(b)) {
      pto_vec_push(&d->cfg_regions, r);
      pto_ptrmap_put(&d->cfg_live, (uintptr_t)r, r);
    }
  }
}

static PtoWalkResult seed_walk(PtoOp *op, void *user) {
  SeedCtx *sc = user;
  note_regions(sc->d, op);
  /* uniquing existing constants while seeding keeps their order stable */
  if (sc->d->folder && unique_constant(sc->d, op)) return PTO_WALK_ADVANCE;
  pto_vec_push(&sc->order, op);
  return PTO_WALK_ADVANCE;
}

static uint64_t seed(Driver *d) {
  SeedCtx sc = {d, {0}};
  note_regions(d, d->root);
  for (unsigned r = 0; r < pto_op_num_regions(d->root); r++)
    pto_region_walk(pto_op_region(d->root, r), PTO_WALK_POST, seed_walk, &sc);
  /* popped from the back: the first op in program order goes first */
  for (uint32_t i = sc.order.len; i-- > 0;) wl_add(d, sc.order.data[i]);
  uint64_t n = sc.order.len;
  pto_vec_free(&sc.order);
  return n;
}

/* ---- region simplification: unreachable blocks ---- */

static void erase_block_ops(Driver *d, PtoBlock *b) {
  for (PtoOp *o = pto_block_first_op(b); o; o = pto_op_next(o))
    on_removing(d, o);
}

static bool erase_unreachable_blocks(Driver *d, PtoRegion *r) {
  PtoBlock *entry = pto_region_first_block(r);
  if (!entry || !pto_block_next(entry)) return false;
  PtoPtrMap seen;
  pto_ptrmap_init(&seen);
  PTO_VEC(PtoBlock *) stack = {0};
  pto_vec_push(&stack, entry);
  pto_ptrmap_put(&seen, (uintptr_t)entry, entry);
  while (stack.len) {
    PtoBlock *b = pto_vec_pop(&stack);
    PtoOp *t = pto_block_last_op(b);
    for (unsigned i = 0; t && i < pto_op_num_successors(t); i++) {
      PtoBlock *s = pto_op_successor(t, i);
      if (s && !pto_ptrmap_contains(&seen, (uintptr_t)s)) {
        pto_ptrmap_put(&seen, (uintptr_t)s, s);
        pto_vec_push(&stack, s);
      }
    }
  }
  PTO_VEC(PtoBlock *) dead = {0};
  for (PtoBlock *b = entry; b; b = pto_block_next(b))
    if (!pto_ptrmap_contains(&seen, (uintptr_t)b)) pto_vec_push(&dead, b);
  pto_vec_foreach(&dead, b) erase_block_ops(d, *b);
  pto_vec_foreach(&dead, b) {
    PtoOp *first = pto_block_first_op(*b);
    if (first) note_change(d, "unreachable-block erasure", first);
    pto_block_erase(*b);
    d->stats.erased++;
  }
  bool changed = dead.len != 0;
  pto_vec_free(&dead);
  pto_vec_free(&stack);
  pto_ptrmap_release(&seen);
  return changed;
}

/* Erases unreachable blocks of the multi-block regions found by the last
 * seeding, outer regions first (inner ones may go with their blocks). */
static bool simplify_regions(Driver *d) {
  bool changed = false;
  for (uint32_t i = d->cfg_regions.len; i-- > 0;) {
    PtoRegion *r = d->cfg_regions.data[i];
    if (pto_ptrmap_contains(&d->cfg_live, (uintptr_t)r))
      changed |= erase_unreachable_blocks(d, r);
  }
  pto_vec_clear(&d->cfg_regions);
  pto_ptrmap_clear(&d->cfg_live);
  return changed;
}

/* ---- entry point ---- */

PtoResult pto_pattern_set_apply_greedily(PtoOp *root, const PtoPatternSet *set,
                                         const PtoGreedyConfig *cfg,
                                         bool *changed) {
  Driver d;
  memset(&d, 0, sizeof d);
  d.ctx = pto_op_ctx(root);
  d.root = root;
  d.set = set;
  if (cfg) d.cfg = *cfg;
  unsigned max = d.cfg.max_iterations ? d.cfg.max_iterations : 10;
  pto_ptrmap_init(&d.index);
  pto_ptrmap_init(&d.cfg_live);
  if (!d.cfg.disable_folding) d.folder = pto_folder_create(d.ctx, root);
  pto_rewriter_init(&d.rw, d.ctx, &listener, &d, d.folder);
  bool any = false;
  unsigned iter = 0;
  do {
    d.changed = false;
    uint64_t seeded = seed(&d);
    /* a bound on visits per iteration, so that patterns which keep undoing
     * each other end the iteration instead of looping forever */
    uint64_t budget = 16 * seeded + 1024, visits = 0;
    PtoOp *op;
    while ((op = wl_pop(&d))) {
      if (++visits > budget) {
        wl_clear(&d);
        d.changed = true;
        break;
      }
      process(&d, op);
    }
    if (d.cfg.region_simplify) d.changed |= simplify_regions(&d);
    any |= d.changed;
    iter++;
  } while (d.changed && iter < max);
  d.stats.iterations = iter;
  PtoResult res = PTO_SUCCESS;
  if (d.changed) {
    PtoDiag *diag = pto_op_diag(root, PTO_DIAG_ERROR,
                                "pattern rewriting did not converge after %u "
                                "iteration%s; raise the iteration limit or "
                                "look for patterns that undo each other",
                                max, max == 1 ? "" : "s");
    if (d.last_pattern)
      pto_diag_note(diag, pto_loc_ref_resolve(d.ctx, d.last_loc),
                    "the last change applied pattern '%s' to '%s'",
                    d.last_pattern, pto_ident_str(d.last_op));
    else if (d.last_what)
      pto_diag_note(diag, pto_loc_ref_resolve(d.ctx, d.last_loc), "the last change was %s of '%s'",
                    d.last_what, pto_ident_str(d.last_op));
    res = pto_diag_emit(diag);
  }
  if (d.cfg.stats) {
    d.cfg.stats->folded += d.stats.folded;
    d.cfg.stats->erased += d.stats.erased;
    d.cfg.stats->patterns_applied += d.stats.patterns_applied;
    d.cfg.stats->iterations += d.stats.iterations;
  }
  if (changed) *changed = any;
  pto_vec_free(&d.worklist);
  pto_ptrmap_release(&d.index);
  pto_vec_free(&d.cfg_regions);
  pto_ptrmap_release(&d.cfg_live);
  pto_folder_destroy(d.folder);
  return res;
}
