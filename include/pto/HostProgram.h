/* A PTO-level module made runnable on the MPMD runtime: translated to LLVM
 * IR, JIT-compiled, its kernels registered with their cost-model cycles,
 * and its host program run to build the task graph for given arguments.
 * pto-run --backend and the embedding API's compiled back ends share it. */
#ifndef PTO_HOSTPROGRAM_H
#define PTO_HOSTPROGRAM_H

#include "pto/ExecutionEngine.h"
#include "pto/Interp.h"
#include "pto/Platform.h"
#include "pto/Runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoHostProgram PtoHostProgram;

/* ---- host ops: extension ops the program runs as tasks of their own ----
 * An op of a user's dialect that stays in the host function (it has no
 * PTO form; pto_llvmir_is_host_op) runs as one task of the graph, ordered
 * by its GM buffers like a kernel's, on a runtime worker. Its
 * implementation is a PtoHostOpDef, found by the op's name: the
 * program's own (PtoHostProgramOptions.host_ops) first, then the
 * library's (the `experimental` dialect's gathers). The extension guide:
 * docs/dialects/experimental.md, "Adding your own op". */
enum { PTO_HOST_OP_MAX_ATTRS = 8 };

/* What a host op's task gets: views of its operands' and result's GM
 * buffers (C-contiguous, the dims the host program computed), the
 * integers `prepare` took from the op, and room for a message. */
typedef struct PtoHostOpCall {
  const PtoNdArray *operands;
  unsigned num_operands;
  PtoNdArray *result;
  const int64_t *attrs;
  char *error;
  size_t error_size;
} PtoHostOpCall;

typedef struct PtoHostOpDef {
  const char *name; /* "dialect.op" */
  /* When the program is created, on its thread: the op's attributes as
   * up to PTO_HOST_OP_MAX_ATTRS integers for `run`. Failure: after a
   * diagnostic at the op (the program is not created). May be NULL. */
  PtoResult (*prepare)(PtoOp *op, int64_t *attrs);
  /* The task, on a runtime worker thread while other tasks run: it must
   * not touch the IR or the context. Returns 0, or nonzero with a message
   * in call->error, which the run reports as an error at the op. */
  int (*run)(const PtoHostOpCall *call);
} PtoHostOpDef;

/* The library's host ops (the `experimental` gathers). */
const PtoHostOpDef *pto_host_ops_builtin(unsigned *count);

typedef struct PtoHostProgramOptions {
  /* The machine whose core counts, latencies and cycles the runtime uses
   * (NULL: the default platform). */
  const PtoPlatform *platform;
  /* PTO_RT_HOST, PTO_RT_SIM or PTO_RT_BOTH. */
  PtoRtBackend backend;
  /* A JIT to compile with, kept by the caller so that its module cache
   * serves every program compiled with it (NULL: one of the program's
   * own). It must outlive the program. */
  PtoJit *jit;
  /* Implementations of host ops, searched before the library's. */
  const PtoHostOpDef *host_ops;
  unsigned num_host_ops;
} PtoHostProgramOptions;

/* Translates `module` (lowered to PTO: kernels and the host function
 * `func`), compiles it and starts a runtime with its kernels. NULL after
 * a diagnostic at `func` (translation errors at the op). */
PtoHostProgram *pto_host_program_create(PtoContext *ctx, PtoOp *module,
                                        PtoOp *func,
                                        const PtoHostProgramOptions *opts);
void pto_host_program_destroy(PtoHostProgram *p);

/* Runs the host program on `args` (the entry's arguments: tensors, copied
 * into contiguous buffers the program owns, and scalars) to build a new
 * task graph, replacing the previous one. Reports and fails when the host
 * program or the runtime refuses a task (a window outside its tensor). */
PtoResult pto_host_program_build(PtoHostProgram *p, const PtoInterpValue *args,
                                 unsigned nargs);
