/* Task graphs: submission, dependencies derived from GM regions (RAW, WAR,
 * WAW on overlapping byte ranges), barrier nodes for wide fan-ins, the CSR
 * form the schedulers walk, and pto_graph_run. */
#include "Internal.h"

#include <stdlib.h>
#include <string.h>

static void link_live(PtoRuntime *rt, PtoGraph *g) {
  g->rt = rt;
  g->prev_live = NULL;
  g->next_live = rt->live;
  if (rt->live)
    rt->live->prev_live = g;
  rt->live = g;
}

PtoGraph *pto_graph_create(PtoRuntime *rt) {
  if (!rt)
    return NULL;
  if (rt->spare) {
    /* The storage of the last graph destroyed, emptied: its task, edge
     * and segment arrays are reused without faulting in new pages. */
    PtoGraph *g = rt->spare;
    rt->spare = NULL;
    link_live(rt, g);
    return g;
  }
  /* its ready queues are cache-line aligned: calloc's 16 bytes are not
   * enough (undefined behaviour that clang's UBSan reports) */
  PtoGraph *g = aligned_alloc(_Alignof(PtoGraph), sizeof *g);
  if (g) memset(g, 0, sizeof *g);
  if (!g) {
    rt_set_error(rt, "out of memory");
    return NULL;
  }
  link_live(rt, g);
  /* Label 0 is the empty label. */
  if (!rt_grow((void **)&g->labels, &g->caplabels, 1, 1)) {
    pto_graph_destroy(g);
    rt_set_error(rt, "out of memory");
    return NULL;
  }
  g->labels[0] = 0;
  g->nlabels_bytes = 1;
  return g;
}

static void free_run_state(PtoGraph *g) {
  free(g->succ_off);
  free(g->succ);
  free(g->succ_run);
  g->succ_run = NULL;
  free((void *)g->count);
  free(g->roots);
  g->roots = NULL;
  free(g->multi);
  g->multi = NULL;
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++)
    free((void *)g->queues[t].slots);
  g->succ_off = g->succ = NULL;
  g->count = NULL;
  memset(g->queues, 0, sizeof g->queues);
  g->finalized = false;
}

void rt_graph_free(PtoGraph *g) {
  free_run_state(g);
  for (int i = 0; i < RT_SIM_ARRAYS; i++)
    free(g->sim_mem[i]);
  free(g->sim_heap);
  for (uint32_t i = 0; i < g->nbufs_inited; i++)
    free(g->bufs[i].segs);
  free(g->bufs);
  free(g->tasks);
  free(g->core);
  free(g->ndeps0);
  free(g->fn);
  free(g->args);
  free(g->run_buffers);
  free(g->edges);
  free(g->scratch);
  free(g->labels);
  free(g->label_index);
  free(g->syncs);
  rt_timeline_free(&g->host_tl);
  rt_timeline_free(&g->sim_tl);
  free(g);
}

/* Empties a graph but keeps its storage. */
static void graph_reset(PtoGraph *g) {
  g->ntasks = g->nreal = g->nbarriers = 0;
  g->nbufs = 0;
  g->nedges = 0;
  g->nscratch = 0;
  g->nlabels_bytes = 1;
  if (g->label_index)
    memset(g->label_index, 0, g->label_index_cap * sizeof *g->label_index);
  g->nlabel_distinct = 0;
  memset(g->type_count, 0, sizeof g->type_count);
  g->args_stale = false;
  g->finalized = false;
  g->host_tl.valid = g->sim_tl.valid = false;
  g->ran = 0;
  g->run_failed = false;
  g->nsyncs = 0;
}

void pto_graph_destroy(PtoGraph *g) {
  if (!g)
    return;
  PtoRuntime *rt = g->rt;
  if (rt) {
    rt_graph_stop(g);
    if (g->prev_live)
      g->prev_live->next_live = g->next_live;
    else
      rt->live = g->next_live;
    if (g->next_live)
      g->next_live->prev_live = g->prev_live;
    if (!rt->spare) {
      graph_reset(g);
      g->rt = NULL;
      rt->spare = g;
      return;
    }
  }
  rt_graph_free(g);
}

static bool detached(const PtoGraph *g) { return !g || !g->rt; }

