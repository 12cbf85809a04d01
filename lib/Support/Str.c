/* String builder. */
#include "Support/Str.h"
#include "Support/Alloc.h"

#include <stdio.h>

void pto_str_init(PtoStr *s) { memset(s, 0, sizeof *s); }

void pto_str_release(PtoStr *s) {
  pto_free(s->data);
  memset(s, 0, sizeof *s);
}

void pto_str_reserve_(PtoStr *s, size_t extra) {
  size_t need = s->len + extra;
  size_t ncap = s->cap ? s->cap : 64;
  while (ncap < need) ncap *= 2;
  s->data = pto_realloc(s->data, ncap);
  s->cap = ncap;
}

void pto_str_vprintf(PtoStr *s, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  char buf[256];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof buf) {
    pto_str_append(s, buf, (size_t)n);
  } else {
    pto_str_reserve_(s, (size_t)n + 1);
    vsnprintf(s->data + s->len, (size_t)n + 1, fmt, ap2);
    s->len += (size_t)n;
  }
  va_end(ap2);
}

void pto_str_printf(PtoStr *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(s, fmt, ap);
  va_end(ap);
}

/* Two digits per division: numbers are most of what the printer writes
 * (value names, dimensions, attributes). */
void pto_str_uint(PtoStr *s, uint64_t v) {
  static const char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233"
      "34353637383940414243444546474849505152535455565758596061626364656667"
      "6869707172737475767778798081828384858687888990919293949596979899";
  char buf[24];
  int i = 24;
  while (v >= 100) {
    unsigned r = (unsigned)(v % 100) * 2;
    v /= 100;
    buf[--i] = pairs[r + 1];
    buf[--i] = pairs[r];
  }
  if (v >= 10) {
    buf[--i] = pairs[v * 2 + 1];
    buf[--i] = pairs[v * 2];
  } else {
    buf[--i] = (char)('0' + v);
  }
  pto_str_append(s, buf + i, (size_t)(24 - i));
}

void pto_str_int(PtoStr *s, int64_t v) {
  if (v < 0) {
    pto_str_putc(s, '-');
    pto_str_uint(s, (uint64_t)0 - (uint64_t)v);
  } else {
    pto_str_uint(s, (uint64_t)v);
  }
}

void pto_str_indent(PtoStr *s, unsigned n) {
  if (s->len + n + 1 > s->cap) pto_str_reserve_(s, n + 1);
  memset(s->data + s->len, ' ', n);
  s->len += n;
  s->data[s->len] = 0;
}

void pto_str_quoted(PtoStr *s, const char *p, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  pto_str_putc(s, '"');
  size_t plain = 0; /* op names and most strings need no escape */
  while (plain < n && p[plain] != '"' && p[plain] != '\\' &&
         (unsigned char)p[plain] >= 0x20 && (unsigned char)p[plain] < 0x7f)
    plain++;
  pto_str_append(s, p, plain);
  for (size_t i = plain; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c == '"' || c == '\\') {
      pto_str_putc(s, '\\');
      pto_str_putc(s, (char)c);
    } else if (c == '\n') {
      pto_str_append(s, "\\n", 2);
    } else if (c == '\t') {
      pto_str_append(s, "\\t", 2);
    } else if (c < 0x20 || c >= 0x7f) {
      char b[3] = {'\\', hex[c >> 4], hex[c & 15]};
      pto_str_append(s, b, 3);
    } else {
      pto_str_putc(s, (char)c);
    }
  }
  pto_str_putc(s, '"');
}

char *pto_str_take(PtoStr *s) {
  if (!s->data) pto_str_reserve_(s, 1), s->data[0] = 0;
  char *d = s->data;
  memset(s, 0, sizeof *s);
  return d;
}

char *pto_str_format(const char *fmt, ...) {
  PtoStr s;
  pto_str_init(&s);
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(&s, fmt, ap);
  va_end(ap);
  return pto_str_take(&s);
}

/* Levenshtein distance, one row at a time. */
static unsigned edit_distance(const char *a, size_t na, const char *b,
                              size_t nb) {
  unsigned buf[64], *row = nb + 1 <= 64 ? buf : pto_malloc((nb + 1) * sizeof *row);
  for (size_t j = 0; j <= nb; j++) row[j] = (unsigned)j;
  for (size_t i = 1; i <= na; i++) {
    unsigned diag = row[0];
    row[0] = (unsigned)i;
    for (size_t j = 1; j <= nb; j++) {
      unsigned up = row[j];
      unsigned best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  unsigned d = row[nb];
  if (row != buf) pto_free(row);
  return d;
}

void pto_suggest_init(PtoSuggest *s, const char *name, size_t len) {
  s->name = name;
  s->len = len;
  s->best = NULL;
  s->best_d = (unsigned)(len / 3 + 1);
}

void pto_suggest_offer(PtoSuggest *s, const char *candidate) {
  unsigned d = edit_distance(s->name, s->len, candidate, strlen(candidate));
  if (d < s->best_d) s->best_d = d, s->best = candidate;
}
