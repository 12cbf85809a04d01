/* lower-to-pto for the Tile level's elementwise math, comparisons, shape
 * and generator ops: each becomes the PTO instructions that compute the
 * same numbers with the same shared kernels in the interpreter
 * (tile.sigmoid -> pto.tsigmoid, ..., tile.pow -> pto.tpow, tile.lt ->
 * pto.tcmp, tile.where -> pto.tsel, tile.expand -> pto.texpand,
 * tile.full -> pto.texpands, tile.bitwise_and -> pto.tand, tile.clip ->
 * pto.tclip {min, max}), tile.gelu its formula. */
#include "Conversion/BlockToPTO/LowerElementwise.h"

#include <string.h>

#include "Support/Alloc.h"
#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Pypto.h"
#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"

/* Tile ops with one PTO instruction of the same operands and no
 * attributes. */
static const struct {
  const char *tile, *pto;
} unary[] = {
    {"tile.sigmoid", "pto.tsigmoid"}, {"tile.tanh", "pto.ttanh"},
    {"tile.silu", "pto.tsilu"},       {"tile.floor", "pto.tfloor"},
    {"tile.ceil", "pto.tceil"},       {"tile.round", "pto.tround"},
    {"tile.signbit", "pto.tsignbit"}, {"tile.sin", "pto.tsin"},
    {"tile.cos", "pto.tcos"},         {"tile.erf", "pto.terf"},
    /* the exponential, logarithmic and hyperbolic functions */
    {"tile.log2", "pto.tlog2"},       {"tile.log10", "pto.tlog10"},
    {"tile.log1p", "pto.tlog1p"},     {"tile.exp2", "pto.texp2"},
    {"tile.expm1", "pto.texpm1"},     {"tile.sinh", "pto.tsinh"},
    {"tile.cosh", "pto.tcosh"},       {"tile.asinh", "pto.tasinh"},
    {"tile.acosh", "pto.tacosh"},     {"tile.atanh", "pto.tatanh"},
    {"tile.cbrt", "pto.tcbrt"},
    {"tile.sign", "pto.tsign"},       {"tile.trunc", "pto.ttrunc"},
    {"tile.hardsigmoid", "pto.thardsigmoid"},
    {"tile.tan", "pto.ttan"},         {"tile.atan", "pto.tatan"},
    {"tile.asin", "pto.tasin"},       {"tile.acos", "pto.tacos"},
    {"tile.erfc", "pto.terfc"},
};

/* Tile ops with float parameters, and the instruction that takes them as
 * the same attributes. */
static const struct {
  PtoUnaryRow row;
  const char *pto;
} with_params[] = {
    {PTO_UNARY_ROW_LEAKY_RELU, "pto.tlrelu"},
    {PTO_UNARY_ROW_CLIP, "pto.tclip"},
};

static int with_params_of(PtoOp *op) {
  PtoTileOp id = pto_tile_op_id(op);
  PtoUnaryRow row = id == PTO_TILE_NONE ? PTO_UNARY_ROW_NONE : pto_tile_unary_row(id);
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(with_params); i++)
    if (with_params[i].row == row) return (int)i;
  return -1;
}

/* Tile ops of two tiles or a tile and a scalar, and their instruction. */
static const struct {
  const char *tile, *pto;
} binary[] = {
    {"tile.pow", "pto.tpow"},
    {"tile.bitwise_and", "pto.tand"},
    {"tile.bitwise_or", "pto.tor"},
    {"tile.bitwise_xor", "pto.txor"},
    {"tile.bitwise_left_shift", "pto.tshl"},
    {"tile.bitwise_right_shift", "pto.tshr"},
    {"tile.atan2", "pto.tatan2"},
};

static const char *binary_instr(PtoOp *op) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(binary); i++)
    if (pto_op_is(op, binary[i].tile)) return binary[i].pto;
  return NULL;
}

static const char *unary_instr(PtoOp *op) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(unary); i++)
    if (pto_op_is(op, unary[i].tile)) return unary[i].pto;
  return NULL;
}

/* The comparisons, by their tcmp predicate. */
static const char *const compares[] = {"eq", "ne", "lt", "le", "gt", "ge"};

