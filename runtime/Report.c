/* The health report of a run: makespan, utilisation, critical path,
 * roofline bound, bubbles, tail, wave quantisation, scheduler waits, and
 * hints derived from those figures; as text or JSON. */
#include "Internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_long[] = {"cube", "vector", "AICPU"};

typedef struct Figures {
  PtoRtHealth h;
  bool sim;
  uint32_t tasks[PTO_RT_CORE_TYPE_COUNT];
  uint32_t lanes_of[PTO_RT_CORE_TYPE_COUNT]; /* lanes (cores) per type */
  double busy[PTO_RT_CORE_TYPE_COUNT];       /* us of task time per type */
  double bound_gm, bound_cube, bound_vec; /* us */
  double sched_util;
  double bubbles_us, worst_bubble_us;
  uint32_t worst_bubble_lane;
  double worst_bubble_at;
  uint32_t *path; /* critical path, first task first */
  uint32_t path_len;
  double path_work_us;
  double tail_from_us;
  uint32_t busiest_lane;
  double busiest_util, idlest_util;
  uint32_t idlest_lane;
} Figures;

static double dur(const PtoRtTimeline *tl, uint32_t i) {
  const double *t = &tl->times[(size_t)i * 5];
  return (t[3] - t[2]) * tl->us_per_unit;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* A task on its lane; `unit` is what runs one task at a time: the core
 * on the simulator, the worker thread on the host. */
typedef struct LaneTask {
  uint32_t unit, lane;
  double start, end;
} LaneTask;

static int cmp_lane_task(const void *a, const void *b) {
  const LaneTask *x = a, *y = b;
  if (x->unit != y->unit)
    return x->unit < y->unit ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Everything the report prints; false on allocation failure. */
static bool compute(const PtoRtTimeline *tl, Figures *f) {
  const PtoGraph *g = tl->g;
  const PtoRtPlatform *p = &g->rt->platform;
  double u = tl->us_per_unit;
  uint32_t n = g->ntasks;
  memset(f, 0, sizeof *f);
  f->sim = tl->backend == PTO_RT_SIM;
  double makespan = 0;
  uint64_t gm = 0, flops = 0, cycles[PTO_RT_CORE_TYPE_COUNT] = {0};
  uint32_t ran = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (tl->lane[i] == RT_NONE)
      continue;
    ran++;
    const double *t = &tl->times[(size_t)i * 5];
    makespan = fmax(makespan, fmax(t[3], t[4]) * u);
    PtoRtCoreType ct = rt_task_core(g, i);
    f->tasks[ct]++;
    f->busy[ct] += dur(tl, i);
    gm += g->tasks[i].gm_bytes;
    flops += g->tasks[i].flops;
    cycles[ct] += g->tasks[i].cycles;
  }
  f->h.makespan_us = makespan;
  for (uint32_t l = 0; l < tl->nlanes; l++)
    if (tl->lane_core[l] >= 0)
      f->lanes_of[tl->lane_core[l]]++;
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++) {
    /* On the host every worker stands in for every core type: a type
     * that ran has one lane per worker. */
    uint32_t lanes = f->lanes_of[t];
    f->h.utilisation[t] =
        makespan > 0 && lanes ? f->busy[t] / (lanes * makespan) : 0;
    uint32_t units = f->sim ? p->cores[t] : lanes;
    f->h.waves[t] = units ? (double)f->tasks[t] / units : 0;
  }
  /* Roofline: the slowest of moving all GM bytes at the achievable
   * bandwidth, all cube FLOPs at peak, and all vector cycles spread over
   * the vector cores. */
  double mhz = p->clock_mhz;
  f->bound_gm = gm / (p->gm_bytes_per_cycle * p->gm_efficiency) / mhz;
  f->bound_cube = flops / (p->cube_flops_per_cycle * p->cores[PTO_RT_CORE_AIC]) / mhz;
  f->bound_vec = (double)cycles[PTO_RT_CORE_AIV] / p->cores[PTO_RT_CORE_AIV] / mhz;
  f->h.bound_us = fmax(f->bound_gm, fmax(f->bound_cube, f->bound_vec));
  f->h.bound_ratio = f->h.bound_us > 0 ? makespan / f->h.bound_us : 0;
  f->h.idle_ready_us = tl->idle_ready * u;
  f->sched_util = makespan > 0 && tl->sched_threads
                      ? tl->sched_busy * u / (tl->sched_threads * makespan) : 0;

  /* Critical path by dependencies alone: longest chain of task durations
   * (ids are a topological order; barriers weigh nothing). */
  double *dist = calloc(n ? n : 1, sizeof *dist);
  uint32_t *from = malloc((n ? n : 1) * sizeof *from);
  LaneTask *lt = malloc((ran ? ran : 1) * sizeof *lt);
  double *ends = malloc((ran ? ran : 1) * 2 * sizeof *ends);
  if (!dist || !from || !lt || !ends) {
    free(dist), free(from), free(lt), free(ends);
    return false;
  }
  uint32_t last = RT_NONE;
  double best = -1;
  for (uint32_t i = 0; i < n; i++)
    from[i] = RT_NONE;
  for (uint32_t i = 0; i < n; i++) {
    double w = tl->lane[i] == RT_NONE ? 0 : dur(tl, i);
    double d = dist[i] + w;
    if (d > best) {
      best = d;
      last = i;
    }
    for (uint32_t e = g->succ_off[i]; e < g->succ_off[i + 1]; e++) {
      uint32_t s = g->succ[e];
      if (from[s] == RT_NONE || d > dist[s]) {
        dist[s] = d;
        from[s] = i;
      }
    }
  }
  f->h.critical_path_us = best > 0 ? best : 0;
  uint32_t len = 0;
  for (uint32_t v = last; v != RT_NONE; v = from[v])
    len += tl->lane[v] != RT_NONE;
  f->path = malloc((len ? len : 1) * sizeof *f->path);
  if (f->path) {
    uint32_t k = len;
    for (uint32_t v = last; v != RT_NONE; v = from[v])
      if (tl->lane[v] != RT_NONE)
        f->path[--k] = v;
    f->path_len = len;
  }
  f->h.critical_path_len = len;
  free(dist);
  free(from);

  /* Bubbles: idle gaps on a lane between its first start and last end. */
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (tl->lane[i] != RT_NONE) {
      const double *t = &tl->times[(size_t)i * 5];
      uint32_t l = tl->lane[i];
      lt[k++] = (LaneTask){tl->workers ? l % tl->workers : l, l, t[2] * u,
                           t[3] * u};
    }
  qsort(lt, ran, sizeof *lt, cmp_lane_task);
  double *lane_busy = calloc(tl->nlanes ? tl->nlanes : 1, sizeof *lane_busy);
  for (uint32_t i = 0; i < ran; i++) {
    if (lane_busy)
      lane_busy[lt[i].lane] += lt[i].end - lt[i].start;
    /* A gap counts when the core or worker sat idle, not while a host
     * worker ran a task of another core type. */
    if (i == 0 || lt[i - 1].unit != lt[i].unit)
      continue;
    double gap = lt[i].start - lt[i - 1].end;
    if (gap > 0) {
      f->bubbles_us += gap;
      if (gap > f->worst_bubble_us) {
        f->worst_bubble_us = gap;
        f->worst_bubble_lane = lt[i].lane;
        f->worst_bubble_at = lt[i - 1].end;
      }
    }
  }
  f->idlest_util = 2;
  for (uint32_t l = 0; l < tl->nlanes && lane_busy && makespan > 0; l++) {
    if (tl->lane_core[l] >= 0 && !f->tasks[tl->lane_core[l]])
      continue; /* a core type with no work at all */
    double ut = lane_busy[l] / makespan;
    if (ut > f->busiest_util) {
      f->busiest_util = ut;
      f->busiest_lane = l;
    }
    if (ut < f->idlest_util) {
      f->idlest_util = ut;
      f->idlest_lane = l;
    }
  }
  free(lane_busy);

  /* Tail: from the last moment at least half as many tasks ran at once
   * as at the peak, to the end. */
  double *st = ends, *en = ends + ran;
  for (uint32_t i = 0; i < ran; i++) {
    st[i] = lt[i].start;
    en[i] = lt[i].end;
  }
  qsort(st, ran, sizeof *st, cmp_double);
  qsort(en, ran, sizeof *en, cmp_double);
  uint32_t peak = 0;
  double last_half = -1;
  for (int pass = 0; pass < 2; pass++) {
    uint32_t a = 0, b = 0, running = 0;
    /* Ends before starts at equal times: back-to-back tasks do not
     * overlap. */
    while (a < ran || b < ran) {
      if (b < ran && (a == ran || en[b] <= st[a])) {
        if (pass && running * 2 >= peak)
          last_half = en[b];
        running--;
        b++;
      } else {
        running++;
        a++;
        peak = running > peak ? running : peak;
      }
    }
  }
  f->tail_from_us = last_half < 0 ? 0 : last_half;
  f->h.tail_us = last_half < 0 ? makespan : makespan - last_half;
  free(lt);
  free(ends);
  return true;
}

