/* Private interface between the files of the pypto dialect: the inference
 * state shared by the verifier and the builder, and the op table. */
#ifndef PTO_DIALECT_TENSOR_PYPTOINTERNAL_H
#define PTO_DIALECT_TENSOR_PYPTOINTERNAL_H

#include "pto/Dialect/Pypto.h"

/* One run of an op's checks. The verifier fills `want` with the op's result
 * types; the builder fills it from builder-only attributes (or leaves it
 * NULL when the result follows from the operands). */
typedef struct PyInfer {
  PtoContext *ctx;
  PtoErrSite site;
  char prefix[64];
  PtoPyptoOp id;
  PtoType *const *opnd;
  unsigned nopnd;
  const PtoNamedAttr *attrs;
  unsigned nattrs;
  PtoType *want[2];
  PtoType *want_elem; /* builder `dtype` for matmul / dequantize */
  PtoType *res[2];
  unsigned nres;
  char *strs[12]; /* type spellings for messages, freed by pypto_infer_done */
  unsigned nstrs;
} PyInfer;

void pypto_infer_init(PyInfer *in, PtoContext *ctx, PtoLoc *loc, PtoPyptoOp id,
                      PtoType *const *opnd, unsigned nopnd,
                      const PtoNamedAttr *attrs, unsigned nattrs);
/* Checks everything and sets res/nres. */
PtoResult pypto_infer(PyInfer *in);
/* Compares res with want (the op's actual result types). */
PtoResult pypto_infer_check_results(PyInfer *in);
void pypto_infer_done(PyInfer *in);
/* The type's spelling, owned by `in`. */
const char *pypto_tstr(PyInfer *in, PtoType *t);
PtoAttr *pypto_infer_attr(const PyInfer *in, const char *name);

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
