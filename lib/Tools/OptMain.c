/* pto-opt: parse, verify, transform and print textual IR. */
#include "pto/OptMain.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *pto_read_file(const char *path, size_t *len, const char **err) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    *err = strerror(errno);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = pto_malloc(cap + 1);
  for (;;) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) {
      if (ferror(f)) {
        *err = strerror(errno);
        pto_free(buf);
        if (f != stdin) fclose(f);
        return NULL;
      }
      break;
    }
    cap *= 2;
    buf = pto_realloc(buf, cap + 1);
  }
  if (f != stdin) fclose(f);
  buf[n] = 0;
  *len = n;
  return buf;
}

typedef struct OptOptions {
  const char *input;
  const char *output;
  bool print_generic, print_debuginfo, verify_diagnostics, split_input;
  bool allow_unregistered, verify_each;
} OptOptions;

static void print_help(const char *tool) {
  printf("OVERVIEW: %s - PTO optimizer driver\n\n"
         "USAGE: %s [options] [input file]\n\n"
         "Reads textual IR (a file, or '-' / nothing for stdin), verifies it,\n"
         "runs the requested passes and prints the result.\n\n"
         "OPTIONS:\n"
         "  -o <file>                      Output file (default: stdout)\n"
         "  --print-generic                Print every op in MLIR's generic form\n"
         "  --print-debuginfo              Print source locations (loc(...))\n"
         "  --verify-diagnostics           Check diagnostics against\n"
         "                                 'expected-error' comments in the input\n"
         "  --split-input-file             Process chunks separated by '// -----'\n"
         "                                 independently\n"
         "  --allow-unregistered-dialect   Accept ops of unregistered dialects\n"
         "  --help                         Print this help\n"
         "  --version                      Print the version\n",
         tool, tool);
}

static int usage_error(const char *tool, const char *fmt, const char *arg) {
  fprintf(stderr, "%s: ", tool);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s: run '%s --help' for usage\n", tool, tool);
  return 1;
}

/* Processes one buffer (a whole file or one split chunk). */
static bool process_chunk(const OptOptions *o, PtoContext *ctx,
                          const char *text, size_t len, unsigned first_line,
                          PtoStr *out) {
  PtoDiagVerifier *dv = NULL;
  if (o->verify_diagnostics)
    dv = pto_diag_verifier_create(ctx, o->input, text, len, first_line);
  PtoParseOptions po = {o->input, first_line};
  PtoOp *module = pto_parse_module(ctx, text, len, &po);
  bool ok = module != NULL;
  if (ok && pto_op_verify(module)) ok = false;
  if (ok) {
    unsigned flags = 0;
    if (o->print_generic) flags |= PTO_PRINT_GENERIC;
    if (o->print_debuginfo) flags |= PTO_PRINT_DEBUGINFO;
    char *s = pto_op_print_to_string(module, flags);
    pto_str_puts(out, s);
    pto_free(s);
  }
  if (module) pto_op_destroy(module);
  if (dv) return pto_diag_verifier_finish(dv) == PTO_SUCCESS;
  return ok;
}

int pto_opt_main(int argc, char **argv, const char *tool,
                 PtoRegisterFn register_fn) {
  OptOptions o;
  memset(&o, 0, sizeof o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-o") == 0) {
      if (i + 1 >= argc) return usage_error(tool, "option '%s' needs a value", a);
      o.output = argv[++i];
    } else if (strncmp(a, "-o=", 3) == 0) {
      o.output = a + 3;
    } else if (strcmp(a, "--print-generic") == 0 ||
               strcmp(a, "--mlir-print-op-generic") == 0) {
      o.print_generic = true;
    } else if (strcmp(a, "--print-debuginfo") == 0 ||
               strcmp(a, "--mlir-print-debuginfo") == 0) {
      o.print_debuginfo = true;
    } else if (strcmp(a, "--verify-diagnostics") == 0) {
      o.verify_diagnostics = true;
    } else if (strcmp(a, "--split-input-file") == 0) {
      o.split_input = true;
    } else if (strcmp(a, "--allow-unregistered-dialect") == 0) {
      o.allow_unregistered = true;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      print_help(tool);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("%s (PTO) %s\n", tool, PTO_VERSION_STRING);
      return 0;
    } else if (a[0] == '-' && a[1] != 0) {
      return usage_error(tool, "unknown option '%s'", a);
    } else {
      if (o.input) return usage_error(tool, "more than one input file ('%s')", a);
      o.input = a;
    }
  }
  if (!o.input) o.input = "-";
  size_t len;
  const char *err;
  char *text = pto_read_file(o.input, &len, &err);
  if (!text) {
    fprintf(stderr, "%s: could not open input file '%s': %s\n", tool, o.input, err);
    return 1;
  }
  /* diagnostics and locations name standard input as MLIR does */
  if (strcmp(o.input, "-") == 0) o.input = "<stdin>";
  PtoContext *ctx = pto_ctx_create();
  if (register_fn) register_fn(ctx);
  pto_ctx_set_allow_unregistered(ctx, o.allow_unregistered);
  pto_ctx_add_source(ctx, o.input, text, len);

  PtoStr out;
  pto_str_init(&out);
  bool ok = true;
  if (o.split_input) {
    PtoSplitChunk *chunks;
    unsigned n = pto_split_input(text, len, &chunks);
    for (unsigned i = 0; i < n; i++) {
      if (i) pto_str_puts(&out, "// -----\n");
      if (!process_chunk(&o, ctx, chunks[i].text, chunks[i].len,
                         chunks[i].first_line, &out))
        ok = false;
    }
    pto_free(chunks);
  } else {
    ok = process_chunk(&o, ctx, text, len, 1, &out);
  }
  int rc = ok ? 0 : 1;
  if (ok) {
    FILE *f = o.output && strcmp(o.output, "-") != 0 ? fopen(o.output, "wb") : stdout;
    if (!f) {
      fprintf(stderr, "%s: could not open output file '%s': %s\n", tool,
              o.output, strerror(errno));
      rc = 1;
    } else {
      if (out.len) fwrite(out.data, 1, out.len, f);
      if (f != stdout) fclose(f);
    }
  }
  pto_str_release(&out);
  pto_ctx_destroy(ctx);
  pto_free(text);
  return rc;
}
