/* The pipe-ordering model of PipeSync.h: a vector clock per pipe records,
 * for each other pipe, how many of its instructions are known to have
 * finished before the pipe's next instruction starts. Program order,
 * barriers and flags advance the clocks; two conflicting accesses are
 * ordered exactly when the later instruction's clock covers the earlier
 * one. insert-sync and the hazard checker run the same walk. */
#include "Transforms/PipeSync.h"

#include <assert.h>
#include <string.h>

#include "Support/Alloc.h"
#include "Support/Vec.h"

typedef struct Clock {
  uint32_t v[PTO_SYNC_MAX_PIPES];
} Clock;

typedef struct Pending {
  Clock clock;
  uint32_t inst; /* the set_flag, for reports */
} Pending;

typedef PTO_VEC(Pending) PendingVec;

typedef struct Walk {
  const PtoSyncModel *m;
  uint32_t cnt[PTO_SYNC_MAX_PIPES]; /* instructions issued per pipe */
  Clock known[PTO_SYNC_MAX_PIPES];  /* what the pipe's next one follows */
  PendingVec *pending;              /* per (src, dst, event), oldest first */
  /* Per instruction: its number on its pipe and the clock it started
   * with (INSTR only). */
  uint32_t *seq;
  Clock *start;
} Walk;

static void walk_init(Walk *w, const PtoSyncModel *m, uint32_t n) {
  assert(m->num_pipes <= PTO_SYNC_MAX_PIPES &&
         m->num_events <= PTO_SYNC_MAX_EVENTS);
  memset(w, 0, sizeof *w);
  w->m = m;
  size_t slots = (size_t)m->num_pipes * m->num_pipes * m->num_events;
  w->pending = pto_calloc(slots ? slots : 1, sizeof(PendingVec));
  w->seq = pto_calloc(n ? n : 1, sizeof(uint32_t));
  w->start = pto_calloc(n ? n : 1, sizeof(Clock));
}

static void walk_free(Walk *w) {
  size_t slots = (size_t)w->m->num_pipes * w->m->num_pipes * w->m->num_events;
  for (size_t i = 0; i < slots; i++)
    pto_vec_free(&w->pending[i]);
  pto_free(w->pending);
  pto_free(w->seq);
  pto_free(w->start);
}

static PendingVec *slot(Walk *w, unsigned src, unsigned dst, unsigned ev) {
  unsigned np = w->m->num_pipes;
  return &w->pending[((size_t)src * np + dst) * w->m->num_events + ev];
}

static bool unordered(const Walk *w, unsigned pipe) {
  return (w->m->unordered_pipes >> pipe) & 1u;
}

/* Whether a flag or instruction names pipes and an event the model has. */
static bool check_flag(const Walk *w, const PtoSyncInst *in,
                       PtoFlagFault *fault) {
  unsigned np = w->m->num_pipes;
  switch (in->kind) {
  case PTO_SYNC_INSTR:
  case PTO_SYNC_BARRIER:
    if (in->pipe >= np) {
      *fault = PTO_FLAG_BAD_PIPES;
      return false;
    }
    return true;
  case PTO_SYNC_SET:
  case PTO_SYNC_WAIT:
    if (in->pipe >= np || in->dst >= np || in->pipe == in->dst) {
      *fault = PTO_FLAG_BAD_PIPES;
      return false;
    }
    if (in->event >= w->m->num_events) {
      *fault = PTO_FLAG_BAD_EVENT;
      return false;
    }
    return true;
  }
  return true;
}

static void do_set(Walk *w, unsigned src, unsigned dst, unsigned ev,
                   uint32_t inst) {
  Pending p = {w->known[src], inst};
  p.clock.v[src] = w->cnt[src]; /* fires after all of src's earlier work */
  pto_vec_push(slot(w, src, dst, ev), p);
}

