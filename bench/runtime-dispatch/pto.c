/* The runtime's side of bench/runtime-dispatch: empty-kernel task graphs
 * (a chain, a wavefront) submitted with their GM regions, run on host
 * threads, replayed, and simulated; plus the single-thread floor. Prints
 * one line per figure: "<name> <tasks per second>". */
#include "args.h"
#include "pto/Runtime.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }

static int k_empty(const PtoRtTaskArgs *a) {
  (void)a;
  return 0;
}
/* Marks its task as run: one byte store, so that the replay is checked
 * without an atomic per task the peers do not pay. The peers' replays run
 * the same kernel on a record of the same layout (args.h). */
_Static_assert(sizeof(BenchTaskArgs) == sizeof(PtoRtTaskArgs) &&
                   offsetof(BenchTaskArgs, task_id) ==
                       offsetof(PtoRtTaskArgs, task_id),
               "the peers' argument record is laid out like the runtime's");
static char *ran;
static int k_mark(const PtoRtTaskArgs *a) {
  ran[a->task_id] = 1;
  return 0;
}

/* Submits the graph: a chain of n tasks (task i reads cell i-1 and writes
 * cell i) or an s x s wavefront (each cell reads its left and upper
 * neighbour). With `regions`, dependencies come from the GM regions alone;
 * without, the same edges are given as explicit predecessors, as a
 * compiler that knows them statically would. With `stream`, the graph is
 * started before the first submission (buffer bases `stream`), so that
 * tasks run while later ones are submitted; the caller waits for it. */
static PtoGraph *build(PtoRuntime *rt, int32_t k, int chain, long n,
                       int regions, void *const *stream) {
  PtoGraph *g = pto_graph_create(rt);
  PtoRtTaskDesc d = {0};
  d.kernel = k;
  PtoRtRegion r[3];
  uint32_t preds[2];
  d.regions = r;
  d.preds = preds;
  long rows = chain ? 1 : n;
  pto_graph_add_buffer(g, rows * n * 8, "cells");
  if (stream && pto_graph_start(g, stream, 1) != PTO_RT_OK)
    return NULL;
  for (long i = 0; i < rows; i++)
    for (long j = 0; j < n; j++) {
      long cell = i * n + j, up = cell - n, left = chain ? cell - 1 : cell - 1;
      int has_up = !chain && i > 0, has_left = j > 0;
      d.num_regions = d.num_preds = 0;
      if (regions) {
        r[d.num_regions++] = (PtoRtRegion){0, cell * 8, 8, PTO_RT_WRITE};
        if (has_up)
          r[d.num_regions++] = (PtoRtRegion){0, up * 8, 8, PTO_RT_READ};
        if (has_left)
          r[d.num_regions++] = (PtoRtRegion){0, left * 8, 8, PTO_RT_READ};
      } else {
        if (has_up)
          preds[d.num_preds++] = (uint32_t)up;
        if (has_left)
          preds[d.num_preds++] = (uint32_t)left;
      }
      if (pto_graph_submit(g, &d) < 0)
        return NULL;
    }
  return g;
}

/* The floor: one thread walking the same DAG with a dependency counter
 * per task and an indirect call per task, nothing else. */
typedef int (*Fn)(const PtoRtTaskArgs *);
static double floor_rate(int chain, long n, int reps) {
  long tasks = chain ? n : n * n;
  uint32_t *cnt = malloc(tasks * sizeof *cnt), *init = malloc(tasks * sizeof *init);
  uint32_t *stack = malloc(tasks * sizeof *stack);
  for (long t = 0; t < tasks; t++)
    init[t] = chain ? (t > 0) : (t / n > 0) + (t % n > 0);
  volatile Fn fn = k_empty;
  PtoRtTaskArgs a;
  memset(&a, 0, sizeof a);
  double best = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    memcpy(cnt, init, tasks * sizeof *cnt);
    uint32_t top = 0;
    stack[top++] = 0;
    while (top) {
      uint32_t t = stack[--top];
      fn(&a);
      uint32_t succ[2], ns = 0;
      if (chain) {
        if (t + 1 < (uint32_t)tasks)
          succ[ns++] = t + 1;
      } else {
        if ((t % n) + 1 < (uint32_t)n)
          succ[ns++] = t + 1;
        if (t / n + 1 < (uint32_t)n)
          succ[ns++] = t + n;
      }
      for (uint32_t k = 0; k < ns; k++)
        if (--cnt[succ[k]] == 0)
          stack[top++] = succ[k];
    }
    double rate = tasks / (now() - t0);
    best = rate > best ? rate : best;
  }
  free(cnt);
  free(init);
  free(stack);
  return best;
}

