/* dce: erases ops whose results are unused and that have no side effects
 * (including ops with regions whose contents have none), to a fixed point.
 * This is the greedy driver with no patterns and no folding: its worklist
 * revisits the defining ops of every erased op's operands. */
#include "Transforms/Passes.h"

#include "Support/Alloc.h"

static PtoResult run(PtoPass *pass, PtoOp *op) {
  PtoGreedyStats stats = {0, 0, 0, 0};
  PtoGreedyConfig cfg = {0, true, false, &stats};
  PtoResult r = pto_pattern_set_apply_greedily(op, NULL, &cfg, NULL);
  pto_pass_stat_add(pass, "num-erased", (int64_t)stats.erased);
  return r;
}

static const PtoPassStatDef statistics[] = {
    {"num-erased", "Number of dead operations erased"},
};

const PtoPassDef pto_dce_pass = {
    .argument = "dce",
    .summary = "Erase operations without uses and without side effects",
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .description =
        "Erases ops whose results are unused and that have no side effects,\n"
        "to a fixed point: erasing an op makes the ops defining its operands\n"
        "candidates again. An op with regions is erased when it is declared\n"
        "to have the effects of its body (`RecursiveEffects`) and its body\n"
        "has none. Terminators, symbols and ops of unregistered dialects are\n"
        "kept.",
};
