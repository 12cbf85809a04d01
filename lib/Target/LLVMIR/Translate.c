/* The translation of pto.kernel functions to LLVM IR (pto/LLVMIR.h): one
 * emit function per instruction kind, a value map from PTO values to LLVM
 * values, the emitters of Emit.h for the instruction semantics; the module
 * verified by LLVM before it is printed. */
#include "pto/LLVMIR.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/TargetMachine.h>
#include <string.h>

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Target/LLVMIR/EmitUtil.h"
#include "Target/LLVMIR/Fuse.h"
#include "Target/LLVMIR/HostFunction.h"
#include "pto/Dialect/PTO.h"
#include "pto/IRArray.h"

/* A window waiting for a fused run of its tile's shape to prefetch it
 * (note_next_window) */
typedef struct PendingPrefetch {
  PtoEmitTile gm;
  int64_t rows, cols;
} PendingPrefetch;

typedef struct Tr {
  PtoEmit e;
  LLVMValueRef space[PTO_BUF_NUM_SPACES];
  uint64_t cap[PTO_BUF_NUM_SPACES]; /* bytes of each buffer */
  PtoPtrMap values; /* PtoValue * -> LLVMValueRef */
  PtoPtrMap dims;   /* tensor argument PtoValue * -> LLVMValueRef[rank] */
  bool fuse;        /* runs of vector instructions as one loop nest */
  bool prefetch;    /* the next task's windows, during fused runs */
  /* windows of the kernel's tloads as the next task along the innermost
   * tiled dim would load them (note_next_window) */
  PendingPrefetch pf[4];
  unsigned npf;
  bool forward;    /* tloads' readers read GM (Fuse.h, forwarding) */
  PtoPtrMap fwd;   /* a forwarded tload's tile -> PtoEmitTile * its readers read */
} Tr;

static LLVMValueRef value_of(Tr *t, PtoValue *v) {
  return pto_ptrmap_get(&t->values, (uint64_t)(uintptr_t)v);
}
static void bind(Tr *t, PtoValue *v, LLVMValueRef l) {
  pto_ptrmap_put(&t->values, (uint64_t)(uintptr_t)v, l);
}

LLVMTypeRef pto_llvmir_scalar_type(LLVMContextRef c, PtoType *ty) {
  if (pto_type_is_int_or_index(ty))
    return LLVMIntTypeInContext(c, pto_type_bitwidth(ty));
  if (pto_type_is_float(ty)) switch (pto_type_float_kind(ty)) {
    case PTO_F16: return LLVMHalfTypeInContext(c);
    /* its bits: LLVM 14's x86 back end has no calling convention for
     * bfloat arguments (and aborts on one) */
    case PTO_BF16: return LLVMInt16TypeInContext(c);
    case PTO_F32: return LLVMFloatTypeInContext(c);
    case PTO_F64: return LLVMDoubleTypeInContext(c);
    /* their bits too: the kernels only move and convert them */
    case PTO_F8E4M3FN:
    case PTO_F8E5M2:
    case PTO_F8E8M0FNU: return LLVMInt8TypeInContext(c);
    default: break;
    }
  return NULL;
}

/* A tile operand or result where memory planning put it. */
static PtoResult placed_tile(Tr *t, PtoOp *op, PtoValue *v, PtoEmitTile *out) {
  PtoType *ty = pto_value_type(v);
  int64_t off = pto_pto_tile_offset(ty);
  if (off == PTO_PTO_UNPLANNED)
    return pto_op_emit_error(op, "has a tile without an offset; plan memory "
                             "(memory-plan) before translating to LLVM IR");
  PtoDType dt;
  if (!pto_dtype_from_type(pto_pto_tile_elem(ty), &dt)) dt = PTO_DT_BOOL;
  PtoBufSpace s = pto_pto_tile_space(ty);
  uint64_t at = (uint64_t)off, n = (uint64_t)pto_pto_tile_bytes(ty);
  if (at > t->cap[s] || n > t->cap[s] - at) {
    /* the interpreter's words: both run on an image of the buffers */
    char *ts = pto_type_to_string(ty);
    pto_op_emit_error(op, "tile '%s' occupies bytes [%llu, %llu) of %s, which "
                      "has %llu bytes", ts, (unsigned long long)at,
                      (unsigned long long)(at + n), pto_buf_space_name(s),
                      (unsigned long long)t->cap[s]);
    pto_free(ts);
    return PTO_FAILURE;
  }
  *out = pto_emit_tile(&t->e, t->space[s], pto_emit_i64(&t->e, off),
                       pto_emit_i64(&t->e, pto_pto_tile_cols(ty)), dt);
  return PTO_SUCCESS;
}

/* A tile operand or result: where memory planning put it, or for the
 * tile of a forwarded tload, where its readers read it (forward_load). */
static PtoResult tile_of(Tr *t, PtoOp *op, PtoValue *v, PtoEmitTile *out) {
  PtoEmitTile *f = pto_ptrmap_get(&t->fwd, (uint64_t)(uintptr_t)v);
  if (!f) return placed_tile(t, op, v, out);
  *out = *f;
  return PTO_SUCCESS;
}

static LLVMValueRef rows_of(Tr *t, PtoValue *v) {
  return pto_emit_i64(&t->e, pto_pto_tile_rows(pto_value_type(v)));
}
static LLVMValueRef cols_of(Tr *t, PtoValue *v) {
  return pto_emit_i64(&t->e, pto_pto_tile_cols(pto_value_type(v)));
}

/* An emitter's refusal, reported at the instruction. */
static PtoResult emitted(PtoOp *op, PtoResult r, const PtoError *err) {
  return pto_failed(r) ? pto_op_emit_error(op, "%s", err->msg) : PTO_SUCCESS;
}

/* The window of tload / tstore: the tensor's address advanced to the
 * window's first element, with the distance of its rows as stride; a
 * window of several pieces (pto_pto_window_pieces) fills `pieces` with
 * their count, sizes and strides (NULL: refused, for the callers that
 * move one piece only). A tensor's dims are constants or, when dynamic,
 * the kernel's arguments after its pointer; its strides are row-major. */
