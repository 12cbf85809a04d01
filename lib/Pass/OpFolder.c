/* Folding: calls an op's fold hook with its constant operands and replaces
 * the op by existing values or by constants built through its dialect's
 * materializer. Constants are uniqued and hoisted to the start of their
 * insertion region, so that folding N ops to the same value makes one. */
#include "Pass/RewriteInternal.h"

#include <string.h>

typedef struct ConstKey {
  const void *region, *dialect, *attr, *type;
} ConstKey;

typedef struct ConstEntry {
  ConstKey key;
  PtoOp *op;
} ConstEntry;

struct PtoOpFolder {
  PtoContext *ctx;
  PtoOp *root;
  PtoIdent *value_id;
  PtoStrMap consts;  /* ConstKey bytes -> ConstEntry* */
  PtoPtrMap owned;   /* op -> ConstEntry* */
  PtoPtrMap dialects; /* PtoOpDef* -> PtoDialectDef* */
  PtoArena arena;
  PTO_VEC(ConstEntry *) free_entries;
};

PtoOpFolder *pto_folder_create(PtoContext *ctx, PtoOp *root) {
  PtoOpFolder *f = pto_calloc(1, sizeof *f);
  f->ctx = ctx;
  f->root = root;
  f->value_id = pto_ident_cstr(ctx, "value");
  pto_strmap_init(&f->consts);
  pto_ptrmap_init(&f->owned);
  pto_ptrmap_init(&f->dialects);
  pto_arena_init(&f->arena);
  return f;
}

void pto_folder_destroy(PtoOpFolder *f) {
  if (!f) return;
  pto_strmap_release(&f->consts);
  pto_ptrmap_release(&f->owned);
  pto_ptrmap_release(&f->dialects);
  pto_vec_free(&f->free_entries);
  pto_arena_release(&f->arena);
  pto_free(f);
}

static const PtoDialectDef *dialect_of(PtoContext *ctx, PtoPtrMap *cache,
                                       const PtoOpDef *def) {
  if (!def) return NULL;
  if (cache) {
    const PtoDialectDef *d = pto_ptrmap_get(cache, (uintptr_t)def);
    if (d) return d;
  }
  const char *dot = strchr(def->name, '.');
  const PtoDialectDef *d = pto_ctx_lookup_dialect(
      ctx, def->name, dot ? (size_t)(dot - def->name) : strlen(def->name));
  if (cache && d) pto_ptrmap_put(cache, (uintptr_t)def, (void *)d);
  return d;
}

/* Where constants for an op in block `b` go: the nearest region whose
 * parent is isolated from above, unregistered, top-level or the root. */
static PtoRegion *insertion_region(PtoOpFolder *f, PtoBlock *b) {
  for (;;) {
    PtoRegion *r = pto_block_region(b);
    PtoOp *parent = pto_region_parent_op(r);
    if (!parent || parent == f->root || !pto_op_def(parent) ||
        !pto_op_block(parent) ||
        pto_op_has_trait(parent, PTO_TRAIT_ISOLATED_FROM_ABOVE))
      return r;
    b = pto_op_block(parent);
  }
}

bool pto_folder_owns(PtoOpFolder *f, PtoOp *op) {
  return pto_ptrmap_contains(&f->owned, (uintptr_t)op);
}

void pto_folder_forget(PtoOpFolder *f, PtoOp *op) {
  ConstEntry *e = pto_ptrmap_get(&f->owned, (uintptr_t)op);
  if (!e) return;
  pto_ptrmap_remove(&f->owned, (uintptr_t)op);
  pto_strmap_remove(&f->consts, (const char *)&e->key, sizeof e->key);
  pto_vec_push(&f->free_entries, e);
}

PtoAttr *pto_folder_constant_of(PtoOpFolder *f, PtoOp *op) {
  if (!pto_op_has_trait(op, PTO_TRAIT_CONSTANT_LIKE)) return NULL;
  return pto_op_attr_id(op, f->value_id);
}

