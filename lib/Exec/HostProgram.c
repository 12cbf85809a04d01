/* A PTO-level module compiled for the MPMD runtime (include/pto/HostProgram.h):
 * translated to LLVM IR, JIT-compiled, its kernels registered with their
 * cost-model cycles, its host program run to build the task graph, and
 * the graph run on the host's worker threads or the simulator. */
#include "pto/HostProgram.h"

#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/LLVMIR.h"
#include "pto/NdArray.h"
#include "pto/RuntimePlatform.h"

#include "Analysis/CostModel.h"
#include "Support/Alloc.h"
#include "Support/Time.h"
#include "Support/Vec.h"
#include "Transforms/PtoKernel.h"

#include <stdio.h>
#include <string.h>

/* A task of a kernel that can fail: its fault record (pto/LLVMIR.h) in
 * the task's packed operands. */
typedef struct TaskFault {
  int64_t *rec;
  unsigned kernel;
} TaskFault;

/* A task as its launch submitted it, for the dependency dump: the
 * runtime keeps its edges, not the windows they came from. */
typedef struct TaskRec {
  uint64_t id; /* the graph's, which numbers barrier nodes too */
  int32_t kernel;
  uint32_t region0, nregions;
  const char *label; /* a constant of the compiled host program */
  PtoRtTaskDesc desc; /* for a run ahead of the build (its regions: region0) */
} TaskRec;

enum { MAX_HOST_OPERANDS = 8 };

/* A host op of the host function (pto/HostProgram.h): its implementation,
 * the runtime kernel that runs it and what `prepare` took from it. */
typedef struct HostOpSite {
  const PtoHostOpDef *def;
  PtoOp *op;
  int32_t kernel;
  int64_t attrs[PTO_HOST_OP_MAX_ATTRS];
} HostOpSite;

/* One task of a host op: where its operands and result live and with
 * which dims; error is the message of a failed run, read after it. */
typedef struct HostOpTask {
  const HostOpSite *site;
  unsigned nops;
  int32_t bufs[MAX_HOST_OPERANDS + 1]; /* the operands', then the result's */
  PtoDType dts[MAX_HOST_OPERANDS + 1];
  unsigned ranks[MAX_HOST_OPERANDS + 1];
  int64_t dims[MAX_HOST_OPERANDS + 1][PTO_LLVMIR_HOST_OP_DIMS];
  char error[256];
} HostOpTask;

/* Bytes of the guard zones around every buffer in a checked run. */
enum { GUARD_BYTES = 64, GUARD_FILL = 0xa5 };

/* Copies of a run's buffers between guard zones: cp[i] is raw[i] past
 * its leading zone; n buffers have one so far. */
typedef struct Guarded {
  uint8_t **raw;
  void **cp;
  uint32_t n;
} Guarded;

struct PtoHostProgram {
  PtoHostEnv env; /* first: the host program's callbacks get it */
  PtoContext *ctx;
  PtoOp *func;
  PtoJit *own_jit, *jit;
  PtoRuntime *rt;
  PtoRtBackend backend;
  int (*host)(PtoHostEnv *);
  unsigned nkernels, nres, ntensors;
  int32_t *ids;
  uint64_t *cycles;
  /* the graph of the last build and what its host program asked for */
  PtoGraph *g;
  PTO_VEC(int64_t) sizes;   /* bytes of each buffer */
  PTO_VEC(int64_t *) packs; /* the tasks' operand arrays */
  PTO_VEC(uint8_t) written; /* per buffer: some task writes it */
  /* per buffer: the tasks submitted up to its last writer (0: none) */
  PTO_VEC(uint32_t) last_write;
  PtoNdArray **arrays;      /* the tensor arguments' contiguous copies */
  /* per tensor argument a step of the first run (see sync) writes: its
   * copy as the build received it, before the step changed `arrays` */
  PtoNdArray **inputs;
  int64_t *dims;
  int32_t *results;
  int64_t *result_dims;
  void **bufs;
  uint32_t nbufs; /* the buffers bufs holds so far */
  bool refused; /* the runtime refused a task; its diagnostic is out */
  /* per kernel: the pto.kernel and where its tasks' fault records lie
   * (-1: it cannot fail); the records of the graph's tasks */
  PtoOp **kops;
  int64_t *fault_slot;
  PTO_VEC(TaskFault) faults;
  PTO_VEC(TaskRec) tasks;
  PTO_VEC(PtoRtRegion) regions;
  PTO_VEC(const char *) buf_names; /* constants of the host program */
  /* The first run of the graph, begun while it is built: when the host
   * program's control flow reads a GM scalar some task writes
   * (tile.load_scalar), the tasks submitted so far run, on the program's
   * own buffers (or, in a checked run, on `steps`, their guarded copies),
   * and the run on them later resumes with the rest, so that every task
   * runs once (see sync). t_steps: the seconds those steps took. */
  bool resumed;
  uint32_t stepped; /* the tasks submitted when the last step ran */
  uint32_t nsteps;
  Guarded steps;
  double t_steps;
  bool guard;       /* runs check the guard zones around every buffer */
  bool guard_ran;   /* the last run was checked and found clean */
  const PtoHostOpDef *user_hops; /* the options' host ops */
  unsigned num_user_hops, nhops;
  HostOpSite *hops;
  PTO_VEC(HostOpTask *) hop_tasks; /* the graph's host-op tasks */
  double t_compile, t_build;
};

static PtoLoc *loc_of(PtoHostProgram *p) { return pto_op_loc(p->func); }

/* The first launch labelled `label` (or, unlabelled, of the kernel of that
 * name) in the host function, for the location of an error about one of
 * its tasks; the function's own when none matches. */
typedef struct LaunchFind {
  const char *label;
  PtoOp *found;
} LaunchFind;

static PtoWalkResult find_launch(PtoOp *op, void *user) {
  LaunchFind *f = user;
  if (!pto_op_is(op, "block.launch")) return PTO_WALK_ADVANCE;
  const char *label = pto_op_attr_str(op, "label");
  PtoOp *k = pto_block_launch_kernel(op);
  if (!label && k) label = pto_ident_str(pto_op_symbol_name(k));
  if (!label || strcmp(label, f->label)) return PTO_WALK_ADVANCE;
  f->found = op;
  return PTO_WALK_INTERRUPT;
}

static PtoLoc *launch_loc(PtoHostProgram *p, const char *label) {
  LaunchFind f = {label, NULL};
  pto_op_walk(p->func, PTO_WALK_PRE, find_launch, &f);
  return f.found ? pto_op_loc(f.found) : loc_of(p);
}

