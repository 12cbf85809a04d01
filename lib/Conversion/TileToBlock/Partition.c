/* cv-partition, first half: cuts the ops of each block of a Tile-level
 * function into host ops and groups of tile ops, one core type each.
 * Ops are visited once, in program order; a compute op joins the groups of
 * its tile operands (same block, same core) when the union fits the
 * core's buffers (peak live bytes per memory space, from a scan of the
 * union in program order) and stays acyclic (a bounded search forward from
 * the groups' successors), and starts a group of its own otherwise. Views
 * are not grouped: every group that reads one loads it itself. */
#include "Conversion/TileToBlock/TileToBlock.h"

#include "pto/Origin.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <string.h>

typedef PTO_VEC(PtoValue *) ValVec;

/* How far the acyclicity search looks before refusing a merge. */
enum { CYCLE_SEARCH_BUDGET = 4096 };
/* How many uses of a tile read_in_group looks at. */
enum { REREAD_SEARCH_USES = 64 };

static uint32_t new_op_slot(Partition *p, PtoOp *op, uint32_t pos) {
  OpInfo o = {pos, 0, p->valinfo.len, 0};
  uint32_t slot = p->opinfo.len;
  pto_vec_push(&p->opinfo, o);
  ValInfo none = {0, 0, 0, 0};
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    pto_vec_push(&p->valinfo, none);
  pto_ptrmap_put(&p->slot_of, (uintptr_t)op, (void *)(uintptr_t)(slot + 1));
  return slot;
}

void part_number_ops(Partition *p, PtoOp *func) {
  PtoOp **ops;
  unsigned n = pto_origin_ops(func, &ops);
  pto_vec_reserve(&p->opinfo, n + 1);
  for (unsigned i = 0; i < n; i++) new_op_slot(p, ops[i], i + 1);
  pto_free(ops);
}

uint32_t part_op_slot(Partition *p, PtoOp *op) {
  /* ops are not freed before the function is done (reset_func clears the
   * cache), so a cached pointer is the op it was */
  /* multiplicative: ops sit at a fixed stride in their arena */
  uint32_t h = (uint32_t)(((uint64_t)(uintptr_t)op * 0x9E3779B97F4A7C15u) >>
                          (64 - SLOT_CACHE_BITS));
  if (p->slot_cache[h].op == op) return p->slot_cache[h].slot;
  uintptr_t s = (uintptr_t)pto_ptrmap_get(&p->slot_of, (uintptr_t)op);
  uint32_t slot = s ? (uint32_t)(s - 1) : new_op_slot(p, op, 0);
  p->slot_cache[h].op = op;
  p->slot_cache[h].slot = slot;
  return slot;
}

/* The slot of value v in p->valinfo. */
static uint32_t val_slot(Partition *p, PtoValue *v) {
  PtoOp *d = pto_value_def_op(v);
  if (d) return part_op_info(p, d)->vbase + pto_value_index(v);
  uintptr_t s = (uintptr_t)pto_ptrmap_get(&p->slot_of, (uintptr_t)v);
  if (s) return (uint32_t)(s - 1);
  ValInfo none = {0, 0, 0, 0};
  pto_vec_push(&p->valinfo, none);
  pto_ptrmap_put(&p->slot_of, (uintptr_t)v, (void *)(uintptr_t)p->valinfo.len);
  return p->valinfo.len - 1;
}

/* Valid until the next op or value gets a slot. */
static ValInfo *val_info(Partition *p, PtoValue *v) {
  uint32_t slot = val_slot(p, v);
  return &p->valinfo.data[slot];
}

static uint32_t node_of_slot(Partition *p, uint32_t slot) {
  uint32_t n = p->opinfo.data[slot].node;
  return n ? node_find(p, n - 1) : UINT32_MAX;
}

uint32_t part_node_of_op(Partition *p, PtoOp *op) {
  return node_of_slot(p, part_op_slot(p, op));
}

static uint32_t new_node(Partition *p, int kind, PtoOp *op, PtoBlock *b,
                         int core) {
  Node n;
  memset(&n, 0, sizeof n);
  uint32_t id = p->nodes.len;
  n.parent = id;
  n.kind = (uint8_t)kind;
  n.core = (uint8_t)core;
  n.op = op;
  n.block = b;
  uint32_t slot = part_op_slot(p, op);
  n.pos = p->opinfo.data[slot].pos;
  pto_vec_push(&p->nodes, n);
  if (kind == NODE_GROUP) pto_vec_push(&p->nodes.data[id].ops, op);
  p->opinfo.data[slot].node = id + 1;
  return id;
}

/* Edges only order nodes of one block: a nested block's nodes are ordered
 * among themselves, and its host op stands for them outside. */
static void add_edge(Partition *p, uint32_t from, uint32_t to) {
  from = node_find(p, from);
  to = node_find(p, to);
  if (from == to || p->nodes.data[from].block != p->nodes.data[to].block)
    return;
  pto_vec_push(&p->nodes.data[from].succ, to);
}

/* ------------------------------------------------------------------ */
/* GM tensors: versions and their roots                                 */
/* ------------------------------------------------------------------ */

static bool defined_inside(PtoValue *v, PtoOp *host) {
  PtoOp *d = pto_value_def_op(v);
  if (d) return pto_op_is_ancestor_of(host, d);
  PtoBlock *ob = pto_value_owner_block(v);
  PtoOp *parent = ob ? pto_block_parent_op(ob) : NULL;
  return parent && pto_op_is_ancestor_of(host, parent);
}

static PtoValue *version_of(PtoValue *v);

/* The tensor from outside scf.if `op` that region `r` yields a version of
 * as result #i (what the branch updates in place), or NULL when that
 * version starts inside the branch. */
static PtoValue *if_init(PtoOp *op, unsigned i, unsigned r) {
  PtoBlock *blk = pto_region_first_block(pto_op_region(op, r));
  PtoOp *y = blk ? pto_block_terminator(blk) : NULL;
  PtoValue *x = y && i < pto_op_num_operands(y) ? pto_op_operand(y, i) : NULL;
  while (x && defined_inside(x, op)) x = version_of(x);
  return x;
}

/* The tensor a version updates (or carries), or NULL for a root. */
static PtoValue *version_of(PtoValue *v) {
  PtoOp *d = pto_value_def_op(v);
  if (d) {
    PtoTileOp id = pto_tile_op_id(d);
    if (part_writes_tensor(id))
      return pto_tile_get_tensor(d);
    if (pto_op_is(d, "scf.for"))
      return pto_scf_for_init(d, pto_value_index(v));
    if (pto_op_is(d, "scf.if")) {
      PtoValue *init = if_init(d, pto_value_index(v), 0);
      if (init) return init;
      PtoBlock *then = pto_region_first_block(pto_op_region(d, 0));
      PtoOp *y = then ? pto_block_terminator(then) : NULL;
      return y && pto_value_index(v) < pto_op_num_operands(y)
                 ? pto_op_operand(y, pto_value_index(v))
                 : NULL;
    }
    return NULL;
  }
  PtoBlock *b = pto_value_owner_block(v);
  PtoOp *parent = b ? pto_block_parent_op(b) : NULL;
  if (parent && pto_op_is(parent, "scf.for") && pto_value_index(v) >= 1)
    return pto_scf_for_init(parent, pto_value_index(v) - 1);
  return NULL;
}

/* Whether `op`, directly in a branch of an scf.if, updates `v` (from
 * outside the scf.if) as a step of the version the branch yields: the
 * scf.if updates v in place, and at run time one branch does it for it. */
