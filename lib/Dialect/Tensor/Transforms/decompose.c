/* decompose: splits the composite pypto ops (softmax, rms_norm, layer_norm)
 * into primitive pypto ops, numerically stable, each carrying the
 * composite's tuning attributes (vec_tile, cube_tile, label) and location.
 * Everything else is left alone. */
#include "pto/Dialect/Pypto.h"
#include "pto/Dialect/PyptoTransforms.h"
#include "pto/Dialects.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

typedef struct Decomp {
  PtoBuilder b;
  PtoOp *src;          /* the composite being split */
  PtoValue *in[3];     /* its operands, in the type the split computes in */
  PtoNamedAttr attrs[5]; /* its tuning attributes, then per-op ones */
  unsigned ntuning;
  bool failed;
} Decomp;

static void init(Decomp *d, PtoOp *src) {
  PtoContext *ctx = pto_op_ctx(src);
  pto_builder_init(&d->b, ctx);
  pto_builder_set_before(&d->b, src);
  d->b.loc = pto_op_loc(src);
  d->src = src;
  d->failed = false;
  d->ntuning = 0;
  static const char *const names[] = {"vec_tile", "cube_tile", "label"};
  for (unsigned i = 0; i < 3; i++) {
    PtoAttr *a = pto_op_attr(src, names[i]);
    if (a) d->attrs[d->ntuning++] = (PtoNamedAttr){pto_ident_cstr(ctx, names[i]), a};
  }
}

/* Builds `op`(a[, b]) with the tuning attributes plus `extra`. */
static PtoValue *emit(Decomp *d, const char *op, PtoValue *a, PtoValue *b,
                      const PtoNamedAttr *extra, unsigned nextra) {
  if (d->failed) return NULL;
  unsigned n = d->ntuning;
  for (unsigned i = 0; i < nextra; i++) d->attrs[n++] = extra[i];
  PtoValue *ops[2] = {a, b};
  PtoOp *o = pto_pypto_create(&d->b, op, ops, b ? 2 : 1, d->attrs, n);
  if (!o) {
    d->failed = true;
    return NULL;
  }
  return pto_op_result(o, 0);
}

/* sum / amax over `dim` with keepdim. */
static PtoValue *reduce(Decomp *d, const char *op, PtoValue *x, PtoAttr *dim) {
  PtoContext *ctx = d->b.ctx;
  PtoNamedAttr a[2] = {{pto_ident_cstr(ctx, "dim"), dim},
                       {pto_ident_cstr(ctx, "keepdim"), pto_attr_unit(ctx)}};
  return emit(d, op, x, NULL, a, 2);
}

static PtoType *elem_of(PtoValue *v) { return pto_type_tensor_elem(pto_value_type(v)); }

static PtoValue *scalar(Decomp *d, PtoType *elem, double v) {
  return pto_arith_build_constant_float(&d->b, elem, v);
}

/* The size of x's last dim as a scalar of x's element type: a constant, or
 * read with pypto.dim and converted when it is dynamic. */
static PtoValue *last_dim_size(Decomp *d, PtoValue *x) {
  PtoType *t = pto_value_type(x), *elem = pto_type_tensor_elem(t);
  int64_t n = pto_type_tensor_dim(t, pto_type_tensor_rank(t) - 1);
  if (n != PTO_DYN) return scalar(d, elem, (double)n);
  PtoContext *ctx = d->b.ctx;
  PtoNamedAttr a = {pto_ident_cstr(ctx, "dim"), pto_attr_i64(ctx, -1)};
  PtoValue *idx = emit(d, "dim", x, NULL, &a, 1);
  if (!idx) return NULL;
  PtoValue *i = pto_arith_build_cast(&d->b, "arith.index_cast", idx, pto_type_int(ctx, 64));
  return pto_arith_build_cast(&d->b, "arith.sitofp", i, elem);
}

/* mean over the last dim, keepdim. */
static PtoValue *mean(Decomp *d, PtoValue *x, PtoValue *n) {
  PtoValue *s = reduce(d, "sum", x, pto_attr_i64(d->b.ctx, -1));
  return emit(d, "divs", s, n, NULL, 0);
}

static PtoValue *softmax(Decomp *d) {
  PtoValue *x = d->in[0];
  PtoAttr *dim = pto_op_attr(d->src, "dim");
  PtoValue *m = reduce(d, "amax", x, dim);
  PtoValue *e = emit(d, "exp", emit(d, "sub", x, m, NULL, 0), NULL, NULL, 0);
  PtoValue *t = reduce(d, "sum", e, dim);
  return emit(d, "div", e, t, NULL, 0);
}

/* x * rsqrt(var + eps) where var = mean(c * c). */
static PtoValue *normalize(Decomp *d, PtoValue *x, PtoValue *c, PtoValue *n) {
  PtoValue *var = mean(d, emit(d, "mul", c, c, NULL, 0), n);
  PtoValue *eps = scalar(d, elem_of(x), pto_pypto_get_eps(d->src));
  PtoValue *r = emit(d, "rsqrt", emit(d, "adds", var, eps, NULL, 0), NULL, NULL, 0);
  return emit(d, "mul", x, r, NULL, 0);
}

static PtoValue *rms_norm(Decomp *d) {
  PtoValue *x = d->in[0], *gamma = d->in[1];
  PtoValue *n = last_dim_size(d, x);
  if (!n) return NULL;
  return emit(d, "mul", normalize(d, x, x, n), gamma, NULL, 0);
}

