/* DOT string escaping and graph output for the graph-printing passes. */
#include "Transforms/DotOutput.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void pto_dot_escape(PtoStr *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"' || s[i] == '\\') pto_str_putc(out, '\\');
    if (s[i] == '\n') {
      pto_str_puts(out, "\\n");
      continue;
    }
    pto_str_putc(out, s[i]);
  }
}

PtoResult pto_dot_write(PtoPass *pass, PtoOp *module, const PtoStr *text) {
  const char *path = pto_pass_option_str(pass, "output");
  const char *name = pto_pass_def(pass)->argument;
  /* As MLIR's graph printers do, the default is stderr: the IR stream on
   * stdout stays clean for the next tool in a shell pipe. */
  bool to_stderr = !*path || strcmp(path, "-") == 0;
  FILE *f = to_stderr ? stderr : fopen(path, "wb");
  if (!f)
    return pto_op_emit_error(module, "%s cannot open '%s' for writing: %s",
                             name, path, strerror(errno));
  fwrite(text->data, 1, text->len, f);
  if (to_stderr) {
    fflush(f);
    return PTO_SUCCESS;
  }
  if (fclose(f) != 0)
    return pto_op_emit_error(module, "%s cannot write '%s': %s", name, path,
                             strerror(errno));
  return PTO_SUCCESS;
}