/* Returns false when no set_flag is pending. */
static bool do_wait(Walk *w, unsigned src, unsigned dst, unsigned ev) {
  PendingVec *q = slot(w, src, dst, ev);
  if (q->len == 0)
    return false;
  Clock c = q->data[0].clock;
  memmove(q->data, q->data + 1, (q->len - 1) * sizeof *q->data);
  q->len--;
  for (unsigned p = 0; p < w->m->num_pipes; p++)
    if (c.v[p] > w->known[dst].v[p])
      w->known[dst].v[p] = c.v[p];
  return true;
}

static void do_instr(Walk *w, uint32_t i, unsigned pipe) {
  w->start[i] = w->known[pipe];
  w->seq[i] = ++w->cnt[pipe];
  if (!unordered(w, pipe))
    w->known[pipe].v[pipe] = w->seq[i];
}

/* Whether instruction j (already issued) finishes before an instruction
 * starting on `pipe` with the pipe's current clock. */
static bool ordered_before(const Walk *w, const PtoSyncInst *insts,
                           uint32_t j, const Clock *c) {
  return w->seq[j] <= c->v[insts[j].pipe];
}

/* The kind of conflict between j (earlier) and i, or -1. Reads after
 * writes matter most, then write order, then reuse of a read buffer. */
static int conflict(const PtoSyncInst *j, const PtoSyncInst *i,
                    uint32_t *key) {
  int best = -1;
  static const int rank[] = {[PTO_HAZARD_RAW] = 3, [PTO_HAZARD_WAW] = 2,
                             [PTO_HAZARD_WAR] = 1};
  for (uint32_t a = 0; a < j->num_acc; a++) {
    const PtoSyncAccess *x = &j->acc[a];
    for (uint32_t b = 0; b < i->num_acc; b++) {
      const PtoSyncAccess *y = &i->acc[b];
      if (x->key != y->key || !(x->lo < y->hi && y->lo < x->hi))
        continue;
      if (!x->write && !y->write)
        continue;
      int k = x->write ? (y->write ? PTO_HAZARD_WAW : PTO_HAZARD_RAW)
                       : PTO_HAZARD_WAR;
      if (best < 0 || rank[k] > rank[best]) {
        best = k;
        *key = x->key;
      }
    }
  }
  return best;
}

const char *pto_hazard_kind_name(PtoHazardKind k) {
  switch (k) {
  case PTO_HAZARD_RAW:
    return "RAW";
  case PTO_HAZARD_WAR:
    return "WAR";
  case PTO_HAZARD_WAW:
    return "WAW";
  }
  return "?";
}

typedef PTO_VEC(PtoHazard) HazardVec;
typedef PTO_VEC(PtoFlagError) FlagErrorVec;

static void report_unwaited(Walk *w, FlagErrorVec *errs) {
  size_t slots = (size_t)w->m->num_pipes * w->m->num_pipes * w->m->num_events;
  for (size_t s = 0; s < slots; s++)
    pto_vec_foreach(&w->pending[s], p) {
      PtoFlagError e = {p->inst, PTO_FLAG_SET_UNWAITED};
      pto_vec_push(errs, e);
    }
}

