/* Private pieces of the numeric kernels: an odometer over the rows of
 * several strided arrays at once (dims merged where the layout allows, so
 * that contiguous data becomes one long row), and bulk loads/stores of a
 * strided row to and from double or int64 buffers, switching on the dtype
 * once per row instead of once per element. */
#ifndef PTO_KERNELS_KERNELUTIL_H
#define PTO_KERNELS_KERNELUTIL_H

#include "pto/Kernels.h"

#include <stdarg.h>

/* Most arrays a kernel walks together (where: cond, x, y, out). */
#define KERNEL_MAX_ARRAYS 4
/* Elements per chunk of the double/int64 scratch buffers. */
#define KERNEL_CHUNK 512

typedef struct KernelIter {
  unsigned narr, rank; /* rank: outer dims, the row dim excluded */
  int64_t shape[PTO_MAX_RANK];
  int64_t strides[KERNEL_MAX_ARRAYS][PTO_MAX_RANK];
  int64_t idx[PTO_MAX_RANK];
  int64_t off[KERNEL_MAX_ARRAYS];  /* element offset of the current row */
  int64_t step[KERNEL_MAX_ARRAYS]; /* element stride along the row */
  int64_t n;                /* row length */
  bool empty;               /* no elements at all */
} KernelIter;

/* Rows of the index space `shape` (rank <= PTO_MAX_RANK), with one stride
 * vector per array (rank entries each). */
void kernel_iter_init(KernelIter *it, unsigned rank, const int64_t *shape,
                  unsigned narr, int64_t strides[][PTO_MAX_RANK]);
/* Advances to the next row; false after the last one. */
bool kernel_iter_next(KernelIter *it);

/* Strides that make `a` broadcast to `shape` (rank entries): missing and
 * stretched size-1 dims get stride 0. False (and err filled, naming the
 * array `what`) when `a` does not broadcast. */
bool kernel_bcast_strides(const PtoNdArray *a, unsigned rank, const int64_t *shape,
                      int64_t *strides, const char *what, PtoKernelError *err);

/* The rows of an elementwise map from `in` (broadcast) to `out`: arrays 0
 * and 1 of the iterator. False (err filled) when `in` does not broadcast. */
bool kernel_iter_map(KernelIter *it, const PtoNdArray *in, const PtoNdArray *out,
                 PtoKernelError *err);


/* Row I/O. `off` and `step` count elements of `dt` from `data`. Loads are
 * exact (int64 beyond 2^53 to nearest in the double form). Stores of
 * doubles round to nearest even (integers: toward zero, wrapping); stores
 * of int64 wrap to the dtype's width (bool: v != 0). */
void kernel_load_f64(PtoDType dt, const void *data, int64_t off, int64_t step,
                 int64_t n, double *out);
void kernel_store_f64(PtoDType dt, void *data, int64_t off, int64_t step,
                  int64_t n, const double *in);
void kernel_load_i64(PtoDType dt, const void *data, int64_t off, int64_t step,
                 int64_t n, int64_t *out);
void kernel_store_i64(PtoDType dt, void *data, int64_t off, int64_t step,
                  int64_t n, const int64_t *in);

/* Integers in a form whose signed order is the dtype's order: u64 (held
 * as its bit pattern) with the sign bit flipped, every other dtype as it
 * is. The flip is its own inverse, so it also maps results back. Order-
 * based kernels (max, min, compare, arg-reductions, sort) run on it. */
static inline int64_t kernel_ord_key(PtoDType dt, int64_t v) {
  return dt == PTO_DT_U64 ? (int64_t)((uint64_t)v ^ ((uint64_t)1 << 63)) : v;
}
static inline void kernel_ord_row(PtoDType dt, int64_t *v, int64_t n) {
  if (dt == PTO_DT_U64)
    for (int64_t i = 0; i < n; i++) v[i] = kernel_ord_key(dt, v[i]);
}

/* Pointer to element `off` of an array's buffer. */
static inline char *kernel_at(const PtoNdArray *a, int64_t off) {
  return (char *)a->data + off * (int64_t)pto_dtype_size(a->dtype);
}

/* The value of a double after rounding to float dtype `dt` (nearest
 * even); other dtypes return v unchanged. */
double kernel_round(PtoDType dt, double v);

/* "(2, 3)" into buf (PTO_SHAPE_STR_MAX bytes). */
const char *kernel_shape_str(char *buf, const PtoNdArray *a);

/* Checks that `a` has `rank` dims equal to `shape`. */
bool kernel_same_shape(const PtoNdArray *a, unsigned rank, const int64_t *shape);

#endif
