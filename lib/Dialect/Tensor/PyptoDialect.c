/* The pypto dialect's definition: the op table expanded from PyptoOps.def,
 * op ids, the verifier entry point, attribute accessors and registration. */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

#include "Support/Alloc.h"

#include <string.h>

static const char *const mnemonics[] = {
#define PYPTO_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) MN,
#include "pto/Dialect/PyptoOps.def"
};

static const PtoPyptoKind kinds[] = {
#define PYPTO_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) PTO_PYPTO_KIND_##KIND,
#include "pto/Dialect/PyptoOps.def"
};

static const PtoDtypeSet dtypes[] = {
#define PYPTO_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) PTO_DTYPES_##DT,
#include "pto/Dialect/PyptoOps.def"
};

/* Each op's canonicalization hook adds the patterns rooted at that op. */
#define PYPTO_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM)                 \
  static void canon_##ID(void *set, PtoContext *ctx) {                      \
    pypto_add_patterns(set, ctx, PTO_PYPTO_##ID);                            \
  }
#include "pto/Dialect/PyptoOps.def"

const PtoOpDef pypto_op_defs[PTO_PYPTO_NUM_OPS] = {
#define PYPTO_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM)                 \
  {"pypto." MN, NOP, NRES, 0, 0, TR, AFF, pypto_verify, pypto_parse,         \
   pypto_print, pypto_fold, canon_##ID, SUM},
#include "pto/Dialect/PyptoOps.def"
};

/* Row + 1 of pto/UnaryOps.def, 0 for ops of other kinds. */
static const unsigned char unary_rows[PTO_PYPTO_NUM_OPS] = {
#define PTO_UNARY_OP(ID, ...) [PTO_PYPTO_##ID] = PTO_UNARY_ROW_##ID + 1,
#include "pto/UnaryOps.def"
};

static const PtoOpTable table = {"pypto.", pypto_op_defs, mnemonics,
                                 PTO_PYPTO_NUM_OPS, unary_rows};

PtoPyptoOp pto_pypto_op_id(const PtoOp *op) {
  return (PtoPyptoOp)pto_optable_id(&table, op);
}

PtoPyptoOp pto_pypto_lookup(const char *name) {
  return (PtoPyptoOp)pto_optable_lookup(&table, name);
}

const char *pto_pypto_mnemonic(PtoPyptoOp id) { return mnemonics[id]; }
unsigned pto_pypto_num_ops(void) { return PTO_PYPTO_NUM_OPS; }
const char *pto_pypto_op_name(PtoPyptoOp id) { return pypto_op_defs[id].name; }
PtoPyptoKind pto_pypto_kind(PtoPyptoOp id) { return kinds[id]; }
PtoDtypeSet pto_pypto_dtypes(PtoPyptoOp id) { return dtypes[id]; }

PtoUnaryRow pto_pypto_unary_row(PtoPyptoOp id) {
  return pto_optable_unary_row(&table, id);
}

unsigned pypto_num_tensor_operands(PtoPyptoKind k, unsigned n) {
  switch (k) {
  case PTO_PYPTO_KIND_VIEW:
  case PTO_PYPTO_KIND_LOAD_SCALAR:
  case PTO_PYPTO_KIND_EXPAND:
  case PTO_PYPTO_KIND_FULL: return n < 1 ? n : 1;
  case PTO_PYPTO_KIND_ASSEMBLE: return n < 2 ? n : 2;
  case PTO_PYPTO_KIND_ZEROS: return 0;
  default: return n;
  }
}

unsigned pto_pypto_num_tensor_operands(const PtoOp *op) {
  return pypto_num_tensor_operands(pto_pypto_kind(pto_pypto_op_id(op)),
                                   pto_op_num_operands(op));
}

static PtoResult check(PtoContext *ctx, PtoLoc *loc, int id,
                       PtoType *const *operands, unsigned n,
                       const PtoNamedAttr *attrs, unsigned nattrs,
                       PtoType *const *results, unsigned nres) {
  PyInfer in;
  pypto_infer_init(&in, ctx, loc, (PtoPyptoOp)id, operands, n, attrs, nattrs);
  for (unsigned i = 0; i < nres; i++) in.want[i] = results[i];
  PtoResult r = pypto_infer(&in);
  if (!r) r = pypto_infer_check_results(&in);
  pypto_infer_done(&in);
  return r;
}

PtoResult pypto_verify(PtoOp *op) { return pto_optable_verify(&table, op, check); }

/* ---- attribute accessors ---- */

unsigned pto_pypto_get_dim(const PtoOp *op) {
  PtoValue *v = pto_op_operand(op, 0);
  int64_t rank = pto_type_tensor_rank(pto_value_type(v));
  int64_t d = pto_op_named_int(op, PTO_ATTR_ID_DIM, -1);
  return (unsigned)(d < 0 ? d + rank : d);
}

bool pto_pypto_get_keepdim(const PtoOp *op) { return pto_op_named_flag(op, PTO_ATTR_ID_KEEPDIM); }

unsigned pto_pypto_get_offsets(const PtoOp *op, int64_t *offs,
                               PtoValue **dynamic) {
  int64_t v[PTO_MAX_RANK];
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_STATIC_OFFSETS), v, PTO_MAX_RANK, &n))
    return 0;
  unsigned next = pto_pypto_num_tensor_operands(op);
  for (unsigned i = 0; i < n; i++) {
    if (offs) offs[i] = v[i];
    if (dynamic) dynamic[i] = v[i] == PTO_DYN ? pto_op_operand(op, next) : NULL;
    if (v[i] == PTO_DYN) next++;
  }
  return n;
}