static int32_t cb_add_buffer(PtoHostEnv *env, int64_t bytes, const char *name) {
  PtoHostProgram *p = (PtoHostProgram *)env;
  int32_t i = pto_graph_add_buffer(p->g, bytes, name);
  if (i >= 0) {
    pto_vec_push(&p->sizes, bytes);
    pto_vec_push(&p->written, 0);
    pto_vec_push(&p->last_write, 0);
    pto_vec_push(&p->buf_names, name);
  }
  return i;
}

static int64_t cb_submit(PtoHostEnv *env, const void *task) {
  PtoHostProgram *p = (PtoHostProgram *)env;
  const PtoRtTaskDesc *d = task;
  int64_t id = pto_graph_submit(p->g, d);
  if (id < 0) {
    /* the runtime checks every window against its buffer: a dynamic dim
     * that puts one outside its tensor stops here, before any run */
    const char *label = d->label && *d->label ? d->label : "?";
    pto_emit_error(p->ctx, launch_loc(p, label),
                   "the launch labelled '%s' cannot run: %s", label,
                   pto_runtime_error(p->rt));
    p->refused = true;
    return id;
  }
  TaskRec rec = {(uint64_t)id, d->kernel, p->regions.len, d->num_regions, d->label, *d};
  pto_vec_push(&p->tasks, rec);
  for (uint32_t i = 0; i < d->num_regions; i++) {
    pto_vec_push(&p->regions, d->regions[i]);
    if (d->regions[i].access != PTO_RT_READ && d->regions[i].buffer < p->written.len) {
      p->written.data[d->regions[i].buffer] = 1;
      p->last_write.data[d->regions[i].buffer] = p->tasks.len;
    }
  }
  for (unsigned k = 0; k < p->nkernels; k++)
    if (p->ids[k] == d->kernel && p->fault_slot[k] >= 0) {
      TaskFault f = {(int64_t *)d->user + p->fault_slot[k], k};
      pto_vec_push(&p->faults, f);
    }
  return id;
}

static int64_t *cb_alloc(PtoHostEnv *env, uint32_t n) {
  PtoHostProgram *p = (PtoHostProgram *)env;
  int64_t *a = pto_calloc(n, sizeof *a);
  pto_vec_push(&p->packs, a);
  return a;
}

static bool report_fault(PtoHostProgram *p);

/* Storage for the buffers declared so far: a tensor argument's is its
 * contiguous copy, a workspace's a zeroed allocation. */
static void ensure_bufs(PtoHostProgram *p) {
  uint32_t n = p->sizes.len;
  if (n <= p->nbufs && p->bufs) return;
  p->bufs = pto_realloc(p->bufs, (n + 1) * sizeof *p->bufs);
  for (uint32_t i = p->nbufs; i < n; i++)
    p->bufs[i] = i < p->ntensors ? p->arrays[i]->data
                                 : pto_calloc((size_t)p->sizes.data[i] + 1, 1);
  p->bufs[n] = NULL;
  p->nbufs = n;
}

/* Guarded copies of the buffers from G->n on, with the contents of bufs. */
static void guard_extend(PtoHostProgram *p, Guarded *G, void *const *bufs) {
  uint32_t n = p->sizes.len;
  if (n <= G->n && G->cp) return;
  G->raw = pto_realloc(G->raw, (n + 1) * sizeof *G->raw);
  G->cp = pto_realloc(G->cp, (n + 1) * sizeof *G->cp);
  for (uint32_t i = G->n; i < n; i++) {
    size_t size = (size_t)p->sizes.data[i];
    G->raw[i] = pto_malloc(size + 2 * GUARD_BYTES);
    memset(G->raw[i], GUARD_FILL, size + 2 * GUARD_BYTES);
    G->cp[i] = G->raw[i] + GUARD_BYTES;
    memcpy(G->cp[i], bufs[i], size);
  }
  G->raw[n] = NULL;
  G->cp[n] = NULL;
  G->n = n;
}

static void guard_free(Guarded *G) {
  for (uint32_t i = 0; i < G->n; i++) pto_free(G->raw[i]);
  pto_free(G->raw);
  pto_free(G->cp);
  memset(G, 0, sizeof *G);
}

/* Runs the tasks submitted since the last step, so that the host program
 * reads what they wrote. Rather than running them apart, on copies of the
 * buffers, and all of them again when the graph runs, each step continues
 * the graph's one run (pto_graph_resume) on the program's own buffers (a
 * checked run's guarded copies of them), and the run on those buffers
 * resumes with what the program submits after its last read. So every
 * task runs once, the runtime's timeline, trace and report show each
 * task once, with the host program's waits between the steps, and the
 * simulator models those waits. (A streaming run, dispatching tasks while
 * the program submits them, would overlap building and running too, but
 * a host program declares buffers as it goes, which a running graph does
 * not take.) */
static PtoResult sync(PtoHostProgram *p) {
  ensure_bufs(p);
  void *const *on = p->bufs;
  if (p->guard || p->steps.n) {
    guard_extend(p, &p->steps, p->bufs);
    on = p->steps.cp;
  }
  /* the arguments a step writes in place keep their inputs for replays */
  for (unsigned i = 0; on == p->bufs && i < p->ntensors && i < p->written.len; i++)
    if (p->written.data[i] && !p->inputs[i])
      p->inputs[i] = pto_ndarray_convert(p->arrays[i], p->arrays[i]->dtype,
                                         (PtoCastMode){PTO_ROUND_RINT, PTO_SAT_WRAP});
  p->resumed = true;
  double t0 = pto_now_seconds();
  PtoRtStatus st = pto_graph_resume(p->g, on, p->sizes.len);
  p->t_steps += pto_now_seconds() - t0;
  p->stepped = p->tasks.len;
  p->nsteps++;
  if (st == PTO_RT_OK) return PTO_SUCCESS;
  if (!report_fault(p))
    pto_emit_error(p->ctx, loc_of(p), "running the tasks a load_scalar waits for failed: %s",
                   pto_runtime_error(p->rt));
  return PTO_FAILURE;
}

/* The buffers as the steps so far left them: the program's own, or the
 * guarded copies the steps of a checked run ran on. */
static void *const *stepped_bufs(PtoHostProgram *p) {
  ensure_bufs(p);
  if (!p->steps.n) return p->bufs;
  guard_extend(p, &p->steps, p->bufs);
  return p->steps.cp;
}

/* PtoHostEnv.read_scalar: an element of a GM tensor for the host program's
 * control flow. A tensor some task submitted since the last step writes
 * is read after the tasks submitted so far have run (a step of the
 * graph's first run); one the earlier steps wrote, or a workspace no task
 * wrote yet, as the steps left it (a step costs the runtime's work on the
 * whole graph, so reads need not cost one each); an argument no task
 * writes, from its copy. */
