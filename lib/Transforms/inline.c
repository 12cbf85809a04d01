/* inline: replaces each func.call of a function with a body by a copy of
 * that body, callees before callers (bottom-up over the call graph's
 * strongly connected components) so that every body is inlined once.
 * Calls inside a recursive cycle are kept. A private function is erased
 * once inlining has removed its last use; public ones stay (MLIR's rule). */
#include "Transforms/Passes.h"
#include "pto/Dialects.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Vec.h"

typedef PTO_VEC(PtoOp *) OpVec;

/* ------------------------------------------------------------------ */
/* Call graph: functions, their calls, and SCCs (Tarjan)                */
/* ------------------------------------------------------------------ */

typedef struct Node {
  PtoOp *fn;
  OpVec callees; /* resolved func.func of each call in the body */
  int index, low, scc;
  bool on_stack;
} Node;

typedef struct Graph {
  PTO_VEC(Node) nodes;
  PtoPtrMap node_of; /* func.func -> node index + 1 */
  PtoPtrMap symtabs; /* symbol table op -> PtoSymbolTable, for calls */
  int next_index, next_scc;
  PTO_VEC(int) stack;
  PTO_VEC(int) order; /* nodes of completed SCCs: callees first */
} Graph;

static int node_index(Graph *g, PtoOp *fn) {
  return (int)(uintptr_t)pto_ptrmap_get(&g->node_of, (uintptr_t)fn) - 1;
}

/* The func.func a call names, through cached symbol tables (the pass adds
 * no symbols and erases functions only at the end). */
static PtoOp *resolve(Graph *g, PtoOp *call) {
  PtoAttr *ref = pto_op_attr(call, "callee");
  if (!ref || pto_attr_kind(ref) != PTO_ATTR_SYMREF ||
      pto_attr_symref_num_nested(ref))
    return NULL;
  for (PtoOp *t = pto_symbol_table_op_of(call); t; t = pto_symbol_table_op_of(t)) {
    PtoSymbolTable *st = pto_ptrmap_get(&g->symtabs, (uintptr_t)t);
    if (!st) {
      st = pto_symtab_create(t);
      pto_ptrmap_put(&g->symtabs, (uintptr_t)t, st);
    }
    PtoOp *fn = pto_symtab_lookup(st, pto_attr_symref_root(ref));
    if (fn) return pto_op_is(fn, "func.func") ? fn : NULL;
  }
  return NULL;
}

static PtoWalkResult collect_funcs(PtoOp *op, void *user) {
  Graph *g = user;
  if (!pto_op_is(op, "func.func")) return PTO_WALK_ADVANCE;
  Node n = {op, {0}, -1, 0, -1, false};
  pto_vec_push(&g->nodes, n);
  pto_ptrmap_put(&g->node_of, (uintptr_t)op, (void *)(uintptr_t)g->nodes.len);
  return PTO_WALK_ADVANCE;
}

typedef struct CalleeWalk {
  Graph *g;
  OpVec *out;
} CalleeWalk;

static PtoWalkResult collect_callees(PtoOp *op, void *user) {
  CalleeWalk *cw = user;
  if (!pto_op_is(op, "func.call")) return PTO_WALK_ADVANCE;
  PtoOp *callee = resolve(cw->g, op);
  if (callee && node_index(cw->g, callee) >= 0) pto_vec_push(cw->out, callee);
  return PTO_WALK_ADVANCE;
}

/* Tarjan's algorithm with an explicit stack of (node, next edge). */
static void strong_connect(Graph *g, int start) {
  typedef struct Frame { int v; uint32_t edge; } Frame;
  PTO_VEC(Frame) frames = {0};
  Frame f0 = {start, 0};
  pto_vec_push(&frames, f0);
  g->nodes.data[start].index = g->nodes.data[start].low = g->next_index++;
  pto_vec_push(&g->stack, start);
  g->nodes.data[start].on_stack = true;
  while (frames.len) {
    Frame *f = &pto_vec_last(&frames);
    Node *v = &g->nodes.data[f->v];
    if (f->edge < v->callees.len) {
      int w = node_index(g, v->callees.data[f->edge++]);
      Node *wn = &g->nodes.data[w];
      if (wn->index < 0) {
        wn->index = wn->low = g->next_index++;
        pto_vec_push(&g->stack, w);
        wn->on_stack = true;
        Frame nf = {w, 0};
        pto_vec_push(&frames, nf);
      } else if (wn->on_stack && wn->index < v->low) {
        v->low = wn->index;
      }
      continue;
    }
    if (v->low == v->index) {
      int w;
      do {
        w = pto_vec_pop(&g->stack);
        g->nodes.data[w].on_stack = false;
        g->nodes.data[w].scc = g->next_scc;
        pto_vec_push(&g->order, w);
      } while (w != f->v);
      g->next_scc++;
    }
    int done = f->v;
    frames.len--;
    if (frames.len) {
      Node *parent = &g->nodes.data[pto_vec_last(&frames).v];
      if (g->nodes.data[done].low < parent->low)
        parent->low = g->nodes.data[done].low;
    }
  }
  pto_vec_free(&frames);
}

