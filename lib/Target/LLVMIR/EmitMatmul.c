/* tmatmul as a register-blocked micro-kernel: C is computed in blocks of
 * 6 rows x 2 host vectors (6 x 16 f32 on AVX2), whose 12 accumulators stay
 * in registers across a run of k; each step loads two vectors of a packed
 * row of B and broadcasts one element of A per row. B is packed once per
 * strip of 2 vectors and run of at most KC values of k into a contiguous
 * buffer on the stack (already widened to the accumulator's type): read
 * straight from the tile, a strip's rows lie one tile row apart, which for
 * power-of-two rows maps them all onto a few sets of the L1 cache. The
 * strip is reused by every block of rows before the next one is packed.
 * The rows that do not fill a block take one block of fewer rows; the
 * columns that do not fill a strip take a loop over k whose inner loop
 * runs along a row of C, which the vectoriser widens. Every element of C
 * is accumulated in the same order (k ascending, one fused multiply-add
 * each where the host has FMA; between runs of k the accumulator goes
 * through C unchanged), blocks and edges alike. f16 and bf16 operands are
 * read as f32 (exactly, so their products are exact too); i8 operands
 * accumulate in i32, wrapping. */
#include <string.h>

#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)
/* rows and vectors per block; the longest run of k packed at once (its
 * buffer, KC x 2 vectors of 4 B, stays within L1: 16 KiB on AVX2) */
enum { MR = 6, NV = 2, KC = 256 };

/* c + a * b: fused where the host has FMA for floats, wrapping for i32 */
static LLVMValueRef mac(PtoEmit *e, LLVMValueRef a, LLVMValueRef b,
                        LLVMValueRef c) {
  LLVMTypeRef t = LLVMTypeOf(c);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) t = LLVMGetElementType(t);
  if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
    return LLVMBuildAdd(B, c, LLVMBuildMul(B, a, b, ""), "");
  LLVMValueRef args[3] = {a, b, c};
  return pto_emit_intrinsic(e, "llvm.fmuladd", args, 3);
}

/* An operand's elements in the accumulator's type: f16 and bf16 load as
 * f32 (exactly), i8 is widened to i32. */
static LLVMValueRef load_operand(PtoEmit *e, PtoEmitTile t, LLVMValueRef r,
                                 LLVMValueRef c, unsigned lanes) {
  LLVMValueRef v = pto_emit_load(e, t.dtype, pto_emit_elem_ptr(e, t, r, c), lanes);
  if (t.dtype != PTO_DT_I8) return v;
  return LLVMBuildSExt(
      B, v, pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes), "");
}

static LLVMValueRef add(PtoEmit *e, LLVMValueRef a, int64_t b) {
  return LLVMBuildNSWAdd(B, a, pto_emit_i64(e, b), "");
}

/* The packing buffer: KC rows of NV vectors in the accumulator's type, a
 * fixed-size alloca at the top of the function (so that it is one stack
 * slot, not one per loop iteration), shared by every matmul of the
 * function. */
static PtoEmitTile pack_buffer(PtoEmit *e, PtoDType acc) {
  LLVMTypeRef ty =
      LLVMArrayType(pto_emit_storage_type(e, acc), KC * NV * e->lanes);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(e->fn);
  LLVMValueRef buf = NULL;
  for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i && !buf;
       i = LLVMGetNextInstruction(i)) {
    size_t len;
    const char *name = LLVMGetValueName2(i, &len);
    if (LLVMIsAAllocaInst(i) && LLVMGetAllocatedType(i) == ty && len == 4 &&
        memcmp(name, "pack", 4) == 0)
      buf = i;
  }
  if (!buf) {
    LLVMBuilderRef ab = LLVMCreateBuilderInContext(e->ctx);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first) LLVMPositionBuilderBefore(ab, first);
    else LLVMPositionBuilderAtEnd(ab, entry);
    buf = LLVMBuildAlloca(ab, ty, "pack");
    LLVMSetAlignment(buf, 64);
    LLVMDisposeBuilder(ab);
  }
  return pto_emit_tile(e, buf, pto_emit_i64(e, 0),
                       pto_emit_i64(e, (int64_t)(NV * e->lanes)), acc);
}

/* C[i0..i0+mr) x [j0..j0+NV*lanes) += A[..][k0..k0+kn) * the packed strip
 * (mr <= MR); C's old value is the start when load_c, zero otherwise. */