static PtoValue *layer_norm(Decomp *d) {
  PtoValue *x = d->in[0], *gamma = d->in[1], *beta = d->in[2];
  PtoValue *n = last_dim_size(d, x);
  if (!n) return NULL;
  PtoValue *c = emit(d, "sub", x, mean(d, x, n), NULL, 0);
  PtoValue *y = emit(d, "mul", normalize(d, c, c, n), gamma, NULL, 0);
  return emit(d, "add", y, beta, NULL, 0);
}

/* `v` as a tensor of `elem` (pypto.cast unless it already is one). The
 * cast of an operand of lower rank (gamma, beta) tiles it by the trailing
 * entries of the composite's vec_tile. */
static PtoValue *cast_to(Decomp *d, PtoValue *v, PtoType *elem) {
  if (!v || elem_of(v) == elem) return v;
  PtoContext *ctx = d->b.ctx;
  PtoNamedAttr a = {pto_ident_cstr(ctx, "dtype"), pto_attr_type(ctx, elem)};
  PtoIdent *vec_id = pto_ident_cstr(ctx, "vec_tile");
  unsigned rank = pto_type_tensor_rank(pto_value_type(v));
  PtoNamedAttr *vec = NULL, saved = {0};
  for (unsigned i = 0; i < d->ntuning; i++)
    if (d->attrs[i].name == vec_id) vec = &d->attrs[i];
  int64_t sizes[PTO_MAX_RANK];
  unsigned n;
  if (vec && pto_attr_get_i64_array(vec->value, sizes, PTO_MAX_RANK, &n) &&
      n > rank) {
    saved = *vec;
    vec->value = pto_attr_i64_array(ctx, sizes + (n - rank), rank);
  }
  PtoValue *r = emit(d, "cast", v, NULL, &a, 1);
  if (saved.name) *vec = saved;
  return r;
}

static PtoWalkResult collect(PtoOp *op, void *user) {
  PTO_VEC(PtoOp *) *v = user;
  PtoPyptoOp id = pto_pypto_op_id(op);
  if (id == PTO_PYPTO_SOFTMAX || id == PTO_PYPTO_RMS_NORM || id == PTO_PYPTO_LAYER_NORM)
    pto_vec_push(v, op);
  return PTO_WALK_ADVANCE;
}

PtoValue *pto_pypto_decompose(PtoOp *op) {
  if (!pto_ctx_lookup_op(pto_op_ctx(op), "arith.constant")) {
    pto_op_emit_error(op, "decompose needs the arith dialect for its scalar "
                          "constants; register it");
    return NULL;
  }
  Decomp d;
  init(&d, op);
  /* Below f32 the split computes in f32 and casts the result back, as the
   * Tensor level's kernels and PyPTO do: rounding every step to 16 bits
   * would make the levels disagree. */
  PtoType *elem = elem_of(pto_op_operand(op, 0)), *work = elem;
  if (pto_type_is_float(elem) && pto_type_bitwidth(elem) < 32)
    work = pto_type_f32(d.b.ctx);
  unsigned nin = pto_op_num_operands(op);
  for (unsigned i = 0; i < 3; i++)
    d.in[i] = i < nin ? cast_to(&d, pto_op_operand(op, i), work) : NULL;
  PtoValue *y;
  switch (pto_pypto_op_id(op)) {
  case PTO_PYPTO_SOFTMAX: y = softmax(&d); break;
  case PTO_PYPTO_RMS_NORM: y = rms_norm(&d); break;
  case PTO_PYPTO_LAYER_NORM: y = layer_norm(&d); break;
  default: y = NULL; break;
  }
  y = cast_to(&d, y, elem);
  if (!y || d.failed) {
    pto_op_emit_error(op, "could not be decomposed");
    return NULL;
  }
  pto_value_replace_all_uses(pto_op_result(op, 0), y);
  pto_op_erase(op);
  return y;
}

static PtoResult run(PtoPass *pass, PtoOp *root) {
  PTO_VEC(PtoOp *) ops = {0};
  pto_op_walk(root, PTO_WALK_POST, collect, &ops);
  PtoResult r = PTO_SUCCESS;
  for (uint32_t i = 0; i < ops.len && !r; i++) {
    if (!pto_pypto_decompose(ops.data[i])) r = PTO_FAILURE;
    else pto_pass_stat_add(pass, "num-decomposed", 1);
  }
  pto_vec_free(&ops);
  return r;
}

static const PtoPassStatDef statistics[] = {
    {"num-decomposed", "Number of composite ops split into primitive ops"},
};

static const PtoPassDef decompose_pass = {
    .argument = "decompose",
    .summary = "Split softmax, rms_norm and layer_norm into primitive pypto ops",
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .description =
        "Replaces each composite pypto op nested in the anchor (loop bodies\n"
        "included) by primitive pypto ops, numerically stable:\n"
        "`softmax` becomes amax, sub, exp, sum, div along its `dim` (with\n"
        "`keepdim`); `rms_norm` becomes x * rsqrt(sum(x*x) / D + eps) * gamma\n"
        "and `layer_norm` (x - mean) * rsqrt(var + eps) * gamma + beta over\n"
        "the last dim, D its size (an `arith.constant`, or `pypto.dim` and a\n"
        "conversion when dynamic) and eps an `arith.constant` of the element\n"
        "type. Below f32 (f16, bf16) the split casts its operands to f32,\n"
        "computes in f32 and casts the result back, as the Tensor level does.\n"
        "Every produced op carries the composite's `vec_tile`,\n"
        "`cube_tile` and `label` and its location. All other ops are left\n"
        "alone. Needs the arith dialect.",
};

void pto_pypto_register_passes(PtoContext *ctx) {
  if (pto_pass_lookup(ctx, decompose_pass.argument) != &decompose_pass)
    pto_pass_register(ctx, &decompose_pass);
}
