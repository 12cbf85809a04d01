/* Helpers shared by the libFuzzer targets (see FuzzSupport.h). */
#include "FuzzSupport.h"

#include "TestDialect.h"
#include "pto/Dialects.h"
#include "pto/Transforms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Renders every diagnostic (exercising the renderer) and drops it. */
static bool swallow(const PtoDiagInfo *d, void *ctx) {
  char *s = pto_diag_render(ctx, d);
  pto_free(s);
  return true;
}

PtoContext *fuzz_context_create(bool drop_diagnostics) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
  pto_register_test_dialect(ctx);
  pto_ctx_set_allow_unregistered(ctx, true);
  pto_ctx_set_diag_stream(ctx, NULL);
  if (drop_diagnostics) pto_ctx_push_diag_handler(ctx, swallow, ctx);
  return ctx;
}

void fuzz_fail(const char *what, const char *first, const char *second) {
  fprintf(stderr, "fuzz: %s\n--- first:\n%s\n--- second:\n%s\n", what,
          first ? first : "(none)", second ? second : "(none)");
  abort();
}

void fuzz_check_fixed_point(PtoContext *ctx, const char *text,
                            unsigned flags) {
  PtoParseOptions po = {"printed", 1};
  PtoOp *m = pto_parse_module(ctx, text, strlen(text), &po);
  if (!m) fuzz_fail("printed IR does not parse", text, NULL);
  if (pto_op_verify(m)) fuzz_fail("printed IR does not verify", text, NULL);
  char *again = pto_op_print_to_string(m, flags);
  if (strcmp(text, again) != 0)
    fuzz_fail("printing is not a fixed point", text, again);
  pto_free(again);
  pto_op_destroy(m);
}

typedef struct SizeScreen {
  int64_t max_numel, dyn_dim, max_int;
  bool small;
} SizeScreen;

static void screen_type(SizeScreen *s, PtoType *t) {
  if (!t) return;
  if (pto_type_kind(t) == PTO_TYPE_TENSOR) {
    int64_t n = 1;
    for (unsigned i = 0; i < pto_type_tensor_rank(t); i++) {
      int64_t d = pto_type_tensor_dim(t, i);
      if (d == PTO_DYN) d = s->dyn_dim;
      if (d > s->max_numel) { s->small = false; return; }
      n *= d > 0 ? d : 1;
      if (n > s->max_numel) { s->small = false; return; }
    }
  } else if (pto_type_kind(t) == PTO_TYPE_DIALECT) {
    /* Tile types and the like carry their shape as integer parameters. */
    int64_t n = 1;
    for (unsigned i = 0; i < pto_type_num_ints(t); i++) {
      int64_t d = pto_type_ints(t)[i];
      if (d > s->max_numel || d < -s->max_numel) { s->small = false; return; }
      n *= d > 0 ? d : 1;
      if (n > s->max_numel) { s->small = false; return; }
    }
    for (unsigned i = 0; i < pto_type_num_types(t); i++)
      screen_type(s, pto_type_type_param(t, i));
  } else if (pto_type_kind(t) == PTO_TYPE_FUNCTION) {
    for (unsigned i = 0; i < pto_type_func_num_inputs(t); i++)
      screen_type(s, pto_type_func_input(t, i));
    for (unsigned i = 0; i < pto_type_func_num_results(t); i++)
      screen_type(s, pto_type_func_result(t, i));
  }
}

static void screen_attr(SizeScreen *s, PtoAttr *a) {
  switch (pto_attr_kind(a)) {
  case PTO_ATTR_INTEGER: {
    int64_t v = pto_attr_int_value(a);
    if (v > s->max_int || v < -s->max_int) s->small = false;
    break;
  }
  case PTO_ATTR_ARRAY:
    for (unsigned i = 0; i < pto_attr_array_size(a) && s->small; i++)
      screen_attr(s, pto_attr_array_get(a, i));
    break;
  case PTO_ATTR_TYPE:
    screen_type(s, pto_attr_type_value(a));
    break;
  default:
    break;
  }
}

static PtoWalkResult screen_op(PtoOp *op, void *user) {
  SizeScreen *s = user;
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    screen_type(s, pto_value_type(pto_op_result(op, i)));
  for (unsigned i = 0; i < pto_op_num_regions(op); i++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(op, i)); b;
         b = pto_block_next(b))
      for (unsigned j = 0; j < pto_block_num_args(b); j++)
        screen_type(s, pto_value_type(pto_block_arg(b, j)));
  const PtoNamedAttr *attrs = pto_op_attrs(op);
  for (unsigned i = 0; i < pto_op_num_attrs(op) && s->small; i++)
    screen_attr(s, attrs[i].value);
  return s->small ? PTO_WALK_ADVANCE : PTO_WALK_INTERRUPT;
}

bool fuzz_module_is_small(PtoOp *module, int64_t max_numel, int64_t dyn_dim,
                          int64_t max_int) {
  SizeScreen s = {max_numel, dyn_dim, max_int, true};
  pto_op_walk(module, PTO_WALK_PRE, screen_op, &s);
  return s.small;
}
