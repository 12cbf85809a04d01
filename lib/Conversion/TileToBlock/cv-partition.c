/* cv-partition: lowers Tile-level functions to the Block level. The tile
 * ops of each function are cut into subgraphs that each run on one core
 * type (Partition.c), every subgraph becomes a block.kernel whose values
 * live in on-chip buffers, and the function becomes the host program that
 * launches them (Kernels.c); see docs/passes.md#cv-partition. */
#include "Conversion/Passes.h"
#include "Conversion/TileToBlock/TileToBlock.h"

#include "pto/Origin.h"

#include "Support/Alloc.h"

#include <string.h>

static void reset_func(Partition *p) {
  for (uint32_t i = 0; i < p->nodes.len; i++) {
    pto_vec_free(&p->nodes.data[i].succ);
    pto_vec_free(&p->nodes.data[i].ops);
  }
  pto_vec_clear(&p->nodes);
  uint32_t it = 0;
  uint64_t key;
  void *val;
  while (pto_ptrmap_next(&p->readers, &it, &key, &val)) {
    U32Vec *r = val;
    pto_vec_free(r);
    pto_free(r);
  }
  pto_ptrmap_clear(&p->readers);
  pto_ptrmap_clear(&p->writer);
  pto_ptrmap_clear(&p->slot_of);
  pto_vec_clear(&p->opinfo);
  pto_vec_clear(&p->valinfo);
  memset(p->slot_cache, 0, sizeof *p->slot_cache << SLOT_CACHE_BITS);
  pto_ptrmap_clear(&p->scope_groups);
  p->scope_block = NULL;
  pto_ptrmap_clear(&p->root);
  pto_ptrmap_clear(&p->ws);
  pto_ptrmap_clear(&p->consts);
}

static PtoResult load_platform(Partition *p, PtoOp *module) {
  const char *spec = pto_pass_option_str(p->pass, "platform");
  PtoPlatformError err;
  if (!pto_platform_load(&p->plat, spec, &err))
    return pto_op_emit_error(module, "cv-partition: %s", err.message);
  static const PtoMemSpace spaces[PTO_BUF_NUM_SPACES] = {
      [PTO_BUF_VEC] = PTO_MEM_VEC, [PTO_BUF_MAT] = PTO_MEM_MAT,
      [PTO_BUF_LEFT] = PTO_MEM_LEFT, [PTO_BUF_RIGHT] = PTO_MEM_RIGHT,
      [PTO_BUF_ACC] = PTO_MEM_ACC};
  for (unsigned s = 0; s < PTO_BUF_NUM_SPACES; s++)
    p->cap[s] = p->plat.buffers[spaces[s]].size_bytes;
  return PTO_SUCCESS;
}