int32_t pto_graph_add_buffer(PtoGraph *g, int64_t size, const char *name) {
  if (detached(g))
    return -1;
  if (g->streaming) {
    rt_set_error(g->rt, "buffer '%s': the graph is running; declare its "
                 "buffers before pto_graph_start", name ? name : "");
    return -1;
  }
  if (size <= 0) {
    rt_set_error(g->rt, "buffer '%s': size %lld is not positive",
                 name ? name : "", (long long)size);
    return -1;
  }
  if (!rt_grow((void **)&g->bufs, &g->capbufs, g->nbufs + 1, sizeof *g->bufs)) {
    rt_set_error(g->rt, "out of memory");
    return -1;
  }
  if (!g->run_buffers || g->capbufs != g->caprunbufs) {
    /* Tasks' args point at run_buffers: when it moves, or when the count
     * they were given changes, finalize refreshes them. */
    void *q = realloc(g->run_buffers, g->capbufs * sizeof *g->run_buffers);
    if (!q) {
      rt_set_error(g->rt, "out of memory");
      return -1;
    }
    g->args_stale |= q != (void *)g->run_buffers;
    g->run_buffers = q;
    g->caprunbufs = g->capbufs;
  }
  g->args_stale |= g->ntasks > 0;
  RtBuffer *b = &g->bufs[g->nbufs];
  if (g->nbufs == g->nbufs_inited) { /* a fresh entry, not a reused one */
    memset(b, 0, sizeof *b);
    g->nbufs_inited++;
  }
  b->size = size;
  b->finger[0] = b->finger[1] = 0;
  b->last_finger = 0;
  snprintf(b->name, sizeof b->name, "%s", name ? name : "");
  if (!rt_grow((void **)&b->segs, &b->capsegs, 4, sizeof *b->segs)) {
    rt_set_error(g->rt, "out of memory");
    return -1;
  }
  b->segs[0] = (RtSeg){.lo = 0, .hi = size, .writer = RT_NONE};
  b->nsegs = 1;
  g->finalized = false; /* the argument records list the buffers */
  return (int32_t)g->nbufs++;
}

/* ---- labels: interned, so that colours and legends group by label ---- */

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static bool label_rehash(PtoGraph *g, uint32_t cap) {
  uint32_t *idx = calloc(cap, sizeof *idx);
  if (!idx)
    return false;
  for (uint32_t i = 0; i < g->label_index_cap; i++) {
    uint32_t off = g->label_index[i];
    if (!off)
      continue;
    uint32_t h = hash_str(g->labels + off) & (cap - 1);
    while (idx[h])
      h = (h + 1) & (cap - 1);
    idx[h] = off;
  }
  free(g->label_index);
  g->label_index = idx;
  g->label_index_cap = cap;
  return true;
}

/* Returns the label's offset in the pool, 0 for none, UINT32_MAX on OOM. */
static uint32_t intern_label(PtoGraph *g, const char *s) {
  if (!s || !*s)
    return 0;
  if ((g->nlabel_distinct + 1) * 2 > g->label_index_cap &&
      !label_rehash(g, g->label_index_cap ? g->label_index_cap * 2 : 64))
    return UINT32_MAX;
  uint32_t mask = g->label_index_cap - 1, h = hash_str(s) & mask;
  for (; g->label_index[h]; h = (h + 1) & mask)
    if (strcmp(g->labels + g->label_index[h], s) == 0)
      return g->label_index[h];
  size_t n = strlen(s) + 1;
  if (n > 4096 || !rt_grow((void **)&g->labels, &g->caplabels,
                        g->nlabels_bytes + (uint32_t)n, 1))
    return UINT32_MAX;
  uint32_t off = g->nlabels_bytes;
  memcpy(g->labels + off, s, n);
  g->nlabels_bytes += (uint32_t)n;
  g->label_index[h] = off;
  g->nlabel_distinct++;
  return off;
}

const char *rt_label(const PtoGraph *g, uint32_t id) {
  return g->labels + g->tasks[id].label;
}

const char *rt_task_name(const PtoGraph *g, uint32_t id) {
  int32_t k = g->tasks[id].kernel;
  return k < 0 ? "barrier" : g->rt->kernels[k].name;
}

PtoRtCoreType rt_task_core(const PtoGraph *g, uint32_t id) {
  int32_t k = g->tasks[id].kernel;
  return k < 0 ? PTO_RT_CORE_AICPU : g->rt->kernels[k].core;
}

/* ---- dependency tracking ---------------------------------------------- */

