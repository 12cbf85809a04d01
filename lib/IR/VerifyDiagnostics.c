/* --verify-diagnostics: match reported diagnostics against expectations
 * written in the source as `// expected-error@+1 {{message}}`. */
#include "IR/IRInternal.h"

#include "Support/Regex.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct Expected {
  PtoDiagSeverity sev;
  unsigned line;     /* line the diagnostic is expected on */
  bool unknown;      /* @unknown: a diagnostic without a file location */
  unsigned at_line;  /* line of the expectation itself */
  unsigned at_col;
  char *text;
  PtoRegex *re;      /* -re: the regex the text turned into */
  bool matched;
} Expected;

struct PtoDiagVerifier {
  PtoContext *ctx;
  char *filename;
  PTO_VEC(Expected) exp;
  bool failed;
};

static const struct {
  const char *name;
  PtoDiagSeverity sev;
} kinds[] = {{"error", PTO_DIAG_ERROR},
             {"warning", PTO_DIAG_WARNING},
             {"note", PTO_DIAG_NOTE},
             {"remark", PTO_DIAG_REMARK}};

static const char *sev_word(PtoDiagSeverity s) {
  for (unsigned i = 0; i < 4; i++)
    if (kinds[i].sev == s) return kinds[i].name;
  return "error";
}

/* Turns `lit {{re}} lit` into one unanchored regex (Support/Regex.h). */
static char *build_regex(const char *t) {
  PtoStr s;
  pto_str_init(&s);
  pto_str_puts(&s, "");
  while (*t) {
    const char *open = strstr(t, "{{");
    const char *lit_end = open ? open : t + strlen(t);
    for (const char *c = t; c < lit_end; c++) {
      if (strchr(".[]{}()\\*+?|^$", *c)) pto_str_putc(&s, '\\');
      pto_str_putc(&s, *c);
    }
    if (!open) break;
    const char *close = strstr(open + 2, "}}");
    if (!close) close = open + strlen(open);
    pto_str_putc(&s, '(');
    pto_str_append(&s, open + 2, (size_t)(close - open - 2));
    pto_str_putc(&s, ')');
    t = *close ? close + 2 : close;
  }
  return pto_str_take(&s);
}

