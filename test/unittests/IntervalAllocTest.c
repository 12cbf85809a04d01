/* Unit tests of memory-plan's interval allocator: the worked example's
 * buffer reuse, alignment, out-of-capacity reports, and random live
 * ranges checked for overlap against a brute-force reference. */
#include "Test.h"

#include <stdint.h>

#include "Support/Alloc.h"
#include "Transforms/IntervalAlloc.h"

TEST(worked_example_reuses_dead_buffer) {
  /* tload a, tload b, tmuls m = a*c, tadd s = m + b, tstore s */
  PtoLiveRange r[] = {{0, 2, 4096, 0}, {1, 3, 4096, 0}, {2, 3, 4096, 0},
                      {3, 4, 4096, 0}};
  uint64_t peak = 0;
  CHECK(pto_interval_alloc(r, 4, 192 * 1024, 32, &peak, NULL));
  CHECK(r[0].offset == 0);
  CHECK(r[1].offset == 4096);
  CHECK(r[2].offset == 8192);
  CHECK(r[3].offset == 0);
  CHECK(peak == 12288);
}

TEST(alignment_rounds_sizes_and_offsets) {
  PtoLiveRange r[] = {{0, 5, 100, 0}, {1, 5, 600, 0}, {2, 5, 1, 0}};
  uint64_t peak = 0;
  CHECK(pto_interval_alloc(r, 3, 64 * 1024, 512, &peak, NULL));
  CHECK(r[0].offset == 0);
  CHECK(r[1].offset == 512);
  CHECK(r[2].offset == 1536);
  CHECK(peak == 2048);
  CHECK(pto_align_up(0, 32) == 0);
  CHECK(pto_align_up(33, 32) == 64);
  CHECK(pto_align_up(UINT64_MAX - 3, 32) == UINT64_MAX);
}

TEST(best_fit_prefers_the_smallest_gap) {
  /* Frees a 1 KiB hole at 0 and a 4 KiB hole at 2 KiB, then asks for
   * 1 KiB: it goes to the 1 KiB hole. */
  PtoLiveRange r[] = {{0, 0, 1024, 0}, {0, 9, 1024, 0}, {0, 0, 4096, 0},
                      {0, 9, 1024, 0}, {1, 9, 1024, 0}};
  CHECK(pto_interval_alloc(r, 5, 1 << 20, 32, NULL, NULL));
  CHECK(r[1].offset == 1024);
  CHECK(r[2].offset == 2048);
  CHECK(r[3].offset == 6144);
  CHECK(r[4].offset == 0);
}

TEST(out_of_capacity_reports_the_live_set) {
  PtoLiveRange r[] = {{0, 3, 4096, 0}, {0, 0, 4096, 0}, {1, 3, 4096, 0},
                      {2, 3, 4000, 0}};
  PtoAllocFailure f;
  CHECK(!pto_interval_alloc(r, 4, 8192, 32, NULL, &f));
  CHECK(f.range == 3);
  CHECK(f.num_live == 2);
  CHECK(f.live[0] == 0 && f.live[1] == 2);
  CHECK(f.live_bytes == 8192);
  CHECK(f.need_bytes == 4000);
  pto_free(f.live);

  PtoLiveRange big[] = {{0, 0, 300 * 1024, 0}};
  CHECK(!pto_interval_alloc(big, 1, 192 * 1024, 32, NULL, &f));
  CHECK(f.range == 0 && f.num_live == 0 && f.live == NULL);
  CHECK(f.need_bytes == 300 * 1024);
}

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Whether range i is placed before range j by the scan's order. */
static bool scanned_before(const PtoLiveRange *r, uint32_t i, uint32_t j) {
  return r[i].start < r[j].start || (r[i].start == r[j].start && i < j);
}

TEST(random_ranges_never_overlap) {
  static const uint64_t aligns[] = {1, 32, 512, 1024};
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  unsigned fits = 0, refusals = 0;
  for (int trial = 0; trial < 3000; trial++) {
    PtoLiveRange r[48];
    uint32_t n = 1 + (uint32_t)(rng_next(&seed) % 48);
    uint64_t align = aligns[rng_next(&seed) % 4];
    uint64_t cap = 1024 + rng_next(&seed) % (64 * 1024);
    for (uint32_t i = 0; i < n; i++) {
      r[i].start = (uint32_t)(rng_next(&seed) % 40);
      r[i].end = r[i].start + (uint32_t)(rng_next(&seed) % 12);
      r[i].size = 1 + rng_next(&seed) % 6000;
      r[i].offset = UINT64_MAX;
    }
    PtoAllocFailure f;
    uint64_t peak = 0;
    bool ok = pto_interval_alloc(r, n, cap, align, &peak, &f);
    /* Every range placed (all of them, or those scanned before the
     * failing one) is aligned, inside capacity and disjoint from every
     * placed range it is live with. */
    bool placed[48];
    for (uint32_t i = 0; i < n; i++)
      placed[i] = ok || scanned_before(r, i, f.range);
    uint64_t top = 0;
    for (uint32_t i = 0; i < n; i++) {
      if (!placed[i])
        continue;
      uint64_t end = r[i].offset + pto_align_up(r[i].size, align);
      CHECK(r[i].offset % align == 0);
      CHECK(end <= cap);
      if (end > top)
        top = end;
      for (uint32_t j = i + 1; j < n; j++) {
        if (!placed[j] || r[i].end < r[j].start || r[j].end < r[i].start)
          continue;
        uint64_t endj = r[j].offset + pto_align_up(r[j].size, align);
        CHECK(end <= r[j].offset || endj <= r[i].offset);
      }
    }
    if (ok) {
      CHECK(peak == top);
      fits++;
      continue;
    }
    refusals++;
    /* The live set is exactly the placed ranges alive at its start, and
     * no free gap between them holds it. */
    uint32_t expect = 0;
    const PtoLiveRange *x = &r[f.range];
    for (uint32_t i = 0; i < n; i++)
      if (placed[i] && r[i].end >= x->start) {
        bool listed = false;
        for (uint32_t k = 0; k < f.num_live; k++)
          listed |= f.live[k] == i;
        CHECK(listed);
        expect++;
      }
    CHECK(expect == f.num_live);
    CHECK(f.need_bytes == pto_align_up(x->size, align));
    for (uint64_t at = 0; at + f.need_bytes <= cap; at += align) {
      bool clash = false;
      for (uint32_t k = 0; k < f.num_live && !clash; k++) {
        const PtoLiveRange *y = &r[f.live[k]];
        uint64_t yend = y->offset + pto_align_up(y->size, align);
        clash = at < yend && y->offset < at + f.need_bytes;
      }
      CHECK(clash);
      if (!clash)
        break;
    }
    pto_free(f.live);
  }
  CHECK(fits > 100);
  CHECK(refusals > 100);
}

RUN_TESTS(T(worked_example_reuses_dead_buffer),
          T(alignment_rounds_sizes_and_offsets),
          T(best_fit_prefers_the_smallest_gap),
          T(out_of_capacity_reports_the_live_set),
          T(random_ranges_never_overlap))
