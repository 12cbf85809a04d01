/* Unit tests of the arith fold hooks: exact constant evaluation (wrap-around,
 * division rounding, float rounding to the result type) and identities. */
#include "Test.h"
#include "pto/Dialects.h"
#include "pto/DialectImplementation.h"

#include <math.h>

typedef struct Env {
  PtoContext *ctx;
  PtoBlock *blk;
  PtoBuilder b;
  PtoType *i1, *i8, *i16, *i32, *i64, *idx, *f16, *bf16, *f32, *f64;
} Env;

static Env env(void) {
  Env e;
  e.ctx = pto_ctx_create();
  pto_register_all_dialects(e.ctx);
  e.blk = pto_block_create(e.ctx);
  pto_builder_init(&e.b, e.ctx);
  pto_builder_set_block_end(&e.b, e.blk);
  e.i1 = pto_type_int(e.ctx, 1);
  e.i8 = pto_type_int(e.ctx, 8);
  e.i16 = pto_type_int(e.ctx, 16);
  e.i32 = pto_type_int(e.ctx, 32);
  e.i64 = pto_type_int(e.ctx, 64);
  e.idx = pto_type_index(e.ctx);
  e.f16 = pto_type_float(e.ctx, PTO_F16);
  e.bf16 = pto_type_float(e.ctx, PTO_BF16);
  e.f32 = pto_type_f32(e.ctx);
  e.f64 = pto_type_float(e.ctx, PTO_F64);
  return e;
}

static void env_done(Env *e) {
  pto_block_erase(e->blk);
  pto_ctx_destroy(e->ctx);
}

static PtoValue *ci(Env *e, PtoType *t, int64_t v) {
  return pto_arith_build_constant_int(&e->b, t, v);
}
static PtoValue *cf(Env *e, PtoType *t, double v) {
  return pto_arith_build_constant_float(&e->b, t, v);
}
static PtoValue *arg(Env *e, PtoType *t) {
  return pto_block_add_arg(e->blk, t, NULL);
}

/* Builds `name(operands) -> type` and folds it. */
static bool fold_op(Env *e, const char *name, PtoValue *const *ops, unsigned n,
                    PtoType *rt, const PtoNamedAttr *attrs, unsigned nattrs,
                    PtoFoldResult *r) {
  PtoOp *op = pto_builder_create_simple(&e->b, name, ops, n, &rt, 1, attrs,
                                        nattrs);
  PtoAttr *c[3] = {NULL, NULL, NULL};
  for (unsigned i = 0; i < n; i++) c[i] = pto_value_constant(ops[i]);
  r->attr = NULL;
  r->value = NULL;
  bool ok = pto_op_def(op)->fold(op, c, r) == PTO_SUCCESS;
  if (ok && r->value == pto_op_result(op, 0)) ok = false; /* never itself */
  pto_op_erase(op);
  return ok;
}

static bool bin(Env *e, const char *name, PtoValue *a, PtoValue *b,
                PtoFoldResult *r) {
  PtoValue *ops[2] = {a, b};
  return fold_op(e, name, ops, 2, pto_value_type(a), NULL, 0, r);
}

/* Folds a binary integer op of two constants; *out is the signed result. */
static bool ibin(Env *e, const char *name, PtoType *t, int64_t a, int64_t b,
                 int64_t *out) {
  PtoFoldResult r;
  if (!bin(e, name, ci(e, t, a), ci(e, t, b), &r) || !r.attr) return false;
  *out = pto_attr_int_value(r.attr);
  return true;
}

static bool fbin(Env *e, const char *name, PtoType *t, double a, double b,
                 double *out) {
  PtoFoldResult r;
  if (!bin(e, name, cf(e, t, a), cf(e, t, b), &r) || !r.attr) return false;
  *out = pto_attr_float_value(r.attr);
  return true;
}

static bool cast(Env *e, const char *name, PtoValue *v, PtoType *to,
                 PtoFoldResult *r) {
  return fold_op(e, name, &v, 1, to, NULL, 0, r);
}

static bool cmp(Env *e, const char *name, int64_t pred, PtoValue *a,
                PtoValue *b, bool *out) {
  PtoValue *ops[2] = {a, b};
  PtoNamedAttr na = {pto_ident_cstr(e->ctx, "predicate"),
                     pto_attr_i64(e->ctx, pred)};
  PtoFoldResult r;
  if (!fold_op(e, name, ops, 2, e->i1, &na, 1, &r) || !r.attr) return false;
  *out = pto_attr_int_value(r.attr) != 0;
  return true;
}

