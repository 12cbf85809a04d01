/* Canonicalization patterns of scf: scf.if on a constant condition, unused
 * results, trivial branches and empty else regions; scf.for with zero or one
 * iteration, loop-invariant and unused loop-carried values. */
#include "Dialect/SCF/SCF.h"
#include "pto/Pass.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Vec.h"

typedef PTO_VEC(PtoValue *) ValueVec;
typedef PTO_VEC(PtoType *) TypeVec;
typedef PTO_VEC(PtoOp *) OpVec;

static PtoOp *terminator(PtoRegion *r) {
  PtoBlock *b = pto_region_first_block(r);
  return b ? pto_block_last_op(b) : NULL;
}

/* The block holds nothing but its terminator. */
static bool only_yield(PtoRegion *r) {
  PtoBlock *b = pto_region_first_block(r);
  return !b || pto_block_first_op(b) == pto_block_last_op(b);
}

/* Replaces every use of `from` by `to`, telling the driver about each user
 * so that it looks at them again. */
static void replace_uses(PtoRewriter *rw, PtoValue *from, PtoValue *to) {
  PTO_VEC(PtoOp *) users = {0};
  for (PtoUse *u = pto_value_first_use(from); u; u = pto_use_next(u))
    pto_vec_push(&users, pto_use_owner(u));
  pto_value_replace_all_uses(from, to);
  for (uint32_t i = 0; i < users.len; i++)
    pto_rewriter_notify_modified(rw, users.data[i]);
  pto_vec_free(&users);
}

/* Moves the region's single block before `op`, replacing its arguments by
 * `args`, and replaces op's results by what its scf.yield yielded. */
static void inline_region(PtoRewriter *rw, PtoOp *op, PtoRegion *r,
                          PtoValue *const *args) {
  PtoOp *y = terminator(r);
  unsigned n = pto_op_num_operands(y);
  ValueVec vals = {0};
  for (unsigned i = 0; i < n; i++) pto_vec_push(&vals, pto_op_operand(y, i));
  pto_rewriter_inline_block_before(rw, pto_region_first_block(r), op, args);
  pto_rewriter_replace_op(rw, op, vals.data);
  pto_rewriter_erase_op(rw, y);
  pto_vec_free(&vals);
}

/* ------------------------------------------------------------------ */
/* scf.if                                                               */
/* ------------------------------------------------------------------ */

/* scf.if true/false: the taken region replaces the op. */
static PtoResult if_constant_condition(PtoOp *op, PtoRewriter *rw,
                                       void *user) {
  PtoAttr *c = pto_value_constant(pto_op_operand(op, 0));
  if (!c || pto_attr_kind(c) != PTO_ATTR_INTEGER) return PTO_FAILURE;
  PtoRegion *taken = pto_op_region(op, pto_attr_int_value(c) ? 0 : 1);
  if (pto_region_empty(taken)) { /* no else: nothing runs, nothing yielded */
    pto_rewriter_erase_op(rw, op);
    return PTO_SUCCESS;
  }
  inline_region(rw, op, taken, NULL);
  return PTO_SUCCESS;
}

/* Keeps the results in `keep` (by index), moving the regions to a new op. */
static PtoOp *if_with_results(PtoRewriter *rw, PtoOp *op, const bool *keep) {
  PtoOpState st;
  pto_op_state_init(&st, pto_rewriter_ctx(rw), "scf.if", pto_op_loc(op));
  pto_op_state_add_operand(&st, pto_op_operand(op, 0));
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    if (keep[i]) pto_op_state_add_result(&st, pto_value_type(pto_op_result(op, i)));
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++)
    pto_op_state_set_attr(&st, pto_op_attrs(op)[i].name,
                          pto_op_attrs(op)[i].value);
  pto_op_state_add_region(&st);
  pto_op_state_add_region(&st);
  PtoOp *nop = pto_rewriter_create(rw, &st);
  for (unsigned r = 0; r < 2; r++) {
    pto_region_take_body(pto_op_region(nop, r), pto_op_region(op, r));
    PtoOp *y = terminator(pto_op_region(nop, r));
    if (!y) continue;
    ValueVec kept = {0};
    for (unsigned i = 0; i < pto_op_num_operands(y); i++)
      if (keep[i]) pto_vec_push(&kept, pto_op_operand(y, i));
    pto_op_set_operands(y, 0, pto_op_num_operands(y), kept.data, kept.len);
    pto_rewriter_notify_modified(rw, y);
    pto_vec_free(&kept);
  }
  return nop;
}

/* Results nobody uses are dropped (with their yielded values). */
static PtoResult if_unused_results(PtoOp *op, PtoRewriter *rw, void *user) {
  unsigned n = pto_op_num_results(op), used = 0;
  for (unsigned i = 0; i < n; i++) used += pto_value_has_uses(pto_op_result(op, i));
  if (used == n) return PTO_FAILURE;
  bool *keep = pto_malloc(n * sizeof *keep);
  for (unsigned i = 0; i < n; i++) keep[i] = pto_value_has_uses(pto_op_result(op, i));
  PtoOp *nop = if_with_results(rw, op, keep);
  for (unsigned i = 0, k = 0; i < n; i++)
    if (keep[i]) replace_uses(rw, pto_op_result(op, i), pto_op_result(nop, k++));
  pto_rewriter_erase_op(rw, op);
  pto_free(keep);
  return PTO_SUCCESS;
}

