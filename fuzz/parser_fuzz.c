/* libFuzzer target for the textual IR: every `// -----` chunk of the input
 * is parsed and verified; IR that verifies is printed in the custom, generic
 * and debug-info forms, and each printout must parse back, verify, and print
 * the same text again (printing is a fixed point). The whole input is also
 * run under --verify-diagnostics, whose expectations it may contain. The
 * shipped dialects and the test dialect are registered, so that their
 * parse, print and verify hooks are fuzzed too. */
#include "TestDialect.h"
#include "pto/Dialects.h"
#include "pto/IR.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Renders every diagnostic (exercising the renderer) and drops it. */
static bool swallow(const PtoDiagInfo *d, void *ctx) {
  char *s = pto_diag_render(ctx, d);
  pto_free(s);
  return true;
}

static PtoContext *new_context(void) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  pto_register_test_dialect(ctx);
  pto_ctx_set_allow_unregistered(ctx, true);
  pto_ctx_set_diag_stream(ctx, NULL);
  return ctx;
}

static void fail(const char *what, const char *a, const char *b) {
  fprintf(stderr, "parser_fuzz: %s\n--- first:\n%s\n--- second:\n%s\n", what,
          a, b ? b : "(none)");
  abort();
}

/* Printed IR must parse, verify and print identically. */
static void check_fixed_point(PtoContext *ctx, const char *text,
                              unsigned flags) {
  PtoParseOptions po = {"printed", 1};
  PtoOp *m = pto_parse_module(ctx, text, strlen(text), &po);
  if (!m) fail("printed IR does not parse", text, NULL);
  if (pto_op_verify(m)) fail("printed IR does not verify", text, NULL);
  char *again = pto_op_print_to_string(m, flags);
  if (strcmp(text, again) != 0) fail("printing is not a fixed point", text, again);
  pto_free(again);
  pto_op_destroy(m);
}

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
    if (ok) check_fixed_point(ctx, s, forms[i]);
    pto_free(s);
  }
  pto_op_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  PtoContext *ctx = new_context();
  pto_ctx_push_diag_handler(ctx, swallow, ctx);
  pto_ctx_add_source(ctx, "fuzz", text, size);
  PtoSplitChunk *chunks;
  unsigned n = pto_split_input(text, size, &chunks);
  for (unsigned i = 0; i < n; i++)
    fuzz_chunk(ctx, chunks[i].text, chunks[i].len, chunks[i].first_line);
  pto_free(chunks);
  pto_ctx_destroy(ctx);

  /* --verify-diagnostics over the whole input */
  ctx = new_context();
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
