/* The instruction semantics of PTO's tile instructions as LLVM IR, built
 * with the LLVM-C builder: loops over a tile of rows x cols elements that
 * LLVM's vectorisers widen for the host, the transcendental functions as
 * polynomials in IR, and a register-blocked matmul micro-kernel. No PTO IR
 * here: the translation (and the tests) say where the tiles are. */
#ifndef PTO_TARGET_LLVMIR_EMIT_H
#define PTO_TARGET_LLVMIR_EMIT_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>

#include "pto/DType.h"
#include "pto/Error.h"

/* Where new code goes: the builder is positioned in fn, and each emitter
 * leaves it at the end of what it emitted (a block that falls through). */
typedef struct PtoEmit {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  /* f32 lanes of the explicit vectors the reductions and the matmul
   * micro-kernel use: 8 (AVX, AVX2) or 16 (AVX-512). */
  unsigned lanes;
  /* x86-64 intrinsics allowed (PtoTranslateOptions.x86) */
  bool x86;
  /* The kernel's fault record (an i64*, pto/LLVMIR.h) when it has an
   * instruction that can fail at run time, else NULL: such an emitter
   * then checks its indices, and on a bad one writes the record, tagged
   * with `site`, and returns PTO_LLVMIR_FAULT from the kernel. */
  LLVMValueRef fault;
  int64_t site;
} PtoEmit;

/* A tile in memory: element (r, c) is at ptr + (r * row_stride + c)
 * elements. ptr is an i8* (a memory space's base plus the tile's byte
 * offset, or a GM tensor's address); row_stride an i64. */
typedef struct PtoEmitTile {
  LLVMValueRef ptr;
  LLVMValueRef row_stride;
  PtoDType dtype;
} PtoEmitTile;

/* ptr = base + byte_offset (both IR values), as an i8*. */
PtoEmitTile pto_emit_tile(PtoEmit *e, LLVMValueRef base,
                          LLVMValueRef byte_offset, LLVMValueRef row_stride,
                          PtoDType dtype);
LLVMValueRef pto_emit_i64(PtoEmit *e, int64_t v);

#define PTO_EMIT_BINARY_OPS(X) \
  X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(DIV, "div") X(MAX, "max") \
  X(MIN, "min")
#define PTO_EMIT_UNARY_OPS(X) \
  X(EXP, "exp") X(LOG, "log") X(SQRT, "sqrt") X(RSQRT, "rsqrt")        \
  X(RECIP, "recip") X(RELU, "relu") X(ABS, "abs") X(NEG, "neg")        \
  X(TANH, "tanh")
#define PTO_EMIT_REDUCE_OPS(X) X(SUM, "sum") X(MAX, "max") X(MIN, "min")

#define PTO_EMIT_ENUM(id, name) PTO_EMIT_BIN_##id,
typedef enum PtoEmitBinary { PTO_EMIT_BINARY_OPS(PTO_EMIT_ENUM) } PtoEmitBinary;
#undef PTO_EMIT_ENUM
#define PTO_EMIT_ENUM(id, name) PTO_EMIT_UN_##id,
typedef enum PtoEmitUnary { PTO_EMIT_UNARY_OPS(PTO_EMIT_ENUM) } PtoEmitUnary;
#undef PTO_EMIT_ENUM
#define PTO_EMIT_ENUM(id, name) PTO_EMIT_RED_##id,
typedef enum PtoEmitReduce { PTO_EMIT_REDUCE_OPS(PTO_EMIT_ENUM) } PtoEmitReduce;
#undef PTO_EMIT_ENUM

const char *pto_emit_binary_name(PtoEmitBinary op);
const char *pto_emit_unary_name(PtoEmitUnary op);
const char *pto_emit_reduce_name(PtoEmitReduce op);

/* Element types: f32, f16 and bf16 (computed in f32, rounded once to the
 * destination), i32, i16 and i8 (integer ops in their own width; no
 * transcendental functions; division toward zero, x / 0 = 0). Every tile of one instruction
 * has the same dtype, except the cast's. A combination the emitters do not
 * implement fails with err filled and nothing emitted. */

/* dst = a (op) b, elementwise. */
PtoResult pto_emit_binary(PtoEmit *e, PtoEmitBinary op, PtoEmitTile dst,
                          PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err);
