/* Small builders the emitters share: constants shaped like a value
 * (scalar or vector), intrinsic calls, counted loops with carried values,
 * and the loads and stores of each element type. */
#ifndef PTO_TARGET_LLVMIR_EMITUTIL_H
#define PTO_TARGET_LLVMIR_EMITUTIL_H

#include "Target/LLVMIR/Emit.h"

/* The float dtypes the emitters compute in f32, and the integer ones
 * (signed or unsigned: one LLVM type of their width for both). */
static inline bool pto_emit_is_float(PtoDType dt) {
  return dt == PTO_DT_F32 || dt == PTO_DT_F16 || dt == PTO_DT_BF16;
}
/* The 8-bit floats: storage only, moved as i8 and converted by tcvt. */
static inline bool pto_emit_is_f8(PtoDType dt) {
  return dt == PTO_DT_F8E4M3 || dt == PTO_DT_F8E5M2 || dt == PTO_DT_F8E8M0;
}
static inline bool pto_emit_is_uint(PtoDType dt) {
  return dt == PTO_DT_U64 || dt == PTO_DT_U32 || dt == PTO_DT_U16 || dt == PTO_DT_U8;
}
/* The integers f32 does not hold every value of. */
static inline bool pto_emit_int_past_f32(PtoDType dt) {
  return dt == PTO_DT_I32 || dt == PTO_DT_U32 || dt == PTO_DT_I64 || dt == PTO_DT_U64;
}
static inline bool pto_emit_is_int(PtoDType dt) {
  return dt == PTO_DT_I64 || dt == PTO_DT_I32 || dt == PTO_DT_I16 || dt == PTO_DT_I8 ||
         pto_emit_is_uint(dt);
}

/* How a dtype's values are computed: floats, or integers of its width
 * that compare, divide, widen and take maxima signed or unsigned. (0 and
 * 1 are false and true, for the callers that still pass `fp`.) */
typedef enum PtoEmitNum {
  PTO_EMIT_NUM_INT = 0,
  PTO_EMIT_NUM_FLOAT = 1,
  PTO_EMIT_NUM_UINT = 2,
} PtoEmitNum;
static inline PtoEmitNum pto_emit_num_of(PtoDType dt) {
  return pto_emit_is_float(dt) ? PTO_EMIT_NUM_FLOAT
         : pto_emit_is_uint(dt) ? PTO_EMIT_NUM_UINT
                                : PTO_EMIT_NUM_INT;
}
/* The signed integer predicate `p` (SLT, SLE, SGT, SGE), or its unsigned
 * twin for an unsigned dtype; EQ and NE stay. */
LLVMIntPredicate pto_emit_int_pred(PtoEmitNum num, LLVMIntPredicate p);
/* An integer value of dtype dt widened to `to` (sign- or zero-extended). */
LLVMValueRef pto_emit_int_widen(PtoEmit *e, PtoDType dt, LLVMValueRef v, LLVMTypeRef to);

/* The lanes of a value's type: 0 for a scalar. */
unsigned pto_emit_lanes_of(LLVMValueRef v);
/* ty, or a vector of `lanes` ty when lanes > 0. */
LLVMTypeRef pto_emit_vec_type(LLVMTypeRef ty, unsigned lanes);
/* A float constant / an i32 constant with as many lanes as `like`. */
LLVMValueRef pto_emit_fconst(PtoEmit *e, LLVMValueRef like, double v);
LLVMValueRef pto_emit_iconst(PtoEmit *e, LLVMValueRef like, int64_t v);
/* An integer constant of the type of `like` (its element type, splat). */
LLVMValueRef pto_emit_iconst_like(LLVMValueRef like, int64_t v);
/* A scalar value broadcast to `lanes` lanes (itself when lanes == 0). */
LLVMValueRef pto_emit_splat(PtoEmit *e, LLVMValueRef s, unsigned lanes);
/* A call of the overloaded intrinsic `name` (llvm.fmuladd, llvm.rint...)
 * at the type of args[0]. */
LLVMValueRef pto_emit_intrinsic(PtoEmit *e, const char *name,
                                LLVMValueRef *args, unsigned n);
/* llvm.prefetch of the cache line holding *p, for reading, into every
 * cache level: a hint that no target faults on. */
void pto_emit_prefetch(PtoEmit *e, LLVMValueRef p);