static bool branch_carries(PtoOp *op, PtoValue *v) {
  PtoBlock *blk = pto_op_block(op);
  PtoOp *ifop = blk ? pto_block_parent_op(blk) : NULL;
  if (!ifop || !pto_op_is(ifop, "scf.if") || defined_inside(v, ifop)) return false;
  PtoOp *y = pto_block_terminator(blk);
  for (unsigned j = 0; y && j < pto_op_num_operands(y); j++)
    for (PtoValue *x = pto_op_operand(y, j); x && defined_inside(x, ifop);
         x = version_of(x))
      if (pto_value_def_op(x) == op) {
        if (version_of(x) == v) return true;
        break;
      }
  return false;
}

PtoValue *part_root(Partition *p, PtoValue *v) {
  ValVec path = {0};
  PtoValue *r = v;
  for (;;) {
    PtoValue *known = pto_ptrmap_get(&p->root, (uintptr_t)r);
    if (known) {
      r = known;
      break;
    }
    PtoValue *next = version_of(r);
    if (!next) break;
    pto_vec_push(&path, r);
    r = next;
  }
  for (uint32_t i = 0; i < path.len; i++)
    pto_ptrmap_put(&p->root, (uintptr_t)path.data[i], r);
  pto_ptrmap_put(&p->root, (uintptr_t)v, r);
  pto_vec_free(&path);
  return r;
}

static void note_read(Partition *p, uint32_t n, PtoValue *v) {
  U32Vec *r = pto_ptrmap_get(&p->readers, (uintptr_t)v);
  if (!r) {
    r = pto_calloc(1, sizeof *r);
    pto_ptrmap_put(&p->readers, (uintptr_t)v, r);
  }
  pto_vec_push(r, n);
  uintptr_t w = (uintptr_t)pto_ptrmap_get(&p->writer, (uintptr_t)v);
  if (w) add_edge(p, n, (uint32_t)(w - 1)); /* read before it is updated */
}

/* Node n updates tensor version v in place: every reader of v runs
 * before it, and no one else may update v (the Tile level's value
 * semantics would need a copy). */
