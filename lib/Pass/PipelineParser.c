/* The textual pass pipeline, in MLIR's grammar:
 *   pipeline ::= element (',' element)*
 *   element  ::= op-name '(' pipeline? ')'      nested pass manager
 *              | pass-name ('{' options '}')?   pass or named pipeline
 * Errors are reported at the offending character of the text (registered as
 * a diagnostic source, so the text is shown with a caret). */
#include "Pass/PassInternal.h"

#include <stdio.h>
#include <string.h>

/* Nested pass managers: as deep as IR the parser accepts can nest (its
 * limit), and a bound on the recursion of this parser. */
enum { MAX_PIPELINE_NESTING = 256 };

typedef struct PP {
  PtoContext *ctx;
  PtoTextSrc src;
  const char *s;
  size_t n, i;
  const NamedPipeline *expanding; /* named pipeline this text comes from */
  const struct PP *outer;         /* the text that used it */
  unsigned depth;                 /* nested '(' open around pp->i */
  PassInherit *inherit;           /* the options of `expanding`, or NULL */
} PP;

static PtoLoc *at(const PP *pp, size_t off) {
  return pto_text_src_loc(&pp->src, off);
}

static void skip_ws(PP *pp) {
  while (pp->i < pp->n && (pp->s[pp->i] == ' ' || pp->s[pp->i] == '\t' ||
                           pp->s[pp->i] == '\n' || pp->s[pp->i] == '\r'))
    pp->i++;
}

static int peek(const PP *pp) {
  return pp->i < pp->n ? (unsigned char)pp->s[pp->i] : -1;
}

static bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

static PtoResult error_with_note(PP *pp, size_t off, size_t note_off,
                                 const char *note, const char *fmt,
                                 const char *name) {
  PtoDiag *d = pto_diag_begin(pp->ctx, PTO_DIAG_ERROR, at(pp, off));
  pto_diag_printf(d, fmt, name);
  if (note) pto_diag_note(d, at(pp, note_off), "%s", note);
  return pto_diag_emit(d);
}

static PtoResult parse_list(PP *pp, PtoPassManager *pm, bool nested,
                            const char *anchor);

/* Finds the '}' closing the '{' at pp->i, skipping quoted strings and
 * nested braces. On failure *quote is the offset of an unterminated quote,
 * or pp->n when the brace itself is not closed. */
static bool find_close_brace(const PP *pp, size_t *close, size_t *quote) {
  unsigned depth = 0;
  *quote = pp->n;
  for (size_t i = pp->i; i < pp->n; i++) {
    char c = pp->s[i];
    if (c == '"' || c == '\'') {
      size_t j = pto_pass_text_closing_quote(pp->s, pp->n, i);
      if (j == pp->n) {
        *quote = i;
        return false;
      }
      i = j;
    } else if (c == '{') {
      depth++;
    } else if (c == '}' && --depth == 0) {
      *close = i;
      return true;
    }
  }
  return false;
}

typedef struct OptKey {
  const char *s;
  size_t n;
} OptKey;

typedef struct PipelineOptsCtx {
  PP *pp;
  PassInherit *inh;
  const NamedPipeline *np;
  unsigned item;
  PTO_VEC(OptKey) keys; /* the option names seen so far */
} PipelineOptsCtx;

/* An option given twice to a named pipeline, as a pass's own options may
 * not be: reported at the second. Counts the options as it goes. */
static int report_duplicate(void *user, const char *key, size_t klen,
                            size_t off) {
  PipelineOptsCtx *c = user;
  c->item++;
  if (!klen) return 0; /* a missing name is reported by the passes */
  pto_vec_foreach(&c->keys, k) {
    if (k->n != klen || memcmp(k->s, key, klen)) continue;
    pto_emit_error(c->pp->ctx, at(c->pp, c->inh->offset + off),
                   "option '%.*s' of pass pipeline '%s' is given more than "
                   "once",
                   (int)klen, key, c->np->argument);
    return 1;
  }
  pto_vec_push(&c->keys, ((OptKey){key, klen}));
  return 0;
}

