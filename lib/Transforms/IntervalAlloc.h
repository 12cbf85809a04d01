/* The interval allocator behind memory-plan: byte offsets in one memory
 * space for values with known live ranges, by a linear scan in order of
 * definition with a best-fit choice among the free gaps. Knows no IR. */
#ifndef PTO_TRANSFORMS_INTERVALALLOC_H
#define PTO_TRANSFORMS_INTERVALALLOC_H

#include <stdbool.h>
#include <stdint.h>

/* One value: live from program point `start` through `end` (inclusive:
 * a value defined at the point where another dies does not share its
 * bytes, so an instruction never writes over an operand it still reads). */
typedef struct PtoLiveRange {
  uint32_t start, end;
  uint64_t size;   /* bytes; rounded up to the alignment when placed */
  uint64_t offset; /* out */
} PtoLiveRange;

/* Why a range did not fit: the range, and the ranges live when it is
 * defined (in increasing order of index, the failing one excluded) with
 * their aligned bytes. live_bytes + the range's own aligned size may stay
 * within capacity when free space is fragmented. */
typedef struct PtoAllocFailure {
  uint32_t range;
  uint32_t *live; /* pto_free it */
  uint32_t num_live;
  uint64_t live_bytes, need_bytes;
} PtoAllocFailure;

/* Rounds `size` up to a multiple of `align` (align 0 or 1: unchanged);
 * saturates at UINT64_MAX instead of wrapping. */
uint64_t pto_align_up(uint64_t size, uint64_t align);

/* Places every range in [0, capacity) at a multiple of `align` so that two
 * ranges live at a common point never share a byte. Returns false at the
 * first range (in order of start, then index) that does not fit, with
 * *fail filled (when non-NULL); offsets of the ranges placed before it are
 * kept. *peak (when non-NULL) receives the highest end offset used. */
bool pto_interval_alloc(PtoLiveRange *ranges, uint32_t n, uint64_t capacity,
                        uint64_t align, uint64_t *peak,
                        PtoAllocFailure *fail);

#endif
