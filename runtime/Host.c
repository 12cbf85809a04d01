/* The host back end: a pool of worker threads (the caller of a run is one
 * of them) that run kernels as their dependency counters reach zero. No
 * lock is held while a kernel runs; a finishing worker runs one ready
 * successor itself and queues the others on their core type's queue.
 * A streaming run dispatches tasks while the caller still submits them:
 * its records live in chunks that never move, and successors attach to a
 * running task through a lock-free list that the task closes when it
 * finishes. */
#include "Internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Storage of a streaming run that workers read while the submitter grows
 * it: chunk k holds RT_CHUNK0 << k elements and is never moved, so 22
 * chunks cover every 32-bit index below 2^32 - RT_CHUNK0. */
#define RT_CHUNK0_LOG 10
#define RT_CHUNKS (32 - RT_CHUNK0_LOG)

/* A successor attached to a task of a streaming run. */
typedef struct RtSucc {
  struct RtSucc *next;
  uint32_t task;
} RtSucc;

/* A task of a streaming run as the workers read it, written by the
 * submitter before the task is published. */
typedef struct RtSTask {
  PtoRtTaskArgs args;
  PtoRtKernelFn fn; /* NULL for barriers */
  /* Successors attached so far; the run's `closed` once it finished, so
   * that a later submission sees it done instead of waiting on it. */
  RtSucc *_Atomic succ;
  /* Predecessors not finished, plus one while the task is published. */
  atomic_uint count;
  uint32_t core;
  uint32_t worker; /* the worker that ran it, RT_NONE until then */
  double times[5];
} RtSTask;

typedef struct RtRun {
  PtoGraph *g;
  void *const *buffers;
  uint32_t nbuf;
  RtKernel *kernels;
  /* Tasks without successors not yet finished: every task is an ancestor
   * of one of them, so when they are all done the run is; counting them
   * alone keeps a shared counter off the per-task path. A streaming run
   * counts its unfinished tasks instead, plus one until submission ends. */
  atomic_uint_fast64_t remaining;
  atomic_bool failed;
  atomic_uint failed_task;
  int failed_rc; /* written by the one worker that wins failed_task */
  struct timespec t0;
  double *times; /* per task 5 doubles, or NULL when not recording */
  uint32_t *lane;
  /* The first lane of each core type (one lane per worker follows). */
  uint32_t lane_base[PTO_RT_CORE_TYPE_COUNT];
  /* A streaming run: task records, ready-queue slots and successor nodes
   * in chunks (the counts and capacities are the submitter's alone). */
  bool stream, record;
  bool oom; /* a submission found no memory: the run stopped */
  /* The tasks before it ran in the run this one continues. */
  uint32_t first;
  void *st[RT_CHUNKS], *slots[RT_CHUNKS], *nodes[RT_CHUNKS];
  uint32_t published, nnodes, cap_st, cap_slots, cap_nodes;
  RtSucc closed;
  /* Its one ready queue, used once per task like RtQueue. */
  _Alignas(64) atomic_uint head;
  _Alignas(64) atomic_uint tail;
} RtRun;

static inline uint32_t chunk_of(uint32_t i, uint32_t *off) {
  uint32_t j = i + (1u << RT_CHUNK0_LOG);
  uint32_t k = 31 - (uint32_t)__builtin_clz(j) - RT_CHUNK0_LOG;
  *off = j - ((1u << RT_CHUNK0_LOG) << k);
  return k;
}

static inline void *chunk_at(void *const *chunks, uint32_t i, size_t elem) {
  uint32_t off, k = chunk_of(i, &off);
  return (char *)chunks[k] + (size_t)off * elem;
}

/* Makes room for elements [0, n), zeroed. */
static bool chunk_reserve(void **chunks, uint32_t *cap, uint32_t n,
                          size_t elem) {
  if (n > RT_MAX_TASKS)
    return false;
  while (*cap < n) {
    uint32_t off, k = chunk_of(*cap, &off);
    size_t len = (size_t)1 << (RT_CHUNK0_LOG + k);
    if (!(chunks[k] = calloc(len, elem)))
      return false;
    *cap += (uint32_t)len;
  }
  return true;
}

static void chunk_free(void **chunks) {
  for (int k = 0; k < RT_CHUNKS; k++) {
    free(chunks[k]);
    chunks[k] = NULL;
  }
}

static inline RtSTask *stask(const RtRun *r, uint32_t id) {
  return chunk_at(r->st, id, sizeof(RtSTask));
}

static double now_ns(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) * 1e9 + (double)(t.tv_nsec - t0->tv_nsec);
}

/* The once-per-run queue's slots: a flat array (a built graph's queue) or
 * the chunks of a streaming run. Inlined with one of them constant. */
static inline _Atomic uint32_t *slot_at(_Atomic uint32_t *flat,
                                        void *const *chunks, uint32_t i) {
  return flat ? &flat[i] : chunk_at(chunks, i, sizeof *flat);
}

