/* Structural verification: op-table arities, terminators, successors,
 * SSA dominance (scoped visibility over the dominator tree), isolation,
 * symbol-table uniqueness, then each op's own verifier. */
#include "IR/IRInternal.h"

#include <string.h>

typedef struct Verifier {
  PtoContext *ctx;
  uint32_t next_iso;
  bool failed;
} Verifier;

static PtoResult verify_region(Verifier *vf, PtoRegion *r, uint32_t iso);

static const char *plural(unsigned n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

static bool check_count(PtoOp *op, int16_t spec, unsigned n, const char *one,
                        const char *many) {
  if (spec >= 0) {
    if (n == (unsigned)spec) return true;
    pto_op_emit_error(op, "expected %d %s, but found %u", spec,
                      plural((unsigned)spec, one, many), n);
    return false;
  }
  unsigned min = (unsigned)(-spec - 1);
  if (n >= min) return true;
  pto_op_emit_error(op, "expected at least %u %s, but found %u", min,
                    plural(min, one, many), n);
  return false;
}

static void clear_marks_region(PtoRegion *r);
static void clear_marks_op(PtoOp *op) {
  for (unsigned i = 0; i < op->num_results; i++) op->results[i].scratch = 0;
  for (unsigned i = 0; i < op->num_regions; i++) clear_marks_region(&op->regions[i]);
}
static void clear_marks_region(PtoRegion *r) {
  PTO_FOR_BLOCKS(r, b) {
    for (uint32_t i = 0; i < b->nargs; i++) b->args[i]->v.scratch = 0;
    PTO_FOR_OPS(b, op) clear_marks_op(op);
  }
}

static PtoResult check_operands(Verifier *vf, PtoOp *op, uint32_t iso,
                                PtoRegion *lenient) {
  for (unsigned i = 0; i < op->num_operands; i++) {
    PtoValue *v = op->operands[i].value;
    if (!v) return pto_op_emit_error(op, "null operand found at position %u", i);
    if (v->scratch == iso) continue;
    PtoBlock *vb = pto_value_parent_block(v);
    if (lenient && vb && vb->parent == lenient) continue;
    if (v->scratch != 0) {
      PtoOp *iso_op = NULL;
      for (PtoOp *o = pto_op_parent_op(op); o; o = pto_op_parent_op(o))
        if (pto_op_has_trait(o, PTO_TRAIT_ISOLATED_FROM_ABOVE)) {
          iso_op = o;
          break;
        }
      PtoDiag *d = pto_op_diag(op, PTO_DIAG_ERROR,
                               "using value defined outside the region");
      if (iso_op)
        pto_diag_note(d, iso_op->loc, "required by region isolation constraints");
      return pto_diag_emit(d);
    }
    PtoDiag *d = pto_diag_begin(vf->ctx, PTO_DIAG_ERROR, op->loc);
    pto_diag_printf(d, "operand #%u does not dominate this use", i);
    pto_diag_note(d, pto_value_loc(v), "operand defined here");
    return pto_diag_emit(d);
  }
  return PTO_SUCCESS;
}

static PtoResult verify_symbol_table(PtoOp *op) {
  for (unsigned ri = 0; ri < op->num_regions; ri++) {
    PtoPtrMap seen;
    pto_ptrmap_init(&seen);
    PtoResult r = PTO_SUCCESS;
    PTO_FOR_BLOCKS(&op->regions[ri], b) {
      PTO_FOR_OPS(b, child) {
        PtoIdent *name = pto_op_symbol_name(child);
        if (!name) continue;
        PtoOp *prev = pto_ptrmap_put(&seen, (uintptr_t)name, child);
        if (prev) {
          PtoDiag *d = pto_diag_begin(op->ctx, PTO_DIAG_ERROR, child->loc);
          pto_diag_printf(d, "redefinition of symbol named '%s'", name->str);
          pto_diag_note(d, prev->loc, "see existing symbol definition here");
          r = pto_diag_emit(d);
          break;
        }
      }
      if (r) break;
    }
    pto_ptrmap_release(&seen);
    if (r) return r;
  }
  return PTO_SUCCESS;
}

static PtoResult verify_op(Verifier *vf, PtoOp *op, uint32_t iso,
                           PtoRegion *lenient) {
  if (check_operands(vf, op, iso, lenient)) return PTO_FAILURE;
  const PtoOpDef *d = op->def;
  if (d) {
    if (!check_count(op, d->num_operands, op->num_operands, "operand", "operands") ||
        !check_count(op, d->num_results, op->num_results, "result", "results") ||
        !check_count(op, d->num_regions, op->num_regions, "region", "regions") ||
        !check_count(op, d->num_successors, op->num_successors, "successor",
                     "successors"))
      return PTO_FAILURE;
    if ((d->traits & PTO_TRAIT_TERMINATOR) && pto_op_next(op))
      return pto_op_emit_error(op, "must be the last operation in the parent block");
    if (d->traits & PTO_TRAIT_SINGLE_BLOCK)
      for (unsigned i = 0; i < op->num_regions; i++)
        if (pto_region_num_blocks(&op->regions[i]) > 1)
          return pto_op_emit_error(op, "expects region #%u to have 0 or 1 blocks", i);
    if (d->traits & PTO_TRAIT_SYMBOL) {
      PtoAttr *sn = pto_op_attr(op, "sym_name");
      if (!sn || sn->kind != PTO_ATTR_STRING)
        return pto_op_emit_error(op, "requires string attribute 'sym_name'");
    }
    if ((d->traits & PTO_TRAIT_HAS_PARENT_SYMBOL_TABLE)) {
      PtoOp *parent = pto_op_parent_op(op);
      if (!parent || !pto_op_has_trait(parent, PTO_TRAIT_SYMBOL_TABLE))
        return pto_op_emit_error(op, "expects parent op to be a symbol table");
    }
  }
  for (unsigned i = 0; i < op->num_successors; i++) {
    PtoBlock *s = op->successors[i];
    if (!s || !op->block || s->parent != op->block->parent)
      return pto_op_emit_error(op, "reference to block defined in another region");
  }
  if (d && d->verify && d->verify(op)) return PTO_FAILURE;
  if (d && (d->traits & PTO_TRAIT_SYMBOL_TABLE) && verify_symbol_table(op))
    return PTO_FAILURE;
  bool isolated = d && (d->traits & PTO_TRAIT_ISOLATED_FROM_ABOVE);
  for (unsigned i = 0; i < op->num_regions; i++) {
    uint32_t inner = isolated ? ++vf->next_iso : iso;
    if (verify_region(vf, &op->regions[i], inner)) return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

static PtoResult verify_block_terminator(PtoBlock *b) {
  PtoOp *parent = pto_block_parent_op(b);
  if (!parent || !parent->def) return PTO_SUCCESS; /* unknown region rules */
  if (parent->def->traits & PTO_TRAIT_NO_TERMINATOR) return PTO_SUCCESS;
  PtoOp *last = pto_block_last_op(b);
  if (!last) {
    return pto_emit_error(b->ctx, parent->loc,
                          "'%s' op empty block: expect at least a terminator",
                          parent->name->str);
  }
  if (last->def && !(last->def->traits & PTO_TRAIT_TERMINATOR))
    return pto_emit_error(b->ctx, last->loc,
                          "block with no terminator, has '%s'",
                          last->name->str);
  return PTO_SUCCESS;
}

/* Marks values of a block visible in `iso` and checks its ops. */
static PtoResult enter_block(Verifier *vf, PtoBlock *b, uint32_t iso,
                             PtoRegion *lenient) {
  for (uint32_t i = 0; i < b->nargs; i++) b->args[i]->v.scratch = iso;
  PTO_FOR_OPS(b, op) {
    if (verify_op(vf, op, iso, lenient)) return PTO_FAILURE;
    for (unsigned i = 0; i < op->num_results; i++) op->results[i].scratch = iso;
  }
  return verify_block_terminator(b);
}

static void leave_block(PtoBlock *b) {
  for (uint32_t i = 0; i < b->nargs; i++) b->args[i]->v.scratch = 0;
  PTO_FOR_OPS(b, op) {
    for (unsigned i = 0; i < op->num_results; i++) op->results[i].scratch = 0;
  }
}

/* Multi-block regions: values are visible along the dominator tree. */
static PtoResult verify_multiblock(Verifier *vf, PtoRegion *r, uint32_t iso) {
  PtoDomTree *t = pto_domtree_create(r);
  unsigned n = pto_domtree_num_blocks(t);
  PtoResult res = PTO_SUCCESS;
  /* explicit DFS over the dominator tree: enter, children, leave */
  uint32_t *stack = pto_malloc((n + 1) * sizeof *stack);
  uint32_t *pos = pto_calloc(n, sizeof *pos);
  uint32_t sp = 0;
  stack[sp++] = 0;
  if (enter_block(vf, pto_domtree_block(t, 0), iso, NULL)) res = PTO_FAILURE;
  while (sp && !res) {
    uint32_t b = stack[sp - 1];
    if (pos[b] < pto_domtree_num_children(t, b)) {
      uint32_t ch = pto_domtree_child(t, b, pos[b]++);
      if (enter_block(vf, pto_domtree_block(t, ch), iso, NULL)) {
        res = PTO_FAILURE;
        break;
      }
      stack[sp++] = ch;
      continue;
    }
    leave_block(pto_domtree_block(t, b));
    sp--;
  }
  /* unreachable blocks: values of this region are taken as dominating */
  for (uint32_t i = 0; i < n && !res; i++)
    if (!pto_domtree_reachable(t, i)) {
      if (enter_block(vf, pto_domtree_block(t, i), iso, r)) res = PTO_FAILURE;
      leave_block(pto_domtree_block(t, i));
    }
  pto_free(stack);
  pto_free(pos);
  pto_domtree_destroy(t);
  return res;
}

static PtoResult verify_region(Verifier *vf, PtoRegion *r, uint32_t iso) {
  PtoBlock *first = pto_region_first_block(r);
  if (!first) return PTO_SUCCESS;
  if (!pto_block_next(first)) {
    PtoResult res = enter_block(vf, first, iso, NULL);
    leave_block(first);
    return res;
  }
  /* the entry block may not be a branch target */
  PTO_FOR_BLOCKS(r, b) {
    PtoOp *t = pto_block_last_op(b);
    for (unsigned i = 0; t && i < t->num_successors; i++)
      if (t->successors[i] == first)
        return pto_op_emit_error(t, "entry block of region may not have "
                                    "predecessors");
  }
  return verify_multiblock(vf, r, iso);
}

PtoResult pto_op_verify(PtoOp *op) {
  Verifier vf = {op->ctx, 1, false};
  clear_marks_op(op);
  /* values defined above `op` (when verifying a nested op) are visible */
  uint32_t iso = 1;
  if (op->block) {
    for (PtoOp *o = op; o->block; o = pto_op_parent_op(o)) {
      PtoBlock *b = o->block;
      for (uint32_t i = 0; i < b->nargs; i++) b->args[i]->v.scratch = iso;
      for (PtoOp *x = pto_block_first_op(b); x && x != o; x = pto_op_next(x))
        for (unsigned i = 0; i < x->num_results; i++) x->results[i].scratch = iso;
      PtoOp *parent = pto_op_parent_op(o);
      if (!parent || pto_op_has_trait(parent, PTO_TRAIT_ISOLATED_FROM_ABOVE))
        break;
    }
  }
  /* one symbol table cache for the run (an outer run's if nested) */
  PtoPtrMap symtabs;
  bool own_cache = !op->ctx->verify_symtabs;
  if (own_cache) {
    pto_ptrmap_init(&symtabs);
    op->ctx->verify_symtabs = &symtabs;
  }
  PtoResult r = verify_op(&vf, op, iso, NULL);
  if (own_cache) {
    uint64_t key;
    void *st;
    for (uint32_t it = 0; pto_ptrmap_next(&symtabs, &it, &key, &st);)
      pto_symtab_destroy(st);
    pto_ptrmap_release(&symtabs);
    op->ctx->verify_symtabs = NULL;
  }
  return r;
}
