/* The Tensor-level dialect `pypto`: op ids from the op table, typed access
 * to op attributes, result-type inference and a builder that infers result
 * types. Semantics of every op: docs/dialects/pypto.md. */
#ifndef PTO_DIALECT_PYPTO_H
#define PTO_DIALECT_PYPTO_H

#include "pto/DType.h"
#include "pto/Dialect/Common.h"
#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

void pto_register_pypto_dialect(PtoContext *ctx);

/* One id per row of PyptoOps.def, in table order. */
typedef enum PtoPyptoOp {
  PTO_PYPTO_NONE = -1,
#define PYPTO_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) PTO_PYPTO_##ID,
#include "pto/Dialect/PyptoOps.def"
  PTO_PYPTO_NUM_OPS
} PtoPyptoOp;

/* Verifier, syntax and shape class of an op (the KIND column). */
typedef enum PtoPyptoKind {
  PTO_PYPTO_KIND_UNARY,
  PTO_PYPTO_KIND_CAST,
  PTO_PYPTO_KIND_BINARY,
  PTO_PYPTO_KIND_SCALAR,
  PTO_PYPTO_KIND_COMPARE,
  PTO_PYPTO_KIND_WHERE,
  PTO_PYPTO_KIND_REDUCE,
  PTO_PYPTO_KIND_ARGREDUCE,
  PTO_PYPTO_KIND_MATMUL,
  PTO_PYPTO_KIND_VIEW,
  PTO_PYPTO_KIND_ASSEMBLE,
  PTO_PYPTO_KIND_RESHAPE,
  PTO_PYPTO_KIND_TRANSPOSE,
  PTO_PYPTO_KIND_CONCAT,
  PTO_PYPTO_KIND_EXPAND,
  PTO_PYPTO_KIND_FULL,
  PTO_PYPTO_KIND_ZEROS,
  PTO_PYPTO_KIND_DIM,
  PTO_PYPTO_KIND_GATHER,
  PTO_PYPTO_KIND_INDEX_SELECT,
  PTO_PYPTO_KIND_SCATTER,
  PTO_PYPTO_KIND_TOPK,
  PTO_PYPTO_KIND_QUANTIZE,
  PTO_PYPTO_KIND_DEQUANTIZE,
  PTO_PYPTO_KIND_QUANT_MX,
  PTO_PYPTO_KIND_SCALED_MM,
  PTO_PYPTO_KIND_SOFTMAX,
  PTO_PYPTO_KIND_RMS_NORM,
  PTO_PYPTO_KIND_LAYER_NORM,
  PTO_PYPTO_KIND_RANDOM,
  PTO_PYPTO_KIND_LOAD_SCALAR,
  PTO_PYPTO_KIND_BITCAST,
  PTO_PYPTO_KIND_DEBUG,
} PtoPyptoKind;

/* The op's id, or PTO_PYPTO_NONE when it is not a registered pypto op. */
PtoPyptoOp pto_pypto_op_id(const PtoOp *op);
/* Id of "add" or "pypto.add"; PTO_PYPTO_NONE if unknown. */
PtoPyptoOp pto_pypto_lookup(const char *name);
const char *pto_pypto_mnemonic(PtoPyptoOp id); /* "add" */
unsigned pto_pypto_num_ops(void); /* PTO_PYPTO_NUM_OPS, for bindings */
const char *pto_pypto_op_name(PtoPyptoOp id);  /* "pypto.add" */
PtoPyptoKind pto_pypto_kind(PtoPyptoOp id);
PtoDtypeSet pto_pypto_dtypes(PtoPyptoOp id);
/* The row of pto/UnaryOps.def an elementwise unary op comes from, or
 * PTO_UNARY_ROW_NONE. */
PtoUnaryRow pto_pypto_unary_row(PtoPyptoOp id);
/* The attributes the op defines besides the tuning attributes
 * (NULL-terminated). */
const char *const *pto_pypto_op_attrs(PtoPyptoOp id);

