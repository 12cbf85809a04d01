/* The arith dialect's internals shared by its files: op ids (from
 * ArithOps.def), the fold hook, canonicalization hooks, and the integer
 * helpers folds and patterns both use. */
#ifndef PTO_DIALECT_ARITH_H
#define PTO_DIALECT_ARITH_H

#include "pto/Dialects.h"
#include "pto/DialectImplementation.h"

typedef enum ArithOpId {
#define PTO_OP(id, ...) ARITH_##id,
#include "Dialect/Arith/ArithOps.def"
#undef PTO_OP
  ARITH_NUM_OPS
} ArithOpId;

extern const PtoOpDef pto_arith_ops[ARITH_NUM_OPS];
extern const PtoDialectDef pto_arith_dialect;

/* The op's id, or -1 when it is not an arith op. */
static inline int pto_arith_op_id(const PtoOp *op) {
  const PtoOpDef *d = pto_op_def(op);
  if (!d || d < pto_arith_ops || d >= pto_arith_ops + ARITH_NUM_OPS) return -1;
  return (int)(d - pto_arith_ops);
}

PtoResult pto_arith_fold(PtoOp *op, PtoAttr *const *operands,
                         PtoFoldResult *results);

/* Canonicalization hooks (ArithCanonicalize.c), one per op that has
 * patterns. */
#define ARITH_CANON_HOOKS(X) \
  X(addi) X(subi) X(muli) X(cmpi) X(extsi) X(trunci)
#define ARITH_DECLARE_CANON(name) \
  void pto_arith_canon_##name(void *patterns, PtoContext *ctx);
ARITH_CANON_HOOKS(ARITH_DECLARE_CANON)
#undef ARITH_DECLARE_CANON

/* ---- two's complement helpers on iN / index values ---- */

static inline uint64_t pto_int_mask(unsigned width) {
  return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}
/* The value's low `width` bits read as signed. */
static inline int64_t pto_int_sext(int64_t v, unsigned width) {
  uint64_t u = (uint64_t)v & pto_int_mask(width);
  if (width && width < 64 && (u >> (width - 1)) & 1) u |= ~pto_int_mask(width);
  return (int64_t)u;
}
/* The value's low `width` bits read as unsigned. */
static inline uint64_t pto_int_zext(int64_t v, unsigned width) {
  return (uint64_t)v & pto_int_mask(width);
}

#endif
