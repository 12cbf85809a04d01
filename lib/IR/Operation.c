/* Operations: the op state that builds them, creation and destruction,
 * accessors, value maps and cloning. Regions and blocks are in Block.c,
 * values and use-lists in Value.c, the builder and walks in Builder.c. */
#include "IR/IRInternal.h"

#include <assert.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Operation state                                                      */
/* ------------------------------------------------------------------ */

#define STATE_INLINE(st, arr, cap, buf) \
  ((st)->arr = (st)->buf, (st)->cap = PTO_ARRAY_SIZE((st)->buf))

static void state_reset(PtoOpState *st, PtoContext *ctx) {
  st->ctx = ctx;
  st->name = NULL;
  st->def = NULL;
  st->loc = NULL;
  st->num_operands = st->num_results = st->num_attrs = 0;
  st->num_regions = st->num_successors = 0;
  STATE_INLINE(st, operands, cap_operands, inline_operands);
  STATE_INLINE(st, result_types, cap_results, inline_result_types);
  STATE_INLINE(st, attrs, cap_attrs, inline_attrs);
  STATE_INLINE(st, regions, cap_regions, inline_regions);
  STATE_INLINE(st, successors, cap_successors, inline_successors);
}

void pto_op_state_init(PtoOpState *st, PtoContext *ctx, const char *name,
                       PtoLoc *loc) {
  state_reset(st, ctx);
  if (name) {
    st->name = pto_ident_cstr(ctx, name);
    st->def = st->name->opdef;
  }
  st->loc = loc ? loc : ctx->l_unknown;
}

/* Grows one of the state's arrays to `need` elements; `buf` is its inline
 * buffer, which is never freed or reallocated. */
static void *state_grow(void *arr, unsigned *cap, unsigned need, size_t elem,
                        void *buf) {
  unsigned ncap = *cap ? *cap * 2 : 4; /* 0: a zero-filled state */
  while (ncap < need) ncap *= 2;
  void *n;
  if (arr == buf) {
    n = pto_malloc(ncap * elem);
    memcpy(n, arr, *cap * elem);
  } else {
    n = pto_realloc(arr, ncap * elem);
  }
  *cap = ncap;
  return n;
}
#define STATE_GROW(st, arr, num, cap, buf, extra)                          \
  do {                                                                     \
    if ((st)->num + (extra) > (st)->cap)                                   \
      (st)->arr = state_grow((st)->arr, &(st)->cap, (st)->num + (extra),   \
                             sizeof(*(st)->arr), (st)->buf);               \
  } while (0)

static void state_free(void *arr, void *buf) {
  if (arr != buf) pto_free(arr);
}

void pto_op_state_release(PtoOpState *st) {
  for (unsigned i = 0; i < st->num_regions; i++)
    if (st->regions[i]) pto_region_destroy(st->regions[i]);
  state_free(st->operands, st->inline_operands);
  state_free(st->result_types, st->inline_result_types);
  state_free(st->attrs, st->inline_attrs);
  state_free(st->regions, st->inline_regions);
  state_free(st->successors, st->inline_successors);
  state_reset(st, st->ctx);
}

void pto_op_state_add_operand(PtoOpState *st, PtoValue *v) {
  STATE_GROW(st, operands, num_operands, cap_operands, inline_operands, 1);
  st->operands[st->num_operands++] = v;
}

void pto_op_state_add_operands(PtoOpState *st, PtoValue *const *v,
                               unsigned n) {
  STATE_GROW(st, operands, num_operands, cap_operands, inline_operands, n);
  for (unsigned i = 0; i < n; i++) st->operands[st->num_operands++] = v[i];
}

void pto_op_state_add_result(PtoOpState *st, PtoType *t) {
  STATE_GROW(st, result_types, num_results, cap_results, inline_result_types,
             1);
  st->result_types[st->num_results++] = t;
}

void pto_op_state_add_results(PtoOpState *st, PtoType *const *t, unsigned n) {
  STATE_GROW(st, result_types, num_results, cap_results, inline_result_types,
             n);
  for (unsigned i = 0; i < n; i++) st->result_types[st->num_results++] = t[i];
}

