/* pto-run: parse textual IR, transform it with an optional pipeline, and
 * run one function through the reference interpreter. */
#include "pto/RunMain.h"

#include "pto/Pass.h"

#include "Tools/RunInternal.h"
#include "Tools/ToolsInternal.h"

#include "Support/Alloc.h"
#include "Support/Time.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int run_error(const RunOptions *o, const char *fmt, ...) {
  fflush(stdout); /* keep the order of result lines and errors */
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: error: ", o->tool);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

static void print_help(const char *tool) {
  printf(
      "OVERVIEW: %s - run a function through the PTO reference interpreter\n\n"
      "USAGE: %s FILE [options]\n\n"
      "Runs a func.func of FILE (textual IR) on the given or generated inputs\n"
      "and prints one line per result: its type, min, max, mean and an FNV-1a\n"
      "checksum of its bytes. Options take their value as '--opt value' or\n"
      "'--opt=value'.\n\n"
      "INPUTS:\n"
      "  --input [<arg>=]<value>    An argument's value: a .npy file, or a number\n"
      "                             for a scalar argument. Without <arg>=, the\n"
      "                             argument after the previous --input's (0 first)\n"
      "  --random <seed>            Generate the arguments not given by --input:\n"
      "                             floats uniform in [-1, 1), integers in\n"
      "                             [-10, 10], bool 0 or 1\n"
      "  --shape <arg>=<DxDx...>    Shape of a generated tensor argument\n"
      "  --dim <n>                  Size of every dynamic dim (?) not set otherwise\n"
      "  --dim <arg>.<dim>=<n>      Size of one dynamic dim of a generated argument\n\n"
      "OUTPUTS:\n"
      "  --out-dir <dir>            Write the results as out0.npy, out1.npy, ...\n"
      "                             and the generated inputs as in0.npy, ...\n"
      "                             (default: no files)\n"
      "  --expect <file.npy>        Compare the next result with this file; exit 1\n"
      "                             when an element differs beyond the tolerance\n"
      "  --rtol <r>, --atol <a>     Tolerance: |got - expected| <= atol + rtol *\n"
      "                             |expected| (default: per dtype)\n"
      "  --quiet                    Do not print the result lines\n\n"
      "RUNNING:\n"
      "  --entry <name>             Function to run (default: the first public\n"
      "                             func.func with a body)\n"
      "  --pass-pipeline=<pipeline> Transform the IR before running it\n"
      "                             (e.g. 'decompose')\n"
      "  --check-levels             Run the Tensor level, the Tensor level after\n"
      "                             the passes of --pass-pipeline before\n"
      "                             tile-expand, and the Tile level (after\n"
      "                             tile-expand, appended when the pipeline has\n"
      "                             none, and the passes after it) on the same\n"
      "                             inputs; report each output's error and, on a\n"
      "                             mismatch, the first tile op whose value\n"
      "                             differs from the Tensor-level value it came\n"
      "                             from; exit 1 on a mismatch\n"
      "  --perturb-tile-op <n>      With --check-levels, for testing the report:\n"
      "                             add 1 to the n-th tile (in IR order) that\n"
      "                             tile-expand traced to a Tensor-level result\n"
      "  --max-call-depth <n>       Deepest func.call nesting (default 256)\n"
      "  --max-tensor-bytes <n>     Largest tensor the interpreter allocates or\n"
      "                             an --input holds (default 4294967296)\n"
      "  --max-input-bytes <n>      Largest program file read (default 256 MiB)\n"
      "  --stats                    Print the executed op count, the run time\n"
      "                             and the peak resident set\n"
      "  --help                     Print this help\n"
      "  --version                  Print the version\n",
      tool, tool);
}

/* ------------------------------------------------------------------ */
/* Option values                                                        */
/* ------------------------------------------------------------------ */

static bool parse_i64(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno) return false;
  *out = v;
  return true;
}

static bool parse_u64(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (!*s || *s == '-') return false;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return false;
  *out = v;
  return true;
}

static bool parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || *end || errno || !(v >= 0)) return false;
  *out = v;
  return true;
}

/* `A=DxDxD` (A=, for rank 0). */
static bool parse_shape(const char *s, RunShape *r) {
  const char *eq = strchr(s, '=');
  char num[32];
  if (!eq || eq == s || (size_t)(eq - s) >= sizeof num) return false;
  snprintf(num, sizeof num, "%.*s", (int)(eq - s), s);
  int64_t a;
  if (!parse_i64(num, &a) || a < 0 || a > 65535) return false;
  r->arg = (unsigned)a;
  r->rank = 0;
  for (const char *p = eq + 1; *p;) {
    const char *x = strchr(p, 'x');
    size_t len = x ? (size_t)(x - p) : strlen(p);
    int64_t d;
    if (len == 0 || len >= sizeof num || r->rank == PTO_MAX_RANK) return false;
    snprintf(num, sizeof num, "%.*s", (int)len, p);
    if (!parse_i64(num, &d) || d < 0) return false;
    r->dims[r->rank++] = d;
    if (!x) break;
    p = x + 1;
    if (!*p) return false;
  }
  return true;
}