/* dst = a (op) s with a scalar s of the compute type (float for the float
 * dtypes, the integer type itself otherwise). */
PtoResult pto_emit_binary_scalar(PtoEmit *e, PtoEmitBinary op,
                                 PtoEmitTile dst, PtoEmitTile a,
                                 LLVMValueRef s, LLVMValueRef rows,
                                 LLVMValueRef cols, PtoError *err);
/* dst[r][c] = a[r][c] (op) v[r][0]: the row-broadcast forms
 * (trowexpand{add,sub,mul,div,max,min}). */
PtoResult pto_emit_row_expand(PtoEmit *e, PtoEmitBinary op, PtoEmitTile dst,
                              PtoEmitTile a, PtoEmitTile v, LLVMValueRef rows,
                              LLVMValueRef cols, PtoError *err);
PtoResult pto_emit_unary(PtoEmit *e, PtoEmitUnary op, PtoEmitTile dst,
                         PtoEmitTile src, LLVMValueRef rows,
                         LLVMValueRef cols, PtoError *err);
/* dst[r][0] = reduction of src[r][0..cols). Float sums accumulate in f32
 * in a fixed order, the same on every run (and in a fused run's
 * reduction): the whole vectors of `lanes` columns go round-robin into
 * PTO_EMIT_REDUCE_CHAINS vectors of partial results (independent chains
 * of additions, which the core overlaps) while a group of that many
 * remains, the vectors after the last group into the first; the chains
 * combine as (0 + 1) + (2 + 3), the lanes by halves (a fixed tree), then
 * the remaining columns one by one. */
#define PTO_EMIT_REDUCE_CHAINS 4
PtoResult pto_emit_row_reduce(PtoEmit *e, PtoEmitReduce op, PtoEmitTile dst,
                              PtoEmitTile src, LLVMValueRef rows,
                              LLVMValueRef cols, PtoError *err);
/* dst[0][c] = reduction of src[0..rows)[c], row after row in order (a
 * loop along the row, which vectorises). Sums of f16 and bf16 would round
 * at every row and are refused. */
PtoResult pto_emit_col_reduce(PtoEmit *e, PtoEmitReduce op, PtoEmitTile dst,
                              PtoEmitTile src, LLVMValueRef rows,
                              LLVMValueRef cols, PtoError *err);
/* dst[c][r] = src[r][c] for the rows x cols of src, bit for bit. */
PtoResult pto_emit_transpose(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                             LLVMValueRef rows, LLVMValueRef cols,
                             PtoError *err);
/* dst = src converted to dst's dtype, rounding and saturating as mode
 * says (PtoCastMode, numpy's astype by default). */
PtoResult pto_emit_cast(PtoEmit *e, PtoCastMode mode, PtoEmitTile dst,
                        PtoEmitTile src, LLVMValueRef rows, LLVMValueRef cols,
                        PtoError *err);
/* dst = src, bit for bit (tload, tstore, tmov). */
PtoResult pto_emit_copy(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err);

/* A GM window of several pieces (pto_pto_window_pieces): piece p starts
 * at the window's first element plus sum_k idx_k * stride[k] elements, idx
 * the digits of p in size[] (row-major), and its piece_rows rows follow
 * those of piece p - 1 in the tile. */
typedef struct PtoEmitPieces {
  unsigned n;
  int64_t size[PTO_MAX_RANK];
  LLVMValueRef stride[PTO_MAX_RANK]; /* i64 */
  int64_t piece_rows;
} PtoEmitPieces;
/* tload (load) / tstore of `tile` from / to such a window, whose first
 * piece is `gm`: one loop over the pieces, each a piece_rows x cols copy
 * (a cast as `cast` says when the dtypes differ: FIX's rounding). */
PtoResult pto_emit_copy_pieces(PtoEmit *e, bool load, PtoEmitTile tile,
                               PtoEmitTile gm, const PtoEmitPieces *pieces,
                               LLVMValueRef cols, const PtoCastMode *cast,
                               PtoError *err);

/* tpermute / trepeat: dst seen as the row-major array of shape[0..rank)
 * (its leading dims its rows) gets, at each index, the element of src at
 * sum_d index[d] * src_stride[d] elements from its start, bit for bit. */
PtoResult pto_emit_layout(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                          unsigned rank, const int64_t *shape,
                          const int64_t *src_stride, PtoError *err);

