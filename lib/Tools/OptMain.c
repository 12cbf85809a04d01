/* pto-opt: parse, verify, transform and print textual IR. */
#include "pto/OptMain.h"

#include "Tools/ToolsInternal.h"

#include "pto/Platform.h"

#include "Support/Alloc.h"
#include "Support/File.h"
#include "Support/Str.h"
#include "Support/Time.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *pto_read_file(const char *path, size_t max, size_t *len,
                    const char **err) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    *err = strerror(errno);
    return NULL;
  }
  static const char *too_big = "it is larger than the input size limit "
                               "(--max-input-bytes)";
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
      (uint64_t)st.st_size > max) {
    if (f != stdin) fclose(f);
    *err = too_big;
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
    /* a stream is read only up to the limit (/dev/zero never ends) */
    if (n > max) {
      *err = too_big;
      pto_free(buf);
      if (f != stdin) fclose(f);
      return NULL;
    }
    cap *= 2;
    buf = pto_realloc(buf, cap + 1);
  }
  if (f != stdin) fclose(f);
  if (n > max) {
    *err = too_big;
    pto_free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

typedef struct OptOptions {
  const char *input;
  const char *output;
  bool print_generic, print_debuginfo, verify_diagnostics, split_input;
  bool allow_unregistered, verify_each, verify_roundtrip, dump_pipeline;
  bool list_passes, passes_markdown, print_platform;
  const char *platform; /* --print-platform=NAME|FILE */
  int print_after_failure; /* -1: default */
  const char *pass_pipeline;
  PtoStr pass_flags;        /* `--cse --canonicalize=...` as pipeline text */
  const char *first_pass_flag;
  size_t max_input_bytes;
  PtoInstrumentation ins;
} OptOptions;

enum OptArg {
  OPT_OUTPUT, OPT_PRINT_GENERIC, OPT_PRINT_DEBUGINFO, OPT_VERIFY_DIAGNOSTICS,
  OPT_SPLIT_INPUT, OPT_ALLOW_UNREGISTERED, OPT_MAX_INPUT_BYTES,
  OPT_PASS_PIPELINE, OPT_LIST_PASSES, OPT_PASSES_MARKDOWN, OPT_DUMP_PIPELINE,
  OPT_VERIFY_EACH, OPT_VERIFY_ROUNDTRIP, OPT_PRINT_BEFORE, OPT_PRINT_AFTER,
  OPT_PRINT_BEFORE_ALL, OPT_PRINT_AFTER_ALL, OPT_PRINT_AFTER_CHANGE,
  OPT_PRINT_AFTER_FAILURE, OPT_TIMING, OPT_STATISTICS, OPT_DUMP_DIR,
  OPT_PRINT_PLATFORM,
};

static const PtoToolArg opt_args[] = {
    {PTO_TOOL_ARG_SECTION, "OPTIONS", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_VALUE, "-o", NULL, "-o <file>", "Output file (default: stdout)",
     OPT_OUTPUT},
    {PTO_TOOL_ARG_FLAG, "--print-generic", "--mlir-print-op-generic", NULL,
     "Print every op in MLIR's generic form", OPT_PRINT_GENERIC},
    {PTO_TOOL_ARG_FLAG, "--print-debuginfo", "--mlir-print-debuginfo", NULL,
     "Print source locations (loc(...))", OPT_PRINT_DEBUGINFO},
    {PTO_TOOL_ARG_FLAG, "--verify-diagnostics", NULL, NULL,
     "Check diagnostics against\n'expected-error' comments in the input",
     OPT_VERIFY_DIAGNOSTICS},
    {PTO_TOOL_ARG_FLAG, "--split-input-file", NULL, NULL,
     "Process chunks separated by '// -----'\nindependently", OPT_SPLIT_INPUT},
    {PTO_TOOL_ARG_FLAG, "--allow-unregistered-dialect", NULL, NULL,
     "Accept ops of unregistered dialects", OPT_ALLOW_UNREGISTERED},
    PTO_TOOL_ARG_MAX_INPUT_BYTES_ROW(OPT_MAX_INPUT_BYTES),
    PTO_TOOL_ARG_HELP_VERSION_ROWS,
    {PTO_TOOL_ARG_SECTION, "PASSES", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_VALUE, "--pass-pipeline", NULL, "--pass-pipeline=<pipeline>",
     "Run a textual pipeline, e.g.\n'builtin.module(func.func(cse),symbol-dce)'",
     OPT_PASS_PIPELINE},
    {PTO_TOOL_ARG_NOTE, NULL, NULL, "--<pass>[=<options>]",
     "Run a pass (or named pipeline); options\nas --canonicalize='max-iterations=3'",
     0},
    {PTO_TOOL_ARG_FLAG, "--list-passes", NULL, NULL,
     "List passes, options and pipelines", OPT_LIST_PASSES},
    {PTO_TOOL_ARG_EQ_VALUE, "--print-platform", NULL,
     "--print-platform[=<name|file>]",
     "Print a machine description (default\na2a3; a built-in name or an .xml file)",
     OPT_PRINT_PLATFORM},
    {PTO_TOOL_ARG_FLAG, "--print-passes-markdown", NULL, NULL,
     "Print the pass reference (docs/passes.md)", OPT_PASSES_MARKDOWN},
    {PTO_TOOL_ARG_FLAG, "--dump-pass-pipeline", NULL, NULL,
     "Print the pipeline to run on stderr", OPT_DUMP_PIPELINE},
    {PTO_TOOL_ARG_BOOL, "--verify-each", NULL, "--verify-each=<bool>",
     "Verify the IR after each pass (default true)", OPT_VERIFY_EACH},
    {PTO_TOOL_ARG_FLAG, "--verify-roundtrip", NULL, NULL,
     "Print and re-parse the IR after each pass\nand check that it prints the same",
     OPT_VERIFY_ROUNDTRIP},
    {PTO_TOOL_ARG_SECTION, "INSTRUMENTATION (on stderr)", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_EQ_VALUE, "--print-ir-before", "--mlir-print-ir-before",
     "--print-ir-before, --mlir-print-ir-before=<p1,p2>", "Print the IR before the named passes",
     OPT_PRINT_BEFORE},
    {PTO_TOOL_ARG_EQ_VALUE, "--print-ir-after", "--mlir-print-ir-after", "--print-ir-after, --mlir-print-ir-after=<p1,p2>",
     "Print the IR after the named passes", OPT_PRINT_AFTER},
    {PTO_TOOL_ARG_FLAG, "--print-ir-before-all", "--mlir-print-ir-before-all", NULL,
     "Print the IR before every pass", OPT_PRINT_BEFORE_ALL},
    {PTO_TOOL_ARG_FLAG, "--print-ir-after-all", "--mlir-print-ir-after-all", NULL,
     "Print the IR after every pass", OPT_PRINT_AFTER_ALL},
    {PTO_TOOL_ARG_FLAG, "--print-ir-after-change", "--mlir-print-ir-after-change", NULL,
     "Print the IR after a pass only if it changed", OPT_PRINT_AFTER_CHANGE},
    {PTO_TOOL_ARG_BOOL, "--print-ir-after-failure", "--mlir-print-ir-after-failure",
     "--print-ir-after-failure, --mlir-print-ir-after-failure=<bool>",
     "Print the IR a failing pass left\n(default true)", OPT_PRINT_AFTER_FAILURE},
    {PTO_TOOL_ARG_FLAG, "--pass-timing", "--mlir-timing", NULL,
     "Report the wall time of each pass", OPT_TIMING},
    {PTO_TOOL_ARG_FLAG, "--pass-statistics", "--mlir-pass-statistics", NULL,
     "Report the statistics of each pass", OPT_STATISTICS},
    {PTO_TOOL_ARG_EQ_VALUE, "--dump-dir", NULL, "--dump-dir=<dir>",
     "Write each stage to <dir>/NN-<pass>.pto", OPT_DUMP_DIR},
};

static void opt_header(const char *tool, FILE *out) {
  fprintf(out,
          "OVERVIEW: %s - PTO optimizer driver\n\n"
          "USAGE: %s [options] [input file]\n\n"
          "Reads textual IR (a file, or '-' / nothing for stdin), verifies it,\n"
          "runs the requested passes and prints the result.\n\n",
          tool, tool);
}

/* Checks the pass names of --print-ir-before/after. */
static bool known_passes(PtoContext *ctx, const char *list, const char **bad,
                         char *buf, size_t cap) {
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    snprintf(buf, cap, "%.*s", (int)len, p);
    if (!pto_pass_lookup(ctx, buf)) {
      *bad = buf;
      return false;
    }
    if (!end) break;
    p = end + 1;
  }
  return true;
}

