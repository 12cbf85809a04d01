/* Helpers shared by the pypto handlers (InterpPypto.c: compute ops,
 * InterpPyptoShape.c: shape and indexing ops). */
#ifndef PTO_INTERP_PYPTO_H
#define PTO_INTERP_PYPTO_H

#include "Interp/InterpInternal.h"
#include "pto/Dialect/Pypto.h"

/* The KERNEL column of the op tables (PyptoOps.def, TileOps.def): which
 * kernel computes an op. The interpreter registers the handler of each
 * op's family with a pointer to its row's InterpKernel as user data. */
typedef enum InterpFamily {
  INTERP_MOVE, /* data movement and shape bookkeeping */
  INTERP_UNARY,
  INTERP_CAST,
  INTERP_BINARY,
  INTERP_WHERE,
  INTERP_REDUCE,
  INTERP_ARG_COMBINE,
  INTERP_MATMUL,
  INTERP_SOFTMAX,
  INTERP_RMS_NORM,
  INTERP_LAYER_NORM,
  INTERP_GATHER,
  INTERP_INDEX_SELECT,
  INTERP_SCATTER_UPDATE,
  INTERP_TOPK,
  INTERP_TOPK_MERGE,
  INTERP_QUANTIZE,
  INTERP_DEQUANTIZE,
  INTERP_RANDOM,
  INTERP_INDEX_ADD,
  INTERP_SCATTER_ELEMENTS,
  INTERP_QUANT_MX,
  INTERP_SCALED_MM,
} InterpFamily;

typedef struct InterpKernel {
  InterpFamily family;
  int kind; /* PtoUnaryKind, PtoBinaryKind or PtoReduceKind, by family */
} InterpKernel;

/* A table row's KERNEL column as an InterpKernel initializer:
 * INTERP_KERNEL_##KERNEL. */
#define INTERP_KERNEL_MOVE {INTERP_MOVE, 0}
#define INTERP_KERNEL_UNARY(K) {INTERP_UNARY, PTO_UNARY_##K}
#define INTERP_KERNEL_CAST {INTERP_CAST, 0}
#define INTERP_KERNEL_BINARY(K) {INTERP_BINARY, PTO_BINARY_##K}
#define INTERP_KERNEL_WHERE {INTERP_WHERE, 0}
#define INTERP_KERNEL_REDUCE(K) {INTERP_REDUCE, PTO_REDUCE_##K}
#define INTERP_KERNEL_ARG_COMBINE(K) {INTERP_ARG_COMBINE, PTO_REDUCE_##K}
#define INTERP_KERNEL_MATMUL {INTERP_MATMUL, 0}
#define INTERP_KERNEL_SOFTMAX {INTERP_SOFTMAX, 0}
#define INTERP_KERNEL_RMS_NORM {INTERP_RMS_NORM, 0}
#define INTERP_KERNEL_LAYER_NORM {INTERP_LAYER_NORM, 0}
#define INTERP_KERNEL_GATHER {INTERP_GATHER, 0}
#define INTERP_KERNEL_INDEX_SELECT {INTERP_INDEX_SELECT, 0}
#define INTERP_KERNEL_SCATTER_UPDATE {INTERP_SCATTER_UPDATE, 0}
#define INTERP_KERNEL_TOPK {INTERP_TOPK, 0}
#define INTERP_KERNEL_TOPK_MERGE {INTERP_TOPK_MERGE, 0}
#define INTERP_KERNEL_QUANTIZE {INTERP_QUANTIZE, 0}
#define INTERP_KERNEL_DEQUANTIZE {INTERP_DEQUANTIZE, 0}
#define INTERP_KERNEL_RANDOM(K) {INTERP_RANDOM, PTO_RANDOM_##K}
#define INTERP_KERNEL_INDEX_ADD {INTERP_INDEX_ADD, 0}
#define INTERP_KERNEL_SCATTER_ELEMENTS {INTERP_SCATTER_ELEMENTS, 0}
#define INTERP_KERNEL_QUANT_MX {INTERP_QUANT_MX, 0}
#define INTERP_KERNEL_SCALED_MM {INTERP_SCALED_MM, 0}

/* The handler of the elementwise families every level shares (UNARY,
 * CAST, BINARY, WHERE, DEQUANTIZE), or NULL. */
PtoInterpHandler interp_elementwise_handler(InterpFamily f);

/* Operand i as an array: a tensor's elements, or a scalar operand stored
 * in *buf as a rank-0 array of its dtype. */
PtoNdArray interp_operand_array(PtoInterpFrame *f, PtoOp *op, unsigned i,
                            uint64_t *buf);
/* A new tensor for result i, with the result type's dtype and `shape`. */
PtoTensor *interp_new_result(PtoInterpFrame *f, PtoOp *op, unsigned i,
                         unsigned rank, const int64_t *shape);
/* Reports a kernel's error at the op; releases `t` (may be NULL). */
PtoResult interp_kernel_error(PtoInterpFrame *f, PtoOp *op,
                          const PtoKernelError *err, PtoTensor *t);
/* Sets result i to tensor t (taking its reference). */
void interp_set_tensor(PtoInterpFrame *f, PtoOp *op, unsigned i, PtoTensor *t);
/* After a kernel call `r` that filled t: sets t as result 0, or reports
 * the kernel's error and releases t. */
PtoResult interp_finish(PtoInterpFrame *f, PtoOp *op, PtoTensor *t, PtoResult r,
                    const PtoKernelError *err);
/* Operand i's elements (a tensor operand). */
const PtoNdArray *interp_tensor_arg(PtoInterpFrame *f, PtoOp *op, unsigned i);
/* An error naming two run-time shapes: "<what> at run time: '<a>' and
 * '<b>'<tail>". */
PtoResult interp_shape_error(PtoInterpFrame *f, PtoOp *op, const char *what,
                         const PtoNdArray *a, const PtoNdArray *b,
                         const char *tail);
/* numpy broadcast of operand arrays, or an error at the op naming the
 * first incompatible dim. */
PtoResult interp_broadcast(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *a,
                       const PtoNdArray *b, unsigned *rank, int64_t *shape);
/* The run-time sizes of the result type's dims: static ones as written,
 * `?` ones from the index operands starting at `first` (in order). Fails
 * on a negative size. */
PtoResult interp_result_sizes(PtoInterpFrame *f, PtoOp *op, unsigned first,
                          unsigned *rank, int64_t *shape);

/* The window of `a` at `offs` with `shape` (a's rank), as an array of its
 * own sharing a's data. */
PtoNdArray interp_window_of(const PtoNdArray *a, const int64_t *offs,
                        const int64_t *shape);
/* The run-time offsets of a window op (n offsets: offs[d], or the value of
 * dyn[d] when it is non-NULL, written back into offs), checked against
 * `src` for a window of `size`; the dim `free` (or -1) is not checked (its
 * positions come from an index tensor). */
PtoResult interp_window_offsets(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *src,
                            unsigned n, int64_t *offs, PtoValue *const *dyn,
                            const int64_t *size, int free);

/* The `reduce` attribute of scatter and tile.scatter_elements (verified:
 * absent, "add" or "multiply"). */
PtoScatterReduce interp_scatter_reduce(const PtoOp *op);

void interp_register_shape_ops(PtoInterp *I);
/* pass_verify_print / pass_verify_save (InterpDebug.c). */
void interp_register_debug_ops(PtoInterp *I);

#endif
