/* pto-run --backend host|sim|both: the module lowered to PTO, translated
 * to LLVM IR, JIT-compiled, its host program run once to build the task
 * graph, and the graph run on the MPMD runtime (worker threads running
 * the compiled kernels, or the simulator timing them with the cost
 * model's cycles). Results, trace, SVG and health report as the runtime
 * gives them. */
#include "Tools/RunInternal.h"

#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/ExecutionEngine.h"
#include "pto/LLVMIR.h"
#include "pto/LevelCheck.h"
#include "pto/Runtime.h"
#include "pto/RuntimePlatform.h"

#include "Analysis/CostModel.h"
#include "Support/Alloc.h"
#include "Support/Time.h"
#include "Transforms/PtoKernel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver's half of PtoHostEnv: the graph and what the host program
 * asked for while building it. */
typedef struct HostRun {
  PtoHostEnv env;
  PtoGraph *g;
  PTO_VEC(int64_t) sizes;   /* bytes of each buffer */
  PTO_VEC(int64_t *) packs; /* the tasks' operand arrays */
} HostRun;

static int32_t cb_add_buffer(PtoHostEnv *env, int64_t bytes, const char *name) {
  HostRun *h = env->user;
  int32_t i = pto_graph_add_buffer(h->g, bytes, name);
  if (i >= 0) pto_vec_push(&h->sizes, bytes);
  return i;
}
static int64_t cb_submit(PtoHostEnv *env, const void *task) {
  return pto_graph_submit(((HostRun *)env->user)->g, task);
}
static int64_t *cb_alloc(PtoHostEnv *env, uint32_t n) {
  HostRun *h = env->user;
  int64_t *p = pto_calloc(n, sizeof *p);
  pto_vec_push(&h->packs, p);
  return p;
}

static bool has_kernels(PtoOp *module) {
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = top ? pto_block_first_op(top) : NULL; op; op = pto_op_next(op))
    if (pto_pto_op_id(op) == PTO_PTO_KERNEL) return true;
  return false;
}

/* The timeline the trace, SVG and report show: the simulated one when the
 * simulator ran, else the host's. */
static const PtoRtTimeline *shown_timeline(const RunOptions *o, PtoGraph *g) {
  return pto_graph_get_timeline(g, o->backend & PTO_RT_SIM ? PTO_RT_SIM : PTO_RT_HOST);
}

