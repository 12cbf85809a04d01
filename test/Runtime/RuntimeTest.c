/* The runtime's API: dependencies derived from regions, explicit edges,
 * barriers for wide fan-ins, replay, errors as values, misuse, and the
 * simulator's timing on graphs small enough to work out by hand. */
#include "pto/Runtime.h"
/* A program that drives the runtime from a platform file includes both:
 * their names must not clash. */
#include "pto/Platform.h"

#include "../unittests/Test.h"
#include "RuntimeFixture.h"

#include <stdatomic.h>
#include <string.h>

/* Appends its task's params[0] to a log in buffer 0 (one writer at a
 * time: every task of these graphs touches word 0). */
static int k_log(const PtoRtTaskArgs *a) {
  int64_t *buf = a->buffers[0];
  buf[++buf[0]] = a->params[0];
  return 0;
}

static int k_fail(const PtoRtTaskArgs *a) { return (int)a->params[1]; }

static atomic_int ran;
static int k_count(const PtoRtTaskArgs *a) {
  atomic_fetch_add(&ran, 1);
  return 0;
}

/* Every test here records host times. */
static int64_t submit(PtoGraph *g, int32_t k, int64_t p0, const PtoRtRegion *r,
                      uint32_t nr, const char *label) {
  return fx_submit(g, k, p0, 0, r, nr, label);
}

TEST(platform_default) {
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  CHECK_STR(p.name, "a2a3");
  CHECK(p.cores[PTO_RT_CORE_AIC] == 24 && p.cores[PTO_RT_CORE_AIV] == 48);
  CHECK(p.cores[PTO_RT_CORE_AICPU] == 6);
  CHECK(p.clock_mhz == 1800.0);
  CHECK(p.completion_cycles == 240 && p.dispatch_cycles == 200);
  CHECK(p.dep_resolve_cycles == 390 && p.submit_cycles == 100);
}

TEST(chain_in_order) {
  FxRun f = fx_open(PTO_RT_HOST, 4, 1, k_log, PTO_RT_CORE_AIV, "log", 1,
                    8 * 201, "log");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  PtoRtRegion r = {0, 0, 8, PTO_RT_READ_WRITE};
  for (int i = 0; i < 200; i++)
    CHECK(submit(g, k, i, &r, 1, "step") == i);
  PtoRtGraphStats st;
  pto_graph_get_stats(g, &st);
  CHECK(st.tasks == 200 && st.edges == 199 && st.barriers == 0);
  int64_t log[201] = {0};
  void *bufs[1] = {log};
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_OK);
  CHECK(log[0] == 200);
  for (int i = 0; i < 200; i++)
    CHECK(log[i + 1] == i);
  /* Replay with a new buffer. */
  int64_t log2[201] = {0};
  bufs[0] = log2;
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_OK);
  CHECK(log2[0] == 200 && log2[200] == 199);
  fx_close(&f);
}

static uint32_t preds_of(PtoGraph *g, int64_t id, uint64_t *out) {
  return pto_graph_get_preds(g, (uint64_t)id, out, 16);
}