void pto_timeline_get_health(const PtoRtTimeline *tl, PtoRtHealth *out) {
  Figures f;
  memset(out, 0, sizeof *out);
  if (!tl || !tl->valid || !compute(tl, &f))
    return;
  *out = f.h;
  free(f.path);
}

/* The hints: each names the figure it comes from and what to change. */
static void hints(const PtoRtTimeline *tl, const Figures *f,
                  void (*emit)(void *, const char *), void *ctx) {
  const PtoRtPlatform *p = &tl->g->rt->platform;
  char buf[320];
  double ms = f->h.makespan_us;
  if (f->sim && f->sched_util > 0.8) {
    snprintf(buf, sizeof buf, "the scheduler is the bottleneck: its %u "
             "threads were %.0f%% busy; fewer, larger tasks (coarser tiles, "
             "or merging small kernels) cut submit, dispatch and dependency "
             "costs", tl->sched_threads, 100 * f->sched_util);
    emit(ctx, buf);
  }
  if (f->sim && ms > 0 && f->h.idle_ready_us > 0.1 * ms) {
    snprintf(buf, sizeof buf, "cores sat idle for %.2f us (core time) while "
             "ready work waited for a scheduler thread; more scheduler "
             "threads or fewer tasks would close that gap",
             f->h.idle_ready_us);
    emit(ctx, buf);
  }
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT && f->sim; t++) {
    double w = f->h.waves[t];
    uint32_t c = p->cores[t];
    if (f->tasks[t] < c || w - floor(w) == 0)
      continue;
    double frac = w - floor(w);
    uint32_t full = (uint32_t)ceil(w) * c;
    snprintf(buf, sizeof buf, "%u %s tasks on %u cores = %.2f waves: the "
             "last wave keeps %u of %u cores busy; %u tasks (%.0f full "
             "waves) would use the same time%s", f->tasks[t], type_long[t],
             c, w, (uint32_t)(f->tasks[t] - floor(w) * c), c, full, ceil(w),
             frac < 0.5 ? ", or re-tile so that the task count is a "
                          "multiple of the core count" : "");
    emit(ctx, buf);
  }
  if (f->sim && f->h.bound_us > 0 && f->h.bound_ratio > 2) {
    const char *what = f->bound_gm >= f->bound_cube && f->bound_gm >= f->bound_vec
                           ? "GM bandwidth"
                       : f->bound_cube >= f->bound_vec ? "cube throughput"
                                                       : "vector throughput";
    snprintf(buf, sizeof buf, "the run took %.2fx its roofline bound (%.2f "
             "us, set by %s); the gap is in scheduling, dependencies or "
             "load balance, not in the hardware limit", f->h.bound_ratio,
             f->h.bound_us, what);
    emit(ctx, buf);
  }
  if (ms > 0 && f->h.critical_path_us > 0.8 * ms && f->path_len > 1) {
    snprintf(buf, sizeof buf, "the critical path (%u tasks, %.2f us of "
             "work) makes up %.0f%% of the run: only shortening it (splitting "
             "its tasks, or fewer dependencies along it) helps",
             f->path_len, f->h.critical_path_us,
             100 * f->h.critical_path_us / ms);
    emit(ctx, buf);
  }
  if (ms > 0 && f->h.tail_us > 0.2 * ms && f->h.tail_us < ms) {
    snprintf(buf, sizeof buf, "the last %.2f us (%.0f%% of the run) ran "
             "under half of the peak parallelism: start the long tasks earlier or "
             "split the last ones", f->h.tail_us, 100 * f->h.tail_us / ms);
    emit(ctx, buf);
  }
  if (ms > 0 && f->bubbles_us > 0.25 * ms * (f->sim ? 1 : tl->workers) &&
      f->worst_bubble_us > 0) {
    snprintf(buf, sizeof buf, "bubbles: %.2f us of gaps between tasks on "
             "the same core (longest %.2f us on %s at %.2f us); those cores "
             "waited for inputs", f->bubbles_us, f->worst_bubble_us,
             tl->lane_names[f->worst_bubble_lane], f->worst_bubble_at);
    emit(ctx, buf);
  }
}

