/* Lexer for the textual IR. Tokens point into the source buffer. */
#include "IR/Lexer.h"

#include <string.h>

void lexer_init(Lexer *lx, const char *text, size_t len, unsigned first_line) {
  lx->start = lx->cur = text;
  lx->end = text + len;
  lx->line = first_line ? first_line : 1;
  /* a UTF-8 byte-order mark (editors on Windows write one) is no token;
   * columns count from after it */
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) lx->cur += 3;
  lx->line_start = lx->cur;
}

void lexer_reset_to(Lexer *lx, const char *p, const Token *tok) {
  lx->cur = p;
  lx->line = tok->line;
  lx->line_start = tok->p - (tok->col - 1);
}

/* Character classes of the syntax, independent of the C locale (and
 * cheaper than <ctype.h>, which the lexer would call for every byte). */
static bool is_alpha(char c) { return (unsigned)((c | 0x20) - 'a') < 26; }
static bool is_digit(char c) { return (unsigned)(c - '0') < 10; }
static bool is_xdigit(char c) {
  return is_digit(c) || (unsigned)((c | 0x20) - 'a') < 6;
}
static bool is_id_start(char c) { return is_alpha(c) || c == '_'; }
static bool is_bare_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.';
}
static bool is_suffix_char(char c) { return is_bare_char(c) || c == '-'; }

static Token make(Lexer *lx, TokKind k, const char *s) {
  Token t;
  t.kind = k;
  t.p = s;
  t.len = (uint32_t)(lx->cur - s);
  t.line = lx->line;
  t.col = (uint32_t)(s - lx->line_start) + 1;
  t.err = NULL;
  return t;
}

static Token error_tok(Lexer *lx, const char *s, const char *msg) {
  Token t = make(lx, T_ERROR, s);
  t.err = msg;
  return t;
}

static void skip_ws(Lexer *lx) {
  for (;;) {
    while (lx->cur < lx->end) {
      char c = *lx->cur;
      if (c == '\n') {
        lx->cur++;
        lx->line++;
        lx->line_start = lx->cur;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        lx->cur++;
      } else {
        break;
      }
    }
    if (lx->end - lx->cur >= 2 && lx->cur[0] == '/' && lx->cur[1] == '/') {
      const char *nl = memchr(lx->cur, '\n', (size_t)(lx->end - lx->cur));
      lx->cur = nl ? nl : lx->end;
      continue;
    }
    return;
  }
}

/* After a sigil: a suffix-id (digits, or identifier characters incl. '-'),
 * or, for '@', a quoted string. */
static Token lex_prefixed(Lexer *lx, const char *s, TokKind k) {
  const char *p = lx->cur; /* just after the sigil */
  if (p < lx->end && is_digit(*p)) {
    while (p < lx->end && is_digit(*p)) p++;
  } else if (p < lx->end && (is_id_start(*p) || *p == '$' || *p == '.' ||
                             *p == '-')) {
    while (p < lx->end && is_suffix_char(*p)) p++;
  } else {
    lx->cur = p;
    switch (k) {
    case T_PERCENT_ID:
      return error_tok(lx, s, "invalid SSA name");
    case T_CARET_ID:
      return error_tok(lx, s, "invalid block name");
    default:
      return error_tok(lx, s, "invalid identifier");
    }
  }
  lx->cur = p;
  return make(lx, k, s);
}

static Token lex_string(Lexer *lx, const char *s) {
  const char *p = lx->cur; /* after the opening quote */
  while (p < lx->end) {
    char c = *p;
    if (c == '"') {
      lx->cur = p + 1;
      return make(lx, T_STRING, s);
    }
    if (c == '\n') break;
    if (c == '\\') {
      p++;
      if (p >= lx->end) break;
      char e = *p;
      if (e == '"' || e == '\\' || e == 'n' || e == 't') {
        p++;
      } else if (is_xdigit(e) && p + 1 < lx->end &&
                 is_xdigit(p[1])) {
        p += 2;
      } else {
        lx->cur = p;
        return error_tok(lx, s, "unknown escape in string literal");
      }
      continue;
    }
    p++;
  }
  lx->cur = p;
  return error_tok(lx, s, "expected '\"' in string literal");
}