static PtoResult note_update(Partition *p, uint32_t n, PtoOp *op, PtoValue *v) {
  if (pto_ptrmap_get(&p->writer, (uintptr_t)v))
    return pto_op_emit_error(op, "updates a tensor that another op already "
                                 "updated; cv-partition writes GM tensors in "
                                 "place and needs each version updated once");
  if (pto_value_parent_block(v) != pto_op_block(op) && !branch_carries(op, v))
    return pto_op_emit_error(op, "updates a tensor defined outside its block; "
                                 "cv-partition writes GM tensors in place and "
                                 "needs loops to carry the tensors they "
                                 "update (iter_args)");
  U32Vec *r = pto_ptrmap_get(&p->readers, (uintptr_t)v);
  for (uint32_t i = 0; r && i < r->len; i++) add_edge(p, r->data[i], n);
  pto_ptrmap_put(&p->writer, (uintptr_t)v, (void *)(uintptr_t)(n + 1));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Forks: a tensor version updated twice gets a copy                    */
/* ------------------------------------------------------------------ */

/* Bytes of one tile of the copy: small enough for any core's buffers. */
enum { COPY_TILE_BYTES = 16384 };

/* A copy of static tensor v into `dst` (a new workspace when NULL),
 * built before `at` from tiles of its trailing dims: the last version of
 * dst; NULL when v's shape does not allow it. */
static PtoValue *copy_tensor(Partition *p, PtoValue *v, PtoValue *dst, PtoOp *at) {
  PtoType *t = pto_value_type(v);
  unsigned rank = pto_type_tensor_rank(t);
  if (!pto_type_tensor_is_static(t) || rank == 0) return NULL;
  const int64_t *shape = pto_type_tensor_shape(t);
  PtoType *elem = pto_type_tensor_elem(t);
  unsigned bits = pto_type_bitwidth(elem);
  uint64_t esize = bits < 8 ? 1 : bits / 8, bytes = esize;
  unsigned k = 0; /* trailing dims in a tile */
  while (k < rank && k < PTO_TILE_MAX_RANK &&
         bytes * (uint64_t)shape[rank - 1 - k] <= COPY_TILE_BYTES)
    bytes *= (uint64_t)shape[rank - 1 - k++];
  if (!k) return NULL;
  PtoType *tile = pto_tile_type(p->ctx, shape + rank - k, k, elem);
  if (!tile) return NULL;
  PtoBuilder b;
  pto_builder_init(&b, p->ctx);
  pto_builder_set_before(&b, at);
  b.loc = pto_op_loc(at);
  if (!dst) dst = pto_tile_build_empty(&b, t, NULL, 0);
  int64_t offs[PTO_MAX_RANK] = {0};
  for (;;) {
    PtoValue *x = pto_tile_build_view(&b, v, offs, NULL, tile);
    dst = pto_tile_build_assemble(&b, x, dst, offs, NULL);
    unsigned d = rank - k;
    while (d > 0 && ++offs[d - 1] == shape[d - 1]) offs[--d] = 0;
    if (d == 0) break;
  }
  return dst;
}

static bool is_updater(PtoOp *op) {
  PtoTileOp id = pto_tile_op_id(op);
  return part_writes_tensor(id) ||
         pto_op_is(op, "scf.for");
}

typedef struct Forks {
  Partition *p;
  PtoPtrMap updated; /* tensor version -> 1 */
  PtoResult r;
} Forks;

/* The Tile level has value semantics; the Block level updates GM tensors
 * in place. A version that a second op updates (after cse merged two
 * equal tensors, say), or that an op in a nested block updates, is copied
 * first, so that every update is the only one of its version. */
/* How many ops read_after_update looks at from an update on. */
enum { READ_AFTER_BUDGET = 1024 };

/* Puts into `readers` the ops that read tensor v's data, other than
 * `skip`: its users, through the views and reshapes that each kernel
 * recomputes (part_is_remat). Returns how many. */
static unsigned collect_readers(PtoValue *v, PtoOp *skip, PtoPtrMap *readers) {
  unsigned n = 0;
  for (PtoUse *u = pto_value_first_use(v); u; u = pto_use_next(u)) {
    PtoOp *o = pto_use_owner(u);
    if (o == skip || pto_tile_op_id(o) == PTO_TILE_DIM) continue;
    if (part_is_remat(o)) {
      for (unsigned i = 0; i < pto_op_num_results(o); i++)
        n += collect_readers(pto_op_result(o, i), skip, readers);
    } else if (!pto_ptrmap_get(readers, (uintptr_t)o)) {
      pto_ptrmap_put(readers, (uintptr_t)o, (void *)1);
      n++;
    }
  }
  return n;
}

/* Whether an op that reads tensor version v also uses what update `upd`
 * makes (looked for along def-use edges, within a budget): it must run
 * after the update and see v as it was before, which no order of in-place
 * updates gives (a clone folded away, then updated), so the update goes
 * to a copy of v. */
static bool read_after_update(PtoOp *upd, PtoValue *v) {
  PtoPtrMap readers, seen;
  pto_ptrmap_init(&readers);
  bool found = false;
  if (collect_readers(v, upd, &readers)) {
    pto_ptrmap_init(&seen);
    OpVec stack = {0};
    pto_vec_push(&stack, upd);
    for (unsigned budget = READ_AFTER_BUDGET; stack.len && !found && budget; budget--) {
      PtoOp *o = pto_vec_pop(&stack);
      for (unsigned i = 0; i < pto_op_num_results(o) && !found; i++)
        for (PtoUse *u = pto_value_first_use(pto_op_result(o, i)); u && !found;
             u = pto_use_next(u)) {
          PtoOp *w = pto_use_owner(u);
          found = pto_ptrmap_get(&readers, (uintptr_t)w) != NULL;
          if (!found && !pto_ptrmap_get(&seen, (uintptr_t)w)) {
            pto_ptrmap_put(&seen, (uintptr_t)w, (void *)1);
            pto_vec_push(&stack, w);
          }
        }
    }
    pto_vec_free(&stack);
    pto_ptrmap_release(&seen);
  }
  pto_ptrmap_release(&readers);
  return found;
}

static PtoWalkResult split_fork(PtoOp *op, void *user) {
  Forks *f = user;
  if (pto_op_is(op, "scf.if")) {
    /* its branches' updates of a tensor from outside are its own: copied
     * for neither; a second update of that version is note_update's */
    for (unsigned i = 0; i < pto_op_num_results(op); i++) {
      PtoValue *v = if_init(op, i, 0);
      if (v && pto_value_parent_block(v) == pto_op_block(op))
        pto_ptrmap_put(&f->updated, (uintptr_t)v, (void *)1);
    }
    return PTO_WALK_ADVANCE;
  }
  if (!is_updater(op)) return PTO_WALK_ADVANCE;
  bool is_for = pto_op_is(op, "scf.for");
  unsigned n = is_for ? pto_scf_for_num_iter_args(op) : 1;
  for (unsigned i = 0; i < n; i++) {
    PtoValue *v = is_for ? pto_scf_for_init(op, i) : pto_tile_get_tensor(op);
    if (!pto_type_is_tensor(pto_value_type(v)) || branch_carries(op, v)) continue;
    if (!pto_ptrmap_get(&f->updated, (uintptr_t)v) &&
        pto_value_parent_block(v) == pto_op_block(op) &&
        (is_for || !read_after_update(op, v))) {
      pto_ptrmap_put(&f->updated, (uintptr_t)v, (void *)1);
      continue;
    }
    PtoValue *c = copy_tensor(f->p, v, NULL, op);
    if (!c) continue; /* note_update reports it */
    unsigned idx = is_for ? 3 + i : 1;
    pto_op_set_operand(op, idx, c);
    pto_ptrmap_put(&f->updated, (uintptr_t)c, (void *)1);
  }
  return PTO_WALK_ADVANCE;
}

/* Whether an op of block `blk`, or one nested in it, uses v. */
static bool used_in(PtoValue *v, PtoBlock *blk) {
  for (PtoUse *u = pto_value_first_use(v); u; u = pto_use_next(u))
    for (PtoOp *o = pto_use_owner(u); o; o = pto_op_parent_op(o))
      if (pto_op_block(o) == blk) return true;
  return false;
}

/* Block `blk` of a loop or branch that carries GM tensor `target` in
 * place yields as its result #i a tensor it made itself (a tile.empty
 * and its updates: the Tile level's value semantics, or an assemble
 * covering a whole tensor, which canonicalize folds to its source). That
 * tensor becomes `target` when blk does not read target, and is copied
 * into it at the end of blk otherwise; a branch's yield is followed into
 * the branches of an scf.if. */
static void adopt_fresh(Partition *p, PtoBlock *blk, unsigned i, PtoValue *target) {
  PtoOp *y = pto_block_terminator(blk);
  if (!y || i >= pto_op_num_operands(y)) return;
  PtoValue *x = pto_op_operand(y, i);
  PtoOp *d;
  for (;;) {
    d = pto_value_def_op(x);
    if (!d || pto_op_block(d) != blk) return; /* a version of a tensor from outside */
    if (pto_op_is(d, "scf.if")) {
      for (unsigned r = 0; r < pto_op_num_regions(d); r++) {
        PtoBlock *in = pto_region_first_block(pto_op_region(d, r));
        if (in) adopt_fresh(p, in, pto_value_index(x), target);
      }
      return;
    }
    if (pto_tile_op_id(d) == PTO_TILE_EMPTY) break;
    if (!(x = version_of(x))) return;
  }
  if (pto_value_type(x) != pto_value_type(target)) return;
  if (!used_in(target, blk)) {
    pto_value_replace_all_uses(x, target);
    pto_op_erase(d);
    return;
  }
  PtoValue *c = copy_tensor(p, pto_op_operand(y, i), target, y);
  if (c) pto_op_set_operand(y, i, c);
}

static PtoWalkResult collect_scf(PtoOp *op, void *user) {
  if (pto_op_is(op, "scf.for") || pto_op_is(op, "scf.if")) pto_vec_push((OpVec *)user, op);
  return PTO_WALK_ADVANCE;
}

/* adopt_fresh for every loop and branch, outer ones first (a loop's
 * branches yield what the loop carries). A branch carries the tensor
 * another branch yields a version of. */
static void adopt_all(Partition *p, PtoOp *func) {
  OpVec ops = {0};
  pto_op_walk(func, PTO_WALK_PRE, collect_scf, &ops);
  for (uint32_t k = 0; k < ops.len; k++) {
    PtoOp *op = ops.data[k];
    if (pto_op_is(op, "scf.for")) {
      PtoBlock *body = pto_scf_for_body(op);
      for (unsigned i = 0; i < pto_scf_for_num_iter_args(op); i++)
        if (pto_type_is_tensor(pto_value_type(pto_scf_for_init(op, i))))
          adopt_fresh(p, body, i, pto_block_arg(body, 1 + i));
      continue;
    }
    for (unsigned i = 0; i < pto_op_num_results(op); i++) {
      if (!pto_type_is_tensor(pto_value_type(pto_op_result(op, i)))) continue;
      PtoValue *target = NULL;
      for (unsigned r = 0; r < pto_op_num_regions(op) && !target; r++)
        target = if_init(op, i, r);
      for (unsigned r = 0; target && r < pto_op_num_regions(op); r++) {
        PtoBlock *in = pto_region_first_block(pto_op_region(op, r));
        if (in && !if_init(op, i, r)) adopt_fresh(p, in, i, target);
      }
    }
  }
  pto_vec_free(&ops);
}

void part_split_forks(Partition *p, PtoOp *func) {
  adopt_all(p, func);
  Forks f = {p, {0}, PTO_SUCCESS};
  pto_ptrmap_init(&f.updated);
  pto_op_walk(func, PTO_WALK_PRE, split_fork, &f);
  pto_ptrmap_release(&f.updated);
}

/* ------------------------------------------------------------------ */
/* Dependencies of an op                                                */
/* ------------------------------------------------------------------ */

bool part_is_remat(PtoOp *def) {
  if (!def) return false;
  switch (pto_tile_op_id(def)) {
  case PTO_TILE_VIEW:
  case PTO_TILE_FULL: return true;
  case PTO_TILE_RESHAPE:
    return part_is_remat(pto_value_def_op(pto_op_operand(def, 0)));
  default: return false;
  }
}

/* Nodes of `b` that `v` comes from (into preds) and the GM tensors it
 * reads (into reads); a recomputed tile counts through its operands. */
static void value_deps(Partition *p, PtoBlock *b, PtoValue *v, U32Vec *preds,
                       ValVec *reads) {
  if (pto_type_is_tensor(pto_value_type(v))) pto_vec_push(reads, v);
  PtoOp *d = pto_value_def_op(v);
  if (!d) return;
  if (part_is_remat(d)) {
    for (unsigned i = 0; i < pto_op_num_operands(d); i++)
      value_deps(p, b, pto_op_operand(d, i), preds, reads);
    return;
  }
  if (pto_op_block(d) != b) return;
  uint32_t n = part_node_of_op(p, d);
  if (n != UINT32_MAX) pto_vec_push(preds, n);
}

typedef struct Capture {
  Partition *p;
  PtoOp *host;
  PtoBlock *b;
  U32Vec *preds;
  ValVec *reads;
} Capture;

/* Values an op's regions use from outside make it depend on their
 * producers, as operands do. */
static PtoWalkResult capture_op(PtoOp *op, void *user) {
  Capture *c = user;
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoValue *v = pto_op_operand(op, i);
    if (!defined_inside(v, c->host)) value_deps(c->p, c->b, v, c->preds, c->reads);
  }
  return PTO_WALK_ADVANCE;
}