static void graph_build(Graph *g, PtoOp *root) {
  memset(g, 0, sizeof *g);
  pto_ptrmap_init(&g->node_of);
  pto_ptrmap_init(&g->symtabs);
  pto_op_walk(root, PTO_WALK_PRE, collect_funcs, g);
  for (uint32_t i = 0; i < g->nodes.len; i++) {
    CalleeWalk cw = {g, &g->nodes.data[i].callees};
    PtoRegion *body = pto_op_region(g->nodes.data[i].fn, 0);
    pto_region_walk(body, PTO_WALK_PRE, collect_callees, &cw);
  }
  for (uint32_t i = 0; i < g->nodes.len; i++)
    if (g->nodes.data[i].index < 0) strong_connect(g, (int)i);
}

static void graph_free(Graph *g) {
  pto_vec_foreach(&g->nodes, n) pto_vec_free(&n->callees);
  pto_vec_free(&g->nodes);
  pto_vec_free(&g->stack);
  pto_vec_free(&g->order);
  pto_ptrmap_release(&g->node_of);
  uint64_t key;
  void *st;
  for (uint32_t it = 0; pto_ptrmap_next(&g->symtabs, &it, &key, &st);)
    pto_symtab_destroy(st);
  pto_ptrmap_release(&g->symtabs);
}

/* ------------------------------------------------------------------ */
/* Inlining one call                                                    */
/* ------------------------------------------------------------------ */

static PtoWalkResult registered_only(PtoOp *op, void *user) {
  return pto_op_def(op) ? PTO_WALK_ADVANCE : PTO_WALK_INTERRUPT;
}

/* A body we can copy in place of a call: one block ending in func.return,
 * ops whose semantics we know, and symbol references that mean the same
 * at the call site (same symbol table). */
static bool can_inline(PtoOp *call, PtoOp *callee) {
  PtoBlock *entry = pto_func_entry_block(callee);
  if (!entry || pto_block_next(entry)) return false;
  PtoOp *ret = pto_block_last_op(entry);
  if (!ret || !pto_op_is(ret, "func.return")) return false;
  if (pto_symbol_table_op_of(call) != pto_symbol_table_op_of(callee))
    return false;
  return pto_region_walk(pto_op_region(callee, 0), PTO_WALK_PRE,
                         registered_only, NULL) != PTO_WALK_INTERRUPT;
}

typedef struct LocWalk {
  PtoContext *ctx;
  PtoLoc *call_loc;
} LocWalk;

/* Inlined ops say where they came from and through which call. */
static PtoWalkResult set_callsite_loc(PtoOp *op, void *user) {
  LocWalk *lw = user;
  pto_op_set_loc(op, pto_loc_callsite(lw->ctx, pto_op_loc(op), lw->call_loc));
  return PTO_WALK_ADVANCE;
}

static void inline_call(PtoOp *call, PtoOp *callee) {
  PtoContext *ctx = pto_op_ctx(call);
  PtoBlock *entry = pto_func_entry_block(callee);
  PtoValueMap *map = pto_value_map_create();
  for (unsigned i = 0; i < pto_block_num_args(entry); i++)
    pto_value_map_set(map, pto_block_arg(entry, i), pto_op_operand(call, i));
  LocWalk lw = {ctx, pto_op_loc(call)};
  PtoOp *ret = pto_block_last_op(entry);
  for (PtoOp *o = pto_block_first_op(entry); o != ret; o = pto_op_next(o)) {
    PtoOp *copy = pto_op_clone(o, map);
    pto_op_walk(copy, PTO_WALK_PRE, set_callsite_loc, &lw);
    pto_block_insert_before(call, copy);
  }
  for (unsigned i = 0; i < pto_op_num_results(call); i++)
    pto_value_replace_all_uses(pto_op_result(call, i),
                               pto_value_map_lookup(map, pto_op_operand(ret, i)));
  pto_op_erase(call);
  pto_value_map_destroy(map);
}

/* ------------------------------------------------------------------ */
/* Erasing private functions that inlining left unused                  */
/* ------------------------------------------------------------------ */

/* References to each symbol name (symbol ref attributes, by root name; a
 * name in a nested table counts too, which only keeps more). */
typedef struct RefCount {
  PtoPtrMap counts; /* PtoIdent * -> count */
  int delta;
} RefCount;

static void count_attr(RefCount *rc, PtoAttr *a) {
  switch (pto_attr_kind(a)) {
  case PTO_ATTR_SYMREF: {
    uintptr_t key = (uintptr_t)pto_attr_symref_root(a);
    intptr_t n = (intptr_t)pto_ptrmap_get(&rc->counts, key) + rc->delta;
    pto_ptrmap_put(&rc->counts, key, (void *)n);
    return;
  }
  case PTO_ATTR_ARRAY:
    for (unsigned i = 0; i < pto_attr_array_size(a); i++)
      count_attr(rc, pto_attr_array_get(a, i));
    return;
  case PTO_ATTR_DICT:
    for (unsigned i = 0; i < pto_attr_dict_size(a); i++)
      count_attr(rc, pto_attr_dict_entries(a)[i].value);
    return;
  default:
    return;
  }
}

