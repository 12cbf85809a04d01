/* Passes and pipelines used only by the pass-manager tests: every option
 * kind, a function-anchored pass, a failing pass, a pass that breaks the
 * IR, and named pipelines (including broken ones). */
#include "pto/Pass.h"

#include <stdio.h>

/* ---- test-options: echoes its options as a remark ---- */

static const char *const modes[] = {"fast", "exact", NULL};

static const PtoPassOptionDef option_defs[] = {
    {"count", PTO_OPT_INT, "4", "an integer in [1, 64]", 1, 64, NULL},
    {"offset", PTO_OPT_INT, "-1", "any integer", 0, 0, NULL},
    {"enabled", PTO_OPT_BOOL, "false", "a flag", 0, 0, NULL},
    {"name", PTO_OPT_STRING, "", "a string", 0, 0, NULL},
    {"mode", PTO_OPT_ENUM, "fast", "an enum", 0, 0, modes},
    {"tile", PTO_OPT_INT_LIST, "32,32", "a list of integers in [1, 1024]", 1,
     1024, NULL},
    {"ratio", PTO_OPT_FLOAT, "0.5", "a number", 0, 0, NULL},
};

static const PtoPassStatDef option_stats[] = {
    {"num-runs", "Number of ops the pass ran on"},
};

static PtoResult run_options(PtoPass *pass, PtoOp *op) {
  int64_t tile[8];
  unsigned n = pto_pass_option_list(pass, "tile", tile, 8);
  char list[128] = "";
  int len = 0;
  for (unsigned i = 0; i < n && i < 8; i++)
    len += snprintf(list + len, sizeof list - (size_t)len, "%s%lld",
                    i ? "," : "", (long long)tile[i]);
  pto_emit_remark(pto_pass_ctx(pass), pto_op_loc(op),
                  "count=%lld offset=%lld enabled=%s name='%s' mode=%s "
                  "tile=[%s] ratio=%g count-set=%s",
                  (long long)pto_pass_option_int(pass, "count"),
                  (long long)pto_pass_option_int(pass, "offset"),
                  pto_pass_option_bool(pass, "enabled") ? "true" : "false",
                  pto_pass_option_str(pass, "name"),
                  pto_pass_option_str(pass, "mode"), list,
                  pto_pass_option_float(pass, "ratio"),
                  pto_pass_option_is_set(pass, "count") ? "yes" : "no");
  pto_pass_stat_add(pass, "num-runs", 1);
  return PTO_SUCCESS;
}

/* Options beyond kinds and ranges: `count` must divide every tile size. */
static PtoResult check_options(PtoPass *pass, PtoLoc *loc) {
  int64_t tile[8];
  unsigned n = pto_pass_option_list(pass, "tile", tile, 8);
  int64_t count = pto_pass_option_int(pass, "count");
  for (unsigned i = 0; i < n && i < 8; i++)
    if (tile[i] % count)
      return pto_emit_error(pto_pass_ctx(pass), loc,
                            "test-options: count=%lld does not divide tile "
                            "size %lld",
                            (long long)count, (long long)tile[i]);
  return PTO_SUCCESS;
}

static const PtoPassDef test_options_pass = {
    "test-options", "Echo the pass options as a remark", NULL, option_defs,
    sizeof option_defs / sizeof option_defs[0], option_stats, 1, run_options,
    NULL, NULL, check_options, NULL, NULL, NULL};

/* ---- test-func-count: anchored on ptotest.func ---- */

static PtoWalkResult count_op(PtoOp *op, void *user) {
  (void)op;
  ++*(int *)user;
  return PTO_WALK_ADVANCE;
}

static PtoResult run_func_count(PtoPass *pass, PtoOp *op) {
  int n = -1; /* not the function itself */
  pto_op_walk(op, PTO_WALK_PRE, count_op, &n);
  pto_emit_remark(pto_pass_ctx(pass), pto_op_loc(op), "%s has %d ops",
                  pto_ident_str(pto_op_symbol_name(op)), n);
  pto_pass_stat_add(pass, "num-functions", 1);
  return PTO_SUCCESS;
}

static const PtoPassStatDef func_stats[] = {
    {"num-functions", "Number of functions visited"},
};

static const PtoPassDef test_func_count_pass = {
    "test-func-count", "Count the ops of each ptotest.func", "ptotest.func", NULL, 0,
    func_stats, 1, run_func_count, NULL, NULL, NULL, NULL, NULL, NULL};

/* ---- test-fail: fails on the first op carrying `ptotest.fail` ---- */

typedef struct FailCtx {
  PtoOp *found;
} FailCtx;

