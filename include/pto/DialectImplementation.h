/* What a dialect author writes against: op and dialect definitions (the
 * rows of a `.def` table and their hooks: verify, parse, print, fold,
 * canonicalize), dialect registration, and the parser and printer APIs for
 * custom assembly forms and dialect types and attributes. Code that only
 * reads, builds or transforms IR needs pto/IR.h alone. */
#ifndef PTO_DIALECTIMPLEMENTATION_H
#define PTO_DIALECTIMPLEMENTATION_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Operation definitions and dialects                                   */
/* ------------------------------------------------------------------ */

/* Operand/result/region/successor counts: a number, or PTO_VARIADIC(n)
 * meaning "n or more". */
#define PTO_VARIADIC(n) (-(n)-1)

/* fold: per result, either a constant attribute or an existing value. */
typedef struct PtoFoldResult {
  PtoAttr *attr;
  PtoValue *value;
} PtoFoldResult;

typedef PtoResult (*PtoOpVerifyFn)(PtoOp *op);
typedef PtoResult (*PtoOpParseFn)(PtoParser *p, PtoOpState *st);
typedef void (*PtoOpPrintFn)(PtoPrinter *p, PtoOp *op);
/* `operands[i]` is the constant attribute of operand i, or NULL. Returns
 * success when it produced results (or updated `op` in place, in which case
 * results[0] is {NULL, NULL}). */
typedef PtoResult (*PtoOpFoldFn)(PtoOp *op, PtoAttr *const *operands,
                                 PtoFoldResult *results);
/* Adds canonicalization patterns (Pass.h's PtoPatternSet). */
typedef void (*PtoOpCanonFn)(void *pattern_set, PtoContext *ctx);

struct PtoOpDef {
  const char *name; /* "dialect.op" */
  int16_t num_operands, num_results, num_regions, num_successors;
  uint32_t traits;
  PtoAffinity affinity;
  PtoOpVerifyFn verify;
  PtoOpParseFn parse; /* custom assembly; NULL: generic form only */
  PtoOpPrintFn print;
  PtoOpFoldFn fold;
  PtoOpCanonFn canonicalize;
  const char *summary;
};

/* X-macro helper: a dialect's ops come from one `.def` table whose rows are
 * PTO_OP(id, "d.op", operands, results, regions, traits, affinity, verify,
 * parse, print, fold, canonicalize, "summary"). */
#define PTO_OPDEF_ROW(id, nm, nop, nres, nreg, tr, aff, v, p, pr, f, c, s) \
  {nm, nop, nres, nreg, 0, tr, aff, v, p, pr, f, c, s},

typedef PtoType *(*PtoTypeParseFn)(PtoParser *p, const char *mnemonic);
typedef void (*PtoTypePrintFn)(PtoPrinter *p, PtoType *t);
typedef PtoAttr *(*PtoAttrParseFn)(PtoParser *p, const char *mnemonic);
typedef void (*PtoAttrPrintFn)(PtoPrinter *p, PtoAttr *a);
/* Builds a constant op producing `value` of `type` (used by folding). */
typedef PtoOp *(*PtoMaterializeFn)(PtoContext *ctx, PtoAttr *value,
                                   PtoType *type, PtoLoc *loc);

struct PtoDialectDef {
  const char *name;
  const PtoOpDef *ops;
  unsigned num_ops;
  PtoTypeParseFn parse_type; /* after `!name.`: mnemonic already read */
  PtoTypePrintFn print_type; /* prints `mnemonic<...>` */
  PtoAttrParseFn parse_attr;
  PtoAttrPrintFn print_attr;
  PtoMaterializeFn materialize_constant;
  const char *summary;
  /* The attribute names its ops read on hot paths, interned once per
   * context when the dialect is registered (pto_op_dialect_attr_names);
   * may be NULL. */
  const char *const *attr_names;
  unsigned num_attr_names;
};

/* Registers a dialect (its op table, type/attribute hooks). Registering the
 * same definition twice is a no-op; a different dialect under an existing
 * name, or an op name registered twice, fails with a diagnostic. */
PtoResult pto_ctx_register_dialect(PtoContext *ctx, const PtoDialectDef *d);

/* The attribute names the op's dialect declares (PtoDialectDef.attr_names)
 * as identifiers of the op's context, in the declared order, so that an
 * accessor finds an attribute by pointer (pto_op_attr_id) with no string
 * compare and no lookup; NULL when the op's dialect declares none or the
 * op is unregistered. Constant time. */
PtoIdent *const *pto_op_dialect_attr_names(const PtoOp *op);