static int64_t cb_read_scalar(PtoHostEnv *env, int64_t *req) {
  PtoHostProgram *p = (PtoHostProgram *)env;
  int64_t buf = req[0], rank = req[3];
  PtoDType dt = (PtoDType)req[1];
  PtoOp *op = pto_llvmir_load_scalar_op(p->func, (unsigned)req[2]);
  PtoLoc *loc = op ? pto_op_loc(op) : loc_of(p);
  const int64_t *idx = req + 4, *dims = req + 4 + rank;
  int64_t at = 0;
  for (int64_t d = 0; d < rank; d++) {
    if (idx[d] < 0 || idx[d] >= dims[d]) {
      pto_emit_error(p->ctx, loc, "'tile.load_scalar' op index %lld is out of range for dim "
                     "%lld of size %lld at run time", (long long)idx[d], (long long)d,
                     (long long)dims[d]);
      p->refused = true;
      return -1;
    }
    at = at * dims[d] + idx[d];
  }
  size_t esize = pto_dtype_size(dt);
  if (buf < 0 || (uint64_t)buf >= p->sizes.len ||
      (at + 1) * (int64_t)esize > p->sizes.data[buf]) {
    pto_emit_error(p->ctx, loc, "'tile.load_scalar' op reads past its buffer");
    p->refused = true;
    return -1;
  }
  const void *data;
  if (p->written.data[buf] || (uint64_t)buf >= p->ntensors) {
    if (p->last_write.data[buf] > p->stepped && sync(p)) {
      p->refused = true;
      return -1;
    }
    data = stepped_bufs(p)[buf];
  } else {
    data = p->arrays[buf]->data;
  }
  req[4 + 2 * rank] = pto_dtype_load_i64(dt, data, at);
  return 0;
}

/* The runtime kernel of every host op: views of the task's buffers, then
 * the op's own run. */
static int host_op_task(const PtoRtTaskArgs *args) {
  HostOpTask *t = args->user;
  PtoNdArray views[MAX_HOST_OPERANDS + 1];
  for (unsigned i = 0; i <= t->nops; i++) {
    PtoNdArray *v = &views[i];
    memset(v, 0, sizeof *v);
    v->dtype = t->dts[i];
    v->rank = t->ranks[i];
    int64_t n = 1;
    for (unsigned d = v->rank; d-- > 0;) {
      v->shape[d] = t->dims[i][d];
      v->strides[d] = n;
      n *= v->shape[d];
    }
    v->data = args->buffers[t->bufs[i]];
    v->nbytes = (size_t)n * pto_dtype_size(v->dtype);
  }
  PtoHostOpCall call = {views, t->nops, &views[t->nops], t->site->attrs, t->error,
                        sizeof t->error};
  t->error[0] = 0;
  int rc = t->site->def->run(&call);
  if (rc && !t->error[0]) snprintf(t->error, sizeof t->error, "failed (status %d)", rc);
  return rc;
}

/* PtoHostEnv.host_op: the result's buffer, and the op's task reading its
 * operands' buffers whole and writing the result's. */
static int64_t cb_host_op(PtoHostEnv *env, int64_t *req) {
  PtoHostProgram *p = (PtoHostProgram *)env;
  int64_t site = req[0], nops = req[1];
  if (site < 0 || (uint64_t)site >= p->nhops || nops < 0 ||
      (uint64_t)nops != pto_op_num_operands(p->hops[site].op)) {
    pto_emit_error(p->ctx, loc_of(p), "the host program asked for host op %lld, which it "
                   "does not have", (long long)site);
    p->refused = true;
    return -1;
  }
  const HostOpSite *hs = &p->hops[site];
  HostOpTask *t = pto_calloc(1, sizeof *t);
  pto_vec_push(&p->hop_tasks, t);
  t->site = hs;
  t->nops = (unsigned)nops;
  PtoRtRegion regions[MAX_HOST_OPERANDS + 1];
  int64_t moved = 0;
  for (unsigned i = 0; i <= t->nops; i++) {
    PtoType *ty = pto_value_type(i < t->nops ? pto_op_operand(hs->op, i) : pto_op_result(hs->op, 0));
    if (!pto_dtype_from_type(pto_type_tensor_elem(ty), &t->dts[i])) t->dts[i] = PTO_DT_BOOL;
    t->ranks[i] = pto_type_tensor_rank(ty);
    int64_t bytes = (int64_t)pto_dtype_size(t->dts[i]);
    for (unsigned d = 0; d < t->ranks[i]; d++) {
      t->dims[i][d] = i < t->nops ? req[2 + i * (2 + PTO_LLVMIR_HOST_OP_DIMS) + 2 + d]
                                  : pto_type_tensor_dim(ty, d);
      bytes *= t->dims[i][d];
    }
    int64_t buf = i < t->nops ? req[2 + i * (2 + PTO_LLVMIR_HOST_OP_DIMS)]
                              : cb_add_buffer(env, bytes, pto_op_name_str(hs->op));
    if (buf < 0 || (uint64_t)buf >= p->sizes.len || bytes > p->sizes.data[buf]) {
      pto_emit_error(p->ctx, pto_op_loc(hs->op), "'%s' op has no buffer for %s #%u",
                     pto_op_name_str(hs->op), i < t->nops ? "operand" : "result",
                     i < t->nops ? i : 0);
      p->refused = true;
      return -1;
    }
    t->bufs[i] = (int32_t)buf;
    regions[i] = (PtoRtRegion){(uint32_t)buf, 0, bytes, i < t->nops ? PTO_RT_READ : PTO_RT_WRITE};
    moved += bytes;
  }
  const char *label = pto_op_attr_str(hs->op, "label");
  PtoRtTaskDesc d = {.kernel = hs->kernel,
                     .regions = regions,
                     .num_regions = t->nops + 1,
                     .label = label ? label : pto_op_name_str(hs->op),
                     .user = t,
                     .gm_bytes = (uint64_t)moved};
  if (cb_submit(env, &d) < 0) return -1;
  return t->bufs[t->nops];
}

static const PtoHostOpDef *find_host_op(PtoHostProgram *p, const char *name) {
  for (unsigned i = 0; i < p->num_user_hops; i++)
    if (!strcmp(p->user_hops[i].name, name)) return &p->user_hops[i];
  unsigned n = 0;
  const PtoHostOpDef *lib = pto_host_ops_builtin(&n);
  for (unsigned i = 0; i < n; i++)
    if (!strcmp(lib[i].name, name)) return &lib[i];
  return NULL;
}

/* Each host op of the host function: its implementation, prepared, and
 * a runtime kernel of its own (its name in the swimlanes). */