/* The same copy with non-temporal stores into dst (a GM window whose
 * lines are written whole, not read first), then a fence that orders them
 * before anything the kernel does next: tstore of outputs too large to be
 * read back from the caches. */
PtoResult pto_emit_copy_streaming(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                                  LLVMValueRef rows, LLVMValueRef cols,
                                  PtoError *err);
/* The fence after streaming stores: they are not ordered with later
 * stores, so it makes them visible before whatever says the kernel is
 * done. A seq_cst fence, or on x86 (e->x86) an SFENCE, which orders the
 * stores without holding back later loads as the MFENCE does. */
void pto_emit_streaming_fence(PtoEmit *e);

/* values[r][0..k) and indices[r][0..k) (i32 columns) = the k largest
 * (smallest) elements of each row of src, sorted, bit for bit: equal
 * values by the lower column, NaN above every number (ttopk). */
PtoResult pto_emit_topk(PtoEmit *e, PtoEmitTile values, PtoEmitTile indices,
                        PtoEmitTile src, LLVMValueRef rows, LLVMValueRef cols,
                        int64_t k, bool largest, PtoError *err);
/* The same selection over the two lists (v0: rows x n0, v1: rows x n1)
 * side by side, v0's first, storing the i32 index value (i0 / i1) each
 * chosen element carries (ttopk_merge). */
PtoResult pto_emit_topk_merge(PtoEmit *e, PtoEmitTile values, PtoEmitTile indices,
                              PtoEmitTile v0, PtoEmitTile i0, PtoEmitTile v1,
                              PtoEmitTile i1, LLVMValueRef rows, LLVMValueRef n0,
                              LLVMValueRef n1, int64_t k, bool largest,
                              PtoError *err);

/* c (m x n) = a (m x k) * b (k x n), or c += a * b when accumulate: the
 * cube's tmatmul / tmatmul_acc for its (c, a, b) types (f32, f32, f32),
 * (f32, f16, f16), (f32, bf16, bf16) and (i32, i8, i8), as a
 * register-blocked micro-kernel (6 rows x 2 vectors of accumulators). */
PtoResult pto_emit_matmul(PtoEmit *e, PtoEmitTile c, PtoEmitTile a,
                          PtoEmitTile b, int64_t m, int64_t k, int64_t n,
                          bool accumulate, PtoError *err);

/* ---- fused runs ---- */

/* One instruction of a fused run: dst = a (op) b / a (op) s / a (op)
 * v[r][0] / op(a), or, as the run's last step only, dst[r][0] = the row
 * reduction of a; or a copy dst = a between a GM window and a tile of the
 * run (tload as the first step: a is the window; tstore as the last, in
 * a run without a reduction: dst is the window), one dtype on both
 * sides; or a prefetch of a GM window a (element (r, c) of each whole
 * vector's iteration: a hint, which reads and writes nothing and so may
 * stand anywhere in the run; it uses no slot). */
typedef enum PtoEmitStepKind {
  PTO_EMIT_STEP_BINARY,
  PTO_EMIT_STEP_SCALAR,
  PTO_EMIT_STEP_ROWEXPAND,
  PTO_EMIT_STEP_UNARY,
  PTO_EMIT_STEP_ROWREDUCE,
  PTO_EMIT_STEP_LOAD,
  PTO_EMIT_STEP_STORE,
  PTO_EMIT_STEP_PREFETCH,
} PtoEmitStepKind;

typedef struct PtoEmitStep {
  PtoEmitStepKind kind;
  int op; /* a PtoEmitBinary, PtoEmitUnary or PtoEmitReduce */
  PtoEmitTile dst, a, b; /* b: BINARY's second tile, ROWEXPAND's column */
  LLVMValueRef s;        /* SCALAR's scalar, of the compute type */
  /* The run's rows x cols tiles by placement: tiles with one slot are
   * the same bytes of one dtype, tiles of different slots do not overlap
   * where the run writes either (-1: not such a tile: ROWEXPAND's b,
   * ROWREDUCE's dst, and BINARY's absent b) */
  int dst_slot, a_slot, b_slot;
  /* dst reaches memory; otherwise only later steps of the run read it,
   * from a register (ROWREDUCE and STORE always store) */
  bool store;
  /* STORE with non-temporal stores (as pto_emit_copy_streaming): the
   * run's vector loop then starts, per row, at the first column whose
   * address in dst is vector-aligned, which only a run without a row
   * reduction may do (the reduction's order depends on where the vectors
   * start) */
  bool stream;
} PtoEmitStep;

