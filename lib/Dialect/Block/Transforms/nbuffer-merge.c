/* nbuffer-merge: merges launches of one vector kernel N at a time into
 * one task that runs them in turn (the engine is LaunchMerge.c). */
#include "Dialect/Block/Transforms/BlockPasses.h"

#include "Support/Alloc.h"

static const PtoMergeSpec spec = {
    .core = PTO_BLOCK_CORE_VECTOR,
    .shared_read = false,
    .setting = "vec_nbuffer_setting",
    .limit = "mg_vec_parallel_lb",
    .limit_is_bytes = false,
    .suffix = "nbx",
};

static PtoResult run(PtoPass *pass, PtoOp *module) {
  return pto_block_merge_launches(pass, module, &spec);
}

const PtoPassDef pto_nbuffer_merge_pass = {
    .argument = "nbuffer-merge",
    .summary = "Merge launches of one vector kernel N at a time",
    .anchor = "builtin.module",
    .options = pto_block_merge_options,
    .num_options = PTO_BLOCK_MERGE_NUM_OPTIONS,
    .statistics = pto_block_merge_statistics,
    .num_statistics = PTO_BLOCK_MERGE_NUM_STATISTICS,
    .run = run,
    .description =
        "Runs on the `block.launch` ops of `vector` kernels\n"
        "(docs/dialects/block.md), in the host function and in loop bodies.\n"
        "Consecutive launches of one kernel (after `subgraph-dedup`, the\n"
        "launches of same-structure subgraphs) with the same attributes,\n"
        "label included, are merged `factor` at a time, in program order,\n"
        "into one launch of a new kernel `@<kernel>_nbx<N>`: its body is the\n"
        "kernel's, once per merged launch and in their order, with that\n"
        "launch's arguments, so one task streams N tiles through the vector\n"
        "core's buffers. Arguments, regions, remainders, the shared loads of\n"
        "windows never stored to and the runs that stop at anything touching\n"
        "GM are as for `l1-reuse`.\n"
        "\n"
        "Without `factor`, PyPTO's `vec_nbuffer_setting` recorded in\n"
        "`pypto.pass_options` on the innermost enclosing loop or function\n"
        "that has one decides (`[[k, N], ...]` for kernel number k, `[-1, N]`\n"
        "for every other); an explicit `factor` overrides it.\n"
        "`mg_vec_parallel_lb` there keeps at least that many launches of a\n"
        "run (a run of fewer is not merged). See docs/block-passes.md.",
};
