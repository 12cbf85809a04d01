/* symbol-dce: erases private symbols that no live op refers to. Public
 * symbols and non-symbol ops of each symbol table are live; a live op
 * makes live every symbol its attributes (and those of the ops nested in
 * it) refer to, transitively, through nested symbol tables too. */
#include "Transforms/Passes.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Vec.h"

#include <string.h>

typedef struct SymDce {
  PtoPtrMap live;   /* op -> op */
  PtoPtrMap tables; /* symbol table op -> PtoSymbolTable* */
  PTO_VEC(PtoOp *) worklist;
  int64_t erased;
} SymDce;

static bool is_symbol(PtoOp *op) {
  PtoAttr *n = pto_op_attr(op, "sym_name");
  return n && pto_attr_kind(n) == PTO_ATTR_STRING;
}

static void mark_live(SymDce *s, PtoOp *op) {
  if (pto_ptrmap_contains(&s->live, (uintptr_t)op)) return;
  pto_ptrmap_put(&s->live, (uintptr_t)op, op);
  pto_vec_push(&s->worklist, op);
}

static PtoSymbolTable *table_of(SymDce *s, PtoOp *table_op) {
  PtoSymbolTable *t = pto_ptrmap_get(&s->tables, (uintptr_t)table_op);
  if (!t) {
    t = pto_symtab_create(table_op);
    pto_ptrmap_put(&s->tables, (uintptr_t)table_op, t);
  }
  return t;
}

/* Resolves `@a::@b` from the tables enclosing `from`, innermost first, and
 * marks every symbol on the path live. Unknown references are ignored. */
static void use_symbol(SymDce *s, PtoOp *from, PtoAttr *ref) {
  for (PtoOp *table = from; table; table = pto_symbol_table_op_of(table)) {
    if (!pto_op_has_trait(table, PTO_TRAIT_SYMBOL_TABLE)) continue;
    PtoOp *sym = pto_symtab_lookup(table_of(s, table), pto_attr_symref_root(ref));
    if (!sym) continue;
    mark_live(s, sym);
    for (unsigned i = 0; i < pto_attr_symref_num_nested(ref); i++) {
      if (!pto_op_has_trait(sym, PTO_TRAIT_SYMBOL_TABLE)) return;
      sym = pto_symtab_lookup(table_of(s, sym), pto_attr_symref_nested(ref, i));
      if (!sym) return;
      mark_live(s, sym);
    }
    return;
  }
}

static void scan_attr(SymDce *s, PtoOp *from, PtoAttr *a) {
  switch (pto_attr_kind(a)) {
  case PTO_ATTR_SYMREF:
    use_symbol(s, from, a);
    break;
  case PTO_ATTR_ARRAY:
    for (unsigned i = 0; i < pto_attr_array_size(a); i++)
      scan_attr(s, from, pto_attr_array_get(a, i));
    break;
  case PTO_ATTR_DICT:
    for (unsigned i = 0; i < pto_attr_dict_size(a); i++)
      scan_attr(s, from, pto_attr_dict_entries(a)[i].value);
    break;
  case PTO_ATTR_DIALECT:
    for (unsigned i = 0; i < pto_attr_num_attrs(a); i++)
      scan_attr(s, from, pto_attr_attr_param(a, i));
    break;
  default:
    break;
  }
}

typedef struct ScanCtx {
  SymDce *s;
  PtoOp *top, *table; /* the live op and the table it resolves from */
} ScanCtx;

static PtoWalkResult scan_uses(PtoOp *op, void *user) {
  ScanCtx *sc = user;
  if (op != sc->top && pto_op_has_trait(op, PTO_TRAIT_SYMBOL_TABLE)) {
    /* a table nested in a live op is live; its contents are its own */
    mark_live(sc->s, op);
    return PTO_WALK_SKIP;
  }
  const PtoNamedAttr *a = pto_op_attrs(op);
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++)
    scan_attr(sc->s, sc->table, a[i].value);
  return PTO_WALK_ADVANCE;
}

