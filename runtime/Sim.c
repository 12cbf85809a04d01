/* The sim back end: a deterministic discrete-event model of the platform.
 * One event queue ordered by (time, sequence number); cores per type; each
 * task's cycles and GM bytes, with GM bandwidth shared by the tasks moving
 * data at once; and the scheduler's own work charged on its threads: an
 * orchestrator submits tasks in program order, scheduler threads dispatch
 * ready tasks to free cores and handle completions (resolving each
 * successor's dependency). Times are in cycles. */
#include "Internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EV_SUBMIT, EV_JOB_DONE, EV_COMPUTE_DONE, EV_MEM_CHECK };
enum { JOB_DISPATCH, JOB_COMPLETE };

typedef struct Event {
  double time;
  uint64_t seq;
  uint32_t kind, a, b;
} Event;

/* What the simulation reads and writes per task, in one record. */
typedef struct STask {
  uint64_t cycles, gm_bytes;
  uint32_t deps;             /* dependencies not yet resolved */
  uint32_t core;             /* lane it runs on */
  uint8_t submitted, parts;  /* parts: compute and memory still running */
  uint8_t type, barrier;
} STask;

typedef struct Sim {
  PtoGraph *g;
  const PtoRtPlatform *p;
  PtoRtTimeline *tl;
  Event *heap;
  uint32_t nheap, capheap;
  uint64_t seq;
  double now;
  STask *st;
  double *mem_left, *mem_rate; /* bytes still to move, current rate */
  /* Ready tasks per core type and completions waiting for a scheduler. */
  uint32_t *ready[PTO_RT_CORE_TYPE_COUNT];
  uint32_t rhead[PTO_RT_CORE_TYPE_COUNT], rtail[PTO_RT_CORE_TYPE_COUNT];
  uint32_t *done_q;
  uint32_t dhead, dtail;
  /* Free cores per type (a stack of lane indices) and free schedulers. */
  uint32_t *free_cores[PTO_RT_CORE_TYPE_COUNT];
  uint32_t nfree[PTO_RT_CORE_TYPE_COUNT];
  uint32_t lane_base[PTO_RT_CORE_TYPE_COUNT];
  uint32_t *free_sched;
  uint32_t nfree_sched;
  /* Tasks moving GM data now. */
  uint32_t *mem_active;
  uint32_t nmem;
  double mem_last;
  uint64_t mem_gen;
  uint32_t next_submit;
  /* Tasks whose completion was handled; the next of the graph's syncs
   * and whether the orchestrator waits at it for every earlier task. */
  uint32_t completed, next_sync;
  bool held;
  uint32_t dispatching; /* cores reserved while a dispatch is charged */
  double last_account;
} Sim;

static bool ev_less(const Event *a, const Event *b) {
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static bool ev_push(Sim *s, double time, uint32_t kind, uint32_t a, uint32_t b) {
  if (!rt_grow((void **)&s->heap, &s->capheap, s->nheap + 1, sizeof *s->heap))
    return false;
  Event e = {time, s->seq++, kind, a, b};
  uint32_t i = s->nheap++;
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (!ev_less(&e, &s->heap[parent]))
      break;
    s->heap[i] = s->heap[parent];
    i = parent;
  }
  s->heap[i] = e;
  return true;
}

static Event ev_pop(Sim *s) {
  Event top = s->heap[0], last = s->heap[--s->nheap];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= s->nheap)
      break;
    if (c + 1 < s->nheap && ev_less(&s->heap[c + 1], &s->heap[c]))
      c++;
    if (!ev_less(&s->heap[c], &last))
      break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (s->nheap)
    s->heap[i] = last;
  return top;
}

static double *T(Sim *s, uint32_t id) { return &s->tl->times[(size_t)id * 5]; }


/* Core time spent idle while ready work of that type waited for a
 * scheduler thread (or sat in a dispatch being charged). */