TEST(raw_war_waw) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 1, k_count, PTO_RT_CORE_AIC, "k", 2, 100,
                    "buf");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  PtoRtRegion w0 = {0, 0, 50, PTO_RT_WRITE};
  PtoRtRegion r1 = {0, 40, 20, PTO_RT_READ};   /* overlaps w0: RAW */
  PtoRtRegion r2 = {0, 60, 10, PTO_RT_READ};   /* no overlap */
  PtoRtRegion w3 = {0, 45, 20, PTO_RT_WRITE};  /* WAW on w0, WAR on r1, r2 */
  PtoRtRegion rb = {1, 0, 100, PTO_RT_READ};   /* other buffer */
  PtoRtRegion w5 = {0, 0, 10, PTO_RT_WRITE};   /* WAW on w0 only */
  int64_t t0 = submit(g, k, 0, &w0, 1, NULL);
  int64_t t1 = submit(g, k, 0, &r1, 1, NULL);
  int64_t t2 = submit(g, k, 0, &r2, 1, NULL);
  int64_t t3 = submit(g, k, 0, &w3, 1, NULL);
  int64_t t4 = submit(g, k, 0, &rb, 1, NULL);
  int64_t t5 = submit(g, k, 0, &w5, 1, NULL);
  uint64_t p[16];
  CHECK(preds_of(g, t0, p) == 0);
  CHECK(preds_of(g, t1, p) == 1 && p[0] == (uint64_t)t0);
  CHECK(preds_of(g, t2, p) == 0);
  CHECK(preds_of(g, t3, p) == 3);
  CHECK(p[0] == (uint64_t)t0 && p[1] == (uint64_t)t1 && p[2] == (uint64_t)t2);
  CHECK(preds_of(g, t4, p) == 0);
  CHECK(preds_of(g, t5, p) == 1 && p[0] == (uint64_t)t0);
  fx_close(&f);
}

TEST(explicit_preds_not_duplicated) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 1, k_count, PTO_RT_CORE_AIC, "k", 1, 16,
                    "a");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  PtoRtRegion w = {0, 0, 16, PTO_RT_WRITE}, r = {0, 0, 8, PTO_RT_READ};
  int64_t a = submit(g, k, 0, &w, 1, NULL);
  int64_t b = submit(g, k, 0, NULL, 0, NULL); /* touches no GM */
  uint32_t preds[3] = {(uint32_t)a, (uint32_t)b, (uint32_t)a};
  PtoRtTaskDesc d = {0};
  d.kernel = k;
  d.regions = &r;
  d.num_regions = 1;
  d.preds = preds;
  d.num_preds = 3;
  int64_t c = pto_graph_submit(g, &d);
  uint64_t p[16];
  CHECK(preds_of(g, c, p) == 2 && p[0] == (uint64_t)a && p[1] == (uint64_t)b);
  PtoRtGraphStats st;
  pto_graph_get_stats(g, &st);
  CHECK(st.edges == 2);
  fx_close(&f);
}

TEST(wide_fan_in_through_one_barrier) {
  enum { N = 64, M = 64 };
  FxRun f = fx_open(PTO_RT_BOTH, 3, 1, k_count, PTO_RT_CORE_AIV, "k", 1, N * 64,
                    "a");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  int64_t producers[N];
  for (int i = 0; i < N; i++) {
    PtoRtRegion w = {0, i * 64, 64, PTO_RT_WRITE};
    producers[i] = submit(g, k, 0, &w, 1, "produce");
  }
  int64_t consumers[M];
  for (int j = 0; j < M; j++) {
    PtoRtRegion r = {0, 0, N * 64, PTO_RT_READ};
    consumers[j] = submit(g, k, 0, &r, 1, "consume");
  }
  PtoRtGraphStats st;
  pto_graph_get_stats(g, &st);
  CHECK(st.tasks == N + M);
  /* N edges into one barrier, one edge from it to each consumer; the
   * consumers' readers are folded in groups for the sake of later writers,
   * which adds no edge between producers and consumers. */
  CHECK(st.barriers >= 1);
  CHECK(st.edges < 2 * (N + M));
  uint64_t p[16];
  CHECK(preds_of(g, consumers[0], p) == 1 && pto_graph_is_barrier(g, p[0]));
  uint64_t bp[N + 1];
  CHECK(pto_graph_get_preds(g, p[0], bp, N + 1) == N);
  CHECK(bp[0] == (uint64_t)producers[0] && bp[N - 1] == (uint64_t)producers[N - 1]);
  /* A writer after them all waits for every consumer through barriers. */
  PtoRtRegion w = {0, 0, 64, PTO_RT_WRITE};
  int64_t last = submit(g, k, 0, &w, 1, "overwrite");
  CHECK(preds_of(g, last, p) <= 16);
  atomic_store(&ran, 0);
  char dummy[N * 64];
  void *bufs[1] = {dummy};
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_OK);
  CHECK(atomic_load(&ran) == N + M + 1);
  /* The sim agrees on the order: every consumer starts after every
   * producer's completion, the writer after every consumer's end. */
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_SIM);
  CHECK(tl != NULL);
  PtoRtTaskTimes a, b;
  double last_producer = 0, last_consumer = 0, first_consumer = 1e30;
  for (int i = 0; i < N; i++) {
    CHECK(pto_timeline_get_task(tl, producers[i], &a));
    last_producer = a.finish > last_producer ? a.finish : last_producer;
  }
  for (int j = 0; j < M; j++) {
    CHECK(pto_timeline_get_task(tl, consumers[j], &b));
    first_consumer = b.start < first_consumer ? b.start : first_consumer;
    last_consumer = b.end > last_consumer ? b.end : last_consumer;
  }
  CHECK(first_consumer > last_producer);
  CHECK(pto_timeline_get_task(tl, last, &a) && a.start > last_consumer);
  fx_close(&f);
}