/* Grows the task record array and the dense per-task arrays together. */
static bool grow_tasks(PtoGraph *g) {
  uint32_t cap = g->captasks;
  if (!rt_grow((void **)&g->tasks, &cap, g->ntasks + 1, sizeof *g->tasks))
    return false;
  if (cap != g->captasks) {
    void *p;
    if (!(p = realloc(g->core, cap * sizeof *g->core)))
      return false;
    g->core = p;
    if (!(p = realloc(g->ndeps0, cap * sizeof *g->ndeps0)))
      return false;
    g->ndeps0 = p;
    if (!(p = realloc(g->fn, cap * sizeof *g->fn)))
      return false;
    g->fn = p;
    if (!(p = realloc(g->args, cap * sizeof *g->args)))
      return false;
    g->args = p;
    g->captasks = cap;
  }
  return true;
}

/* A new task record; the caller fills in its dense entries. */
static bool new_task(PtoGraph *g, uint32_t *id) {
  if (g->ntasks == RT_MAX_TASKS ||
      (g->ntasks == g->captasks && !grow_tasks(g)))
    return false;
  *id = g->ntasks++;
  g->tasks[*id] = (RtTask){.mark = RT_NONE, .bmark = RT_NONE};
  return true;
}

/* A barrier node that depends on `preds` (distinct, all earlier). */
static bool make_barrier(PtoGraph *g, const uint32_t *preds, uint32_t n,
                         uint32_t *out) {
  uint32_t b;
  if (g->nedges > UINT32_MAX - 2 - n ||
      !rt_grow((void **)&g->edges, &g->capedges, g->nedges + n,
               sizeof *g->edges) ||
      !new_task(g, &b))
    return false;
  g->tasks[b].kernel = -1;
  g->ndeps0[b] = n;
  g->core[b] = 0; /* barriers go through the first queue */
  g->fn[b] = NULL;
  g->type_count[0]++;
  g->nbarriers++;
  for (uint32_t i = 0; i < n; i++)
    g->edges[g->nedges++] = (RtEdge){preds[i], b};
  *out = b;
  return true;
}

/* Index of the segment holding byte `at` (segments tile the buffer).
 * Accesses cluster around a few places (a chain walks forward, a
 * wavefront works on one row while reading the row above), so the last
 * two hits are tried first, then the search gallops out from the nearer
 * one before bisecting: O(log distance) and cache-local. */
static uint32_t seg_find(RtBuffer *b, int64_t at) {
  const RtSeg *s = b->segs;
  uint32_t n = b->nsegs;
  for (int k = 0; k < 2; k++) {
    /* The neighbours too: the next access is often one segment over, and
     * an insertion since may have moved the hit one place up. */
    uint32_t f = b->finger[k];
    if (f >= n)
      continue;
    /* The hit itself first, then the segment after, then the one before. */
    uint32_t c = s[f].lo <= at ? (at < s[f].hi ? f : f + 1) : f - 1;
    if (c < n && s[c].lo <= at && at < s[c].hi) {
      b->finger[k] = c;
      b->last_finger = (uint8_t)k;
      return c;
    }
  }
  uint32_t f = b->finger[b->last_finger] < n ? b->finger[b->last_finger] : 0;
  uint32_t lo, hi;
  if (s[f].lo <= at) {
    uint32_t step = 1;
    lo = f;
    while (lo + step < n && s[lo + step].lo <= at) {
      lo += step;
      step *= 2;
    }
    hi = lo + step < n ? lo + step : n;
  } else {
    uint32_t step = 1;
    hi = f;
    while (hi >= step && s[hi - step].lo > at) {
      hi -= step;
      step *= 2;
    }
    lo = hi >= step ? hi - step : 0;
  }
  /* s[lo].lo <= at, and hi == n or s[hi].lo > at. */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s[mid].lo <= at)
      lo = mid;
    else
      hi = mid;
  }
  /* Replace the finger that did not hit last. */
  b->last_finger ^= 1;
  b->finger[b->last_finger] = lo;
  return lo;
}

/* Splits segment i at `at` (inside it): i keeps the part below. */
static bool seg_split(RtBuffer *b, uint32_t i, int64_t at) {
  if (!rt_grow((void **)&b->segs, &b->capsegs, b->nsegs + 1, sizeof *b->segs))
    return false;
  memmove(&b->segs[i + 2], &b->segs[i + 1],
          (b->nsegs - i - 1) * sizeof *b->segs);
  b->segs[i + 1] = b->segs[i];
  b->segs[i].hi = at;
  b->segs[i + 1].lo = at;
  b->nsegs++;
  b->shape++;
  return true;
}