/* ------------------------------------------------------------------ */
/* Custom assembly forms                                                */
/* ------------------------------------------------------------------ */

/* ---- the parser API for custom assembly forms and dialect types ---- */

typedef struct PtoUnresolvedOperand {
  PtoIdent *name;      /* "%x" without the '%' */
  unsigned number;     /* result number after '#' */
  unsigned line, col;  /* where it is written: see pto_parser_operand_loc */
} PtoUnresolvedOperand;

/* A region argument declared by an op's syntax (e.g. `%i` of scf.for). */
typedef struct PtoRegionArg {
  PtoUnresolvedOperand name;
  PtoType *type;
  PtoLoc *loc; /* an explicit `loc(...)`; NULL: where the name is written */
} PtoRegionArg;

PtoContext *pto_parser_ctx(PtoParser *p);
PtoLoc *pto_parser_loc(PtoParser *p); /* location of the next token */
/* Where the next token starts, without making a location: keep it for a
 * diagnostic that may come later and make the location then with
 * pto_parser_pos_loc (a hook that parses every op or type should not make
 * a uniqued location up front). */
typedef struct PtoParserPos { unsigned line, col; } PtoParserPos;
PtoParserPos pto_parser_pos(PtoParser *p);
PtoLoc *pto_parser_pos_loc(PtoParser *p, PtoParserPos pos);
/* Location of an operand as written. Locations are uniqued and live as long
 * as the context, so the parser makes them on demand (for diagnostics)
 * rather than one per operand. */
