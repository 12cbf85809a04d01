/* Growable arrays. Declare a type with PTO_VEC(T) in a typedef, then use
 * the pto_vec_* macros; elements are contiguous and may move on growth. */
#ifndef PTO_SUPPORT_VEC_H
#define PTO_SUPPORT_VEC_H

#include <stdint.h>
#include <string.h>

#include "Support/Alloc.h"

#define PTO_VEC(T) \
  struct {         \
    T *data;       \
    uint32_t len;  \
    uint32_t cap;  \
  }

void pto_vec_grow_(void **data, uint32_t *cap, uint32_t need, size_t elem);

#define pto_vec_reserve(v, n)                                              \
  ((n) > (v)->cap ? pto_vec_grow_((void **)&(v)->data, &(v)->cap, (n),     \
                                  sizeof(*(v)->data))                      \
                  : (void)0)
#define pto_vec_push(v, x) \
  (pto_vec_reserve((v), (v)->len + 1), (v)->data[(v)->len++] = (x))
#define pto_vec_pop(v) ((v)->data[--(v)->len])
#define pto_vec_last(v) ((v)->data[(v)->len - 1])
#define pto_vec_clear(v) ((v)->len = 0)
#define pto_vec_free(v) \
  (pto_free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)
#define pto_vec_resize(v, n) (pto_vec_reserve((v), (n)), (v)->len = (n))
/* Appending nothing to an empty vector must not compute NULL + 0 or pass
 * NULL to memcpy (both undefined behaviour). */
#define pto_vec_append(v, src, n)                                          \
  ((n) ? (pto_vec_reserve((v), (v)->len + (n)),                            \
          memcpy((v)->data + (v)->len, (src), (n) * sizeof(*(v)->data)),   \
          (v)->len += (n))                                                 \
       : (v)->len)
/* `it` walks the elements; an empty vector's NULL data is never offset. */
#define pto_vec_foreach(v, it)                                             \
  for (__typeof__((v)->data) it = (v)->data,                               \
                             it##_end_ = it ? it + (v)->len : it;          \
       it != it##_end_; ++it)

/* A growable array whose first N elements live in the struct itself: for
 * the short lists collected per op on hot paths (a local needs no heap
 * allocation until it outgrows N). Reads use the pto_vec_* macros; setup,
 * growth and release use these. Must not be copied. */
#define PTO_SMALL_VEC(T, N) \
  struct {                  \
    T *data;                \
    uint32_t len;           \
    uint32_t cap;           \
    T small[N];             \
  }

void pto_small_vec_grow_(void **data, uint32_t *cap, uint32_t need,
                         size_t elem, void *small);

#define pto_small_vec_init(v) \
  ((v)->data = (v)->small, (v)->len = 0, \
   (v)->cap = (uint32_t)PTO_ARRAY_SIZE((v)->small))
#define pto_small_vec_reserve(v, n)                                         \
  ((n) > (v)->cap ? pto_small_vec_grow_((void **)&(v)->data, &(v)->cap, (n), \
                                        sizeof(*(v)->data), (v)->small)     \
                  : (void)0)
#define pto_small_vec_push(v, x) \
  (pto_small_vec_reserve((v), (v)->len + 1), (v)->data[(v)->len++] = (x))
#define pto_small_vec_free(v) \
  ((v)->data != (v)->small ? pto_free((v)->data) : (void)0, \
   pto_small_vec_init(v))

#endif