static PtoWalkResult find_fail(PtoOp *op, void *user) {
  if (!pto_op_attr(op, "ptotest.fail")) return PTO_WALK_ADVANCE;
  ((FailCtx *)user)->found = op;
  return PTO_WALK_INTERRUPT;
}

static PtoResult run_fail(PtoPass *pass, PtoOp *op) {
  (void)pass;
  FailCtx fc = {NULL};
  pto_op_walk(op, PTO_WALK_PRE, find_fail, &fc);
  if (!fc.found) return PTO_SUCCESS;
  /* leave a visible change behind, so the failure dump shows the IR as
   * the pass left it */
  pto_op_set_attr(fc.found, "ptotest.seen", pto_attr_unit(pto_pass_ctx(pass)));
  return pto_op_emit_error(fc.found, "test-fail: found 'ptotest.fail'");
}

static const PtoPassDef test_fail_pass = {
    "test-fail", "Fail on ops marked 'ptotest.fail'", NULL, NULL, 0, NULL, 0,
    run_fail, NULL, NULL, NULL, NULL, NULL, NULL};

/* ---- test-fail-silently: fails without a diagnostic ---- */

static PtoResult run_fail_silently(PtoPass *pass, PtoOp *op) {
  (void)pass;
  (void)op;
  return PTO_FAILURE;
}

static const PtoPassDef test_fail_silently_pass = {
    "test-fail-silently", "Fail without saying why", NULL, NULL, 0, NULL, 0,
    run_fail_silently, NULL, NULL, NULL, NULL, NULL, NULL};

/* ---- test-break-ir: makes every ptotest.positive invalid ---- */

static PtoWalkResult break_positive(PtoOp *op, void *user) {
  if (pto_op_is(op, "ptotest.positive"))
    pto_op_set_attr(op, "value", pto_attr_i64(user, 0));
  return PTO_WALK_ADVANCE;
}

static PtoResult run_break_ir(PtoPass *pass, PtoOp *op) {
  pto_op_walk(op, PTO_WALK_PRE, break_positive, pto_pass_ctx(pass));
  return PTO_SUCCESS;
}

static const PtoPassDef test_break_ir_pass = {
    "test-break-ir", "Set the value of every ptotest.positive to 0", NULL, NULL,
    0, NULL, 0, run_break_ir, NULL, NULL, NULL, NULL, NULL, NULL};

/* ---- test-break-ir-unchanged: breaks it and says it changed nothing,
 * to show that the manager skips verifying a run that reports so ---- */

static PtoResult run_break_ir_unchanged(PtoPass *pass, PtoOp *op) {
  pto_op_walk(op, PTO_WALK_PRE, break_positive, pto_pass_ctx(pass));
  pto_pass_mark_unchanged(pass);
  return PTO_SUCCESS;
}

static const PtoPassDef test_break_ir_unchanged_pass = {
    "test-break-ir-unchanged",
    "As test-break-ir, but report the IR unchanged (skips the verifier)",
    NULL, NULL, 0, NULL, 0, run_break_ir_unchanged, NULL, NULL, NULL, NULL,
    NULL, NULL};

/* ---- test-module-only: anchored on builtin.module ---- */

static PtoResult run_nothing(PtoPass *pass, PtoOp *op) {
  (void)pass;
  (void)op;
  return PTO_SUCCESS;
}

static const PtoPassDef test_module_only_pass = {
    "test-module-only", "A pass that only runs on modules", "builtin.module",
    NULL, 0, NULL, 0, run_nothing, NULL, NULL, NULL, NULL, NULL, NULL};

void pto_register_test_passes(PtoContext *ctx) {
  pto_pass_register(ctx, &test_options_pass);
  pto_pass_register(ctx, &test_func_count_pass);
  pto_pass_register(ctx, &test_fail_pass);
  pto_pass_register(ctx, &test_fail_silently_pass);
  pto_pass_register(ctx, &test_break_ir_pass);
  pto_pass_register(ctx, &test_break_ir_unchanged_pass);
  pto_pass_register(ctx, &test_module_only_pass);
  pto_pipeline_register(ctx, "test-cleanup", "CSE then canonicalize",
                        "cse,canonicalize");
  pto_pipeline_register(ctx, "test-func-cleanup",
                        "CSE and canonicalize inside each ptotest.func",
                        "ptotest.func(cse,canonicalize)");
  pto_pipeline_register(ctx, "test-recursive", "A pipeline that uses itself",
                        "cse,test-recursive");
  pto_pipeline_register(ctx, "test-broken", "A pipeline with a typo",
                        "cse,canonicalise");
}
