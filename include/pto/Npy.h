/* Reading and writing numpy's .npy files (format versions 1.0, 2.0 and
 * 3.0; little-endian, C order, the dtypes of DType.h). Part of lib/Array
 * (no IR): errors come back as a PtoError (may be NULL), nothing is
 * printed; pto/IRArray.h has the forms that report through a context at a
 * location naming the file.
 * docs/npy.md describes the accepted files and the bf16 convention. */
#ifndef PTO_NPY_H
#define PTO_NPY_H

#include "pto/NdArray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a .npy file into a new C-contiguous array (NULL on error). '<u2'
 * data is read as bf16 bit patterns, '<i8' as i64. Data of more than
 * max_bytes (0: no limit) is refused before it is read; the header is
 * checked before anything else is read, so that a stream which is no
 * .npy file is not read to its end. */
PtoNdArray *pto_npy_load_file(const char *path, uint64_t max_bytes,
                              PtoError *err);
/* Same from memory. The buffer is not kept. */
PtoNdArray *pto_npy_load_buffer(const void *buf, size_t len, PtoError *err);

typedef struct PtoNpyWriteOptions {
  /* Header format version 1, 2 or 3; 0 picks the oldest that can hold the
   * header (1.0 unless it exceeds 65535 bytes). */
  unsigned version;
} PtoNpyWriteOptions;

/* Writes `a` (any strides; written in C order). opts may be NULL. A
 * failed write leaves an existing file as it was. */
PtoResult pto_npy_save_file(const char *path, const PtoNdArray *a,
                            const PtoNpyWriteOptions *opts, PtoError *err);
/* Writes into a new buffer (free with pto_free); NULL on error. */
void *pto_npy_save_buffer(const PtoNdArray *a, const PtoNpyWriteOptions *opts,
                          size_t *len, PtoError *err);

#ifdef __cplusplus
}
#endif
#endif