static PtoResult add_host_ops(PtoHostProgram *p) {
  unsigned n = 0;
  while (pto_llvmir_host_op_op(p->func, n)) n++;
  p->hops = pto_calloc(n ? n : 1, sizeof *p->hops);
  for (unsigned i = 0; i < n; i++) {
    HostOpSite *hs = &p->hops[i];
    hs->op = pto_llvmir_host_op_op(p->func, i);
    if (pto_op_num_operands(hs->op) > MAX_HOST_OPERANDS)
      return pto_op_emit_error(hs->op, "has %u operands; a host op takes at most %d",
                               pto_op_num_operands(hs->op), MAX_HOST_OPERANDS);
    hs->def = find_host_op(p, pto_op_name_str(hs->op));
    if (!hs->def || !hs->def->run)
      return pto_op_emit_error(hs->op, "has no PTO form and no host-op implementation "
                               "(PtoHostOpDef) to run it as a task of the host program");
    if (hs->def->prepare && hs->def->prepare(hs->op, hs->attrs)) return PTO_FAILURE;
    hs->kernel = pto_runtime_add_kernel(p->rt, host_op_task, PTO_RT_CORE_AIV,
                                        pto_op_name_str(hs->op));
    if (hs->kernel < 0)
      return pto_emit_error(p->ctx, pto_op_loc(hs->op), "%s", pto_runtime_error(p->rt));
    p->nhops++;
  }
  return PTO_SUCCESS;
}

/* Translates and compiles the module; registers each kernel's task entry
 * with the runtime and its cost model cycles. */
static PtoResult compile(PtoHostProgram *p, PtoOp *module, const PtoPlatform *plat) {
  PtoError err;
  unsigned lanes = strcmp(pto_jit_get_vector_isa(p->jit), "avx512f") ? 8 : 16;
  char *ll = NULL;
  /* the platform's buffers: the runtime gives each core an image of them */
  PtoTranslateOptions topts = {.lanes = lanes, .x86 = pto_llvmir_host_is_x86()};
  for (unsigned s = 0; s < PTO_MEM_SPACE_COUNT; s++)
    topts.buffer_bytes[s] = plat->buffers[s].size_bytes;
  if (pto_translate_to_llvmir_with(module, &topts, &ll) != PTO_SUCCESS) return PTO_FAILURE;
  PtoJitModule *mod = pto_jit_compile(p->jit, ll, strlen(ll), &err);
  pto_free(ll);
  if (!mod) return pto_emit_error(p->ctx, loc_of(p), "the JIT failed: %s", err.msg);
  p->host = (int (*)(PtoHostEnv *))(uintptr_t)pto_jit_module_lookup(
      mod, pto_ident_str(pto_op_symbol_name(p->func)), &err);
  if (!p->host) return pto_emit_error(p->ctx, loc_of(p), "%s", err.msg);
  PtoPtoPassState st;
  memset(&st, 0, sizeof st);
  st.platform = *plat;
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  unsigned n = 0;
  for (PtoOp *op = pto_block_first_op(top); op; op = pto_op_next(op))
    n += pto_pto_op_id(op) == PTO_PTO_KERNEL;
  p->ids = pto_calloc(n ? n : 1, sizeof *p->ids);
  p->cycles = pto_calloc(n ? n : 1, sizeof *p->cycles);
  p->kops = pto_calloc(n ? n : 1, sizeof *p->kops);
  p->fault_slot = pto_calloc(n ? n : 1, sizeof *p->fault_slot);
  n = 0;
  for (PtoOp *op = pto_block_first_op(top); op; op = pto_op_next(op)) {
    if (pto_pto_op_id(op) != PTO_PTO_KERNEL) continue;
    const char *name = pto_ident_str(pto_op_symbol_name(op));
    char entry[256];
    snprintf(entry, sizeof entry, "%s__task", name);
    PtoRtKernelFn fn = (PtoRtKernelFn)(uintptr_t)pto_jit_module_lookup(mod, entry, &err);
    if (!fn) return pto_emit_error(p->ctx, pto_op_loc(op), "%s", err.msg);
    bool cube = pto_block_kernel_core(op) == PTO_BLOCK_CORE_CUBE;
    p->ids[n] = pto_runtime_add_kernel(p->rt, fn, cube ? PTO_RT_CORE_AIC : PTO_RT_CORE_AIV, name);
    if (p->ids[n] < 0) return pto_emit_error(p->ctx, pto_op_loc(op), "%s", pto_runtime_error(p->rt));
    PtoPipeTimes t;
    if (pto_pto_kernel_cost(op, "host-program", &st, &t) != PTO_SUCCESS) return PTO_FAILURE;
    p->kops[n] = op;
    p->fault_slot[n] = pto_llvmir_kernel_fault_slot(op);
    p->cycles[n++] = t.total;
  }
  p->nkernels = n;
  return add_host_ops(p);
}

/* Whether some instruction of the kernel writes its argument `arg`. */
static bool kernel_writes_arg(PtoOp *kernel, unsigned arg) {
  PtoBlock *body = pto_region_first_block(pto_op_region(kernel, 0));
  if (!body || arg >= pto_block_num_args(body)) return false;
  for (PtoUse *u = pto_value_first_use(pto_block_arg(body, arg)); u; u = pto_use_next(u))
    if (pto_pto_operand_access(pto_use_owner(u), pto_use_operand_index(u)) ==
        PTO_PTO_ACCESS_GM_WRITE)
      return true;
  return false;
}

/* A launch that declares a tensor written while its kernel stores nothing
 * into it means a lowering lost the op that computed it: refused here
 * rather than run to leave the tensor unchanged. */
static PtoWalkResult check_launch_writes(PtoOp *op, void *user) {
  bool *ok = user;
  if (!pto_op_is(op, "block.launch")) return PTO_WALK_ADVANCE;
  PtoOp *k = pto_block_launch_kernel(op);
  if (!k) return PTO_WALK_ADVANCE;
  for (unsigned i = 0, n = pto_block_launch_num_regions(op, true); i < n; i++) {
    PtoBlockRegion r;
    if (!pto_block_launch_region(op, true, i, &r) || kernel_writes_arg(k, r.operand)) continue;
    const char *label = pto_op_attr_str(op, "label");
    pto_op_emit_error(op, "the launch%s%s%s declares operand #%u written, but kernel @%s "
                      "stores nothing into it: an op of it was lost on the way to PTO",
                      label ? " labelled '" : "", label ? label : "", label ? "'" : "",
                      r.operand, pto_ident_str(pto_op_symbol_name(k)));
    *ok = false;
    return PTO_WALK_INTERRUPT;
  }
  return PTO_WALK_ADVANCE;
}

