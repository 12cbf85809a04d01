/* Builders of func ops for passes and front ends. */
#include "pto/Dialects.h"

static PtoOp *build_func(PtoBuilder *b, const char *name, PtoType *fn_type,
                         bool is_private, bool with_body) {
  PtoContext *ctx = b->ctx;
  PtoOpState st;
  pto_op_state_init(&st, ctx, "func.func", b->loc);
  pto_op_state_add_attr(&st, "sym_name", pto_attr_cstr(ctx, name));
  pto_op_state_add_attr(&st, "function_type", pto_attr_type(ctx, fn_type));
  if (is_private)
    pto_op_state_add_attr(&st, "sym_visibility", pto_attr_cstr(ctx, "private"));
  PtoRegion *r = pto_op_state_add_region(&st);
  if (with_body) {
    PtoBlock *entry = pto_block_create(ctx);
    for (unsigned i = 0; i < pto_type_func_num_inputs(fn_type); i++)
      pto_block_add_arg(entry, pto_type_func_input(fn_type, i), b->loc);
    pto_region_push_block(r, entry);
  }
  return pto_builder_create(b, &st);
}

PtoOp *pto_func_build(PtoBuilder *b, const char *name, PtoType *fn_type,
                      bool is_private) {
  return build_func(b, name, fn_type, is_private, true);
}

PtoOp *pto_func_build_decl(PtoBuilder *b, const char *name,
                           PtoType *fn_type) {
  return build_func(b, name, fn_type, true, false);
}

PtoOp *pto_func_build_return(PtoBuilder *b, PtoValue *const *vals,
                             unsigned n) {
  return pto_builder_create_simple(b, "func.return", vals, n, NULL, 0, NULL, 0);
}

PtoOp *pto_func_build_call(PtoBuilder *b, const char *callee,
                           PtoType *callee_type, PtoValue *const *args,
                           unsigned n) {
  PtoContext *ctx = b->ctx;
  PtoOpState st;
  pto_op_state_init(&st, ctx, "func.call", b->loc);
  pto_op_state_add_operands(&st, args, n);
  for (unsigned i = 0; i < pto_type_func_num_results(callee_type); i++)
    pto_op_state_add_result(&st, pto_type_func_result(callee_type, i));
  pto_op_state_add_attr(&st, "callee",
                        pto_attr_symref(ctx, pto_ident_cstr(ctx, callee),
                                        NULL, 0));
  return pto_builder_create(b, &st);
}