bool pto_sync_check(const PtoSyncInst *insts, uint32_t n,
                    const PtoSyncModel *model, PtoSyncReport *out) {
  memset(out, 0, sizeof *out);
  Walk w;
  walk_init(&w, model, n);
  HazardVec hz = {0};
  FlagErrorVec errs = {0};
  PTO_VEC(uint32_t) issued = {0}; /* the INSTRs so far */
  for (uint32_t i = 0; i < n; i++) {
    const PtoSyncInst *in = &insts[i];
    PtoFlagFault fault;
    if (!check_flag(&w, in, &fault)) {
      PtoFlagError e = {i, fault};
      pto_vec_push(&errs, e);
      continue;
    }
    switch (in->kind) {
    case PTO_SYNC_SET:
      do_set(&w, in->pipe, in->dst, in->event, i);
      break;
    case PTO_SYNC_WAIT:
      if (!do_wait(&w, in->pipe, in->dst, in->event)) {
        PtoFlagError e = {i, PTO_FLAG_WAIT_UNMATCHED};
        pto_vec_push(&errs, e);
      }
      break;
    case PTO_SYNC_BARRIER:
      w.known[in->pipe].v[in->pipe] = w.cnt[in->pipe];
      break;
    case PTO_SYNC_INSTR:
      do_instr(&w, i, in->pipe);
      pto_vec_foreach(&issued, jp) {
        uint32_t key = 0;
        int k = conflict(&insts[*jp], in, &key);
        if (k >= 0 && !ordered_before(&w, insts, *jp, &w.start[i])) {
          PtoHazard h = {*jp, i, (PtoHazardKind)k, key};
          pto_vec_push(&hz, h);
        }
      }
      pto_vec_push(&issued, i);
      break;
    }
  }
  report_unwaited(&w, &errs);
  pto_vec_free(&issued);
  walk_free(&w);
  out->hazards = hz.data;
  out->num_hazards = hz.len;
  out->flag_errors = errs.data;
  out->num_flag_errors = errs.len;
  return hz.len == 0 && errs.len == 0;
}

void pto_sync_report_free(PtoSyncReport *r) {
  pto_free(r->hazards);
  pto_free(r->flag_errors);
  memset(r, 0, sizeof *r);
}

typedef PTO_VEC(PtoSyncInsertion) InsertionVec;

/* The lowest event id of (src, dst) with no set pending, or -1. */
static int free_event(Walk *w, unsigned src, unsigned dst) {
  for (unsigned e = 0; e < w->m->num_events; e++)
    if (slot(w, src, dst, e)->len == 0)
      return (int)e;
  return -1;
}

typedef PTO_VEC(uint32_t) IndexVec;

/* The clock instruction i's pipe q would start with if it waited on a
 * flag from every pipe in `mask` (bit q: a barrier on q). */
static Clock clock_with(const Walk *w, unsigned q, uint32_t mask) {
  Clock c = w->known[q];
  for (unsigned p = 0; p < w->m->num_pipes; p++) {
    if (!((mask >> p) & 1u))
      continue;
    if (p != q)
      for (unsigned x = 0; x < w->m->num_pipes; x++)
        if (w->known[p].v[x] > c.v[x])
          c.v[x] = w->known[p].v[x];
    if (w->cnt[p] > c.v[p])
      c.v[p] = w->cnt[p];
  }
  return c;
}

/* How many of the issued instructions conflicting with i stay unordered
 * before it under clock c. */
static unsigned unordered_conflicts(const Walk *w, const PtoSyncInst *insts,
                                    const IndexVec *issued, uint32_t i,
                                    const Clock *c) {
  unsigned n = 0;
  for (uint32_t k = 0; k < issued->len; k++) {
    uint32_t j = issued->data[k], key;
    if (conflict(&insts[j], &insts[i], &key) >= 0 &&
        !ordered_before(w, insts, j, c))
      n++;
  }
  return n;
}

/* The pipes instruction i must wait on (its own pipe: a barrier): grown
 * greedily, each time by the pipe that orders most of what is left, then
 * pruned of any pipe the others make redundant (one flag can order other
 * pipes' work too, through the flags its pipe waited on). */