PtoHostProgram *pto_host_program_create(PtoContext *ctx, PtoOp *module, PtoOp *func,
                                        const PtoHostProgramOptions *opts) {
  bool ok = true;
  pto_op_walk(func, PTO_WALK_PRE, check_launch_writes, &ok);
  if (!ok) return NULL;
  PtoHostProgram *p = pto_calloc(1, sizeof *p);
  p->ctx = ctx;
  p->func = func;
  p->backend = opts && opts->backend ? opts->backend : PTO_RT_HOST;
  if (opts) {
    p->user_hops = opts->host_ops;
    p->num_user_hops = opts->host_ops ? opts->num_host_ops : 0;
  }
  PtoPlatform plat;
  PtoPlatformError perr;
  if (opts && opts->platform) {
    plat = *opts->platform;
  } else if (!pto_platform_load(&plat, PTO_PLATFORM_DEFAULT, &perr)) {
    pto_emit_error(ctx, loc_of(p), "cannot load the default platform");
    pto_host_program_destroy(p);
    return NULL;
  }
  PtoError err;
  p->jit = opts && opts->jit ? opts->jit : (p->own_jit = pto_jit_create(NULL, &err));
  if (!p->jit) {
    pto_emit_error(ctx, loc_of(p), "cannot JIT on this host: %s", err.msg);
    pto_host_program_destroy(p);
    return NULL;
  }
  PtoRtPlatform rplat;
  pto_rt_platform_convert(&rplat, &plat);
  PtoRtOptions ropts = {p->backend, 0, 1};
  char rerr[256];
  p->rt = pto_runtime_create(&rplat, &ropts, rerr, sizeof rerr);
  if (!p->rt) {
    pto_emit_error(ctx, loc_of(p), "cannot start the runtime: %s", rerr);
    pto_host_program_destroy(p);
    return NULL;
  }
  PtoAttr *fty = pto_op_attr(func, "function_type");
  p->nres = fty ? pto_type_func_num_results(pto_attr_type_value(fty)) : 0;
  double t0 = pto_now_seconds();
  if (compile(p, module, &plat)) {
    pto_host_program_destroy(p);
    return NULL;
  }
  p->t_compile = pto_now_seconds() - t0;
  return p;
}

/* Drops the graph of the last build and everything made for it. */
static void release_graph(PtoHostProgram *p) {
  for (uint32_t i = p->ntensors; p->bufs && i < p->nbufs; i++) pto_free(p->bufs[i]);
  pto_free(p->bufs);
  p->bufs = NULL;
  p->nbufs = 0;
  guard_free(&p->steps);
  p->resumed = false;
  p->stepped = 0;
  p->nsteps = 0;
  p->t_steps = 0;
  for (uint32_t i = 0; i < p->packs.len; i++) pto_free(p->packs.data[i]);
  p->packs.len = 0;
  p->faults.len = 0;
  for (uint32_t i = 0; i < p->hop_tasks.len; i++) pto_free(p->hop_tasks.data[i]);
  p->hop_tasks.len = 0;
  p->tasks.len = 0;
  p->regions.len = 0;
  p->buf_names.len = 0;
  p->guard_ran = false;
  p->sizes.len = 0;
  p->written.len = 0;
  p->last_write.len = 0;
  if (p->g) pto_graph_destroy(p->g);
  p->g = NULL;
  for (unsigned i = 0; i < p->ntensors; i++) {
    pto_ndarray_destroy(p->arrays[i]);
    if (p->inputs) pto_ndarray_destroy(p->inputs[i]);
  }
  pto_free(p->arrays);
  pto_free(p->inputs);
  p->arrays = NULL;
  p->inputs = NULL;
  p->ntensors = 0;
  pto_free(p->dims);
  pto_free(p->results);
  pto_free(p->result_dims);
  p->dims = NULL;
  p->results = NULL;
  p->result_dims = NULL;
}

void pto_host_program_destroy(PtoHostProgram *p) {
  if (!p) return;
  release_graph(p);
  pto_vec_free(&p->packs);
  pto_vec_free(&p->faults);
  pto_vec_free(&p->hop_tasks);
  pto_free(p->hops);
  pto_vec_free(&p->tasks);
  pto_vec_free(&p->regions);
  pto_vec_free(&p->buf_names);
  pto_free(p->kops);
  pto_free(p->fault_slot);
  pto_vec_free(&p->sizes);
  pto_vec_free(&p->written);
  pto_vec_free(&p->last_write);
  pto_free(p->ids);
  pto_free(p->cycles);
  if (p->rt) pto_runtime_destroy(p->rt);
  if (p->own_jit) pto_jit_destroy(p->own_jit);
  pto_free(p);
}

/* A scalar argument as the host program reads it from PtoHostEnv.dims:
 * an integer's value, a float's bits in its own type. */
static int64_t scalar_bits(const PtoInterpValue *v) {
  if (!pto_dtype_is_float(v->dtype)) return v->i;
  int64_t bits = 0; /* little-endian: the low bytes hold the value */
  pto_dtype_store_f64(v->dtype, &bits, 0, v->f);
  return bits;
}

/* The type of result i, or NULL. */
static PtoType *result_type(PtoHostProgram *p, unsigned i) {
  PtoAttr *fty = pto_op_attr(p->func, "function_type");
  return fty && i < p->nres ? pto_type_func_result(pto_attr_type_value(fty), i) : NULL;
}
static bool result_is_scalar(PtoHostProgram *p, unsigned i) {
  PtoType *ty = result_type(p, i);
  return ty && !pto_type_is_tensor(ty);
}