static ConstKey make_key(PtoOpFolder *f, PtoRegion *r, const PtoOpDef *def,
                         PtoAttr *value, PtoType *type) {
  ConstKey k;
  memset(&k, 0, sizeof k);
  k.region = r;
  k.dialect = dialect_of(f->ctx, &f->dialects, def);
  k.attr = value;
  k.type = type;
  return k;
}

static void own(PtoOpFolder *f, const ConstKey *k, PtoOp *op) {
  ConstEntry *e = f->free_entries.len ? pto_vec_pop(&f->free_entries)
                                      : pto_arena_alloc(&f->arena, sizeof *e);
  e->key = *k;
  e->op = op;
  pto_strmap_put(&f->consts, (const char *)&e->key, sizeof e->key, e);
  pto_ptrmap_put(&f->owned, (uintptr_t)op, e);
}

PtoOp *pto_folder_known_constant(PtoOpFolder *f, PtoOp *op, PtoAttr *value) {
  if (pto_folder_owns(f, op)) return op;
  PtoRegion *r = insertion_region(f, pto_op_block(op));
  ConstKey k = make_key(f, r, pto_op_def(op), value,
                        pto_value_type(pto_op_result(op, 0)));
  ConstEntry *e = pto_strmap_get(&f->consts, (const char *)&k, sizeof k);
  if (e) return e->op;
  own(f, &k, op);
  /* keep the folder's constants together at the start of the region */
  PtoBlock *entry = pto_region_first_block(r);
  PtoOp *prev = pto_op_prev(op);
  if (pto_op_block(op) != entry || (prev && !pto_folder_owns(f, prev)))
    pto_op_move_before(op, pto_block_first_op(entry));
  return op;
}

/* A uniqued constant of `value` for a result of `op` (NULL if the dialect
 * cannot materialize it). */
static PtoOp *get_or_create(PtoOpFolder *f, PtoRewriter *rw, PtoOp *op,
                            PtoAttr *value, PtoType *type, bool *created) {
  *created = false;
  PtoRegion *r = insertion_region(f, pto_op_block(op));
  ConstKey k = make_key(f, r, pto_op_def(op), value, type);
  ConstEntry *e = pto_strmap_get(&f->consts, (const char *)&k, sizeof k);
  PtoBlock *entry = pto_region_first_block(r);
  if (e) {
    /* the folded op may have been inserted before the constant */
    if (pto_op_block(e->op) == pto_op_block(op) &&
        pto_block_first_op(entry) != e->op)
      pto_op_move_before(e->op, pto_block_first_op(entry));
    return e->op;
  }
  const PtoDialectDef *d = k.dialect;
  if (!d || !d->materialize_constant) return NULL;
  PtoOp *c = d->materialize_constant(f->ctx, value, type, pto_op_loc(op));
  if (!c) return NULL;
  if (pto_op_num_results(c) != 1 ||
      pto_value_type(pto_op_result(c, 0)) != type) {
    pto_op_destroy(c);
    return NULL;
  }
  PtoBuilder saved = rw->builder;
  pto_builder_set_block_start(&rw->builder, entry);
  pto_rewriter_insert(rw, c);
  rw->builder = saved;
  own(f, &k, c);
  *created = true;
  return c;
}

/* Constant operands of a commutative op go last (stable), so that folds
 * and patterns only look for constants on the right. */
static void sort_commutative(PtoOp *op, PtoAttr **consts, unsigned n) {
  unsigned k = 0;
  bool moved = false;
  PtoValue *buf[8];
  PtoValue **vals = n <= 8 ? buf : pto_malloc(n * sizeof *vals);
  for (unsigned i = 0; i < n; i++)
    if (!consts[i]) vals[k++] = pto_op_operand(op, i);
  unsigned nonconst = k;
  for (unsigned i = 0; i < n; i++)
    if (consts[i]) {
      if (i < nonconst) moved = true;
      vals[k++] = pto_op_operand(op, i);
    }
  if (moved) {
    for (unsigned i = 0; i < n; i++) pto_op_set_operand(op, i, vals[i]);
    for (unsigned i = 0; i < n; i++) consts[i] = NULL;
    for (unsigned i = 0; i < n; i++) {
      PtoOp *d = pto_value_def_op(vals[i]);
      if (d && pto_op_has_trait(d, PTO_TRAIT_CONSTANT_LIKE))
        consts[i] = pto_value_constant(vals[i]);
    }
  }
  if (vals != buf) pto_free(vals);
}

