/* The MPMD runtime: task graphs over GM regions, dispatched by dependency on
 * host worker threads or on a discrete-event model of the machine. It knows
 * kernels, tasks, GM regions and a platform description, and no IR. */
#ifndef PTO_RUNTIME_H
#define PTO_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- platform ---------------------------------------------------------- */

typedef enum PtoRtCoreType {
  PTO_RT_CORE_AIC = 0, /* cube core */
  PTO_RT_CORE_AIV,     /* vector core */
  PTO_RT_CORE_AICPU,   /* scalar/control core */
  PTO_RT_CORE_TYPE_COUNT
} PtoRtCoreType;

/* The machine as the runtime sees it. A plain struct so that the runtime
 * parses nothing; a platform loader fills it from a description file. */
typedef struct PtoRtPlatform {
  char name[32];
  uint32_t cores[PTO_RT_CORE_TYPE_COUNT];
  double clock_mhz;
  /* Aggregate GM bandwidth in bytes per cycle, the fraction of it that
   * real traffic reaches, and what one core can draw on its own. */
  double gm_bytes_per_cycle;
  double gm_efficiency;
  double gm_core_bytes_per_cycle;
  /* Cube FLOPs per cycle per AIC core (for the roofline bound). */
  double cube_flops_per_cycle;
  /* Scheduler costs in cycles, charged on the scheduler threads. */
  uint32_t submit_cycles;
  uint32_t dispatch_cycles;
  uint32_t dep_resolve_cycles;
  uint32_t completion_cycles;
  uint32_t scheduler_threads;
} PtoRtPlatform;

/* Fills `p` with the default a2a3 machine (24 AIC, 48 AIV, 6 AICPU at
 * 1800 MHz, 1.2 TB/s GM at 75%, the AICPU scheduler latencies). */
void pto_rt_platform_default(PtoRtPlatform *p);

/* ---- runtime ------------------------------------------------------------ */

typedef enum PtoRtBackend {
  PTO_RT_HOST = 1, /* worker threads run the kernels */
  PTO_RT_SIM = 2,  /* the discrete-event model yields the timeline */
  PTO_RT_BOTH = 3  /* host for the results, sim for the timeline */
} PtoRtBackend;

typedef enum PtoRtStatus {
  PTO_RT_OK = 0,
  PTO_RT_ERR_MISUSE,       /* bad argument or call out of order */
  PTO_RT_ERR_KERNEL,       /* a kernel returned non-zero */
  PTO_RT_ERR_NOMEM,        /* an allocation failed */
  PTO_RT_ERR_IO            /* writing an output failed */
} PtoRtStatus;

typedef struct PtoRtOptions {
  PtoRtBackend backend;
  /* Host threads taking part in a run, the calling thread included;
   * 0 means one per online CPU. */
  uint32_t threads;
  /* Record per-task host timestamps (two clock reads per task). */
  int record_host_times;
} PtoRtOptions;

typedef struct PtoRuntime PtoRuntime;
typedef struct PtoGraph PtoGraph;

/* What a kernel receives: the run's buffer bases, the task's own regions
 * and scalar parameters. Borrowed for the duration of the call. */
#define PTO_RT_MAX_PARAMS 6
typedef struct PtoRtTaskArgs {
  void *const *buffers;
  uint32_t num_buffers;
  uint32_t task_id;
  int64_t params[PTO_RT_MAX_PARAMS];
  void *user;
} PtoRtTaskArgs;

/* A kernel returns 0 on success; anything else stops the graph. */
typedef int (*PtoRtKernelFn)(const PtoRtTaskArgs *args);

/* Creates a runtime; NULL with a message in `err` (if given) on failure.
 * `opts` may be NULL (host back end, one thread per CPU). */
PtoRuntime *pto_runtime_create(const PtoRtPlatform *platform,
                               const PtoRtOptions *opts, char *err,
                               size_t err_size);
/* Destroys the runtime. Graphs still alive become detached: every call on
 * them except pto_graph_destroy fails with PTO_RT_ERR_MISUSE. */
