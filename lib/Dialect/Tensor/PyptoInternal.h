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
  PtoContext *ctx;
  PtoErrSite site;
  PtoPyptoOp id;
  PtoType *const *opnd;
  unsigned nopnd;
  const PtoNamedAttr *attrs;
  unsigned nattrs;
  PtoType *want[2];
  PtoType *want_elem; /* builder `dtype` for matmul / dequantize */
  PtoType *res[2];
  unsigned nres;
  PtoCheckStrs strs; /* type spellings for messages, freed at the end */
} PyInfer;

/* Errors of the op being inferred (`in` in scope), "'pypto.x' op ..." */
#define ERR(...) pto_site_error(&in->site, __VA_ARGS__)

/* ---- PyptoChecks.c ---- */
void pypto_infer_init(PyInfer *in, PtoContext *ctx, PtoLoc *loc, PtoPyptoOp id,
                      PtoType *const *opnd, unsigned nopnd,
                      const PtoNamedAttr *attrs, unsigned nattrs);
void pypto_infer_done(PyInfer *in);
/* The type's spelling, owned by `in`. */
const char *pypto_tstr(PyInfer *in, PtoType *t);
PtoAttr *pypto_infer_attr(const PyInfer *in, const char *name);
/* Typed attributes: fail with a message when present but malformed, or
 * absent and required; otherwise *out is the value or the default. */
PtoResult pypto_attr_int(PyInfer *in, const char *name, bool required,
                         int64_t dflt, int64_t *out);
PtoResult pypto_attr_flag(PyInfer *in, const char *name, bool *out); /* unit/bool */
PtoResult pypto_attr_bool(PyInfer *in, const char *name, bool dflt, bool *out);
/* A string among `values` (NULL-terminated); `msg` lists them. */
PtoResult pypto_attr_enum(PyInfer *in, const char *name,
                          const char *const *values, const char *msg);
/* `dim` normalised against `rank`. */
PtoResult pypto_attr_dim(PyInfer *in, bool required, int64_t dflt,
                         unsigned rank, unsigned *out);
/* Rejects attributes the op does not define (dialect-prefixed ones pass). */
PtoResult pypto_check_known_attrs(PyInfer *in);
/* A tensor of a supported dtype and rank, no zero-sized dim; `what` is
 * "operand" or "result". */
PtoResult pypto_check_tensor(PyInfer *in, const char *what, unsigned i,
                             PtoType *t, PtoShape *s);
PtoResult pypto_opnd_tensor(PyInfer *in, unsigned i, PtoShape *s, PtoType **elem);
PtoResult pypto_opnd_min_rank(PyInfer *in, unsigned i, const PtoShape *s,
                              unsigned r);
PtoResult pypto_want_tensor(PyInfer *in, unsigned r, PtoShape *s);
bool pypto_dtype_in(PtoType *e, PtoPyptoDtypes c);
PtoResult pypto_opnd_class(PyInfer *in, unsigned i, PtoPyptoDtypes c);
/* A tensor, or a scalar of a supported dtype (rank 0). */
PtoResult pypto_opnd_tensor_or_scalar(PyInfer *in, unsigned i, PtoShape *s,
                                      PtoType **elem);
PtoResult pypto_same_elem(PyInfer *in, PtoType *a, PtoType *b);
/* Operands from `first` on are `index`. */
PtoResult pypto_opnd_index(PyInfer *in, unsigned first);
/* An i32 or i64 tensor (gather / index_select / scatter_update). */
PtoResult pypto_opnd_indices(PyInfer *in, unsigned i, PtoShape *s);
PtoType *pypto_tensor_of(PyInfer *in, const PtoShape *s, PtoType *elem);
void pypto_set_res(PyInfer *in, PtoType *t);
/* One index operand from `first` on per `?` dim of `s`. */
PtoResult pypto_dyn_sizes(PyInfer *in, const PtoShape *s, unsigned first);
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
PtoResult pypto_infer_indexing(PyInfer *in, PtoPyptoKind k);
PtoResult pypto_infer_topk(PyInfer *in);

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

/* "'pypto.<op>' op ", the start of the op's messages. */
const char *pypto_err_prefix(PtoPyptoOp id);

/* Number of leading tensor operands of an op kind with `n` operands. */
unsigned pypto_num_tensor_operands(PtoPyptoKind k, unsigned n);

#endif