static void account(Sim *s) {
  double dt = s->now - s->last_account;
  if (dt > 0) {
    double idle = s->dispatching;
    for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++) {
      uint32_t waiting = s->rtail[t] - s->rhead[t];
      idle += waiting < s->nfree[t] ? waiting : s->nfree[t];
    }
    s->tl->idle_ready += idle * dt;
  }
  s->last_account = s->now;
}

/* Memory: the active transfers share the GM bandwidth equally, each
 * capped at what one core can draw. */
static bool mem_update(Sim *s) {
  double dt = s->now - s->mem_last;
  for (uint32_t i = 0; i < s->nmem; i++)
    {
    uint32_t id = s->mem_active[i];
    s->mem_left[id] -= s->mem_rate[id] * dt;
  }
  s->mem_last = s->now;
  if (!s->nmem)
    return true;
  double share = s->p->gm_bytes_per_cycle * s->p->gm_efficiency / s->nmem;
  double rate = share < s->p->gm_core_bytes_per_cycle
                    ? share : s->p->gm_core_bytes_per_cycle;
  double first = INFINITY;
  for (uint32_t i = 0; i < s->nmem; i++) {
    uint32_t id = s->mem_active[i];
    s->mem_rate[id] = rate;
    double left = s->mem_left[id] > 0 ? s->mem_left[id] / rate : 0;
    if (left < first)
      first = left;
  }
  return ev_push(s, s->now + first, EV_MEM_CHECK, 0, (uint32_t)++s->mem_gen);
}

static void make_ready(Sim *s, uint32_t id) {
  if (s->st[id].barrier) {
    /* A barrier only costs its dependency resolution. */
    s->done_q[s->dtail++] = id;
    return;
  }
  PtoRtCoreType t = (PtoRtCoreType)s->st[id].type;
  s->ready[t][s->rtail[t]++] = id;
}

static bool task_part_done(Sim *s, uint32_t id) {
  if (--s->st[id].parts)
    return true;
  T(s, id)[3] = s->now;
  PtoRtCoreType t = (PtoRtCoreType)s->st[id].type;
  s->free_cores[t][s->nfree[t]++] = s->st[id].core;
  s->done_q[s->dtail++] = id;
  return true;
}

/* Hands work to free scheduler threads: completions first (they unlock
 * work), then dispatches of ready tasks to free cores. */
static bool schedule(Sim *s) {
  const PtoRtPlatform *p = s->p;
  while (s->nfree_sched) {
    uint32_t th = s->free_sched[s->nfree_sched - 1];
    if (s->dhead < s->dtail) {
      uint32_t id = s->done_q[s->dhead++];
      uint32_t nsucc = s->g->succ_off[id + 1] - s->g->succ_off[id];
      double cost = p->dep_resolve_cycles * (double)nsucc;
      if (!s->st[id].barrier)
        cost += p->completion_cycles;
      s->nfree_sched--;
      s->tl->sched_busy += cost;
      if (!ev_push(s, s->now + cost, EV_JOB_DONE, th, id * 2 + JOB_COMPLETE))
        return false;
      continue;
    }
    int type = -1;
    for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
      if (s->rhead[t] < s->rtail[t] && s->nfree[t]) {
        type = t;
        break;
      }
    if (type < 0)
      break;
    uint32_t id = s->ready[type][s->rhead[type]++];
    s->st[id].core = s->free_cores[type][--s->nfree[type]];
    s->nfree_sched--;
    s->dispatching++;
    T(s, id)[1] = s->now;
    s->tl->sched_busy += p->dispatch_cycles;
    if (!ev_push(s, s->now + p->dispatch_cycles, EV_JOB_DONE, th,
                 id * 2 + JOB_DISPATCH))
      return false;
  }
  return true;
}

/* The orchestrator's next submission: the barriers next in order enter at
 * once, the next real task after the submission cost; none while it
 * waits at one of the graph's syncs for every earlier task to finish. */