static const char *compare_of(PtoOp *op) {
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(compares); i++) {
    char name[16] = "tile.";
    strcat(name, compares[i]);
    if (pto_op_is(op, name)) return compares[i];
  }
  return NULL;
}

static bool is_mask(PtoType *elem) {
  return pto_type_is_integer(elem) && pto_type_int_width(elem) == 1;
}

/* tile.cast from or to i1, which tcvt does not convert. */
static bool mask_cast(PtoOp *op) {
  if (!pto_op_is(op, "tile.cast") || pto_op_num_operands(op) != 1 ||
      pto_op_num_results(op) != 1)
    return false;
  PtoType *from = pto_value_type(pto_op_operand(op, 0));
  PtoType *to = pto_value_type(pto_op_result(op, 0));
  return (pto_type_is_pto_tile(from) && is_mask(pto_pto_tile_elem(from))) ||
         (pto_type_is_block_buf(to) && is_mask(pto_tile_elem(to)));
}

bool pto_lower_elementwise_handles(PtoOp *op) {
  return unary_instr(op) || compare_of(op) || mask_cast(op) ||
         binary_instr(op) || with_params_of(op) >= 0 ||
         pto_op_is(op, "tile.where") ||
         pto_op_is(op, "tile.gelu") || pto_op_is(op, "tile.uniform") ||
         pto_op_is(op, "tile.normal") ||
         pto_op_is(op, "tile.expand") || pto_op_is(op, "tile.full");
}

static PtoOp *build(PtoContext *ctx, PtoOp *at, const char *name,
                    PtoValue *const *operands, unsigned n, PtoType *result) {
  PtoOpState st;
  pto_op_state_init(&st, ctx, name, pto_op_loc(at));
  pto_op_state_add_operands(&st, operands, n);
  pto_op_state_add_result(&st, result);
  PtoOp *op = pto_op_create(&st);
  pto_block_insert_before(at, op);
  return op;
}

/* tile.expand: texpand when the broadcast is one of whole rows or columns
 * of the 2-D tiles. With the leading dims flattened into rows that is
 * exactly when the operand's tile has the result's rows or one row: a
 * leading dim broadcast inside the rows (3x1x7 to 3x5x7) makes neither. */
static PtoOp *lower_expand(PtoContext *ctx, PtoOp *op, PtoType *buffer,
                           PtoType *result) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *from = pto_value_type(x);
  if (!pto_type_is_pto_tile(from)) {
    pto_op_emit_error(op, "lower-to-pto: the operand is not a PTO tile");
    return NULL;
  }
  int64_t ar = pto_pto_tile_rows(from), ac = pto_pto_tile_cols(from);
  if ((ar != 1 && ar != pto_pto_tile_rows(result)) ||
      (ac != 1 && ac != pto_pto_tile_cols(result))) {
    char *ts = pto_type_to_string(buffer);
    pto_op_emit_error(op, "lower-to-pto: this broadcast into '%s' repeats "
                          "the %lldx%lld tile inside the rows of the result's "
                          "%lldx%lld tile; texpand broadcasts whole rows or "
                          "columns only (broadcast the leading dims with one "
                          "tile per plane)",
                      ts, (long long)ar, (long long)ac,
                      (long long)pto_pto_tile_rows(result),
                      (long long)pto_pto_tile_cols(result));
    pto_free(ts);
    return NULL;
  }
  return build(ctx, op, "pto.texpand", &x, 1, result);
}

static PtoType *with_elem(PtoContext *ctx, PtoType *tile, PtoType *elem) {
  return pto_pto_tile_type(ctx, pto_pto_tile_rows(tile), pto_pto_tile_cols(tile),
                           elem, pto_pto_tile_space(tile), PTO_PTO_UNPLANNED);
}

/* Operand i of op as a tile of `like`'s shape: itself, or a scalar filled
 * into one (texpands; the Tile level's scalars have the element type). */
static PtoValue *as_tile(PtoContext *ctx, PtoOp *op, unsigned i, PtoType *like) {
  PtoValue *v = pto_op_operand(op, i);
  PtoType *t = pto_value_type(v);
  if (pto_type_is_pto_tile(t)) return v;
  return pto_op_result(build(ctx, op, "pto.texpands", &v, 1, with_elem(ctx, like, t)), 0);
}

