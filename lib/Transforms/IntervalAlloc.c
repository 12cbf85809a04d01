/* The interval allocator of memory-plan: a linear scan over live ranges in
 * order of definition, each placed in the smallest free gap that holds it
 * (best fit keeps large gaps for large tiles and lets a dead buffer be
 * reused by the next value of its size). */
#include "Transforms/IntervalAlloc.h"

#include <stdlib.h>

#include "Support/Alloc.h"
#include "Support/Vec.h"

uint64_t pto_align_up(uint64_t size, uint64_t align) {
  if (align <= 1)
    return size;
  uint64_t rem = size % align;
  if (rem == 0)
    return size;
  if (size > UINT64_MAX - (align - rem))
    return UINT64_MAX;
  return size + (align - rem);
}

typedef struct Order {
  uint32_t start, index;
} Order;

static int order_cmp(const void *pa, const void *pb) {
  const Order *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* The ranges in place, by increasing offset. */
typedef PTO_VEC(uint32_t) IndexVec;

static void fill_failure(PtoAllocFailure *fail, const PtoLiveRange *r,
                         const IndexVec *active, uint32_t idx,
                         uint64_t align) {
  fail->range = idx;
  fail->num_live = active->len;
  fail->live = active->len ? pto_malloc(active->len * sizeof(uint32_t)) : NULL;
  fail->live_bytes = 0;
  for (uint32_t i = 0; i < active->len; i++) {
    fail->live[i] = active->data[i];
    fail->live_bytes += pto_align_up(r[active->data[i]].size, align);
  }
  for (uint32_t i = 1; i < fail->num_live; i++) { /* insertion sort by index */
    uint32_t v = fail->live[i], k = i;
    for (; k > 0 && fail->live[k - 1] > v; k--)
      fail->live[k] = fail->live[k - 1];
    fail->live[k] = v;
  }
  fail->need_bytes = pto_align_up(r[idx].size, align);
}

bool pto_interval_alloc(PtoLiveRange *r, uint32_t n, uint64_t capacity,
                        uint64_t align, uint64_t *peak,
                        PtoAllocFailure *fail) {
  if (peak)
    *peak = 0;
  if (n == 0)
    return true;
  Order *order = pto_malloc(n * sizeof *order);
  for (uint32_t i = 0; i < n; i++)
    order[i] = (Order){r[i].start, i};
  qsort(order, n, sizeof *order, order_cmp);

  IndexVec active = {0};
  bool ok = true;
  for (uint32_t o = 0; o < n; o++) {
    uint32_t idx = order[o].index;
    PtoLiveRange *cur = &r[idx];
    /* Ranges that ended before this one starts free their bytes. */
    uint32_t kept = 0;
    for (uint32_t k = 0; k < active.len; k++)
      if (r[active.data[k]].end >= cur->start)
        active.data[kept++] = active.data[k];
    active.len = kept;

    uint64_t need = pto_align_up(cur->size, align);
    uint64_t best_off = 0, best_gap = UINT64_MAX;
    uint32_t best_pos = 0;
    bool found = false;
    uint64_t lo = 0;
    for (uint32_t k = 0; k <= active.len; k++) {
      uint64_t hi = k < active.len ? r[active.data[k]].offset : capacity;
      if (hi > capacity)
        hi = capacity;
      if (hi >= lo && hi - lo >= need && hi - lo < best_gap) {
        best_gap = hi - lo;
        best_off = lo;
        best_pos = k;
        found = true;
      }
      if (k < active.len) {
        const PtoLiveRange *a = &r[active.data[k]];
        uint64_t end = pto_align_up(a->offset + pto_align_up(a->size, align),
                                    align);
        if (end > lo)
          lo = end;
      }
    }
    if (!found) {
      if (fail)
        fill_failure(fail, r, &active, idx, align);
      ok = false;
      break;
    }
    cur->offset = best_off;
    if (peak && best_off + need > *peak)
      *peak = best_off + need;
    pto_vec_push(&active, 0);
    for (uint32_t k = active.len - 1; k > best_pos; k--)
      active.data[k] = active.data[k - 1];
    active.data[best_pos] = idx;
  }
  pto_vec_free(&active);
  pto_free(order);
  return ok;
}