PtoResult pto_fold_op(PtoOp *op, PtoRewriter *rw, bool *in_place) {
  *in_place = false;
  const PtoOpDef *def = pto_op_def(op);
  /* constants fold to themselves (and the folder's own are constants) */
  if (!def || !def->fold || (def->traits & PTO_TRAIT_CONSTANT_LIKE))
    return PTO_FAILURE;
  PtoOpFolder *f = rw->folder;
  unsigned n = pto_op_num_operands(op), nres = pto_op_num_results(op);
  PtoAttr *cbuf[8];
  PtoFoldResult rbuf[4];
  PtoAttr **consts = n <= 8 ? cbuf : pto_malloc(n * sizeof *consts);
  PtoFoldResult *res = nres <= 4 ? rbuf : pto_malloc(nres * sizeof *res);
  memset(res, 0, (nres ? nres : 1) * sizeof *res);
  for (unsigned i = 0; i < n; i++) {
    PtoOp *d = pto_value_def_op(pto_op_operand(op, i));
    consts[i] = d ? (f ? pto_folder_constant_of(f, d) : pto_op_constant_value(d))
                  : NULL;
  }
  if (n >= 2 && (def->traits & PTO_TRAIT_COMMUTATIVE))
    sort_commutative(op, consts, n);
  PtoResult r = def->fold(op, consts, res);
  if (r == PTO_SUCCESS && (nres == 0 || (!res[0].attr && !res[0].value))) {
    *in_place = true;
    pto_rewriter_notify_modified(rw, op);
  } else if (r == PTO_SUCCESS) {
    PtoValue *vbuf[4];
    PtoValue **vals = nres <= 4 ? vbuf : pto_malloc(nres * sizeof *vals);
    PtoOp *made[4];
    PtoOp **created = nres <= 4 ? made : pto_malloc(nres * sizeof *created);
    unsigned ncreated = 0;
    for (unsigned i = 0; i < nres && r == PTO_SUCCESS; i++) {
      PtoType *t = pto_value_type(pto_op_result(op, i));
      if (res[i].value) {
        vals[i] = res[i].value;
        if (pto_value_type(vals[i]) != t) r = PTO_FAILURE;
        continue;
      }
      PtoOp *c = NULL;
      bool fresh = false;
      if (!res[i].attr) {
        r = PTO_FAILURE;
      } else if (f) {
        c = get_or_create(f, rw, op, res[i].attr, t, &fresh);
      } else {
        PtoBuilder saved = rw->builder;
        pto_builder_set_before(&rw->builder, op);
        c = pto_rewriter_materialize_constant(
            rw, dialect_of(rw->ctx, NULL, def), res[i].attr, t, pto_op_loc(op));
        rw->builder = saved;
        fresh = c != NULL;
      }
      if (!c) r = PTO_FAILURE;
      if (c && fresh) created[ncreated++] = c;
      if (c) vals[i] = pto_op_result(c, 0);
    }
    if (r == PTO_SUCCESS) {
      pto_rewriter_replace_op(rw, op, vals);
    } else {
      /* undo the constants made for the results before the failing one */
      for (unsigned i = 0; i < ncreated; i++) {
        if (f) pto_folder_forget(f, created[i]);
        pto_rewriter_erase_op(rw, created[i]);
      }
    }
    if (vals != vbuf) pto_free(vals);
    if (created != made) pto_free(created);
  }
  if (consts != cbuf) pto_free(consts);
  if (res != rbuf) pto_free(res);
  return r;
}

PtoResult pto_op_try_fold(PtoOp *op, PtoRewriter *rw) {
  bool in_place;
  return pto_fold_op(op, rw, &in_place);
}
