/* cse: eliminates common subexpressions. Walks each region along its
 * dominator tree with a scoped hash table of the effect-free, region-free
 * ops seen so far; an op equal to a known one (same name, operands,
 * attributes and result types) is replaced by it. Values of enclosing
 * scopes are reused in nested regions, never the other way round, and
 * isolated-from-above (or unregistered) ops start from an empty table. As
 * in MLIR, ops already trivially dead are erased on the way. */
#include "Transforms/Passes.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Vec.h"

#include <string.h>

typedef struct Entry {
  PtoOp *op;
  uint64_t hash;
  int32_t next; /* next entry in the same bucket, -1 at the end */
} Entry;

/* A hash table whose entries form a stack: scopes are popped in LIFO
 * order, and each popped entry is the head of its bucket chain. */
typedef struct ScopedTable {
  PTO_VEC(Entry) entries;
  int32_t *buckets;
  uint32_t mask;
} ScopedTable;

typedef struct Cse {
  PTO_VEC(PtoOp *) to_erase;
  int64_t num_cse, num_dce;
} Cse;

static void table_init(ScopedTable *t) {
  memset(t, 0, sizeof *t);
  t->mask = 63;
  t->buckets = pto_malloc((t->mask + 1) * sizeof *t->buckets);
  memset(t->buckets, 0xff, (t->mask + 1) * sizeof *t->buckets);
}

static void table_release(ScopedTable *t) {
  pto_vec_free(&t->entries);
  pto_free(t->buckets);
}

static void table_grow(ScopedTable *t) {
  t->mask = t->mask * 2 + 1;
  pto_free(t->buckets);
  t->buckets = pto_malloc((t->mask + 1) * sizeof *t->buckets);
  memset(t->buckets, 0xff, (t->mask + 1) * sizeof *t->buckets);
  for (uint32_t i = 0; i < t->entries.len; i++) {
    Entry *e = &t->entries.data[i];
    e->next = t->buckets[e->hash & t->mask];
    t->buckets[e->hash & t->mask] = (int32_t)i;
  }
}

static void table_insert(ScopedTable *t, PtoOp *op, uint64_t h) {
  if (t->entries.len >= t->mask) table_grow(t);
  Entry e = {op, h, t->buckets[h & t->mask]};
  t->buckets[h & t->mask] = (int32_t)t->entries.len;
  pto_vec_push(&t->entries, e);
}

static void table_pop_to(ScopedTable *t, uint32_t mark) {
  while (t->entries.len > mark) {
    Entry e = pto_vec_pop(&t->entries);
    t->buckets[e.hash & t->mask] = e.next;
  }
}

static uint64_t op_hash(PtoOp *op) {
  uint64_t h = (uintptr_t)pto_op_name(op);
  unsigned n = pto_op_num_operands(op);
  for (unsigned i = 0; i < n; i++)
    h = pto_hash_combine(h, (uintptr_t)pto_op_operand(op, i));
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    h = pto_hash_combine(h, (uintptr_t)pto_value_type(pto_op_result(op, i)));
  const PtoNamedAttr *a = pto_op_attrs(op);
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++)
    h = pto_hash_combine(pto_hash_combine(h, (uintptr_t)a[i].name),
                         (uintptr_t)a[i].value);
  return pto_hash_mix(h);
}

static bool op_equal(PtoOp *a, PtoOp *b) {
  if (pto_op_name(a) != pto_op_name(b)) return false;
  unsigned n = pto_op_num_operands(a);
  if (n != pto_op_num_operands(b) ||
      pto_op_num_results(a) != pto_op_num_results(b) ||
      pto_op_num_attrs(a) != pto_op_num_attrs(b))
    return false;
  for (unsigned i = 0; i < n; i++)
    if (pto_op_operand(a, i) != pto_op_operand(b, i)) return false;
  for (unsigned i = 0; i < pto_op_num_results(a); i++)
    if (pto_value_type(pto_op_result(a, i)) !=
        pto_value_type(pto_op_result(b, i)))
      return false;
  /* attributes are uniqued and kept sorted by name */
  const PtoNamedAttr *x = pto_op_attrs(a), *y = pto_op_attrs(b);
  for (unsigned i = 0; i < pto_op_num_attrs(a); i++)
    if (x[i].name != y[i].name || x[i].value != y[i].value) return false;
  return true;
}

static PtoOp *table_find(ScopedTable *t, PtoOp *op, uint64_t h) {
  for (int32_t i = t->buckets[h & t->mask]; i >= 0;
       i = t->entries.data[i].next) {
    Entry *e = &t->entries.data[i];
    if (e->hash == h && op_equal(e->op, op)) return e->op;
  }
  return NULL;
}

static void simplify_region(Cse *c, PtoRegion *r, ScopedTable *t);

