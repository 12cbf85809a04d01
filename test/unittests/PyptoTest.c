/* Unit tests of the pypto C API: type inference, the builder (with its
 * builder-only attributes), attribute accessors, and the shared shape and
 * tuning rules of lib/Dialect/Common. */
#include "Test.h"
#include "pto/Dialect/Pypto.h"

#include <pthread.h>

/* Collects the last error message. */
typedef struct Diags {
  char last[512];
  int count;
} Diags;

static bool capture(const PtoDiagInfo *d, void *user) {
  Diags *g = user;
  snprintf(g->last, sizeof g->last, "%s", d->message);
  g->count++;
  return true;
}

typedef struct Fixture {
  PtoContext *ctx;
  PtoOp *module;
  PtoBuilder b;
  Diags diags;
} Fixture;

static void setup(Fixture *f) {
  memset(f, 0, sizeof *f);
  f->ctx = pto_ctx_create();
  pto_register_pypto_dialect(f->ctx);
  pto_ctx_push_diag_handler(f->ctx, capture, &f->diags);
  f->module = pto_parse_module(f->ctx, "", 0, NULL);
  pto_builder_init(&f->b, f->ctx);
  pto_builder_set_block_end(&f->b, pto_region_first_block(pto_op_region(f->module, 0)));
}

static void teardown(Fixture *f) {
  pto_op_destroy(f->module);
  pto_ctx_destroy(f->ctx);
}

static PtoType *ty(Fixture *f, const char *s) { return pto_parse_type_str(f->ctx, s); }

/* A value of the given type: the result of an unregistered op. */
static PtoValue *val(Fixture *f, const char *type) {
  pto_ctx_set_allow_unregistered(f->ctx, true);
  PtoType *t = ty(f, type);
  PtoOp *op = pto_builder_create_simple(&f->b, "src.value", NULL, 0, &t, 1, NULL, 0);
  return pto_op_result(op, 0);
}

static PtoNamedAttr named(Fixture *f, const char *name, PtoAttr *a) {
  PtoNamedAttr n = {pto_ident_cstr(f->ctx, name), a};
  return n;
}

static bool type_is(Fixture *f, PtoType *t, const char *expected) {
  char *s = pto_type_to_string(t);
  bool ok = strcmp(s, expected) == 0;
  if (!ok) fprintf(stderr, "  type: %s, expected %s\n", s, expected);
  pto_free(s);
  (void)f;
  return ok;
}

TEST(op_table) {
  CHECK(PTO_PYPTO_NUM_OPS == 103);
  for (int i = 0; i < PTO_PYPTO_NUM_OPS; i++) {
    CHECK(pto_pypto_lookup(pto_pypto_mnemonic((PtoPyptoOp)i)) == i);
    CHECK(pto_pypto_lookup(pto_pypto_op_name((PtoPyptoOp)i)) == i);
  }
  CHECK(pto_pypto_lookup("nope") == PTO_PYPTO_NONE);
  CHECK_STR(pto_pypto_op_name(PTO_PYPTO_SCATTER_UPDATE), "pypto.scatter_update");
  CHECK(pto_pypto_kind(PTO_PYPTO_ARGMAX) == PTO_PYPTO_KIND_ARGREDUCE);
  CHECK(pto_pypto_dtypes(PTO_PYPTO_EXP) == PTO_DTYPES_FLOAT);
}

