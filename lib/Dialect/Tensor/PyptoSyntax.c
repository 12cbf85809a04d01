/* Custom assembly of pypto ops (grammar in docs/dialects/pypto.md): the
 * common form of lib/Dialect/Common/Syntax.h,
 *   %r = pypto.op operands (sizes) attr-dict : operand-types [-> result-types]
 * and the window forms of view / assemble / load_scalar (`%x[%i, 0]`). */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

#include "Dialect/Common/Syntax.h"

/* The debug ops have no result: `%c, %x attr-dict : i1, tensor<...>`, one
 * type per operand. */
static PtoResult parse_debug(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand *ops = NULL;
  unsigned nops = 0, ntypes = 0;
  PtoType **types;
  if (pto_parser_parse_operand_list(p, &ops, &nops) ||
      pto_parser_parse_optional_attr_dict(p, st) || pto_parser_parse_punct(p, PTO_P_COLON))
    return PTO_FAILURE;
  PtoParserPos tpos = pto_parser_pos(p);
  if (pto_parser_parse_type_list(p, &types, &ntypes)) return PTO_FAILURE;
  if (ntypes != nops)
    return pto_parser_error_at(p, pto_parser_pos_loc(p, tpos),
                               "expected %u operand types, got %u", nops, ntypes);
  for (unsigned i = 0; i < nops; i++)
    if (pto_parser_resolve_operand(p, &ops[i], types[i], st)) return PTO_FAILURE;
  return PTO_SUCCESS;
}

static void print_debug(PtoPrinter *p, PtoOp *op) {
  unsigned n = pto_op_num_operands(op);
  pto_printer_puts(p, " ");
  pto_printer_print_operands(p, op, 0, n);
  pto_printer_print_attr_dict(p, op, NULL, 0);
  pto_printer_puts(p, " : ");
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, pto_value_type(pto_op_operand(op, i)));
  }
}

PtoResult pypto_parse(PtoParser *p, PtoOpState *st) {
  PtoPyptoOp id = (PtoPyptoOp)(st->def - pypto_op_defs);
  PtoPyptoKind k = pto_pypto_kind(id);
  if (k == PTO_PYPTO_KIND_DEBUG) return parse_debug(p, st);
  if (k == PTO_PYPTO_KIND_VIEW || k == PTO_PYPTO_KIND_ASSEMBLE ||
      k == PTO_PYPTO_KIND_LOAD_SCALAR)
    return pto_syntax_parse_window(p, st, k == PTO_PYPTO_KIND_ASSEMBLE, false);
  bool sizes = k == PTO_PYPTO_KIND_ZEROS || k == PTO_PYPTO_KIND_FULL ||
               k == PTO_PYPTO_KIND_EXPAND;
  return pto_syntax_parse_common(
      p, st, k != PTO_PYPTO_KIND_ZEROS && k != PTO_PYPTO_KIND_RANDOM, sizes);
}

/* Ops spelled in the window form `%x[%i, 0]`. */
static bool is_window(PtoPyptoKind k) {
  return k == PTO_PYPTO_KIND_VIEW || k == PTO_PYPTO_KIND_ASSEMBLE ||
         k == PTO_PYPTO_KIND_LOAD_SCALAR;
}

static PtoType *operand_type(PtoOp *op, unsigned i) {
  return pto_value_type(pto_op_operand(op, i));
}

/* Whether the custom form can spell the op (only ops that do not verify,
 * printed with PTO_PRINT_ASSUME_VERIFIED, may fail this). */
static bool printable(PtoOp *op, PtoPyptoKind k) {
  unsigned n = pto_op_num_operands(op), m = pto_pypto_num_tensor_operands(op);
  if (pto_op_num_results(op) == 0) return false;
  if (is_window(k)) {
    int64_t offs[PTO_MAX_RANK];
    unsigned nofs = pto_pypto_get_offsets(op, offs, NULL), ndyn = 0;
    PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_STATIC_OFFSETS);
    if (!a || pto_attr_kind(a) != PTO_ATTR_ARRAY || pto_attr_array_size(a) != nofs)
      return false;
    for (unsigned i = 0; i < nofs; i++) ndyn += offs[i] == PTO_DYN;
    return pto_op_num_results(op) == 1 && m == (k == PTO_PYPTO_KIND_ASSEMBLE ? 2u : 1u) &&
           ndyn == n - m &&
           (k != PTO_PYPTO_KIND_ASSEMBLE ||
            pto_value_type(pto_op_result(op, 0)) == operand_type(op, 1));
  }
  if (k == PTO_PYPTO_KIND_ZEROS || k == PTO_PYPTO_KIND_RANDOM)
    return pto_op_num_results(op) == 1;
  return m > 0;
}

void pypto_print(PtoPrinter *p, PtoOp *op) {
  PtoPyptoKind k = pto_pypto_kind(pto_pypto_op_id(op));
  if (k == PTO_PYPTO_KIND_DEBUG && pto_op_num_operands(op) && !pto_op_num_results(op)) {
    print_debug(p, op);
    return;
  }
  if (!printable(op, k)) {
    pto_printer_puts(p, " <<invalid pypto op; print with --print-generic>>");
    return;
  }
  if (!is_window(k)) {
    pto_syntax_print_common(p, op, pto_pypto_num_tensor_operands(op), NULL, 0);
    return;
  }
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_offsets(op, offs, dyn);
  pto_syntax_print_window(p, op, k == PTO_PYPTO_KIND_ASSEMBLE, false, offs, dyn,
                          n);
}
