/* The arith dialect: custom assembly forms, verifiers, the constant
 * materializer and registration. Folds are in ArithFold.c, patterns in
 * ArithCanonicalize.c. Generic forms use MLIR's names and encodings
 * (`value`, `predicate` as i64). */
#include "Dialect/Arith/Arith.h"
#include "Dialect/DialectUtils.h"

#include "Support/Alloc.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Predicates                                                           */
/* ------------------------------------------------------------------ */

static const char *const cmpi_names[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                         "sge", "ult", "ule", "ugt", "uge"};
static const char *const cmpf_names[] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
enum { NUM_CMPI = 10, NUM_CMPF = 16 };

const char *pto_cmpi_predicate_name(int64_t pred) {
  return pred >= 0 && pred < NUM_CMPI ? cmpi_names[pred] : NULL;
}
const char *pto_cmpf_predicate_name(int64_t pred) {
  return pred >= 0 && pred < NUM_CMPF ? cmpf_names[pred] : NULL;
}

static bool is_cmpi(const PtoOp *op) { return pto_arith_op_id(op) == ARITH_CMPI; }

/* ------------------------------------------------------------------ */
/* Custom forms                                                         */
/* ------------------------------------------------------------------ */

/* `%c = arith.constant {attrs} 42 : i32` (MLIR: attr-dict $value). */
static PtoResult parse_constant(PtoParser *p, PtoOpState *st) {
  if (pto_parser_parse_optional_attr_dict(p, st)) return PTO_FAILURE;
  PtoParserPos loc = pto_parser_pos(p);
  PtoAttr *v;
  if (pto_parser_parse_attr(p, NULL, &v)) return PTO_FAILURE;
  PtoType *t = pto_attr_get_type(v);
  if (!t || (pto_attr_kind(v) != PTO_ATTR_INTEGER &&
             pto_attr_kind(v) != PTO_ATTR_FLOAT))
    return pto_parser_error_at(p, pto_parser_pos_loc(p, loc), "expected an integer or float "
                                       "constant such as `1 : i32` or "
                                       "`1.0 : f32`");
  pto_op_state_add_attr(st, "value", v);
  pto_op_state_add_result(st, t);
  return PTO_SUCCESS;
}

static void print_constant(PtoPrinter *p, PtoOp *op) {
  static const char *const elided[] = {"value"};
  pto_printer_print_attr_dict(p, op, elided, 1);
  PtoAttr *v = pto_op_attr(op, "value");
  pto_printer_puts(p, " ");
  if (v && pto_attr_kind(v) == PTO_ATTR_INTEGER && pto_attr_is_bool(v)) {
    pto_printer_print_attr(p, v);
    return;
  }
  /* always spell the type, even the i64/f64 the attribute syntax elides */
  pto_printer_print_attr_no_type(p, v);
  if (v && pto_attr_get_type(v)) {
    pto_printer_puts(p, " : ");
    pto_printer_print_type(p, pto_attr_get_type(v));
  }
}

/* `%a, %b {attrs} : t`: the op's operands, all of type t; the result is
 * `result`, or t when NULL. (`arith.addi %a, %b : i32`, `arith.negf %a : f32`) */
static PtoResult parse_operands_of_type(PtoParser *p, PtoOpState *st,
                                        PtoType *result) {
  unsigned n = (unsigned)st->def->num_operands; /* 1 or 2 */
  PtoUnresolvedOperand ops[2];
  PtoType *t;
  for (unsigned i = 0; i < n; i++)
    if ((i && pto_parser_parse_punct(p, PTO_P_COMMA)) ||
        pto_parser_parse_operand(p, &ops[i]))
      return PTO_FAILURE;
  if (pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &t))
    return PTO_FAILURE;
  for (unsigned i = 0; i < n; i++)
    if (pto_parser_resolve_operand(p, &ops[i], t, st)) return PTO_FAILURE;
  pto_op_state_add_result(st, result ? result : t);
  return PTO_SUCCESS;
}

static void print_operands_of_type(PtoPrinter *p, PtoOp *op,
                                   const char *const *elided, unsigned n) {
  pto_printer_print_operands(p, op, 0, pto_op_num_operands(op));
  pto_printer_print_attr_dict(p, op, elided, n);
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 0)));
}

static PtoResult parse_elementwise(PtoParser *p, PtoOpState *st) {
  return parse_operands_of_type(p, st, NULL);
}

static void print_elementwise(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  print_operands_of_type(p, op, NULL, 0);
}

