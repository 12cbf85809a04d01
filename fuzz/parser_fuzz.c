/* libFuzzer target for the textual IR: every `// -----` chunk of the input
 * is parsed and verified; IR that verifies is printed in the custom, generic
 * and debug-info forms, and each printout must parse back, verify, and print
 * the same text again (printing is a fixed point). The whole input is also
 * run under --verify-diagnostics, whose expectations it may contain. The
 * shipped dialects and the test dialect are registered, so that their
 * parse, print and verify hooks are fuzzed too. */
#include "FuzzSupport.h"

#include <stdint.h>
#include <string.h>

static void fuzz_chunk(PtoContext *ctx, const char *text, size_t len,
                       unsigned first_line) {
  PtoParseOptions po = {"fuzz", first_line};
  PtoOp *m = pto_parse_module(ctx, text, len, &po);
  if (!m) return;
  bool ok = pto_op_verify(m) == PTO_SUCCESS;
  static const unsigned forms[] = {0, PTO_PRINT_GENERIC, PTO_PRINT_DEBUGINFO,
                                   PTO_PRINT_GENERIC | PTO_PRINT_DEBUGINFO};
  for (unsigned i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    char *s = pto_op_print_to_string(m, forms[i]);
    if (ok) fuzz_check_fixed_point(ctx, s, forms[i]);
    pto_free(s);
  }
  pto_op_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  PtoContext *ctx = fuzz_context_create(true);
  pto_ctx_add_source(ctx, "fuzz", text, size);
  PtoSplitChunk *chunks;
  unsigned n = pto_split_input(text, size, &chunks);
  for (unsigned i = 0; i < n; i++)
    fuzz_chunk(ctx, chunks[i].text, chunks[i].len, chunks[i].first_line);
  pto_free(chunks);
  pto_ctx_destroy(ctx);

  /* --verify-diagnostics over the whole input */
  ctx = fuzz_context_create(false);
  PtoDiagVerifier *dv = pto_diag_verifier_create(ctx, "fuzz", text, size, 1);
  PtoParseOptions po = {"fuzz", 1};
  PtoOp *m = pto_parse_module(ctx, text, size, &po);
  if (m) {
    pto_op_verify(m);
    pto_op_destroy(m);
  }
  pto_diag_verifier_finish(dv);
  pto_ctx_destroy(ctx);
  return 0;
}
