/* Pieces of custom assembly shared by the dialects of every level: window
 * offsets (`%x[%i, 0]`), dynamic size lists (`(%n)`) and the common form
 *   %r = d.op operands (sizes) attr-dict : operand-types [-> result-types]
 * where operand types are written once when all are equal and the result
 * type is implied when it is the first operand's type. Private to
 * lib/Dialect. */
#ifndef PTO_DIALECT_COMMON_SYNTAX_H
#define PTO_DIALECT_COMMON_SYNTAX_H

#include "pto/Dialect/Common.h"

/* `[` (integer | %operand), ... `]`: static offsets with PTO_DYN where an
 * operand stands (dyn has room for PTO_MAX_RANK operands). */
PtoResult pto_syntax_parse_offsets(PtoParser *p, int64_t *offs, unsigned *n,
                                   PtoUnresolvedOperand *dyn, unsigned *ndyn);
void pto_syntax_print_offsets(PtoPrinter *p, const int64_t *offs, unsigned n,
                              PtoValue *const *dyn);
/* Resolves operands as `index` values. */
PtoResult pto_syntax_resolve_index(PtoParser *p, const PtoUnresolvedOperand *u,
                                   unsigned n, PtoOpState *st);

/* The window forms of ops that address a GM tensor:
 *   %a[offsets] [, %c] attr-dict : A [, C] -> R               (into = false)
 *   %a into %b[offsets] [, %c] attr-dict : A [, C] into B     (into = true)
 * `index` adds the `, %c` operand (an index tile) after the offsets.
 * Operands are resolved in the order a, b, c, then the dynamic offsets;
 * the offsets become `static_offsets`; the result type is R, or B. */
PtoResult pto_syntax_parse_window(PtoParser *p, PtoOpState *st, bool into,
                                  bool index);
/* Prints the window form of `op`, whose offsets are offs/dyn (dyn[i] the
 * operand of a dynamic offset, NULL for static ones). */
void pto_syntax_print_window(PtoPrinter *p, PtoOp *op, bool into, bool index,
                             const int64_t *offs, PtoValue *const *dyn,
                             unsigned n);

/* The forms of ops without results that address a GM window:
 *   %t, %A[offsets] attr-dict : T into A     (tile: block.store, pto.tstore)
 *   %A[offsets] attr-dict : A                (no tile: pto.tprefetch)
 * Operands: t, A, then the dynamic offsets (`static_offsets`). */
PtoResult pto_syntax_parse_gm_window(PtoParser *p, PtoOpState *st, bool tile);
void pto_syntax_print_gm_window(PtoPrinter *p, PtoOp *op, bool tile,
                                const int64_t *offs, PtoValue *const *dyn,
                                unsigned n);

/* The common form. `main` tells whether the op has main operands before
 * the optional `(sizes)`; `sizes` whether it accepts a size list (index
 * operands after the main ones). Without main operands the type after `:`
 * is the result type. */
PtoResult pto_syntax_parse_common(PtoParser *p, PtoOpState *st, bool main,
                                  bool sizes);
/* Prints the common form for an op whose first `nmain` operands are main
 * operands (the rest are sizes). Attributes in `elided` are not printed. */
void pto_syntax_print_common(PtoPrinter *p, PtoOp *op, unsigned nmain,
                             const char *const *elided, unsigned nelided);

#endif