static bool submit_next(Sim *s) {
  const PtoGraph *g = s->g;
  uint32_t n = g->ntasks;
  while (s->next_submit < n) {
    uint32_t id = s->next_submit;
    if (s->next_sync < g->nsyncs && g->syncs[s->next_sync] == id) {
      if (s->completed < id) {
        s->held = true;
        return true;
      }
      s->next_sync++;
    }
    s->next_submit++;
    if (!s->st[id].barrier)
      return ev_push(s, s->now + s->p->submit_cycles, EV_SUBMIT, id, 0);
    s->st[id].submitted = 1;
    if (s->st[id].deps == 0)
      make_ready(s, id);
  }
  return true;
}

static bool handle(Sim *s, const Event *e) {
  PtoGraph *g = s->g;
  switch (e->kind) {
  case EV_SUBMIT: {
    /* The orchestrator submits real tasks one after another; barriers are
     * the runtime's own and enter as soon as their inputs are there. */
    uint32_t id = e->a;
    s->st[id].submitted = 1;
    T(s, id)[0] = s->now;
    if (s->st[id].deps == 0)
      make_ready(s, id);
    return submit_next(s);
  }
  case EV_JOB_DONE: {
    uint32_t th = e->a, id = e->b / 2;
    s->free_sched[s->nfree_sched++] = th;
    if (e->b % 2 == JOB_DISPATCH) {
      s->dispatching--;
      STask *t = &s->st[id];
      T(s, id)[2] = s->now;
      s->tl->lane[id] = s->st[id].core;
      s->st[id].parts = 1;
      if (!ev_push(s, s->now + (double)t->cycles, EV_COMPUTE_DONE, id, 0))
        return false;
      if (t->gm_bytes) {
        s->st[id].parts++;
        if (!mem_update(s))
          return false;
        s->mem_left[id] = (double)t->gm_bytes;
        s->mem_rate[id] = 0; /* set by the update below */
        s->mem_active[s->nmem++] = id;
        return mem_update(s);
      }
      return true;
    }
    if (!s->st[id].barrier)
      T(s, id)[4] = s->now;
    for (uint32_t k = g->succ_off[id]; k < g->succ_off[id + 1]; k++) {
      uint32_t succ = g->succ[k];
      if (--s->st[succ].deps == 0 && s->st[succ].submitted)
        make_ready(s, succ);
    }
    /* Every task before the one the orchestrator waits at is done. */
    if (++s->completed == s->next_submit && s->held) {
      s->held = false;
      return submit_next(s);
    }
    return true;
  }
  case EV_COMPUTE_DONE:
    return task_part_done(s, e->a);
  case EV_MEM_CHECK: {
    if (e->b != (uint32_t)s->mem_gen)
      return true; /* superseded by a later rate change */
    if (!mem_update(s))
      return false;
    /* Transfers within a rounding error of the end are done. */
    uint32_t keep = 0;
    for (uint32_t i = 0; i < s->nmem; i++) {
      uint32_t id = s->mem_active[i];
      if (s->mem_left[id] <= 1e-6 * (double)s->st[id].gm_bytes + 1e-9) {
        if (!task_part_done(s, id))
          return false;
      } else {
        s->mem_active[keep++] = id;
      }
    }
    s->nmem = keep;
    return mem_update(s);
  }
  }
  return true;
}

/* Graph-owned scratch array `slot` of at least `bytes` bytes, or NULL. */
static void *sim_array(PtoGraph *g, int slot, size_t bytes) {
  if (bytes > g->sim_cap[slot]) {
    void *p = realloc(g->sim_mem[slot], bytes);
    if (!p)
      return NULL;
    g->sim_mem[slot] = p;
    g->sim_cap[slot] = bytes;
  }
  return g->sim_mem[slot];
}

