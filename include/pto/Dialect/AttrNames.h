/* The attribute names of the Tensor (pypto) and Tile levels, spelled once:
 * verifiers, accessors, builders, syntax hooks and passes use these
 * instead of literals, so that a renamed or misspelled attribute is a
 * compile error, not an attribute silently never found. The elementwise
 * unary ops' parameters (slope, min, max) are spelled in their rows of
 * pto/UnaryOps.def. */
#ifndef PTO_DIALECT_ATTRNAMES_H
#define PTO_DIALECT_ATTRNAMES_H

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
/* topk */
#define PTO_ATTR_K "k"
#define PTO_ATTR_LARGEST "largest"
/* rms_norm, layer_norm */
#define PTO_ATTR_EPS "eps"
/* builder-only attributes (consumed by pto_pypto_create, never on an op) */
#define PTO_ATTR_SHAPE "shape"
/* pypto.uniform / normal (and their tiles: origin, full) */
#define PTO_ATTR_KEY "key"
#define PTO_ATTR_COUNTER "counter"
#define PTO_ATTR_ORIGIN "origin"
#define PTO_ATTR_FULL "full"
#define PTO_ATTR_DTYPE "dtype"
#define PTO_ATTR_OUT_DTYPE "out_dtype"

#endif