/* An option of a named pipeline that none of its passes declares. */
static int report_unused(void *user, const char *key, size_t klen, size_t off) {
  PipelineOptsCtx *c = user;
  if (c->inh->used.data[c->item++]) return 0;
  PtoDiag *d = pto_diag_begin(c->pp->ctx, PTO_DIAG_ERROR,
                              at(c->pp, c->inh->offset + off));
  pto_diag_printf(d, "pass pipeline '%s' has no option '%.*s': none of its passes takes it",
                  c->np->argument, (int)klen, key);
  PtoSuggest sg;
  pto_suggest_init(&sg, key, klen);
  pto_vec_foreach(&c->inh->names, n) pto_suggest_offer(&sg, *n);
  if (sg.best) pto_diag_printf(d, "; did you mean '%s'?", sg.best);
  pto_diag_emit(d);
  return 1;
}

/* Expands the named pipeline `np` used at `use_off`; `inherit` holds the
 * options it was given there (or those of the pipeline it is part of). */
static PtoResult expand_pipeline(PP *pp, PtoPassManager *pm,
                                 const NamedPipeline *np, size_t use_off,
                                 PassInherit *inherit) {
  for (const PP *o = pp; o; o = o->outer)
    if (o->expanding == np)
      return pto_emit_error(pp->ctx, at(pp, use_off),
                            "pass pipeline '%s' refers to itself",
                            np->argument);
  char name[160];
  snprintf(name, sizeof name, "<pipeline '%s'>", np->argument);
  PP sub = {pp->ctx, {0}, np->text, strlen(np->text), 0, np, pp, pp->depth, inherit};
  pto_text_src_init(&sub.src, pp->ctx, name, sub.s, sub.n);
  PtoResult r = parse_list(&sub, pm, false, NULL);
  if (r) {
    PtoDiag *d = pto_diag_begin(pp->ctx, PTO_DIAG_NOTE, at(pp, use_off));
    pto_diag_printf(d, "in pass pipeline '%s' used here", np->argument);
    pto_diag_emit(d);
  }
  return r;
}