static void emit_block(PtoEmit *e, PtoEmitTile c, PtoEmitTile a,
                       PtoEmitTile p, LLVMValueRef i0, LLVMValueRef j0,
                       LLVMValueRef k0, LLVMValueRef kn, bool load_c,
                       unsigned mr) {
  unsigned L = e->lanes;
  LLVMValueRef init[MR * NV], row[MR], col[NV];
  for (unsigned v = 0; v < NV; v++) col[v] = add(e, j0, v * L);
  for (unsigned i = 0; i < mr; i++) {
    row[i] = add(e, i0, i);
    for (unsigned v = 0; v < NV; v++)
      init[i * NV + v] =
          load_c ? pto_emit_load(e, c.dtype, pto_emit_elem_ptr(e, c, row[i], col[v]), L)
                 : LLVMConstNull(LLVMVectorType(pto_emit_compute_type(e, c.dtype), L));
  }
  PtoEmitLoop lk;
  pto_emit_loop_begin(e, &lk, pto_emit_i64(e, 0), kn, 1, mr * NV, init);
  LLVMValueRef bv[NV];
  for (unsigned v = 0; v < NV; v++)
    bv[v] = pto_emit_load(e, p.dtype,
                          pto_emit_elem_ptr(e, p, lk.iv, pto_emit_i64(e, v * L)), L);
  LLVMValueRef k = LLVMBuildNSWAdd(B, k0, lk.iv, "");
  for (unsigned i = 0; i < mr; i++) {
    LLVMValueRef av = pto_emit_splat(e, load_operand(e, a, row[i], k, 0), L);
    for (unsigned v = 0; v < NV; v++)
      lk.next[i * NV + v] = mac(e, av, bv[v], lk.carry[i * NV + v]);
  }
  pto_emit_loop_end(e, &lk);
  for (unsigned i = 0; i < mr; i++)
    for (unsigned v = 0; v < NV; v++)
      pto_emit_store(e, c.dtype, pto_emit_elem_ptr(e, c, row[i], col[v]),
                     lk.carry[i * NV + v]);
}

/* The blocks of C[0..m) x [0..nb) for the run k0..k0+kn of k: for each
 * strip of columns, pack B's rows of the run, then every block of MR rows
 * and one of the m % MR rows left (its accumulators in registers too: a
 * row at a time through C would cost a load and a store of C per k). */
static void emit_run(PtoEmit *e, PtoEmitTile c, PtoEmitTile a, PtoEmitTile b,
                     PtoEmitTile p, int64_t m, int64_t nb, LLVMValueRef k0,
                     LLVMValueRef kn, bool load_c) {
  int64_t mb = m / MR * MR;
  unsigned L = e->lanes;
  PtoEmitLoop lj, lp, li;
  pto_emit_loop_begin(e, &lj, pto_emit_i64(e, 0), pto_emit_i64(e, nb),
                      (int64_t)(NV * L), 0, NULL);
  pto_emit_loop_begin(e, &lp, pto_emit_i64(e, 0), kn, 1, 0, NULL);
  LLVMValueRef k = LLVMBuildNSWAdd(B, k0, lp.iv, "");
  for (unsigned v = 0; v < NV; v++)
    pto_emit_store(e, p.dtype, pto_emit_elem_ptr(e, p, lp.iv, pto_emit_i64(e, v * L)),
                   load_operand(e, b, k, add(e, lj.iv, v * L), L));
  pto_emit_loop_end(e, &lp);
  pto_emit_loop_begin(e, &li, pto_emit_i64(e, 0), pto_emit_i64(e, mb), MR, 0,
                      NULL);
  emit_block(e, c, a, p, li.iv, lj.iv, k0, kn, load_c, MR);
  pto_emit_loop_end(e, &li);
  if (m > mb)
    emit_block(e, c, a, p, pto_emit_i64(e, mb), lj.iv, k0, kn, load_c,
               (unsigned)(m - mb));
  pto_emit_loop_end(e, &lj);
}

/* C[r0..r1) x [c0..c1): zero it (unless accumulating), then for each k
 * add A[i][k] * B[k][c0..c1) along the row. */