static void diag_at(PtoDiagVerifier *v, unsigned line, unsigned col,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void diag_at(PtoDiagVerifier *v, unsigned line, unsigned col,
                    const char *fmt, ...) {
  PtoDiagInfo info;
  PtoStr m;
  pto_str_init(&m);
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(&m, fmt, ap);
  va_end(ap);
  info.severity = PTO_DIAG_ERROR;
  info.loc = pto_loc_file(v->ctx, v->filename, line, col);
  info.message = m.data;
  info.num_notes = 0;
  info.notes = NULL;
  char *text = pto_diag_render(v->ctx, &info);
  if (v->ctx->diag_stream) fputs(text, v->ctx->diag_stream);
  pto_free(text);
  pto_str_release(&m);
  v->failed = true;
}

static bool match_one(PtoDiagVerifier *v, PtoDiagSeverity sev, PtoLoc *loc,
                      const char *msg) {
  const char *file;
  unsigned line, col;
  bool located = pto_loc_get_file_line_col(loc, &file, &line, &col);
  if (!located || strcmp(file, v->filename) == 0) {
    for (uint32_t i = 0; i < v->exp.len; i++) {
      Expected *e = &v->exp.data[i];
      if (e->matched || e->sev != sev || e->unknown == located ||
          (located && e->line != line))
        continue;
      bool ok = e->re ? pto_regex_search(e->re, msg, strlen(msg))
                      : strstr(msg, e->text) != NULL;
      if (ok) {
        e->matched = true;
        return true;
      }
    }
  }
  /* unexpected: report it at its own location */
  PtoDiagInfo info;
  PtoStr m;
  pto_str_init(&m);
  pto_str_printf(&m, "unexpected %s: %s", sev_word(sev), msg);
  info.severity = PTO_DIAG_ERROR;
  info.loc = loc;
  info.message = m.data;
  info.num_notes = 0;
  info.notes = NULL;
  char *text = pto_diag_render(v->ctx, &info);
  if (v->ctx->diag_stream) fputs(text, v->ctx->diag_stream);
  pto_free(text);
  pto_str_release(&m);
  v->failed = true;
  return false;
}

static bool verifier_handler(const PtoDiagInfo *d, void *user) {
  PtoDiagVerifier *v = user;
  match_one(v, d->severity, d->loc, d->message);
  for (unsigned i = 0; i < d->num_notes; i++)
    match_one(v, PTO_DIAG_NOTE, d->notes[i].loc, d->notes[i].message);
  return true;
}

static bool ident_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* One `expected-<kind>[-re][ ][@where][ ]{{text}}` starting at `s` (just
 * past "expected-") on the line [p, le). Returns where scanning resumes;
 * a directive that is not well formed is an error, so that a test never
 * checks nothing by accident. */
static const char *parse_directive(PtoDiagVerifier *v, const char *p,
                                   const char *hit, const char *le,
                                   unsigned line) {
  const char *s = hit + 9;
  int kind = -1;
  for (unsigned k = 0; k < 4; k++) {
    size_t n = strlen(kinds[k].name);
    if ((size_t)(le - s) >= n && memcmp(s, kinds[k].name, n) == 0) {
      kind = (int)k;
      s += n;
      break;
    }
  }
  if (kind < 0) return s;
  bool re = false;
  if (le - s >= 3 && memcmp(s, "-re", 3) == 0 &&
      (le - s == 3 || !ident_char(s[3]))) {
    re = true;
    s += 3;
  }
  /* `expected-errors`, `expected-error.`: prose, not a directive */
  if (s < le && *s != ' ' && *s != '@' && *s != '{') return s;
  const char *name = kinds[kind].name;
  unsigned col = (unsigned)(hit - p) + 1;
  while (s < le && *s == ' ') s++;
  long target = (long)line;
  bool unknown = false;
  if (s < le && *s == '@') {
    const char *at = s++;
    if (le - s >= 5 && memcmp(s, "above", 5) == 0) {
      target = (long)line - 1;
      s += 5;
    } else if (le - s >= 5 && memcmp(s, "below", 5) == 0) {
      target = (long)line + 1;
      s += 5;
    } else if (le - s >= 7 && memcmp(s, "unknown", 7) == 0) {
      unknown = true;
      s += 7;
    } else if (le - s >= 2 && (*s == '+' || *s == '-') &&
               isdigit((unsigned char)s[1])) {
      char sign = *s++;
      long n = 0;
      /* saturate: an absurd offset names a line that does not exist */
      for (; s < le && isdigit((unsigned char)*s); s++)
        if (n < 100000000) n = n * 10 + (*s - '0');
      target = sign == '+' ? (long)line + n : (long)line - n;
    } else {
      s = at;
    }
    if (s == at || (s < le && ident_char(*s))) {
      diag_at(v, line, (unsigned)(at - p) + 1,
              "malformed expected-%s: '@' must be followed by '+N', '-N', "
              "'above', 'below' or 'unknown'",
              name);
      return le;
    }
  }
  while (s < le && *s == ' ') s++;
  if (le - s < 2 || memcmp(s, "{{", 2) != 0) {
    diag_at(v, line, (unsigned)(s - p) + 1,
            "malformed expected-%s: expected the message in double braces",
            name);
    return le;
  }
  /* With regex pieces, the outer braces end at the last "}}". */
  const char *body = s + 2, *close = NULL;
  for (const char *c = body; c + 2 <= le; c++)
    if (c[0] == '}' && c[1] == '}') close = c;
  if (!close) {
    diag_at(v, line, (unsigned)(s - p) + 1,
            "malformed expected-%s: missing '}}' after the message", name);
    return le;
  }
  Expected e;
  memset(&e, 0, sizeof e);
  e.sev = kinds[kind].sev;
  e.line = target > 0 ? (unsigned)target : 0;
  e.unknown = unknown;
  e.at_line = line;
  e.at_col = col;
  e.text = pto_strndup(body, (size_t)(close - body));
  if (re) {
    char *rx = build_regex(e.text);
    const char *err;
    size_t off;
    e.re = pto_regex_compile(rx, &err, &off);
    if (!e.re) {
      diag_at(v, line, col, "invalid regex in expectation: %s (at offset %zu "
              "of '%s')", err, off, rx);
    }
    pto_free(rx);
  }
  pto_vec_push(&v->exp, e);
  return close + 2;
}

static void parse_expectations(PtoDiagVerifier *v, const char *text,
                               size_t len, unsigned first_line) {
  const char *p = text, *end = text + len;
  unsigned line = first_line;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *le = eol ? eol : end;
    const char *q = p;
    while (q < le) {
      const char *hit = NULL;
      for (const char *s = q; s + 9 <= le; s++)
        if (memcmp(s, "expected-", 9) == 0 && (s == p || !ident_char(s[-1]))) {
          hit = s;
          break;
        }
      if (!hit) break;
      q = parse_directive(v, p, hit, le, line);
    }
    p = eol ? eol + 1 : end;
    line++;
  }
}

PtoDiagVerifier *pto_diag_verifier_create(PtoContext *ctx,
                                          const char *filename,
                                          const char *text, size_t len,
                                          unsigned first_line) {
  PtoDiagVerifier *v = pto_calloc(1, sizeof *v);
  v->ctx = ctx;
  v->filename = pto_strndup(filename, strlen(filename));
  parse_expectations(v, text, len, first_line ? first_line : 1);
  pto_ctx_push_diag_handler(ctx, verifier_handler, v);
  return v;
}

PtoResult pto_diag_verifier_finish(PtoDiagVerifier *v) {
  pto_ctx_pop_diag_handler(v->ctx);
  for (uint32_t i = 0; i < v->exp.len; i++) {
    Expected *e = &v->exp.data[i];
    if (!e->matched)
      diag_at(v, e->at_line, e->at_col, "expected %s \"%s\" was not produced",
              sev_word(e->sev), e->text);
  }
  bool failed = v->failed;
  for (uint32_t i = 0; i < v->exp.len; i++) {
    pto_regex_destroy(v->exp.data[i].re);
    pto_free(v->exp.data[i].text);
  }
  pto_vec_free(&v->exp);
  pto_free(v->filename);
  pto_free(v);
  return failed ? PTO_FAILURE : PTO_SUCCESS;
}