PtoLoc *pto_parser_operand_loc(PtoParser *p, const PtoUnresolvedOperand *u);
/* Reports an error at the next token; returns PTO_FAILURE. */
PtoResult pto_parser_error(PtoParser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
PtoResult pto_parser_error_at(PtoParser *p, PtoLoc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Number of results written on the left-hand side of the op (`%a:2 = ...`
 * counts 2). */
unsigned pto_parser_num_results(PtoParser *p);

/* Punctuation. parse_* fail with a diagnostic, parse_optional_* return
 * whether it was there. */
typedef enum PtoPunct {
  PTO_P_COMMA, PTO_P_COLON, PTO_P_EQUAL, PTO_P_ARROW, PTO_P_LPAREN,
  PTO_P_RPAREN, PTO_P_LSQUARE, PTO_P_RSQUARE, PTO_P_LBRACE, PTO_P_RBRACE,
  PTO_P_LESS, PTO_P_GREATER, PTO_P_QUESTION, PTO_P_STAR, PTO_P_PLUS,
  PTO_P_MINUS, PTO_P_VBAR,
} PtoPunct;
PtoResult pto_parser_parse_punct(PtoParser *p, PtoPunct k);
bool pto_parser_optional_punct(PtoParser *p, PtoPunct k);
PtoResult pto_parser_parse_keyword(PtoParser *p, const char *kw);
bool pto_parser_optional_keyword(PtoParser *p, const char *kw);
/* Any bare identifier; returns its interned spelling. */
PtoResult pto_parser_parse_any_keyword(PtoParser *p, PtoIdent **out);
bool pto_parser_optional_any_keyword(PtoParser *p, PtoIdent **out);
PtoResult pto_parser_parse_integer(PtoParser *p, int64_t *out);
bool pto_parser_optional_integer(PtoParser *p, int64_t *out,
                                 PtoResult *status);
PtoResult pto_parser_parse_float(PtoParser *p, double *out);
PtoResult pto_parser_parse_string(PtoParser *p, char **out, size_t *len);
PtoResult pto_parser_parse_symbol_name(PtoParser *p, PtoIdent **out);
bool pto_parser_optional_symbol_name(PtoParser *p, PtoIdent **out,
                                     PtoResult *status);

PtoResult pto_parser_parse_operand(PtoParser *p, PtoUnresolvedOperand *out);
bool pto_parser_optional_operand(PtoParser *p, PtoUnresolvedOperand *out,
                                 PtoResult *status);
/* Comma-separated operands until something that is not an operand. The
 * array is allocated by the parser and freed with it. */
PtoResult pto_parser_parse_operand_list(PtoParser *p,
                                        PtoUnresolvedOperand **out,
                                        unsigned *n);
/* Resolves to a value of the given type and appends it to the state. */
PtoResult pto_parser_resolve_operand(PtoParser *p,
                                     const PtoUnresolvedOperand *u,
                                     PtoType *type, PtoOpState *st);
/* A count mismatch is reported at `loc`, or at the op when it is NULL. */
PtoResult pto_parser_resolve_operands(PtoParser *p,
                                      const PtoUnresolvedOperand *u,
                                      unsigned n, PtoType *const *types,
                                      unsigned ntypes, PtoLoc *loc,
                                      PtoOpState *st);
PtoResult pto_parser_parse_region_arg(PtoParser *p, PtoRegionArg *out);

PtoResult pto_parser_parse_type(PtoParser *p, PtoType **out);
PtoResult pto_parser_parse_colon_type(PtoParser *p, PtoType **out);
/* Comma-separated types, possibly empty when `allow_empty`. */
PtoResult pto_parser_parse_type_list(PtoParser *p, PtoType ***out,
                                     unsigned *n);
/* `(t1, t2)` or a single type without parens; used for result lists. */
PtoResult pto_parser_parse_function_result_types(PtoParser *p,
                                                 PtoType ***out, unsigned *n);
/* `4x?x8x` (each dimension followed by 'x'), stops before the element
 * type. Dynamic dims are PTO_DYN when allowed. */
PtoResult pto_parser_parse_dimension_list(PtoParser *p, int64_t *dims,
                                          unsigned cap, unsigned *rank,
                                          bool allow_dynamic);

/* type_hint: type for untyped integer/float literals, or NULL. */
PtoResult pto_parser_parse_attr(PtoParser *p, PtoType *type_hint,
                                PtoAttr **out);
PtoResult pto_parser_parse_optional_attr_dict(PtoParser *p, PtoOpState *st);
/* `attributes {...}` form used after custom syntax. */
PtoResult pto_parser_parse_optional_attr_dict_with_keyword(PtoParser *p,
                                                           PtoOpState *st);

/* Parses `{ ... }` into `region`. `args` become the entry block's
 * arguments (declared by the op's syntax); when n == 0 an explicit entry
 * block label with arguments is accepted. An empty `{}` leaves the region
 * empty unless `args` are given. */
PtoResult pto_parser_parse_region(PtoParser *p, PtoRegion *region,
                                  const PtoRegionArg *args, unsigned n);
bool pto_parser_optional_region(PtoParser *p, PtoRegion *region,
                                const PtoRegionArg *args, unsigned n,
                                PtoResult *status);
PtoResult pto_parser_parse_successor(PtoParser *p, PtoBlock **out);

/* ---- the printer API for custom assembly forms ---- */

PtoContext *pto_printer_ctx(PtoPrinter *p);
void pto_printer_puts(PtoPrinter *p, const char *s);
void pto_printer_printf(PtoPrinter *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void pto_printer_print_int(PtoPrinter *p, int64_t v);
void pto_printer_print_operand(PtoPrinter *p, PtoValue *v);
/* Operands [start, start+n) of op, comma-separated. */
void pto_printer_print_operands(PtoPrinter *p, PtoOp *op, unsigned start,
                                unsigned n);
void pto_printer_print_values(PtoPrinter *p, PtoValue *const *v, unsigned n);
void pto_printer_print_type(PtoPrinter *p, PtoType *t);
void pto_printer_print_types(PtoPrinter *p, PtoType *const *t, unsigned n);
/* Types of the op's results: `t` or `(t1, t2)`. */
void pto_printer_print_result_types(PtoPrinter *p, PtoOp *op);
void pto_printer_print_attr(PtoPrinter *p, PtoAttr *a);
/* Without the `: type` suffix for integer/float attributes. */
void pto_printer_print_attr_no_type(PtoPrinter *p, PtoAttr *a);
void pto_printer_print_symbol_name(PtoPrinter *p, PtoIdent *name);
void pto_printer_print_string(PtoPrinter *p, const char *s, size_t len);
void pto_printer_print_dims(PtoPrinter *p, const int64_t *dims, unsigned rank);
/* ` {a = 1, b}` with the named attributes elided; nothing if none left. */
void pto_printer_print_attr_dict(PtoPrinter *p, PtoOp *op,
                                 const char *const *elided, unsigned n);
void pto_printer_print_attr_dict_with_keyword(PtoPrinter *p, PtoOp *op,
                                              const char *const *elided,
                                              unsigned n);
/* Prints ` {` region `}`; the entry block's label and arguments are printed
 * only when `print_entry_args` (ops whose syntax declares them omit it). */
void pto_printer_print_region(PtoPrinter *p, PtoRegion *r,
                              bool print_entry_args,
                              bool print_empty_terminator);
void pto_printer_print_successor(PtoPrinter *p, PtoBlock *b);
void pto_printer_print_block_arg_decl(PtoPrinter *p, PtoValue *arg);

#ifdef __cplusplus
}
#endif
#endif
