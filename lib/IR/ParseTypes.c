/* The parser's types: builtin types, aliases, dialect types and MLIR's
 * opaque form for unregistered dialects. */
#include "IR/ParserInternal.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Types                                                                */
/* ------------------------------------------------------------------ */

static PtoResult parse_type(PtoParser *p, PtoType **out);

/* The 'x' between dimensions is lexed as part of an identifier
 * (`4x8xf32` lexes as `4`, `x8xf32`); split it off. */
static bool consume_x(PtoParser *p) {
  if (p->tok.kind == T_BARE_ID && p->tok.p[0] == 'x') {
    lexer_reset_to(&p->lex, p->tok.p + 1, &p->tok);
    advance(p);
    return true;
  }
  return false;
}

/* `128x64x` written without spaces is read straight from the text: the
 * token-by-token path below lexes `x64xf32` as an identifier and has to
 * back up after every 'x'. Stops (leaving the rest to that path) at
 * anything else, including what that path must diagnose. */
static unsigned scan_dims(PtoParser *p, int64_t *dims, unsigned cap,
                          bool allow_dynamic) {
  const char *s = p->tok.p, *e = p->lex.end, *resume = NULL;
  unsigned n = 0;
  while (n < cap && s < e) {
    int64_t d = 0;
    const char *q = s;
    if (*q == '?' && allow_dynamic) {
      d = PTO_DYN;
      q++;
    } else {
      while (q < e && (unsigned)(*q - '0') < 10 && d <= INT64_MAX / 20)
        d = d * 10 + (*q++ - '0');
      if (q == s || d > INT64_MAX / 2) break;
    }
    if (q >= e || *q != 'x') break;
    dims[n++] = d;
    s = resume = q + 1;
  }
  if (resume) {
    lexer_reset_to(&p->lex, resume, &p->tok);
    advance(p);
  }
  return n;
}

PtoResult pto_parser_parse_dimension_list(PtoParser *p, int64_t *dims,
                                          unsigned cap, unsigned *rank,
                                          bool allow_dynamic) {
  unsigned n = scan_dims(p, dims, cap, allow_dynamic);
  for (;;) {
    int64_t d;
    if (tok_is(p, T_QUESTION)) {
      if (!allow_dynamic)
        return pto_parser_error(p, "expected static shape");
      d = PTO_DYN;
      advance(p);
    } else if (tok_is(p, T_INTEGER)) {
      if (pto_tok_is_hex(&p->tok)) {
        /* `0x4xf32`: a zero dimension followed by 'x' */
        if (p->tok.p[0] != '0' || p->tok.p[1] != 'x')
          return pto_parser_error(p, "expected dimension");
        d = 0;
        lexer_reset_to(&p->lex, p->tok.p + 1, &p->tok);
        advance(p);
        goto got_dim;
      }
      uint64_t v;
      if (!pto_tok_uint(&p->tok, &v) || v > (uint64_t)INT64_MAX / 2)
        return pto_parser_error(p, "invalid dimension");
      d = (int64_t)v;
      advance(p);
    } else {
      break;
    }
  got_dim:
    if (n >= cap)
      return pto_parser_error(p, "too many dimensions (at most %u)", cap);
    dims[n++] = d;
    if (!consume_x(p))
      return pto_parser_error(p, "expected 'x' in dimension list");
  }
  *rank = n;
  return PTO_SUCCESS;
}