static PtoResult window_of(Tr *t, PtoOp *op, PtoValue *tensor, PtoValue *tile,
                           PtoDType dt, int ahead, PtoEmitTile *out,
                           PtoEmitPieces *pieces) {
  PtoType *ty = pto_value_type(tensor), *tt = pto_value_type(tile);
  LLVMValueRef *dims = pto_ptrmap_get(&t->dims, (uint64_t)(uintptr_t)tensor);
  unsigned rank = pto_type_tensor_rank(ty);
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  if (!dims)
    return pto_op_emit_error(op, "reads or writes a tensor that is not an "
                             "argument of its kernel");
  if (pto_pto_get_offsets(op, offs, dyn) != rank ||
      pto_pto_window_sizes(op, sizes) != rank)
    return pto_op_emit_error(op, "has malformed window offsets or sizes");
  int64_t rows = pto_pto_tile_rows(tt), cols = pto_pto_tile_cols(tt);
  LLVMBuilderRef b = t->e.b;
  LLVMValueRef stride[PTO_MAX_RANK];
  int64_t ss[PTO_MAX_RANK];
  /* static strides let rows of several dims merge into one piece; with
   * dynamic dims each non-unit leading dim but the innermost is a loop */
  bool known = pto_pto_tensor_strides(ty, ss);
  PtoPtoWindowPieces w;
  if (!pto_pto_window_pieces(rank, sizes, known ? ss : NULL, rows, cols, &w))
    return pto_op_emit_error(op, "has a window that does not hold its tile");
  if (w.pieces > 1 && !pieces)
    return pto_op_emit_error(op, "has a window of %lld pieces where one is "
                             "expected", (long long)w.pieces);
  if (known) {
    for (unsigned d = 0; d < rank; d++) stride[d] = pto_emit_i64(&t->e, ss[d]);
  } else {
    stride[rank - 1] = pto_emit_i64(&t->e, 1);
    for (unsigned d = rank - 1; d > 0; d--)
      stride[d - 1] = LLVMBuildMul(b, stride[d], dims[d], "");
  }
  LLVMValueRef row_stride = w.row_dim >= 0 && w.piece_rows != 1
                                ? stride[w.row_dim]
                                : pto_emit_i64(&t->e, 0);
  /* the columns are consecutive when every dim after theirs is 1 */
  bool contiguous = true;
  if (w.col_dim >= 0 && known)
    contiguous = ss[w.col_dim] == 1;
  else if (w.col_dim >= 0)
    for (unsigned d = (unsigned)w.col_dim + 1; d < rank; d++)
      contiguous = contiguous && pto_type_tensor_dim(ty, d) == 1;
  if (!contiguous)
    return pto_op_emit_error(op, "reads or writes a window whose columns are "
                             "not consecutive elements of the tensor, which "
                             "the LLVM translation does not take yet");
  if (pieces) {
    pieces->n = w.num_outer;
    pieces->piece_rows = w.piece_rows;
    for (unsigned k = 0; k < w.num_outer; k++) {
      pieces->size[k] = w.outer_size[k];
      pieces->stride[k] = stride[w.outer_dim[k]];
    }
  }
  LLVMValueRef elems = pto_emit_i64(&t->e, 0);
  for (unsigned d = 0; d < rank; d++) {
    LLVMValueRef at = dyn[d] ? value_of(t, dyn[d]) : pto_emit_i64(&t->e, offs[d]);
    if ((int)d == ahead) { /* the window after this one, if it fits */
      LLVMValueRef size = pto_emit_i64(&t->e, sizes[d]), next = LLVMBuildAdd(b, at, size, "");
      LLVMValueRef fits =
          LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildAdd(b, next, size, ""), dims[d], "");
      at = LLVMBuildSelect(b, fits, next, at, "");
    }
    elems = LLVMBuildAdd(b, elems, LLVMBuildMul(b, at, stride[d], ""), "");
  }
  LLVMValueRef bytes = LLVMBuildMul(
      b, elems, pto_emit_i64(&t->e, (int64_t)pto_dtype_size(dt)), "");
  *out = pto_emit_tile(&t->e, value_of(t, tensor), bytes, row_stride, dt);
  return PTO_SUCCESS;
}

/* A GM tensor argument's bytes [lo, hi) as i64 addresses. */
static void extent_of(Tr *t, PtoValue *tensor, LLVMValueRef *lo, LLVMValueRef *hi) {
  LLVMBuilderRef b = t->e.b;
  PtoType *ty = pto_value_type(tensor);
  LLVMValueRef *dims = pto_ptrmap_get(&t->dims, (uint64_t)(uintptr_t)tensor);
  PtoDType dt;
  if (!pto_dtype_from_type(pto_type_tensor_elem(ty), &dt)) dt = PTO_DT_I8;
  LLVMValueRef n = pto_emit_i64(&t->e, (int64_t)pto_dtype_size(dt));
  for (unsigned d = 0, r = pto_type_tensor_rank(ty); d < r; d++)
    n = LLVMBuildMul(b, n, dims[d], "");
  *lo = LLVMBuildPtrToInt(b, value_of(t, tensor), LLVMInt64TypeInContext(t->e.ctx), "");
  *hi = LLVMBuildAdd(b, *lo, n, "");
}

/* A tload the kernel may forward (Fuse.h): its readers read `gm`, the
 * window, instead of `ub`, the tile where memory planning put it, and the
 * tload copies nothing; where the tensor overlaps one the kernel writes
 * later (tensor arguments may share a buffer), the tload copies the tile
 * after all and the readers read the copy, decided at run time. Returns
 * whether the tload is forwarded. */
static bool forward_load(Tr *t, PtoOp *op, PtoValue *tv, PtoEmitTile ub, PtoEmitTile gm) {
  PtoForward f;
  if (!t->forward || gm.dtype != ub.dtype || !pto_llvmir_forward_plan(op, &f)) return false;
  LLVMBuilderRef b = t->e.b;
  LLVMValueRef lo, hi, alias = NULL;
  PtoValue *tensor = pto_op_operand(op, 0);
  for (unsigned i = 0; i < f.n; i++) {
    LLVMValueRef wlo, whi;
    if (i == 0) extent_of(t, tensor, &lo, &hi);
    extent_of(t, f.writes[i], &wlo, &whi);
    /* one statement each: the order of the instructions is the same
     * whichever order a compiler evaluates arguments in */
    LLVMValueRef below = LLVMBuildICmp(b, LLVMIntULT, wlo, hi, "");
    LLVMValueRef above = LLVMBuildICmp(b, LLVMIntULT, lo, whi, "");
    LLVMValueRef o = LLVMBuildAnd(b, above, below, "");
    alias = alias ? LLVMBuildOr(b, alias, o, "") : o;
  }
  PtoEmitTile *rd = pto_malloc(sizeof *rd);
  *rd = gm;
  if (alias) { /* the tload's copy, when the buffers overlap */
    LLVMBasicBlockRef copy = LLVMAppendBasicBlockInContext(t->e.ctx, t->e.fn, "fwd.copy");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(t->e.ctx, t->e.fn, "fwd.join");
    LLVMBuildCondBr(b, alias, copy, join);
    LLVMPositionBuilderAtEnd(b, copy);
    PtoError err;
    PtoResult r = pto_emit_copy(&t->e, ub, gm, rows_of(t, tv), cols_of(t, tv), &err);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    if (pto_failed(r)) { /* cannot happen for a copy of one dtype; no forwarding */
      pto_free(rd);
      return false;
    }
    rd->ptr = LLVMBuildSelect(b, alias, ub.ptr, gm.ptr, "");
    rd->row_stride = LLVMBuildSelect(b, alias, ub.row_stride, gm.row_stride, "");
  }
  pto_free(pto_ptrmap_get(&t->fwd, (uint64_t)(uintptr_t)tv));
  pto_ptrmap_put(&t->fwd, (uint64_t)(uintptr_t)tv, rd);
  return true;
}

static PtoResult emit_memory(Tr *t, PtoOp *op, PtoPtoKind kind) {
  PtoError err;
  PtoEmitTile tile, gm;
  if (kind == PTO_PTO_KIND_PREFETCH) return PTO_SUCCESS; /* a hint */
  if (kind == PTO_PTO_KIND_MOV) {
    PtoEmitTile src;
    if (pto_failed(tile_of(t, op, pto_op_operand(op, 0), &src)) ||
        pto_failed(tile_of(t, op, pto_op_result(op, 0), &tile)))
      return PTO_FAILURE;
    return emitted(op, pto_emit_copy(&t->e, tile, src,
                                     rows_of(t, pto_op_result(op, 0)),
                                     cols_of(t, pto_op_result(op, 0)), &err),
                   &err);
  }
  bool load = kind == PTO_PTO_KIND_LOAD;
  PtoValue *tv = load ? pto_op_result(op, 0) : pto_op_operand(op, 0);
  PtoValue *tensor = pto_op_operand(op, load ? 0 : 1);
  PtoDType gdt;
  if (pto_failed(load ? placed_tile(t, op, tv, &tile) : tile_of(t, op, tv, &tile)))
    return PTO_FAILURE;
  if (!pto_dtype_from_type(pto_type_tensor_elem(pto_value_type(tensor)), &gdt))
    gdt = tile.dtype;
  PtoEmitPieces pieces;
  if (pto_failed(window_of(t, op, tensor, tv, gdt, -1, &gm, &pieces)))
    return PTO_FAILURE;
  if (load && !pieces.n && forward_load(t, op, tv, tile, gm)) return PTO_SUCCESS;
  /* an f32 accumulator stored into f16 / bf16: FIX rounds it on the way */
  PtoCastMode rne = {PTO_ROUND_RINT, PTO_SAT_WRAP};
  if (pieces.n)
    return emitted(op, pto_emit_copy_pieces(&t->e, load, tile, gm, &pieces,
                                            cols_of(t, tv),
                                            gdt != tile.dtype ? &rne : NULL, &err),
                   &err);
  PtoResult r = !load && gdt != tile.dtype
                    ? pto_emit_cast(&t->e, rne, gm, tile, rows_of(t, tv),
                                    cols_of(t, tv), &err)
                : load ? pto_emit_copy(&t->e, tile, gm, rows_of(t, tv),
                                     cols_of(t, tv), &err)
                : pto_llvmir_streams(tensor) ? pto_emit_copy_streaming(&t->e, gm, tile, rows_of(t, tv),
                                                           cols_of(t, tv), &err)
                                  : pto_emit_copy(&t->e, gm, tile, rows_of(t, tv),
                                                  cols_of(t, tv), &err);
  return emitted(op, r, &err);
}