/* The n steps as one loop nest over rows x cols: per row, whole vectors
 * of `lanes` columns then the remaining columns one by one, each step's
 * value handed to the next in registers (rounded to its dtype as a store
 * and a load would), a row reduction accumulated in vector registers in
 * the order pto_emit_row_reduce uses. What the caller proves (docs/jit.md,
 * "Fusion"): every element (r, c) of every slot is read and written by
 * the same iteration in the steps' order, so the run computes what the
 * steps one after the other do, bit for bit. Checks each step as its own
 * emitter does; on failure err names the step (*bad) and nothing is
 * emitted. */
#define PTO_EMIT_MAX_STEPS 32
PtoResult pto_emit_fused(PtoEmit *e, const PtoEmitStep *steps, unsigned n,
                         LLVMValueRef rows, LLVMValueRef cols, unsigned *bad,
                         PtoError *err);

/* The f32 functions on a float or a vector of floats, as straight-line
 * code (no calls, no branches) that vectorises; exp of an explicit
 * vector (a fused run's) branches once, to a shorter form when every
 * lane's result is a normal float reached by one scaling (the same
 * bits; EmitTest.c checks it). Accuracy against the
 * correctly rounded result, measured by test/unittests/EmitTest.c over
 * every float class: exp, log and tanh within 2 ulp (denormal results of
 * exp: within 1 ulp of the smallest denormal); sqrt exact; rsqrt 1 ulp. */
LLVMValueRef pto_emit_exp_f32(PtoEmit *e, LLVMValueRef x);
LLVMValueRef pto_emit_log_f32(PtoEmit *e, LLVMValueRef x);
LLVMValueRef pto_emit_tanh_f32(PtoEmit *e, LLVMValueRef x);

/* The value tcvt stores to a float dtype `to` (the store rounds it to
 * nearest even), from x of dtype `from` in its compute type: exact in
 * f32, or rounded so that the store's rounding is the only one; finite
 * values clamped to the largest finite one when saturating. */
LLVMValueRef pto_emit_cast_to_float(PtoEmit *e, PtoSatMode sat, PtoDType from,
                                    PtoDType to, LLVMValueRef x);
/* x, an integer of dtype `from` (i32, ui32 or i64: f32 does not hold
 * them all), rounded to f32 under the directed mode (floor, ceil, trunc,
 * round: half away from zero; or odd, for a later rounding to bf16) as
 * the interpreter does: in integers, its leading 24 bits rounded by the
 * mode, which then convert exactly. */
LLVMValueRef pto_emit_int_to_f32_round(PtoEmit *e, PtoRoundMode mode, PtoDType from,
                                       LLVMValueRef x);
/* The 8-bit floats (f8E4M3FN, f8E5M2, f8E8M0FNU; stored as i8): x, an
 * i8 code of `from`, as its f32 value (exact; NaN quiet, its sign kept),
 * and x of the integer or float dtype `from` in its compute type as the
 * code of `to` under `mode`, bit for bit as lib/Array/Cast.c converts. */
LLVMValueRef pto_emit_f8_to_f32(PtoEmit *e, PtoDType from, LLVMValueRef x);
LLVMValueRef pto_emit_cast_to_f8(PtoEmit *e, PtoCastMode mode, PtoDType from,
                                 PtoDType to, LLVMValueRef x);
/* x (f32, not yet rounded) rounded to f16 or bf16 (`to`) under the
 * directed mode (floor, ceil, trunc, round: half away from zero) as the
 * interpreter does, as the f32 value of the result, which the store then
 * keeps exactly; NaN unchanged. */
LLVMValueRef pto_emit_round_directed16(PtoEmit *e, PtoRoundMode mode, PtoDType to,
                                       LLVMValueRef x);

/* dst[0][c] = sum of src[0..rows)[c] for f16 and bf16 tiles, in f32
 * rounded once (tcolsum, which pto_emit_col_reduce refuses for them). */
PtoResult pto_emit_col_sum_narrow(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                                  LLVMValueRef rows, LLVMValueRef cols,
                                  PtoError *err);

/* ---- compare, select, gather, sort, quantise ---- */

