/* pto-kernel-cost: the cycle estimate of each planned, synchronised PTO
 * kernel from the platform description (pipes in parallel, in order
 * within a pipe, honouring flags), reported as a remark per kernel with
 * the busy cycles of each pipe and the pipe that bounds it. */
#include "Transforms/Passes.h"

#include <inttypes.h>
#include <string.h>

#include "Analysis/CostModel.h"
#include "Support/Alloc.h"
#include "Support/Str.h"
#include "Transforms/PtoKernel.h"
#include "pto/Dialect/PTO.h"

static uint64_t div_up(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : a; }

/* Bytes per cycle of a move; a path the platform does not list moves at
 * the GM read bandwidth, its one figure for an unnamed path. */
static double path_rate(const PtoPlatform *p, PtoMemSpace from, PtoMemSpace to) {
  for (unsigned i = 0; i < p->num_paths; i++)
    if (p->paths[i].from == from && p->paths[i].to == to)
      return p->paths[i].bytes_per_cycle;
  return p->gm_read_bytes_per_cycle;
}

static uint64_t move_cycles(double bytes, double rate) {
  return rate > 0 ? (uint64_t)(bytes / rate + 0.999999) : 0;
}

static PtoMemSpace mem_space(PtoBufSpace s) {
  switch (s) {
  case PTO_BUF_VEC: return PTO_MEM_VEC;
  case PTO_BUF_MAT: return PTO_MEM_MAT;
  case PTO_BUF_LEFT: return PTO_MEM_LEFT;
  case PTO_BUF_RIGHT: return PTO_MEM_RIGHT;
  case PTO_BUF_ACC: return PTO_MEM_ACC;
  default: return PTO_MEM_GM;
  }
}

static const char *elem_name(PtoType *t) {
  if (pto_type_is_float(t)) {
    switch (pto_type_float_kind(t)) {
    case PTO_F16: return "f16";
    case PTO_BF16: return "bf16";
    case PTO_F32: return "f32";
    default: return "f64";
    }
  }
  return pto_type_int_width(t) == 8 ? "i8" : "i32";
}

static uint64_t matmul_cycles(const PtoPlatform *p, PtoOp *op) {
  unsigned ia = pto_pto_op_id(op) == PTO_PTO_TMATMUL_ACC ? 1 : 0;
  PtoType *a = pto_value_type(pto_op_operand(op, ia));
  PtoType *b = pto_value_type(pto_op_operand(op, ia + 1));
  const char *in = elem_name(pto_pto_tile_elem(a));
  for (unsigned i = 0; i < p->num_fractals; i++) {
    const PtoPlatformFractal *f = &p->fractals[i];
    if (strcmp(f->in, in) != 0)
      continue;
    uint64_t count = div_up((uint64_t)pto_pto_tile_rows(a), f->m) *
                     div_up((uint64_t)pto_pto_tile_cols(a), f->k) *
                     div_up((uint64_t)pto_pto_tile_cols(b), f->n);
    return f->per_cycle > 0 ? (uint64_t)((double)count / f->per_cycle + 0.999999)
                            : count;
  }
  return 0;
}

/* The name of a vector instruction in the platform's latency table: the
 * mnemonic without its leading `t` ("tmuls" -> "muls"). */
static uint64_t vector_cycles(const PtoPlatform *p, PtoOp *op) {
  uint64_t bytes = 0;
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    if (pto_type_is_pto_tile(t) && (uint64_t)pto_pto_tile_bytes(t) > bytes)
      bytes = (uint64_t)pto_pto_tile_bytes(t);
  }
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoType *t = pto_value_type(pto_op_result(op, i));
    if (pto_type_is_pto_tile(t) && (uint64_t)pto_pto_tile_bytes(t) > bytes)
      bytes = (uint64_t)pto_pto_tile_bytes(t);
  }
  const char *mn = pto_pto_op_mnemonic(pto_pto_op_id(op));
  uint64_t repeats = div_up(bytes, p->vector_repeat_bytes);
  return pto_platform_vector_latency(p, mn + (mn[0] == 't')) +
         (repeats ? repeats - 1 : 0);
}

