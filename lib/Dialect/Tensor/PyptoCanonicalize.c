/* Canonicalization patterns of pypto ops that rewrite across two ops
 * (view of view, assemble of a view back in place, reshape of reshape,
 * transpose of transpose). Identities on one op are folds (PyptoFold.c). */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

#include "pto/Dialects.h"
#include "pto/Pass.h"

#include "Support/Alloc.h"

#include <string.h>

static PtoOp *def_of(PtoOp *op, unsigned i, PtoPyptoOp id) {
  PtoOp *d = pto_value_def_op(pto_op_operand(op, i));
  return d && pto_pypto_op_id(d) == id ? d : NULL;
}

/* `op`'s attributes with `name` set to `value`; *n receives the count. The
 * array is freed with pto_free. */
static PtoNamedAttr *attrs_with(PtoOp *op, const char *name, PtoAttr *value,
                                unsigned *n) {
  unsigned k = pto_op_num_attrs(op);
  PtoNamedAttr *a = pto_malloc((k + 1) * sizeof *a);
  memcpy(a, pto_op_attrs(op), k * sizeof *a);
  PtoIdent *id = pto_ident_cstr(pto_op_ctx(op), name);
  unsigned i = 0;
  while (i < k && a[i].name != id) i++;
  a[i].name = id;
  a[i].value = value;
  *n = i == k ? k + 1 : k;
  return a;
}

/* Replaces `op` by a new op of the same name and result types with the
 * given operands and attributes. */
static void replace_with(PtoRewriter *rw, PtoOp *op, PtoValue *const *operands,
                         unsigned n, const PtoNamedAttr *attrs, unsigned nattrs) {
  PtoType *res[2];
  unsigned nres = pto_op_num_results(op);
  for (unsigned i = 0; i < nres; i++) res[i] = pto_value_type(pto_op_result(op, i));
  PtoOp *o = pto_op_create_simple(pto_op_ctx(op), pto_op_name_str(op), pto_op_loc(op),
                                  operands, n, res, nres, attrs, nattrs);
  pto_rewriter_replace_op_with_op(rw, op, pto_rewriter_insert(rw, o));
}

/* Inserts an op built with a detached builder through the rewriter. */
static PtoValue *emit(PtoRewriter *rw, PtoValue *v) {
  pto_rewriter_insert(rw, pto_value_def_op(v));
  return v;
}

/* view(view(x)[o1])[o2] -> view(x)[o1 + o2]; a sum with a dynamic part is
 * an arith.addi on index. */
