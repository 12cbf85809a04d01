/* Random task graphs (random region overlaps, fan-in and fan-out, explicit
 * edges) run on host threads against a sequential execution in submission
 * order: identical buffers, and a per-task log showing that every task
 * started after each earlier task it conflicts with had finished. The same
 * ordering on the simulator, whose traces are byte-identical across runs. */
#include "pto/Runtime.h"

#include "../unittests/Test.h"
#include "RandomDag.h"
#include "RuntimeFixture.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { MAX_TASKS = 400, MAX_REGIONS = 3, MAX_BUFS = 3, BUF_SIZE = 256,
       MAX_PREDS = 2 };

typedef struct Spec {
  uint32_t nreg, npreds;
  PtoRtRegion reg[MAX_REGIONS];
  uint32_t preds[MAX_PREDS];
} Spec;

typedef struct Ctx {
  Spec spec[MAX_TASKS];
  uint32_t ntasks, nbufs;
  atomic_uint clock;
  uint32_t start[MAX_TASKS], end[MAX_TASKS];
} Ctx;

static int k_rand(const PtoRtTaskArgs *a) {
  Ctx *c = a->user;
  uint32_t i = (uint32_t)a->params[0];
  /* relaxed would do for a counter, but the log must agree with the
   * happens-before order the runtime establishes: seq_cst. */
  c->start[i] = atomic_fetch_add(&c->clock, 1);
  dag_body(c->spec[i].reg, c->spec[i].nreg, i, a->buffers);
  c->end[i] = atomic_fetch_add(&c->clock, 1);
  return 0;
}

static void make_graph(Ctx *c) {
  c->ntasks = 50 + rnd(MAX_TASKS - 50);
  c->nbufs = 1 + rnd(MAX_BUFS);
  for (uint32_t i = 0; i < c->ntasks; i++) {
    Spec *s = &c->spec[i];
    s->nreg = rnd(MAX_REGIONS + 1);
    for (uint32_t r = 0; r < s->nreg; r++) {
      PtoRtRegion *g = &s->reg[r];
      g->buffer = rnd(c->nbufs);
      if (rnd(12) == 0) { /* whole buffer: wide fan-in / fan-out */
        g->offset = 0;
        g->size = BUF_SIZE;
      } else {
        g->offset = rnd(BUF_SIZE - 1);
        g->size = 1 + rnd(BUF_SIZE - (uint32_t)g->offset < 48
                              ? BUF_SIZE - (uint32_t)g->offset : 48);
      }
      static const PtoRtAccess modes[] = {PTO_RT_READ, PTO_RT_READ,
                                          PTO_RT_WRITE, PTO_RT_READ_WRITE};
      g->access = modes[rnd(4)];
    }
    s->npreds = i > 0 && rnd(5) == 0 ? 1 + rnd(MAX_PREDS) : 0;
    for (uint32_t p = 0; p < s->npreds; p++)
      s->preds[p] = rnd(i);
  }
}

static bool conflict(const Spec *a, const Spec *b) {
  return dag_conflict(a->reg, a->nreg, b->reg, b->nreg);
}

static bool must_precede(const Ctx *c, uint32_t i, uint32_t j) {
  if (conflict(&c->spec[i], &c->spec[j]))
    return true;
  for (uint32_t p = 0; p < c->spec[j].npreds; p++)
    if (c->spec[j].preds[p] == i)
      return true;
  return false;
}

static uint8_t bufs_ref[MAX_BUFS][BUF_SIZE], bufs_run[MAX_BUFS][BUF_SIZE];

static void init_bufs(uint8_t (*b)[BUF_SIZE], uint32_t seed) {
  dag_init_bufs(&b[0][0], MAX_BUFS, BUF_SIZE, seed);
}

static char *trace_of(const PtoRtTimeline *tl, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  pto_timeline_write_trace(tl, f);
  fclose(f);
  return text;
}

static Ctx ctx;