static PtoResult parse_tensor_type(PtoParser *p, PtoType **out) {
  if (expect(p, T_LESS, "'<' in tensor type")) return PTO_FAILURE;
  if (tok_is(p, T_STAR))
    return pto_parser_error(p, "unranked tensors are not supported");
  int64_t dims[MAX_RANK];
  unsigned rank;
  if (pto_parser_parse_dimension_list(p, dims, MAX_RANK, &rank, true))
    return PTO_FAILURE;
  Token et = p->tok;
  PtoType *elem;
  if (parse_type(p, &elem)) return PTO_FAILURE;
  if (elem->kind != PTO_TYPE_INTEGER && elem->kind != PTO_TYPE_INDEX &&
      elem->kind != PTO_TYPE_FLOAT && elem->kind != PTO_TYPE_DIALECT &&
      elem->kind != PTO_TYPE_OPAQUE)
    return pto_parser_error_at(p, tok_loc(p, &et), "invalid tensor element type");
  if (tok_is(p, T_COMMA))
    return pto_parser_error(p, "tensor encodings are not supported");
  if (expect(p, T_GREATER, "'>' in tensor type")) return PTO_FAILURE;
  *out = pto_type_tensor(p->ctx, dims, rank, elem);
  return PTO_SUCCESS;
}

/* ---- spelled-type cache ----
 * The same types are spelled out on almost every op of a kernel: the
 * signature `(tensor<128x64xf32>, index) -> tensor<128x64xf32>` of a generic
 * op, or its tensor types. The parser remembers the type of each such
 * spelling it has read, keyed by its text, and skips re-reading it. Only
 * spellings of builtin types on one line qualify (plain_type_end); a
 * spelling is cached only once parsing it consumed exactly that text. */

static bool is_plain_char(char c) {
  return (unsigned)(c - '0') < 10 || (unsigned)((c | 0x20) - 'a') < 26;
}

static PtoResult parse_function_type(PtoParser *p, PtoType **out);
static const char *plain_type_end(const char *s, const char *e, int depth);

/* `(t1, t2)` or `()`. */
static const char *plain_list_end(const char *s, const char *e, int depth) {
  if (++s < e && *s == ')') return s + 1;
  for (;;) {
    s = plain_type_end(s, e, depth + 1);
    if (!s || s >= e) return NULL;
    if (*s == ')') return s + 1;
    if (e - s < 2 || s[0] != ',' || s[1] != ' ') return NULL;
    s += 2;
  }
}

/* End of the plain type spelled at s, or NULL: a function type, a
 * tensor<...> of digits, '?', 'x' and a builtin element type, or a name. */
static const char *plain_type_end(const char *s, const char *e, int depth) {
  if (depth > 8 || s >= e) return NULL;
  if (*s == '(') {
    s = plain_list_end(s, e, depth);
    if (!s || e - s < 4 || memcmp(s, " -> ", 4) != 0) return NULL;
    s += 4;
    if (s < e && *s == '(') return plain_list_end(s, e, depth);
    return plain_type_end(s, e, depth + 1);
  }
  if (e - s > 7 && memcmp(s, "tensor<", 7) == 0) {
    for (s += 7; s < e && (is_plain_char(*s) || *s == '?'); s++) {
    }
    return s < e && *s == '>' ? s + 1 : NULL;
  }
  const char *b = s;
  while (s < e && is_plain_char(*s)) s++;
  return s > b ? s : NULL;
}

typedef PtoResult (*TypeParseFn)(PtoParser *p, PtoType **out);

/* Parses the type at the current token with `parse`, through the cache. */
static PtoResult cached_type(PtoParser *p, PtoType **out, TypeParseFn parse) {
  const char *start = p->tok.p, *end = plain_type_end(start, p->lex.end, 0);
  size_t len = end ? (size_t)(end - start) : 0;
  if (end) {
    PtoType *t = pto_strmap_get(&p->type_spellings, start, len);
    if (t) {
      lexer_reset_to(&p->lex, end, &p->tok);
      advance(p);
      *out = t;
      return PTO_SUCCESS;
    }
  }
  if (parse(p, out)) return PTO_FAILURE;
  if (!end || p->tok.p < end) return PTO_SUCCESS;
  for (const char *c = end; c < p->tok.p; c++)
    if (*c != ' ' && *c != '\t' && *c != '\r' && *c != '\n')
      return PTO_SUCCESS; /* read more or less than the spelling */
  /* the key is copied: the first spelling is far back in the text by the
   * time it is looked up again (a cache miss per comparison) */
  pto_strmap_put(&p->type_spellings, pto_arena_strndup(&p->persist, start, len),
                 len, *out);
  return PTO_SUCCESS;
}

