/* The builtin dialect: builtin.module, the top-level container. It lives in
 * the IR core because the parser wraps top-level ops in an implicit one. */
#include "IR/IRInternal.h"

#include <string.h>

static PtoResult module_parse(PtoParser *p, PtoOpState *st) {
  PtoIdent *name;
  PtoResult s;
  if (pto_parser_optional_symbol_name(p, &name, &s)) {
    if (s) return s;
    pto_op_state_add_attr(st, "sym_name",
                          pto_attr_string(st->ctx, pto_ident_str(name),
                                          pto_ident_len(name)));
  }
  if (pto_parser_parse_optional_attr_dict_with_keyword(p, st)) return PTO_FAILURE;
  PtoRegion *r = pto_op_state_add_region(st);
  if (pto_parser_parse_region(p, r, NULL, 0)) return PTO_FAILURE;
  if (pto_region_empty(r)) pto_region_push_block(r, pto_block_create(st->ctx));
  return PTO_SUCCESS;
}

static void module_print(PtoPrinter *p, PtoOp *op) {
  PtoIdent *name = pto_op_symbol_name(op);
  if (name) {
    pto_printer_puts(p, " ");
    pto_printer_print_symbol_name(p, name);
  }
  static const char *elided[] = {"sym_name"};
  pto_printer_print_attr_dict_with_keyword(p, op, elided, 1);
  pto_printer_puts(p, " ");
  pto_printer_print_region(p, pto_op_region(op, 0), false, false);
}

static PtoResult module_verify(PtoOp *op) {
  PtoAttr *n = pto_op_attr(op, "sym_name");
  if (n && pto_attr_kind(n) != PTO_ATTR_STRING)
    return pto_op_emit_error(op, "attribute 'sym_name' must be a string");
  /* MLIR's rule for modules, so that mlir-opt accepts ours */
  const PtoNamedAttr *attrs = pto_op_attrs(op);
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++) {
    const char *name = pto_ident_str(attrs[i].name);
    if (strcmp(name, "sym_name") && strcmp(name, "sym_visibility") &&
        !strchr(name, '.'))
      return pto_op_emit_error(op, "can only contain attributes with "
                                   "dialect-prefixed names, found: '%s'",
                               name);
  }
  PtoRegion *r = pto_op_region(op, 0);
  PtoBlock *b = pto_region_first_block(r);
  if (b && pto_block_num_args(b))
    return pto_op_emit_error(op, "expects region to have no arguments");
  return PTO_SUCCESS;
}

static const PtoOpDef builtin_ops[] = {
    {"builtin.module", 0, 0, 1, 0,
     PTO_TRAIT_ISOLATED_FROM_ABOVE | PTO_TRAIT_SYMBOL_TABLE |
         PTO_TRAIT_NO_TERMINATOR | PTO_TRAIT_SINGLE_BLOCK,
     PTO_AFFINITY_NONE, module_verify, module_parse, module_print, NULL, NULL,
     "a top-level container of operations"},
};

const PtoDialectDef pto_builtin_dialect = {
    "builtin", builtin_ops, 1, NULL, NULL, NULL, NULL, NULL,
    "the builtin dialect: modules", NULL, 0};
