/* cv-partition, second half: puts the nodes of a block in a topological
 * order (ties broken by program position), turns each group into a
 * block.kernel and a block.launch at its place, and finally rewrites the
 * host function to the Block level's in-place GM tensors.
 *
 * A kernel's ops run in program order, but for a read of a tensor version
 * that the kernel updates before it: the read goes first (order_kernel_ops).
 *
 * A kernel's GM offsets are index arguments (static offsets too, passed
 * as constants by the launch), so that groups that differ only in where
 * they read and write get identical kernel bodies; subgraph-dedup relies
 * on that. Each access gets its own offset arguments: sharing one between
 * accesses whose offsets happen to be equal would make the signature depend
 * on the values, and copies of a subgraph would no longer match. Constant
 * scalars are rematerialised inside the kernel; other scalars and dynamic
 * offsets are arguments. */
#include "Conversion/TileToBlock/TileToBlock.h"

#include "Dialect/Block/Transforms/BlockPasses.h"

#include "pto/DialectImplementation.h"
#include "pto/Origin.h"

#include "Support/Alloc.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Ordering                                                             */
/* ------------------------------------------------------------------ */

typedef PTO_VEC(uint64_t) KeyHeap;

static void heap_push(KeyHeap *h, uint64_t k) {
  pto_vec_push(h, k);
  for (uint32_t i = h->len - 1; i;) {
    uint32_t up = (i - 1) / 2;
    if (h->data[up] <= h->data[i]) break;
    uint64_t t = h->data[up];
    h->data[up] = h->data[i];
    h->data[i] = t;
    i = up;
  }
}

static uint64_t heap_pop(KeyHeap *h) {
  uint64_t top = h->data[0];
  h->data[0] = h->data[--h->len];
  for (uint32_t i = 0;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->len && h->data[l] < h->data[m]) m = l;
    if (r < h->len && h->data[r] < h->data[m]) m = r;
    if (m == i) break;
    uint64_t t = h->data[m];
    h->data[m] = h->data[i];
    h->data[i] = t;
    i = m;
  }
  return top;
}

static PtoResult build_kernel(Partition *p, uint32_t g, PtoOp *before);

PtoResult part_emit_block(Partition *p, PtoBlock *b, const U32Vec *ids) {
  PtoOp *term = pto_block_terminator(b);
  for (uint32_t i = 0; i < ids->len; i++) p->nodes.data[ids->data[i]].indeg = 0;
  for (uint32_t i = 0; i < ids->len; i++) {
    Node *n = &p->nodes.data[ids->data[i]];
    for (uint32_t j = 0; j < n->succ.len; j++) {
      uint32_t s = node_find(p, n->succ.data[j]);
      if (s != ids->data[i] && p->nodes.data[s].block == b)
        p->nodes.data[s].indeg++;
    }
  }
  KeyHeap heap = {0};
  for (uint32_t i = 0; i < ids->len; i++) {
    Node *n = &p->nodes.data[ids->data[i]];
    if (!n->indeg && n->op != term)
      heap_push(&heap, (uint64_t)n->pos << 32 | ids->data[i]);
  }
  uint32_t done = 0;
  PtoResult r = PTO_SUCCESS;
  while (heap.len && !r) {
    uint32_t id = (uint32_t)heap_pop(&heap);
    Node *n = &p->nodes.data[id];
    done++;
    if (n->kind == NODE_HOST) {
      if (term) pto_op_move_before(n->op, term);
      else {
        pto_op_remove(n->op);
        pto_block_append(b, n->op);
      }
    } else {
      r = build_kernel(p, id, term);
    }
    n = &p->nodes.data[id]; /* build_kernel does not add nodes, but be safe */
    for (uint32_t j = 0; j < n->succ.len; j++) {
      uint32_t s = node_find(p, n->succ.data[j]);
      Node *x = &p->nodes.data[s];
      if (s == id || x->block != b) continue;
      if (--x->indeg == 0 && x->op != term)
        heap_push(&heap, (uint64_t)x->pos << 32 | s);
    }
  }
  pto_vec_free(&heap);
  if (!r && done + (term ? 1 : 0) != ids->len) {
    PtoOp *at = pto_block_parent_op(b);
    r = pto_op_emit_error(at, "cv-partition found no order for the kernels "
                              "of this block: a GM tensor is read after an "
                              "update that must come later");
  }
  return r;
}

/* ------------------------------------------------------------------ */
/* Kernels                                                              */
/* ------------------------------------------------------------------ */

typedef struct KBuild {
  Partition *p;
  Node *g;
  int core;
  PtoBlock *body;
  PtoBuilder kb;
  PtoLoc *loc;
  PTO_VEC(PtoValue *) hargs; /* launch operands */
  PtoPtrMap args;            /* host value -> kernel argument */
  PtoPtrMap bufs;            /* host tile value -> kernel value */
  PtoPtrMap inset;           /* the group's ops */
  PTO_VEC(PtoAttr *) reads, writes;
  PtoResult r;
} KBuild;