static inline void once_push(atomic_uint *tail, _Atomic uint32_t *flat,
                             void *const *chunks, uint32_t task) {
  /* seq_cst: pairs with the sleeper's seq_cst increment and re-check in
   * park (a Dekker pattern), so that a push is never missed. */
  uint32_t i = atomic_fetch_add_explicit(tail, 1, memory_order_seq_cst);
  /* release: the popper's acquire load of the slot sees the task's state. */
  atomic_store_explicit(slot_at(flat, chunks, i), task + 1,
                        memory_order_release);
}

static inline uint32_t once_pop(atomic_uint *head, atomic_uint *tail,
                                _Atomic uint32_t *flat, void *const *chunks) {
  /* acquire: pairs with the acq_rel claim of the previous popper. */
  uint32_t h = atomic_load_explicit(head, memory_order_acquire);
  for (;;) {
    /* acquire: a slot below tail has been reserved by a pusher. */
    if (h >= atomic_load_explicit(tail, memory_order_acquire))
      return RT_NONE;
    /* acquire: pairs with the release store in once_push. */
    uint32_t v = atomic_load_explicit(slot_at(flat, chunks, h),
                                      memory_order_acquire);
    if (v == 0)
      return RT_NONE; /* reserved, not yet written: try again later */
    /* acq_rel: claiming slot h; on failure h is reloaded. */
    if (atomic_compare_exchange_weak_explicit(head, &h, h + 1,
                                              memory_order_acq_rel,
                                              memory_order_acquire))
      return v - 1;
  }
}

static void queue_push(RtQueue *q, uint32_t task) {
  once_push(&q->tail, q->slots, NULL, task);
}

static uint32_t queue_pop(RtQueue *q) {
  return once_pop(&q->head, &q->tail, q->slots, NULL);
}

static void stream_push(RtRun *r, uint32_t task) {
  once_push(&r->tail, NULL, r->slots, task);
}

static uint32_t stream_pop(RtRun *r) {
  return once_pop(&r->head, &r->tail, NULL, r->slots);
}

/* relaxed, all: a hint only; the pop that follows synchronises. */
static bool queues_nonempty(const RtRun *r) {
  if (r->stream)
    return atomic_load_explicit(&r->head, memory_order_relaxed) <
           atomic_load_explicit(&r->tail, memory_order_relaxed);
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
    if (atomic_load_explicit(&r->g->queues[t].head, memory_order_relaxed) <
        atomic_load_explicit(&r->g->queues[t].tail, memory_order_relaxed))
      return true;
  return false;
}

static bool run_over(RtRun *r) {
  /* acquire: the last finisher's release decrement or the failure flag. */
  return atomic_load_explicit(&r->remaining, memory_order_acquire) == 0 ||
         atomic_load_explicit(&r->failed, memory_order_acquire);
}

/* Idle threads spin this many rounds looking for work (yielding the CPU
 * after the first few) before they park: a successor is usually queued
 * within microseconds, and waking a parked thread costs tens of them. */
enum { SPIN_ROUNDS = 2000, SPIN_YIELD_AFTER = 100 };
/* How far ahead, in submission order, execute() prefetches. */
enum { RT_PREFETCH = 32 };

static void spin_round(unsigned round) {
  if (round > SPIN_YIELD_AFTER)
    sched_yield();
#if defined(__x86_64__) || defined(__i386__)
  else
    __builtin_ia32_pause();
#endif
}

static void leave(PtoRuntime *rt) {
  /* release: the caller's acquire load of `active` at the run's end sees
   * what this helper wrote in the run (times, the failure's status). */
  atomic_fetch_sub_explicit(&rt->active, 1, memory_order_release);
}

/* Enters the run in progress, if any; the caller of that run does not
 * return while a helper is inside. seq_cst, both: with the caller's store
 * of cur = NULL then load of `active`, either this helper sees NULL or the
 * caller sees it inside (a Dekker pattern). */
static RtRun *enter(PtoRuntime *rt) {
  atomic_fetch_add_explicit(&rt->active, 1, memory_order_seq_cst);
  RtRun *r = atomic_load_explicit(&rt->cur, memory_order_seq_cst);
  if (!r)
    leave(rt);
  return r;
}

/* Gives one parked thread a ticket to look for work, when one is parked
 * without a ticket: pushes that find every thread busy or spinning cost a
 * load, and a burst of pushes wakes each sleeper once. */
static void wake_one(PtoRuntime *rt) {
  /* seq_cst: after the push's seq_cst increment of the queue's tail, the
   * other half of the Dekker pattern with park(). */
  if (atomic_load_explicit(&rt->sleepers, memory_order_seq_cst) == 0)
    return;
  pthread_mutex_lock(&rt->mu);
  if (rt->parked > rt->tickets) {
    rt->tickets++;
    /* relaxed: only a hint outside the mutex; the mutex orders the rest. */
    atomic_fetch_sub_explicit(&rt->sleepers, 1, memory_order_relaxed);
    pthread_cond_signal(&rt->work_cv);
  }
  pthread_mutex_unlock(&rt->mu);
}

