/* l1-reuse: merges cube launches of one kernel that read one GM window
 * in common, N at a time, so that the merged task loads that operand into
 * L1 once (the engine is LaunchMerge.c). */
#include "Dialect/Block/Transforms/BlockPasses.h"

#include "Support/Alloc.h"

static const PtoMergeSpec spec = {
    .core = PTO_BLOCK_CORE_CUBE,
    .shared_read = true,
    .setting = "cube_l1_reuse_setting",
    .limit = "mg_copyin_upper_bound",
    .limit_is_bytes = true,
    .suffix = "l1x",
};

static PtoResult run(PtoPass *pass, PtoOp *module) {
  return pto_block_merge_launches(pass, module, &spec);
}

const PtoPassDef pto_l1_reuse_pass = {
    .argument = "l1-reuse",
    .summary = "Merge cube launches that read one GM window N at a time, "
               "loading it into L1 once",
    .anchor = "builtin.module",
    .options = pto_block_merge_options,
    .num_options = PTO_BLOCK_MERGE_NUM_OPTIONS,
    .statistics = pto_block_merge_statistics,
    .num_statistics = PTO_BLOCK_MERGE_NUM_STATISTICS,
    .run = run,
    .description =
        "Runs on the `block.launch` ops of `cube` kernels\n"
        "(docs/dialects/block.md), in the host function and in loop bodies.\n"
        "Consecutive launches of one kernel with the same attributes (label\n"
        "included) that read one GM window in common (an entry of `reads`\n"
        "naming the same tensor, offsets and sizes) are merged `factor` at\n"
        "a time, in program order, into one launch of a new kernel\n"
        "`@<kernel>_l1x<N>`: its body is the kernel's, once per merged\n"
        "launch and in their order, with that launch's arguments. A GM\n"
        "window the new kernel loads more than once and never stores to is\n"
        "loaded once (into L1, `mat`) and reused. Its arguments are each\n"
        "distinct tensor once, and each index or scalar argument once if all\n"
        "launches pass the same value (one SSA value or equal constants),\n"
        "else once per launch. The merged launch keeps the label and lists\n"
        "the union of the launches' `reads` and `writes`; it takes the place\n"
        "of the last one. A remainder of fewer than `factor` launches is\n"
        "merged the same way (a single launch is left alone). Merges of the\n"
        "same shape share one new kernel.\n"
        "\n"
        "Runs of launches stop at any op between them that is not\n"
        "effect-free or a `block.workspace` (another kernel's launch, a\n"
        "loop): launches are never moved across anything that may touch GM.\n"
        "Launches in an `scf.for` body merge within one iteration; the loop\n"
        "itself is left alone.\n"
        "\n"
        "Without `factor`, PyPTO's `cube_l1_reuse_setting` recorded in\n"
        "`pypto.pass_options` on the innermost enclosing loop or function\n"
        "that has one decides: `[[k, N], ...]` merges the launches of kernel\n"
        "number k (counting the module's kernels from 0) N at a time, and\n"
        "`[-1, N]` those of every other kernel. An explicit `factor`\n"
        "overrides it. `mg_copyin_upper_bound` there bounds the GM bytes one\n"
        "merged launch reads (the shared window once). The statistics count\n"
        "the cube launches before and after. See docs/block-passes.md.",
};
