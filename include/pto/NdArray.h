/* PtoNdArray: the host-side n-d array that the interpreter, the runtime,
 * pto-run, the .npy reader/writer and the C API exchange. A plain struct
 * (ctypes can mirror it) describing `data` of `dtype` with up to
 * PTO_MAX_RANK dims; C-contiguous unless wrapped with explicit strides.
 * Part of lib/Array (no IR): errors come back as a PtoError (may be NULL);
 * pto/IRArray.h has the forms that report through a context. */
#ifndef PTO_NDARRAY_H
#define PTO_NDARRAY_H

#include "pto/DType.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoNdArray {
  PtoDType dtype;
  unsigned rank;                 /* 0 is a scalar (one element) */
  int64_t shape[PTO_MAX_RANK];   /* entries past rank are 0 */
  int64_t strides[PTO_MAX_RANK]; /* in elements; may be negative or 0 */
  void *data;                    /* element [0, ..., 0] */
  size_t nbytes;                 /* numel * element size */
  bool owns_data;                /* destroy frees data */
} PtoNdArray;

/* A new zero-filled C-contiguous array. Fails (NULL, err filled) on rank
 * > PTO_MAX_RANK, a negative dim, or a byte size that overflows. */
PtoNdArray *pto_ndarray_create(PtoDType dt, unsigned rank, const int64_t *shape,
                               PtoError *err);
/* Describes memory the caller keeps ownership of; strides NULL means
 * C-contiguous. Same checks as create. */
PtoNdArray *pto_ndarray_wrap(PtoDType dt, unsigned rank, const int64_t *shape,
                             const int64_t *strides, void *data,
                             PtoError *err);
/* Frees memory the library hands to the caller (pto_npy_save_buffer's
 * buffer); the same function IR.h declares. */
void pto_free(void *p);
/* Frees the struct, and the data when owned. NULL is a no-op. */
void pto_ndarray_destroy(PtoNdArray *a);

/* Checks a shape for an array of dt (rank <= PTO_MAX_RANK, dims >= 0, byte
 * size within size_t) and gives its C-contiguous size in bytes. */
PtoResult pto_shape_check(PtoDType dt, unsigned rank, const int64_t *shape,
                          size_t *nbytes, PtoError *err);
int64_t pto_ndarray_numel(const PtoNdArray *a);
bool pto_ndarray_is_contiguous(const PtoNdArray *a);
/* Pointer to the element at `index` (rank entries, each in range). */
void *pto_ndarray_elem_ptr(const PtoNdArray *a, const int64_t *index);
/* A new C-contiguous array of dtype `dt` holding `a`'s values converted
 * with `mode` (a contiguous copy when dt == a->dtype). */
PtoNdArray *pto_ndarray_convert(const PtoNdArray *a, PtoDType dt,
                                PtoCastMode mode);
/* Same dtype, same shape and the same element bits. */
bool pto_ndarray_equal(const PtoNdArray *a, const PtoNdArray *b);
/* "(2, 3)", "()" or "(5,)": numpy's spelling, for messages. The buffer
 * holds at least PTO_SHAPE_STR_MAX bytes. */
#define PTO_SHAPE_STR_MAX (PTO_MAX_RANK * 22 + 4)
const char *pto_shape_str(char *buf, unsigned rank, const int64_t *shape);

#ifdef __cplusplus
}
#endif
#endif
