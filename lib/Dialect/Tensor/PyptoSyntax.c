/* Custom assembly of pypto ops (grammar in docs/dialects/pypto.md):
 *   %r = pypto.op operands attr-dict : operand-types [-> result-types]
 * with the window forms of view / assemble (`%x[%i, 0]`) and the dynamic
 * size lists of full / zeros / expand (`(%n)`). */
#include "PyptoInternal.h"

#include "Support/Alloc.h"

#include <string.h>

/* `[` (integer | %operand), ... `]` into static offsets + dynamic operands. */
static PtoResult parse_offsets(PtoParser *p, int64_t *offs, unsigned *n,
                               PtoUnresolvedOperand *dyn, unsigned *ndyn) {
  *n = *ndyn = 0;
  if (pto_parser_parse_punct(p, PTO_P_LSQUARE)) return PTO_FAILURE;
  if (pto_parser_optional_punct(p, PTO_P_RSQUARE)) return PTO_SUCCESS;
  do {
    if (*n == PTO_MAX_RANK)
      return pto_parser_error(p, "at most %u offsets are supported", PTO_MAX_RANK);
    PtoResult st;
    int64_t v;
    if (pto_parser_optional_integer(p, &v, &st)) {
      if (st) return st;
      if (v == PTO_DYN) return pto_parser_error(p, "offset out of range");
      offs[(*n)++] = v;
    } else if (pto_parser_optional_operand(p, &dyn[*ndyn], &st)) {
      if (st) return st;
      (*ndyn)++;
      offs[(*n)++] = PTO_DYN;
    } else {
      return pto_parser_error(p, "expected an integer offset or an index value");
    }
  } while (pto_parser_optional_punct(p, PTO_P_COMMA));
  return pto_parser_parse_punct(p, PTO_P_RSQUARE);
}

static PtoResult resolve_index(PtoParser *p, const PtoUnresolvedOperand *u,
                               unsigned n, PtoOpState *st) {
  PtoType *idx = pto_type_index(st->ctx);
  for (unsigned i = 0; i < n; i++)
    if (pto_parser_resolve_operand(p, &u[i], idx, st)) return PTO_FAILURE;
  return PTO_SUCCESS;
}

static PtoResult parse_window(PtoParser *p, PtoOpState *st, bool assemble) {
  PtoUnresolvedOperand x, y, dyn[PTO_MAX_RANK];
  int64_t offs[PTO_MAX_RANK];
  unsigned n, ndyn;
  PtoType *t, *u;
  if (pto_parser_parse_operand(p, &x)) return PTO_FAILURE;
  if (assemble && (pto_parser_parse_keyword(p, "into") ||
                   pto_parser_parse_operand(p, &y)))
    return PTO_FAILURE;
  if (parse_offsets(p, offs, &n, dyn, &ndyn) ||
      pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_colon_type(p, &t))
    return PTO_FAILURE;
  if (assemble ? pto_parser_parse_keyword(p, "into")
               : pto_parser_parse_punct(p, PTO_P_ARROW))
    return PTO_FAILURE;
  if (pto_parser_parse_type(p, &u) || pto_parser_resolve_operand(p, &x, t, st) ||
      (assemble && pto_parser_resolve_operand(p, &y, u, st)) ||
      resolve_index(p, dyn, ndyn, st))
    return PTO_FAILURE;
  pto_op_state_add_attr(st, "static_offsets", pto_attr_i64_array(st->ctx, offs, n));
  pto_op_state_add_result(st, u);
  return PTO_SUCCESS;
}

/* Optional `(` %size, ... `)`. */
static PtoResult parse_sizes(PtoParser *p, PtoUnresolvedOperand **u,
                             unsigned *n) {
  *n = 0;
  if (!pto_parser_optional_punct(p, PTO_P_LPAREN)) return PTO_SUCCESS;
  if (pto_parser_parse_operand_list(p, u, n)) return PTO_FAILURE;
  return pto_parser_parse_punct(p, PTO_P_RPAREN);
}

PtoResult pypto_parse(PtoParser *p, PtoOpState *st) {
  PtoPyptoOp id = (PtoPyptoOp)(st->def - pypto_op_defs);
  PtoPyptoKind k = pto_pypto_kind(id);
  if (k == PTO_PYPTO_KIND_VIEW || k == PTO_PYPTO_KIND_ASSEMBLE)
    return parse_window(p, st, k == PTO_PYPTO_KIND_ASSEMBLE);

  PtoUnresolvedOperand *ops = NULL, *sizes = NULL;
  unsigned nops = 0, nsizes = 0;
  if (k != PTO_PYPTO_KIND_ZEROS && pto_parser_parse_operand_list(p, &ops, &nops))
    return PTO_FAILURE;
  bool has_sizes = k == PTO_PYPTO_KIND_ZEROS || k == PTO_PYPTO_KIND_FULL ||
                   k == PTO_PYPTO_KIND_EXPAND;
  if (has_sizes && parse_sizes(p, &sizes, &nsizes)) return PTO_FAILURE;
  if (pto_parser_parse_optional_attr_dict(p, st) ||
      pto_parser_parse_punct(p, PTO_P_COLON))
    return PTO_FAILURE;
  if (k == PTO_PYPTO_KIND_ZEROS) {
    PtoType *t;
    if (pto_parser_parse_type(p, &t) || resolve_index(p, sizes, nsizes, st))
      return PTO_FAILURE;
    pto_op_state_add_result(st, t);
    return PTO_SUCCESS;
  }
  PtoLoc *tloc = pto_parser_loc(p);
  PtoType **types, **res = NULL;
  unsigned ntypes, nres = 0;
  if (pto_parser_parse_type_list(p, &types, &ntypes)) return PTO_FAILURE;
  if (pto_parser_optional_punct(p, PTO_P_ARROW) &&
      pto_parser_parse_type_list(p, &res, &nres))
    return PTO_FAILURE;
  if (ntypes != nops && !(ntypes == 1 && nops > 1))
    return pto_parser_error_at(p, tloc, "expected %u operand types, got %u", nops,
                               ntypes);
  for (unsigned i = 0; i < nops; i++)
    if (pto_parser_resolve_operand(p, &ops[i], types[ntypes == 1 ? 0 : i], st))
      return PTO_FAILURE;
  if (resolve_index(p, sizes, nsizes, st)) return PTO_FAILURE;
  if (nres) pto_op_state_add_results(st, res, nres);
  else pto_op_state_add_result(st, types[0]);
  return PTO_SUCCESS;
}

