/* What the libFuzzer targets share: a context with every dialect (and the
 * test dialect) registered whose diagnostics are rendered and dropped, the
 * print/re-parse fixed-point check, and the size screen that keeps inputs
 * which are valid but merely expensive (huge tensors, long loops) from
 * being reported as hangs. */
#ifndef PTO_FUZZ_SUPPORT_H
#define PTO_FUZZ_SUPPORT_H

#include "pto/IR.h"

#include <stdint.h>

/* A context with all dialects, passes and the test dialect registered and
 * unregistered ops allowed; with `drop_diagnostics` every diagnostic is
 * rendered (exercising the renderer) and dropped. */
PtoContext *fuzz_context_create(bool drop_diagnostics);

/* Reports a broken invariant with the texts involved and aborts, so that
 * libFuzzer keeps the input. */
_Noreturn void fuzz_fail(const char *what, const char *first,
                         const char *second);

/* Verified IR printed with `flags` must parse, verify and print the same
 * text again. */
void fuzz_check_fixed_point(PtoContext *ctx, const char *text, unsigned flags);

/* Whether every tensor in `module` (op results and block arguments) has at
 * most `max_numel` elements (a dynamic dim counted as `dyn_dim`) and every
 * integer constant's magnitude is at most `max_int`, so that lowering and
 * running it stays cheap. */
bool fuzz_module_is_small(PtoOp *module, int64_t max_numel, int64_t dyn_dim,
                          int64_t max_int);

#endif
