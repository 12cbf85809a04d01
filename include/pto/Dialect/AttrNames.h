/* The attribute names of the Tensor (pypto) and Tile levels, spelled once:
 * verifiers, accessors, builders, syntax hooks and passes use these
 * instead of literals, so that a renamed or misspelled attribute is a
 * compile error, not an attribute silently never found. The elementwise
 * unary ops' parameters (slope, min, max) are spelled in their rows of
 * pto/UnaryOps.def.
 *
 * Each name is also interned once per context when a dialect that
 * declares this table is registered (PtoDialectDef.attr_names =
 * pto_attr_name_table): pto_op_named_attr(op, PTO_ATTR_ID_DIM) then finds
 * the attribute by pointer, with no string compare. */
#ifndef PTO_DIALECT_ATTRNAMES_H
#define PTO_DIALECT_ATTRNAMES_H

#include "pto/DialectImplementation.h"
#include "pto/IR.h"

/* The names, each spelled once. */
/* tuning attributes any op may carry */
#define PTO_ATTR_VEC_TILE "vec_tile"
#define PTO_ATTR_CUBE_TILE "cube_tile"
#define PTO_ATTR_LABEL "label"
/* windows: view, assemble, gather, index_select, scatter */
#define PTO_ATTR_STATIC_OFFSETS "static_offsets"
/* reductions, softmax, concat, indexing, topk, dim */
#define PTO_ATTR_DIM "dim"
#define PTO_ATTR_KEEPDIM "keepdim"
/* transpose */
#define PTO_ATTR_PERM "perm"
/* cast */
#define PTO_ATTR_MODE "mode"
#define PTO_ATTR_SATMODE "satmode"
/* gelu */
#define PTO_ATTR_APPROXIMATE "approximate"
/* matmul */
#define PTO_ATTR_A_TRANS "a_trans"
#define PTO_ATTR_B_TRANS "b_trans"
#define PTO_ATTR_ACC_DTYPE "acc_dtype"
/* matmul's way out of the accumulator (PyPTO's extend_params): the
 * per-tensor dequantisation scale and the activation */
#define PTO_ATTR_SCALE "scale"
#define PTO_ATTR_RELU "relu"
/* scaled_mm: the scales' layouts transposed */
#define PTO_ATTR_SCALE_A_TRANS "scale_a_trans"
#define PTO_ATTR_SCALE_B_TRANS "scale_b_trans"
/* topk */
#define PTO_ATTR_K "k"
#define PTO_ATTR_LARGEST "largest"
/* rms_norm, layer_norm */
#define PTO_ATTR_EPS "eps"
/* pypto.uniform / normal (and their tiles: origin, full) */
#define PTO_ATTR_KEY "key"
#define PTO_ATTR_COUNTER "counter"
#define PTO_ATTR_ORIGIN "origin"
#define PTO_ATTR_FULL "full"
/* scatter: how src combines with the input ("add", "multiply"; absent:
 * replace) */
#define PTO_ATTR_REDUCE "reduce"
/* index_add: its operands live in UB (PyPTO's index_add_ub), recorded */
#define PTO_ATTR_UB "ub"
/* pass_verify_print: the text with one `{}` per printed operand;
 * pass_verify_save: the file name template and the names of its `$NAME`
 * operands */
#define PTO_ATTR_FORMAT "format"
#define PTO_ATTR_FNAME "fname"
#define PTO_ATTR_KEYS "keys"
/* builder-only attributes (consumed by pto_pypto_create, never on an op) */
#define PTO_ATTR_SHAPE "shape"
#define PTO_ATTR_DTYPE "dtype"
#define PTO_ATTR_OUT_DTYPE "out_dtype"

/* Every name above by its ID: PTO_ATTR_ID_<ID> is PTO_ATTR_<ID>'s index
 * in pto_attr_name_table. */
#define PTO_ATTR_NAMES(X)                                                   \
  X(VEC_TILE) X(CUBE_TILE) X(LABEL) X(STATIC_OFFSETS) X(DIM) X(KEEPDIM)     \
  X(PERM) X(MODE) X(SATMODE) X(APPROXIMATE) X(A_TRANS) X(B_TRANS)           \
  X(ACC_DTYPE) X(K) X(LARGEST) X(EPS) X(KEY) X(COUNTER) X(ORIGIN) X(FULL)   \
  X(SHAPE) X(DTYPE) X(OUT_DTYPE)                                            \
  X(REDUCE) X(UB)                                                           \
  X(SCALE) X(RELU)                                                          \
  X(SCALE_A_TRANS) X(SCALE_B_TRANS)                                         \
  X(FORMAT) X(FNAME) X(KEYS)

typedef enum PtoAttrNameId {
#define PTO_ATTR_ID_(ID) PTO_ATTR_ID_##ID,
  PTO_ATTR_NAMES(PTO_ATTR_ID_)
#undef PTO_ATTR_ID_
  PTO_ATTR_NUM_IDS
} PtoAttrNameId;

/* The names by id, for PtoDialectDef.attr_names (PTO_ATTR_NUM_IDS). */
extern const char *const pto_attr_name_table[PTO_ATTR_NUM_IDS];

/* The op's attribute `id`, or NULL: by pointer when the op's dialect
 * declares pto_attr_name_table, by name otherwise (ops of other
 * dialects). */
static inline PtoAttr *pto_op_named_attr(const PtoOp *op, PtoAttrNameId id) {
  PtoIdent *const *names = pto_op_dialect_attr_names(op);
  return names ? pto_op_attr_id(op, names[id]) : pto_op_attr(op, pto_attr_name_table[id]);
}
/* pto_op_attr_int / _flag / _str of the named attribute. */
static inline int64_t pto_op_named_int(const PtoOp *op, PtoAttrNameId id, int64_t dflt) {
  PtoAttr *a = pto_op_named_attr(op, id);
  return a && pto_attr_kind(a) == PTO_ATTR_INTEGER ? pto_attr_int_value(a) : dflt;
}
static inline bool pto_op_named_flag(const PtoOp *op, PtoAttrNameId id) {
  PtoAttr *a = pto_op_named_attr(op, id);
  if (!a) return false;
  if (pto_attr_kind(a) == PTO_ATTR_UNIT) return true;
  return pto_attr_kind(a) == PTO_ATTR_INTEGER && pto_attr_int_value(a) != 0;
}
static inline const char *pto_op_named_str(const PtoOp *op, PtoAttrNameId id) {
  return pto_attr_str(pto_op_named_attr(op, id));
}

#endif
