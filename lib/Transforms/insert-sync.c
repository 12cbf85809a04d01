/* insert-sync: adds the set_flag / wait_flag pairs (and pipe_barriers on
 * pipes that do not order themselves) that a planned PTO kernel needs, no
 * more: one pair per dependence that earlier flags do not already imply. */
#include "Transforms/Passes.h"

#include "Support/Alloc.h"
#include "Transforms/PtoKernel.h"
#include "pto/Dialect/PTO.h"

static PtoResult run(PtoPass *pass, PtoOp *kernel) {
  const PtoPtoPassState *st = pto_pass_state(pass);
  PtoPtoSyncKernel k;
  if (pto_pto_sync_build(kernel, "insert-sync", st, &k) != PTO_SUCCESS)
    return PTO_FAILURE;
  PtoSyncInsertion *ins;
  uint32_t num, bad = 0;
  PtoResult res = PTO_SUCCESS;
  if (!pto_sync_plan(k.insts, k.num, &k.model, &ins, &num, &bad)) {
    res = pto_op_emit_error(
        k.ops[bad], "insert-sync: the kernel's own flags are inconsistent "
                    "here, or all %u event ids of a pipe pair are in use "
                    "(pto-verify-hazards says which)",
        k.model.num_events);
  } else {
    PtoContext *ctx = pto_op_ctx(kernel);
    for (uint32_t x = 0; x < num; x++) {
      PtoOp *at = k.ops[ins[x].before];
      PtoOp *op = NULL;
      if (ins[x].kind == PTO_SYNC_BARRIER) {
        op = pto_pto_build_barrier(ctx, pto_op_loc(at), (PtoPipe)ins[x].pipe);
        pto_pass_stat_add(pass, "num-barriers", 1);
      } else {
        op = pto_pto_build_flag(ctx, pto_op_loc(at),
                                ins[x].kind == PTO_SYNC_SET,
                                (PtoPipe)ins[x].pipe, (PtoPipe)ins[x].dst,
                                ins[x].event);
        if (ins[x].kind == PTO_SYNC_SET)
          pto_pass_stat_add(pass, "num-flag-pairs", 1);
      }
      pto_block_insert_before(at, op);
    }
    pto_free(ins);
  }
  pto_pto_sync_release(&k);
  return res;
}

static const PtoPassOptionDef options[] = {
    PTO_PTO_PLATFORM_OPTION("its event ids per pipe pair"),
    PTO_PTO_UNORDERED_PIPES_OPTION,
};

static const PtoPassStatDef statistics[] = {
    {"num-flag-pairs", "set_flag / wait_flag pairs inserted"},
    {"num-barriers", "pipe_barriers inserted"},
};

const PtoPassDef pto_insert_sync_pass = {
    .argument = "insert-sync",
    .summary = "Order the pipes of a planned PTO kernel with the fewest "
               "set_flag / wait_flag pairs",
    PTO_PTO_KERNEL_PASS_FIELDS(run),
    .description =
        "Walks a `pto.kernel` whose tiles have offsets (run `memory-plan` "
        "first)\n"
        "in program order. Before each instruction that reads or writes "
        "bytes\n"
        "an earlier instruction of another pipe wrote (RAW), or writes "
        "bytes\n"
        "one read or wrote (WAR on a reused buffer, WAW), and that no "
        "earlier\n"
        "flag already orders, it inserts `set_flag src -> dst, e` and\n"
        "`wait_flag src -> dst, e`: the set fires once everything earlier "
        "on the\n"
        "source pipe is done, so one pair covers all of that pipe's "
        "earlier\n"
        "work, and flags order transitively (MTE2 -> V then V -> MTE3 "
        "orders\n"
        "MTE2 before MTE3). The event id is the lowest one of the pipe "
        "pair not\n"
        "pending at that point (the platform has 8 per pair). Instructions "
        "of\n"
        "one pipe run in order, so they need nothing, except on the pipes "
        "named\n"
        "in `unordered-pipes`, which get a `pipe_barrier` instead. Flags "
        "already\n"
        "in the kernel are kept and counted.",
};