void pto_op_state_set_attr(PtoOpState *st, PtoIdent *name, PtoAttr *a) {
  for (unsigned i = 0; i < st->num_attrs; i++)
    if (st->attrs[i].name == name) {
      st->attrs[i].value = a;
      return;
    }
  STATE_GROW(st, attrs, num_attrs, cap_attrs, inline_attrs, 1);
  st->attrs[st->num_attrs].name = name;
  st->attrs[st->num_attrs].value = a;
  st->num_attrs++;
}

void pto_op_state_add_attr(PtoOpState *st, const char *name, PtoAttr *a) {
  pto_op_state_set_attr(st, pto_ident_cstr(st->ctx, name), a);
}

PtoAttr *pto_op_state_get_attr(const PtoOpState *st, const char *name) {
  for (unsigned i = 0; i < st->num_attrs; i++)
    if (strcmp(st->attrs[i].name->str, name) == 0) return st->attrs[i].value;
  return NULL;
}

PtoRegion *pto_op_state_add_region(PtoOpState *st) {
  STATE_GROW(st, regions, num_regions, cap_regions, inline_regions, 1);
  PtoRegion *r = pto_region_create(st->ctx);
  st->regions[st->num_regions++] = r;
  return r;
}

void pto_op_state_add_successor(PtoOpState *st, PtoBlock *b) {
  STATE_GROW(st, successors, num_successors, cap_successors,
             inline_successors, 1);
  st->successors[st->num_successors++] = b;
}

/* ------------------------------------------------------------------ */
/* Creation and destruction                                             */
/* ------------------------------------------------------------------ */

static int attr_name_cmp(const PtoIdent *a, const PtoIdent *b) {
  return strcmp(a->str, b->str);
}