typedef struct OptParse {
  OptOptions *o;
  const char *tool;
  PtoContext *ctx;
} OptParse;

static int opt_option(void *user, int id, const char *a, const char *v) {
  OptParse *p = user;
  OptOptions *o = p->o;
  const char *tool = p->tool;
  switch (id) {
  case OPT_OUTPUT: o->output = v; break;
  case OPT_PRINT_GENERIC: o->print_generic = true; break;
  case OPT_PRINT_DEBUGINFO: o->print_debuginfo = true; break;
  case OPT_VERIFY_DIAGNOSTICS: o->verify_diagnostics = true; break;
  case OPT_SPLIT_INPUT: o->split_input = true; break;
  case OPT_ALLOW_UNREGISTERED: o->allow_unregistered = true; break;
  case OPT_MAX_INPUT_BYTES:
    return pto_tool_max_input_value(tool, v, &o->max_input_bytes);
  case OPT_PASS_PIPELINE:
    if (o->pass_pipeline)
      return pto_tool_usage_error(tool, "%s", "--pass-pipeline is given more than once");
    o->pass_pipeline = v;
    break;
  case OPT_LIST_PASSES: o->list_passes = true; break;
  case OPT_PRINT_PLATFORM:
    o->print_platform = true;
    o->platform = v;
    break;
  case OPT_PASSES_MARKDOWN: o->passes_markdown = true; break;
  case OPT_DUMP_PIPELINE: o->dump_pipeline = true; break;
  case OPT_VERIFY_EACH: o->verify_each = strcmp(v, "true") == 0; break;
  case OPT_VERIFY_ROUNDTRIP: o->verify_roundtrip = true; break;
  case OPT_PRINT_BEFORE:
  case OPT_PRINT_AFTER: {
    bool before = id == OPT_PRINT_BEFORE;
    if (!v || !*v)
      return pto_tool_usage_error(tool,
                                  before ? "option '%s' needs the passes to print "
                                           "before, as in '--print-ir-before=cse,dce'"
                                         : "option '%s' needs the passes to print "
                                           "after, as in '--print-ir-after=cse,dce'",
                                  a);
    if (before) o->ins.print_before = v;
    else o->ins.print_after = v;
    break;
  }
  case OPT_PRINT_BEFORE_ALL: o->ins.print_before_all = true; break;
  case OPT_PRINT_AFTER_ALL: o->ins.print_after_all = true; break;
  case OPT_PRINT_AFTER_CHANGE: o->ins.print_after_change = true; break;
  case OPT_PRINT_AFTER_FAILURE:
    o->print_after_failure = strcmp(v, "true") == 0;
    break;
  case OPT_TIMING: o->ins.timing = true; break;
  case OPT_STATISTICS: o->ins.statistics = true; break;
  case OPT_DUMP_DIR:
    if (!v || !*v) return pto_tool_usage_error(tool, "option '%s' needs a directory", a);
    o->ins.dump_dir = v;
    break;
  }
  return 0;
}

