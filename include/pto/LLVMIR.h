/* PTO to LLVM IR: each pto.kernel of a module becomes an LLVM function
 * over the core's buffer image, its GM tensors and its index and scalar
 * arguments, with the tile instructions as vectorised loops (docs/jit.md,
 * docs/tools/pto-translate.md). */
#ifndef PTO_LLVMIR_H
#define PTO_LLVMIR_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Translates every pto.kernel of `module` (verified, memory-planned) into
 * one LLVM module, verified by LLVM and returned as textual IR in *out
 * (pto_free). What cannot be translated is reported as an error at its op
 * through the context, and nothing is returned. A func.func (the host
 * program of a lowered module) is translated as described below.
 *
 * The function of `pto.kernel vector @k(%A: tensor<64x64xf32>, %i: index)`
 * is `void @k(i8* %vec, i8* %A, i64 %i)`: first one base pointer per
 * memory space of the core (vector: vec; cube: mat, left, right, acc),
 * each tile at its planned byte offset from its space's base, then the
 * kernel's arguments in order (a GM tensor as the address of its first
 * element, row-major; index as i64; scalars as their LLVM type).
 * `lanes` is the f32 width of the host's vectors the reductions and the
 * matmul use (8, or 16 for AVX-512; 0: 8). */
PtoResult pto_translate_to_llvmir(PtoOp *module, unsigned lanes, char **out);

/* A kernel with an instruction that can fail at run time (tgather_gm: an
 * index outside its tensor) is `i32 @k(..., i64* %fault)` instead: the
 * same parameters and then its fault record, PTO_LLVMIR_FAULT_SLOTS
 * int64. It returns 0, or PTO_LLVMIR_FAULT after recording the first bad
 * index (row-major, the one the interpreter names) in the record: which
 * instruction (its 1-based position in the kernel's body,
 * pto_llvmir_fault_op), the index, its row and column in the index tile
 * and the bound it had to be below. Other kernels stay `void`. */
enum {
  PTO_LLVMIR_FAULT_SITE,
  PTO_LLVMIR_FAULT_INDEX,
  PTO_LLVMIR_FAULT_ROW,
  PTO_LLVMIR_FAULT_COL,
  PTO_LLVMIR_FAULT_BOUND,
  PTO_LLVMIR_FAULT_SLOTS
};
enum { PTO_LLVMIR_FAULT = 1 };
/* Whether `kernel` (a pto.kernel) has an instruction that can fail. */
bool pto_llvmir_kernel_can_fault(PtoOp *kernel);
/* Where the host program puts a task's fault record: the int64 slot after
 * the kernel's operands and dynamic dims in the task's packed operands
 * (PtoHostEnv.alloc); -1 when the kernel cannot fail. */
int64_t pto_llvmir_kernel_fault_slot(PtoOp *kernel);
/* The instruction of `kernel` a fault record's site names, or NULL. */
PtoOp *pto_llvmir_fault_op(PtoOp *kernel, int64_t site);

/* What the host program returns when its index arithmetic divides by
 * zero (see below). */
enum { PTO_HOST_DIVISION_BY_ZERO = -2 };

/* The host program (a func.func of block.workspace / block.launch ops,
 * with scf.for and index arithmetic) becomes `i32 @name(PtoHostEnv *env)`:
 * run once per shape, it declares the GM buffers and submits one task per
 * launch through the callbacks below, so that the graph it builds is
 * replayed with new buffers afterwards (pto_graph_run). It returns 0, or
 * -1 as soon as a callback fails, or PTO_HOST_DIVISION_BY_ZERO when its
 * index arithmetic divides by zero (or the smallest integer by -1). The
 * generated code calls nothing but these callbacks, so it needs no symbol of the process.
 *
 * Buffers: first one per tensor argument, in order (its bytes from
 * `dims`; integer arguments take no buffer), then one per block.workspace executed. A launch's task carries
 * `kernel_ids[k]` (k: the kernel's position among the module's
 * pto.kernel ops), its GM windows as byte regions of those buffers (one
 * region per contiguous run: a window of whole rows is one region, a
 * 32x32 window of a 64x64 tensor 32), its label, `kernel_cycles[k]`, the
 * bytes of its windows and the kernel's cube FLOPs, and in `user` an
 * array of int64 from `alloc`: per launch operand, a tensor's buffer
 * index or a scalar's bits. The entry `i32 @<kernel>__task(const
 * PtoRtTaskArgs *)` unpacks that array and runs the kernel over a buffer
 * image on its worker's stack, 64-byte aligned and as large as the
 * kernel's planned buffers reach in each memory space. */