/* `N` or `A.D=N`. */
static bool parse_dim(const char *s, RunDim *r) {
  const char *eq = strchr(s, '=');
  r->arg = r->dim = -1;
  if (!eq) return parse_i64(s, &r->size) && r->size >= 0;
  int64_t a, d;
  char buf[64];
  const char *dot = strchr(s, '.');
  if (!dot || dot > eq || (size_t)(eq - s) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%.*s", (int)(dot - s), s);
  if (!parse_i64(buf, &a) || a < 0 || a > 65535) return false;
  snprintf(buf, sizeof buf, "%.*s", (int)(eq - dot - 1), dot + 1);
  if (!parse_i64(buf, &d) || d < 0 || d >= PTO_MAX_RANK) return false;
  r->arg = (int)a;
  r->dim = (int)d;
  return parse_i64(eq + 1, &r->size) && r->size >= 0;
}

/* ------------------------------------------------------------------ */
/* Arguments                                                            */
/* ------------------------------------------------------------------ */

/* The value of an option written `--name value` or `--name=value`. */
static bool option_value(int argc, char **argv, int *i, const char *name,
                         const char **v, int *rc, const char *tool) {
  if (!pto_tool_flag(argv[*i], name, v)) return false;
  if (!*v) {
    if (*i + 1 >= argc) {
      *rc = pto_tool_usage_error(tool, "option '%s' needs a value", name);
      return true;
    }
    *v = argv[++*i];
  }
  return true;
}

static int parse_args(RunOptions *o, int argc, char **argv, bool *exit_now) {
  const char *tool = o->tool, *v;
  int rc = 0;
  unsigned next_arg = 0; /* the argument a plain --input gives */
  *exit_now = false;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      print_help(tool);
      *exit_now = true;
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("%s (PTO) %s\n", tool, PTO_VERSION_STRING);
      *exit_now = true;
      return 0;
    } else if (option_value(argc, argv, &i, "--input", &v, &rc, tool)) {
      RunInput in = {next_arg, v};
      const char *eq = v ? strchr(v, '=') : NULL;
      int64_t a;
      char num[32];
      if (!rc && eq && eq > v && (size_t)(eq - v) < sizeof num) {
        snprintf(num, sizeof num, "%.*s", (int)(eq - v), v);
        if (parse_i64(num, &a)) {
          if (a < 0 || a > 65535)
            rc = pto_tool_usage_error(tool, "invalid argument number in "
                                            "--input '%s'", v);
          in.arg = (unsigned)a;
          in.value = eq + 1;
        }
      }
      for (uint32_t k = 0; !rc && k < o->inputs.len; k++)
        if (o->inputs.data[k].arg == in.arg)
          rc = pto_tool_usage_error(tool, "--input '%s' gives an argument "
                                          "that an earlier --input gives", v);
      next_arg = in.arg + 1;
      if (!rc) pto_vec_push(&o->inputs, in);
    } else if (option_value(argc, argv, &i, "--expect", &v, &rc, tool)) {
      if (!rc) pto_vec_push(&o->expects, v);
    } else if (option_value(argc, argv, &i, "--entry", &v, &rc, tool)) {
      if (!rc) o->entry = *v == '@' ? v + 1 : v;
    } else if (option_value(argc, argv, &i, "--out-dir", &v, &rc, tool)) {
      if (!rc && !*v) rc = pto_tool_usage_error(tool, "%s", "--out-dir needs a directory");
      o->out_dir = v;
    } else if (option_value(argc, argv, &i, "--pass-pipeline", &v, &rc, tool)) {
      if (!rc && o->pass_pipeline)
        rc = pto_tool_usage_error(tool, "%s", "--pass-pipeline is given more than once");
      o->pass_pipeline = v;
    } else if (option_value(argc, argv, &i, "--random", &v, &rc, tool)) {
      if (!rc && !parse_u64(v, &o->seed))
        rc = pto_tool_usage_error(tool, "invalid seed '%s' for --random: expected "
                                        "a non-negative integer", v);
      o->have_seed = true;
    } else if (option_value(argc, argv, &i, "--shape", &v, &rc, tool)) {
      RunShape s;
      if (!rc && !parse_shape(v, &s))
        rc = pto_tool_usage_error(tool, "invalid --shape '%s': expected ARG=DIMS, "
                                        "e.g. 0=4x32x1x256", v);
      if (!rc) pto_vec_push(&o->shapes, s);
    } else if (option_value(argc, argv, &i, "--dim", &v, &rc, tool)) {
      RunDim d;
      if (!rc && !parse_dim(v, &d))
        rc = pto_tool_usage_error(tool, "invalid --dim '%s': expected a size N "
                                        "(every dynamic dim) or ARG.DIM=N", v);
      if (!rc) pto_vec_push(&o->dims, d);
    } else if (option_value(argc, argv, &i, "--rtol", &v, &rc, tool)) {
      if (!rc && !parse_double(v, &o->rtol))
        rc = pto_tool_usage_error(tool, "invalid --rtol '%s': expected a "
                                        "non-negative number", v);
      o->have_rtol = true;
    } else if (option_value(argc, argv, &i, "--atol", &v, &rc, tool)) {
      if (!rc && !parse_double(v, &o->atol))
        rc = pto_tool_usage_error(tool, "invalid --atol '%s': expected a "
                                        "non-negative number", v);
      o->have_atol = true;
    } else if (option_value(argc, argv, &i, "--max-call-depth", &v, &rc, tool)) {
      uint64_t n = 0;
      if (!rc && (!parse_u64(v, &n) || n == 0 || n > 1000000))
        rc = pto_tool_usage_error(tool, "invalid --max-call-depth '%s': expected "
                                        "an integer in [1, 1000000]", v);
      o->interp.max_call_depth = (unsigned)n;
    } else if (option_value(argc, argv, &i, "--max-tensor-bytes", &v, &rc, tool)) {
      if (!rc && (!parse_u64(v, &o->interp.max_tensor_bytes) ||
                  !o->interp.max_tensor_bytes))
        rc = pto_tool_usage_error(tool, "invalid --max-tensor-bytes '%s': "
                                        "expected a positive integer", v);
    } else if (option_value(argc, argv, &i, "--max-input-bytes", &v, &rc, tool)) {
      if (!rc && !pto_tool_size_value(v, &o->max_input_bytes))
        rc = pto_tool_usage_error(tool, "invalid --max-input-bytes '%s': "
                                        "expected a positive integer", v);
    } else if (option_value(argc, argv, &i, "--perturb-tile-op", &v, &rc, tool)) {
      if (!rc && (!parse_i64(v, &o->perturb) || o->perturb <= 0))
        rc = pto_tool_usage_error(tool, "invalid --perturb-tile-op '%s': "
                                        "expected a positive integer", v);
    } else if (strcmp(a, "--check-levels") == 0) {
      o->check_levels = true;
    } else if (strcmp(a, "--stats") == 0) {
      o->stats = true;
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      o->quiet = true;
    } else if (a[0] == '-' && a[1] != 0) {
      rc = pto_tool_usage_error(tool, "unknown option '%s'", a);
    } else if (o->file) {
      rc = pto_tool_usage_error(tool, "more than one input file ('%s')", a);
    } else {
      o->file = a;
    }
  }
  if (!rc && !o->file)
    rc = pto_tool_usage_error(tool, "%s", "no input file; pto-run FILE [options]");
  if (!rc && o->perturb && !o->check_levels)
    rc = pto_tool_usage_error(tool, "%s", "--perturb-tile-op needs --check-levels");
  return rc;
}