#define PTO_EMIT_COMPARE_OPS(X) \
  X(EQ, "eq") X(NE, "ne") X(LT, "lt") X(LE, "le") X(GT, "gt") X(GE, "ge")
#define PTO_EMIT_ENUM(id, name) PTO_EMIT_CMP_##id,
typedef enum PtoEmitCompare { PTO_EMIT_COMPARE_OPS(PTO_EMIT_ENUM) } PtoEmitCompare;
#undef PTO_EMIT_ENUM
const char *pto_emit_compare_name(PtoEmitCompare op);

/* dst (i1: one byte, 0 or 1) = a (op) b: ordered float comparisons but
 * ne (NaN compares false, and unequal), signed integers. */
PtoResult pto_emit_compare(PtoEmit *e, PtoEmitCompare op, PtoEmitTile dst,
                           PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                           LLVMValueRef cols, PtoError *err);
/* dst = mask ? a : b (mask i1, any nonzero byte true), bit for bit. */
PtoResult pto_emit_select(PtoEmit *e, PtoEmitTile dst, PtoEmitTile mask,
                          PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err);
/* dst[r][c] = src[r][index[r][c]] (i32 indices) for the rows x cols of
 * dst, bit for bit; an index outside [0, src_cols) gives 0. */
PtoResult pto_emit_gather(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                          PtoEmitTile index, LLVMValueRef rows,
                          LLVMValueRef src_cols, LLVMValueRef cols,
                          PtoError *err);
/* The GM window of tgather_gm / tscatter_gm: its first element at ptr
 * (an i8*: the tensor at the window's offsets, 0 along dim), the tile
 * seen as `shape` (rank dims, the leading ones flattened into the tile's
 * rows, the last its columns), the tensor's dims `stride` elements apart
 * (i64 values) and its extent along dim, which bounds the indices. */
typedef struct PtoEmitGmWindow {
  LLVMValueRef ptr;
  PtoDType dtype;
  unsigned rank, dim;
  int64_t shape[PTO_MAX_RANK];
  LLVMValueRef stride[PTO_MAX_RANK];
  LLVMValueRef extent;
} PtoEmitGmWindow;
/* dst[p] = gm[p with its coordinate along dim replaced by index[p]] for
 * each position p of dst (its rows x cols, seen as gm's shape), bit for
 * bit, i32 or i64 indices; an index outside [0, extent) reads nothing
 * outside the tensor: it gives 0, or with e->fault ends the kernel with
 * the first such index's fault record (EmitIndexed.c). */
PtoResult pto_emit_gather_gm(PtoEmit *e, PtoEmitTile dst, const PtoEmitGmWindow *gm,
                             PtoEmitTile index, LLVMValueRef rows, LLVMValueRef cols,
                             PtoError *err);
/* How tscatter_gm combines a tile's element with what GM holds. */
typedef enum PtoEmitScatter {
  PTO_EMIT_SCATTER_OVERWRITE,
  PTO_EMIT_SCATTER_ADD,
  PTO_EMIT_SCATTER_MUL
} PtoEmitScatter;
/* gm[p with its coordinate along dim replaced by idx] overwritten with,
 * or combined with, src[p] for each position p of src (its rows x cols,
 * seen as gm's shape), in row-major order (so duplicate indices apply in
 * index order), idx = index at p, or with `slices` index[0][j], j being
 * p's coordinate along dim; i32 or i64 indices. Overwrite keeps every
 * bit; add and multiply compute as the vector instructions do. An index
 * outside [0, extent) writes nothing: with e->fault the kernel ends,
 * before any write, with the first such index's fault record
 * (EmitIndexed.c). */
PtoResult pto_emit_scatter_gm(PtoEmit *e, const PtoEmitGmWindow *gm, PtoEmitTile src,
                              PtoEmitTile index, PtoEmitScatter mode, bool slices,
                              LLVMValueRef rows, LLVMValueRef cols, PtoError *err);
/* dst[r][c] = row[0][c] for every row: tmatmul_bias's bias, put in the
 * accumulator before the products are added to it. */
PtoResult pto_emit_broadcast_row(PtoEmit *e, PtoEmitTile dst, PtoEmitTile row,
                                 LLVMValueRef rows, LLVMValueRef cols,
                                 PtoError *err);
