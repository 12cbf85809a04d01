/* Streaming runs (pto_graph_start, submit, pto_graph_wait): tasks run while
 * later ones are still being submitted; random DAGs streamed give the
 * sequential result and ordering; a kernel failing mid-submission stops
 * later submissions with its name; misuse is an error, and destroying a
 * running graph or its runtime stops it without hanging. */
#include "pto/Runtime.h"

#include "../unittests/Test.h"
#include "RandomDag.h"
#include "RuntimeFixture.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static atomic_int flag, ran;
static int k_set(const PtoRtTaskArgs *a) {
  atomic_store(&flag, (int)a->params[0]);
  atomic_fetch_add(&ran, 1);
  return 0;
}
static int k_fail(const PtoRtTaskArgs *a) { return (int)a->params[1]; }

/* Spins until `flag` is v or 20 s have passed. */
static bool wait_flag(int v) {
  for (double t0 = now_s(); now_s() - t0 < 20;)
    if (atomic_load(&flag) == v)
      return true;
  return false;
}

/* A task submitted after the start runs before pto_graph_wait is called:
 * the submitter waits for its effect before submitting the next one,
 * which a build-then-run runtime would never show. */
TEST(tasks_run_while_submitting) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 1, k_set, PTO_RT_CORE_AIV, "set", 1, 8, "x");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  char x[8];
  void *bufs[1] = {x};
  PtoRtRegion w = {0, 0, 8, PTO_RT_WRITE};
  atomic_store(&flag, 0);
  atomic_store(&ran, 0);
  CHECK(fx_submit(g, k, 1, 0, &w, 1, "before start") == 0);
  CHECK(pto_graph_start(g, bufs, 1) == PTO_RT_OK);
  CHECK(wait_flag(1));
  for (int i = 2; i <= 5; i++) {
    CHECK(fx_submit(g, k, i, 0, &w, 1, "streamed") == i - 1);
    CHECK(wait_flag(i));
  }
  CHECK(pto_graph_wait(g) == PTO_RT_OK);
  CHECK(atomic_load(&ran) == 5);
  /* The host timeline: each task submitted before it started, and after
   * its predecessor had started (its kernel set the flag waited for); it
   * started after its predecessor's kernel had returned. Not after the
   * predecessor's finish: that is stamped once its successors are
   * released, which a worker may start on first. */
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_HOST);
  CHECK(tl != NULL);
  PtoRtTaskTimes a, b;
  for (uint64_t i = 1; i < 5; i++) {
    CHECK(pto_timeline_get_task(tl, i - 1, &a) && pto_timeline_get_task(tl, i, &b));
    CHECK(b.submit <= b.start && a.start <= b.submit && a.end <= b.start);
  }
  /* Afterwards it is a built graph: a replay runs the five again. */
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_OK);
  CHECK(atomic_load(&ran) == 10 && atomic_load(&flag) == 5);
  fx_close(&f);
}

/* A kernel fails while submission goes on: the submissions after the
 * failure is seen return -1 naming the failed task, its dependents never
 * start, pto_graph_wait reports the failure, and the runtime runs the
 * next graph. */
TEST(failure_while_submitting) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 0, k_fail, PTO_RT_CORE_AIC, "maybe_fail",
                    1, 16, "a");
  PtoRuntime *rt = f.rt;
  PtoGraph *g = f.g;
  int32_t kf = f.k;
  int32_t ks = pto_runtime_add_kernel(rt, k_set, PTO_RT_CORE_AIV, "set");
  CHECK(g != NULL);
  char buf[16];
  void *bufs[1] = {buf};
  PtoRtRegion w0 = {0, 0, 8, PTO_RT_WRITE}, r0 = {0, 0, 8, PTO_RT_READ};
  PtoRtRegion w1 = {0, 8, 8, PTO_RT_WRITE};
  atomic_store(&flag, 0);
  atomic_store(&ran, 0);
  CHECK(pto_graph_start(g, bufs, 1) == PTO_RT_OK);
  CHECK(fx_submit(g, kf, 0, 7, &w0, 1, "softmax.row0") == 0);
  CHECK(fx_submit(g, ks, 1, 0, &r0, 1, "reader") == 1);
  /* Independent tasks until one is refused: the failure has been seen. */
  int64_t id = 0;
  double t0 = now_s();
  while (now_s() - t0 < 20 && (id = fx_submit(g, ks, 2, 0, &w1, 1, "other")) >= 0)
    ;
  CHECK(id == -1);
  CHECK_STR(pto_runtime_error(rt),
            "submit: the running graph stopped: task 0 (kernel 'maybe_fail', "
            "label 'softmax.row0') failed with status 7");
  CHECK(fx_submit(g, ks, 3, 0, &r0, 1, "late reader") == -1);
  CHECK(pto_graph_wait(g) == PTO_RT_ERR_KERNEL);
  CHECK_STR(pto_runtime_error(rt),
            "task 0 (kernel 'maybe_fail', label 'softmax.row0') failed with "
            "status 7; its 1 dependent tasks were not started");
  CHECK(atomic_load(&flag) != 1 && atomic_load(&flag) != 3);
  /* The runtime is usable afterwards, streaming or not. */
  PtoGraph *g2 = fx_graph(rt, 1, 8, "x");
  CHECK(pto_graph_start(g2, bufs, 1) == PTO_RT_OK);
  CHECK(fx_submit(g2, ks, 9, 0, NULL, 0, NULL) == 0);
  CHECK(pto_graph_wait(g2) == PTO_RT_OK && atomic_load(&flag) == 9);
  pto_graph_destroy(g2);
  fx_close(&f);
}

