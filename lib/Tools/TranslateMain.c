/* pto-translate: textual IR to other formats; today PTO kernels to LLVM IR
 * (--pto-to-llvmir). */
#include "pto/TranslateMain.h"

#include "Tools/ToolsInternal.h"

#include "pto/LLVMIR.h"
#include "pto/Platform.h"

#include "Support/Alloc.h"
#include "Support/File.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TrOptions {
  const char *tool, *input, *output;
  bool to_llvmir;
  size_t max_input_bytes;
  PtoTranslateOptions llvmir;
} TrOptions;

enum { TR_OUTPUT, TR_TO_LLVMIR, TR_MAX_INPUT_BYTES, TR_LANES, TR_PLATFORM, TR_NO_FUSE, TR_NO_PREFETCH, TR_NO_FORWARD, TR_ARCH };

static const PtoToolArg tr_args[] = {
    {PTO_TOOL_ARG_SECTION, "TRANSLATIONS", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_FLAG, "--pto-to-llvmir", NULL, NULL,
     "Each pto.kernel to an LLVM function (textual LLVM IR)", TR_TO_LLVMIR},
    {PTO_TOOL_ARG_SECTION, "OPTIONS", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_VALUE, "-o", NULL, "-o <file>", "Output file (default: stdout)",
     TR_OUTPUT},
    PTO_TOOL_ARG_MAX_INPUT_BYTES_ROW(TR_MAX_INPUT_BYTES),
    {PTO_TOOL_ARG_VALUE, "--vector-lanes", NULL, "--vector-lanes <8|16|host>",
     "f32 lanes of reductions and matmul (default 8; host: 16 with AVX-512)",
     TR_LANES},
    {PTO_TOOL_ARG_VALUE, "--platform", NULL, "--platform <name|file.xml>",
     "Check every tile against this platform's buffers (default a2a3)",
     TR_PLATFORM},
    {PTO_TOOL_ARG_VALUE, "--target-arch", NULL, "--target-arch <generic|x86-64|host>",
     "Architecture whose intrinsics the IR may call (default generic: IR any "
     "LLVM target compiles; x86-64: SFENCE after streaming stores)",
     TR_ARCH},
    {PTO_TOOL_ARG_FLAG, "--no-fuse", NULL, NULL,
     "Each vector instruction as its own loop nest (no element-wise fusion)",
     TR_NO_FUSE},
    {PTO_TOOL_ARG_FLAG, "--no-prefetch", NULL, NULL,
     "No prefetching, in a fused run, of the window the next task's tload reads",
     TR_NO_PREFETCH},
    {PTO_TOOL_ARG_FLAG, "--no-forward", NULL, NULL,
     "Every tload copies its window into the vector buffer (no forwarding of "
     "the window to the tile's readers)",
     TR_NO_FORWARD},
    PTO_TOOL_ARG_HELP_VERSION_ROWS,
};

static void tr_header(const char *tool, FILE *out) {
  fprintf(out,
          "OVERVIEW: %s - PTO translation driver\n\n"
          "USAGE: %s --pto-to-llvmir [options] [input file]\n\n"
          "Reads textual IR (a file, or '-' / nothing for stdin), verifies it\n"
          "and writes it in another format.\n\n",
          tool, tool);
}

