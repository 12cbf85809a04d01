/* Handlers of the pto dialect. A pto.kernel runs on an image of its core's
 * on-chip buffers: one byte array per memory space, sized from the
 * interpreter's options (the platform), filled with 0xFF bytes (NaN in
 * every float type, -1 in every integer type) so that reading a buffer
 * nothing wrote shows. A planned tile is read from and written to its
 * bytes in the image, so two live tiles planned onto the same bytes, or a
 * missing copy, give wrong numbers as on the device. An unplanned tile
 * (before memory-plan) is a value of its own. Every result is also kept
 * in its slot as a tensor (what the tile held when written), for the
 * observer. Instructions run one after another in program order, one of
 * the orders the flags allow; a wait_flag with no earlier set_flag of its
 * event is an error, as the device would hang on it, and so is a set_flag
 * still pending when the kernel ends. */
#include "Interp/InterpPypto.h"

#include "pto/Dialect/PTO.h"

#include "Support/Alloc.h"

#include <stdio.h>
#include <string.h>

struct InterpCore {
  uint8_t *image[PTO_BUF_NUM_SPACES]; /* made on first use */
  /* pending[src][dst][event]: set_flags not yet waited for, the latest
   * of them raised by last_set */
  unsigned pending[PTO_PIPE_NUM][PTO_PIPE_NUM][PTO_PTO_NUM_EVENTS];
  PtoOp *last_set[PTO_PIPE_NUM][PTO_PIPE_NUM][PTO_PTO_NUM_EVENTS];
};

PtoResult interp_core_finish(PtoInterpFrame *f) {
  InterpCore *c = f->core;
  for (unsigned s = 0; c && s < PTO_PIPE_NUM; s++)
    for (unsigned d = 0; d < PTO_PIPE_NUM; d++)
      for (unsigned e = 0; e < PTO_PTO_NUM_EVENTS; e++)
        if (c->pending[s][d][e])
          return pto_interp_error(
              f, c->last_set[s][d][e],
              "raises event %u from %s to %s, which no later wait_flag "
              "consumes before the kernel ends: on the device the event "
              "stays set and releases a wait of the next kernel on the core "
              "too early",
              e, pto_pipe_name((PtoPipe)s), pto_pipe_name((PtoPipe)d));
  return PTO_SUCCESS;
}

void interp_core_destroy(InterpCore *c) {
  for (unsigned s = 0; s < PTO_BUF_NUM_SPACES; s++) pto_free(c->image[s]);
  pto_free(c);
}

static InterpCore *core_of(PtoInterpFrame *f) {
  if (!f->core) f->core = pto_calloc(1, sizeof *f->core);
  return f->core;
}

/* ------------------------------------------------------------------ */
/* Tiles                                                                */
/* ------------------------------------------------------------------ */

static bool planned(PtoType *t) {
  return pto_pto_tile_offset(t) != PTO_PTO_UNPLANNED;
}

/* The bytes of planned tile `t` in the image, or NULL after an error when
 * they lie outside the space's buffer. */
static uint8_t *tile_bytes(PtoInterpFrame *f, PtoOp *op, PtoType *t) {
  PtoBufSpace s = pto_pto_tile_space(t);
  uint64_t cap = f->I->opts.buffer_bytes[s];
  uint64_t off = (uint64_t)pto_pto_tile_offset(t), n = (uint64_t)pto_pto_tile_bytes(t);
  if (off > cap || n > cap - off) {
    char *ts = pto_type_to_string(t);
    pto_interp_error(f, op, "tile '%s' occupies bytes [%llu, %llu) of %s, "
                            "which has %llu bytes",
                     ts, (unsigned long long)off, (unsigned long long)(off + n),
                     pto_buf_space_name(s), (unsigned long long)cap);
    pto_free(ts);
    return NULL;
  }
  InterpCore *c = core_of(f);
  if (!c->image[s] && cap > f->I->opts.max_tensor_bytes) {
    /* a platform file may describe buffers this process cannot hold */
    pto_interp_error(f, op, "the %s buffer's image (%llu bytes, from the "
                            "platform) is larger than the interpreter's limit "
                            "of %llu bytes (--max-tensor-bytes)",
                     pto_buf_space_name(s), (unsigned long long)cap,
                     (unsigned long long)f->I->opts.max_tensor_bytes);
    return NULL;
  }
  if (!c->image[s]) {
    c->image[s] = pto_malloc(cap);
    memset(c->image[s], 0xFF, cap);
  }
  return c->image[s] + off;
}

static PtoNdArray tile_array(PtoType *t, void *data) {
  PtoNdArray a;
  memset(&a, 0, sizeof a);
  pto_interp_type_dtype(t, &a.dtype);
  a.rank = 2;
  a.shape[0] = pto_pto_tile_rows(t);
  a.shape[1] = pto_pto_tile_cols(t);
  a.strides[0] = a.shape[1];
  a.strides[1] = 1;
  a.data = data;
  a.nbytes = (size_t)pto_pto_tile_bytes(t);
  return a;
}