/* Each window of `window` elements of each row of src (rows x cols)
 * sorted descending, stably, NaN first, into dst, with dst_index the
 * column each value came from (tsort32: src_index NULL) or the entry of
 * src_index it carries along (tmrgsort). */
PtoResult pto_emit_sort(PtoEmit *e, PtoEmitTile dst, PtoEmitTile dst_index,
                        PtoEmitTile src, const PtoEmitTile *src_index,
                        LLVMValueRef rows, int64_t cols, int64_t window,
                        PtoError *err);
/* dst (i8) = clamp(rint(src / scale[r][0]), -127, 127) in f32, 0 for NaN
 * and on rows whose scale is 0 (tquant). */
PtoResult pto_emit_quant(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                         PtoEmitTile scale, LLVMValueRef rows,
                         LLVMValueRef cols, PtoError *err);

/* ---- the Tile level's elementwise math, rounding and bit tests ---- */

#define PTO_EMIT_MATH_OPS(X) \
  X(SIGMOID, "sigmoid") X(TANH, "tanh") X(SILU, "silu") X(FLOOR, "floor") \
  X(CEIL, "ceil") X(ROUND, "round") X(SIGNBIT, "signbit") X(SIN, "sin")    \
  X(COS, "cos") X(ERF, "erf")                                             \
  X(TAN, "tan") X(ATAN, "atan") X(ASIN, "asin") X(ACOS, "acos") X(ERFC, "erfc") \
  PTO_EMIT_MATH_EXP_OPS(X)
/* the exponential, logarithmic and hyperbolic ones (EmitMathExp.c) */
#define PTO_EMIT_MATH_EXP_OPS(X)                                                   \
  X(LOG2, "log2") X(LOG10, "log10") X(LOG1P, "log1p") X(EXP2, "exp2")             \
  X(EXPM1, "expm1") X(SINH, "sinh") X(COSH, "cosh") X(ASINH, "asinh")             \
  X(ACOSH, "acosh") X(ATANH, "atanh") X(CBRT, "cbrt")
#define PTO_EMIT_ENUM(id, name) PTO_EMIT_MATH_##id,
typedef enum PtoEmitMath { PTO_EMIT_MATH_OPS(PTO_EMIT_ENUM) } PtoEmitMath;
#undef PTO_EMIT_ENUM
const char *pto_emit_math_name(PtoEmitMath op);

/* dst = op(src), elementwise, float tiles computed in f32 and rounded once
 * to dst: sigmoid and silu from the polynomial exp (within 4 ulp of the
 * correctly rounded f32 result, denormal results too), tanh as
 * pto_emit_tanh_f32, floor, ceil and round (half to even) exact; signbit
 * (1 where the stored sign bit is set, NaN and -0 too, else 0) on every
 * float and integer dtype, bit for bit. */
PtoResult pto_emit_math(PtoEmit *e, PtoEmitMath op, PtoEmitTile dst,
                        PtoEmitTile src, LLVMValueRef rows, LLVMValueRef cols,
                        PtoError *err);
/* dst[r][c] = src[rows_one ? 0 : r][cols_one ? 0 : c] for the rows x cols
 * of dst, bit for bit (texpand). */
PtoResult pto_emit_expand(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                          bool rows_one, bool cols_one, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err);
/* Every element of the rows x cols of dst = bits, an integer as wide as
 * dst's element (texpands). */
PtoResult pto_emit_fill(PtoEmit *e, PtoEmitTile dst, LLVMValueRef bits,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err);
/* dst = gcd(|a|, |b|) of integer tiles of one dtype, bit for bit (tgcd). */
PtoResult pto_emit_gcd(PtoEmit *e, PtoEmitTile dst, PtoEmitTile a,
                       PtoEmitTile b, LLVMValueRef rows, LLVMValueRef cols,
                       PtoError *err);

/* ---- the Tile level's bitwise ops (EmitBitwise.c) and piecewise-linear
 * functions (EmitPiecewise.c) ---- */

#define PTO_EMIT_BITWISE_OPS(X) \
  X(AND, "and") X(OR, "or") X(XOR, "xor") X(SHL, "shl") X(SHR, "shr")