/* An instruction's site in a fault record: its 1-based position in its
 * kernel's body (pto/LLVMIR.h). */
static int64_t op_site(PtoOp *op) {
  int64_t n = 1;
  for (PtoOp *o = pto_op_prev(op); o; o = pto_op_prev(o)) n++;
  return n;
}

bool pto_llvmir_kernel_can_fault(PtoOp *kernel) {
  PtoBlock *body = pto_region_first_block(pto_op_region(kernel, 0));
  for (PtoOp *op = body ? pto_block_first_op(body) : NULL; op; op = pto_op_next(op))
    if (pto_pto_op_id(op) == PTO_PTO_TGATHER_GM || pto_pto_op_id(op) == PTO_PTO_TSCATTER_GM)
      return true;
  return false;
}

int64_t pto_llvmir_kernel_fault_slot(PtoOp *kernel) {
  if (!pto_llvmir_kernel_can_fault(kernel)) return -1;
  PtoBlock *body = pto_region_first_block(pto_op_region(kernel, 0));
  int64_t n = pto_block_num_args(body);
  for (unsigned i = 0; i < pto_block_num_args(body); i++) {
    PtoType *ty = pto_value_type(pto_block_arg(body, i));
    if (pto_type_is_tensor(ty)) n += pto_llvmir_dynamic_dims(ty);
  }
  return n;
}

PtoOp *pto_llvmir_fault_op(PtoOp *kernel, int64_t site) {
  PtoBlock *body = pto_region_first_block(pto_op_region(kernel, 0));
  PtoOp *op = body ? pto_block_first_op(body) : NULL;
  for (int64_t n = 1; op && n < site; n++) op = pto_op_next(op);
  return site >= 1 ? op : NULL;
}

/* The GM window of tgather_gm / tscatter_gm (tensor operand `gi`): it
 * starts at the offsets (0 along `dim`), the tile seen in the tensor's
 * rank, the tensor's dims their run-time strides apart; its extent along
 * dim bounds the indices. */
static PtoResult indexed_window(Tr *t, PtoOp *op, unsigned gi, PtoDType dt,
                                PtoEmitGmWindow *w) {
  PtoValue *tensor = pto_op_operand(op, gi);
  LLVMValueRef *dims = pto_ptrmap_get(&t->dims, (uint64_t)(uintptr_t)tensor);
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  PtoAttr *d = pto_op_attr(op, "dim");
  if (!dims)
    return pto_op_emit_error(op, "addresses a tensor that is not an argument of "
                             "its kernel");
  unsigned n = pto_pto_indexed_shape(op, w->shape);
  if (!n || pto_pto_get_offsets(op, offs, dyn) != n || !d || pto_attr_int_value(d) < 0 ||
      pto_attr_int_value(d) >= (int64_t)n)
    return pto_op_emit_error(op, "has a malformed indexed window");
  w->rank = n;
  w->dim = (unsigned)pto_attr_int_value(d);
  w->dtype = dt;
  LLVMBuilderRef b = t->e.b;
  w->stride[n - 1] = pto_emit_i64(&t->e, 1);
  for (unsigned k = n - 1; k > 0; k--) w->stride[k - 1] = LLVMBuildMul(b, w->stride[k], dims[k], "");
  LLVMValueRef elems = pto_emit_i64(&t->e, 0);
  for (unsigned k = 0; k < n; k++) {
    if (k == w->dim) continue;
    LLVMValueRef at = dyn[k] ? value_of(t, dyn[k]) : pto_emit_i64(&t->e, offs[k]);
    elems = LLVMBuildAdd(b, elems, LLVMBuildMul(b, at, w->stride[k], ""), "");
  }
  LLVMValueRef bytes = LLVMBuildMul(b, elems, pto_emit_i64(&t->e, (int64_t)pto_dtype_size(dt)), "");
  w->ptr = pto_emit_tile(&t->e, value_of(t, tensor), bytes, w->stride[0], dt).ptr;
  w->extent = dims[w->dim];
  t->e.site = op_site(op);
  return PTO_SUCCESS;
}

static PtoResult emit_gather_gm(Tr *t, PtoOp *op) {
  PtoEmitTile dst, index;
  PtoEmitGmWindow gm;
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &dst)) ||
      pto_failed(tile_of(t, op, pto_op_operand(op, 1), &index)) ||
      pto_failed(indexed_window(t, op, 0, dst.dtype, &gm)))
    return PTO_FAILURE;
  PtoError err;
  PtoValue *r = pto_op_result(op, 0);
  return emitted(op, pto_emit_gather_gm(&t->e, dst, &gm, index, rows_of(t, r), cols_of(t, r), &err),
                 &err);
}

/* tscatter_gm: the tile (operand 0) into the window of operand 1 at the
 * indices of operand 2, a full tile or one row of slice indices. */
static PtoResult emit_scatter_gm(Tr *t, PtoOp *op) {
  PtoEmitTile src, index;
  PtoEmitGmWindow gm;
  PtoValue *sv = pto_op_operand(op, 0), *iv = pto_op_operand(op, 2);
  if (pto_failed(tile_of(t, op, sv, &src)) || pto_failed(tile_of(t, op, iv, &index)) ||
      pto_failed(indexed_window(t, op, 1, src.dtype, &gm)))
    return PTO_FAILURE;
  const char *m = pto_op_attr_str(op, "mode");
  PtoEmitScatter mode = m && strcmp(m, "add") == 0        ? PTO_EMIT_SCATTER_ADD
                        : m && strcmp(m, "multiply") == 0 ? PTO_EMIT_SCATTER_MUL
                                                          : PTO_EMIT_SCATTER_OVERWRITE;
  PtoType *it = pto_value_type(iv), *tt = pto_value_type(sv);
  bool slices = pto_pto_tile_rows(it) != pto_pto_tile_rows(tt) ||
                pto_pto_tile_cols(it) != pto_pto_tile_cols(tt);
  PtoError err;
  return emitted(op, pto_emit_scatter_gm(&t->e, &gm, src, index, mode, slices, rows_of(t, sv),
                                         cols_of(t, sv), &err),
                 &err);
}

static PtoEmitBinary binary_of(PtoPtoOp id) {
  switch (id) {
  case PTO_PTO_TSUB: case PTO_PTO_TSUBS: case PTO_PTO_TROWEXPANDSUB:
    return PTO_EMIT_BIN_SUB;
  case PTO_PTO_TMUL: case PTO_PTO_TMULS: case PTO_PTO_TROWEXPANDMUL:
    return PTO_EMIT_BIN_MUL;
  case PTO_PTO_TDIV: case PTO_PTO_TDIVS: case PTO_PTO_TROWEXPANDDIV:
    return PTO_EMIT_BIN_DIV;
  case PTO_PTO_TMAX: case PTO_PTO_TMAXS: case PTO_PTO_TROWEXPANDMAX:
    return PTO_EMIT_BIN_MAX;
  case PTO_PTO_TMIN: case PTO_PTO_TMINS: case PTO_PTO_TROWEXPANDMIN:
    return PTO_EMIT_BIN_MIN;
  default: return PTO_EMIT_BIN_ADD;
  }
}