static void emit_edge(PtoEmit *e, PtoEmitTile c, PtoEmitTile a,
                      PtoEmitTile b, int64_t r0, int64_t r1, int64_t c0,
                      int64_t c1, int64_t k, bool accumulate) {
  if (r0 >= r1 || c0 >= c1) return;
  LLVMValueRef zero = LLVMConstNull(pto_emit_compute_type(e, c.dtype));
  PtoEmitLoop li, lj, lk;
  pto_emit_loop_begin(e, &li, pto_emit_i64(e, r0), pto_emit_i64(e, r1), 1, 0,
                      NULL);
  if (!accumulate) {
    pto_emit_loop_begin(e, &lj, pto_emit_i64(e, c0), pto_emit_i64(e, c1), 1,
                        0, NULL);
    pto_emit_store(e, c.dtype, pto_emit_elem_ptr(e, c, li.iv, lj.iv), zero);
    pto_emit_loop_end(e, &lj);
  }
  pto_emit_loop_begin(e, &lk, pto_emit_i64(e, 0), pto_emit_i64(e, k), 1, 0,
                      NULL);
  LLVMValueRef av = load_operand(e, a, li.iv, lk.iv, 0);
  pto_emit_loop_begin(e, &lj, pto_emit_i64(e, c0), pto_emit_i64(e, c1), 1, 0,
                      NULL);
  LLVMValueRef cp = pto_emit_elem_ptr(e, c, li.iv, lj.iv);
  LLVMValueRef bvl = load_operand(e, b, lk.iv, lj.iv, 0);
  pto_emit_store(e, c.dtype, cp, mac(e, av, bvl, pto_emit_load(e, c.dtype, cp, 0)));
  pto_emit_loop_end(e, &lj);
  pto_emit_loop_end(e, &lk);
  pto_emit_loop_end(e, &li);
}

PtoResult pto_emit_matmul(PtoEmit *e, PtoEmitTile c, PtoEmitTile a,
                          PtoEmitTile b, int64_t m, int64_t k, int64_t n,
                          bool accumulate, PtoError *err) {
  /* the cube's combinations (MACHINE.md) */
  bool fp = c.dtype == PTO_DT_F32 &&
            (a.dtype == PTO_DT_F32 || a.dtype == PTO_DT_F16 ||
             a.dtype == PTO_DT_BF16);
  bool i8 = c.dtype == PTO_DT_I32 && a.dtype == PTO_DT_I8;
  if (!(fp || i8) || b.dtype != a.dtype)
    return pto_error_set(err, "matmul of %s = %s x %s is not one the cube "
                         "has: (f32, f32, f32), (f32, f16, f16), (f32, bf16, "
                         "bf16) or (i32, i8, i8)", pto_dtype_ir_name(c.dtype),
                         pto_dtype_ir_name(a.dtype), pto_dtype_ir_name(b.dtype));
  if (m < 0 || k < 0 || n < 0)
    return pto_error_set(err, "matmul of a negative shape %lldx%lldx%lld",
                         (long long)m, (long long)k, (long long)n);
  if (!e->lanes) e->lanes = 8;
  int64_t nw = (int64_t)(NV * e->lanes);
  int64_t nb = m > 0 ? n / nw * nw : 0;
  if (nb > 0) {
    PtoEmitTile p = pack_buffer(e, fp ? PTO_DT_F32 : PTO_DT_I32);
    /* the first run starts from C or from zero, the others from C */
    emit_run(e, c, a, b, p, m, nb, pto_emit_i64(e, 0),
             pto_emit_i64(e, k < KC ? k : KC), accumulate);
    if (k > KC) {
      PtoEmitLoop lk;
      pto_emit_loop_begin(e, &lk, pto_emit_i64(e, KC), pto_emit_i64(e, k), KC,
                          0, NULL);
      LLVMValueRef left = LLVMBuildSub(B, pto_emit_i64(e, k), lk.iv, "");
      LLVMValueRef kn = LLVMBuildSelect(
          B, LLVMBuildICmp(B, LLVMIntSLT, left, pto_emit_i64(e, KC), ""), left,
          pto_emit_i64(e, KC), "");
      emit_run(e, c, a, b, p, m, nb, lk.iv, kn, true);
      pto_emit_loop_end(e, &lk);
    }
  }
  emit_edge(e, c, a, b, 0, m, nb, n, k, accumulate); /* right of the blocks */
  return PTO_SUCCESS;
}