static PtoResult parse_element(PP *pp, PtoPassManager *pm) {
  PtoContext *ctx = pp->ctx;
  size_t start = pp->i;
  while (pp->i < pp->n && name_char(pp->s[pp->i])) pp->i++;
  size_t len = pp->i - start;
  const char *name = pp->s + start;
  if (!len)
    return pto_emit_error(ctx, at(pp, start),
                          "expected a pass or pipeline name");
  char buf[256];
  snprintf(buf, sizeof buf, "%.*s", (int)len, name);
  const RegEntry *e = pto_pass_registry_find(ctx, name, len);
  skip_ws(pp);
  if (peek(pp) == '(') {
    size_t open = pp->i++;
    if (e)
      return pto_emit_error(ctx, at(pp, start),
                            "'%s' is a %s, not an operation: only operation "
                            "names (such as 'func.func') take a nested "
                            "pipeline in parentheses",
                            buf, e->pass ? "pass" : "pass pipeline");
    bool any = len == 3 && memcmp(name, "any", 3) == 0;
    if (!any && !memchr(name, '.', len))
      return pto_emit_error(ctx, at(pp, start),
                            "'%s' is not an operation name: nested pipelines "
                            "are anchored on operations such as 'func.func'",
                            buf);
    if (!any && !pto_ctx_lookup_op(ctx, buf) &&
        !pto_ctx_get_allow_unregistered(ctx)) {
      const char *hint = pto_ctx_suggest_op(ctx, buf);
      PtoDiag *d = pto_diag_begin(ctx, PTO_DIAG_ERROR, at(pp, start));
      pto_diag_printf(d,
                      "'%s' is not a registered operation; a nested "
                      "pipeline runs on the operations of that name",
                      buf);
      if (hint) pto_diag_printf(d, "; did you mean '%s'?", hint);
      return pto_diag_emit(d);
    }
    if (pp->depth >= MAX_PIPELINE_NESTING)
      return pto_emit_error(ctx, at(pp, open),
                            "pass pipeline nested too deeply (at most %d "
                            "levels)",
                            MAX_PIPELINE_NESTING);
    PtoPassManager *nested = pto_pm_nest(pm, buf);
    pp->depth++;
    PtoResult r = parse_list(pp, nested, true, buf);
    pp->depth--;
    if (r) return PTO_FAILURE;
    pp->i++; /* ')' */
    return PTO_SUCCESS;
  }
  if (!e) {
    const char *hint = pto_pass_registry_suggest(ctx, name, len);
    PtoDiag *d = pto_diag_begin(ctx, PTO_DIAG_ERROR, at(pp, start));
    pto_diag_printf(d,
                    "'%s' does not refer to a registered pass or pass pipeline",
                    buf);
    if (hint) pto_diag_printf(d, "; did you mean '%s'?", hint);
    return pto_diag_emit(d);
  }
  const char *opts = NULL;
  size_t olen = 0, ooff = 0;
  if (peek(pp) == '{') {
    size_t close, quote;
    size_t open = pp->i;
    if (!find_close_brace(pp, &close, &quote)) {
      if (quote < pp->n)
        return error_with_note(pp, pp->n, quote, "the string starts here",
                               "missing the closing quote of a string in the "
                               "options of '%s'",
                               buf);
      return error_with_note(pp, pp->n, open, "'{' opened here",
                             "missing '}' to close the options of '%s'", buf);
    }
    opts = pp->s + open + 1;
    ooff = open + 1;
    olen = close - open - 1;
    pp->i = close + 1;
  }
  if (e->pipeline) {
    /* options given here replace those of an enclosing pipeline */
    if (!opts) return expand_pipeline(pp, pm, e->pipeline, start, pp->inherit);
    PassInherit inh = {opts, olen, &pp->src, ooff, {0}, {0}};
    PipelineOptsCtx c = {pp, &inh, e->pipeline, 0, {0}};
    PtoResult r = pto_pass_options_each(opts, olen, report_duplicate, &c)
                      ? PTO_FAILURE
                      : PTO_SUCCESS;
    pto_vec_free(&c.keys);
    if (!r) {
      pto_vec_resize(&inh.used, c.item);
      if (c.item) memset(inh.used.data, 0, c.item * sizeof *inh.used.data);
      r = expand_pipeline(pp, pm, e->pipeline, start, &inh);
    }
    c.item = 0;
    if (!r && pto_pass_options_each(opts, olen, report_unused, &c)) r = PTO_FAILURE;
    pto_vec_free(&inh.used);
    pto_vec_free(&inh.names);
    return r;
  }
  PtoPass *pass = pto_pass_create(ctx, e->pass, opts, olen, &pp->src, ooff,
                                  at(pp, start), pp->inherit);
  if (!pass) return PTO_FAILURE;
  return pto_pm_add_pass_instance(pm, pass, at(pp, start));
}

/* Parses elements until ')' (nested) or the end of the text. On success
 * pp->i is at the ')' or the end. */
static PtoResult parse_list(PP *pp, PtoPassManager *pm, bool nested,
                            const char *anchor) {
  size_t open = pp->i ? pp->i - 1 : 0; /* the '(' of a nested list */
  skip_ws(pp);
  if (nested ? peek(pp) == ')' : peek(pp) < 0) return PTO_SUCCESS;
  for (;;) {
    skip_ws(pp);
    size_t start = pp->i;
    if (parse_element(pp, pm)) return PTO_FAILURE;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(pp->i - start), pp->s + start);
    char *brace = strpbrk(name, "{( \t\n");
    if (brace) *brace = 0;
    skip_ws(pp);
    int c = peek(pp);
    if (c == ',') {
      pp->i++;
      continue;
    }
    if (nested && c == ')') return PTO_SUCCESS;
    if (!nested && c < 0) return PTO_SUCCESS;
    if (nested && c < 0)
      return error_with_note(pp, pp->i, open, "'(' opened here",
                             "missing ')' to close the pipeline of '%s'",
                             anchor);
    if (!nested && c == ')')
      return pto_emit_error(pp->ctx, at(pp, pp->i),
                            "unexpected ')' without a matching '('");
    return pto_emit_error(pp->ctx, at(pp, pp->i),
                          nested ? "expected ',' or ')' after '%s'"
                                 : "expected ',' or the end of the pipeline "
                                   "after '%s'",
                          name);
  }
}

