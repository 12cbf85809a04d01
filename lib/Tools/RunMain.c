/* pto-run: parse textual IR, transform it with an optional pipeline, and
 * run one function through the reference interpreter. */
#include "pto/RunMain.h"

#include "pto/Pass.h"
#include "pto/Platform.h"
#include "pto/Runtime.h"

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

enum RunArg {
  RUN_INPUT, RUN_RANDOM, RUN_SHAPE, RUN_DIM, RUN_OUT_DIR, RUN_EXPECT, RUN_RTOL,
  RUN_ATOL, RUN_QUIET, RUN_ENTRY, RUN_PASS_PIPELINE, RUN_CHECK_LEVELS,
  RUN_PERTURB, RUN_MAX_CALL_DEPTH, RUN_MAX_TENSOR_BYTES, RUN_MAX_INPUT_BYTES,
  RUN_STATS, RUN_SHUFFLE_LAUNCHES, RUN_PLATFORM, RUN_BACKEND, RUN_TRACE,
  RUN_SVG, RUN_REPORT, RUN_REPEAT, RUN_PRINT_IR_AFTER_FAILURE,
  RUN_DEPS, RUN_GM_CHECK,
};

static const PtoToolArg run_args[] = {
    {PTO_TOOL_ARG_SECTION, "INPUTS", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_VALUE, "--input", NULL, "--input [<arg>=]<value>",
     "An argument's value: a .npy file, or a number\n"
     "for a scalar argument. Without <arg>=, the\n"
     "argument after the previous --input's (0 first)",
     RUN_INPUT},
    {PTO_TOOL_ARG_VALUE, "--random", NULL, "--random <seed>",
     "Generate the arguments not given by --input:\n"
     "floats uniform in [-1, 1), integers in\n[-10, 10], bool 0 or 1",
     RUN_RANDOM},
    {PTO_TOOL_ARG_VALUE, "--shape", NULL, "--shape <arg>=<DxDx...>",
     "Shape of a generated tensor argument", RUN_SHAPE},
    {PTO_TOOL_ARG_VALUE, "--dim", NULL, "--dim <n>, --dim <arg>.<dim>=<n>",
     "Size of every dynamic dim (?) not set\n"
     "otherwise, or of one dynamic dim of a\ngenerated argument",
     RUN_DIM},
    {PTO_TOOL_ARG_SECTION, "OUTPUTS", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_VALUE, "--out-dir", NULL, "--out-dir <dir>",
     "Write the results as out0.npy, out1.npy, ...\n"
     "and the generated inputs as in0.npy, ...\n(default: no files)",
     RUN_OUT_DIR},
    {PTO_TOOL_ARG_VALUE, "--expect", NULL, "--expect <file.npy>",
     "Compare the next result with this file; exit 1\n"
     "when an element differs beyond the tolerance",
     RUN_EXPECT},
    {PTO_TOOL_ARG_VALUE, "--rtol", NULL, "--rtol <r>",
     "Tolerance: |got - expected| <= atol + rtol *\n"
     "|expected| (default: per dtype, that of the\n"
     "least precise type in the computation)",
     RUN_RTOL},
    {PTO_TOOL_ARG_VALUE, "--atol", NULL, "--atol <a>", "See --rtol", RUN_ATOL},
    {PTO_TOOL_ARG_FLAG, "--quiet", "-q", NULL, "Do not print the result lines",
     RUN_QUIET},
    {PTO_TOOL_ARG_SECTION, "RUNNING", NULL, NULL, NULL, 0},
    {PTO_TOOL_ARG_VALUE, "--entry", NULL, "--entry <name>",
     "Function to run (default: the first public\nfunc.func with a body)",
     RUN_ENTRY},
    {PTO_TOOL_ARG_VALUE, "--pass-pipeline", NULL, "--pass-pipeline=<pipeline>",
     "Transform the IR before running it\n(e.g. 'decompose')",
     RUN_PASS_PIPELINE},
    {PTO_TOOL_ARG_FLAG, "--print-ir-after-failure", NULL, NULL,
     "When a pass of --pass-pipeline (or of the\n"
     "lowering of --backend) fails, print the IR\nit failed on to stderr",
     RUN_PRINT_IR_AFTER_FAILURE},
    {PTO_TOOL_ARG_FLAG, "--check-levels", NULL, NULL,
     "Run every level the pipeline passes through\n"
     "(cut at its lowerings; with none, the\n"
     "registered lowerings, as deep as the program\n"
     "lowers) on the same inputs; report\n"
     "each output's error and, on a mismatch, the\n"
     "first traced op whose value differs from the\n"
     "value of the level before it came from; exit\n1 on a mismatch. "
     "With --backend host|both, the\ncompiled kernels' results too",
     RUN_CHECK_LEVELS},
    {PTO_TOOL_ARG_VALUE, "--perturb-tile-op", NULL, "--perturb-tile-op <n>",
     "With --check-levels, for testing the report:\n"
     "add 1 to the n-th traced tile (in IR order)\nof the first lowered level",
     RUN_PERTURB},
    {PTO_TOOL_ARG_VALUE, "--platform", NULL, "--platform <name|file>",
     "The machine whose buffers PTO kernels run in:\n"
     "a built-in description (a2a3, the default,\n"
     "or a3) or a description file",
     RUN_PLATFORM},
    {PTO_TOOL_ARG_VALUE, "--backend", NULL, "--backend <interp|host|sim|both>",
     "interp (the default): the reference\n"
     "interpreter; host: lower to PTO, compile the\n"
     "kernels (JIT) and run the task graph on the\n"
     "runtime's worker threads; sim: time the same\n"
     "graph on the platform's simulator; both: host\n"
     "for the numbers, sim for the timeline",
     RUN_BACKEND},
    {PTO_TOOL_ARG_VALUE, "--trace", NULL, "--trace <file.json>",
     "With --backend host|sim|both: write the run's\n"
     "swimlane as Chrome Trace Event JSON (the\n"
     "simulated one when the simulator ran)",
     RUN_TRACE},
    {PTO_TOOL_ARG_VALUE, "--svg", NULL, "--svg <file.svg>",
     "Like --trace, as an SVG swimlane", RUN_SVG},
    {PTO_TOOL_ARG_VALUE, "--report", NULL, "--report <text|json>",
     "Like --trace: print the health report of the\n"
     "run after the result lines",
     RUN_REPORT},
    {PTO_TOOL_ARG_VALUE, "--deps", NULL, "--deps <file.json>",
     "With --backend host|both: write the task graph\n"
     "the host ran as JSON: per task its kernel,\n"
     "label, GM regions, the tasks it waits for and\n"
     "its times, and the tasks that started early",
     RUN_DEPS},
    {PTO_TOOL_ARG_FLAG, "--gm-check", NULL, NULL,
     "With --backend host|both: run on copies of the\n"
     "GM buffers between guard zones; a kernel that\n"
     "stores past its buffer is an error naming it",
     RUN_GM_CHECK},
    {PTO_TOOL_ARG_VALUE, "--repeat", NULL, "--repeat <n>",
     "With --backend host|sim|both: run the graph\n"
     "built once n times, each time with new buffers\n"
     "(a replay), checking that every run gives the\n"
     "first one's results; --stats reports the time\n"
     "per run",
     RUN_REPEAT},
    {PTO_TOOL_ARG_VALUE, "--max-call-depth", NULL, "--max-call-depth <n>",
     "Deepest func.call nesting (default 256)", RUN_MAX_CALL_DEPTH},
    {PTO_TOOL_ARG_VALUE, "--shuffle-launches", NULL, "--shuffle-launches <seed>",
     "Run consecutive block.launch ops in a random\n"
     "order (from the seed, > 0) that their GM\n"
     "regions allow, instead of program order",
     RUN_SHUFFLE_LAUNCHES},
    {PTO_TOOL_ARG_VALUE, "--max-tensor-bytes", NULL, "--max-tensor-bytes <n>",
     "Largest tensor the interpreter allocates or\n"
     "an --input holds (default 4294967296)",
     RUN_MAX_TENSOR_BYTES},
    PTO_TOOL_ARG_MAX_INPUT_BYTES_ROW(RUN_MAX_INPUT_BYTES),
    {PTO_TOOL_ARG_FLAG, "--stats", NULL, NULL,
     "Print the executed op count, the run time\nand the peak resident set",
     RUN_STATS},
    PTO_TOOL_ARG_HELP_VERSION_ROWS,
};

