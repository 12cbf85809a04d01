/* Handlers of the block dialect. At the Block level a GM tensor is memory:
 * a launch hands its kernel the tensors the host function holds, and
 * block.store writes into their buffers in place, so later launches and
 * the host see the data (the runtime orders launches by the GM regions
 * they record; here they run one after another in program order). A
 * buffer is a tensor of its static shape, as a tile is. */
#include "Interp/InterpPypto.h"

#include "pto/Dialect/Block.h"
#include "pto/Dialect/Tile.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

#include <string.h>

/* The window of GM tensor `gm` a load or store addresses with `buf`'s
 * shape, checked against gm's run-time dims. */
static PtoResult gm_window(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *gm,
                           PtoType *buf, PtoNdArray *out) {
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  int64_t win[PTO_MAX_RANK];
  unsigned n = pto_block_get_offsets(op, offs, dyn);
  pto_tile_window_shape(buf, gm->rank, win);
  if (interp_window_offsets(f, op, gm, n, offs, dyn, win, -1))
    return PTO_FAILURE;
  PtoNdArray w = interp_window_of(gm, offs, win);
  /* the buffer's rank: the window's dims beyond it are 1 */
  unsigned r = pto_tile_rank(buf), R = w.rank;
  *out = w;
  out->rank = r;
  for (unsigned d = 0; d < r; d++) {
    bool in = d + R >= r;
    out->shape[d] = in ? w.shape[d + R - r] : 1;
    out->strides[d] = in ? w.strides[d + R - r] : 0;
  }
  return PTO_SUCCESS;
}

static PtoResult h_load(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoType *buf = pto_value_type(pto_op_result(op, 0));
  PtoNdArray w;
  if (gm_window(f, op, interp_tensor_arg(f, op, 0), buf, &w)) return PTO_FAILURE;
  /* a copy: a later store into the tensor must not change the buffer */
  PtoTensor *t = interp_new_result(f, op, 0, pto_tile_rank(buf), pto_tile_shape(buf));
  if (!t) return PTO_FAILURE;
  PtoNdArray out = *pto_tensor_array(t);
  PtoKernelError err;
  PtoResult r = pto_kernel_unary(PTO_UNARY_IDENTITY, &w, &out, &err);
  return interp_finish(f, op, t, r, &err);
}

static PtoResult h_store(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoType *buf = pto_value_type(pto_op_operand(op, 0));
  PtoNdArray w;
  if (gm_window(f, op, interp_tensor_arg(f, op, 1), buf, &w)) return PTO_FAILURE;
  PtoKernelError err;
  if (pto_kernel_unary(PTO_UNARY_IDENTITY, interp_tensor_arg(f, op, 0), &w, &err))
    return interp_kernel_error(f, op, &err, NULL);
  return PTO_SUCCESS;
}

static PtoResult h_launch(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoOp *kernel = pto_block_launch_kernel(op);
  if (!kernel) return pto_interp_error(f, op, "the callee is not a kernel");
  unsigned n = pto_op_num_operands(op);
  PtoInterpValue *args = pto_calloc(n ? n : 1, sizeof *args);
  for (unsigned i = 0; i < n; i++)
    args[i] = pto_interp_value_copy(pto_interp_operand(f, op, i));
  PtoResult r = pto_interp_call(f, op, kernel, args, n, NULL, 0);
  pto_free(args);
  return r;
}

void pto_interp_register_block(PtoInterp *I) {
  pto_interp_register(I, "block.load", h_load, NULL);
  pto_interp_register(I, "block.store", h_store, NULL);
  /* a zero-filled GM tensor, as tile.empty makes (registered before) */
  pto_interp_register_alias(I, "block.workspace", "tile.empty");
  pto_interp_register(I, "block.launch", h_launch, NULL);
}

/* ------------------------------------------------------------------ */
/* Launches in a shuffled order (PtoInterpOptions.shuffle_launches)     */
/* ------------------------------------------------------------------ */

/* A GM region of one launch at run time. */
typedef struct Box {
  const PtoNdArray *gm;
  bool write;
  int64_t lo[8], hi[8];
} Box;

typedef PTO_VEC(Box) BoxVec;

/* The regions of launch `l` into boxes; false when one cannot be read
 * (then the launch is ordered against every other). */