/* A counted loop: iv runs lo, lo + step, ... while iv < hi (signed i64),
 * with up to PTO_EMIT_MAX_CARRY values carried from one iteration to the
 * next. Between begin and end the builder is in the body; after end it is
 * after the loop, and carry[i] holds each value's final one (its initial
 * one when the loop ran zero times). */
#define PTO_EMIT_MAX_CARRY 40
typedef struct PtoEmitLoop {
  LLVMBasicBlockRef pre, body, exit, latch; /* latch: set by end */
  LLVMValueRef iv, hi;
  int64_t step;
  unsigned ncarry;
  LLVMValueRef carry[PTO_EMIT_MAX_CARRY]; /* in the body: this iteration's */
  LLVMValueRef init[PTO_EMIT_MAX_CARRY];
  LLVMValueRef next[PTO_EMIT_MAX_CARRY]; /* set by the body */
} PtoEmitLoop;
void pto_emit_loop_begin(PtoEmit *e, PtoEmitLoop *l, LLVMValueRef lo,
                         LLVMValueRef hi, int64_t step, unsigned ncarry,
                         const LLVMValueRef *init);
void pto_emit_loop_end(PtoEmit *e, PtoEmitLoop *l);
/* After end: asks LLVM to vectorise the loop without interleaving or
 * unrolling it, for bodies so long (exp, log, tanh) that copies of them
 * run out of vector registers and spill their constants on every trip. */
void pto_emit_loop_keep_single(PtoEmit *e, PtoEmitLoop *l);
/* After end: asks LLVM not to unroll the loop (the rows of a tile: with
 * a constant count LLVM unrolled them whole, a copy of the vectorised
 * row loop per row, which made compile time grow with the tile's rows
 * for no speed: a row is hundreds of elements). */
void pto_emit_loop_keep_rolled(PtoEmit *e, PtoEmitLoop *l);

/* The loop nest over the rows x cols of a tile (no iteration when either
 * is 0): fn(e, r, c, user) emits the body for element (r, c). */
typedef void (*PtoEmitElemFn)(PtoEmit *e, LLVMValueRef r, LLVMValueRef c,
                              const void *user);
void pto_emit_each(PtoEmit *e, LLVMValueRef rows, LLVMValueRef cols,
                   PtoEmitElemFn fn, const void *user);

/* The operands of a per-element instruction: its result tile, up to three
 * source tiles, the emitter's own op code and one scalar its body needs
 * (a row length, a key). */
typedef struct PtoEmitTiles {
  PtoEmitTile dst;
  PtoEmitTile src[3];
  int op;
  LLVMValueRef extra;
} PtoEmitTiles;
typedef void (*PtoEmitTilesFn)(PtoEmit *e, const PtoEmitTiles *t,
                               LLVMValueRef r, LLVMValueRef c);
/* What every per-element emitter does around its body: when the element
 * types are `ok`, the loop nest over rows x cols with fn per element;
 * otherwise nothing is emitted and err says "<needs>, not <the nsrc
 * sources' dtypes> -> <dst's dtype>". */
PtoResult pto_emit_tiles_each(PtoEmit *e, const PtoEmitTiles *t, unsigned nsrc,
                              bool ok, const char *needs, LLVMValueRef rows,
                              LLVMValueRef cols, PtoEmitTilesFn fn,
                              PtoError *err);

/* The type elements of dtype are stored as, and the type they are
 * computed in (float for f32, f16 and bf16). NULL for the dtypes the
 * emitters do not handle. */
LLVMTypeRef pto_emit_storage_type(PtoEmit *e, PtoDType dt);
LLVMTypeRef pto_emit_compute_type(PtoEmit *e, PtoDType dt);
/* &tile[r][c] as a pointer to the storage type. */
LLVMValueRef pto_emit_elem_ptr(PtoEmit *e, PtoEmitTile t, LLVMValueRef r,
                               LLVMValueRef c);
/* `lanes` consecutive elements (one when 0) at p, in the compute type;
 * and the other way, rounding to nearest even. */
LLVMValueRef pto_emit_load(PtoEmit *e, PtoDType dt, LLVMValueRef p,
                           unsigned lanes);
void pto_emit_store(PtoEmit *e, PtoDType dt, LLVMValueRef p, LLVMValueRef v);
/* Marks a vector store, aligned to its width, as non-temporal (a
 * streaming store: EmitStream.c). */
void pto_emit_mark_nontemporal(PtoEmit *e, LLVMValueRef store);
/* The conversions inside them: a compute-type value (scalar or vector) to
 * the storage type, rounded as a store rounds it, and back. */
