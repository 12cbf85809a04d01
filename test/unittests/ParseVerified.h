/* The unit tests' way to make IR: parse a module from text and verify it;
 * NULL (after the diagnostics) when either fails. */
#ifndef PTO_UNITTEST_PARSEVERIFIED_H
#define PTO_UNITTEST_PARSEVERIFIED_H

#include "pto/IR.h"

#include <string.h>

static inline PtoOp *parse(PtoContext *ctx, const char *text) {
  PtoParseOptions po = {"t.pto", 1};
  PtoOp *m = pto_parse_module(ctx, text, strlen(text), &po);
  if (m && pto_op_verify(m)) {
    pto_op_destroy(m);
    return NULL;
  }
  return m;
}

#endif
