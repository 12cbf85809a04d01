/* pto-run --backend host|sim|both: the module lowered to PTO, translated
 * to LLVM IR, JIT-compiled, its host program run once to build the task
 * graph, and the graph run on the MPMD runtime (worker threads running
 * the compiled kernels, or the simulator timing them with the cost
 * model's cycles). Results, trace, SVG and health report as the runtime
 * gives them. */
#include "Tools/RunInternal.h"

#include "pto/Dialect/PTO.h"
#include "pto/HostProgram.h"
#include "pto/LevelCheck.h"
#include "pto/Pass.h"

#include "Support/Alloc.h"
#include "Support/Str.h"
#include "Support/Time.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_kernels(PtoOp *module) {
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = top ? pto_block_first_op(top) : NULL; op; op = pto_op_next(op))
    if (pto_pto_op_id(op) == PTO_PTO_KERNEL) return true;
  return false;
}

static int write_outputs(const RunOptions *o, PtoHostProgram *p) {
  const PtoRtTimeline *tl = pto_host_program_timeline(p);
  if (!tl) return run_error(o, "the runtime recorded no timeline to write");
  if (o->trace) {
    FILE *f = fopen(o->trace, "w");
    bool ok = f && pto_timeline_write_trace(tl, f) == PTO_RT_OK;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) return run_error(o, "could not write the trace '%s'", o->trace);
  }
  if (o->svg && pto_timeline_write_svg(tl, o->svg) != PTO_RT_OK)
    return run_error(o, "could not write the swimlane '%s'", o->svg);
  if (o->report && pto_timeline_write_report(tl, stdout, !strcmp(o->report, "json")) != PTO_RT_OK)
    return run_error(o, "could not write the health report");
  if (o->deps && pto_host_program_write_dependencies(p, o->deps)) return 1;
  return 0;
}

/* The share of the host run's thread time that was not spent in kernels:
 * dispatch, dependency resolution and idling. */
static double dispatch_share(PtoGraph *g, double wall_us, uint32_t threads) {
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_HOST);
  PtoRtGraphStats st;
  pto_graph_get_stats(g, &st);
  double busy = 0;
  for (uint64_t i = 0; tl && i < st.tasks + st.barriers; i++) {
    PtoRtTaskTimes t;
    if (pto_timeline_get_task(tl, i, &t)) busy += t.end - t.start;
  }
  double all = wall_us * threads;
  return all > 0 && tl ? 1.0 - busy / all : 0;
}

/* One compiled run: the program and the times of its runs. */
typedef struct Backend {
  PtoHostProgram *p;
  /* The tool's, so that --stats can say where the kernels came from. */
  PtoJit *jit;
  double t_run, t_last; /* t_run: mean per run */
} Backend;

static void backend_release(Backend *B) {
  pto_host_program_destroy(B->p);
  if (B->jit) pto_jit_destroy(B->jit);
}

/* Frees a buffer set of a replay (all of it ours), not the first run's. */
static void free_set(void **set, void *const *first, uint32_t n) {
  if (set == first) return;
  for (uint32_t i = 0; i < n; i++) pto_free(set[i]);
  pto_free(set);
}

/* Compiles the lowered module, builds the graph of its entry `func` for
 * `args` and runs it; on success res[0..nres) are the results (zeros on
 * the simulator alone). Returns the exit code; B is released by the
 * caller either way. */
