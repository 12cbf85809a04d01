/* Reading and writing numpy's .npy files (format versions 1.0, 2.0 and
 * 3.0; little-endian, C order, the dtypes of DType.h). Errors are reported
 * through the context at a location naming the file; nothing is printed.
 * docs/npy.md describes the accepted files and the bf16 convention. */
#ifndef PTO_NPY_H
#define PTO_NPY_H

#include "pto/NdArray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a .npy file into a new C-contiguous array (NULL on error). '<u2'
 * data is read as bf16 bit patterns, '<i8' as i64. */
PtoNdArray *pto_npy_read_file(PtoContext *ctx, const char *path);
/* Same, refusing (before reading it) data of more than max_bytes (0: no
 * limit). The header is checked before anything else is read, so that a
 * stream which is no .npy file is not read to its end. */
PtoNdArray *pto_npy_read_file_bounded(PtoContext *ctx, const char *path,
                                      uint64_t max_bytes);
/* Same from memory; `name` is used in diagnostics ("<memory>" if NULL).
 * The buffer is not kept. */
PtoNdArray *pto_npy_read_buffer(PtoContext *ctx, const void *buf, size_t len,
                                const char *name);

typedef struct PtoNpyWriteOptions {
  /* Header format version 1, 2 or 3; 0 picks the oldest that can hold the
   * header (1.0 unless it exceeds 65535 bytes). */
  unsigned version;
} PtoNpyWriteOptions;

/* Writes `a` (any strides; written in C order). opts may be NULL. */
PtoResult pto_npy_write_file(PtoContext *ctx, const char *path,
                             const PtoNdArray *a,
                             const PtoNpyWriteOptions *opts);
/* Writes into a new buffer (free with pto_free); NULL on error. */
void *pto_npy_write_buffer(PtoContext *ctx, const PtoNdArray *a,
                           const PtoNpyWriteOptions *opts, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