/* The run is over (done or failed): wakes its caller if it is parked. */
static void wake_caller(PtoRuntime *rt) {
  pthread_mutex_lock(&rt->mu);
  if (rt->caller_parked)
    pthread_cond_broadcast(&rt->work_cv);
  pthread_mutex_unlock(&rt->mu);
}

/* Whether a parking thread should look again instead of sleeping. */
static bool work_visible(PtoRuntime *rt, RtRun *own) {
  if (own)
    return run_over(own) || queues_nonempty(own);
  if (atomic_load_explicit(&rt->shutdown, memory_order_relaxed))
    return true;
  RtRun *r = enter(rt);
  if (!r)
    return false;
  bool any = queues_nonempty(r);
  leave(rt);
  return any;
}

/* Sleeps until the thread is given a ticket (work was queued), or, for
 * the caller of the run `own`, until that run is over, or the pool shuts
 * down. Under the mutex, sleepers == parked - tickets. */
static void park(PtoRuntime *rt, RtRun *own) {
  pthread_mutex_lock(&rt->mu);
  rt->parked++;
  if (own)
    rt->caller_parked = true;
  /* seq_cst: published before the re-check, see wake_one. */
  atomic_fetch_add_explicit(&rt->sleepers, 1, memory_order_seq_cst);
  atomic_thread_fence(memory_order_seq_cst);
  bool ticket = false;
  if (!work_visible(rt, own)) {
    while (rt->tickets == 0 &&
           !atomic_load_explicit(&rt->shutdown, memory_order_relaxed) &&
           !(own && run_over(own)))
      pthread_cond_wait(&rt->work_cv, &rt->mu);
    if (rt->tickets) {
      rt->tickets--;
      ticket = true;
    }
  }
  if (!ticket)
    atomic_fetch_sub_explicit(&rt->sleepers, 1, memory_order_relaxed);
  if (own)
    rt->caller_parked = false;
  rt->parked--;
  pthread_mutex_unlock(&rt->mu);
}

static uint32_t pop_any(RtRun *r, uint32_t home) {
  for (uint32_t k = 0; k < PTO_RT_CORE_TYPE_COUNT; k++) {
    uint32_t t = queue_pop(&r->g->queues[(home + k) % PTO_RT_CORE_TYPE_COUNT]);
    if (t != RT_NONE)
      return t;
  }
  return RT_NONE;
}

/* Stops the run because task `id` failed with `rc`; the first failure is
 * the one reported. */
static void fail_task(PtoRuntime *rt, RtRun *r, uint32_t id, int rc) {
  unsigned expected = RT_NONE;
  /* relaxed: the winner's writes are published by its release store of
   * `failed` below, read with acquire in run_over. Only the winner
   * stores it, so that whoever sees `failed` sees failed_rc. */
  if (!atomic_compare_exchange_strong_explicit(&r->failed_task, &expected, id,
                                               memory_order_relaxed,
                                               memory_order_relaxed))
    return;
  r->failed_rc = rc;
  atomic_store_explicit(&r->failed, true, memory_order_release);
  wake_caller(rt);
}

