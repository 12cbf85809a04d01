/* Symbols and symbol tables (`sym_name`, `@name` references). */
#include "IR/IRInternal.h"

#include <string.h>

PtoIdent *pto_op_symbol_name(const PtoOp *op) {
  static const char key[] = "sym_name";
  for (unsigned i = 0; i < op->num_attrs; i++) {
    const PtoNamedAttr *a = &op->attrs[i];
    if (a->name->len == sizeof key - 1 && memcmp(a->name->str, key, sizeof key - 1) == 0) {
      if (a->value->kind != PTO_ATTR_STRING) return NULL;
      return pto_ident(op_ctx(op), a->value->u.str.s, a->value->u.str.len);
    }
  }
  return NULL;
}

bool pto_symbol_is_private(const PtoOp *sym) {
  const char *v = pto_op_attr_str(sym, "sym_visibility");
  return v && strcmp(v, "private") == 0;
}

PtoOp *pto_symbol_lookup(PtoOp *table_op, const char *name) {
  if (!table_op) return NULL;
  PtoIdent *id = pto_ident_cstr(op_ctx(table_op), name);
  for (unsigned ri = 0; ri < table_op->num_regions; ri++)
    PTO_FOR_BLOCKS(&op_regions(table_op)[ri], b) {
      PTO_FOR_OPS(b, o) if (pto_op_symbol_name(o) == id) return o;
    }
  return NULL;
}

PtoOp *pto_symbol_table_op_of(PtoOp *from) {
  for (PtoOp *o = pto_op_parent_op(from); o; o = pto_op_parent_op(o))
    if (pto_op_has_trait(o, PTO_TRAIT_SYMBOL_TABLE)) return o;
  return NULL;
}

/* A lookup by name; during verification through a cached table per
 * symbol table op (symbol users would otherwise scan the table each). */
static PtoOp *lookup_id(PtoOp *table, PtoIdent *name) {
  PtoPtrMap *cache = op_ctx(table)->verify_symtabs;
  if (!cache) return pto_symbol_lookup(table, name->str);
  PtoSymbolTable *st = pto_ptrmap_get(cache, (uintptr_t)table);
  if (!st) {
    st = pto_symtab_create(table);
    pto_ptrmap_put(cache, (uintptr_t)table, st);
  }
  return pto_symtab_lookup(st, name);
}

/* As in MLIR, a reference resolves in the nearest enclosing symbol table
 * only: a symbol of an outer module is not visible from an inner one. */
PtoOp *pto_symbol_lookup_from(PtoOp *from, const PtoAttr *ref) {
  if (!ref || ref->kind != PTO_ATTR_SYMREF) return NULL;
  PtoOp *table = pto_symbol_table_op_of(from);
  PtoOp *s = table ? lookup_id(table, ref->u.sym.root) : NULL;
  for (unsigned i = 0; s && i < ref->u.sym.n; i++)
    s = lookup_id(s, ref->u.sym.nested[i]);
  return s;
}

struct PtoSymbolTable {
  PtoOp *op;
  PtoPtrMap map; /* PtoIdent* -> PtoOp* */
};

PtoSymbolTable *pto_symtab_create(PtoOp *table_op) {
  PtoSymbolTable *st = pto_malloc(sizeof *st);
  st->op = table_op;
  pto_ptrmap_init(&st->map);
  for (unsigned ri = 0; ri < table_op->num_regions; ri++)
    PTO_FOR_BLOCKS(&op_regions(table_op)[ri], b) {
      PTO_FOR_OPS(b, o) {
        PtoIdent *n = pto_op_symbol_name(o);
        if (n && !pto_ptrmap_contains(&st->map, (uintptr_t)n))
          pto_ptrmap_put(&st->map, (uintptr_t)n, o);
      }
    }
  return st;
}

void pto_symtab_destroy(PtoSymbolTable *st) {
  if (!st) return;
  pto_ptrmap_release(&st->map);
  pto_free(st);
}

PtoOp *pto_symtab_lookup(PtoSymbolTable *st, const PtoIdent *name) {
  return pto_ptrmap_get(&st->map, (uintptr_t)name);
}

void pto_symtab_insert(PtoSymbolTable *st, PtoOp *sym) {
  PtoIdent *n = pto_op_symbol_name(sym);
  if (n) pto_ptrmap_put(&st->map, (uintptr_t)n, sym);
}

void pto_symtab_erase(PtoSymbolTable *st, PtoOp *sym) {
  PtoIdent *n = pto_op_symbol_name(sym);
  if (n && pto_ptrmap_get(&st->map, (uintptr_t)n) == sym)
    pto_ptrmap_remove(&st->map, (uintptr_t)n);
}
