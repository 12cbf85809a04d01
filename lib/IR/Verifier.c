/* Structural verification: op-table arities and traits, terminators,
 * successors, SSA dominance (scoped visibility over the dominator tree),
 * isolation, symbol-table uniqueness, then each op's own verifier.
 *
 * Visibility: while a block is being checked, its values carry a mark in
 * PtoValue.scratch that names the isolated-from-above scope they are
 * visible in; an operand is valid iff it carries the mark of the scope of
 * its use. Marks are unique to one verification: they come from a counter
 * in the context, in a range that the printer's and parser's uses of
 * `scratch` (small value numbers, argument numbers with bit 31 set) never
 * reach, so that values nobody visited are never mistaken for visible. */
#include "IR/IRInternal.h"

#include <string.h>

typedef struct Verifier {
  PtoContext *ctx;
  unsigned depth; /* nesting of regions being verified */
} Verifier;

enum { MARK_FIRST = 0x40000000u, MARK_LAST = 0x7fffffffu };

static uint32_t new_mark(Verifier *vf) {
  uint32_t m = vf->ctx->verify_mark + 1;
  if (m < MARK_FIRST || m > MARK_LAST) m = MARK_FIRST;
  return vf->ctx->verify_mark = m;
}

/* Regions whose unreachable blocks are being checked: a use there, or in a
 * region nested there (not isolated), may refer to any value of those
 * regions, since dominance says nothing about unreachable code (MLIR's
 * rule). */
typedef struct Lenient {
  const PtoRegion *region;
  const struct Lenient *up;
} Lenient;

static bool lenient_has(const Lenient *l, const PtoRegion *r) {
  for (; l; l = l->up)
    if (l->region == r) return true;
  return false;
}

static PtoResult verify_region(Verifier *vf, PtoRegion *r, uint32_t iso,
                               const Lenient *lenient);

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

/* True if `v` is defined in one of the regions of `op`, at any depth. */
static bool defined_inside(const PtoValue *v, const PtoOp *op) {
  PtoBlock *b = pto_value_parent_block(v);
  PtoOp *owner = b ? pto_block_parent_op(b) : NULL;
  return owner && pto_op_is_ancestor_of(op, owner);
}

static PtoResult check_operands(Verifier *vf, PtoOp *op, uint32_t iso,
                                const Lenient *lenient) {
  for (unsigned i = 0; i < op->num_operands; i++) {
    PtoValue *v = op->operands[i].value;
    if (!v) return pto_op_emit_error(op, "null operand found at position %u", i);
    if (v->scratch == iso) continue;
    PtoBlock *vb = pto_value_parent_block(v);
    if (vb && lenient_has(lenient, vb->parent)) continue;
    /* Not visible. Isolation is the reason when the value comes from
     * outside the nearest isolated-from-above ancestor. */
    PtoOp *iso_op = NULL;
    for (PtoOp *o = pto_op_parent_op(op); o; o = pto_op_parent_op(o))
      if (pto_op_has_trait(o, PTO_TRAIT_ISOLATED_FROM_ABOVE)) {
        iso_op = o;
        break;
      }
    if (iso_op && !defined_inside(v, iso_op)) {
      PtoDiag *d = pto_op_diag(op, PTO_DIAG_ERROR,
                               "using value defined outside the region");
      pto_diag_note(d, op_loc(iso_op), "required by region isolation constraints");
      return pto_diag_emit(d);
    }
    PtoDiag *d = pto_diag_begin(vf->ctx, PTO_DIAG_ERROR, op_loc(op));
    pto_diag_printf(d, "operand #%u does not dominate this use", i);
    pto_diag_note(d, pto_value_loc(v), "operand defined here");
    return pto_diag_emit(d);
  }
  return PTO_SUCCESS;
}

/* Shape of a tensor type; other types count as scalars (rank 0). */
static bool same_shape(const PtoType *a, const PtoType *b) {
  unsigned ra = pto_type_tensor_rank(a), rb = pto_type_tensor_rank(b);
  if (ra != rb) return false;
  for (unsigned i = 0; i < ra; i++) {
    int64_t x = pto_type_tensor_dim(a, i), y = pto_type_tensor_dim(b, i);
    if (x != y && x != PTO_DYN && y != PTO_DYN) return false;
  }
  return true;
}

/* "'op' op <what>, but got 'T1' and 'T2'": the first two types that
 * disagree. */
static PtoResult trait_error(PtoOp *op, const char *what, PtoType *a,
                             PtoType *b) {
  PtoDiag *d = pto_op_diag(op, PTO_DIAG_ERROR, "%s, but got '", what);
  pto_diag_print_type(d, a);
  pto_diag_printf(d, "' and '");
  pto_diag_print_type(d, b);
  pto_diag_printf(d, "'");
  return pto_diag_emit(d);
}