/* Runs task `id`; returns a ready successor for this worker to run next. */
static uint32_t execute(PtoRuntime *rt, RtRun *r, uint32_t id, uint32_t wid) {
  PtoGraph *g = r->g;
  /* relaxed: stopping early is an optimisation; run_over() synchronises. */
  if (atomic_load_explicit(&r->failed, memory_order_relaxed))
    return RT_NONE;
  PtoRtKernelFn fn = g->fn[id];
  /* Ready tasks mostly come in submission order (a topological order), so
   * the records of the task RT_PREFETCH places on are fetched now: what a
   * replay reads per task is spread over four arrays, and on a busy
   * machine the hardware prefetcher does not keep all of them ahead. A
   * hint only: a wrong guess costs a few loads. */
  if (id + RT_PREFETCH < g->ntasks) {
    uint32_t ahead = id + RT_PREFETCH;
    __builtin_prefetch(&g->fn[ahead]);
    __builtin_prefetch(&g->args[ahead]);
    __builtin_prefetch((const char *)&g->args[ahead] + 64);
    __builtin_prefetch(&g->succ_off[ahead]);
    uint32_t edge = g->succ_off[id] + RT_PREFETCH;
    if (edge < g->nedges)
      __builtin_prefetch(&g->succ_run[edge]);
  }
  if (fn) {
    double start = r->times ? now_ns(&r->t0) : 0;
    int rc = fn(&g->args[id]);
    if (r->times) {
      double *tm = &r->times[(size_t)id * 5];
      tm[0] = 0;
      tm[1] = tm[2] = start;
      tm[3] = now_ns(&r->t0);
      r->lane[id] = r->lane_base[g->core[id]] + wid;
    }
    if (rc != 0) {
      fail_task(rt, r, id, rc);
      return RT_NONE;
    }
  }
  uint32_t next = RT_NONE;
  for (uint32_t e = g->succ_off[id]; e < g->succ_off[id + 1]; e++) {
    uint32_t sv = g->succ_run[e], s = sv & ~RT_SINGLE_PRED;
    /* A task with one predecessor is ready now: no counter to touch (its
     * data reaches it through this thread or the queue's release/acquire).
     * Otherwise, acq_rel: the last predecessor to finish sees every other
     * predecessor's writes (acquire) after publishing its own (release).
     * A counter at 1 before this predecessor's decrement means that every
     * other one has decremented it: this one is the last, and no thread
     * touches the counter again this run, so the locked decrement (most
     * of a task's cost when the others finished long before) is skipped.
     * acquire: the other predecessors' release decrements. */
    if (!(sv & RT_SINGLE_PRED) &&
        atomic_load_explicit(&g->count[s], memory_order_acquire) != 1 &&
        atomic_fetch_sub_explicit(&g->count[s], 1, memory_order_acq_rel) != 1)
      continue;
    if (next == RT_NONE) {
      next = s;
    } else {
      queue_push(&g->queues[g->core[s]], s);
      wake_one(rt);
    }
  }
  if (r->times && fn)
    r->times[(size_t)id * 5 + 4] = now_ns(&r->t0);
  /* acq_rel: the finisher of the last sink sees all tasks' effects (each
   * sink's finisher acquired its predecessors' through their counters). */
  if (g->succ_off[id] == g->succ_off[id + 1] &&
      atomic_fetch_sub_explicit(&r->remaining, 1, memory_order_acq_rel) == 1)
    wake_caller(rt);
  return next;
}

/* Runs task `id` of a streaming run; returns a ready successor for this
 * worker to run next. */
static uint32_t execute_stream(PtoRuntime *rt, RtRun *r, uint32_t id,
                               uint32_t wid) {
  /* relaxed: stopping early is an optimisation; run_over() synchronises. */
  if (atomic_load_explicit(&r->failed, memory_order_relaxed))
    return RT_NONE;
  RtSTask *t = stask(r, id);
  if (t->fn) {
    double start = r->record ? now_ns(&r->t0) : 0;
    int rc = t->fn(&t->args);
    if (r->record) {
      t->times[1] = t->times[2] = start;
      t->times[3] = now_ns(&r->t0);
      t->worker = wid;
    }
    if (rc != 0) {
      /* Its successor list stays open: what depends on it, submitted
       * before or after, never becomes ready. */
      fail_task(rt, r, id, rc);
      return RT_NONE;
    }
  }
  /* acq_rel: acquires the submitter's nodes (its release CAS) and
   * publishes this task's effects to a submitter that finds it closed. */
  RtSucc *sn = atomic_exchange_explicit(&t->succ, &r->closed,
                                        memory_order_acq_rel);
  uint32_t next = RT_NONE;
  for (; sn; sn = sn->next) {
    uint32_t v = sn->task;
    /* acq_rel: as in execute(). */
    if (atomic_fetch_sub_explicit(&stask(r, v)->count, 1,
                                  memory_order_acq_rel) != 1)
      continue;
    if (next == RT_NONE) {
      next = v;
    } else {
      stream_push(r, v);
      wake_one(rt);
    }
  }
  if (r->record && t->fn)
    t->times[4] = now_ns(&r->t0);
  /* acq_rel: the one that brings it to zero sees every task's effects. */
  if (atomic_fetch_sub_explicit(&r->remaining, 1, memory_order_acq_rel) == 1)
    wake_caller(rt);
  return next;
}

/* Runs queued tasks, each followed by the successors it makes ready, until
 * the queues are empty; returns whether it ran any. */
static bool drain(PtoRuntime *rt, RtRun *r, uint32_t wid) {
  uint32_t home = wid % PTO_RT_CORE_TYPE_COUNT;
  bool ran = false;
  if (r->stream) {
    for (uint32_t t; (t = stream_pop(r)) != RT_NONE; ran = true)
      do
        t = execute_stream(rt, r, t, wid);
      while (t != RT_NONE);
    return ran;
  }
  for (uint32_t t; (t = pop_any(r, home)) != RT_NONE; ran = true)
    do
      t = execute(rt, r, t, wid);
    while (t != RT_NONE);
  return ran;
}

/* The caller of a run works in it until it is over. */
static void caller_work(PtoRuntime *rt, RtRun *r, uint32_t wid) {
  for (unsigned idle = 0;;) {
    if (drain(rt, r, wid)) {
      idle = 0;
      continue;
    }
    if (run_over(r))
      return;
    if (++idle < SPIN_ROUNDS)
      spin_round(idle);
    else {
      park(rt, r);
      idle = 0;
    }
  }
}

