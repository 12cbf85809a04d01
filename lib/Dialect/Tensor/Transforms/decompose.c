/* decompose: splits the composite pypto ops (softmax, rms_norm, layer_norm,
 * quant_mx, scaled_mm) into primitive pypto ops, numerically stable, each
 * carrying the composite's tuning attributes (vec_tile, cube_tile, label)
 * and location. Everything else is left alone. */
#include "pto/Dialect/Pypto.h"
#include "pto/Dialect/PyptoTransforms.h"
#include "pto/Dialects.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

#include <math.h>
#include <string.h>

typedef struct Decomp {
  PtoBuilder b;
  PtoOp *src;          /* the composite being split */
  PtoValue *in[3];     /* its operands, in the type the split computes in */
  PtoNamedAttr attrs[8]; /* its tuning attributes, then per-op ones */
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

/* ---- MX: the steps pypto.quant_mx and pypto.scaled_mm stand for ---- */

enum { MX_BLOCK = 32 };

static PtoNamedAttr named(Decomp *d, const char *name, PtoAttr *v) {
  return (PtoNamedAttr){pto_ident_cstr(d->b.ctx, name), v};
}

static PtoValue *reshape(Decomp *d, PtoValue *x, const int64_t *shape, unsigned rank) {
  PtoNamedAttr a = named(d, "shape", pto_attr_i64_array(d->b.ctx, shape, rank));
  return emit(d, "reshape", x, NULL, &a, 1);
}

/* pypto.cast to `elem` with rounding `mode` (NULL: the default), saturating
 * when `sat`. */
static PtoValue *cast_mode(Decomp *d, PtoValue *x, PtoType *elem, const char *mode,
                           bool sat) {
  PtoContext *ctx = d->b.ctx;
  PtoNamedAttr a[3] = {named(d, "dtype", pto_attr_type(ctx, elem))};
  unsigned n = 1;
  if (mode) a[n++] = named(d, "mode", pto_attr_cstr(ctx, mode));
  if (sat) a[n++] = named(d, "satmode", pto_attr_cstr(ctx, "on"));
  return emit(d, "cast", x, NULL, a, n);
}

/* Swaps dims 0 and 1. */
static PtoValue *transpose01(Decomp *d, PtoValue *x) {
  int64_t perm[PTO_MAX_RANK];
  unsigned rank = pto_type_tensor_rank(pto_value_type(x));
  for (unsigned i = 0; i < rank; i++) perm[i] = i;
  perm[0] = 1;
  perm[1] = 0;
  PtoNamedAttr a = named(d, "perm", pto_attr_i64_array(d->b.ctx, perm, rank));
  return emit(d, "transpose", x, NULL, &a, 1);
}

/* quant_mx: x in f32 as [..., N/32, 32] blocks; scale = E8M0(amax(|x|) *
 * 2^-emax) toward -inf; q = f8(x / f32(scale)) to nearest even,
 * saturating; then both in their result shapes. */
static PtoValue *quant_mx(Decomp *d, PtoValue **scale_out) {
  PtoContext *ctx = d->b.ctx;
  PtoOp *op = d->src;
  PtoType *f32 = pto_type_f32(ctx);
  PtoValue *x = d->in[0];
  PtoType *qt = pto_value_type(pto_op_result(op, 0));
  PtoType *st = pto_value_type(pto_op_result(op, 1));
  PtoType *qe = pto_type_tensor_elem(qt);
  unsigned rank = pto_type_tensor_rank(qt);
  int64_t shape[PTO_MAX_RANK];
  memcpy(shape, pto_type_tensor_shape(qt), rank * sizeof *shape);
  int64_t n = shape[rank - 1];
  shape[rank - 1] = n / MX_BLOCK;
  shape[rank] = MX_BLOCK;
  int emax = qe == pto_type_float(ctx, PTO_F8E4M3FN) ? 8 : 15;
  PtoValue *xf = elem_of(x) == f32 ? x : cast_mode(d, x, f32, NULL, false);
  PtoValue *blocks = reshape(d, xf, shape, rank + 1);
  PtoValue *amax = reduce(d, "amax", emit(d, "abs", blocks, NULL, NULL, 0),
                          pto_attr_i64(ctx, -1));
  PtoValue *p = emit(d, "muls", amax, scalar(d, f32, ldexp(1.0, -emax)), NULL, 0);
  PtoValue *sc = cast_mode(d, p, pto_type_tensor_elem(st), "floor", false);
  PtoValue *ratio = emit(d, "div", blocks, cast_mode(d, sc, f32, NULL, false), NULL, 0);
  PtoValue *q = cast_mode(d, ratio, qe, "rint", true);
  *scale_out = reshape(d, sc, pto_type_tensor_shape(st), rank + 1);
  return reshape(d, q, pto_type_tensor_shape(qt), rank);
}

/* One scaled_mm operand as [rows, K] f32 with each 32-element block times
 * its scale: m given as [rows, K] (as [K, rows] when `trans`), s as
 * [rows, K/64, 2] ([K/64, rows, 2] when `s_trans`). */
static PtoValue *mx_scaled(Decomp *d, PtoValue *m, bool trans, PtoValue *s, bool s_trans) {
  PtoType *f32 = pto_type_f32(d->b.ctx);
  if (trans) m = transpose01(d, m);
  if (!m) return NULL;
  const int64_t *ms = pto_type_tensor_shape(pto_value_type(m));
  int64_t rows = ms[0], k = ms[1];
  PtoValue *sf = cast_mode(d, s, f32, NULL, false);
  if (s_trans) sf = transpose01(d, sf);
  int64_t sshape[3] = {rows, k / MX_BLOCK, 1}, bshape[3] = {rows, k / MX_BLOCK, MX_BLOCK};
  /* one statement each: the order of the ops must not be the order in
   * which a compiler evaluates a call's arguments */
  PtoValue *sr = reshape(d, sf, sshape, 3);
  PtoValue *mr = reshape(d, cast_mode(d, m, f32, NULL, false), bshape, 3);
  PtoValue *prod = emit(d, "mul", mr, sr, NULL, 0);
  int64_t flat[2] = {rows, k};
  return reshape(d, prod, flat, 2);
}

/* scaled_mm: (a * scale_a) @ (b * scale_b)^T in f32 rows along K, as
 * pypto.matmul with b_trans, the op's result type and relu. */
static PtoValue *scaled_mm(Decomp *d) {
  PtoContext *ctx = d->b.ctx;
  PtoOp *op = d->src;
  /* scale_b's plain layout is [K/64, N, 2]: scale_a's transposed */
  PtoValue *a = mx_scaled(d, d->in[0], pto_pypto_get_a_trans(op), pto_op_operand(op, 2),
                          pto_pypto_get_scale_a_trans(op));
  PtoValue *b = mx_scaled(d, d->in[1], !pto_pypto_get_b_trans(op), pto_op_operand(op, 3),
                          !pto_pypto_get_scale_b_trans(op));
  PtoType *out = pto_type_tensor_elem(pto_value_type(pto_op_result(op, 0)));
  PtoNamedAttr attrs[3] = {named(d, "b_trans", pto_attr_unit(ctx)),
                           named(d, "out_dtype", pto_attr_type(ctx, out))};
  unsigned n = 2;
  if (pto_pypto_get_relu(op)) attrs[n++] = named(d, "relu", pto_attr_unit(ctx));
  return emit(d, "matmul", a, b, attrs, n);
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
  if (pto_pypto_is_composite(id)) pto_vec_push(v, op);
  return PTO_WALK_ADVANCE;
}

bool pto_pypto_is_composite(PtoPyptoOp id) {
  return id == PTO_PYPTO_SOFTMAX || id == PTO_PYPTO_RMS_NORM ||
         id == PTO_PYPTO_LAYER_NORM || id == PTO_PYPTO_QUANT_MX ||
         id == PTO_PYPTO_SCALED_MM;
}

/* quant_mx and scaled_mm: their inputs are split as they are (the 8-bit
 * floats are only converted, never computed on). */
static PtoValue *decompose_mx(Decomp *d) {
  PtoOp *op = d->src;
  unsigned nres = pto_op_num_results(op);
  PtoValue *ys[2] = {NULL, NULL};
  for (unsigned i = 0; i < pto_op_num_operands(op) && i < 3; i++) d->in[i] = pto_op_operand(op, i);
  if (pto_pypto_op_id(op) == PTO_PYPTO_QUANT_MX) ys[0] = quant_mx(d, &ys[1]);
  else ys[0] = scaled_mm(d);
  for (unsigned i = 0; i < nres; i++)
    if (!ys[i]) d->failed = true;
  if (d->failed) {
    pto_op_emit_error(op, "could not be decomposed");
    return NULL;
  }
  for (unsigned i = 0; i < nres; i++) pto_value_replace_all_uses(pto_op_result(op, i), ys[i]);
  pto_op_erase(op);
  return ys[0];
}

PtoValue *pto_pypto_decompose(PtoOp *op) {
  if (!pto_ctx_lookup_op(pto_op_ctx(op), "arith.constant")) {
    pto_op_emit_error(op, "decompose needs the arith dialect for its scalar "
                          "constants; register it");
    return NULL;
  }
  Decomp d;
  init(&d, op);
  PtoPyptoOp id = pto_pypto_op_id(op);
  if (id == PTO_PYPTO_QUANT_MX || id == PTO_PYPTO_SCALED_MM) return decompose_mx(&d);
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
    .summary = "Split softmax, rms_norm, layer_norm, quant_mx and scaled_mm into primitive "
               "pypto ops",
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
        "`cube_tile` and `label` and its location. `quant_mx` becomes its\n"
        "block steps on [..., N/32, 32]: abs, amax, muls by 2^-emax, a cast\n"
        "to f8E8M0FNU toward -inf, div by that scale in f32 and a saturating\n"
        "cast to the 8-bit result, reshaped back; `scaled_mm` casts both\n"
        "matrices to f32 in [rows, K] form, multiplies each 32-element block\n"
        "by its scale and ends in pypto.matmul with b_trans (and relu). All\n"
        "other ops are left alone. Needs the arith dialect.",
};

void pto_pypto_register_passes(PtoContext *ctx) {
  if (pto_pass_lookup(ctx, decompose_pass.argument) != &decompose_pass)
    pto_pass_register(ctx, &decompose_pass);
}
