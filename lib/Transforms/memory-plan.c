/* memory-plan: gives every tile of a PTO kernel its byte offset in its
 * memory space, by liveness, one interval allocator per space with the
 * platform's capacity and alignment; a tile that does not fit is an error
 * at the instruction that defines it, with the tiles live there. */
#include "Transforms/Passes.h"

#include <inttypes.h>

#include "Support/Alloc.h"
#include "Support/Vec.h"
#include "Transforms/IntervalAlloc.h"
#include "Transforms/PtoKernel.h"
#include "pto/Dialect/PTO.h"

/* One tile value and the class of values sharing its buffer (an in-place
 * update ties its result to the operand it updates). */
typedef struct Tile {
  PtoValue *value;
  uint32_t def;   /* index of the defining op in the body */
  uint32_t cls;   /* representative tile */
  uint32_t range; /* index in its space's range list, for representatives */
} Tile;

typedef PTO_VEC(Tile) TileVec;
typedef PTO_VEC(PtoLiveRange) RangeVec;
typedef PTO_VEC(uint32_t) IndexVec;

static uint32_t find(TileVec *t, uint32_t i) {
  while (t->data[i].cls != i)
    i = t->data[i].cls = t->data[t->data[i].cls].cls;
  return i;
}

static int64_t tile_index(const TileVec *t, const PtoValue *v) {
  for (uint32_t i = t->len; i-- > 0;)
    if (t->data[i].value == v)
      return i;
  return -1;
}

static PtoResult report_overflow(const PtoPlatform *plat, PtoBufSpace space,
                                 const TileVec *tiles,
                                 const IndexVec *members,
                                 const PtoAllocFailure *f, PtoOp *const *ops) {
  const Tile *t = &tiles->data[members->data[f->range]];
  uint64_t cap = plat->buffers[space].size_bytes;
  PtoDiag *d = pto_op_diag(
      ops[t->def], PTO_DIAG_ERROR,
      "memory-plan: %s tile of %" PRIu64 " bytes does not fit: %u live "
      "tiles hold %" PRIu64 " of the %" PRIu64 " bytes of %s on platform "
      "'%s'%s; use smaller tiles (vec_tile / cube_tile)",
      pto_buf_space_name(space), f->need_bytes, f->num_live, f->live_bytes,
      cap, pto_buf_space_name(space), plat->name,
      f->live_bytes + f->need_bytes <= cap ? " (the free bytes are split)"
                                           : "");
  for (uint32_t k = 0; k < f->num_live; k++) {
    const Tile *l = &tiles->data[members->data[f->live[k]]];
    pto_diag_note(d, pto_op_loc(ops[l->def]), "live here: %" PRId64
                  " bytes", pto_pto_tile_bytes(pto_value_type(l->value)));
  }
  return pto_diag_emit(d);
}

