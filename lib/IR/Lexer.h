/* Tokens of the textual IR (MLIR's lexical structure). */
#ifndef PTO_IR_LEXER_H
#define PTO_IR_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum TokKind {
  T_EOF,
  T_ERROR,
  T_BARE_ID,    /* foo, i32, arith.addi */
  T_PERCENT_ID, /* %x */
  T_CARET_ID,   /* ^bb0 */
  T_AT_ID,      /* @sym or @"sym" */
  T_HASH_ID,    /* #alias, #d.attr */
  T_EXCL_ID,    /* !alias, !d.type */
  T_INTEGER,
  T_FLOAT,
  T_STRING,
  T_COMMA,
  T_COLON,
  T_EQUAL,
  T_ARROW,
  T_LPAREN,
  T_RPAREN,
  T_LSQUARE,
  T_RSQUARE,
  T_LBRACE,
  T_RBRACE,
  T_LESS,
  T_GREATER,
  T_QUESTION,
  T_STAR,
  T_PLUS,
  T_MINUS,
  T_VBAR,
  T_ELLIPSIS,
  T_FILE_META_BEGIN, /* {-# */
  T_FILE_META_END,   /* #-} */
} TokKind;

typedef struct Token {
  TokKind kind;
  const char *p;
  uint32_t len;
  uint32_t line, col;
  const char *err; /* T_ERROR: message */
} Token;

typedef struct Lexer {
  const char *start, *cur, *end;
  uint32_t line;
  const char *line_start;
} Lexer;

void lexer_init(Lexer *lx, const char *text, size_t len, unsigned first_line);
Token lexer_next(Lexer *lx);
/* Moves the lexer to `p` (which lies on the line of `tok`). */
void lexer_reset_to(Lexer *lx, const char *p, const Token *tok);

#endif