/* The segments [*first, *last) covering [lo, hi), split at both ends: one
 * search, then a walk over the (usually one or two) segments inside. */
static bool seg_range(RtBuffer *b, int64_t lo, int64_t hi, uint32_t *first,
                      uint32_t *last) {
  uint32_t f = seg_find(b, lo);
  if (b->segs[f].lo < lo) {
    if (!seg_split(b, f, lo))
      return false;
    f++;
  }
  uint32_t l = f;
  while (l < b->nsegs && b->segs[l].hi <= hi)
    l++;
  if (l < b->nsegs && b->segs[l].lo < hi) {
    if (!seg_split(b, l, hi))
      return false;
    l++;
  }
  *first = f;
  *last = l;
  return true;
}

/* Collects the distinct earlier tasks an access must wait for into
 * g->scratch[from..]: the last writers (RAW, WAW) and, for a write, the
 * readers since (WAR). More than RT_FANIN_LIMIT of them become one barrier
 * that takes their place in the segments, so that later accesses see one
 * task instead of many. */
/* Where collect left a region's segments, so that record can skip the
 * search while no split or merge has moved them since. */
typedef struct RtSpan {
  uint32_t first, last, shape;
} RtSpan;
#define RT_SPANS 8

static bool collect(PtoGraph *g, RtBuffer *b, const PtoRtRegion *r,
                    RtSpan *span) {
  uint32_t first, last;
  if (!seg_range(b, r->offset, r->offset + r->size, &first, &last))
    return false;
  if (span)
    *span = (RtSpan){first, last, b->shape};
  uint32_t stamp = ++g->stamp;
  uint32_t start = g->nscratch;
  bool write = r->access & PTO_RT_WRITE;
  for (uint32_t i = first; i < last; i++) {
    RtSeg *s = &b->segs[i];
    uint32_t cand[RT_FANIN_LIMIT + 1], nc = 0;
    if (s->writer != RT_NONE)
      cand[nc++] = s->writer;
    if (write)
      for (uint32_t k = 0; k < s->nreaders; k++)
        cand[nc++] = s->readers[k];
    for (uint32_t k = 0; k < nc; k++) {
      RtTask *t = &g->tasks[cand[k]];
      if (t->bmark == stamp)
        continue;
      t->bmark = stamp;
      if (!rt_grow((void **)&g->scratch, &g->capscratch, g->nscratch + 1,
                sizeof *g->scratch))
        return false;
      g->scratch[g->nscratch++] = cand[k];
    }
  }
  uint32_t n = g->nscratch - start;
  if (n > RT_FANIN_LIMIT) {
    uint32_t bar;
    if (!make_barrier(g, g->scratch + start, n, &bar))
      return false;
    for (uint32_t i = first; i < last; i++) {
      RtSeg *s = &b->segs[i];
      s->writer = bar;
      if (write) /* the barrier also stands for the readers it waits on */
        s->nreaders = 0;
    }
    g->scratch[start] = bar;
    g->nscratch = start + 1;
  }
  return true;
}

/* Records the new task `id` in the segments its region covers. */
static bool record(PtoGraph *g, RtBuffer *b, const PtoRtRegion *r,
                   uint32_t id, const RtSpan *span) {
  uint32_t first, last;
  if (span && span->shape == b->shape) {
    first = span->first;
    last = span->last;
    /* Move the nearer finger here, as the search would have: the next
     * access is usually next to this one. */
    uint32_t d0 = b->finger[0] > first ? b->finger[0] - first : first - b->finger[0];
    uint32_t d1 = b->finger[1] > first ? b->finger[1] - first : first - b->finger[1];
    b->last_finger = d1 < d0;
    b->finger[b->last_finger] = first;
  } else if (!seg_range(b, r->offset, r->offset + r->size, &first, &last)) {
    return false;
  }
  if (r->access & PTO_RT_WRITE) {
    /* Everything before is now ordered before `id`: one segment. */
    b->segs[first].hi = b->segs[last - 1].hi;
    b->segs[first].writer = id;
    b->segs[first].nreaders = 0;
    memmove(&b->segs[first + 1], &b->segs[last],
            (b->nsegs - last) * sizeof *b->segs);
    b->nsegs -= last - first - 1;
    b->shape++;
    return true;
  }
  /* The pieces of one split segment list the same readers: fold them into
   * the same barrier. */
  uint32_t folded[RT_FANIN_LIMIT], bar = RT_NONE;
  for (uint32_t i = first; i < last; i++) {
    RtSeg *s = &b->segs[i];
    if (s->nreaders && s->readers[s->nreaders - 1] == id)
      continue;
    if (s->nreaders == RT_FANIN_LIMIT) {
      /* Fold the readers into one barrier a later writer waits on. */
      if (bar == RT_NONE || memcmp(folded, s->readers, sizeof folded) != 0) {
        memcpy(folded, s->readers, sizeof folded);
        if (!make_barrier(g, s->readers, s->nreaders, &bar))
          return false;
      }
      s->readers[0] = bar;
      s->nreaders = 1;
    }
    s->readers[s->nreaders++] = id;
  }
  return true;
}