static void simplify_block(Cse *c, PtoBlock *b, ScopedTable *t) {
  for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op)) {
    if (pto_op_has_trait(op, PTO_TRAIT_TERMINATOR)) continue;
    if (pto_op_is_trivially_dead(op)) {
      pto_vec_push(&c->to_erase, op);
      c->num_dce++;
      continue;
    }
    unsigned nreg = pto_op_num_regions(op);
    if (nreg) {
      if (!pto_op_def(op) ||
          pto_op_has_trait(op, PTO_TRAIT_ISOLATED_FROM_ABOVE)) {
        ScopedTable inner;
        table_init(&inner);
        for (unsigned i = 0; i < nreg; i++)
          simplify_region(c, pto_op_region(op, i), &inner);
        table_release(&inner);
      } else {
        for (unsigned i = 0; i < nreg; i++)
          simplify_region(c, pto_op_region(op, i), t);
      }
      continue;
    }
    if (pto_op_num_successors(op) || !pto_op_is_effect_free(op)) continue;
    uint64_t h = op_hash(op);
    PtoOp *known = table_find(t, op, h);
    if (!known) {
      table_insert(t, op, h);
      continue;
    }
    for (unsigned i = 0; i < pto_op_num_results(op); i++)
      pto_value_replace_all_uses(pto_op_result(op, i), pto_op_result(known, i));
    pto_vec_push(&c->to_erase, op);
    c->num_cse++;
  }
}

static void simplify_region(Cse *c, PtoRegion *r, ScopedTable *t) {
  PtoBlock *entry = pto_region_first_block(r);
  if (!entry) return;
  uint32_t mark = t->entries.len;
  if (!pto_block_next(entry)) {
    simplify_block(c, entry, t);
    table_pop_to(t, mark);
    return;
  }
  /* a block sees the values of the blocks that dominate it; blocks not
   * reachable from the entry are left alone */
  PtoDomTree *dt = pto_domtree_create(r);
  unsigned n = pto_domtree_num_blocks(dt);
  PTO_VEC(uint32_t) stack = {0}, marks = {0}, pos = {0};
  pto_vec_resize(&pos, n);
  memset(pos.data, 0, n * sizeof *pos.data);
  pto_vec_push(&stack, 0);
  pto_vec_push(&marks, t->entries.len);
  simplify_block(c, pto_domtree_block(dt, 0), t);
  while (stack.len) {
    uint32_t b = pto_vec_last(&stack);
    if (pos.data[b] < pto_domtree_num_children(dt, b)) {
      uint32_t ch = pto_domtree_child(dt, b, pos.data[b]++);
      pto_vec_push(&stack, ch);
      pto_vec_push(&marks, t->entries.len);
      simplify_block(c, pto_domtree_block(dt, ch), t);
      continue;
    }
    table_pop_to(t, pto_vec_pop(&marks));
    stack.len--;
  }
  pto_vec_free(&stack);
  pto_vec_free(&marks);
  pto_vec_free(&pos);
  pto_domtree_destroy(dt);
  table_pop_to(t, mark);
}

static PtoResult run(PtoPass *pass, PtoOp *op) {
  Cse c;
  memset(&c, 0, sizeof c);
  ScopedTable t;
  table_init(&t);
  for (unsigned i = 0; i < pto_op_num_regions(op); i++)
    simplify_region(&c, pto_op_region(op, i), &t);
  table_release(&t);
  if (!c.to_erase.len && !c.num_cse && !c.num_dce) pto_pass_mark_unchanged(pass);
  pto_vec_foreach(&c.to_erase, o) pto_op_erase(*o);
  pto_vec_free(&c.to_erase);
  pto_pass_stat_add(pass, "num-cse'd", c.num_cse);
  pto_pass_stat_add(pass, "num-dce'd", c.num_dce);
  return PTO_SUCCESS;
}

static const PtoPassStatDef statistics[] = {
    {"num-cse'd", "Number of operations replaced by an equal earlier one"},
    {"num-dce'd", "Number of trivially dead operations erased"},
};

const PtoPassDef pto_cse_pass = {
    .argument = "cse",
    .summary = "Eliminate common subexpressions",
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .description =
        "Replaces an op by an equal one that dominates it. Ops are equal when\n"
        "they have the same name, operands, attributes and result types, and\n"
        "only ops without side effects (`pto_op_is_effect_free`), regions or\n"
        "successors are considered. Values of enclosing regions are reused\n"
        "inside nested regions, never the other way round and never between\n"
        "sibling regions; in multi-block regions a block reuses the values of\n"
        "the blocks that dominate it. Isolated-from-above ops (and\n"
        "unregistered ops, whose semantics are unknown) start from an empty\n"
        "scope. Ops that are already trivially dead are erased on the way.",
};