TEST(misuse_is_an_error) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 0, k_set, PTO_RT_CORE_AIV, "set", 1, 8, "x");
  PtoRuntime *rt = f.rt;
  PtoGraph *g = f.g, *g2 = fx_graph(rt, 1, 8, "y");
  int32_t k = f.k;
  CHECK(g != NULL && g2 != NULL);
  char x[8];
  void *bufs[1] = {x};
  CHECK(pto_graph_wait(g) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(rt),
            "wait: the graph is not running; start it with pto_graph_start");
  CHECK(pto_graph_start(g, bufs, 2) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(rt), "start: the graph has 1 buffers, 2 given");
  CHECK(pto_graph_start(g, bufs, 1) == PTO_RT_OK);
  CHECK(pto_graph_start(g, bufs, 1) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(rt),
            "start: the graph is already running; call pto_graph_wait first");
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(rt),
            "run: the graph is already running; call pto_graph_wait first");
  CHECK(pto_graph_run(g2, bufs, 1) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(rt),
            "run: another run is in progress on this runtime");
  CHECK(pto_graph_add_buffer(g, 8, "late") == -1);
  CHECK_STR(pto_runtime_error(rt), "buffer 'late': the graph is running; "
            "declare its buffers before pto_graph_start");
  CHECK(fx_submit(g, 99, 0, 0, NULL, 0, NULL) == -1);
  CHECK_STR(pto_runtime_error(rt), "submit: unknown kernel id 99 (1 registered)");
  CHECK(fx_submit(g, k, 1, 0, NULL, 0, NULL) == 0);
  CHECK(pto_graph_wait(g) == PTO_RT_OK);
  CHECK(pto_graph_wait(g) == PTO_RT_ERR_MISUSE);
  CHECK(pto_graph_run(g2, bufs, 1) == PTO_RT_OK);
  pto_graph_destroy(g2);
  fx_close(&f);
  CHECK(pto_graph_start(NULL, bufs, 1) == PTO_RT_ERR_MISUSE);
  CHECK(pto_graph_wait(NULL) == PTO_RT_ERR_MISUSE);
}

/* Blocks until `flag` is set (or 20 s pass): keeps a task running while
 * the graph is destroyed. */
static int k_block(const PtoRtTaskArgs *a) {
  (void)a;
  wait_flag(1);
  return 0;
}

/* Destroying a running graph, or the runtime under it, stops the run:
 * the task in progress finishes, the queued ones are dropped, nothing
 * hangs. */
TEST(destroy_while_running) {
  for (int whole = 0; whole < 2; whole++) {
    FxRun f = fx_open(PTO_RT_BOTH, 3, 1, k_block, PTO_RT_CORE_AIV, "block", 1,
                      8, "x");
    PtoRuntime *rt = f.rt;
    PtoGraph *g = f.g;
    int32_t kb = f.k;
    int32_t ks = pto_runtime_add_kernel(rt, k_set, PTO_RT_CORE_AIV, "set");
    CHECK(g != NULL);
    char x[8];
    void *bufs[1] = {x};
    PtoRtRegion w = {0, 0, 8, PTO_RT_WRITE};
    atomic_store(&flag, 0);
    atomic_store(&ran, 0);
    CHECK(pto_graph_start(g, bufs, 1) == PTO_RT_OK);
    CHECK(fx_submit(g, kb, 0, 0, &w, 1, NULL) == 0);
    for (int i = 0; i < 100; i++)
      CHECK(fx_submit(g, ks, 2, 0, &w, 1, NULL) > 0);
    atomic_store(&flag, 1); /* lets the blocking task finish */
    if (whole) {
      pto_runtime_destroy(rt);
      pto_graph_destroy(g);
    } else {
      pto_graph_destroy(g);
      pto_runtime_destroy(rt);
    }
    CHECK(atomic_load(&ran) <= 100);
  }
}

