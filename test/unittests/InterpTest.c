/* Unit tests of the interpreter's C API as a user sees it: tensors and
 * their value semantics, handlers for one's own ops, the observer, in-place
 * updates of dead destinations, diagnostics, and two interpreters in two
 * threads. */
#include "DiagCapture.h"
#include "ParseVerified.h"
#include "Test.h"
#include "pto/Dialects.h"
#include "pto/DialectImplementation.h"
#include "pto/Interp.h"
#include "pto/Kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

static PtoContext *new_ctx(void) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  return ctx;
}

static PtoOp *func_of(PtoOp *module, const char *name) {
  return pto_symbol_lookup(module, name);
}

/* A 1-D f32 tensor holding v[0..n). */
static PtoTensor *vec_f32(const float *v, int64_t n) {
  PtoTensor *t = pto_tensor_create(NULL, NULL, PTO_DT_F32, 1, &n);
  memcpy(pto_tensor_array(t)->data, v, (size_t)n * sizeof *v);
  return t;
}

static float at_f32(const PtoTensor *t, int64_t i) {
  return (float)pto_dtype_load_f64(PTO_DT_F32, pto_tensor_array(t)->data,
                                   i * pto_tensor_array(t)->strides[0]);
}

/* ------------------------------------------------------------------ */
/* Tensors                                                              */
/* ------------------------------------------------------------------ */

TEST(tensor_views_share_and_copy_on_write) {
  int64_t shape[2] = {4, 3};
  PtoTensor *t = pto_tensor_create(NULL, NULL, PTO_DT_I32, 2, shape);
  int32_t *d = pto_tensor_array(t)->data;
  for (int i = 0; i < 12; i++) d[i] = i;
  CHECK(pto_tensor_is_unique(t));
  int64_t offs[2] = {1, 1}, wshape[2] = {2, 2};
  PtoTensor *v = pto_tensor_view(t, offs, wshape);
  CHECK(!pto_tensor_is_unique(t) && !pto_tensor_is_unique(v));
  const PtoNdArray *va = pto_tensor_array(v);
  CHECK(va->strides[0] == 3 && ((int32_t *)va->data)[0] == 4);
  /* writing through a shared tensor copies it first */
  PtoTensor *w = pto_tensor_make_unique(pto_tensor_retain(t));
  CHECK(w != t && pto_tensor_is_unique(w));
  ((int32_t *)pto_tensor_array(w)->data)[0] = 100;
  CHECK(d[0] == 0);
  pto_tensor_release(w);
  /* a reshape of a contiguous tensor shares its buffer */
  int64_t flat = 12;
  PtoTensor *r = pto_tensor_reshape(t, 1, &flat);
  CHECK(pto_tensor_array(r)->data == pto_tensor_array(t)->data);
  /* of a strided view it copies */
  int64_t four = 4;
  PtoTensor *rv = pto_tensor_reshape(v, 1, &four);
  CHECK(((int32_t *)pto_tensor_array(rv)->data)[2] == 7);
  pto_tensor_release(rv);
  pto_tensor_release(r);
  pto_tensor_release(v);
  /* the last reference: unique again, written in place */
  CHECK(pto_tensor_is_unique(t));
  CHECK(pto_tensor_make_unique(t) == t);
  pto_tensor_release(t);
  /* invalid shapes fail without a crash */
  int64_t bad[2] = {-1, 3};
  CHECK(pto_tensor_create(NULL, NULL, PTO_DT_F32, 2, bad) == NULL);
}

TEST(values) {
  PtoInterpValue v = pto_interp_value_int(PTO_DT_I8, 200);
  CHECK(v.i == -56);
  v = pto_interp_value_int(PTO_DT_BOOL, 3);
  CHECK(v.i == 1);
  v = pto_interp_value_float(PTO_DT_F16, 0.1);
  CHECK(v.f == (double)pto_f16_bits_to_f32(pto_f32_to_f16_bits(0.1f)));
  CHECK(pto_interp_value_as_i64(&v) == 0);
  char *s = pto_interp_value_to_string(&v);
  CHECK_STR(s, "0.0999755859 : f16");
  pto_free(s);
}