static PtoEmitUnary unary_of(PtoPtoOp id) {
  switch (id) {
  case PTO_PTO_TLOG: return PTO_EMIT_UN_LOG;
  case PTO_PTO_TSQRT: return PTO_EMIT_UN_SQRT;
  case PTO_PTO_TRSQRT: return PTO_EMIT_UN_RSQRT;
  case PTO_PTO_TRECIP: return PTO_EMIT_UN_RECIP;
  case PTO_PTO_TRELU: return PTO_EMIT_UN_RELU;
  case PTO_PTO_TABS: return PTO_EMIT_UN_ABS;
  case PTO_PTO_TNEG: return PTO_EMIT_UN_NEG;
  default: return PTO_EMIT_UN_EXP;
  }
}

static PtoEmitReduce reduce_of(PtoPtoOp id) {
  return id == PTO_PTO_TROWMAX || id == PTO_PTO_TCOLMAX   ? PTO_EMIT_RED_MAX
         : id == PTO_PTO_TROWMIN || id == PTO_PTO_TCOLMIN ? PTO_EMIT_RED_MIN
                                                          : PTO_EMIT_RED_SUM;
}

/* A vector instruction of a kind a fused run takes as its emitter step:
 * its tiles where they live, a scalar operand in the compute type. */
static PtoResult step_of(Tr *t, PtoOp *op, PtoPtoOp id, PtoPtoKind kind,
                         PtoEmitStep *st) {
  memset(st, 0, sizeof *st);
  st->dst_slot = st->a_slot = st->b_slot = -1;
  st->store = true;
  if (kind == PTO_PTO_KIND_LOAD || kind == PTO_PTO_KIND_STORE) {
    /* a tload or tstore a run took (Fuse.c): the tile and its GM window */
    bool load = kind == PTO_PTO_KIND_LOAD;
    PtoValue *tv = load ? pto_op_result(op, 0) : pto_op_operand(op, 0);
    PtoValue *tensor = pto_op_operand(op, load ? 0 : 1);
    PtoEmitTile *tile = load ? &st->dst : &st->a, *gm = load ? &st->a : &st->dst;
    st->kind = load ? PTO_EMIT_STEP_LOAD : PTO_EMIT_STEP_STORE;
    st->stream = !load && pto_llvmir_streams(tensor);
    if (pto_failed(load ? placed_tile(t, op, tv, tile) : tile_of(t, op, tv, tile)) ||
        pto_failed(window_of(t, op, tensor, tv, tile->dtype, -1, gm, NULL)))
      return PTO_FAILURE;
    /* a forwarded tload loads into registers only (emit_run) */
    if (load) forward_load(t, op, tv, *tile, *gm);
    return PTO_SUCCESS;
  }
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &st->dst)) ||
      pto_failed(tile_of(t, op, pto_op_operand(op, 0), &st->a)))
    return PTO_FAILURE;
  switch (kind) {
  case PTO_PTO_KIND_BINARY:
  case PTO_PTO_KIND_ROWEXPAND:
    st->kind = kind == PTO_PTO_KIND_BINARY ? PTO_EMIT_STEP_BINARY : PTO_EMIT_STEP_ROWEXPAND;
    st->op = binary_of(id);
    return tile_of(t, op, pto_op_operand(op, 1), &st->b);
  case PTO_PTO_KIND_SCALAR: {
    LLVMValueRef s = value_of(t, pto_op_operand(op, 1));
    LLVMTypeRef ct = pto_emit_compute_type(&t->e, st->a.dtype);
    if (ct && LLVMGetTypeKind(LLVMTypeOf(s)) == LLVMHalfTypeKind)
      s = LLVMBuildFPExt(t->e.b, s, ct, "");
    else if (ct && st->a.dtype == PTO_DT_BF16) /* bf16 bits: an f32's top half */
      s = LLVMBuildBitCast(
          t->e.b,
          LLVMBuildShl(t->e.b,
                       LLVMBuildZExt(t->e.b, s, LLVMInt32TypeInContext(t->e.ctx), ""),
                       LLVMConstInt(LLVMInt32TypeInContext(t->e.ctx), 16, 0), ""),
          ct, "");
    st->kind = PTO_EMIT_STEP_SCALAR;
    st->op = binary_of(id);
    st->s = s;
    return PTO_SUCCESS;
  }
  case PTO_PTO_KIND_UNARY:
    st->kind = PTO_EMIT_STEP_UNARY;
    st->op = unary_of(id);
    return PTO_SUCCESS;
  default:
    st->kind = PTO_EMIT_STEP_ROWREDUCE;
    st->op = reduce_of(id);
    return PTO_SUCCESS;
  }
}

/* The vector instructions: every tile operand and the result where they
 * live, then the emitter of the kind. */
static PtoResult emit_vector(Tr *t, PtoOp *op, PtoPtoOp id, PtoPtoKind kind) {
  PtoEmitTile dst, a;
  PtoValue *res = pto_op_result(op, 0), *src = pto_op_operand(op, 0);
  /* the shape the instruction runs over is its source's */
  LLVMValueRef rows = rows_of(t, src), cols = cols_of(t, src);
  PtoError err;
  PtoResult r;
  PtoEmitStep st;
  PtoEmitMath m;
  PtoEmitBitwise bw;
  PtoEmitPiecewise pw;
  switch (kind) {
  case PTO_PTO_KIND_BINARY:
  case PTO_PTO_KIND_ROWEXPAND:
  case PTO_PTO_KIND_SCALAR:
  case PTO_PTO_KIND_UNARY:
  case PTO_PTO_KIND_ROWRED:
    if (id == PTO_PTO_TROWPROD) break; /* a product: below */
    if (kind == PTO_PTO_KIND_UNARY && pto_llvmir_math_of(id, &m)) break; /* below */
    if (id == PTO_PTO_TGCD || id == PTO_PTO_TPOW || id == PTO_PTO_TATAN2) break; /* below */
    if (pto_llvmir_bitwise_of(id, &bw) || pto_llvmir_piecewise_of(id, &pw)) break;
    if (pto_failed(step_of(t, op, id, kind, &st))) return PTO_FAILURE;
    switch (st.kind) {
    case PTO_EMIT_STEP_BINARY:
      r = pto_emit_binary(&t->e, st.op, st.dst, st.a, st.b, rows, cols, &err);
      break;
    case PTO_EMIT_STEP_ROWEXPAND:
      r = pto_emit_row_expand(&t->e, st.op, st.dst, st.a, st.b, rows, cols, &err);
      break;
    case PTO_EMIT_STEP_SCALAR:
      r = pto_emit_binary_scalar(&t->e, st.op, st.dst, st.a, st.s, rows, cols, &err);
      break;
    case PTO_EMIT_STEP_UNARY:
      r = pto_emit_unary(&t->e, st.op, st.dst, st.a, rows, cols, &err);
      break;
    default:
      r = pto_emit_row_reduce(&t->e, st.op, st.dst, st.a, rows, cols, &err);
      break;
    }
    return emitted(op, r, &err);
  default: break;
  }
  if (pto_failed(tile_of(t, op, res, &dst)) ||
      pto_failed(tile_of(t, op, src, &a)))
    return PTO_FAILURE;
  switch (kind) {
  case PTO_PTO_KIND_UNARY: { /* the Tile level's elementwise math */
    PtoUnaryRow row = pto_pto_unary_row(id);
    double p[2] = {0, 0};
    if (row != PTO_UNARY_ROW_NONE) pto_unary_row_params(op, row, p);
    r = pto_llvmir_piecewise_of(id, &pw)
            ? pto_emit_piecewise(&t->e, pw, p, dst, a, rows, cols, &err)
            : pto_emit_math(&t->e, m, dst, a, rows, cols, &err);
    break;
  }
  case PTO_PTO_KIND_BINARY: { /* tgcd, tpow, tatan2, the bitwise ops */
    PtoEmitTile b;
    if (pto_failed(tile_of(t, op, pto_op_operand(op, 1), &b))) return PTO_FAILURE;
    r = id == PTO_PTO_TPOW || id == PTO_PTO_TATAN2
            ? pto_emit_pow(&t->e, id == PTO_PTO_TATAN2, dst, a, b, rows, cols, &err)
        : pto_llvmir_bitwise_of(id, &bw)
            ? pto_emit_bitwise(&t->e, bw, dst, a, b, rows, cols, &err)
            : pto_emit_gcd(&t->e, dst, a, b, rows, cols, &err);
    break;
  }
  case PTO_PTO_KIND_ROWRED: /* trowprod */
    r = pto_emit_prod(&t->e, false, dst, a, rows, cols, &err);
    break;
  case PTO_PTO_KIND_COLRED:
    if (id == PTO_PTO_TCOLPROD)
      r = pto_emit_prod(&t->e, true, dst, a, rows, cols, &err);
    else if (id == PTO_PTO_TCOLSUM && (a.dtype == PTO_DT_F16 || a.dtype == PTO_DT_BF16))
      r = pto_emit_col_sum_narrow(&t->e, dst, a, rows, cols, &err);
    else
      r = pto_emit_col_reduce(&t->e, reduce_of(id), dst, a, rows, cols, &err);
    break;
  case PTO_PTO_KIND_TRANS:
    r = pto_emit_transpose(&t->e, dst, a, rows, cols, &err);
    break;
  default: { /* tcvt */
    PtoCastMode mode = {PTO_ROUND_RINT, PTO_SAT_WRAP};
    const char *m = pto_op_attr_str(op, "mode");
    if (m && !pto_round_mode_from_name(m, &mode.round))
      return pto_op_emit_error(op, "unknown rounding mode '%s'", m);
    const char *sat = pto_op_attr_str(op, "satmode");
    if (sat && strcmp(sat, "on") == 0) mode.sat = PTO_SAT_SATURATE;
    r = pto_emit_cast(&t->e, mode, dst, a, rows, cols, &err);
    break;
  }
  }
  return emitted(op, r, &err);
}

