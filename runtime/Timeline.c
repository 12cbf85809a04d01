/* Timelines of a run (per task lane and times) and the Chrome Trace Event
 * JSON writer that Perfetto and chrome://tracing open. */
#include "Internal.h"

#include <stdlib.h>
#include <string.h>

bool rt_timeline_alloc(PtoRtTimeline *tl, const PtoGraph *g, uint32_t nlanes) {
  size_t n = g->ntasks ? g->ntasks : 1, nl = nlanes ? nlanes : 1;
  /* A graph run again keeps its timeline's storage: no fresh pages to
   * fault in on every run. */
  if (n > tl->cap_tasks || nl > tl->cap_lanes) {
    rt_timeline_free(tl);
    tl->times = malloc(n * 5 * sizeof *tl->times);
    tl->lane = malloc(n * sizeof *tl->lane);
    tl->lane_names = malloc(nl * sizeof *tl->lane_names);
    tl->lane_core = malloc(nl * sizeof *tl->lane_core);
    if (!tl->times || !tl->lane || !tl->lane_names || !tl->lane_core) {
      rt_timeline_free(tl);
      return false;
    }
    tl->cap_tasks = n;
    tl->cap_lanes = nl;
  }
  memset(tl->lane_names, 0, nl * sizeof *tl->lane_names);
  memset(tl->lane_core, 0, nl * sizeof *tl->lane_core);
  tl->g = g;
  tl->nlanes = nlanes;
  tl->idle_ready = tl->sched_busy = 0;
  tl->sched_threads = 0;
  tl->workers = 0;
  return true;
}

void rt_timeline_free(PtoRtTimeline *tl) {
  free(tl->times);
  free(tl->lane);
  free(tl->lane_names);
  free(tl->lane_core);
  memset(tl, 0, sizeof *tl);
}

const PtoRtTimeline *pto_graph_get_timeline(const PtoGraph *g,
                                            PtoRtBackend which) {
  if (!g || !g->rt)
    return NULL;
  const PtoRtTimeline *tl = which == PTO_RT_HOST  ? &g->host_tl
                            : which == PTO_RT_SIM ? &g->sim_tl
                                                  : NULL;
  return tl && tl->valid ? tl : NULL;
}

/* JSON string contents: quotes, backslashes and control characters. */
void rt_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

PtoRtStatus pto_timeline_write_trace(const PtoRtTimeline *tl, FILE *f) {
  if (!tl || !f || !tl->valid)
    return PTO_RT_ERR_MISUSE;
  const PtoGraph *g = tl->g;
  double u = tl->us_per_unit;
  const char *proc = tl->backend == PTO_RT_SIM ? "sim" : "host";
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\","
             "\"args\":{\"name\":");
  rt_json_str(f, tl->backend == PTO_RT_SIM ? g->rt->platform.name : "host");
  fprintf(f, "}}");
  for (uint32_t l = 0; l < tl->nlanes; l++) {
    fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":"
               "\"thread_name\",\"args\":{\"name\":", l);
    rt_json_str(f, tl->lane_names[l]);
    fprintf(f, "}}");
    fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":"
               "\"thread_sort_index\",\"args\":{\"sort_index\":%u}}", l, l);
  }
  for (uint32_t i = 0; i < g->ntasks; i++) {
    if (tl->lane[i] == RT_NONE)
      continue;
    const double *t = &tl->times[(size_t)i * 5];
    const RtTask *task = &g->tasks[i];
    const char *label = rt_label(g, i);
    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.4f,"
               "\"dur\":%.4f,\"name\":", tl->lane[i], t[2] * u,
            (t[3] - t[2]) * u);
    char name[160];
    snprintf(name, sizeof name, "%s%s%s", rt_task_name(g, i),
             *label ? " " : "", label);
    rt_json_str(f, name);
    fprintf(f, ",\"cat\":\"%s\",\"args\":{\"taskId\":%u,\"seqNo\":%u,"
               "\"semanticLabel\":", proc, i, task->seq);
    rt_json_str(f, label);
    fprintf(f, ",\"kernelId\":%d,\"kernel\":", task->kernel);
    rt_json_str(f, rt_task_name(g, i));
    fprintf(f, ",\"submit\":%.4f,\"dispatch\":%.4f,\"start\":%.4f,"
               "\"end\":%.4f,\"finish\":%.4f,\"successors\":[",
            t[0] * u, t[1] * u, t[2] * u, t[3] * u, t[4] * u);
    for (uint32_t k = g->succ_off[i]; k < g->succ_off[i + 1]; k++)
      fprintf(f, "%s%u", k == g->succ_off[i] ? "" : ",", g->succ[k]);
    fprintf(f, "]}}");
  }
  /* Flow arrows from the end of each task to the start of each direct
   * successor; edges through barriers are drawn from the barrier's
   * inputs to its outputs. */
  uint64_t flow = 0;
  for (uint32_t i = 0; i < g->ntasks; i++) {
    if (tl->lane[i] == RT_NONE)
      continue;
    for (uint32_t k = g->succ_off[i]; k < g->succ_off[i + 1]; k++) {
      uint32_t s = g->succ[k];
      uint32_t one[1] = {s};
      const uint32_t *to = one;
      uint32_t nto = 1;
      if (g->tasks[s].kernel < 0) {
        to = &g->succ[g->succ_off[s]];
        nto = g->succ_off[s + 1] - g->succ_off[s];
      }
      for (uint32_t j = 0; j < nto; j++) {
        uint32_t d = to[j];
        if (tl->lane[d] == RT_NONE)
          continue;
        const double *a = &tl->times[(size_t)i * 5];
        const double *b = &tl->times[(size_t)d * 5];
        fprintf(f, ",\n{\"ph\":\"s\",\"id\":%llu,\"pid\":1,\"tid\":%u,"
                   "\"ts\":%.4f,\"name\":\"dep\",\"cat\":\"dep\"}",
                (unsigned long long)flow, tl->lane[i], a[3] * u);
        fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,\"pid\":1,"
                   "\"tid\":%u,\"ts\":%.4f,\"name\":\"dep\",\"cat\":\"dep\"}",
                (unsigned long long)flow, tl->lane[d], b[2] * u);
        flow++;
      }
    }
  }
  fprintf(f, "\n]}\n");
  return ferror(f) ? PTO_RT_ERR_IO : PTO_RT_OK;
}

int pto_timeline_get_task(const PtoRtTimeline *tl, uint64_t id,
                          PtoRtTaskTimes *out) {
  if (!tl || id >= tl->g->ntasks || tl->lane[id] == RT_NONE)
    return 0;
  const double *t = &tl->times[id * 5];
  double u = tl->us_per_unit;
  out->lane = tl->lane[id];
  out->submit = t[0] * u;
  out->dispatch = t[1] * u;
  out->start = t[2] * u;
  out->end = t[3] * u;
  out->finish = t[4] * u;
  return 1;
}

uint32_t pto_timeline_get_lanes(const PtoRtTimeline *tl) {
  return tl ? tl->nlanes : 0;
}

const char *pto_timeline_get_lane_name(const PtoRtTimeline *tl,
                                       uint32_t lane) {
  return tl && lane < tl->nlanes ? tl->lane_names[lane] : NULL;
}
