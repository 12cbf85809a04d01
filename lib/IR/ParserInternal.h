/* What the parser's files (Parser.c: tokens, literals, names, regions and
 * ops; ParseTypes.c; ParseAttributes.c: attributes and locations) share:
 * the parser's state and its token helpers. Private to lib/IR. */
#ifndef PTO_IR_PARSERINTERNAL_H
#define PTO_IR_PARSERINTERNAL_H

#include "IR/IRInternal.h"
#include "IR/Lexer.h"

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

/* ---- tokens and errors (Parser.c) ---- */

/* "expected <what>" (or the punctuation's spelling) at the next token. */
PtoResult pto_parser_expected(PtoParser *p, TokKind k, const char *what);

static inline void advance(PtoParser *p) {
  p->prev = p->tok;
  p->tok = lexer_next(&p->lex);
}

/* Locations are made only when kept in the IR or reported: each is a
 * uniqued object that lives as long as the context. */
static inline PtoLoc *pos_loc(PtoParser *p, uint32_t line, uint32_t col) {
  return pto_loc_file_id(p->ctx, p->file, line, col);
}

static inline PtoLoc *tok_loc(PtoParser *p, const Token *t) {
  return pos_loc(p, t->line, t->col);
}

static inline bool tok_is(PtoParser *p, TokKind k) { return p->tok.kind == k; }

static inline bool tok_is_kw(PtoParser *p, const char *kw) {
  size_t n = strlen(kw);
  return p->tok.kind == T_BARE_ID && p->tok.len == n &&
         memcmp(p->tok.p, kw, n) == 0;
}

static inline bool consume_if(PtoParser *p, TokKind k) {
  if (p->tok.kind != k) return false;
  advance(p);
  return true;
}

/* Recursion through regions, types, attributes and locations is bounded so
 * that adversarial input cannot exhaust the stack. */
static inline PtoResult enter_nested(PtoParser *p) {
  if (p->depth >= MAX_NESTING)
    return pto_parser_error(p, "nesting too deep (at most %d levels of "
                               "regions, types, attributes and locations)",
                            MAX_NESTING);
  p->depth++;
  return PTO_SUCCESS;
}

static inline void leave_nested(PtoParser *p) { p->depth--; }

static inline PtoResult expect(PtoParser *p, TokKind k, const char *what) {
  if (consume_if(p, k)) return PTO_SUCCESS;
  return pto_parser_expected(p, k, what);
}

/* ---- literals (Parser.c) ---- */

/* Parses the integer token's spelling (decimal or hex) into an unsigned
 * magnitude; false on overflow. */
bool pto_tok_uint(const Token *t, uint64_t *out);
bool pto_tok_is_hex(const Token *t);
double pto_tok_double(const Token *t);
/* Decodes a string token's contents into `out`. */
void pto_tok_decode_string(PtoParser *p, const Token *t, PtoStr *out);
/* The symbol a `@name` or `@"name"` token spells. */
PtoIdent *pto_tok_symbol_ident(PtoParser *p, const Token *t);

/* ---- dialect symbols (ParseTypes.c), shared with attributes ---- */

/* Captures a balanced `<...>` body verbatim (for unregistered dialects). */
PtoResult pto_parser_capture_angle_body(PtoParser *p, const char **body,
                                        size_t *len);
/* The `dialect` and `name` of a `!dialect.name` or `#dialect.name` token
 * (`dot` is its first '.'): the dialect an identifier, the name not empty. */
PtoResult pto_parser_split_dialect_symbol(PtoParser *p, const Token *t,
                                          const char *dot, const char *what,
                                          PtoIdent **dialect, PtoIdent **name);
/* Types and attributes (`what`) of unregistered dialects need the flag. */
PtoResult pto_parser_check_unregistered(PtoParser *p, const Token *t,
                                        const PtoIdent *dialect,
                                        const char *what);
/* MLIR's opaque form `!dialect<"name<body>">` (or `#dialect<...>`). */
PtoResult pto_parser_opaque_symbol(PtoParser *p, const Token *t, bool is_type,
                                   void **out);

/* ---- attributes and locations (ParseAttributes.c) ---- */

/* An attribute (`hint`: the type an untyped literal takes), one level of
 * nesting deeper. */
PtoResult pto_parser_attr_nested(PtoParser *p, PtoType *hint, PtoAttr **out);
/* `loc(...)` */
PtoResult pto_parser_location(PtoParser *p, PtoLoc **out);
/* The `loc(...)` after an op or block argument. `loc(#alias)` of an alias
 * not defined yet leaves *out unchanged and the alias token in *deferred
 * (kind T_HASH_ID) for pto_parser_resolve_deferred_locs. */
PtoResult pto_parser_trailing_loc(PtoParser *p, PtoLoc **out, Token *deferred);
/* Records a location alias to resolve at the end of the input. */
void pto_parser_defer_loc(PtoParser *p, PtoOp *op, PtoValue *arg,
                          const Token *alias);
/* At the end of the input every deferred alias must have been defined. */
PtoResult pto_parser_resolve_deferred_locs(PtoParser *p);

#endif