PtoResult pto_pipeline_parse(PtoPassManager *pm, const char *text, size_t len) {
  PP pp = {pm->ctx, {0}, text, len, 0, NULL, NULL, 0, NULL};
  pto_text_src_init(&pp.src, pm->ctx, "<pass-pipeline>", text, len);
  /* `anchor(...)` around the whole text names the manager's own op */
  skip_ws(&pp);
  size_t start = pp.i;
  while (pp.i < pp.n && name_char(pp.s[pp.i])) pp.i++;
  const char *anchor = pto_ident_str(pm->anchor);
  /* `any(...)` around the whole text, as in MLIR, runs on the root op */
  if (pp.i - start == 3 && strncmp(text + start, "any", 3) == 0) anchor = "any";
  bool wrapped = pp.i - start == strlen(anchor) &&
                 strncmp(text + start, anchor, pp.i - start) == 0;
  if (wrapped) {
    skip_ws(&pp);
    wrapped = peek(&pp) == '(';
  }
  if (!wrapped) {
    pp.i = 0;
    return parse_list(&pp, pm, false, NULL);
  }
  pp.i++;
  if (parse_list(&pp, pm, true, anchor)) return PTO_FAILURE;
  pp.i++;
  skip_ws(&pp);
  if (pp.i < pp.n)
    return pto_emit_error(pm->ctx, at(&pp, pp.i),
                          "unexpected text after the pipeline of '%s'", anchor);
  return PTO_SUCCESS;
}

PtoResult pto_pm_add_pipeline(PtoPassManager *pm, const char *text) {
  PtoPassManager *tmp = pto_pm_create(pm->ctx, pto_ident_str(pm->anchor));
  if (pto_pipeline_parse(tmp, text, strlen(text))) {
    pto_pm_destroy(tmp);
    return PTO_FAILURE;
  }
  pto_pm_append_all(pm, tmp);
  return PTO_SUCCESS;
}

PtoResult pto_pm_add_pass(PtoPassManager *pm, const char *argument,
                          const char *options) {
  PtoContext *ctx = pm->ctx;
  const RegEntry *e = pto_pass_registry_find(ctx, argument, strlen(argument));
  if (!e) {
    const char *hint =
        pto_pass_registry_suggest(ctx, argument, strlen(argument));
    PtoDiag *d = pto_diag_begin(ctx, PTO_DIAG_ERROR, NULL);
    pto_diag_printf(d,
                    "'%s' does not refer to a registered pass or pass pipeline",
                    argument);
    if (hint) pto_diag_printf(d, "; did you mean '%s'?", hint);
    return pto_diag_emit(d);
  }
  if (e->pipeline) {
    if (!options || !*options) return pto_pm_add_pipeline(pm, e->pipeline->text);
    char *text = pto_str_format("%s{%s}", argument, options);
    PtoResult r = pto_pm_add_pipeline(pm, text);
    pto_free(text);
    return r;
  }
  PtoTextSrc src;
  size_t olen = options ? strlen(options) : 0;
  pto_text_src_init(&src, ctx, "<pass-options>", options ? options : "", olen);
  PtoPass *pass = pto_pass_create(ctx, e->pass, options, olen, &src, 0, NULL, NULL);
  if (!pass) return PTO_FAILURE;
  return pto_pm_add_pass_instance(pm, pass, NULL);
}