/* Both branches only yield values from outside: one arith.select each. */
static PtoResult if_to_select(PtoOp *op, PtoRewriter *rw, void *user) {
  unsigned n = pto_op_num_results(op);
  PtoRegion *tr = pto_op_region(op, 0), *er = pto_op_region(op, 1);
  if (!n || pto_region_empty(er) || !only_yield(tr) || !only_yield(er))
    return PTO_FAILURE;
  PtoOp *ty = terminator(tr), *ey = terminator(er);
  for (unsigned i = 0; i < n; i++) {
    /* a value of the if's own regions cannot be selected from outside */
    for (unsigned k = 0; k < 2; k++) {
      PtoValue *v = pto_op_operand(k ? ey : ty, i);
      PtoBlock *b = pto_value_parent_block(v);
      if (b && pto_op_is_ancestor_of(op, pto_block_parent_op(b)))
        return PTO_FAILURE;
    }
  }
  ValueVec vals = {0};
  PtoValue *cond = pto_op_operand(op, 0);
  for (unsigned i = 0; i < n; i++) {
    PtoValue *t = pto_op_operand(ty, i), *f = pto_op_operand(ey, i);
    if (t == f) {
      pto_vec_push(&vals, t);
      continue;
    }
    PtoOpState st;
    pto_op_state_init(&st, pto_rewriter_ctx(rw), "arith.select", pto_op_loc(op));
    PtoValue *ops[3] = {cond, t, f};
    pto_op_state_add_operands(&st, ops, 3);
    pto_op_state_add_result(&st, pto_value_type(t));
    pto_vec_push(&vals, pto_op_result(pto_rewriter_create(rw, &st), 0));
  }
  pto_rewriter_replace_op(rw, op, vals.data);
  pto_vec_free(&vals);
  return PTO_SUCCESS;
}