/* Roots of a table: its non-symbol ops and its non-private symbols. */
static void add_roots(SymDce *s, PtoOp *table) {
  for (unsigned r = 0; r < pto_op_num_regions(table); r++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(table, r)); b;
         b = pto_block_next(b))
      for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op))
        if (!is_symbol(op) || !pto_symbol_is_private(op)) mark_live(s, op);
}

static void compute_liveness(SymDce *s, PtoOp *top) {
  add_roots(s, top);
  while (s->worklist.len) {
    PtoOp *op = pto_vec_pop(&s->worklist);
    if (pto_op_has_trait(op, PTO_TRAIT_SYMBOL_TABLE)) add_roots(s, op);
    ScanCtx sc = {s, op, pto_op_parent_op(op)};
    pto_op_walk(op, PTO_WALK_PRE, scan_uses, &sc);
  }
}

static bool results_unused(PtoOp *op) {
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    if (pto_value_has_uses(pto_op_result(op, i))) return false;
  return true;
}

static void erase_dead(SymDce *s, PtoOp *table);

static PtoWalkResult find_tables(PtoOp *op, void *user) {
  if (!pto_op_has_trait(op, PTO_TRAIT_SYMBOL_TABLE)) return PTO_WALK_ADVANCE;
  erase_dead(user, op);
  return PTO_WALK_SKIP;
}

static void erase_dead(SymDce *s, PtoOp *table) {
  for (unsigned r = 0; r < pto_op_num_regions(table); r++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(table, r)); b;
         b = pto_block_next(b)) {
      PtoOp *next;
      for (PtoOp *op = pto_block_first_op(b); op; op = next) {
        next = pto_op_next(op);
        if (is_symbol(op) && !pto_ptrmap_contains(&s->live, (uintptr_t)op) &&
            results_unused(op)) {
          pto_op_erase(op);
          s->erased++;
          continue;
        }
        pto_op_walk(op, PTO_WALK_PRE, find_tables, s);
      }
    }
}

static PtoResult run(PtoPass *pass, PtoOp *op) {
  if (!pto_op_has_trait(op, PTO_TRAIT_SYMBOL_TABLE))
    return pto_op_emit_error(op, "does not define a symbol table; symbol-dce "
                                 "runs on symbol tables such as "
                                 "'builtin.module'");
  SymDce s;
  memset(&s, 0, sizeof s);
  pto_ptrmap_init(&s.live);
  pto_ptrmap_init(&s.tables);
  compute_liveness(&s, op);
  /* the caches are stale once symbols are erased */
  uint32_t it = 0;
  uint64_t key;
  void *val;
  while (pto_ptrmap_next(&s.tables, &it, &key, &val)) pto_symtab_destroy(val);
  erase_dead(&s, op);
  pto_pass_stat_add(pass, "num-dce'd", s.erased);
  pto_ptrmap_release(&s.live);
  pto_ptrmap_release(&s.tables);
  pto_vec_free(&s.worklist);
  return PTO_SUCCESS;
}

static const PtoPassStatDef statistics[] = {
    {"num-dce'd", "Number of private symbols erased"},
};

const PtoPassDef pto_symbol_dce_pass = {
    .argument = "symbol-dce",
    .summary = "Erase private symbols that nothing refers to",
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .description =
        "Runs on a symbol table (such as `builtin.module`) and fails on any\n"
        "other op. Public symbols and non-symbol ops of a table are live; a\n"
        "live op makes live every symbol that a symbol-reference attribute of\n"
        "it, or of an op nested in it, refers to (also inside arrays,\n"
        "dictionaries and dialect attributes), resolved from the innermost\n"
        "enclosing symbol table outwards; `@a::@b` makes both live. Nested\n"
        "symbol tables are processed the same way. Private symbols that are\n"
        "not live are erased, including private symbols that only refer to\n"
        "each other.",
};