#define PTO_EMIT_ENUM(id, name) PTO_EMIT_BITWISE_##id,
typedef enum PtoEmitBitwise { PTO_EMIT_BITWISE_OPS(PTO_EMIT_ENUM) } PtoEmitBitwise;
#undef PTO_EMIT_ENUM
/* dst = a (op) b of integer tiles of one dtype, bit for bit (tand tor
 * txor tshl tshr): shifts by a count outside [0, width) give 0 (left, and
 * right of unsigned types) or the sign fill (right, arithmetic). */
PtoResult pto_emit_bitwise(PtoEmit *e, PtoEmitBitwise op, PtoEmitTile dst,
                           PtoEmitTile a, PtoEmitTile b, LLVMValueRef rows,
                           LLVMValueRef cols, PtoError *err);

#define PTO_EMIT_PIECEWISE_OPS(X) \
  X(SIGN, "sign") X(TRUNC, "trunc") X(HARDSIGMOID, "hardsigmoid") \
  X(LRELU, "lrelu") X(CLIP, "clip")
#define PTO_EMIT_ENUM(id, name) PTO_EMIT_PIECEWISE_##id,
typedef enum PtoEmitPiecewise { PTO_EMIT_PIECEWISE_OPS(PTO_EMIT_ENUM) } PtoEmitPiecewise;
#undef PTO_EMIT_ENUM
/* dst = op(src) with the parameters p (lrelu: slope; clip: min, max),
 * bit for bit with the interpreter (tsign ttrunc thardsigmoid tlrelu
 * tclip): floats in f64, rounded once to dst, NaN and -0 as the Tile
 * level keeps them; sign and trunc of integers too. */
PtoResult pto_emit_piecewise(PtoEmit *e, PtoEmitPiecewise op, const double p[2],
                             PtoEmitTile dst, PtoEmitTile src, LLVMValueRef rows,
                             LLVMValueRef cols, PtoError *err);
/* sin, cos and erf of a float or a vector of floats, and pow (C's powf:
 * pow(x, 0) = pow(1, y) = 1, a negative base takes integer exponents
 * only), computed in f64 (EmitMathF64.c): within 1 ulp of the correctly
 * rounded f32 result (sin, cos: for |x| <= 2^50, NaN beyond). */
LLVMValueRef pto_emit_sin_f32(PtoEmit *e, LLVMValueRef x);
LLVMValueRef pto_emit_cos_f32(PtoEmit *e, LLVMValueRef x);
LLVMValueRef pto_emit_erf_f32(PtoEmit *e, LLVMValueRef x);
/* to_odd: the f64 result rounded to f32 to odd, for a store's rounding
 * to f16 / bf16 (one rounding in effect, as the interpreter's) */
LLVMValueRef pto_emit_pow_f32(PtoEmit *e, LLVMValueRef a, LLVMValueRef b, bool to_odd);
/* One of PTO_EMIT_MATH_EXP_OPS (log2, log10, log1p, exp2, expm1, sinh,
 * cosh, asinh, acosh, atanh, cbrt) of x, a float or a vector of floats
 * loaded from a tile of float dtype dt, computed in f64 (EmitMathExp.c)
 * and returned as the f32 that the store rounds to dt so that the result
 * is d rounded once: libm's value so rounded but where the exact value
 * lies within about 2^-50 of a rounding boundary; special values as C's
 * functions. NULL for the other ops. */
LLVMValueRef pto_emit_exp_math(PtoEmit *e, PtoEmitMath op, PtoDType dt, LLVMValueRef x);
/* The f64 functions they use, on a double or a vector of doubles:
 * exp (results below 2^-1000 or above 2^1000 are clamped there, which
 * every f32 rounding turns into 0 or inf), log (of normal, zero, inf or
 * NaN arguments), sine and cosine together (|x| < 2^50 * pi/2), each
 * within a few ulp of f64, with llvm.fma so that C code calling fma() in
 * the same order computes the same bits. */
LLVMValueRef pto_emit_exp_f64(PtoEmit *e, LLVMValueRef y);
/* Their building blocks (EmitMathF64.c): a * b + c rounded once
 * (llvm.fma); the polynomial of coefficients c (n of them, highest degree
 * first) at x by Horner's scheme with it, f64 or vectors of f64; p(a, b) ?
 * then : otherwise for a float comparison p. */