static PtoValue *kernel_arg(KBuild *k, PtoValue *host) {
  PtoValue *a = pto_ptrmap_get(&k->args, (uintptr_t)host);
  if (a) return a;
  a = pto_block_add_arg(k->body, pto_value_type(host), k->loc);
  pto_ptrmap_put(&k->args, (uintptr_t)host, a);
  pto_vec_push(&k->hargs, host);
  return a;
}

/* The host `arith.constant` index of value v (hoisted to the function's
 * entry, shared). */
static PtoValue *host_index(Partition *p, int64_t v) {
  PtoValue *c = pto_ptrmap_get(&p->consts, (uint64_t)v + 1);
  if (c) return c;
  PtoBuilder b;
  pto_builder_init(&b, p->ctx);
  pto_builder_set_block_start(&b, pto_region_first_block(pto_op_region(p->func, 0)));
  b.loc = pto_op_loc(p->func);
  c = pto_arith_build_constant_index(&b, v);
  pto_ptrmap_put(&p->consts, (uint64_t)v + 1, c);
  return c;
}

/* A new kernel argument holding static offset `v`, passed by the launch
 * as a host constant. */
static PtoValue *static_index(KBuild *k, int64_t v) {
  PtoValue *host = host_index(k->p, v);
  PtoValue *a = pto_block_add_arg(k->body, pto_value_type(host), k->loc);
  pto_vec_push(&k->hargs, host);
  return a;
}

static unsigned launch_operand(KBuild *k, PtoValue *arg) {
  return pto_value_index(arg);
}

PtoAttr *part_i64(Partition *p, int64_t v) {
  if (v < 0 || v >= SMALL_I64) return pto_attr_i64(p->ctx, v);
  if (!p->small_i64[v]) p->small_i64[v] = pto_attr_i64(p->ctx, v);
  return p->small_i64[v];
}

PtoAttr *part_i64_array(Partition *p, const int64_t *v, unsigned n) {
  if (n > PTO_MAX_RANK) return pto_attr_i64_array(p->ctx, v, n);
  uint64_t h = n;
  for (unsigned i = 0; i < n; i++)
    h = (h ^ (uint64_t)v[i]) * 0x9E3779B97F4A7C15u;
  struct I64ArrayCache *e = &p->arrays[h >> (64 - ARRAY_CACHE_BITS)];
  if (e->a && e->n == n && !memcmp(e->v, v, n * sizeof *v)) return e->a;
  e->n = n;
  memcpy(e->v, v, n * sizeof *v);
  e->a = pto_attr_i64_array(p->ctx, v, n);
  return e->a;
}

static PtoAttr *region_attr(KBuild *k, PtoValue *tensor_arg, unsigned rank,
                            const int64_t *offs, const int64_t *oper,
                            const int64_t *sizes) {
  Partition *p = k->p;
  bool dyn = false;
  for (unsigned d = 0; d < rank; d++) dyn |= oper[d] >= 0;
  PtoNamedAttr e[4];
  unsigned n = 0;
  e[n++] = (PtoNamedAttr){p->id_operand,
                          part_i64(p, launch_operand(k, tensor_arg))};
  e[n++] = (PtoNamedAttr){p->id_offsets, part_i64_array(p, offs, rank)};
  e[n++] = (PtoNamedAttr){p->id_sizes, part_i64_array(p, sizes, rank)};
  if (dyn)
    e[n++] = (PtoNamedAttr){p->id_offset_operands,
                            part_i64_array(p, oper, rank)};
  return pto_attr_dict(p->ctx, e, n);
}

/* A whole tensor as a region (static dims only). */
static PtoResult whole_region(KBuild *k, PtoOp *at, PtoValue *arg, bool write) {
  PtoType *t = pto_value_type(arg);
  unsigned rank = pto_type_tensor_rank(t);
  int64_t offs[PTO_MAX_RANK] = {0}, oper[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    oper[d] = -1;
    sizes[d] = pto_type_tensor_dim(t, d);
    if (sizes[d] == PTO_DYN)
      return pto_op_emit_error(at, "reads or writes data-dependent places of "
                                   "a tensor with a dynamic dim; cv-partition "
                                   "cannot record the launch's region");
  }
  PtoAttr *a = region_attr(k, arg, rank, offs, oper, sizes);
  if (write) pto_vec_push(&k->writes, a);
  else pto_vec_push(&k->reads, a);
  return PTO_SUCCESS;
}

static PtoType *buf_of(KBuild *k, PtoType *tile, PtoBufSpace space) {
  Partition *p = k->p;
  unsigned h = (unsigned)(((uintptr_t)tile >> 4) * 5 + (unsigned)space) % TYPE_CACHE;
  if (p->bufs[h].tile != tile || p->bufs[h].space != space) {
    p->bufs[h].tile = tile;
    p->bufs[h].space = space;
    p->bufs[h].buf = pto_block_buf_type(p->ctx, pto_tile_shape(tile),
                                        pto_tile_rank(tile),
                                        pto_tile_elem(tile), space);
  }
  return p->bufs[h].buf;
}

