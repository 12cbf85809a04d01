/* The func dialect: func.func, func.return and func.call, with MLIR's
 * custom assembly forms and attribute encoding (function_type, sym_name,
 * sym_visibility, arg_attrs/res_attrs as arrays of dictionaries). */
#include "Dialect/DialectUtils.h"
#include "pto/Dialects.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

#include <string.h>

typedef PTO_VEC(PtoType *) TypeVec;
typedef PTO_VEC(PtoAttr *) AttrVec;
typedef PTO_VEC(PtoRegionArg) ArgVec;

PtoType *pto_func_get_type(const PtoOp *func) {
  PtoType *t = pto_attr_type_value(pto_op_attr(func, "function_type"));
  return t && pto_type_kind(t) == PTO_TYPE_FUNCTION ? t : NULL;
}

PtoBlock *pto_func_entry_block(const PtoOp *func) {
  return pto_region_first_block(pto_op_region(func, 0));
}

/* ------------------------------------------------------------------ */
/* func.func syntax                                                     */
/* ------------------------------------------------------------------ */

/* An optional `{...}` after an argument or result type. Parsed through a
 * scratch op state so that no look-ahead is needed. */
static PtoResult parse_optional_dict(PtoParser *p, PtoAttr **out) {
  PtoContext *ctx = pto_parser_ctx(p);
  PtoOpState tmp;
  pto_op_state_init(&tmp, ctx, NULL, NULL);
  PtoResult r = pto_parser_parse_optional_attr_dict(p, &tmp);
  if (!r) *out = pto_attr_dict(ctx, tmp.attrs, tmp.num_attrs);
  pto_op_state_release(&tmp);
  return r;
}

/* An array of per-argument dictionaries, or NULL when all are empty (MLIR
 * omits the attribute then). */
static PtoAttr *dict_array_or_null(PtoContext *ctx, const AttrVec *v) {
  for (uint32_t i = 0; i < v->len; i++)
    if (pto_attr_dict_size(v->data[i]))
      return pto_attr_array(ctx, v->data, v->len);
  return NULL;
}

/* `(%a: i32 {attrs}, %b: f32)` (named, for definitions) or `(i32, f32)`
 * (types only, for declarations). */
static PtoResult parse_arg_list(PtoParser *p, ArgVec *args, TypeVec *types,
                                AttrVec *attrs, bool *named) {
  *named = false;
  if (pto_parser_parse_punct(p, PTO_P_LPAREN)) return PTO_FAILURE;
  if (pto_parser_optional_punct(p, PTO_P_RPAREN)) return PTO_SUCCESS;
  PtoResult s;
  PtoUnresolvedOperand first;
  *named = pto_parser_optional_operand(p, &first, &s);
  if (s) return s;
  for (unsigned i = 0;; i++) {
    PtoRegionArg a;
    memset(&a, 0, sizeof a);
    if (*named) {
      if (i == 0) {
        if (first.number)
          return pto_parser_error_at(p, pto_parser_operand_loc(p, &first),
                                     "invalid argument name");
        a.name = first;
      } else if (pto_parser_parse_region_arg(p, &a)) {
        return PTO_FAILURE;
      }
      if (pto_parser_parse_colon_type(p, &a.type)) return PTO_FAILURE;
    } else {
      PtoResult st;
      PtoUnresolvedOperand stray;
      if (pto_parser_optional_operand(p, &stray, &st))
        return pto_parser_error_at(p, pto_parser_operand_loc(p, &stray),
                                   "expected a type: named and unnamed "
                                   "arguments cannot be mixed");
      if (pto_parser_parse_type(p, &a.type)) return PTO_FAILURE;
    }
    PtoAttr *dict;
    if (parse_optional_dict(p, &dict)) return PTO_FAILURE;
    pto_vec_push(args, a);
    pto_vec_push(types, a.type);
    pto_vec_push(attrs, dict);
    if (!pto_parser_optional_punct(p, PTO_P_COMMA)) break;
  }
  return pto_parser_parse_punct(p, PTO_P_RPAREN);
}

