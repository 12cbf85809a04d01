/* Recursive-descent parser for the textual IR: MLIR's generic form, plus
 * custom op forms through each op's parse hook. Stops at the first error,
 * reports it with a location, and tears down everything it built. This file
 * holds tokens, literals, SSA names, regions, ops and the top level; types
 * and attributes are in ParseTypes.c and ParseAttributes.c. */
#include "IR/ParserInternal.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Tokens and errors                                                    */
/* ------------------------------------------------------------------ */



PtoContext *pto_parser_ctx(PtoParser *p) { return p->ctx; }
PtoLoc *pto_parser_loc(PtoParser *p) { return tok_loc(p, &p->tok); }
PtoParserPos pto_parser_pos(PtoParser *p) {
  return (PtoParserPos){p->tok.line, p->tok.col};
}
PtoLoc *pto_parser_pos_loc(PtoParser *p, PtoParserPos pos) {
  return pos_loc(p, pos.line, pos.col);
}
PtoLoc *pto_parser_operand_loc(PtoParser *p, const PtoUnresolvedOperand *u) {
  return pos_loc(p, u->line, u->col);
}
unsigned pto_parser_num_results(PtoParser *p) { return p->num_results; }

static PtoResult verror_at(PtoParser *p, PtoLoc *loc, const char *fmt,
                           va_list ap) {
  if (p->failed) return PTO_FAILURE; /* report only the first error */
  p->failed = true;
  PtoDiag *d = pto_diag_begin(p->ctx, PTO_DIAG_ERROR, loc);
  pto_diag_vprintf(d, fmt, ap);
  return pto_diag_emit(d);
}

PtoResult pto_parser_error_at(PtoParser *p, PtoLoc *loc, const char *fmt,
                              ...) {
  va_list ap;
  va_start(ap, fmt);
  verror_at(p, loc, fmt, ap);
  va_end(ap);
  return PTO_FAILURE;
}

PtoResult pto_parser_error(PtoParser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  /* lexer errors take precedence: they explain the odd token */
  if (p->tok.kind == T_ERROR && !p->failed) {
    va_end(ap);
    return pto_parser_error_at(p, tok_loc(p, &p->tok), "%s", p->tok.err);
  }
  /* What is missing at the end of the input is reported right after the
   * last token, on its line, rather than past the end. */
  PtoLoc *loc = tok_loc(p, &p->tok);
  if (p->tok.kind == T_EOF && p->prev.kind != T_EOF)
    loc = pto_loc_file_id(p->ctx, p->file, p->prev.line,
                          p->prev.col + p->prev.len);
  verror_at(p, loc, fmt, ap);
  va_end(ap);
  return PTO_FAILURE;
}



static const char *punct_spelling(TokKind k) {
  switch (k) {
  case T_COMMA: return "','";
  case T_COLON: return "':'";
  case T_EQUAL: return "'='";
  case T_ARROW: return "'->'";
  case T_LPAREN: return "'('";
  case T_RPAREN: return "')'";
  case T_LSQUARE: return "'['";
  case T_RSQUARE: return "']'";
  case T_LBRACE: return "'{'";
  case T_RBRACE: return "'}'";
  case T_LESS: return "'<'";
  case T_GREATER: return "'>'";
  case T_QUESTION: return "'?'";
  case T_STAR: return "'*'";
  case T_PLUS: return "'+'";
  case T_MINUS: return "'-'";
  case T_VBAR: return "'|'";
  default: return "token";
  }
}


PtoResult pto_parser_expected(PtoParser *p, TokKind k, const char *what) {
  if (what) return pto_parser_error(p, "expected %s", what);
  return pto_parser_error(p, "expected %s", punct_spelling(k));
}

static const TokKind punct_map[] = {
    [PTO_P_COMMA] = T_COMMA,       [PTO_P_COLON] = T_COLON,
    [PTO_P_EQUAL] = T_EQUAL,       [PTO_P_ARROW] = T_ARROW,
    [PTO_P_LPAREN] = T_LPAREN,     [PTO_P_RPAREN] = T_RPAREN,
    [PTO_P_LSQUARE] = T_LSQUARE,   [PTO_P_RSQUARE] = T_RSQUARE,
    [PTO_P_LBRACE] = T_LBRACE,     [PTO_P_RBRACE] = T_RBRACE,
    [PTO_P_LESS] = T_LESS,         [PTO_P_GREATER] = T_GREATER,
    [PTO_P_QUESTION] = T_QUESTION, [PTO_P_STAR] = T_STAR,
    [PTO_P_PLUS] = T_PLUS,         [PTO_P_MINUS] = T_MINUS,
    [PTO_P_VBAR] = T_VBAR,
};

PtoResult pto_parser_parse_punct(PtoParser *p, PtoPunct k) {
  return expect(p, punct_map[k], NULL);
}
bool pto_parser_optional_punct(PtoParser *p, PtoPunct k) {
  return consume_if(p, punct_map[k]);
}

PtoResult pto_parser_parse_keyword(PtoParser *p, const char *kw) {
  if (tok_is_kw(p, kw)) {
    advance(p);
    return PTO_SUCCESS;
  }
  return pto_parser_error(p, "expected '%s'", kw);
}
bool pto_parser_optional_keyword(PtoParser *p, const char *kw) {
  if (!tok_is_kw(p, kw)) return false;
  advance(p);
  return true;
}
bool pto_parser_optional_any_keyword(PtoParser *p, PtoIdent **out) {
  if (p->tok.kind != T_BARE_ID) return false;
  *out = pto_ident(p->ctx, p->tok.p, p->tok.len);
  advance(p);
  return true;
}
PtoResult pto_parser_parse_any_keyword(PtoParser *p, PtoIdent **out) {
  if (pto_parser_optional_any_keyword(p, out)) return PTO_SUCCESS;
  return pto_parser_error(p, "expected keyword");
}
/* ------------------------------------------------------------------ */
/* Literals                                                             */
/* ------------------------------------------------------------------ */

