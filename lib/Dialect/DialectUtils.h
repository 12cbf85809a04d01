/* Pieces shared by the dialects in lib/Dialect: diagnostics that mention
 * types, the `%a, %b : t1, t2` operand lists of terminators, and scalar
 * type predicates. Private to the library. */
#ifndef PTO_DIALECT_UTILS_H
#define PTO_DIALECT_UTILS_H

#include "pto/IR.h"
#include "pto/DialectImplementation.h"
#include "pto/Dialect/Block.h"

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

/* Kernels (block.kernel, pto.kernel; lib/Dialect/Common/Kernel.c). The
 * form `vector @name(%a: tensor<..>, %i: index) attributes {..} { body }`,
 * whose blocks get `terminator` when it is elided. */
PtoResult pto_dialect_parse_kernel(PtoParser *p, PtoOpState *st,
                                   const char *terminator);
void pto_dialect_print_kernel(PtoPrinter *p, PtoOp *op);
/* `, vec` in a buffer type (!block.buf, !pto.tile): the memory space. */
PtoResult pto_dialect_parse_space(PtoParser *p, PtoBufSpace *out);
/* `32x32xf32, vec`: the dims, element type and space of a buffer type. */
void pto_dialect_print_buf_params(PtoPrinter *p, PtoType *t);
/* The kernel's `function_type`, or NULL. */
PtoType *pto_dialect_kernel_type(const PtoOp *k);
/* What every kernel must be: a `function_type` without results, a core
 * (vector or cube), in a module, GM tensor / index / scalar arguments
 * matching its entry block. */
PtoResult pto_dialect_verify_kernel(PtoOp *op);
/* The window of the tile-like `buf` (shape, element type) at the op's
 * `static_offsets` lies in `tensor`: same rank and element type, static
 * offsets inside static dims, one index operand per dynamic offset from
 * operand #first_dyn on. */
PtoResult pto_dialect_check_window(PtoOp *op, PtoType *buf, PtoType *tensor,
                                   unsigned first_dyn);
/* The same for a buffer placed in the tensor as tile.view places a tile
 * (pto_tile_window_shape): its trailing dims are the window's, the
 * window's other dims are 1, so the ranks may differ (block.load/store). */
PtoResult pto_dialect_check_tile_window(PtoOp *op, PtoType *buf,
                                        PtoType *tensor, unsigned first_dyn);

#endif