/* Tile operand i: its bytes in the image when planned, else its value. */
static PtoResult tile_read(PtoInterpFrame *f, PtoOp *op, unsigned i,
                           PtoNdArray *out) {
  PtoType *t = pto_value_type(pto_op_operand(op, i));
  if (!planned(t)) {
    *out = *interp_tensor_arg(f, op, i);
    return PTO_SUCCESS;
  }
  uint8_t *p = tile_bytes(f, op, t);
  if (!p) return PTO_FAILURE;
  *out = tile_array(t, p);
  return PTO_SUCCESS;
}

/* A new tensor for tile result i. */
static PtoTensor *tile_result(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  PtoType *t = pto_value_type(pto_op_result(op, i));
  return interp_new_result(f, op, i, 2, pto_type_ints(t));
}

/* Result i is `t` (taking it): written to its bytes when planned. */
static PtoResult tile_commit(PtoInterpFrame *f, PtoOp *op, unsigned i,
                             PtoTensor *t) {
  PtoType *ty = pto_value_type(pto_op_result(op, i));
  if (planned(ty)) {
    uint8_t *p = tile_bytes(f, op, ty);
    if (!p) {
      pto_tensor_release(t);
      return PTO_FAILURE;
    }
    memcpy(p, pto_tensor_array(t)->data, (size_t)pto_pto_tile_bytes(ty));
  }
  interp_set_tensor(f, op, i, t);
  return PTO_SUCCESS;
}

/* After a kernel `r` computed t as result 0. */
static PtoResult finish(PtoInterpFrame *f, PtoOp *op, PtoTensor *t,
                        PtoResult r, const PtoKernelError *err) {
  if (r) return interp_kernel_error(f, op, err, t);
  return tile_commit(f, op, 0, t);
}