/* Tile `t` filled with v (0 or 1) of its element type. An unsigned type
 * has no constants (arith's are signless): v is filled in the signless
 * type of its width and converted, which is exact for 0 and 1. */
static PtoValue *fill(PtoContext *ctx, PtoOp *at, PtoType *t, int v) {
  PtoBuilder b;
  pto_builder_init(&b, ctx);
  pto_builder_set_before(&b, at);
  b.loc = pto_op_loc(at);
  PtoType *e = pto_pto_tile_elem(t);
  if (pto_type_is_float(e)) {
    PtoValue *c = pto_arith_build_constant_float(&b, e, v);
    return pto_op_result(build(ctx, at, "pto.texpands", &c, 1, t), 0);
  }
  bool unsig = pto_type_int_signedness(e) == PTO_UNSIGNED;
  PtoType *se = unsig ? pto_type_int(ctx, pto_type_int_width(e)) : e;
  PtoValue *c = pto_arith_build_constant_int(&b, se, v);
  PtoValue *f = pto_op_result(build(ctx, at, "pto.texpands", &c, 1, with_elem(ctx, t, se)), 0);
  return unsig ? pto_op_result(build(ctx, at, "pto.tcvt", &f, 1, t), 0) : f;
}

static PtoValue *bool_fill(PtoContext *ctx, PtoOp *at, PtoType *mask, bool v) {
  return fill(ctx, at, mask, v);
}

/* A cast to i1 is x != 0 (NaN too, as numpy's astype(bool)); one from i1
 * is m ? 1 : 0 in the result's type. */
static PtoOp *lower_mask_cast(PtoContext *ctx, PtoOp *op, PtoType *result) {
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *from = pto_value_type(x);
  if (!pto_type_is_pto_tile(from)) {
    pto_op_emit_error(op, "lower-to-pto: the operand is not a PTO tile");
    return NULL;
  }
  /* (i1 to i1 selects too: the copy) */
  if (!is_mask(pto_pto_tile_elem(from))) {
    PtoValue *ops[2] = {x, fill(ctx, op, from, 0)};
    PtoOp *c = build(ctx, op, "pto.tcmp", ops, 2, result);
    pto_op_set_attr(c, "cmp", pto_attr_string(ctx, "ne", 2));
    return c;
  }
  PtoValue *ops[3] = {x, fill(ctx, op, result, 1), fill(ctx, op, result, 0)};
  return build(ctx, op, "pto.tsel", ops, 3, result);
}

/* tile.<cmp> a, b: tcmp {cmp}, a scalar side filled into a tile first.
 * tcmp compares numbers; masks (i1) are compared by selecting:
 * a == b is a ? b : !b and a != b is a ? !b : b, with !b = b ? 0 : 1. */
static PtoOp *lower_compare(PtoContext *ctx, PtoOp *op, const char *cmp,
                            PtoType *result) {
  PtoValue *a0 = pto_op_operand(op, 0), *b0 = pto_op_operand(op, 1);
  PtoType *like = pto_type_is_pto_tile(pto_value_type(a0)) ? pto_value_type(a0)
                  : pto_type_is_pto_tile(pto_value_type(b0)) ? pto_value_type(b0)
                                                             : NULL;
  if (!like) {
    pto_op_emit_error(op, "lower-to-pto: neither operand is a PTO tile");
    return NULL;
  }
  PtoValue *ops[3] = {as_tile(ctx, op, 0, like), as_tile(ctx, op, 1, like), NULL};
  PtoType *elem = pto_pto_tile_elem(pto_value_type(ops[0]));
  if (pto_type_is_integer(elem) && pto_type_int_width(elem) == 1) {
    bool eq = strcmp(cmp, "eq") == 0;
    if (!eq && strcmp(cmp, "ne") != 0) {
      pto_op_emit_error(op, "lower-to-pto: masks (i1) compare by eq and ne "
                            "only (tcmp compares numbers; two masks are "
                            "compared by selecting), not by %s",
                        cmp);
      return NULL;
    }
    PtoValue *sel[3] = {ops[1], bool_fill(ctx, op, result, false),
                        bool_fill(ctx, op, result, true)};
    PtoValue *nb = pto_op_result(build(ctx, op, "pto.tsel", sel, 3, result), 0);
    PtoValue *out[3] = {ops[0], eq ? ops[1] : nb, eq ? nb : ops[1]};
    return build(ctx, op, "pto.tsel", out, 3, result);
  }
  PtoOp *c = build(ctx, op, "pto.tcmp", ops, 2, result);
  pto_op_set_attr(c, "cmp", pto_attr_string(ctx, cmp, strlen(cmp)));
  return c;
}

