/* PtoRtPlatform <- PtoPlatform: the one place that knows both structs, so
 * that the runtime stays free of the description loader and the loader
 * free of the runtime. */
#include "pto/RuntimePlatform.h"

#include <string.h>

/* Cube FLOPs per cycle of one core: a fractal is m*k*n multiply-adds. The
 * f16 fractal is the one the runtime's callers cost matmuls in. */
static double cube_flops(const PtoPlatform *in) {
  const PtoPlatformFractal *f = in->num_fractals ? &in->fractals[0] : NULL;
  for (unsigned i = 0; i < in->num_fractals; i++)
    if (!strcmp(in->fractals[i].in, "f16")) {
      f = &in->fractals[i];
      break;
    }
  return f ? 2.0 * f->m * f->k * f->n * f->per_cycle : 0.0;
}

void pto_rt_platform_convert(PtoRtPlatform *out, const PtoPlatform *in) {
  memset(out, 0, sizeof *out);
  /* Both names are 32 bytes, NUL included. */
  _Static_assert(sizeof out->name == sizeof in->name, "platform name sizes");
  memcpy(out->name, in->name, sizeof out->name);
  out->name[sizeof out->name - 1] = '\0';
  out->cores[PTO_RT_CORE_AIC] = in->cores[PTO_CORE_CUBE];
  out->cores[PTO_RT_CORE_AIV] = in->cores[PTO_CORE_VECTOR];
  out->cores[PTO_RT_CORE_AICPU] = in->cores[PTO_CORE_SCHEDULER];
  out->clock_mhz = in->clock_hz / 1e6;
  out->gm_bytes_per_cycle =
      in->clock_hz > 0 ? in->gm_aggregate_bytes_per_second / in->clock_hz : 0;
  out->gm_efficiency = in->gm_efficiency;
  out->gm_core_bytes_per_cycle = in->gm_read_bytes_per_cycle;
  out->cube_flops_per_cycle = cube_flops(in);
  out->submit_cycles = in->submit_cycles;
  out->dispatch_cycles = in->dispatch_cycles;
  out->dep_resolve_cycles = in->dependency_cycles;
  out->completion_cycles = in->completion_cycles;
  out->scheduler_threads = in->scheduler_threads;
}

bool pto_rt_platform_load(PtoRtPlatform *out, const char *spec,
                          PtoPlatformError *err) {
  PtoPlatform p;
  if (!pto_platform_load(&p, spec, err))
    return false;
  pto_rt_platform_convert(out, &p);
  return true;
}