TEST(failing_kernel_stops_graph) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 1, k_fail, PTO_RT_CORE_AIC, "maybe_fail", 1,
                    64, "a");
  PtoRuntime *rt = f.rt;
  PtoGraph *g = f.g;
  int32_t kf = f.k;
  int32_t kc = pto_runtime_add_kernel(rt, k_count, PTO_RT_CORE_AIC, "count");
  CHECK(g != NULL);
  PtoRtRegion w = {0, 0, 8, PTO_RT_WRITE}, r = {0, 0, 8, PTO_RT_READ};
  PtoRtTaskDesc d = {0};
  d.kernel = kf;
  d.regions = &w;
  d.num_regions = 1;
  d.params[1] = 7;
  d.label = "softmax.row0";
  int64_t bad = pto_graph_submit(g, &d);
  for (int i = 0; i < 10; i++)
    submit(g, kc, 0, &r, 1, "reader");
  atomic_store(&ran, 0);
  char buf[64];
  void *bufs[1] = {buf};
  CHECK(bad == 0);
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_ERR_KERNEL);
  CHECK_STR(pto_runtime_error(rt),
            "task 0 (kernel 'maybe_fail', label 'softmax.row0') failed with "
            "status 7; its 10 dependent tasks were not started");
  CHECK(atomic_load(&ran) == 0);
  /* The runtime is usable afterwards. */
  PtoGraph *g2 = fx_graph(rt, 1, 8, "x");
  submit(g2, kc, 0, NULL, 0, NULL);
  CHECK(pto_graph_run(g2, bufs, 1) == PTO_RT_OK && atomic_load(&ran) == 1);
  pto_graph_destroy(g2);
  fx_close(&f);
}

/* Stores params[1] into the word at params[0] of the last buffer, and
 * fails unless the task sees every buffer declared before the run. */
static int k_store_last(const PtoRtTaskArgs *a) {
  if (a->num_buffers != (uint32_t)a->params[2])
    return 1;
  int64_t *buf = a->buffers[a->num_buffers - 1];
  buf[a->params[0]] = a->params[1];
  return 0;
}

/* Tasks submitted before a buffer is declared still receive the whole
 * buffer table, also when declaring it moved the table. */
TEST(buffers_declared_after_tasks) {
  enum { NBUF = 100 };
  FxRun f = fx_open(PTO_RT_HOST, 2, 1, k_store_last, PTO_RT_CORE_AIV, "store",
                    1, 8, "first");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  PtoRtTaskDesc d = {0};
  d.kernel = k;
  d.params[1] = 11;
  d.params[2] = NBUF;
  CHECK(pto_graph_submit(g, &d) == 0);
  for (int i = 1; i < NBUF; i++)
    CHECK(pto_graph_add_buffer(g, 16, "more") == i);
  d.params[0] = 1;
  d.params[1] = 22;
  CHECK(pto_graph_submit(g, &d) == 1);
  int64_t words[NBUF][2] = {{0}};
  void *bufs[NBUF];
  for (int i = 0; i < NBUF; i++)
    bufs[i] = words[i];
  CHECK(pto_graph_run(g, bufs, NBUF) == PTO_RT_OK);
  CHECK(words[NBUF - 1][0] == 11 && words[NBUF - 1][1] == 22);
  fx_close(&f);
}