TEST(integer_wraps_at_width) {
  Env e = env();
  int64_t v;
  CHECK(ibin(&e, "arith.addi", e.i8, 127, 1, &v) && v == -128);
  CHECK(ibin(&e, "arith.subi", e.i8, -128, 1, &v) && v == 127);
  CHECK(ibin(&e, "arith.muli", e.i16, 300, 300, &v) && v == 24464);
  CHECK(ibin(&e, "arith.addi", e.i1, 1, 1, &v) && v == 0);
  CHECK(ibin(&e, "arith.addi", e.idx, INT64_MAX, 1, &v) && v == INT64_MIN);
  CHECK(ibin(&e, "arith.muli", e.i64, INT64_MIN, -1, &v) && v == INT64_MIN);
  env_done(&e);
}

TEST(integer_division_rounding) {
  Env e = env();
  int64_t v;
  CHECK(ibin(&e, "arith.divsi", e.i32, 7, -2, &v) && v == -3);
  CHECK(ibin(&e, "arith.divsi", e.i32, -7, 2, &v) && v == -3);
  CHECK(ibin(&e, "arith.divui", e.i8, -1, 2, &v) && v == 127);
  CHECK(ibin(&e, "arith.remsi", e.i32, -7, 2, &v) && v == -1);
  CHECK(ibin(&e, "arith.remsi", e.i32, 7, -2, &v) && v == 1);
  CHECK(ibin(&e, "arith.remsi", e.i32, INT32_MIN, -1, &v) && v == 0);
  CHECK(ibin(&e, "arith.floordivsi", e.i32, -7, 2, &v) && v == -4);
  CHECK(ibin(&e, "arith.floordivsi", e.i32, 7, -2, &v) && v == -4);
  CHECK(ibin(&e, "arith.floordivsi", e.i32, 7, 2, &v) && v == 3);
  CHECK(ibin(&e, "arith.floordivsi", e.i32, -8, 2, &v) && v == -4);
  CHECK(ibin(&e, "arith.ceildivsi", e.i32, 7, 2, &v) && v == 4);
  CHECK(ibin(&e, "arith.ceildivsi", e.i32, -7, 2, &v) && v == -3);
  CHECK(ibin(&e, "arith.ceildivsi", e.i32, 7, -2, &v) && v == -3);
  CHECK(ibin(&e, "arith.ceildivsi", e.i32, -7, -2, &v) && v == 4);
  CHECK(ibin(&e, "arith.ceildivsi", e.idx, INT64_MAX, 2, &v) &&
        v == INT64_MAX / 2 + 1);
  CHECK(ibin(&e, "arith.minsi", e.i8, 255, 1, &v) && v == -1);
  CHECK(ibin(&e, "arith.maxsi", e.i8, 255, 1, &v) && v == 1);
  env_done(&e);
}

TEST(undefined_divisions_do_not_fold) {
  Env e = env();
  int64_t v;
  static const char *const divs[] = {"arith.divsi", "arith.divui",
                                     "arith.remsi", "arith.floordivsi",
                                     "arith.ceildivsi"};
  for (unsigned i = 0; i < 5; i++) CHECK(!ibin(&e, divs[i], e.i32, 7, 0, &v));
  CHECK(!ibin(&e, "arith.divsi", e.i32, INT32_MIN, -1, &v));
  CHECK(!ibin(&e, "arith.divsi", e.i64, INT64_MIN, -1, &v));
  CHECK(!ibin(&e, "arith.floordivsi", e.i8, -128, -1, &v));
  CHECK(!ibin(&e, "arith.ceildivsi", e.idx, INT64_MIN, -1, &v));
  CHECK(!ibin(&e, "arith.divsi", e.i1, 1, 1, &v)); /* -1 / -1 overflows i1 */
  CHECK(ibin(&e, "arith.divui", e.i32, INT32_MIN, -1, &v) && v == 0);
  env_done(&e);
}

