/* The IR side of lib/Array, which knows no IR: scalar IR types <-> array
 * dtypes, and the n-d array and .npy calls that report their errors
 * through a context's diagnostics (at a location naming the file) instead
 * of returning a PtoError. */
#ifndef PTO_IRARRAY_H
#define PTO_IRARRAY_H

#include "pto/IR.h"
#include "pto/Npy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f16 bf16 f32 f64, i1 (bool), i8..i64 (and si8..si64), ui8, index.
 * Anything else (tensors, other widths) has no dtype: false. */
bool pto_dtype_from_type(const PtoType *t, PtoDType *out);
PtoType *pto_dtype_to_type(PtoContext *ctx, PtoDType dt);

/* Emits `err` as an error at `loc`; returns PTO_FAILURE. */
PtoResult pto_emit_plain_error(PtoContext *ctx, PtoLoc *loc,
                               const PtoError *err);

/* pto_npy_load_file / _buffer and pto_npy_save_file / _buffer (Npy.h),
 * reporting at a location named after the file (`name`, or "<memory>"). */
PtoNdArray *pto_npy_read_file(PtoContext *ctx, const char *path);
PtoNdArray *pto_npy_read_file_bounded(PtoContext *ctx, const char *path,
                                      uint64_t max_bytes);
PtoNdArray *pto_npy_read_buffer(PtoContext *ctx, const void *buf, size_t len,
                                const char *name);
PtoResult pto_npy_write_file(PtoContext *ctx, const char *path,
                             const PtoNdArray *a,
                             const PtoNpyWriteOptions *opts);
void *pto_npy_write_buffer(PtoContext *ctx, const PtoNdArray *a,
                           const PtoNpyWriteOptions *opts, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