/* Many short runs in a row on four threads, some failing: helpers that
 * slept through a run, or were parked when it ended, join the next one
 * and never touch a finished run. */
TEST(runs_back_to_back) {
  PtoRuntime *rt = fx_runtime(PTO_RT_HOST, 4, 1);
  int32_t kc = pto_runtime_add_kernel(rt, k_count, PTO_RT_CORE_AIV, "count");
  int32_t kf = pto_runtime_add_kernel(rt, k_fail, PTO_RT_CORE_AIC, "fail");
  PtoGraph *fan = pto_graph_create(rt), *chain = pto_graph_create(rt);
  pto_graph_add_buffer(fan, 8 * 17, "a");
  pto_graph_add_buffer(chain, 8, "b");
  PtoRtRegion w0 = {0, 0, 8, PTO_RT_WRITE};
  submit(fan, kc, 0, &w0, 1, NULL);
  for (int i = 1; i <= 16; i++) {
    PtoRtRegion r[2] = {{0, 0, 8, PTO_RT_READ}, {0, 8 * i, 8, PTO_RT_WRITE}};
    submit(fan, kc, 0, r, 2, NULL);
  }
  PtoRtRegion rw = {0, 0, 8, PTO_RT_READ_WRITE};
  for (int i = 0; i < 8; i++)
    submit(chain, kc, 0, &rw, 1, NULL);
  PtoRtTaskDesc d = {0};
  d.kernel = kf;
  d.params[1] = 3;
  d.regions = &rw;
  d.num_regions = 1;
  CHECK(pto_graph_submit(chain, &d) == 8);
  submit(chain, kc, 0, &rw, 1, NULL);
  int64_t words[17];
  void *bufs[1] = {words};
  for (int run = 0; run < 300; run++) {
    atomic_store(&ran, 0);
    if (run % 3 == 2) {
      CHECK(pto_graph_run(chain, bufs, 1) == PTO_RT_ERR_KERNEL);
      CHECK(atomic_load(&ran) == 8);
    } else {
      CHECK(pto_graph_run(fan, bufs, 1) == PTO_RT_OK);
      CHECK(atomic_load(&ran) == 17);
    }
  }
  pto_graph_destroy(fan);
  pto_graph_destroy(chain);
  pto_runtime_destroy(rt);
}

/* Replays of graphs whose tasks mostly have one predecessor: the run
 * resets only the counters of the few joins (none for a plain chain),
 * which must start every replay at their full count again. */
TEST(replay_with_few_joins) {
  PtoRuntime *rt = fx_runtime(PTO_RT_HOST, 3, 1);
  int32_t kl = pto_runtime_add_kernel(rt, k_log, PTO_RT_CORE_AIV, "log");
  int32_t kc = pto_runtime_add_kernel(rt, k_count, PTO_RT_CORE_AIC, "side");
  for (int joins = 0; joins <= 1; joins++) {
    PtoGraph *g = pto_graph_create(rt);
    pto_graph_add_buffer(g, 8 * 201, "log");
    pto_graph_add_buffer(g, 8 * 10, "side");
    PtoRtRegion rw = {0, 0, 8, PTO_RT_READ_WRITE};
    int nside = 0;
    for (int i = 0; i < 200; i++) {
      if (joins && i % 20 == 10) { /* a side task the next one joins */
        PtoRtRegion w = {1, 8 * (i / 20), 8, PTO_RT_WRITE};
        submit(g, kc, 0, &w, 1, NULL);
        nside++;
      }
      PtoRtRegion r[2] = {rw, {1, 8 * (i / 20), 8, PTO_RT_READ}};
      submit(g, kl, i, r, joins && i % 20 == 11 ? 2 : 1, NULL);
    }
    int64_t log[201], side[10];
    void *bufs[2] = {log, side};
    for (int run = 0; run < 50; run++) {
      memset(log, 0, sizeof log);
      atomic_store(&ran, 0);
      CHECK(pto_graph_run(g, bufs, 2) == PTO_RT_OK);
      CHECK(log[0] == 200 && atomic_load(&ran) == nside);
      int in_order = 1;
      for (int i = 0; i < 200; i++)
        in_order &= log[i + 1] == i;
      CHECK(in_order);
    }
    pto_graph_destroy(g);
  }
  pto_runtime_destroy(rt);
}

