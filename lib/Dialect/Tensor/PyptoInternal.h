/* Private interface between the files of the pypto dialect: the inference
 * state shared by the verifier and the builder, and the op table. */
#ifndef PTO_DIALECT_TENSOR_PYPTOINTERNAL_H
#define PTO_DIALECT_TENSOR_PYPTOINTERNAL_H

#include "pto/Dialect/Pypto.h"

#include "Dialect/Common/OpCheck.h"

/* One run of an op's checks. The verifier fills `want` with the op's result
 * types; the builder fills it from builder-only attributes (or leaves it
 * NULL when the result follows from the operands). */
typedef struct PyInfer {
  PtoOpCheck c; /* site, operand types, attributes, message spellings */
  PtoPyptoOp id;
  PtoType *want[2];
  PtoType *want_elem; /* builder `dtype` for matmul / dequantize */
  PtoType *res[2];
  unsigned nres;
} PyInfer;

/* Errors of the op being inferred (`in` in scope), "'pypto.x' op ..." */
#define ERR(...) PTO_CHECK_ERR(&in->c, __VA_ARGS__)

/* ---- PyptoChecks.c ---- */
void pypto_infer_init(PyInfer *in, PtoContext *ctx, PtoLoc *loc, PtoPyptoOp id,
                      PtoType *const *opnd, unsigned nopnd,
                      const PtoNamedAttr *attrs, unsigned nattrs);
void pypto_infer_done(PyInfer *in);
/* Rejects attributes the op does not define (dialect-prefixed and tuning
 * attributes pass). */
PtoResult pypto_check_known_attrs(PyInfer *in);
/* Operand i is a valid tensor (see pto_opcheck_tensor); *elem may be NULL. */
PtoResult pypto_opnd_tensor(PyInfer *in, unsigned i, PtoShape *s, PtoType **elem);
PtoResult pypto_opnd_min_rank(PyInfer *in, unsigned i, const PtoShape *s,
                              unsigned r);
/* want[r] is a valid tensor. */
PtoResult pypto_want_tensor(PyInfer *in, unsigned r, PtoShape *s);
/* Operand i's element type is in the op table's dtype class. */
PtoResult pypto_opnd_class(PyInfer *in, unsigned i, PtoDtypeSet c);
/* A tensor, or a scalar of a supported dtype (rank 0). */
PtoResult pypto_opnd_tensor_or_scalar(PyInfer *in, unsigned i, PtoShape *s,
                                      PtoType **elem);
/* An i32 or i64 tensor (gather / index_select / scatter_update). */
PtoResult pypto_opnd_indices(PyInfer *in, unsigned i, PtoShape *s);
PtoType *pypto_tensor_of(PyInfer *in, const PtoShape *s, PtoType *elem);
void pypto_set_res(PyInfer *in, PtoType *t);
/* Same rank, equal where both dims are static. */
bool pypto_compatible(const PtoShape *a, const PtoShape *b);
/* want[0] is set (the builder had the attribute it comes from). */
PtoResult pypto_need_want(PyInfer *in, const char *battr);
/* Compares res with want (the op's actual result types). */
PtoResult pypto_infer_check_results(PyInfer *in);

/* ---- PyptoInfer.c: checks everything and sets res/nres ---- */
PtoResult pypto_infer(PyInfer *in);

/* ---- PyptoInferShape.c ---- */
PtoResult pypto_infer_view(PyInfer *in);
PtoResult pypto_infer_assemble(PyInfer *in);
PtoResult pypto_infer_reshape_expand(PyInfer *in, bool expand);
PtoResult pypto_infer_transpose(PyInfer *in);
PtoResult pypto_infer_concat(PyInfer *in);
PtoResult pypto_infer_fill(PyInfer *in, bool zeros);
PtoResult pypto_infer_dim(PyInfer *in);
PtoResult pypto_infer_random(PyInfer *in);
PtoResult pypto_infer_load_scalar(PyInfer *in);
PtoResult pypto_infer_bitcast(PyInfer *in);
PtoResult pypto_infer_indexing(PyInfer *in, PtoPyptoKind k);
PtoResult pypto_infer_topk(PyInfer *in);

/* ---- PyptoDebug.c ---- */
PtoResult pypto_infer_debug(PyInfer *in);

/* Builder-only attributes: turns `shape` / `dtype` / `out_dtype` into
 * want/want_elem and returns the remaining attributes in `rest` (an array
 * of at least nattrs entries). */
PtoResult pypto_builder_attrs(PyInfer *in, const PtoNamedAttr *attrs,
                              unsigned nattrs, PtoNamedAttr *rest,
                              unsigned *nrest);

extern const PtoOpDef pypto_op_defs[PTO_PYPTO_NUM_OPS];
PtoResult pypto_verify(PtoOp *op);
PtoResult pypto_parse(PtoParser *p, PtoOpState *st);
void pypto_print(PtoPrinter *p, PtoOp *op);
PtoResult pypto_fold(PtoOp *op, PtoAttr *const *operands, PtoFoldResult *res);
/* Adds the canonicalization patterns rooted at op `id` (a PtoPatternSet). */
void pypto_add_patterns(void *set, PtoContext *ctx, PtoPyptoOp id);

/* Number of leading tensor operands of an op kind with `n` operands. */
unsigned pypto_num_tensor_operands(PtoPyptoKind k, unsigned n);

#endif