static int opt_positional(void *user, const char *a) {
  OptParse *p = user;
  if (p->o->input)
    return pto_tool_usage_error(p->tool, "more than one input file ('%s')", a);
  p->o->input = a;
  return 0;
}

/* Any registered pass or named pipeline is a flag: `--cse` (or `-cse`),
 * `--canonicalize=max-iterations=3`. */
static int opt_pass_flag(void *user, const char *a) {
  OptParse *p = user;
  OptOptions *o = p->o;
  const char *n = a + (a[1] == '-' ? 2 : 1); /* `--cse` or `-cse` */
  const char *eq = strchr(n, '=');
  size_t len = eq ? (size_t)(eq - n) : strlen(n);
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)len, n);
  bool is_pipeline = false;
  for (unsigned k = 0; k < pto_pipeline_count(p->ctx) && !is_pipeline; k++) {
    const char *arg;
    pto_pipeline_get(p->ctx, k, &arg, NULL, NULL);
    is_pipeline = strcmp(arg, name) == 0;
  }
  if (!pto_pass_lookup(p->ctx, name) && !is_pipeline) {
    /* Suggested with the dashes the user typed. */
    const char *hint = pto_pass_suggest(p->ctx, name);
    char msg[300];
    if (hint)
      snprintf(msg, sizeof msg, "unknown option '%%s'; did you mean '%.*s%s'?",
               (int)(n - a), a, hint);
    return pto_tool_usage_error(p->tool, hint ? msg : "unknown option '%s'", a);
  }
  if (!o->first_pass_flag) o->first_pass_flag = a;
  if (o->pass_flags.len) pto_str_putc(&o->pass_flags, ',');
  pto_str_puts(&o->pass_flags, name);
  if (eq) pto_str_printf(&o->pass_flags, "{%s}", eq + 1);
  return 0;
}