static int write_outputs(const RunOptions *o, PtoGraph *g) {
  const PtoRtTimeline *tl = shown_timeline(o, g);
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

/* A result tensor of the host program: its buffer copied into a new
 * array of the function's result type (one dynamic dim at most, which the
 * buffer's size gives). */
static bool make_result(const RunOptions *o, PtoType *ty, const void *data,
                        int64_t bytes, PtoInterpValue *out) {
  PtoDType dt;
  if (!pto_type_is_tensor(ty) || !pto_dtype_from_type(pto_type_tensor_elem(ty), &dt)) {
    run_error(o, "the host back end returns tensors only");
    return false;
  }
  unsigned rank = pto_type_tensor_rank(ty), dyn = rank;
  int64_t shape[PTO_MAX_RANK], known = (int64_t)pto_dtype_size(dt);
  for (unsigned d = 0; d < rank; d++) {
    shape[d] = pto_type_tensor_dim(ty, d);
    if (shape[d] == PTO_DYN) {
      if (dyn != rank) {
        run_error(o, "the host back end returns tensors with one dynamic dim at most");
        return false;
      }
      dyn = d;
    } else {
      known *= shape[d];
    }
  }
  if (dyn != rank) shape[dyn] = known ? bytes / known : 0;
  PtoNdArray *a = pto_ndarray_create(dt, rank, shape, NULL);
  if (!a || (int64_t)a->nbytes > bytes) {
    pto_ndarray_destroy(a);
    run_error(o, "a result's buffer is smaller than its type");
    return false;
  }
  memcpy(a->data, data, a->nbytes);
  *out = pto_interp_value_tensor(pto_tensor_take_ndarray(a));
  return true;
}

/* A scalar argument as the host program reads it from PtoHostEnv.dims:
 * an integer's value, a float's bits in its own type. */
static int64_t scalar_bits(const PtoInterpValue *v) {
  if (!pto_dtype_is_float(v->dtype)) return v->i;
  int64_t bits = 0; /* little-endian: the low bytes hold the value */
  pto_dtype_store_f64(v->dtype, &bits, 0, v->f);
  return bits;
}

typedef struct Compiled {
  PtoJit *jit;
  PtoJitModule *mod;
  int (*host)(PtoHostEnv *);
  unsigned nkernels;
} Compiled;

/* Translates and compiles the lowered module; registers each kernel's task
 * entry with the runtime and its cost model cycles. */
static int compile(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                   PtoOp *func, PtoRuntime *rt, const PtoPlatform *plat,
                   Compiled *c, int32_t **ids, uint64_t **cycles) {
  PtoError err;
  c->jit = pto_jit_create(NULL, &err);
  if (!c->jit) return run_error(o, "cannot JIT on this host: %s", err.msg);
  unsigned lanes = strcmp(pto_jit_get_vector_isa(c->jit), "avx512f") ? 8 : 16;
  char *ll = NULL;
  if (pto_translate_to_llvmir(module, lanes, &ll) != PTO_SUCCESS) return 1;
  c->mod = pto_jit_compile(c->jit, ll, strlen(ll), &err);
  pto_free(ll);
  if (!c->mod) return run_error(o, "the JIT failed: %s", err.msg);
  c->host = (int (*)(PtoHostEnv *))(uintptr_t)pto_jit_module_lookup(
      c->mod, pto_ident_str(pto_op_symbol_name(func)), &err);
  if (!c->host) return run_error(o, "%s", err.msg);
  PtoPtoPassState st;
  memset(&st, 0, sizeof st);
  st.platform = *plat;
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  unsigned n = 0;
  for (PtoOp *op = pto_block_first_op(top); op; op = pto_op_next(op))
    n += pto_pto_op_id(op) == PTO_PTO_KERNEL;
  *ids = pto_calloc(n ? n : 1, sizeof **ids);
  *cycles = pto_calloc(n ? n : 1, sizeof **cycles);
  n = 0;
  for (PtoOp *op = pto_block_first_op(top); op; op = pto_op_next(op)) {
    if (pto_pto_op_id(op) != PTO_PTO_KERNEL) continue;
    const char *name = pto_ident_str(pto_op_symbol_name(op));
    char entry[256];
    snprintf(entry, sizeof entry, "%s__task", name);
    PtoRtKernelFn fn = (PtoRtKernelFn)(uintptr_t)pto_jit_module_lookup(c->mod, entry, &err);
    if (!fn) return run_error(o, "%s", err.msg);
    bool cube = pto_block_kernel_core(op) == PTO_BLOCK_CORE_CUBE;
    (*ids)[n] = pto_runtime_add_kernel(rt, fn, cube ? PTO_RT_CORE_AIC : PTO_RT_CORE_AIV, name);
    if ((*ids)[n] < 0) return run_error(o, "%s", pto_runtime_error(rt));
    PtoPipeTimes t;
    if (pto_pto_kernel_cost(op, "pto-run", &st, &t) != PTO_SUCCESS) return 1;
    (*cycles)[n++] = t.total;
  }
  c->nkernels = n;
  (void)ctx;
  return 0;
}

/* One compiled run: the runtime, the JIT, the graph and its buffers. */
typedef struct Backend {
  PtoRuntime *rt;
  Compiled c;
  int32_t *ids;
  uint64_t *cycles;
  HostRun h;
  PtoNdArray **arrays; /* the tensor arguments, contiguous */
  unsigned ntensors;
  int64_t *dims;
  int32_t *results;
  void **bufs;
  double t_compile, t_build, t_run, t_last; /* t_run: mean per run */
} Backend;

/* Frees a buffer set of a replay (all of it ours), not the first run's. */
static void free_set(void **set, void **first, uint32_t n) {
  if (set == first) return;
  for (uint32_t i = 0; i < n; i++) pto_free(set[i]);
  pto_free(set);
}

static void backend_release(Backend *B) {
  for (uint32_t i = B->ntensors; B->bufs && i < B->h.sizes.len; i++) pto_free(B->bufs[i]);
  pto_free(B->bufs);
  for (uint32_t i = 0; i < B->h.packs.len; i++) pto_free(B->h.packs.data[i]);
  pto_vec_free(&B->h.packs);
  pto_vec_free(&B->h.sizes);
  if (B->h.g) pto_graph_destroy(B->h.g);
  for (unsigned i = 0; i < B->ntensors; i++) pto_ndarray_destroy(B->arrays[i]);
  pto_free(B->arrays);
  pto_free(B->dims);
  pto_free(B->results);
  pto_free(B->ids);
  pto_free(B->cycles);
  if (B->c.jit) pto_jit_destroy(B->c.jit);
  if (B->rt) pto_runtime_destroy(B->rt);
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
  PtoRtPlatform rplat;
  pto_rt_platform_convert(&rplat, &plat);
  PtoRtOptions ropts = {(PtoRtBackend)o->backend, 0, 1};
  char rerr[256];
  B->rt = pto_runtime_create(&rplat, &ropts, rerr, sizeof rerr);
  if (!B->rt) return run_error(o, "cannot start the runtime: %s", rerr);
  double t0 = pto_now_seconds();
  int rc = compile(o, ctx, module, func, B->rt, &plat, &B->c, &B->ids, &B->cycles);
  if (rc) return rc;
  B->t_compile = pto_now_seconds() - t0;
  B->arrays = pto_calloc(nargs ? nargs : 1, sizeof *B->arrays);
  B->dims = pto_calloc(nargs * PTO_MAX_RANK + 1, sizeof *B->dims);
  B->results = pto_calloc(nres ? nres : 1, sizeof *B->results);
  unsigned nd = 0;
  for (unsigned i = 0; i < nargs; i++) {
    if (args[i].kind != PTO_IVAL_TENSOR) {
      B->dims[nd++] = scalar_bits(&args[i]);
      continue;
    }
    PtoNdArray *a = pto_ndarray_convert(pto_tensor_array(args[i].tensor),
                                        pto_tensor_dtype(args[i].tensor),
                                        (PtoCastMode){PTO_ROUND_RINT, PTO_SAT_WRAP});
    B->arrays[B->ntensors++] = a;
    for (unsigned d = 0; d < a->rank; d++) B->dims[nd++] = a->shape[d];
  }
  B->h.g = pto_graph_create(B->rt);
  B->h.env = (PtoHostEnv){&B->h, cb_add_buffer, cb_submit, cb_alloc,
                          B->ids, B->cycles, B->dims, B->results};
  t0 = pto_now_seconds();
  if (B->c.host(&B->h.env) != 0)
    return run_error(o, "building the task graph failed: %s", pto_runtime_error(B->rt));
  B->t_build = pto_now_seconds() - t0;
  B->bufs = pto_calloc(B->h.sizes.len + 1, sizeof *B->bufs);
  for (uint32_t i = 0; i < B->h.sizes.len; i++)
    B->bufs[i] = i < B->ntensors ? B->arrays[i]->data
                                 : pto_calloc((size_t)B->h.sizes.data[i] + 1, 1);
  for (unsigned i = 0; i < nres; i++)
    if (B->results[i] < 0 || (uint32_t)B->results[i] >= B->h.sizes.len)
      return run_error(o, "the host program returned no buffer for result #%u", i);
  /* --repeat: later runs replay the graph with new buffers (fresh copies
   * of the inputs, new workspaces), which must give the first run's bits */
  uint32_t n = B->h.sizes.len;
  void **keep = NULL;
  if (o->repeat > 1) {
    keep = pto_calloc(B->ntensors + 1, sizeof *keep);
    for (unsigned i = 0; i < B->ntensors; i++) {
      keep[i] = pto_malloc(B->arrays[i]->nbytes + 1);
      memcpy(keep[i], B->arrays[i]->data, B->arrays[i]->nbytes);
    }
  }
  void **cur = B->bufs;
  rc = 0;
  double total = 0;
  for (int64_t r = 0; r < (o->repeat > 1 ? o->repeat : 1) && !rc; r++) {
    if (r > 0) {
      void **next = pto_calloc(n + 1, sizeof *next);
      for (uint32_t i = 0; i < n; i++) {
        next[i] = pto_calloc((size_t)B->h.sizes.data[i] + 1, 1);
        if (i < B->ntensors) memcpy(next[i], keep[i], B->arrays[i]->nbytes);
      }
      free_set(cur, B->bufs, n);
      cur = next;
    }
    t0 = pto_now_seconds();
    if (pto_graph_run(B->h.g, cur, n) != PTO_RT_OK)
      rc = run_error(o, "the run failed: %s", pto_runtime_error(B->rt));
    B->t_last = pto_now_seconds() - t0;
    total += B->t_last;
  }
  B->t_run = total / (o->repeat > 1 ? (double)o->repeat : 1.0);
  for (unsigned i = 0; i < nres && !rc && cur != B->bufs; i++) {
    int32_t b = B->results[i];
    if (memcmp(cur[b], B->bufs[b], (size_t)B->h.sizes.data[b]))
      rc = run_error(o, "result #%u of a replay of the graph differs from the "
                     "first run's", i);
  }
  PtoAttr *fty = pto_op_attr(func, "function_type");
  PtoType *ftype = fty ? pto_attr_type_value(fty) : NULL;
  for (unsigned i = 0; i < nres && !rc; i++) {
    int32_t b = B->results[i];
    if (!make_result(o, pto_type_func_result(ftype, i), cur[b], B->h.sizes.data[b], &res[i]))
      rc = 1;
  }
  free_set(cur, B->bufs, n);
  for (unsigned i = 0; keep && i < B->ntensors; i++) pto_free(keep[i]);
  pto_free(keep);
  return rc;
}

/* --trace, --svg, --report and --stats of a run. */
static int backend_finish(Backend *B, const RunOptions *o) {
  int rc = write_outputs(o, B->h.g);
  if (o->stats) {
    PtoRtGraphStats gs;
    pto_graph_get_stats(B->h.g, &gs);
    fflush(stdout);
    unsigned nk = B->c.nkernels;
    fprintf(stderr, "%s: JIT compile %.1f ms for %u kernels (%.1f ms per kernel); "
            "graph of %llu tasks built in %.3f ms, run in %.3f ms%s",
            o->tool, B->t_compile * 1e3, nk, nk ? B->t_compile * 1e3 / nk : 0.0,
            (unsigned long long)gs.tasks, B->t_build * 1e3, B->t_run * 1e3,
            o->repeat > 1 ? " per run" : "");
    if (o->backend & PTO_RT_HOST)
      fprintf(stderr, "; dispatch share %.1f%% of %u threads (last run)",
              100.0 * dispatch_share(B->h.g, B->t_last * 1e6, pto_runtime_get_threads(B->rt)),
              pto_runtime_get_threads(B->rt));
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
  if (!pipeline && !has_kernels(module)) pipeline = "pto-lower-to-pto";
  if (pipeline && !run_apply_pipeline(ctx, module, pipeline)) return false;
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
  if (probe && !(run_apply_pipeline(ctx, probe, pipeline) && has_kernels(probe)))
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