static void choose_sync(const Walk *w, const PtoSyncInst *insts,
                        const IndexVec *issued, uint32_t i, unsigned *out,
                        unsigned *num_out) {
  unsigned q = insts[i].pipe, np = w->m->num_pipes;
  uint32_t mask = 0;
  Clock c = clock_with(w, q, 0);
  unsigned left = unordered_conflicts(w, insts, issued, i, &c);
  while (left > 0) {
    unsigned best_pipe = 0, best_left = left;
    for (unsigned p = 0; p < np; p++) {
      if ((mask >> p) & 1u || (p == q && !unordered(w, q)))
        continue;
      Clock t = clock_with(w, q, mask | 1u << p);
      unsigned l = unordered_conflicts(w, insts, issued, i, &t);
      if (l < best_left) {
        best_left = l;
        best_pipe = p;
      }
    }
    if (best_left == left)
      break; /* cannot happen: a flag from j's pipe orders j */
    mask |= 1u << best_pipe;
    left = best_left;
  }
  for (unsigned p = 0; p < np; p++) {
    if (!((mask >> p) & 1u))
      continue;
    Clock t = clock_with(w, q, mask & ~(1u << p));
    if (unordered_conflicts(w, insts, issued, i, &t) == 0)
      mask &= ~(1u << p);
  }
  *num_out = 0;
  for (unsigned p = 0; p < np; p++)
    if ((mask >> p) & 1u && p != q)
      out[(*num_out)++] = p;
  if ((mask >> q) & 1u)
    out[(*num_out)++] = q;
}

bool pto_sync_plan(const PtoSyncInst *insts, uint32_t n,
                   const PtoSyncModel *model, PtoSyncInsertion **out,
                   uint32_t *num_out, uint32_t *bad_inst) {
  Walk w;
  walk_init(&w, model, n);
  InsertionVec ins = {0};
  IndexVec issued = {0};
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; i++) {
    const PtoSyncInst *in = &insts[i];
    PtoFlagFault fault;
    if (!check_flag(&w, in, &fault)) {
      *bad_inst = i;
      ok = false;
      break;
    }
    switch (in->kind) {
    case PTO_SYNC_SET:
      do_set(&w, in->pipe, in->dst, in->event, i);
      continue;
    case PTO_SYNC_WAIT:
      if (!do_wait(&w, in->pipe, in->dst, in->event)) {
        *bad_inst = i;
        ok = false;
      }
      continue;
    case PTO_SYNC_BARRIER:
      w.known[in->pipe].v[in->pipe] = w.cnt[in->pipe];
      continue;
    case PTO_SYNC_INSTR:
      break;
    }
    unsigned q = in->pipe;
    unsigned chosen[PTO_SYNC_MAX_PIPES], num_chosen = 0;
    choose_sync(&w, insts, &issued, i, chosen, &num_chosen);
    for (unsigned c = 0; c < num_chosen && ok; c++) {
      unsigned p = chosen[c];
      if (p == q) {
        PtoSyncInsertion b = {i, PTO_SYNC_BARRIER, (uint8_t)q, 0, 0};
        pto_vec_push(&ins, b);
        w.known[q].v[q] = w.cnt[q];
        continue;
      }
      int ev = free_event(&w, p, q);
      if (ev < 0) {
        *bad_inst = i;
        ok = false;
        break;
      }
      PtoSyncInsertion s = {i, PTO_SYNC_SET, (uint8_t)p, (uint8_t)q,
                            (uint8_t)ev};
      PtoSyncInsertion t = {i, PTO_SYNC_WAIT, (uint8_t)p, (uint8_t)q,
                            (uint8_t)ev};
      pto_vec_push(&ins, s);
      pto_vec_push(&ins, t);
      do_set(&w, p, q, (unsigned)ev, i);
      do_wait(&w, p, q, (unsigned)ev);
    }
    if (!ok)
      break;
    do_instr(&w, i, q);
    pto_vec_push(&issued, i);
  }
  if (ok) {
    size_t slots = (size_t)model->num_pipes * model->num_pipes *
                   model->num_events;
    for (size_t s = 0; s < slots && ok; s++)
      if (w.pending[s].len) {
        *bad_inst = w.pending[s].data[0].inst;
        ok = false;
      }
  }
  pto_vec_free(&issued);
  walk_free(&w);
  if (!ok) {
    pto_vec_free(&ins);
    *out = NULL;
    *num_out = 0;
    return false;
  }
  *out = ins.data;
  *num_out = ins.len;
  return true;
}
