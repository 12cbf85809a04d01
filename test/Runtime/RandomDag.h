/* What the random task-graph tests share: a seeded generator, a task body
 * whose result depends on the order of conflicting tasks, and the
 * conflict relation the runtime must order. */
#ifndef PTO_TEST_RUNTIME_RANDOMDAG_H
#define PTO_TEST_RUNTIME_RANDOMDAG_H

#include "pto/Runtime.h"

#include <stdbool.h>
#include <stdint.h>

static uint64_t rng_state;
static inline uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

/* Hashes what task i reads, then writes a function of it and of i into
 * what it writes: any reordering of conflicting tasks changes the final
 * bytes. */
static inline void dag_body(const PtoRtRegion *reg, uint32_t nreg, uint32_t i,
                            void *const *bufs) {
  uint64_t h = 1469598103934665603ull ^ i;
  for (uint32_t r = 0; r < nreg; r++)
    if (reg[r].access & PTO_RT_READ) {
      const uint8_t *p = (const uint8_t *)bufs[reg[r].buffer] + reg[r].offset;
      for (int64_t k = 0; k < reg[r].size; k++)
        h = (h ^ p[k]) * 1099511628211ull;
    }
  for (uint32_t r = 0; r < nreg; r++)
    if (reg[r].access & PTO_RT_WRITE) {
      uint8_t *p = (uint8_t *)bufs[reg[r].buffer] + reg[r].offset;
      for (int64_t k = 0; k < reg[r].size; k++)
        p[k] = (uint8_t)((h >> ((k % 8) * 8)) ^ (uint64_t)k);
    }
}

/* Whether two tasks touch overlapping bytes of a buffer, one writing. */
static inline bool dag_conflict(const PtoRtRegion *a, uint32_t na,
                                const PtoRtRegion *b, uint32_t nb) {
  for (uint32_t i = 0; i < na; i++)
    for (uint32_t j = 0; j < nb; j++) {
      const PtoRtRegion *x = &a[i], *y = &b[j];
      if (x->buffer == y->buffer && x->offset < y->offset + y->size &&
          y->offset < x->offset + x->size &&
          ((x->access | y->access) & PTO_RT_WRITE))
        return true;
    }
  return false;
}

/* Fills `nbufs` buffers of `size` bytes with a pattern of the seed. */
static inline void dag_init_bufs(uint8_t *b, int nbufs, int size,
                                 uint32_t seed) {
  for (int i = 0; i < nbufs; i++)
    for (int k = 0; k < size; k++)
      b[i * size + k] = (uint8_t)(seed * 31 + i * 7 + k);
}

#endif