static void print_offsets(PtoPrinter *p, PtoOp *op) {
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_offsets(op, offs, dyn);
  pto_printer_puts(p, "[");
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_printer_puts(p, ", ");
    if (dyn[i]) pto_printer_print_operand(p, dyn[i]);
    else pto_printer_print_int(p, offs[i]);
  }
  pto_printer_puts(p, "]");
}

static PtoType *operand_type(PtoOp *op, unsigned i) {
  return pto_value_type(pto_op_operand(op, i));
}

static PtoType *result_type(PtoOp *op, unsigned i) {
  return pto_value_type(pto_op_result(op, i));
}

/* The generic form is the fallback for ops the custom form cannot spell
 * (only reachable for ops that do not verify). */
static bool printable(PtoOp *op, PtoPyptoKind k) {
  unsigned n = pto_op_num_operands(op), m = pto_pypto_num_tensor_operands(op);
  if (k == PTO_PYPTO_KIND_VIEW || k == PTO_PYPTO_KIND_ASSEMBLE) {
    int64_t offs[PTO_MAX_RANK];
    unsigned nofs = pto_pypto_get_offsets(op, offs, NULL), ndyn = 0;
    PtoAttr *a = pto_op_attr(op, "static_offsets");
    if (!a || pto_attr_kind(a) != PTO_ATTR_ARRAY || pto_attr_array_size(a) != nofs)
      return false;
    for (unsigned i = 0; i < nofs; i++) ndyn += offs[i] == PTO_DYN;
    return pto_op_num_results(op) == 1 && m == (k == PTO_PYPTO_KIND_VIEW ? 1u : 2u) &&
           ndyn == n - m &&
           (k == PTO_PYPTO_KIND_VIEW || result_type(op, 0) == operand_type(op, 1));
  }
  if (pto_op_num_results(op) == 0) return false;
  if (k == PTO_PYPTO_KIND_ZEROS) return pto_op_num_results(op) == 1;
  return m > 0;
}

void pypto_print(PtoPrinter *p, PtoOp *op) {
  PtoPyptoKind k = pto_pypto_kind(pto_pypto_op_id(op));
  unsigned n = pto_op_num_operands(op), m = pto_pypto_num_tensor_operands(op);
  static const char *const elided[] = {"static_offsets"};
  if (!printable(op, k)) {
    /* Keeps the text parseable: the verifier reports the problem. */
    pto_printer_puts(p, " <<invalid pypto op; print with --print-generic>>");
    return;
  }
  if (k == PTO_PYPTO_KIND_VIEW || k == PTO_PYPTO_KIND_ASSEMBLE) {
    pto_printer_puts(p, " ");
    pto_printer_print_operand(p, pto_op_operand(op, 0));
    if (k == PTO_PYPTO_KIND_ASSEMBLE) {
      pto_printer_puts(p, " into ");
      pto_printer_print_operand(p, pto_op_operand(op, 1));
    }
    print_offsets(p, op);
    pto_printer_print_attr_dict(p, op, elided, 1);
    pto_printer_puts(p, " : ");
    pto_printer_print_type(p, operand_type(op, 0));
    pto_printer_puts(p, k == PTO_PYPTO_KIND_VIEW ? " -> " : " into ");
    pto_printer_print_type(p, result_type(op, 0));
    return;
  }
  if (m) {
    pto_printer_puts(p, " ");
    pto_printer_print_operands(p, op, 0, m);
  }
  if (n > m) {
    pto_printer_puts(p, " (");
    pto_printer_print_operands(p, op, m, n - m);
    pto_printer_puts(p, ")");
  }
  pto_printer_print_attr_dict(p, op, NULL, 0);
  pto_printer_puts(p, " : ");
  if (k == PTO_PYPTO_KIND_ZEROS) {
    pto_printer_print_type(p, result_type(op, 0));
    return;
  }
  bool same = true;
  for (unsigned i = 1; i < m; i++) same &= operand_type(op, i) == operand_type(op, 0);
  for (unsigned i = 0; i < (same ? 1 : m); i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, operand_type(op, i));
  }
  /* `-> type` is implied when the result has the type of every tensor
   * operand (`add` without broadcasting, `muls`). */
  unsigned nres = pto_op_num_results(op);
  bool implied = nres == 1;
  for (unsigned i = 0; i < m && implied; i++)
    implied = i == 0 ? result_type(op, 0) == operand_type(op, 0)
                     : !pto_type_is_tensor(operand_type(op, i)) ||
                           operand_type(op, i) == operand_type(op, 0);
  if (implied) return;
  pto_printer_puts(p, " -> ");
  for (unsigned i = 0; i < nres; i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_type(p, result_type(op, i));
  }
}