unsigned pto_pypto_get_perm(const PtoOp *op, int64_t perm[PTO_MAX_RANK]) {
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_PERM), perm, PTO_MAX_RANK, &n)) return 0;
  return n;
}

PtoRoundMode pto_pypto_get_cast_mode(const PtoOp *op) {
  const char *m = pto_op_named_str(op, PTO_ATTR_ID_MODE);
  PtoRoundMode r;
  /* the verifier admits rint, round, floor, ceil and trunc only */
  return m && pto_round_mode_from_name(m, &r) ? r : PTO_ROUND_RINT;
}

static bool str_attr_is(const PtoOp *op, PtoAttrNameId name, const char *value) {
  PtoAttr *a = pto_op_named_attr(op, name);
  return a && pto_attr_kind(a) == PTO_ATTR_STRING && strcmp(pto_attr_str(a), value) == 0;
}

bool pto_pypto_get_saturate(const PtoOp *op) { return str_attr_is(op, PTO_ATTR_ID_SATMODE, "on"); }
bool pto_pypto_get_gelu_tanh(const PtoOp *op) {
  return str_attr_is(op, PTO_ATTR_ID_APPROXIMATE, "tanh");
}
bool pto_pypto_get_a_trans(const PtoOp *op) { return pto_op_named_flag(op, PTO_ATTR_ID_A_TRANS); }
bool pto_pypto_get_b_trans(const PtoOp *op) { return pto_op_named_flag(op, PTO_ATTR_ID_B_TRANS); }

PtoType *pto_pypto_get_acc_dtype(const PtoOp *op) {
  PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_ACC_DTYPE);
  if (a && pto_attr_kind(a) == PTO_ATTR_TYPE) return pto_attr_type_value(a);
  PtoType *e = pto_type_tensor_elem(pto_value_type(pto_op_operand(op, 0)));
  return pto_elem_is_int(e) ? pto_type_int(pto_op_ctx(op), 32) : pto_type_f32(pto_op_ctx(op));
}

bool pto_pypto_get_scale(const PtoOp *op, double *scale) {
  PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_SCALE);
  if (!a || pto_attr_kind(a) != PTO_ATTR_FLOAT) return false;
  *scale = pto_attr_float_value(a);
  return true;
}
PtoValue *pto_pypto_get_scale_tensor(const PtoOp *op) {
  return pto_op_num_operands(op) > 2 ? pto_op_operand(op, 2) : NULL;
}
bool pto_pypto_get_relu(const PtoOp *op) { return pto_op_named_flag(op, PTO_ATTR_ID_RELU); }
bool pto_pypto_get_scale_a_trans(const PtoOp *op) {
  return pto_op_named_flag(op, PTO_ATTR_ID_SCALE_A_TRANS);
}
bool pto_pypto_get_scale_b_trans(const PtoOp *op) {
  return pto_op_named_flag(op, PTO_ATTR_ID_SCALE_B_TRANS);
}

int64_t pto_pypto_get_k(const PtoOp *op) { return pto_op_named_int(op, PTO_ATTR_ID_K, 1); }

bool pto_pypto_get_largest(const PtoOp *op) {
  PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_LARGEST);
  return !a || pto_attr_int_value(a) != 0;
}

double pto_pypto_get_eps(const PtoOp *op) {
  PtoAttr *a = pto_op_named_attr(op, PTO_ATTR_ID_EPS);
  if (a && pto_attr_kind(a) == PTO_ATTR_FLOAT) return pto_attr_float_value(a);
  return pto_pypto_op_id(op) == PTO_PYPTO_LAYER_NORM ? 1e-5 : 1e-6;
}

/* ---- registration ---- */

/* Folding produces index constants (pypto.dim); they are arith.constant. */
static PtoOp *materialize(PtoContext *ctx, PtoAttr *value, PtoType *type,
                          PtoLoc *loc) {
  if (!pto_ctx_lookup_op(ctx, "arith.constant") || pto_type_is_tensor(type))
    return NULL;
  PtoNamedAttr na = {pto_ident_cstr(ctx, "value"), value};
  return pto_op_create_simple(ctx, "arith.constant", loc, NULL, 0, &type, 1, &na, 1);
}

static const PtoDialectDef pypto_dialect = {
    "pypto", pypto_op_defs, PTO_PYPTO_NUM_OPS, NULL, NULL, NULL, NULL, materialize,
    "the Tensor level: tensor ops named after the PyPTO Python API",
    pto_attr_name_table, PTO_ATTR_NUM_IDS};

void pto_register_pypto_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &pypto_dialect);
}
