/* tmatmul as a register-blocked micro-kernel: C is computed in blocks of
 * 6 rows x 2 host vectors (6 x 16 f32 on AVX2), whose 12 accumulators stay
 * in registers across the whole k loop; each step loads two vectors of a
 * row of B (consecutive in the L0B tile) and broadcasts one element of A
 * per row. The edges that do not fill a block take a loop over k whose
 * inner loop runs along a row of C, which the vectoriser widens. Every
 * element of C is accumulated in the same order (k ascending, one fused
 * multiply-add each where the host has FMA), blocks and edges alike. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)
enum { MR = 6, NV = 2 }; /* rows, vectors per block */

static LLVMValueRef fmuladd(PtoEmit *e, LLVMValueRef a, LLVMValueRef b,
                            LLVMValueRef c) {
  LLVMValueRef args[3] = {a, b, c};
  return pto_emit_intrinsic(e, "llvm.fmuladd", args, 3);
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
              ? pto_emit_load(e, PTO_DT_F32,
                              pto_emit_elem_ptr(e, c, row[i], col), L)
              : LLVMConstNull(LLVMVectorType(LLVMFloatTypeInContext(e->ctx), L));
    }
  }
  PtoEmitLoop lk;
  pto_emit_loop_begin(e, &lk, pto_emit_i64(e, 0), pto_emit_i64(e, k), 1,
                      MR * NV, init);
  LLVMValueRef bv[NV];
  for (unsigned v = 0; v < NV; v++) {
    LLVMValueRef col = LLVMBuildNSWAdd(B, j0, pto_emit_i64(e, v * L), "");
    bv[v] = pto_emit_load(e, PTO_DT_F32, pto_emit_elem_ptr(e, b, lk.iv, col), L);
  }
  for (unsigned i = 0; i < MR; i++) {
    LLVMValueRef av = pto_emit_splat(
        e, pto_emit_load(e, PTO_DT_F32, pto_emit_elem_ptr(e, a, row[i], lk.iv), 0),
        L);
    for (unsigned v = 0; v < NV; v++)
      lk.next[i * NV + v] = fmuladd(e, av, bv[v], lk.carry[i * NV + v]);
  }
  pto_emit_loop_end(e, &lk);
  for (unsigned i = 0; i < MR; i++)
    for (unsigned v = 0; v < NV; v++) {
      LLVMValueRef col = LLVMBuildNSWAdd(B, j0, pto_emit_i64(e, v * L), "");
      pto_emit_store(e, PTO_DT_F32, pto_emit_elem_ptr(e, c, row[i], col),
                     lk.carry[i * NV + v]);
    }
}

/* C[r0..r1) x [c0..c1): zero it (unless accumulating), then for each k
 * add A[i][k] * B[k][c0..c1) along the row. */
static void emit_edge(PtoEmit *e, PtoEmitTile c, PtoEmitTile a,
                      PtoEmitTile b, int64_t r0, int64_t r1, int64_t c0,
                      int64_t c1, int64_t k, bool accumulate) {
  if (r0 >= r1 || c0 >= c1) return;
  LLVMValueRef f0 = LLVMConstReal(LLVMFloatTypeInContext(e->ctx), 0.0);
  PtoEmitLoop li, lj, lk;
  pto_emit_loop_begin(e, &li, pto_emit_i64(e, r0), pto_emit_i64(e, r1), 1, 0,
                      NULL);
  if (!accumulate) {
    pto_emit_loop_begin(e, &lj, pto_emit_i64(e, c0), pto_emit_i64(e, c1), 1,
                        0, NULL);
    pto_emit_store(e, PTO_DT_F32, pto_emit_elem_ptr(e, c, li.iv, lj.iv), f0);
    pto_emit_loop_end(e, &lj);
  }
  pto_emit_loop_begin(e, &lk, pto_emit_i64(e, 0), pto_emit_i64(e, k), 1, 0,
                      NULL);
  LLVMValueRef av =
      pto_emit_load(e, PTO_DT_F32, pto_emit_elem_ptr(e, a, li.iv, lk.iv), 0);
  pto_emit_loop_begin(e, &lj, pto_emit_i64(e, c0), pto_emit_i64(e, c1), 1, 0,
                      NULL);
  LLVMValueRef cp = pto_emit_elem_ptr(e, c, li.iv, lj.iv);
  LLVMValueRef bvl =
      pto_emit_load(e, PTO_DT_F32, pto_emit_elem_ptr(e, b, lk.iv, lj.iv), 0);
  pto_emit_store(e, PTO_DT_F32, cp,
                 fmuladd(e, av, bvl, pto_emit_load(e, PTO_DT_F32, cp, 0)));
  pto_emit_loop_end(e, &lj);
  pto_emit_loop_end(e, &lk);
  pto_emit_loop_end(e, &li);
}

PtoResult pto_emit_matmul(PtoEmit *e, PtoEmitTile c, PtoEmitTile a,
                          PtoEmitTile b, int64_t m, int64_t k, int64_t n,
                          bool accumulate, PtoError *err) {
  if (c.dtype != PTO_DT_F32 || a.dtype != PTO_DT_F32 || b.dtype != PTO_DT_F32)
    return pto_error_set(err, "matmul of %s = %s x %s has no LLVM translation "
                         "yet (f32 = f32 x f32 has)", pto_dtype_name(c.dtype),
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