/* ------------------------------------------------------------------ */
/* Capacity                                                             */
/* ------------------------------------------------------------------ */

static const TypeInfo *type_info(Partition *p, PtoType *t) {
  TypeInfo *e = &p->types[((uintptr_t)t >> 4) % TYPE_CACHE];
  if (e->type != t) {
    e->type = t;
    e->tile = pto_type_is_tile(t);
    unsigned bits = e->tile ? pto_type_bitwidth(pto_tile_elem(t)) : 0;
    e->bytes = e->tile ? (uint64_t)pto_tile_numel(t) * (bits < 8 ? 1 : bits / 8) : 0;
  }
  return e;
}

static bool is_tile(Partition *p, PtoValue *v) {
  return type_info(p, pto_value_type(v))->tile;
}

uint64_t part_tile_bytes(Partition *p, PtoType *t, PtoBufSpace space) {
  uint64_t bytes = type_info(p, t)->bytes;
  uint64_t align = p->plat.buffers[space].align_bytes;
  if (align > 1) bytes = (bytes + align - 1) / align * align;
  return bytes;
}

/* The space a group on `core` loads operand #i of `op` into, and the
 * space of op's results (both mirrored by Kernels.c). */
static PtoBufSpace load_space(int core, PtoOp *op, unsigned i) {
  if (core == PTO_BLOCK_CORE_VECTOR) return PTO_BUF_VEC;
  return pto_tile_op_id(op) == PTO_TILE_MATMUL && i == 2 ? PTO_BUF_ACC
                                                         : PTO_BUF_MAT;
}
static PtoBufSpace result_space(int core, PtoOp *op) {
  if (core == PTO_BLOCK_CORE_VECTOR) return PTO_BUF_VEC;
  return pto_tile_op_id(op) == PTO_TILE_MATMUL ? PTO_BUF_ACC : PTO_BUF_MAT;
}

void part_sort_ops(Partition *p, PtoOp **ops, uint32_t n) {
  /* natural merge sort of (position << 32 | index) keys */
  pto_vec_resize(&p->keys, 2 * (size_t)n);
  uint64_t *a = p->keys.data, *b = a + n;
  bool sorted = true;
  for (uint32_t i = 0; i < n; i++) {
    a[i] = (uint64_t)part_op_info(p, ops[i])->pos << 32 | i;
    sorted &= !i || a[i - 1] <= a[i];
  }
  if (sorted) return;
  for (;;) {
    uint32_t runs = 0;
    for (uint32_t lo = 0; lo < n; runs++) {
      uint32_t mid = lo + 1;
      while (mid < n && a[mid - 1] <= a[mid]) mid++;
      uint32_t hi = mid;
      while (hi < n && (hi == mid || a[hi - 1] <= a[hi])) hi++;
      uint32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) b[k++] = a[i] <= a[j] ? a[i++] : a[j++];
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
      lo = hi;
    }
    uint64_t *t = a;
    a = b;
    b = t;
    if (runs <= 1) break;
  }
  pto_vec_resize(&p->sorted, n);
  for (uint32_t i = 0; i < n; i++) p->sorted.data[i] = ops[(uint32_t)a[i]];
  memcpy(ops, p->sorted.data, n * sizeof *ops);
}

/* op's results join the live bytes; the peak follows. */
static void add_results(Partition *p, PtoOp *op, int core,
                        uint64_t cur[PTO_BUF_NUM_SPACES],
                        uint64_t peak[PTO_BUF_NUM_SPACES]) {
  PtoBufSpace rs = result_space(core, op);
  for (unsigned k = 0; k < pto_op_num_results(op); k++)
    if (is_tile(p, pto_op_result(op, k)))
      cur[rs] += part_tile_bytes(p, pto_value_type(pto_op_result(op, k)), rs);
  for (unsigned sp = 0; sp < PTO_BUF_NUM_SPACES; sp++)
    if (cur[sp] > peak[sp]) peak[sp] = cur[sp];
}

/* A value's scan scratch (ValInfo.payload, valid while its stamp is the
 * scan's: no clearing between scans): its last use + 1, LOADED when it
 * was loaded, FREED once released. */
enum { LOADED = 1u << 30, FREED = 1u << 29, PAYLOAD = (1u << 29) - 1 };

/* Peak live bytes per space of `ops` (sorted by position) on `core`: a
 * loaded operand is live from its first use to its last one in the set
 * (twice its size with double buffering), a result from its op to its
 * last use (results used elsewhere are stored at once). Used when groups
 * are joined; an op appended to one group is accounted incrementally
 * (append_peak). */
static void scan_peak(Partition *p, PtoOp **ops, unsigned n, int core,
                      uint64_t peak[PTO_BUF_NUM_SPACES]) {
  uint64_t cur[PTO_BUF_NUM_SPACES] = {0};
  memset(peak, 0, sizeof cur);
  uint32_t st = ++p->stamp;
  pto_vec_resize(&p->scan_vbase, n);
  for (unsigned i = 0; i < n; i++) {
    OpInfo *o = part_op_info(p, ops[i]);
    o->stamp = st;
    p->scan_vbase.data[i] = o->vbase;
  }
  /* Each tile operand's value slot, looked up once (NO_SLOT: not a tile),
   * with DEF_INSIDE when an op of the set defines it. */
  const uint32_t NO_SLOT = UINT32_MAX, DEF_INSIDE = 1u << 31;
  U32Vec *slots = &p->scan_slots;
  pto_vec_clear(slots);
  for (unsigned i = 0; i < n; i++)
    for (unsigned k = 0; k < pto_op_num_operands(ops[i]); k++) {
      PtoValue *v = pto_op_operand(ops[i], k);
      if (!is_tile(p, v)) {
        pto_vec_push(slots, NO_SLOT);
        continue;
      }
      PtoOp *d = pto_value_def_op(v);
      uint32_t slot, inside = 0;
      if (d) {
        OpInfo *o = part_op_info(p, d);
        slot = o->vbase + pto_value_index(v);
        inside = o->stamp == st ? DEF_INSIDE : 0;
      } else {
        slot = val_slot(p, v);
      }
      p->valinfo.data[slot].stamp = st;
      p->valinfo.data[slot].payload = i + 1;
      pto_vec_push(slots, slot | inside);
    }
  unsigned dbl = p->double_buffer ? 2 : 1;
  ValInfo *vi = p->valinfo.data; /* no slots are made from here on */
  uint32_t at = 0;
  for (unsigned i = 0; i < n; i++) {
    PtoOp *op = ops[i];
    unsigned nops = pto_op_num_operands(op);
    const uint32_t *os = slots->data + at;
    at += nops;
    for (unsigned k = 0; k < nops; k++) {
      if (os[k] == NO_SLOT || (os[k] & DEF_INSIDE)) continue;
      ValInfo *x = &vi[os[k]];
      if (x->payload & LOADED) continue;
      PtoBufSpace sp = load_space(core, op, k);
      cur[sp] += dbl * part_tile_bytes(p, pto_value_type(pto_op_operand(op, k)), sp);
      x->payload |= LOADED;
    }
    add_results(p, op, core, cur, peak);
    PtoBufSpace rs = result_space(core, op);
    /* release what this op used last, and results nobody here reads */
    for (unsigned k = 0; k < nops; k++) {
      if (os[k] == NO_SLOT) continue;
      ValInfo *x = &vi[os[k] & ~DEF_INSIDE];
      uint32_t s = x->payload;
      if ((s & PAYLOAD) != i + 1 || (s & FREED)) continue;
      PtoValue *v = pto_op_operand(op, k);
      PtoBufSpace sp = (s & LOADED) ? load_space(core, op, k)
                                    : result_space(core, pto_value_def_op(v));
      uint64_t bytes = part_tile_bytes(p, pto_value_type(v), sp);
      cur[sp] -= (s & LOADED) ? dbl * bytes : bytes;
      x->payload = s | FREED;
    }
    for (unsigned k = 0; k < pto_op_num_results(op); k++) {
      PtoValue *r = pto_op_result(op, k);
      if (!is_tile(p, r)) continue;
      const ValInfo *x = &vi[p->scan_vbase.data[i] + k];
      if (x->stamp != st || !x->payload)
        cur[rs] -= part_tile_bytes(p, pto_value_type(r), rs);
    }
  }
}