PtoResult pto_host_program_build(PtoHostProgram *p, const PtoInterpValue *args,
                                 unsigned nargs) {
  release_graph(p);
  p->arrays = pto_calloc(nargs ? nargs : 1, sizeof *p->arrays);
  p->inputs = pto_calloc(nargs ? nargs : 1, sizeof *p->inputs);
  p->dims = pto_calloc(nargs * PTO_MAX_RANK + 1, sizeof *p->dims);
  p->results = pto_calloc(p->nres ? p->nres : 1, sizeof *p->results);
  p->result_dims = pto_calloc((p->nres ? p->nres : 1) * PTO_MAX_RANK, sizeof *p->result_dims);
  for (unsigned i = 0; i < p->nres; i++) p->results[i] = -1;
  unsigned nd = 0;
  for (unsigned i = 0; i < nargs; i++) {
    if (args[i].kind != PTO_IVAL_TENSOR) {
      p->dims[nd++] = scalar_bits(&args[i]);
      continue;
    }
    PtoNdArray *a = pto_ndarray_convert(pto_tensor_array(args[i].tensor),
                                        pto_tensor_dtype(args[i].tensor),
                                        (PtoCastMode){PTO_ROUND_RINT, PTO_SAT_WRAP});
    p->arrays[p->ntensors++] = a;
    for (unsigned d = 0; d < a->rank; d++) p->dims[nd++] = a->shape[d];
  }
  p->g = pto_graph_create(p->rt);
  p->env = (PtoHostEnv){p,        cb_add_buffer, cb_submit,  cb_alloc,         p->ids,
                        p->cycles, p->dims,      p->results, p->result_dims, cb_read_scalar, cb_host_op};
  p->refused = false;
  double t0 = pto_now_seconds();
  int rc = p->host(&p->env);
  /* the steps of the first run it waited for are that run's time */
  p->t_build = pto_now_seconds() - t0 - p->t_steps;
  if (rc == PTO_HOST_DIVISION_BY_ZERO)
    return pto_emit_error(p->ctx, loc_of(p), "building the task graph failed: the host "
                          "program's index arithmetic divides by zero (or the smallest "
                          "integer by -1) for these shapes and arguments");
  if (rc != 0 || p->refused) {
    if (!p->refused)
      pto_emit_error(p->ctx, loc_of(p), "building the task graph failed: %s",
                     pto_runtime_error(p->rt));
    return PTO_FAILURE;
  }
  if (p->sizes.len < p->ntensors)
    return pto_emit_error(p->ctx, loc_of(p), "the host program declared %u buffers for %u "
                          "tensor arguments", p->sizes.len, p->ntensors);
  ensure_bufs(p);
  for (unsigned i = 0; i < p->nres; i++)
    if (!result_is_scalar(p, i) && (p->results[i] < 0 || (uint32_t)p->results[i] >= p->sizes.len))
      return pto_emit_error(p->ctx, loc_of(p),
                            "the host program returned no buffer for result #%u", i);
  return PTO_SUCCESS;
}

/* A run a host op's task stopped: its message as an error at the op. */
static bool report_host_op_error(PtoHostProgram *p) {
  for (uint32_t i = 0; i < p->hop_tasks.len; i++) {
    HostOpTask *t = p->hop_tasks.data[i];
    if (!t->error[0]) continue;
    PtoOp *op = t->site->op;
    PtoDiag *d = pto_diag_begin(p->ctx, PTO_DIAG_ERROR, pto_op_loc(op));
    pto_diag_printf(d, "'%s' op %s", pto_op_name_str(op), t->error);
    pto_diag_note(d, loc_of(p), "the compiled run stopped there: %s", pto_runtime_error(p->rt));
    pto_diag_emit(d);
    for (uint32_t j = 0; j < p->hop_tasks.len; j++) p->hop_tasks.data[j]->error[0] = 0;
    return true;
  }
  return false;
}

/* A run a kernel stopped with a fault: the interpreter's error at the
 * instruction, from the first task (in submission order) that recorded
 * one, and the runtime's account of the stop as a note. The records are
 * cleared for the next run of the graph. Else a host op's failure; false
 * when no task recorded either. */
static bool report_fault(PtoHostProgram *p) {
  const int64_t *rec = NULL;
  PtoOp *op = NULL;
  for (uint32_t i = 0; i < p->faults.len; i++) {
    TaskFault *f = &p->faults.data[i];
    if (!f->rec[PTO_LLVMIR_FAULT_SITE]) continue;
    if (!rec) {
      rec = f->rec;
      op = pto_llvmir_fault_op(p->kops[f->kernel], rec[PTO_LLVMIR_FAULT_SITE]);
    }
  }
  if (!rec) return report_host_op_error(p);
  PtoDiag *d = pto_diag_begin(p->ctx, PTO_DIAG_ERROR, op ? pto_op_loc(op) : loc_of(p));
  if (op) pto_diag_printf(d, "'%s' op ", pto_op_name_str(op));
  /* the position as the interpreter names it: in the tile's N-D shape */
  int64_t pos[PTO_MAX_RANK] = {rec[PTO_LLVMIR_FAULT_ROW], rec[PTO_LLVMIR_FAULT_COL]};
  unsigned npos = op ? pto_pto_index_position(op, pos[0], pos[1], pos) : 2;
  char at[PTO_SHAPE_STR_MAX];
  pto_diag_printf(d, "index %lld at position %s is out of range [0, %lld) for dim %lld",
                  (long long)rec[PTO_LLVMIR_FAULT_INDEX], pto_shape_str(at, npos, pos),
                  (long long)rec[PTO_LLVMIR_FAULT_BOUND],
                  (long long)(op ? pto_op_attr_int(op, "dim", 0) : 0));
  pto_diag_note(d, loc_of(p), "the compiled run stopped there: %s", pto_runtime_error(p->rt));
  pto_diag_emit(d);
  for (uint32_t i = 0; i < p->faults.len; i++)
    memset(p->faults.data[i].rec, 0, PTO_LLVMIR_FAULT_SLOTS * sizeof(int64_t));
  return true;
}

/* A run of the graph on bufs, or, with `resume`, the end of the run its
 * build began on them (the tasks after its last step). */
static PtoResult run_graph(PtoHostProgram *p, void *const *bufs, bool resume) {
  PtoRtStatus st = resume ? pto_graph_resume(p->g, bufs, p->sizes.len)
                          : pto_graph_run(p->g, bufs, p->sizes.len);
  if (st == PTO_RT_OK) return PTO_SUCCESS;
  if (report_fault(p)) return PTO_FAILURE;
  return pto_emit_error(p->ctx, loc_of(p), "the run failed: %s", pto_runtime_error(p->rt));
}

/* The first byte of a guard zone a run changed: its distance before the
 * buffer (negative) or from its start (>= size); 0 when both are intact. */
static int64_t guard_hit(const uint8_t *data, int64_t size) {
  for (int64_t i = 0; i < GUARD_BYTES; i++)
    if (data[i - GUARD_BYTES] != GUARD_FILL) return i - GUARD_BYTES;
  for (int64_t i = 0; i < GUARD_BYTES; i++)
    if (data[size + i] != GUARD_FILL) return size + i;
  return 0;
}

/* The run on copies of the buffers with guard zones on both sides, which
 * a kernel's GM store past either end of its buffer changes (a store
 * inside the buffer but outside the launch's window goes unseen: it is
 * the windows the runtime orders by): the copies go back
 * to `bufs` after the run, whatever it found. With `resume`, the copies
 * are those the build's steps ran on (G), extended to the later buffers. */