/* Host lanes are named like the simulator's cores: one per worker and
 * core type that has tasks, each task on a lane of its kernel's type. */
TEST(host_lanes_named_by_core_type) {
  FxRun f = fx_open(PTO_RT_HOST, 2, 1, k_count, PTO_RT_CORE_AIC, "cube", 1, 64,
                    "a");
  PtoGraph *g = f.g;
  int32_t kc = f.k;
  int32_t kv = pto_runtime_add_kernel(f.rt, k_count, PTO_RT_CORE_AIV, "vec");
  CHECK(g != NULL);
  int64_t ids[8];
  for (int i = 0; i < 8; i++) {
    PtoRtRegion w = {0, 8 * i, 8, PTO_RT_WRITE};
    ids[i] = submit(g, i % 2 ? kv : kc, 0, &w, 1, NULL);
  }
  char buf[64];
  void *bufs[1] = {buf};
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_OK);
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_HOST);
  CHECK(tl != NULL && pto_timeline_get_lanes(tl) == 4);
  CHECK_STR(pto_timeline_get_lane_name(tl, 0), "AIC 0");
  CHECK_STR(pto_timeline_get_lane_name(tl, 1), "AIC 1");
  CHECK_STR(pto_timeline_get_lane_name(tl, 2), "AIV 0");
  CHECK_STR(pto_timeline_get_lane_name(tl, 3), "AIV 1");
  for (int i = 0; i < 8; i++) {
    PtoRtTaskTimes t;
    CHECK(pto_timeline_get_task(tl, ids[i], &t));
    CHECK(strncmp(pto_timeline_get_lane_name(tl, t.lane), i % 2 ? "AIV " : "AIC ",
                  4) == 0);
  }
  fx_close(&f);
}