/* Sorted insert into the op's attribute array. */
static void op_put_attr(PtoOp *op, PtoIdent *name, PtoAttr *a) {
  unsigned lo = 0, hi = op->num_attrs;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    int c = op->attrs[mid].name == name ? 0
                                        : attr_name_cmp(op->attrs[mid].name, name);
    if (c == 0) {
      op->attrs[mid].value = a;
      return;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (op->num_attrs == op->cap_attrs) {
    /* the first array is part of the op's allocation: never freed alone */
    unsigned ncap = op->cap_attrs ? op->cap_attrs * 2 : 2;
    PtoNamedAttr *na = pto_ir_alloc(op_ctx(op), ncap * sizeof *na);
    if (op->num_attrs) memcpy(na, op->attrs, op->num_attrs * sizeof *na);
    if (!op->attrs_inline)
      pto_ir_free(op_ctx(op), op->attrs, op->cap_attrs * sizeof *na);
    op->attrs = na;
    op->attrs_inline = false;
    op->cap_attrs = ncap;
  }
  memmove(&op->attrs[lo + 1], &op->attrs[lo],
          (op->num_attrs - lo) * sizeof *op->attrs);
  op->attrs[lo].name = name;
  op->attrs[lo].value = a;
  op->num_attrs++;
}

void pto_region_init(PtoRegion *r, PtoContext *ctx, PtoOp *parent) {
  pto_list_init(&r->blocks);
  r->parent = parent;
  r->ctx = ctx;
}

PtoOp *pto_op_create(PtoOpState *st) {
  PtoContext *ctx = st->ctx;
  assert(st->num_regions <= UINT16_MAX && st->num_successors <= UINT16_MAX);
  size_t size = sizeof(PtoOp) + st->num_results * sizeof(PtoValue) +
                st->num_regions * sizeof(PtoRegion) +
                st->num_successors * sizeof(PtoBlock *) +
                st->num_operands * sizeof(PtoUse) +
                st->num_attrs * sizeof(PtoNamedAttr);
  assert(st->name && st->name->ctx == ctx);
  PtoOp *op = pto_ir_alloc(ctx, size);
  memset(op, 0, sizeof *op);
  op->alloc_size = (uint32_t)size;
  op->name = st->name;
  op->loc_bits = (uintptr_t)(st->loc ? st->loc : ctx->l_unknown);
  pto_list_init(&op->node);
  char *tail = (char *)(op->results + st->num_results);
  op->num_results = st->num_results;
  for (unsigned i = 0; i < st->num_results; i++) {
    PtoValue *v = &op->results[i];
    v->type = st->result_types[i];
    v->first_use = NULL;
    v->index = i;
    v->is_arg = 0;
    v->scratch = 0;
  }
  op->num_regions = (uint16_t)st->num_regions;
  tail += st->num_regions * sizeof(PtoRegion);
  for (unsigned i = 0; i < st->num_regions; i++) {
    pto_region_init(&op_regions(op)[i], ctx, op);
    if (st->regions[i]) {
      pto_region_take_body(&op_regions(op)[i], st->regions[i]);
      pto_region_destroy(st->regions[i]);
      st->regions[i] = NULL;
    }
  }
  op->num_successors = (uint16_t)st->num_successors;
  for (unsigned i = 0; i < st->num_successors; i++)
    op_successors(op)[i] = st->successors[i];
  tail += st->num_successors * sizeof(PtoBlock *);
  op->operands = (PtoUse *)tail;
  op->operands_inline = true;
  op->num_operands = op->cap_operands = st->num_operands;
  for (unsigned i = 0; i < st->num_operands; i++) {
    op->operands[i].owner = op;
    pto_use_link(&op->operands[i], st->operands[i]);
  }
  tail += st->num_operands * sizeof(PtoUse);
  op->attrs = (PtoNamedAttr *)tail;
  op->attrs_inline = true;
  op->cap_attrs = st->num_attrs;
  for (unsigned i = 0; i < st->num_attrs; i++)
    op_put_attr(op, st->attrs[i].name, st->attrs[i].value);
  st->num_regions = 0;
  pto_op_state_release(st);
  return op;
}

PtoOp *pto_op_create_simple(PtoContext *ctx, const char *name, PtoLoc *loc,
                            PtoValue *const *operands, unsigned nops,
                            PtoType *const *result_types, unsigned nres,
                            const PtoNamedAttr *attrs, unsigned nattrs) {
  PtoOpState st;
  pto_op_state_init(&st, ctx, name, loc);
  pto_op_state_add_operands(&st, operands, nops);
  pto_op_state_add_results(&st, result_types, nres);
  for (unsigned i = 0; i < nattrs; i++)
    pto_op_state_set_attr(&st, attrs[i].name, attrs[i].value);
  return pto_op_create(&st);
}

void pto_region_clear(PtoRegion *r) {
  /* Drop every use inside the region first so that blocks can be destroyed
   * in any order even when values are used across blocks. */
  PTO_FOR_BLOCKS(r, b) {
    PTO_FOR_OPS(b, op) {
      for (unsigned i = 0; i < op->num_operands; i++)
        pto_use_unlink(&op->operands[i]);
    }
  }
  while (!pto_list_empty(&r->blocks)) {
    PtoBlock *b = block_from_node(r->blocks.next);
    pto_block_erase(b);
  }
}

void pto_op_destroy(PtoOp *op) {
  assert(!op->block && "destroying an op still in a block");
  for (unsigned i = 0; i < op->num_operands; i++)
    pto_use_unlink(&op->operands[i]);
  /* Remaining uses (only in IR being torn down after an error) are
   * detached rather than left dangling. */
  for (unsigned i = 0; i < op->num_results; i++)
    while (op->results[i].first_use) pto_use_unlink(op->results[i].first_use);
  for (unsigned i = 0; i < op->num_regions; i++) pto_region_clear(&op_regions(op)[i]);
  if (!op->operands_inline)
    pto_ir_free(op_ctx(op), op->operands, op->cap_operands * sizeof(PtoUse));
  if (!op->attrs_inline)
    pto_ir_free(op_ctx(op), op->attrs, op->cap_attrs * sizeof(PtoNamedAttr));
  pto_ir_free(op_ctx(op), op, op->alloc_size);
}

void pto_op_remove(PtoOp *op) {
  if (!op->block) return;
  pto_list_remove(&op->node);
  op->block = NULL;
}

void pto_op_erase(PtoOp *op) {
  pto_op_remove(op);
  pto_op_destroy(op);
}

void pto_block_insert_node(PtoBlock *b, PtoListNode *pos, PtoOp *op) {
  assert(!op->block);
  pto_list_insert_before(pos, &op->node);
  op->block = b;
  /* appending keeps the order valid when the previous op is numbered */
  if (b->order_valid) {
    if (pos == &b->ops && op->node.prev != &b->ops) {
      op->order = op_from_node(op->node.prev)->order + 1;
    } else if (pos == &b->ops) {
      op->order = 0;
    } else {
      b->order_valid = false;
    }
  }
}

void pto_op_move_before(PtoOp *op, PtoOp *pos) {
  pto_op_remove(op);
  pto_block_insert_node(pos->block, &pos->node, op);
}

void pto_op_move_after(PtoOp *op, PtoOp *pos) {
  pto_op_remove(op);
  pto_block_insert_node(pos->block, pos->node.next, op);
}

/* ------------------------------------------------------------------ */
/* Accessors                                                            */
/* ------------------------------------------------------------------ */

PtoContext *pto_op_ctx(const PtoOp *op) { return op_ctx(op); }
PtoIdent *pto_op_name(const PtoOp *op) { return op->name; }
const char *pto_op_name_str(const PtoOp *op) { return op->name->str; }
const PtoOpDef *pto_op_def(const PtoOp *op) { return op_def(op); }
bool pto_op_is(const PtoOp *op, const char *name) {
  return op && strcmp(op->name->str, name) == 0;
}
bool pto_op_has_trait(const PtoOp *op, uint32_t trait) {
  return op_def(op) && (op_def(op)->traits & trait) == trait;
}
PtoLoc *pto_op_loc(const PtoOp *op) { return op_loc(op); }
void pto_op_set_loc(PtoOp *op, PtoLoc *loc) { op->loc_bits = (uintptr_t)loc; }
PtoBlock *pto_op_block(const PtoOp *op) { return op->block; }
PtoRegion *pto_op_parent_region(const PtoOp *op) {
  return op->block ? op->block->parent : NULL;
}
PtoOp *pto_op_parent_op(const PtoOp *op) {
  PtoRegion *r = pto_op_parent_region(op);
  return r ? r->parent : NULL;
}
PtoOp *pto_op_next(const PtoOp *op) {
  if (!op->block || op->node.next == &op->block->ops) return NULL;
  return op_from_node(op->node.next);
}
PtoOp *pto_op_prev(const PtoOp *op) {
  if (!op->block || op->node.prev == &op->block->ops) return NULL;
  return op_from_node(op->node.prev);
}
bool pto_op_is_ancestor_of(const PtoOp *op, const PtoOp *other) {
  for (const PtoOp *o = other; o; o = pto_op_parent_op(o))
    if (o == op) return true;
  return false;
}

static void block_renumber(PtoBlock *b) {
  uint32_t i = 0;
  for (PtoListNode *n = b->ops.next; n != &b->ops; n = n->next)
    op_from_node(n)->order = i++;
  b->order_valid = true;
}

bool pto_op_is_before_in_block(const PtoOp *a, const PtoOp *b) {
  assert(a->block && a->block == b->block);
  if (!a->block->order_valid) block_renumber(a->block);
  return a->order < b->order;
}

unsigned pto_op_num_operands(const PtoOp *op) { return op->num_operands; }
PtoValue *pto_op_operand(const PtoOp *op, unsigned i) {
  return op->operands[i].value;
}
void pto_op_set_operand(PtoOp *op, unsigned i, PtoValue *v) {
  PtoUse *u = &op->operands[i];
  if (u->value == v) return;
  pto_use_unlink(u);
  pto_use_link(u, v);
}

void pto_op_set_operands(PtoOp *op, unsigned start, unsigned count,
                         PtoValue *const *vals, unsigned n) {
  assert(start + count <= op->num_operands);
  unsigned newn = op->num_operands - count + n;
  /* Unlink everything from `start` on, rebuild the tail. */
  unsigned tail_n = op->num_operands - start - count;
  PtoValue *tmp_buf[16];
  PtoValue **tail = tail_n <= 16 ? tmp_buf : pto_malloc(tail_n * sizeof *tail);
  for (unsigned i = 0; i < tail_n; i++)
    tail[i] = op->operands[start + count + i].value;
  for (unsigned i = start; i < op->num_operands; i++)
    pto_use_unlink(&op->operands[i]);
  if (newn > op->cap_operands) {
    PtoUse *nu = pto_ir_alloc(op_ctx(op), newn * sizeof(PtoUse));
    for (unsigned i = 0; i < start; i++) {
      PtoValue *v = op->operands[i].value;
      pto_use_unlink(&op->operands[i]);
      nu[i].owner = op;
      pto_use_link(&nu[i], v);
    }
    if (!op->operands_inline)
      pto_ir_free(op_ctx(op), op->operands, op->cap_operands * sizeof(PtoUse));
    op->operands = nu;
    op->operands_inline = false;
    op->cap_operands = newn;
  }
  for (unsigned i = 0; i < n; i++) {
    op->operands[start + i].owner = op;
    pto_use_link(&op->operands[start + i], vals[i]);
  }
  for (unsigned i = 0; i < tail_n; i++) {
    op->operands[start + n + i].owner = op;
    pto_use_link(&op->operands[start + n + i], tail[i]);
  }
  op->num_operands = newn;
  if (tail != tmp_buf) pto_free(tail);
}

unsigned pto_op_num_results(const PtoOp *op) { return op->num_results; }
PtoValue *pto_op_result(const PtoOp *op, unsigned i) {
  return (PtoValue *)&op->results[i];
}
unsigned pto_op_num_regions(const PtoOp *op) { return op->num_regions; }
PtoRegion *pto_op_region(const PtoOp *op, unsigned i) {
  return &op_regions(op)[i];
}
unsigned pto_op_num_successors(const PtoOp *op) { return op->num_successors; }
PtoBlock *pto_op_successor(const PtoOp *op, unsigned i) {
  return op_successors(op)[i];
}
void pto_op_set_successor(PtoOp *op, unsigned i, PtoBlock *b) {
  op_successors(op)[i] = b;
}

unsigned pto_op_num_attrs(const PtoOp *op) { return op->num_attrs; }
const PtoNamedAttr *pto_op_attrs(const PtoOp *op) { return op->attrs; }

PtoAttr *pto_op_attr_id(const PtoOp *op, const PtoIdent *name) {
  for (unsigned i = 0; i < op->num_attrs; i++)
    if (op->attrs[i].name == name) return op->attrs[i].value;
  return NULL;
}

PtoIdent *const *pto_op_dialect_attr_names(const PtoOp *op) {
  return op->name->dialect_attrs;
}

PtoAttr *pto_op_attr(const PtoOp *op, const char *name) {
  for (unsigned i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name->str, name) == 0) return op->attrs[i].value;
  return NULL;
}

