/* pto-runtime-demo: runs a synthetic matmul + softmax task graph on the
 * runtime (host threads, the simulator, or both) and writes what a run
 * leaves for a person: the Chrome trace, the SVG swimlane and the health
 * report. Host kernels compute real results, which are checked. The
 * machine is a platform description (--platform), converted to the
 * runtime's plain struct: the runtime itself reads no description. */
#include "pto/Runtime.h"
#include "pto/RuntimePlatform.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pto-runtime-demo [options]\n"
    "  --tiles N          cube tasks (matmul tiles), a multiple of 4 (default 64)\n"
    "  --tile T           tile edge in elements, 8..256 (default 64); K = 4T\n"
    "  --backend B        host, sim or both (default both)\n"
    "  --threads N        host threads, 0 = one per CPU (default 0)\n"
    "  --platform P       the machine: a built-in name (a2a3, a3) or a\n"
    "                     description file (default a2a3)\n"
    "  --aic N, --aiv N   override the platform's cube / vector core counts\n"
    "  --trace FILE       write the Chrome Trace Event JSON\n"
    "  --svg FILE         write the SVG swimlane\n"
    "  --report text|json print the health report on stdout\n"
    "  --fail-task N      make task N's kernel fail (shows the error path)\n"
    "  --help, --version\n"
    "The trace, swimlane and report describe the simulator's timeline when\n"
    "it ran (sim, both), else the host's.\n";

typedef struct Demo {
  int tile, k, rows, fail_task;
  float *a, *b, *s, *p, *total;
} Demo;

/* S tile (r, c) = A rows of block r x B block c; tile-major storage. */
static int k_matmul(const PtoRtTaskArgs *a) {
  Demo *d = a->user;
  if ((int)a->task_id == d->fail_task)
    return 3;
  int t = d->tile, k = d->k, r = (int)a->params[0], c = (int)a->params[1];
  float *A = a->buffers[0], *B = a->buffers[1], *S = a->buffers[2];
  const float *ar = A + (size_t)r * t * k, *bc = B + (size_t)c * k * t;
  float *out = S + ((size_t)r * 4 + c) * t * t;
  for (int i = 0; i < t; i++)
    for (int j = 0; j < t; j++) {
      float acc = 0;
      for (int q = 0; q < k; q++)
        acc += ar[i * k + q] * bc[q * t + j];
      out[i * t + j] = acc;
    }
  return 0;
}

/* Softmax over the 4T columns of half a row block. */
static int k_softmax(const PtoRtTaskArgs *a) {
  Demo *d = a->user;
  if ((int)a->task_id == d->fail_task)
    return 4;
  int t = d->tile, r = (int)a->params[0], h = (int)a->params[1];
  float *S = a->buffers[2], *P = a->buffers[3];
  for (int i = h * t / 2; i < (h + 1) * t / 2; i++) {
    float m = -INFINITY, sum = 0;
    for (int c = 0; c < 4; c++)
      for (int j = 0; j < t; j++)
        m = fmaxf(m, S[((size_t)r * 4 + c) * t * t + (size_t)i * t + j]);
    for (int c = 0; c < 4; c++)
      for (int j = 0; j < t; j++) {
        size_t at = ((size_t)r * 4 + c) * t * t + (size_t)i * t + j;
        P[at] = expf(S[at] - m);
        sum += P[at];
      }
    for (int c = 0; c < 4; c++)
      for (int j = 0; j < t; j++)
        P[((size_t)r * 4 + c) * t * t + (size_t)i * t + j] /= sum;
  }
  return 0;
}

/* The sum of all probabilities: one per row. */
static int k_total(const PtoRtTaskArgs *a) {
  Demo *d = a->user;
  if ((int)a->task_id == d->fail_task)
    return 5;
  float *P = a->buffers[3], *out = a->buffers[4];
  double sum = 0;
  for (size_t i = 0; i < (size_t)d->rows * 4 * d->tile * d->tile; i++)
    sum += P[i];
  out[0] = (float)sum;
  return 0;
}

static PtoRtTaskDesc task(int32_t kernel, const PtoRtRegion *reg,
                          uint32_t nreg, int64_t p0, int64_t p1, Demo *d,
                          const char *label) {
  PtoRtTaskDesc t = {0};
  t.kernel = kernel;
  t.regions = reg;
  t.num_regions = nreg;
  t.params[0] = p0;
  t.params[1] = p1;
  t.user = d;
  t.label = label;
  return t;
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s || v < lo || v > hi) {
    fprintf(stderr, "pto-runtime-demo: %s expects an integer in [%d, %d], "
                    "got '%s'\n", opt, lo, hi, s);
    return 0;
  }
  *out = (int)v;
  return 1;
}

