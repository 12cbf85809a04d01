/* A program built against an installed PTO: parses a module from a string,
 * verifies it and prints it, and loads a built-in platform description;
 * exits 0 when the text comes back as expected. */
#include <pto/IR.h>
#include <pto/Platform.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  static const char src[] =
      "%0 = \"demo.load\"() {shape = [4, 8]} : () -> tensor<4x8xf32>\n"
      "%1 = \"demo.exp\"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n";
  static const char want[] =
      "module {\n"
      "  %0 = \"demo.load\"() {shape = [4, 8]} : () -> tensor<4x8xf32>\n"
      "  %1 = \"demo.exp\"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
      "}\n";
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_set_allow_unregistered(ctx, true);
  PtoOp *module = pto_parse_module(ctx, src, strlen(src), NULL);
  int rc = 1;
  if (module && pto_op_verify(module) == PTO_SUCCESS) {
    char *text = pto_op_print_to_string(module, 0);
    fputs(text, stdout);
    rc = strcmp(text, want) != 0;
    if (rc) fprintf(stderr, "downstream: unexpected output; want:\n%s", want);
    pto_free(text);
  }
  if (module) pto_op_destroy(module);
  pto_ctx_destroy(ctx);
  /* The shipped descriptions are inside the library: no file needed. */
  PtoPlatform p;
  PtoPlatformError err;
  if (!pto_platform_load(&p, "a3", &err) ||
      p.buffers[PTO_MEM_VEC].size_bytes != 248 * 1024) {
    fprintf(stderr, "downstream: platform a3: %s\n", err.message);
    rc = 1;
  }
  printf("PTO %s downstream: %s\n", PTO_VERSION_STRING, rc ? "FAIL" : "ok");
  return rc;
}