/* The SAME_* traits, with MLIR's messages and the types found. */
static PtoResult verify_type_traits(PtoOp *op) {
  uint32_t tr = op_def(op)->traits;
  unsigned nops = op->num_operands;
  if ((tr & PTO_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE) &&
      (nops || op->num_results)) {
    PtoType *t = nops ? op->operands[0].value->type : op->results[0].type;
    PtoType *other = NULL;
    for (unsigned i = 0; i < nops && !other; i++)
      if (op->operands[i].value->type != t) other = op->operands[i].value->type;
    for (unsigned i = 0; i < op->num_results && !other; i++)
      if (op->results[i].type != t) other = op->results[i].type;
    if (other)
      return trait_error(op, "requires the same type for all operands and "
                             "results", t, other);
  }
  if (tr & PTO_TRAIT_SAME_OPERANDS_TYPE)
    for (unsigned i = 1; i < nops; i++)
      if (op->operands[i].value->type != op->operands[0].value->type)
        return trait_error(op, "requires all operands to have the same type",
                           op->operands[0].value->type,
                           op->operands[i].value->type);
  if (tr & PTO_TRAIT_SAME_OPERANDS_SHAPE)
    for (unsigned i = 1; i < nops; i++)
      if (!same_shape(op->operands[i].value->type, op->operands[0].value->type))
        return trait_error(op, "requires the same shape for all operands",
                           op->operands[0].value->type,
                           op->operands[i].value->type);
  return PTO_SUCCESS;
}

