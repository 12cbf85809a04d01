/* Recursive-descent parser for the textual IR: MLIR's generic form, plus
 * custom op forms through each op's parse hook. Stops at the first error,
 * reports it with a location, and tears down everything it built. */
#include "IR/IRInternal.h"
#include "IR/Lexer.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_NESTING = PTO_MAX_NESTING, MAX_RANK = 64 };

/* A forward-referenced SSA name: placeholders per result number. */
typedef struct Forward {
  PtoValue **vals;
  uint32_t n;
  uint32_t line, col; /* first use */
  struct Forward *next_all;
} Forward;

/* Name-map values are PtoValue* for definitions, or Forward* tagged with
 * the low bit. */
#define FWD_TAG ((uintptr_t)1)
static inline bool is_fwd(void *p) { return ((uintptr_t)p & FWD_TAG) != 0; }
static inline Forward *as_fwd(void *p) {
  return (Forward *)((uintptr_t)p & ~FWD_TAG);
}

/* SSA names live per isolated-from-above scope. Names are interned, so the
 * map is keyed by the PtoIdent pointer. */
typedef struct IsoScope {
  PtoPtrMap names;
  PTO_VEC(PtoIdent *) defs; /* definition order, for region-scoped removal */
  uint32_t num_fwd;         /* forward refs still unresolved */
} IsoScope;

typedef struct BlockRef {
  PtoBlock *block;
  bool defined;
  uint32_t line, col; /* first reference */
} BlockRef;

/* `loc(#alias)` of an op or block argument whose alias is defined later in
 * the file (mlir-opt prints location aliases at the end). */
typedef struct DeferredLoc {
  PtoOp *op;      /* or: */
  PtoValue *arg;  /* a block argument */
  Token alias;
} DeferredLoc;

/* Block labels live per region. */
typedef struct RegionScope {
  PtoStrMap blocks;
  uint32_t defs_mark;
} RegionScope;

struct PtoParser {
  PtoContext *ctx;
  Lexer lex;
  Token tok;
  Token prev; /* the token before `tok` (kind T_EOF before the first) */
  PtoIdent *file;
  bool failed;
  unsigned depth;
  PTO_VEC(IsoScope) iso;
  PTO_VEC(RegionScope) regions;
  Forward *all_fwd;
  PTO_VEC(PtoBlock *) pending_blocks; /* referenced before definition */
  PTO_VEC(DeferredLoc) deferred_locs;
  PtoStrMap type_aliases, attr_aliases, loc_aliases;
  PtoStrMap type_spellings; /* text -> type; see cached_type */
  PtoArena tmp;          /* stack-like scratch, reset after each op */
  PtoArena persist;      /* placeholders, forward refs, block refs */
  /* Placeholder -> definition, for forward references that a custom parse
   * hook resolved into its op state before a nested region defined them
   * (the state's operands are not uses yet, so RAUW cannot reach them). */
  PtoPtrMap resolved;
  unsigned num_results;  /* of the op being parsed by a custom hook */
  uint32_t op_line, op_col; /* where the op being parsed starts */
  const PtoOpDef *cur_def;
  PtoStr scratch;
};

/* ------------------------------------------------------------------ */
/* Tokens and errors                                                    */
/* ------------------------------------------------------------------ */

static void advance(PtoParser *p) {
  p->prev = p->tok;
  p->tok = lexer_next(&p->lex);
}

/* Locations are made only when kept in the IR or reported: each is a
 * uniqued object that lives as long as the context. */
static PtoLoc *pos_loc(PtoParser *p, uint32_t line, uint32_t col) {
  return pto_loc_file_id(p->ctx, p->file, line, col);
}
static PtoLoc *tok_loc(PtoParser *p, const Token *t) {
  return pos_loc(p, t->line, t->col);
}

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

static bool tok_is(PtoParser *p, TokKind k) { return p->tok.kind == k; }
static bool tok_is_kw(PtoParser *p, const char *kw) {
  size_t n = strlen(kw);
  return p->tok.kind == T_BARE_ID && p->tok.len == n &&
         memcmp(p->tok.p, kw, n) == 0;
}
static bool consume_if(PtoParser *p, TokKind k) {
  if (p->tok.kind != k) return false;
  advance(p);
  return true;
}

/* Recursion through regions, types, attributes and locations is bounded so
 * that adversarial input cannot exhaust the stack. */
static PtoResult enter_nested(PtoParser *p) {
  if (p->depth >= MAX_NESTING)
    return pto_parser_error(p, "nesting too deep (at most %d levels of "
                               "regions, types, attributes and locations)",
                            MAX_NESTING);
  p->depth++;
  return PTO_SUCCESS;
}
static void leave_nested(PtoParser *p) { p->depth--; }

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