int main(int argc, char **argv) {
  int tiles = 64, tile = 64, threads = 0, aic = 0, aiv = 0, fail = -1;
  const char *backend = "both", *trace = NULL, *svg = NULL, *report = NULL,
             *platform = NULL;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--help")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!strcmp(o, "--version")) {
      puts("pto-runtime-demo 0.1.0");
      return 0;
    }
    static const char *const with_value[] = {
        "--tiles", "--tile", "--backend", "--threads", "--aic", "--aiv",
        "--trace", "--svg", "--report", "--fail-task", "--platform"};
    int known = 0;
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
      known |= !strcmp(o, with_value[k]);
    if (!known) {
      fprintf(stderr, "pto-runtime-demo: unknown option '%s' (see --help)\n", o);
      return 1;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "pto-runtime-demo: %s needs a value\n", o);
      return 1;
    }
    const char *v = argv[++i];
    int ok = 1;
    if (!strcmp(o, "--tiles"))
      ok = parse_int(o, v, 4, 1 << 20, &tiles);
    else if (!strcmp(o, "--tile"))
      ok = parse_int(o, v, 8, 256, &tile);
    else if (!strcmp(o, "--threads"))
      ok = parse_int(o, v, 0, 1024, &threads);
    else if (!strcmp(o, "--aic"))
      ok = parse_int(o, v, 1, 4096, &aic);
    else if (!strcmp(o, "--aiv"))
      ok = parse_int(o, v, 1, 4096, &aiv);
    else if (!strcmp(o, "--fail-task"))
      ok = parse_int(o, v, 0, 1 << 30, &fail);
    else if (!strcmp(o, "--backend"))
      backend = v;
    else if (!strcmp(o, "--trace"))
      trace = v;
    else if (!strcmp(o, "--svg"))
      svg = v;
    else if (!strcmp(o, "--platform"))
      platform = v;
    else
      report = v;
    if (!ok)
      return 1;
  }
  if (tiles % 4) {
    fprintf(stderr, "pto-runtime-demo: --tiles must be a multiple of 4 "
                    "(4 column blocks), got %d\n", tiles);
    return 1;
  }
  if (tile % 2) {
    fprintf(stderr, "pto-runtime-demo: --tile must be even, got %d\n", tile);
    return 1;
  }
  PtoRtBackend be;
  if (!strcmp(backend, "host"))
    be = PTO_RT_HOST;
  else if (!strcmp(backend, "sim"))
    be = PTO_RT_SIM;
  else if (!strcmp(backend, "both"))
    be = PTO_RT_BOTH;
  else {
    fprintf(stderr, "pto-runtime-demo: --backend expects host, sim or both, "
                    "got '%s'\n", backend);
    return 1;
  }
  if (report && strcmp(report, "text") && strcmp(report, "json")) {
    fprintf(stderr, "pto-runtime-demo: --report expects text or json, got "
                    "'%s'\n", report);
    return 1;
  }
  PtoRtPlatform plat;
  PtoPlatformError perr;
  if (!pto_rt_platform_load(&plat, platform, &perr)) {
    char msg[1024];
    pto_platform_error_format(&perr, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return 1;
  }
  if (aic)
    plat.cores[PTO_RT_CORE_AIC] = (uint32_t)aic;
  if (aiv)
    plat.cores[PTO_RT_CORE_AIV] = (uint32_t)aiv;
  PtoRtOptions opts = {be, (uint32_t)threads, 1};
  char err[256];
  PtoRuntime *rt = pto_runtime_create(&plat, &opts, err, sizeof err);
  if (!rt) {
    fprintf(stderr, "pto-runtime-demo: %s\n", err);
    return 1;
  }
  Demo d = {tile, 4 * tile, tiles / 4, fail, NULL, NULL, NULL, NULL, NULL};
  size_t tt = (size_t)tile * tile, elems = (size_t)d.rows * 4 * tt;
  d.a = malloc((size_t)d.rows * tile * d.k * sizeof(float));
  d.b = malloc((size_t)4 * d.k * tile * sizeof(float));
  d.s = malloc(elems * sizeof(float));
  d.p = malloc(elems * sizeof(float));
  d.total = malloc(sizeof(float));
  if (!d.a || !d.b || !d.s || !d.p || !d.total) {
    fprintf(stderr, "pto-runtime-demo: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < (size_t)d.rows * tile * d.k; i++)
    d.a[i] = (float)((i * 7919) % 17) / 17.0f - 0.5f;
  for (size_t i = 0; i < (size_t)4 * d.k * tile; i++)
    d.b[i] = (float)((i * 104729) % 13) / 13.0f - 0.5f;

  int32_t km = pto_runtime_add_kernel(rt, k_matmul, PTO_RT_CORE_AIC, "matmul");
  int32_t ks = pto_runtime_add_kernel(rt, k_softmax, PTO_RT_CORE_AIV, "softmax");
  int32_t kt = pto_runtime_add_kernel(rt, k_total, PTO_RT_CORE_AICPU, "total");
  PtoGraph *g = pto_graph_create(rt);
  int64_t fb = sizeof(float);
  pto_graph_add_buffer(g, (int64_t)d.rows * tile * d.k * fb, "A");
  pto_graph_add_buffer(g, (int64_t)4 * d.k * tile * fb, "B");
  pto_graph_add_buffer(g, (int64_t)elems * fb, "S");
  pto_graph_add_buffer(g, (int64_t)elems * fb, "P");
  pto_graph_add_buffer(g, fb, "total");
  int64_t tile_bytes = (int64_t)tt * fb, half = tile_bytes / 2;
  for (int r = 0; r < d.rows; r++) {
    for (int c = 0; c < 4; c++) {
      PtoRtRegion reg[3] = {
          {0, (int64_t)r * tile * d.k * fb, (int64_t)tile * d.k * fb, PTO_RT_READ},
          {1, (int64_t)c * d.k * tile * fb, (int64_t)d.k * tile * fb, PTO_RT_READ},
          {2, ((int64_t)r * 4 + c) * tile_bytes, tile_bytes, PTO_RT_WRITE}};
      PtoRtTaskDesc t = task(km, reg, 3, r, c, &d, "scores");
      t.flops = 2ull * tile * tile * d.k;
      t.cycles = (uint64_t)ceil(t.flops / plat.cube_flops_per_cycle) + 64;
      t.gm_bytes = (uint64_t)(2 * tile * d.k + tile * tile) * 2; /* fp16 */
      if (pto_graph_submit(g, &t) < 0)
        goto fail;
    }
    for (int h = 0; h < 2; h++) {
      PtoRtRegion reg[8];
      for (int c = 0; c < 4; c++) {
        int64_t at = ((int64_t)r * 4 + c) * tile_bytes + h * half;
        reg[c] = (PtoRtRegion){2, at, half, PTO_RT_READ};
        reg[4 + c] = (PtoRtRegion){3, at, half, PTO_RT_WRITE};
      }
      PtoRtTaskDesc t = task(ks, reg, 8, r, h, &d, "softmax");
      /* Five vector passes (max, sub, exp, sum, div) over 256-byte
       * repeats of fp16 data, exp's latency dominating. */
      uint64_t bytes = (uint64_t)tile / 2 * 4 * tile * 2;
      t.cycles = 5 * (12 + bytes / 256);
      t.gm_bytes = 2 * bytes;
      if (pto_graph_submit(g, &t) < 0)
        goto fail;
    }
  }
  {
    PtoRtRegion reg[2] = {{3, 0, (int64_t)elems * fb, PTO_RT_READ},
                          {4, 0, fb, PTO_RT_WRITE}};
    PtoRtTaskDesc t = task(kt, reg, 2, 0, 0, &d, "check");
    t.cycles = 2000;
    t.gm_bytes = (uint64_t)elems * 2;
    if (pto_graph_submit(g, &t) < 0)
      goto fail;
  }
  void *bufs[5] = {d.a, d.b, d.s, d.p, d.total};
  if (pto_graph_run(g, bufs, 5) != PTO_RT_OK)
    goto fail;
  if (be & PTO_RT_HOST) {
    double want = (double)d.rows * tile;
    if (fabs(d.total[0] - want) > 1e-3 * want) {
      fprintf(stderr, "pto-runtime-demo: softmax rows sum to %g, expected "
                      "%g\n", d.total[0], want);
      goto fail_quiet;
    }
  }
  const PtoRtTimeline *tl = pto_graph_get_timeline(g, be & PTO_RT_SIM ? PTO_RT_SIM : PTO_RT_HOST);
  if (trace) {
    FILE *f = fopen(trace, "w");
    if (!f || pto_timeline_write_trace(tl, f) != PTO_RT_OK || fclose(f) != 0) {
      fprintf(stderr, "pto-runtime-demo: cannot write '%s'\n", trace);
      goto fail_quiet;
    }
  }
  if (svg && pto_timeline_write_svg(tl, svg) != PTO_RT_OK) {
    fprintf(stderr, "pto-runtime-demo: cannot write '%s'\n", svg);
    goto fail_quiet;
  }
  if (report && pto_timeline_write_report(tl, stdout, !strcmp(report, "json")) != PTO_RT_OK) {
    fprintf(stderr, "pto-runtime-demo: cannot write the report\n");
    goto fail_quiet;
  }
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
  free(d.a), free(d.b), free(d.s), free(d.p), free(d.total);
  return 0;
fail:
  fprintf(stderr, "pto-runtime-demo: %s\n", pto_runtime_error(rt));
fail_quiet:
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
  free(d.a), free(d.b), free(d.s), free(d.p), free(d.total);
  return 1;
}
