/* count-ops: a pass defined outside the PTO library, registered through
 * the C API and run in a pipeline with built-in passes. */
#include "pto/Pass.h"
#include "pto/Transforms.h"

#include <stdio.h>
#include <string.h>

typedef struct Count {
  const char *name; /* count only ops of this name; "" counts all */
  int64_t n;
} Count;

static PtoWalkResult count_op(PtoOp *op, void *user) {
  Count *c = user;
  if (!*c->name || pto_op_is(op, c->name)) c->n++;
  return PTO_WALK_ADVANCE;
}

/* Runs once per op the pass is anchored on (here: the module). */
static PtoResult run(PtoPass *pass, PtoOp *op) {
  Count c = {pto_pass_option_str(pass, "op-name"), 0};
  for (unsigned i = 0; i < pto_op_num_regions(op); i++)
    pto_region_walk(pto_op_region(op, i), PTO_WALK_PRE, count_op, &c);
  pto_pass_stat_add(pass, "num-ops", c.n);
  if (c.n > pto_pass_option_int(pass, "max"))
    return pto_op_emit_error(op, "%lld ops, more than max=%lld", (long long)c.n,
                             (long long)pto_pass_option_int(pass, "max"));
  return PTO_SUCCESS;
}

static const PtoPassOptionDef options[] = {
    {"op-name", PTO_OPT_STRING, "", "Count only the ops of this name", 0, 0,
     NULL},
    {"max", PTO_OPT_INT, "1000", "Fail when there are more ops than this", 0,
     1000000, NULL},
};

static const PtoPassStatDef statistics[] = {
    {"num-ops", "Number of ops counted"},
};

static const PtoPassDef count_ops_pass = {
    .argument = "count-ops",
    .summary = "Count the ops nested in the anchor op",
    .anchor = NULL, /* runs on whatever its pass manager runs on */
    .options = options,
    .num_options = 2,
    .statistics = statistics,
    .num_statistics = 1,
    .run = run,
};

static const char input[] =
    "\"x.func\"() ({\n"
    "  %0 = \"x.mul\"() : () -> i32\n"
    "  \"x.return\"(%0) : (i32) -> ()\n"
    "}) {sym_name = \"main\"} : () -> ()\n"
    "\"x.func\"() ({\n"
    "  \"x.return\"() : () -> ()\n"
    "}) {sym_name = \"unused\", sym_visibility = \"private\"} : () -> ()\n";

int main(void) {
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_set_allow_unregistered(ctx, true); /* the x.* ops above */
  pto_register_all_passes(ctx);
  if (pto_pass_register(ctx, &count_ops_pass)) return 1;

  PtoOp *module = pto_parse_module(ctx, input, strlen(input), NULL);
  PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
  int rc = 1;
  if (module &&
      !pto_pm_add_pipeline(pm, "builtin.module(count-ops{op-name=x.mul},"
                               "count-ops,symbol-dce,count-ops{max=10})")) {
    PtoInstrumentation ins = {.statistics = true,
                              .print_after_failure = true,
                              .out = stdout};
    pto_pm_set_instrumentation(pm, &ins);
    if (!pto_pm_run(pm, module)) {
      pto_op_print(module, stdout, 0);
      rc = 0;
    }
    pto_pm_report(pm);
  }
  pto_pm_destroy(pm);
  if (module) pto_op_destroy(module);
  pto_ctx_destroy(ctx);
  return rc;
}