/* block.load / block.store of buffer type `buf` at a window of `tensor`
 * (a kernel argument), placed as the tile is (pto_tile_window_shape):
 * offsets from the host op, static ones through fresh arguments when
 * `by_arg` (but for dims the window spans); no offsets: at 0. Records the region; returns the loaded value. */
static PtoValue *move(KBuild *k, PtoValue *tensor_arg, const int64_t *offs,
                      PtoValue *const *dyn, bool by_arg, PtoType *buf,
                      PtoValue *stored) {
  Partition *p = k->p;
  PtoType *ttype = pto_value_type(tensor_arg);
  unsigned rank = pto_type_tensor_rank(ttype);
  int64_t win[PTO_MAX_RANK], soffs[PTO_MAX_RANK], roffs[PTO_MAX_RANK],
      oper[PTO_MAX_RANK];
  pto_tile_window_shape(buf, rank, win);
  PtoValue *opnds[2 + PTO_MAX_RANK];
  unsigned n = 0;
  if (stored) opnds[n++] = stored;
  opnds[n++] = tensor_arg;
  for (unsigned d = 0; d < rank; d++) {
    oper[d] = -1;
    roffs[d] = soffs[d] = offs ? offs[d] : 0;
    if (offs && offs[d] == PTO_DYN) {
      PtoValue *a = kernel_arg(k, dyn[d]);
      oper[d] = launch_operand(k, a);
      roffs[d] = 0;
      opnds[n++] = a;
    } else if (offs && by_arg && win[d] != pto_type_tensor_dim(ttype, d)) {
      /* a window spanning the whole dim is at 0 in every copy: it stays a
       * static offset, which keeps the signature short */
      opnds[n++] = static_index(k, offs[d]);
      soffs[d] = PTO_DYN;
    }
  }
  PtoNamedAttr attr = {p->id_static_offsets, part_i64_array(p, soffs, rank)};
  /* a rank-0 tensor's window is its one element */
  PtoAttr *region = region_attr(k, tensor_arg, rank, roffs, oper, win);
  if (stored) {
    pto_builder_create_simple(&k->kb, "block.store", opnds, n, NULL, 0, &attr, 1);
    pto_vec_push(&k->writes, region);
    return NULL;
  }
  pto_vec_push(&k->reads, region);
  return pto_op_result(pto_builder_create_simple(&k->kb, "block.load", opnds, n,
                                                 &buf, 1, &attr, 1), 0);
}

/* The GM workspace a tile value crossing nodes goes through, allocated at
 * the start of the block that computes it. */
static PtoValue *workspace_of(Partition *p, PtoValue *v) {
  PtoValue *ws = pto_ptrmap_get(&p->ws, (uintptr_t)v);
  if (ws) return ws;
  PtoType *t = pto_value_type(v);
  PtoBuilder b;
  pto_builder_init(&b, p->ctx);
  pto_builder_set_block_start(&b, pto_value_parent_block(v));
  b.loc = pto_value_loc(v);
  PtoType *tt = pto_type_tensor(p->ctx, pto_tile_shape(t), pto_tile_rank(t),
                                pto_tile_elem(t));
  ws = pto_op_result(pto_builder_create_simple(&b, "block.workspace", NULL, 0,
                                               &tt, 1, NULL, 0), 0);
  pto_ptrmap_put(&p->ws, (uintptr_t)v, ws);
  pto_pass_stat_add(p->pass, "workspaces", 1);
  return ws;
}

static PtoBufSpace load_space(KBuild *k, PtoOp *op, unsigned i) {
  if (k->core == PTO_BLOCK_CORE_VECTOR) return PTO_BUF_VEC;
  return op && pto_tile_op_id(op) == PTO_TILE_MATMUL && i == 2 ? PTO_BUF_ACC
                                                               : PTO_BUF_MAT;
}

static PtoValue *kernel_value(KBuild *k, PtoValue *v, PtoOp *user, unsigned i);

/* A copy of the Tile-level op `op` in the kernel, on `opnds` and with
 * result types `res`: its attributes without the Tile level's provenance
 * (which numbers the ops of the level above), and marked as coming from
 * `op` when cv-partition records provenance, so that --check-levels
 * compares the copy with the Tile-level value it computes again. */