static PtoResult parse_tensor_keyword_type(PtoParser *p, PtoType **out) {
  advance(p); /* 'tensor' */
  return parse_tensor_type(p, out);
}

PtoResult pto_parser_parse_type_list(PtoParser *p, PtoType ***out,
                                     unsigned *n) {
  PTO_SMALL_VEC(PtoType *, 8) v;
  pto_small_vec_init(&v);
  PtoResult r = PTO_SUCCESS;
  do {
    PtoType *t;
    if ((r = parse_type(p, &t))) break;
    pto_small_vec_push(&v, t);
  } while (consume_if(p, T_COMMA));
  if (!r) {
    *out = pto_arena_memdup(&p->tmp, v.data, v.len * sizeof(PtoType *));
    *n = v.len;
  }
  pto_small_vec_free(&v);
  return r;
}

/* `(a, b)` with possibly zero entries. */
static PtoResult parse_paren_type_list(PtoParser *p, PtoType ***out,
                                       unsigned *n) {
  if (expect(p, T_LPAREN, NULL)) return PTO_FAILURE;
  if (consume_if(p, T_RPAREN)) {
    *out = NULL;
    *n = 0;
    return PTO_SUCCESS;
  }
  if (pto_parser_parse_type_list(p, out, n)) return PTO_FAILURE;
  return expect(p, T_RPAREN, NULL);
}

PtoResult pto_parser_parse_function_result_types(PtoParser *p,
                                                 PtoType ***out,
                                                 unsigned *n) {
  if (tok_is(p, T_LPAREN)) return parse_paren_type_list(p, out, n);
  PtoType *t;
  if (parse_type(p, &t)) return PTO_FAILURE;
  *out = pto_arena_memdup(&p->tmp, &t, sizeof t);
  *n = 1;
  return PTO_SUCCESS;
}

static PtoResult parse_function_type(PtoParser *p, PtoType **out) {
  PtoType **ins, **outs;
  unsigned nin, nout;
  if (parse_paren_type_list(p, &ins, &nin)) return PTO_FAILURE;
  if (expect(p, T_ARROW, "'->' in function type")) return PTO_FAILURE;
  if (pto_parser_parse_function_result_types(p, &outs, &nout))
    return PTO_FAILURE;
  *out = pto_type_function(p->ctx, ins, nin, outs, nout);
  return PTO_SUCCESS;
}

/* Finds the '>' closing a dialect symbol body that starts at `s` (after
 * its '<'). The body must stay on one line (as MLIR's lexer requires of
 * the tokens in it) and its brackets must match, as mlir-opt checks.
 * Returns NULL with *bad at the offending character, or at the end of the
 * line or text when the body is not closed. */
static const char *body_end(const char *s, const char *e, const char **bad) {
  char closers[MAX_NESTING];
  unsigned depth = 0;
  closers[depth++] = '>';
  for (; s < e && *s != '\n'; s++) {
    char c = *s;
    if (c == '"') {
      for (s++; s < e && *s != '"' && *s != '\n'; s++)
        if (*s == '\\' && s + 1 < e && s[1] != '\n') s++;
      if (s >= e || *s == '\n') break;
    } else if (c == '-' && s + 1 < e && s[1] == '>') {
      s++;
    } else if (c == '<' || c == '(' || c == '[' || c == '{') {
      if (depth == MAX_NESTING) break;
      closers[depth++] = c == '<' ? '>' : c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (c != closers[depth - 1]) break;
      if (--depth == 0) return s;
    }
  }
  *bad = s;
  return NULL;
}