TEST(float_results_round_to_the_type) {
  Env e = env();
  double v;
  CHECK(fbin(&e, "arith.addf", e.f32, 0.1, 0.2, &v) &&
        v == (double)(0.1f + 0.2f));
  CHECK(fbin(&e, "arith.addf", e.f64, 0.1, 0.2, &v) && v == 0.1 + 0.2);
  CHECK(fbin(&e, "arith.addf", e.f16, 2048, 1, &v) && v == 2048); /* tie */
  CHECK(fbin(&e, "arith.addf", e.f16, 2048, 3, &v) && v == 2052);
  CHECK(fbin(&e, "arith.mulf", e.f16, 300, 300, &v) && isinf(v));
  CHECK(fbin(&e, "arith.divf", e.bf16, 1, 3, &v) && v == 0.333984375);
  CHECK(fbin(&e, "arith.divf", e.f32, 1, 0, &v) && isinf(v) && v > 0);
  CHECK(fbin(&e, "arith.divf", e.f32, 0, 0, &v) && isnan(v));
  CHECK(fbin(&e, "arith.subf", e.f32, 1, 1, &v) && v == 0 && !signbit(v));
  CHECK(fbin(&e, "arith.maximumf", e.f32, -0.0, 0.0, &v) && !signbit(v));
  CHECK(fbin(&e, "arith.maximumf", e.f32, 0.0, -0.0, &v) && !signbit(v));
  CHECK(fbin(&e, "arith.minimumf", e.f32, 0.0, -0.0, &v) && signbit(v));
  CHECK(fbin(&e, "arith.minimumf", e.f32, NAN, 1, &v) && isnan(v));
  CHECK(fbin(&e, "arith.maximumf", e.f64, 1, NAN, &v) && isnan(v));
  CHECK(fbin(&e, "arith.maximumf", e.f64, -3, 2, &v) && v == 2);
  PtoFoldResult r;
  CHECK(cast(&e, "arith.negf", cf(&e, e.f32, -0.0), e.f32, &r) && r.attr &&
        !signbit(pto_attr_float_value(r.attr)));
  env_done(&e);
}

TEST(comparisons) {
  Env e = env();
  bool b;
  CHECK(cmp(&e, "arith.cmpi", PTO_CMPI_SLT, ci(&e, e.i8, 255), ci(&e, e.i8, 1),
            &b) && b);
  CHECK(cmp(&e, "arith.cmpi", PTO_CMPI_ULT, ci(&e, e.i8, 255), ci(&e, e.i8, 1),
            &b) && !b);
  CHECK(cmp(&e, "arith.cmpi", PTO_CMPI_SGE, ci(&e, e.i1, 1), ci(&e, e.i1, 0),
            &b) && !b); /* true is -1 as a signed i1 */
  CHECK(cmp(&e, "arith.cmpi", PTO_CMPI_UGE, ci(&e, e.i1, 1), ci(&e, e.i1, 0),
            &b) && b);
  PtoValue *x = arg(&e, e.idx);
  CHECK(cmp(&e, "arith.cmpi", PTO_CMPI_SLE, x, x, &b) && b);
  CHECK(cmp(&e, "arith.cmpi", PTO_CMPI_NE, x, x, &b) && !b);
  PtoValue *nan = cf(&e, e.f32, NAN), *one = cf(&e, e.f32, 1);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_OLT, nan, one, &b) && !b);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_ULT, nan, one, &b) && b);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_UNE, one, one, &b) && !b);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_ONE, nan, one, &b) && !b);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_UNO, nan, nan, &b) && b);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_OEQ, cf(&e, e.f32, -0.0), cf(&e, e.f32, 0),
            &b) && b);
  PtoValue *y = arg(&e, e.f32);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_TRUE, y, y, &b) && b);
  CHECK(cmp(&e, "arith.cmpf", PTO_CMPF_FALSE, y, one, &b) && !b);
  CHECK(!cmp(&e, "arith.cmpf", PTO_CMPF_OEQ, y, y, &b)); /* y may be NaN */
  env_done(&e);
}