/* ------------------------------------------------------------------ */
/* Running functions                                                    */
/* ------------------------------------------------------------------ */

static const char *kAddSrc =
    "func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {\n"
    "  %r = pypto.add %a, %b : tensor<3xf32>\n"
    "  func.return %r : tensor<3xf32>\n"
    "}\n";

TEST(run_and_argument_checks) {
  PtoContext *ctx = new_ctx();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  PtoOp *m = parse(ctx, kAddSrc);
  PtoInterp *I = pto_interp_create(ctx, NULL);
  float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  PtoInterpValue args[2] = {pto_interp_value_tensor(vec_f32(a, 3)),
                            pto_interp_value_tensor(vec_f32(b, 3))};
  PtoInterpValue *res;
  unsigned n;
  CHECK(pto_interp_run(I, func_of(m, "f"), args, 2, &res, &n) == PTO_SUCCESS);
  CHECK(n == 1 && res[0].kind == PTO_IVAL_TENSOR);
  CHECK(at_f32(res[0].tensor, 2) == 33.0f);
  pto_interp_value_release(&res[0]);
  pto_free(res);
  /* a wrong argument is an error at the function, not a crash */
  CHECK(pto_interp_run(I, func_of(m, "f"), args, 1, &res, &n) == PTO_FAILURE);
  CHECK(strstr(diag_capture_take(&dc), "@f takes 2 arguments, given 1") != NULL);
  int64_t four = 4;
  pto_interp_value_release(&args[1]);
  args[1] = pto_interp_value_tensor(pto_tensor_create(NULL, NULL, PTO_DT_F32, 1, &four));
  CHECK(pto_interp_run(I, func_of(m, "f"), args, 2, &res, &n) == PTO_FAILURE);
  CHECK(strstr(diag_capture_take(&dc),
               "argument #1 of @f must be 'tensor<3xf32>', given 'tensor<4xf32>'") != NULL);
  pto_interp_value_release(&args[0]);
  pto_interp_value_release(&args[1]);
  pto_interp_destroy(I);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* ---- a user's own op: `user.axpy %a, %x, %y` = a * x + y ---- */

static PtoResult axpy(PtoInterpFrame *f, PtoOp *op, void *user) {
  ++*(int *)user;
  double a = pto_interp_operand_float(f, op, 0);
  const PtoNdArray *x = pto_tensor_array(pto_interp_operand_tensor(f, op, 1));
  const PtoNdArray *y = pto_tensor_array(pto_interp_operand_tensor(f, op, 2));
  PtoTensor *t = pto_interp_new_tensor(f, op, PTO_DT_F32, x->rank, x->shape);
  if (!t) return PTO_FAILURE;
  for (int64_t i = 0; i < x->shape[0]; i++)
    pto_dtype_store_f64(PTO_DT_F32, pto_tensor_array(t)->data, i,
                        a * pto_dtype_load_f64(PTO_DT_F32, x->data, i) +
                            pto_dtype_load_f64(PTO_DT_F32, y->data, i));
  if (a < 0) {
    pto_tensor_release(t);
    return pto_interp_error(f, op, "negative scale %g", a);
  }
  pto_interp_set_result(f, op, 0, pto_interp_value_tensor(t));
  return PTO_SUCCESS;
}

static const char *kAxpySrc =
    "func.func @f(%a: f32, %x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {\n"
    "  %r = \"user.axpy\"(%a, %x, %y) : (f32, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
    "  func.return %r : tensor<3xf32>\n"
    "}\n";

TEST(user_handler) {
  PtoContext *ctx = new_ctx();
  pto_ctx_set_allow_unregistered(ctx, true);
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  PtoOp *m = parse(ctx, kAxpySrc);
  PtoInterp *I = pto_interp_create(ctx, NULL);
  float x[3] = {1, 2, 3}, y[3] = {1, 1, 1};
  PtoInterpValue args[3] = {pto_interp_value_float(PTO_DT_F32, 2.0),
                            pto_interp_value_tensor(vec_f32(x, 3)),
                            pto_interp_value_tensor(vec_f32(y, 3))};
  PtoInterpValue *res;
  unsigned n;
  /* without a handler: a diagnostic that says what to do */
  CHECK(pto_interp_run(I, func_of(m, "f"), args, 3, &res, &n) == PTO_FAILURE);
  CHECK(strstr(diag_capture_take(&dc),
               "t.pto:2:3: error: 'user.axpy' op the interpreter has no handler "
               "for this op; register one with pto_interp_register") != NULL);
  int calls = 0;
  pto_interp_register(I, "user.axpy", axpy, &calls);
  CHECK(pto_interp_run(I, func_of(m, "f"), args, 3, &res, &n) == PTO_SUCCESS);
  CHECK(calls == 1 && at_f32(res[0].tensor, 2) == 7.0f);
  pto_interp_value_release(&res[0]);
  pto_free(res);
  /* a handler's error carries the op's location */
  args[0] = pto_interp_value_float(PTO_DT_F32, -1.0);
  CHECK(pto_interp_run(I, func_of(m, "f"), args, 3, &res, &n) == PTO_FAILURE);
  CHECK_STR(diag_capture_take(&dc),
            "t.pto:2:3: error: 'user.axpy' op negative scale -1\n");
  for (int i = 0; i < 3; i++) pto_interp_value_release(&args[i]);
  pto_interp_destroy(I);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* A handler that replaces a built-in one. */
static PtoResult add_is_sub(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *a = pto_tensor_array(pto_interp_operand_tensor(f, op, 0));
  const PtoNdArray *b = pto_tensor_array(pto_interp_operand_tensor(f, op, 1));
  PtoTensor *t = pto_interp_new_tensor(f, op, a->dtype, a->rank, a->shape);
  PtoKernelError err;
  if (pto_kernel_binary(PTO_BINARY_SUB, a, b, pto_tensor_array(t), &err)) {
    pto_tensor_release(t);
    return pto_interp_error(f, op, "%s", err.msg);
  }
  pto_interp_set_result(f, op, 0, pto_interp_value_tensor(t));
  return PTO_SUCCESS;
}

TEST(override_builtin_handler) {
  PtoContext *ctx = new_ctx();
  PtoOp *m = parse(ctx, kAddSrc);
  PtoInterp *I = pto_interp_create(ctx, NULL);
  PtoInterp *other = pto_interp_create(ctx, NULL);
  pto_interp_register(I, "pypto.add", add_is_sub, NULL);
  float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  PtoInterpValue args[2] = {pto_interp_value_tensor(vec_f32(a, 3)),
                            pto_interp_value_tensor(vec_f32(b, 3))};
  PtoInterpValue *res;
  unsigned n;
  CHECK(pto_interp_run(I, func_of(m, "f"), args, 2, &res, &n) == PTO_SUCCESS);
  CHECK(at_f32(res[0].tensor, 0) == -9.0f);
  pto_interp_value_release(&res[0]);
  pto_free(res);
  /* the table is per interpreter */
  CHECK(pto_interp_run(other, func_of(m, "f"), args, 2, &res, &n) == PTO_SUCCESS);
  CHECK(at_f32(res[0].tensor, 0) == 11.0f);
  pto_interp_value_release(&res[0]);
  pto_free(res);
  pto_interp_value_release(&args[0]);
  pto_interp_value_release(&args[1]);
  pto_interp_destroy(I);
  pto_interp_destroy(other);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* ---- the observer, and in-place updates in loops ---- */

static const char *kLoopSrc =
    "func.func @f(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c4 = arith.constant 4 : index\n"
    "  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%y = %x) -> (tensor<4x2xf32>) {\n"
    "    %v = pypto.view %x[%i, 0] : tensor<4x2xf32> -> tensor<1x2xf32>\n"
    "    %e = pypto.neg %v : tensor<1x2xf32>\n"
    "    %y1 = pypto.assemble %e into %y[%i, 0] : tensor<1x2xf32> into tensor<4x2xf32>\n"
    "    scf.yield %y1 : tensor<4x2xf32>\n"
    "  }\n"
    "  func.return %r : tensor<4x2xf32>\n"
    "}\n";

typedef struct Seen {
  unsigned ops, assembles;
  void *data[8];
} Seen;

static PtoResult observe(PtoOp *op, const PtoInterpValue *res, unsigned n,
                         void *user) {
  Seen *s = user;
  s->ops++;
  if (pto_op_is(op, "pypto.assemble") && n == 1 && s->assembles < 8)
    s->data[s->assembles++] = pto_tensor_array(res[0].tensor)->data;
  return PTO_SUCCESS;
}

TEST(observer_and_in_place_assemble) {
  PtoContext *ctx = new_ctx();
  PtoOp *m = parse(ctx, kLoopSrc);
  PtoInterp *I = pto_interp_create(ctx, NULL);
  Seen seen;
  memset(&seen, 0, sizeof seen);
  pto_interp_set_observer(I, observe, &seen);
  int64_t shape[2] = {4, 2};
  PtoTensor *x = pto_tensor_create(NULL, NULL, PTO_DT_F32, 2, shape);
  float *xd = pto_tensor_array(x)->data;
  for (int i = 0; i < 8; i++) xd[i] = (float)i;
  PtoInterpValue arg = pto_interp_value_tensor(x);
  PtoInterpValue *res;
  unsigned n;
  CHECK(pto_interp_run(I, func_of(m, "f"), &arg, 1, &res, &n) == PTO_SUCCESS);
  /* 3 constants, then per iteration view, neg, assemble; then the loop */
  CHECK(seen.ops == 3 + 4 * 3 + 1);
  CHECK(pto_interp_num_ops_executed(I) == seen.ops);
  CHECK(seen.assembles == 4);
  /* the caller's tensor is a value: the first assemble copies it, the
   * later ones update the dead loop-carried copy in place */
  CHECK(seen.data[0] != xd);
  CHECK(seen.data[1] == seen.data[0] && seen.data[3] == seen.data[0]);
  CHECK(xd[5] == 5.0f);
  const float *r = pto_tensor_array(res[0].tensor)->data;
  CHECK(r[5] == -5.0f && r[0] == 0.0f);
  pto_interp_value_release(&res[0]);
  pto_free(res);
  pto_interp_value_release(&arg);
  pto_interp_destroy(I);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

static PtoResult record_data(PtoOp *op, const PtoInterpValue *res, unsigned n,
                             void *user) {
  Seen *s = user;
  if (n == 1 && res[0].kind == PTO_IVAL_TENSOR && s->ops < 8)
    s->data[s->ops++] = pto_tensor_array(res[0].tensor)->data;
  (void)op;
  return PTO_SUCCESS;
}

TEST(elementwise_ops_reuse_dead_operands) {
  PtoContext *ctx = new_ctx();
  PtoOp *m = parse(ctx,
                   "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  %a = pypto.neg %x : tensor<4xf32>\n"
                   "  %b = pypto.exp %a : tensor<4xf32>\n"
                   "  %c = pypto.add %b, %x : tensor<4xf32>\n"
                   "  %d = pypto.add %x, %x : tensor<4xf32>\n"
                   "  %e = pypto.mul %d, %c : tensor<4xf32>\n"
                   "  func.return %e : tensor<4xf32>\n}\n");
  PtoInterp *I = pto_interp_create(ctx, NULL);
  Seen seen;
  memset(&seen, 0, sizeof seen);
  pto_interp_set_observer(I, record_data, &seen);
  float x[4] = {0, 1, 2, 3};
  PtoInterpValue arg = pto_interp_value_tensor(vec_f32(x, 4));
  const void *xd = pto_tensor_array(arg.tensor)->data;
  PtoInterpValue *res;
  unsigned n;
  CHECK(pto_interp_run(I, func_of(m, "f"), &arg, 1, &res, &n) == PTO_SUCCESS);
  /* neg cannot write over the caller's x; exp and the first add write over
   * their dead operands; add %x, %x needs a new buffer; mul reuses one */
  CHECK(seen.ops == 5);
  CHECK(seen.data[0] != xd && seen.data[1] == seen.data[0] &&
        seen.data[2] == seen.data[0]);
  CHECK(seen.data[3] != xd && seen.data[3] != seen.data[0]);
  CHECK(seen.data[4] == seen.data[3] || seen.data[4] == seen.data[2]);
  CHECK(at_f32(arg.tensor, 3) == 3.0f);
  float b1 = (float)exp(-1.0), c1 = (float)((double)b1 + 1.0);
  CHECK(at_f32(res[0].tensor, 1) == 2.0f * c1);
  pto_interp_value_release(&res[0]);
  pto_free(res);
  pto_interp_value_release(&arg);
  pto_interp_destroy(I);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

static PtoResult stop_at_neg(PtoOp *op, const PtoInterpValue *res, unsigned n,
                             void *user) {
  (void)res;
  (void)n;
  (void)user;
  if (pto_op_is(op, "pypto.neg"))
    return pto_op_emit_error(op, "observer: stop here");
  return PTO_SUCCESS;
}

TEST(observer_can_stop_the_run) {
  PtoContext *ctx = new_ctx();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  PtoOp *m = parse(ctx, kLoopSrc);
  PtoInterp *I = pto_interp_create(ctx, NULL);
  pto_interp_set_observer(I, stop_at_neg, NULL);
  int64_t shape[2] = {4, 2};
  PtoInterpValue arg =
      pto_interp_value_tensor(pto_tensor_create(NULL, NULL, PTO_DT_F32, 2, shape));
  PtoInterpValue *res;
  unsigned n;
  CHECK(pto_interp_run(I, func_of(m, "f"), &arg, 1, &res, &n) == PTO_FAILURE);
  CHECK(strstr(diag_capture_take(&dc), "'pypto.neg' op observer: stop here") != NULL);
  pto_interp_value_release(&arg);
  pto_interp_destroy(I);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* ---- limits ---- */

TEST(tensor_size_limit) {
  PtoContext *ctx = new_ctx();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  PtoOp *m = parse(ctx, "func.func @f(%n: index) -> tensor<?xf32> {\n"
                        "  %z = pypto.zeros (%n) : tensor<?xf32>\n"
                        "  func.return %z : tensor<?xf32>\n}\n");
  PtoInterpOptions o = {.max_tensor_bytes = 64};
  PtoInterp *I = pto_interp_create(ctx, &o);
  PtoInterpValue arg = pto_interp_value_int(PTO_DT_INDEX, 16);
  PtoInterpValue *res;
  unsigned n;
  CHECK(pto_interp_run(I, func_of(m, "f"), &arg, 1, &res, &n) == PTO_SUCCESS);
  pto_interp_value_release(&res[0]);
  pto_free(res);
  arg = pto_interp_value_int(PTO_DT_INDEX, 17);
  CHECK(pto_interp_run(I, func_of(m, "f"), &arg, 1, &res, &n) == PTO_FAILURE);
  CHECK(strstr(diag_capture_take(&dc),
               "result of shape (17,) and dtype f32 needs more than the "
               "interpreter's limit of 64 bytes per tensor") != NULL);
  pto_interp_destroy(I);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* ---- no global state: one interpreter per thread ---- */

static void *thread_run(void *arg) {
  int *ok = arg;
  PtoContext *ctx = new_ctx();
  PtoOp *m = parse(ctx, kLoopSrc);
  PtoInterp *I = pto_interp_create(ctx, NULL);
  int64_t shape[2] = {4, 2};
  *ok = 1;
  for (int round = 0; round < 200 && m; round++) {
    PtoTensor *x = pto_tensor_create(NULL, NULL, PTO_DT_F32, 2, shape);
    ((float *)pto_tensor_array(x)->data)[7] = (float)round;
    PtoInterpValue arg = pto_interp_value_tensor(x);
    PtoInterpValue *res;
    unsigned n;
    if (pto_interp_run(I, func_of(m, "f"), &arg, 1, &res, &n) ||
        ((float *)pto_tensor_array(res[0].tensor)->data)[7] != -(float)round)
      *ok = 0;
    else
      pto_interp_value_release(&res[0]), pto_free(res);
    pto_interp_value_release(&arg);
  }
  pto_interp_destroy(I);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  return NULL;
}

TEST(two_threads) {
  pthread_t t[2];
  int ok[2] = {0, 0};
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_run, &ok[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  CHECK(ok[0] && ok[1]);
}

/* Every op of every built-in dialect has a handler, but for what the
 * interpreter runs itself (functions, modules, terminators). */
TEST(every_op_has_a_handler) {
  PtoContext *ctx = new_ctx();
  PtoInterp *I = pto_interp_create(ctx, NULL);
  unsigned checked = 0;
  for (unsigned d = 0; d < pto_ctx_num_dialects(ctx); d++) {
    const PtoDialectDef *dd = pto_ctx_dialect(ctx, d);
    for (unsigned i = 0; i < dd->num_ops; i++) {
      const PtoOpDef *od = &dd->ops[i];
      if (pto_opdef_has_trait(od, PTO_TRAIT_TERMINATOR) ||
          pto_opdef_has_trait(od, PTO_TRAIT_IS_FUNCTION) ||
          pto_opdef_has_trait(od, PTO_TRAIT_SYMBOL_TABLE))
        continue;
      PtoOp *op = pto_op_create_simple(ctx, od->name, pto_loc_unknown(ctx),
                                       NULL, 0, NULL, 0, NULL, 0);
      if (!pto_interp_has_handler(I, op)) {
        fprintf(stderr, "no interpreter handler for %s\n", od->name);
        CHECK(false);
      }
      pto_op_destroy(op);
      checked++;
    }
  }
  CHECK(checked > 80);
  pto_interp_destroy(I);
  pto_ctx_destroy(ctx);
}

/* ------------------------------------------------------------------ */
/* Kernels on strided and broadcast arrays                              */
/* ------------------------------------------------------------------ */

static PtoNdArray arr(PtoDType dt, void *data, unsigned rank,
                      const int64_t *shape, const int64_t *strides) {
  PtoNdArray a;
  memset(&a, 0, sizeof a);
  a.dtype = dt;
  a.rank = rank;
  memcpy(a.shape, shape, rank * sizeof *shape);
  if (strides) memcpy(a.strides, strides, rank * sizeof *strides);
  else pto_contiguous_strides(rank, shape, a.strides);
  a.data = data;
  return a;
}

TEST(kernel_matmul_strided_with_accumulator) {
  /* A given transposed through strides (a column-major 2x3), B 3x2, acc a
   * broadcast row */
  float a[6] = {1, 4, 2, 5, 3, 6}; /* A = [[1,2,3],[4,5,6]] column-major */
  float b[6] = {1, 2, 3, 4, 5, 6}, acc[2] = {100, 200}, out[4];
  int64_t sa[2] = {2, 3}, ta[2] = {1, 2}, sb[2] = {3, 2}, sacc[2] = {1, 2},
          so[2] = {2, 2};
  PtoNdArray A = arr(PTO_DT_F32, a, 2, sa, ta), B = arr(PTO_DT_F32, b, 2, sb, NULL);
  PtoNdArray C = arr(PTO_DT_F32, acc, 2, sacc, NULL), O = arr(PTO_DT_F32, out, 2, so, NULL);
  PtoKernelError err;
  CHECK(pto_kernel_matmul(&A, &B, false, false, &C, PTO_DT_F32, &O, &err) == PTO_SUCCESS);
  CHECK(out[0] == 122 && out[1] == 228 && out[2] == 149 && out[3] == 264);
  /* a contracting mismatch is reported, not a crash */
  PtoNdArray B2 = arr(PTO_DT_F32, b, 2, so, NULL);
  CHECK(pto_kernel_matmul(&A, &B2, false, false, NULL, PTO_DT_F32, &O, &err) == PTO_FAILURE);
  CHECK_STR(err.msg, "contracting dims differ: 3 vs 2");
}

TEST(kernel_reduce_layouts_agree) {
  /* the same values, row-major and transposed: every kind gives the same
   * result whichever loop order the layout selects */
  float v[12], t[12];
  for (int i = 0; i < 12; i++) v[i] = (float)((i * 7) % 5) - 2.0f;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) t[j * 3 + i] = v[i * 4 + j];
  int64_t shape[2] = {3, 4}, tstr[2] = {1, 3}, oshape[2] = {1, 4};
  PtoNdArray X = arr(PTO_DT_F32, v, 2, shape, NULL), XT = arr(PTO_DT_F32, t, 2, shape, tstr);
  for (int k = PTO_REDUCE_SUM; k <= PTO_REDUCE_ARGMIN; k++) {
    bool arg = k >= PTO_REDUCE_ARGMAX;
    int32_t i1[4], i2[4];
    float f1[4], f2[4];
    PtoNdArray O1 = arr(arg ? PTO_DT_I32 : PTO_DT_F32, arg ? (void *)i1 : (void *)f1, 2, oshape, NULL);
    PtoNdArray O2 = arr(arg ? PTO_DT_I32 : PTO_DT_F32, arg ? (void *)i2 : (void *)f2, 2, oshape, NULL);
    CHECK(pto_kernel_reduce(k, &X, 0, &O1, NULL) == PTO_SUCCESS);
    CHECK(pto_kernel_reduce(k, &XT, 0, &O2, NULL) == PTO_SUCCESS);
    CHECK(memcmp(arg ? (void *)i1 : (void *)f1, arg ? (void *)i2 : (void *)f2, 16) == 0);
  }
}

TEST(kernel_scatter_checks_before_writing) {
  float dst[6] = {0, 0, 0, 0, 0, 0}, src[4] = {1, 2, 3, 4};
  int64_t idx[2] = {2, 3};
  int64_t ds[2] = {2, 3}, is[1] = {2}, ss[2] = {2, 2};
  PtoNdArray D = arr(PTO_DT_F32, dst, 2, ds, NULL), I = arr(PTO_DT_I64, idx, 1, is, NULL);
  PtoNdArray S = arr(PTO_DT_F32, src, 2, ss, NULL);
  PtoKernelError err;
  CHECK(pto_kernel_scatter_update(&D, &I, &S, 1, &err) == PTO_FAILURE);
  CHECK_STR(err.msg, "index 3 at position (1,) is out of range [0, 3) for dim 1");
  CHECK(dst[2] == 0); /* untouched */
  idx[1] = 2;         /* a later duplicate wins */
  CHECK(pto_kernel_scatter_update(&D, &I, &S, 1, &err) == PTO_SUCCESS);
  CHECK(dst[2] == 2 && dst[5] == 4);
}

TEST(compare_and_checksum) {
  float got[4] = {1, 2, 3.0001f, NAN}, want[4] = {1, 2, 3, NAN};
  int64_t s[1] = {4};
  PtoNdArray G = arr(PTO_DT_F32, got, 1, s, NULL), W = arr(PTO_DT_F32, want, 1, s, NULL);
  PtoCompareResult r;
  CHECK(!pto_compare_arrays(&G, &W, 1e-6, 1e-6, &r));
  CHECK(r.num_mismatched == 1 && r.worst_index[0] == 2);
  CHECK(pto_compare_arrays(&G, &W, 1e-4, 0, &r));
  double rtol, atol;
  pto_default_tolerance(PTO_DT_I32, &rtol, &atol);
  CHECK(rtol == 0 && atol == 0);
  /* FNV-1a of no bytes is the offset basis; of the bytes "a" a known value */
  int64_t zero[1] = {0}, one[1] = {1};
  char a = 'a';
  PtoNdArray E = arr(PTO_DT_I8, &a, 1, zero, NULL), A1 = arr(PTO_DT_I8, &a, 1, one, NULL);
  CHECK(pto_ndarray_checksum(&E) == 0xcbf29ce484222325ULL);
  CHECK(pto_ndarray_checksum(&A1) == 0xaf63dc4c8601ec8cULL);
  PtoArrayStats st;
  pto_ndarray_stats(&G, &st);
  CHECK(st.num_nan == 1 && st.min == 1 && st.max == got[2]);
}

RUN_TESTS(T(tensor_views_share_and_copy_on_write), T(values),
          T(run_and_argument_checks), T(user_handler),
          T(override_builtin_handler), T(observer_and_in_place_assemble),
          T(observer_can_stop_the_run), T(elementwise_ops_reuse_dead_operands),
          T(tensor_size_limit), T(two_threads),
          T(every_op_has_a_handler),
          T(kernel_matmul_strided_with_accumulator),
          T(kernel_reduce_layouts_agree), T(kernel_scatter_checks_before_writing),
          T(compare_and_checksum))