/* A helper enters whatever run is in progress when there is work in it,
 * and leaves it when its queues are empty: it spins and parks outside any
 * run, so a run never waits for an idle helper to be scheduled. */
static void *worker_main(void *arg) {
  PtoRuntime *rt = arg;
  pthread_mutex_lock(&rt->mu);
  uint32_t wid = rt->nworkers++; /* ids 0..n-1: threads start one by one */
  pthread_cond_broadcast(&rt->done_cv);
  pthread_mutex_unlock(&rt->mu);
  /* relaxed: set before the broadcast that wakes parked helpers. */
  for (unsigned idle = 0;
       !atomic_load_explicit(&rt->shutdown, memory_order_relaxed);) {
    RtRun *r = enter(rt);
    bool ran = false;
    if (r) {
      ran = drain(rt, r, wid);
      leave(rt);
    }
    if (ran)
      idle = 0;
    else if (++idle < SPIN_ROUNDS)
      spin_round(idle);
    else {
      park(rt, NULL);
      idle = 0;
    }
  }
  return NULL;
}

bool rt_host_start(PtoRuntime *rt) {
  pthread_mutex_init(&rt->mu, NULL);
  pthread_cond_init(&rt->work_cv, NULL);
  pthread_cond_init(&rt->done_cv, NULL);
  uint32_t n = rt->opts.threads - 1;
  rt->workers = calloc(n ? n : 1, sizeof *rt->workers);
  if (!rt->workers) {
    pthread_cond_destroy(&rt->work_cv);
    pthread_cond_destroy(&rt->done_cv);
    pthread_mutex_destroy(&rt->mu);
    return false;
  }
  for (uint32_t i = 0; i < n; i++) {
    pthread_mutex_lock(&rt->mu);
    uint32_t before = rt->nworkers;
    pthread_mutex_unlock(&rt->mu);
    if (pthread_create(&rt->workers[i], NULL, worker_main, rt) != 0) {
      rt_host_stop(rt);
      return false;
    }
    /* Wait until it has taken its id, so that ids are 0..n-1 in order. */
    pthread_mutex_lock(&rt->mu);
    while (rt->nworkers == before)
      pthread_cond_wait(&rt->done_cv, &rt->mu);
    pthread_mutex_unlock(&rt->mu);
  }
  return true;
}

void rt_host_stop(PtoRuntime *rt) {
  atomic_store_explicit(&rt->shutdown, true, memory_order_relaxed);
  /* The mutex orders the store before the parked helpers' re-check. */
  pthread_mutex_lock(&rt->mu);
  pthread_cond_broadcast(&rt->work_cv);
  uint32_t n = rt->nworkers;
  pthread_mutex_unlock(&rt->mu);
  for (uint32_t i = 0; i < n; i++)
    pthread_join(rt->workers[i], NULL);
  free(rt->workers);
  rt->workers = NULL;
  pthread_cond_destroy(&rt->work_cv);
  pthread_cond_destroy(&rt->done_cv);
  pthread_mutex_destroy(&rt->mu);
}

/* The host timeline's lanes for graph g: one per worker and core type
 * that has tasks, named like the simulator's cores ("AIV 1": worker 1
 * running vector kernels), so that a host and a simulated swimlane read
 * alike. Fills the first lane of each type; every task starts laneless. */
static bool host_lanes(PtoGraph *g, uint32_t *lane_base) {
  PtoRuntime *rt = g->rt;
  PtoRtTimeline *tl = &g->host_tl;
  uint32_t threads = rt->opts.threads, nlanes = 0;
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++) {
    /* Barriers are counted under the first type; they run nowhere. */
    bool used = g->type_count[t] > (t == 0 ? g->nbarriers : 0);
    lane_base[t] = used ? nlanes : RT_NONE;
    nlanes += used ? threads : 0;
  }
  if (!rt_timeline_alloc(tl, g, nlanes)) {
    rt_set_error(rt, "run: out of memory");
    return false;
  }
  tl->backend = PTO_RT_HOST;
  tl->us_per_unit = 1e-3;
  tl->workers = threads;
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
    for (uint32_t w = 0; lane_base[t] != RT_NONE && w < threads; w++) {
      uint32_t l = lane_base[t] + w;
      snprintf(tl->lane_names[l], sizeof tl->lane_names[l], "%s %u",
               rt_core_names[t], w);
      tl->lane_core[l] = (int8_t)t;
    }
  for (uint32_t i = 0; i < g->ntasks; i++)
    tl->lane[i] = RT_NONE;
  return true;
}

/* The error of a run stopped by task f failing with rc (the graph's
 * successor lists built). */
