/* libFuzzer target for the passes: IR that parses and verifies is run
 * through each of a fixed set of pipelines (the lowerings decompose and
 * tile-expand, canonicalize, cse, dce, inline, symbol-dce, loop-unroll,
 * and the Block passes subgraph-dedup, nbuffer-merge, l1-reuse),
 * each on a fresh copy. A pipeline may refuse the IR, but only with an
 * error diagnostic; when it succeeds, its output must verify and its
 * printout (custom and generic form) must parse back and print the same
 * text again. Inputs with tensors or constants too large to lower quickly
 * are skipped: they are valid, merely slow, and would drown real findings
 * in timeouts. */
#include "FuzzSupport.h"

#include "pto/Pass.h"

#include <stdint.h>
#include <string.h>

/* Lowerings and cleanups alone and in the orders the tools use them; the
 * option values keep the unrolled and expanded IR small. */
static const char *const pipelines[] = {
    "canonicalize,cse,dce",
    "decompose,canonicalize,cse",
    "inline,symbol-dce,canonicalize,cse",
    "loop-unroll{factor=3 full-unroll-threshold=4 max-unrolled-ops=4096},"
    "canonicalize,cse",
    "tile-expand{provenance=true},canonicalize,cse",
    "canonicalize,cse,tile-expand{vec-tile=4,8 cube-tile=16,16,16,16,16,16}",
    "inline,decompose,loop-unroll{factor=2 max-unrolled-ops=4096},"
    "tile-expand,cse,dce",
    "subgraph-dedup{hash-bits=1},nbuffer-merge{factor=2},l1-reuse{factor=3},"
    "canonicalize,cse",
};

enum { MAX_NUMEL = 4096, MAX_INT = 4096 };

static void run_pipeline(PtoContext *ctx, PtoOp *module, const char *text) {
  PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
  if (pto_pm_add_pipeline(pm, text))
    fuzz_fail("a fixed pipeline does not parse", text, NULL);
  PtoOp *m = pto_op_clone(module, NULL);
  unsigned errors = pto_ctx_num_errors(ctx);
  if (pto_pm_run(pm, m) == PTO_SUCCESS) {
    if (pto_op_verify(m)) {
      char *s = pto_op_print_to_string(m, PTO_PRINT_GENERIC);
      fuzz_fail("a pipeline succeeded on IR that then does not verify", text,
                s);
    }
    static const unsigned forms[] = {0, PTO_PRINT_GENERIC};
    for (unsigned i = 0; i < sizeof forms / sizeof forms[0]; i++) {
      char *s = pto_op_print_to_string(m, forms[i]);
      fuzz_check_fixed_point(ctx, s, forms[i]);
      pto_free(s);
    }
  } else if (pto_ctx_num_errors(ctx) == errors) {
    fuzz_fail("a pipeline failed without an error diagnostic", text, NULL);
  }
  pto_op_destroy(m);
  pto_pm_destroy(pm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  PtoContext *ctx = fuzz_context_create(true);
  PtoParseOptions po = {"fuzz", 1};
  PtoOp *m = pto_parse_module(ctx, (const char *)data, size, &po);
  if (m && pto_op_verify(m) == PTO_SUCCESS &&
      fuzz_module_is_small(m, MAX_NUMEL, 4, MAX_INT))
    for (unsigned i = 0; i < sizeof pipelines / sizeof pipelines[0]; i++)
      run_pipeline(ctx, m, pipelines[i]);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  return 0;
}