int main(int argc, char **argv) {
  BenchArgs a;
  if (!bench_parse_args(argc, argv, &a))
    return 1;
  long n = a.n, tasks = a.tasks;
  int threads = a.threads, reps = a.reps;
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  PtoRtOptions o = {PTO_RT_HOST, (uint32_t)threads, 0};
  char err[256];
  PtoRuntime *rt = pto_runtime_create(&p, &o, err, sizeof err);
  if (!rt) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  int32_t k = pto_runtime_add_kernel(rt, k_empty, PTO_RT_CORE_AIV, "empty");
  int32_t kc = pto_runtime_add_kernel(rt, k_mark, PTO_RT_CORE_AIV, "mark");
  ran = malloc((size_t)tasks);
  char cells[8];
  void *bufs[1] = {cells};
  /* Submit + run + teardown, each time from nothing: dependencies from
   * the regions, then given as explicit edges. */
  for (int regions = 1; regions >= 0; regions--) {
    double best = 0;
    for (int r = 0; r < reps; r++) {
      double t0 = now();
      PtoGraph *g = build(rt, k, a.chain, n, regions, NULL);
      if (!g || pto_graph_run(g, bufs, 1) != PTO_RT_OK) {
        fprintf(stderr, "%s\n", pto_runtime_error(rt));
        return 1;
      }
      pto_graph_destroy(g);
      double rate = tasks / (now() - t0);
      best = rate > best ? rate : best;
    }
    printf("%s %.0f\n", regions ? "build_run" : "build_run_edges", best);
  }
  /* The same, submitting while the graph runs: the helper threads run
   * tasks as they become ready, the caller submits, then joins them. */
  double best_stream = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    PtoGraph *g = build(rt, k, a.chain, n, 1, bufs);
    if (!g || pto_graph_wait(g) != PTO_RT_OK) {
      fprintf(stderr, "%s\n", pto_runtime_error(rt));
      return 1;
    }
    pto_graph_destroy(g);
    double rate = tasks / (now() - t0);
    best_stream = rate > best_stream ? rate : best_stream;
  }
  printf("stream_run %.0f\n", best_stream);
  /* Replay of a built graph; the first run (which lays out the successor
   * lists) is not timed. Each task marks itself; the marks are checked. */
  PtoGraph *g = build(rt, kc, a.chain, n, 1, NULL);
  if (!g || pto_graph_run(g, bufs, 1) != PTO_RT_OK)
    return 1;
  double best = 0;
  for (int r = 0; r < reps; r++) {
    memset(ran, 0, (size_t)tasks);
    double t0 = now();
    if (pto_graph_run(g, bufs, 1) != PTO_RT_OK)
      return 1;
    double rate = tasks / (now() - t0);
    if (memchr(ran, 0, (size_t)tasks)) {
      fprintf(stderr, "replay: a task did not run\n");
      return 1;
    }
    best = rate > best ? rate : best;
  }
  printf("replay %.0f\n", best);
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
  /* The simulator on the same graph (a2a3 platform). */
  o.backend = PTO_RT_SIM;
  rt = pto_runtime_create(&p, &o, err, sizeof err);
  k = pto_runtime_add_kernel(rt, k_empty, PTO_RT_CORE_AIV, "empty");
  g = build(rt, k, a.chain, n, 1, NULL);
  if (!g || pto_graph_run(g, bufs, 1) != PTO_RT_OK)
    return 1;
  /* The simulator runs on the calling thread alone: besides wall time,
   * its rate per second of that thread's CPU time, which a machine shared
   * with other work does not distort. */
  best = 0;
  double best_cpu = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (pto_graph_run(g, bufs, 1) != PTO_RT_OK)
      return 1;
    double rate = tasks / (now() - t0);
    double cpu = tasks / (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0);
    best = rate > best ? rate : best;
    best_cpu = cpu > best_cpu ? cpu : best_cpu;
  }
  printf("sim %.0f\n", best);
  printf("sim_cpu %.0f\n", best_cpu);
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
  printf("floor %.0f\n", floor_rate(a.chain, n, reps));
  return 0;
}