static PtoRtStatus report_failure(PtoGraph *g, uint32_t f, int rc) {
  uint32_t n = g->ntasks;
  /* Name what did not run because of it: its transitive dependents. */
  uint64_t dependents = 0;
  uint8_t *seen = calloc(n, 1);
  uint32_t *stack = malloc((size_t)n * sizeof *stack);
  if (seen && stack) {
    uint32_t top = 0;
    stack[top++] = f;
    while (top) {
      uint32_t v = stack[--top];
      for (uint32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++) {
        uint32_t s = g->succ[e];
        if (seen[s])
          continue;
        seen[s] = 1;
        dependents += g->tasks[s].kernel >= 0;
        stack[top++] = s;
      }
    }
  }
  free(seen);
  free(stack);
  const char *label = rt_label(g, f);
  rt_set_error(g->rt, "task %u (kernel '%s'%s%s%s) failed with status %d; "
               "its %llu dependent tasks were not started",
               f, rt_task_name(g, f), *label ? ", label '" : "", label,
               *label ? "'" : "", rc, (unsigned long long)dependents);
  return PTO_RT_ERR_KERNEL;
}

PtoRtStatus rt_host_run(PtoGraph *g, void *const *buffers, uint32_t nbuf) {
  PtoRuntime *rt = g->rt;
  uint32_t n = g->ntasks;
  RtRun r;
  memset(&r, 0, sizeof r);
  r.g = g;
  r.buffers = buffers;
  r.nbuf = nbuf;
  r.kernels = rt->kernels;
  atomic_init(&r.remaining, g->nsinks);
  atomic_init(&r.failed, false);
  atomic_init(&r.failed_task, RT_NONE);
  PtoRtTimeline *tl = &g->host_tl;
  tl->valid = false;
  if (rt->opts.record_host_times) {
    if (!host_lanes(g, r.lane_base))
      return PTO_RT_ERR_NOMEM;
    r.times = tl->times;
    r.lane = tl->lane;
    clock_gettime(CLOCK_MONOTONIC, &r.t0);
    g->run_t0 = r.t0;
  }
  /* Reset the per-run state; the graph itself is not analysed again. The
   * tasks' argument records point at run_buffers. */
  if (nbuf)
    memcpy(g->run_buffers, buffers, nbuf * sizeof *buffers);
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++) {
    RtQueue *q = &g->queues[t];
    /* relaxed: no run is in progress, so no helper is inside one, and
     * the store that starts the next run publishes these stores. */
    uint32_t used = atomic_load_explicit(&q->tail, memory_order_relaxed);
    memset((void *)q->slots, 0, (used < q->cap ? used : q->cap) * sizeof *q->slots);
    atomic_store_explicit(&q->head, 0, memory_order_relaxed);
    atomic_store_explicit(&q->tail, 0, memory_order_relaxed);
  }
  /* Only the counters of tasks with several predecessors are read. Few
   * of them: reset one by one; else one block copy of all rather than n
   * atomic stores, which compilers do not vectorise. No other thread
   * touches the counters between runs, and the helpers see them through
   * the store that starts the run. */
  _Static_assert(sizeof *g->count == sizeof *g->ndeps0,
                 "a counter is stored as a plain 32-bit word");
  if (g->multi || g->nmulti == 0) /* few: g->multi lists them */
    for (uint32_t i = 0; i < g->nmulti; i++)
      atomic_store_explicit(&g->count[g->multi[i]], g->ndeps0[g->multi[i]],
                            memory_order_relaxed);
  else if (n)
    memcpy((void *)g->count, g->ndeps0, n * sizeof *g->ndeps0);
  for (uint32_t i = 0; i < g->nroots; i++)
    queue_push(&g->queues[g->core[g->roots[i]]], g->roots[i]);
  if (n) {
    /* seq_cst: publishes the reset above to the helpers that enter (their
     * load of cur acquires it), and see enter(). */
    atomic_store_explicit(&rt->cur, &r, memory_order_seq_cst);
    /* The caller takes one root; parked helpers are woken for the others
     * only (a chain wakes no one). Spinning helpers find them anyway. */
    for (uint32_t i = 1; i < g->nroots && i < rt->opts.threads; i++)
      wake_one(rt);
    caller_work(rt, &r, rt->nworkers);
    /* Helpers inside the run may still read it: wait until they leave,
     * which they do as soon as they find the queues empty. Idle helpers
     * are outside any run, so this never waits for a parked thread. */
    atomic_store_explicit(&rt->cur, NULL, memory_order_seq_cst);
    for (unsigned round = 1;
         atomic_load_explicit(&rt->active, memory_order_acquire) != 0; round++)
      spin_round(round);
  }
  if (r.times)
    tl->valid = true;
  /* acquire (and relaxed after it): every helper has left the run, with
   * a release decrement of `active` that the loop above acquired. */
  if (atomic_load_explicit(&r.failed, memory_order_acquire))
    return report_failure(
        g, atomic_load_explicit(&r.failed_task, memory_order_relaxed),
        r.failed_rc);
  return PTO_RT_OK;
}

/* ---- streaming runs ------------------------------------------------------ */

static void stream_free(RtRun *r) {
  chunk_free(r->st);
  chunk_free(r->slots);
  chunk_free(r->nodes);
  free(r);
}