/* `-> t` or `-> (t1 {attrs}, t2)`, or nothing. */
static PtoResult parse_result_list(PtoParser *p, TypeVec *types,
                                   AttrVec *attrs) {
  PtoContext *ctx = pto_parser_ctx(p);
  if (!pto_parser_optional_punct(p, PTO_P_ARROW)) return PTO_SUCCESS;
  if (!pto_parser_optional_punct(p, PTO_P_LPAREN)) {
    PtoType *t;
    if (pto_parser_parse_type(p, &t)) return PTO_FAILURE;
    pto_vec_push(types, t);
    pto_vec_push(attrs, pto_attr_dict(ctx, NULL, 0));
    return PTO_SUCCESS;
  }
  if (pto_parser_optional_punct(p, PTO_P_RPAREN)) return PTO_SUCCESS;
  do {
    PtoType *t;
    PtoAttr *dict;
    if (pto_parser_parse_type(p, &t) || parse_optional_dict(p, &dict))
      return PTO_FAILURE;
    pto_vec_push(types, t);
    pto_vec_push(attrs, dict);
  } while (pto_parser_optional_punct(p, PTO_P_COMMA));
  return pto_parser_parse_punct(p, PTO_P_RPAREN);
}

static PtoResult func_parse(PtoParser *p, PtoOpState *st) {
  PtoContext *ctx = st->ctx;
  static const char *const visibilities[] = {"public", "private", "nested"};
  for (unsigned i = 0; i < 3; i++)
    if (pto_parser_optional_keyword(p, visibilities[i])) {
      pto_op_state_add_attr(st, "sym_visibility",
                            pto_attr_cstr(ctx, visibilities[i]));
      break;
    }
  PtoIdent *name;
  if (pto_parser_parse_symbol_name(p, &name)) return PTO_FAILURE;
  pto_op_state_add_attr(st, "sym_name",
                        pto_attr_string(ctx, pto_ident_str(name),
                                        pto_ident_len(name)));
  ArgVec args = {0};
  TypeVec in = {0}, out = {0};
  AttrVec in_attrs = {0}, out_attrs = {0};
  bool named;
  PtoResult r = parse_arg_list(p, &args, &in, &in_attrs, &named);
  if (!r) r = parse_result_list(p, &out, &out_attrs);
  if (!r) {
    PtoType *fty = pto_type_function(ctx, in.data, in.len, out.data, out.len);
    pto_op_state_add_attr(st, "function_type", pto_attr_type(ctx, fty));
    PtoAttr *aa = dict_array_or_null(ctx, &in_attrs);
    PtoAttr *ra = dict_array_or_null(ctx, &out_attrs);
    if (aa) pto_op_state_add_attr(st, "arg_attrs", aa);
    if (ra) pto_op_state_add_attr(st, "res_attrs", ra);
    r = pto_parser_parse_optional_attr_dict_with_keyword(p, st);
  }
  if (!r) {
    PtoRegion *body = pto_op_state_add_region(st);
    PtoParserPos loc = pto_parser_pos(p);
    bool has_body = pto_parser_optional_region(
        p, body, named ? args.data : NULL, named ? args.len : 0, &r);
    if (!r && has_body && !named && in.len)
      r = pto_parser_error_at(p, pto_parser_pos_loc(p, loc), "expected named arguments "
                                      "(`%%name: type`) for a function with "
                                      "a body");
    else if (!r && has_body && pto_region_empty(body))
      r = pto_parser_error_at(p, pto_parser_pos_loc(p, loc), "expected non-empty function body");
  }
  pto_vec_free(&args);
  pto_vec_free(&in);
  pto_vec_free(&out);
  pto_vec_free(&in_attrs);
  pto_vec_free(&out_attrs);
  return r;
}

static void print_dict_if_any(PtoPrinter *p, PtoAttr *dicts, unsigned i) {
  if (!dicts || i >= pto_attr_array_size(dicts)) return;
  PtoAttr *d = pto_attr_array_get(dicts, i);
  if (pto_attr_kind(d) != PTO_ATTR_DICT || !pto_attr_dict_size(d)) return;
  pto_printer_puts(p, " ");
  pto_printer_print_attr(p, d);
}