int64_t pto_graph_submit(PtoGraph *g, const PtoRtTaskDesc *d) {
  if (!g)
    return -1;
  PtoRuntime *rt = g->rt;
  if (!rt)
    return -1;
  if (!d) {
    rt_set_error(rt, "submit: no task given");
    return -1;
  }
  if (g->stream && rt_host_stream_failed(g, "submit"))
    return -1;
  if (d->kernel < 0 || (uint32_t)d->kernel >= rt->nkernels) {
    rt_set_error(rt, "submit: unknown kernel id %d (%u registered)",
                 (int)d->kernel, rt->nkernels);
    return -1;
  }
  const char *kname = rt->kernels[d->kernel].name;
  if (d->num_regions && !d->regions) {
    rt_set_error(rt, "submit '%s': %u regions but no region array", kname,
                 d->num_regions);
    return -1;
  }
  if (d->num_preds && !d->preds) {
    rt_set_error(rt, "submit '%s': %u predecessors but no array", kname,
                 d->num_preds);
    return -1;
  }
  for (uint32_t i = 0; i < d->num_regions; i++) {
    const PtoRtRegion *r = &d->regions[i];
    if (r->buffer >= g->nbufs) {
      rt_set_error(rt, "submit '%s': region %u names buffer %u, but the "
                   "graph has %u", kname, i, r->buffer, g->nbufs);
      return -1;
    }
    if (r->access < PTO_RT_READ || r->access > PTO_RT_READ_WRITE) {
      rt_set_error(rt, "submit '%s': region %u has an unknown access mode %d",
                   kname, i, (int)r->access);
      return -1;
    }
    int64_t size = g->bufs[r->buffer].size;
    if (r->size <= 0 || r->offset < 0 || r->offset > size ||
        r->size > size - r->offset) {
      rt_set_error(rt, "submit '%s': region %u [%lld, +%lld) is not a "
                   "non-empty range inside buffer %u of %lld bytes", kname,
                   i, (long long)r->offset, (long long)r->size, r->buffer,
                   (long long)size);
      return -1;
    }
  }
  for (uint32_t i = 0; i < d->num_preds; i++)
    if (d->preds[i] >= g->ntasks || g->tasks[d->preds[i]].kernel < 0) {
      rt_set_error(rt, "submit '%s': predecessor %u is not an earlier task "
                   "of this graph", kname, d->preds[i]);
      return -1;
    }
  uint32_t label = intern_label(g, d->label);
  if (label == UINT32_MAX)
    goto oom;

  uint32_t t0 = g->ntasks, e0 = g->nedges;
  /* Pass 1: what the task waits for (may create barriers). */
  RtSpan spans[RT_SPANS];
  g->nscratch = 0;
  for (uint32_t i = 0; i < d->num_regions; i++)
    if (!collect(g, &g->bufs[d->regions[i].buffer], &d->regions[i],
                 i < RT_SPANS ? &spans[i] : NULL))
      goto oom;
  /* Room for every edge first, so that the task is never left half made. */
  uint64_t most = (uint64_t)g->nedges + g->nscratch + d->num_preds;
  uint32_t id;
  if (most >= UINT32_MAX - 1 ||
      !rt_grow((void **)&g->edges, &g->capedges, (uint32_t)most,
               sizeof *g->edges) ||
      !new_task(g, &id))
    goto oom;
  RtTask *t = &g->tasks[id];
  t->kernel = d->kernel;
  t->label = label;
  t->seq = g->nreal++;
  t->cycles = d->cycles;
  t->gm_bytes = d->gm_bytes;
  t->flops = d->flops;
  /* Edges in one go, deduplicated, so that the edge list stays sorted by
   * target (barriers made above come first). */
  uint32_t ndeps = 0;
  for (uint32_t i = 0; i < g->nscratch + d->num_preds; i++) {
    uint32_t p = i < g->nscratch ? g->scratch[i] : d->preds[i - g->nscratch];
    if (g->tasks[p].mark == id)
      continue;
    g->tasks[p].mark = id;
    g->edges[g->nedges++] = (RtEdge){p, id};
    ndeps++;
  }
  g->ndeps0[id] = ndeps;
  const RtKernel *k = &rt->kernels[d->kernel];
  g->fn[id] = k->fn;
  g->core[id] = (uint8_t)k->core;
  g->type_count[k->core]++;
  PtoRtTaskArgs *a = &g->args[id];
  a->buffers = g->run_buffers;
  a->num_buffers = g->nbufs;
  a->task_id = id;
  memcpy(a->params, d->params, sizeof a->params);
  a->user = d->user;
  /* Pass 2: the task becomes the last reader or writer of its regions.
   * Reads first, so that a read-write leaves the task as writer only. */
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < d->num_regions; i++) {
      const PtoRtRegion *r = &d->regions[i];
      bool w = r->access & PTO_RT_WRITE;
      if ((pass == 0) == w)
        continue;
      if (!record(g, &g->bufs[r->buffer], r, id,
                  i < RT_SPANS ? &spans[i] : NULL))
        goto oom;
    }
  g->finalized = false;
  if (g->stream && !rt_host_stream_publish(g, t0, e0))
    goto oom;
  return id;