static PtoResult expect(PtoParser *p, TokKind k, const char *what) {
  if (consume_if(p, k)) return PTO_SUCCESS;
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
static bool tok_uint(const Token *t, uint64_t *out) {
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

static bool tok_is_hex(const Token *t) {
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
  if (!tok_uint(&p->tok, &v) || v > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
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

static double tok_double(const Token *t) {
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
    double v = tok_double(&p->tok);
    *out = neg ? -v : v;
    advance(p);
    return PTO_SUCCESS;
  }
  return pto_parser_error(p, "expected floating point literal");
}

/* Decodes a string token's contents into the parser's scratch string. */
static void decode_string(PtoParser *p, const Token *t, PtoStr *out) {
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
  decode_string(p, &p->tok, &p->scratch);
  *out = pto_arena_strndup(&p->tmp, p->scratch.data, p->scratch.len);
  *len = p->scratch.len;
  advance(p);
  return PTO_SUCCESS;
}

static PtoIdent *symbol_ident(PtoParser *p, const Token *t) {
  if (t->len > 1 && t->p[1] == '"') {
    decode_string(p, t, &p->scratch);
    return pto_ident(p->ctx, p->scratch.data, p->scratch.len);
  }
  return pto_ident(p->ctx, t->p + 1, t->len - 1);
}

bool pto_parser_optional_symbol_name(PtoParser *p, PtoIdent **out,
                                     PtoResult *status) {
  *status = PTO_SUCCESS;
  if (!tok_is(p, T_AT_ID)) return false;
  *out = symbol_ident(p, &p->tok);
  advance(p);
  return true;
}

PtoResult pto_parser_parse_symbol_name(PtoParser *p, PtoIdent **out) {
  PtoResult st;
  if (pto_parser_optional_symbol_name(p, out, &st)) return st;
  return pto_parser_error(p, "expected valid '@'-identifier for symbol name");
}

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
      if (tok_is_hex(&p->tok)) {
        /* `0x4xf32`: a zero dimension followed by 'x' */
        if (p->tok.p[0] != '0' || p->tok.p[1] != 'x')
          return pto_parser_error(p, "expected dimension");
        d = 0;
        lexer_reset_to(&p->lex, p->tok.p + 1, &p->tok);
        advance(p);
        goto got_dim;
      }
      uint64_t v;
      if (!tok_uint(&p->tok, &v) || v > (uint64_t)INT64_MAX / 2)
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
static PtoResult capture_angle_body(PtoParser *p, const char **body,
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
static PtoResult split_dialect_symbol(PtoParser *p, const Token *t,
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
static PtoResult check_unregistered_allowed(PtoParser *p, const Token *t,
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
static PtoResult parse_opaque_symbol(PtoParser *p, const Token *t,
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
  if (check_unregistered_allowed(p, t, dialect, what)) return PTO_FAILURE;
  if (expect(p, T_LESS, NULL)) return PTO_FAILURE;
  if (!tok_is(p, T_STRING))
    return pto_parser_error(p, "expected string in opaque dialect %s", what);
  Token st = p->tok;
  decode_string(p, &st, &p->scratch);
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
    return parse_opaque_symbol(p, &t, true, (void **)out);
  }
  PtoIdent *dialect, *mnem;
  if (split_dialect_symbol(p, &t, dot, "type", &dialect, &mnem))
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
  if (check_unregistered_allowed(p, &t, dialect, "type")) return PTO_FAILURE;
  const char *body = NULL;
  size_t blen = 0;
  if (tok_is(p, T_LESS) && capture_angle_body(p, &body, &blen))
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

/* ------------------------------------------------------------------ */
/* Attributes                                                           */
/* ------------------------------------------------------------------ */

static PtoResult parse_attr(PtoParser *p, PtoType *hint, PtoAttr **out);

static bool float_kind_fits(PtoType *t, uint64_t bits) {
  unsigned w = pto_type_bitwidth(t);
  return w >= 64 || bits < ((uint64_t)1 << w);
}

static double bits_to_double(PtoType *t, uint64_t bits) {
  switch (pto_type_float_kind(t)) {
  case PTO_F16:
    return pto_f16_bits_to_f32((uint16_t)bits);
  case PTO_BF16:
    return pto_bf16_bits_to_f32((uint16_t)bits);
  case PTO_F32: {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, 4);
    return f;
  }
  case PTO_F64: {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  }
  return 0;
}

/* Whether -mag (neg) or mag is a value of integer type `ty`: signless
 * types take any bit pattern of their width (255 : i8 is -1), signed ones
 * the signed range, unsigned ones the unsigned range. */
static bool int_literal_fits(const PtoType *ty, bool neg, uint64_t mag) {
  unsigned w = pto_type_int_width(ty);
  PtoSignedness s = ty->kind == PTO_TYPE_INTEGER ? (PtoSignedness)ty->signedness
                                                 : PTO_SIGNLESS;
  uint64_t half = w >= 64 ? (uint64_t)1 << 63 : (uint64_t)1 << (w - 1);
  if (s == PTO_UNSIGNED) return !neg && (w >= 64 || mag < ((uint64_t)1 << w));
  if (neg) return mag <= half;
  if (s == PTO_SIGNED) return mag < half;
  return w >= 64 || mag < ((uint64_t)1 << w);
}

/* Integer or float literal with optional `: type`. */
static PtoResult parse_number_attr(PtoParser *p, PtoType *hint,
                                   PtoAttr **out) {
  bool neg = consume_if(p, T_MINUS);
  Token t = p->tok;
  if (t.kind != T_INTEGER && t.kind != T_FLOAT)
    return pto_parser_error(p, "expected integer or float literal");
  advance(p);
  PtoType *ty = hint;
  if (consume_if(p, T_COLON)) {
    if (pto_parser_parse_type(p, &ty)) return PTO_FAILURE;
  }
  if (t.kind == T_FLOAT) {
    if (!ty || ty->kind == PTO_TYPE_INTEGER || ty->kind == PTO_TYPE_INDEX) {
      if (ty && hint != ty)
        return pto_parser_error_at(p, tok_loc(p, &t),
                                   "floating point value not valid for "
                                   "specified type");
      ty = p->ctx->t_float[PTO_F64];
    }
    if (ty->kind != PTO_TYPE_FLOAT)
      return pto_parser_error_at(p, tok_loc(p, &t),
                                 "floating point value not valid for "
                                 "specified type");
    double v = tok_double(&t);
    *out = pto_attr_float(p->ctx, ty, neg ? -v : v);
    return PTO_SUCCESS;
  }
  uint64_t mag;
  if (!tok_uint(&t, &mag))
    return pto_parser_error_at(p, tok_loc(p, &t), "integer constant out of range");
  if (!ty) ty = pto_type_int(p->ctx, 64);
  if (ty->kind == PTO_TYPE_FLOAT) {
    if (tok_is_hex(&t)) {
      if (neg)
        return pto_parser_error_at(p, tok_loc(p, &t),
                                   "hexadecimal float literal should not "
                                   "have a leading minus");
      if (!float_kind_fits(ty, mag))
        return pto_parser_error_at(p, tok_loc(p, &t),
                                   "hexadecimal float constant out of range "
                                   "for type");
      *out = pto_attr_float(p->ctx, ty, bits_to_double(ty, mag));
      return PTO_SUCCESS;
    }
    double v = (double)mag;
    *out = pto_attr_float(p->ctx, ty, neg ? -v : v);
    return PTO_SUCCESS;
  }
  if (ty->kind != PTO_TYPE_INTEGER && ty->kind != PTO_TYPE_INDEX)
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "integer literal not valid for specified type");
  bool uns = ty->kind == PTO_TYPE_INTEGER && ty->signedness == PTO_UNSIGNED;
  if (neg && uns)
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "negative integer literal not valid for "
                               "unsigned integer type");
  if (!int_literal_fits(ty, neg, mag))
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "integer constant out of range for attribute");
  *out = pto_attr_int(p->ctx, ty, neg ? (int64_t)(0 - mag) : (int64_t)mag);
  return PTO_SUCCESS;
}

/* Dense literal elements, collected before the type is known. */
typedef struct DenseLit {
  double f;
  uint64_t mag;
  bool neg, is_float, is_bool;
  bool is_hex; /* for float elements: the bit pattern */
  uint32_t line, col;
} DenseLit;

typedef struct DenseParse {
  PTO_VEC(DenseLit) elems;
  int64_t shape[MAX_RANK];
  unsigned rank;
  bool shape_set;
} DenseParse;

static PtoResult parse_dense_elem(PtoParser *p, DenseParse *dp) {
  DenseLit l;
  memset(&l, 0, sizeof l);
  l.line = p->tok.line;
  l.col = p->tok.col;
  if (tok_is_kw(p, "true") || tok_is_kw(p, "false")) {
    l.is_bool = true;
    l.mag = tok_is_kw(p, "true");
    advance(p);
  } else {
    l.neg = consume_if(p, T_MINUS);
    if (tok_is(p, T_FLOAT)) {
      l.is_float = true;
      l.f = tok_double(&p->tok);
    } else if (tok_is(p, T_INTEGER)) {
      if (!tok_uint(&p->tok, &l.mag))
        return pto_parser_error(p, "integer constant out of range");
      l.f = (double)l.mag;
      l.is_hex = tok_is_hex(&p->tok);
    } else {
      return pto_parser_error(p, "expected element literal of primitive type");
    }
    if (l.neg) l.f = -l.f;
    advance(p);
  }
  pto_vec_push(&dp->elems, l);
  return PTO_SUCCESS;
}

/* `[[1, 2], [3, 4]]`: records the shape, checks it is rectangular. */
static PtoResult parse_dense_list(PtoParser *p, DenseParse *dp, unsigned dim) {
  if (dim >= MAX_RANK)
    return pto_parser_error(p, "tensor literal has too many dimensions (at "
                               "most %d)", MAX_RANK);
  if (expect(p, T_LSQUARE, NULL)) return PTO_FAILURE;
  int64_t count = 0;
  bool nested = false, first = true;
  if (!tok_is(p, T_RSQUARE)) {
    do {
      bool is_list = tok_is(p, T_LSQUARE);
      if (!first && is_list != nested)
        return pto_parser_error(p, "tensor literal is invalid; ranks are not "
                                   "consistent between elements");
      nested = is_list;
      first = false;
      PtoResult r = is_list ? parse_dense_list(p, dp, dim + 1)
                            : parse_dense_elem(p, dp);
      if (r) return r;
      count++;
    } while (consume_if(p, T_COMMA));
  }
  if (expect(p, T_RSQUARE, NULL)) return PTO_FAILURE;
  /* the innermost list fixes rank */
  if (!nested && !dp->shape_set) {
    dp->rank = dim + 1;
    dp->shape_set = true;
  }
  if (dp->shape_set && (nested ? dim >= dp->rank : dim + 1 != dp->rank))
    return pto_parser_error(p, "tensor literal is invalid; ranks are not "
                               "consistent between elements");
  if (dp->shape[dim] == -1)
    dp->shape[dim] = count;
  else if (dp->shape[dim] != count)
    return pto_parser_error(p, "tensor literal is invalid; shape is not "
                               "consistent between elements");
  return PTO_SUCCESS;
}

static void store_elem(void *dst, PtoType *et, const DenseLit *l) {
  if (et->kind == PTO_TYPE_FLOAT && l->is_hex) {
    pto_dense_store_int(dst, pto_dense_elem_bytes(et), (int64_t)l->mag);
    return;
  }
  if (et->kind == PTO_TYPE_FLOAT) {
    double v = l->is_float ? l->f : (l->neg ? -(double)l->mag : (double)l->mag);
    switch (pto_type_float_kind(et)) {
    case PTO_F16: {
      uint16_t h = pto_f32_to_f16_bits((float)pto_round_to_float_kind(v, PTO_F16));
      memcpy(dst, &h, 2);
      break;
    }
    case PTO_BF16: {
      uint16_t h = pto_f32_to_bf16_bits((float)pto_round_to_float_kind(v, PTO_BF16));
      memcpy(dst, &h, 2);
      break;
    }
    case PTO_F32: {
      float f = (float)v;
      memcpy(dst, &f, 4);
      break;
    }
    case PTO_F64:
      memcpy(dst, &v, 8);
      break;
    }
    return;
  }
  pto_dense_store_int(dst, pto_dense_elem_bytes(et),
                      l->neg ? (int64_t)(0 - l->mag) : (int64_t)l->mag);
}

static PtoResult lit_error(PtoParser *p, const DenseLit *l, const char *msg) {
  return pto_parser_error_at(p, pos_loc(p, l->line, l->col), "%s", msg);
}

static PtoResult check_dense_lit(PtoParser *p, PtoType *et, const DenseLit *l) {
  if (et->kind == PTO_TYPE_FLOAT) {
    if (l->is_bool)
      return lit_error(p, l, "expected floating point elements, but parsed "
                             "boolean");
    if (l->is_hex && l->neg)
      return lit_error(p, l, "hexadecimal float literal should not have a "
                             "leading minus");
    if (l->is_hex && !float_kind_fits(et, l->mag))
      return lit_error(p, l, "hexadecimal float constant out of range for "
                             "type");
    return PTO_SUCCESS;
  }
  if (l->is_float)
    return lit_error(p, l, "expected integer elements, but parsed "
                           "floating-point");
  unsigned w = pto_type_bitwidth(et);
  if (w == 1) {
    if (l->neg || l->mag > 1)
      return lit_error(p, l, "integer constant out of range for i1");
    return PTO_SUCCESS;
  }
  if (l->is_bool)
    return lit_error(p, l, "expected integer elements, but parsed "
                           "boolean");
  if (!int_literal_fits(et, l->neg, l->mag))
    return lit_error(p, l, "integer constant out of range for "
                           "element type");
  return PTO_SUCCESS;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static PtoResult parse_dense_attr(PtoParser *p, PtoAttr **out) {
  Token dense_tok = p->tok;
  advance(p); /* 'dense' */
  if (expect(p, T_LESS, "'<' after 'dense'")) return PTO_FAILURE;
  DenseParse dp;
  memset(&dp, 0, sizeof dp);
  for (unsigned i = 0; i < MAX_RANK; i++) dp.shape[i] = -1;
  PtoResult r = PTO_SUCCESS;
  bool splat = false, hex = false, empty = false;
  Token hex_tok = p->tok;
  if (tok_is(p, T_GREATER)) {
    empty = true;
  } else if (tok_is(p, T_STRING)) {
    hex = true;
    advance(p);
  } else if (tok_is(p, T_LSQUARE)) {
    r = parse_dense_list(p, &dp, 0);
  } else {
    splat = true;
    r = parse_dense_elem(p, &dp);
  }
  if (!r) r = expect(p, T_GREATER, "'>'");
  PtoType *ty = NULL;
  if (!r) r = expect(p, T_COLON, "':' after dense elements literal");
  Token type_tok = p->tok;
  if (!r) r = pto_parser_parse_type(p, &ty);
  if (!r && (ty->kind != PTO_TYPE_TENSOR || !pto_type_tensor_is_static(ty)))
    r = pto_parser_error_at(p, tok_loc(p, &type_tok),
                            "elements literal must be a static "
                                     "tensor type");
  PtoType *et = r ? NULL : pto_type_tensor_elem(ty);
  if (!r && et->kind != PTO_TYPE_INTEGER && et->kind != PTO_TYPE_INDEX &&
      et->kind != PTO_TYPE_FLOAT)
    r = pto_parser_error_at(p, tok_loc(p, &type_tok),
                            "dense elements need an integer, index "
                                     "or float element type");
  if (r) {
    pto_vec_free(&dp.elems);
    return PTO_FAILURE;
  }
  int64_t numel = pto_type_tensor_numel(ty);
  size_t eb = pto_dense_elem_bytes(et);
  if (numel < 0 || (uint64_t)numel > ((uint64_t)1 << 32)) {
    pto_vec_free(&dp.elems);
    return pto_parser_error_at(p, tok_loc(p, &type_tok),
                               "elements literal type is too large");
  }
  if (hex) {
    decode_string(p, &hex_tok, &p->scratch);
    const char *s = p->scratch.data;
    size_t n = p->scratch.len;
    if (n < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || (n - 2) % 2) {
      pto_vec_free(&dp.elems);
      return pto_parser_error_at(p, tok_loc(p, &hex_tok),
                                 "expected hex string of the form \"0x...\"");
    }
    size_t nb = (n - 2) / 2;
    unsigned char *buf = pto_malloc(nb ? nb : 1);
    for (size_t i = 0; i < nb; i++) {
      int hi = hexval(s[2 + 2 * i]), lo = hexval(s[3 + 2 * i]);
      if (hi < 0 || lo < 0) {
        pto_free(buf);
        return pto_parser_error_at(p, tok_loc(p, &hex_tok),
                                   "expected hex string of the form \"0x...\"");
      }
      buf[i] = (unsigned char)(hi * 16 + lo);
    }
    bool is_splat = nb == eb && numel != 1;
    if (nb != (size_t)numel * eb && !is_splat) {
      pto_free(buf);
      return pto_parser_error_at(p, tok_loc(p, &hex_tok),
                                 "elements hex data size is invalid for "
                                 "provided type");
    }
    *out = pto_attr_dense(p->ctx, ty, buf, nb, is_splat);
    pto_free(buf);
    return PTO_SUCCESS;
  }
  for (uint32_t i = 0; i < dp.elems.len; i++)
    if (check_dense_lit(p, et, &dp.elems.data[i])) {
      pto_vec_free(&dp.elems);
      return PTO_FAILURE;
    }
  if (empty) {
    if (numel != 0) {
      pto_vec_free(&dp.elems);
      return pto_parser_error_at(p, tok_loc(p, &dense_tok),
                                 "expected %lld elements in literal "
                                         "but found none",
                                 (long long)numel);
    }
    *out = pto_attr_dense(p->ctx, ty, NULL, 0, false);
    return PTO_SUCCESS;
  }
  if (splat) {
    unsigned char buf[8];
    store_elem(buf, et, &dp.elems.data[0]);
    pto_vec_free(&dp.elems);
    *out = pto_attr_dense(p->ctx, ty, buf, eb, true);
    return PTO_SUCCESS;
  }
  /* shape check */
  unsigned rank = pto_type_tensor_rank(ty);
  bool shape_ok = dp.rank == rank ||
                  (rank == 0 && dp.rank == 1 && dp.shape[0] == 1);
  for (unsigned i = 0; shape_ok && i < rank && i < dp.rank; i++)
    shape_ok = dp.shape[i] == pto_type_tensor_dim(ty, i);
  if (!shape_ok) {
    PtoStr s;
    pto_str_init(&s);
    pto_str_putc(&s, '[');
    for (unsigned i = 0; i < dp.rank; i++)
      pto_str_printf(&s, "%s%lld", i ? ", " : "", (long long)dp.shape[i]);
    pto_str_puts(&s, "]) does not match type ([");
    for (unsigned i = 0; i < rank; i++)
      pto_str_printf(&s, "%s%lld", i ? ", " : "",
                     (long long)pto_type_tensor_dim(ty, i));
    pto_str_putc(&s, ']');
    pto_parser_error_at(p, tok_loc(p, &dense_tok),
                        "inferred shape of elements literal (%s)",
                        s.data);
    pto_str_release(&s);
    pto_vec_free(&dp.elems);
    return PTO_FAILURE;
  }
  size_t bytes = dp.elems.len * eb;
  unsigned char *buf = pto_malloc(bytes ? bytes : 1);
  for (uint32_t i = 0; i < dp.elems.len; i++)
    store_elem(buf + i * eb, et, &dp.elems.data[i]);
  *out = pto_attr_dense(p->ctx, ty, buf, bytes, false);
  pto_free(buf);
  pto_vec_free(&dp.elems);
  return PTO_SUCCESS;
}

/* `#alias`, `#d.name<...>` */
static PtoResult parse_hash_attr(PtoParser *p, PtoAttr **out) {
  Token t = p->tok;
  const char *s = t.p + 1;
  size_t n = t.len - 1;
  PtoAttr *alias = pto_strmap_get(&p->attr_aliases, s, n);
  if (alias) {
    advance(p);
    *out = alias;
    return PTO_SUCCESS;
  }
  const char *dot = memchr(s, '.', n);
  if (!dot) {
    advance(p);
    if (!tok_is(p, T_LESS))
      return pto_parser_error_at(p, tok_loc(p, &t),
                                 "undefined symbol alias id '%.*s'", (int)n, s);
    return parse_opaque_symbol(p, &t, false, (void **)out);
  }
  PtoIdent *dialect, *mnem;
  if (split_dialect_symbol(p, &t, dot, "attribute", &dialect, &mnem))
    return PTO_FAILURE;
  advance(p);
  const PtoDialectDef *d = dialect->dialect;
  if (d && d->parse_attr) {
    if (enter_nested(p)) return PTO_FAILURE;
    PtoAttr *a = d->parse_attr(p, mnem->str);
    leave_nested(p);
    if (!a) {
      if (!p->failed)
        pto_parser_error_at(p, tok_loc(p, &t), "invalid '%s' attribute",
                            mnem->str);
      return PTO_FAILURE;
    }
    *out = a;
    return PTO_SUCCESS;
  }
  if (d)
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "dialect '%s' provides no attribute '%s'",
                               dialect->str, mnem->str);
  if (check_unregistered_allowed(p, &t, dialect, "attribute"))
    return PTO_FAILURE;
  const char *body = NULL;
  size_t blen = 0;
  if (tok_is(p, T_LESS) && capture_angle_body(p, &body, &blen))
    return PTO_FAILURE;
  *out = pto_attr_opaque(p->ctx, dialect->str, mnem->str, body, blen);
  return PTO_SUCCESS;
}

static PtoResult parse_attr_name(PtoParser *p, PtoIdent **out) {
  if (tok_is(p, T_BARE_ID)) {
    *out = pto_ident(p->ctx, p->tok.p, p->tok.len);
  } else if (tok_is(p, T_STRING)) {
    decode_string(p, &p->tok, &p->scratch);
    if (p->scratch.len == 0)
      return pto_parser_error(p, "expected valid attribute name");
    *out = pto_ident(p->ctx, p->scratch.data, p->scratch.len);
  } else {
    return pto_parser_error(p, "expected attribute name");
  }
  advance(p);
  return PTO_SUCCESS;
}

/* `{a = 1, b}` into a vector of named attributes (later duplicates are an
 * error, as in MLIR). */
static PtoResult parse_attr_dict_entries(PtoParser *p, PtoNamedAttr **out,
                                         unsigned *n) {
  PTO_SMALL_VEC(PtoNamedAttr, 8) v;
  pto_small_vec_init(&v);
  if (expect(p, T_LBRACE, NULL)) return PTO_FAILURE;
  PtoResult r = PTO_SUCCESS;
  if (!tok_is(p, T_RBRACE)) {
    do {
      Token nt = p->tok;
      PtoNamedAttr na;
      if ((r = parse_attr_name(p, &na.name))) break;
      for (uint32_t i = 0; i < v.len; i++)
        if (v.data[i].name == na.name) {
          r = pto_parser_error_at(p, tok_loc(p, &nt),
                                  "duplicate key '%s' in dictionary attribute",
                                  na.name->str);
          break;
        }
      if (r) break;
      if (consume_if(p, T_EQUAL)) {
        if ((r = parse_attr(p, NULL, &na.value))) break;
      } else {
        na.value = p->ctx->a_unit;
      }
      pto_small_vec_push(&v, na);
    } while (consume_if(p, T_COMMA));
  }
  if (!r) r = expect(p, T_RBRACE, NULL);
  if (!r) {
    *out = pto_arena_memdup(&p->tmp, v.data, v.len * sizeof *v.data);
    *n = v.len;
  }
  pto_small_vec_free(&v);
  return r;
}

static PtoResult parse_attr_impl(PtoParser *p, PtoType *hint, PtoAttr **out) {
  PtoContext *ctx = p->ctx;
  switch (p->tok.kind) {
  case T_INTEGER:
  case T_FLOAT:
  case T_MINUS:
    return parse_number_attr(p, hint, out);
  case T_STRING: {
    decode_string(p, &p->tok, &p->scratch);
    *out = pto_attr_string(ctx, p->scratch.data, p->scratch.len);
    advance(p);
    if (consume_if(p, T_COLON)) { /* typed strings: type is ignored */
      PtoType *t;
      return pto_parser_parse_type(p, &t);
    }
    return PTO_SUCCESS;
  }
  case T_LSQUARE: {
    advance(p);
    PTO_SMALL_VEC(PtoAttr *, 8) v;
    pto_small_vec_init(&v);
    PtoResult r = PTO_SUCCESS;
    if (!tok_is(p, T_RSQUARE)) {
      do {
        PtoAttr *e;
        r = parse_attr(p, NULL, &e);
        if (r) break;
        pto_small_vec_push(&v, e);
      } while (consume_if(p, T_COMMA));
    }
    if (!r) r = expect(p, T_RSQUARE, NULL);
    if (!r) *out = pto_attr_array(ctx, v.data, v.len);
    pto_small_vec_free(&v);
    return r;
  }
  case T_LBRACE: {
    PtoNamedAttr *e;
    unsigned n;
    PtoArenaMark m = pto_arena_mark(&p->tmp);
    PtoResult r = parse_attr_dict_entries(p, &e, &n);
    if (!r) *out = pto_attr_dict(ctx, e, n);
    pto_arena_reset(&p->tmp, m);
    return r;
  }
  case T_AT_ID: {
    PtoIdent *root = symbol_ident(p, &p->tok);
    advance(p);
    PTO_VEC(PtoIdent *) nested = {0};
    while (tok_is(p, T_COLON)) {
      /* `::` lexes as two colons */
      Lexer save = p->lex;
      Token t2 = lexer_next(&p->lex);
      if (t2.kind != T_COLON || t2.p != p->tok.p + 1) {
        p->lex = save;
        break;
      }
      advance(p);
      if (!tok_is(p, T_AT_ID)) {
        pto_vec_free(&nested);
        return pto_parser_error(p, "expected nested symbol reference identifier");
      }
      pto_vec_push(&nested, symbol_ident(p, &p->tok));
      advance(p);
    }
    *out = pto_attr_symref(ctx, root, nested.data, nested.len);
    pto_vec_free(&nested);
    return PTO_SUCCESS;
  }
  case T_HASH_ID:
    return parse_hash_attr(p, out);
  case T_BARE_ID:
    if (tok_is_kw(p, "true") || tok_is_kw(p, "false")) {
      *out = tok_is_kw(p, "true") ? ctx->a_true : ctx->a_false;
      advance(p);
      return PTO_SUCCESS;
    }
    if (tok_is_kw(p, "unit")) {
      *out = ctx->a_unit;
      advance(p);
      return PTO_SUCCESS;
    }
    if (tok_is_kw(p, "dense")) return parse_dense_attr(p, out);
    goto as_type;
  default:
  as_type: {
    PtoType *t;
    if (p->tok.kind != T_BARE_ID && p->tok.kind != T_LPAREN &&
        p->tok.kind != T_EXCL_ID)
      return pto_parser_error(p, "expected attribute value");
    if (pto_parser_parse_type(p, &t)) return PTO_FAILURE;
    *out = pto_attr_type(ctx, t);
    return PTO_SUCCESS;
  }
  }
}

static PtoResult parse_attr(PtoParser *p, PtoType *hint, PtoAttr **out) {
  if (enter_nested(p)) return PTO_FAILURE;
  PtoResult r = parse_attr_impl(p, hint, out);
  leave_nested(p);
  return r;
}

PtoResult pto_parser_parse_attr(PtoParser *p, PtoType *type_hint,
                                PtoAttr **out) {
  return parse_attr(p, type_hint, out);
}

PtoResult pto_parser_parse_optional_attr_dict(PtoParser *p, PtoOpState *st) {
  if (!tok_is(p, T_LBRACE)) return PTO_SUCCESS;
  PtoNamedAttr *e;
  unsigned n;
  PtoArenaMark m = pto_arena_mark(&p->tmp);
  PtoResult r = parse_attr_dict_entries(p, &e, &n);
  if (!r)
    for (unsigned i = 0; i < n; i++) pto_op_state_set_attr(st, e[i].name, e[i].value);
  pto_arena_reset(&p->tmp, m);
  return r;
}

PtoResult pto_parser_parse_optional_attr_dict_with_keyword(PtoParser *p,
                                                           PtoOpState *st) {
  if (!pto_parser_optional_keyword(p, "attributes")) return PTO_SUCCESS;
  if (!tok_is(p, T_LBRACE)) return pto_parser_error(p, "expected '{'");
  return pto_parser_parse_optional_attr_dict(p, st);
}

/* ------------------------------------------------------------------ */
/* Locations                                                            */
/* ------------------------------------------------------------------ */

static PtoResult parse_loc_inner(PtoParser *p, PtoLoc **out);

static PtoResult parse_loc_inner(PtoParser *p, PtoLoc **out) {
  if (enter_nested(p)) return PTO_FAILURE;
  PtoResult r = PTO_SUCCESS;
  PtoContext *ctx = p->ctx;
  if (tok_is_kw(p, "unknown")) {
    advance(p);
    *out = ctx->l_unknown;
  } else if (tok_is(p, T_STRING)) {
    decode_string(p, &p->tok, &p->scratch);
    PtoIdent *s = pto_ident(ctx, p->scratch.data, p->scratch.len);
    advance(p);
    if (consume_if(p, T_COLON)) {
      int64_t line, col = 0;
      if ((r = pto_parser_parse_integer(p, &line))) goto done;
      if ((r = expect(p, T_COLON, "':' in file location"))) goto done;
      if ((r = pto_parser_parse_integer(p, &col))) goto done;
      if (line < 0 || col < 0 || line > UINT32_MAX || col > UINT32_MAX) {
        r = pto_parser_error(p, "invalid line or column in location");
        goto done;
      }
      *out = pto_loc_file_id(ctx, s, (unsigned)line, (unsigned)col);
    } else if (consume_if(p, T_LPAREN)) {
      PtoLoc *child;
      if ((r = parse_loc_inner(p, &child))) goto done;
      if ((r = expect(p, T_RPAREN, "')' after child location"))) goto done;
      *out = pto_loc_name_id(ctx, s, child);
    } else {
      *out = pto_loc_name_id(ctx, s, NULL);
    }
  } else if (tok_is_kw(p, "callsite")) {
    advance(p);
    PtoLoc *callee, *caller;
    if ((r = expect(p, T_LPAREN, "'(' in callsite location"))) goto done;
    if ((r = parse_loc_inner(p, &callee))) goto done;
    if ((r = pto_parser_parse_keyword(p, "at"))) goto done;
    if ((r = parse_loc_inner(p, &caller))) goto done;
    if ((r = expect(p, T_RPAREN, "')' in callsite location"))) goto done;
    *out = pto_loc_callsite(ctx, callee, caller);
  } else if (tok_is_kw(p, "fused")) {
    advance(p);
    if (consume_if(p, T_LESS)) { /* metadata is accepted and dropped */
      PtoAttr *meta;
      if ((r = parse_attr(p, NULL, &meta))) goto done;
      if ((r = expect(p, T_GREATER, NULL))) goto done;
    }
    if ((r = expect(p, T_LSQUARE, "'[' in fused location"))) goto done;
    PTO_VEC(PtoLoc *) v = {0};
    if (!tok_is(p, T_RSQUARE)) {
      do {
        PtoLoc *l;
        if ((r = parse_loc_inner(p, &l))) break;
        pto_vec_push(&v, l);
      } while (consume_if(p, T_COMMA));
    }
    if (!r) r = expect(p, T_RSQUARE, NULL);
    if (!r) *out = pto_loc_fused(ctx, v.data, v.len);
    pto_vec_free(&v);
  } else if (tok_is(p, T_HASH_ID)) {
    PtoLoc *l = pto_strmap_get(&p->loc_aliases, p->tok.p + 1, p->tok.len - 1);
    if (!l) {
      bool attr = pto_strmap_get(&p->attr_aliases, p->tok.p + 1, p->tok.len - 1);
      r = pto_parser_error(p, attr ? "expected location, but '#%.*s' is an "
                                     "attribute alias"
                                   : "undefined location alias '#%.*s'",
                           (int)p->tok.len - 1, p->tok.p + 1);
      goto done;
    }
    advance(p);
    *out = l;
  } else {
    r = pto_parser_error(p, "expected location instance");
  }
done:
  leave_nested(p);
  return r;
}

/* `loc(...)` */
static PtoResult parse_loc(PtoParser *p, PtoLoc **out) {
  if (pto_parser_parse_keyword(p, "loc")) return PTO_FAILURE;
  if (expect(p, T_LPAREN, "'(' in location")) return PTO_FAILURE;
  if (parse_loc_inner(p, out)) return PTO_FAILURE;
  return expect(p, T_RPAREN, "')' in location");
}

/* The `loc(...)` after an op or block argument. `loc(#alias)` of an alias
 * not defined yet leaves *out unchanged and the alias token in *deferred
 * (kind T_HASH_ID) for resolve_deferred_locs. */
static PtoResult parse_trailing_loc(PtoParser *p, PtoLoc **out,
                                    Token *deferred) {
  deferred->kind = T_EOF;
  if (!tok_is_kw(p, "loc")) return PTO_SUCCESS;
  Lexer save = p->lex;
  Token loc_kw = p->tok, before = p->prev;
  advance(p);
  if (tok_is(p, T_LPAREN)) {
    advance(p);
    Token a = p->tok;
    if (a.kind == T_HASH_ID &&
        !pto_strmap_get(&p->loc_aliases, a.p + 1, a.len - 1) &&
        !pto_strmap_get(&p->attr_aliases, a.p + 1, a.len - 1)) {
      advance(p);
      *deferred = a;
      return expect(p, T_RPAREN, "')' in location");
    }
  }
  p->lex = save;
  p->tok = loc_kw;
  p->prev = before;
  return parse_loc(p, out);
}

static void defer_loc(PtoParser *p, PtoOp *op, PtoValue *arg,
                      const Token *alias) {
  if (alias->kind != T_HASH_ID) return;
  DeferredLoc d = {op, arg, *alias};
  pto_vec_push(&p->deferred_locs, d);
}

/* At the end of the input every deferred alias must have been defined. */
static PtoResult resolve_deferred_locs(PtoParser *p) {
  for (uint32_t i = 0; i < p->deferred_locs.len; i++) {
    DeferredLoc *d = &p->deferred_locs.data[i];
    PtoLoc *l = pto_strmap_get(&p->loc_aliases, d->alias.p + 1, d->alias.len - 1);
    if (!l) {
      bool attr =
          pto_strmap_get(&p->attr_aliases, d->alias.p + 1, d->alias.len - 1);
      return pto_parser_error_at(
          p, tok_loc(p, &d->alias),
          attr ? "expected location, but '#%.*s' is an attribute alias"
               : "location alias '#%.*s' is never defined",
          (int)d->alias.len - 1, d->alias.p + 1);
    }
    if (d->op)
      pto_op_set_loc(d->op, l);
    else
      ((PtoBlockArg *)d->arg)->loc = l;
  }
  return PTO_SUCCESS;
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
        if (parse_trailing_loc(p, &aloc, &deferred)) return PTO_FAILURE;
        if (define_block_arg(p, b, &name, ty, aloc)) return PTO_FAILURE;
        defer_loc(p, NULL, pto_block_arg(b, pto_block_num_args(b) - 1),
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
  decode_string(p, &nt, &p->scratch);
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
          r = pto_parser_error(p, "expected integer number of results");
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
  if (!r) r = parse_trailing_loc(p, &st.loc, &deferred_loc);
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
  defer_loc(p, op, NULL, &deferred_loc);
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
    if (parse_loc(p, &l)) return PTO_FAILURE;
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
  if (!r) r = resolve_deferred_locs(&p);
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
