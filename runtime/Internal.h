/* What the runtime's files share: the runtime, graph and timeline records,
 * and the entry points of the back ends. Not installed. */
#ifndef PTO_RUNTIME_INTERNAL_H
#define PTO_RUNTIME_INTERNAL_H

#include "pto/Runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#define RT_NONE UINT32_MAX
/* Task ids stay below 2^31, so that a successor list can carry a flag. */
#define RT_MAX_TASKS 0x7fffffffu
#define RT_SINGLE_PRED 0x80000000u
/* Slots of the simulator's arrays kept in a graph (Sim.c). */
enum { SIM_TASKS, SIM_DONE, SIM_MEM, SIM_MEM_LEFT, SIM_MEM_RATE, SIM_SCHED, SIM_READY,
       SIM_CORES = SIM_READY + PTO_RT_CORE_TYPE_COUNT,
       RT_SIM_ARRAYS = SIM_CORES + PTO_RT_CORE_TYPE_COUNT };

/* A read or write touching more distinct earlier tasks than this goes
 * through one barrier node, so that N producers x M consumers cost N + M
 * edges instead of N x M. Also the number of readers a region remembers
 * inline before they are folded into a barrier. */
#define RT_FANIN_LIMIT 8

typedef struct RtKernel {
  PtoRtKernelFn fn;
  PtoRtCoreType core;
  char name[48];
} RtKernel;

/* A task as submitted. Barrier nodes have kernel == -1. What a run reads
 * per task (kernel, arguments, core type, dependency count) lives in the
 * graph's dense arrays instead, written once at submission. */
typedef struct RtTask {
  int32_t kernel;
  uint32_t label; /* offset into the label pool; 0 is "" */
  uint32_t mark;  /* last task that took an edge from this one (dedup) */
  uint32_t bmark; /* the same for barrier construction */
  uint32_t seq; /* submission number among real tasks */
  uint64_t cycles, gm_bytes, flops;
} RtTask;

/* One stretch of a buffer with the same last writer and readers since. */
typedef struct RtSeg {
  int64_t lo, hi;
  uint32_t writer;
  uint32_t nreaders;
  uint32_t readers[RT_FANIN_LIMIT];
} RtSeg;

typedef struct RtBuffer {
  int64_t size;
  RtSeg *segs;
  uint32_t nsegs, capsegs;
  uint32_t finger[2]; /* the last segments found */
  uint8_t last_finger; /* which of them hit last */
  uint32_t shape; /* bumped when segments are split or merged */
  char name[32];
} RtBuffer;

typedef struct RtEdge {
  uint32_t from, to;
} RtEdge;

/* A once-per-run MPMC queue: each task is pushed at most once per run, so
 * slots are never reused and a push is one fetch_add plus one store. */
typedef struct RtQueue {
  _Atomic uint32_t *slots; /* task id + 1, 0 while not yet written */
  uint32_t cap;
  _Alignas(64) atomic_uint head;
  _Alignas(64) atomic_uint tail;
} RtQueue;

struct PtoRtTimeline {
  const PtoGraph *g;
  PtoRtBackend backend;
  double us_per_unit; /* host: ns -> us; sim: cycles -> us */
  /* Per task: submit, dispatch, start, end, finish. */
  double *times;
  uint32_t *lane;
  uint32_t nlanes;
  char (*lane_names)[24];
  int8_t *lane_core; /* core type of a lane */
  /* Host: lanes are (core type, worker) pairs, lane % workers being the
   * worker; 0 on the simulator, whose lanes are cores. */
  uint32_t workers;
  double idle_ready; /* core time idle while ready work waited */
  double sched_busy; /* scheduler thread time used */
  uint32_t sched_threads;
  size_t cap_tasks, cap_lanes; /* of the arrays above, kept across runs */
  bool valid;
};

struct PtoGraph {
  PtoRuntime *rt; /* NULL once the runtime is destroyed */
  PtoGraph *next_live, *prev_live;
  RtTask *tasks;
  uint32_t ntasks, captasks, nreal, nbarriers;
  RtBuffer *bufs;
  uint32_t nbufs, capbufs, nbufs_inited;
  RtEdge *edges;
  uint32_t nedges, capedges;
  uint32_t *scratch; /* deps of the task being submitted */
  uint32_t nscratch, capscratch;
  uint32_t stamp;
  /* Interned labels: a pool of NUL-terminated strings and a hash index. */
  char *labels;
  uint32_t nlabels_bytes, caplabels;
  uint32_t *label_index;
  uint32_t label_index_cap, nlabel_distinct;
  /* Built by finalize: successors in CSR form and per-type counts. */
  bool finalized;
  uint32_t *succ_off, *succ;
  uint32_t *succ_run; /* succ with RT_SINGLE_PRED on single-input tasks */
  uint32_t nsinks; /* tasks without successors */
  /* What every run reads per task, in dense arrays of captasks entries
   * filled at submission: the core type (the queue a ready task goes
   * to), the dependency count to start from, the kernel and its
   * arguments. Finalize adds the tasks ready at the start. */
  uint8_t *core;
  uint32_t *ndeps0;
  uint32_t *roots;
  uint32_t nroots;
  /* The tasks with two or more predecessors, whose counters alone a run
   * reads (the others are ready when their one predecessor finishes),
   * listed when they are few enough that resetting them one by one beats
   * copying every counter; NULL otherwise (nmulti counts them). */
  uint32_t *multi;
  uint32_t nmulti;
  PtoRtKernelFn *fn;      /* NULL for barriers */
  PtoRtTaskArgs *args;    /* what each task's kernel receives */
  void **run_buffers;     /* this run's buffer bases */
  uint32_t caprunbufs;
  /* A buffer was declared after tasks: their args name an old
   * run_buffers or buffer count until finalize refreshes them. */
  bool args_stale;
  uint32_t type_count[PTO_RT_CORE_TYPE_COUNT];
  /* Per-run state, allocated once at finalize and reused. */
  _Atomic uint32_t *count;
  RtQueue queues[PTO_RT_CORE_TYPE_COUNT];
  PtoRtTimeline host_tl, sim_tl;
  /* The simulator's per-run arrays, kept for the next run. */
  void *sim_mem[RT_SIM_ARRAYS];
  size_t sim_cap[RT_SIM_ARRAYS];
  void *sim_heap;
  uint32_t sim_heap_cap;
  /* A streaming run in progress (pto_graph_start .. pto_graph_wait): tasks
   * are dispatched as they are submitted. Its host side (Host.c), NULL
   * when the host back end is off. */
  bool streaming;
  struct RtRun *stream;
  /* The tasks the last run ran (pto_graph_resume runs the rest) and, on
   * the host, the clock its timeline counts from, which a resumed run
   * keeps. The tasks the orchestrator submitted only once every earlier
   * task had finished (pto_graph_resume's), in increasing order: the
   * simulator holds its submission there. `ran` counts a run's tasks
   * only when it succeeded: after a failed run (a kernel's, the
   * simulator's, out of memory) `run_failed` is set and pto_graph_resume
   * refuses, since the tasks it did not finish would count as finished;
   * a whole run (pto_graph_run) clears it. */
  uint32_t ran;
  bool run_failed;
  struct timespec run_t0;
  uint32_t *syncs;
  uint32_t nsyncs, capsyncs;
};