/* texpand and texpands: over the result's rows and columns, from a tile
 * whose dims of 1 broadcast or from the scalar's bits. */
static PtoResult emit_expand(Tr *t, PtoOp *op, PtoPtoKind kind) {
  PtoEmitTile dst, a;
  PtoValue *res = pto_op_result(op, 0), *src = pto_op_operand(op, 0);
  if (pto_failed(tile_of(t, op, res, &dst))) return PTO_FAILURE;
  LLVMValueRef rows = rows_of(t, res), cols = cols_of(t, res);
  PtoError err;
  if (kind == PTO_PTO_KIND_EXPAND) {
    if (pto_failed(tile_of(t, op, src, &a))) return PTO_FAILURE;
    PtoType *st = pto_value_type(src);
    return emitted(op,
                   pto_emit_expand(&t->e, dst, a, pto_pto_tile_rows(st) == 1,
                                   pto_pto_tile_cols(st) == 1, rows, cols, &err),
                   &err);
  }
  /* the scalar as an integer of the element's width: floats bit for bit,
   * i1 as the byte the tile holds */
  LLVMValueRef s = value_of(t, src);
  LLVMTypeRef ty = LLVMTypeOf(s);
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  if (k == LLVMFloatTypeKind || k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind)
    s = LLVMBuildBitCast(t->e.b, s,
                         LLVMIntTypeInContext(t->e.ctx, k == LLVMFloatTypeKind ? 32 : 16), "");
  else if (k == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(ty) == 1)
    s = LLVMBuildZExt(t->e.b, s, LLVMInt8TypeInContext(t->e.ctx), "");
  return emitted(op, pto_emit_fill(&t->e, dst, s, rows, cols, &err), &err);
}

/* trandom: the key and counter values, the window from the attributes
 * (the verifier checked them) */
static PtoResult emit_random(Tr *t, PtoOp *op) {
  PtoEmitTile dst;
  PtoValue *res = pto_op_result(op, 0);
  if (pto_failed(tile_of(t, op, res, &dst))) return PTO_FAILURE;
  int64_t o[PTO_MAX_RANK], f[PTO_MAX_RANK], w[PTO_MAX_RANK];
  bool normal;
  unsigned nf = pto_pto_get_random_window(op, o, f, w, &normal);
  PtoError err;
  return emitted(op,
                 pto_emit_random(&t->e, normal, dst,
                                 value_of(t, pto_op_operand(op, 0)),
                                 value_of(t, pto_op_operand(op, 1)), nf, o, f, w,
                                 rows_of(t, res), cols_of(t, res), &err),
                 &err);
}

/* tpermute, trepeat: the copy through the view their attributes give. */
static PtoResult emit_layout(Tr *t, PtoOp *op) {
  PtoEmitTile dst, src;
  int64_t shape[PTO_MAX_RANK], stride[PTO_MAX_RANK];
  unsigned rank = pto_pto_layout_map(op, shape, stride);
  if (!rank) return pto_op_emit_error(op, "has a malformed view");
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &dst)) ||
      pto_failed(tile_of(t, op, pto_op_operand(op, 0), &src)))
    return PTO_FAILURE;
  PtoError err;
  return emitted(op, pto_emit_layout(&t->e, dst, src, rank, shape, stride, &err), &err);
}

/* tcmp, tsel, tgather, tquant, tsort32, tmrgsort: their tiles, then the
 * emitter of the kind. */
static PtoResult emit_select_sort(Tr *t, PtoOp *op, PtoPtoKind kind) {
  PtoEmitTile dst, in[3];
  unsigned n = pto_op_num_operands(op);
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &dst))) return PTO_FAILURE;
  for (unsigned i = 0; i < n && i < 3; i++)
    if (pto_failed(tile_of(t, op, pto_op_operand(op, i), &in[i]))) return PTO_FAILURE;
  PtoValue *src = pto_op_operand(op, kind == PTO_PTO_KIND_SEL ? 1 : 0);
  LLVMValueRef rows = rows_of(t, src), cols = cols_of(t, src);
  PtoError err;
  PtoResult r;
  switch (kind) {
  case PTO_PTO_KIND_CMP: {
    const char *p = pto_op_attr_str(op, "cmp");
    unsigned k = 0;
    while (k < 5 && (!p || strcmp(p, pto_emit_compare_name((PtoEmitCompare)k)) != 0)) k++;
    r = pto_emit_compare(&t->e, (PtoEmitCompare)k, dst, in[0], in[1], rows, cols, &err);
    break;
  }
  case PTO_PTO_KIND_SEL:
    r = pto_emit_select(&t->e, dst, in[0], in[1], in[2], rows, cols, &err);
    break;
  case PTO_PTO_KIND_GATHER: /* the result's shape is the index tile's */
    r = pto_emit_gather(&t->e, dst, in[0], in[1], rows, cols,
                        cols_of(t, pto_op_result(op, 0)), &err);
    break;
  case PTO_PTO_KIND_QUANT:
    r = pto_emit_quant(&t->e, dst, in[0], in[1], rows, cols, &err);
    break;
  default: { /* tsort32, tmrgsort */
    PtoEmitTile idx;
    if (pto_failed(tile_of(t, op, pto_op_result(op, 1), &idx))) return PTO_FAILURE;
    bool merge = kind == PTO_PTO_KIND_MRGSORT;
    int64_t w = merge ? 2 * pto_op_attr_int(op, "block", 1) : 32;
    r = pto_emit_sort(&t->e, dst, idx, in[0], merge ? &in[1] : NULL, rows,
                      pto_pto_tile_cols(pto_value_type(src)), w, &err);
    break;
  }
  }
  return emitted(op, r, &err);
}

static PtoResult emit_topk(Tr *t, PtoOp *op) {
  PtoEmitTile v, i, src;
  PtoValue *a = pto_op_operand(op, 0);
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &v)) ||
      pto_failed(tile_of(t, op, pto_op_result(op, 1), &i)) ||
      pto_failed(tile_of(t, op, a, &src)))
    return PTO_FAILURE;
  PtoAttr *l = pto_op_attr(op, "largest");
  PtoError err;
  return emitted(op,
                 pto_emit_topk(&t->e, v, i, src, rows_of(t, a), cols_of(t, a),
                               pto_op_attr_int(op, "k", 1),
                               !l || pto_attr_int_value(l) != 0, &err),
                 &err);
}

