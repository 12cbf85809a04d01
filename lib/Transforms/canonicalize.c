/* canonicalize: folds ops, erases dead ones and applies every registered
 * op's canonicalization patterns with the greedy driver until nothing
 * changes. */
#include "Transforms/Passes.h"

#include "Support/Alloc.h"

typedef struct CanonState {
  PtoPatternSet *patterns; /* built on first run, once dialects are known */
} CanonState;

static void *create_state(PtoPass *pass) {
  (void)pass;
  return pto_calloc(1, sizeof(CanonState));
}

static void destroy_state(void *p) {
  CanonState *s = p;
  pto_pattern_set_destroy(s->patterns);
  pto_free(s);
}

static PtoResult run(PtoPass *pass, PtoOp *op) {
  CanonState *s = pto_pass_state(pass);
  if (!s->patterns) {
    s->patterns = pto_pattern_set_create(pto_pass_ctx(pass));
    pto_pattern_set_add_canonicalizations(s->patterns);
  }
  PtoGreedyStats stats = {0, 0, 0, 0};
  PtoGreedyConfig cfg = {
      (unsigned)pto_pass_option_int(pass, "max-iterations"), false,
      pto_pass_option_bool(pass, "region-simplify"), &stats};
  PtoResult r = pto_pattern_set_apply_greedily(op, s->patterns, &cfg, NULL);
  pto_pass_stat_add(pass, "num-folded", (int64_t)stats.folded);
  pto_pass_stat_add(pass, "num-erased", (int64_t)stats.erased);
  pto_pass_stat_add(pass, "num-patterns-applied",
                    (int64_t)stats.patterns_applied);
  return r;
}

static const PtoPassOptionDef options[] = {
    {"max-iterations", PTO_OPT_INT, "10",
     "Maximum number of sweeps over the IR; failing to reach a fixed point "
     "within them is an error",
     1, 1000000, NULL},
    {"region-simplify", PTO_OPT_BOOL, "true",
     "Erase blocks unreachable from their region's entry", 0, 0, NULL},
};

static const PtoPassStatDef statistics[] = {
    {"num-folded", "Number of ops folded"},
    {"num-erased",
     "Number of dead ops, duplicate constants and unreachable blocks erased"},
    {"num-patterns-applied", "Number of canonicalization patterns applied"},
};

const PtoPassDef pto_canonicalize_pass = {
    .argument = "canonicalize",
    .summary = "Fold ops, erase dead ones and apply canonicalization patterns",
    .options = options,
    .num_options = PTO_ARRAY_SIZE(options),
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .create_state = create_state,
    .destroy_state = destroy_state,
    .description =
        "Runs the greedy pattern-rewrite driver with every registered op's\n"
        "canonicalization patterns (the `canonicalize` hook of its op\n"
        "definition) and fold hooks. Each iteration visits every op nested in\n"
        "the anchor: ops without uses and without side effects are erased,\n"
        "ops that fold are replaced by existing values or by constants built\n"
        "with their dialect's `materialize_constant` hook (or updated in\n"
        "place), then the op's patterns are tried, highest benefit first. IR\n"
        "changes requeue the ops they affect. Constants are uniqued and moved\n"
        "to the start of the nearest enclosing region of an\n"
        "isolated-from-above op, and constant operands of commutative ops are\n"
        "moved to the right. With `region-simplify`, blocks unreachable from\n"
        "their region's entry are erased.\n\n"
        "The IR is stable when an iteration changes nothing; if that does not\n"
        "happen within `max-iterations` the pass fails and names the last\n"
        "change made (usually two patterns undoing each other). Ops with side\n"
        "effects are never erased, and ops are never moved across regions\n"
        "other than constants.",
};