struct PtoRuntime {
  PtoRtPlatform platform;
  PtoRtOptions opts;
  RtKernel *kernels;
  uint32_t nkernels, capkernels;
  char error[256];
  PtoGraph *live;  /* graphs created and not destroyed */
  PtoGraph *spare; /* an emptied graph whose storage the next one reuses */
  /* Host worker pool: threads - 1 helpers; the caller is the last one. */
  pthread_t *workers;
  uint32_t nworkers; /* guarded by mu while the pool starts */
  pthread_mutex_t mu;
  pthread_cond_t work_cv, done_cv;
  uint32_t parked;     /* threads waiting on work_cv, guarded by mu */
  uint32_t tickets;    /* wake-ups given and not yet taken, guarded by mu */
  bool caller_parked;  /* the run's caller waits on work_cv, guarded by mu */
  /* Apart from what the mutex guards: they are touched without it. */
  char pad0[64];
  /* The run in progress (NULL between runs) and the helpers inside it: a
   * run's caller returns only once none is, so a helper never reads a
   * run, or its graph, that has ended. */
  struct RtRun *_Atomic cur;
  char pad1[64];
  atomic_uint active;
  char pad2[64];
  /* Parked threads not yet given a ticket: parked - tickets. */
  atomic_uint sleepers;
  atomic_bool shutdown;
  atomic_bool busy;
};

/* Shared helpers (Runtime.c). rt_grow makes room for `need` elements in a
 * doubling array; false when the allocation fails. */
bool rt_grow_slow(void **p, uint32_t *cap, uint32_t need, size_t elem);
static inline bool rt_grow(void **p, uint32_t *cap, uint32_t need,
                           size_t elem) {
  return need <= *cap || rt_grow_slow(p, cap, need, elem);
}
/* "AIC", "AIV", "AICPU": the platform's names of the core types. */
extern const char *const rt_core_names[PTO_RT_CORE_TYPE_COUNT];
void rt_set_error(PtoRuntime *rt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *rt_label(const PtoGraph *g, uint32_t id);
/* Writes `s` as a JSON string literal. */
void rt_json_str(FILE *f, const char *s);
const char *rt_task_name(const PtoGraph *g, uint32_t id);
PtoRtCoreType rt_task_core(const PtoGraph *g, uint32_t id);
bool rt_timeline_alloc(PtoRtTimeline *tl, const PtoGraph *g, uint32_t nlanes);
void rt_timeline_free(PtoRtTimeline *tl);
PtoRtStatus rt_graph_finalize(PtoGraph *g);
/* Ends a streaming run without waiting for its tasks (destroy). */
void rt_graph_stop(PtoGraph *g);
void rt_graph_free(PtoGraph *g);

/* Back ends. */
bool rt_host_start(PtoRuntime *rt);
void rt_host_stop(PtoRuntime *rt);
PtoRtStatus rt_host_run(PtoGraph *g, void *const *buffers, uint32_t nbuf);
PtoRtStatus rt_sim_run(PtoGraph *g);
/* Streaming runs on the host: start publishes the tasks already in the
 * graph; publish dispatches the tasks [t0, ntasks) a submission added
 * (their edges being [e0, nedges)); failed tells whether the run stopped,
 * with the reason in the runtime's error; end closes submission, works
 * in the run until it is over (or, with cancel, stops it) and frees it. */
PtoRtStatus rt_host_stream_start(PtoGraph *g, void *const *buffers,
                                 uint32_t nbuf);
/* The same, for a run that continues the last one: the tasks before
 * `first` ran in it and count as finished; the timeline keeps their
 * times, and the new tasks' count from that run's start. */
PtoRtStatus rt_host_stream_resume(PtoGraph *g, void *const *buffers,
                                  uint32_t nbuf, uint32_t first);
bool rt_host_stream_publish(PtoGraph *g, uint32_t t0, uint32_t e0);
bool rt_host_stream_failed(PtoGraph *g, const char *what);
PtoRtStatus rt_host_stream_end(PtoGraph *g, bool cancel);

#endif