TEST(infer_broadcast) {
  Fixture f;
  setup(&f);
  PtoType *in[2] = {ty(&f, "tensor<4x1xf32>"), ty(&f, "tensor<?x1x8xf32>")};
  PtoType *res[2];
  unsigned n = 0;
  CHECK(pto_pypto_infer_types(f.ctx, NULL, "add", in, 2, NULL, 0, res, &n) == PTO_SUCCESS);
  CHECK(n == 1 && type_is(&f, res[0], "tensor<?x4x8xf32>"));
  CHECK(pto_pypto_infer_types(f.ctx, NULL, "pypto.lt", in, 2, NULL, 0, res, &n) == PTO_SUCCESS);
  CHECK(n == 1 && type_is(&f, res[0], "tensor<?x4x8xi1>"));
  PtoType *bad[2] = {ty(&f, "tensor<4x8xf32>"), ty(&f, "tensor<3x8xf32>")};
  CHECK(pto_pypto_infer_types(f.ctx, NULL, "add", bad, 2, NULL, 0, res, &n) == PTO_FAILURE);
  CHECK_STR(f.diags.last, "'pypto.add' op operands are not broadcast-compatible: "
                          "'tensor<4x8xf32>' and 'tensor<3x8xf32>' (dim 0: 4 vs 3)");
  CHECK(pto_pypto_infer_types(f.ctx, NULL, "addd", in, 2, NULL, 0, res, &n) == PTO_FAILURE);
  CHECK_STR(f.diags.last, "unknown pypto op 'addd'");
  teardown(&f);
}

TEST(build_seed_graph) {
  Fixture f;
  setup(&f);
  PtoValue *a = val(&f, "tensor<64x64xf32>"), *w = val(&f, "tensor<64x32xf32>");
  PtoValue *c = val(&f, "f32");
  PtoNamedAttr vt = named(&f, "vec_tile", pto_attr_i64_array(f.ctx, (int64_t[]){32, 32}, 2));
  PtoValue *ops[2] = {a, c};
  PtoOp *m = pto_pypto_create(&f.b, "muls", ops, 2, &vt, 1);
  CHECK(m && pto_pypto_op_id(m) == PTO_PYPTO_MULS);
  ops[0] = pto_op_result(m, 0);
  ops[1] = w;
  PtoOp *mm = pto_pypto_create(&f.b, "matmul", ops, 2, NULL, 0);
  CHECK(mm && type_is(&f, pto_value_type(pto_op_result(mm, 0)), "tensor<64x32xf32>"));
  PtoNamedAttr sa[2] = {named(&f, "dim", pto_attr_i64(f.ctx, -1)),
                        named(&f, "keepdim", pto_attr_unit(f.ctx))};
  PtoValue *mr = pto_op_result(mm, 0);
  PtoOp *s = pto_pypto_create(&f.b, "pypto.sum", &mr, 1, sa, 2);
  CHECK(s && type_is(&f, pto_value_type(pto_op_result(s, 0)), "tensor<64x1xf32>"));
  CHECK(pto_pypto_get_dim(s) == 1 && pto_pypto_get_keepdim(s));
  CHECK(pto_op_verify(f.module) == PTO_SUCCESS);
  CHECK(f.diags.count == 0);
  teardown(&f);
}

TEST(build_rejects_invalid_operands) {
  Fixture f;
  setup(&f);
  PtoValue *a = val(&f, "tensor<16x64xf32>"), *b = val(&f, "tensor<32x8xf32>");
  PtoOp *last = pto_block_last_op(f.b.block);
  PtoValue *ops[2] = {a, b};
  CHECK(pto_pypto_create(&f.b, "matmul", ops, 2, NULL, 0) == NULL);
  CHECK_STR(f.diags.last, "'pypto.matmul' op contracting dims differ: 64 vs 32");
  CHECK(pto_block_last_op(f.b.block) == last); /* nothing inserted */
  CHECK(pto_pypto_create(&f.b, "exp", ops, 2, NULL, 0) == NULL);
  CHECK_STR(f.diags.last, "'pypto.exp' op expected 1 operand, but found 2");
  CHECK(pto_pypto_create(&f.b, "concat", ops, 0, NULL, 0) == NULL);
  CHECK_STR(f.diags.last, "'pypto.concat' op expected at least 1 operand, but found 0");
  PtoNamedAttr bad = named(&f, "vec_tile", pto_attr_i64_array(f.ctx, (int64_t[]){0}, 1));
  CHECK(pto_pypto_create(&f.b, "exp", &a, 1, &bad, 1) == NULL);
  CHECK_STR(f.diags.last, "'pypto.exp' op attribute 'vec_tile' entry #0 must be positive, got 0");
  teardown(&f);
}