static bool fits(Partition *p, const uint64_t peak[PTO_BUF_NUM_SPACES]) {
  for (unsigned sp = 0; sp < PTO_BUF_NUM_SPACES; sp++)
    if (peak[sp] > p->cap[sp]) return false;
  return true;
}

/* Uses of v not yet visited (tile ops visit in program order) + 1, in
 * v's slot (returned). */
static uint32_t remaining(Partition *p, PtoValue *v) {
  uint32_t slot = val_slot(p, v);
  if (!p->valinfo.data[slot].remaining)
    p->valinfo.data[slot].remaining = pto_value_num_uses(v) + 1;
  return slot;
}

static bool in_group(Partition *p, PtoValue *v, uint32_t g) {
  PtoOp *d = pto_value_def_op(v);
  return d && part_node_of_op(p, d) == g;
}

/* Whether an op of group g other than `op` reads v; true also when v
 * has too many uses to look (the caller then takes the exact scan). */
static bool read_in_group(Partition *p, PtoValue *v, uint32_t g, PtoOp *op) {
  unsigned seen = 0;
  for (PtoUse *u = pto_value_first_use(v); u; u = pto_use_next(u)) {
    PtoOp *o = pto_use_owner(u);
    if (o == op) continue;
    if (++seen > REREAD_SEARCH_USES || part_node_of_op(p, o) == g) return true;
  }
  return false;
}

/* Live bytes after appending `op` to group g (cur[], from the group's
 * state, given in `cur`) and the peak while op runs: operands from
 * outside are loaded, results are added.
 *
 * A cube group counts its loads by liveness: a tile is live in g from
 * its load to its last use in g (the kernel loads it once), but which
 * later op joins g is not known when it is loaded, so it leaves g after
 * each op that reads it (account), and an op of g that reads it again
 * returns true, for the caller to take the exact scan of g's ops
 * (scan_peak). That keeps a K chain (matmul, then matmul with an
 * accumulator along K) in one kernel, its accumulator in L0C: per step
 * one A and one B tile are live, whatever other groups read them later.
 *
 * A vector group keeps a loaded tile counted until its last use anywhere
 * (unless g loaded it already). The slack this leaves is what
 * memory-plan's first-fit placement of mixed tile sizes in UB needs:
 * vector groups sized by liveness alone fit by bytes but not always by
 * placement (softmax 4096 wide with 32x32 tiles). */
static bool append_peak(Partition *p, PtoOp *op, uint32_t g, int core,
                        uint64_t cur[PTO_BUF_NUM_SPACES],
                        uint64_t peak[PTO_BUF_NUM_SPACES]) {
  unsigned dbl = p->double_buffer ? 2 : 1;
  bool live = core == PTO_BLOCK_CORE_CUBE, reread = false;
  for (unsigned k = 0; k < pto_op_num_operands(op); k++) {
    PtoValue *v = pto_op_operand(op, k);
    if (!is_tile(p, v) || in_group(p, v, g)) continue;
    bool again = false;
    for (unsigned j = 0; j < k; j++) again |= pto_op_operand(op, j) == v;
    if (again) continue;
    if (live) {
      reread |= !reread && read_in_group(p, v, g, op);
    } else {
      uint32_t l = val_info(p, v)->loaded;
      if (l && node_find(p, l - 1) == g) continue;
    }
    PtoBufSpace sp = load_space(core, op, k);
    cur[sp] += dbl * part_tile_bytes(p, pto_value_type(v), sp);
  }
  add_results(p, op, core, cur, peak);
  return reread;
}

/* The peak of group g's ops and `op` (when not NULL) in program order,
 * exact. */
static void group_scan(Partition *p, uint32_t g, PtoOp *op,
                       uint64_t peak[PTO_BUF_NUM_SPACES]);

/* Frees `bytes` of x's live bytes in `sp`. */
static void release(Node *x, PtoBufSpace sp, uint64_t bytes) {
  x->cur[sp] -= bytes <= x->cur[sp] ? bytes : x->cur[sp];
}

/* Commits `op` to group g: its loads and results join the group's live
 * bytes (a cube group's loads leave them again after it, see
 * append_peak), and every value whose last use this was leaves its
 * holder's. */
