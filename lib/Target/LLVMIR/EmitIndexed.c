/* The instructions that address GM through an index tile as LLVM IR
 * (Emit.h): tgather_gm, one load per element at the position its index
 * names, bit for bit, and tscatter_gm, one store (or read-modify-write)
 * per element; an index outside the tensor a run-time fault of the
 * kernel (pto/LLVMIR.h). */
#include "Target/LLVMIR/EmitUtil.h"

#include "pto/LLVMIR.h"

#define B (e->b)


/* Whether some index of the rows x cols index tile lies outside [0,
 * extent), as an i1: a pass of its own over the index tile before the
 * moves, an unsigned compare per index OR-ed into a value carried
 * through the loops, which the vectoriser turns into a few vector
 * instructions per 8 or 16 indices; the moves keep their loop as it was. */
static LLVMValueRef any_out_of_range(PtoEmit *e, PtoEmitTile index, LLVMValueRef rows,
                                     LLVMValueRef cols, LLVMValueRef extent) {
  LLVMValueRef zero = pto_emit_i64(e, 0);
  LLVMValueRef none = LLVMConstInt(LLVMInt8TypeInContext(e->ctx), 0, 0);
  LLVMValueRef hi_r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, cols, zero, ""),
                                      rows, zero, "");
  PtoEmitLoop lr, lc;
  pto_emit_loop_begin(e, &lr, zero, hi_r, 1, 1, &none);
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 1, &lr.carry[0]);
  /* a negative index is a large unsigned one */
  LLVMValueRef out = LLVMBuildICmp(B, LLVMIntUGE, pto_emit_index_at(e, index, lr.iv, lc.iv), extent, "");
  lc.next[0] = LLVMBuildOr(B, lc.carry[0],
                           LLVMBuildZExt(B, out, LLVMInt8TypeInContext(e->ctx), ""), "");
  pto_emit_loop_end(e, &lc);
  lr.next[0] = lc.carry[0];
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
  return LLVMBuildICmp(B, LLVMIntNE, lr.carry[0], none, "");
}

/* When `bad`: off the fast path, a second pass over the index tile finds
 * the first index outside [0, extent) in row-major order, the kernel's
 * fault record gets it, and the kernel returns PTO_LLVMIR_FAULT. */
static void fault_if(PtoEmit *e, LLVMValueRef bad, PtoEmitTile index, LLVMValueRef rows,
                     LLVMValueRef cols, LLVMValueRef extent) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->ctx);
  LLVMValueRef expect[2] = {bad, LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0)};
  bad = pto_emit_intrinsic(e, "llvm.expect", expect, 2);
  LLVMBasicBlockRef fb = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "fault");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "fault.none");
  LLVMBuildCondBr(B, bad, fb, ok);
  LLVMPositionBuilderAtEnd(B, fb);
  LLVMValueRef zero = pto_emit_i64(e, 0), none = pto_emit_i64(e, INT64_MAX);
  PtoEmitLoop lr, lc;
  pto_emit_loop_begin(e, &lr, zero, rows, 1, 1, &none);
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 1, &lr.carry[0]);
  LLVMValueRef ix = pto_emit_index_at(e, index, lr.iv, lc.iv);
  LLVMValueRef out = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntSLT, ix, zero, ""),
                                 LLVMBuildICmp(B, LLVMIntSGE, ix, extent, ""), "");
  LLVMValueRef first = LLVMBuildAnd(
      B, out, LLVMBuildICmp(B, LLVMIntEQ, lc.carry[0], none, ""), "");
  LLVMValueRef here = LLVMBuildAdd(B, LLVMBuildMul(B, lr.iv, cols, ""), lc.iv, "");
  lc.next[0] = LLVMBuildSelect(B, first, here, lc.carry[0], "");
  pto_emit_loop_end(e, &lc);
  lr.next[0] = lc.carry[0];
  pto_emit_loop_end(e, &lr);
  LLVMValueRef at = lr.carry[0];
  LLVMValueRef r = LLVMBuildSDiv(B, at, cols, ""), c = LLVMBuildSRem(B, at, cols, "");
  LLVMValueRef rec[PTO_LLVMIR_FAULT_SLOTS] = {
      [PTO_LLVMIR_FAULT_SITE] = pto_emit_i64(e, e->site),
      [PTO_LLVMIR_FAULT_INDEX] = pto_emit_index_at(e, index, r, c),
      [PTO_LLVMIR_FAULT_ROW] = r,
      [PTO_LLVMIR_FAULT_COL] = c,
      [PTO_LLVMIR_FAULT_BOUND] = extent};
  for (unsigned i = 0; i < PTO_LLVMIR_FAULT_SLOTS; i++) {
    LLVMValueRef slot = pto_emit_i64(e, i);
    LLVMBuildStore(B, rec[i], LLVMBuildGEP2(B, i64, e->fault, &slot, 1, ""));
  }
  LLVMBuildRet(B, LLVMConstInt(LLVMInt32TypeInContext(e->ctx), PTO_LLVMIR_FAULT, 0));
  LLVMPositionBuilderAtEnd(B, ok);
}