/* ---- random DAGs, streamed ---------------------------------------------- */

enum { MAX_TASKS = 300, MAX_REGIONS = 3, MAX_BUFS = 3, BUF_SIZE = 256 };

typedef struct Spec {
  uint32_t nreg;
  PtoRtRegion reg[MAX_REGIONS];
  uint32_t spin; /* busy iterations, so that runs overlap submission */
} Spec;

typedef struct Ctx {
  Spec spec[MAX_TASKS];
  uint32_t ntasks, nbufs;
  atomic_uint clock;
  uint32_t start[MAX_TASKS], end[MAX_TASKS];
  atomic_uint submitted; /* tasks submitted so far */
  uint32_t seen[MAX_TASKS]; /* submissions done when the task started */
} Ctx;

static int k_rand(const PtoRtTaskArgs *a) {
  Ctx *c = a->user;
  uint32_t i = (uint32_t)a->params[0];
  c->start[i] = atomic_fetch_add(&c->clock, 1);
  c->seen[i] = atomic_load(&c->submitted);
  for (volatile uint32_t k = 0; k < c->spec[i].spin; k++)
    ;
  dag_body(c->spec[i].reg, c->spec[i].nreg, i, a->buffers);
  c->end[i] = atomic_fetch_add(&c->clock, 1);
  return 0;
}

static bool conflict(const Spec *a, const Spec *b) {
  return dag_conflict(a->reg, a->nreg, b->reg, b->nreg);
}

static uint8_t bufs_ref[MAX_BUFS][BUF_SIZE], bufs_run[MAX_BUFS][BUF_SIZE];

static void init_bufs(uint8_t (*b)[BUF_SIZE], uint32_t seed) {
  dag_init_bufs(&b[0][0], MAX_BUFS, BUF_SIZE, seed);
}

static Ctx ctx;

/* Every pair of conflicting tasks ran in submission order. */
static int misordered(const Ctx *c) {
  int bad = 0;
  for (uint32_t j = 0; j < c->ntasks; j++)
    for (uint32_t i = 0; i < j; i++)
      if (conflict(&c->spec[i], &c->spec[j]) && !(c->end[i] < c->start[j]))
        bad++;
  return bad;
}