/* tile.where c, x, y: tsel, scalar x or y filled into the result's tile. */
static PtoOp *lower_where(PtoContext *ctx, PtoOp *op, PtoType *result) {
  PtoValue *ops[3] = {pto_op_operand(op, 0), as_tile(ctx, op, 1, result),
                      as_tile(ctx, op, 2, result)};
  if (!pto_type_is_pto_tile(pto_value_type(ops[0]))) {
    pto_op_emit_error(op, "lower-to-pto: the condition is not a PTO tile");
    return NULL;
  }
  return build(ctx, op, "pto.tsel", ops, 3, result);
}

/* x (op) s of x's tile type, s a float constant of its element type. */
static PtoValue *with_scalar(PtoContext *ctx, PtoOp *at, const char *name,
                             PtoValue *x, double s) {
  PtoBuilder b;
  pto_builder_init(&b, ctx);
  pto_builder_set_before(&b, at);
  b.loc = pto_op_loc(at);
  PtoType *t = pto_value_type(x);
  PtoValue *ops[2] = {x, pto_arith_build_constant_float(&b, pto_pto_tile_elem(t), s)};
  return pto_op_result(build(ctx, at, name, ops, 2, t), 0);
}
static PtoValue *step2(PtoContext *ctx, PtoOp *at, const char *name, PtoValue *a,
                       PtoValue *b) {
  PtoValue *ops[2] = {a, b};
  return pto_op_result(build(ctx, at, name, ops, 2, pto_value_type(a)), 0);
}

/* tile.gelu: no vector instruction computes it, so its formula, the one
 * the Tile level's kernel computes in one step, as instructions each
 * rounded to the tile's type: 0.5 x (1 + erf(x / sqrt(2))), or with
 * approximate = "tanh" 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). */
static PtoOp *lower_gelu(PtoContext *ctx, PtoOp *op) {
  PtoValue *x = pto_op_operand(op, 0);
  if (!pto_type_is_pto_tile(pto_value_type(x))) {
    pto_op_emit_error(op, "lower-to-pto: the operand is not a PTO tile");
    return NULL;
  }
  PtoValue *u;
  if (pto_pypto_get_gelu_tanh(op)) {
    PtoValue *x3 = step2(ctx, op, "pto.tmul", step2(ctx, op, "pto.tmul", x, x), x);
    u = step2(ctx, op, "pto.tadd", x, with_scalar(ctx, op, "pto.tmuls", x3, 0.044715));
    u = with_scalar(ctx, op, "pto.tmuls", u, 0.79788456080286535588);
    u = pto_op_result(build(ctx, op, "pto.ttanh", &u, 1, pto_value_type(u)), 0);
  } else {
    u = with_scalar(ctx, op, "pto.tmuls", x, 0.70710678118654752440);
    u = pto_op_result(build(ctx, op, "pto.terf", &u, 1, pto_value_type(u)), 0);
  }
  u = step2(ctx, op, "pto.tmul", x, with_scalar(ctx, op, "pto.tadds", u, 1.0));
  return pto_value_def_op(with_scalar(ctx, op, "pto.tmuls", u, 0.5));
}

/* tile.uniform / tile.normal {key, counter, origin, full}: trandom of
 * the key and counter as i64 values, the window the buffer's dims (the
 * leading ones of `full` beyond its rank 1). */
