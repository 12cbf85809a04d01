/* Unit tests of pto_rt_platform_convert / _load (include/pto/RuntimePlatform.h):
 * the built-in a2a3 description gives exactly the runtime's default
 * machine, a3 its own numbers, the cube rate comes from the f16 fractal,
 * and a failed load is an error that leaves the caller's struct alone. */
#include "Test.h"

#include "pto/RuntimePlatform.h"

TEST(a2a3_is_the_runtime_default) {
  PtoRtPlatform got, want;
  memset(&got, 0xab, sizeof got);
  CHECK(pto_rt_platform_load(&got, "a2a3", NULL));
  pto_rt_platform_default(&want);
  CHECK_STR(got.name, want.name);
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
    CHECK(got.cores[t] == want.cores[t]);
  CHECK(got.clock_mhz == want.clock_mhz);
  CHECK(got.gm_bytes_per_cycle == want.gm_bytes_per_cycle);
  CHECK(got.gm_efficiency == want.gm_efficiency);
  CHECK(got.gm_core_bytes_per_cycle == want.gm_core_bytes_per_cycle);
  CHECK(got.cube_flops_per_cycle == want.cube_flops_per_cycle);
  CHECK(got.submit_cycles == want.submit_cycles);
  CHECK(got.dispatch_cycles == want.dispatch_cycles);
  CHECK(got.dep_resolve_cycles == want.dep_resolve_cycles);
  CHECK(got.completion_cycles == want.completion_cycles);
  CHECK(got.scheduler_threads == want.scheduler_threads);
  /* Both zero their padding, so nothing is left over either. */
  CHECK(memcmp(&got, &want, sizeof got) == 0);
  PtoRtPlatform dflt;
  CHECK(pto_rt_platform_load(&dflt, NULL, NULL));
  CHECK(memcmp(&dflt, &want, sizeof dflt) == 0);
}

TEST(a3_numbers) {
  PtoRtPlatform p;
  CHECK(pto_rt_platform_load(&p, "a3", NULL));
  CHECK_STR(p.name, "a3");
  CHECK(p.cores[PTO_RT_CORE_AIC] == 28);
  CHECK(p.cores[PTO_RT_CORE_AIV] == 56);
  CHECK(p.cores[PTO_RT_CORE_AICPU] == 6);
  CHECK(p.clock_mhz == 1650.0);
  CHECK(p.gm_bytes_per_cycle == 1.2e12 / 1.65e9);
  CHECK(p.gm_efficiency == 0.75);
  CHECK(p.scheduler_threads == 5);
  /* The runtime accepts it and reports it under its name. */
  PtoRtOptions o = {PTO_RT_SIM, 1, 0};
  char err[256] = "";
  PtoRuntime *rt = pto_runtime_create(&p, &o, err, sizeof err);
  CHECK(rt != NULL);
  if (rt) {
    CHECK_STR(pto_runtime_get_platform(rt)->name, "a3");
    pto_runtime_destroy(rt);
  }
}

TEST(cube_rate_from_the_f16_fractal) {
  PtoPlatform in;
  CHECK(pto_platform_load(&in, "a3", NULL));
  /* Put the f32 fractal (16x8x16) first: f16's is still the one used. */
  unsigned f32 = in.num_fractals;
  for (unsigned i = 0; i < in.num_fractals; i++)
    if (!strcmp(in.fractals[i].in, "f32"))
      f32 = i;
  CHECK(f32 < in.num_fractals && f32 != 0);
  if (f32 >= in.num_fractals)
    return;
  PtoPlatformFractal first = in.fractals[0];
  in.fractals[0] = in.fractals[f32];
  in.fractals[f32] = first;
  PtoRtPlatform p;
  pto_rt_platform_convert(&p, &in);
  CHECK(p.cube_flops_per_cycle == 2.0 * 16 * 16 * 16);
  /* Without an f16 fractal, the first one; twice the rate, twice FLOPs. */
  in.num_fractals = 1;
  in.fractals[0].per_cycle = 2;
  pto_rt_platform_convert(&p, &in);
  CHECK(p.cube_flops_per_cycle == 2.0 * 16 * 8 * 16 * 2);
  in.num_fractals = 0;
  pto_rt_platform_convert(&p, &in);
  CHECK(p.cube_flops_per_cycle == 0);
}

TEST(failed_load_leaves_the_struct_alone) {
  PtoRtPlatform p, before;
  memset(&p, 0x5a, sizeof p);
  before = p;
  PtoPlatformError err;
  CHECK(!pto_rt_platform_load(&p, "a4", &err));
  CHECK(memcmp(&p, &before, sizeof p) == 0);
  CHECK(err.line == 0);
  CHECK(strstr(err.message, "a4") != NULL);
  CHECK(!pto_rt_platform_load(&p, "no/such/file.xml", NULL));
  CHECK(memcmp(&p, &before, sizeof p) == 0);
}

RUN_TESTS(T(a2a3_is_the_runtime_default), T(a3_numbers),
          T(cube_rate_from_the_f16_fractal),
          T(failed_load_leaves_the_struct_alone))
