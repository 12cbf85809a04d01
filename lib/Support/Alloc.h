/* One place every heap allocation of the library goes through.
 * Out-of-memory is the only condition treated as fatal: callers check
 * sizes derived from user input before allocating (see pto_size_mul). */
#ifndef PTO_SUPPORT_ALLOC_H
#define PTO_SUPPORT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *pto_malloc(size_t n);
void *pto_calloc(size_t count, size_t n);
void *pto_realloc(void *p, size_t n);
void pto_free(void *p);
char *pto_strndup(const char *s, size_t n);

/* Overflow-checked size arithmetic: returns false on overflow. */
static inline bool pto_size_mul(size_t a, size_t b, size_t *out) {
  if (a && b > SIZE_MAX / a) return false;
  *out = a * b;
  return true;
}

#define PTO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define pto_container_of(ptr, type, member) \
  ((type *)((char *)(ptr) - offsetof(type, member)))

#endif