static int tr_option(void *user, int id, const char *a, const char *v) {
  TrOptions *o = user;
  switch (id) {
  case TR_OUTPUT: o->output = v; break;
  case TR_TO_LLVMIR: o->to_llvmir = true; break;
  case TR_NO_FUSE: o->llvmir.no_fuse = true; break;
  case TR_NO_PREFETCH: o->llvmir.no_prefetch = true; break;
  case TR_NO_FORWARD: o->llvmir.no_forward = true; break;
  case TR_LANES:
    if (strcmp(v, "host") == 0) o->llvmir.lanes = pto_llvmir_host_lanes();
    else if (strcmp(v, "8") == 0 || strcmp(v, "16") == 0) o->llvmir.lanes = (unsigned)atoi(v);
    else
      return pto_tool_usage_error(o->tool, "invalid --vector-lanes '%s': expected "
                                  "8, 16 or host", v);
    break;
  case TR_ARCH:
    if (strcmp(v, "host") == 0) o->llvmir.x86 = pto_llvmir_host_is_x86();
    else if (strcmp(v, "generic") == 0 || strcmp(v, "x86-64") == 0)
      o->llvmir.x86 = strcmp(v, "x86-64") == 0;
    else
      return pto_tool_usage_error(o->tool, "invalid --target-arch '%s': expected "
                                  "generic, x86-64 or host", v);
    break;
  case TR_PLATFORM: {
    PtoPlatform p;
    if (pto_tool_platform_value(o->tool, v, &p)) return 1;
    for (unsigned sp = 0; sp < PTO_MEM_SPACE_COUNT; sp++)
      o->llvmir.buffer_bytes[sp] = p.buffers[sp].size_bytes;
    break;
  }
  case TR_MAX_INPUT_BYTES:
    return pto_tool_max_input_value(o->tool, v, &o->max_input_bytes);
  }
  return 0;
}

static int tr_positional(void *user, const char *arg) {
  TrOptions *o = user;
  if (o->input)
    return pto_tool_usage_error(o->tool, "more than one input file ('%s')", arg);
  o->input = arg;
  return 0;
}

/* -o FILE is replaced only by complete output. */
static int write_output(const TrOptions *o, const char *text) {
  if (!o->output || strcmp(o->output, "-") == 0) {
    fputs(text, stdout);
    return 0;
  }
  PtoOutFile f;
  int err = pto_out_file_open(&f, o->output);
  if (!err) {
    fputs(text, f.f);
    err = pto_out_file_commit(&f);
  }
  if (err)
    fprintf(stderr, "%s: could not write output file '%s': %s\n", o->tool,
            o->output, strerror(err));
  return err ? 1 : 0;
}

static int translate(TrOptions *o, PtoContext *ctx) {
  size_t len;
  const char *err;
  char *text = pto_read_file(o->input, o->max_input_bytes, &len, &err);
  if (!text) {
    fprintf(stderr, "%s: could not open input file '%s': %s\n", o->tool,
            o->input, err);
    return 1;
  }
  if (strcmp(o->input, "-") == 0) o->input = "<stdin>";
  pto_ctx_take_source(ctx, o->input, text, len); /* freed with ctx */
  PtoParseOptions po = {o->input, 1};
  PtoOp *module = pto_parse_module(ctx, text, len, &po);
  if (!module) return 1;
  char *ll = NULL;
  int rc = 1;
  if (pto_succeeded(pto_op_verify(module)) &&
      pto_succeeded(pto_translate_to_llvmir_with(module, &o->llvmir, &ll)))
    rc = write_output(o, ll);
  pto_free(ll);
  pto_op_destroy(module);
  return rc;
}

int pto_translate_main(int argc, char **argv, const char *tool,
                       PtoRegisterFn register_fn) {
  TrOptions o = {.tool = tool, .max_input_bytes = PTO_DEFAULT_MAX_INPUT_BYTES};
  PtoToolCommandLine cl = {tool, tr_header, tr_args, PTO_ARRAY_SIZE(tr_args),
                           tr_option, tr_positional, NULL, NULL};
  int rc = pto_tool_parse_args(&cl, argc, argv, &o);
  if (rc) return rc < 0 ? pto_tool_finish_stdout(tool) : 1;
  if (!o.to_llvmir)
    return pto_tool_usage_error(tool, "%s", "no translation given (--pto-to-llvmir)");
  if (!o.input) o.input = "-";
  PtoContext *ctx = pto_ctx_create();
  if (register_fn) register_fn(ctx);
  rc = translate(&o, ctx);
  pto_ctx_destroy(ctx);
  if (pto_tool_finish_stdout(tool)) rc = 1;
  return rc;
}
