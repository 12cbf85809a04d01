/* The `experimental` dialect: one op-table row per op (ExperimentalOps.def)
 * and its verifier, written against the public headers only, the way a
 * user adds an op of their own (docs/dialects/experimental.md). The
 * interpreter's hook is lib/Interp/InterpExperimental.c. */
#include "pto/Dialect/Experimental.h"
#include "pto/DialectImplementation.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PtoResult verify_gather(PtoOp *op);

static const PtoOpDef experimental_op_defs[PTO_EXPERIMENTAL_NUM_OPS] = {
#define EXPERIMENTAL_OP(ID, MN, SIZE, SUM)                                     \
  {"experimental." MN, 3, 1, 0, 0, PTO_TRAIT_PURE, PTO_AFFINITY_VECTOR,        \
   verify_gather, NULL, NULL, NULL, NULL, SUM},
#include "pto/Dialect/ExperimentalOps.def"
};

static const char *const size_attrs[PTO_EXPERIMENTAL_NUM_OPS] = {
#define EXPERIMENTAL_OP(ID, MN, SIZE, SUM) SIZE,
#include "pto/Dialect/ExperimentalOps.def"
};

PtoExperimentalOp pto_experimental_op_id(const PtoOp *op) {
  const PtoOpDef *d = pto_op_def(op);
  if (!d || d < experimental_op_defs ||
      d >= experimental_op_defs + PTO_EXPERIMENTAL_NUM_OPS)
    return PTO_EXPERIMENTAL_NONE;
  return (PtoExperimentalOp)(d - experimental_op_defs);
}

bool pto_experimental_row(int64_t token, int64_t block_size,
                          const int64_t *table, int64_t nblocks, int64_t *row) {
  if (token < 0 || block_size <= 0 || token / block_size >= nblocks) return false;
  int64_t blk = table[token / block_size];
  if (blk < 0 || blk > (INT64_MAX - token % block_size) / block_size) return false;
  *row = blk * block_size + token % block_size;
  return true;
}

/* The element at (r, c) of a 2-D array, whatever its strides. */
static char *elem_at(const PtoNdArray *a, int64_t r, int64_t c) {
  return (char *)a->data +
         (r * a->strides[0] + c * a->strides[1]) * (int64_t)pto_dtype_size(a->dtype);
}

bool pto_experimental_gather(const PtoNdArray *src, const PtoNdArray *idx,
                             const PtoNdArray *tab, int64_t block_size,
                             PtoNdArray *out, char *err, size_t err_size) {
  int64_t k = idx->shape[1], n = tab->shape[1], width = out->shape[1];
  size_t es = pto_dtype_size(src->dtype);
  if (width > src->shape[1]) {
    snprintf(err, err_size, "size %" PRId64 " exceeds the source's %" PRId64 " columns at "
             "run time", width, src->shape[1]);
    return false;
  }
  for (int64_t i = 0; i < k; i++) {
    int64_t token = pto_dtype_load_i64(idx->dtype, idx->data, i * idx->strides[1]);
    int64_t blk = 0, row = -1;
    if (token >= 0 && block_size > 0 && token / block_size < n)
      blk = pto_dtype_load_i64(tab->dtype, tab->data, token / block_size * tab->strides[1]);
    /* the table's one entry for this token, as a table of one block */
    if (token < 0 || block_size <= 0 || token / block_size >= n ||
        !pto_experimental_row(token % block_size, block_size, &blk, 1, &row)) {
      snprintf(err, err_size, "token index %" PRId64 " (position %" PRId64 ") has no block "
               "in a table of %" PRId64 " blocks of %" PRId64, token, i, n, block_size);
      return false;
    }
    if (row >= src->shape[0]) {
      snprintf(err, err_size, "token index %" PRId64 " maps to row %" PRId64 ", past the "
               "source's %" PRId64 " rows", token, row, src->shape[0]);
      return false;
    }
    for (int64_t c = 0; c < width; c++) memcpy(elem_at(out, i, c), elem_at(src, row, c), es);
  }
  return true;
}

/* ---- verifier ---- */

static bool elem_is(PtoType *e, bool floats, bool i8, bool index) {
  if (pto_type_is_float(e)) {
    PtoFloatKind k = pto_type_float_kind(e);
    return floats && (k == PTO_F32 || k == PTO_F16 || k == PTO_BF16);
  }
  if (!pto_type_is_integer(e)) return false;
  unsigned w = pto_type_int_width(e);
  return (i8 && w == 8) || (index && (w == 32 || w == 64));
}

/* Operand i: a rank-2 tensor whose elements pass elem_is. */
static PtoResult check_operand(PtoOp *op, unsigned i, const char *what, bool floats,
                               bool i8, bool index, const char *dtypes) {
  PtoType *t = pto_value_type(pto_op_operand(op, i));
  if (!pto_type_is_tensor(t) || pto_type_tensor_rank(t) != 2 ||
      !elem_is(pto_type_tensor_elem(t), floats, i8, index)) {
    char *s = pto_type_to_string(t);
    PtoResult r = pto_op_emit_error(op, "operand #%u (%s) must be a 2-D tensor of %s, got '%s'",
                                    i, what, dtypes, s);
    free(s);
    return r;
  }
  return PTO_SUCCESS;
}

