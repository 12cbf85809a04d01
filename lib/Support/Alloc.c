/* Heap allocation wrappers: the library's single allocation choke point. */
#include "Support/Alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n) {
  /* Not a diagnostic path: there is no memory left to report through. */
  fprintf(stderr, "pto: out of memory allocating %zu bytes\n", n);
  abort();
}

void *pto_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) out_of_memory(n);
  return p;
}

void *pto_calloc(size_t count, size_t n) {
  void *p = calloc(count ? count : 1, n ? n : 1);
  if (!p) out_of_memory(count * n);
  return p;
}

void *pto_realloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) out_of_memory(n);
  return q;
}

/* Not inlined: after link-time inlining gcc reports callers that free
 * only heap memory but may be given a stack buffer they do not own
 * (guarded by an ownership flag it cannot see through). */
__attribute__((noinline)) void pto_free(void *p) { free(p); }

char *pto_strndup(const char *s, size_t n) {
  char *d = pto_malloc(n + 1);
  if (n) memcpy(d, s, n); /* s may be NULL when n == 0 */
  d[n] = 0;
  return d;
}