/* ------------------------------------------------------------------ */
/* The run                                                              */
/* ------------------------------------------------------------------ */

static bool is_runnable(PtoOp *op) {
  return pto_op_is(op, "func.func") && !pto_symbol_is_private(op) &&
         !pto_region_empty(pto_op_region(op, 0));
}

/* The function to run: --entry, or the first public func.func with a
 * body. */
PtoOp *run_find_entry(const RunOptions *o, PtoOp *module) {
  PtoBlock *body = pto_region_first_block(pto_op_region(module, 0));
  if (o->entry) {
    PtoOp *f = pto_symbol_lookup(module, o->entry);
    if (f && pto_op_is(f, "func.func") && !pto_region_empty(pto_op_region(f, 0)))
      return f;
    PtoStr names;
    pto_str_init(&names);
    for (PtoOp *op = body ? pto_block_first_op(body) : NULL; op; op = pto_op_next(op))
      if (pto_op_is(op, "func.func") && !pto_region_empty(pto_op_region(op, 0)))
        pto_str_printf(&names, "%s@%s", names.len ? ", " : "",
                       pto_ident_str(pto_op_symbol_name(op)));
    run_error(o, "no function @%s with a body in '%s'%s%s", o->entry, o->file,
              names.len ? "; it defines " : "", names.len ? names.data : "");
    pto_str_release(&names);
    return NULL;
  }
  for (PtoOp *op = body ? pto_block_first_op(body) : NULL; op; op = pto_op_next(op))
    if (is_runnable(op)) return op;
  run_error(o, "'%s' has no public func.func with a body to run", o->file);
  return NULL;
}