void pto_op_set_attr_id(PtoOp *op, PtoIdent *name, PtoAttr *a) {
  if (!a) {
    pto_op_remove_attr(op, name->str);
    return;
  }
  op_put_attr(op, name, a);
}

void pto_op_set_attr(PtoOp *op, const char *name, PtoAttr *a) {
  pto_op_set_attr_id(op, pto_ident_cstr(op_ctx(op), name), a);
}

bool pto_op_remove_attr(PtoOp *op, const char *name) {
  for (unsigned i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name->str, name) == 0) {
      memmove(&op->attrs[i], &op->attrs[i + 1],
              (op->num_attrs - i - 1) * sizeof *op->attrs);
      op->num_attrs--;
      return true;
    }
  return false;
}

int64_t pto_op_attr_int(const PtoOp *op, const char *name, int64_t dflt) {
  PtoAttr *a = pto_op_attr(op, name);
  return a && a->kind == PTO_ATTR_INTEGER ? a->u.i : dflt;
}

bool pto_op_attr_flag(const PtoOp *op, const char *name) {
  PtoAttr *a = pto_op_attr(op, name);
  if (!a) return false;
  if (a->kind == PTO_ATTR_UNIT) return true;
  return a->kind == PTO_ATTR_INTEGER && a->u.i != 0;
}

