/* The plain error value of the layers below the IR (pto/Error.h). */
#include "pto/Error.h"

#include <stdarg.h>
#include <stdio.h>

PtoResult pto_error_set(PtoError *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return PTO_FAILURE;
}