static PtoWalkResult count_op(PtoOp *op, void *user) {
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++)
    count_attr(user, pto_op_attrs(op)[i].value);
  return PTO_WALK_ADVANCE;
}

/* Erases the private candidates nothing refers to any more; erasing one
 * drops its own references, which may free another. Linear: each
 * function is counted once in and once out. */
static void erase_unused(PtoPass *pass, PtoOp *root, OpVec *candidates) {
  RefCount rc;
  pto_ptrmap_init(&rc.counts);
  rc.delta = 1;
  pto_op_walk(root, PTO_WALK_PRE, count_op, &rc);
  rc.delta = -1;
  for (bool again = true; again;) {
    again = false;
    for (uint32_t i = candidates->len; i-- > 0;) {
      PtoOp *fn = candidates->data[i];
      PtoIdent *name = fn ? pto_op_symbol_name(fn) : NULL;
      if (!name || !pto_symbol_is_private(fn) ||
          pto_ptrmap_get(&rc.counts, (uintptr_t)name))
        continue;
      pto_op_walk(fn, PTO_WALK_PRE, count_op, &rc);
      pto_op_erase(fn);
      candidates->data[i] = NULL;
      pto_pass_stat_add(pass, "functions-erased", 1);
      again = true;
    }
  }
  pto_ptrmap_release(&rc.counts);
}

/* ------------------------------------------------------------------ */
/* The pass                                                             */
/* ------------------------------------------------------------------ */

static PtoWalkResult collect_calls(PtoOp *op, void *user) {
  if (pto_op_is(op, "func.call")) pto_vec_push((OpVec *)user, op);
  return PTO_WALK_ADVANCE;
}

static PtoResult run(PtoPass *pass, PtoOp *root) {
  Graph g;
  graph_build(&g, root);
  PtoPtrMap inlined_into; /* callees that lost a call to inlining */
  pto_ptrmap_init(&inlined_into);
  OpVec erased_candidates = {0};
  for (uint32_t k = 0; k < g.order.len; k++) {
    Node *caller = &g.nodes.data[g.order.data[k]];
    OpVec calls = {0};
    pto_region_walk(pto_op_region(caller->fn, 0), PTO_WALK_PRE, collect_calls,
                    &calls);
    for (uint32_t i = 0; i < calls.len; i++) {
      PtoOp *call = calls.data[i];
      PtoOp *callee = resolve(&g, call);
      int ci = callee ? node_index(&g, callee) : -1;
      if (ci < 0 || g.nodes.data[ci].scc == caller->scc) continue; /* recursive */
      if (!can_inline(call, callee)) continue;
      inline_call(call, callee);
      pto_pass_stat_add(pass, "calls-inlined", 1);
      if (!pto_ptrmap_contains(&inlined_into, (uintptr_t)callee)) {
        pto_ptrmap_put(&inlined_into, (uintptr_t)callee, callee);
        pto_vec_push(&erased_candidates, callee);
      }
    }
    pto_vec_free(&calls);
  }
  erase_unused(pass, root, &erased_candidates);
  pto_vec_free(&erased_candidates);
  pto_ptrmap_release(&inlined_into);
  graph_free(&g);
  return PTO_SUCCESS;
}

static const PtoPassStatDef statistics[] = {
    {"calls-inlined", "Number of calls replaced by the callee's body"},
    {"functions-erased",
     "Number of private functions erased after their last call was inlined"},
};

const PtoPassDef pto_inline_pass = {
    "inline",
    "Inline calls of functions with a single-block body, callees first",
    NULL,
    NULL,
    0,
    statistics,
    PTO_ARRAY_SIZE(statistics),
    run,
    NULL,
    NULL,
    NULL,
    "Replaces each `func.call` of a `func.func` with a body by a copy of\n"
    "that body: the callee's arguments become the call's operands, the\n"
    "call's results the values its `func.return` returns, and the copied\n"
    "ops get the location `callsite(<op's location> at <call's location>)`.\n"
    "Callees are processed before their callers (bottom-up over the strongly\n"
    "connected components of the call graph), so each body is inlined\n"
    "already flat. Calls between functions of one cycle (recursion) are\n"
    "kept; a call from outside into a recursive function is inlined once,\n"
    "which leaves a call into the cycle.\n"
    "\n"
    "Left alone: calls of declarations, of bodies with more than one block\n"
    "(there is no branch op to stitch them into the caller), of bodies with\n"
    "unregistered ops, and of callees in another symbol table than the\n"
    "call. A private function whose last reference went away with inlining\n"
    "is erased; public ones stay, as do private functions that were never\n"
    "called (`symbol-dce` erases those).",
};
