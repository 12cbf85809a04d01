/* Helpers shared by the passes over PTO kernels: the body as an indexed
 * instruction list, the platform and pipe options, and the translation of
 * a planned kernel into the pipe-ordering model of PipeSync.h. */
#include "Transforms/PtoKernel.h"

#include <string.h>

#include "Support/Alloc.h"
#include "Support/Vec.h"
#include "pto/DType.h"
#include "pto/Dialect/PTO.h"

PtoResult pto_pto_body_collect(PtoOp *kernel, const char *pass,
                               PtoPtoBody *out) {
  memset(out, 0, sizeof *out);
  pto_ptrmap_init(&out->index);
  PtoRegion *r = pto_op_num_regions(kernel) ? pto_op_region(kernel, 0) : NULL;
  PtoBlock *b = r ? pto_region_first_block(r) : NULL;
  PTO_VEC(PtoOp *) ops = {0};
  for (PtoOp *op = b ? pto_block_first_op(b) : NULL; op; op = pto_op_next(op)) {
    if (pto_op_num_regions(op)) {
      pto_vec_free(&ops);
      pto_ptrmap_release(&out->index);
      return pto_op_emit_error(op, "%s: '%s' has regions; only straight-line "
                                   "kernels are supported",
                               pass, pto_op_name_str(op));
    }
    pto_vec_push(&ops, op);
    pto_ptrmap_put(&out->index, (uint64_t)(uintptr_t)op,
                   (void *)(uintptr_t)ops.len);
  }
  out->ops = ops.data;
  out->num_ops = ops.len;
  return PTO_SUCCESS;
}

void pto_pto_body_release(PtoPtoBody *b) {
  pto_free(b->ops);
  pto_ptrmap_release(&b->index);
  memset(b, 0, sizeof *b);
}

uint32_t pto_pto_body_last_use(const PtoPtoBody *b, const PtoValue *v) {
  uint32_t last = 0;
  for (PtoUse *u = pto_value_first_use(v); u; u = pto_use_next(u)) {
    uintptr_t at = (uintptr_t)pto_ptrmap_get(&b->index,
                                             (uint64_t)(uintptr_t)pto_use_owner(u));
    if (at && at - 1 > last)
      last = (uint32_t)(at - 1);
  }
  return last;
}

static bool has_option(PtoPass *pass, const char *name) {
  const PtoPassDef *def = pto_pass_def(pass);
  for (unsigned i = 0; i < def->num_options; i++)
    if (strcmp(def->options[i].name, name) == 0)
      return true;
  return false;
}

/* Reads the options `platform` and `unordered-pipes` into *st; errors go
 * to `loc` (where the pipeline names the pass). */
static PtoResult read_options(PtoPass *pass, PtoLoc *loc, PtoPtoPassState *st) {
  PtoContext *ctx = pto_pass_ctx(pass);
  const char *arg = pto_pass_def(pass)->argument;
  PtoPlatformError err;
  const char *platform = pto_pass_option_str(pass, "platform");
  /* `platform=` names nothing: not the default */
  if (platform && !*platform)
    return pto_emit_error(ctx, loc,
                          "%s: option 'platform' is empty; name a built-in "
                          "platform (a2a3, a3) or a description file",
                          arg);
  if (!pto_platform_load(&st->platform, platform, &err)) {
    if (err.line)
      return pto_emit_error(ctx, loc, "%s: option 'platform': %s:%u: %s", arg,
                            err.file, err.line, err.message);
    return pto_emit_error(ctx, loc, "%s: option 'platform': %s", arg,
                          err.message);
  }
  if (!has_option(pass, "unordered-pipes"))
    return PTO_SUCCESS;
  const char *list = pto_pass_option_str(pass, "unordered-pipes");
  while (list && *list) {
    const char *end = strchr(list, ',');
    size_t n = end ? (size_t)(end - list) : strlen(list);
    char name[16] = {0};
    PtoPipe p = PTO_PIPE_NONE;
    if (n < sizeof name) {
      memcpy(name, list, n);
      p = pto_pipe_lookup(name);
    }
    if (p == PTO_PIPE_NONE || p >= PTO_PIPE_NUM)
      return pto_emit_error(ctx, loc,
                            "%s: option 'unordered-pipes': '%.*s' is not a "
                            "pipe (MTE2, MTE1, M, V, FIX, MTE3, S)",
                            arg, (int)n, list);
    st->unordered_pipes |= 1u << p;
    list = end ? end + 1 : NULL;
  }
  return PTO_SUCCESS;
}