LLVMValueRef pto_emit_fma_f64(PtoEmit *e, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
LLVMValueRef pto_emit_horner_f64(PtoEmit *e, LLVMValueRef x, const double *c, unsigned n);
LLVMValueRef pto_emit_fselect(PtoEmit *e, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b,
                              LLVMValueRef then, LLVMValueRef otherwise);
LLVMValueRef pto_emit_log_f64(PtoEmit *e, LLVMValueRef x);
void pto_emit_sincos_f64(PtoEmit *e, LLVMValueRef x, LLVMValueRef *sin_out,
                         LLVMValueRef *cos_out);
/* dst = sin(src), cos(src) or tan(src) of float tiles of one dtype
 * (tsin, tcos, ttan; op one of PTO_EMIT_MATH_SIN, _COS, _TAN): the
 * polynomials, or, in a tile holding an |x| > 2^50, libm's function
 * element by element, so every argument gets its value. */
PtoResult pto_emit_trig(PtoEmit *e, PtoEmitMath op, PtoEmitTile dst, PtoEmitTile src,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err);
/* tan, atan, asin, acos, erfc (op PTO_EMIT_MATH_TAN ... _ERFC) and C's
 * atan2(a, b) of a float or a vector of floats, computed in f64 and
 * rounded once to f32 (EmitMathTrig.c), to odd with `odd` so that the
 * store's rounding to f16 or bf16 is the one correct rounding: within
 * 2^-40 of the value before that rounding (tan for |x| <= 2^50, NaN
 * beyond); C's values at +-0, +-inf and NaN, NaN for asin and acos
 * outside [-1, 1]. */
LLVMValueRef pto_emit_trig_f32(PtoEmit *e, PtoEmitMath op, LLVMValueRef x, bool odd);
LLVMValueRef pto_emit_atan2_f32(PtoEmit *e, LLVMValueRef a, LLVMValueRef b, bool odd);
/* dst = the window of the uniform or normal stream of (key, counter)
 * (i64 values) that pto_kernel_random fills, bit for bit (trandom): the
 * stream has `rank` dims `full`, the window starts at `origin` and has
 * the dims `window`, whose leading ones are flattened into dst's rows. */
PtoResult pto_emit_random(PtoEmit *e, bool normal, PtoEmitTile dst, LLVMValueRef key,
                          LLVMValueRef counter, unsigned rank, const int64_t *origin,
                          const int64_t *full, const int64_t *window, LLVMValueRef rows,
                          LLVMValueRef cols, PtoError *err);
/* dst = pow(a, b), or with angle atan2(a, b), of float tiles of one
 * dtype (tpow, tatan2). */
PtoResult pto_emit_pow(PtoEmit *e, bool angle, PtoEmitTile dst, PtoEmitTile a, PtoEmitTile b,
                       LLVMValueRef rows, LLVMValueRef cols, PtoError *err);
/* 1 / (1 + e^-x) of a float or a vector of floats, without overflow for
 * any x (the exponential of -|x| only). */
LLVMValueRef pto_emit_sigmoid_f32(PtoEmit *e, LLVMValueRef x);

/* ---- products and arg-reductions (EmitArgReduce.c) ---- */

/* dst = the product of each row of src (Mx1), or with `col` of each
 * column (1xN), in index order: floats in double rounded once, integers
 * wrapping in their width (trowprod, tcolprod). */
PtoResult pto_emit_prod(PtoEmit *e, bool col, PtoEmitTile dst, PtoEmitTile src,
                        LLVMValueRef rows, LLVMValueRef cols, PtoError *err);
/* values, indices (i32) = the max (min) of each row (column) of src and
 * its first position; the first NaN wins over every number
 * (trowargmax, trowargmin, tcolargmax, tcolargmin). */
PtoResult pto_emit_arg(PtoEmit *e, bool col, bool max, PtoEmitTile values,
                       PtoEmitTile indices, PtoEmitTile src, LLVMValueRef rows,
                       LLVMValueRef cols, PtoError *err);
/* (values, indices) = (v1, i1) where v1 is strictly better than v0 or a
 * NaN over a number, else (v0, i0), bit for bit (targmax_combine,
 * targmin_combine). */
PtoResult pto_emit_arg_combine(PtoEmit *e, bool max, PtoEmitTile values,
                               PtoEmitTile indices, PtoEmitTile v0,
                               PtoEmitTile i0, PtoEmitTile v1, PtoEmitTile i1,
                               LLVMValueRef rows, LLVMValueRef cols,
                               PtoError *err);

#endif
