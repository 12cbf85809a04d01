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
  PtoResult r = pto_apply_patterns_greedily(op, s->patterns, &cfg, NULL);
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
    "canonicalize",
    "Fold ops, erase dead ones and apply canonicalization patterns",
    NULL,
    options,
    PTO_ARRAY_SIZE(options),
    statistics,
    PTO_ARRAY_SIZE(statistics),
    run,
    create_state,
    destroy_state,
    NULL,
};