PtoResult pto_pto_pass_check_options(PtoPass *pass, PtoLoc *loc) {
  PtoPtoPassState st;
  memset(&st, 0, sizeof st);
  return read_options(pass, loc, &st);
}

void *pto_pto_pass_state_create(PtoPass *pass) {
  PtoPtoPassState *st = pto_calloc(1, sizeof *st);
  /* check_options has read them once already, at the pipeline's location */
  if (read_options(pass, pto_loc_unknown(pto_pass_ctx(pass)), st)) {
    pto_free(st);
    return NULL;
  }
  return st;
}

/* Keys: memory spaces first, then one per GM tensor. */
enum { GM_KEY = PTO_BUF_NUM_SPACES };

const char *pto_pto_sync_key_name(uint32_t key) {
  return key < GM_KEY ? pto_buf_space_name((PtoBufSpace)key) : "GM";
}

/* The bytes of a GM tensor a tload / tstore touches: from the first to
 * the last element of its window (`sizes`, or the tile's shape in a 2-D
 * tensor) when the window is static; the whole tensor otherwise. */
static void gm_range(const PtoOp *op, PtoValue *gm, PtoSyncAccess *a) {
  a->lo = 0;
  a->hi = UINT64_MAX;
  PtoType *t = pto_value_type(gm);
  int64_t offs[PTO_MAX_RANK], size[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned rank = pto_pto_get_offsets(op, offs, dyn);
  if (!pto_type_is_tensor(t) || !pto_type_tensor_is_static(t) || rank < 1 ||
      rank != pto_type_tensor_rank(t) || pto_pto_window_sizes(op, size) != rank)
    return;
  uint64_t first = 0, last = 0;
  for (unsigned d = 0; d < rank; d++) {
    if (dyn[d] || offs[d] < 0 || size[d] < 1)
      return;
    uint64_t dim = (uint64_t)pto_type_tensor_dim(t, d);
    first = first * dim + (uint64_t)offs[d];
    last = last * dim + (uint64_t)(offs[d] + size[d] - 1);
  }
  uint64_t es = (pto_type_bitwidth(pto_type_tensor_elem(t)) + 7) / 8;
  a->lo = first * es;
  a->hi = (last + 1) * es;
}

/* Appends the bytes tile `v` (the op's `what` #i) occupies to acc[*a].
 * A tile without an offset is an error. Non-tiles are skipped. */
static PtoResult add_tile(PtoOp *op, const char *pass, const char *what,
                          unsigned i, PtoValue *v, bool write,
                          PtoSyncAccess *acc, uint32_t *a) {
  PtoType *t = pto_value_type(v);
  if (!pto_type_is_pto_tile(t))
    return PTO_SUCCESS;
  int64_t off = pto_pto_tile_offset(t);
  if (off < 0)
    return pto_op_emit_error(op, "%s: %s #%u has no offset; run memory-plan "
                                 "first", pass, what, i);
  acc[*a] = (PtoSyncAccess){(uint32_t)pto_pto_tile_space(t), write,
                            (uint64_t)off,
                            (uint64_t)(off + pto_pto_tile_bytes(t))};
  (*a)++;
  return PTO_SUCCESS;
}

PtoResult pto_pto_sync_build(PtoOp *kernel, const char *pass,
                             const PtoPtoPassState *st, PtoPtoSyncKernel *out) {
  memset(out, 0, sizeof *out);
  PtoPtoBody b;
  if (pto_pto_body_collect(kernel, pass, &b) != PTO_SUCCESS)
    return PTO_FAILURE;
  const PtoPtoBody *body = &b;
  out->model.num_pipes = PTO_PIPE_NUM;
  out->model.num_events = st->platform.sync_events ? st->platform.sync_events
                                                   : PTO_PTO_NUM_EVENTS;
  if (out->model.num_events > PTO_SYNC_MAX_EVENTS)
    out->model.num_events = PTO_SYNC_MAX_EVENTS;
  out->model.unordered_pipes = st->unordered_pipes;
  /* Two passes: count accesses, then fill (the instructions point into
   * one array that must not move). */
  uint32_t num_acc = 0, num = 0;
  for (uint32_t i = 0; i < body->num_ops; i++) {
    PtoOp *op = body->ops[i];
    if (pto_pto_op_pipe(op) == PTO_PIPE_NONE)
      continue;
    num++;
    num_acc += pto_op_num_operands(op) + pto_op_num_results(op);
  }
  out->insts = pto_calloc(num ? num : 1, sizeof *out->insts);
  out->ops = pto_calloc(num ? num : 1, sizeof *out->ops);
  out->acc = pto_calloc(num_acc ? num_acc : 1, sizeof *out->acc);
  PtoPtrMap gm_keys;
  pto_ptrmap_init(&gm_keys);
  uint32_t next_gm = GM_KEY, a = 0;
  PtoResult res = PTO_SUCCESS;
  for (uint32_t i = 0; i < body->num_ops && res == PTO_SUCCESS; i++) {
    PtoOp *op = body->ops[i];
    PtoPipe pipe = pto_pto_op_pipe(op);
    if (pipe == PTO_PIPE_NONE)
      continue;
    PtoSyncInst *in = &out->insts[out->num];
    out->ops[out->num++] = op;
    in->pipe = (uint8_t)pipe;
    PtoPtoKind kind = pto_pto_op_kind(pto_pto_op_id(op));
    if (kind == PTO_PTO_KIND_SETFLAG || kind == PTO_PTO_KIND_WAITFLAG) {
      PtoPipe src, dst;
      int ev;
      in->kind = kind == PTO_PTO_KIND_SETFLAG ? PTO_SYNC_SET : PTO_SYNC_WAIT;
      if (pto_pto_flag(op, &src, &dst, &ev)) {
        in->pipe = (uint8_t)src;
        in->dst = (uint8_t)dst;
        in->event = (uint8_t)ev;
      }
      continue;
    }
    if (kind == PTO_PTO_KIND_BARRIER) {
      in->kind = PTO_SYNC_BARRIER;
      continue;
    }
    in->kind = PTO_SYNC_INSTR;
    in->acc = &out->acc[a];
    for (unsigned r = 0; r < pto_op_num_results(op) && res == PTO_SUCCESS;
         r++)
      res = add_tile(op, pass, "result", r, pto_op_result(op, r), true,
                     out->acc, &a);
    for (unsigned o = 0; o < pto_op_num_operands(op) && res == PTO_SUCCESS;
         o++)
      if (pto_pto_operand_access(op, o) == PTO_PTO_ACCESS_TILE_READ)
        res = add_tile(op, pass, "operand", o, pto_op_operand(op, o), false,
                       out->acc, &a);
    for (unsigned o = 0; o < pto_op_num_operands(op) && res == PTO_SUCCESS;
         o++) {
      PtoValue *v = pto_op_operand(op, o);
      PtoPtoAccess how = pto_pto_operand_access(op, o);
      if (how != PTO_PTO_ACCESS_GM_READ && how != PTO_PTO_ACCESS_GM_WRITE)
        continue;
      uintptr_t key = (uintptr_t)pto_ptrmap_get(&gm_keys, (uint64_t)(uintptr_t)v);
      if (!key) {
        key = next_gm++;
        pto_ptrmap_put(&gm_keys, (uint64_t)(uintptr_t)v, (void *)key);
      }
      out->acc[a].key = (uint32_t)key;
      out->acc[a].write = how == PTO_PTO_ACCESS_GM_WRITE;
      gm_range(op, v, &out->acc[a]);
      a++;
    }
    in->num_acc = (uint32_t)(&out->acc[a] - in->acc);
  }
  pto_ptrmap_release(&gm_keys);
  pto_pto_body_release(&b);
  if (res != PTO_SUCCESS)
    pto_pto_sync_release(out);
  return res;
}

void pto_pto_sync_release(PtoPtoSyncKernel *k) {
  pto_free(k->insts);
  pto_free(k->ops);
  pto_free(k->acc);
  memset(k, 0, sizeof *k);
}

static PtoOp *build_sync(PtoContext *ctx, PtoLoc *loc, const char *name,
                         const char *pipe_attr, PtoPipe pipe) {
  PtoOpState st;
  pto_op_state_init(&st, ctx, name, loc);
  pto_op_state_add_attr(&st, pipe_attr, pto_attr_cstr(ctx, pto_pipe_name(pipe)));
  return pto_op_create(&st);
}

PtoOp *pto_pto_build_flag(PtoContext *ctx, PtoLoc *loc, bool set, PtoPipe src,
                          PtoPipe dst, unsigned event) {
  PtoOp *op = build_sync(ctx, loc, set ? "pto.set_flag" : "pto.wait_flag",
                         "src_pipe", src);
  pto_op_set_attr(op, "dst_pipe", pto_attr_cstr(ctx, pto_pipe_name(dst)));
  pto_op_set_attr(op, "event", pto_attr_i64(ctx, event));
  return op;
}

PtoOp *pto_pto_build_barrier(PtoContext *ctx, PtoLoc *loc, PtoPipe pipe) {
  return build_sync(ctx, loc, "pto.pipe_barrier", "pipe", pipe);
}