static PtoResult int_attr(PtoOp *op, const char *name, int64_t *v) {
  PtoAttr *a = pto_op_attr(op, name);
  if (!a) return pto_op_emit_error(op, "requires attribute '%s'", name);
  if (pto_attr_kind(a) != PTO_ATTR_INTEGER || pto_attr_is_bool(a))
    return pto_op_emit_error(op, "attribute '%s' must be an integer", name);
  *v = pto_attr_int_value(a);
  return PTO_SUCCESS;
}

static PtoResult flag_attr(PtoOp *op, const char *name) {
  PtoAttr *a = pto_op_attr(op, name);
  if (a && pto_attr_kind(a) != PTO_ATTR_UNIT && !pto_attr_is_bool(a))
    return pto_op_emit_error(op, "attribute '%s' must be a unit or boolean attribute", name);
  return PTO_SUCCESS;
}

/* The attributes each op defines; anything else is a misspelling. */
static PtoResult known_attrs(PtoOp *op, bool l1) {
  static const char *const ub[] = {"axis", "block_size", NULL};
  static const char *const l1s[] = {"block_size", "is_b_matrix", "is_trans", "size", NULL};
  const char *const *known = l1 ? l1s : ub;
  const PtoNamedAttr *attrs = pto_op_attrs(op);
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++) {
    const char *n = pto_ident_str(attrs[i].name);
    bool ok = strchr(n, '.') != NULL; /* dialect attributes (locations, labels) */
    for (unsigned k = 0; known[k] && !ok; k++) ok = strcmp(n, known[k]) == 0;
    if (!ok)
      return pto_op_emit_error(op, "unknown attribute '%s'; it accepts %s", n,
                               l1 ? "block_size, size, is_b_matrix, is_trans"
                                  : "block_size, axis");
  }
  return PTO_SUCCESS;
}

static PtoResult verify_gather(PtoOp *op) {
  PtoExperimentalOp id = pto_experimental_op_id(op);
  bool l1 = size_attrs[id] != NULL;
  if (known_attrs(op, l1) ||
      check_operand(op, 0, "source", true, l1, false,
                    l1 ? "f32, f16, bf16 or i8" : "f32, f16 or bf16") ||
      check_operand(op, 1, "indices", false, false, true, "i32 or i64") ||
      check_operand(op, 2, "block table", false, false, true, "i32 or i64"))
    return PTO_FAILURE;
  PtoType *src = pto_value_type(pto_op_operand(op, 0));
  PtoType *idx = pto_value_type(pto_op_operand(op, 1));
  PtoType *tab = pto_value_type(pto_op_operand(op, 2));
  if (pto_type_tensor_dim(idx, 0) != 1)
    return pto_op_emit_error(op, "indices must have shape [1, k], got %" PRId64 " rows",
                             pto_type_tensor_dim(idx, 0));
  if (pto_type_tensor_dim(tab, 0) != 1)
    return pto_op_emit_error(op, "the block table must have shape [1, n], got %" PRId64
                             " rows", pto_type_tensor_dim(tab, 0));
  int64_t bs = 0, width = pto_type_tensor_dim(src, 1);
  if (int_attr(op, "block_size", &bs)) return PTO_FAILURE;
  if (bs <= 0) return pto_op_emit_error(op, "block_size must be positive, got %" PRId64, bs);
  if (l1) {
    if (int_attr(op, "size", &width) || flag_attr(op, "is_b_matrix") ||
        flag_attr(op, "is_trans"))
      return PTO_FAILURE;
    int64_t h = pto_type_tensor_dim(src, 1);
    if (width <= 0 || (h != PTO_DYN && width > h))
      return pto_op_emit_error(op, "size %" PRId64 " must be in [1, %" PRId64 "]", width,
                               h);
  } else {
    int64_t axis = 0;
    if (int_attr(op, "axis", &axis)) return PTO_FAILURE;
    if (axis != -2 && axis != 0)
      return pto_op_emit_error(op, "axis must be -2 (the token dim), got %" PRId64, axis);
  }
  int64_t shape[2] = {pto_type_tensor_dim(idx, 1), width};
  PtoType *want = pto_type_tensor(pto_type_ctx(src), shape, 2, pto_type_tensor_elem(src));
  PtoType *got = pto_value_type(pto_op_result(op, 0));
  if (got != want) {
    char *g = pto_type_to_string(got), *w = pto_type_to_string(want);
    PtoResult r = pto_op_emit_error(op, "result #0 has type '%s' but the inferred type is '%s'",
                                    g, w);
    free(g);
    free(w);
    return r;
  }
  return PTO_SUCCESS;
}

/* Designated fields: the hooks and tables this dialect does without stay
 * NULL whatever fields PtoDialectDef gains. */
static const PtoDialectDef experimental_dialect = {
    .name = "experimental",
    .ops = experimental_op_defs,
    .num_ops = PTO_EXPERIMENTAL_NUM_OPS,
    .summary = "PyPTO's custom gathers of paged-cache rows into on-chip memory",
};

void pto_register_experimental_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &experimental_dialect);
}