/* Parses the integer token's spelling (decimal or hex) into an unsigned
 * magnitude; false on overflow. */
bool pto_tok_uint(const Token *t, uint64_t *out) {
  const char *s = t->p, *e = t->p + t->len;
  uint64_t v = 0;
  if (t->len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (s += 2; s < e; s++) {
      unsigned d = isdigit((unsigned char)*s) ? (unsigned)(*s - '0')
                                              : (unsigned)(tolower(*s) - 'a' + 10);
      if (v >> 60) return false;
      v = v * 16 + d;
    }
  } else {
    for (; s < e; s++) {
      unsigned d = (unsigned)(*s - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
  }
  *out = v;
  return true;
}

bool pto_tok_is_hex(const Token *t) {
  return t->len > 2 && t->p[0] == '0' && (t->p[1] == 'x' || t->p[1] == 'X');
}

bool pto_parser_optional_integer(PtoParser *p, int64_t *out,
                                 PtoResult *status) {
  *status = PTO_SUCCESS;
  bool neg = false;
  if (tok_is(p, T_MINUS)) {
    Lexer save = p->lex;
    Token t = lexer_next(&p->lex);
    p->lex = save;
    if (t.kind != T_INTEGER) return false;
    neg = true;
    advance(p);
  } else if (!tok_is(p, T_INTEGER)) {
    return false;
  }
  uint64_t v;
  if (!pto_tok_uint(&p->tok, &v) || v > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
    *status = pto_parser_error(p, "integer value too large");
    return true;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  advance(p);
  return true;
}

PtoResult pto_parser_parse_integer(PtoParser *p, int64_t *out) {
  PtoResult st;
  if (pto_parser_optional_integer(p, out, &st)) return st;
  return pto_parser_error(p, "expected integer value");
}

#if FLT_EVAL_METHOD == 0
/* Decimal literals of at most 15 significant digits times 10^-22..10^22
 * are exact with one IEEE multiplication or division: both operands are
 * exact doubles, so the one rounding gives the correctly rounded value,
 * as strtod does (Clinger's fast path). Others go to strtod. */
static bool fast_decimal(const char *s, const char *e, double *out) {
  static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                 1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
                                 1e18, 1e19, 1e20, 1e21, 1e22};
  uint64_t m = 0;
  int digits = 0, exp10 = 0;
  bool frac = false;
  for (; s < e; s++) {
    if (*s == '.' && !frac) {
      frac = true;
      continue;
    }
    if ((unsigned)(*s - '0') >= 10) break;
    if ((m || *s != '0') && ++digits > 15) return false;
    m = m * 10 + (uint64_t)(*s - '0');
    exp10 -= frac;
  }
  if (s < e && (*s == 'e' || *s == 'E')) {
    bool neg = ++s < e && *s == '-';
    if (s < e && (*s == '-' || *s == '+')) s++;
    int x = 0;
    for (; s < e && (unsigned)(*s - '0') < 10 && x < 1000; s++)
      x = x * 10 + (*s - '0');
    exp10 += neg ? -x : x;
  }
  if (s != e || exp10 < -22 || exp10 > 22) return false;
  *out = exp10 < 0 ? (double)m / pow10[-exp10] : (double)m * pow10[exp10];
  return true;
}
#else
static bool fast_decimal(const char *s, const char *e, double *out) {
  return false;
}
#endif

double pto_tok_double(const Token *t) {
  double v;
  if (fast_decimal(t->p, t->p + t->len, &v)) return v;
  /* strtod needs a terminated copy; long literals (many digits) too */
  char small[128];
  char *buf = t->len < sizeof small ? small : pto_malloc(t->len + 1);
  memcpy(buf, t->p, t->len);
  buf[t->len] = 0;
  v = strtod(buf, NULL);
  if (buf != small) pto_free(buf);
  return v;
}

PtoResult pto_parser_parse_float(PtoParser *p, double *out) {
  bool neg = consume_if(p, T_MINUS);
  if (tok_is(p, T_FLOAT) || tok_is(p, T_INTEGER)) {
    double v = pto_tok_double(&p->tok);
    *out = neg ? -v : v;
    advance(p);
    return PTO_SUCCESS;
  }
  return pto_parser_error(p, "expected floating point literal");
}

/* Decodes a string token's contents into the parser's scratch string. */
void pto_tok_decode_string(PtoParser *p, const Token *t, PtoStr *out) {
  const char *s = t->p, *e = t->p + t->len;
  while (s < e && *s != '"') s++; /* skip the '@' of quoted symbols */
  s++;
  e--; /* closing quote */
  out->len = 0;
  if (!out->data) pto_str_reserve_(out, 16);
  out->data[0] = 0;
  while (s < e) {
    char c = *s++;
    if (c != '\\') {
      pto_str_putc(out, c);
      continue;
    }
    char x = *s++;
    switch (x) {
    case 'n': pto_str_putc(out, '\n'); break;
    case 't': pto_str_putc(out, '\t'); break;
    case '"': pto_str_putc(out, '"'); break;
    case '\\': pto_str_putc(out, '\\'); break;
    default: {
      char hx[3] = {x, *s++, 0};
      pto_str_putc(out, (char)strtol(hx, NULL, 16));
    }
    }
  }
}

PtoResult pto_parser_parse_string(PtoParser *p, char **out, size_t *len) {
  if (!tok_is(p, T_STRING)) return pto_parser_error(p, "expected string");
  pto_tok_decode_string(p, &p->tok, &p->scratch);
  *out = pto_arena_strndup(&p->tmp, p->scratch.data, p->scratch.len);
  *len = p->scratch.len;
  advance(p);
  return PTO_SUCCESS;
}

PtoIdent *pto_tok_symbol_ident(PtoParser *p, const Token *t) {
  if (t->len > 1 && t->p[1] == '"') {
    pto_tok_decode_string(p, t, &p->scratch);
    return pto_ident(p->ctx, p->scratch.data, p->scratch.len);
  }
  return pto_ident(p->ctx, t->p + 1, t->len - 1);
}

bool pto_parser_optional_symbol_name(PtoParser *p, PtoIdent **out,
                                     PtoResult *status) {
  *status = PTO_SUCCESS;
  if (!tok_is(p, T_AT_ID)) return false;
  *out = pto_tok_symbol_ident(p, &p->tok);
  advance(p);
  return true;
}

PtoResult pto_parser_parse_symbol_name(PtoParser *p, PtoIdent **out) {
  PtoResult st;
  if (pto_parser_optional_symbol_name(p, out, &st)) return st;
  return pto_parser_error(p, "expected valid '@'-identifier for symbol name");
}

/* ------------------------------------------------------------------ */
/* SSA names                                                            */
/* ------------------------------------------------------------------ */

static IsoScope *cur_iso(PtoParser *p) { return &pto_vec_last(&p->iso); }

static void push_iso(PtoParser *p) {
  IsoScope s;
  memset(&s, 0, sizeof s);
  pto_ptrmap_init(&s.names);
  pto_vec_push(&p->iso, s);
}

/* Pops an isolated scope; unresolved forward references are errors. */
static PtoResult pop_iso(PtoParser *p) {
  IsoScope *s = cur_iso(p);
  PtoResult r = PTO_SUCCESS;
  if (s->num_fwd && !p->failed) {
    /* report the first (by position) unresolved name */
    const PtoIdent *best = NULL;
    unsigned bl = UINT32_MAX, bc = UINT32_MAX;
    uint64_t key;
    void *val;
    for (uint32_t it = 0; pto_ptrmap_next(&s->names, &it, &key, &val);) {
      if (!is_fwd(val)) continue;
      Forward *f = as_fwd(val);
      if (f->line < bl || (f->line == bl && f->col < bc))
        bl = f->line, bc = f->col, best = (const PtoIdent *)(uintptr_t)key;
    }
    if (best)
      r = pto_parser_error_at(p, pos_loc(p, bl, bc),
                              "use of undeclared SSA value name '%%%s'",
                              best->str);
  } else if (s->num_fwd) {
    r = PTO_FAILURE;
  }
  pto_ptrmap_release(&s->names);
  pto_vec_free(&s->defs);
  p->iso.len--;
  return r;
}

/* A forward-referenced value: shaped as a block argument without a block,
 * so that nothing mistakes it for an op result. */
static PtoValue *new_placeholder(PtoParser *p, PtoType *t) {
  PtoBlockArg *a = pto_arena_zalloc(&p->persist, sizeof *a);
  a->v.type = t;
  a->v.is_arg = 1;
  return &a->v;
}

PtoResult pto_parser_parse_operand(PtoParser *p, PtoUnresolvedOperand *out) {
  if (!tok_is(p, T_PERCENT_ID)) return pto_parser_error(p, "expected SSA operand");
  out->line = p->tok.line;
  out->col = p->tok.col;
  out->name = pto_ident(p->ctx, p->tok.p + 1, p->tok.len - 1);
  out->number = 0;
  advance(p);
  if (tok_is(p, T_HASH_ID)) {
    const char *s = p->tok.p + 1;
    unsigned n = p->tok.len - 1;
    uint64_t v = 0;
    bool ok = n > 0 && n < 10;
    for (unsigned i = 0; ok && i < n; i++) {
      if (!isdigit((unsigned char)s[i])) ok = false;
      else v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (!ok) return pto_parser_error(p, "invalid SSA value result number");
    out->number = (unsigned)v;
    advance(p);
  }
  return PTO_SUCCESS;
}

bool pto_parser_optional_operand(PtoParser *p, PtoUnresolvedOperand *out,
                                 PtoResult *status) {
  *status = PTO_SUCCESS;
  if (!tok_is(p, T_PERCENT_ID)) return false;
  *status = pto_parser_parse_operand(p, out);
  return true;
}

PtoResult pto_parser_parse_operand_list(PtoParser *p,
                                        PtoUnresolvedOperand **out,
                                        unsigned *n) {
  PTO_SMALL_VEC(PtoUnresolvedOperand, 8) v;
  pto_small_vec_init(&v);
  PtoResult r = PTO_SUCCESS;
  if (tok_is(p, T_PERCENT_ID)) {
    do {
      PtoUnresolvedOperand u;
      if ((r = pto_parser_parse_operand(p, &u))) break;
      pto_small_vec_push(&v, u);
    } while (consume_if(p, T_COMMA));
  }
  if (!r) {
    *out = pto_arena_memdup(&p->tmp, v.data, v.len * sizeof *v.data);
    *n = v.len;
  }
  pto_small_vec_free(&v);
  return r;
}

static PtoValue *lookup_value(PtoParser *p, const PtoUnresolvedOperand *u,
                              PtoType *type) {
  IsoScope *s = cur_iso(p);
  const char *name = u->name->str;
  void **e = pto_ptrmap_find(&s->names, (uintptr_t)u->name);
  if (e && !is_fwd(*e)) {
    PtoValue *first = *e;
    uint32_t count = first->scratch;
    if (u->number >= count) {
      pto_parser_error_at(p, pto_parser_operand_loc(p, u), "reference to invalid result number");
      return NULL;
    }
    PtoValue *v = first + u->number;
    if (first->is_arg) v = first;
    if (v->type != type) {
      char *a = pto_type_to_string(type), *b = pto_type_to_string(v->type);
      pto_parser_error_at(p, pto_parser_operand_loc(p, u),
                          "use of value '%%%s' expects different type than "
                          "prior uses: '%s' vs '%s'",
                          name, a, b);
      pto_free(a);
      pto_free(b);
      return NULL;
    }
    return v;
  }
  /* forward reference */
  Forward *f;
  if (e) {
    f = as_fwd(*e);
  } else {
    f = pto_arena_zalloc(&p->persist, sizeof *f);
    f->line = u->line;
    f->col = u->col;
    f->next_all = p->all_fwd;
    p->all_fwd = f;
    pto_ptrmap_put(&s->names, (uintptr_t)u->name,
                   (void *)((uintptr_t)f | FWD_TAG));
    s->num_fwd++;
  }
  if (u->number >= f->n) {
    if (u->number > 4096) {
      pto_parser_error_at(p, pto_parser_operand_loc(p, u), "result number %u is too large", u->number);
      return NULL;
    }
    uint32_t nn = u->number + 1;
    PtoValue **nv = pto_arena_zalloc(&p->persist, nn * sizeof *nv);
    if (f->n) memcpy(nv, f->vals, f->n * sizeof *nv);
    f->vals = nv;
    f->n = nn;
  }
  if (!f->vals[u->number]) {
    f->vals[u->number] = new_placeholder(p, type);
  } else if (f->vals[u->number]->type != type) {
    char *a = pto_type_to_string(type),
         *b = pto_type_to_string(f->vals[u->number]->type);
    pto_parser_error_at(p, pto_parser_operand_loc(p, u),
                        "use of value '%%%s' expects different type than prior "
                        "uses: '%s' vs '%s'",
                        name, a, b);
    pto_free(a);
    pto_free(b);
    return NULL;
  }
  return f->vals[u->number];
}

PtoResult pto_parser_resolve_operand(PtoParser *p,
                                     const PtoUnresolvedOperand *u,
                                     PtoType *type, PtoOpState *st) {
  PtoValue *v = lookup_value(p, u, type);
  if (!v) return PTO_FAILURE;
  pto_op_state_add_operand(st, v);
  return PTO_SUCCESS;
}

PtoResult pto_parser_resolve_operands(PtoParser *p,
                                      const PtoUnresolvedOperand *u,
                                      unsigned n, PtoType *const *types,
                                      unsigned ntypes, PtoLoc *loc,
                                      PtoOpState *st) {
  if (n != ntypes)
    return pto_parser_error_at(p, loc ? loc : pos_loc(p, p->op_line, p->op_col),
                               "%u operands present, but expected %u", n,
                               ntypes);
  for (unsigned i = 0; i < n; i++)
    if (pto_parser_resolve_operand(p, &u[i], types[i], st)) return PTO_FAILURE;
  return PTO_SUCCESS;
}

/* Defines `name` as `count` consecutive values starting at `first`. */
static PtoResult define_values(PtoParser *p, PtoIdent *name, uint32_t line,
                               uint32_t col, PtoValue *first, uint32_t count) {
  IsoScope *s = cur_iso(p);
  void **e = pto_ptrmap_find(&s->names, (uintptr_t)name);
  first->scratch = count;
  if (e && !is_fwd(*e)) {
    PtoDiag *d = pto_diag_begin(p->ctx, PTO_DIAG_ERROR, pos_loc(p, line, col));
    pto_diag_printf(d, "redefinition of SSA value '%%%s'", name->str);
    pto_diag_note(d, pto_value_loc(*e), "previously defined here");
    p->failed = true;
    return pto_diag_emit(d);
  }
  if (e) {
    Forward *f = as_fwd(*e);
    for (uint32_t i = 0; i < f->n; i++) {
      PtoValue *ph = f->vals[i];
      if (!ph) continue;
      if (i >= count)
        return pto_parser_error_at(p, pos_loc(p, f->line, f->col),
                                   "reference to invalid result number");
      PtoValue *v = first->is_arg ? first : first + i;
      if (ph->type != v->type) {
        char *a = pto_type_to_string(ph->type), *b = pto_type_to_string(v->type);
        pto_parser_error_at(p, pos_loc(p, line, col),
                            "definition of SSA value '%%%s#%u' has type '%s', "
                            "but a prior use expects '%s'",
                            name->str, i, b, a);
        pto_free(a);
        pto_free(b);
        return PTO_FAILURE;
      }
      pto_value_replace_all_uses(ph, v);
      pto_ptrmap_put(&p->resolved, (uintptr_t)ph, v);
    }
    f->n = 0;
    *e = first;
    s->num_fwd--;
  } else {
    pto_ptrmap_put(&s->names, (uintptr_t)name, first);
  }
  pto_vec_push(&s->defs, name);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Regions and blocks                                                   */
/* ------------------------------------------------------------------ */

static PtoResult parse_op(PtoParser *p, PtoBlock *into);

static void push_region(PtoParser *p) {
  RegionScope rs;
  pto_strmap_init(&rs.blocks);
  rs.defs_mark = cur_iso(p)->defs.len;
  pto_vec_push(&p->regions, rs);
}

static PtoResult pop_region(PtoParser *p) {
  RegionScope *rs = &pto_vec_last(&p->regions);
  PtoResult r = PTO_SUCCESS;
  const BlockRef *first = NULL; /* undefined, by position */
  for (uint32_t i = 0; i < rs->blocks.cap; i++) {
    PtoStrMapEntry *e = &rs->blocks.slots[i];
    if (!e->key || e->len == 0 || !e->val) continue;
    const BlockRef *br = e->val;
    if (!br->defined &&
        (!first || br->line < first->line ||
         (br->line == first->line && br->col < first->col)))
      first = br;
  }
  if (first && !p->failed)
    r = pto_parser_error_at(p, pos_loc(p, first->line, first->col),
                            "reference to an undefined block");
  else if (first)
    r = PTO_FAILURE;
  /* names defined in the region go out of scope */
  IsoScope *s = cur_iso(p);
  for (uint32_t i = rs->defs_mark; i < s->defs.len; i++)
    pto_ptrmap_remove(&s->names, (uintptr_t)s->defs.data[i]);
  s->defs.len = rs->defs_mark;
  pto_strmap_release(&rs->blocks);
  p->regions.len--;
  return r;
}

static BlockRef *block_ref(PtoParser *p, const Token *t) {
  RegionScope *rs = &pto_vec_last(&p->regions);
  PtoIdent *name = pto_ident(p->ctx, t->p, t->len);
  BlockRef *br = pto_strmap_get(&rs->blocks, name->str, name->len);
  if (!br) {
    br = pto_arena_zalloc(&p->persist, sizeof *br);
    br->block = pto_block_create(p->ctx);
    br->line = t->line;
    br->col = t->col;
    pto_vec_push(&p->pending_blocks, br->block);
    pto_strmap_put(&rs->blocks, name->str, name->len, br);
  }
  return br;
}

PtoResult pto_parser_parse_successor(PtoParser *p, PtoBlock **out) {
  if (!tok_is(p, T_CARET_ID)) return pto_parser_error(p, "expected block name");
  if (!p->regions.len)
    return pto_parser_error(p, "block reference outside of a region");
  *out = block_ref(p, &p->tok)->block;
  advance(p);
  return PTO_SUCCESS;
}

PtoResult pto_parser_parse_region_arg(PtoParser *p, PtoRegionArg *out) {
  memset(out, 0, sizeof *out);
  if (pto_parser_parse_operand(p, &out->name)) return PTO_FAILURE;
  if (out->name.number)
    return pto_parser_error_at(p, pto_parser_operand_loc(p, &out->name),
                               "invalid region argument name");
  return PTO_SUCCESS;
}

static PtoResult define_block_arg(PtoParser *p, PtoBlock *b,
                                  const PtoUnresolvedOperand *name,
                                  PtoType *type, PtoLoc *loc) {
  PtoValue *v = pto_block_add_arg(b, type,
                                  loc ? loc : pto_parser_operand_loc(p, name));
  return define_values(p, name->name, name->line, name->col, v, 1);
}

/* Ops of one block until '}' or the next block label. */
static PtoResult parse_block_body(PtoParser *p, PtoBlock *b) {
  while (!tok_is(p, T_RBRACE) && !tok_is(p, T_CARET_ID)) {
    if (tok_is(p, T_EOF)) return pto_parser_error(p, "expected '}' to end region");
    if (parse_op(p, b)) return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

/* `^bb1(%a: i32, %b: f32):` */
static PtoResult parse_block_label(PtoParser *p, PtoBlock **out) {
  Token t = p->tok;
  BlockRef *br = block_ref(p, &t);
  if (br->defined)
    return pto_parser_error(p, "redefinition of block '%.*s'", (int)t.len, t.p);
  br->defined = true;
  advance(p);
  PtoBlock *b = br->block;
  if (consume_if(p, T_LPAREN)) {
    if (!tok_is(p, T_RPAREN)) {
      do {
        PtoUnresolvedOperand name;
        PtoType *ty;
        if (pto_parser_parse_operand(p, &name)) return PTO_FAILURE;
        if (name.number)
          return pto_parser_error_at(p, pto_parser_operand_loc(p, &name),
                                     "invalid block argument name");
        if (pto_parser_parse_colon_type(p, &ty)) return PTO_FAILURE;
        PtoLoc *aloc = NULL;
        Token deferred = {0};
        if (pto_parser_trailing_loc(p, &aloc, &deferred)) return PTO_FAILURE;
        if (define_block_arg(p, b, &name, ty, aloc)) return PTO_FAILURE;
        pto_parser_defer_loc(p, NULL, pto_block_arg(b, pto_block_num_args(b) - 1),
                  &deferred);
      } while (consume_if(p, T_COMMA));
    }
    if (expect(p, T_RPAREN, "')' to end argument list")) return PTO_FAILURE;
  }
  if (expect(p, T_COLON, "':' after block name")) return PTO_FAILURE;
  *out = b;
  return PTO_SUCCESS;
}

static void take_pending(PtoParser *p, PtoBlock *b) {
  for (uint32_t i = 0; i < p->pending_blocks.len; i++)
    if (p->pending_blocks.data[i] == b) {
      p->pending_blocks.data[i] = pto_vec_last(&p->pending_blocks);
      p->pending_blocks.len--;
      return;
    }
}

static PtoResult parse_region_body(PtoParser *p, PtoRegion *region,
                                   const PtoRegionArg *args, unsigned n) {
  if (tok_is(p, T_RBRACE) && n == 0) return PTO_SUCCESS; /* empty region */
  PtoBlock *entry;
  if (tok_is(p, T_CARET_ID)) {
    if (n)
      return pto_parser_error(p, "invalid block name in region with named "
                                 "arguments");
    if (parse_block_label(p, &entry)) return PTO_FAILURE;
    take_pending(p, entry);
  } else {
    entry = pto_block_create(p->ctx);
  }
  pto_region_push_block(region, entry);
  for (unsigned i = 0; i < n; i++) {
    if (!args[i].type)
      return pto_parser_error_at(p, pto_parser_operand_loc(p, &args[i].name),
                                 "region argument has no type");
    if (define_block_arg(p, entry, &args[i].name, args[i].type, args[i].loc))
      return PTO_FAILURE;
  }
  if (parse_block_body(p, entry)) return PTO_FAILURE;
  while (tok_is(p, T_CARET_ID)) {
    PtoBlock *b;
    if (parse_block_label(p, &b)) return PTO_FAILURE;
    take_pending(p, b);
    pto_region_push_block(region, b);
    if (parse_block_body(p, b)) return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

static PtoResult parse_region_impl(PtoParser *p, PtoRegion *region,
                                   const PtoRegionArg *args, unsigned n,
                                   bool isolated) {
  if (expect(p, T_LBRACE, "'{' to begin a region")) return PTO_FAILURE;
  if (enter_nested(p)) return PTO_FAILURE;
  if (isolated) push_iso(p);
  push_region(p);
  PtoResult r = parse_region_body(p, region, args, n);
  if (!r) r = expect(p, T_RBRACE, "'}' to end region");
  if (pop_region(p)) r = PTO_FAILURE;
  if (isolated && pop_iso(p)) r = PTO_FAILURE;
  leave_nested(p);
  return r;
}

PtoResult pto_parser_parse_region(PtoParser *p, PtoRegion *region,
                                  const PtoRegionArg *args, unsigned n) {
  bool iso = p->cur_def &&
             (p->cur_def->traits & PTO_TRAIT_ISOLATED_FROM_ABOVE);
  return parse_region_impl(p, region, args, n, iso);
}

bool pto_parser_optional_region(PtoParser *p, PtoRegion *region,
                                const PtoRegionArg *args, unsigned n,
                                PtoResult *status) {
  *status = PTO_SUCCESS;
  if (!tok_is(p, T_LBRACE)) return false;
  *status = pto_parser_parse_region(p, region, args, n);
  return true;
}

/* ------------------------------------------------------------------ */
/* Operations                                                           */
/* ------------------------------------------------------------------ */

typedef struct ResultGroup {
  PtoIdent *name;
  uint32_t line, col;
  uint32_t count;
} ResultGroup;

static PtoResult parse_generic_op(PtoParser *p, PtoOpState *st,
                                  unsigned nresults) {
  Token nt = p->tok;
  pto_tok_decode_string(p, &nt, &p->scratch);
  if (p->scratch.len == 0)
    return pto_parser_error(p, "empty operation name is invalid");
  if (memchr(p->scratch.data, 0, p->scratch.len))
    return pto_parser_error(p, "null character not allowed in operation name");
  PtoIdent *name = pto_ident(p->ctx, p->scratch.data, p->scratch.len);
  advance(p);
  st->name = name;
  st->def = name->opdef;
  if (!st->def) {
    const char *dot = strchr(name->str, '.');
    const PtoDialectDef *d =
        dot ? pto_ctx_lookup_dialect(p->ctx, name->str,
                                     (size_t)(dot - name->str))
            : NULL;
    if (d)
      return pto_parser_error_at(p, tok_loc(p, &nt),
                                 "unregistered operation '%s' found in dialect "
                                 "('%s') that does not allow unknown "
                                 "operations",
                                 name->str, d->name);
    if (!p->ctx->allow_unregistered)
      return pto_parser_error_at(
          p, tok_loc(p, &nt),
          "operation '%s' belongs to an unregistered dialect; use "
          "--allow-unregistered-dialect to accept it",
          name->str);
  }
  const PtoOpDef *saved_def = p->cur_def;
  p->cur_def = st->def;
  PtoResult r = PTO_SUCCESS;
  PtoUnresolvedOperand *ops = NULL;
  unsigned nops = 0;
  if ((r = expect(p, T_LPAREN, "'(' to start operand list"))) goto out;
  if ((r = pto_parser_parse_operand_list(p, &ops, &nops))) goto out;
  if ((r = expect(p, T_RPAREN, "')' to end operand list"))) goto out;
  if (consume_if(p, T_LSQUARE)) {
    if (!p->regions.len) {
      r = pto_parser_error(p, "successors are only valid inside a region");
      goto out;
    }
    do {
      PtoBlock *b;
      if ((r = pto_parser_parse_successor(p, &b))) goto out;
      pto_op_state_add_successor(st, b);
    } while (consume_if(p, T_COMMA));
    if ((r = expect(p, T_RSQUARE, "']' to end successor list"))) goto out;
  }
  if (tok_is(p, T_LPAREN)) {
    /* `({...}, {...})` */
    Lexer save = p->lex;
    Token t2 = lexer_next(&p->lex);
    p->lex = save;
    if (t2.kind == T_LBRACE) {
      advance(p);
      bool iso = st->def && (st->def->traits & PTO_TRAIT_ISOLATED_FROM_ABOVE);
      do {
        PtoRegion *rg = pto_op_state_add_region(st);
        if ((r = parse_region_impl(p, rg, NULL, 0, iso))) goto out;
      } while (consume_if(p, T_COMMA));
      if ((r = expect(p, T_RPAREN, "')' to end region list"))) goto out;
    }
  }
  if (tok_is(p, T_LBRACE) && (r = pto_parser_parse_optional_attr_dict(p, st)))
    goto out;
  if ((r = expect(p, T_COLON, "':' followed by operation type"))) goto out;
  {
    Token type_tok = p->tok;
    PtoType *fty;
    if ((r = pto_parser_parse_type(p, &fty))) goto out;
    if (fty->kind != PTO_TYPE_FUNCTION) {
      r = pto_parser_error_at(p, tok_loc(p, &type_tok), "expected function type");
      goto out;
    }
    unsigned nin = pto_type_func_num_inputs(fty);
    if (nin != nops) {
      r = pto_parser_error_at(p, tok_loc(p, &type_tok),
                              "expected %u operand type%s but had %u",
                              nops, nops == 1 ? "" : "s", nin);
      goto out;
    }
    for (unsigned i = 0; i < nops; i++)
      if ((r = pto_parser_resolve_operand(p, &ops[i],
                                          pto_type_func_input(fty, i), st)))
        goto out;
    unsigned nres = pto_type_func_num_results(fty);
    for (unsigned i = 0; i < nres; i++)
      pto_op_state_add_result(st, pto_type_func_result(fty, i));
    if (nresults != nres) {
      r = pto_parser_error_at(p, pos_loc(p, p->op_line, p->op_col),
                              "operation defines %u results but was provided "
                              "%u to bind",
                              nres, nresults);
      goto out;
    }
  }
out:
  p->cur_def = saved_def;
  return r;
}

static PtoResult parse_custom_op(PtoParser *p, PtoOpState *st,
                                 unsigned nresults) {
  Token nt = p->tok;
  PtoIdent *name = pto_ident(p->ctx, nt.p, nt.len);
  const PtoOpDef *def = name->opdef;
  if (!def && !memchr(nt.p, '.', nt.len)) {
    /* builtin ops may be written without their dialect prefix */
    PtoStr full;
    pto_str_init(&full);
    pto_str_puts(&full, "builtin.");
    pto_str_append(&full, nt.p, nt.len);
    PtoIdent *fn = pto_ident(p->ctx, full.data, full.len);
    pto_str_release(&full);
    if (fn->opdef) {
      name = fn;
      def = fn->opdef;
    }
  }
  if (!def || !def->parse) {
    const char *dot = memchr(nt.p, '.', nt.len);
    if (def)
      return pto_parser_error(p, "'%s' has no custom assembly form; use the "
                                 "generic form \"%s\"(...)",
                              name->str, name->str);
    if (dot && !pto_ctx_lookup_dialect(p->ctx, nt.p, (size_t)(dot - nt.p)))
      return pto_parser_error(p, "Dialect `%.*s' not found for custom op '%s'",
                              (int)(dot - nt.p), nt.p, name->str);
    return pto_parser_error(p, "custom op '%s' is unknown", name->str);
  }
  advance(p);
  st->name = name;
  st->def = def;
  const PtoOpDef *saved_def = p->cur_def;
  unsigned saved_nres = p->num_results;
  p->cur_def = def;
  p->num_results = nresults;
  PtoResult r = def->parse(p, st);
  if (r && !p->failed)
    pto_parser_error(p, "failed to parse '%s'", name->str);
  p->cur_def = saved_def;
  p->num_results = saved_nres;
  if (r) return PTO_FAILURE;
  if (st->num_results != nresults)
    return pto_parser_error_at(p, pos_loc(p, p->op_line, p->op_col),
                               "operation defines %u results but was provided "
                               "%u to bind",
                               st->num_results, nresults);
  return PTO_SUCCESS;
}

static PtoResult parse_op(PtoParser *p, PtoBlock *into) {
  uint32_t line = p->tok.line, col = p->tok.col;
  PTO_SMALL_VEC(ResultGroup, 4) groups;
  pto_small_vec_init(&groups);
  unsigned nresults = 0;
  PtoResult r = PTO_SUCCESS;
  if (tok_is(p, T_PERCENT_ID)) {
    do {
      ResultGroup g;
      g.line = p->tok.line;
      g.col = p->tok.col;
      if (!tok_is(p, T_PERCENT_ID)) {
        r = pto_parser_error(p, "expected SSA value name");
        goto out;
      }
      g.name = pto_ident(p->ctx, p->tok.p + 1, p->tok.len - 1);
      g.count = 1;
      advance(p);
      if (consume_if(p, T_COLON)) {
        int64_t c;
        if (!tok_is(p, T_INTEGER) || pto_parser_parse_integer(p, &c) || c < 1 ||
            c > 65535) {
          r = pto_parser_error(p, "expected integer number of results "
                                  "(from 1 to 65535)");
          goto out;
        }
        g.count = (uint32_t)c;
      }
      nresults += g.count;
      pto_small_vec_push(&groups, g);
    } while (consume_if(p, T_COMMA));
    if ((r = expect(p, T_EQUAL, "'=' after SSA name"))) goto out;
  }
  PtoOpState st;
  pto_op_state_init(&st, p->ctx, NULL, NULL);
  st.loc = NULL;
  uint32_t saved_line = p->op_line, saved_col = p->op_col;
  p->op_line = line;
  p->op_col = col;
  PtoArenaMark mark = pto_arena_mark(&p->tmp);
  if (tok_is(p, T_STRING))
    r = parse_generic_op(p, &st, nresults);
  else if (tok_is(p, T_BARE_ID))
    r = parse_custom_op(p, &st, nresults);
  else
    r = pto_parser_error(p, "expected operation name in quotes");
  /* an op holds at most 65535 regions and successors */
  if (!r && (st.num_regions > UINT16_MAX || st.num_successors > UINT16_MAX))
    r = pto_parser_error_at(p, pos_loc(p, line, col), "too many %s (at most %u)",
                            st.num_regions > UINT16_MAX ? "regions"
                                                        : "successors",
                            (unsigned)UINT16_MAX);
  Token deferred_loc = {0}; /* kind T_EOF: none */
  if (!r) r = pto_parser_trailing_loc(p, &st.loc, &deferred_loc);
  p->op_line = saved_line; /* back to the enclosing op, if any */
  p->op_col = saved_col;
  uintptr_t packed = 0;
  if (!r && !st.loc && deferred_loc.kind == T_EOF &&
      !pto_loc_pack(p->ctx, p->file, line, col, &packed))
    st.loc = pos_loc(p, line, col);
  if (r) {
    pto_op_state_release(&st);
    pto_arena_reset(&p->tmp, mark);
    goto out;
  }
  if (p->resolved.len)
    for (unsigned i = 0; i < st.num_operands; i++) {
      PtoValue *v = pto_ptrmap_get(&p->resolved, (uintptr_t)st.operands[i]);
      if (v) st.operands[i] = v;
    }
  PtoOp *op = pto_op_create(&st);
  if (packed) op->loc_bits = packed; /* see op_loc */
  pto_arena_reset(&p->tmp, mark);
  pto_block_append(into, op);
  pto_parser_defer_loc(p, op, NULL, &deferred_loc);
  unsigned k = 0;
  for (uint32_t i = 0; i < groups.len; i++) {
    if ((r = define_values(p, groups.data[i].name, groups.data[i].line,
                           groups.data[i].col, &op->results[k],
                           groups.data[i].count)))
      goto out;
    k += groups.data[i].count;
  }
out:
  pto_small_vec_free(&groups);
  return r;
}

/* ------------------------------------------------------------------ */
/* Top level                                                            */
/* ------------------------------------------------------------------ */

static PtoResult parse_alias(PtoParser *p) {
  Token t = p->tok;
  bool is_type = t.kind == T_EXCL_ID;
  const char *name = t.p + 1;
  size_t n = t.len - 1;
  PtoStrMap *m = is_type ? &p->type_aliases : &p->attr_aliases;
  if (memchr(name, '.', n))
    return pto_parser_error(p, "%s alias names may not contain '.'",
                            is_type ? "type" : "attribute");
  if (pto_strmap_get(m, name, n) || (!is_type && pto_strmap_get(&p->loc_aliases, name, n)))
    return pto_parser_error(p, "redefinition of %s alias id '%.*s'",
                            is_type ? "type" : "attribute", (int)n, name);
  advance(p);
  if (expect(p, T_EQUAL, is_type ? "'=' in type alias definition"
                                 : "'=' in attribute alias definition"))
    return PTO_FAILURE;
  PtoIdent *key = pto_ident(p->ctx, name, n); /* stable key storage */
  if (is_type) {
    PtoType *ty;
    if (pto_parser_parse_type(p, &ty)) return PTO_FAILURE;
    pto_strmap_put(m, key->str, key->len, ty);
  } else if (tok_is_kw(p, "loc")) {
    PtoLoc *l;
    if (pto_parser_location(p, &l)) return PTO_FAILURE;
    pto_strmap_put(&p->loc_aliases, key->str, key->len, l);
  } else {
    PtoAttr *a;
    if (pto_parser_parse_attr(p, NULL, &a)) return PTO_FAILURE;
    pto_strmap_put(m, key->str, key->len, a);
  }
  return PTO_SUCCESS;
}

static void parser_init(PtoParser *p, PtoContext *ctx, const char *text,
                        size_t len, const PtoParseOptions *opts) {
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  const char *fname = opts && opts->filename ? opts->filename : "-";
  p->file = pto_ident_cstr(ctx, fname);
  lexer_init(&p->lex, text, len, opts ? opts->first_line : 1);
  pto_arena_init(&p->tmp);
  pto_arena_init(&p->persist);
  pto_strmap_init(&p->type_aliases);
  pto_ptrmap_init(&p->resolved);
  pto_strmap_init(&p->attr_aliases);
  pto_strmap_init(&p->loc_aliases);
  pto_strmap_init(&p->type_spellings);
  pto_str_init(&p->scratch);
  advance(p);
}

static void parser_release(PtoParser *p) {
  while (p->regions.len) {
    pto_strmap_release(&pto_vec_last(&p->regions).blocks);
    p->regions.len--;
  }
  pto_vec_free(&p->regions);
  while (p->iso.len) {
    pto_ptrmap_release(&cur_iso(p)->names);
    pto_vec_free(&cur_iso(p)->defs);
    p->iso.len--;
  }
  pto_vec_free(&p->iso);
  for (uint32_t i = 0; i < p->pending_blocks.len; i++)
    pto_block_erase(p->pending_blocks.data[i]);
  pto_vec_free(&p->pending_blocks);
  pto_vec_free(&p->deferred_locs);
  pto_strmap_release(&p->type_aliases);
  pto_strmap_release(&p->attr_aliases);
  pto_strmap_release(&p->loc_aliases);
  pto_strmap_release(&p->type_spellings);
  pto_str_release(&p->scratch);
  pto_arena_release(&p->tmp);
  pto_arena_release(&p->persist);
  pto_ptrmap_release(&p->resolved);
}

/* After an error, uses of unresolved placeholders must be dropped before
 * the placeholders' memory goes away with the scratch arena. */
static void drop_placeholder_uses(PtoParser *p) {
  for (Forward *f = p->all_fwd; f; f = f->next_all)
    for (uint32_t i = 0; i < f->n; i++)
      if (f->vals[i])
        while (f->vals[i]->first_use) pto_use_unlink(f->vals[i]->first_use);
}

PtoOp *pto_parse_module(PtoContext *ctx, const char *text, size_t len,
                        const PtoParseOptions *opts) {
  PtoParser p;
  parser_init(&p, ctx, text, len, opts);
  PtoBlock *top = pto_block_create(ctx);
  push_iso(&p);
  PtoResult r = PTO_SUCCESS;
  while (!tok_is(&p, T_EOF)) {
    if (tok_is(&p, T_ERROR)) {
      r = pto_parser_error(&p, "%s", p.tok.err);
      break;
    }
    /* no op starts with '!' or '#': these begin alias definitions */
    if (tok_is(&p, T_HASH_ID) || tok_is(&p, T_EXCL_ID)) {
      if ((r = parse_alias(&p))) break;
      continue;
    }
    if (tok_is(&p, T_FILE_META_BEGIN)) {
      r = pto_parser_error(&p, "file metadata dictionaries are not supported");
      break;
    }
    if ((r = parse_op(&p, top))) break;
  }
  if (!r) r = pop_iso(&p);
  if (!r) r = pto_parser_resolve_deferred_locs(&p);
  PtoOp *module = NULL;
  if (!r) {
    PtoOp *first = pto_block_first_op(top);
    if (first && first == pto_block_last_op(top) &&
        first->name == pto_ident_cstr(ctx, "builtin.module")) {
      pto_op_remove(first);
      module = first;
    } else {
      PtoOpState st;
      pto_op_state_init(&st, ctx, "builtin.module",
                        pto_loc_file_id(ctx, p.file, opts && opts->first_line
                                                         ? opts->first_line
                                                         : 1,
                                        1));
      PtoRegion *rg = pto_op_state_add_region(&st);
      PtoBlock *body = pto_block_create(ctx);
      pto_region_push_block(rg, body);
      if (first) pto_block_splice(body, NULL, top, first);
      module = pto_op_create(&st);
    }
  } else {
    drop_placeholder_uses(&p);
  }
  pto_block_erase(top);
  parser_release(&p);
  return module;
}

PtoType *pto_parse_type_str(PtoContext *ctx, const char *text) {
  PtoParser p;
  PtoParseOptions o = {"<type>", 1};
  parser_init(&p, ctx, text, strlen(text), &o);
  PtoType *t = NULL;
  if (pto_parser_parse_type(&p, &t) == PTO_SUCCESS && !tok_is(&p, T_EOF)) {
    pto_parser_error(&p, "unexpected trailing characters after type");
    t = NULL;
  }
  parser_release(&p);
  return t;
}

PtoAttr *pto_parse_attr_str(PtoContext *ctx, const char *text) {
  PtoParser p;
  PtoParseOptions o = {"<attr>", 1};
  parser_init(&p, ctx, text, strlen(text), &o);
  PtoAttr *a = NULL;
  if (pto_parser_parse_attr(&p, NULL, &a) == PTO_SUCCESS && !tok_is(&p, T_EOF)) {
    pto_parser_error(&p, "unexpected trailing characters after attribute");
    a = NULL;
  }
  parser_release(&p);
  return a;
}