static void account(Partition *p, PtoOp *op, uint32_t g) {
  Node *n = &p->nodes.data[g];
  unsigned dbl = p->double_buffer ? 2 : 1;
  bool live = n->core == PTO_BLOCK_CORE_CUBE;
  if (append_peak(p, op, g, n->core, n->cur, n->peak)) {
    uint64_t exact[PTO_BUF_NUM_SPACES];
    group_scan(p, g, NULL, exact); /* op is in g already */
    n = &p->nodes.data[g];
    for (unsigned sp = 0; sp < PTO_BUF_NUM_SPACES; sp++)
      if (exact[sp] > n->peak[sp]) n->peak[sp] = exact[sp];
  }
  for (unsigned k = 0; k < pto_op_num_operands(op); k++) {
    PtoValue *v = pto_op_operand(op, k);
    if (!is_tile(p, v) || in_group(p, v, g)) continue;
    if (!live) {
      val_info(p, v)->loaded = g + 1;
      continue;
    }
    bool again = false;
    for (unsigned j = 0; j < k; j++) again |= pto_op_operand(op, j) == v;
    if (again) continue;
    PtoBufSpace sp = load_space(n->core, op, k);
    release(n, sp, dbl * part_tile_bytes(p, pto_value_type(v), sp));
  }
  PtoBufSpace rs = result_space(n->core, op);
  for (unsigned k = 0; k < pto_op_num_results(op); k++) {
    PtoValue *r = pto_op_result(op, k);
    if (is_tile(p, r) && !pto_value_has_uses(r))
      n->cur[rs] -= part_tile_bytes(p, pto_value_type(r), rs);
  }
  for (unsigned k = 0; k < pto_op_num_operands(op); k++) {
    PtoValue *v = pto_op_operand(op, k);
    if (!is_tile(p, v)) continue;
    uint32_t slot = remaining(p, v);
    uint32_t *left = &p->valinfo.data[slot].remaining;
    if (*left > 1) --*left;
    if (*left != 1) continue;
    /* dead: free it where it is held */
    PtoOp *d = pto_value_def_op(v);
    uint32_t h = d && !part_is_remat(d) ? part_node_of_op(p, d) : UINT32_MAX;
    if (h != UINT32_MAX && p->nodes.data[h].kind == NODE_GROUP) {
      Node *x = &p->nodes.data[h];
      PtoBufSpace sp = result_space(x->core, d);
      release(x, sp, part_tile_bytes(p, pto_value_type(v), sp));
    }
    uint32_t l = p->valinfo.data[slot].loaded;
    if (l) { /* a vector group's load */
      Node *x = &p->nodes.data[node_find(p, l - 1)];
      PtoBufSpace sp = load_space(x->core, op, k);
      release(x, sp, dbl * part_tile_bytes(p, pto_value_type(v), sp));
    }
    p->valinfo.data[slot].remaining--; /* 0: freed once */
  }
}