static PtoResult run(PtoPass *pass, PtoOp *module) {
  Partition p;
  memset(&p, 0, sizeof p);
  p.ctx = pto_pass_ctx(pass);
  p.pass = pass;
  p.module = module;
  p.merge = pto_pass_option_bool(pass, "merge");
  p.double_buffer = pto_pass_option_bool(pass, "double-buffer");
  p.provenance = pto_pass_option_bool(pass, "provenance");
  p.max_ops = pto_pass_option_int(pass, "max-ops");
  p.dedup = pto_pass_option_bool(pass, "dedup");
  if (load_platform(&p, module)) return PTO_FAILURE;
  PtoContext *ctx = p.ctx;
  p.id_operand = pto_ident_cstr(ctx, "operand");
  p.id_offsets = pto_ident_cstr(ctx, "offsets");
  p.id_sizes = pto_ident_cstr(ctx, "sizes");
  p.id_offset_operands = pto_ident_cstr(ctx, "offset_operands");
  p.id_static_offsets = pto_ident_cstr(ctx, "static_offsets");
  p.id_callee = pto_ident_cstr(ctx, "callee");
  p.id_label = pto_ident_cstr(ctx, "label");
  p.id_reads = pto_ident_cstr(ctx, "reads");
  p.id_writes = pto_ident_cstr(ctx, "writes");
  p.slot_cache = pto_calloc((size_t)1 << SLOT_CACHE_BITS, sizeof *p.slot_cache);
  p.arrays = pto_calloc((size_t)1 << ARRAY_CACHE_BITS, sizeof *p.arrays);
  pto_ptrmap_init(&p.slot_of);
  pto_ptrmap_init(&p.scope_groups);
  pto_ptrmap_init(&p.root);
  pto_ptrmap_init(&p.readers);
  pto_ptrmap_init(&p.writer);
  pto_ptrmap_init(&p.origin);
  pto_ptrmap_init(&p.ws);
  pto_ptrmap_init(&p.consts);
  pto_ptrmap_init(&p.heads);
  if (p.provenance) {
    PtoOp **ops;
    unsigned n = pto_origin_ops(module, &ops);
    for (unsigned i = 0; i < n; i++)
      pto_ptrmap_put(&p.origin, (uintptr_t)ops[i], (void *)(uintptr_t)(i + 1));
    pto_free(ops);
  }
  p.symbols = pto_symtab_create(module);
  OpVec funcs = {0};
  for (PtoBlock *b = pto_region_first_block(pto_op_region(module, 0)); b;
       b = pto_block_next(b))
    for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op))
      if (pto_op_is(op, "func.func")) pto_vec_push(&funcs, op);
  PtoResult r = PTO_SUCCESS;
  for (uint32_t i = 0; i < funcs.len && !r; i++) {
    PtoOp *func = funcs.data[i];
    PtoBlock *entry = pto_region_first_block(pto_op_region(func, 0));
    if (!entry) continue; /* a declaration */
    p.func = func;
    part_split_forks(&p, func);
    part_number_ops(&p, func);
    r = part_block(&p, entry);
    if (!r) part_finish_func(&p, func);
    reset_func(&p);
  }
  pto_vec_free(&funcs);
  pto_symtab_destroy(p.symbols);
  pto_vec_free(&p.nodes);
  pto_vec_free(&p.stack);
  pto_vec_free(&p.scan_vbase);
  pto_vec_free(&p.scan_slots);
  pto_vec_free(&p.keys);
  pto_vec_free(&p.sorted);
  pto_vec_free(&p.all);
  pto_ptrmap_release(&p.slot_of);
  pto_free(p.slot_cache);
  pto_free(p.arrays);
  pto_ptrmap_release(&p.scope_groups);
  pto_vec_free(&p.opinfo);
  pto_vec_free(&p.valinfo);
  pto_ptrmap_release(&p.root);
  pto_ptrmap_release(&p.readers);
  pto_ptrmap_release(&p.writer);
  pto_ptrmap_release(&p.origin);
  pto_ptrmap_release(&p.ws);
  pto_ptrmap_release(&p.consts);
  pto_ptrmap_release(&p.heads);
  pto_vec_free(&p.made);
  pto_vec_free(&p.made_next);
  return r;
}

static PtoResult check_options(PtoPass *pass, PtoLoc *loc) {
  const char *spec = pto_pass_option_str(pass, "platform");
  PtoPlatform plat;
  PtoPlatformError err;
  if (!pto_platform_load(&plat, spec, &err))
    return err.line ? pto_emit_error(pto_pass_ctx(pass), loc,
                                     "option 'platform': %s:%u: %s", err.file,
                                     err.line, err.message)
                    : pto_emit_error(pto_pass_ctx(pass), loc,
                                     "option 'platform': %s", err.message);
  return PTO_SUCCESS;
}

static const PtoPassOptionDef options[] = {
    {"platform", PTO_OPT_STRING, PTO_PLATFORM_DEFAULT,
     "the machine whose buffer sizes bound the subgraphs: a built-in name "
     "(a2a3, a3) or a platform description file",
     0, 0, NULL},
    {"merge", PTO_OPT_BOOL, "true",
     "merge producer-consumer chains of one core type into one subgraph "
     "(false: one subgraph per compute op)",
     0, 0, NULL},
    {"double-buffer", PTO_OPT_BOOL, "false",
     "count every tile loaded from GM twice (double buffering) against the "
     "buffer sizes",
     0, 0, NULL},
    {"max-ops", PTO_OPT_INT, "256", "most tile ops in one subgraph", 1,
     INT64_MAX, NULL},
    {"dedup", PTO_OPT_BOOL, "false",
     "launch one kernel for structurally identical subgraphs as they are "
     "made, as subgraph-dedup would afterwards (the same kernels and "
     "names), instead of making and verifying every copy",
     0, 0, NULL},
    {"provenance", PTO_OPT_BOOL, "false",
     "mark each op in a kernel with the Tile-level op it comes from "
     "(pto.origin, for pto-run --check-levels)",
     0, 0, NULL},
};

static const PtoPassStatDef statistics[] = {
    {"kernels", "block.kernel ops created"},
    {"launches", "block.launch ops created"},
    {"workspaces", "GM workspaces created"},
    {"tile-ops", "tile ops placed in kernels"},
    {"kernels-shared", "subgraphs launched as an identical kernel made before (dedup)"},
};

