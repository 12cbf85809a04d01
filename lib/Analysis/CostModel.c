/* The pipe timeline of the cost model: one clock per pipe, advanced by
 * the work issued to it and by the flags it waits for. */
#include "Analysis/CostModel.h"

#include <string.h>

#include "Support/Alloc.h"
#include "Support/Vec.h"

typedef PTO_VEC(uint64_t) TimeVec;

bool pto_pipe_timeline(const PtoSyncInst *insts, const uint64_t *cycles,
                       uint32_t n, const PtoSyncModel *m, PtoPipeTimes *out,
                       uint32_t *bad) {
  memset(out, 0, sizeof *out);
  size_t slots = (size_t)m->num_pipes * m->num_pipes * m->num_events;
  TimeVec *fired = pto_calloc(slots ? slots : 1, sizeof *fired);
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; i++) {
    const PtoSyncInst *in = &insts[i];
    if (in->pipe >= m->num_pipes)
      continue;
    TimeVec *q = NULL;
    if (in->kind == PTO_SYNC_SET || in->kind == PTO_SYNC_WAIT) {
      if (in->dst >= m->num_pipes || in->event >= m->num_events)
        continue;
      q = &fired[((size_t)in->pipe * m->num_pipes + in->dst) * m->num_events +
                 in->event];
    }
    switch (in->kind) {
    case PTO_SYNC_INSTR:
      out->finish[in->pipe] += cycles[i];
      out->busy[in->pipe] += cycles[i];
      break;
    case PTO_SYNC_SET:
      pto_vec_push(q, out->finish[in->pipe]);
      break;
    case PTO_SYNC_WAIT:
      if (q->len == 0) {
        *bad = i;
        ok = false;
        break;
      }
      if (q->data[0] > out->finish[in->dst])
        out->finish[in->dst] = q->data[0];
      memmove(q->data, q->data + 1, (q->len - 1) * sizeof *q->data);
      q->len--;
      break;
    case PTO_SYNC_BARRIER:
      break;
    }
  }
  for (unsigned p = 0; p < m->num_pipes; p++) {
    if (out->finish[p] > out->total)
      out->total = out->finish[p];
    if (out->busy[p] > out->busy[out->bound])
      out->bound = p;
  }
  for (size_t s = 0; s < slots; s++)
    pto_vec_free(&fired[s]);
  pto_free(fired);
  return ok;
}
