/* The `ptotest` dialect of the test tools (test/lib/TestDialect.c). */
#ifndef PTO_TEST_DIALECT_H
#define PTO_TEST_DIALECT_H

#include "pto/IR.h"
#include "pto/DialectImplementation.h"

void pto_register_test_dialect(PtoContext *ctx);

#endif
