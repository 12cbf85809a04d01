/* Kernels and launches: block.kernel (a subgraph on one core type, its
 * values in on-chip buffers of that core), block.return, and block.launch,
 * a node of the execution graph that names its kernel, its label and the
 * GM regions it reads and writes. */
#include "Dialect/Block/BlockInternal.h"

#include "pto/Dialect/Tile.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* block.kernel                                                         */
/* ------------------------------------------------------------------ */

PtoResult kernel_parse(PtoParser *p, PtoOpState *st) {
  return pto_dialect_parse_kernel(p, st, "block.return");
}

void kernel_print(PtoPrinter *p, PtoOp *op) { pto_dialect_print_kernel(p, op); }

/* Which buffers a kernel on `core` may hold. */
static bool space_allowed(PtoBlockCore core, PtoBufSpace s) {
  return core == PTO_BLOCK_CORE_VECTOR ? s == PTO_BUF_VEC : s != PTO_BUF_VEC;
}

typedef struct KernelCheck {
  PtoBlockCore core;
  PtoResult r;
} KernelCheck;

/* Every tile value a kernel computes lives in a buffer of its core. */
static PtoWalkResult check_values(PtoOp *op, void *user) {
  KernelCheck *kc = user;
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoType *t = pto_value_type(pto_op_result(op, i));
    if (!pto_type_is_tile(t)) continue;
    PtoBufSpace s = pto_block_buf_space(t);
    if (s == PTO_BUF_NONE) {
      kc->r = pto_dialect_op_error(op, "result #%u is '%T'; inside a kernel "
                                       "tiles live in on-chip buffers "
                                       "('!block.buf')", i, t);
      return PTO_WALK_INTERRUPT;
    }
    if (!space_allowed(kc->core, s)) {
      kc->r = pto_dialect_op_error(
          op, "result #%u is in memory space '%s', which a %s kernel does not "
              "have (%s)", i, pto_buf_space_name(s),
          kc->core == PTO_BLOCK_CORE_VECTOR ? "vector" : "cube",
          kc->core == PTO_BLOCK_CORE_VECTOR ? "it has vec"
                                            : "it has mat, left, right and acc");
      return PTO_WALK_INTERRUPT;
    }
  }
  return PTO_WALK_ADVANCE;
}

PtoResult kernel_verify(PtoOp *op) {
  if (pto_dialect_verify_kernel(op)) return PTO_FAILURE;
  PtoBlock *entry = pto_region_first_block(pto_op_region(op, 0));
  KernelCheck kc = {pto_block_kernel_core(op), PTO_SUCCESS};
  for (PtoOp *o = pto_block_first_op(entry); o && !kc.r; o = pto_op_next(o))
    pto_op_walk(o, PTO_WALK_PRE, check_values, &kc);
  return kc.r;
}

/* ------------------------------------------------------------------ */
/* block.return                                                         */
/* ------------------------------------------------------------------ */

PtoResult return_parse(PtoParser *p, PtoOpState *st) {
  return pto_parser_parse_optional_attr_dict(p, st);
}

void return_print(PtoPrinter *p, PtoOp *op) {
  pto_printer_print_attr_dict(p, op, NULL, 0);
}

