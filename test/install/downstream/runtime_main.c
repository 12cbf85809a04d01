/* A program built against an installed PTO runtime: a two-task graph (the
 * second reads what the first wrote) run on host threads; exits 0 when the
 * dependency was honoured and the result is right. */
#include <pto/Runtime.h>

#include <stdio.h>

static int fill(const PtoRtTaskArgs *a) {
  int *x = (int *)a->buffers[0];
  for (int i = 0; i < 64; ++i) x[i] = i;
  return 0;
}

static int twice(const PtoRtTaskArgs *a) {
  const int *x = (const int *)a->buffers[0];
  int *y = (int *)a->buffers[1];
  for (int i = 0; i < 64; ++i) y[i] = 2 * x[i];
  return 0;
}

int main(void) {
  PtoRtPlatform plat;
  pto_rt_platform_default(&plat);
  PtoRtOptions opts = {PTO_RT_HOST, 2, 0};
  char err[256];
  PtoRuntime *rt = pto_runtime_create(&plat, &opts, err, sizeof err);
  if (!rt) {
    fprintf(stderr, "downstream: %s\n", err);
    return 1;
  }
  int32_t kf = pto_runtime_add_kernel(rt, fill, PTO_RT_CORE_AIV, "fill");
  int32_t kt = pto_runtime_add_kernel(rt, twice, PTO_RT_CORE_AIV, "twice");
  PtoGraph *g = pto_graph_create(rt);
  int x[64], y[64];
  int32_t bx = pto_graph_add_buffer(g, sizeof x, "x");
  int32_t by = pto_graph_add_buffer(g, sizeof y, "y");
  PtoRtRegion wx = {(uint32_t)bx, 0, sizeof x, PTO_RT_WRITE};
  PtoRtRegion rx = {(uint32_t)bx, 0, sizeof x, PTO_RT_READ};
  PtoRtRegion wy = {(uint32_t)by, 0, sizeof y, PTO_RT_WRITE};
  PtoRtRegion r2[2] = {rx, wy};
  PtoRtTaskDesc t1 = {.kernel = kf, .regions = &wx, .num_regions = 1};
  PtoRtTaskDesc t2 = {.kernel = kt, .regions = r2, .num_regions = 2};
  int rc = 1;
  if (kf >= 0 && kt >= 0 && pto_graph_submit(g, &t1) >= 0 &&
      pto_graph_submit(g, &t2) >= 0) {
    void *bufs[2] = {x, y};
    if (pto_graph_run(g, bufs, 2) == PTO_RT_OK) {
      rc = 0;
      for (int i = 0; i < 64; ++i) rc |= y[i] != 2 * i;
    }
  }
  if (rc) fprintf(stderr, "downstream: runtime: %s\n", pto_runtime_error(rt));
  else printf("downstream runtime: ok\n");
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
  return rc;
}