TEST(random_dags_streamed) {
  uint32_t overlapped = 0;
  for (uint32_t round = 0; round < 40; round++) {
    rng_state = 0x2545f4914f6cdd1dull + round;
    Ctx *c = &ctx;
    memset(c, 0, sizeof *c);
    c->ntasks = 50 + rnd(MAX_TASKS - 50);
    c->nbufs = 1 + rnd(MAX_BUFS);
    for (uint32_t i = 0; i < c->ntasks; i++) {
      Spec *s = &c->spec[i];
      s->nreg = 1 + rnd(MAX_REGIONS);
      s->spin = rnd(4) == 0 ? rnd(20000) : 0;
      for (uint32_t r = 0; r < s->nreg; r++) {
        PtoRtRegion *g = &s->reg[r];
        g->buffer = rnd(c->nbufs);
        g->offset = rnd(BUF_SIZE - 1);
        uint32_t room = BUF_SIZE - (uint32_t)g->offset;
        g->size = rnd(10) == 0 ? room : 1 + rnd(room < 40 ? room : 40);
        static const PtoRtAccess modes[] = {PTO_RT_READ, PTO_RT_READ,
                                            PTO_RT_WRITE, PTO_RT_READ_WRITE};
        g->access = modes[rnd(4)];
      }
    }
    init_bufs(bufs_ref, round);
    void *ref[MAX_BUFS] = {bufs_ref[0], bufs_ref[1], bufs_ref[2]};
    for (uint32_t i = 0; i < c->ntasks; i++)
      dag_body(c->spec[i].reg, c->spec[i].nreg, i, ref);

    FxRun f = fx_open(round % 2 ? PTO_RT_BOTH : PTO_RT_HOST, 2 + round % 3,
                      round % 4 == 1, k_rand, PTO_RT_CORE_AIC, "cube", c->nbufs,
                      BUF_SIZE, "buf");
    PtoGraph *g = f.g;
    int32_t k[2] = {f.k, pto_runtime_add_kernel(f.rt, k_rand, PTO_RT_CORE_AIV,
                                                "vec")};
    CHECK(g != NULL);
    init_bufs(bufs_run, round);
    void *run[MAX_BUFS] = {bufs_run[0], bufs_run[1], bufs_run[2]};
    /* Some tasks submitted before the start, the rest while it runs. */
    uint32_t before = round % 3 == 0 ? rnd(c->ntasks) : 0;
    for (uint32_t i = 0; i < c->ntasks; i++) {
      if (i == before)
        CHECK(pto_graph_start(g, run, c->nbufs) == PTO_RT_OK);
      PtoRtTaskDesc d = {0};
      d.kernel = k[rnd(2)];
      d.regions = c->spec[i].reg;
      d.num_regions = c->spec[i].nreg;
      d.params[0] = i;
      d.user = c;
      d.cycles = 100 + rnd(2000);
      CHECK(pto_graph_submit(g, &d) >= 0);
      atomic_store(&c->submitted, i + 1);
      /* Once the first task after the start is in, wait for one to run
       * (a helper runs it), so that the rest is submitted while the
       * graph runs even on a loaded machine. */
      for (double t0 = now_s(); i == before && atomic_load(&c->clock) == 0 &&
                                now_s() - t0 < 20;)
        ;
    }
    CHECK(pto_graph_wait(g) == PTO_RT_OK);
    CHECK(memcmp(bufs_ref, bufs_run, sizeof bufs_ref) == 0);
    CHECK(misordered(c) == 0);
    for (uint32_t i = 0; i < c->ntasks; i++)
      overlapped += c->seen[i] < c->ntasks;
    if (round % 2) { /* the simulator ran the same graph at the wait */
      const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_SIM);
      CHECK(tl != NULL);
      PtoRtTaskTimes t;
      CHECK(tl && pto_timeline_get_task(tl, 0, &t));
    }
    /* The streamed graph replays like a built one. */
    init_bufs(bufs_run, round);
    atomic_store(&c->clock, 0);
    CHECK(pto_graph_run(g, run, c->nbufs) == PTO_RT_OK);
    CHECK(memcmp(bufs_ref, bufs_run, sizeof bufs_ref) == 0);
    CHECK(misordered(c) == 0);
    fx_close(&f);
  }
  /* Tasks started while submission went on (not a build-then-run). */
  CHECK(overlapped > 0);
}

/* dst = src + 1 (int64), buffers params[0] -> params[1]; counts runs. */
static int k_inc(const PtoRtTaskArgs *a) {
  const int64_t *src = a->buffers[a->params[0]];
  int64_t *dst = a->buffers[a->params[1]];
  *dst = *src + 1;
  atomic_fetch_add(&ran, 1);
  return 0;
}

/* pto_graph_resume: a run in steps, as an orchestrator that reads a result
 * before it submits more does. Each step runs only the tasks submitted
 * since the last, on what they left; a buffer declared between steps is
 * fine. The host timeline is the one run's, every task in it once and
 * timed from its start; the simulator holds the submission of a step's
 * first task until every earlier task has finished, on a replay too. */