static PtoResult run_guarded(PtoHostProgram *p, void *const *bufs, Guarded *G, bool resume) {
  uint32_t n = p->sizes.len;
  guard_extend(p, G, bufs);
  void **cp = G->cp;
  PtoResult r = run_graph(p, cp, resume);
  for (uint32_t i = 0; i < n; i++) {
    int64_t at = guard_hit(cp[i], p->sizes.data[i]);
    if (at && r == PTO_SUCCESS) {
      PtoDiag *d = pto_diag_begin(p->ctx, PTO_DIAG_ERROR, loc_of(p));
      pto_diag_printf(d, "the GM check found byte %lld of buffer '%s' (%lld bytes) written: "
                      "a kernel stored outside its buffer",
                      (long long)at, p->buf_names.data[i] ? p->buf_names.data[i] : "?",
                      (long long)p->sizes.data[i]);
      for (uint32_t t = 0; t < p->tasks.len; t++) {
        const TaskRec *tr = &p->tasks.data[t];
        for (uint32_t k = 0; k < tr->nregions; k++) {
          const PtoRtRegion *rg = &p->regions.data[tr->region0 + k];
          if (rg->buffer == i && rg->access != PTO_RT_READ) {
            pto_diag_note(d, launch_loc(p, tr->label ? tr->label : ""),
                          "task %u (launch '%s') writes that buffer", t,
                          tr->label ? tr->label : "?");
            break;
          }
        }
      }
      pto_diag_emit(d);
      r = PTO_FAILURE;
    }
    memcpy(bufs[i], cp[i], (size_t)p->sizes.data[i]);
  }
  guard_free(G);
  p->guard_ran = r == PTO_SUCCESS;
  return r;
}

/* A whole run of the graph on bufs, checked when asked. */
static PtoResult run_all(PtoHostProgram *p, void *const *bufs) {
  Guarded G = {0};
  return p->guard ? run_guarded(p, bufs, &G, false) : run_graph(p, bufs, false);
}

/* The end of the run the build began on the program's own buffers. */
static PtoResult finish_steps(PtoHostProgram *p) {
  p->resumed = false;
  return p->steps.n ? run_guarded(p, p->bufs, &p->steps, true)
                    : run_graph(p, p->bufs, true);
}

PtoResult pto_host_program_run(PtoHostProgram *p, void *const *bufs) {
  if (!p->g) return pto_emit_error(p->ctx, loc_of(p), "no task graph was built");
  if (!bufs || bufs == p->bufs) return p->resumed ? finish_steps(p) : run_all(p, p->bufs);
  /* a run on other buffers (a replay) after the program's own run ends */
  if (p->resumed && finish_steps(p)) return PTO_FAILURE;
  return run_all(p, bufs);
}

void pto_host_program_set_gm_check(PtoHostProgram *p, bool on) { p->guard = on; }

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static const char *kernel_name(PtoHostProgram *p, int32_t id) {
  for (unsigned k = 0; k < p->nkernels; k++)
    if (p->ids[k] == id) return pto_ident_str(pto_op_symbol_name(p->kops[k]));
  return "?";
}

/* The tasks (not barrier nodes) a task waits for: its direct
 * predecessors, with each barrier node replaced by the tasks it stands
 * for. */
typedef PTO_VEC(uint64_t) IdVec;

static void task_preds(PtoHostProgram *p, uint64_t id, IdVec *out, IdVec *stack) {
  out->len = 0;
  stack->len = 0;
  pto_vec_push(stack, id);
  while (stack->len) {
    uint64_t t = pto_vec_pop(stack);
    uint32_t n = pto_graph_get_preds(p->g, t, NULL, 0);
    pto_vec_reserve(stack, stack->len + n);
    uint64_t *at = stack->data + stack->len;
    pto_graph_get_preds(p->g, t, at, n);
    for (uint32_t i = 0; i < n; i++) {
      uint64_t q = at[i];
      if (pto_graph_is_barrier(p->g, q)) pto_vec_push(stack, q);
      else pto_vec_push(out, q);
    }
  }
}

PtoResult pto_host_program_write_dependencies(PtoHostProgram *p, const char *path) {
  const PtoRtTimeline *tl = p->g ? pto_graph_get_timeline(p->g, PTO_RT_HOST) : NULL;
  if (!tl) tl = pto_host_program_timeline(p);
  if (!tl) return pto_emit_error(p->ctx, loc_of(p), "the runtime recorded no run to dump");
  FILE *f = fopen(path, "w");
  if (!f) return pto_emit_error(p->ctx, loc_of(p), "could not write the dependency dump '%s'", path);
  static const char *const access[] = {"", "read", "write", "read_write"};
  PtoRtGraphStats st;
  pto_graph_get_stats(p->g, &st);
  fprintf(f, "{\n  \"timeline\": \"%s\",\n  \"gm_check\": %s,\n  \"buffers\": [",
          tl == pto_graph_get_timeline(p->g, PTO_RT_HOST) ? "host" : "sim",
          p->guard_ran ? "\"clean\"" : "null");
  for (uint32_t i = 0; i < p->sizes.len; i++) {
    fprintf(f, "%s\n    {\"index\": %u, \"name\": ", i ? "," : "", i);
    json_str(f, p->buf_names.data[i]);
    fprintf(f, ", \"bytes\": %lld}", (long long)p->sizes.data[i]);
  }
  fprintf(f, "\n  ],\n  \"barriers\": %llu,\n  \"edges\": %llu,\n  \"tasks\": [",
          (unsigned long long)st.barriers, (unsigned long long)st.edges);
  IdVec preds = {0}, stack = {0};
  uint64_t violations = 0;
  /* graph id -> position in submission order */
  uint64_t nids = p->tasks.len ? p->tasks.data[p->tasks.len - 1].id + 1 : 1;
  uint32_t *pos = pto_calloc(nids, sizeof *pos);
  for (uint32_t t = 0; t < p->tasks.len; t++) pos[p->tasks.data[t].id] = t;
  for (uint32_t t = 0; t < p->tasks.len; t++) {
    const TaskRec *tr = &p->tasks.data[t];
    PtoRtTaskTimes me;
    bool ran = pto_timeline_get_task(tl, tr->id, &me);
    fprintf(f, "%s\n    {\"id\": %u, \"kernel\": ", t ? "," : "", t);
    json_str(f, kernel_name(p, tr->kernel));
    fputs(", \"label\": ", f);
    json_str(f, tr->label);
    fputs(", \"regions\": [", f);
    for (uint32_t k = 0; k < tr->nregions; k++) {
      const PtoRtRegion *rg = &p->regions.data[tr->region0 + k];
      fprintf(f, "%s{\"buffer\": %u, \"offset\": %lld, \"bytes\": %lld, \"access\": \"%s\"}",
              k ? ", " : "", rg->buffer, (long long)rg->offset, (long long)rg->size,
              access[rg->access & 3]);
    }
    fputs("], \"waits_for\": [", f);
    task_preds(p, tr->id, &preds, &stack);
    uint64_t late = 0;
    for (uint32_t k = 0; k < preds.len; k++) {
      PtoRtTaskTimes pt;
      fprintf(f, "%s%u", k ? ", " : "", preds.data[k] < nids ? pos[preds.data[k]] : 0);
      if (ran && pto_timeline_get_task(tl, preds.data[k], &pt) && pt.end > me.start) late++;
    }
    fputc(']', f);
    if (ran) fprintf(f, ", \"start_us\": %.3f, \"end_us\": %.3f", me.start, me.end);
    fprintf(f, ", \"started_before_a_predecessor_ended\": %s}", late ? "true" : "false");
    violations += late != 0;
  }
  fprintf(f, "\n  ],\n  \"order_violations\": %llu\n}\n", (unsigned long long)violations);
  pto_vec_free(&preds);
  pto_vec_free(&stack);
  pto_free(pos);
  if (fclose(f) != 0)
    return pto_emit_error(p->ctx, loc_of(p), "could not write the dependency dump '%s'", path);
  return PTO_SUCCESS;
}