/* trowarg*, tcolarg* and targ*_combine: two results, one or four tiles. */
static PtoResult emit_arg(Tr *t, PtoOp *op, PtoPtoOp id, PtoPtoKind kind) {
  PtoEmitTile v, i, in[4];
  unsigned n = kind == PTO_PTO_KIND_ARGCOMBINE ? 4 : 1;
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &v)) ||
      pto_failed(tile_of(t, op, pto_op_result(op, 1), &i)))
    return PTO_FAILURE;
  for (unsigned k = 0; k < n; k++)
    if (pto_failed(tile_of(t, op, pto_op_operand(op, k), &in[k]))) return PTO_FAILURE;
  PtoValue *a = pto_op_operand(op, 0);
  bool max = id == PTO_PTO_TROWARGMAX || id == PTO_PTO_TCOLARGMAX ||
             id == PTO_PTO_TARGMAX_COMBINE;
  PtoError err;
  PtoResult r =
      kind == PTO_PTO_KIND_ARGCOMBINE
          ? pto_emit_arg_combine(&t->e, max, v, i, in[0], in[1], in[2], in[3],
                                 rows_of(t, a), cols_of(t, a), &err)
          : pto_emit_arg(&t->e, kind == PTO_PTO_KIND_COLARG, max, v, i, in[0],
                         rows_of(t, a), cols_of(t, a), &err);
  return emitted(op, r, &err);
}

static PtoResult emit_topk_merge(Tr *t, PtoOp *op) {
  PtoEmitTile v, i, in[4];
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &v)) ||
      pto_failed(tile_of(t, op, pto_op_result(op, 1), &i)))
    return PTO_FAILURE;
  for (unsigned k = 0; k < 4; k++)
    if (pto_failed(tile_of(t, op, pto_op_operand(op, k), &in[k]))) return PTO_FAILURE;
  PtoValue *a = pto_op_operand(op, 0), *b = pto_op_operand(op, 2);
  PtoAttr *l = pto_op_attr(op, "largest");
  PtoError err;
  return emitted(op,
                 pto_emit_topk_merge(&t->e, v, i, in[0], in[1], in[2], in[3],
                                     rows_of(t, a), cols_of(t, a), cols_of(t, b),
                                     pto_op_attr_int(op, "k", 1),
                                     !l || pto_attr_int_value(l) != 0, &err),
                 &err);
}

static PtoResult emit_matmul(Tr *t, PtoOp *op, PtoPtoOp id) {
  bool acc = id == PTO_PTO_TMATMUL_ACC;
  PtoValue *av = pto_op_operand(op, acc ? 1 : 0), *bv = pto_op_operand(op, acc ? 2 : 1);
  PtoEmitTile c, a, b;
  if (pto_failed(tile_of(t, op, pto_op_result(op, 0), &c)) ||
      pto_failed(tile_of(t, op, av, &a)) || pto_failed(tile_of(t, op, bv, &b)))
    return PTO_FAILURE;
  PtoType *at = pto_value_type(av), *bt = pto_value_type(bv);
  PtoError err;
  if (acc) { /* C0 and C share one buffer, but say so if they do not */
    PtoEmitTile c0;
    if (pto_failed(tile_of(t, op, pto_op_operand(op, 0), &c0))) return PTO_FAILURE;
    if (pto_pto_tile_offset(pto_value_type(pto_op_operand(op, 0))) !=
        pto_pto_tile_offset(pto_value_type(pto_op_result(op, 0))))
      return pto_op_emit_error(op, "accumulates in place, but its result is "
                               "not at its accumulator's offset");
  }
  if (id == PTO_PTO_TMATMUL_BIAS) { /* C = bias in every row, then C += A B */
    PtoEmitTile bias;
    if (pto_failed(tile_of(t, op, pto_op_operand(op, 2), &bias)) ||
        pto_failed(emitted(op,
                           pto_emit_broadcast_row(&t->e, c, bias,
                                                  rows_of(t, pto_op_result(op, 0)),
                                                  cols_of(t, pto_op_result(op, 0)), &err),
                           &err)))
      return PTO_FAILURE;
    acc = true;
  }
  return emitted(op,
                 pto_emit_matmul(&t->e, c, a, b, pto_pto_tile_rows(at),
                                 pto_pto_tile_cols(at), pto_pto_tile_cols(bt),
                                 acc, &err),
                 &err);
}

