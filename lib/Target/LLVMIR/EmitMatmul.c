/* tmatmul as a register-blocked micro-kernel: C is computed in blocks of
 * 6 rows x 2 host vectors (6 x 16 f32 on AVX2), whose 12 accumulators stay
 * in registers across the whole k loop; each step loads two vectors of a
 * row of B (consecutive in the L0B tile) and broadcasts one element of A
 * per row. The edges that do not fill a block take a loop over k whose
 * inner loop runs along a row of C, which the vectoriser widens. Every
 * element of C is accumulated in the same order (k ascending, one fused
 * multiply-add each where the host has FMA), blocks and edges alike.
 * f16 and bf16 operands are read as f32 (exactly, so their products are
 * exact too); i8 operands accumulate in i32, wrapping. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)
enum { MR = 6, NV = 2 }; /* rows, vectors per block */

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

/* C[i0..i0+MR) x [j0..j0+NV*lanes) */
static void emit_block(PtoEmit *e, PtoEmitTile c, PtoEmitTile a,
                       PtoEmitTile b, LLVMValueRef i0, LLVMValueRef j0,
                       int64_t k, bool accumulate) {
  unsigned L = e->lanes;
  LLVMValueRef init[MR * NV], row[MR];
  for (unsigned i = 0; i < MR; i++) {
    row[i] = LLVMBuildNSWAdd(B, i0, pto_emit_i64(e, i), "");
    for (unsigned v = 0; v < NV; v++) {
      LLVMValueRef col = LLVMBuildNSWAdd(B, j0, pto_emit_i64(e, v * L), "");
      init[i * NV + v] =
          accumulate
              ? pto_emit_load(e, c.dtype, pto_emit_elem_ptr(e, c, row[i], col), L)
              : LLVMConstNull(LLVMVectorType(pto_emit_compute_type(e, c.dtype), L));
    }
  }
  PtoEmitLoop lk;
  pto_emit_loop_begin(e, &lk, pto_emit_i64(e, 0), pto_emit_i64(e, k), 1,
                      MR * NV, init);
  LLVMValueRef bv[NV];
  for (unsigned v = 0; v < NV; v++) {
    LLVMValueRef col = LLVMBuildNSWAdd(B, j0, pto_emit_i64(e, v * L), "");
    bv[v] = load_operand(e, b, lk.iv, col, L);
  }
  for (unsigned i = 0; i < MR; i++) {
    LLVMValueRef av = pto_emit_splat(e, load_operand(e, a, row[i], lk.iv, 0), L);
    for (unsigned v = 0; v < NV; v++)
      lk.next[i * NV + v] = mac(e, av, bv[v], lk.carry[i * NV + v]);
  }
  pto_emit_loop_end(e, &lk);
  for (unsigned i = 0; i < MR; i++)
    for (unsigned v = 0; v < NV; v++) {
      LLVMValueRef col = LLVMBuildNSWAdd(B, j0, pto_emit_i64(e, v * L), "");
      pto_emit_store(e, c.dtype, pto_emit_elem_ptr(e, c, row[i], col),
                     lk.carry[i * NV + v]);
    }
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
                         "bf16) or (i32, i8, i8)", pto_dtype_name(c.dtype),
                         pto_dtype_name(a.dtype), pto_dtype_name(b.dtype));
  if (m < 0 || k < 0 || n < 0)
    return pto_error_set(err, "matmul of a negative shape %lldx%lldx%lld",
                         (long long)m, (long long)k, (long long)n);
  if (!e->lanes) e->lanes = 8;
  int64_t nw = (int64_t)(NV * e->lanes);
  int64_t mb = m / MR * MR, nb = n / nw * nw;
  if (mb > 0 && nb > 0) {
    PtoEmitLoop li, lj;
    pto_emit_loop_begin(e, &li, pto_emit_i64(e, 0), pto_emit_i64(e, mb), MR,
                        0, NULL);
    pto_emit_loop_begin(e, &lj, pto_emit_i64(e, 0), pto_emit_i64(e, nb), nw,
                        0, NULL);
    emit_block(e, c, a, b, li.iv, lj.iv, k, accumulate);
    pto_emit_loop_end(e, &lj);
    pto_emit_loop_end(e, &li);
  }
  emit_edge(e, c, a, b, 0, mb, nb, n, k, accumulate); /* right of the blocks */
  emit_edge(e, c, a, b, mb, m, 0, n, k, accumulate);  /* below them */
  return PTO_SUCCESS;
}