PtoRtStatus rt_sim_run(PtoGraph *g) {
  PtoRuntime *rt = g->rt;
  const PtoRtPlatform *p = &rt->platform;
  uint32_t n = g->ntasks, lanes = 0;
  Sim s;
  memset(&s, 0, sizeof s);
  s.g = g;
  s.p = p;
  s.tl = &g->sim_tl;
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++) {
    s.lane_base[t] = lanes;
    lanes += p->cores[t];
  }
  PtoRtTimeline *tl = s.tl;
  tl->valid = false;
  bool ok = rt_timeline_alloc(tl, g, lanes);
  size_t nn = n ? n : 1;
  /* The simulator's arrays live with the graph, so that running it again
   * reuses them rather than faulting in fresh pages. */
  s.st = sim_array(g, SIM_TASKS, nn * sizeof *s.st);
  s.done_q = sim_array(g, SIM_DONE, nn * sizeof *s.done_q);
  s.mem_active = sim_array(g, SIM_MEM, nn * sizeof *s.mem_active);
  s.free_sched = sim_array(g, SIM_SCHED, p->scheduler_threads * sizeof *s.free_sched);
  s.mem_left = sim_array(g, SIM_MEM_LEFT, nn * sizeof *s.mem_left);
  s.mem_rate = sim_array(g, SIM_MEM_RATE, nn * sizeof *s.mem_rate);
  ok = ok && s.st && s.done_q && s.mem_active && s.free_sched && s.mem_left &&
       s.mem_rate;
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT && ok; t++) {
    s.ready[t] = sim_array(g, SIM_READY + t, nn * sizeof *s.ready[t]);
    s.free_cores[t] = sim_array(g, SIM_CORES + t, p->cores[t] * sizeof *s.free_cores[t]);
    ok = s.ready[t] && s.free_cores[t];
  }
  if (ok)
    memset(s.st, 0, nn * sizeof *s.st);
  s.heap = g->sim_heap;
  s.capheap = g->sim_heap_cap;
  PtoRtStatus st = PTO_RT_OK;
  if (!ok)
    goto oom;
  tl->backend = PTO_RT_SIM;
  tl->us_per_unit = 1.0 / p->clock_mhz;
  tl->sched_threads = p->scheduler_threads;
  tl->idle_ready = tl->sched_busy = 0;
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
    for (uint32_t c = 0; c < p->cores[t]; c++) {
      uint32_t l = s.lane_base[t] + c;
      snprintf(tl->lane_names[l], sizeof tl->lane_names[l], "%s %u",
               rt_core_names[t], c);
      tl->lane_core[l] = (int8_t)t;
      /* Stack order so that core 0 is taken first. */
      s.free_cores[t][p->cores[t] - 1 - c] = l;
    }
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
    s.nfree[t] = p->cores[t];
  for (uint32_t i = 0; i < p->scheduler_threads; i++)
    s.free_sched[i] = p->scheduler_threads - 1 - i;
  s.nfree_sched = p->scheduler_threads;
  for (uint32_t i = 0; i < n; i++) {
    const RtTask *t = &g->tasks[i];
    STask *q = &s.st[i];
    q->deps = g->ndeps0[i];
    q->cycles = t->cycles;
    q->gm_bytes = t->gm_bytes;
    q->barrier = t->kernel < 0;
    q->type = (uint8_t)rt_task_core(g, i);
    tl->lane[i] = RT_NONE;
    memset(T(&s, i), 0, 5 * sizeof(double));
  }
  s.next_submit = s.completed = s.next_sync = 0;
  s.held = false;
  /* Barriers before the first task enter at once (none in practice). */
  if (n && !submit_next(&s))
    goto oom;
  while (s.nheap) {
    Event e = ev_pop(&s);
    s.now = e.time;
    account(&s);
    if (!handle(&s, &e) || !schedule(&s))
      goto oom;
  }
  tl->valid = true;
  goto done;
oom:
  rt_set_error(rt, "sim: out of memory");
  st = PTO_RT_ERR_NOMEM;
done:
  g->sim_heap = s.heap;
  g->sim_heap_cap = s.capheap;
  return st;
}