PtoResult pto_host_program_result(PtoHostProgram *p, unsigned i, void *const *bufs,
                                  PtoInterpValue *out) {
  PtoType *ty = result_type(p, i);
  PtoDType dt;
  if (ty && !pto_type_is_tensor(ty) && pto_dtype_from_type(ty, &dt)) {
    /* a scalar's bits, in its own type (the low bytes: little-endian) */
    int64_t bits = p->result_dims[i * PTO_MAX_RANK];
    *out = pto_dtype_is_float(dt) ? pto_interp_value_float(dt, pto_dtype_load_f64(dt, &bits, 0))
                                  : pto_interp_value_int(dt, bits);
    return PTO_SUCCESS;
  }
  if (!ty || !pto_type_is_tensor(ty) || !pto_dtype_from_type(pto_type_tensor_elem(ty), &dt))
    return pto_emit_error(p->ctx, loc_of(p), "the compiled back ends return tensors and "
                          "integer, index and float scalars");
  unsigned rank = pto_type_tensor_rank(ty);
  int64_t shape[PTO_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) {
    shape[d] = pto_type_tensor_dim(ty, d);
    if (shape[d] == PTO_DYN) shape[d] = p->result_dims[i * PTO_MAX_RANK + d];
  }
  int32_t b = p->results[i];
  PtoNdArray *a = pto_ndarray_create(dt, rank, shape, NULL);
  if (!a || (int64_t)a->nbytes > p->sizes.data[b]) {
    pto_ndarray_destroy(a);
    return pto_emit_error(p->ctx, loc_of(p), "result #%u's buffer is smaller than its type", i);
  }
  memcpy(a->data, (bufs ? bufs : p->bufs)[b], a->nbytes);
  *out = pto_interp_value_tensor(pto_tensor_take_ndarray(a));
  return PTO_SUCCESS;
}

const PtoNdArray *pto_host_program_tensor_arg(PtoHostProgram *p, unsigned a) {
  return a < p->ntensors ? p->arrays[a] : NULL;
}
const PtoNdArray *pto_host_program_tensor_input(PtoHostProgram *p, unsigned a) {
  if (a >= p->ntensors) return NULL;
  return p->inputs[a] ? p->inputs[a] : p->arrays[a];
}
bool pto_host_program_writes_arg(PtoHostProgram *p, unsigned a) {
  return a < p->ntensors && a < p->written.len && p->written.data[a];
}
PtoGraph *pto_host_program_graph(PtoHostProgram *p) { return p->g; }
PtoRuntime *pto_host_program_runtime(PtoHostProgram *p) { return p->rt; }
unsigned pto_host_program_num_results(PtoHostProgram *p) { return p->nres; }
unsigned pto_host_program_num_tensor_args(PtoHostProgram *p) { return p->ntensors; }
uint32_t pto_host_program_num_buffers(PtoHostProgram *p) { return p->sizes.len; }
int64_t pto_host_program_buffer_size(PtoHostProgram *p, uint32_t i) {
  return i < p->sizes.len ? p->sizes.data[i] : 0;
}
void *const *pto_host_program_buffers(PtoHostProgram *p) { return p->bufs; }
int32_t pto_host_program_result_buffer(PtoHostProgram *p, unsigned i) {
  return p->results && i < p->nres ? p->results[i] : -1;
}
unsigned pto_host_program_num_kernels(PtoHostProgram *p) { return p->nkernels; }
double pto_host_program_compile_seconds(PtoHostProgram *p) { return p->t_compile; }
double pto_host_program_build_seconds(PtoHostProgram *p) { return p->t_build; }
double pto_host_program_step_seconds(PtoHostProgram *p) { return p->t_steps; }
unsigned pto_host_program_num_steps(PtoHostProgram *p) { return p->nsteps; }

const PtoRtTimeline *pto_host_program_timeline(PtoHostProgram *p) {
  if (!p->g) return NULL;
  return pto_graph_get_timeline(p->g, p->backend & PTO_RT_SIM ? PTO_RT_SIM : PTO_RT_HOST);
}

static PtoResult write_report(PtoHostProgram *p, const PtoRtTimeline *tl,
                              const char *path, int json) {
  FILE *f = fopen(path, "w");
  bool ok = f && pto_timeline_write_report(tl, f, json) == PTO_RT_OK;
  if (f && fclose(f) != 0) ok = false;
  return ok ? PTO_SUCCESS
            : pto_emit_error(p->ctx, loc_of(p), "could not write the health report '%s'", path);
}

PtoResult pto_host_program_write_timeline(PtoHostProgram *p, const char *trace,
                                          const char *svg, const char *report,
                                          const char *report_json) {
  const PtoRtTimeline *tl = pto_host_program_timeline(p);
  if (!tl) return pto_emit_error(p->ctx, loc_of(p), "the runtime recorded no timeline to write");
  if (trace) {
    FILE *f = fopen(trace, "w");
    bool ok = f && pto_timeline_write_trace(tl, f) == PTO_RT_OK;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) return pto_emit_error(p->ctx, loc_of(p), "could not write the trace '%s'", trace);
  }
  if (svg && pto_timeline_write_svg(tl, svg) != PTO_RT_OK)
    return pto_emit_error(p->ctx, loc_of(p), "could not write the swimlane '%s'", svg);
  if (report && write_report(p, tl, report, 0)) return PTO_FAILURE;
  if (report_json && write_report(p, tl, report_json, 1)) return PTO_FAILURE;
  return PTO_SUCCESS;
}