LLVMValueRef pto_emit_to_storage(PtoEmit *e, PtoDType dt, LLVMValueRef v);
LLVMValueRef pto_emit_from_storage(PtoEmit *e, PtoDType dt, LLVMValueRef v);
/* d (double, scalar or vector) rounded to f32 to odd: the f32 toward
 * zero, its last bit set when inexact. Rounding that to f16 or bf16 to
 * nearest even rounds d once, as the interpreter does (f32 has more than
 * 2 bits beyond both). */
LLVMValueRef pto_emit_f32_odd(PtoEmit *e, LLVMValueRef d);
/* One element at p as an integer of its width, and back: the instructions
 * that move values (select, gather, sort) keep every bit, NaN payloads
 * too. */
LLVMValueRef pto_emit_load_bits(PtoEmit *e, PtoDType dt, LLVMValueRef p);
/* The index (an i32 or i64 tile) at index[r][c] as an i64, whatever it
 * lies in. */
LLVMValueRef pto_emit_index_at(PtoEmit *e, PtoEmitTile index, LLVMValueRef r,
                               LLVMValueRef c);
/* The index at index[r][c] as an i64 (pto_emit_index_at) when it lies in
 * [0, extent), else 0 (*in tells which): gathers address only inside
 * their source with it, and give 0 where *in is false. */
LLVMValueRef pto_emit_load_index(PtoEmit *e, PtoEmitTile index, LLVMValueRef r,
                                 LLVMValueRef c, LLVMValueRef extent,
                                 LLVMValueRef *in);
void pto_emit_store_bits(PtoEmit *e, PtoDType dt, LLVMValueRef p, LLVMValueRef v);

/* The computations of the vector instructions on one value (scalar or
 * vector) of the compute type, shared by the one-instruction loops and the
 * fused runs so that both compute the same bits. */
LLVMValueRef pto_emit_apply_binary(PtoEmit *e, PtoEmitBinary op, PtoEmitNum num,
                                   LLVMValueRef a, LLVMValueRef b);
/* a / b of integers (scalars or vectors) as the interpreter divides:
 * toward zero, a / 0 = 0, MIN / -1 = MIN; unsigned when num says so. */
LLVMValueRef pto_emit_int_div(PtoEmit *e, PtoEmitNum num, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef pto_emit_apply_unary(PtoEmit *e, PtoEmitUnary op, PtoEmitNum num,
                                  LLVMValueRef x);
/* A reduction's start (scalar) and its combining step. */
LLVMValueRef pto_emit_reduce_init(PtoEmit *e, PtoEmitReduce op, PtoDType dt,
                                  LLVMTypeRef ct);
LLVMValueRef pto_emit_reduce2(PtoEmit *e, PtoEmitReduce op, PtoEmitNum num,
                              LLVMValueRef a, LLVMValueRef b);
/* The checks of a step's emitter: dtypes it takes, a scalar's type. */
PtoResult pto_emit_step_check(PtoEmit *e, const PtoEmitStep *st, PtoError *err);
/* A row reduction's `lanes` partial results folded to one, halving the
 * vector each time (a fixed tree). */
LLVMValueRef pto_emit_reduce_tree(PtoEmit *e, PtoEmitReduce op, PtoEmitNum num,
                                  LLVMValueRef acc);
/* The whole vectors of one row of a row reduction, columns [lo, hi)
 * (hi - lo a multiple of the vector's lanes), reduced to one vector of
 * partial results in the order of pto_emit_row_reduce (Emit.h), which
 * pto_emit_fused shares so that both give the same bits; fn(e, c, user)
 * emits the vector of columns c.. (a load, or a fused run's steps).
 * Independent chains keep the loop from being one long chain of
 * dependent additions (or comparisons), each waiting for the last.
 * `init` is the chains' start (a splat of the reduction's start value).
 * With `single`, the loops are not unrolled further
 * (pto_emit_loop_keep_single). */
typedef LLVMValueRef (*PtoEmitVectorFn)(PtoEmit *e, LLVMValueRef c, const void *user);
LLVMValueRef pto_emit_reduce_vectors(PtoEmit *e, PtoEmitReduce op, PtoEmitNum num,
                                     LLVMValueRef init, LLVMValueRef lo, LLVMValueRef hi,
                                     bool single, PtoEmitVectorFn fn, const void *user);

#endif
