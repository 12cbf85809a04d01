/* Growable byte string used for all text output (printer, diagnostics). */
#ifndef PTO_SUPPORT_STR_H
#define PTO_SUPPORT_STR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct PtoStr {
  char *data;
  size_t len, cap;
} PtoStr;

void pto_str_init(PtoStr *s);
void pto_str_release(PtoStr *s);
void pto_str_reserve_(PtoStr *s, size_t extra);
static inline void pto_str_append(PtoStr *s, const char *p, size_t n) {
  if (s->len + n + 1 > s->cap) pto_str_reserve_(s, n + 1);
  memcpy(s->data + s->len, p, n);
  s->len += n;
  s->data[s->len] = 0;
}
static inline void pto_str_puts(PtoStr *s, const char *p) {
  pto_str_append(s, p, strlen(p));
}
static inline void pto_str_putc(PtoStr *s, char c) {
  if (s->len + 2 > s->cap) pto_str_reserve_(s, 2);
  s->data[s->len++] = c;
  s->data[s->len] = 0;
}
void pto_str_printf(PtoStr *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void pto_str_vprintf(PtoStr *s, const char *fmt, va_list ap);
void pto_str_int(PtoStr *s, int64_t v);
void pto_str_uint(PtoStr *s, uint64_t v);
void pto_str_indent(PtoStr *s, unsigned n);
/* Appends a quoted, escaped string literal in MLIR's syntax. */
void pto_str_quoted(PtoStr *s, const char *p, size_t n);
/* The closest of a set of names to a misspelt one, for "did you mean":
 * offer each candidate, then read `best` (NULL when none is within a third
 * of the name's length in edit distance, so far-off names are not
 * suggested). */
typedef struct PtoSuggest {
  const char *name;
  size_t len;
  const char *best;
  unsigned best_d;
} PtoSuggest;
void pto_suggest_init(PtoSuggest *s, const char *name, size_t len);
void pto_suggest_offer(PtoSuggest *s, const char *candidate);
/* Transfers ownership of the buffer (never NULL) and resets s. */
char *pto_str_take(PtoStr *s);
/* A newly allocated formatted string (pto_free), never NULL. */
char *pto_str_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
