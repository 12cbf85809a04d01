/* Pattern sets: rewrite functions keyed by the interned name of the op they
 * match, kept sorted by benefit, so that the driver finds an op's
 * candidates with one pointer-keyed lookup. */
#include "Pass/RewriteInternal.h"

#include <string.h>

struct PtoPatternSet {
  PtoContext *ctx;
  PtoArena arena;            /* Pattern objects */
  unsigned size;
  PatternList any;           /* patterns with no root op */
  PtoPtrMap by_root;         /* PtoIdent* -> PatternList* */
  PTO_VEC(PatternList *) lists;
};

PtoPatternSet *pto_pattern_set_create(PtoContext *ctx) {
  PtoPatternSet *s = pto_calloc(1, sizeof *s);
  s->ctx = ctx;
  pto_arena_init(&s->arena);
  pto_ptrmap_init(&s->by_root);
  return s;
}

void pto_pattern_set_destroy(PtoPatternSet *s) {
  if (!s) return;
  pto_vec_foreach(&s->lists, l) {
    pto_vec_free(*l);
    pto_free(*l);
  }
  pto_vec_free(&s->lists);
  pto_vec_free(&s->any);
  pto_ptrmap_release(&s->by_root);
  pto_arena_release(&s->arena);
  pto_free(s);
}

/* Inserts after every pattern of greater or equal benefit, so that equal
 * benefits keep their order of addition. */
static void list_insert(PatternList *l, const Pattern *p) {
  uint32_t at = l->len;
  while (at > 0 && l->data[at - 1]->benefit < p->benefit) at--;
  pto_vec_push(l, p);
  memmove(&l->data[at + 1], &l->data[at], (l->len - 1 - at) * sizeof *l->data);
  l->data[at] = p;
}

void pto_pattern_set_add(PtoPatternSet *s, const char *root, unsigned benefit,
                         PtoPatternFn fn, void *user, const char *debug_name) {
  Pattern *p = pto_arena_zalloc(&s->arena, sizeof *p);
  p->fn = fn;
  p->user = user;
  p->benefit = benefit;
  p->debug_name = debug_name ? debug_name : "<unnamed pattern>";
  p->root = root ? pto_ident_cstr(s->ctx, root) : NULL;
  s->size++;
  if (!p->root) {
    list_insert(&s->any, p);
    pto_vec_foreach(&s->lists, l) list_insert(*l, p);
    return;
  }
  PatternList *l = pto_ptrmap_get(&s->by_root, (uintptr_t)p->root);
  if (!l) {
    l = pto_calloc(1, sizeof *l);
    for (uint32_t i = 0; i < s->any.len; i++) pto_vec_push(l, s->any.data[i]);
    pto_ptrmap_put(&s->by_root, (uintptr_t)p->root, l);
    pto_vec_push(&s->lists, l);
  }
  list_insert(l, p);
}

const PatternList *pto_pattern_set_lookup(const PtoPatternSet *s,
                                          const PtoIdent *name) {
  const PatternList *l = pto_ptrmap_get(&s->by_root, (uintptr_t)name);
  return l ? l : &s->any;
}

void pto_pattern_set_add_canonicalizations(PtoPatternSet *s) {
  unsigned nd = pto_ctx_num_dialects(s->ctx);
  for (unsigned i = 0; i < nd; i++) {
    const PtoDialectDef *d = pto_ctx_dialect(s->ctx, i);
    for (unsigned k = 0; k < d->num_ops; k++)
      if (d->ops[k].canonicalize) d->ops[k].canonicalize(s, s->ctx);
  }
}

unsigned pto_pattern_set_size(const PtoPatternSet *s) { return s->size; }
