/* pto-verify-hazards: the hazard checker. Reports, in any planned PTO
 * kernel (written by hand or produced), every pair of instructions on
 * different pipes that touch the same bytes with no flag chain ordering
 * them, every flag that cannot be matched, and every tile placed outside
 * its memory space. Independent of insert-sync: it reads only the IR. */
#include "Transforms/Passes.h"

#include <inttypes.h>

#include "Support/Alloc.h"
#include "Transforms/PtoKernel.h"
#include "pto/Dialect/PTO.h"

static const char *const fault_text[] = {
    [PTO_FLAG_WAIT_UNMATCHED] = "no set_flag of this pipe pair and event is "
                                "pending here: the pipe would wait forever",
    [PTO_FLAG_SET_UNWAITED] = "this event is never waited for before the "
                              "kernel ends",
    [PTO_FLAG_BAD_PIPES] = "a flag needs two different pipes of the model",
    [PTO_FLAG_BAD_EVENT] = "event id out of range for the platform",
};

/* Tiles must lie inside their space; alignment is the type's own rule. */
static unsigned check_bounds(const PtoPtoSyncKernel *k,
                             const PtoPlatform *plat) {
  unsigned errors = 0;
  for (uint32_t i = 0; i < k->num; i++) {
    PtoOp *op = k->ops[i];
    for (unsigned r = 0; r < pto_op_num_results(op); r++) {
      PtoType *t = pto_value_type(pto_op_result(op, r));
      if (!pto_type_is_pto_tile(t) || pto_pto_tile_offset(t) < 0)
        continue;
      PtoBufSpace s = pto_pto_tile_space(t);
      uint64_t end = (uint64_t)pto_pto_tile_offset(t) +
                     (uint64_t)pto_pto_tile_bytes(t);
      uint64_t cap = plat->buffers[s].size_bytes;
      if (end > cap) {
        pto_op_emit_error(op, "tile bytes [%" PRId64 ", %" PRIu64 ") lie "
                              "outside the %" PRIu64 " bytes of %s on "
                              "platform '%s'",
                          pto_pto_tile_offset(t), end, cap,
                          pto_buf_space_name(s), plat->name);
        errors++;
      }
    }
  }
  return errors;
}

static PtoResult run(PtoPass *pass, PtoOp *kernel) {
  const PtoPtoPassState *st = pto_pass_state(pass);
  PtoPtoSyncKernel k;
  if (pto_pto_sync_build(kernel, "pto-verify-hazards", st, &k) != PTO_SUCCESS)
    return PTO_FAILURE;
  unsigned errors = check_bounds(&k, &st->platform);
  PtoSyncReport rep;
  pto_sync_check(k.insts, k.num, &k.model, &rep);
  for (uint32_t h = 0; h < rep.num_hazards; h++) {
    const PtoHazard *hz = &rep.hazards[h];
    PtoOp *first = k.ops[hz->first], *second = k.ops[hz->second];
    PtoPipe p1 = pto_pto_op_pipe(first), p2 = pto_pto_op_pipe(second);
    PtoDiag *d = pto_op_diag(
        second, PTO_DIAG_ERROR,
        "unsynchronised %s on %s: pipe %s may run this before '%s' on pipe "
        "%s is done with the same bytes; order them with a flag or barrier "
        "(or run insert-sync)",
        pto_hazard_kind_name(hz->kind), pto_pto_sync_key_name(hz->key),
        pto_pipe_name(p2), pto_op_name_str(first), pto_pipe_name(p1));
    pto_diag_note(d, pto_op_loc(first), "the earlier instruction (pipe %s)",
                  pto_pipe_name(p1));
    pto_diag_emit(d);
  }
  for (uint32_t e = 0; e < rep.num_flag_errors; e++)
    pto_op_emit_error(k.ops[rep.flag_errors[e].inst], "%s",
                      fault_text[rep.flag_errors[e].fault]);
  errors += rep.num_hazards + rep.num_flag_errors;
  pto_pass_stat_add(pass, "num-hazards", rep.num_hazards);
  pto_sync_report_free(&rep);
  pto_pto_sync_release(&k);
  return errors ? PTO_FAILURE : PTO_SUCCESS;
}

static const PtoPassOptionDef options[] = {
    PTO_PTO_PLATFORM_OPTION("its buffer capacities and event ids per pipe pair"),
    PTO_PTO_UNORDERED_PIPES_OPTION,
};

static const PtoPassStatDef statistics[] = {
    {"num-hazards", "Unsynchronised pairs of instructions found"},
};

const PtoPassDef pto_verify_hazards_pass = {
    .argument = "pto-verify-hazards",
    .summary = "Report every unsynchronised hazard between the pipes of a "
               "planned PTO kernel",
    PTO_PTO_KERNEL_PASS_FIELDS(run),
    .description =
        "Checks a `pto.kernel` whose tiles have offsets (after "
        "`memory-plan`,\n"
        "or written by hand) and changes nothing. Every pair of "
        "instructions\n"
        "that touch overlapping bytes of a buffer or GM tensor, at least "
        "one\n"
        "writing, on different pipes (or on one pipe named in\n"
        "`unordered-pipes`), must be ordered by program order on one pipe, "
        "a\n"
        "`pipe_barrier`, or a chain of `set_flag` / `wait_flag`; each "
        "pair that\n"
        "is not is an error (RAW, WAR or WAW) at the later instruction "
        "with a\n"
        "note at the earlier one. A `wait_flag` with no pending "
        "`set_flag`, a\n"
        "`set_flag` never waited for, and a tile outside its memory space "
        "are\n"
        "errors too. GM windows with dynamic offsets count as the whole "
        "tensor.",
};