static uint64_t instr_cycles(const PtoPlatform *p, PtoOp *op) {
  PtoPtoKind kind = pto_pto_op_kind(pto_pto_op_id(op));
  PtoType *res = pto_op_num_results(op)
                     ? pto_value_type(pto_op_result(op, 0))
                     : NULL;
  /* a window whose rows sit at several strides moves as one MTE burst
   * per 2-D piece, each waiting its own GM latency */
  PtoPtoWindowPieces w;
  uint64_t bursts = pto_pto_op_window_pieces(op, &w) ? (uint64_t)w.pieces : 1;
  switch (kind) {
  case PTO_PTO_KIND_LOAD:
    return move_cycles((double)pto_pto_tile_bytes(res),
                       p->gm_read_bytes_per_cycle) +
           bursts * p->gm_read_latency_cycles;
  case PTO_PTO_KIND_STORE: {
    PtoType *t = pto_value_type(pto_op_operand(op, 0));
    return move_cycles((double)pto_pto_tile_bytes(t),
                       path_rate(p, mem_space(pto_pto_tile_space(t)),
                                 PTO_MEM_GM)) +
           bursts * p->gm_write_latency_cycles;
  }
  case PTO_PTO_KIND_MOV: {
    PtoType *t = pto_value_type(pto_op_operand(op, 0));
    return move_cycles((double)pto_pto_tile_bytes(t),
                       path_rate(p, mem_space(pto_pto_tile_space(t)),
                                 mem_space(pto_pto_tile_space(res))));
  }
  case PTO_PTO_KIND_GATHERGM: {
    /* each element its own GM read: MTE2 moves it as a whole 32-byte
     * block (UB's granule), so a gather costs a block per element, not
     * its bytes */
    uint64_t n = (uint64_t)pto_pto_tile_rows(res) * (uint64_t)pto_pto_tile_cols(res);
    return move_cycles((double)n * (double)pto_pto_space_alignment(PTO_BUF_VEC),
                       p->gm_read_bytes_per_cycle) +
           p->gm_read_latency_cycles;
  }
  case PTO_PTO_KIND_SCATTERGM: {
    /* each element its own GM write of a 32-byte block, as a gather's
     * reads; add and multiply read the block first (read-modify-write) */
    PtoType *t = pto_value_type(pto_op_operand(op, 0));
    uint64_t n = (uint64_t)pto_pto_tile_rows(t) * (uint64_t)pto_pto_tile_cols(t);
    double bytes = (double)n * (double)pto_pto_space_alignment(PTO_BUF_VEC);
    const char *m = pto_op_attr_str(op, "mode");
    uint64_t c = move_cycles(bytes, path_rate(p, PTO_MEM_VEC, PTO_MEM_GM)) +
                 p->gm_write_latency_cycles;
    if (m && strcmp(m, "overwrite") != 0)
      c += move_cycles(bytes, p->gm_read_bytes_per_cycle) + p->gm_read_latency_cycles;
    return c;
  }
  case PTO_PTO_KIND_PREFETCH:
    return p->gm_read_latency_cycles;
  case PTO_PTO_KIND_TRANS:
    if (pto_pto_op_id(op) != PTO_PTO_TMOV_TRANS) return vector_cycles(p, op);
    /* the transposing L1 -> L0 load moves at the path's bandwidth */
    return move_cycles((double)pto_pto_tile_bytes(res),
                       path_rate(p, PTO_MEM_MAT,
                                 mem_space(pto_pto_tile_space(res))));
  case PTO_PTO_KIND_MATMUL:
    return matmul_cycles(p, op);
  case PTO_PTO_KIND_TOPKMERGE: /* one merge pass of two sorted runs */
    return vector_cycles(p, op);
  case PTO_PTO_KIND_TOPK: {
    /* as the sorts would do it: tsort32 over the row, then one tmrgsort
     * pass per doubling of the sorted runs up to the row length */
    uint64_t runs = div_up((uint64_t)pto_pto_tile_cols(
                               pto_value_type(pto_op_operand(op, 0))),
                           32),
             passes = 1;
    for (uint64_t r = 1; r < runs; r *= 2) passes++;
    return passes * vector_cycles(p, op);
  }
  case PTO_PTO_KIND_SETFLAG:
  case PTO_PTO_KIND_WAITFLAG:
  case PTO_PTO_KIND_BARRIER:
  case PTO_PTO_KIND_KERNEL:
  case PTO_PTO_KIND_RETURN:
    return 0;
  default:
    return vector_cycles(p, op);
  }
}

