/* Pieces shared by the dialects in lib/Dialect: diagnostics that mention
 * types, the `%a, %b : t1, t2` operand lists of terminators, and scalar
 * type predicates. Private to the library. */
#ifndef PTO_DIALECT_UTILS_H
#define PTO_DIALECT_UTILS_H

#include "pto/IR.h"
#include "pto/DialectImplementation.h"

/* Starts an error "'op.name' op <message>" at the op. The format accepts
 * %s %d %u %lld %% and two extras: %T prints a PtoType * and %A a
 * PtoAttr *, as they appear in the IR. Emit with pto_diag_emit (after
 * attaching notes). */
PtoDiag *pto_dialect_op_diag(PtoOp *op, const char *fmt, ...);
/* Same, emitted at once; returns PTO_FAILURE. */
PtoResult pto_dialect_op_error(PtoOp *op, const char *fmt, ...);

/* The form of terminators that pass values on (scf.yield, func.return):
 * `{attrs} %a, %b : t1, t2`, each part optional. Usable as parse/print
 * hooks. */
PtoResult pto_dialect_parse_terminator(PtoParser *p, PtoOpState *st);
void pto_dialect_print_terminator(PtoPrinter *p, PtoOp *op);

/* Parses `@callee(%a, %b) {attrs} :` (the operands are left unresolved
 * for the types that follow) and sets the `callee` attribute. */
PtoResult pto_dialect_parse_symbol_call(PtoParser *p, PtoOpState *st,
                                        PtoUnresolvedOperand **ops,
                                        unsigned *n);
/* ` @callee(%a, %b) {attrs} : (t1, t2)`: the form of ops that pass their
 * operands to a symbol (func.call adds ` -> results`, block.launch has
 * none). */
void pto_dialect_print_symbol_call(PtoPrinter *p, PtoOp *op);

/* `iN` without signedness. */
bool pto_type_is_signless_int(const PtoType *t);
/* `iN` without signedness, or `index`. */
bool pto_type_is_signless_int_or_index(const PtoType *t);

/* Appends `terminator_name` (no operands) to every block of `r` that does
 * not end in a terminator, as custom forms that elide it require; an empty
 * region first gets a block. */
void pto_dialect_ensure_terminator(PtoContext *ctx, PtoRegion *r,
                                   const char *terminator_name, PtoLoc *loc);

#endif
