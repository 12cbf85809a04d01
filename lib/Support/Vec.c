/* Out-of-line growth for PTO_VEC arrays. */
#include "Support/Vec.h"

void pto_small_vec_grow_(void **data, uint32_t *cap, uint32_t need,
                         size_t elem, void *small) {
  if (*data != small) {
    pto_vec_grow_(data, cap, need, elem);
    return;
  }
  /* leaving the inline buffer: the heap copy starts from its contents */
  void *heap = NULL;
  uint32_t ncap = 0;
  pto_vec_grow_(&heap, &ncap, need, elem);
  memcpy(heap, small, (size_t)*cap * elem);
  *data = heap;
  *cap = ncap;
}

void pto_vec_grow_(void **data, uint32_t *cap, uint32_t need, size_t elem) {
  uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  if (ncap > UINT32_MAX) ncap = UINT32_MAX;
  size_t bytes;
  if (!pto_size_mul((size_t)ncap, elem, &bytes)) bytes = SIZE_MAX;
  *data = pto_realloc(*data, bytes);
  *cap = (uint32_t)ncap;
}