/* `%r = arith.cmpi slt, %a, %b {attrs} : t` */
static PtoResult parse_cmp(PtoParser *p, PtoOpState *st) {
  bool cmpi = strcmp(pto_opdef_name(st->def), "arith.cmpi") == 0;
  const char *const *names = cmpi ? cmpi_names : cmpf_names;
  unsigned count = cmpi ? NUM_CMPI : NUM_CMPF;
  PtoParserPos loc = pto_parser_pos(p);
  PtoIdent *kw;
  if (pto_parser_parse_any_keyword(p, &kw)) return PTO_FAILURE;
  int64_t pred = -1;
  for (unsigned i = 0; i < count; i++)
    if (strcmp(pto_ident_str(kw), names[i]) == 0) pred = i;
  if (pred < 0)
    return pto_parser_error_at(
        p, pto_parser_pos_loc(p, loc), "unknown comparison predicate '%s'; expected one of %s",
        pto_ident_str(kw),
        cmpi ? "eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge"
             : "false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, "
               "ult, ule, une, uno, true");
  pto_op_state_add_attr(st, "predicate", pto_attr_i64(st->ctx, pred));
  if (pto_parser_parse_punct(p, PTO_P_COMMA)) return PTO_FAILURE;
  return parse_operands_of_type(p, st, pto_type_int(st->ctx, 1));
}

static void print_cmp(PtoPrinter *p, PtoOp *op) {
  PtoAttr *pa = pto_op_attr(op, "predicate");
  int64_t pred = pa && pto_attr_kind(pa) == PTO_ATTR_INTEGER
                     ? pto_attr_int_value(pa) : -1;
  const char *name = is_cmpi(op) ? pto_cmpi_predicate_name(pred)
                                 : pto_cmpf_predicate_name(pred);
  pto_printer_printf(p, " %s, ", name ? name : "<<invalid predicate>>");
  static const char *const elided[] = {"predicate"};
  print_operands_of_type(p, op, elided, 1);
}

/* `%r = arith.select %c, %a, %b {attrs} : t` (also `: i1, t`) */
static PtoResult parse_select(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand c, a, b;
  PtoType *t, *ct = pto_type_int(st->ctx, 1);
  if (pto_parser_parse_operand(p, &c) ||
      pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_operand(p, &a) ||
      pto_parser_parse_punct(p, PTO_P_COMMA) ||
      pto_parser_parse_operand(p, &b) ||
      pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &t))
    return PTO_FAILURE;
  if (pto_parser_optional_punct(p, PTO_P_COMMA)) {
    ct = t;
    if (pto_parser_parse_type(p, &t)) return PTO_FAILURE;
  }
  if (pto_parser_resolve_operand(p, &c, ct, st) ||
      pto_parser_resolve_operand(p, &a, t, st) ||
      pto_parser_resolve_operand(p, &b, t, st))
    return PTO_FAILURE;
  pto_op_state_add_result(st, t);
  return PTO_SUCCESS;
}

static void print_select(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_operands(p, op, 0, 3);
  pto_printer_print_attr_dict(p, op, NULL, 0);
  pto_printer_puts(p, " : ");
  PtoType *ct = pto_value_type(pto_op_operand(op, 0));
  if (ct != pto_type_int(pto_op_ctx(op), 1)) {
    pto_printer_print_type(p, ct);
    pto_printer_puts(p, ", ");
  }
  pto_printer_print_type(p, pto_value_type(pto_op_result(op, 0)));
}

/* `%r = arith.extf %a {attrs} : f16 to f32` */
static PtoResult parse_cast(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand a;
  PtoType *from, *to;
  if (pto_parser_parse_operand(p, &a) ||
      pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &from) ||
      pto_parser_parse_keyword(p, "to") || pto_parser_parse_type(p, &to) ||
      pto_parser_resolve_operand(p, &a, from, st))
    return PTO_FAILURE;
  pto_op_state_add_result(st, to);
  return PTO_SUCCESS;
}

static void print_cast(PtoPrinter *p, PtoOp *op) {
  pto_printer_puts(p, " ");
  pto_printer_print_operand(p, pto_op_operand(op, 0));
  pto_printer_print_attr_dict(p, op, NULL, 0);
  pto_printer_puts(p, " : ");
  pto_printer_print_type(p, pto_value_type(pto_op_operand(op, 0)));
  pto_printer_puts(p, " to ");
  pto_printer_print_type(p, pto_value_type(pto_op_result(op, 0)));
}

/* ------------------------------------------------------------------ */
/* Verifiers                                                            */
/* ------------------------------------------------------------------ */

static PtoType *operand_type(PtoOp *op, unsigned i) {
  return pto_value_type(pto_op_operand(op, i));
}
static PtoType *result_type(PtoOp *op) {
  return pto_value_type(pto_op_result(op, 0));
}