static int backend_run(Backend *B, const RunOptions *o, PtoContext *ctx,
                       PtoOp *module, PtoOp *func, PtoInterpValue *args,
                       unsigned nargs, PtoInterpValue *res, unsigned nres) {
  PtoPlatform plat;
  PtoPlatformError perr;
  if (!pto_platform_load(&plat, o->platform ? o->platform : PTO_PLATFORM_DEFAULT, &perr))
    return run_error(o, "cannot load the platform");
  PtoError jerr;
  B->jit = pto_jit_create(NULL, &jerr);
  if (!B->jit) {
    pto_emit_error(ctx, pto_op_loc(func), "cannot JIT on this host: %s", jerr.msg);
    return 1;
  }
  PtoHostProgramOptions hopts = {
      .platform = &plat, .backend = (PtoRtBackend)o->backend, .jit = B->jit};
  B->p = pto_host_program_create(ctx, module, func, &hopts);
  if (B->p) pto_host_program_set_gm_check(B->p, o->gm_check);
  if (!B->p || pto_host_program_build(B->p, args, nargs)) return 1;
  PtoHostProgram *p = B->p;
  /* --repeat: later runs replay the graph with new buffers (fresh copies
   * of the inputs, new workspaces), which must give the first run's bits */
  uint32_t n = pto_host_program_num_buffers(p);
  unsigned ntensors = pto_host_program_num_tensor_args(p);
  void *const *first = pto_host_program_buffers(p);
  void **keep = NULL;
  if (o->repeat > 1) {
    keep = pto_calloc(ntensors + 1, sizeof *keep);
    for (unsigned i = 0; i < ntensors; i++) {
      const PtoNdArray *a = pto_host_program_tensor_input(p, i);
      keep[i] = pto_malloc(a->nbytes + 1);
      memcpy(keep[i], a->data, a->nbytes);
    }
  }
  void **cur = (void **)first;
  int rc = 0;
  double total = 0;
  for (int64_t r = 0; r < (o->repeat > 1 ? o->repeat : 1) && !rc; r++) {
    if (r > 0) {
      void **next = pto_calloc(n + 1, sizeof *next);
      for (uint32_t i = 0; i < n; i++) {
        next[i] = pto_calloc((size_t)pto_host_program_buffer_size(p, i) + 1, 1);
        if (i < ntensors) memcpy(next[i], keep[i], pto_host_program_tensor_input(p, i)->nbytes);
      }
      free_set(cur, first, n);
      cur = next;
    }
    double t0 = pto_now_seconds();
    if (pto_host_program_run(p, cur)) rc = 1;
    B->t_last = pto_now_seconds() - t0;
    /* the first run began while the graph was built, at its load_scalars */
    if (r == 0) B->t_last += pto_host_program_step_seconds(p);
    total += B->t_last;
  }
  B->t_run = total / (o->repeat > 1 ? (double)o->repeat : 1.0);
  for (unsigned i = 0; i < nres && !rc && cur != first; i++) {
    int32_t b = pto_host_program_result_buffer(p, i);
    if (b < 0) continue; /* a scalar, computed by the host program alone */
    if (memcmp(cur[b], first[b], (size_t)pto_host_program_buffer_size(p, b)))
      rc = run_error(o, "result #%u of a replay of the graph differs from the "
                     "first run's", i);
  }
  for (unsigned i = 0; i < nres && !rc; i++)
    if (pto_host_program_result(p, i, cur, &res[i])) rc = 1;
  free_set(cur, first, n);
  for (unsigned i = 0; keep && i < ntensors; i++) pto_free(keep[i]);
  pto_free(keep);
  (void)ctx;
  return rc;
}

static bool is_returned(PtoHostProgram *p, unsigned t) {
  for (unsigned i = 0; i < pto_host_program_num_results(p); i++)
    if (pto_host_program_result_buffer(p, i) == (int32_t)t) return true;
  return false;
}

/* Prints the tensor arguments the graph wrote in place and does not
 * return (the host's values). */
static int report_written_args(const RunOptions *o, PtoContext *ctx, PtoHostProgram *p,
                               const PtoInterpValue *args, unsigned nargs) {
  int rc = 0;
  for (unsigned i = 0, t = 0; i < nargs; i++) {
    if (args[i].kind != PTO_IVAL_TENSOR) continue;
    if (pto_host_program_writes_arg(p, t) && !is_returned(p, t) &&
        run_report_written_arg(o, ctx, i, pto_host_program_tensor_arg(p, t)))
      rc = 1;
    t++;
  }
  return rc;
}

/* --trace, --svg, --report and --stats of a run. */
static int backend_finish(Backend *B, const RunOptions *o) {
  PtoHostProgram *p = B->p;
  int rc = write_outputs(o, p);
  if (o->stats) {
    PtoRtGraphStats gs;
    pto_graph_get_stats(pto_host_program_graph(p), &gs);
    fflush(stdout);
    unsigned nk = pto_host_program_num_kernels(p);
    double tc = pto_host_program_compile_seconds(p);
    PtoRuntime *rt = pto_host_program_runtime(p);
    PtoJitStats js = pto_jit_get_stats(B->jit);
    fprintf(stderr, "%s: JIT compile %.1f ms for %u kernel%s (%.1f ms per kernel%s); "
            "graph of %llu tasks built in %.3f ms, run in %.3f ms%s",
            o->tool, tc * 1e3, nk, nk == 1 ? "" : "s", nk ? tc * 1e3 / nk : 0.0,
            js.disk_hits ? ", loaded from the disk cache" : "",
            (unsigned long long)gs.tasks, pto_host_program_build_seconds(p) * 1e3,
            B->t_run * 1e3, o->repeat > 1 ? " per run" : "");
    if (o->backend & PTO_RT_HOST)
      fprintf(stderr, "; dispatch share %.1f%% of %u threads (last run)",
              100.0 * dispatch_share(pto_host_program_graph(p), B->t_last * 1e6,
                                     pto_runtime_get_threads(rt)),
              pto_runtime_get_threads(rt));
    fputc('\n', stderr);
  }
  return rc;
}

static unsigned num_results(PtoOp *func) {
  PtoAttr *fty = pto_op_attr(func, "function_type");
  return fty ? pto_type_func_num_results(pto_attr_type_value(fty)) : 0;
}

/* Lowers `module` in place for the compiled path: `pipeline` (NULL: none
 * when it already has kernels, else pto-lower-to-pto). */