TEST(misuse_is_an_error) {
  char err[160];
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  p.cores[PTO_RT_CORE_AIV] = 0;
  CHECK(pto_runtime_create(&p, NULL, err, sizeof err) == NULL);
  CHECK_STR(err, "platform: every core type needs between 1 and 4096 cores");
  pto_rt_platform_default(&p);
  p.gm_efficiency = 1.5;
  CHECK(pto_runtime_create(&p, NULL, err, sizeof err) == NULL);
  CHECK_STR(err, "platform: clock, GM bandwidths and cube FLOPs must be "
                 "positive and the GM efficiency in (0, 1]");
  PtoRtOptions o = {(PtoRtBackend)7, 1, 0};
  pto_rt_platform_default(&p);
  CHECK(pto_runtime_create(&p, &o, err, sizeof err) == NULL);
  CHECK_STR(err, "unknown back end (expected host, sim or both)");

  PtoRuntime *rt = fx_runtime(PTO_RT_HOST, 2, 1);
  CHECK(pto_runtime_add_kernel(rt, NULL, PTO_RT_CORE_AIC, "x") == -1);
  CHECK_STR(pto_runtime_error(rt), "kernel 'x': no function given");
  CHECK(pto_runtime_add_kernel(rt, k_count, (PtoRtCoreType)9, "x") == -1);
  CHECK_STR(pto_runtime_error(rt), "kernel 'x': unknown core type 9");
  int32_t k = pto_runtime_add_kernel(rt, k_count, PTO_RT_CORE_AIC, "k");
  PtoGraph *g = pto_graph_create(rt);
  CHECK(pto_graph_add_buffer(g, -4, "neg") == -1);
  CHECK_STR(pto_runtime_error(rt), "buffer 'neg': size -4 is not positive");
  pto_graph_add_buffer(g, 64, "a");
  PtoRtRegion r = {0, 0, -8, PTO_RT_READ};
  CHECK(submit(g, k, 0, &r, 1, NULL) == -1);
  CHECK_STR(pto_runtime_error(rt),
            "submit 'k': region 0 [0, +-8) is not a non-empty range inside "
            "buffer 0 of 64 bytes");
  r = (PtoRtRegion){0, 60, 8, PTO_RT_READ};
  CHECK(submit(g, k, 0, &r, 1, NULL) == -1);
  r = (PtoRtRegion){3, 0, 8, PTO_RT_READ};
  CHECK(submit(g, k, 0, &r, 1, NULL) == -1);
  CHECK_STR(pto_runtime_error(rt),
            "submit 'k': region 0 names buffer 3, but the graph has 1");
  r = (PtoRtRegion){0, 0, 8, (PtoRtAccess)0};
  CHECK(submit(g, k, 0, &r, 1, NULL) == -1);
  CHECK_STR(pto_runtime_error(rt),
            "submit 'k': region 0 has an unknown access mode 0");
  CHECK(submit(g, 42, 0, NULL, 0, NULL) == -1);
  CHECK_STR(pto_runtime_error(rt), "submit: unknown kernel id 42 (1 registered)");
  uint32_t future = 5;
  PtoRtTaskDesc d = {0};
  d.kernel = k;
  d.preds = &future;
  d.num_preds = 1;
  CHECK(pto_graph_submit(g, &d) == -1);
  CHECK_STR(pto_runtime_error(rt),
            "submit 'k': predecessor 5 is not an earlier task of this graph");
  CHECK(pto_graph_submit(g, NULL) == -1);
  CHECK(submit(g, k, 0, NULL, 0, NULL) == 0);
  CHECK(pto_graph_run(g, NULL, 0) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(rt), "run: the graph has 1 buffers, 0 given");
  void *nul[1] = {NULL};
  CHECK(pto_graph_run(g, nul, 1) == PTO_RT_ERR_MISUSE);
  CHECK_STR(pto_runtime_error(rt), "run: buffer 0 ('a') has no base address");
  /* After the runtime is gone, the graph refuses everything but destroy. */
  pto_runtime_destroy(rt);
  CHECK(submit(g, k, 0, NULL, 0, NULL) == -1);
  CHECK(pto_graph_add_buffer(g, 8, "b") == -1);
  char buf[64];
  void *bufs[1] = {buf};
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_ERR_MISUSE);
  CHECK(pto_graph_get_timeline(g, PTO_RT_HOST) == NULL);
  pto_graph_destroy(g);
}

/* Two 1000-cycle tasks on one cube core with the a2a3 scheduler costs:
 * submit 100, dispatch 200, completion 240, dependency 390. */
TEST(sim_hand_timed) {
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  p.cores[PTO_RT_CORE_AIC] = 1;
  PtoRtOptions o = {PTO_RT_SIM, 1, 0};
  PtoRuntime *rt = pto_runtime_create(&p, &o, NULL, 0);
  int32_t k = pto_runtime_add_kernel(rt, k_count, PTO_RT_CORE_AIC, "mm");
  PtoGraph *g = pto_graph_create(rt);
  pto_graph_add_buffer(g, 64, "a");
  PtoRtRegion w0 = {0, 0, 8, PTO_RT_WRITE}, w1 = {0, 8, 8, PTO_RT_WRITE};
  PtoRtRegion r = {0, 0, 16, PTO_RT_READ};
  int64_t a = submit(g, k, 0, &w0, 1, NULL);
  int64_t b = submit(g, k, 0, &w1, 1, NULL);
  int64_t c = submit(g, k, 0, &r, 1, NULL);
  void *bufs[1] = {NULL};
  CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_OK);
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_SIM);
  PtoRtTaskTimes t;
  double us = 1.0 / 1800; /* one cycle */