typedef struct TextCtx {
  FILE *f;
  int n;
  bool json;
} TextCtx;

static void emit_text(void *c, const char *s) {
  TextCtx *t = c;
  fprintf(t->f, "  - %s\n", s);
  t->n++;
}

static void emit_json(void *c, const char *s) {
  TextCtx *t = c;
  fprintf(t->f, "%s\n    ", t->n ? "," : "");
  rt_json_str(t->f, s);
  t->n++;
}

static void path_text(FILE *out, const PtoRtTimeline *tl, const Figures *f) {
  const PtoGraph *g = tl->g;
  /* Consecutive tasks with the same kernel and label are one step. */
  for (uint32_t i = 0; i < f->path_len;) {
    uint32_t j = i;
    const char *lab = rt_label(g, f->path[i]);
    while (j < f->path_len && g->tasks[f->path[j]].kernel == g->tasks[f->path[i]].kernel &&
           strcmp(rt_label(g, f->path[j]), lab) == 0)
      j++;
    fprintf(out, "%s%s%s%s", i ? " -> " : "", rt_task_name(g, f->path[i]),
            *lab ? ":" : "", lab);
    if (j - i > 1)
      fprintf(out, " x%u", j - i);
    i = j;
  }
}

PtoRtStatus pto_timeline_write_report(const PtoRtTimeline *tl, FILE *out,
                                      int json) {
  if (!tl || !out || !tl->valid || !tl->g->rt)
    return PTO_RT_ERR_MISUSE;
  Figures f;
  if (!compute(tl, &f))
    return PTO_RT_ERR_NOMEM;
  const PtoRtPlatform *p = &tl->g->rt->platform;
  const char *be = f.sim ? "sim" : "host";
  if (!json) {
    fprintf(out, "health report (%s, platform %s)\n", be, p->name);
    fprintf(out, "makespan: %.3f us\n", f.h.makespan_us);
    for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
      if (f.tasks[t])
        fprintf(out, "%s: %u tasks, %.2f waves on %u %s, utilisation %.1f%%\n",
                rt_core_names[t], f.tasks[t], f.h.waves[t],
                f.sim ? p->cores[t] : f.lanes_of[t],
                f.sim ? "cores" : "workers", 100 * f.h.utilisation[t]);
    if (f.busiest_util > 0)
      fprintf(out, "busiest lane: %s %.1f%%; idlest: %s %.1f%%\n",
              tl->lane_names[f.busiest_lane], 100 * f.busiest_util,
              tl->lane_names[f.idlest_lane], 100 * f.idlest_util);
    fprintf(out, "critical path: %u tasks, %.3f us of work: ", f.path_len,
            f.h.critical_path_us);
    path_text(out, tl, &f);
    fprintf(out, "\n");
    if (f.sim) {
      fprintf(out, "roofline bound: %.3f us (GM %.3f, cube %.3f, vector "
                   "%.3f); makespan / bound = %.2f\n", f.h.bound_us,
              f.bound_gm, f.bound_cube, f.bound_vec, f.h.bound_ratio);
      fprintf(out, "scheduler: %u threads, %.1f%% busy; cores idle while "
                   "ready work waited: %.3f us\n", tl->sched_threads,
              100 * f.sched_util, f.h.idle_ready_us);
    }
    fprintf(out, "bubbles: %.3f us in total, longest %.3f us\n",
            f.bubbles_us, f.worst_bubble_us);
    fprintf(out, "tail: %.3f us with under half of the peak number of "
                 "tasks running\n", f.h.tail_us);
    fprintf(out, "hints:\n");
    TextCtx c = {out, 0, false};
    hints(tl, &f, emit_text, &c);
    if (!c.n)
      fprintf(out, "  (none: no figure stands out)\n");
  } else {
    fprintf(out, "{\n  \"backend\": \"%s\",\n  \"platform\": ", be);
    rt_json_str(out, p->name);
    fprintf(out, ",\n  \"makespan_us\": %.4f,\n  \"types\": {", f.h.makespan_us);
    for (int t = 0, first = 1; t < PTO_RT_CORE_TYPE_COUNT; t++)
      if (f.tasks[t]) {
        fprintf(out, "%s\n    \"%s\": {\"tasks\": %u, \"cores\": %u, "
                     "\"waves\": %.4f, \"utilisation\": %.4f}",
                first ? "" : ",", rt_core_names[t], f.tasks[t],
                f.sim ? p->cores[t] : f.lanes_of[t], f.h.waves[t],
                f.h.utilisation[t]);
        first = 0;
      }
    fprintf(out, "\n  },\n  \"critical_path\": {\"tasks\": %u, \"work_us\": "
                 "%.4f, \"steps\": [", f.path_len, f.h.critical_path_us);
    for (uint32_t i = 0; i < f.path_len; i++) {
      fprintf(out, "%s{\"taskId\": %u, \"kernel\": ", i ? ", " : "", f.path[i]);
      rt_json_str(out, rt_task_name(tl->g, f.path[i]));
      fprintf(out, ", \"semanticLabel\": ");
      rt_json_str(out, rt_label(tl->g, f.path[i]));
      fprintf(out, "}");
    }
    fprintf(out, "]},\n");
    if (f.sim)
      fprintf(out, "  \"roofline\": {\"bound_us\": %.4f, \"gm_us\": %.4f, "
                   "\"cube_us\": %.4f, \"vector_us\": %.4f, \"ratio\": %.4f},\n"
                   "  \"scheduler\": {\"threads\": %u, \"busy\": %.4f, "
                   "\"idle_while_ready_us\": %.4f},\n",
              f.h.bound_us, f.bound_gm, f.bound_cube, f.bound_vec,
              f.h.bound_ratio, tl->sched_threads, f.sched_util,
              f.h.idle_ready_us);
    fprintf(out, "  \"bubbles_us\": %.4f,\n  \"longest_bubble_us\": %.4f,\n"
                 "  \"tail_us\": %.4f,\n  \"hints\": [\n    ",
            f.bubbles_us, f.worst_bubble_us, f.h.tail_us);
    TextCtx c = {out, 0, true};
    hints(tl, &f, emit_json, &c);
    fprintf(out, "\n  ]\n}\n");
  }
  free(f.path);
  return ferror(out) ? PTO_RT_ERR_IO : PTO_RT_OK;
}