static PtoOp *copy_op(KBuild *k, PtoOp *op, PtoValue *const *opnds, unsigned n,
                      PtoType *const *res, unsigned nres) {
  Partition *p = k->p;
  unsigned na = pto_op_num_attrs(op), m = 0;
  PtoNamedAttr local[8];
  PtoNamedAttr *attrs = na <= 8 ? local : pto_malloc(na * sizeof *attrs);
  for (unsigned i = 0; i < na; i++)
    if (strcmp(pto_ident_str(pto_op_attrs(op)[i].name), PTO_ORIGIN_ATTR))
      attrs[m++] = pto_op_attrs(op)[i];
  PtoOp *kop = pto_tile_build(&k->kb, pto_tile_op_id(op), opnds, n, res, nres,
                              attrs, m);
  if (attrs != local) pto_free(attrs);
  pto_op_set_loc(kop, pto_op_loc(op));
  uintptr_t num = p->provenance
                      ? (uintptr_t)pto_ptrmap_get(&p->origin, (uintptr_t)op)
                      : 0;
  for (unsigned i = 0; num && i < nres; i++) {
    PtoType *t = pto_value_type(pto_op_result(op, i));
    if (!pto_type_is_tile(t)) continue;
    PtoOrigin o;
    memset(&o, 0, sizeof o);
    o.op = (int64_t)num - 1;
    o.result = i;
    o.rank = pto_tile_rank(t);
    pto_origin_set(kop, i, &o);
  }
  return kop;
}

/* A view, full or reshape recomputed inside the kernel. */
static PtoValue *remat(KBuild *k, PtoOp *d, PtoValue *v, PtoOp *user, unsigned i) {
  PtoType *buf = buf_of(k, pto_value_type(v), load_space(k, user, i));
  switch (pto_tile_op_id(d)) {
  case PTO_TILE_VIEW: {
    int64_t offs[PTO_MAX_RANK];
    PtoValue *dyn[PTO_MAX_RANK];
    pto_tile_get_offsets(d, offs, dyn);
    PtoValue *root = part_root(k->p, pto_tile_get_tensor(d));
    return move(k, kernel_arg(k, root), offs, dyn, true, buf, NULL);
  }
  case PTO_TILE_FULL: {
    PtoValue *s = kernel_value(k, pto_op_operand(d, 0), d, 0);
    return s ? pto_op_result(copy_op(k, d, &s, 1, &buf, 1), 0) : NULL;
  }
  default: { /* reshape */
    PtoValue *s = kernel_value(k, pto_op_operand(d, 0), user, i);
    if (!s) return NULL;
    buf = buf_of(k, pto_value_type(v), pto_block_buf_space(pto_value_type(s)));
    return pto_op_result(pto_tile_build(&k->kb, PTO_TILE_RESHAPE, &s, 1, &buf, 1,
                                        NULL, 0), 0);
  }
  }
}

/* The kernel's value for host value v, used as operand #i of `user`. */
static PtoValue *kernel_value(KBuild *k, PtoValue *v, PtoOp *user, unsigned i) {
  PtoValue *kv = pto_ptrmap_get(&k->bufs, (uintptr_t)v);
  if (kv) return kv;
  PtoType *t = pto_value_type(v);
  PtoOp *d = pto_value_def_op(v);
  if (pto_type_is_tile(t)) {
    if (part_is_remat(d)) kv = remat(k, d, v, user, i);
    else {
      PtoType *buf = buf_of(k, t, load_space(k, user, i));
      kv = move(k, kernel_arg(k, workspace_of(k->p, v)), NULL, NULL, false,
                buf, NULL);
    }
  } else if (pto_type_is_tensor(t)) {
    kv = kernel_arg(k, part_root(k->p, v));
  } else if (d && pto_value_constant(v) && pto_op_num_operands(d) == 0 &&
             !pto_op_num_regions(d)) {
    kv = pto_op_result(pto_builder_insert(&k->kb, pto_op_clone(d, NULL)), 0);
  } else {
    kv = kernel_arg(k, v);
  }
  if (kv) pto_ptrmap_put(&k->bufs, (uintptr_t)v, kv);
  return kv;
}

static bool used_outside(KBuild *k, PtoValue *v) {
  for (PtoUse *u = pto_value_first_use(v); u; u = pto_use_next(u))
    if (!pto_ptrmap_get(&k->inset, (uintptr_t)pto_use_owner(u))) return true;
  return false;
}