static void func_print(PtoPrinter *p, PtoOp *op) {
  const char *vis = pto_op_attr_str(op, "sym_visibility");
  if (vis) pto_printer_printf(p, " %s", vis);
  pto_printer_puts(p, " ");
  PtoIdent *name = pto_op_symbol_name(op);
  if (name) pto_printer_print_symbol_name(p, name);
  PtoType *fty = pto_func_get_type(op);
  PtoBlock *entry = pto_func_entry_block(op);
  PtoAttr *arg_attrs = pto_op_attr(op, "arg_attrs");
  PtoAttr *res_attrs = pto_op_attr(op, "res_attrs");
  unsigned nin = fty ? pto_type_func_num_inputs(fty) : 0;
  pto_printer_puts(p, "(");
  for (unsigned i = 0; i < nin; i++) {
    if (i) pto_printer_puts(p, ", ");
    if (entry && i < pto_block_num_args(entry)) {
      pto_printer_print_operand(p, pto_block_arg(entry, i));
      pto_printer_puts(p, ": ");
    }
    pto_printer_print_type(p, pto_type_func_input(fty, i));
    print_dict_if_any(p, arg_attrs, i);
  }
  pto_printer_puts(p, ")");
  unsigned nres = fty ? pto_type_func_num_results(fty) : 0;
  if (nres) {
    pto_printer_puts(p, " -> ");
    bool paren = nres > 1 || res_attrs ||
                 pto_type_kind(pto_type_func_result(fty, 0)) == PTO_TYPE_FUNCTION;
    if (paren) pto_printer_puts(p, "(");
    for (unsigned i = 0; i < nres; i++) {
      if (i) pto_printer_puts(p, ", ");
      pto_printer_print_type(p, pto_type_func_result(fty, i));
      print_dict_if_any(p, res_attrs, i);
    }
    if (paren) pto_printer_puts(p, ")");
  }
  static const char *const elided[] = {"sym_name", "function_type",
                                       "sym_visibility", "arg_attrs",
                                       "res_attrs"};
  pto_printer_print_attr_dict_with_keyword(p, op, elided, 5);
  if (entry) {
    pto_printer_puts(p, " ");
    pto_printer_print_region(p, pto_op_region(op, 0), false, true);
  }
}

/* ------------------------------------------------------------------ */
/* func.func verification                                               */
/* ------------------------------------------------------------------ */

static PtoResult verify_attr_dicts(PtoOp *op, const char *name,
                                   const char *what, unsigned expected) {
  PtoAttr *a = pto_op_attr(op, name);
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY)
    return pto_dialect_op_error(op, "attribute '%s' must be an array of "
                                    "dictionaries, one per function %s",
                                name, what);
  unsigned n = pto_attr_array_size(a);
  if (n != expected)
    return pto_dialect_op_error(op, "expects %s attribute array to have the "
                                    "same number of elements as the number "
                                    "of function %ss, got %u, but expected %u",
                                what, what, n, expected);
  for (unsigned i = 0; i < n; i++)
    if (pto_attr_kind(pto_attr_array_get(a, i)) != PTO_ATTR_DICT)
      return pto_dialect_op_error(op, "expects %s attribute dictionary to be "
                                      "a DictionaryAttr, but got `%A`",
                                  what, pto_attr_array_get(a, i));
  return PTO_SUCCESS;
}

