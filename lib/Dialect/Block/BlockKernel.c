/* Kernels and launches: block.kernel (a subgraph on one core type, its
 * values in on-chip buffers of that core), block.return, and block.launch,
 * a node of the execution graph that names its kernel, its label and the
 * GM regions it reads and writes. */
#include "Dialect/Block/BlockInternal.h"

#include "pto/Dialect/Tile.h"

#include "Support/Vec.h"

#include <string.h>

typedef PTO_VEC(PtoRegionArg) ArgVec;
typedef PTO_VEC(PtoType *) TypeVec;

static PtoType *kernel_type(const PtoOp *k) {
  PtoType *t = pto_attr_type_value(pto_op_attr(k, "function_type"));
  return t && pto_type_kind(t) == PTO_TYPE_FUNCTION ? t : NULL;
}

/* ------------------------------------------------------------------ */
/* block.kernel                                                         */
/* ------------------------------------------------------------------ */

/* `vector @name(%a: tensor<..>, %i: index) attributes {..} { body }` */
PtoResult kernel_parse(PtoParser *p, PtoOpState *st) {
  PtoContext *ctx = st->ctx;
  PtoParserPos cpos = pto_parser_pos(p);
  PtoIdent *core, *name;
  if (pto_parser_parse_any_keyword(p, &core)) return PTO_FAILURE;
  if (strcmp(pto_ident_str(core), "vector") && strcmp(pto_ident_str(core), "cube"))
    return pto_parser_error_at(p, pto_parser_pos_loc(p, cpos),
                               "expected the kernel's core type, 'vector' or "
                               "'cube', got '%s'", pto_ident_str(core));
  pto_op_state_add_attr(st, "core", pto_attr_cstr(ctx, pto_ident_str(core)));
  if (pto_parser_parse_symbol_name(p, &name)) return PTO_FAILURE;
  pto_op_state_add_attr(st, "sym_name", pto_attr_string(ctx, pto_ident_str(name),
                                                       pto_ident_len(name)));
  ArgVec args = {0};
  TypeVec types = {0};
  PtoResult r = pto_parser_parse_punct(p, PTO_P_LPAREN);
  if (!r && !pto_parser_optional_punct(p, PTO_P_RPAREN)) {
    do {
      PtoRegionArg a;
      memset(&a, 0, sizeof a);
      if ((r = pto_parser_parse_region_arg(p, &a)) ||
          (r = pto_parser_parse_colon_type(p, &a.type)))
        break;
      pto_vec_push(&args, a);
      pto_vec_push(&types, a.type);
    } while (pto_parser_optional_punct(p, PTO_P_COMMA));
    if (!r) r = pto_parser_parse_punct(p, PTO_P_RPAREN);
  }
  if (!r) {
    PtoType *fty = pto_type_function(ctx, types.data, types.len, NULL, 0);
    pto_op_state_add_attr(st, "function_type", pto_attr_type(ctx, fty));
    r = pto_parser_parse_optional_attr_dict_with_keyword(p, st);
  }
  if (!r) {
    PtoRegion *body = pto_op_state_add_region(st);
    PtoLoc *loc = pto_parser_loc(p);
    r = pto_parser_parse_region(p, body, args.data, args.len);
    if (!r) pto_dialect_ensure_terminator(ctx, body, "block.return", loc);
  }
  pto_vec_free(&args);
  pto_vec_free(&types);
  return r;
}

void kernel_print(PtoPrinter *p, PtoOp *op) {
  const char *core = pto_op_attr_str(op, "core");
  pto_printer_printf(p, " %s ", core ? core : "?");
  PtoIdent *name = pto_op_symbol_name(op);
  if (name) pto_printer_print_symbol_name(p, name);
  PtoBlock *entry = pto_region_first_block(pto_op_region(op, 0));
  pto_printer_puts(p, "(");
  for (unsigned i = 0; entry && i < pto_block_num_args(entry); i++) {
    if (i) pto_printer_puts(p, ", ");
    pto_printer_print_operand(p, pto_block_arg(entry, i));
    pto_printer_puts(p, ": ");
    pto_printer_print_type(p, pto_value_type(pto_block_arg(entry, i)));
  }
  pto_printer_puts(p, ")");
  static const char *const elided[] = {"sym_name", "function_type", "core"};
  pto_printer_print_attr_dict_with_keyword(p, op, elided, 3);
  pto_printer_puts(p, " ");
  pto_printer_print_region(p, pto_op_region(op, 0), false, false);
}

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

static bool kernel_arg_ok(PtoType *t) {
  return pto_type_is_tensor(t) || pto_type_kind(t) == PTO_TYPE_INDEX ||
         pto_type_is_integer(t) || pto_type_is_float(t);
}

PtoResult kernel_verify(PtoOp *op) {
  PtoType *fty = kernel_type(op);
  if (!fty || pto_type_func_num_results(fty))
    return pto_op_emit_error(op, "requires a 'function_type' attribute with "
                                 "no results (kernels write their outputs to "
                                 "GM)");
  PtoAttr *core = pto_op_attr(op, "core");
  if (pto_block_kernel_core(op) == PTO_BLOCK_CORE_NONE)
    return core ? pto_dialect_op_error(op, "attribute 'core' must be "
                                           "\"vector\" or \"cube\", got %A",
                                       core)
                : pto_op_emit_error(op, "requires attribute 'core' (\"vector\" "
                                        "or \"cube\")");
  PtoOp *parent = pto_op_parent_op(op);
  if (!parent || !pto_op_is(parent, "builtin.module"))
    return pto_op_emit_error(op, "expects parent op 'builtin.module'");
  unsigned nin = pto_type_func_num_inputs(fty);
  for (unsigned i = 0; i < nin; i++)
    if (!kernel_arg_ok(pto_type_func_input(fty, i)))
      return pto_dialect_op_error(op, "argument #%u has type '%T'; kernel "
                                      "arguments are GM tensors, indices and "
                                      "scalars",
                                  i, pto_type_func_input(fty, i));
  PtoBlock *entry = pto_region_first_block(pto_op_region(op, 0));
  if (!entry) return pto_op_emit_error(op, "expects a body");
  if (pto_block_num_args(entry) != nin)
    return pto_op_emit_error(op, "entry block must have %u arguments to match "
                                 "the kernel signature, but has %u",
                             nin, pto_block_num_args(entry));
  for (unsigned i = 0; i < nin; i++)
    if (pto_value_type(pto_block_arg(entry, i)) != pto_type_func_input(fty, i))
      return pto_dialect_op_error(op, "type of entry block argument #%u ('%T') "
                                      "does not match the signature ('%T')",
                                  i, pto_value_type(pto_block_arg(entry, i)),
                                  pto_type_func_input(fty, i));
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
                   (dim != PTO_DYN && r.offsets[d] + r.sizes[d] > dim)))
      return pto_op_emit_error(op, "%s #%u: window [%lld, %lld) of dim %u is "
                                   "outside the tensor (size %lld)",
                               attr, i, (long long)r.offsets[d],
                               (long long)(r.offsets[d] + r.sizes[d]), d,
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
    return pto_op_emit_error(op, "'@%s' does not reference a 'block.kernel'",
                             pto_ident_str(pto_attr_symref_root(callee)));
  PtoType *fty = kernel_type(k);
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