oom:
  rt_set_error(rt, "submit '%s': out of memory", kname);
  return -1;
}

/* Successor lists in CSR form and the per-run arrays, built once per shape
 * of the graph and reused by every run. */
static bool resize(void **p, size_t n, size_t elem) {
  void *q = realloc(*p, (n ? n : 1) * elem);
  if (!q)
    return false;
  *p = q;
  return true;
}

PtoRtStatus rt_graph_finalize(PtoGraph *g) {
  if (g->finalized)
    return PTO_RT_OK;
  uint32_t n = g->ntasks;
  /* The submission scratch is free now: it serves as the fill cursors. */
  if (!rt_grow((void **)&g->scratch, &g->capscratch, n ? n : 1,
               sizeof *g->scratch))
    goto oom;
  uint32_t *fill = g->scratch;
  if (!resize((void **)&g->succ_off, (size_t)n + 1, sizeof *g->succ_off) ||
      !resize((void **)&g->succ, g->nedges, sizeof *g->succ) ||
      !resize((void **)&g->succ_run, g->nedges, sizeof *g->succ_run) ||
      !resize((void **)&g->count, n, sizeof *g->count) ||
      !resize((void **)&g->roots, n, sizeof *g->roots))
    goto oom;
  if (g->args_stale) {
    /* Buffers were declared after some tasks: give every task the final
     * buffer table and count. */
    for (uint32_t i = 0; i < n; i++) {
      g->args[i].buffers = g->run_buffers;
      g->args[i].num_buffers = g->nbufs;
    }
    g->args_stale = false;
  }
  memset(g->succ_off, 0, ((size_t)n + 1) * sizeof *g->succ_off);
  for (uint32_t e = 0; e < g->nedges; e++)
    g->succ_off[g->edges[e].from + 1]++;
  g->nsinks = 0;
  g->nroots = 0;
  uint32_t nmulti = 0;
  for (uint32_t i = 0; i < n; i++) {
    g->nsinks += g->succ_off[i + 1] == 0;
    g->succ_off[i + 1] += g->succ_off[i];
    if (!g->ndeps0[i])
      g->roots[g->nroots++] = i;
    nmulti += g->ndeps0[i] > 1;
  }
  /* A scattered reset touches a cache line per counter: worth it below
   * about one counter in eight (16 to a line). */
  free(g->multi);
  g->multi = NULL;
  g->nmulti = nmulti;
  if (nmulti && (uint64_t)nmulti * 8 < n) {
    if (!(g->multi = malloc(nmulti * sizeof *g->multi)))
      goto oom;
    for (uint32_t i = 0, k = 0; i < n; i++)
      if (g->ndeps0[i] > 1)
        g->multi[k++] = i;
  }
  /* Edges are sorted by target, so each successor list comes out sorted.
   * The host's copy of the lists flags successors with a single
   * predecessor, which are ready as soon as it finishes: the hot loop then
   * reads one array, not the successor's count too. */
  memcpy(fill, g->succ_off, n * sizeof *fill);
  for (uint32_t e = 0; e < g->nedges; e++) {
    uint32_t t = g->edges[e].to, at = fill[g->edges[e].from]++;
    g->succ[at] = t;
    g->succ_run[at] = t | (g->ndeps0[t] == 1 ? RT_SINGLE_PRED : 0);
  }
  for (int t = 0; t < PTO_RT_CORE_TYPE_COUNT; t++) {
    RtQueue *q = &g->queues[t];
    if (!resize((void **)&q->slots, g->type_count[t], sizeof *q->slots))
      goto oom;
    q->cap = g->type_count[t];
    memset((void *)q->slots, 0, q->cap * sizeof *q->slots);
    /* relaxed: no run is in progress (see rt_host_run). */
    atomic_store_explicit(&q->head, 0, memory_order_relaxed);
    atomic_store_explicit(&q->tail, 0, memory_order_relaxed);
  }
  g->finalized = true;
  return PTO_RT_OK;
oom:
  free_run_state(g);
  rt_set_error(g->rt, "run: out of memory");
  return PTO_RT_ERR_NOMEM;
}