TEST(builder_only_attributes) {
  Fixture f;
  setup(&f);
  PtoValue *x = val(&f, "tensor<4x8xf32>"), *i = val(&f, "index"), *c = val(&f, "f16");
  /* reshape: shape with -1 */
  PtoNamedAttr sh = named(&f, "shape", pto_attr_i64_array(f.ctx, (int64_t[]){-1, 2}, 2));
  PtoOp *r = pto_pypto_create(&f.b, "reshape", &x, 1, &sh, 1);
  CHECK(r && type_is(&f, pto_value_type(pto_op_result(r, 0)), "tensor<?x2xf32>"));
  CHECK(r && pto_op_num_attrs(r) == 0);
  /* view: static sizes, a dynamic offset */
  PtoNamedAttr va[2] = {
      named(&f, "shape", pto_attr_i64_array(f.ctx, (int64_t[]){2, 8}, 2)),
      named(&f, "static_offsets", pto_attr_i64_array(f.ctx, (int64_t[]){PTO_DYN, 0}, 2))};
  PtoValue *vops[2] = {x, i};
  PtoOp *v = pto_pypto_create(&f.b, "view", vops, 2, va, 2);
  CHECK(v && type_is(&f, pto_value_type(pto_op_result(v, 0)), "tensor<2x8xf32>"));
  int64_t offs[2];
  PtoValue *dyn[2];
  CHECK(v && pto_pypto_get_offsets(v, offs, dyn) == 2 && offs[0] == PTO_DYN &&
        dyn[0] == i && offs[1] == 0 && dyn[1] == NULL);
  /* zeros / full */
  PtoNamedAttr za[2] = {named(&f, "shape", pto_attr_i64_array(f.ctx, (int64_t[]){-1, 8}, 2)),
                        named(&f, "dtype", pto_attr_type(f.ctx, ty(&f, "bf16")))};
  PtoOp *z = pto_pypto_create(&f.b, "zeros", &i, 1, za, 2);
  CHECK(z && type_is(&f, pto_value_type(pto_op_result(z, 0)), "tensor<?x8xbf16>"));
  PtoValue *fops[2] = {c, i};
  PtoOp *fl = pto_pypto_create(&f.b, "full", fops, 2, za, 1);
  CHECK(fl && type_is(&f, pto_value_type(pto_op_result(fl, 0)), "tensor<?x8xf16>"));
  CHECK(pto_pypto_create(&f.b, "zeros", &i, 1, za, 1) == NULL);
  CHECK_STR(f.diags.last, "'pypto.zeros' op requires builder attribute 'dtype'");
  CHECK(pto_pypto_create(&f.b, "reshape", &x, 1, NULL, 0) == NULL);
  CHECK_STR(f.diags.last, "'pypto.reshape' op requires builder attribute 'shape'");
  PtoNamedAttr bad = named(&f, "shape", pto_attr_i64_array(f.ctx, (int64_t[]){0, 8}, 2));
  CHECK(pto_pypto_create(&f.b, "reshape", &x, 1, &bad, 1) == NULL);
  CHECK_STR(f.diags.last, "'pypto.reshape' op builder attribute 'shape' entry #0 must be "
                          "positive or -1, got 0");
  /* cast / matmul / dequantize dtypes */
  PtoNamedAttr dt = named(&f, "dtype", pto_attr_type(f.ctx, ty(&f, "i8")));
  PtoOp *ca = pto_pypto_create(&f.b, "cast", &x, 1, &dt, 1);
  CHECK(ca && type_is(&f, pto_value_type(pto_op_result(ca, 0)), "tensor<4x8xi8>"));
  PtoValue *h = val(&f, "tensor<8x4xf16>");
  PtoValue *mops[2] = {h, pto_op_result(pto_pypto_create(&f.b, "cast", &x, 1,
                                                          (PtoNamedAttr[]){named(&f, "dtype", pto_attr_type(f.ctx, ty(&f, "f16")))}, 1), 0)};
  PtoNamedAttr od = named(&f, "out_dtype", pto_attr_type(f.ctx, ty(&f, "f32")));
  PtoOp *mm = pto_pypto_create(&f.b, "matmul", mops, 2, &od, 1);
  CHECK(mm && type_is(&f, pto_value_type(pto_op_result(mm, 0)), "tensor<8x8xf32>"));
  PtoOp *mm16 = pto_pypto_create(&f.b, "matmul", mops, 2, NULL, 0);
  CHECK(mm16 && type_is(&f, pto_value_type(pto_op_result(mm16, 0)), "tensor<8x8xf16>"));
  CHECK(pto_op_verify(f.module) == PTO_SUCCESS);
  teardown(&f);
}

