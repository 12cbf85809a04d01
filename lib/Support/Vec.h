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
#define pto_vec_append(v, src, n)                                    \
  (pto_vec_reserve((v), (v)->len + (n)),                             \
   memcpy((v)->data + (v)->len, (src), (n) * sizeof(*(v)->data)),    \
   (v)->len += (n))
#define pto_vec_foreach(v, it) \
  for (__typeof__((v)->data) it = (v)->data; it < (v)->data + (v)->len; ++it)

#endif