static PtoResult func_verify(PtoOp *op) {
  PtoAttr *ta = pto_op_attr(op, "function_type");
  if (!ta) return pto_op_emit_error(op, "requires attribute 'function_type'");
  PtoType *fty = pto_func_get_type(op);
  if (!fty)
    return pto_dialect_op_error(op, "attribute 'function_type' failed to "
                                    "satisfy constraint: type attribute of "
                                    "function type, but got `%A`",
                                ta);
  PtoAttr *vis = pto_op_attr(op, "sym_visibility");
  const char *v = pto_attr_str(vis);
  if (vis && (!v || (strcmp(v, "public") && strcmp(v, "private") &&
                     strcmp(v, "nested"))))
    return pto_dialect_op_error(op, "visibility expected to be one of "
                                    "[\"public\", \"private\", \"nested\"], "
                                    "but got %A",
                                vis);
  unsigned nin = pto_type_func_num_inputs(fty);
  if (verify_attr_dicts(op, "arg_attrs", "argument", nin) ||
      verify_attr_dicts(op, "res_attrs", "result",
                        pto_type_func_num_results(fty)))
    return PTO_FAILURE;
  PtoBlock *entry = pto_func_entry_block(op);
  if (!entry) {
    if (!v || strcmp(v, "public") == 0)
      return pto_op_emit_error(op, "symbol declaration cannot have public "
                                   "visibility; make it private "
                                   "(`func.func private @name(...)`) or "
                                   "give it a body");
    return PTO_SUCCESS;
  }
  if (pto_block_num_args(entry) != nin)
    return pto_op_emit_error(op, "entry block must have %u arguments to match "
                                 "function signature, but has %u",
                             nin, pto_block_num_args(entry));
  for (unsigned i = 0; i < nin; i++) {
    PtoType *at = pto_value_type(pto_block_arg(entry, i));
    if (at != pto_type_func_input(fty, i))
      return pto_dialect_op_error(op, "type of entry block argument #%u('%T') "
                                      "must match the type of the "
                                      "corresponding argument in function "
                                      "signature('%T')",
                                  i, at, pto_type_func_input(fty, i));
  }
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* func.return                                                          */
/* ------------------------------------------------------------------ */

static PtoResult return_verify(PtoOp *op) {
  PtoOp *fn = pto_op_parent_op(op);
  if (!fn || !pto_op_is(fn, "func.func"))
    return pto_op_emit_error(op, "expects parent op 'func.func'");
  PtoType *fty = pto_func_get_type(fn);
  if (!fty) return PTO_SUCCESS; /* the function reports its own type */
  PtoIdent *fname = pto_op_symbol_name(fn);
  const char *fs = fname ? pto_ident_str(fname) : "";
  unsigned n = pto_op_num_operands(op), nres = pto_type_func_num_results(fty);
  if (n != nres)
    return pto_op_emit_error(op, "has %u operands, but enclosing function "
                                 "(@%s) returns %u",
                             n, fs, nres);
  for (unsigned i = 0; i < n; i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    if (t != pto_type_func_result(fty, i))
      return pto_dialect_op_error(op, "type of return operand %u ('%T') "
                                      "doesn't match function result type "
                                      "('%T') in function @%s",
                                  i, t, pto_type_func_result(fty, i), fs);
  }
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* func.call                                                            */
/* ------------------------------------------------------------------ */

/* `func.call @f(%a, %b) {attrs} : (i32, i32) -> i32` */
static PtoResult call_parse(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand *ops;
  unsigned n;
  if (pto_dialect_parse_symbol_call(p, st, &ops, &n)) return PTO_FAILURE;
  PtoParserPos tloc = pto_parser_pos(p);
  PtoType *fty;
  if (pto_parser_parse_type(p, &fty)) return PTO_FAILURE;
  if (pto_type_kind(fty) != PTO_TYPE_FUNCTION)
    return pto_parser_error_at(p, pto_parser_pos_loc(p, tloc), "expected a function type "
                                        "`(inputs) -> results`");
  unsigned nin = pto_type_func_num_inputs(fty);
  for (unsigned i = 0; i < n; i++)
    if (i >= nin) {
      return pto_parser_error_at(p, pto_parser_pos_loc(p, tloc), "%u operands present, but the "
                                          "function type has %u inputs",
                                 n, nin);
    } else if (pto_parser_resolve_operand(p, &ops[i],
                                          pto_type_func_input(fty, i), st)) {
      return PTO_FAILURE;
    }
  if (n != nin)
    return pto_parser_error_at(p, pto_parser_pos_loc(p, tloc), "%u operands present, but the "
                                        "function type has %u inputs",
                               n, nin);
  for (unsigned i = 0; i < pto_type_func_num_results(fty); i++)
    pto_op_state_add_result(st, pto_type_func_result(fty, i));
  return PTO_SUCCESS;
}

static void call_print(PtoPrinter *p, PtoOp *op) {
  pto_dialect_print_symbol_call(p, op);
  pto_printer_puts(p, " -> ");
  pto_printer_print_result_types(p, op);
}

PtoOp *pto_func_call_resolve(PtoOp *call) {
  PtoAttr *callee = pto_op_attr(call, "callee");
  if (!callee || pto_attr_kind(callee) != PTO_ATTR_SYMREF) return NULL;
  PtoOp *fn = pto_symbol_lookup_from(call, callee);
  return fn && pto_op_is(fn, "func.func") ? fn : NULL;
}

/* An arity error of a call, with a note at the callee. */
static PtoResult count_mismatch(PtoOp *call, PtoOp *callee, const char *fmt,
                                unsigned got, const char *name,
                                unsigned expected) {
  PtoDiag *d = pto_dialect_op_diag(call, fmt, got, name, expected);
  pto_diag_note(d, pto_op_loc(callee), "callee defined here");
  return pto_diag_emit(d);
}

static PtoResult call_verify(PtoOp *op) {
  PtoAttr *callee = pto_op_attr(op, "callee");
  if (!callee || pto_attr_kind(callee) != PTO_ATTR_SYMREF ||
      pto_attr_symref_num_nested(callee))
    return pto_op_emit_error(op, "requires a 'callee' symbol reference "
                                 "attribute");
  PtoOp *sym = pto_symbol_lookup_from(op, callee);
  PtoType *fty = sym && pto_op_is(sym, "func.func") ? pto_func_get_type(sym)
                                                    : NULL;
  if (!fty) {
    PtoDiag *d = pto_dialect_op_diag(op, "'%s' does not reference a valid "
                                         "function",
                                     pto_ident_str(pto_attr_symref_root(callee)));
    if (sym) pto_diag_note(d, pto_op_loc(sym), "symbol defined here");
    return pto_diag_emit(d);
  }
  unsigned nin = pto_type_func_num_inputs(fty);
  unsigned nres = pto_type_func_num_results(fty);
  const char *name = pto_ident_str(pto_attr_symref_root(callee));
  if (nin != pto_op_num_operands(op))
    return count_mismatch(op, sym, "incorrect number of operands for callee: "
                                   "%u given, but @%s takes %u",
                          pto_op_num_operands(op), name, nin);
  for (unsigned i = 0; i < nin; i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    if (t != pto_type_func_input(fty, i))
      return pto_dialect_op_error(op, "operand type mismatch: expected "
                                      "operand type '%T', but provided '%T' "
                                      "for operand number %u",
                                  pto_type_func_input(fty, i), t, i);
  }
  if (nres != pto_op_num_results(op))
    return count_mismatch(op, sym, "incorrect number of results for callee: "
                                   "%u expected, but @%s returns %u",
                          pto_op_num_results(op), name, nres);
  for (unsigned i = 0; i < nres; i++) {
    PtoType *t = pto_value_type(pto_op_result(op, i));
    if (t != pto_type_func_result(fty, i))
      return pto_dialect_op_error(op, "result type mismatch at index %u: "
                                      "expected '%T', but the call has '%T'",
                                  i, pto_type_func_result(fty, i), t);
  }
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

#define PTO_OP PTO_OPDEF_ROW
static const PtoOpDef func_ops[] = {
#include "Dialect/Builtin/FuncOps.def"
};
#undef PTO_OP

static const PtoDialectDef func_dialect = {
    "func", func_ops, PTO_ARRAY_SIZE(func_ops), NULL, NULL, NULL, NULL, NULL,
    "functions: definitions, declarations, calls and returns", NULL, 0};

void pto_register_func_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &func_dialect);
}
