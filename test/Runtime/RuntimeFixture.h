/* What the runtime's tests share to set up a run: a runtime on the default
 * platform, a graph with its buffers declared, one kernel registered, and a
 * one-call submission, so that each test spells out only what it checks. */
#ifndef PTO_TEST_RUNTIME_RUNTIMEFIXTURE_H
#define PTO_TEST_RUNTIME_RUNTIMEFIXTURE_H

#include "pto/Runtime.h"

#include <stdint.h>

/* A runtime on the default (a2a3) platform; NULL when it cannot be made. */
static inline PtoRuntime *fx_runtime(PtoRtBackend be, uint32_t threads,
                                     int record) {
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  PtoRtOptions o = {be, threads, record};
  return pto_runtime_create(&p, &o, NULL, 0);
}

/* A graph of rt with `nbufs` buffers of `size` bytes, all called `name`
 * (buffer ids 0..nbufs-1); NULL when rt is. */
static inline PtoGraph *fx_graph(PtoRuntime *rt, uint32_t nbufs, int64_t size,
                                 const char *name) {
  PtoGraph *g = rt ? pto_graph_create(rt) : NULL;
  for (uint32_t b = 0; g && b < nbufs; b++)
    if (pto_graph_add_buffer(g, size, name) != (int32_t)b) {
      pto_graph_destroy(g);
      return NULL;
    }
  return g;
}

/* Submits a task of kernel k with params[0] = p0, params[1] = p1, regions
 * r[0..nr) and label, costing 1000 cycles on the simulator; its id or -1. */
static inline int64_t fx_submit_cycles(PtoGraph *g, int32_t k, int64_t p0,
                                       int64_t p1, const PtoRtRegion *r,
                                       uint32_t nr, const char *label,
                                       uint64_t cycles) {
  PtoRtTaskDesc d = {0};
  d.kernel = k;
  d.regions = r;
  d.num_regions = nr;
  d.params[0] = p0;
  d.params[1] = p1;
  d.label = label;
  d.cycles = cycles;
  return pto_graph_submit(g, &d);
}

static inline int64_t fx_submit(PtoGraph *g, int32_t k, int64_t p0, int64_t p1,
                                const PtoRtRegion *r, uint32_t nr,
                                const char *label) {
  return fx_submit_cycles(g, k, p0, p1, r, nr, label, 1000);
}

/* The set-up most tests begin with: a runtime, one kernel `fn` on core
 * type `core` named `kname` (id k), and a graph with its buffers. rt or g
 * is NULL, and k -1, when a step failed. */
typedef struct FxRun {
  PtoRuntime *rt;
  PtoGraph *g;
  int32_t k;
} FxRun;

static inline FxRun fx_open(PtoRtBackend be, uint32_t threads, int record,
                            PtoRtKernelFn fn, PtoRtCoreType core,
                            const char *kname, uint32_t nbufs, int64_t size,
                            const char *bufname) {
  FxRun f = {fx_runtime(be, threads, record), NULL, -1};
  if (f.rt)
    f.k = pto_runtime_add_kernel(f.rt, fn, core, kname);
  if (f.k >= 0)
    f.g = fx_graph(f.rt, nbufs, size, bufname);
  return f;
}

/* Destroys the graph, then its runtime. */
static inline void fx_close(FxRun *f) {
  pto_graph_destroy(f->g);
  pto_runtime_destroy(f->rt);
  f->g = NULL;
  f->rt = NULL;
}

#endif