static void kernel_op(KBuild *k, PtoOp *op) {
  Partition *p = k->p;
  PtoTileOp id = pto_tile_op_id(op);
  if (id == PTO_TILE_ASSEMBLE) {
    PtoValue *src = kernel_value(k, pto_op_operand(op, 0), op, 0);
    if (!src) return;
    int64_t offs[PTO_MAX_RANK];
    PtoValue *dyn[PTO_MAX_RANK];
    pto_tile_get_offsets(op, offs, dyn);
    PtoValue *dst = kernel_arg(k, part_root(p, pto_tile_get_tensor(op)));
    move(k, dst, offs, dyn, true, pto_value_type(src), src);
    return;
  }
  unsigned n = pto_op_num_operands(op);
  PtoValue *local[8];
  PtoValue **opnds = n <= 8 ? local : pto_malloc(n * sizeof *opnds);
  for (unsigned i = 0; i < n && !k->r; i++) {
    opnds[i] = kernel_value(k, pto_op_operand(op, i), op, i);
    if (!opnds[i] && !k->r)
      k->r = pto_op_emit_error(op, "operand #%u has no value in its kernel", i);
  }
  if (k->r) {
    if (opnds != local) pto_free(opnds);
    return;
  }
  /* data-dependent GM accesses cover their whole tensor */
  if (id == PTO_TILE_GATHER || id == PTO_TILE_INDEX_SELECT)
    k->r = whole_region(k, op, kernel_value(k, pto_tile_get_tensor(op), op, 0), false);
  if (pto_tile_kind(id) == PTO_TILE_KIND_SCATTER && !k->r)
    k->r = whole_region(k, op, kernel_value(k, pto_tile_get_tensor(op), op, 1), true);
  PtoType *res[2];
  unsigned nres = pto_op_num_results(op);
  PtoBufSpace space = PTO_BUF_VEC;
  if (k->core == PTO_BLOCK_CORE_CUBE)
    space = id == PTO_TILE_MATMUL ? PTO_BUF_ACC
                                  : pto_block_buf_space(pto_value_type(opnds[0]));
  for (unsigned i = 0; i < nres && i < 2; i++) {
    PtoType *t = pto_value_type(pto_op_result(op, i));
    res[i] = pto_type_is_tile(t) ? buf_of(k, t, space) : t;
  }
  PtoOp *kop = copy_op(k, op, opnds, n, res, nres);
  if (opnds != local) pto_free(opnds);
  for (unsigned i = 0; i < nres; i++) {
    PtoValue *hv = pto_op_result(op, i), *kv = pto_op_result(kop, i);
    if (!pto_type_is_tile(pto_value_type(hv))) continue;
    pto_ptrmap_put(&k->bufs, (uintptr_t)hv, kv);
    if (used_outside(k, hv))
      move(k, kernel_arg(k, workspace_of(p, hv)), NULL, NULL, false,
           pto_value_type(kv), kv);
  }
}

/* `label` of the group's first op that has one, else its first op's
 * mnemonic; made into a kernel name unique in the module. */
static PtoIdent *kernel_name(Partition *p, PtoOp *const *ops, unsigned n,
                             const char **label) {
  *label = NULL;
  for (unsigned i = 0; i < n && !*label; i++) {
    PtoAttr *a = pto_op_attr_id(ops[i], p->id_label);
    if (a && pto_attr_kind(a) == PTO_ATTR_STRING) *label = pto_attr_str(a);
  }
  if (!*label) *label = pto_tile_mnemonic(pto_tile_op_id(ops[0]));
  char buf[128];
  size_t len = 0;
  for (const char *c = *label; *c && len < 64; c++)
    buf[len++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                (*c >= '0' && *c <= '9') || *c == '_'
                            ? *c : '_');
  for (;;) {
    snprintf(buf + len, sizeof buf - len, "_%u", p->nkernels++);
    PtoIdent *id = pto_ident_cstr(p->ctx, buf);
    if (!pto_symtab_lookup(p->symbols, id)) return id;
  }
}

/* A kernel made before that `kernel` is identical to (subgraph-dedup's
 * hash, then its exact comparison), or NULL after recording `kernel`.
 * The first of identical kernels is the one kept, as subgraph-dedup
 * keeps the first in module order. */
static PtoOp *made_before(Partition *p, PtoOp *kernel) {
  /* key 0 is the map's empty slot */
  uint64_t key = pto_block_kernel_hash(kernel) | (uint64_t)1 << 63;
  uint32_t head = (uint32_t)(uintptr_t)pto_ptrmap_get(&p->heads, key);
  for (uint32_t i = head; i; i = p->made_next.data[i - 1])
    if (pto_block_kernels_equal(p->made.data[i - 1], kernel))
      return p->made.data[i - 1];
  pto_vec_push(&p->made, kernel);
  pto_vec_push(&p->made_next, head);
  pto_ptrmap_put(&p->heads, key, (void *)(uintptr_t)p->made.len);
  return NULL;
}

/* ------------------------------------------------------------------ */
/* The order of a kernel's ops                                          */
/* ------------------------------------------------------------------ */

/* A GM access of a kernel op: a window of a tensor version (PTO_DYN
 * offsets where dynamic), or all of it (`whole`: data-dependent places,
 * or a tensor operand). */
typedef struct Access {
  PtoValue *tensor;
  bool whole;
  unsigned rank;
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
} Access;

/* The window view or assemble `op` reads or writes of its tensor with a
 * tile of type `tile`. */
static Access window_access(PtoOp *op, PtoType *tile) {
  Access a;
  memset(&a, 0, sizeof a);
  a.tensor = pto_tile_get_tensor(op);
  a.rank = pto_tile_get_offsets(op, a.offs, NULL);
  pto_tile_window_shape(tile, a.rank, a.sizes);
  return a;
}

static Access whole_access(PtoValue *tensor) {
  Access a;
  memset(&a, 0, sizeof a);
  a.tensor = tensor;
  a.whole = true;
  return a;
}

/* Whether two accesses of one tensor may touch a common element: a
 * dynamic offset may be anywhere. */