TEST(casts) {
  Env e = env();
  PtoFoldResult r;
  CHECK(cast(&e, "arith.index_cast", ci(&e, e.i8, -1), e.idx, &r) && r.attr &&
        pto_attr_int_value(r.attr) == -1);
  CHECK(cast(&e, "arith.index_cast", ci(&e, e.idx, 300), e.i8, &r) && r.attr &&
        pto_attr_int_value(r.attr) == 44);
  CHECK(cast(&e, "arith.extsi", ci(&e, e.i8, -1), e.i32, &r) && r.attr &&
        pto_attr_int_value(r.attr) == -1);
  CHECK(cast(&e, "arith.extsi", ci(&e, e.i1, 1), e.i8, &r) && r.attr &&
        pto_attr_int_value(r.attr) == -1);
  CHECK(cast(&e, "arith.trunci", ci(&e, e.i32, 300), e.i8, &r) && r.attr &&
        pto_attr_int_value(r.attr) == 44);
  /* one rounding from i64 to f32: 2^60 + 2^36 + 1 is above the midpoint */
  CHECK(cast(&e, "arith.sitofp",
             ci(&e, e.i64, ((int64_t)1 << 60) + ((int64_t)1 << 36) + 1), e.f32,
             &r) &&
        r.attr && pto_attr_float_value(r.attr) == ldexp(1, 60) + ldexp(1, 37));
  CHECK(cast(&e, "arith.sitofp", ci(&e, e.i32, 16777217), e.f32, &r) &&
        r.attr && pto_attr_float_value(r.attr) == 16777216.0);
  CHECK(cast(&e, "arith.sitofp", ci(&e, e.i32, 65519), e.f16, &r) && r.attr &&
        pto_attr_float_value(r.attr) == 65504.0);
  CHECK(cast(&e, "arith.sitofp", ci(&e, e.i32, 65520), e.f16, &r) && r.attr &&
        isinf(pto_attr_float_value(r.attr)));
  CHECK(cast(&e, "arith.sitofp", ci(&e, e.i8, 255), e.f64, &r) && r.attr &&
        pto_attr_float_value(r.attr) == -1.0);
  CHECK(cast(&e, "arith.fptosi", cf(&e, e.f32, 2.9), e.i32, &r) && r.attr &&
        pto_attr_int_value(r.attr) == 2);
  CHECK(cast(&e, "arith.fptosi", cf(&e, e.f32, -2.9), e.i32, &r) && r.attr &&
        pto_attr_int_value(r.attr) == -2);
  CHECK(cast(&e, "arith.fptosi", cf(&e, e.f32, -128), e.i8, &r) && r.attr &&
        pto_attr_int_value(r.attr) == -128);
  CHECK(!cast(&e, "arith.fptosi", cf(&e, e.f32, 128), e.i8, &r));
  CHECK(!cast(&e, "arith.fptosi", cf(&e, e.f32, NAN), e.i32, &r));
  CHECK(!cast(&e, "arith.fptosi", cf(&e, e.f64, 1e30), e.i64, &r));
  CHECK(cast(&e, "arith.extf", cf(&e, e.f16, 0.1), e.f32, &r) && r.attr &&
        pto_attr_float_value(r.attr) == pto_round_to_float_kind(0.1, PTO_F16));
  CHECK(cast(&e, "arith.truncf", cf(&e, e.f32, 1 + ldexp(1, -11)), e.f16, &r) &&
        r.attr && pto_attr_float_value(r.attr) == 1.0); /* tie to even */
  CHECK(cast(&e, "arith.truncf", cf(&e, e.f32, 1e6), e.f16, &r) && r.attr &&
        isinf(pto_attr_float_value(r.attr)));
  env_done(&e);
}