static PtoResult verify_constant(PtoOp *op) {
  PtoAttr *v = pto_op_attr(op, "value");
  if (!v) return pto_op_emit_error(op, "requires attribute 'value'");
  PtoAttrKind k = pto_attr_kind(v);
  if (k != PTO_ATTR_INTEGER && k != PTO_ATTR_FLOAT)
    return pto_dialect_op_error(op, "attribute 'value' must be an integer or "
                                    "float attribute, but got `%A`",
                                v);
  PtoType *vt = pto_attr_get_type(v);
  if (k == PTO_ATTR_INTEGER && !pto_type_is_signless_int_or_index(vt))
    return pto_dialect_op_error(op, "integer constants must have a signless "
                                    "integer or index type, but got '%T'",
                                vt);
  if (vt != result_type(op))
    return pto_dialect_op_error(op, "value type '%T' does not match the "
                                    "result type '%T'",
                                vt, result_type(op));
  return PTO_SUCCESS;
}

/* Operands and result share one type of the class `ok` accepts. */
static PtoResult verify_same_typed(PtoOp *op, bool (*ok)(const PtoType *),
                                   const char *what) {
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    if (!ok(operand_type(op, i)))
      return pto_dialect_op_error(op, "operand #%u must be %s, but got '%T'",
                                  i, what, operand_type(op, i));
  if (!ok(result_type(op)))
    return pto_dialect_op_error(op, "result #0 must be %s, but got '%T'", what,
                                result_type(op));
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    if (operand_type(op, i) != result_type(op))
      return pto_op_emit_error(op, "requires the same type for all operands "
                                   "and results");
  return PTO_SUCCESS;
}

static bool is_float_type(const PtoType *t) { return pto_type_is_float(t); }

static PtoResult verify_int_binary(PtoOp *op) {
  return verify_same_typed(op, pto_type_is_signless_int_or_index,
                           "a signless integer or index");
}
static PtoResult verify_float_binary(PtoOp *op) {
  return verify_same_typed(op, is_float_type, "a float");
}
static PtoResult verify_float_unary(PtoOp *op) {
  return verify_same_typed(op, is_float_type, "a float");
}

static PtoResult verify_predicate(PtoOp *op, int64_t count,
                                  const char *spellings) {
  PtoAttr *pa = pto_op_attr(op, "predicate");
  if (!pa) return pto_op_emit_error(op, "requires attribute 'predicate'");
  if (pto_attr_kind(pa) != PTO_ATTR_INTEGER || pto_attr_is_bool(pa) ||
      pto_attr_get_type(pa) != pto_type_int(pto_op_ctx(op), 64))
    return pto_dialect_op_error(op, "attribute 'predicate' must be a 64-bit "
                                    "integer, but got `%A`",
                                pa);
  int64_t v = pto_attr_int_value(pa);
  if (v < 0 || v >= count)
    return pto_dialect_op_error(op, "attribute 'predicate' is %lld, but must "
                                    "be in [0, %lld] (%s)",
                                (long long)v, (long long)(count - 1),
                                spellings);
  return PTO_SUCCESS;
}

static PtoResult verify_compare(PtoOp *op, bool (*ok)(const PtoType *),
                                const char *what) {
  for (unsigned i = 0; i < 2; i++)
    if (!ok(operand_type(op, i)))
      return pto_dialect_op_error(op, "operand #%u must be %s, but got '%T'",
                                  i, what, operand_type(op, i));
  if (operand_type(op, 0) != operand_type(op, 1))
    return pto_dialect_op_error(op, "requires both operands to have the same "
                                    "type, but got '%T' and '%T'",
                                operand_type(op, 0), operand_type(op, 1));
  if (result_type(op) != pto_type_int(pto_op_ctx(op), 1))
    return pto_dialect_op_error(op, "result #0 must be i1, but got '%T'",
                                result_type(op));
  return PTO_SUCCESS;
}

static PtoResult verify_cmpi(PtoOp *op) {
  if (verify_predicate(op, NUM_CMPI, "0 eq, 1 ne, 2 slt, 3 sle, 4 sgt, "
                                     "5 sge, 6 ult, 7 ule, 8 ugt, 9 uge"))
    return PTO_FAILURE;
  return verify_compare(op, pto_type_is_signless_int_or_index,
                        "a signless integer or index");
}

static PtoResult verify_cmpf(PtoOp *op) {
  if (verify_predicate(op, NUM_CMPF, "0 false, 1 oeq, 2 ogt, 3 oge, 4 olt, "
                                     "5 ole, 6 one, 7 ord, 8 ueq, 9 ugt, "
                                     "10 uge, 11 ult, 12 ule, 13 une, 14 uno, "
                                     "15 true"))
    return PTO_FAILURE;
  return verify_compare(op, is_float_type, "a float");
}