TEST(accessors) {
  Fixture f;
  setup(&f);
  const char *text =
      "%x = \"src.v\"() : () -> tensor<4x8xf32>\n"
      "%t = pypto.transpose %x {perm = [1, 0]} : tensor<4x8xf32> -> tensor<8x4xf32>\n"
      "%c = pypto.cast %x {mode = \"floor\", satmode = \"on\"} : tensor<4x8xf32> -> tensor<4x8xi8>\n"
      "%k:2 = pypto.topk %x {k = 3 : i64, largest = false} : tensor<4x8xf32> -> tensor<4x3xf32>, tensor<4x3xi32>\n"
      "%g = pypto.gelu %x {approximate = \"tanh\"} : tensor<4x8xf32>\n";
  pto_ctx_set_allow_unregistered(f.ctx, true);
  PtoOp *m = pto_parse_module(f.ctx, text, strlen(text), NULL);
  CHECK(m && pto_op_verify(m) == PTO_SUCCESS);
  PtoOp *op = pto_op_next(pto_block_first_op(pto_region_first_block(pto_op_region(m, 0))));
  int64_t perm[PTO_MAX_RANK];
  CHECK(pto_pypto_get_perm(op, perm) == 2 && perm[0] == 1 && perm[1] == 0);
  op = pto_op_next(op);
  CHECK(pto_pypto_get_cast_mode(op) == PTO_ROUND_FLOOR && pto_pypto_get_saturate(op));
  op = pto_op_next(op);
  CHECK(pto_pypto_get_k(op) == 3 && !pto_pypto_get_largest(op) && pto_pypto_get_dim(op) == 1);
  op = pto_op_next(op);
  CHECK(pto_pypto_get_gelu_tanh(op));
  pto_op_destroy(m);
  teardown(&f);
}

TEST(shared_shape_rules) {
  PtoShape a, b, r;
  pto_shape_init(&a, (int64_t[]){2, PTO_DYN, 1}, 3);
  pto_shape_init(&b, (int64_t[]){5, 1, 7}, 3);
  CHECK(pto_shape_broadcast(NULL, "x", &a, "a", &b, "b", &r) == PTO_FAILURE);
  pto_shape_init(&b, (int64_t[]){4, 7}, 2);
  CHECK(pto_shape_broadcast(NULL, "x", &a, "a", &b, "b", &r) == PTO_SUCCESS);
  char buf[64];
  CHECK_STR(pto_shape_format(&r, buf, sizeof buf), "2x4x7");
  CHECK(pto_shape_broadcasts_to(&b, &r) && !pto_shape_broadcasts_to(&r, &b));
  pto_shape_init(&a, (int64_t[]){3, 16, 32}, 3);
  pto_shape_init(&b, (int64_t[]){8, 32}, 2);
  CHECK(pto_shape_matmul(NULL, &a, "a", false, &b, "b", true, &r) == PTO_SUCCESS);
  CHECK_STR(pto_shape_format(&r, buf, sizeof buf), "3x16x8");
  unsigned d;
  CHECK(pto_shape_normalize_dim(NULL, "d", -1, 3, &d) == PTO_SUCCESS && d == 2);
  CHECK(pto_shape_normalize_dim(NULL, "d", 3, 3, &d) == PTO_FAILURE);
  pto_shape_reduce(&a, 1, false, &r);
  CHECK_STR(pto_shape_format(&r, buf, sizeof buf), "3x32");
  int64_t offs[3] = {0, PTO_DYN, 31};
  pto_shape_init(&b, (int64_t[]){3, 8, 2}, 3);
  CHECK(pto_shape_window_check(NULL, &a, offs, 3, &b) == PTO_FAILURE); /* 31 + 2 > 32 */
  offs[2] = 30;
  CHECK(pto_shape_window_check(NULL, &a, offs, 3, &b) == PTO_SUCCESS);
}