bool pto_dialect_body_is_pretty(const char *body, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)body[i];
    if ((c < 0x20 && c != '\t') || c >= 0x7f) return false;
  }
  /* it must close exactly where the printer will put the '>' */
  char *buf = pto_malloc(len + 1);
  memcpy(buf, body, len);
  buf[len] = '>';
  const char *bad;
  bool ok = body_end(buf, buf + len + 1, &bad) == buf + len;
  pto_free(buf);
  return ok;
}

static PtoResult bad_body(PtoParser *p, const char *bad, const char *end,
                          PtoLoc *loc) {
  if (bad < end && *bad && strchr("<([{", *bad)) /* body_end's depth limit */
    return pto_parser_error_at(p, loc, "nesting too deep (at most %d levels "
                                       "of regions, types, attributes and "
                                       "locations)",
                               MAX_NESTING);
  if (bad < end && *bad != '\n' && *bad != '"')
    return pto_parser_error_at(p, loc, "unbalanced '%c' in dialect type or "
                                       "attribute", *bad);
  return pto_parser_error_at(p, loc, "unbalanced '<' in dialect type or "
                                     "attribute (it must be closed on the "
                                     "same line)");
}

/* Captures a balanced `<...>` body verbatim (for unregistered dialects). */
PtoResult pto_parser_capture_angle_body(PtoParser *p, const char **body,
                                    size_t *len) {
  /* p->tok is '<' */
  const char *start = p->tok.p + 1, *bad, *e = p->lex.end;
  const char *s = body_end(start, e, &bad);
  if (!s) {
    bool at_bad = bad < e && *bad != '\n' && *bad != '"';
    return bad_body(p, bad, e,
                    at_bad ? pto_loc_file_id(p->ctx, p->file, p->tok.line,
                                             p->tok.col +
                                                 (uint32_t)(bad - p->tok.p))
                           : tok_loc(p, &p->tok));
  }
  *body = start;
  *len = (size_t)(s - start);
  /* continue lexing after the closing '>' */
  lexer_reset_to(&p->lex, s + 1, &p->tok);
  advance(p);
  return PTO_SUCCESS;
}

static PtoResult bad_dialect_symbol(PtoParser *p, const Token *t,
                                    const char *what) {
  return pto_parser_error_at(p, tok_loc(p, t), "expected '%cdialect.name' "
                                               "for a dialect %s",
                             t->p[0], what);
}

/* The `dialect` and `name` of a `!dialect.name` or `#dialect.name` token
 * (`dot` is its first '.'): the dialect an identifier, the name not empty. */
PtoResult pto_parser_split_dialect_symbol(PtoParser *p, const Token *t,
                                      const char *dot, const char *what,
                                      PtoIdent **dialect, PtoIdent **name) {
  const char *s = t->p + 1, *e = t->p + t->len;
  if (!pto_is_bare_identifier(s, (size_t)(dot - s)) || dot + 1 == e)
    return bad_dialect_symbol(p, t, what);
  *dialect = pto_ident(p->ctx, s, (size_t)(dot - s));
  *name = pto_ident(p->ctx, dot + 1, (size_t)(e - dot - 1));
  return PTO_SUCCESS;
}

/* Types and attributes (`what`) of unregistered dialects need the flag. */
PtoResult pto_parser_check_unregistered(PtoParser *p, const Token *t,
                                            const PtoIdent *dialect,
                                            const char *what) {
  if (p->ctx->allow_unregistered) return PTO_SUCCESS;
  return pto_parser_error_at(p, tok_loc(p, t),
                             "dialect '%s' is not registered; use "
                             "--allow-unregistered-dialect to accept its %ss",
                             dialect->str, what);
}

/* MLIR's opaque form `!dialect<"name<body>">` (or `#dialect<...>`), which
 * mlir-opt prints for symbols of unregistered dialects: `t` is the
 * `!dialect` token, the next one '<'. Makes an opaque type or attribute,
 * printed back as `!dialect.name<body>` when that reads back the same. */
