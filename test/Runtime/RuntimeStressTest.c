/* A stress run: a 1000 x 1000 wavefront (one million tasks, each reading
 * its left and upper neighbour and writing its own cell) on host threads,
 * run then replayed, and on the simulator. PTO_RT_STRESS_SIDE shrinks it (the
 * ThreadSanitizer stage does). */
#include "pto/Runtime.h"

#include "../unittests/Test.h"
#include "RuntimeFixture.h"

static int64_t side = 1000;

static int k_cell(const PtoRtTaskArgs *a) {
  int32_t *g = a->buffers[0];
  int64_t i = a->params[0], j = a->params[1];
  int32_t up = i ? g[(i - 1) * side + j] : 0;
  int32_t left = j ? g[i * side + j - 1] : 0;
  g[i * side + j] = (up > left ? up : left) + 1;
  return 0;
}

TEST(wavefront_million) {
  const char *env = getenv("PTO_RT_STRESS_SIDE");
  if (env && atoi(env) > 1)
    side = atoi(env);
  int64_t cell = sizeof(int32_t);
  FxRun f = fx_open(PTO_RT_BOTH, 0, 0, k_cell, PTO_RT_CORE_AIV, "cell", 1,
                    side * side * cell, "grid");
  PtoGraph *g = f.g;
  int32_t k = f.k;
  CHECK(g != NULL);
  for (int64_t i = 0; i < side; i++)
    for (int64_t j = 0; j < side; j++) {
      PtoRtRegion r[3];
      uint32_t n = 0;
      r[n++] = (PtoRtRegion){0, (i * side + j) * cell, cell, PTO_RT_WRITE};
      if (i)
        r[n++] = (PtoRtRegion){0, ((i - 1) * side + j) * cell, cell, PTO_RT_READ};
      if (j)
        r[n++] = (PtoRtRegion){0, (i * side + j - 1) * cell, cell, PTO_RT_READ};
      CHECK(fx_submit_cycles(g, k, i, j, r, n, NULL, 500) >= 0);
    }
  PtoRtGraphStats st;
  pto_graph_get_stats(g, &st);
  CHECK(st.tasks == (uint64_t)(side * side));
  CHECK(st.edges == (uint64_t)(2 * side * (side - 1)));
  int32_t *grid = calloc((size_t)(side * side), sizeof *grid);
  void *bufs[1] = {grid};
  /* The second run is a replay: every join's counter starts from its
   * full count again, however the first run left it. */
  for (int run = 0; run < 2; run++) {
    memset(grid, 0, (size_t)(side * side) * sizeof *grid);
    CHECK(pto_graph_run(g, bufs, 1) == PTO_RT_OK);
    int bad = 0;
    for (int64_t i = 0; i < side; i++)
      for (int64_t j = 0; j < side; j++)
        bad += grid[i * side + j] != i + j + 1;
    CHECK(bad == 0);
  }
  /* On the simulator every task has a lane and the makespan is at least
   * the diagonal's length of 500-cycle tasks. */
  PtoRtTaskTimes t;
  CHECK(pto_timeline_get_task(pto_graph_get_timeline(g, PTO_RT_SIM),
                              (uint64_t)(side * side - 1), &t));
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  CHECK(t.end >= (2 * side - 1) * 500 / p.clock_mhz);
  free(grid);
  fx_close(&f);
}

RUN_TESTS(T(wavefront_million))
