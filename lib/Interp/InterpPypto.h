/* Helpers shared by the pypto handlers (InterpPypto.c: compute ops,
 * InterpPyptoShape.c: shape and indexing ops). */
#ifndef PTO_INTERP_PYPTO_H
#define PTO_INTERP_PYPTO_H

#include "Interp/InterpInternal.h"
#include "pto/Dialect/Pypto.h"

/* Operand i as an array: a tensor's elements, or a scalar operand stored
 * in *buf as a rank-0 array of its dtype. */
PtoNdArray ip_operand_array(PtoInterpFrame *f, PtoOp *op, unsigned i,
                            uint64_t *buf);
/* A new tensor for result i, with the result type's dtype and `shape`. */
PtoTensor *ip_new_result(PtoInterpFrame *f, PtoOp *op, unsigned i,
                         unsigned rank, const int64_t *shape);
/* Reports a kernel's error at the op; releases `t` (may be NULL). */
PtoResult ip_kernel_error(PtoInterpFrame *f, PtoOp *op,
                          const PtoKernelError *err, PtoTensor *t);
/* Sets result i to tensor t (taking its reference). */
void ip_set_tensor(PtoInterpFrame *f, PtoOp *op, unsigned i, PtoTensor *t);
/* An error naming two run-time shapes: "<what> at run time: '<a>' and
 * '<b>'<tail>". */
PtoResult ip_shape_error(PtoInterpFrame *f, PtoOp *op, const char *what,
                         const PtoNdArray *a, const PtoNdArray *b,
                         const char *tail);
/* numpy broadcast of operand arrays, or an error at the op naming the
 * first incompatible dim. */
PtoResult ip_broadcast(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *a,
                       const PtoNdArray *b, unsigned *rank, int64_t *shape);
/* The run-time sizes of the result type's dims: static ones as written,
 * `?` ones from the index operands starting at `first` (in order). Fails
 * on a negative size. */
PtoResult ip_result_sizes(PtoInterpFrame *f, PtoOp *op, unsigned first,
                          unsigned *rank, int64_t *shape);

/* The window of `a` at `offs` with `shape` (a's rank), as an array of its
 * own sharing a's data. */
PtoNdArray ip_window_of(const PtoNdArray *a, const int64_t *offs,
                        const int64_t *shape);
/* The run-time offsets of a window op (n offsets: offs[d], or the value of
 * dyn[d] when it is non-NULL, written back into offs), checked against
 * `src` for a window of `size`; the dim `free` (or -1) is not checked (its
 * positions come from an index tensor). */
PtoResult ip_window_offsets(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *src,
                            unsigned n, int64_t *offs, PtoValue *const *dyn,
                            const int64_t *size, int free);

void ip_register_shape_ops(PtoInterp *I);

#endif
