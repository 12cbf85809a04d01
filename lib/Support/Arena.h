/* Bump-pointer arena: many small allocations freed together. */
#ifndef PTO_SUPPORT_ARENA_H
#define PTO_SUPPORT_ARENA_H

#include <stddef.h>

typedef struct PtoArenaChunk PtoArenaChunk;

typedef struct PtoArena {
  PtoArenaChunk *head;
  char *ptr, *end;
  size_t bytes; /* total bytes obtained from the heap */
} PtoArena;

void pto_arena_init(PtoArena *a);
void pto_arena_release(PtoArena *a);
/* 8-byte aligned (enough for every object the library stores; finer
 * than 16 saves a word on most IR objects), uninitialised. */
void *pto_arena_alloc(PtoArena *a, size_t n);
void *pto_arena_zalloc(PtoArena *a, size_t n);
char *pto_arena_strndup(PtoArena *a, const char *s, size_t n);
void *pto_arena_memdup(PtoArena *a, const void *p, size_t n);

/* Stack discipline: allocations made after a mark are released by
 * resetting to it (chunks obtained since are freed). */
typedef struct PtoArenaMark {
  PtoArenaChunk *head;
  char *ptr, *end;
} PtoArenaMark;
PtoArenaMark pto_arena_mark(const PtoArena *a);
void pto_arena_reset(PtoArena *a, PtoArenaMark m);

#endif