PtoRtStatus rt_host_stream_start(PtoGraph *g, void *const *buffers,
                                 uint32_t nbuf) {
  return rt_host_stream_resume(g, buffers, nbuf, 0);
}

PtoRtStatus rt_host_stream_resume(PtoGraph *g, void *const *buffers,
                                  uint32_t nbuf, uint32_t first) {
  PtoRuntime *rt = g->rt;
  RtRun *r = aligned_alloc(_Alignof(RtRun), sizeof *r);
  if (!r) {
    rt_set_error(rt, "start: out of memory");
    return PTO_RT_ERR_NOMEM;
  }
  memset(r, 0, sizeof *r);
  r->g = g;
  r->buffers = buffers;
  r->nbuf = nbuf;
  r->kernels = rt->kernels;
  r->stream = true;
  r->record = rt->opts.record_host_times != 0;
  /* The hold of the submitter, dropped when submission ends. */
  atomic_init(&r->remaining, 1);
  atomic_init(&r->failed, false);
  atomic_init(&r->failed_task, RT_NONE);
  atomic_init(&r->head, 0);
  atomic_init(&r->tail, 0);
  r->first = r->published = first;
  g->host_tl.valid = false;
  if (!first)
    clock_gettime(CLOCK_MONOTONIC, &g->run_t0);
  r->t0 = g->run_t0;
  /* Buffers cannot be declared while the graph streams, so that the
   * table the argument records point at stays where it is. */
  if (nbuf)
    memcpy(g->run_buffers, buffers, nbuf * sizeof *buffers);
  g->stream = r;
  /* seq_cst: see enter(); the records published below reach the helpers
   * through the queue's release/acquire. */
  atomic_store_explicit(&rt->cur, r, memory_order_seq_cst);
  /* The first edge into a task of this run: edges are grouped by target
   * in increasing order. */
  uint32_t lo = 0, hi = g->nedges;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (g->edges[mid].to < first)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!rt_host_stream_publish(g, first, lo)) {
    rt_host_stream_end(g, true);
    rt_set_error(rt, "start: out of memory");
    return PTO_RT_ERR_NOMEM;
  }
  return PTO_RT_OK;
}

/* Makes task t wait for p unless p has finished. */
static void stream_attach(RtRun *r, uint32_t p, uint32_t id, RtSTask *t,
                          RtSucc *node) {
  node->task = id;
  /* relaxed: the submitter's hold keeps the count above zero meanwhile. */
  atomic_fetch_add_explicit(&t->count, 1, memory_order_relaxed);
  RtSTask *pt = stask(r, p);
  /* acquire: a closed list was closed after p finished, whose effects
   * the task then sees through its push by this thread. */
  RtSucc *head = atomic_load_explicit(&pt->succ, memory_order_acquire);
  for (;;) {
    if (head == &r->closed) {
      atomic_fetch_sub_explicit(&t->count, 1, memory_order_relaxed);
      return;
    }
    node->next = head;
    /* release: the finisher's exchange sees the node's fields. */
    if (atomic_compare_exchange_weak_explicit(&pt->succ, &head, node,
                                              memory_order_release,
                                              memory_order_acquire))
      return;
  }
}

bool rt_host_stream_publish(PtoGraph *g, uint32_t t0, uint32_t e0) {
  RtRun *r = g->stream;
  PtoRuntime *rt = g->rt;
  uint32_t n = g->ntasks;
  /* Room first: every record, queue slot (a task is queued at most once)
   * and successor node this submission needs. */
  if (!chunk_reserve(r->st, &r->cap_st, n, sizeof(RtSTask)) ||
      !chunk_reserve(r->slots, &r->cap_slots, n, sizeof(_Atomic uint32_t)) ||
      !chunk_reserve(r->nodes, &r->cap_nodes, r->nnodes + (g->nedges - e0),
                     sizeof(RtSucc))) {
    /* The tasks are in the graph but cannot run: stop the run. */
    r->oom = true;
    /* release: pairs with run_over's acquire */
    atomic_store_explicit(&r->failed, true, memory_order_release);
    return false;
  }
  double now = r->record ? now_ns(&r->t0) : 0;
  /* Edges are grouped by target in increasing order, barriers first. */
  for (uint32_t id = t0, e = e0; id < n; id++) {
    RtSTask *t = stask(r, id);
    t->args = g->args[id];
    t->fn = g->fn[id];
    t->core = g->core[id];
    t->worker = RT_NONE;
    t->times[0] = now;
    atomic_init(&t->succ, NULL);
    atomic_init(&t->count, 1);
    /* relaxed: the task's finisher acquires the count it releases. */
    atomic_fetch_add_explicit(&r->remaining, 1, memory_order_relaxed);
    /* A task of the run this one continues has finished. */
    for (; e < g->nedges && g->edges[e].to == id; e++)
      if (g->edges[e].from >= r->first)
        stream_attach(r, g->edges[e].from, id, t,
                      chunk_at(r->nodes, r->nnodes++, sizeof(RtSucc)));
    r->published = id + 1;
    /* acq_rel: the last predecessor's release, or this thread's records. */
    if (atomic_fetch_sub_explicit(&t->count, 1, memory_order_acq_rel) == 1) {
      stream_push(r, id);
      wake_one(rt);
    }
  }
  return true;
}