const PtoPassDef pto_cv_partition_pass = {
    .argument = "cv-partition",
    .summary = "Cut the tile graph into cube and vector kernels and the host "
               "program that launches them (the Block level)",
    .anchor = "builtin.module",
    .options = options,
    .num_options = PTO_ARRAY_SIZE(options),
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .check_options = check_options,
    .level_from = "Tile",
    .level_to = "Block",
    .description =
        "Cuts the tile ops of every function into subgraphs, each on one core\n"
        "type: cube for matmuls, vector for the other compute ops (the op\n"
        "table's core affinity); views, reshapes and assembles go with the\n"
        "ops they feed or are fed by. Each subgraph becomes a `block.kernel`\n"
        "whose inputs are loaded from GM (`block.load`), whose intermediates\n"
        "stay in on-chip buffers (`vec` on a vector core; `mat` and `acc` on\n"
        "a cube core) and whose outputs are stored to GM (`block.store`);\n"
        "the function becomes the host program, with one `block.launch` per\n"
        "subgraph carrying its `label` and the GM regions it reads and\n"
        "writes. Tile values that cross subgraphs go through GM workspaces\n"
        "(`block.workspace`); `tile.empty` becomes a workspace too, and GM\n"
        "tensors are updated in place: a tensor version that two ops update\n"
        "(as `cse` leaves two equal tensors merged), that an op in a nested\n"
        "block updates, or that an op reads along with what its update made\n"
        "(a clone folded away, then updated), is first copied (a copy kernel\n"
        "of 16 KiB tiles) for the later update. Launches are ordered by their dependencies, a read of\n"
        "a version before its update; in a kernel too, where the windows\n"
        "may overlap: a later reader of the old version merged with the\n"
        "update's chain runs before the update (an error where no order\n"
        "of the kernel's ops allows that).\n"
        "Loops and branches stay in the host\n"
        "function with the launches of their bodies inside: an `scf.for`\n"
        "updates the tensors it carries (`iter_args`) in place, an `scf.if`\n"
        "the tensors from outside that its results are versions of, each\n"
        "branch's kernels cut within that branch and updating them in place\n"
        "(one branch runs). A body or branch that yields a tensor it makes\n"
        "itself where a tensor is carried (a whole-tensor assemble, which\n"
        "`canonicalize` folds to its source) writes the carried tensor\n"
        "instead, or, when it also reads that tensor, copies its result\n"
        "into it at its end. Both branches must yield versions of the same\n"
        "tensor.\n"
        "\n"
        "Ops are visited in program order. A compute op joins the subgraphs\n"
        "of its tile operands (same block, same core type) when the union\n"
        "fits the platform's buffers (the peak of live bytes per memory\n"
        "space, loads counted twice with `double-buffer`), has at most\n"
        "`max-ops` ops, and leaves the graph of subgraphs acyclic; otherwise\n"
        "it starts a subgraph of its own. Independent tile chains therefore\n"
        "stay separate subgraphs. A tile op that cannot fit even alone is an\n"
        "error at the op, with the bytes it needs and the capacity. A cube\n"
        "subgraph counts the tiles it loads by liveness, from the load to\n"
        "their last use in the subgraph, so that a matmul's K chain (`matmul`,\n"
        "then `matmul` with the accumulator, along K) is one kernel with one\n"
        "A and one B tile live per step and the accumulator in L0C; a vector\n"
        "subgraph counts a loaded tile until its last use anywhere, which\n"
        "leaves the slack that placing mixed tile sizes in UB needs.\n"
        "PyPTO's `sg_set_scope` (in `pypto.pass_options` of the function or\n"
        "loop, an id of 0 or more) puts the tile ops of that scope into one\n"
        "subgraph per core type while they fit, independent chains too.\n"
        "\n"
        "GM offsets are kernel arguments (static ones passed as constants by\n"
        "the launch), so that subgraphs that differ only in where they read\n"
        "and write have identical kernel bodies for `subgraph-dedup`. Each\n"
        "access has its own offset arguments, also where two offsets happen to\n"
        "be equal (a matmul tile at m = n = k = 0), so that the signature is\n"
        "the same in every copy; an offset in a dim the window spans whole is\n"
        "0 in every copy and stays static.\n"
        "\n"
        "Example: `pto-opt examples/seed_graph.pto --tile-expand --cv-partition`\n"
        "cuts the worked example `C = rowsum((A*c + B) @ W)` into seven kernels\n"
        "and launches: four vector kernels `muls_add` (a muls and an add on one\n"
        "32x32 tile each, writing a quarter of the workspace T), one cube kernel\n"
        "`matmul` reading all of T, and two vector kernels `rowsum` reading\n"
        "half of its result each (test/Transforms/cv-partition-seed.pto runs\n"
        "it; `pto-run --check-levels` compares the Block level with the Tile\n"
        "level).",
};