/* ---- attribute accessors for verified ops ---- */

/* The `dim` attribute normalised to [0, rank) of operand #0 (reductions,
 * softmax, concat, gather, index_select, scatter_update, topk, dim). */
unsigned pto_pypto_get_dim(const PtoOp *op);
bool pto_pypto_get_keepdim(const PtoOp *op);
/* view/assemble/load_scalar: writes one offset per dim (PTO_DYN for dynamic ones) and
 * the index operand holding each dynamic offset (NULL for static ones).
 * Either array may be NULL. Returns the rank. */
unsigned pto_pypto_get_offsets(const PtoOp *op, int64_t *static_offsets,
                               PtoValue **dynamic);
/* First operand after the tensor operands: view 1, assemble 2, expand 1,
 * full 1, zeros 0 (dynamic offsets / sizes follow). */
unsigned pto_pypto_num_tensor_operands(const PtoOp *op);
/* transpose: the permutation; returns its length. */
unsigned pto_pypto_get_perm(const PtoOp *op, int64_t perm[PTO_MAX_RANK]);

/* cast: `mode` as a rounding mode (PTO_ROUND_RINT when absent). */
PtoRoundMode pto_pypto_get_cast_mode(const PtoOp *op);
bool pto_pypto_get_saturate(const PtoOp *op); /* satmode = "on" */
/* gelu: approximate = "tanh". */
bool pto_pypto_get_gelu_tanh(const PtoOp *op);
/* matmul */
bool pto_pypto_get_a_trans(const PtoOp *op);
bool pto_pypto_get_b_trans(const PtoOp *op);
PtoType *pto_pypto_get_acc_dtype(const PtoOp *op); /* defaulted */
/* The way out of the accumulator: a per-tensor scale (the `scale`
 * attribute; false without one), a per-channel scale tensor (operand #2,
 * NULL without one) and `relu`. */
bool pto_pypto_get_scale(const PtoOp *op, double *scale);
PtoValue *pto_pypto_get_scale_tensor(const PtoOp *op);
bool pto_pypto_get_relu(const PtoOp *op);
/* scaled_mm: scale_a given as [K/64, M, 2], scale_b as [N, K/64, 2]. */
bool pto_pypto_get_scale_a_trans(const PtoOp *op);
bool pto_pypto_get_scale_b_trans(const PtoOp *op);
/* topk */
int64_t pto_pypto_get_k(const PtoOp *op);
bool pto_pypto_get_largest(const PtoOp *op);
/* rms_norm / layer_norm: eps (defaulted). */
double pto_pypto_get_eps(const PtoOp *op);
/* pass_verify_print's `format`: the number of `{}` placeholders ("{{" and
 * "}}" are literal braces), or -1 with *bad at the first lone brace. */
int pto_pypto_format_count(const char *format, size_t *bad);

/* ---- inference and building ---- */

/* Runs the op's checks on operand types and attributes and returns its
 * result types (up to 2). Ops whose result type does not follow from the
 * operands read builder-only attributes (`shape`, `dtype`, `out_dtype`; see
 * the documentation). Emits a diagnostic at `loc` and fails on invalid
 * input. */
PtoResult pto_pypto_infer_types(PtoContext *ctx, PtoLoc *loc, const char *op,
                                PtoType *const *operand_types, unsigned n,
                                const PtoNamedAttr *attrs, unsigned nattrs,
                                PtoType **results, unsigned *nresults);

/* Builds a verified pypto op at the builder's insertion point with inferred
 * result types. Builder-only attributes are consumed, the others are set on
 * the op. Returns NULL after emitting a diagnostic at the builder's location
 * (nothing is inserted). */
PtoOp *pto_pypto_create(PtoBuilder *b, const char *op,
                        PtoValue *const *operands, unsigned n,
                        const PtoNamedAttr *attrs, unsigned nattrs);

#ifdef __cplusplus
}
#endif
#endif
