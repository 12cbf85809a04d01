/* What the kernels of the Block and PTO levels share: the function form
 * (block.kernel, pto.kernel: a core type, a symbol, GM tensor, index and
 * scalar arguments, no results, one body), the memory space of their
 * buffer types and the GM windows their loads and stores address. Each
 * dialect adds what its body may hold. */
#include "Dialect/DialectUtils.h"
#include "pto/Dialect/Block.h"
#include "pto/Dialect/Tile.h"

#include "Support/Vec.h"

#include <string.h>

typedef PTO_VEC(PtoRegionArg) ArgVec;
typedef PTO_VEC(PtoType *) TypeVec;

PtoResult pto_dialect_parse_space(PtoParser *p, PtoBufSpace *out) {
  PtoIdent *space;
  if (pto_parser_parse_punct(p, PTO_P_COMMA)) return PTO_FAILURE;
  PtoParserPos spos = pto_parser_pos(p);
  if (pto_parser_parse_any_keyword(p, &space)) return PTO_FAILURE;
  *out = pto_buf_space_lookup(pto_ident_str(space));
  if (*out == PTO_BUF_NONE)
    return pto_parser_error_at(p, pto_parser_pos_loc(p, spos),
                               "unknown memory space '%s' (expected vec, mat, "
                               "left, right or acc)", pto_ident_str(space));
  return PTO_SUCCESS;
}

void pto_dialect_print_buf_params(PtoPrinter *p, PtoType *t) {
  pto_printer_print_dims(p, pto_type_ints(t), pto_type_num_ints(t));
  if (pto_type_num_types(t)) pto_printer_print_type(p, pto_type_type_param(t, 0));
  if (pto_type_num_attrs(t)) {
    pto_printer_puts(p, ", ");
    pto_printer_puts(p, pto_attr_str(pto_type_attr_param(t, 0)));
  }
}

PtoType *pto_dialect_kernel_type(const PtoOp *k) {
  PtoType *t = pto_attr_type_value(pto_op_attr(k, "function_type"));
  return t && pto_type_kind(t) == PTO_TYPE_FUNCTION ? t : NULL;
}

/* `vector @name(%a: tensor<..>, %i: index) attributes {..} { body }` */
PtoResult pto_dialect_parse_kernel(PtoParser *p, PtoOpState *st,
                                   const char *terminator) {
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
    if (!r) pto_dialect_ensure_terminator(ctx, body, terminator, loc);
  }
  pto_vec_free(&args);
  pto_vec_free(&types);
  return r;
}

void pto_dialect_print_kernel(PtoPrinter *p, PtoOp *op) {
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

static bool kernel_arg_ok(PtoType *t) {
  return pto_type_is_tensor(t) || pto_type_kind(t) == PTO_TYPE_INDEX ||
         pto_type_is_integer(t) || pto_type_is_float(t);
}

PtoResult pto_dialect_verify_kernel(PtoOp *op) {
  PtoType *fty = pto_dialect_kernel_type(op);
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
  return PTO_SUCCESS;
}

/* The window of `buf` at the op's offsets must lie in `tensor`: same rank
 * (or, `placed`, the buffer placed as a tile is), one offset per tensor
 * dim, static offsets inside static dims. `first_dyn` is the first
 * dynamic-offset operand. */
static PtoResult check_window(PtoOp *op, PtoType *buf, PtoType *tensor,
                              unsigned first_dyn, bool placed) {
  if (!pto_type_is_tensor(tensor))
    return pto_dialect_op_error(op, "expects a GM tensor, got '%T'", tensor);
  if (pto_tile_elem(buf) != pto_type_tensor_elem(tensor)) {
    /* the one converting move is FIX's (tstore lets an f32 acc tile into
     * f16 / bf16 through before this check): say what to write instead */
    static const char *const what[2][2] = {
        {"load the tensor's type and convert the buffer after it (tile.cast)",
         "convert the buffer to the tensor's type first (tile.cast) and store that"},
        {"load the tensor's type and convert the tile after it (pto.tcvt)",
         "convert the tile to the tensor's type first (pto.tcvt) and store that: only "
         "an f32 acc tile converts on the way out (to f16 or bf16, on FIX)"}};
    const char *name = pto_op_name_str(op);
    bool pto = strncmp(name, "pto.", 4) == 0, store = strstr(name, "store") != NULL;
    return pto_dialect_op_error(op, "buffer '%T' and tensor '%T' have different "
                                    "element types; %s",
                                buf, tensor, what[pto][store]);
  }
  unsigned rank = pto_type_tensor_rank(tensor);
  int64_t win[PTO_MAX_RANK], wn = 1;
  if (!placed && pto_tile_rank(buf) != rank)
    return pto_dialect_op_error(op, "buffer '%T' must have the rank of the "
                                    "tensor (%u)",
                                buf, rank);
  pto_tile_window_shape(buf, rank, win);
  for (unsigned d = 0; d < rank; d++) wn *= win[d];
  if (wn != pto_tile_numel(buf))
    return pto_dialect_op_error(op, "buffer '%T' is no window of a tensor of "
                                    "rank %u: its dims before the tensor's "
                                    "trailing ones must be 1",
                                buf, rank);
  int64_t offs[PTO_MAX_RANK];
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_attr(op, "static_offsets"), offs,
                              PTO_MAX_RANK, &n) ||
      n != rank)
    return pto_op_emit_error(op, "requires 'static_offsets' with one offset "
                                 "per tensor dim (%u)", rank);
  unsigned ndyn = 0;
  for (unsigned d = 0; d < rank; d++) {
    int64_t dim = pto_type_tensor_dim(tensor, d), size = win[d];
    if (offs[d] == PTO_DYN) {
      ndyn++;
      if (dim != PTO_DYN && size > dim)
        return pto_op_emit_error(op, "the buffer's dim %u (%lld) is larger "
                                     "than the tensor's (%lld)",
                                 d, (long long)size, (long long)dim);
      continue;
    }
    /* offs > dim - size: offs + size may not be representable */
    if (offs[d] < 0 || (dim != PTO_DYN && offs[d] > dim - size))
      return pto_op_emit_error(op, "window [%lld, %llu) of dim %u is outside "
                                   "the tensor (size %lld)",
                               (long long)offs[d],
                               (unsigned long long)offs[d] + (uint64_t)size,
                               d, (long long)dim);
  }
  unsigned nops = pto_op_num_operands(op);
  if (nops - first_dyn != ndyn)
    return pto_op_emit_error(op, "has %u dynamic offsets but %u index "
                                 "operands for them",
                             ndyn, nops - first_dyn);
  for (unsigned i = first_dyn; i < nops; i++)
    if (pto_type_kind(pto_value_type(pto_op_operand(op, i))) != PTO_TYPE_INDEX)
      return pto_dialect_op_error(op, "offset operand #%u must be an index, "
                                      "got '%T'",
                                  i, pto_value_type(pto_op_operand(op, i)));
  return PTO_SUCCESS;
}

PtoResult pto_dialect_check_window(PtoOp *op, PtoType *buf, PtoType *tensor,
                                   unsigned first_dyn) {
  return check_window(op, buf, tensor, first_dyn, false);
}

PtoResult pto_dialect_check_tile_window(PtoOp *op, PtoType *buf,
                                        PtoType *tensor, unsigned first_dyn) {
  return check_window(op, buf, tensor, first_dyn, true);
}