static PtoResult plan_kernel(PtoPass *pass, PtoOp *kernel,
                             const PtoPlatform *plat) {
  PtoPtoBody body;
  if (pto_pto_body_collect(kernel, "memory-plan", &body) != PTO_SUCCESS)
    return PTO_FAILURE;
  PtoResult res = PTO_SUCCESS;
  TileVec tiles = {0};
  /* Tiles in order of definition; a tied result joins its operand. */
  for (uint32_t i = 0; i < body.num_ops && res == PTO_SUCCESS; i++) {
    PtoOp *op = body.ops[i];
    int tied = pto_pto_op_tied_operand(op);
    for (unsigned r = 0; r < pto_op_num_results(op); r++) {
      PtoValue *v = pto_op_result(op, r);
      if (!pto_type_is_pto_tile(pto_value_type(v)))
        continue;
      Tile t = {v, i, tiles.len, 0};
      if (tied >= 0 && r == 0) {
        PtoValue *acc = pto_op_operand(op, (unsigned)tied);
        int64_t k = tile_index(&tiles, acc);
        if (k >= 0) {
          uint32_t last = pto_pto_body_last_use(&body, acc);
          if (last > i) {
            res = pto_op_emit_error(
                op, "memory-plan: '%s' updates operand #%d in place, but "
                    "it is used again afterwards",
                pto_op_name_str(op), tied);
            break;
          }
          t.cls = find(&tiles, (uint32_t)k);
        }
      }
      pto_vec_push(&tiles, t);
    }
  }
  /* One allocation per space over the classes' united live ranges. */
  for (int s = 0; s < PTO_BUF_NUM_SPACES && res == PTO_SUCCESS; s++) {
    RangeVec ranges = {0};
    IndexVec members = {0}; /* range -> representative tile */
    for (uint32_t i = 0; i < tiles.len; i++) {
      Tile *t = &tiles.data[i];
      PtoType *ty = pto_value_type(t->value);
      if (pto_pto_tile_space(ty) != (PtoBufSpace)s)
        continue;
      uint32_t rep = find(&tiles, i);
      uint32_t end = pto_pto_body_last_use(&body, t->value);
      if (end < t->def)
        end = t->def;
      uint64_t size = (uint64_t)pto_pto_tile_bytes(ty);
      if (rep == i) {
        t->range = ranges.len;
        PtoLiveRange lr = {t->def, end, size, 0};
        pto_vec_push(&ranges, lr);
        pto_vec_push(&members, i);
        continue;
      }
      PtoLiveRange *lr = &ranges.data[tiles.data[rep].range];
      if (end > lr->end)
        lr->end = end;
      if (size > lr->size)
        lr->size = size;
    }
    uint64_t align = plat->buffers[s].align_bytes;
    if (pto_pto_space_alignment((PtoBufSpace)s) > align)
      align = pto_pto_space_alignment((PtoBufSpace)s);
    uint64_t peak = 0;
    PtoAllocFailure fail;
    if (!pto_interval_alloc(ranges.data, ranges.len,
                            plat->buffers[s].size_bytes, align, &peak,
                            &fail)) {
      res = report_overflow(plat, (PtoBufSpace)s, &tiles, &members, &fail,
                            body.ops);
      pto_free(fail.live);
    } else {
      for (uint32_t i = 0; i < tiles.len; i++) {
        Tile *t = &tiles.data[i];
        PtoType *ty = pto_value_type(t->value);
        if (pto_pto_tile_space(ty) != (PtoBufSpace)s)
          continue;
        uint64_t off = ranges.data[tiles.data[find(&tiles, i)].range].offset;
        pto_value_set_type(t->value,
                           pto_pto_tile_with_offset(ty, (int64_t)off));
        pto_pass_stat_add(pass, "num-tiles", 1);
      }
      if ((int64_t)peak > pto_pass_stat_get(pass, "peak-bytes"))
        pto_pass_stat_add(pass, "peak-bytes",
                          (int64_t)peak - pto_pass_stat_get(pass, "peak-bytes"));
    }
    pto_vec_free(&ranges);
    pto_vec_free(&members);
  }
  pto_vec_free(&tiles);
  pto_pto_body_release(&body);
  return res;
}

static PtoResult run(PtoPass *pass, PtoOp *op) {
  PtoPtoPassState *st = pto_pass_state(pass);
  return plan_kernel(pass, op, &st->platform);
}

static const PtoPassOptionDef options[] = {
    PTO_PTO_PLATFORM_OPTION("the capacity and alignment of each memory space"),
};

static const PtoPassStatDef statistics[] = {
    {"num-tiles", "Tiles given an offset"},
    {"peak-bytes", "The most bytes of one memory space in use at once"},
};

const PtoPassDef pto_memory_plan_pass = {
    .argument = "memory-plan",
    .summary = "Give every tile of a PTO kernel its offset in its memory "
               "space, by liveness",
    PTO_PTO_KERNEL_PASS_FIELDS(run),
    .description =
        "Assigns each tile (`!pto.tile<..., space>`) of a `pto.kernel` a "
        "byte\n"
        "offset in its memory space (`!pto.tile<..., space, offset = N>`): "
        "one\n"
        "linear-scan allocator per space over the tiles' live ranges (from "
        "the\n"
        "instruction that defines a tile to its last use), each tile placed "
        "in\n"
        "the smallest free gap, at the space's alignment (32 B in vec and "
        "mat,\n"
        "512 B in left and right, 1024 B in acc), within the platform's "
        "capacity.\n"
        "A tile defined where another dies may take its bytes; an "
        "instruction\n"
        "never writes over an operand it reads, except the accumulator "
        "that\n"
        "`tmatmul_acc` updates in place, which keeps its buffer. A tile "
        "that\n"
        "does not fit is an error at the instruction that defines it, "
        "with a\n"
        "note at each tile live there. Offsets already present are "
        "replaced.",
};