static PtoResult verify_symbol_table(PtoOp *op) {
  for (unsigned ri = 0; ri < op->num_regions; ri++) {
    PtoPtrMap seen;
    pto_ptrmap_init(&seen);
    PtoResult r = PTO_SUCCESS;
    PTO_FOR_BLOCKS(&op_regions(op)[ri], b) {
      PTO_FOR_OPS(b, child) {
        PtoIdent *name = pto_op_symbol_name(child);
        if (!name) continue;
        PtoOp *prev = pto_ptrmap_put(&seen, (uintptr_t)name, child);
        if (prev) {
          PtoDiag *d = pto_diag_begin(op_ctx(op), PTO_DIAG_ERROR, op_loc(child));
          pto_diag_printf(d, "redefinition of symbol named '%s'", name->str);
          pto_diag_note(d, op_loc(prev), "see existing symbol definition here");
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
                           const Lenient *lenient) {
  if (check_operands(vf, op, iso, lenient)) return PTO_FAILURE;
  const PtoOpDef *d = op_def(op);
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
        if (pto_region_num_blocks(&op_regions(op)[i]) > 1)
          return pto_op_emit_error(op, "expects region #%u to have 0 or 1 blocks", i);
    if (d->traits & PTO_TRAIT_SYMBOL) {
      PtoAttr *sn = pto_op_attr(op, "sym_name");
      if (!sn || sn->kind != PTO_ATTR_STRING)
        return pto_op_emit_error(op, "requires string attribute 'sym_name'");
    }
    if (verify_type_traits(op)) return PTO_FAILURE;
    if ((d->traits & PTO_TRAIT_HAS_PARENT_SYMBOL_TABLE)) {
      PtoOp *parent = pto_op_parent_op(op);
      if (!parent || !pto_op_has_trait(parent, PTO_TRAIT_SYMBOL_TABLE))
        return pto_op_emit_error(op, "expects parent op to be a symbol table");
    }
  }
  /* MLIR's rule, which also keeps the entry-block check below (on the
   * last op of each block) complete: a branch in mid-block could target
   * the entry block, whose label the printer omits. */
  if (op->num_successors && pto_op_next(op))
    return pto_op_emit_error(op, "operation with block successors must "
                                 "terminate its parent block");
  for (unsigned i = 0; i < op->num_successors; i++) {
    PtoBlock *s = op_successors(op)[i];
    if (!s || !op->block || s->parent != op->block->parent)
      return pto_op_emit_error(op, "reference to block defined in another region");
  }
  if (d && d->verify && d->verify(op)) return PTO_FAILURE;
  if (d && (d->traits & PTO_TRAIT_SYMBOL_TABLE) && verify_symbol_table(op))
    return PTO_FAILURE;
  bool isolated = d && (d->traits & PTO_TRAIT_ISOLATED_FROM_ABOVE);
  if (op->num_regions && vf->depth >= PTO_MAX_NESTING)
    return pto_op_emit_error(op, "regions nested too deeply to verify (at "
                                 "most %d levels)", PTO_MAX_NESTING);
  vf->depth++;
  PtoResult r = PTO_SUCCESS;
  for (unsigned i = 0; i < op->num_regions && !r; i++)
    r = isolated ? verify_region(vf, &op_regions(op)[i], new_mark(vf), NULL)
                 : verify_region(vf, &op_regions(op)[i], iso, lenient);
  vf->depth--;
  return r;
}

/* MLIR's rule: only the single block of a region whose op does not need
 * terminators (or might not: an unregistered op) may go without one; the
 * blocks of a CFG region all need one, whatever the op. */
static PtoResult verify_block_terminator(PtoBlock *b) {
  PtoOp *parent = pto_block_parent_op(b);
  if (!parent) return PTO_SUCCESS;
  bool single = !pto_block_next(b) && !pto_block_prev(b);
  if (single && (!op_def(parent) ||
                 (op_def(parent)->traits & PTO_TRAIT_NO_TERMINATOR)))
    return PTO_SUCCESS;
  PtoOp *last = pto_block_last_op(b);
  if (!last) {
    return pto_emit_error(b->ctx, op_loc(parent),
                          "'%s' op empty block: expect at least a terminator",
                          parent->name->str);
  }
  if (op_def(last) && !(op_def(last)->traits & PTO_TRAIT_TERMINATOR))
    return pto_emit_error(b->ctx, op_loc(last),
                          "block with no terminator, has '%s'",
                          last->name->str);
  return PTO_SUCCESS;
}

/* Marks values of a block visible in `iso` and checks its ops. */
static PtoResult enter_block(Verifier *vf, PtoBlock *b, uint32_t iso,
                             const Lenient *lenient) {
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
static PtoResult verify_multiblock(Verifier *vf, PtoRegion *r, uint32_t iso,
                                   const Lenient *lenient) {
  PtoDomTree *t = pto_domtree_create(r);
  unsigned n = pto_domtree_num_blocks(t);
  PtoResult res = PTO_SUCCESS;
  /* explicit DFS over the dominator tree: enter, children, leave */
  uint32_t *stack = pto_malloc((n + 1) * sizeof *stack);
  uint32_t *pos = pto_calloc(n, sizeof *pos);
  uint32_t sp = 0;
  stack[sp++] = 0;
  if (enter_block(vf, pto_domtree_block(t, 0), iso, lenient)) res = PTO_FAILURE;
  while (sp && !res) {
    uint32_t b = stack[sp - 1];
    if (pos[b] < pto_domtree_num_children(t, b)) {
      uint32_t ch = pto_domtree_child(t, b, pos[b]++);
      if (enter_block(vf, pto_domtree_block(t, ch), iso, lenient)) {
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
  Lenient here = {r, lenient};
  for (uint32_t i = 0; i < n && !res; i++)
    if (!pto_domtree_reachable(t, i)) {
      if (enter_block(vf, pto_domtree_block(t, i), iso, &here)) res = PTO_FAILURE;
      leave_block(pto_domtree_block(t, i));
    }
  pto_free(stack);
  pto_free(pos);
  pto_domtree_destroy(t);
  return res;
}

static PtoResult verify_region(Verifier *vf, PtoRegion *r, uint32_t iso,
                               const Lenient *lenient) {
  PtoBlock *first = pto_region_first_block(r);
  if (!first) return PTO_SUCCESS;
  /* the entry block may not be a branch target, not even of itself */
  PTO_FOR_BLOCKS(r, b) {
    PtoOp *t = pto_block_last_op(b);
    for (unsigned i = 0; t && i < t->num_successors; i++)
      if (op_successors(t)[i] == first)
        return pto_op_emit_error(t, "entry block of region may not have "
                                    "predecessors");
  }
  if (!pto_block_next(first)) {
    PtoResult res = enter_block(vf, first, iso, lenient);
    leave_block(first);
    return res;
  }
  return verify_multiblock(vf, r, iso, lenient);
}

PtoResult pto_op_verify(PtoOp *op) {
  Verifier vf = {op_ctx(op), 0};
  uint32_t iso = new_mark(&vf);
  /* Values defined above a nested `op`, up to the nearest isolated
   * ancestor, are visible in it. (Their marks outlive this call; being
   * unique to it, they cannot confuse later ones.) */
  for (PtoOp *o = op; o->block; o = pto_op_parent_op(o)) {
    PtoBlock *b = o->block;
    for (uint32_t i = 0; i < b->nargs; i++) b->args[i]->v.scratch = iso;
    for (PtoOp *x = pto_block_first_op(b); x && x != o; x = pto_op_next(x))
      for (unsigned i = 0; i < x->num_results; i++) x->results[i].scratch = iso;
    PtoOp *parent = pto_op_parent_op(o);
    if (!parent || pto_op_has_trait(parent, PTO_TRAIT_ISOLATED_FROM_ABOVE))
      break;
  }
  /* one symbol table cache for the run (an outer run's if nested) */
  PtoPtrMap symtabs;
  bool own_cache = !op_ctx(op)->verify_symtabs;
  if (own_cache) {
    pto_ptrmap_init(&symtabs);
    op_ctx(op)->verify_symtabs = &symtabs;
  }
  PtoResult r = verify_op(&vf, op, iso, NULL);
  if (own_cache) {
    uint64_t key;
    void *st;
    for (uint32_t it = 0; pto_ptrmap_next(&symtabs, &it, &key, &st);)
      pto_symtab_destroy(st);
    pto_ptrmap_release(&symtabs);
    op_ctx(op)->verify_symtabs = NULL;
  }
  return r;
}