/* The checks pto_graph_run and pto_graph_start share; on success the
 * runtime is taken for the run (rt->busy). */
static PtoRtStatus begin_run(PtoGraph *g, void *const *buffers,
                             uint32_t num_buffers, const char *what) {
  if (!g || !g->rt)
    return PTO_RT_ERR_MISUSE;
  PtoRuntime *rt = g->rt;
  if (g->streaming) {
    rt_set_error(rt, "%s: the graph is already running; call pto_graph_wait "
                 "first", what);
    return PTO_RT_ERR_MISUSE;
  }
  if (num_buffers != g->nbufs || (num_buffers && !buffers)) {
    rt_set_error(rt, "%s: the graph has %u buffers, %u given", what, g->nbufs,
                 buffers ? num_buffers : 0);
    return PTO_RT_ERR_MISUSE;
  }
  for (uint32_t i = 0; i < num_buffers; i++)
    if (!buffers[i] && (rt->opts.backend & PTO_RT_HOST)) {
      rt_set_error(rt, "%s: buffer %u ('%s') has no base address", what, i,
                   g->bufs[i].name);
      return PTO_RT_ERR_MISUSE;
    }
  bool expected = false;
  /* acquire: a run sees everything the previous run on this runtime did. */
  if (!atomic_compare_exchange_strong_explicit(&rt->busy, &expected, true,
                                               memory_order_acquire,
                                               memory_order_relaxed)) {
    rt_set_error(rt, "%s: another run is in progress on this runtime", what);
    return PTO_RT_ERR_MISUSE;
  }
  return PTO_RT_OK;
}

static void end_run(PtoRuntime *rt) {
  /* release: pairs with the acquire in begin_run for the next run. */
  atomic_store_explicit(&rt->busy, false, memory_order_release);
}

PtoRtStatus pto_graph_start(PtoGraph *g, void *const *buffers,
                            uint32_t num_buffers) {
  PtoRtStatus st = begin_run(g, buffers, num_buffers, "start");
  if (st != PTO_RT_OK)
    return st;
  PtoRuntime *rt = g->rt;
  g->sim_tl.valid = g->host_tl.valid = false;
  if (rt->opts.backend & PTO_RT_HOST) {
    /* The argument records point at run_buffers: make them current. */
    st = rt_graph_finalize(g);
    if (st == PTO_RT_OK)
      st = rt_host_stream_start(g, buffers, num_buffers);
  }
  if (st != PTO_RT_OK) {
    end_run(rt);
    return st;
  }
  g->streaming = true;
  return PTO_RT_OK;
}

/* The end of a run: its tasks count as finished when it succeeded;
 * otherwise the graph refuses to resume until a whole run. */
static void record_run(PtoGraph *g, PtoRtStatus st) {
  g->run_failed = st != PTO_RT_OK;
  if (st == PTO_RT_OK)
    g->ran = g->ntasks;
}