static bool may_overlap(const Access *a, const Access *b) {
  if (a->whole || b->whole || a->rank != b->rank) return true;
  for (unsigned d = 0; d < a->rank; d++) {
    if (a->offs[d] == PTO_DYN || b->offs[d] == PTO_DYN) continue;
    if (a->offs[d] + a->sizes[d] <= b->offs[d] ||
        b->offs[d] + b->sizes[d] <= a->offs[d])
      return false;
  }
  return true;
}

typedef struct KOrder {
  PtoPtrMap index;  /* kernel op -> its place in program order + 1 */
  PtoPtrMap writer; /* tensor version -> place + 1 of the op updating it */
  PTO_VEC(Access) reads;
  U32Vec deps;
  PTO_VEC(uint64_t) edges; /* from << 32 | to */
} KOrder;

/* What a kernel op's operand v needs: the kernel ops it comes from (into
 * deps), through the views and reshapes the kernel recomputes, and the GM
 * it reads (into reads): a view's window (`win`), a tensor operand whole. */
static void operand_needs(KOrder *o, PtoValue *v, const Access *win) {
  PtoOp *d = pto_value_def_op(v);
  uintptr_t i = d ? (uintptr_t)pto_ptrmap_get(&o->index, (uintptr_t)d) : 0;
  if (i) pto_vec_push(&o->deps, (uint32_t)(i - 1));
  if (pto_type_is_tensor(pto_value_type(v))) {
    pto_vec_push(&o->reads, win ? *win : whole_access(v));
    return;
  }
  if (!part_is_remat(d)) return;
  bool view = pto_tile_op_id(d) == PTO_TILE_VIEW;
  Access a;
  if (view) a = window_access(d, pto_value_type(v));
  for (unsigned k = 0; k < pto_op_num_operands(d); k++)
    operand_needs(o, pto_op_operand(d, k), view ? &a : NULL);
}

/* What update `op` writes of the tensor version it updates. */
static Access update_access(PtoOp *op) {
  if (pto_tile_op_id(op) == PTO_TILE_ASSEMBLE)
    return window_access(op, pto_value_type(pto_op_operand(op, 0)));
  return whole_access(pto_tile_get_tensor(op));
}

/* Whether `op` updates a tensor version that something else uses too. */
static bool updates_read_version(PtoOp *op) {
  if (!part_writes_tensor(pto_tile_op_id(op))) return false;
  PtoUse *u = pto_value_first_use(pto_tile_get_tensor(op));
  return u && pto_use_next(u);
}

/* Puts the kernel's ops `ops` (in program order) in the order the kernel
 * runs them. A kernel runs its ops one after the other on GM it updates in
 * place, so an op that reads a tensor version as it was must come before
 * the kernel's update of that version where the two may overlap: the
 * Tile level allows the read after the update (value semantics), and an
 * update's chain merged into the kernel of a later read of the old
 * version would otherwise store before that read loads. Program order
 * when it already is one (no such read after its update); otherwise the
 * first op in program order of those whose operands are ready, the
 * update waiting for the reads. An update that must come first for the
 * read too (through other reads and updates of the kernel) is an error. */