static bool lower(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                  const char *pipeline) {
  char *own = NULL;
  if (!pipeline && !has_kernels(module)) {
    /* lowered for the platform the kernels run on (its buffer sizes) */
    if (o->platform)
      own = pto_pass_text_with_option("pto-lower-to-pto", "platform", o->platform);
    pipeline = own ? own : "pto-lower-to-pto";
  }
  bool ok = !pipeline || run_apply_pipeline(o, ctx, module, pipeline);
  pto_free(own);
  if (!ok) return false;
  if (!has_kernels(module)) {
    run_error(o, "the module has no pto.kernel after %s; the host and sim "
              "back ends run PTO kernels", pipeline ? pipeline : "parsing");
    return false;
  }
  return true;
}

int run_backend(const RunOptions *o, PtoContext *ctx, PtoOp *module) {
  if (!lower(o, ctx, module, o->pass_pipeline)) return 1;
  PtoOp *func = run_find_entry(o, module);
  if (!func) return 1;
  unsigned nargs = pto_block_num_args(pto_region_first_block(pto_op_region(func, 0)));
  unsigned nres = num_results(func);
  PtoInterpValue *args = pto_calloc(nargs ? nargs : 1, sizeof *args);
  PtoInterpValue *res = pto_calloc(nres ? nres : 1, sizeof *res);
  Backend B;
  memset(&B, 0, sizeof B);
  int rc = 1;
  if (run_make_inputs(o, ctx, func, args) &&
      !(rc = backend_run(&B, o, ctx, module, func, args, nargs, res, nres))) {
    /* the simulator alone computes no numbers: nothing to print or compare */
    if (o->backend & PTO_RT_HOST) rc = run_report_outputs(o, ctx, res, nres);
    if (!rc && o->backend & PTO_RT_HOST)
      rc = report_written_args(o, ctx, B.p, args, nargs);
    if (!rc) rc = backend_finish(&B, o);
  }
  backend_release(&B);
  for (unsigned i = 0; i < nres; i++) pto_interp_value_release(&res[i]);
  for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
  pto_free(res);
  pto_free(args);
  return rc;
}

int run_backend_compare(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                        const PtoInterpValue *args, unsigned nargs,
                        const PtoInterpValue *ref, unsigned nref) {
  PtoOp *copy = pto_op_clone(module, NULL);
  /* the pipeline when it reaches PTO, else PTO's own */
  const char *pipeline = o->pass_pipeline;
  PtoOp *probe = pipeline ? pto_op_clone(module, NULL) : NULL;
  if (probe && !(run_apply_pipeline(o, ctx, probe, pipeline) && has_kernels(probe)))
    pipeline = NULL;
  if (probe) pto_op_destroy(probe);
  int rc = 1;
  PtoInterpValue *in = pto_calloc(nargs ? nargs : 1, sizeof *in);
  PtoInterpValue *res = pto_calloc(nref ? nref : 1, sizeof *res);
  for (unsigned i = 0; i < nargs; i++) in[i] = pto_interp_value_copy(&args[i]);
  Backend B;
  memset(&B, 0, sizeof B);
  PtoOp *func = lower(o, ctx, copy, pipeline) ? run_find_entry(o, copy) : NULL;
  if (func && num_results(func) != nref) {
    run_error(o, "the lowered function has %u results, the reference %u", num_results(func), nref);
  } else if (func && !backend_run(&B, o, ctx, copy, func, in, nargs, res, nref)) {
    rc = 0;
    for (unsigned i = 0; i < nref; i++) {
      uint64_t b1, b2;
      PtoNdArray g = pto_interp_value_array(&res[i], &b1);
      PtoNdArray e = pto_interp_value_array(&ref[i], &b2);
      double rtol, atol;
      run_tolerance(o, e.dtype, &rtol, &atol);
      PtoCompareResult r;
      const char *after = pipeline ? pipeline : "pto-lower-to-pto";
      if (g.rank != e.rank || memcmp(g.shape, e.shape, sizeof g.shape)) {
        printf("Compiled kernels on the host runtime after '%s': out%u has "
               "another shape than the reference's - MISMATCH\n", after, i);
        rc = 1;
        continue;
      }
      bool ok = pto_compare_arrays(&g, &e, rtol, atol, &r);
      printf("Compiled kernels on the host runtime after '%s': out%u max abs "
             "err %.3g, max rel err %.3g - %s", after, i, r.max_abs_diff,
             r.max_rel_diff, ok ? "ok" : "MISMATCH");
      if (!ok)
        printf(": %" PRId64 " of %" PRId64 " elements beyond rtol=%g atol=%g",
               r.num_mismatched, r.numel, rtol, atol);
      printf("\n");
      if (!ok) rc = 1;
    }
    if (backend_finish(&B, o)) rc = 1;
  }
  backend_release(&B);
  for (unsigned i = 0; i < nref; i++) pto_interp_value_release(&res[i]);
  for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&in[i]);
  pto_free(res);
  pto_free(in);
  pto_op_destroy(copy);
  return rc;
}
