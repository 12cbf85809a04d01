/* Open-addressing hash maps (linear probing, tombstones, power-of-two). */
#include "Support/Hash.h"
#include "Support/Alloc.h"

#include <string.h>

static uint64_t load64(const unsigned char *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  return w;
}
static uint64_t load32(const unsigned char *s) {
  uint32_t w;
  memcpy(&w, s, 4);
  return w;
}

/* Most keys are short names (`v12`, `value`, `bench.addf`): the tail is
 * read with fixed-size, possibly overlapping loads instead of a
 * variable-length copy (a call into libc per key). */
uint64_t pto_hash_bytes(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ULL ^ (n * 0x100000001b3ULL);
  uint64_t w;
  if (n >= 8) {
    while (n > 8) {
      h = (h ^ pto_hash_mix(load64(s))) * 0x100000001b3ULL;
      s += 8;
      n -= 8;
    }
    w = load64(s + n - 8); /* the last 8 bytes, overlapping if need be */
  } else if (n >= 4) {
    w = load32(s) << 32 | load32(s + n - 4);
  } else if (n) {
    w = (uint64_t)s[0] << 16 | (uint64_t)s[n / 2] << 8 | s[n - 1];
  } else {
    w = 0; /* s may be NULL */
  }
  return pto_hash_mix(h ^ pto_hash_mix(w ^ n));
}

#define TOMB UINT64_MAX

void pto_ptrmap_init(PtoPtrMap *m) { memset(m, 0, sizeof *m); }

void pto_ptrmap_release(PtoPtrMap *m) {
  pto_free(m->keys);
  pto_free(m->vals);
  memset(m, 0, sizeof *m);
}

void pto_ptrmap_clear(PtoPtrMap *m) {
  if (m->keys) memset(m->keys, 0, m->cap * sizeof *m->keys);
  m->len = m->tombs = 0;
}

static uint32_t ptr_slot(const PtoPtrMap *m, uint64_t key) {
  uint32_t mask = m->cap - 1;
  uint32_t i = (uint32_t)pto_hash_mix(key) & mask;
  for (;;) {
    uint64_t k = m->keys[i];
    if (k == key || k == 0) return i;
    i = (i + 1) & mask;
  }
}

void *pto_ptrmap_get(const PtoPtrMap *m, uint64_t key) {
  if (!m->len) return NULL;
  uint32_t i = ptr_slot(m, key);
  return m->keys[i] == key ? m->vals[i] : NULL;
}

void **pto_ptrmap_find(const PtoPtrMap *m, uint64_t key) {
  if (!m->len) return NULL;
  uint32_t i = ptr_slot(m, key);
  return m->keys[i] == key ? &m->vals[i] : NULL;
}

bool pto_ptrmap_contains(const PtoPtrMap *m, uint64_t key) {
  if (!m->len) return false;
  return m->keys[ptr_slot(m, key)] == key;
}

static void ptr_rehash(PtoPtrMap *m, uint32_t ncap) {
  PtoPtrMap n = {pto_calloc(ncap, sizeof(uint64_t)),
                 pto_malloc(ncap * sizeof(void *)), ncap, 0, 0};
  for (uint32_t i = 0; i < m->cap; i++) {
    uint64_t k = m->keys[i];
    if (k && k != TOMB) {
      uint32_t j = ptr_slot(&n, k);
      n.keys[j] = k;
      n.vals[j] = m->vals[i];
      n.len++;
    }
  }
  pto_free(m->keys);
  pto_free(m->vals);
  *m = n;
}

void *pto_ptrmap_put(PtoPtrMap *m, uint64_t key, void *val) {
  if ((m->len + m->tombs + 1) * 4 >= m->cap * 3)
    ptr_rehash(m, m->cap < 16 ? 16 : (m->len * 4 >= m->cap ? m->cap * 2 : m->cap));
  uint32_t mask = m->cap - 1;
  uint32_t i = (uint32_t)pto_hash_mix(key) & mask, tomb = UINT32_MAX;
  for (;;) {
    uint64_t k = m->keys[i];
    if (k == key) {
      void *old = m->vals[i];
      m->vals[i] = val;
      return old;
    }
    if (k == 0) break;
    if (k == TOMB && tomb == UINT32_MAX) tomb = i;
    i = (i + 1) & mask;
  }
  if (tomb != UINT32_MAX) {
    i = tomb;
    m->tombs--;
  }
  m->keys[i] = key;
  m->vals[i] = val;
  m->len++;
  return NULL;
}