static PtoResult order_kernel_ops(PtoOp **ops, unsigned n) {
  bool updates = false, backward = false;
  for (unsigned i = 0; i < n && !updates; i++) updates = updates_read_version(ops[i]);
  if (!updates) return PTO_SUCCESS; /* the common case: nothing to order */
  KOrder o;
  memset(&o, 0, sizeof o);
  pto_ptrmap_init(&o.index);
  pto_ptrmap_init(&o.writer);
  for (unsigned i = 0; i < n; i++) {
    pto_ptrmap_put(&o.index, (uintptr_t)ops[i], (void *)(uintptr_t)(i + 1));
    if (updates_read_version(ops[i]))
      pto_ptrmap_put(&o.writer, (uintptr_t)pto_tile_get_tensor(ops[i]),
                     (void *)(uintptr_t)(i + 1));
  }
  /* readers of a version the kernel updated before them (program order) */
  bool *late = pto_calloc(n, sizeof *late);
  for (unsigned i = 0; i < n; i++) {
    PtoOp *op = ops[i];
    PtoValue *dst = part_writes_tensor(pto_tile_op_id(op)) ? pto_tile_get_tensor(op) : NULL;
    pto_vec_clear(&o.reads);
    pto_vec_clear(&o.deps);
    for (unsigned k = 0; k < pto_op_num_operands(op); k++) {
      PtoValue *v = pto_op_operand(op, k);
      uint32_t before = o.reads.len;
      operand_needs(&o, v, NULL);
      if (v == dst) o.reads.len = before; /* what it updates, not a read */
    }
    for (uint32_t j = 0; j < o.deps.len; j++)
      pto_vec_push(&o.edges, (uint64_t)o.deps.data[j] << 32 | i);
    for (uint32_t j = 0; j < o.reads.len; j++) {
      const Access *r = &o.reads.data[j];
      uintptr_t w = (uintptr_t)pto_ptrmap_get(&o.writer, (uintptr_t)r->tensor);
      if (!w || w - 1 == i) continue;
      Access u = update_access(ops[w - 1]);
      if (!may_overlap(r, &u)) continue;
      pto_vec_push(&o.edges, (uint64_t)i << 32 | (w - 1));
      if (w - 1 < i) backward = late[i] = true;
    }
  }
  PtoResult res = PTO_SUCCESS;
  if (backward) {
    /* Kahn's algorithm, the first ready op in program order first */
    uint32_t *indeg = pto_calloc(n, sizeof *indeg), *start = pto_calloc(n + 1, sizeof *start);
    uint32_t *succ = pto_malloc((o.edges.len ? o.edges.len : 1) * sizeof *succ);
    for (uint32_t e = 0; e < o.edges.len; e++) {
      start[(uint32_t)(o.edges.data[e] >> 32) + 1]++;
      indeg[(uint32_t)o.edges.data[e]]++;
    }
    for (unsigned i = 0; i < n; i++) start[i + 1] += start[i];
    uint32_t *fill = pto_malloc((n ? n : 1) * sizeof *fill);
    memcpy(fill, start, n * sizeof *fill);
    for (uint32_t e = 0; e < o.edges.len; e++)
      succ[fill[o.edges.data[e] >> 32]++] = (uint32_t)o.edges.data[e];
    KeyHeap heap = {0};
    for (unsigned i = 0; i < n; i++)
      if (!indeg[i]) heap_push(&heap, i);
    OpVec order = {0};
    while (heap.len) {
      uint32_t i = (uint32_t)heap_pop(&heap);
      pto_vec_push(&order, ops[i]);
      for (uint32_t e = start[i]; e < start[i + 1]; e++)
        if (--indeg[succ[e]] == 0) heap_push(&heap, succ[e]);
    }
    /* an op left out is on a cycle of reads and updates, or after one */
    unsigned at = 0;
    while (order.len < n && at < n && (!late[at] || indeg[at] == 0)) at++;
    if (order.len == n) memcpy(ops, order.data, n * sizeof *ops);
    else
      res = pto_op_emit_error(
          ops[at < n ? at : 0],
          "reads a tensor as it was before an update that its kernel makes, "
          "and no order of the kernel's ops puts every such read before its "
          "update; cv-partition writes GM tensors in place");
    pto_vec_free(&order);
    pto_vec_free(&heap);
    pto_free(indeg);
    pto_free(start);
    pto_free(succ);
    pto_free(fill);
  }
  pto_free(late);
  pto_vec_free(&o.reads);
  pto_vec_free(&o.deps);
  pto_vec_free(&o.edges);
  pto_ptrmap_release(&o.index);
  pto_ptrmap_release(&o.writer);
  return res;
}