/* Runs the graph on `bufs` (one base per buffer; NULL: the program's own,
 * the arguments' copies then zeroed workspaces). When the build already
 * ran some tasks on the program's own buffers (for a tile.load_scalar of
 * a tensor a task writes), the run on them runs only the others: each
 * task runs once (the runtime's pto_graph_resume); a run on other
 * buffers first ends that one, then runs every task. */
PtoResult pto_host_program_run(PtoHostProgram *p, void *const *bufs);
/* With `on`, each run works on copies of the buffers between guard zones
 * and fails, naming the buffer and the launches that write it, when a
 * kernel changed a byte of a zone (a GM store past its buffer). */
void pto_host_program_set_gm_check(PtoHostProgram *p, bool on);
/* Writes the last run's task graph as JSON: the buffers, per task its
 * kernel, label, GM regions, the tasks it waits for (barrier nodes
 * resolved) and its times, and whether any task started before one it
 * waits for had ended (docs/python.md, "Dependency dump and GM check"). */
PtoResult pto_host_program_write_dependencies(PtoHostProgram *p, const char *path);
/* Result i of the entry after a run on `bufs` (NULL: the program's own):
 * a new tensor of the result's type, its dynamic dims as the host program
 * computed them. */
PtoResult pto_host_program_result(PtoHostProgram *p, unsigned i,
                                  void *const *bufs, PtoInterpValue *out);
/* Tensor argument a (counting tensors only) as the last run left it: the
 * program's copy, written by kernels that store into their arguments.
 * After a build whose tile.load_scalar ran tasks (steps of the first run
 * on the program's own buffers), the tasks of those steps have already
 * changed it: the inputs of a replay are pto_host_program_tensor_input. */
const PtoNdArray *pto_host_program_tensor_arg(PtoHostProgram *p, unsigned a);
/* Tensor argument a as the last build received it, before any task ran:
 * valid after the build until the first run on the program's own buffers
 * ends (which may change an argument no step wrote). */
const PtoNdArray *pto_host_program_tensor_input(PtoHostProgram *p, unsigned a);
/* Whether some task of the graph writes tensor argument a. */
bool pto_host_program_writes_arg(PtoHostProgram *p, unsigned a);

PtoGraph *pto_host_program_graph(PtoHostProgram *p);
PtoRuntime *pto_host_program_runtime(PtoHostProgram *p);
unsigned pto_host_program_num_results(PtoHostProgram *p);
unsigned pto_host_program_num_tensor_args(PtoHostProgram *p);
uint32_t pto_host_program_num_buffers(PtoHostProgram *p);
int64_t pto_host_program_buffer_size(PtoHostProgram *p, uint32_t i);
void *const *pto_host_program_buffers(PtoHostProgram *p);
/* The buffer result i is in (valid after a build). */
int32_t pto_host_program_result_buffer(PtoHostProgram *p, unsigned i);
unsigned pto_host_program_num_kernels(PtoHostProgram *p);
/* Seconds spent translating and compiling, and building the last graph
 * (its host program's own time: without the steps below). */
double pto_host_program_compile_seconds(PtoHostProgram *p);
double pto_host_program_build_seconds(PtoHostProgram *p);
/* Seconds the last build spent running the tasks its host program's
 * tile.load_scalar reads waited for: steps of the first run on the
 * program's own buffers, which pto_host_program_run ends. */
double pto_host_program_step_seconds(PtoHostProgram *p);
/* How many steps the last build ran: one per tile.load_scalar read of a
 * buffer some task submitted since the previous step writes. */
unsigned pto_host_program_num_steps(PtoHostProgram *p);
/* The timeline the trace, SVG and report show: the simulator's when it
 * ran, else the host's (NULL before a run). */
const PtoRtTimeline *pto_host_program_timeline(PtoHostProgram *p);
/* Writes the shown timeline: a Trace Event JSON file, an SVG swimlane, the
 * health report as text and as JSON (each path may be NULL). Fails with a
 * diagnostic naming the file it could not write. */
PtoResult pto_host_program_write_timeline(PtoHostProgram *p, const char *trace,
                                          const char *svg, const char *report,
                                          const char *report_json);

#ifdef __cplusplus
}
#endif
#endif