/* This process's peak resident set in KiB (Linux's VmHWM, which counts
 * only this program's image, unlike a parent's view through wait4); 0 when
 * unknown. */
static long peak_rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

bool run_apply_pipeline(PtoContext *ctx, PtoOp *module, const char *pipeline) {
  PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
  bool ok = pto_pm_add_pipeline(pm, pipeline) == PTO_SUCCESS;
  if (ok) {
    PtoInstrumentation ins;
    memset(&ins, 0, sizeof ins);
    ins.print_after_failure = true;
    ins.out = stderr;
    pto_pm_set_instrumentation(pm, &ins);
    ok = pto_pm_run(pm, module) == PTO_SUCCESS;
  }
  pto_pm_destroy(pm);
  return ok;
}

static int run_module(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                      PtoInterpRegisterFn interp_fn) {
  if (o->check_levels) return run_check_levels(o, ctx, module, interp_fn);
  if (o->pass_pipeline && !run_apply_pipeline(ctx, module, o->pass_pipeline))
    return 1;
  PtoOp *func = run_find_entry(o, module);
  if (!func) return 1;
  PtoBlock *entry = pto_region_first_block(pto_op_region(func, 0));
  unsigned nargs = pto_block_num_args(entry);
  PtoInterpValue *args = pto_calloc(nargs ? nargs : 1, sizeof *args);
  if (!run_make_inputs(o, ctx, func, args)) {
    pto_free(args);
    return 1;
  }
  PtoInterp *I = pto_interp_create(ctx, &o->interp);
  if (interp_fn) interp_fn(I);
  PtoInterpValue *res;
  unsigned nres;
  double t0 = pto_now_seconds();
  PtoResult r = pto_interp_run(I, func, args, nargs, &res, &nres);
  double dt = pto_now_seconds() - t0;
  for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
  pto_free(args);
  int rc = 1;
  if (!r) {
    rc = run_report_outputs(o, ctx, res, nres);
    if (o->stats) {
      fflush(stdout);
      fprintf(stderr, "%s: @%s executed %" PRIu64 " ops in %.3f ms", o->tool,
              pto_ident_str(pto_op_symbol_name(func)),
              pto_interp_num_ops_executed(I), dt * 1e3);
      long rss = peak_rss_kib();
      if (rss) fprintf(stderr, "; peak RSS %.1f MiB", (double)rss / 1024.0);
      fputc('\n', stderr);
    }
    for (unsigned i = 0; i < nres; i++) pto_interp_value_release(&res[i]);
    pto_free(res);
  }
  pto_interp_destroy(I);
  return rc;
}

int pto_run_main(int argc, char **argv, const char *tool,
                 PtoRegisterFn register_fn, PtoInterpRegisterFn interp_fn) {
  RunOptions o;
  memset(&o, 0, sizeof o);
  o.tool = tool;
  o.max_input_bytes = PTO_DEFAULT_MAX_INPUT_BYTES;
  bool exit_now;
  int rc = parse_args(&o, argc, argv, &exit_now);
  if (rc || exit_now) goto done;
  size_t len;
  const char *err;
  char *text = pto_read_file(o.file, o.max_input_bytes, &len, &err);
  if (!text) {
    rc = run_error(&o, "could not open input file '%s': %s", o.file, err);
    goto done;
  }
  PtoContext *ctx = pto_ctx_create();
  if (register_fn) register_fn(ctx);
  pto_ctx_add_source(ctx, o.file, text, len);
  PtoParseOptions po = {o.file, 1};
  PtoOp *module = pto_parse_module(ctx, text, len, &po);
  rc = 1;
  if (module && !pto_op_verify(module)) rc = run_module(&o, ctx, module, interp_fn);
  if (module) pto_op_destroy(module);
  pto_ctx_destroy(ctx);
  pto_free(text);
done:
  pto_vec_free(&o.inputs);
  pto_vec_free(&o.expects);
  pto_vec_free(&o.shapes);
  pto_vec_free(&o.dims);
  if (pto_tool_finish_stdout(tool)) rc = 1;
  return rc;
}