TEST(tuning_checker_for_options) {
  PtoContext *ctx = pto_ctx_create();
  Diags g = {{0}, 0};
  pto_ctx_push_diag_handler(ctx, capture, &g);
  PtoErrSite site = {ctx, pto_loc_unknown(ctx), "tile-expand: "};
  CHECK(pto_tuning_check_vec_tile(&site, "option 'vec-tile'", (int64_t[]){32, 0}, 2) ==
        PTO_FAILURE);
  CHECK_STR(g.last, "tile-expand: option 'vec-tile' entry #1 must be positive, got 0");
  CHECK(pto_tuning_check_cube_tile(&site, "option 'cube-tile'",
                                   (int64_t[]){16, 16, 64, 128, 32, 48}) == PTO_FAILURE);
  CHECK_STR(g.last, "tile-expand: option 'cube-tile': nL1 (48) must be a multiple of nL0 (32)");
  CHECK(pto_tuning_check_cube_tile(&site, "c", (int64_t[]){16, 32, 64, 128, 32, 32}) ==
        PTO_SUCCESS);
  CHECK(g.count == 2);
  pto_ctx_destroy(ctx);
}

/* Each thread has its own context: verification, inference and errors must
 * not interfere (no global mutable state). */
static void *verify_many(void *arg) {
  int *bad = arg;
  static const char text[] =
      "%x = \"src.v\"() : () -> tensor<4x1xf32>\n"
      "%y = \"src.v\"() : () -> tensor<1x8xf32>\n"
      "%a = pypto.add %x, %y : tensor<4x1xf32>, tensor<1x8xf32> -> tensor<4x8xf32>\n"
      "%s = pypto.sum %a {dim = -1 : i64, keepdim} : tensor<4x8xf32> -> tensor<4x1xf32>\n"
      "%t = pypto.transpose %a {perm = [1, 0]} : tensor<4x8xf32> -> tensor<8x4xf32>\n";
  for (int iter = 0; iter < 200; iter++) {
    PtoContext *ctx = pto_ctx_create();
    pto_register_pypto_dialect(ctx);
    pto_ctx_set_allow_unregistered(ctx, true);
    Diags g = {{0}, 0};
    pto_ctx_push_diag_handler(ctx, capture, &g);
    PtoOp *m = pto_parse_module(ctx, text, sizeof text - 1, NULL);
    if (!m || pto_op_verify(m) != PTO_SUCCESS) (*bad)++;
    PtoType *in[2] = {pto_parse_type_str(ctx, "tensor<4x8xf32>"),
                      pto_parse_type_str(ctx, "tensor<3x8xf32>")};
    PtoType *res[2];
    unsigned n;
    if (pto_pypto_infer_types(ctx, NULL, "add", in, 2, NULL, 0, res, &n) == PTO_SUCCESS ||
        g.count != 1)
      (*bad)++;
    if (m) pto_op_destroy(m);
    pto_ctx_destroy(ctx);
  }
  return NULL;
}

TEST(contexts_in_threads) {
  pthread_t t[4];
  int bad[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, verify_many, &bad[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  CHECK(bad[0] + bad[1] + bad[2] + bad[3] == 0);
}

RUN_TESTS(T(op_table), T(infer_broadcast), T(build_seed_graph),
          T(build_rejects_invalid_operands), T(builder_only_attributes), T(accessors),
          T(shared_shape_rules), T(tuning_checker_for_options),
          T(contexts_in_threads))