PtoResult pto_pto_kernel_cost(PtoOp *kernel, const char *pass,
                              const PtoPtoPassState *st, PtoPipeTimes *t) {
  PtoPtoSyncKernel k;
  if (pto_pto_sync_build(kernel, pass, st, &k) != PTO_SUCCESS)
    return PTO_FAILURE;
  uint64_t *cycles = pto_calloc(k.num ? k.num : 1, sizeof *cycles);
  for (uint32_t i = 0; i < k.num; i++)
    cycles[i] = instr_cycles(&st->platform, k.ops[i]);
  uint32_t bad = 0;
  PtoResult res = PTO_SUCCESS;
  if (!pto_pipe_timeline(k.insts, cycles, k.num, &k.model, t, &bad))
    res = pto_op_emit_error(k.ops[bad], "%s: no set_flag is pending for this "
                            "wait_flag: the kernel would hang", pass);
  pto_free(cycles);
  pto_pto_sync_release(&k);
  return res;
}

static PtoResult run(PtoPass *pass, PtoOp *kernel) {
  const PtoPtoPassState *st = pto_pass_state(pass);
  PtoPipeTimes t;
  PtoResult res = pto_pto_kernel_cost(kernel, "pto-kernel-cost", st, &t);
  if (pto_succeeded(res)) {
    PtoStr s;
    pto_str_init(&s);
    for (unsigned p = 0; p < PTO_PIPE_NUM; p++)
      if (t.busy[p])
        pto_str_printf(&s, "%s%s %" PRIu64, s.len ? ", " : "",
                        pto_pipe_name((PtoPipe)p), t.busy[p]);
    const char *name = pto_op_attr_str(kernel, "sym_name");
    pto_emit_remark(pto_pass_ctx(pass), pto_op_loc(kernel),
                    "@%s: %" PRIu64 " cycles on '%s', bound by %s; busy "
                    "cycles per pipe: %s",
                    name ? name : "?", t.total, st->platform.name,
                    pto_pipe_name((PtoPipe)t.bound), s.len ? s.data : "none");
    pto_str_release(&s);
    pto_pass_stat_add(pass, "total-cycles", (int64_t)t.total);
  }
  return res;
}

static const PtoPassOptionDef options[] = {
    PTO_PTO_PLATFORM_OPTION("its bandwidths, latencies and cube fractals"),
};

static const PtoPassStatDef statistics[] = {
    {"total-cycles", "Estimated cycles, summed over the kernels"},
};

const PtoPassDef pto_kernel_cost_pass = {
    .argument = "pto-kernel-cost",
    .summary = "Estimate the cycles of each PTO kernel per pipe from the "
               "platform",
    PTO_PTO_KERNEL_PASS_FIELDS(run),
    .description =
        "Reports, as a remark at each planned `pto.kernel`, its estimated "
        "cycles,\n"
        "the pipe with the most work and the busy cycles of every pipe; "
        "changes\n"
        "nothing. Each pipe runs its instructions in order, pipes run in\n"
        "parallel, a `wait_flag` holds its pipe until the matching "
        "`set_flag`'s\n"
        "pipe has finished what came before the set. Costs, from the "
        "platform:\n"
        "`tload` bytes / GM read bandwidth + GM read latency; `tstore` "
        "bytes /\n"
        "bandwidth of its path to GM + GM write latency (a window whose "
        "rows sit\n"
        "at several strides: one latency per 2-D piece, each piece its own "
        "burst); `tmov` bytes / "
        "bandwidth\n"
        "of its path (a path the platform does not list moves at the GM "
        "read\n"
        "bandwidth); vector instructions latency + repeats - 1, one repeat "
        "per\n"
        "256 B of the largest tile they touch, the latency of the "
        "mnemonic\n"
        "without its `t` (`tmuls`: `muls`) or the platform's default; "
        "`tmatmul*`\n"
        "the count of cube fractals of its element type over the fractal "
        "rate;\n"
        "flags nothing.",
};