PtoResult pto_parser_opaque_symbol(PtoParser *p, const Token *t,
                                     bool is_type, void **out) {
  const char *what = is_type ? "type" : "attribute";
  if (!pto_is_bare_identifier(t->p + 1, t->len - 1))
    return bad_dialect_symbol(p, t, what);
  PtoIdent *dialect = pto_ident(p->ctx, t->p + 1, t->len - 1);
  if (dialect->dialect)
    return pto_parser_error_at(p, tok_loc(p, t),
                               "dialect '%s' is registered: write its %ss as "
                               "%c%s.name<...>",
                               dialect->str, what, t->p[0], dialect->str);
  if (pto_parser_check_unregistered(p, t, dialect, what)) return PTO_FAILURE;
  if (expect(p, T_LESS, NULL)) return PTO_FAILURE;
  if (!tok_is(p, T_STRING))
    return pto_parser_error(p, "expected string in opaque dialect %s", what);
  Token st = p->tok;
  pto_tok_decode_string(p, &st, &p->scratch);
  advance(p);
  if (expect(p, T_GREATER, NULL)) return PTO_FAILURE;
  /* any body: the printer quotes again what cannot be written plainly */
  const char *sym = p->scratch.data;
  size_t n = p->scratch.len, name_len = 0;
  while (name_len < n && sym[name_len] != '<') name_len++;
  const char *body = name_len < n ? sym + name_len + 1 : NULL;
  /* the name is kept as a C string: a NUL in it would cut it short */
  if (name_len == 0 || memchr(sym, '\0', name_len) ||
      (body && sym[n - 1] != '>'))
    return pto_parser_error_at(p, tok_loc(p, &st),
                               "expected 'name' or 'name<body>' in opaque "
                               "dialect %s", what);
  PtoIdent *name = pto_ident(p->ctx, sym, name_len);
  size_t blen = body ? n - name_len - 2 : 0;
  if (is_type)
    *out = pto_type_opaque(p->ctx, dialect->str, name->str, body, blen);
  else
    *out = pto_attr_opaque(p->ctx, dialect->str, name->str, body, blen);
  return PTO_SUCCESS;
}

/* `!d.name<...>` or `!alias`. The token has been checked to be T_EXCL_ID. */
static PtoResult parse_dialect_type(PtoParser *p, PtoType **out) {
  Token t = p->tok;
  const char *s = t.p + 1;
  size_t n = t.len - 1;
  const char *dot = memchr(s, '.', n);
  PtoType *alias = pto_strmap_get(&p->type_aliases, s, n);
  if (alias) {
    advance(p);
    *out = alias;
    return PTO_SUCCESS;
  }
  if (!dot) {
    advance(p);
    if (!tok_is(p, T_LESS))
      return pto_parser_error_at(p, tok_loc(p, &t), "undefined symbol alias id '%.*s'",
                                 (int)n, s);
    return pto_parser_opaque_symbol(p, &t, true, (void **)out);
  }
  PtoIdent *dialect, *mnem;
  if (pto_parser_split_dialect_symbol(p, &t, dot, "type", &dialect, &mnem))
    return PTO_FAILURE;
  advance(p);
  const PtoDialectDef *d = dialect->dialect;
  if (d && d->parse_type) {
    if (enter_nested(p)) return PTO_FAILURE;
    PtoType *ty = d->parse_type(p, mnem->str);
    leave_nested(p);
    if (!ty) {
      if (!p->failed)
        pto_parser_error_at(p, tok_loc(p, &t), "invalid '%s' type", mnem->str);
      return PTO_FAILURE;
    }
    *out = ty;
    return PTO_SUCCESS;
  }
  if (d)
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "dialect '%s' provides no type '%s'",
                               dialect->str, mnem->str);
  if (pto_parser_check_unregistered(p, &t, dialect, "type")) return PTO_FAILURE;
  const char *body = NULL;
  size_t blen = 0;
  if (tok_is(p, T_LESS) && pto_parser_capture_angle_body(p, &body, &blen))
    return PTO_FAILURE;
  *out = pto_type_opaque(p->ctx, dialect->str, mnem->str, body, blen);
  return PTO_SUCCESS;
}

