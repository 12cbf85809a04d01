/* Queries on a loaded platform and on the built-in descriptions, and the
 * human-readable summary `pto-opt --print-platform` shows. */
#include "Target/Platform/PlatformInternal.h"

#include "Support/Str.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

unsigned pto_platform_builtin_count(void) { return pto_platform_num_builtins; }

const char *pto_platform_builtin_name(unsigned i) {
  return i < pto_platform_num_builtins ? pto_platform_builtins[i].name : NULL;
}

const char *pto_platform_builtin_xml(const char *name) {
  for (unsigned i = 0; name && i < pto_platform_num_builtins; i++)
    if (strcmp(pto_platform_builtins[i].name, name) == 0)
      return pto_platform_builtins[i].xml;
  return NULL;
}

unsigned pto_platform_vector_latency(const PtoPlatform *p, const char *name) {
  for (unsigned i = 0; i < p->num_vector_ops; i++)
    if (strcmp(p->vector_ops[i].name, name) == 0)
      return p->vector_ops[i].latency_cycles;
  return p->vector_default_latency_cycles;
}

const char *pto_core_type_name(PtoCoreType t) {
  static const char *const names[] = {"cube", "vector", "scheduler"};
  return (unsigned)t < PTO_CORE_TYPE_COUNT ? names[t] : "?";
}

const char *pto_mem_space_name(PtoMemSpace s) {
  static const char *const names[] = {"vec", "mat", "left", "right", "acc",
                                      "gm"};
  return (unsigned)s <= PTO_MEM_GM ? names[s] : "?";
}

/* Bytes in the largest unit that divides them exactly. */
static void put_bytes(PtoStr *s, uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    pto_str_printf(s, "%" PRIu64 " MiB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    pto_str_printf(s, "%" PRIu64 " KiB", b >> 10);
  else
    pto_str_printf(s, "%" PRIu64 " B", b);
}

char *pto_platform_describe(const PtoPlatform *p) {
  PtoStr s;
  pto_str_init(&s);
  pto_str_printf(&s, "platform %s (%s)", p->name, p->source);
  if (p->description[0]) pto_str_printf(&s, ": %s", p->description);
  pto_str_printf(&s, "\nclock: %g MHz\n", p->clock_hz / 1e6);
  pto_str_printf(&s, "cores: cube %u, vector %u, scheduler %u (%u threads)\n",
                 p->cores[PTO_CORE_CUBE], p->cores[PTO_CORE_VECTOR],
                 p->cores[PTO_CORE_SCHEDULER], p->scheduler_threads);
  pto_str_puts(&s, "buffers:");
  for (unsigned i = 0; i < PTO_MEM_SPACE_COUNT; i++) {
    const PtoPlatformBuffer *b = &p->buffers[i];
    pto_str_printf(&s, "%s %s ", i ? ";" : "", pto_mem_space_name(i));
    put_bytes(&s, b->size_bytes);
    pto_str_printf(&s, " (%s, align ", pto_core_type_name(b->core));
    put_bytes(&s, b->align_bytes);
    if (b->fractal_bytes) {
      pto_str_puts(&s, ", fractal ");
      put_bytes(&s, b->fractal_bytes);
    }
    pto_str_putc(&s, ')');
  }
  pto_str_printf(&s, "\nglobal memory: read %g B/cycle, read latency %u "
                 "cycles, write latency %u cycles, aggregate %g GB/s at %g %%\n",
                 p->gm_read_bytes_per_cycle, p->gm_read_latency_cycles,
                 p->gm_write_latency_cycles,
                 p->gm_aggregate_bytes_per_second / 1e9,
                 p->gm_efficiency * 100);
  pto_str_printf(&s, "l2: read %g B/cycle, write %g B/cycle\npaths:",
                 p->l2_read_bytes_per_cycle, p->l2_write_bytes_per_cycle);
  for (unsigned i = 0; i < p->num_paths; i++)
    pto_str_printf(&s, "%s %s->%s %g B/cycle", i ? "," : "",
                   pto_mem_space_name(p->paths[i].from),
                   pto_mem_space_name(p->paths[i].to),
                   p->paths[i].bytes_per_cycle);
  pto_str_printf(&s, "\ncube: dims up to %u;", p->cube_max_dim);
  for (unsigned i = 0; i < p->num_fractals; i++) {
    const PtoPlatformFractal *f = &p->fractals[i];
    pto_str_printf(&s, "%s %s->%s %ux%ux%u at %g/cycle", i ? "," : "", f->in,
                   f->acc, f->m, f->k, f->n, f->per_cycle);
  }
  pto_str_printf(&s, "\nvector: repeat %" PRIu64 " B, default latency %u "
                 "cycles;", p->vector_repeat_bytes,
                 p->vector_default_latency_cycles);
  for (unsigned i = 0; i < p->num_vector_ops; i++)
    pto_str_printf(&s, "%s %s %u", i ? "," : "", p->vector_ops[i].name,
                   p->vector_ops[i].latency_cycles);
  pto_str_printf(&s, "\nruntime: submit %u, dispatch %u, dependency %u, "
                 "completion %u cycles; %u sync events per pipe pair\n",
                 p->submit_cycles, p->dispatch_cycles, p->dependency_cycles,
                 p->completion_cycles, p->sync_events);
  return pto_str_take(&s);
}

void pto_platform_error_format(const PtoPlatformError *err, char *buf,
                               size_t n) {
  if (err->line)
    snprintf(buf, n, "%s:%u: error: %s", err->file, err->line, err->message);
  else
    snprintf(buf, n, "%s: error: %s", err->file, err->message);
}