/* With a fault record: ends the kernel when an index of the rows x cols
 * index tile lies outside [0, extent), before the instruction moves
 * anything. */
static void fault_unless_in_range(PtoEmit *e, PtoEmitTile index, LLVMValueRef rows,
                                  LLVMValueRef cols, LLVMValueRef extent) {
  if (e->fault)
    fault_if(e, any_out_of_range(e, index, rows, cols, extent), index, rows, cols, extent);
}

/* The per-element emitters' view of the tiles with the GM window beside
 * them (pto_emit_tiles_each hands back the PtoEmitTiles it was given, the
 * first member). */
typedef struct GmTiles {
  PtoEmitTiles t;
  const PtoEmitGmWindow *gm;
} GmTiles;

/* The coordinates of element (r, c) of the tile seen as the window's
 * shape: c the last, r's digits in the leading sizes the others (the
 * outermost takes what is left, so no division for it). */
static void coords_of(PtoEmit *e, const PtoEmitGmWindow *w, LLVMValueRef r, LLVMValueRef c,
                      LLVMValueRef *at) {
  at[w->rank - 1] = c;
  for (unsigned d = w->rank - 1; d-- > 0;) {
    if (d == 0) {
      at[d] = r;
      break;
    }
    LLVMValueRef size = pto_emit_i64(e, w->shape[d]);
    at[d] = LLVMBuildURem(B, r, size, "");
    r = LLVMBuildUDiv(B, r, size, "");
  }
}

/* The address of the window's element at `at`, its coordinate along dim
 * replaced by `ix`. */
static LLVMValueRef gm_elem_ptr(PtoEmit *e, const PtoEmitGmWindow *w, LLVMValueRef *at,
                                LLVMValueRef ix) {
  LLVMValueRef off = pto_emit_i64(e, 0);
  for (unsigned d = 0; d < w->rank; d++)
    off = LLVMBuildNSWAdd(B, off, LLVMBuildNSWMul(B, d == w->dim ? ix : at[d], w->stride[d], ""),
                          "");
  LLVMTypeRef st = pto_emit_storage_type(e, w->dtype);
  LLVMValueRef p = LLVMBuildBitCast(B, w->ptr, LLVMPointerType(st, 0), "");
  return LLVMBuildInBoundsGEP2(B, st, p, &off, 1, "");
}

/* t->src[1] is the index tile. */
static void gather_gm_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                           LLVMValueRef c) {
  const PtoEmitGmWindow *w = ((const GmTiles *)(const void *)t)->gm;
  LLVMValueRef at[PTO_MAX_RANK];
  coords_of(e, w, r, c, at);
  /* an index outside the tensor reads its first element and gives 0: a
   * kernel that reports faults has stopped before, one that does not must
   * not read outside the tensor either */
  LLVMValueRef in, ix = pto_emit_load_index(e, t->src[1], r, c, w->extent, &in);
  LLVMValueRef v = pto_emit_load_bits(e, w->dtype, gm_elem_ptr(e, w, at, ix));
  pto_emit_store_bits(e, t->dst.dtype, pto_emit_elem_ptr(e, t->dst, r, c),
                      LLVMBuildSelect(B, in, v, LLVMConstNull(LLVMTypeOf(v)), ""));
}

static bool index_dtype(PtoDType dt) { return dt == PTO_DT_I32 || dt == PTO_DT_I64; }