/* Scalar arithmetic inside kernels: constants and index arithmetic. */
static PtoResult emit_arith(Tr *t, PtoOp *op) {
  LLVMValueRef in[3] = {NULL, NULL, NULL};
  unsigned n = pto_op_num_operands(op);
  for (unsigned i = 0; i < n && i < 3; i++) in[i] = value_of(t, pto_op_operand(op, i));
  LLVMValueRef r = n <= 3 ? pto_llvmir_emit_scalar(t->e.ctx, t->e.b, op, in) : NULL;
  if (!r) return pto_op_emit_error(op, "cannot be translated to LLVM IR yet");
  bind(t, pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

static PtoResult emit_op(Tr *t, PtoOp *op) {
  PtoPtoOp id = pto_pto_op_id(op);
  if (id == PTO_PTO_NONE) return emit_arith(t, op);
  PtoPtoKind kind = pto_pto_op_kind(id);
  switch (kind) {
  case PTO_PTO_KIND_RETURN:
  /* flags order the pipes of an accelerator core; on a host core the
   * instructions run in program order, which the flags only constrain */
  case PTO_PTO_KIND_SETFLAG:
  case PTO_PTO_KIND_WAITFLAG:
  case PTO_PTO_KIND_BARRIER: return PTO_SUCCESS;
  case PTO_PTO_KIND_LOAD:
  case PTO_PTO_KIND_STORE:
  case PTO_PTO_KIND_MOV:
  case PTO_PTO_KIND_PREFETCH: return emit_memory(t, op, kind);
  case PTO_PTO_KIND_BINARY:
  case PTO_PTO_KIND_SCALAR:
  case PTO_PTO_KIND_UNARY:
  case PTO_PTO_KIND_CVT:
  case PTO_PTO_KIND_ROWRED:
  case PTO_PTO_KIND_COLRED:
  case PTO_PTO_KIND_TRANS:
  case PTO_PTO_KIND_ROWEXPAND: return emit_vector(t, op, id, kind);
  case PTO_PTO_KIND_MATMUL: return emit_matmul(t, op, id);
  case PTO_PTO_KIND_CMP:
  case PTO_PTO_KIND_SEL:
  case PTO_PTO_KIND_GATHER:
  case PTO_PTO_KIND_QUANT:
  case PTO_PTO_KIND_SORT32:
  case PTO_PTO_KIND_MRGSORT: return emit_select_sort(t, op, kind);
  case PTO_PTO_KIND_TOPK: return emit_topk(t, op);
  case PTO_PTO_KIND_EXPAND:
  case PTO_PTO_KIND_EXPANDS: return emit_expand(t, op, kind);
  case PTO_PTO_KIND_ROWARG:
  case PTO_PTO_KIND_COLARG:
  case PTO_PTO_KIND_ARGCOMBINE: return emit_arg(t, op, id, kind);
  case PTO_PTO_KIND_TOPKMERGE: return emit_topk_merge(t, op);
  case PTO_PTO_KIND_GATHERGM: return emit_gather_gm(t, op);
  case PTO_PTO_KIND_SCATTERGM: return emit_scatter_gm(t, op);
  case PTO_PTO_KIND_RANDOM: return emit_random(t, op);
  case PTO_PTO_KIND_PERMUTE:
  case PTO_PTO_KIND_REPEAT: return emit_layout(t, op);
  default: return pto_op_emit_error(op, "cannot be translated to LLVM IR yet");
  }
}

/* Prefetching (docs/jit.md, "Prefetching"). A vector kernel is one task
 * of a loop over tiles, and the next task along the innermost dim the
 * tiles divide loads the window after a tload's. That window (the tload's
 * own when the next one would leave the tensor: lines already cached)
 * waits for the first fused run of the tile's shape after the tload,
 * whose whole vectors prefetch one element of it each, a line of f32 at
 * 16 lanes: the reads from memory then overlap the run's arithmetic
 * instead of stalling the next task's tload. Windows of several pieces,
 * or that are the whole tensor, are not prefetched. */
static void note_next_window(Tr *t, PtoOp *op) {
  PtoPtoOp id = pto_pto_op_id(op);
  if (!t->prefetch || t->npf == sizeof t->pf / sizeof t->pf[0] || id == PTO_PTO_NONE ||
      pto_pto_op_kind(id) != PTO_PTO_KIND_LOAD)
    return;
  PtoValue *tensor = pto_op_operand(op, 0), *tv = pto_op_result(op, 0);
  PtoType *ty = pto_value_type(tensor), *tt = pto_value_type(tv);
  unsigned rank = pto_type_tensor_rank(ty);
  int64_t sizes[PTO_MAX_RANK];
  PtoDType gdt;
  if (pto_pto_window_sizes(op, sizes) != rank ||
      !pto_dtype_from_type(pto_type_tensor_elem(ty), &gdt))
    return;
  int ahead = -1;
  for (unsigned d = rank; d-- > 0 && ahead < 0;) {
    int64_t n = pto_type_tensor_dim(ty, d);
    if (n == PTO_DYN || sizes[d] < n) ahead = (int)d;
  }
  PtoEmitPieces pieces;
  PtoEmitTile gm;
  /* the tload itself was emitted from the same window: this succeeds */
  if (ahead < 0 || pto_failed(window_of(t, op, tensor, tv, gdt, ahead, &gm, &pieces)) ||
      pieces.n)
    return;
  t->pf[t->npf].gm = gm;
  t->pf[t->npf].rows = pto_pto_tile_rows(tt);
  t->pf[t->npf++].cols = pto_pto_tile_cols(tt);
}

/* The prefetch steps of the windows waiting for a run of this shape, put
 * first in steps; returns their number. */
static unsigned take_prefetches(Tr *t, PtoValue *shape, unsigned room, PtoEmitStep *steps) {
  PtoType *ty = pto_value_type(shape);
  unsigned k = 0;
  for (unsigned i = 0; i < t->npf;) {
    if (k == room || t->pf[i].rows != pto_pto_tile_rows(ty) ||
        t->pf[i].cols != pto_pto_tile_cols(ty)) {
      i++;
      continue;
    }
    memset(&steps[k], 0, sizeof steps[k]);
    steps[k].kind = PTO_EMIT_STEP_PREFETCH;
    steps[k].a = t->pf[i].gm;
    steps[k].dst_slot = steps[k].a_slot = steps[k].b_slot = -1;
    k++;
    t->pf[i] = t->pf[--t->npf];
  }
  return k;
}

/* A planned run (Fuse.h) as one loop nest: its scalar arith ops first,
 * which the steps may use, and the prefetches waiting for it. If an
 * emitter refuses a step, the run is emitted one instruction at a time,
 * which reports it at its op. */
static PtoResult emit_run(Tr *t, PtoOp *first, const PtoFuseRun *run) {
  for (PtoOp *op = first;; op = pto_op_next(op)) {
    PtoPtoOp id = pto_pto_op_id(op);
    if (id == PTO_PTO_NONE) {
      if (pto_failed(emit_arith(t, op))) return PTO_FAILURE;
    } else if (pto_pto_op_kind(id) == PTO_PTO_KIND_LOAD) {
      /* a tload the run's first step fused across (Fuse.c) */
      bool step = false;
      for (unsigned i = 0; i < run->n && !step; i++) step = run->step[i].op == op;
      if (!step && pto_failed(emit_op(t, op))) return PTO_FAILURE;
    }
    if (op == run->last) break;
  }
  PtoEmitStep steps[PTO_EMIT_MAX_STEPS];
  /* a run emitted one instruction at a time leaves them to a later run */
  unsigned npf = t->npf;
  PendingPrefetch pf[sizeof t->pf / sizeof t->pf[0]];
  memcpy(pf, t->pf, sizeof pf);
  unsigned k = take_prefetches(t, run->shape, PTO_EMIT_MAX_STEPS - run->n, steps);
  for (unsigned i = 0; i < run->n; i++) {
    PtoOp *op = run->step[i].op;
    PtoPtoOp id = pto_pto_op_id(op);
    PtoEmitStep *s = &steps[k + i];
    if (pto_failed(step_of(t, op, id, pto_pto_op_kind(id), s))) return PTO_FAILURE;
    s->dst_slot = run->step[i].dst_slot;
    s->a_slot = run->step[i].a_slot;
    s->b_slot = run->step[i].b_slot;
    s->store = run->step[i].store || s->kind == PTO_EMIT_STEP_ROWREDUCE;
    if (s->kind == PTO_EMIT_STEP_LOAD &&
        pto_ptrmap_get(&t->fwd, (uint64_t)(uintptr_t)pto_op_result(op, 0)))
      s->store = false;
  }
  PtoError err;
  unsigned bad;
  if (pto_succeeded(pto_emit_fused(&t->e, steps, k + run->n, rows_of(t, run->shape),
                                   cols_of(t, run->shape), &bad, &err)))
    return PTO_SUCCESS;
  memcpy(t->pf, pf, sizeof pf);
  t->npf = npf;
  /* a forwarded tload of the run plans again here: its overlap check and
   * copy are emitted twice, which is redundant but the same bytes */
  for (unsigned i = 0; i < run->n; i++)
    if (pto_failed(emit_op(t, run->step[i].op))) return PTO_FAILURE;
  return PTO_SUCCESS;
}

/* Frees the values of a map of heap blocks and clears it. */
static void release_map(PtoPtrMap *m) {
  uint32_t it = 0;
  uint64_t key;
  void *val;
  while (pto_ptrmap_next(m, &it, &key, &val)) pto_free(val);
  pto_ptrmap_clear(m);
}

static PtoResult emit_kernel(Tr *t, PtoOp *k) {
  static const PtoBufSpace vector_spaces[] = {PTO_BUF_VEC};
  static const PtoBufSpace cube_spaces[] = {PTO_BUF_MAT, PTO_BUF_LEFT,
                                            PTO_BUF_RIGHT, PTO_BUF_ACC};
  bool cube = pto_block_kernel_core(k) == PTO_BLOCK_CORE_CUBE;
  const PtoBufSpace *spaces = cube ? cube_spaces : vector_spaces;
  unsigned nspaces = cube ? 4 : 1;
  PtoBlock *body = pto_region_first_block(pto_op_region(k, 0));
  unsigned nargs = pto_block_num_args(body), nparams = nspaces;
  LLVMContextRef c = t->e.ctx;
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(c), 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  for (unsigned i = 0; i < nargs; i++) {
    PtoType *ty = pto_value_type(pto_block_arg(body, i));
    nparams += 1 + (pto_type_is_tensor(ty) ? pto_llvmir_dynamic_dims(ty) : 0);
  }
  /* a tensor is its address, then its dynamic dims in order */
  LLVMTypeRef *params = pto_malloc((nparams + 2) * sizeof *params);
  unsigned np = 0;
  for (; np < nspaces; np++) params[np] = i8p;
  for (unsigned i = 0; i < nargs; i++) {
    PtoType *ty = pto_value_type(pto_block_arg(body, i));
    bool tensor = pto_type_is_tensor(ty);
    params[np++] = tensor ? i8p : pto_llvmir_scalar_type(t->e.ctx, ty);
    /* an i1 travels as the byte the host program's task record holds */
    if (!tensor && pto_type_is_integer(ty) && pto_type_int_width(ty) == 1)
      params[np - 1] = LLVMInt8TypeInContext(c);
    if (!params[np - 1]) {
      pto_free(params);
      return pto_op_emit_error(k, "argument #%u has a type the LLVM "
                               "translation does not take", i);
    }
    for (unsigned d = 0, n = tensor ? pto_llvmir_dynamic_dims(ty) : 0; d < n; d++)
      params[np++] = i64;
  }
  /* a kernel that can fail returns its status and takes its fault
   * record last (pto/LLVMIR.h) */
  bool can_fault = pto_llvmir_kernel_can_fault(k);
  if (can_fault) params[nparams++] = LLVMPointerType(i64, 0);
  const char *name = pto_ident_str(pto_op_symbol_name(k));
  LLVMTypeRef ret = can_fault ? LLVMInt32TypeInContext(c) : LLVMVoidTypeInContext(c);
  LLVMValueRef fn = LLVMAddFunction(t->e.mod, name,
                                    LLVMFunctionType(ret, params, nparams, 0));
  pto_free(params);
  t->e.fault = can_fault ? LLVMGetParam(fn, nparams - 1) : NULL;
  if (can_fault) LLVMSetValueName2(t->e.fault, "fault", 5);
  for (unsigned i = 0; i < nspaces; i++) {
    LLVMValueRef p = LLVMGetParam(fn, i);
    const char *sn = pto_buf_space_name(spaces[i]);
    LLVMSetValueName2(p, sn, strlen(sn));
    t->space[spaces[i]] = p;
  }
  pto_ptrmap_clear(&t->values);
  release_map(&t->dims);
  release_map(&t->fwd);
  t->npf = 0;
  np = nspaces;
  for (unsigned i = 0; i < nargs; i++) {
    PtoValue *v = pto_block_arg(body, i);
    PtoType *ty = pto_value_type(v);
    bind(t, v, LLVMGetParam(fn, np++));
    if (!pto_type_is_tensor(ty)) continue;
    unsigned rank = pto_type_tensor_rank(ty);
    LLVMValueRef *dims = pto_malloc((rank + 1) * sizeof *dims);
    for (unsigned d = 0; d < rank; d++) {
      int64_t n = pto_type_tensor_dim(ty, d);
      dims[d] = n == PTO_DYN ? LLVMGetParam(fn, np++) : pto_emit_i64(&t->e, n);
    }
    pto_ptrmap_put(&t->dims, (uint64_t)(uintptr_t)v, dims);
  }
  t->e.fn = fn;
  LLVMPositionBuilderAtEnd(t->e.b, LLVMAppendBasicBlockInContext(c, fn, "entry"));
  for (unsigned i = 0; i < nargs; i++) {
    PtoValue *v = pto_block_arg(body, i);
    PtoType *ty = pto_value_type(v);
    if (pto_type_is_integer(ty) && pto_type_int_width(ty) == 1)
      bind(t, v, LLVMBuildTrunc(t->e.b, value_of(t, v), LLVMInt1TypeInContext(c), ""));
  }
  PtoResult r = PTO_SUCCESS;
  /* the first error ends the kernel: later ops may use what it did not
   * define */
  for (PtoOp *op = pto_block_first_op(body); op && pto_succeeded(r);
       op = pto_op_next(op)) {
    PtoFuseRun run = {.n = 0};
    /* the cube's pipes have no vector instructions to fuse */
    if (t->fuse && !cube) pto_llvmir_fuse_plan(op, &run);
    if (run.n < 2) {
      r = emit_op(t, op);
      /* the cube's kernels have no runs to prefetch in */
      if (pto_succeeded(r) && !cube) note_next_window(t, op);
      continue;
    }
    r = emit_run(t, op, &run);
    for (PtoOp *o = op; pto_succeeded(r); o = pto_op_next(o)) {
      note_next_window(t, o);
      if (o == run.last) break;
    }
    op = run.last;
  }
  if (can_fault) LLVMBuildRet(t->e.b, LLVMConstInt(LLVMInt32TypeInContext(c), 0, 0));
  else LLVMBuildRetVoid(t->e.b);
  t->e.fault = NULL;
  return r;
}

unsigned pto_llvmir_host_lanes(void) {
  char *f = LLVMGetHostCPUFeatures();
  unsigned lanes = f && strstr(f, "+avx512f") ? 16 : 8;
  LLVMDisposeMessage(f);
  return lanes;
}

bool pto_llvmir_host_is_x86(void) {
  char *t = LLVMGetDefaultTargetTriple();
  bool x86 = t && strncmp(t, "x86_64", 6) == 0;
  LLVMDisposeMessage(t);
  return x86;
}

PtoResult pto_translate_to_llvmir(PtoOp *module, unsigned lanes, char **out) {
  PtoTranslateOptions o = {.lanes = lanes};
  return pto_translate_to_llvmir_with(module, &o, out);
}

PtoResult pto_translate_to_llvmir_with(PtoOp *module,
                                       const PtoTranslateOptions *opts,
                                       char **out) {
  *out = NULL;
  static const PtoTranslateOptions defaults = {.lanes = 0};
  static const uint64_t a2a3[PTO_BUF_NUM_SPACES] = {192 << 10, 512 << 10, 64 << 10,
                                                    64 << 10, 128 << 10};
  if (!opts) opts = &defaults;
  unsigned lanes = opts->lanes;
  if (lanes != 0 && lanes != 8 && lanes != 16)
    return pto_op_emit_error(module, "cannot translate for %u f32 lanes: 8 or "
                             "16 (AVX-512)", lanes);
  Tr t;
  memset(&t, 0, sizeof t);
  for (unsigned s = 0; s < PTO_BUF_NUM_SPACES; s++)
    t.cap[s] = opts->buffer_bytes[s] ? opts->buffer_bytes[s] : a2a3[s];
  t.e.ctx = LLVMContextCreate();
  t.e.mod = LLVMModuleCreateWithNameInContext("pto", t.e.ctx);
  t.e.b = LLVMCreateBuilderInContext(t.e.ctx);
  t.e.lanes = lanes ? lanes : 8;
  t.e.x86 = opts->x86;
  t.fuse = !opts->no_fuse;
  t.prefetch = !opts->no_prefetch;
  t.forward = !opts->no_forward;
  pto_ptrmap_init(&t.values);
  pto_ptrmap_init(&t.dims);
  pto_ptrmap_init(&t.fwd);
  PtoResult r = PTO_SUCCESS;
  PtoOp *host = NULL;
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = top ? pto_block_first_op(top) : NULL; op; op = pto_op_next(op)) {
    if (pto_pto_op_id(op) == PTO_PTO_KERNEL) {
      if (pto_failed(emit_kernel(&t, op))) r = PTO_FAILURE;
    } else if (pto_op_is(op, "func.func")) {
      /* the host program, after the kernels its task entries call */
      if (host)
        r = pto_op_emit_error(op, "is a second host program; a module has "
                              "one func.func");
      host = op;
    } else {
      r = pto_op_emit_error(op, "cannot be translated to LLVM IR yet; only "
                            "pto.kernel functions are");
    }
  }
  if (pto_succeeded(r) && host) r = pto_llvmir_emit_host(&t.e, module, host);
  char *msg = NULL;
  if (pto_succeeded(r) &&
      LLVMVerifyModule(t.e.mod, LLVMReturnStatusAction, &msg)) {
    /* a translation bug, not the input's fault: still an error, not a
     * crash, with LLVM's reason */
    r = pto_op_emit_error(module, "the translation produced invalid LLVM IR: %s", msg);
  }
  LLVMDisposeMessage(msg);
  if (pto_succeeded(r)) {
    char *s = LLVMPrintModuleToString(t.e.mod);
    *out = pto_strndup(s, strlen(s));
    LLVMDisposeMessage(s);
  }
  pto_ptrmap_release(&t.values);
  release_map(&t.dims);
  pto_ptrmap_release(&t.dims);
  release_map(&t.fwd);
  pto_ptrmap_release(&t.fwd);
  LLVMDisposeBuilder(t.e.b);
  LLVMDisposeModule(t.e.mod);
  LLVMContextDispose(t.e.ctx);
  return r;
}
