/* Pass instances: typed option values parsed from `key=value` text with
 * diagnostics that name the pass, the option and the bad value; statistics;
 * the accessors a pass uses at run time. */
#include "Pass/PassInternal.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Text sources                                                         */
/* ------------------------------------------------------------------ */

void pto_text_src_init(PtoTextSrc *src, PtoContext *ctx, const char *name,
                       const char *text, size_t len) {
  src->ctx = ctx;
  src->name = name;
  src->text = text;
  src->len = len;
  pto_ctx_add_source(ctx, name, text, len);
}

PtoLoc *pto_text_src_loc(const PtoTextSrc *src, size_t offset) {
  unsigned line = 1, col = 1;
  for (size_t i = 0; i < offset && i < src->len; i++) {
    if (src->text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  return pto_loc_file(src->ctx, src->name, line, col);
}

/* ------------------------------------------------------------------ */
/* Values                                                               */
/* ------------------------------------------------------------------ */

static bool parse_i64(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i == n) return false;
  uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

static bool ranged(const PtoPassOptionDef *od) { return od->min < od->max; }

static const char *range_msg(const PtoPassOptionDef *od, const char *what,
                             char *why, size_t why_len) {
  if (!ranged(od)) return what;
  snprintf(why, why_len, "%s in [%lld, %lld]", what, (long long)od->min,
           (long long)od->max);
  return why;
}

static bool in_range(const PtoPassOptionDef *od, int64_t v) {
  return !ranged(od) || (v >= od->min && v <= od->max);
}

const char *pto_pass_option_parse(const PtoPassOptionDef *od, const char *s,
                                  size_t n, PassOptValue *out, PtoArena *arena,
                                  char *why, size_t why_len, size_t *error_at) {
  if (error_at) *error_at = 0;
  switch (od->kind) {
  case PTO_OPT_INT:
    if (!parse_i64(s, n, &out->i) || !in_range(od, out->i))
      return range_msg(od, "expected an integer", why, why_len);
    return NULL;
  case PTO_OPT_BOOL:
    if ((n == 4 && strncmp(s, "true", 4) == 0) || (n == 1 && s[0] == '1')) {
      out->b = true;
      return NULL;
    }
    if ((n == 5 && strncmp(s, "false", 5) == 0) || (n == 1 && s[0] == '0')) {
      out->b = false;
      return NULL;
    }
    return "expected 'true' or 'false'";
  case PTO_OPT_STRING:
    out->s = pto_arena_strndup(arena, s, n);
    return NULL;
  case PTO_OPT_ENUM:
    for (const char *const *e = od->enum_values; *e; e++)
      if (strlen(*e) == n && strncmp(*e, s, n) == 0) {
        out->s = *e;
        return NULL;
      }
    {
      PtoStr m;
      pto_str_init(&m);
      pto_str_puts(&m, "expected one of ");
      for (const char *const *e = od->enum_values; *e; e++)
        pto_str_printf(&m, "%s'%s'", e == od->enum_values ? "" : ", ", *e);
      snprintf(why, why_len, "%s", m.data);
      pto_str_release(&m);
      return why;
    }
  case PTO_OPT_INT_LIST: {
    unsigned count = n ? 1 : 0;
    for (size_t i = 0; i < n; i++) count += s[i] == ',';
    out->list = count ? pto_arena_alloc(arena, count * sizeof(int64_t)) : NULL;
    out->nlist = count;
    size_t start = 0;
    for (unsigned k = 0; k < count; k++) {
      size_t end = start;
      while (end < n && s[end] != ',') end++;
      if (!parse_i64(s + start, end - start, &out->list[k]) ||
          !in_range(od, out->list[k])) {
        if (error_at) *error_at = start;
        return range_msg(od, "expected a comma-separated list of integers",
                         why, why_len);
      }
      start = end + 1;
    }
    return NULL;
  }
  case PTO_OPT_FLOAT: {
    char buf[64];
    if (n == 0 || n >= sizeof buf) return "expected a number";
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno || !isfinite(v)) return "expected a number";
    out->f = v;
    return NULL;
  }
  }
  return "unknown option kind";
}

static const char *kind_name(PtoOptionKind k) {
  switch (k) {
  case PTO_OPT_INT: return "int";
  case PTO_OPT_BOOL: return "bool";
  case PTO_OPT_STRING: return "string";
  case PTO_OPT_ENUM: return "enum";
  case PTO_OPT_INT_LIST: return "int list";
  case PTO_OPT_FLOAT: return "float";
  }
  return "?";
}

const char *pto_option_kind_name(PtoOptionKind k) { return kind_name(k); }

/* ------------------------------------------------------------------ */
/* Instances                                                            */
/* ------------------------------------------------------------------ */

static void set_default(PtoPass *pass, unsigned i) {
  const PtoPassOptionDef *od = &pass->def->options[i];
  PassOptValue *v = &pass->opts[i];
  memset(v, 0, sizeof *v);
  const char *dv = od->default_value ? od->default_value : "";
  char why[160];
  if (*dv)
    pto_pass_option_parse(od, dv, strlen(dv), v, &pass->arena, why, sizeof why,
                          NULL);
  else if (od->kind == PTO_OPT_ENUM)
    v->s = od->enum_values[0];
  else if (od->kind == PTO_OPT_STRING)
    v->s = "";
}

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

typedef struct OptCtx {
  PtoPass *pass;
  const PtoTextSrc *src;
  size_t base;
  PtoLoc *loc;
} OptCtx;

static PtoLoc *opt_loc(const OptCtx *oc, size_t off) {
  return oc->src ? pto_text_src_loc(oc->src, oc->base + off) : oc->loc;
}

static PtoResult unknown_option(const OptCtx *oc, size_t off, const char *key,
                                size_t klen) {
  const PtoPassDef *def = oc->pass->def;
  PtoDiag *d = pto_diag_begin(oc->pass->ctx, PTO_DIAG_ERROR, opt_loc(oc, off));
  pto_diag_printf(d, "pass '%s' has no option '%.*s'; ", def->argument,
                  (int)klen, key);
  if (!def->num_options) {
    pto_diag_printf(d, "it takes no options");
  } else {
    pto_diag_printf(d, "valid options are:");
    for (unsigned i = 0; i < def->num_options; i++)
      pto_diag_printf(d, "%s %s", i ? "," : "", def->options[i].name);
  }
  return pto_diag_emit(d);
}

/* Inside a quoted value, `\\`, `\"` and `\'` stand for the second
 * character; any other backslash stands for itself. */
static bool is_escape(const char *s, size_t n, size_t i) {
  return s[i] == '\\' && i + 1 < n &&
         (s[i + 1] == '\\' || s[i + 1] == '"' || s[i + 1] == '\'');
}

size_t pto_pass_text_closing_quote(const char *s, size_t n, size_t i) {
  char q = s[i++];
  while (i < n && s[i] != q) i += is_escape(s, n, i) ? 2 : 1;
  return i;
}

/* The quoted text s[0..n) (quotes removed) with its escapes replaced by
 * what they stand for, in `arena`, or s itself when it has none. */
static const char *unescape(const char *s, size_t *n, PtoArena *arena) {
  size_t i = 0;
  while (i < *n && !is_escape(s, *n, i)) i++;
  if (i == *n) return s;
  char *u = pto_arena_alloc(arena, *n + 1);
  size_t k = 0;
  for (i = 0; i < *n; i++) {
    if (is_escape(s, *n, i)) i++;
    u[k++] = s[i];
  }
  u[k] = '\0';
  *n = k;
  return u;
}

/* Scans a value: up to whitespace, with quoted strings and {...} groups
 * taken whole. Returns false on an unterminated quote or brace. */
static bool scan_value(const char *s, size_t n, size_t *pos) {
  size_t i = *pos;
  while (i < n && !is_space(s[i])) {
    if (s[i] == '"' || s[i] == '\'') {
      i = pto_pass_text_closing_quote(s, n, i);
      if (i == n) return false;
      i++;
    } else if (s[i] == '{') {
      unsigned depth = 0;
      for (; i < n; i++) {
        if (s[i] == '{') depth++;
        if (s[i] == '}' && --depth == 0) break;
      }
      if (i == n) return false;
      i++;
    } else {
      i++;
    }
  }
  *pos = i;
  return true;
}

/* Splits `s` into items; see PassInternal.h. */
int pto_pass_options_each(const char *s, size_t n,
                          int (*fn)(void *user, const char *key, size_t klen,
                                    size_t off),
                          void *user) {
  size_t i = 0;
  for (;;) {
    while (i < n && is_space(s[i])) i++;
    if (i == n) return 0;
    size_t kstart = i;
    while (i < n && !is_space(s[i]) && s[i] != '=') i++;
    int r = fn(user, s + kstart, i - kstart, kstart);
    if (r) return r;
    if (i < n && s[i] == '=') {
      i++;
      if (!scan_value(s, n, &i)) return 0; /* reported by parse_options */
    }
  }
}

/* Parses options text into the pass's values. With `inherit`, the text is
 * a named pipeline's: options the pass does not declare, or that its own
 * text set, are left alone, and each one it takes is marked used. */
static PtoResult parse_options(const OptCtx *oc, const char *s, size_t n,
                               PassInherit *inherit) {
  PtoPass *pass = oc->pass;
  const PtoPassDef *def = pass->def;
  PtoContext *ctx = pass->ctx;
  size_t i = 0;
  for (unsigned item = 0;; item++) {
    while (i < n && is_space(s[i])) i++;
    if (i == n) return PTO_SUCCESS;
    size_t kstart = i;
    while (i < n && !is_space(s[i]) && s[i] != '=') i++;
    size_t klen = i - kstart;
    if (!klen)
      return inherit ? pto_emit_error(ctx, opt_loc(oc, kstart),
                                      "expected an option name before '=' "
                                      "in the options of a pass pipeline")
                     : pto_emit_error(ctx, opt_loc(oc, kstart),
                                      "expected an option name before '=' in the "
                                      "options of pass '%s'",
                                      def->argument);
    const char *key = s + kstart;
    unsigned idx = def->num_options;
    for (unsigned k = 0; k < def->num_options; k++)
      if (strlen(def->options[k].name) == klen &&
          strncmp(def->options[k].name, key, klen) == 0)
        idx = k;
    bool skip = false;
    if (inherit) {
      if (idx < def->num_options && item < inherit->used.len)
        inherit->used.data[item] = true;
      skip = idx == def->num_options || pass->opts[idx].set;
    } else if (idx == def->num_options) {
      return unknown_option(oc, kstart, key, klen);
    }
    const PtoPassOptionDef *od = skip ? NULL : &def->options[idx];
    if (od && pass->opts[idx].set)
      return pto_emit_error(ctx, opt_loc(oc, kstart),
                            "option '%s' of pass '%s' is given more than once",
                            od->name, def->argument);
    const char *val = NULL;
    size_t vlen = 0, vstart = i;
    bool quoted = false;
    if (i < n && s[i] == '=') {
      vstart = ++i;
      if (!scan_value(s, n, &i))
        return inherit ? pto_emit_error(ctx, opt_loc(oc, vstart),
                                        "unterminated value for option "
                                        "'%.*s' of a pass pipeline",
                                        (int)klen, key)
                       : pto_emit_error(ctx, opt_loc(oc, vstart),
                                        "unterminated value for option '%s' "
                                        "of pass '%s'",
                                        od->name, def->argument);
      val = s + vstart;
      vlen = i - vstart;
      if (vlen >= 2 && (val[0] == '"' || val[0] == '\'') &&
          pto_pass_text_closing_quote(val, vlen, 0) == vlen - 1) {
        val++;
        vlen -= 2;
        quoted = true;
      }
    } else if (skip) {
      continue;
    } else if (od->kind == PTO_OPT_BOOL) {
      val = "true";
      vlen = 4;
    } else {
      return pto_emit_error(ctx, opt_loc(oc, kstart),
                            "option '%s' of pass '%s' needs a value: "
                            "'%s=<%s>'",
                            od->name, def->argument, od->name,
                            kind_name(od->kind));
    }
    if (skip) continue;
    char why[256];
    size_t bad, plen = vlen;
    const char *text = quoted ? unescape(val, &plen, &pass->arena) : val;
    const char *err = pto_pass_option_parse(od, text, plen, &pass->opts[idx],
                                            &pass->arena, why, sizeof why, &bad);
    if (err)
      return pto_emit_error(ctx, opt_loc(oc, (size_t)(val - s) + (text == val ? bad : 0)),
                            "invalid value '%.*s' for option '%s' of pass "
                            "'%s': %s",
                            (int)vlen, val, od->name, def->argument, err);
    pass->opts[idx].set = true;
  }
}

PtoPass *pto_pass_create(PtoContext *ctx, const PtoPassDef *def,
                         const char *opts, size_t opts_len,
                         const PtoTextSrc *src, size_t opts_offset,
                         PtoLoc *loc, PassInherit *inherit) {
  PtoPass *pass = pto_calloc(1, sizeof *pass);
  pass->def = def;
  pass->ctx = ctx;
  pto_arena_init(&pass->arena);
  pass->opts = pto_arena_zalloc(&pass->arena,
                                (def->num_options + 1) * sizeof *pass->opts);
  pass->stats = pto_arena_zalloc(&pass->arena,
                                 (def->num_statistics + 1) * sizeof(int64_t));
  for (unsigned i = 0; i < def->num_options; i++) set_default(pass, i);
  OptCtx oc = {pass, src, opts_offset, loc};
  if (opts && parse_options(&oc, opts, opts_len, NULL)) goto fail;
  if (inherit) {
    for (unsigned i = 0; i < def->num_options; i++)
      pto_vec_push(&inherit->names, def->options[i].name);
    OptCtx ic = {pass, inherit->src, inherit->offset, loc};
    if (parse_options(&ic, inherit->text, inherit->len, inherit)) goto fail;
  }
  if (def->check_options && def->check_options(pass, loc)) goto fail;
  if (def->create_state) {
    unsigned errors = pto_ctx_num_errors(ctx);
    pass->state = def->create_state(pass);
    if (!pass->state) {
      if (pto_ctx_num_errors(ctx) == errors)
        pto_emit_error(ctx, loc, "pass '%s' could not be created",
                       def->argument);
      goto fail;
    }
  }
  return pass;
fail:
  pto_pass_destroy(pass);
  return NULL;
}

void pto_pass_destroy(PtoPass *pass) {
  if (!pass) return;
  if (pass->state && pass->def->destroy_state)
    pass->def->destroy_state(pass->state);
  pto_arena_release(&pass->arena);
  pto_free(pass);
}

static bool needs_quotes(const char *s) {
  if (!*s) return true;
  for (; *s; s++)
    if (is_space(*s) || *s == '{' || *s == '}' || *s == '"' || *s == '\'' ||
        *s == ',' || *s == '(' || *s == ')')
      return true;
  return false;
}

/* `v` quoted for pipeline text: in double quotes, or in single quotes
 * when it holds a '"' but no '\'' or backslash, else in double quotes with
 * its backslashes and '"'s escaped. */
static void quote_value(PtoStr *out, const char *v) {
  bool dq = strchr(v, '"'), sq = strchr(v, '\''), bs = strchr(v, '\\');
  if (!bs && !dq) {
    pto_str_printf(out, "\"%s\"", v);
  } else if (!bs && !sq) {
    pto_str_printf(out, "'%s'", v);
  } else {
    pto_str_putc(out, '"');
    for (; *v; v++) {
      if (*v == '"' || *v == '\\') pto_str_putc(out, '\\');
      pto_str_putc(out, *v);
    }
    pto_str_putc(out, '"');
  }
}

char *pto_pass_text_with_option(const char *argument, const char *option,
                                const char *value) {
  PtoStr s;
  pto_str_init(&s);
  pto_str_printf(&s, "%s{%s=", argument, option);
  quote_value(&s, value);
  pto_str_putc(&s, '}');
  return pto_str_take(&s);
}

void pto_pass_print_options(PtoPass *pass, PtoStr *out) {
  const PtoPassDef *def = pass->def;
  bool any = false;
  for (unsigned i = 0; i < def->num_options; i++) {
    const PassOptValue *v = &pass->opts[i];
    if (!v->set) continue;
    pto_str_puts(out, any ? " " : "{");
    any = true;
    pto_str_printf(out, "%s=", def->options[i].name);
    switch (def->options[i].kind) {
    case PTO_OPT_INT:
      pto_str_int(out, v->i);
      break;
    case PTO_OPT_BOOL:
      pto_str_puts(out, v->b ? "true" : "false");
      break;
    case PTO_OPT_FLOAT:
      pto_str_printf(out, "%.17g", v->f);
      break;
    case PTO_OPT_INT_LIST:
      for (unsigned k = 0; k < v->nlist; k++) {
        if (k) pto_str_putc(out, ',');
        pto_str_int(out, v->list[k]);
      }
      break;
    case PTO_OPT_STRING:
    case PTO_OPT_ENUM:
      if (needs_quotes(v->s))
        quote_value(out, v->s);
      else
        pto_str_puts(out, v->s);
      break;
    }
  }
  if (any) pto_str_putc(out, '}');
}

/* ------------------------------------------------------------------ */
/* Accessors used by passes                                             */
/* ------------------------------------------------------------------ */

static const PassOptValue *find_opt(PtoPass *pass, const char *name,
                                    PtoOptionKind k1, PtoOptionKind k2) {
  const PtoPassDef *def = pass->def;
  for (unsigned i = 0; i < def->num_options; i++)
    if (strcmp(def->options[i].name, name) == 0) {
      assert((def->options[i].kind == k1 || def->options[i].kind == k2) &&
             "option accessed with the wrong kind");
      (void)k1;
      (void)k2;
      return &pass->opts[i];
    }
  assert(!"no such option");
  return NULL;
}

PtoContext *pto_pass_ctx(PtoPass *pass) { return pass->ctx; }
const PtoPassDef *pto_pass_def(PtoPass *pass) { return pass->def; }
void *pto_pass_state(PtoPass *pass) { return pass->state; }

void pto_pass_mark_unchanged(PtoPass *pass) { pass->unchanged = true; }

int64_t pto_pass_option_int(PtoPass *pass, const char *name) {
  const PassOptValue *v = find_opt(pass, name, PTO_OPT_INT, PTO_OPT_INT);
  return v ? v->i : 0;
}

double pto_pass_option_float(PtoPass *pass, const char *name) {
  const PassOptValue *v = find_opt(pass, name, PTO_OPT_FLOAT, PTO_OPT_FLOAT);
  return v ? v->f : 0.0;
}

bool pto_pass_option_bool(PtoPass *pass, const char *name) {
  const PassOptValue *v = find_opt(pass, name, PTO_OPT_BOOL, PTO_OPT_BOOL);
  return v && v->b;
}

const char *pto_pass_option_str(PtoPass *pass, const char *name) {
  const PassOptValue *v = find_opt(pass, name, PTO_OPT_STRING, PTO_OPT_ENUM);
  return v && v->s ? v->s : "";
}

unsigned pto_pass_option_list(PtoPass *pass, const char *name, int64_t *out,
                              unsigned cap) {
  const PassOptValue *v =
      find_opt(pass, name, PTO_OPT_INT_LIST, PTO_OPT_INT_LIST);
  if (!v) return 0;
  for (unsigned i = 0; i < v->nlist && i < cap; i++) out[i] = v->list[i];
  return v->nlist;
}

bool pto_pass_option_is_set(PtoPass *pass, const char *name) {
  const PtoPassDef *def = pass->def;
  for (unsigned i = 0; i < def->num_options; i++)
    if (strcmp(def->options[i].name, name) == 0) return pass->opts[i].set;
  return false;
}

static int64_t *find_stat(PtoPass *pass, const char *name) {
  const PtoPassDef *def = pass->def;
  for (unsigned i = 0; i < def->num_statistics; i++)
    if (strcmp(def->statistics[i].name, name) == 0) return &pass->stats[i];
  assert(!"no such statistic");
  return NULL;
}

void pto_pass_stat_add(PtoPass *pass, const char *name, int64_t delta) {
  int64_t *s = find_stat(pass, name);
  if (s) *s += delta;
}

int64_t pto_pass_stat_get(PtoPass *pass, const char *name) {
  int64_t *s = find_stat(pass, name);
  return s ? *s : 0;
}