/* An else region that only yields nothing is dropped. */
static PtoResult if_empty_else(PtoOp *op, PtoRewriter *rw, void *user) {
  PtoRegion *er = pto_op_region(op, 1);
  if (pto_op_num_results(op) || pto_region_empty(er) || !only_yield(er))
    return PTO_FAILURE;
  pto_rewriter_erase_op(rw, terminator(er));
  pto_block_erase(pto_region_first_block(er));
  pto_rewriter_notify_modified(rw, op);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* scf.for                                                              */
/* ------------------------------------------------------------------ */

/* A loop that runs zero times yields its inits; once, its body inlined. */
static PtoResult for_trivial_trip_count(PtoOp *op, PtoRewriter *rw,
                                        void *user) {
  int64_t n;
  if (!pto_scf_for_const_trip_count(op, &n) || n > 1) return PTO_FAILURE;
  unsigned k = pto_scf_for_num_iter_args(op);
  ValueVec args = {0};
  pto_vec_push(&args, pto_scf_for_lower(op));
  for (unsigned i = 0; i < k; i++) pto_vec_push(&args, pto_scf_for_init(op, i));
  if (n == 0)
    pto_rewriter_replace_op(rw, op, args.data + 1);
  else
    inline_region(rw, op, pto_op_region(op, 0), args.data);
  pto_vec_free(&args);
  return PTO_SUCCESS;
}

/* The top-level op of the loop body that contains `o`. */
static PtoOp *body_ancestor(PtoOp *o, PtoBlock *body) {
  while (o && pto_op_block(o) != body) o = pto_op_parent_op(o);
  return o;
}

/* Collects into `slice` the body ops that depend on iter arg i; true when
 * all are effect-free and their values reach nothing but yield operand i,
 * so that dropping the loop-carried value changes nothing observable. */
static bool dead_slice(PtoOp *loop, unsigned i, PtoPtrMap *slice,
                       OpVec *ops) {
  PtoBlock *body = pto_scf_for_body(loop);
  PtoOp *yield = pto_block_last_op(body);
  ValueVec work = {0};
  pto_vec_push(&work, pto_scf_for_iter_arg(loop, i));
  bool ok = true;
  while (ok && work.len) {
    PtoValue *v = pto_vec_pop(&work);
    for (PtoUse *u = pto_value_first_use(v); u && ok; u = pto_use_next(u)) {
      PtoOp *o = body_ancestor(pto_use_owner(u), body);
      if (o == yield) {
        ok = pto_use_owner(u) == yield && pto_use_operand_index(u) == i;
        continue;
      }
      if (!o || !pto_op_is_effect_free(o)) {
        ok = false;
        continue;
      }
      if (pto_ptrmap_contains(slice, (uintptr_t)o)) continue;
      pto_ptrmap_put(slice, (uintptr_t)o, o);
      pto_vec_push(ops, o);
      for (unsigned r = 0; r < pto_op_num_results(o); r++)
        pto_vec_push(&work, pto_op_result(o, r));
    }
  }
  pto_vec_free(&work);
  return ok;
}

/* Loop-carried values that are loop-invariant (yielded unchanged, or the
 * init yielded back) are replaced by their init inside and after the loop;
 * values nobody reads after the loop and that only feed themselves are
 * dropped with the ops computing them. */
static PtoResult for_simplify_iter_args(PtoOp *op, PtoRewriter *rw,
                                        void *user) {
  unsigned n = pto_scf_for_num_iter_args(op);
  PtoBlock *body = pto_scf_for_body(op);
  PtoOp *yield = body ? pto_block_last_op(body) : NULL;
  if (!n || !yield || pto_op_num_operands(yield) != n) return PTO_FAILURE;
  bool changed = false;
  for (unsigned i = 0; i < n; i++) {
    PtoValue *arg = pto_scf_for_iter_arg(op, i), *init = pto_scf_for_init(op, i);
    PtoValue *res = pto_op_result(op, i), *y = pto_op_operand(yield, i);
    if ((y == arg || y == init) &&
        (pto_value_has_uses(res) || pto_value_num_uses(arg) > (y == arg))) {
      replace_uses(rw, res, init);
      replace_uses(rw, arg, init);
      changed = true;
    }
  }
  PtoPtrMap slice; /* ops to erase, of every dropped value */
  pto_ptrmap_init(&slice);
  bool *drop = pto_calloc(n, sizeof *drop);
  unsigned ndrop = 0;
  for (unsigned i = 0; i < n; i++) {
    if (pto_value_has_uses(pto_op_result(op, i))) continue;
    OpVec mine = {0};
    PtoPtrMap tmp;
    pto_ptrmap_init(&tmp);
    if (dead_slice(op, i, &tmp, &mine)) {
      drop[i] = true;
      ndrop++;
      for (uint32_t k = 0; k < mine.len; k++)
        pto_ptrmap_put(&slice, (uintptr_t)mine.data[k], mine.data[k]);
    }
    pto_ptrmap_release(&tmp);
    pto_vec_free(&mine);
  }
  if (ndrop) {
    /* the yield stops using the dropped values, then their slices die */
    ValueVec kept = {0};
    for (unsigned i = 0; i < n; i++)
      if (!drop[i]) pto_vec_push(&kept, pto_op_operand(yield, i));
    pto_op_set_operands(yield, 0, n, kept.data, kept.len);
    pto_vec_free(&kept);
    for (PtoOp *o = pto_block_last_op(body); o;) {
      PtoOp *prev = pto_op_prev(o);
      if (pto_ptrmap_contains(&slice, (uintptr_t)o)) pto_rewriter_erase_op(rw, o);
      o = prev;
    }
    PtoOpState st;
    pto_op_state_init(&st, pto_rewriter_ctx(rw), "scf.for", pto_op_loc(op));
    for (unsigned i = 0; i < 3; i++)
      pto_op_state_add_operand(&st, pto_op_operand(op, i));
    for (unsigned i = 0; i < n; i++)
      if (!drop[i]) {
        pto_op_state_add_operand(&st, pto_scf_for_init(op, i));
        pto_op_state_add_result(&st, pto_value_type(pto_op_result(op, i)));
      }
    for (unsigned i = 0; i < pto_op_num_attrs(op); i++)
      pto_op_state_set_attr(&st, pto_op_attrs(op)[i].name,
                            pto_op_attrs(op)[i].value);
    pto_op_state_add_region(&st);
    PtoOp *nop = pto_rewriter_create(rw, &st);
    pto_region_take_body(pto_op_region(nop, 0), pto_op_region(op, 0));
    for (unsigned i = n; i-- > 0;)
      if (drop[i]) pto_block_erase_arg(body, i + 1);
    for (unsigned i = 0, k = 0; i < n; i++)
      if (!drop[i]) replace_uses(rw, pto_op_result(op, i), pto_op_result(nop, k++));
    pto_rewriter_erase_op(rw, op);
  } else if (changed) {
    pto_rewriter_notify_modified(rw, op);
    pto_rewriter_notify_modified(rw, yield);
  }
  pto_free(drop);
  pto_ptrmap_release(&slice);
  return changed || ndrop ? PTO_SUCCESS : PTO_FAILURE;
}

#define ADD(root, fn) pto_pattern_set_add(set, root, 1, fn, NULL, #fn)

void pto_scf_canon_if(void *set, PtoContext *ctx) {
  ADD("scf.if", if_constant_condition);
  ADD("scf.if", if_unused_results);
  ADD("scf.if", if_to_select);
  ADD("scf.if", if_empty_else);
}

void pto_scf_canon_for(void *set, PtoContext *ctx) {
  ADD("scf.for", for_trivial_trip_count);
  ADD("scf.for", for_simplify_iter_args);
}