TEST(identities) {
  Env e = env();
  PtoFoldResult r;
  PtoValue *x = arg(&e, e.i32), *y = arg(&e, e.i32), *f = arg(&e, e.f32);
  CHECK(bin(&e, "arith.addi", x, ci(&e, e.i32, 0), &r) && r.value == x);
  CHECK(bin(&e, "arith.addi", ci(&e, e.i32, 0), x, &r) && r.value == x);
  CHECK(bin(&e, "arith.subi", x, x, &r) && r.attr &&
        pto_attr_int_value(r.attr) == 0);
  CHECK(bin(&e, "arith.muli", x, ci(&e, e.i32, 0), &r) && r.attr &&
        pto_attr_int_value(r.attr) == 0);
  CHECK(bin(&e, "arith.muli", ci(&e, e.i32, 1), x, &r) && r.value == x);
  CHECK(bin(&e, "arith.divsi", x, ci(&e, e.i32, 1), &r) && r.value == x);
  CHECK(!bin(&e, "arith.divsi", ci(&e, e.i32, 1), x, &r));
  CHECK(bin(&e, "arith.remsi", x, ci(&e, e.i32, -1), &r) && r.attr &&
        pto_attr_int_value(r.attr) == 0);
  CHECK(bin(&e, "arith.minsi", x, ci(&e, e.i32, INT32_MIN), &r) && r.attr &&
        pto_attr_int_value(r.attr) == INT32_MIN);
  CHECK(bin(&e, "arith.maxsi", x, ci(&e, e.i32, INT32_MIN), &r) && r.value == x);
  PtoValue *d = pto_arith_build_binary(&e.b, "arith.subi", x, y);
  CHECK(bin(&e, "arith.addi", d, y, &r) && r.value == x);
  PtoValue *s = pto_arith_build_binary(&e.b, "arith.addi", x, y);
  CHECK(bin(&e, "arith.subi", s, x, &r) && r.value == y);
  CHECK(bin(&e, "arith.addf", f, cf(&e, e.f32, -0.0), &r) && r.value == f);
  CHECK(!bin(&e, "arith.addf", f, cf(&e, e.f32, 0.0), &r)); /* f = -0.0 */
  CHECK(bin(&e, "arith.subf", f, cf(&e, e.f32, 0.0), &r) && r.value == f);
  CHECK(!bin(&e, "arith.subf", f, cf(&e, e.f32, -0.0), &r));
  CHECK(bin(&e, "arith.mulf", cf(&e, e.f32, 1), f, &r) && r.value == f);
  CHECK(!bin(&e, "arith.mulf", f, cf(&e, e.f32, 0), &r)); /* NaN, -0 */
  CHECK(bin(&e, "arith.maximumf", f, cf(&e, e.f32, -INFINITY), &r) &&
        r.value == f);
  PtoValue *n = pto_arith_build_cast(&e.b, "arith.negf", f, e.f32);
  CHECK(cast(&e, "arith.negf", n, e.f32, &r) && r.value == f);
  env_done(&e);
}

TEST(select_and_cast_chains) {
  Env e = env();
  PtoFoldResult r;
  PtoValue *c = arg(&e, e.i1), *a = arg(&e, e.i32), *b = arg(&e, e.i32);
  PtoValue *ops[3] = {pto_arith_build_constant(&e.b, pto_attr_bool(e.ctx, true)),
                      a, b};
  CHECK(fold_op(&e, "arith.select", ops, 3, e.i32, NULL, 0, &r) && r.value == a);
  ops[0] = c;
  ops[2] = a;
  CHECK(fold_op(&e, "arith.select", ops, 3, e.i32, NULL, 0, &r) && r.value == a);
  ops[2] = b;
  CHECK(!fold_op(&e, "arith.select", ops, 3, e.i32, NULL, 0, &r));
  ops[1] = ci(&e, e.i1, 1);
  ops[2] = ci(&e, e.i1, 0);
  CHECK(fold_op(&e, "arith.select", ops, 3, e.i1, NULL, 0, &r) && r.value == c);
  /* i32 -> index -> i32 loses nothing; index -> i8 -> index does */
  PtoValue *wide = pto_arith_build_cast(&e.b, "arith.index_cast", a, e.idx);
  CHECK(cast(&e, "arith.index_cast", wide, e.i32, &r) && r.value == a);
  PtoValue *x = arg(&e, e.idx);
  PtoValue *narrow = pto_arith_build_cast(&e.b, "arith.index_cast", x, e.i8);
  CHECK(!cast(&e, "arith.index_cast", narrow, e.idx, &r));
  PtoValue *ext = pto_arith_build_cast(&e.b, "arith.extsi", a, e.i64);
  CHECK(cast(&e, "arith.trunci", ext, e.i32, &r) && r.value == a);
  CHECK(!cast(&e, "arith.trunci", ext, e.i16, &r));
  PtoValue *h = arg(&e, e.f16);
  PtoValue *hx = pto_arith_build_cast(&e.b, "arith.extf", h, e.f32);
  CHECK(cast(&e, "arith.truncf", hx, e.f16, &r) && r.value == h);
  CHECK(!cast(&e, "arith.truncf", hx, e.bf16, &r));
  env_done(&e);
}

RUN_TESTS(T(integer_wraps_at_width), T(integer_division_rounding),
          T(undefined_divisions_do_not_fold),
          T(float_results_round_to_the_type), T(comparisons), T(casts),
          T(identities), T(select_and_cast_chains))
