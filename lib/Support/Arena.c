/* Bump-pointer arena with geometrically growing chunks. */
#include "Support/Arena.h"
#include "Support/Alloc.h"

#include <string.h>

struct PtoArenaChunk {
  PtoArenaChunk *next;
  size_t size;
  _Alignas(16) char data[];
};

enum { ARENA_MIN_CHUNK = 16 * 1024, ARENA_MAX_CHUNK = 4 * 1024 * 1024 };

void pto_arena_init(PtoArena *a) { memset(a, 0, sizeof *a); }

void pto_arena_release(PtoArena *a) {
  PtoArenaChunk *c = a->head;
  while (c) {
    PtoArenaChunk *n = c->next;
    pto_free(c);
    c = n;
  }
  memset(a, 0, sizeof *a);
}

static void *arena_slow(PtoArena *a, size_t n) {
  size_t want = a->head ? a->head->size * 2 : ARENA_MIN_CHUNK;
  if (want > ARENA_MAX_CHUNK) want = ARENA_MAX_CHUNK;
  if (want < n) want = n;
  PtoArenaChunk *c = pto_malloc(sizeof *c + want);
  c->size = want;
  a->bytes += want;
  c->next = a->head;
  a->head = c;
  a->ptr = c->data + n;
  a->end = c->data + want;
  return c->data;
}

void *pto_arena_alloc(PtoArena *a, size_t n) {
  n = (n + 7) & ~(size_t)7;
  if ((size_t)(a->end - a->ptr) >= n && a->ptr) {
    void *p = a->ptr;
    a->ptr += n;
    return p;
  }
  return arena_slow(a, n);
}

void *pto_arena_zalloc(PtoArena *a, size_t n) {
  void *p = pto_arena_alloc(a, n);
  memset(p, 0, n);
  return p;
}

char *pto_arena_strndup(PtoArena *a, const char *s, size_t n) {
  char *d = pto_arena_alloc(a, n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

void *pto_arena_memdup(PtoArena *a, const void *p, size_t n) {
  void *d = pto_arena_alloc(a, n);
  if (n) memcpy(d, p, n);
  return d;
}

PtoArenaMark pto_arena_mark(const PtoArena *a) {
  PtoArenaMark m = {a->head, a->ptr, a->end};
  return m;
}

void pto_arena_reset(PtoArena *a, PtoArenaMark m) {
  while (a->head && a->head != m.head) {
    PtoArenaChunk *c = a->head;
    a->head = c->next;
    a->bytes -= c->size;
    pto_free(c);
  }
  a->ptr = m.ptr;
  a->end = m.end;
}