static bool launch_boxes(PtoInterpFrame *f, PtoOp *l, BoxVec *out) {
  for (int w = 0; w < 2; w++)
    for (unsigned i = 0; i < pto_block_launch_num_regions(l, w); i++) {
      PtoBlockRegion r;
      if (!pto_block_launch_region(l, w, i, &r) ||
          r.operand >= pto_op_num_operands(l))
        return false;
      const PtoInterpValue *v = pto_interp_operand(f, l, r.operand);
      if (v->kind != PTO_IVAL_TENSOR) return false;
      Box b;
      b.gm = pto_tensor_array(v->tensor);
      b.write = w;
      for (unsigned d = 0; d < r.rank && d < 8; d++) {
        int64_t off = r.offsets[d];
        if (r.offset_operand[d] >= 0)
          off += pto_interp_operand(f, l, (unsigned)r.offset_operand[d])->i;
        b.lo[d] = off;
        b.hi[d] = off + r.sizes[d];
      }
      pto_vec_push(out, b);
    }
  return true;
}

/* Whether two boxes touch the same GM bytes with at least one writing;
 * tensors that share memory under another shape always conflict. */
static bool conflict(const Box *a, const Box *b) {
  if (!a->write && !b->write) return false;
  if (a->gm->data != b->gm->data) return false;
  if (a->gm->rank != b->gm->rank ||
      memcmp(a->gm->shape, b->gm->shape, a->gm->rank * sizeof a->gm->shape[0]))
    return true;
  for (unsigned d = 0; d < a->gm->rank && d < 8; d++)
    if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d]) return false;
  return true;
}

static uint64_t next_random(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9e3779b97f4a7c15u; /* xorshift64* */
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545f4914f6cdd1du;
}

/* At most this many launches are ordered together (quadratic in it);
 * longer runs go in consecutive chunks, each shuffled. */
enum { SHUFFLE_CHUNK = 1024 };

PtoResult pto_interp_run_launches(PtoInterpFrame *f, PtoOp *first, PtoOp *end,
                                  PtoOp **next) {
  PTO_VEC(PtoOp *) ls = {0};
  PtoOp *op = first;
  for (; op && op != end && pto_op_is(op, "block.launch") && ls.len < SHUFFLE_CHUNK;
       op = pto_op_next(op))
    pto_vec_push(&ls, op);
  *next = op;
  unsigned n = ls.len;
  BoxVec boxes = {0};
  uint32_t *start = pto_calloc(n + 1, sizeof *start);
  bool *opaque = pto_calloc(n, sizeof *opaque);
  for (unsigned i = 0; i < n; i++) {
    start[i] = boxes.len;
    opaque[i] = !launch_boxes(f, ls.data[i], &boxes);
  }
  start[n] = boxes.len;
  /* after[i * n + j]: launch j must wait for launch i (i < j) */
  bool *after = pto_calloc((size_t)n * n, sizeof *after);
  uint32_t *indeg = pto_calloc(n, sizeof *indeg);
  for (unsigned j = 0; j < n; j++)
    for (unsigned i = 0; i < j; i++) {
      bool dep = opaque[i] || opaque[j];
      for (uint32_t a = start[i]; a < start[i + 1] && !dep; a++)
        for (uint32_t b = start[j]; b < start[j + 1] && !dep; b++)
          dep = conflict(&boxes.data[a], &boxes.data[b]);
      if (dep) {
        after[(size_t)i * n + j] = true;
        indeg[j]++;
      }
    }
  PTO_VEC(unsigned) ready = {0};
  for (unsigned i = 0; i < n; i++)
    if (!indeg[i]) pto_vec_push(&ready, i);
  PtoResult r = PTO_SUCCESS;
  while (ready.len && !r) {
    unsigned k = (unsigned)(next_random(&f->I->rng) % ready.len);
    unsigned i = ready.data[k];
    ready.data[k] = ready.data[--ready.len];
    r = pto_interp_exec(f, ls.data[i]);
    for (unsigned j = i + 1; j < n; j++)
      if (after[(size_t)i * n + j] && --indeg[j] == 0) pto_vec_push(&ready, j);
  }
  pto_vec_free(&ready);
  pto_free(indeg);
  pto_free(after);
  pto_free(opaque);
  pto_free(start);
  pto_vec_free(&boxes);
  pto_vec_free(&ls);
  return r;
}