static PtoResult view_of_view(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoOp *inner = def_of(op, 0, PTO_PYPTO_VIEW);
  if (!inner) return PTO_FAILURE;
  PtoContext *ctx = pto_op_ctx(op);
  int64_t o1[PTO_MAX_RANK], o2[PTO_MAX_RANK], o[PTO_MAX_RANK];
  PtoValue *d1[PTO_MAX_RANK], *d2[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_offsets(inner, o1, d1);
  if (pto_pypto_get_offsets(op, o2, d2) != n) return PTO_FAILURE;
  for (unsigned i = 0; i < n; i++) {
    if ((d1[i] || d2[i]) && o1[i] != 0 && o2[i] != 0 &&
        !pto_ctx_lookup_op(ctx, "arith.addi"))
      return PTO_FAILURE;
    if (!d1[i] && !d2[i] && o1[i] > INT64_MAX - o2[i]) return PTO_FAILURE;
  }
  PtoBuilder b;
  pto_builder_init(&b, ctx);
  b.loc = pto_op_loc(op);
  PtoValue *ops[PTO_MAX_RANK + 1];
  unsigned nops = 0;
  ops[nops++] = pto_op_operand(inner, 0);
  for (unsigned i = 0; i < n; i++) {
    if (!d1[i] && !d2[i]) {
      o[i] = o1[i] + o2[i];
      continue;
    }
    o[i] = PTO_DYN;
    if (!d1[i] && o1[i] == 0) ops[nops++] = d2[i];
    else if (!d2[i] && o2[i] == 0) ops[nops++] = d1[i];
    else {
      PtoValue *a = d1[i] ? d1[i] : emit(rw, pto_arith_build_constant_index(&b, o1[i]));
      PtoValue *c = d2[i] ? d2[i] : emit(rw, pto_arith_build_constant_index(&b, o2[i]));
      ops[nops++] = emit(rw, pto_arith_build_binary(&b, "arith.addi", a, c));
    }
  }
  unsigned na;
  PtoNamedAttr *attrs = attrs_with(op, PTO_ATTR_STATIC_OFFSETS, pto_attr_i64_array(ctx, o, n), &na);
  replace_with(rw, op, ops, nops, attrs, na);
  pto_free(attrs);
  return PTO_SUCCESS;
}

/* assemble(view(%y)[offs]) into %y[offs] writes back what is there: %y. */
static PtoResult assemble_of_view(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoOp *v = def_of(op, 0, PTO_PYPTO_VIEW);
  if (!v || pto_op_operand(v, 0) != pto_op_operand(op, 1)) return PTO_FAILURE;
  int64_t o1[PTO_MAX_RANK], o2[PTO_MAX_RANK];
  PtoValue *d1[PTO_MAX_RANK], *d2[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_offsets(v, o1, d1);
  if (pto_pypto_get_offsets(op, o2, d2) != n) return PTO_FAILURE;
  for (unsigned i = 0; i < n; i++)
    if (o1[i] != o2[i] || d1[i] != d2[i]) return PTO_FAILURE;
  PtoValue *y = pto_op_operand(op, 1);
  pto_rewriter_replace_op(rw, op, &y);
  return PTO_SUCCESS;
}

/* reshape(reshape(x)) -> reshape(x): row-major reshapes compose. */
static PtoResult reshape_of_reshape(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoOp *inner = def_of(op, 0, PTO_PYPTO_RESHAPE);
  if (!inner) return PTO_FAILURE;
  PtoValue *x = pto_op_operand(inner, 0);
  replace_with(rw, op, &x, 1, pto_op_attrs(op), pto_op_num_attrs(op));
  return PTO_SUCCESS;
}

/* transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]), or x when
 * that is the identity. */
static PtoResult transpose_of_transpose(PtoOp *op, PtoRewriter *rw, void *user) {
  (void)user;
  PtoOp *inner = def_of(op, 0, PTO_PYPTO_TRANSPOSE);
  if (!inner) return PTO_FAILURE;
  int64_t p1[PTO_MAX_RANK], p2[PTO_MAX_RANK], p[PTO_MAX_RANK];
  unsigned n = pto_pypto_get_perm(inner, p1);
  if (pto_pypto_get_perm(op, p2) != n) return PTO_FAILURE;
  bool identity = true;
  for (unsigned i = 0; i < n; i++) {
    p[i] = p1[p2[i]];
    identity &= p[i] == (int64_t)i;
  }
  PtoValue *x = pto_op_operand(inner, 0);
  if (identity) {
    pto_rewriter_replace_op(rw, op, &x);
    return PTO_SUCCESS;
  }
  unsigned na;
  PtoNamedAttr *attrs =
      attrs_with(op, PTO_ATTR_PERM, pto_attr_i64_array(pto_op_ctx(op), p, n), &na);
  replace_with(rw, op, &x, 1, attrs, na);
  pto_free(attrs);
  return PTO_SUCCESS;
}

void pypto_add_patterns(void *set, PtoContext *ctx, PtoPyptoOp id) {
  (void)ctx;
  PtoPatternSet *s = set;
  const char *name = pto_pypto_op_name(id);
  switch (id) {
  case PTO_PYPTO_VIEW:
    pto_pattern_set_add(s, name, 1, view_of_view, NULL, "pypto-view-of-view");
    break;
  case PTO_PYPTO_ASSEMBLE:
    pto_pattern_set_add(s, name, 1, assemble_of_view, NULL, "pypto-assemble-of-view");
    break;
  case PTO_PYPTO_RESHAPE:
    pto_pattern_set_add(s, name, 1, reshape_of_reshape, NULL, "pypto-reshape-of-reshape");
    break;
  case PTO_PYPTO_TRANSPOSE:
    pto_pattern_set_add(s, name, 1, transpose_of_transpose, NULL,
                        "pypto-transpose-of-transpose");
    break;
  default:
    break;
  }
}
