/* Hashing and hash maps keyed by pointers/integers or by byte strings. */
#ifndef PTO_SUPPORT_HASH_H
#define PTO_SUPPORT_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t pto_hash_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
static inline uint64_t pto_hash_combine(uint64_t h, uint64_t v) {
  return pto_hash_mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}
uint64_t pto_hash_bytes(const void *p, size_t n);
/* Byte equality that accepts NULL pointers for empty ranges. */
static inline bool pto_bytes_eq(const void *a, const void *b, size_t n) {
  return n == 0 || memcmp(a, b, n) == 0;
}

/* Open-addressing map from a non-zero 64-bit key (pointer or integer) to a
 * pointer. Key 0 is reserved as "empty". */
typedef struct PtoPtrMap {
  uint64_t *keys;
  void **vals;
  uint32_t cap, len, tombs;
} PtoPtrMap;

void pto_ptrmap_init(PtoPtrMap *m);
void pto_ptrmap_release(PtoPtrMap *m);
void pto_ptrmap_clear(PtoPtrMap *m);
void *pto_ptrmap_get(const PtoPtrMap *m, uint64_t key);
/* The value slot of `key` (to read or update in place), or NULL. Valid
 * until the next put. */
void **pto_ptrmap_find(const PtoPtrMap *m, uint64_t key);
bool pto_ptrmap_contains(const PtoPtrMap *m, uint64_t key);
/* Returns the previous value (NULL if none). */
void *pto_ptrmap_put(PtoPtrMap *m, uint64_t key, void *val);
bool pto_ptrmap_remove(PtoPtrMap *m, uint64_t key);
/* Iteration: for (uint32_t i = 0; pto_ptrmap_next(m, &i, &k, &v);) */
bool pto_ptrmap_next(const PtoPtrMap *m, uint32_t *it, uint64_t *key,
                     void **val);

/* Map from byte strings to pointers. Keys are not copied: the caller keeps
 * them alive as long as the entry exists. */
typedef struct PtoStrMapEntry {
  const char *key;
  uint32_t len;
  uint32_t hash;
  void *val;
} PtoStrMapEntry;

typedef struct PtoStrMap {
  PtoStrMapEntry *slots;
  uint32_t cap, len, tombs;
} PtoStrMap;

void pto_strmap_init(PtoStrMap *m);
void pto_strmap_release(PtoStrMap *m);
void pto_strmap_clear(PtoStrMap *m);
void *pto_strmap_get(const PtoStrMap *m, const char *key, size_t len);
PtoStrMapEntry *pto_strmap_find(const PtoStrMap *m, const char *key,
                                size_t len);
void *pto_strmap_put(PtoStrMap *m, const char *key, size_t len, void *val);
bool pto_strmap_remove(PtoStrMap *m, const char *key, size_t len);
/* Iteration: for (uint32_t i = 0; (e = pto_strmap_next(m, &i));) */
PtoStrMapEntry *pto_strmap_next(const PtoStrMap *m, uint32_t *it);

#endif