/* Reads the tile operands [0, n) into a[]. */
static PtoResult read_tiles(PtoInterpFrame *f, PtoOp *op, unsigned n,
                            PtoNdArray *a) {
  for (unsigned i = 0; i < n; i++)
    if (tile_read(f, op, i, &a[i])) return PTO_FAILURE;
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */

/* The window of GM operand `gm` a tload / tstore / tprefetch addresses
 * (pto_pto_window_sizes), checked against the tensor's run-time dims. */
static PtoResult gm_window(PtoInterpFrame *f, PtoOp *op, unsigned gm,
                           PtoNdArray *out) {
  int64_t offs[PTO_MAX_RANK], size[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_pto_get_offsets(op, offs, dyn);
  const PtoNdArray *t = interp_tensor_arg(f, op, gm);
  if (pto_pto_window_sizes(op, size) != n || n != t->rank)
    return pto_interp_error(f, op, "malformed window");
  if (interp_window_offsets(f, op, t, n, offs, dyn, size, -1)) return PTO_FAILURE;
  *out = interp_window_of(t, offs, size);
  return PTO_SUCCESS;
}

/* The GM window `w` and the 2-D tile `a` as two arrays of one shape:
 * the tile's dims where the window's non-unit sizes are them, else the
 * window's own, the tile's rows then split along its leading sizes
 * (rows at several strides: the pieces the compiled copy moves one after
 * the other, here a plain N-D copy to check it against). False when the
 * window does not hold the tile. */
static bool as_tile(PtoNdArray *w, PtoNdArray *a) {
  int64_t ts[2], rows = a->shape[0], cols = a->shape[1];
  if (pto_pto_window_as_tile(w->rank, w->shape, w->strides, rows, cols, ts)) {
    w->rank = 2;
    w->shape[0] = rows;
    w->shape[1] = cols;
    w->strides[0] = ts[0];
    w->strides[1] = ts[1];
    for (unsigned k = 2; k < PTO_MAX_RANK; k++) w->shape[k] = w->strides[k] = 0;
    return true;
  }
  PtoPtoWindowPieces pieces;
  if (!pto_pto_window_pieces(w->rank, w->shape, w->strides, rows, cols, &pieces))
    return false;
  int64_t step = a->strides[0];
  a->rank = w->rank;
  a->strides[w->rank - 1] = a->strides[1];
  for (unsigned d = w->rank - 1; d-- > 0;) {
    a->strides[d] = step;
    step *= w->shape[d];
  }
  memcpy(a->shape, w->shape, sizeof a->shape);
  return true;
}

static PtoResult not_a_tile(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *w) {
  char buf[PTO_MAX_RANK * 24];
  PtoShape s;
  pto_shape_init(&s, w->shape, w->rank);
  return pto_interp_error(f, op, "the window of sizes %s does not hold the "
                                 "tile in the tensor's run-time shape",
                          pto_shape_format(&s, buf, sizeof buf));
}

static PtoResult h_load(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoNdArray w;
  if (gm_window(f, op, 0, &w)) return PTO_FAILURE;
  PtoTensor *t = tile_result(f, op, 0);
  if (!t) return PTO_FAILURE;
  PtoNdArray dst = *pto_tensor_array(t), src = w;
  if (!as_tile(&src, &dst)) {
    pto_tensor_release(t);
    return not_a_tile(f, op, &w);
  }
  PtoKernelError err;
  return finish(f, op, t, pto_kernel_unary(PTO_UNARY_IDENTITY, &src, &dst, &err),
                &err);
}

/* A 2-D tile array seen as `shape` (rank n, its leading dims flattened
 * into the tile's rows): the rows keep their stride, the leading dims
 * step over the rows inside them. */
static void tile_as_nd(PtoNdArray *a, const int64_t *shape, unsigned n) {
  int64_t row = a->strides[0], col = a->strides[1];
  a->rank = n;
  a->strides[n - 1] = col;
  for (unsigned d = n - 1; d-- > 0;) {
    a->strides[d] = row;
    row *= shape[d];
  }
  for (unsigned d = 0; d < n && d < PTO_MAX_RANK; d++) a->shape[d] = shape[d];
}

/* The GM window of tgather_gm / tscatter_gm (tensor operand `gi`): the
 * tile's shape in the tensor's rank, the whole tensor along dim; the
 * run-time offsets checked. */
static PtoResult indexed_window(PtoInterpFrame *f, PtoOp *op, unsigned gi, int64_t *shape,
                                unsigned *n, unsigned *dim, PtoNdArray *xw) {
  int64_t offs[PTO_MAX_RANK], size[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  const PtoNdArray *x = interp_tensor_arg(f, op, gi);
  PtoAttr *d = pto_op_attr(op, "dim");
  *n = pto_pto_indexed_shape(op, shape);
  if (!*n || !x || pto_pto_get_offsets(op, offs, dyn) != *n || x->rank != *n || !d ||
      pto_attr_int_value(d) < 0 || pto_attr_int_value(d) >= (int64_t)*n)
    return pto_interp_error(f, op, "malformed indexed window");
  *dim = (unsigned)pto_attr_int_value(d);
  for (unsigned k = 0; k < *n; k++) size[k] = shape[k];
  size[*dim] = x->shape[*dim];
  if (interp_window_offsets(f, op, x, *n, offs, dyn, size, (int)*dim)) return PTO_FAILURE;
  *xw = interp_window_of(x, offs, size);
  return PTO_SUCCESS;
}

/* Every index of the rows x cols index tile in [0, extent), checked over
 * the tile itself before anything moves, the first bad one (row-major)
 * named at its position as pto_pto_index_position gives it, as the
 * compiled kernel's fault names it. */
static PtoResult indices_in_range(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *ix,
                                  int64_t extent, unsigned dim) {
  for (int64_t r = 0; r < ix->shape[0]; r++)
    for (int64_t c = 0; c < ix->shape[1]; c++) {
      int64_t v = pto_dtype_load_i64(ix->dtype, ix->data,
                                     r * ix->strides[0] + c * ix->strides[1]);
      if (v >= 0 && v < extent) continue;
      int64_t pos[PTO_MAX_RANK];
      char b[PTO_SHAPE_STR_MAX];
      unsigned n = pto_pto_index_position(op, r, c, pos);
      pto_shape_str(b, n, pos);
      return pto_interp_error(f, op, "index %lld at position %s is out of range [0, %lld) "
                                     "for dim %u",
                              (long long)v, b, (long long)extent, dim);
    }
  return PTO_SUCCESS;
}

/* tgather_gm: the window read at the indices, the index and result tiles
 * seen in the tensor's rank, by the Tile level's gather. */
static PtoResult h_gather_gm(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  int64_t shape[PTO_MAX_RANK];
  unsigned n = 0, dim = 0;
  PtoNdArray xw, ix;
  if (indexed_window(f, op, 0, shape, &n, &dim, &xw) || tile_read(f, op, 1, &ix) ||
      indices_in_range(f, op, &ix, xw.shape[dim], dim))
    return PTO_FAILURE;
  PtoTensor *t = tile_result(f, op, 0);
  if (!t) return PTO_FAILURE;
  PtoNdArray out = *pto_tensor_array(t);
  tile_as_nd(&ix, shape, n);
  tile_as_nd(&out, shape, n);
  PtoKernelError err;
  return finish(f, op, t, pto_kernel_gather(&xw, &ix, dim, &out, &err), &err);
}

/* tscatter_gm's mode as the Tile level's scatter_elements reduce. */
static PtoScatterReduce scatter_mode(PtoOp *op) {
  const char *m = pto_op_attr_str(op, "mode");
  if (m && strcmp(m, "add") == 0) return PTO_SCATTER_ADD;
  if (m && strcmp(m, "multiply") == 0) return PTO_SCATTER_MULTIPLY;
  return PTO_SCATTER_REPLACE;
}

/* tscatter_gm: written into the tensor in place (GM is memory, as for
 * tstore), each element in row-major order of the tile, so duplicate
 * indices apply in index order: the last overwrite wins, sums and
 * products accumulate in that order. The Tile level's scatter_elements
 * does the writing, the tiles seen in the tensor's rank, a slice index
 * row broadcast along the other dims (stride 0); the indices are checked
 * first, so that nothing is written when one is bad. */
static PtoResult h_scatter_gm(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  int64_t shape[PTO_MAX_RANK];
  unsigned n = 0, dim = 0;
  PtoNdArray xw, src, ix;
  if (indexed_window(f, op, 1, shape, &n, &dim, &xw) || tile_read(f, op, 0, &src) ||
      tile_read(f, op, 2, &ix) || indices_in_range(f, op, &ix, xw.shape[dim], dim))
    return PTO_FAILURE;
  bool slices = ix.shape[0] != src.shape[0] || ix.shape[1] != src.shape[1];
  tile_as_nd(&src, shape, n);
  if (slices) {
    /* one index per slice: index (0, j) serves the slice j along dim */
    int64_t step = ix.strides[1];
    ix.rank = n;
    for (unsigned d = 0; d < n; d++) {
      ix.shape[d] = shape[d];
      ix.strides[d] = d == dim ? step : 0;
    }
  } else {
    tile_as_nd(&ix, shape, n);
  }
  PtoKernelError err;
  if (pto_kernel_scatter_elements(&xw, &ix, &src, dim, scatter_mode(op), &err))
    return interp_kernel_error(f, op, &err, NULL);
  return PTO_SUCCESS;
}

/* trandom: the tile seen as its window's dims, filled by the Tile
 * level's generator */
static PtoResult h_random(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  int64_t o[PTO_MAX_RANK], full[PTO_MAX_RANK], w[PTO_MAX_RANK];
  bool normal;
  unsigned nf = pto_pto_get_random_window(op, o, full, w, &normal);
  if (!nf) return pto_interp_error(f, op, "malformed random window");
  PtoTensor *t = tile_result(f, op, 0);
  if (!t) return PTO_FAILURE;
  PtoNdArray v = *pto_tensor_array(t);
  v.rank = nf;
  int64_t s = 1;
  for (unsigned d = PTO_MAX_RANK; d-- > 0;) {
    v.shape[d] = d < nf ? w[d] : 0;
    v.strides[d] = d < nf ? s : 0;
    if (d < nf) s *= w[d];
  }
  PtoKernelError err;
  PtoRandomKind k = normal ? PTO_RANDOM_NORMAL : PTO_RANDOM_UNIFORM;
  return finish(f, op, t,
                pto_kernel_random(k, (uint64_t)pto_interp_operand(f, op, 0)->i,
                                  (uint64_t)pto_interp_operand(f, op, 1)->i, nf, full, o, &v,
                                  &err),
                &err);
}

static PtoResult h_store(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoNdArray a, w;
  if (tile_read(f, op, 0, &a) || gm_window(f, op, 1, &w)) return PTO_FAILURE;
  PtoNdArray dst = w;
  if (a.rank != 2 || !as_tile(&dst, &a)) return not_a_tile(f, op, &w);
  /* GM tensors are memory, as at the Block level: written in place; an
   * f32 accumulator stored into f16 or bf16 is rounded to nearest even on
   * the way (FIX) */
  PtoKernelError err;
  PtoCastMode rne = {PTO_ROUND_RINT, PTO_SAT_WRAP};
  if (a.dtype != dst.dtype ? pto_kernel_cast(&a, &dst, rne, &err)
                           : pto_kernel_unary(PTO_UNARY_IDENTITY, &a, &dst, &err))
    return interp_kernel_error(f, op, &err, NULL);
  return PTO_SUCCESS;
}

static PtoResult h_prefetch(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  /* a hint: only its window is checked */
  PtoNdArray w;
  return gm_window(f, op, 0, &w);
}

/* ------------------------------------------------------------------ */
/* Vector                                                               */
/* ------------------------------------------------------------------ */

static int kernel_kind(PtoPtoOp id) {
  switch (id) {
  case PTO_PTO_TADD: case PTO_PTO_TADDS: case PTO_PTO_TROWEXPANDADD:
    return PTO_BINARY_ADD;
  case PTO_PTO_TSUB: case PTO_PTO_TSUBS: case PTO_PTO_TROWEXPANDSUB:
    return PTO_BINARY_SUB;
  case PTO_PTO_TMUL: case PTO_PTO_TMULS: case PTO_PTO_TROWEXPANDMUL:
    return PTO_BINARY_MUL;
  case PTO_PTO_TDIV: case PTO_PTO_TDIVS: case PTO_PTO_TROWEXPANDDIV:
    return PTO_BINARY_DIV;
  case PTO_PTO_TMAX: case PTO_PTO_TMAXS: case PTO_PTO_TROWEXPANDMAX:
    return PTO_BINARY_MAX;
  case PTO_PTO_TMIN: case PTO_PTO_TMINS: case PTO_PTO_TROWEXPANDMIN:
    return PTO_BINARY_MIN;
  case PTO_PTO_TEXP: return PTO_UNARY_EXP;
  case PTO_PTO_TLOG: return PTO_UNARY_LOG;
  case PTO_PTO_TSQRT: return PTO_UNARY_SQRT;
  case PTO_PTO_TRSQRT: return PTO_UNARY_RSQRT;
  case PTO_PTO_TRECIP: return PTO_UNARY_RECIPROCAL;
  case PTO_PTO_TRELU: return PTO_UNARY_RELU;
  case PTO_PTO_TABS: return PTO_UNARY_ABS;
  case PTO_PTO_TNEG: return PTO_UNARY_NEG;
  case PTO_PTO_TSIGMOID: return PTO_UNARY_SIGMOID;
  case PTO_PTO_TTANH: return PTO_UNARY_TANH;
  case PTO_PTO_TSILU: return PTO_UNARY_SILU;
  case PTO_PTO_TFLOOR: return PTO_UNARY_FLOOR;
  case PTO_PTO_TCEIL: return PTO_UNARY_CEIL;
  case PTO_PTO_TROUND: return PTO_UNARY_ROUND;
  case PTO_PTO_TSIGNBIT: return PTO_UNARY_SIGNBIT;
  case PTO_PTO_TGCD: return PTO_BINARY_GCD;
  case PTO_PTO_TAND: return PTO_BINARY_AND;
  case PTO_PTO_TOR: return PTO_BINARY_OR;
  case PTO_PTO_TXOR: return PTO_BINARY_XOR;
  case PTO_PTO_TSHL: return PTO_BINARY_SHL;
  case PTO_PTO_TSHR: return PTO_BINARY_SHR;
  case PTO_PTO_TSIGN: return PTO_UNARY_SIGN;
  case PTO_PTO_TTRUNC: return PTO_UNARY_TRUNC;
  case PTO_PTO_THARDSIGMOID: return PTO_UNARY_HARDSIGMOID;
  case PTO_PTO_TLRELU: return PTO_UNARY_LEAKY_RELU;
  case PTO_PTO_TCLIP: return PTO_UNARY_CLIP;
  case PTO_PTO_TSIN: return PTO_UNARY_SIN;
  case PTO_PTO_TCOS: return PTO_UNARY_COS;
  case PTO_PTO_TERF: return PTO_UNARY_ERF;
  case PTO_PTO_TPOW: return PTO_BINARY_POW;
  case PTO_PTO_TTAN: return PTO_UNARY_TAN;
  case PTO_PTO_TATAN: return PTO_UNARY_ATAN;
  case PTO_PTO_TASIN: return PTO_UNARY_ASIN;
  case PTO_PTO_TACOS: return PTO_UNARY_ACOS;
  case PTO_PTO_TERFC: return PTO_UNARY_ERFC;
  case PTO_PTO_TATAN2: return PTO_BINARY_ATAN2;
  case PTO_PTO_TLOG2: return PTO_UNARY_LOG2;
  case PTO_PTO_TLOG10: return PTO_UNARY_LOG10;
  case PTO_PTO_TLOG1P: return PTO_UNARY_LOG1P;
  case PTO_PTO_TEXP2: return PTO_UNARY_EXP2;
  case PTO_PTO_TEXPM1: return PTO_UNARY_EXPM1;
  case PTO_PTO_TSINH: return PTO_UNARY_SINH;
  case PTO_PTO_TCOSH: return PTO_UNARY_COSH;
  case PTO_PTO_TASINH: return PTO_UNARY_ASINH;
  case PTO_PTO_TACOSH: return PTO_UNARY_ACOSH;
  case PTO_PTO_TATANH: return PTO_UNARY_ATANH;
  case PTO_PTO_TCBRT: return PTO_UNARY_CBRT;
  case PTO_PTO_TROWSUM: case PTO_PTO_TCOLSUM: return PTO_REDUCE_SUM;
  case PTO_PTO_TROWMAX: case PTO_PTO_TCOLMAX: return PTO_REDUCE_MAX;
  case PTO_PTO_TROWMIN: case PTO_PTO_TCOLMIN: return PTO_REDUCE_MIN;
  case PTO_PTO_TROWPROD: case PTO_PTO_TCOLPROD: return PTO_REDUCE_PROD;
  default: return -1;
  }
}

static PtoBinaryKind cmp_kind(PtoOp *op) {
  static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  static const PtoBinaryKind kinds[] = {PTO_BINARY_EQ, PTO_BINARY_NE,
                                        PTO_BINARY_LT, PTO_BINARY_LE,
                                        PTO_BINARY_GT, PTO_BINARY_GE};
  const char *cmp = pto_op_attr_str(op, "cmp");
  for (unsigned i = 0; cmp && i < 6; i++)
    if (strcmp(cmp, names[i]) == 0) return kinds[i];
  return PTO_BINARY_EQ; /* the verifier admits the six names only */
}

/* The instructions with one tile result computed by one shared kernel
 * from the operands: a[i] is tile operand i, or a scalar operand as a
 * rank-0 array. */
static PtoResult h_compute(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoPtoOp id = pto_pto_op_id(op);
  PtoPtoKind kind = pto_pto_op_kind(id);
  unsigned n = pto_op_num_operands(op);
  PtoNdArray a[3];
  uint64_t buf;
  for (unsigned i = 0; i < n && i < 3; i++) {
    if (!pto_type_is_pto_tile(pto_value_type(pto_op_operand(op, i))))
      a[i] = interp_operand_array(f, op, i, &buf);
    else if (tile_read(f, op, i, &a[i]))
      return PTO_FAILURE;
  }
  PtoTensor *t = tile_result(f, op, 0);
  if (!t) return PTO_FAILURE;
  const PtoNdArray *out = pto_tensor_array(t);
  PtoKernelError err;
  PtoResult r = PTO_FAILURE;
  int k = kernel_kind(id);
  switch (kind) {
  /* tmov; texpand and texpands: the copy broadcasts as numpy does */
  case PTO_PTO_KIND_MOV: case PTO_PTO_KIND_EXPAND: case PTO_PTO_KIND_EXPANDS:
    r = pto_kernel_unary(PTO_UNARY_IDENTITY, &a[0], out, &err);
    break;
  case PTO_PTO_KIND_PERMUTE: case PTO_PTO_KIND_REPEAT: {
    /* a copy from the operand seen through the permuted (repeated) view
     * into the result seen as the row-major array of its view's shape */
    int64_t shape[PTO_MAX_RANK], stride[PTO_MAX_RANK];
    unsigned rank = pto_pto_layout_map(op, shape, stride);
    if (!rank || a[0].rank != 2 || a[0].strides[1] != 1 ||
        a[0].strides[0] != a[0].shape[1] || out->strides[1] != 1 ||
        out->strides[0] != out->shape[1]) {
      pto_tensor_release(t);
      return pto_interp_error(f, op, "malformed layout instruction");
    }
    PtoNdArray src = a[0], dst = *out;
    src.rank = dst.rank = rank;
    int64_t step = 1;
    for (unsigned d = rank; d-- > 0;) {
      src.shape[d] = dst.shape[d] = shape[d];
      src.strides[d] = stride[d];
      dst.strides[d] = step;
      step *= shape[d];
    }
    r = pto_kernel_unary(PTO_UNARY_IDENTITY, &src, &dst, &err);
    break;
  }
  case PTO_PTO_KIND_TRANS: {
    /* a copy through the transposed view */
    PtoNdArray v = a[0];
    v.shape[0] = a[0].shape[1], v.shape[1] = a[0].shape[0];
    v.strides[0] = a[0].strides[1], v.strides[1] = a[0].strides[0];
    r = pto_kernel_unary(PTO_UNARY_IDENTITY, &v, out, &err);
    break;
  }
  /* the scalar and the Mx1 column broadcast as numpy does */
  case PTO_PTO_KIND_BINARY: case PTO_PTO_KIND_SCALAR: case PTO_PTO_KIND_ROWEXPAND:
    r = pto_kernel_binary((PtoBinaryKind)k, &a[0], &a[1], out, &err);
    break;
  case PTO_PTO_KIND_UNARY: {
    double params[2] = {0, 0};
    PtoUnaryRow row = pto_pto_unary_row(id);
    if (row != PTO_UNARY_ROW_NONE) pto_unary_row_params(op, row, params);
    r = pto_kernel_unary_params((PtoUnaryKind)k, params, &a[0], out, &err);
    break;
  }
  case PTO_PTO_KIND_CVT: {
    PtoCastMode mode = {pto_pypto_get_cast_mode(op), pto_pypto_get_saturate(op)
                                                         ? PTO_SAT_SATURATE
                                                         : PTO_SAT_WRAP};
    r = pto_kernel_cast(&a[0], out, mode, &err);
    break;
  }
  case PTO_PTO_KIND_CMP:
    r = pto_kernel_binary(cmp_kind(op), &a[0], &a[1], out, &err);
    break;
  case PTO_PTO_KIND_SEL: r = pto_kernel_where(&a[0], &a[1], &a[2], out, &err); break;
  /* trow*: over dim 1 into Mx1; tcol*: over dim 0 into 1xN */
  case PTO_PTO_KIND_ROWRED: case PTO_PTO_KIND_COLRED:
    r = pto_kernel_reduce((PtoReduceKind)k, &a[0],
                          kind == PTO_PTO_KIND_ROWRED ? 1 : 0, out, &err);
    break;
  case PTO_PTO_KIND_GATHER: r = pto_kernel_gather(&a[0], &a[1], 1, out, &err); break;
  case PTO_PTO_KIND_QUANT:
    r = pto_kernel_quantize_scaled(&a[0], &a[1], out, &err);
    break;
  case PTO_PTO_KIND_MATMUL: {
    /* C = A B, C0 + A B, A B + bias (the row broadcasts), accumulated in
     * C's type: i32 exactly, f32 in double rounded once */
    const PtoNdArray *x = &a[id == PTO_PTO_TMATMUL_ACC],
                     *acc = id == PTO_PTO_TMATMUL       ? NULL
                            : id == PTO_PTO_TMATMUL_ACC ? &a[0]
                                                        : &a[2];
    r = pto_kernel_matmul(x, x + 1, false, false, acc, out->dtype, out, &err);
    break;
  }
  default:
    pto_tensor_release(t);
    return pto_interp_error(f, op, "not an instruction with one computed tile");
  }
  return finish(f, op, t, r, &err);
}

/* Results 0 and 1 as new tensors, or false (neither kept) after an error. */
static bool tile_results2(PtoInterpFrame *f, PtoOp *op, PtoTensor **tv,
                          PtoTensor **ti) {
  *tv = tile_result(f, op, 0);
  *ti = *tv ? tile_result(f, op, 1) : NULL;
  if (!*ti) pto_tensor_release(*tv);
  return *ti != NULL;
}

/* After a kernel `r` computed (tv, ti) as results 0 and 1 (taking both). */
static PtoResult finish_pair(PtoInterpFrame *f, PtoOp *op, PtoTensor *tv,
                             PtoTensor *ti, PtoResult r,
                             const PtoKernelError *err) {
  if (r) {
    pto_tensor_release(ti);
    return interp_kernel_error(f, op, err, tv);
  }
  if (tile_commit(f, op, 0, tv)) {
    pto_tensor_release(ti);
    return PTO_FAILURE;
  }
  return tile_commit(f, op, 1, ti);
}

/* An MxN array seen as M x (N / w) x w: the windows of w elements of each
 * row. */
static PtoNdArray windows(const PtoNdArray *a, int64_t w) {
  PtoNdArray v = *a;
  v.rank = 3;
  v.shape[0] = a->shape[0];
  v.shape[1] = a->shape[1] / w;
  v.shape[2] = w;
  v.strides[0] = a->strides[0];
  v.strides[1] = a->strides[1] * w;
  v.strides[2] = a->strides[1];
  return v;
}

/* tsort32 and tmrgsort: each window of w elements of each row sorted in
 * descending order, stably (equal values keep their order, so that two
 * sorted runs are merged with the left run first), NaN above every number.
 * The indices result is the source column for tsort32 and the index
 * operand's entry carried along for tmrgsort. */
static PtoResult h_sort(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  bool merge = pto_pto_op_id(op) == PTO_PTO_TMRGSORT;
  int64_t w = merge ? 2 * pto_op_attr_int(op, "block", 1) : 32;
  PtoNdArray in[2];
  if (read_tiles(f, op, merge ? 2 : 1, in)) return PTO_FAILURE;
  PtoTensor *tv, *ti;
  if (!tile_results2(f, op, &tv, &ti)) return PTO_FAILURE;
  PtoNdArray x = windows(&in[0], w), vals = windows(pto_tensor_array(tv), w),
             pos = windows(pto_tensor_array(ti), w);
  PtoKernelError err;
  PtoResult r = pto_kernel_topk(&x, w, 2, true, &vals, &pos, &err);
  /* positions within the window -> the index each position carries */
  int32_t *p = pto_tensor_array(ti)->data;
  int64_t m = in[0].shape[0], n = in[0].shape[1];
  for (int64_t i = 0; !r && i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      int64_t col = j / w * w + p[i * n + j];
      p[i * n + j] = merge ? *(int32_t *)((char *)in[1].data +
                                         (i * in[1].strides[0] +
                                          col * in[1].strides[1]) * 4)
                           : (int32_t)col;
    }
  return finish_pair(f, op, tv, ti, r, &err);
}

/* The `largest` attribute of ttopk / ttopk_merge (true when absent). */
static bool largest(PtoOp *op) {
  PtoAttr *l = pto_op_attr(op, "largest");
  return !l || pto_attr_int_value(l) != 0;
}

/* ttopk: the shared topk kernel along each row (ties: the lower column
 * first; NaN above every number), as the Tensor level's topk. */
static PtoResult h_topk(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoNdArray x;
  if (tile_read(f, op, 0, &x)) return PTO_FAILURE;
  PtoTensor *tv, *ti;
  if (!tile_results2(f, op, &tv, &ti)) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_topk(&x, pto_op_attr_int(op, "k", 1), 1, largest(op),
                                pto_tensor_array(tv), pto_tensor_array(ti), &err);
  return finish_pair(f, op, tv, ti, r, &err);
}

/* trowarg* / tcolarg*: the extreme value of each row (column) and its
 * first position, NaN winning as the Tile level's arg-reductions do;
 * targ*_combine: the Tile level's merge of two partials, the first (lower
 * positions) kept on ties. */
static PtoResult h_arg(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoPtoOp id = pto_pto_op_id(op);
  PtoPtoKind kind = pto_pto_op_kind(id);
  bool max = id == PTO_PTO_TROWARGMAX || id == PTO_PTO_TCOLARGMAX ||
             id == PTO_PTO_TARGMAX_COMBINE;
  PtoNdArray in[4];
  if (read_tiles(f, op, kind == PTO_PTO_KIND_ARGCOMBINE ? 4 : 1, in))
    return PTO_FAILURE;
  PtoTensor *tv, *ti;
  if (!tile_results2(f, op, &tv, &ti)) return PTO_FAILURE;
  const PtoNdArray *v = pto_tensor_array(tv), *i = pto_tensor_array(ti);
  PtoKernelError err;
  PtoResult r;
  if (kind == PTO_PTO_KIND_ARGCOMBINE) {
    r = pto_kernel_arg_combine(max, &in[0], &in[1], &in[2], &in[3], v, i, &err);
  } else {
    unsigned dim = kind == PTO_PTO_KIND_ROWARG ? 1 : 0;
    r = pto_kernel_reduce(max ? PTO_REDUCE_MAX : PTO_REDUCE_MIN, &in[0], dim, v,
                          &err);
    if (!r)
      r = pto_kernel_reduce(max ? PTO_REDUCE_ARGMAX : PTO_REDUCE_ARGMIN, &in[0],
                            dim, i, &err);
  }
  return finish_pair(f, op, tv, ti, r, &err);
}

/* ttopk_merge: the shared merge of the Tile level's topk_merge. */
static PtoResult h_topk_merge(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoNdArray in[4];
  if (read_tiles(f, op, 4, in)) return PTO_FAILURE;
  PtoTensor *tv, *ti;
  if (!tile_results2(f, op, &tv, &ti)) return PTO_FAILURE;
  PtoKernelError err;
  PtoResult r = pto_kernel_topk_merge(&in[0], &in[1], &in[2], &in[3],
                                      pto_op_attr_int(op, "k", 1), largest(op),
                                      pto_tensor_array(tv), pto_tensor_array(ti), &err);
  return finish_pair(f, op, tv, ti, r, &err);
}

/* ------------------------------------------------------------------ */
/* Synchronisation                                                      */
/* ------------------------------------------------------------------ */

static PtoResult h_flag(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoPipe src, dst;
  int ev;
  if (!pto_pto_flag(op, &src, &dst, &ev))
    return pto_interp_error(f, op, "malformed flag");
  unsigned *pending = &core_of(f)->pending[src][dst][ev];
  if (pto_pto_op_id(op) == PTO_PTO_SET_FLAG) {
    (*pending)++;
    core_of(f)->last_set[src][dst][ev] = op;
    return PTO_SUCCESS;
  }
  if (!*pending)
    return pto_interp_error(f, op, "waits for event %d from %s to %s, which no "
                                   "earlier set_flag raised: on the device the "
                                   "%s pipe would wait forever",
                            ev, pto_pipe_name(src), pto_pipe_name(dst),
                            pto_pipe_name(dst));
  (*pending)--;
  return PTO_SUCCESS;
}

/* Instructions already run in program order: a barrier has nothing to
 * hold back. */
static PtoResult h_barrier(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)f, (void)op, (void)user;
  return PTO_SUCCESS;
}

void pto_interp_register_pto(PtoInterp *I) {
  for (int id = 0; id < PTO_PTO_NUM_OPS; id++) {
    PtoInterpHandler h = NULL;
    switch (pto_pto_op_kind((PtoPtoOp)id)) {
    case PTO_PTO_KIND_LOAD: h = h_load; break;
    case PTO_PTO_KIND_STORE: h = h_store; break;
    case PTO_PTO_KIND_PREFETCH: h = h_prefetch; break;
    case PTO_PTO_KIND_GATHERGM: h = h_gather_gm; break;
    case PTO_PTO_KIND_SCATTERGM: h = h_scatter_gm; break;
    case PTO_PTO_KIND_RANDOM: h = h_random; break;
    case PTO_PTO_KIND_MOV: case PTO_PTO_KIND_TRANS: case PTO_PTO_KIND_BINARY:
    case PTO_PTO_KIND_SCALAR: case PTO_PTO_KIND_ROWEXPAND: case PTO_PTO_KIND_UNARY:
    case PTO_PTO_KIND_CVT: case PTO_PTO_KIND_CMP: case PTO_PTO_KIND_SEL:
    case PTO_PTO_KIND_ROWRED: case PTO_PTO_KIND_COLRED: case PTO_PTO_KIND_GATHER:
    case PTO_PTO_KIND_QUANT: case PTO_PTO_KIND_MATMUL: case PTO_PTO_KIND_EXPAND:
    case PTO_PTO_KIND_EXPANDS: case PTO_PTO_KIND_PERMUTE:
    case PTO_PTO_KIND_REPEAT: h = h_compute; break;
    case PTO_PTO_KIND_SORT32: case PTO_PTO_KIND_MRGSORT: h = h_sort; break;
    case PTO_PTO_KIND_TOPK: h = h_topk; break;
    case PTO_PTO_KIND_ROWARG: case PTO_PTO_KIND_COLARG:
    case PTO_PTO_KIND_ARGCOMBINE: h = h_arg; break;
    case PTO_PTO_KIND_TOPKMERGE: h = h_topk_merge; break;
    case PTO_PTO_KIND_SETFLAG: case PTO_PTO_KIND_WAITFLAG: h = h_flag; break;
    case PTO_PTO_KIND_BARRIER: h = h_barrier; break;
    case PTO_PTO_KIND_KERNEL: case PTO_PTO_KIND_RETURN: break;
    }
    if (!h) continue;
    char name[48];
    snprintf(name, sizeof name, "pto.%s", pto_pto_op_mnemonic((PtoPtoOp)id));
    pto_interp_register(I, name, h, NULL);
  }
}