/* An op alone must fit, or no partition can run it. */
static PtoResult check_alone(Partition *p, PtoOp *op, int core) {
  /* scan_peak of op alone: every distinct tile operand loaded, then the
   * results */
  uint64_t peak[PTO_BUF_NUM_SPACES] = {0};
  unsigned dbl = p->double_buffer ? 2 : 1;
  for (unsigned k = 0; k < pto_op_num_operands(op); k++) {
    PtoValue *v = pto_op_operand(op, k);
    if (!is_tile(p, v) || pto_value_def_op(v) == op) continue;
    bool again = false;
    for (unsigned j = 0; j < k && !again; j++) again = pto_op_operand(op, j) == v;
    if (again) continue;
    PtoBufSpace sp = load_space(core, op, k);
    peak[sp] += dbl * part_tile_bytes(p, pto_value_type(v), sp);
  }
  uint64_t cur[PTO_BUF_NUM_SPACES];
  memcpy(cur, peak, sizeof cur);
  add_results(p, op, core, cur, peak);
  if (pto_tile_op_id(op) == PTO_TILE_MATMUL) {
    /* the cube reads its operands from L0A / L0B */
    uint64_t a = part_tile_bytes(p, pto_value_type(pto_op_operand(op, 0)), PTO_BUF_LEFT);
    uint64_t b = part_tile_bytes(p, pto_value_type(pto_op_operand(op, 1)), PTO_BUF_RIGHT);
    if (a > peak[PTO_BUF_LEFT]) peak[PTO_BUF_LEFT] = a;
    if (b > peak[PTO_BUF_RIGHT]) peak[PTO_BUF_RIGHT] = b;
  }
  for (unsigned sp = 0; sp < PTO_BUF_NUM_SPACES; sp++)
    if (peak[sp] > p->cap[sp])
      return pto_op_emit_error(
          op, "needs %" PRIu64 " bytes of on-chip '%s' memory for its tiles%s, "
              "but a %s core of platform '%s' has %" PRIu64 "; choose a "
              "smaller tile shape (the %s attribute of the Tensor-level op "
              "or tile-expand's %s option)",
          peak[sp], pto_buf_space_name(sp),
          p->double_buffer && (sp == PTO_BUF_VEC || sp == PTO_BUF_MAT)
              ? " (loads double-buffered)" : "",
          core == PTO_BLOCK_CORE_CUBE ? "cube" : "vector", p->plat.name,
          p->cap[sp], core == PTO_BLOCK_CORE_CUBE ? "cube_tile" : "vec_tile",
          core == PTO_BLOCK_CORE_CUBE ? "cube-tile" : "vec-tile");
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Merging                                                              */
/* ------------------------------------------------------------------ */

/* The peak of the ops of groups `cands` and `op` (when not NULL), in
 * program order: exact (scan_peak). `total` counts them. */
static void union_scan(Partition *p, PtoOp *op, int core, const uint32_t *cands,
                       unsigned n, size_t total,
                       uint64_t peak[PTO_BUF_NUM_SPACES]) {
  OpVec *all = &p->all;
  pto_vec_clear(all);
  pto_vec_reserve(all, total);
  for (unsigned i = 0; i < n; i++) {
    Node *g = &p->nodes.data[cands[i]];
    pto_vec_append(all, g->ops.data, g->ops.len);
  }
  if (op) pto_vec_push(all, op);
  part_sort_ops(p, all->data, all->len);
  scan_peak(p, all->data, all->len, core, peak);
}

static void group_scan(Partition *p, uint32_t g, PtoOp *op,
                       uint64_t peak[PTO_BUF_NUM_SPACES]) {
  union_scan(p, op, p->nodes.data[g].core, &g, 1,
             p->nodes.data[g].ops.len + (op ? 1 : 0), peak);
}

/* The peak of groups `cands` joined and `op` appended: exact over the
 * union's ops in program order when several groups join; from the
 * group's running state when op joins one (exact again when op reads a
 * tile the group loaded before, see append_peak). */
static void merged_peak(Partition *p, PtoOp *op, int core, const uint32_t *cands,
                        unsigned n, size_t total,
                        uint64_t peak[PTO_BUF_NUM_SPACES]) {
  uint64_t cur[PTO_BUF_NUM_SPACES] = {0};
  if (n == 1) {
    Node *g = &p->nodes.data[cands[0]];
    memcpy(cur, g->cur, sizeof cur);
    memcpy(peak, g->peak, sizeof cur);
    if (append_peak(p, op, cands[0], core, cur, peak)) {
      uint64_t exact[PTO_BUF_NUM_SPACES];
      group_scan(p, cands[0], op, exact);
      for (unsigned sp = 0; sp < PTO_BUF_NUM_SPACES; sp++)
        if (exact[sp] > peak[sp]) peak[sp] = exact[sp];
    }
    return;
  }
  union_scan(p, op, core, cands, n, total, peak);
}

/* Whether matmul `op` reads as its A or B a tile that a matmul of one of
 * `cands` leaves in L0C: A and B come from L1, and L0C reaches nothing on
 * the cube but the FIX pipe's way out, so such a matmul needs its operand
 * back from GM and cannot join that kernel. (Its accumulator, operand #2,
 * is the K chain and stays in L0C.) */
static bool reads_acc_tile(Partition *p, PtoOp *op, const uint32_t *cands,
                           unsigned n) {
  if (pto_tile_op_id(op) != PTO_TILE_MATMUL) return false;
  for (unsigned k = 0; k < 2 && k < pto_op_num_operands(op); k++) {
    PtoValue *v = pto_op_operand(op, k);
    PtoOp *d = pto_value_def_op(v);
    if (!d || pto_tile_op_id(d) != PTO_TILE_MATMUL) continue;
    for (unsigned i = 0; i < n; i++)
      if (in_group(p, v, cands[i])) return true;
  }
  return false;
}

/* Whether `op` may join the groups `cands` (representatives): the union
 * respects max-ops and the buffers, and no path leaves the union and
 * comes back (through another node) to it or to one of op's other
 * producers `preds`. */
static bool can_merge(Partition *p, PtoOp *op, int core, const uint32_t *cands,
                      unsigned n, const U32Vec *preds) {
  size_t total = 1;
  for (unsigned i = 0; i < n; i++) total += p->nodes.data[cands[i]].ops.len;
  if ((int64_t)total > p->max_ops) return false;
  if (reads_acc_tile(p, op, cands, n)) return false;
  uint64_t peak[PTO_BUF_NUM_SPACES];
  merged_peak(p, op, core, cands, n, total, peak);
  if (!fits(p, peak)) return false;
  /* acyclicity */
  uint32_t st = ++p->stamp;
  for (unsigned i = 0; i < n; i++) p->nodes.data[cands[i]].mark = st;
  for (uint32_t i = 0; i < preds->len; i++) {
    Node *x = &p->nodes.data[node_find(p, preds->data[i])];
    if (x->mark != st) x->indeg = st; /* indeg doubles as "target" here */
  }
  pto_vec_clear(&p->stack);
  for (unsigned i = 0; i < n; i++) {
    Node *g = &p->nodes.data[cands[i]];
    for (uint32_t j = 0; j < g->succ.len; j++) {
      uint32_t s = node_find(p, g->succ.data[j]);
      Node *x = &p->nodes.data[s];
      if (x->mark == st || x->seen == st) continue;
      x->seen = st;
      pto_vec_push(&p->stack, s);
    }
  }
  unsigned visited = 0;
  while (p->stack.len) {
    Node *x = &p->nodes.data[pto_vec_pop(&p->stack)];
    if (x->indeg == st || ++visited > CYCLE_SEARCH_BUDGET) return false;
    for (uint32_t j = 0; j < x->succ.len; j++) {
      uint32_t s = node_find(p, x->succ.data[j]);
      Node *y = &p->nodes.data[s];
      if (y->mark == st) return false;
      if (y->seen == st) continue;
      y->seen = st;
      pto_vec_push(&p->stack, s);
    }
  }
  if (n > 1) memcpy(p->nodes.data[cands[0]].peak, peak, sizeof peak);
  return true;
}

/* Joins `cands` into the first; its peak was set by can_merge, its live
 * bytes are the sum of theirs (a tile two of them loaded counts twice). */
static uint32_t merge_into(Partition *p, const uint32_t *cands, unsigned n,
                           PtoOp *op) {
  uint32_t g = cands[0];
  for (unsigned i = 1; i < n; i++) {
    Node *x = &p->nodes.data[cands[i]], *y = &p->nodes.data[g];
    x->parent = g;
    pto_vec_append(&y->ops, x->ops.data, x->ops.len);
    pto_vec_append(&y->succ, x->succ.data, x->succ.len);
    if (x->pos < y->pos) y->pos = x->pos;
    for (unsigned sp = 0; sp < PTO_BUF_NUM_SPACES; sp++) y->cur[sp] += x->cur[sp];
    pto_vec_free(&x->ops);
    pto_vec_free(&x->succ);
  }
  pto_vec_push(&p->nodes.data[g].ops, op);
  /* a group's ops stay in program order */
  if (n > 1) part_sort_ops(p, p->nodes.data[g].ops.data, p->nodes.data[g].ops.len);
  part_op_info(p, op)->node = g + 1;
  return g;
}

/* The core an op runs on: the op table's affinity; ops without one
 * (reshape, assemble) go with the group of their tile operand. */
static int op_core(Partition *p, PtoBlock *b, PtoOp *op) {
  const PtoOpDef *def = pto_op_def(op);
  if (def && def->affinity == PTO_AFFINITY_CUBE) return PTO_BLOCK_CORE_CUBE;
  if (def && def->affinity == PTO_AFFINITY_VECTOR) return PTO_BLOCK_CORE_VECTOR;
  PtoOp *d = pto_value_def_op(pto_op_operand(op, 0));
  uint32_t n = d && pto_op_block(d) == b ? part_node_of_op(p, d) : UINT32_MAX;
  if (n != UINT32_MAX && p->nodes.data[n].kind == NODE_GROUP)
    return p->nodes.data[n].core;
  return PTO_BLOCK_CORE_VECTOR;
}

/* PyPTO's sg_set_scope on the innermost enclosing op that names it in
 * its `pypto.pass_options` (an integer, or a list starting with one);
 * -1 when none does. */
static int64_t block_scope(PtoBlock *b) {
  for (PtoOp *o = pto_block_parent_op(b); o; o = pto_op_parent_op(o)) {
    PtoAttr *opts = pto_op_attr(o, "pypto.pass_options");
    PtoAttr *s = opts && pto_attr_kind(opts) == PTO_ATTR_DICT
                     ? pto_attr_dict_get(opts, "sg_set_scope")
                     : NULL;
    if (s && pto_attr_kind(s) == PTO_ATTR_ARRAY && pto_attr_array_size(s))
      s = pto_attr_array_get(s, 0);
    if (s) return pto_attr_kind(s) == PTO_ATTR_INTEGER ? pto_attr_int_value(s)
                                                        : -1;
  }
  return -1;
}

/* The group the ops of b's scope on `core` went to so far, or UINT32_MAX
 * (no scope, or none yet). */
static uint32_t scope_group(Partition *p, PtoBlock *b, int core) {
  if (p->scope_block != b) {
    p->scope_block = b;
    p->scope = block_scope(b);
  }
  uintptr_t g = p->scope < 0 ? 0
                             : (uintptr_t)pto_ptrmap_get(&p->scope_groups,
                                                         (uintptr_t)b | (uintptr_t)core);
  return g ? node_find(p, (uint32_t)(g - 1)) : UINT32_MAX;
}

static PtoResult tile_op(Partition *p, PtoBlock *b, PtoOp *op, U32Vec *ids) {
  PtoTileOp id = pto_tile_op_id(op);
  int core = op_core(p, b, op);
  if (check_alone(p, op, core)) return PTO_FAILURE;
  U32Vec preds = {0};
  ValVec reads = {0};
  uint32_t cands[8];
  unsigned ncand = 0;
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoValue *v = pto_op_operand(op, i);
    uint32_t before = preds.len;
    value_deps(p, b, v, &preds, &reads);
    if (!pto_type_is_tile(pto_value_type(v)) || preds.len != before + 1 ||
        part_is_remat(pto_value_def_op(v)))
      continue;
    uint32_t g = preds.data[before];
    Node *x = &p->nodes.data[g];
    if (x->kind != NODE_GROUP || x->core != core) continue;
    bool dup = false;
    for (unsigned j = 0; j < ncand; j++) dup |= cands[j] == g;
    if (!dup && ncand < 8) cands[ncand++] = g;
  }
  /* sg_set_scope: the ops of a scope join one group per core type, also
   * where their chains are independent */
  uint32_t sg = scope_group(p, b, core);
  bool dup = false;
  for (unsigned j = 0; j < ncand; j++) dup |= cands[j] == sg;
  if (sg != UINT32_MAX && !dup && ncand < 8) cands[ncand++] = sg;
  uint32_t g = UINT32_MAX;
  /* an assemble is its producer's store, merged or not */
  if ((p->merge || id == PTO_TILE_ASSEMBLE || sg != UINT32_MAX) && ncand) {
    if (can_merge(p, op, core, cands, ncand, &preds))
      g = merge_into(p, cands, ncand, op);
    for (unsigned i = 0; g == UINT32_MAX && ncand > 1 && i < ncand; i++)
      if (can_merge(p, op, core, &cands[i], 1, &preds))
        g = merge_into(p, &cands[i], 1, op);
  }
  if (g == UINT32_MAX) {
    g = new_node(p, NODE_GROUP, op, b, core);
    pto_vec_push(ids, g);
  }
  /* a scope's next ops join the group its last op went to */
  if (p->scope >= 0)
    pto_ptrmap_put(&p->scope_groups, (uintptr_t)b | (uintptr_t)core,
                   (void *)(uintptr_t)(g + 1));
  account(p, op, g);
  for (uint32_t i = 0; i < preds.len; i++) add_edge(p, preds.data[i], g);
  PtoValue *dst = part_writes_tensor(id)
                      ? pto_tile_get_tensor(op) : NULL;
  PtoResult r = dst ? note_update(p, g, op, dst) : PTO_SUCCESS;
  for (uint32_t i = 0; i < reads.len; i++)
    if (reads.data[i] != dst) note_read(p, g, reads.data[i]);
  pto_vec_free(&preds);
  pto_vec_free(&reads);
  return r;
}