const char *pto_op_attr_str(const PtoOp *op, const char *name) {
  return pto_attr_str(pto_op_attr(op, name));
}

static bool region_effect_free(PtoRegion *r) {
  PTO_FOR_BLOCKS(r, b) {
    PTO_FOR_OPS(b, o) {
      if (pto_op_has_trait(o, PTO_TRAIT_TERMINATOR) &&
          !pto_op_has_trait(o, PTO_TRAIT_RETURN_LIKE) && !o->num_successors)
        continue; /* scf.yield-like terminators only forward values */
      if (!pto_op_is_effect_free(o)) return false;
    }
  }
  return true;
}

bool pto_op_is_effect_free(const PtoOp *op) {
  if (!op_def(op)) return false;
  if (op_def(op)->traits & PTO_TRAIT_PURE) {
    if (!(op_def(op)->traits & PTO_TRAIT_RECURSIVE_EFFECTS)) return true;
  }
  if (op_def(op)->traits & PTO_TRAIT_RECURSIVE_EFFECTS) {
    for (unsigned i = 0; i < op->num_regions; i++)
      if (!region_effect_free(&op_regions(op)[i])) return false;
    return true;
  }
  return false;
}

PtoAttr *pto_op_constant_value(const PtoOp *op) {
  if (!pto_op_has_trait(op, PTO_TRAIT_CONSTANT_LIKE)) return NULL;
  return pto_op_attr(op, "value");
}