PtoResult pto_emit_gather_gm(PtoEmit *e, PtoEmitTile dst, const PtoEmitGmWindow *gm,
                             PtoEmitTile index, LLVMValueRef rows, LLVMValueRef cols,
                             PtoError *err) {
  GmTiles g = {.t = {.dst = dst,
                     .src = {{.ptr = gm->ptr, .dtype = gm->dtype}, index}},
               .gm = gm};
  bool ok = gm->dtype == dst.dtype && gm->rank >= 1 && gm->dim < gm->rank &&
            index_dtype(index.dtype);
  if (ok && pto_emit_storage_type(e, dst.dtype))
    fault_unless_in_range(e, index, rows, cols, gm->extent);
  return pto_emit_tiles_each(
      e, &g.t, 2, ok,
      "a GM gather needs i32 or i64 indices, a dim of the tensor and a result of the "
      "tensor's element type",
      rows, cols, gather_gm_elem, err);
}

/* t->src[0] is the tile, src[1] the index tile; t->op packs slices (bit
 * 0) and the mode (the bits above). */
static void scatter_gm_elem(PtoEmit *e, const PtoEmitTiles *t, LLVMValueRef r,
                            LLVMValueRef c) {
  const PtoEmitGmWindow *w = ((const GmTiles *)(const void *)t)->gm;
  bool slices = t->op & 1;
  PtoEmitScatter mode = (PtoEmitScatter)(t->op >> 1);
  LLVMValueRef at[PTO_MAX_RANK];
  coords_of(e, w, r, c, at);
  LLVMValueRef ir = slices ? pto_emit_i64(e, 0) : r, ic = slices ? at[w->dim] : c;
  /* an index outside the tensor rewrites the tensor's first element with
   * what it holds: a kernel that reports faults has stopped before, one
   * that does not must not write outside the tensor either */
  LLVMValueRef in, ix = pto_emit_load_index(e, t->src[1], ir, ic, w->extent, &in);
  PtoDType dt = w->dtype;
  LLVMValueRef p = gm_elem_ptr(e, w, at, ix);
  LLVMValueRef sp = pto_emit_elem_ptr(e, t->src[0], r, c);
  if (mode == PTO_EMIT_SCATTER_OVERWRITE) {
    LLVMValueRef old = pto_emit_load_bits(e, dt, p);
    pto_emit_store_bits(e, dt, p, LLVMBuildSelect(B, in, pto_emit_load_bits(e, dt, sp), old, ""));
    return;
  }
  LLVMValueRef old = pto_emit_load(e, dt, p, 0);
  LLVMValueRef v = pto_emit_apply_binary(
      e, mode == PTO_EMIT_SCATTER_ADD ? PTO_EMIT_BIN_ADD : PTO_EMIT_BIN_MUL,
      pto_emit_num_of(dt), old, pto_emit_load(e, dt, sp, 0));
  pto_emit_store(e, dt, p, LLVMBuildSelect(B, in, v, old, ""));
}

PtoResult pto_emit_scatter_gm(PtoEmit *e, const PtoEmitGmWindow *gm, PtoEmitTile src,
                              PtoEmitTile index, PtoEmitScatter mode, bool slices,
                              LLVMValueRef rows, LLVMValueRef cols, PtoError *err) {
  GmTiles g = {.t = {.dst = {.ptr = gm->ptr, .dtype = gm->dtype},
                     .src = {src, index},
                     .op = (int)((slices ? 1u : 0u) | ((unsigned)mode << 1))},
               .gm = gm};
  bool ok = gm->dtype == src.dtype && gm->rank >= 1 && gm->dim < gm->rank &&
            index_dtype(index.dtype) &&
            (mode == PTO_EMIT_SCATTER_OVERWRITE ||
             (gm->dtype != PTO_DT_BOOL && pto_emit_compute_type(e, gm->dtype)));
  if (ok && pto_emit_storage_type(e, src.dtype))
    fault_unless_in_range(e, index, slices ? pto_emit_i64(e, 1) : rows,
                          slices ? pto_emit_i64(e, gm->shape[gm->dim]) : cols, gm->extent);
  return pto_emit_tiles_each(
      e, &g.t, 2, ok,
      "a GM scatter needs i32 or i64 indices, a dim of the tensor, a tile of the tensor's "
      "element type and, to add or multiply, a numeric one",
      rows, cols, scatter_gm_elem, err);
}