static PtoOp *lower_random(PtoContext *ctx, PtoOp *op, PtoType *buffer,
                           PtoType *result) {
  int64_t o[PTO_MAX_RANK], f[PTO_MAX_RANK], w[PTO_MAX_RANK];
  unsigned no = 0, nf = 0, r = pto_tile_rank(buffer);
  if (!pto_attr_get_i64_array(pto_op_attr(op, "origin"), o, PTO_MAX_RANK, &no) ||
      !pto_attr_get_i64_array(pto_op_attr(op, "full"), f, PTO_MAX_RANK, &nf) ||
      no != nf || nf < r) {
    pto_op_emit_error(op, "lower-to-pto: needs i64 array attributes 'origin' and 'full' of "
                          "one length, at least the buffer's rank");
    return NULL;
  }
  for (unsigned d = 0; d < nf; d++) w[d] = d < nf - r ? 1 : pto_tile_shape(buffer)[d - (nf - r)];
  PtoBuilder b;
  pto_builder_init(&b, ctx);
  pto_builder_set_before(&b, op);
  b.loc = pto_op_loc(op);
  PtoType *i64 = pto_type_int(ctx, 64);
  PtoValue *ops[2] = {
      pto_arith_build_constant_int(&b, i64, pto_op_attr_int(op, "key", 0)),
      pto_arith_build_constant_int(&b, i64, pto_op_attr_int(op, "counter", 0))};
  PtoOp *t = build(ctx, op, "pto.trandom", ops, 2, result);
  const char *dist = pto_op_is(op, "tile.normal") ? "normal" : "uniform";
  pto_op_set_attr(t, "dist", pto_attr_string(ctx, dist, strlen(dist)));
  pto_op_set_attr(t, "origin", pto_attr_i64_array(ctx, o, nf));
  pto_op_set_attr(t, "full", pto_attr_i64_array(ctx, f, nf));
  pto_op_set_attr(t, "window", pto_attr_i64_array(ctx, w, nf));
  return t;
}

/* tile.leaky_relu, tile.clip: the instruction with each parameter as an
 * f64 attribute, its default written out. */
static PtoOp *lower_with_params(PtoContext *ctx, PtoOp *op, int p, PtoType *result) {
  PtoValue *x = pto_op_operand(op, 0);
  if (pto_op_num_operands(op) != 1 || !pto_type_is_pto_tile(pto_value_type(x))) {
    pto_op_emit_error(op, "lower-to-pto: the operand is not a PTO tile");
    return NULL;
  }
  PtoUnaryRow row = with_params[p].row;
  double v[2];
  pto_unary_row_params(op, row, v);
  PtoOp *t = build(ctx, op, with_params[p].pto, &x, 1, result);
  const char *const *names = pto_unary_row_attrs(row);
  for (unsigned i = 0; i < 2 && names[i]; i++)
    pto_op_set_attr(t, names[i], pto_attr_float(ctx, pto_type_float(ctx, PTO_F64), v[i]));
  return t;
}

PtoOp *pto_lower_elementwise(PtoContext *ctx, PtoOp *op, PtoType *buffer,
                             PtoType *result) {
  const char *cmp = compare_of(op);
  if (cmp) return lower_compare(ctx, op, cmp, result);
  if (pto_op_is(op, "tile.where")) return lower_where(ctx, op, result);
  if (mask_cast(op)) return lower_mask_cast(ctx, op, result);
  if (pto_op_is(op, "tile.expand")) return lower_expand(ctx, op, buffer, result);
  if (pto_op_is(op, "tile.gelu")) return lower_gelu(ctx, op);
  if (pto_op_is(op, "tile.uniform") || pto_op_is(op, "tile.normal"))
    return lower_random(ctx, op, buffer, result);
  const char *bin = binary_instr(op);
  if (bin) {
    PtoValue *ops[2] = {as_tile(ctx, op, 0, result), as_tile(ctx, op, 1, result)};
    return build(ctx, op, bin, ops, 2, result);
  }
  int p = with_params_of(op);
  if (p >= 0) return lower_with_params(ctx, op, p, result);
  if (pto_op_is(op, "tile.full")) {
    PtoValue *v = pto_op_operand(op, 0);
    return build(ctx, op, "pto.texpands", &v, 1, result);
  }
  const char *name = unary_instr(op);
  if (!name || pto_op_num_operands(op) != 1) {
    pto_op_emit_error(op, "lower-to-pto: no PTO instruction computes this op");
    return NULL;
  }
  PtoValue *x = pto_op_operand(op, 0);
  return build(ctx, op, name, &x, 1, result);
}