PtoRtStatus pto_graph_wait(PtoGraph *g) {
  if (!g || !g->rt)
    return PTO_RT_ERR_MISUSE;
  PtoRuntime *rt = g->rt;
  if (!g->streaming) {
    rt_set_error(rt, "wait: the graph is not running; start it with "
                 "pto_graph_start");
    return PTO_RT_ERR_MISUSE;
  }
  PtoRtStatus st = g->stream ? rt_host_stream_end(g, false) : PTO_RT_OK;
  g->streaming = false;
  /* The simulator models submission overlapping execution on every run:
   * it replays the submitted graph with the orchestrator's costs. */
  if (st == PTO_RT_OK && (rt->opts.backend & PTO_RT_SIM)) {
    st = rt_graph_finalize(g);
    if (st == PTO_RT_OK)
      st = rt_sim_run(g);
  }
  record_run(g, st);
  end_run(rt);
  return st;
}

void rt_graph_stop(PtoGraph *g) {
  if (!g->streaming)
    return;
  if (g->stream)
    rt_host_stream_end(g, true);
  g->streaming = false;
  end_run(g->rt);
}

/* Records that the orchestrator submitted the tasks from `first` on once
 * the run before them was over: where the simulator holds its submission. */
static bool mark_sync(PtoGraph *g, uint32_t first) {
  if (!first || first >= g->ntasks ||
      (g->nsyncs && g->syncs[g->nsyncs - 1] >= first))
    return true;
  if (!rt_grow((void **)&g->syncs, &g->capsyncs, g->nsyncs + 1,
               sizeof *g->syncs)) {
    rt_set_error(g->rt, "resume: out of memory");
    return false;
  }
  g->syncs[g->nsyncs++] = first;
  return true;
}

/* A whole run (pto_graph_run) or, with `resume`, the tasks the last run
 * did not run (pto_graph_resume), which a failed step refuses. */
static PtoRtStatus run_graph(PtoGraph *g, void *const *buffers,
                             uint32_t num_buffers, bool resume) {
  if (resume && g && g->rt && g->run_failed) {
    rt_set_error(g->rt, "resume: an earlier run of the graph failed, so "
                 "what its tasks left is unknown; pto_graph_run runs the "
                 "whole graph again");
    return PTO_RT_ERR_MISUSE;
  }
  PtoRtStatus st =
      begin_run(g, buffers, num_buffers, resume ? "resume" : "run");
  if (st != PTO_RT_OK)
    return st;
  PtoRuntime *rt = g->rt;
  uint32_t first = g->ran < g->ntasks ? g->ran : g->ntasks;
  if (resume && !mark_sync(g, first))
    st = PTO_RT_ERR_NOMEM;
  if (st == PTO_RT_OK)
    st = rt_graph_finalize(g);
  if (st == PTO_RT_OK && (rt->opts.backend & PTO_RT_HOST)) {
    if (!resume) {
      st = rt_host_run(g, buffers, num_buffers);
    } else {
      /* A streaming run whose submission is already over: it dispatches
       * the new tasks, the finished ones being the edges it skips. */
      st = rt_host_stream_resume(g, buffers, num_buffers, first);
      if (st == PTO_RT_OK)
        st = rt_host_stream_end(g, false);
    }
  }
  if (st == PTO_RT_OK && (rt->opts.backend & PTO_RT_SIM))
    st = rt_sim_run(g);
  record_run(g, st);
  end_run(rt);
  return st;
}

PtoRtStatus pto_graph_run(PtoGraph *g, void *const *buffers,
                          uint32_t num_buffers) {
  return run_graph(g, buffers, num_buffers, false);
}

PtoRtStatus pto_graph_resume(PtoGraph *g, void *const *buffers,
                             uint32_t num_buffers) {
  return run_graph(g, buffers, num_buffers, true);
}

void pto_graph_get_stats(const PtoGraph *g, PtoRtGraphStats *out) {
  out->tasks = g->nreal;
  out->barriers = g->nbarriers;
  out->edges = g->nedges;
}

uint32_t pto_graph_get_preds(const PtoGraph *g, uint64_t id, uint64_t *out,
                             uint32_t cap) {
  if (id >= g->ntasks)
    return 0;
  /* Edges are appended grouped by target, in increasing target order. */
  uint64_t lo = 0, hi = g->nedges;
  while (lo < hi) { /* first edge with to >= id */
    uint64_t mid = lo + (hi - lo) / 2;
    if (g->edges[mid].to < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint32_t n = 0;
  for (uint64_t e = lo; e < g->nedges && g->edges[e].to == id; e++, n++)
    if (n < cap)
      out[n] = g->edges[e].from;
  return n;
}

int pto_graph_is_barrier(const PtoGraph *g, uint64_t id) {
  return id < g->ntasks && g->tasks[id].kernel < 0;
}