/* The registered passes and pipelines, after the options. */
static void opt_footer(void *user, FILE *out) {
  OptParse *p = user;
  PtoStr s;
  pto_str_init(&s);
  pto_tool_list_passes(p->ctx, &s);
  if (s.len) fwrite(s.data, 1, s.len, out);
  pto_str_release(&s);
}

static int parse_args(OptOptions *o, int argc, char **argv, const char *tool,
                      PtoContext *ctx, bool *exit_now) {
  OptParse p = {o, tool, ctx};
  const PtoToolCommandLine cl = {tool,           opt_header,
                                 opt_args,       PTO_ARRAY_SIZE(opt_args),
                                 opt_option,     opt_positional,
                                 opt_pass_flag,  opt_footer};
  int rc = pto_tool_parse_args(&cl, argc, argv, &p);
  *exit_now = rc < 0;
  if (rc) return rc < 0 ? 0 : rc;
  if (o->pass_pipeline && o->first_pass_flag)
    return pto_tool_usage_error(tool,
                       "--pass-pipeline cannot be combined with pass flags "
                       "such as '%s'; put every pass in the pipeline",
                       o->first_pass_flag);
  char buf[256];
  const char *bad;
  const char *which = NULL;
  if (o->ins.print_before &&
      !known_passes(ctx, o->ins.print_before, &bad, buf, sizeof buf))
    which = "--print-ir-before";
  else if (o->ins.print_after &&
           !known_passes(ctx, o->ins.print_after, &bad, buf, sizeof buf))
    which = "--print-ir-after";
  if (which) {
    const char *hint = pto_pass_suggest(ctx, bad);
    char msg[300];
    snprintf(msg, sizeof msg, "%s names an unknown pass '%%s'%s%s%s", which,
             hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
    return pto_tool_usage_error(tool, msg, bad);
  }
  return 0;
}

typedef struct Run {
  const OptOptions *o;
  const char *tool;
  PtoContext *ctx;
  PtoPassManager *pm;
  unsigned print_flags;
} Run;

/* -o FILE is replaced only by complete output; stdout's write errors are
 * checked once before exiting (pto_tool_finish_stdout). */
static bool open_output(const OptOptions *o, const char *tool,
                        PtoOutFile *out) {
  if (!o->output || strcmp(o->output, "-") == 0) {
    memset(out, 0, sizeof *out);
    out->f = stdout;
    return true;
  }
  int err = pto_out_file_open(out, o->output);
  if (err)
    fprintf(stderr, "%s: could not open output file '%s': %s\n", tool,
            o->output, strerror(err));
  return !err;
}

static bool close_output(const OptOptions *o, const char *tool,
                         PtoOutFile *out) {
  if (out->f == stdout) return true;
  int err = pto_out_file_commit(out);
  if (err)
    fprintf(stderr, "%s: could not write output file '%s': %s\n", tool,
            o->output, strerror(err));
  return !err;
}

/* Processes one buffer (a whole file or one split chunk). The result goes
 * to `out`, or, when it is NULL, straight to the output file: a large
 * module is then never held in memory as text. */
static bool process_chunk(Run *run, const char *text, size_t len,
                          unsigned first_line, PtoStr *out) {
  const OptOptions *o = run->o;
  PtoDiagVerifier *dv = NULL;
  if (o->verify_diagnostics)
    dv = pto_diag_verifier_create(run->ctx, o->input, text, len, first_line);
  PtoParseOptions po = {o->input, first_line};
  double t0 = pto_now_seconds();
  PtoOp *module = pto_parse_module(run->ctx, text, len, &po);
  bool ok = module != NULL;
  if (ok && pto_op_verify(module)) ok = false;
  pto_pm_add_timing(run->pm, "parse", pto_now_seconds() - t0);
  if (ok && pto_pm_run(run->pm, module)) ok = false;
  if (ok) {
    t0 = pto_now_seconds();
    /* the printer reports what it cannot print (regions nested past the
     * limit after --inline --verify-each=false): output that does not
     * read back is an error, and does not replace an -o file */
    unsigned errors = pto_ctx_num_errors(run->ctx);
    if (out) {
      char *s = pto_op_print_to_string(module, run->print_flags);
      pto_str_puts(out, s);
      pto_free(s);
      ok = pto_ctx_num_errors(run->ctx) == errors;
    } else {
      PtoOutFile f;
      ok = open_output(o, run->tool, &f);
      if (ok) {
        pto_op_print(module, f.f, run->print_flags);
        if (pto_ctx_num_errors(run->ctx) != errors) {
          ok = false;
          if (f.f != stdout) pto_out_file_abandon(&f);
        } else {
          ok = close_output(o, run->tool, &f);
        }
      }
    }
    pto_pm_add_timing(run->pm, "output", pto_now_seconds() - t0);
  }
  if (module) pto_op_destroy(module);
  if (dv) return pto_diag_verifier_finish(dv) == PTO_SUCCESS;
  return ok;
}

static PtoPassManager *build_pass_manager(const OptOptions *o,
                                          PtoContext *ctx) {
  PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
  const char *text = o->pass_pipeline ? o->pass_pipeline : o->pass_flags.data;
  if (text && pto_pm_add_pipeline(pm, text)) {
    pto_pm_destroy(pm);
    return NULL;
  }
  pto_pm_set_verify_each(pm, o->verify_each);
  pto_pm_set_verify_roundtrip(pm, o->verify_roundtrip);
  PtoInstrumentation ins = o->ins;
  ins.print_after_failure = o->print_after_failure >= 0
                                ? o->print_after_failure != 0
                                : !o->verify_diagnostics;
  ins.print_flags = (o->print_generic ? PTO_PRINT_GENERIC : 0) |
                    (o->print_debuginfo ? PTO_PRINT_DEBUGINFO : 0);
  ins.out = stderr;
  pto_pm_set_instrumentation(pm, &ins);
  return pm;
}

static int write_output(const OptOptions *o, const char *tool,
                        const PtoStr *out) {
  PtoOutFile f;
  if (!open_output(o, tool, &f)) return 1;
  if (out->len) fwrite(out->data, 1, out->len, f.f);
  return close_output(o, tool, &f) ? 0 : 1;
}

static int run_on_input(OptOptions *o, const char *tool, PtoContext *ctx,
                        PtoPassManager *pm) {
  size_t len;
  const char *err;
  char *text = pto_read_file(o->input, o->max_input_bytes, &len, &err);
  if (!text) {
    fprintf(stderr, "%s: could not open input file '%s': %s\n", tool, o->input,
            err);
    return 1;
  }
  /* diagnostics and locations name standard input as MLIR does */
  if (strcmp(o->input, "-") == 0) o->input = "<stdin>";
  pto_ctx_take_source(ctx, o->input, text, len); /* freed with ctx */
  Run run = {o, tool, ctx, pm, 0};
  run.print_flags = (o->print_generic ? PTO_PRINT_GENERIC : 0) |
                    (o->print_debuginfo ? PTO_PRINT_DEBUGINFO : 0);
  /* The module was verified after parsing and after every pass: the
   * printer need not verify it again to choose the custom form. */
  if (o->verify_each) run.print_flags |= PTO_PRINT_ASSUME_VERIFIED;
  PtoStr out;
  pto_str_init(&out);
  bool ok = true;
  if (o->split_input) {
    PtoSplitChunk *chunks;
    unsigned n = pto_split_input(text, len, &chunks);
    for (unsigned i = 0; i < n; i++) {
      if (i) pto_str_puts(&out, "// -----\n");
      if (!process_chunk(&run, chunks[i].text, chunks[i].len,
                         chunks[i].first_line, &out))
        ok = false;
    }
    pto_free(chunks);
  } else {
    ok = process_chunk(&run, text, len, 1, NULL);
  }
  int rc = ok ? 0 : 1;
  if (ok && o->split_input) {
    double t0 = pto_now_seconds();
    rc = write_output(o, tool, &out);
    pto_pm_add_timing(pm, "output", pto_now_seconds() - t0);
  }
  pto_str_release(&out);
  return rc;
}

/* Loads and prints a platform; a bad description is reported with its file
 * and line and makes the tool fail. */
static int print_platform(const char *spec) {
  PtoPlatform p;
  PtoPlatformError err;
  if (!pto_platform_load(&p, spec, &err)) {
    char msg[1024];
    pto_platform_error_format(&err, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return 1;
  }
  char *text = pto_platform_describe(&p);
  fputs(text, stdout);
  pto_free(text);
  return 0;
}

int pto_opt_main(int argc, char **argv, const char *tool,
                 PtoRegisterFn register_fn) {
  OptOptions o;
  memset(&o, 0, sizeof o);
  o.verify_each = true;
  o.print_after_failure = -1;
  o.max_input_bytes = PTO_DEFAULT_MAX_INPUT_BYTES;
  pto_str_init(&o.pass_flags);
  /* passes are registered first: each one is also a command-line flag */
  PtoContext *ctx = pto_ctx_create();
  if (register_fn) register_fn(ctx);
  bool exit_now;
  int rc = parse_args(&o, argc, argv, tool, ctx, &exit_now);
  if (rc || exit_now) goto done;
  if (o.list_passes || o.passes_markdown) {
    PtoStr s;
    pto_str_init(&s);
    if (o.list_passes) pto_tool_list_passes(ctx, &s);
    if (o.passes_markdown) pto_tool_passes_markdown(ctx, tool, &s);
    rc = pto_tool_write_stdout(tool, s.data, s.len);
    pto_str_release(&s);
    goto done;
  }
  if (o.print_platform) {
    rc = print_platform(o.platform);
    goto done;
  }
  if (!o.input) o.input = "-";
  pto_ctx_set_allow_unregistered(ctx, o.allow_unregistered);
  PtoPassManager *pm = build_pass_manager(&o, ctx);
  if (!pm) {
    rc = 1;
    goto done;
  }
  if (o.dump_pipeline) {
    char *s = pto_pm_to_string(pm);
    fprintf(stderr, "%s\n", s);
    pto_free(s);
  }
  rc = run_on_input(&o, tool, ctx, pm);
  pto_pm_report(pm);
  pto_pm_destroy(pm);
done:
  pto_str_release(&o.pass_flags);
  pto_ctx_destroy(ctx);
  if (pto_tool_finish_stdout(tool)) rc = 1;
  return rc;
}