static PtoResult verify_select(PtoOp *op) {
  if (operand_type(op, 0) != pto_type_int(pto_op_ctx(op), 1))
    return pto_dialect_op_error(op, "operand #0 (the condition) must be i1, "
                                    "but got '%T'",
                                operand_type(op, 0));
  PtoType *a = operand_type(op, 1), *b = operand_type(op, 2);
  if (a != b || a != result_type(op))
    return pto_dialect_op_error(op, "requires the true value, the false value "
                                    "and the result to have the same type, "
                                    "but got '%T', '%T' and '%T'",
                                a, b, result_type(op));
  return PTO_SUCCESS;
}

/* The operand and result of a cast must be of the given classes. */
static PtoResult check_cast_classes(PtoOp *op, bool (*in_ok)(const PtoType *),
                                    const char *in_what,
                                    bool (*out_ok)(const PtoType *),
                                    const char *out_what) {
  if (!in_ok(operand_type(op, 0)))
    return pto_dialect_op_error(op, "operand #0 must be %s, but got '%T'",
                                in_what, operand_type(op, 0));
  if (!out_ok(result_type(op)))
    return pto_dialect_op_error(op, "result #0 must be %s, but got '%T'",
                                out_what, result_type(op));
  return PTO_SUCCESS;
}

static PtoResult check_width(PtoOp *op, bool widen) {
  unsigned in = pto_type_bitwidth(operand_type(op, 0));
  unsigned out = pto_type_bitwidth(result_type(op));
  if (widen && out <= in)
    return pto_dialect_op_error(op, "result type '%T' must be wider than "
                                    "operand type '%T'",
                                result_type(op), operand_type(op, 0));
  if (!widen && out >= in)
    return pto_dialect_op_error(op, "result type '%T' must be narrower than "
                                    "operand type '%T'",
                                result_type(op), operand_type(op, 0));
  return PTO_SUCCESS;
}

static bool is_index(const PtoType *t) {
  return t && pto_type_kind(t) == PTO_TYPE_INDEX;
}

static PtoResult verify_cast(PtoOp *op) {
  PtoType *in = operand_type(op, 0), *out = result_type(op);
  switch (pto_arith_op_id(op)) {
  case ARITH_INDEX_CAST:
    if ((is_index(in) && pto_type_is_signless_int(out)) ||
        (pto_type_is_signless_int(in) && is_index(out)))
      return PTO_SUCCESS;
    return pto_dialect_op_error(op, "operand type '%T' and result type '%T' "
                                    "are cast incompatible: one must be index "
                                    "and the other a signless integer",
                                in, out);
  case ARITH_SITOFP:
    return check_cast_classes(op, pto_type_is_signless_int,
                              "a signless integer", is_float_type, "a float");
  case ARITH_FPTOSI:
    return check_cast_classes(op, is_float_type, "a float",
                              pto_type_is_signless_int, "a signless integer");
  case ARITH_EXTF:
  case ARITH_TRUNCF:
    if (check_cast_classes(op, is_float_type, "a float", is_float_type,
                           "a float"))
      return PTO_FAILURE;
    return check_width(op, pto_arith_op_id(op) == ARITH_EXTF);
  case ARITH_EXTSI:
  case ARITH_TRUNCI:
    if (check_cast_classes(op, pto_type_is_signless_int, "a signless integer",
                           pto_type_is_signless_int, "a signless integer"))
      return PTO_FAILURE;
    return check_width(op, pto_arith_op_id(op) == ARITH_EXTSI);
  default:
    return PTO_SUCCESS;
  }
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

#define PURE_SAME (PTO_TRAIT_PURE | PTO_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE)
#define COMM PTO_TRAIT_COMMUTATIVE
#define ARITH_CANON(name) pto_arith_canon_##name

#define PTO_OP PTO_OPDEF_ROW
const PtoOpDef pto_arith_ops[ARITH_NUM_OPS] = {
#include "Dialect/Arith/ArithOps.def"
};
#undef PTO_OP

static PtoOp *materialize(PtoContext *ctx, PtoAttr *value, PtoType *type,
                          PtoLoc *loc) {
  PtoAttrKind k = pto_attr_kind(value);
  if ((k != PTO_ATTR_INTEGER && k != PTO_ATTR_FLOAT) ||
      pto_attr_get_type(value) != type)
    return NULL;
  if (k == PTO_ATTR_INTEGER && !pto_type_is_signless_int_or_index(type))
    return NULL;
  PtoNamedAttr na = {pto_ident_cstr(ctx, "value"), value};
  return pto_op_create_simple(ctx, "arith.constant", loc, NULL, 0, &type, 1,
                              &na, 1);
}

const PtoDialectDef pto_arith_dialect = {
    "arith", pto_arith_ops, ARITH_NUM_OPS, NULL, NULL, NULL, NULL,
    materialize, "integer, index and float scalar arithmetic", NULL, 0};

void pto_register_arith_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &pto_arith_dialect);
}
