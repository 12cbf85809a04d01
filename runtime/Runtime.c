/* The runtime object: platform, options, kernel registry, errors, and the
 * list of live graphs (so that a graph outliving its runtime fails cleanly). */
#include "Internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pto_rt_platform_default(PtoRtPlatform *p) {
  memset(p, 0, sizeof *p);
  strcpy(p->name, "a2a3");
  p->cores[PTO_RT_CORE_AIC] = 24;
  p->cores[PTO_RT_CORE_AIV] = 48;
  p->cores[PTO_RT_CORE_AICPU] = 6;
  p->clock_mhz = 1800.0;
  /* 1.2 TB/s at 1800 MHz. */
  p->gm_bytes_per_cycle = 1.2e12 / 1.8e9;
  p->gm_efficiency = 0.75;
  p->gm_core_bytes_per_cycle = 32.0;
  /* One 16x16x16 fractal (fp16) per cycle: 4096 MACs. */
  p->cube_flops_per_cycle = 2.0 * 16 * 16 * 16;
  p->submit_cycles = 100;
  p->dispatch_cycles = 200;
  p->dep_resolve_cycles = 390;
  p->completion_cycles = 240;
  p->scheduler_threads = 5;
}

const char *const rt_core_names[PTO_RT_CORE_TYPE_COUNT] = {"AIC", "AIV",
                                                           "AICPU"};

bool rt_grow_slow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
  uint64_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  if (c > UINT32_MAX)
    return false;
  void *n = realloc(*p, c * elem);
  if (!n)
    return false;
  *p = n;
  *cap = (uint32_t)c;
  return true;
}

void rt_set_error(PtoRuntime *rt, const char *fmt, ...) {
  if (!rt)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rt->error, sizeof rt->error, fmt, ap);
  va_end(ap);
}

static void put_err(char *err, size_t n, const char *msg) {
  if (err && n)
    snprintf(err, n, "%s", msg);
}

PtoRuntime *pto_runtime_create(const PtoRtPlatform *platform,
                               const PtoRtOptions *opts, char *err,
                               size_t err_size) {
  PtoRtOptions o = {PTO_RT_HOST, 0, 0};
  if (opts)
    o = *opts;
  if (!platform) {
    put_err(err, err_size, "no platform given");
    return NULL;
  }
  if (o.backend < PTO_RT_HOST || o.backend > PTO_RT_BOTH) {
    put_err(err, err_size, "unknown back end (expected host, sim or both)");
    return NULL;
  }
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
    if (platform->cores[t] == 0 || platform->cores[t] > 4096) {
      put_err(err, err_size,
              "platform: every core type needs between 1 and 4096 cores");
      return NULL;
    }
  if (!(platform->clock_mhz > 0) || !(platform->gm_bytes_per_cycle > 0) ||
      !(platform->gm_efficiency > 0) || platform->gm_efficiency > 1 ||
      !(platform->gm_core_bytes_per_cycle > 0) ||
      !(platform->cube_flops_per_cycle > 0)) {
    put_err(err, err_size,
            "platform: clock, GM bandwidths and cube FLOPs must be positive "
            "and the GM efficiency in (0, 1]");
    return NULL;
  }
  if (platform->scheduler_threads == 0 || platform->scheduler_threads > 64) {
    put_err(err, err_size,
            "platform: scheduler threads must be between 1 and 64");
    return NULL;
  }
  if (o.threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = n > 0 ? (uint32_t)n : 1;
  }
  if (o.threads > 1024) {
    put_err(err, err_size, "threads must be at most 1024");
    return NULL;
  }
  PtoRuntime *rt = calloc(1, sizeof *rt);
  if (!rt) {
    put_err(err, err_size, "out of memory");
    return NULL;
  }
  rt->platform = *platform;
  rt->platform.name[sizeof rt->platform.name - 1] = 0;
  rt->opts = o;
  if ((o.backend & PTO_RT_HOST) && !rt_host_start(rt)) {
    put_err(err, err_size, "could not start the host worker threads");
    free(rt);
    return NULL;
  }
  return rt;
}

void pto_runtime_destroy(PtoRuntime *rt) {
  if (!rt)
    return;
  for (PtoGraph *g = rt->live; g; g = g->next_live)
    rt_graph_stop(g);
  if (rt->opts.backend & PTO_RT_HOST)
    rt_host_stop(rt);
  for (PtoGraph *g = rt->live; g; g = g->next_live)
    g->rt = NULL;
  if (rt->spare)
    rt_graph_free(rt->spare);
  free(rt->kernels);
  free(rt);
}

const PtoRtPlatform *pto_runtime_get_platform(const PtoRuntime *rt) {
  return &rt->platform;
}

uint32_t pto_runtime_get_threads(const PtoRuntime *rt) {
  return rt->opts.threads;
}

const char *pto_runtime_error(const PtoRuntime *rt) {
  return rt ? rt->error : "no runtime";
}

int32_t pto_runtime_add_kernel(PtoRuntime *rt, PtoRtKernelFn fn,
                               PtoRtCoreType core, const char *name) {
  if (!rt)
    return -1;
  if (!fn) {
    rt_set_error(rt, "kernel '%s': no function given", name ? name : "");
    return -1;
  }
  if ((unsigned)core >= PTO_RT_CORE_TYPE_COUNT) {
    rt_set_error(rt, "kernel '%s': unknown core type %d", name ? name : "",
                 (int)core);
    return -1;
  }
  if (!name || !*name) {
    rt_set_error(rt, "kernel: a name is required");
    return -1;
  }
  if (!rt_grow((void **)&rt->kernels, &rt->capkernels, rt->nkernels + 1,
               sizeof *rt->kernels)) {
    rt_set_error(rt, "out of memory");
    return -1;
  }
  RtKernel *k = &rt->kernels[rt->nkernels];
  k->fn = fn;
  k->core = core;
  snprintf(k->name, sizeof k->name, "%s", name);
  return (int32_t)rt->nkernels++;
}