void pto_runtime_destroy(PtoRuntime *rt);
const PtoRtPlatform *pto_runtime_get_platform(const PtoRuntime *rt);
uint32_t pto_runtime_get_threads(const PtoRuntime *rt);

/* Registers a kernel; returns its id (>= 0) or -1 (see pto_runtime_error). */
int32_t pto_runtime_add_kernel(PtoRuntime *rt, PtoRtKernelFn fn,
                               PtoRtCoreType core, const char *name);
/* The message of the last failure on this runtime or one of its graphs. */
const char *pto_runtime_error(const PtoRuntime *rt);

/* ---- graphs ------------------------------------------------------------- */

typedef enum PtoRtAccess {
  PTO_RT_READ = 1,
  PTO_RT_WRITE = 2,
  PTO_RT_READ_WRITE = 3
} PtoRtAccess;

/* A byte range [offset, offset + size) of one of the graph's buffers. */
typedef struct PtoRtRegion {
  uint32_t buffer;
  int64_t offset;
  int64_t size;
  PtoRtAccess access;
} PtoRtRegion;

typedef struct PtoRtTaskDesc {
  int32_t kernel;
  const PtoRtRegion *regions;
  uint32_t num_regions;
  /* Edges the compiler already knows, to earlier tasks of this graph;
   * duplicates of derived edges are dropped. */
  const uint32_t *preds;
  uint32_t num_preds;
  const char *label; /* semantic label; copied; may be NULL */
  int64_t params[PTO_RT_MAX_PARAMS];
  void *user;
  /* For the simulator and the roofline: compute cycles, GM bytes moved,
   * cube FLOPs. */
  uint64_t cycles;
  uint64_t gm_bytes;
  uint64_t flops;
} PtoRtTaskDesc;

PtoGraph *pto_graph_create(PtoRuntime *rt);
void pto_graph_destroy(PtoGraph *g);
/* Declares a GM buffer of `size` bytes; returns its index or -1. */
int32_t pto_graph_add_buffer(PtoGraph *g, int64_t size, const char *name);
/* Submits a task; its dependencies are derived from its regions (RAW, WAR,
 * WAW) plus its explicit predecessors. Returns its id or -1. */
int64_t pto_graph_submit(PtoGraph *g, const PtoRtTaskDesc *task);
/* Runs the graph with the given buffer bases (one per declared buffer) and
 * waits for it; a graph may be run again with new buffers, without
 * repeating the dependency analysis. */
PtoRtStatus pto_graph_run(PtoGraph *g, void *const *buffers,
                          uint32_t num_buffers);

/* Resuming: a graph run in steps, as an orchestrator that reads results
 * between its submissions does (a scalar that decides what it submits
 * next). pto_graph_resume runs the tasks submitted since the graph's last
 * run (all of them when it never ran) and waits for them; the earlier
 * tasks count as finished, and `buffers` (one base per buffer declared so
 * far, buffers may be declared between the steps) must hold what they
 * left. The host timeline is then the one run's: the earlier tasks keep
 * their times and the new ones are timed from that run's start, so that
 * the trace shows every task once, with the orchestrator's waits as gaps.
 * The simulator models those waits on every later run of the graph: it
 * submits the first task of each step only once every earlier task has
 * finished. pto_graph_run replays the whole graph as usual. After a
 * failed run (a step's or a whole one's), pto_graph_resume refuses
 * (PTO_RT_ERR_MISUSE) until a whole run succeeds: what the tasks of the
 * failed run left is unknown. */
PtoRtStatus pto_graph_resume(PtoGraph *g, void *const *buffers,
                             uint32_t num_buffers);

