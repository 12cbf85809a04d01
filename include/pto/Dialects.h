/* Registration of the dialects that ship with PTO, and small builders for
 * the core ops that every later level creates. */
#ifndef PTO_DIALECTS_H
#define PTO_DIALECTS_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* func, arith, scf, pypto (Tensor), tile, ... (everything in lib/Dialect). */
void pto_register_all_dialects(PtoContext *ctx);

void pto_register_func_dialect(PtoContext *ctx);
void pto_register_arith_dialect(PtoContext *ctx);
void pto_register_scf_dialect(PtoContext *ctx);
void pto_register_pypto_dialect(PtoContext *ctx);
void pto_register_tile_dialect(PtoContext *ctx);

/* ------------------------------------------------------------------ */
/* func: func.func, func.return, func.call                              */
/* ------------------------------------------------------------------ */

/* Creates `func.func @name` of type `fn_type` at the builder's insertion
 * point, with an entry block whose arguments follow the signature (the
 * caller fills it and ends it with func.return). `is_private` sets
 * sym_visibility = "private". */
PtoOp *pto_func_build(PtoBuilder *b, const char *name, PtoType *fn_type,
                      bool is_private);
/* A declaration (no body); declarations must be private. */
PtoOp *pto_func_build_decl(PtoBuilder *b, const char *name,
                           PtoType *fn_type);
PtoOp *pto_func_build_return(PtoBuilder *b, PtoValue *const *vals,
                             unsigned n);
/* `func.call @callee(args)`; result types come from `callee_type`. */
PtoOp *pto_func_build_call(PtoBuilder *b, const char *callee,
                           PtoType *callee_type, PtoValue *const *args,
                           unsigned n);
/* The signature of a func.func (NULL if missing or malformed). */
PtoType *pto_func_get_type(const PtoOp *func);
/* The entry block, or NULL for a declaration. */
PtoBlock *pto_func_entry_block(const PtoOp *func);
/* The func.func a func.call refers to, or NULL. */
PtoOp *pto_func_call_resolve(PtoOp *call);

/* ------------------------------------------------------------------ */
/* arith                                                                */
/* ------------------------------------------------------------------ */

/* Predicates of arith.cmpi, numbered as MLIR stores them (`predicate`). */
typedef enum PtoCmpIPredicate {
  PTO_CMPI_EQ, PTO_CMPI_NE, PTO_CMPI_SLT, PTO_CMPI_SLE, PTO_CMPI_SGT,
  PTO_CMPI_SGE, PTO_CMPI_ULT, PTO_CMPI_ULE, PTO_CMPI_UGT, PTO_CMPI_UGE,
} PtoCmpIPredicate;

/* Predicates of arith.cmpf: O* are false when an operand is NaN, U* true. */
typedef enum PtoCmpFPredicate {
  PTO_CMPF_FALSE, PTO_CMPF_OEQ, PTO_CMPF_OGT, PTO_CMPF_OGE, PTO_CMPF_OLT,
  PTO_CMPF_OLE, PTO_CMPF_ONE, PTO_CMPF_ORD, PTO_CMPF_UEQ, PTO_CMPF_UGT,
  PTO_CMPF_UGE, PTO_CMPF_ULT, PTO_CMPF_ULE, PTO_CMPF_UNE, PTO_CMPF_UNO,
  PTO_CMPF_TRUE,
} PtoCmpFPredicate;

/* arith.constant of an index, integer (iN) or float value. */
PtoValue *pto_arith_build_constant_index(PtoBuilder *b, int64_t v);
PtoValue *pto_arith_build_constant_int(PtoBuilder *b, PtoType *type,
                                       int64_t v);
PtoValue *pto_arith_build_constant_float(PtoBuilder *b, PtoType *type,
                                         double v);
/* arith.constant of an integer or float attribute (its type). */
PtoValue *pto_arith_build_constant(PtoBuilder *b, PtoAttr *value);
/* A binary op whose result has the operands' type (`arith.addi`,
 * `arith.mulf`, `arith.maxsi`, ...). */
PtoValue *pto_arith_build_binary(PtoBuilder *b, const char *op_name,
                                 PtoValue *lhs, PtoValue *rhs);
PtoValue *pto_arith_build_cmpi(PtoBuilder *b, PtoCmpIPredicate pred,
                               PtoValue *lhs, PtoValue *rhs);
PtoValue *pto_arith_build_cmpf(PtoBuilder *b, PtoCmpFPredicate pred,
                               PtoValue *lhs, PtoValue *rhs);
PtoValue *pto_arith_build_select(PtoBuilder *b, PtoValue *cond,
                                 PtoValue *t, PtoValue *f);
/* A cast (`arith.index_cast`, `arith.extf`, ...) of `v` to `type`. */
PtoValue *pto_arith_build_cast(PtoBuilder *b, const char *op_name,
                               PtoValue *v, PtoType *type);
/* Spelling of a predicate (`slt`), or NULL when out of range. */
const char *pto_cmpi_predicate_name(int64_t pred);
const char *pto_cmpf_predicate_name(int64_t pred);

/* ------------------------------------------------------------------ */
/* scf: scf.for, scf.if, scf.yield                                      */
/* ------------------------------------------------------------------ */

/* `scf.for %iv = lb to ub step step iter_args(inits)`: returns the op;
 * *body receives its body block (arguments: iv, then one per init) for
 * the caller to fill and end with pto_scf_build_yield. */
PtoOp *pto_scf_build_for(PtoBuilder *b, PtoValue *lb, PtoValue *ub,
                         PtoValue *step, PtoValue *const *inits, unsigned n,
                         PtoBlock **body);
/* `scf.if cond -> (result types)`: *then_block (and *else_block when
 * `with_else`) receive the empty blocks to fill, each ended by a
 * scf.yield. Results require an else block. */
PtoOp *pto_scf_build_if(PtoBuilder *b, PtoValue *cond,
                        PtoType *const *result_types, unsigned n,
                        bool with_else, PtoBlock **then_block,
                        PtoBlock **else_block);
PtoOp *pto_scf_build_yield(PtoBuilder *b, PtoValue *const *vals, unsigned n);

/* Accessors of scf.for: bounds, induction variable, loop-carried values. */
PtoBlock *pto_scf_for_body(const PtoOp *for_op);
PtoValue *pto_scf_for_iv(const PtoOp *for_op);
PtoValue *pto_scf_for_lower(const PtoOp *for_op);
PtoValue *pto_scf_for_upper(const PtoOp *for_op);
PtoValue *pto_scf_for_step(const PtoOp *for_op);
unsigned pto_scf_for_num_iter_args(const PtoOp *for_op);
PtoValue *pto_scf_for_init(const PtoOp *for_op, unsigned i);
PtoValue *pto_scf_for_iter_arg(const PtoOp *for_op, unsigned i);
/* Trip count of a loop with constant bounds and step: true and *count set
 * when known (0 for an empty loop), false for dynamic loops. */
bool pto_scf_for_const_trip_count(const PtoOp *for_op, int64_t *count);

#ifdef __cplusplus
}
#endif
#endif