/* ------------------------------------------------------------------ */
/* Value maps and cloning                                               */
/* ------------------------------------------------------------------ */

struct PtoValueMap {
  PtoPtrMap values;
  PtoPtrMap blocks;
};

PtoValueMap *pto_value_map_create(void) {
  PtoValueMap *m = pto_malloc(sizeof *m);
  pto_ptrmap_init(&m->values);
  pto_ptrmap_init(&m->blocks);
  return m;
}
void pto_value_map_destroy(PtoValueMap *m) {
  if (!m) return;
  pto_ptrmap_release(&m->values);
  pto_ptrmap_release(&m->blocks);
  pto_free(m);
}
void pto_value_map_set(PtoValueMap *m, const PtoValue *from, PtoValue *to) {
  pto_ptrmap_put(&m->values, (uintptr_t)from, to);
}
PtoValue *pto_value_map_get(const PtoValueMap *m, const PtoValue *from) {
  return m ? pto_ptrmap_get(&m->values, (uintptr_t)from) : NULL;
}
PtoValue *pto_value_map_lookup(const PtoValueMap *m, PtoValue *from) {
  PtoValue *v = pto_value_map_get(m, from);
  return v ? v : from;
}
void pto_value_map_set_block(PtoValueMap *m, const PtoBlock *from,
                             PtoBlock *to) {
  pto_ptrmap_put(&m->blocks, (uintptr_t)from, to);
}
PtoBlock *pto_value_map_get_block(const PtoValueMap *m, const PtoBlock *from) {
  return m ? pto_ptrmap_get(&m->blocks, (uintptr_t)from) : NULL;
}

/* An operand of a clone that referred to a value not cloned yet: a use
 * that comes before its definition in the text (a block dominated by a
 * later one, or a graph region). Fixed once everything is cloned. */
typedef struct CloneFixup {
  PtoOp *op;
  unsigned index;
  PtoValue *orig;
} CloneFixup;

typedef struct Cloner {
  PtoValueMap *map;
  PTO_VEC(CloneFixup) fixups;
} Cloner;