/* Loops and branches carry a tensor in place only when what they yield
 * is a version of what they start from. */
static PtoResult check_carried(Partition *p, PtoOp *op) {
  bool is_for = pto_op_is(op, "scf.for");
  if (!is_for && !pto_op_is(op, "scf.if")) return PTO_SUCCESS;
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoValue *res = pto_op_result(op, i);
    if (!pto_type_is_tensor(pto_value_type(res))) continue;
    PtoValue *want = part_root(p, res);
    for (unsigned r = 0; r < pto_op_num_regions(op); r++) {
      PtoBlock *blk = pto_region_first_block(pto_op_region(op, r));
      PtoOp *y = blk ? pto_block_terminator(blk) : NULL;
      /* both branches update the same version in place */
      if (y && i < pto_op_num_operands(y) &&
          (part_root(p, pto_op_operand(y, i)) != want ||
           (!is_for && if_init(op, i, r) != if_init(op, i, 0))))
        return pto_op_emit_error(op, "result #%u is not an update of the "
                                     "tensor it %s; cv-partition writes GM "
                                     "tensors in place and cannot give it "
                                     "its own memory",
                                 i, is_for ? "starts from" : "yields in its "
                                                            "first region");
    }
  }
  return PTO_SUCCESS;
}

/* The GM tensors a loop or branch updates in place: a loop's tensor
 * iter_args, the tensors from outside that a branch's results update. */
static void host_inits(PtoOp *op, ValVec *inits) {
  if (pto_op_is(op, "scf.for")) {
    for (unsigned i = 0; i < pto_scf_for_num_iter_args(op); i++) {
      PtoValue *init = pto_scf_for_init(op, i);
      if (pto_type_is_tensor(pto_value_type(init))) pto_vec_push(inits, init);
    }
  } else if (pto_op_is(op, "scf.if")) {
    for (unsigned i = 0; i < pto_op_num_results(op); i++) {
      PtoValue *init = pto_type_is_tensor(pto_value_type(pto_op_result(op, i)))
                           ? if_init(op, i, 0) : NULL;
      if (init) pto_vec_push(inits, init);
    }
  }
}

/* While the ops of one branch of scf.if `op` (node n) are cut, the
 * tensors it updates have no writer yet: that branch's ops update them,
 * as the other branch's do. UINT32_MAX hides the writers, a node puts
 * it back. */
static void set_branch_writers(Partition *p, PtoOp *op, uint32_t n) {
  if (!pto_op_is(op, "scf.if")) return;
  ValVec inits = {0};
  host_inits(op, &inits);
  for (uint32_t i = 0; i < inits.len; i++)
    if (n == UINT32_MAX) pto_ptrmap_remove(&p->writer, (uintptr_t)inits.data[i]);
    else pto_ptrmap_put(&p->writer, (uintptr_t)inits.data[i], (void *)(uintptr_t)(n + 1));
  pto_vec_free(&inits);
}

static PtoResult host_op(Partition *p, PtoBlock *b, PtoOp *op, U32Vec *ids) {
  if (check_carried(p, op)) return PTO_FAILURE;
  uint32_t n = new_node(p, NODE_HOST, op, b, PTO_BLOCK_CORE_NONE);
  pto_vec_push(ids, n);
  U32Vec preds = {0};
  ValVec reads = {0};
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    value_deps(p, b, pto_op_operand(op, i), &preds, &reads);
  if (pto_op_num_regions(op)) {
    Capture c = {p, op, b, &preds, &reads};
    for (unsigned r = 0; r < pto_op_num_regions(op); r++)
      pto_region_walk(pto_op_region(op, r), PTO_WALK_PRE, capture_op, &c);
  }
  for (uint32_t i = 0; i < preds.len; i++) add_edge(p, preds.data[i], n);
  PtoResult res = PTO_SUCCESS;
  ValVec inits = {0};
  host_inits(op, &inits);
  for (uint32_t i = 0; i < inits.len && !res; i++)
    res = note_update(p, n, op, inits.data[i]);
  for (uint32_t i = 0; i < reads.len && !res; i++) {
    bool updated = false;
    for (uint32_t k = 0; k < inits.len; k++) updated |= inits.data[k] == reads.data[i];
    if (!updated) note_read(p, n, reads.data[i]);
  }
  pto_vec_free(&inits);
  pto_vec_free(&preds);
  pto_vec_free(&reads);
  return res;
}

/* Tile ops that stay in the host function: they name GM tensors. */
static bool is_host_tile_op(PtoTileOp id) {
  return id == PTO_TILE_EMPTY || id == PTO_TILE_DIM ||
         id == PTO_TILE_TENSOR_RESHAPE || id == PTO_TILE_LOAD_SCALAR ||
         id == PTO_TILE_TENSOR_BITCAST;
}

PtoResult part_block(Partition *p, PtoBlock *b) {
  U32Vec ids = {0};
  PtoResult r = PTO_SUCCESS;
  for (PtoOp *op = pto_block_first_op(b), *next; op && !r; op = next) {
    next = pto_op_next(op);
    PtoTileOp id = pto_tile_op_id(op);
    if (id != PTO_TILE_NONE && !is_host_tile_op(id)) {
      if (!part_is_remat(op)) r = tile_op(p, b, op, &ids);
      continue;
    }
    /* the op's dependencies first, from its regions as they are: cutting
     * them puts launches there that name whole tensors, not versions */
    r = host_op(p, b, op, &ids);
    uint32_t n = r ? UINT32_MAX : ids.data[ids.len - 1];
    for (unsigned i = 0; i < pto_op_num_regions(op) && !r; i++)
      for (PtoBlock *in = pto_region_first_block(pto_op_region(op, i));
           in && !r; in = pto_block_next(in)) {
        set_branch_writers(p, op, UINT32_MAX);
        r = part_block(p, in);
        set_branch_writers(p, op, n);
      }
  }
  if (!r) {
    /* representatives, once each */
    U32Vec reps = {0};
    uint32_t st = ++p->stamp;
    for (uint32_t i = 0; i < ids.len; i++) {
      uint32_t n = node_find(p, ids.data[i]);
      if (p->nodes.data[n].seen == st) continue;
      p->nodes.data[n].seen = st;
      pto_vec_push(&reps, n);
    }
    r = part_emit_block(p, b, &reps);
    pto_vec_free(&reps);
  }
  pto_vec_free(&ids);
  return r;
}
