/* Success or failure of a call, and the plain error value of the layers
 * below the IR (arrays, .npy files, numeric kernels): a message without a
 * location, which a caller that knows one (an op, a file) reports there.
 * Part of lib/Support: no IR. */
#ifndef PTO_ERROR_H
#define PTO_ERROR_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum PtoResult { PTO_SUCCESS = 0, PTO_FAILURE = 1 } PtoResult;

static inline bool pto_succeeded(PtoResult r) { return r == PTO_SUCCESS; }
static inline bool pto_failed(PtoResult r) { return r != PTO_SUCCESS; }

typedef struct PtoError {
  char msg[320]; /* one sentence, no location */
} PtoError;

/* Fills err (if non-NULL) with the formatted message and returns
 * PTO_FAILURE. */
PtoResult pto_error_set(PtoError *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