static Token lex_number(Lexer *lx, const char *s) {
  const char *p = s;
  if (p + 1 < lx->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
      p + 2 < lx->end && is_xdigit(p[2])) {
    p += 2;
    while (p < lx->end && is_xdigit(*p)) p++;
    lx->cur = p;
    return make(lx, T_INTEGER, s);
  }
  while (p < lx->end && is_digit(*p)) p++;
  if (p < lx->end && *p == '.') {
    p++;
    while (p < lx->end && is_digit(*p)) p++;
    if (p < lx->end && (*p == 'e' || *p == 'E')) {
      const char *q = p + 1;
      if (q < lx->end && (*q == '+' || *q == '-')) q++;
      if (q < lx->end && is_digit(*q)) {
        while (q < lx->end && is_digit(*q)) q++;
        p = q;
      }
    }
    lx->cur = p;
    return make(lx, T_FLOAT, s);
  }
  lx->cur = p;
  return make(lx, T_INTEGER, s);
}

Token lexer_next(Lexer *lx) {
  skip_ws(lx);
  const char *s = lx->cur;
  if (s >= lx->end) return make(lx, T_EOF, s);
  char c = *lx->cur++;
  switch (c) {
  case ',':
    return make(lx, T_COMMA, s);
  case ':':
    return make(lx, T_COLON, s);
  case '=':
    return make(lx, T_EQUAL, s);
  case '(':
    return make(lx, T_LPAREN, s);
  case ')':
    return make(lx, T_RPAREN, s);
  case '[':
    return make(lx, T_LSQUARE, s);
  case ']':
    return make(lx, T_RSQUARE, s);
  case '{':
    if (lx->end - lx->cur >= 2 && lx->cur[0] == '-' && lx->cur[1] == '#') {
      lx->cur += 2;
      return make(lx, T_FILE_META_BEGIN, s);
    }
    return make(lx, T_LBRACE, s);
  case '}':
    return make(lx, T_RBRACE, s);
  case '<':
    return make(lx, T_LESS, s);
  case '>':
    return make(lx, T_GREATER, s);
  case '?':
    return make(lx, T_QUESTION, s);
  case '*':
    return make(lx, T_STAR, s);
  case '+':
    return make(lx, T_PLUS, s);
  case '|':
    return make(lx, T_VBAR, s);
  case '-':
    if (lx->cur < lx->end && *lx->cur == '>') {
      lx->cur++;
      return make(lx, T_ARROW, s);
    }
    return make(lx, T_MINUS, s);
  case '.':
    if (lx->end - lx->cur >= 2 && lx->cur[0] == '.' && lx->cur[1] == '.') {
      lx->cur += 2;
      return make(lx, T_ELLIPSIS, s);
    }
    return error_tok(lx, s, "unexpected character");
  case '"':
    return lex_string(lx, s);
  case '%':
    return lex_prefixed(lx, s, T_PERCENT_ID);
  case '^':
    return lex_prefixed(lx, s, T_CARET_ID);
  case '!':
    return lex_prefixed(lx, s, T_EXCL_ID);
  case '#':
    if (lx->end - lx->cur >= 2 && lx->cur[0] == '-' && lx->cur[1] == '}') {
      lx->cur += 2;
      return make(lx, T_FILE_META_END, s);
    }
    return lex_prefixed(lx, s, T_HASH_ID);
  case '@':
    if (lx->cur < lx->end && *lx->cur == '"') {
      lx->cur++;
      Token t = lex_string(lx, s);
      if (t.kind == T_STRING) t.kind = T_AT_ID;
      return t;
    }
    if (lx->cur < lx->end && (is_id_start(*lx->cur))) {
      while (lx->cur < lx->end && is_bare_char(*lx->cur)) lx->cur++;
      return make(lx, T_AT_ID, s);
    }
    return error_tok(lx, s, "invalid symbol name");
  default:
    if (is_id_start(c)) {
      while (lx->cur < lx->end && is_bare_char(*lx->cur)) lx->cur++;
      return make(lx, T_BARE_ID, s);
    }
    if (is_digit(c)) {
      lx->cur = s;
      return lex_number(lx, s);
    }
    return error_tok(lx, s, "unexpected character");
  }
}