TEST(resume_runs_each_task_once) {
  FxRun f = fx_open(PTO_RT_BOTH, 2, 1, k_inc, PTO_RT_CORE_AIV, "inc", 2, 8, "x");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  if (!g) {
    fx_close(&f);
    return;
  }
  int64_t x[3] = {10, 0, 0};
  void *bufs[3] = {&x[0], &x[1], &x[2]};
  PtoRtRegion r01[2] = {{0, 0, 8, PTO_RT_READ}, {1, 0, 8, PTO_RT_WRITE}};
  PtoRtRegion r11 = {1, 0, 8, PTO_RT_READ_WRITE};
  PtoRtRegion r22 = {2, 0, 8, PTO_RT_READ_WRITE};
  atomic_store(&ran, 0);
  /* nothing submitted: an empty step */
  CHECK(pto_graph_resume(g, bufs, 2) == PTO_RT_OK);
  CHECK(fx_submit(g, k, 0, 1, r01, 2, "a") == 0);
  CHECK(fx_submit(g, k, 1, 1, &r11, 1, "b") == 1);
  CHECK(pto_graph_resume(g, bufs, 2) == PTO_RT_OK);
  CHECK(atomic_load(&ran) == 2 && x[1] == 12);
  /* the buffer count is checked as for a run */
  CHECK(pto_graph_add_buffer(g, 8, "z") == 2);
  CHECK(pto_graph_resume(g, bufs, 2) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(f.rt), "resume: the graph has 3 buffers, 2 given");
  /* c depends on neither a nor b */
  CHECK(fx_submit(g, k, 2, 2, &r22, 1, "c") == 2);
  CHECK(pto_graph_resume(g, bufs, 3) == PTO_RT_OK);
  CHECK(atomic_load(&ran) == 3 && x[1] == 12 && x[2] == 1);
  CHECK(pto_graph_resume(g, bufs, 3) == PTO_RT_OK);
  CHECK(atomic_load(&ran) == 3);
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_HOST);
  PtoRtTaskTimes t[3];
  CHECK(tl != NULL);
  for (uint64_t i = 0; tl && i < 3; i++) CHECK(pto_timeline_get_task(tl, i, &t[i]));
  /* one clock: c was submitted, and ran, after b had finished */
  if (tl) CHECK(t[1].finish <= t[2].submit && t[2].submit <= t[2].start);
  const PtoRtTimeline *sim = pto_graph_get_timeline(g, PTO_RT_SIM);
  CHECK(sim != NULL);
  for (uint64_t i = 0; sim && i < 3; i++) CHECK(pto_timeline_get_task(sim, i, &t[i]));
  if (sim) CHECK(t[1].finish <= t[2].submit && t[0].start < t[1].start);
  /* a replay runs every task again, and the simulator still holds c */
  x[0] = 10;
  x[2] = 0;
  CHECK(pto_graph_run(g, bufs, 3) == PTO_RT_OK);
  CHECK(atomic_load(&ran) == 6 && x[1] == 12 && x[2] == 1);
  sim = pto_graph_get_timeline(g, PTO_RT_SIM);
  for (uint64_t i = 0; sim && i < 3; i++) CHECK(pto_timeline_get_task(sim, i, &t[i]));
  if (sim) CHECK(t[1].finish <= t[2].submit);
  fx_close(&f);
}

/* A kernel failing in a step: the step reports it, its dependents in the
 * step do not run. */
TEST(resume_reports_a_failure) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 1, k_fail, PTO_RT_CORE_AIV, "fail", 1, 8, "x");
  PtoGraph *g = f.g;
  CHECK(g != NULL);
  if (!g) {
    fx_close(&f);
    return;
  }
  char x[8];
  void *bufs[1] = {x};
  PtoRtRegion w = {0, 0, 8, PTO_RT_READ_WRITE};
  CHECK(fx_submit(g, f.k, 0, 0, &w, 1, "ok") == 0);
  CHECK(pto_graph_resume(g, bufs, 1) == PTO_RT_OK);
  CHECK(fx_submit(g, f.k, 0, 7, &w, 1, "bad") == 1);
  CHECK(fx_submit(g, f.k, 0, 0, &w, 1, "after") == 2);
  CHECK(pto_graph_resume(g, bufs, 1) == PTO_RT_ERR_KERNEL);
  CHECK_STR(pto_runtime_error(f.rt), "task 1 (kernel 'fail', label 'bad') failed "
            "with status 7; its 1 dependent tasks were not started");
  /* the failed step's tasks did not all finish: a resume refuses rather
   * than count them as finished, even with a new task to run */
  CHECK(fx_submit(g, f.k, 0, 0, &w, 1, "later") == 3);
  CHECK(pto_graph_resume(g, bufs, 1) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(f.rt), "resume: an earlier run of the graph failed, so "
            "what its tasks left is unknown; pto_graph_run runs the whole graph again");
  CHECK(pto_graph_resume(g, bufs, 1) == PTO_RT_ERR_MISUSE);
  /* a whole run runs every task again: it fails at the same task, and
   * the graph still refuses to resume */
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_ERR_KERNEL);
  CHECK_STR(pto_runtime_error(f.rt), "task 1 (kernel 'fail', label 'bad') failed "
            "with status 7; its 2 dependent tasks were not started");
  CHECK(pto_graph_resume(g, bufs, 1) == PTO_RT_ERR_MISUSE);
  fx_close(&f);
}

RUN_TESTS(T(tasks_run_while_submitting), T(failure_while_submitting),
          T(misuse_is_an_error), T(destroy_while_running),
          T(random_dags_streamed), T(resume_runs_each_task_once),
          T(resume_reports_a_failure))