static PtoResult parse_type_impl(PtoParser *p, PtoType **out) {
  switch (p->tok.kind) {
  case T_LPAREN:
    return cached_type(p, out, parse_function_type);
  case T_EXCL_ID:
    return parse_dialect_type(p, out);
  case T_BARE_ID: {
    const char *s = p->tok.p;
    unsigned n = p->tok.len;
    PtoContext *ctx = p->ctx;
    PtoType *t = NULL;
    if (n == 5 && memcmp(s, "index", 5) == 0) t = ctx->t_index;
    else if (n == 3 && memcmp(s, "f16", 3) == 0) t = ctx->t_float[PTO_F16];
    else if (n == 4 && memcmp(s, "bf16", 4) == 0) t = ctx->t_float[PTO_BF16];
    else if (n == 3 && memcmp(s, "f32", 3) == 0) t = ctx->t_float[PTO_F32];
    else if (n == 3 && memcmp(s, "f64", 3) == 0) t = ctx->t_float[PTO_F64];
    else if (n == 8 && memcmp(s, "f8E4M3FN", 8) == 0) t = ctx->t_float[PTO_F8E4M3FN];
    else if (n == 6 && memcmp(s, "f8E5M2", 6) == 0) t = ctx->t_float[PTO_F8E5M2];
    else if (n == 9 && memcmp(s, "f8E8M0FNU", 9) == 0) t = ctx->t_float[PTO_F8E8M0FNU];
    else if (n == 4 && memcmp(s, "none", 4) == 0) t = ctx->t_none;
    else if (n == 6 && memcmp(s, "tensor", 6) == 0) {
      return cached_type(p, out, parse_tensor_keyword_type);
    } else {
      PtoSignedness sg = PTO_SIGNLESS;
      const char *d = s;
      if (n > 2 && s[0] == 's' && s[1] == 'i') sg = PTO_SIGNED, d = s + 2;
      else if (n > 2 && s[0] == 'u' && s[1] == 'i') sg = PTO_UNSIGNED, d = s + 2;
      else if (n > 1 && s[0] == 'i') d = s + 1;
      else d = NULL;
      if (d && d < s + n) {
        bool digits = true;
        unsigned w = 0;
        for (const char *c = d; c < s + n; c++) {
          if (!isdigit((unsigned char)*c)) {
            digits = false;
            break;
          }
          if (w < 100000) w = w * 10 + (unsigned)(*c - '0');
        }
        if (digits) {
          if (w == 0 || w > 64)
            return pto_parser_error(
                p, "integer bitwidth %u is not supported (1 to 64)", w);
          t = pto_type_int_signed(ctx, w, sg);
        }
      }
    }
    if (!t) {
      static const char *known[] = {"vector", "memref", "tuple", "complex"};
      for (unsigned i = 0; i < 4; i++)
        if (strlen(known[i]) == n && memcmp(s, known[i], n) == 0)
          return pto_parser_error(p, "'%s' types are not supported", known[i]);
      return pto_parser_error(p, "expected non-function type");
    }
    advance(p);
    *out = t;
    return PTO_SUCCESS;
  }
  default:
    return pto_parser_error(p, "expected type");
  }
}

/* Every recursive path through types (function types, tensor elements,
 * dialect type parameters) comes back here, so the depth guard against
 * stack exhaustion lives here. */
static PtoResult parse_type(PtoParser *p, PtoType **out) {
  if (enter_nested(p)) return PTO_FAILURE;
  PtoResult r = parse_type_impl(p, out);
  leave_nested(p);
  return r;
}

PtoResult pto_parser_parse_type(PtoParser *p, PtoType **out) {
  return parse_type(p, out);
}

PtoResult pto_parser_parse_colon_type(PtoParser *p, PtoType **out) {
  if (expect(p, T_COLON, NULL)) return PTO_FAILURE;
  return pto_parser_parse_type(p, out);
}