TEST(random_dags_host_and_sim) {
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  p.cores[PTO_RT_CORE_AIC] = 3; /* few cores: more waiting, more reordering */
  p.cores[PTO_RT_CORE_AIV] = 4;
  p.cores[PTO_RT_CORE_AICPU] = 1;
  for (uint32_t round = 0; round < 60; round++) {
    rng_state = 0x9e3779b97f4a7c15ull + round;
    Ctx *c = &ctx;
    memset(c, 0, sizeof *c);
    make_graph(c);
    PtoRtOptions o = {PTO_RT_BOTH, 2 + round % 3, round % 2};
    PtoRuntime *rt = pto_runtime_create(&p, &o, NULL, 0);
    int32_t k[3];
    k[0] = pto_runtime_add_kernel(rt, k_rand, PTO_RT_CORE_AIC, "cube");
    k[1] = pto_runtime_add_kernel(rt, k_rand, PTO_RT_CORE_AIV, "vec");
    k[2] = pto_runtime_add_kernel(rt, k_rand, PTO_RT_CORE_AICPU, "cpu");
    PtoGraph *g = fx_graph(rt, c->nbufs, BUF_SIZE, "buf");
    CHECK(g != NULL);
    uint32_t id_of[MAX_TASKS];
    for (uint32_t i = 0; i < c->ntasks; i++) {
      Spec *s = &c->spec[i];
      uint32_t preds[MAX_PREDS];
      for (uint32_t q = 0; q < s->npreds; q++)
        preds[q] = id_of[s->preds[q]];
      PtoRtTaskDesc d = {0};
      d.kernel = k[rnd(3)];
      d.regions = s->reg;
      d.num_regions = s->nreg;
      d.preds = preds;
      d.num_preds = s->npreds;
      d.params[0] = i;
      d.user = c;
      d.cycles = 100 + rnd(2000);
      d.gm_bytes = rnd(2) ? rnd(100000) : 0;
      d.label = rnd(2) ? "even" : "odd";
      int64_t id = pto_graph_submit(g, &d);
      CHECK(id >= 0);
      id_of[i] = (uint32_t)id;
    }
    /* The reference: one task after another in submission order. */
    init_bufs(bufs_ref, round);
    void *ref[MAX_BUFS] = {bufs_ref[0], bufs_ref[1], bufs_ref[2]};
    for (uint32_t i = 0; i < c->ntasks; i++)
      dag_body(c->spec[i].reg, c->spec[i].nreg, i, ref);
    for (int rep = 0; rep < 2; rep++) { /* the second run is a replay */
      init_bufs(bufs_run, round);
      atomic_store(&c->clock, 0);
      void *run[MAX_BUFS] = {bufs_run[0], bufs_run[1], bufs_run[2]};
      CHECK(pto_graph_run(g, run, c->nbufs) == PTO_RT_OK);
      CHECK(memcmp(bufs_ref, bufs_run, sizeof bufs_ref) == 0);
      int bad = 0;
      for (uint32_t j = 0; j < c->ntasks; j++)
        for (uint32_t i = 0; i < j; i++)
          if (must_precede(c, i, j) && !(c->end[i] < c->start[j]))
            bad++;
      CHECK(bad == 0);
    }
    /* The simulator orders the same pairs, and does so deterministically. */
    const PtoRtTimeline *tl = pto_graph_get_timeline(g, PTO_RT_SIM);
    CHECK(tl != NULL);
    int bad = 0;
    for (uint32_t j = 0; j < c->ntasks; j++) {
      PtoRtTaskTimes tj, ti;
      CHECK(pto_timeline_get_task(tl, id_of[j], &tj));
      for (uint32_t i = 0; i < j; i++)
        if (must_precede(c, i, j) && pto_timeline_get_task(tl, id_of[i], &ti) &&
            !(ti.finish <= tj.dispatch && ti.end < tj.start))
          bad++;
    }
    CHECK(bad == 0);
    size_t n1, n2;
    char *t1 = trace_of(tl, &n1);
    CHECK(pto_graph_run(g, ref, c->nbufs) == PTO_RT_OK);
    char *t2 = trace_of(pto_graph_get_timeline(g, PTO_RT_SIM), &n2);
    CHECK(n1 == n2 && memcmp(t1, t2, n1) == 0);
    free(t1);
    free(t2);
    pto_graph_destroy(g);
    pto_runtime_destroy(rt);
  }
}

RUN_TESTS(T(random_dags_host_and_sim))