/* Streaming: tasks dispatched while the caller still submits them, as an
 * MPMD orchestrator does. pto_graph_start begins a run of the graph with
 * the given buffer bases (one per declared buffer, declared before the
 * start): the tasks already submitted are dispatched at once, and each
 * pto_graph_submit that follows dispatches its task as soon as what it
 * depends on has finished. pto_graph_wait ends submission, waits for
 * every task and reports the run as pto_graph_run does; the graph is then
 * an ordinary built graph that pto_graph_run replays. If a kernel fails
 * meanwhile, the submissions after it return -1 naming it, and
 * pto_graph_wait returns PTO_RT_ERR_KERNEL. One thread submits and waits;
 * the runtime runs one graph at a time, and destroying a running graph
 * (or its runtime) stops it. The simulator runs the submitted graph at
 * pto_graph_wait: its orchestrator model always submits while tasks run. */
PtoRtStatus pto_graph_start(PtoGraph *g, void *const *buffers,
                            uint32_t num_buffers);
PtoRtStatus pto_graph_wait(PtoGraph *g);
/* Figures of the graph as built: tasks (submitted, plus barrier nodes that
 * stand for wide fan-ins) and dependency edges. */
typedef struct PtoRtGraphStats {
  uint64_t tasks;
  uint64_t barriers;
  uint64_t edges;
} PtoRtGraphStats;
void pto_graph_get_stats(const PtoGraph *g, PtoRtGraphStats *out);
/* The direct predecessors of task `id` after analysis (barriers included,
 * with ids of barrier nodes >= tasks submitted); returns their count and
 * writes at most `cap` of them. */
uint32_t pto_graph_get_preds(const PtoGraph *g, uint64_t id, uint64_t *out,
                             uint32_t cap);
/* Whether the id names a barrier node rather than a submitted task. */
int pto_graph_is_barrier(const PtoGraph *g, uint64_t id);

/* ---- timelines, traces and the health report ---------------------------- */

/* The timeline of the last run on one back end: per task its lane and its
 * submit/dispatch/start/end/finish times. Owned by the graph; NULL when
 * that back end has not run the graph (or host times were not recorded). */
typedef struct PtoRtTimeline PtoRtTimeline;
const PtoRtTimeline *pto_graph_get_timeline(const PtoGraph *g,
                                            PtoRtBackend which);

/* One task as a timeline saw it: the lane it ran on (index into the
 * timeline's lanes) and its times in microseconds from the run's start. */
typedef struct PtoRtTaskTimes {
  uint32_t lane;
  double submit, dispatch, start, end, finish;
} PtoRtTaskTimes;
/* Returns 0 when the task did not run on a lane (a barrier node, or a task
 * not started because the graph stopped), 1 otherwise. */
int pto_timeline_get_task(const PtoRtTimeline *tl, uint64_t id,
                          PtoRtTaskTimes *out);
uint32_t pto_timeline_get_lanes(const PtoRtTimeline *tl);
const char *pto_timeline_get_lane_name(const PtoRtTimeline *tl, uint32_t lane);

/* Chrome Trace Event JSON (Perfetto, chrome://tracing). */
PtoRtStatus pto_timeline_write_trace(const PtoRtTimeline *tl, FILE *out);
/* An SVG swimlane: lanes, tasks coloured by label, legend, time axis. */
PtoRtStatus pto_timeline_write_svg(const PtoRtTimeline *tl, const char *path);
/* The health report as text or JSON. */
PtoRtStatus pto_timeline_write_report(const PtoRtTimeline *tl, FILE *out,
                                      int json);

/* The figures of the health report, for programs that act on them. */
typedef struct PtoRtHealth {
  double makespan_us;
  double utilisation[PTO_RT_CORE_TYPE_COUNT]; /* busy / (cores * makespan) */
  double bound_us;                         /* roofline lower bound */
  double bound_ratio;                      /* makespan / bound */
  double critical_path_us;
  uint32_t critical_path_len;
  double waves[PTO_RT_CORE_TYPE_COUNT];       /* tasks / cores per type */
  double idle_ready_us; /* core time idle while ready work waited */
  double tail_us;       /* time at the end below half the peak parallelism */
} PtoRtHealth;
void pto_timeline_get_health(const PtoRtTimeline *tl, PtoRtHealth *out);

#ifdef __cplusplus
}
#endif

#endif