static void run_header(const char *tool, FILE *out) {
  fprintf(out,
          "OVERVIEW: %s - run a function through the PTO reference interpreter\n\n"
          "USAGE: %s FILE [options]\n\n"
          "Runs a func.func of FILE (textual IR) on the given or generated inputs\n"
          "and prints one line per result: its type, min, max, mean and an FNV-1a\n"
          "checksum of its bytes. Options take their value as '--opt value' or\n"
          "'--opt=value'.\n\n",
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

typedef struct RunParse {
  RunOptions *o;
  unsigned next_arg; /* the argument a plain --input gives */
} RunParse;

/* `x`, `%x`, `%arg0`: what a user may write for an argument's name. */
static bool is_arg_name(const char *s) {
  if (*s == '%') s++;
  if (!*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9')))
      return false;
  return true;
}

static bool file_exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f) fclose(f);
  return f != NULL;
}

static int run_input(RunParse *p, const char *v) {
  RunOptions *o = p->o;
  const char *tool = o->tool;
  RunInput in = {p->next_arg, v};
  const char *eq = strchr(v, '=');
  int64_t a;
  char num[32];
  if (eq && eq > v && (size_t)(eq - v) < sizeof num) {
    snprintf(num, sizeof num, "%.*s", (int)(eq - v), v);
    if (parse_i64(num, &a)) {
      if (a < 0 || a > 65535)
        return pto_tool_usage_error(tool, "invalid argument number in "
                                          "--input '%s'", v);
      in.arg = (unsigned)a;
      in.value = eq + 1;
    } else if (is_arg_name(num) && !file_exists(v)) {
      /* `x=a.npy` or `%x=a.npy`: the IR keeps no argument names */
      return pto_tool_usage_error(tool, "--input '%s': an argument is given "
                                        "by its number (0 for the first), "
                                        "as in --input 0=FILE", v);
    }
  }
  for (uint32_t k = 0; k < o->inputs.len; k++)
    if (o->inputs.data[k].arg == in.arg)
      return pto_tool_usage_error(tool, "--input '%s' gives an argument "
                                        "that an earlier --input gives", v);
  p->next_arg = in.arg + 1;
  pto_vec_push(&o->inputs, in);
  return 0;
}

static int run_option(void *user, int id, const char *a, const char *v) {
  RunParse *p = user;
  RunOptions *o = p->o;
  const char *tool = o->tool;
  switch (id) {
  case RUN_INPUT: return run_input(p, v);
  case RUN_EXPECT: pto_vec_push(&o->expects, v); break;
  case RUN_ENTRY: o->entry = *v == '@' ? v + 1 : v; break;
  case RUN_OUT_DIR:
    if (!*v) return pto_tool_usage_error(tool, "%s", "--out-dir needs a directory");
    o->out_dir = v;
    break;
  case RUN_PASS_PIPELINE:
    if (o->pass_pipeline)
      return pto_tool_usage_error(tool, "%s", "--pass-pipeline is given more than once");
    o->pass_pipeline = v;
    break;
  case RUN_RANDOM:
    if (!parse_u64(v, &o->seed))
      return pto_tool_usage_error(tool, "invalid seed '%s' for --random: expected "
                                        "a non-negative integer", v);
    o->have_seed = true;
    break;
  case RUN_SHAPE: {
    RunShape sh;
    if (!parse_shape(v, &sh))
      return pto_tool_usage_error(tool, "invalid --shape '%s': expected ARG=DIMS, "
                                        "e.g. 0=4x32x1x256", v);
    pto_vec_push(&o->shapes, sh);
    break;
  }
  case RUN_DIM: {
    RunDim d;
    if (!parse_dim(v, &d))
      return pto_tool_usage_error(tool, "invalid --dim '%s': expected a size N "
                                        "(every dynamic dim) or ARG.DIM=N", v);
    pto_vec_push(&o->dims, d);
    break;
  }
  case RUN_RTOL:
  case RUN_ATOL: {
    bool r = id == RUN_RTOL;
    if (!parse_double(v, r ? &o->rtol : &o->atol))
      return pto_tool_usage_error(tool, r ? "invalid --rtol '%s': expected a "
                                            "non-negative number"
                                          : "invalid --atol '%s': expected a "
                                            "non-negative number",
                                  v);
    if (r) o->have_rtol = true;
    else o->have_atol = true;
    break;
  }
  case RUN_MAX_CALL_DEPTH: {
    uint64_t n = 0;
    if (!parse_u64(v, &n) || n == 0 || n > 1000000)
      return pto_tool_usage_error(tool, "invalid --max-call-depth '%s': expected "
                                        "an integer in [1, 1000000]", v);
    o->interp.max_call_depth = (unsigned)n;
    break;
  }
  case RUN_SHUFFLE_LAUNCHES:
    if (!parse_u64(v, &o->interp.shuffle_launches) || !o->interp.shuffle_launches)
      return pto_tool_usage_error(tool, "invalid --shuffle-launches '%s': "
                                        "expected a positive integer", v);
    break;
  case RUN_PLATFORM: {
    PtoPlatform p;
    if (pto_tool_platform_value(tool, v, &p)) return 1;
    for (unsigned s = 0; s < PTO_MEM_SPACE_COUNT; s++)
      o->interp.buffer_bytes[s] = p.buffers[s].size_bytes;
    o->platform = v;
    break;
  }
  case RUN_BACKEND:
    if (!strcmp(v, "interp")) o->backend = 0;
    else if (!strcmp(v, "host")) o->backend = PTO_RT_HOST;
    else if (!strcmp(v, "sim")) o->backend = PTO_RT_SIM;
    else if (!strcmp(v, "both")) o->backend = PTO_RT_BOTH;
    else
      return pto_tool_usage_error(tool, "invalid --backend '%s': expected "
                                        "interp, host, sim or both", v);
    break;
  case RUN_REPEAT:
    if (!parse_i64(v, &o->repeat) || o->repeat < 1 || o->repeat > 1000000)
      return pto_tool_usage_error(tool, "invalid --repeat '%s': expected an "
                                        "integer in [1, 1000000]", v);
    break;
  case RUN_TRACE: o->trace = v; break;
  case RUN_SVG: o->svg = v; break;
  case RUN_DEPS: o->deps = v; break;
  case RUN_REPORT:
    if (strcmp(v, "text") && strcmp(v, "json"))
      return pto_tool_usage_error(tool, "invalid --report '%s': expected text "
                                        "or json", v);
    o->report = v;
    break;
  case RUN_MAX_TENSOR_BYTES:
    if (!parse_u64(v, &o->interp.max_tensor_bytes) || !o->interp.max_tensor_bytes)
      return pto_tool_usage_error(tool, "invalid --max-tensor-bytes '%s': "
                                        "expected a positive integer", v);
    break;
  case RUN_MAX_INPUT_BYTES:
    return pto_tool_max_input_value(tool, v, &o->max_input_bytes);
  case RUN_PERTURB:
    if (!parse_i64(v, &o->perturb) || o->perturb <= 0)
      return pto_tool_usage_error(tool, "invalid --perturb-tile-op '%s': "
                                        "expected a positive integer", v);
    break;
  case RUN_CHECK_LEVELS: o->check_levels = true; break;
  case RUN_STATS: o->stats = true; break;
  case RUN_GM_CHECK: o->gm_check = true; break;
  case RUN_QUIET: o->quiet = true; break;
  case RUN_PRINT_IR_AFTER_FAILURE: o->print_ir_after_failure = true; break;
  }
  (void)a;
  return 0;
}

static int run_positional(void *user, const char *a) {
  RunOptions *o = ((RunParse *)user)->o;
  if (o->file) return pto_tool_usage_error(o->tool, "more than one input file ('%s')", a);
  o->file = a;
  return 0;
}

/* pypto.pass_verify_print's text, on stderr so that stdout keeps the
 * result lines. */
static void print_debug(void *user, const char *text) {
  (void)user;
  fprintf(stderr, "%s\n", text);
}

static int parse_args(RunOptions *o, int argc, char **argv, bool *exit_now) {
  const char *tool = o->tool;
  RunParse p = {o, 0};
  const PtoToolCommandLine cl = {tool,       run_header,     run_args,
                                 PTO_ARRAY_SIZE(run_args),   run_option,
                                 run_positional, NULL,       NULL};
  int rc = pto_tool_parse_args(&cl, argc, argv, &p);
  *exit_now = rc < 0;
  if (rc) return rc < 0 ? 0 : rc;
  if (!o->file)
    return pto_tool_usage_error(tool, "%s", "no input file; pto-run FILE [options]");
  if ((o->trace || o->svg || o->report || o->repeat) && !o->backend)
    return pto_tool_usage_error(tool, "%s", "--trace, --svg, --report and "
                                "--repeat need --backend host, sim or both");
  if ((o->deps || o->gm_check) && !(o->backend & PTO_RT_HOST))
    return pto_tool_usage_error(tool, "%s", "--deps and --gm-check need --backend host "
                                "or both");
  if (o->check_levels && o->backend == PTO_RT_SIM)
    return pto_tool_usage_error(tool, "%s", "--check-levels compares numbers, "
                                "which the simulator does not compute: use "
                                "--backend host or both");
  if (o->perturb && !o->check_levels)
    return pto_tool_usage_error(tool, "%s", "--perturb-tile-op needs --check-levels");
  o->interp.debug_print = print_debug;
  o->interp.save_dir = o->out_dir; /* pass_verify_save's files join the results */
  return 0;
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

bool run_apply_pipeline(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                        const char *pipeline) {
  PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
  bool ok = pto_pm_add_pipeline(pm, pipeline) == PTO_SUCCESS;
  if (ok) {
    PtoInstrumentation ins;
    memset(&ins, 0, sizeof ins);
    /* the diagnostic names the op; the IR of a whole kernel would bury it */
    ins.print_after_failure = o->print_ir_after_failure;
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
  if (o->backend) return run_backend(o, ctx, module);
  if (o->pass_pipeline && !run_apply_pipeline(o, ctx, module, o->pass_pipeline))
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