typedef struct PtoHostEnv {
  void *user; /* the caller's */
  /* pto_graph_add_buffer's contract: the buffer's index, or -1 */
  int32_t (*add_buffer)(struct PtoHostEnv *env, int64_t bytes,
                        const char *name);
  /* pto_graph_submit's: `task` is a PtoRtTaskDesc; its id, or -1 */
  int64_t (*submit)(struct PtoHostEnv *env, const void *task);
  /* `count` int64 living as long as the graph, or NULL */
  int64_t *(*alloc)(struct PtoHostEnv *env, uint32_t count);
  const int32_t *kernel_ids;
  const uint64_t *kernel_cycles;
  /* per argument in order: every dim of a tensor, an integer's value */
  const int64_t *dims;
  /* out: the buffer index of each returned tensor, and its dims (result
   * i's at result_dims[i * PTO_MAX_RANK ...]); a returned scalar has
   * buffer -1 and its bits (as a launch operand's) in its first dim */
  int32_t *results;
  int64_t *result_dims;
  /* tile.load_scalar: `req` holds the buffer, the tensor's PtoDType, the
   * op's site (pto_llvmir_load_scalar_op), the rank, the indices, the
   * dims, and a slot where the element goes (sign-extended). Returns 0,
   * or -1 after a diagnostic (an index out of range, a failed task). */
  int64_t (*read_scalar)(struct PtoHostEnv *env, int64_t *req);
  /* A host op (pto_llvmir_is_host_op): `req` holds the op's site
   * (pto_llvmir_host_op_op), its number of operands, then per operand its
   * buffer, rank and PTO_LLVMIR_HOST_OP_DIMS dims. The callback declares
   * the result's buffer and submits the task that computes it; returns
   * the buffer's index, or -1 after a diagnostic. */
  int64_t (*host_op)(struct PtoHostEnv *env, int64_t *req);
} PtoHostEnv;

/* Dims per operand in a host op's request. */
enum { PTO_LLVMIR_HOST_OP_DIMS = 8 };

/* Whether the host program runs `op` as a task of its own: an op of a
 * dialect outside the compiler's levels (a user's extension op, such as
 * the `experimental` gathers) with tensor operands and one tensor result
 * of static shape. No kernel computes it; the program that runs the host
 * function supplies its implementation (pto/HostProgram.h,
 * PtoHostOpDef). */
bool pto_llvmir_is_host_op(PtoOp *op);
/* The host ops of a host function, numbered in walk order: the site of
 * `op`, and the op of a site (NULL past the last). */
unsigned pto_llvmir_host_op_site(PtoOp *func, PtoOp *op);
PtoOp *pto_llvmir_host_op_op(PtoOp *func, unsigned site);

/* The tile.load_scalar ops of a host function, numbered in walk order:
 * the site of `op`, and the op of a site (NULL past the last). */
unsigned pto_llvmir_load_scalar_site(PtoOp *func, PtoOp *op);
PtoOp *pto_llvmir_load_scalar_op(PtoOp *func, unsigned site);

typedef struct PtoTranslateOptions {
  /* f32 lanes of the reductions and the matmul: 8 or 16 (0: 8); results
   * are the same at both widths but for float row sums (docs/jit.md) */
  unsigned lanes;
  /* Bytes of each on-chip buffer of one core (vec, mat, left, right, acc,
   * as PtoBufSpace; 0: the default platform's, a2a3: 192 KiB, 512 KiB,
   * 64 KiB, 64 KiB, 128 KiB). A planned tile that does not lie within
   * its buffer is an error at the instruction, since the compiled code
   * would read or write outside the image it is given. */
  uint64_t buffer_bytes[5];
  /* Each vector instruction as its own loop nest, as before element-wise
   * fusion (docs/jit.md, "Fusion"); the results are the same bits. */
  bool no_fuse;
  /* The IR is for an x86-64 target (the JIT on such a host): it may call
   * x86 intrinsics where they beat the target-neutral form. Today one: a
   * kernel's streaming stores are ordered by an SFENCE
   * (llvm.x86.sse.sfence), where the target-neutral seq_cst fence is an
   * MFENCE on x86, which also waits for every store to drain and holds
   * back later loads (docs/jit.md, "Streaming stores"). Off: IR any
   * LLVM target compiles. */
  bool x86;
  /* No prefetching of the windows the next task of a vector kernel loads
   * (docs/jit.md, "Prefetching"); the results are the same bits. */
  bool no_prefetch;
  /* No forwarding: every tload copies its window into the vector buffer
   * and its readers read the copy (docs/jit.md, "Forwarding"); the
   * results are the same bits. */
  bool no_forward;
} PtoTranslateOptions;

/* pto_translate_to_llvmir with options (NULL: the defaults);
 * pto_translate_to_llvmir(m, lanes, out) is this with {lanes}. */
PtoResult pto_translate_to_llvmir_with(PtoOp *module,
                                       const PtoTranslateOptions *opts,
                                       char **out);

/* The f32 lanes of this host's widest vectors LLVM reports: 16 with
 * AVX-512 (avx512f), else 8. */
unsigned pto_llvmir_host_lanes(void);
/* Whether this host is x86-64 (LLVM's default target triple), for
 * PtoTranslateOptions.x86. */
bool pto_llvmir_host_is_x86(void);

#ifdef __cplusplus
}
#endif
#endif