PtoResult return_verify(PtoOp *op) {
  PtoOp *parent = pto_op_parent_op(op);
  if (!parent || !pto_op_is(parent, "block.kernel"))
    return pto_op_emit_error(op, "expects parent op 'block.kernel'");
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* block.launch                                                         */
/* ------------------------------------------------------------------ */

/* `@kernel(%a, %b) {label = "..", reads = [..], writes = [..]} : (t, t)` */
PtoResult launch_parse(PtoParser *p, PtoOpState *st) {
  PtoUnresolvedOperand *ops;
  unsigned n;
  if (pto_dialect_parse_symbol_call(p, st, &ops, &n)) return PTO_FAILURE;
  PtoParserPos tpos = pto_parser_pos(p);
  PtoType **types = NULL;
  unsigned nt = 0;
  if (pto_parser_parse_punct(p, PTO_P_LPAREN)) return PTO_FAILURE;
  if (!pto_parser_optional_punct(p, PTO_P_RPAREN) &&
      (pto_parser_parse_type_list(p, &types, &nt) ||
       pto_parser_parse_punct(p, PTO_P_RPAREN)))
    return PTO_FAILURE;
  return pto_parser_resolve_operands(p, ops, n, types, nt,
                                     pto_parser_pos_loc(p, tpos), st);
}

void launch_print(PtoPrinter *p, PtoOp *op) {
  pto_dialect_print_symbol_call(p, op);
}

/* One entry of `reads` / `writes`: a window of a tensor operand. */
static PtoResult check_region(PtoOp *op, const char *attr, unsigned i) {
  bool writes = attr[0] == 'w';
  PtoBlockRegion r;
  if (!pto_block_launch_region(op, writes, i, &r))
    return pto_op_emit_error(op, "%s #%u must be {operand = N, offsets = "
                                 "[..], sizes = [..]} with as many offsets as "
                                 "sizes (and offset_operands, if given)",
                             attr, i);
  unsigned n = pto_op_num_operands(op);
  PtoType *t = r.operand < n ? pto_value_type(pto_op_operand(op, r.operand))
                             : NULL;
  if (!t || !pto_type_is_tensor(t))
    return pto_op_emit_error(op, "%s #%u names operand %u, which is not a GM "
                                 "tensor operand of the launch",
                             attr, i, r.operand);
  unsigned rank = pto_type_tensor_rank(t);
  if (r.rank != rank)
    return pto_op_emit_error(op, "%s #%u has %u offsets for a tensor of rank %u",
                             attr, i, r.rank, rank);
  for (unsigned d = 0; d < rank; d++) {
    int64_t dim = pto_type_tensor_dim(t, d), oo = r.offset_operand[d];
    if (r.sizes[d] <= 0)
      return pto_op_emit_error(op, "%s #%u: size of dim %u must be positive, "
                                   "got %lld",
                               attr, i, d, (long long)r.sizes[d]);
    if (oo >= 0 && ((unsigned)oo >= n ||
                    pto_type_kind(pto_value_type(pto_op_operand(op, (unsigned)oo))) !=
                        PTO_TYPE_INDEX))
      return pto_op_emit_error(op, "%s #%u: the offset of dim %u names operand "
                                   "%lld, which is not an index operand",
                               attr, i, d, (long long)oo);
    if (oo < -1)
      return pto_op_emit_error(op, "%s #%u: offset_operands entries are "
                                   "operand numbers or -1", attr, i);
    if (oo < 0 && (r.offsets[d] < 0 ||
                   (dim != PTO_DYN && r.offsets[d] > dim - r.sizes[d])))
      return pto_op_emit_error(op, "%s #%u: window [%lld, %llu) of dim %u is "
                                   "outside the tensor (size %lld)",
                               attr, i, (long long)r.offsets[d],
                               (unsigned long long)r.offsets[d] +
                                   (uint64_t)r.sizes[d], d,
                               (long long)dim);
  }
  return PTO_SUCCESS;
}

PtoResult launch_verify(PtoOp *op) {
  if (block_enclosing_kernel(op))
    return pto_op_emit_error(op, "cannot be inside a 'block.kernel': kernels "
                                 "are launched by the host function");
  PtoAttr *callee = pto_op_attr(op, "callee");
  if (!callee || pto_attr_kind(callee) != PTO_ATTR_SYMREF)
    return pto_op_emit_error(op, "requires a 'callee' symbol reference "
                                 "attribute");
  PtoOp *k = pto_block_launch_kernel(op);
  if (!k)
    return pto_op_emit_error(op, "'@%s' does not reference a 'block.kernel' "
                                 "or a 'pto.kernel'",
                             pto_ident_str(pto_attr_symref_root(callee)));
  PtoType *fty = pto_dialect_kernel_type(k);
  unsigned nin = fty ? pto_type_func_num_inputs(fty) : 0;
  if (pto_op_num_operands(op) != nin)
    return pto_op_emit_error(op, "has %u operands, but kernel @%s takes %u",
                             pto_op_num_operands(op),
                             pto_ident_str(pto_attr_symref_root(callee)), nin);
  for (unsigned i = 0; i < nin; i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    if (t != pto_type_func_input(fty, i))
      return pto_dialect_op_error(op, "operand #%u has type '%T', but the "
                                      "kernel takes '%T'",
                                  i, t, pto_type_func_input(fty, i));
  }
  PtoAttr *label = pto_op_attr(op, "label");
  if (!label || pto_attr_kind(label) != PTO_ATTR_STRING)
    return pto_op_emit_error(op, "requires a string attribute 'label' (the "
                                 "name of its tasks in traces)");
  static const char *const lists[] = {"reads", "writes"};
  for (unsigned l = 0; l < 2; l++) {
    PtoAttr *a = pto_op_attr(op, lists[l]);
    if (!a || pto_attr_kind(a) != PTO_ATTR_ARRAY)
      return pto_op_emit_error(op, "requires an array attribute '%s' (the GM "
                                   "regions it %s; [] for none)",
                               lists[l], l ? "writes" : "reads");
    for (unsigned i = 0; i < pto_attr_array_size(a); i++)
      if (check_region(op, lists[l], i)) return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}