#define NEAR(x, cycles) ((x) > ((cycles) - 0.01) * us && (x) < ((cycles) + 0.01) * us)
  CHECK(pto_timeline_get_task(tl, a, &t));
  CHECK(NEAR(t.submit, 100) && NEAR(t.dispatch, 100) && NEAR(t.start, 300));
  CHECK(NEAR(t.end, 1300) && NEAR(t.finish, 1300 + 240 + 390));
  CHECK_STR(pto_timeline_get_lane_name(tl, t.lane), "AIC 0");
  CHECK(pto_timeline_get_task(tl, b, &t));
  CHECK(NEAR(t.submit, 200) && NEAR(t.dispatch, 1300) && NEAR(t.start, 1500));
  CHECK(NEAR(t.end, 2500) && NEAR(t.finish, 2500 + 240 + 390));
  /* c waits for b's completion (which resolves c's dependency). */
  CHECK(pto_timeline_get_task(tl, c, &t));
  CHECK(NEAR(t.submit, 300) && NEAR(t.dispatch, 3130) && NEAR(t.start, 3330));
  CHECK(NEAR(t.end, 4330) && NEAR(t.finish, 4570));
  CHECK(pto_graph_get_timeline(g, PTO_RT_HOST) == NULL);
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
}

/* Two tasks moving 1000 bytes each at once share 100 B/cycle: 50 each,
 * under the 80 one core can draw, so 20 cycles; alone, 80 B/cycle. */
TEST(sim_shares_gm_bandwidth) {
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  p.gm_bytes_per_cycle = 100;
  p.gm_efficiency = 1.0;
  p.gm_core_bytes_per_cycle = 80;
  p.dispatch_cycles = 0;
  p.submit_cycles = 0;
  PtoRtOptions o = {PTO_RT_SIM, 1, 0};
  PtoRuntime *rt = pto_runtime_create(&p, &o, NULL, 0);
  int32_t k = pto_runtime_add_kernel(rt, k_count, PTO_RT_CORE_AIV, "copy");
  PtoGraph *g = pto_graph_create(rt);
  PtoRtTaskDesc d = {0};
  d.kernel = k;
  d.gm_bytes = 1000;
  int64_t a = pto_graph_submit(g, &d);
  int64_t b = pto_graph_submit(g, &d);
  d.gm_bytes = 800;
  uint32_t pa = (uint32_t)a;
  d.preds = &pa;
  d.num_preds = 1;
  int64_t c = pto_graph_submit(g, &d);
  CHECK(pto_graph_run(g, NULL, 0) == PTO_RT_OK);
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_SIM);
  PtoRtTaskTimes ta, tb, tc;
  double us = 1.0 / 1800;
  CHECK(pto_timeline_get_task(tl, a, &ta) && pto_timeline_get_task(tl, b, &tb));
  CHECK(NEAR(ta.end - ta.start, 20) && NEAR(tb.end - tb.start, 20));
  CHECK(pto_timeline_get_task(tl, c, &tc) && NEAR(tc.end - tc.start, 10));
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
}

RUN_TESTS(T(platform_default), T(chain_in_order), T(raw_war_waw),
          T(explicit_preds_not_duplicated), T(wide_fan_in_through_one_barrier),
          T(failing_kernel_stops_graph), T(buffers_declared_after_tasks),
          T(runs_back_to_back), T(replay_with_few_joins),
          T(host_lanes_named_by_core_type),
          T(misuse_is_an_error),
          T(sim_hand_timed), T(sim_shares_gm_bandwidth))
