/* Private interface between the files of the pto dialect: the op table
 * and the hooks every row shares (they dispatch on the row's kind). */
#ifndef PTO_DIALECT_PTO_PTOINTERNAL_H
#define PTO_DIALECT_PTO_PTOINTERNAL_H

#include "Dialect/DialectUtils.h"
#include "pto/Dialect/Common.h"
#include "pto/Dialect/PTO.h"
#include "pto/DialectImplementation.h"

extern const PtoOpDef pto_pto_op_defs[PTO_PTO_NUM_OPS];

/* The element types a row accepts for its main operand (DTYPES column). */
typedef enum PtoPtoDtypes {
  PTO_PTO_DT_ANY,     /* every tile element type */
  PTO_PTO_DT_NUMERIC, /* f32 f16 bf16 i64 i32 i16 i8 ui32 ui16 ui8 */
  PTO_PTO_DT_FLOAT,   /* f32 f16 bf16 */
  PTO_PTO_DT_INT,     /* i64 i32 i16 i8 ui32 ui16 ui8 */
  PTO_PTO_DT_BOOL,    /* i1 (tsel's mask) */
  PTO_PTO_DT_MATMUL,  /* the (C, A, B) combinations of tmatmul */
} PtoPtoDtypes;
PtoPtoDtypes pto_pto_op_dtypes(PtoPtoOp id);

PtoResult pto_pto_verify(PtoOp *op);
PtoResult pto_pto_parse(PtoParser *p, PtoOpState *st);
void pto_pto_print(PtoPrinter *p, PtoOp *op);

PtoType *pto_pto_parse_type(PtoParser *p, const char *mnemonic);
void pto_pto_print_type(PtoPrinter *p, PtoType *t);

/* pto_pto_layout_map, saying in why (when not NULL) what is wrong. */
unsigned pto_pto_layout_explain(const PtoOp *op, int64_t *out_shape,
                                int64_t *src_stride, char *why, size_t cap);

/* The pto.kernel enclosing `op`, or NULL. */
PtoOp *pto_pto_enclosing_kernel(PtoOp *op);

#endif