bool pto_ptrmap_remove(PtoPtrMap *m, uint64_t key) {
  if (!m->len) return false;
  uint32_t i = ptr_slot(m, key);
  if (m->keys[i] != key) return false;
  m->keys[i] = TOMB;
  m->len--;
  m->tombs++;
  return true;
}

bool pto_ptrmap_next(const PtoPtrMap *m, uint32_t *it, uint64_t *key,
                     void **val) {
  for (; *it < m->cap; (*it)++) {
    uint64_t k = m->keys[*it];
    if (k && k != TOMB) {
      if (key) *key = k;
      if (val) *val = m->vals[*it];
      (*it)++;
      return true;
    }
  }
  return false;
}

/* ---- string map ---- */

static const char str_tomb_key;
#define STR_TOMB (&str_tomb_key)

void pto_strmap_init(PtoStrMap *m) { memset(m, 0, sizeof *m); }

void pto_strmap_release(PtoStrMap *m) {
  pto_free(m->slots);
  memset(m, 0, sizeof *m);
}

void pto_strmap_clear(PtoStrMap *m) {
  if (m->slots) memset(m->slots, 0, m->cap * sizeof *m->slots);
  m->len = m->tombs = 0;
}

static PtoStrMapEntry *str_slot(const PtoStrMap *m, const char *key,
                                uint32_t len, uint32_t h) {
  uint32_t mask = m->cap - 1, i = h & mask;
  for (;;) {
    PtoStrMapEntry *e = &m->slots[i];
    if (!e->key) return e;
    if (e->key != STR_TOMB && e->hash == h && e->len == len &&
        memcmp(e->key, key, len) == 0)
      return e;
    i = (i + 1) & mask;
  }
}

PtoStrMapEntry *pto_strmap_find(const PtoStrMap *m, const char *key,
                                size_t len) {
  if (!m->len) return NULL;
  uint32_t h = (uint32_t)pto_hash_bytes(key, len);
  PtoStrMapEntry *e = str_slot(m, key, (uint32_t)len, h);
  return e->key ? e : NULL;
}

void *pto_strmap_get(const PtoStrMap *m, const char *key, size_t len) {
  PtoStrMapEntry *e = pto_strmap_find(m, key, len);
  return e ? e->val : NULL;
}

static void str_rehash(PtoStrMap *m, uint32_t ncap) {
  PtoStrMap n = {pto_calloc(ncap, sizeof(PtoStrMapEntry)), ncap, 0, 0};
  for (uint32_t i = 0; i < m->cap; i++) {
    PtoStrMapEntry *e = &m->slots[i];
    if (e->key && e->key != STR_TOMB) {
      *str_slot(&n, e->key, e->len, e->hash) = *e;
      n.len++;
    }
  }
  pto_free(m->slots);
  *m = n;
}

void *pto_strmap_put(PtoStrMap *m, const char *key, size_t len, void *val) {
  if ((m->len + m->tombs + 1) * 4 >= m->cap * 3)
    str_rehash(m, m->cap < 16 ? 16 : (m->len * 4 >= m->cap ? m->cap * 2 : m->cap));
  uint32_t h = (uint32_t)pto_hash_bytes(key, len);
  uint32_t mask = m->cap - 1, i = h & mask;
  PtoStrMapEntry *tomb = NULL;
  for (;;) {
    PtoStrMapEntry *e = &m->slots[i];
    if (!e->key) break;
    if (e->key == STR_TOMB) {
      if (!tomb) tomb = e;
    } else if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0) {
      void *old = e->val;
      e->val = val;
      return old;
    }
    i = (i + 1) & mask;
  }
  PtoStrMapEntry *e = tomb ? tomb : &m->slots[i];
  if (tomb) m->tombs--;
  e->key = key;
  e->len = (uint32_t)len;
  e->hash = h;
  e->val = val;
  m->len++;
  return NULL;
}

PtoStrMapEntry *pto_strmap_next(const PtoStrMap *m, uint32_t *it) {
  for (; *it < m->cap; (*it)++) {
    PtoStrMapEntry *e = &m->slots[*it];
    if (e->key && e->key != STR_TOMB) {
      (*it)++;
      return e;
    }
  }
  return NULL;
}

bool pto_strmap_remove(PtoStrMap *m, const char *key, size_t len) {
  PtoStrMapEntry *e = pto_strmap_find(m, key, len);
  if (!e) return false;
  e->key = STR_TOMB;
  e->len = 0;
  e->val = NULL;
  m->len--;
  m->tombs++;
  return true;
}