static PtoOp *clone_op(PtoOp *op, Cloner *c);

static void clone_finish(Cloner *c) {
  for (uint32_t i = 0; i < c->fixups.len; i++) {
    CloneFixup *f = &c->fixups.data[i];
    PtoValue *v = pto_value_map_get(c->map, f->orig);
    if (v) pto_op_set_operand(f->op, f->index, v);
  }
  pto_vec_free(&c->fixups);
}

static void clone_region_into(PtoRegion *from, PtoRegion *to, Cloner *c) {
  PtoValueMap *map = c->map;
  /* Blocks first (successors may refer forward), then their ops. */
  PTO_FOR_BLOCKS(from, b) {
    PtoBlock *nb = pto_block_create(to->ctx);
    for (uint32_t i = 0; i < b->nargs; i++) {
      PtoValue *na = pto_block_add_arg(nb, b->args[i]->v.type, b->args[i]->loc);
      pto_value_map_set(map, &b->args[i]->v, na);
    }
    pto_value_map_set_block(map, b, nb);
    pto_region_push_block(to, nb);
  }
  PTO_FOR_BLOCKS(from, b) {
    PtoBlock *nb = pto_value_map_get_block(map, b);
    PTO_FOR_OPS(b, o) pto_block_append(nb, clone_op(o, c));
  }
}

void pto_region_clone_into(PtoRegion *from, PtoRegion *to, PtoValueMap *map) {
  PtoValueMap *own = map ? NULL : pto_value_map_create();
  Cloner c = {map ? map : own, {0}};
  clone_region_into(from, to, &c);
  clone_finish(&c);
  pto_value_map_destroy(own);
}

static PtoOp *clone_op(PtoOp *op, Cloner *c) {
  PtoValueMap *map = c->map;
  PtoOpState st;
  pto_op_state_init(&st, op_ctx(op), NULL, NULL);
  st.name = op->name;
  st.def = op_def(op);
  for (unsigned i = 0; i < op->num_operands; i++)
    pto_op_state_add_operand(&st,
                             pto_value_map_lookup(map, op->operands[i].value));
  for (unsigned i = 0; i < op->num_results; i++)
    pto_op_state_add_result(&st, op->results[i].type);
  for (unsigned i = 0; i < op->num_attrs; i++)
    pto_op_state_set_attr(&st, op->attrs[i].name, op->attrs[i].value);
  for (unsigned i = 0; i < op->num_successors; i++) {
    PtoBlock *s = pto_value_map_get_block(map, op_successors(op)[i]);
    pto_op_state_add_successor(&st, s ? s : op_successors(op)[i]);
  }
  for (unsigned i = 0; i < op->num_regions; i++) pto_op_state_add_region(&st);
  PtoRegion **regs = NULL;
  unsigned nregs = st.num_regions;
  if (nregs) {
    regs = pto_malloc(nregs * sizeof *regs);
    memcpy(regs, st.regions, nregs * sizeof *regs);
  }
  for (unsigned i = 0; i < nregs; i++)
    clone_region_into(&op_regions(op)[i], regs[i], c);
  pto_free(regs);
  PtoOp *nop = pto_op_create(&st);
  nop->loc_bits = op->loc_bits; /* a packed position stays packed */
  for (unsigned i = 0; i < op->num_operands; i++) {
    PtoValue *v = op->operands[i].value;
    if (v && !pto_value_map_get(map, v)) {
      CloneFixup f = {nop, i, v};
      pto_vec_push(&c->fixups, f);
    }
  }
  for (unsigned i = 0; i < op->num_results; i++)
    pto_value_map_set(map, &op->results[i], &nop->results[i]);
  return nop;
}

PtoOp *pto_op_clone(PtoOp *op, PtoValueMap *map) {
  PtoValueMap *own = map ? NULL : pto_value_map_create();
  Cloner c = {map ? map : own, {0}};
  PtoOp *clone = clone_op(op, &c);
  clone_finish(&c);
  pto_value_map_destroy(own);
  return clone;
}