bool rt_host_stream_failed(PtoGraph *g, const char *what) {
  RtRun *r = g->stream;
  /* acquire: the failing worker's failed_rc (see fail_task). */
  if (!atomic_load_explicit(&r->failed, memory_order_acquire))
    return false;
  uint32_t f = atomic_load_explicit(&r->failed_task, memory_order_relaxed);
  if (f == RT_NONE) {
    rt_set_error(g->rt, "%s: the running graph stopped: out of memory", what);
    return true;
  }
  const char *label = rt_label(g, f);
  rt_set_error(g->rt, "%s: the running graph stopped: task %u (kernel '%s'%s%s%s) "
               "failed with status %d", what, f, rt_task_name(g, f),
               *label ? ", label '" : "", label, *label ? "'" : "",
               r->failed_rc);
  return true;
}

PtoRtStatus rt_host_stream_end(PtoGraph *g, bool cancel) {
  PtoRuntime *rt = g->rt;
  RtRun *r = g->stream;
  if (cancel) /* release: pairs with run_over's acquire */
    atomic_store_explicit(&r->failed, true, memory_order_release);
  /* acq_rel: dropping the submitter's hold; run_over acquires the rest. */
  if (atomic_fetch_sub_explicit(&r->remaining, 1, memory_order_acq_rel) == 1)
    wake_caller(rt);
  caller_work(rt, r, rt->nworkers);
  /* As at the end of rt_host_run: wait until the helpers have left. */
  atomic_store_explicit(&rt->cur, NULL, memory_order_seq_cst);
  for (unsigned round = 1;
       atomic_load_explicit(&rt->active, memory_order_acquire) != 0; round++)
    spin_round(round);
  g->stream = NULL;
  PtoRtStatus st = PTO_RT_OK;
  uint32_t f = atomic_load_explicit(&r->failed_task, memory_order_relaxed);
  if (r->oom && !cancel) {
    rt_set_error(rt, "wait: the running graph stopped: out of memory");
    st = PTO_RT_ERR_NOMEM;
  }
  if (st == PTO_RT_OK && !cancel && r->record) {
    uint32_t lane_base[PTO_RT_CORE_TYPE_COUNT];
    /* A continued run keeps the earlier tasks' times and, as (core type,
     * worker), their lanes, which host_lanes renumbers. */
    PtoRtTimeline *tl = &g->host_tl;
    uint32_t first = r->first, threads = rt->opts.threads;
    double *keep = first ? malloc((size_t)first * 5 * sizeof *keep) : NULL;
    uint32_t *keep_lane =
        first ? malloc((size_t)first * sizeof *keep_lane) : NULL;
    bool had = tl->times && tl->cap_tasks >= first;
    if (first && (!keep || !keep_lane)) {
      rt_set_error(rt, "wait: out of memory");
      st = PTO_RT_ERR_NOMEM;
    }
    for (uint32_t i = 0; st == PTO_RT_OK && i < first; i++) {
      bool ran = had && tl->lane[i] != RT_NONE;
      memset(&keep[(size_t)i * 5], 0, 5 * sizeof *keep);
      if (had)
        memcpy(&keep[(size_t)i * 5], &tl->times[(size_t)i * 5],
               5 * sizeof *keep);
      keep_lane[i] = ran ? (uint32_t)tl->lane_core[tl->lane[i]] * threads +
                               tl->lane[i] % threads
                         : RT_NONE;
    }
    if (st == PTO_RT_OK && !host_lanes(g, lane_base)) {
      st = PTO_RT_ERR_NOMEM;
    } else if (st == PTO_RT_OK) {
      for (uint32_t i = 0; i < first; i++) {
        memcpy(&tl->times[(size_t)i * 5], &keep[(size_t)i * 5],
               5 * sizeof *keep);
        if (keep_lane[i] != RT_NONE)
          tl->lane[i] =
              lane_base[keep_lane[i] / threads] + keep_lane[i] % threads;
      }
      for (uint32_t i = first; i < r->published; i++) {
        const RtSTask *t = stask(r, i);
        memcpy(&tl->times[(size_t)i * 5], t->times, sizeof t->times);
        if (t->worker != RT_NONE)
          tl->lane[i] = lane_base[t->core] + t->worker;
      }
      tl->valid = true;
    }
    free(keep);
    free(keep_lane);
  }
  if (st == PTO_RT_OK && !cancel && f != RT_NONE) {
    /* The dependents named in the message come from the built lists. */
    st = rt_graph_finalize(g);
    if (st == PTO_RT_OK)
      st = report_failure(g, f, r->failed_rc);
  }
  stream_free(r);
  return st;
}