static PtoResult build_kernel(Partition *p, uint32_t g, PtoOp *before) {
  Node *node = &p->nodes.data[g];
  unsigned n = node->ops.len;
  PtoOp **ops = pto_malloc(n * sizeof *ops);
  memcpy(ops, node->ops.data, n * sizeof *ops);
  part_sort_ops(p, ops, n);
  if (order_kernel_ops(ops, n)) {
    pto_free(ops);
    return PTO_FAILURE;
  }

  KBuild k;
  memset(&k, 0, sizeof k);
  k.p = p;
  k.g = node;
  k.core = node->core;
  k.loc = pto_op_loc(ops[0]);
  k.body = pto_block_create(p->ctx);
  pto_builder_init(&k.kb, p->ctx);
  pto_builder_set_block_end(&k.kb, k.body);
  k.kb.loc = k.loc;
  pto_ptrmap_init(&k.args);
  pto_ptrmap_init(&k.bufs);
  pto_ptrmap_init(&k.inset);
  for (unsigned i = 0; i < n; i++) pto_ptrmap_put(&k.inset, (uintptr_t)ops[i], ops[i]);
  for (unsigned i = 0; i < n && !k.r; i++) kernel_op(&k, ops[i]);

  PtoContext *ctx = p->ctx;
  const char *label;
  PtoIdent *name = kernel_name(p, ops, n, &label);
  if (!k.r) {
    pto_builder_create_simple(&k.kb, "block.return", NULL, 0, NULL, 0, NULL, 0);
    unsigned na = pto_block_num_args(k.body);
    PtoType **types = pto_malloc((na ? na : 1) * sizeof *types);
    for (unsigned i = 0; i < na; i++) types[i] = pto_value_type(pto_block_arg(k.body, i));
    PtoOpState st;
    pto_op_state_init(&st, ctx, "block.kernel", k.loc);
    pto_op_state_add_attr(&st, "sym_name", pto_attr_cstr(ctx, pto_ident_str(name)));
    pto_op_state_add_attr(&st, "function_type",
                          pto_attr_type(ctx, pto_type_function(ctx, types, na, NULL, 0)));
    pto_op_state_add_attr(&st, "core", pto_attr_cstr(ctx, k.core == PTO_BLOCK_CORE_CUBE
                                                              ? "cube" : "vector"));
    pto_region_push_block(pto_op_state_add_region(&st), k.body);
    k.body = NULL;
    PtoBuilder mb;
    pto_builder_init(&mb, ctx);
    pto_builder_set_before(&mb, p->func);
    PtoOp *kernel = pto_builder_create(&mb, &st);
    pto_free(types);
    PtoOp *same = p->dedup ? made_before(p, kernel) : NULL;
    if (same) {
      pto_op_erase(kernel);
      name = pto_op_symbol_name(same);
      pto_pass_stat_add(p->pass, "kernels-shared", 1);
    } else {
      pto_symtab_insert(p->symbols, kernel);
      pto_pass_stat_add(p->pass, "kernels", 1);
    }

    PtoBuilder hb;
    pto_builder_init(&hb, ctx);
    if (before) pto_builder_set_before(&hb, before);
    else pto_builder_set_block_end(&hb, node->block);
    hb.loc = k.loc;
    PtoNamedAttr attrs[4] = {
        {p->id_callee, pto_attr_symref(ctx, name, NULL, 0)},
        {p->id_label, pto_attr_cstr(ctx, label)},
        {p->id_reads, pto_attr_array(ctx, k.reads.data, k.reads.len)},
        {p->id_writes,
         pto_attr_array(ctx, k.writes.data, k.writes.len)},
    };
    pto_builder_create_simple(&hb, "block.launch", k.hargs.data, k.hargs.len, NULL,
                              0, attrs, 4);
    pto_pass_stat_add(p->pass, "launches", 1);
    pto_pass_stat_add(p->pass, "tile-ops", n);
  }
  if (k.body) pto_block_erase(k.body);
  pto_ptrmap_release(&k.args);
  pto_ptrmap_release(&k.bufs);
  pto_ptrmap_release(&k.inset);
  pto_vec_free(&k.hargs);
  pto_vec_free(&k.reads);
  pto_vec_free(&k.writes);
  pto_free(ops);
  return k.r;
}

/* ------------------------------------------------------------------ */
/* The host function at the Block level                                 */
/* ------------------------------------------------------------------ */

typedef struct Finish {
  Partition *p;
  OpVec erase;
  OpVec empties;
} Finish;

static void to_root(Partition *p, PtoValue *v) {
  if (!pto_type_is_tensor(pto_value_type(v)) || !pto_value_has_uses(v)) return;
  PtoValue *r = part_root(p, v);
  if (r != v) pto_value_replace_all_uses(v, r);
}

static PtoWalkResult finish_op(PtoOp *op, void *user) {
  Finish *f = user;
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    to_root(f->p, pto_op_result(op, i));
  for (unsigned r = 0; r < pto_op_num_regions(op); r++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(op, r)); b;
         b = pto_block_next(b))
      for (unsigned i = 0; i < pto_block_num_args(b); i++)
        to_root(f->p, pto_block_arg(b, i));
  PtoTileOp id = pto_tile_op_id(op);
  if (id == PTO_TILE_EMPTY) pto_vec_push(&f->empties, op);
  else if (id != PTO_TILE_NONE && id != PTO_TILE_DIM &&
           id != PTO_TILE_TENSOR_RESHAPE && id != PTO_TILE_LOAD_SCALAR &&
           id != PTO_TILE_TENSOR_BITCAST)
    pto_vec_push(&f->erase, op);
  return PTO_WALK_ADVANCE;
}

void part_finish_func(Partition *p, PtoOp *func) {
  Finish f = {p, {0}, {0}};
  pto_op_walk(func, PTO_WALK_PRE, finish_op, &f);
  /* consumers first: tile values are only used by tile ops */
  for (uint32_t i = f.erase.len; i-- > 0;) pto_op_erase(f.erase.data[i]);
  for (uint32_t i = 0; i < f.empties.len; i++) {
    PtoOp *e = f.empties.data[i];
    PtoBuilder b;
    pto_builder_init(&b, p->ctx);
    pto_builder_set_before(&b, e);
    b.loc = pto_op_loc(e);
    unsigned n = pto_op_num_operands(e);
    PtoValue **opnds = pto_malloc((n ? n : 1) * sizeof *opnds);
    for (unsigned k = 0; k < n; k++) opnds[k] = pto_op_operand(e, k);
    PtoType *t = pto_value_type(pto_op_result(e, 0));
    PtoOp *ws = pto_builder_create_simple(&b, "block.workspace", opnds, n, &t, 1,
                                          NULL, 0);
    pto_free(opnds);
    pto_value_replace_all_uses(pto_op_result(e, 0), pto_op_result(ws, 0));
    pto_op_erase(e);
    pto_pass_stat_add(p->pass, "workspaces", 1);
  }
  pto_vec_free(&f.erase);
  pto_vec_free(&f.empties);
}
