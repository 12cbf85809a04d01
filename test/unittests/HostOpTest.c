/* A user's own op run by the compiled host program through the public
 * extension API alone: a dialect of one op-table row, a Tensor-level
 * function around it lowered to PTO (the op stays in the host function),
 * and a PtoHostOpDef of the user's that the program runs as a task. */
#include "DiagCapture.h"
#include "ParseVerified.h"
#include "Test.h"

#include "pto/DialectImplementation.h"
#include "pto/Dialects.h"
#include "pto/HostProgram.h"
#include "pto/LLVMIR.h"
#include "pto/Pass.h"
#include "pto/Transforms.h"

#include <stdio.h>

static const PtoOpDef mine_ops[] = {
    {.name = "mine.scale", .num_operands = 1, .num_results = 1,
     .traits = PTO_TRAIT_PURE, .affinity = PTO_AFFINITY_VECTOR,
     .summary = "each element times the integer attribute `factor`"},
};
static const PtoDialectDef mine = {.name = "mine", .ops = mine_ops, .num_ops = 1,
                                   .summary = "a user's dialect"};

static const char kText[] =
    "func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
    "  %b = \"mine.scale\"(%a) {factor = 3 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  %c = pypto.add %b, %b : tensor<4x8xf32>\n"
    "  func.return %c : tensor<4x8xf32>\n"
    "}\n";

static PtoResult scale_prepare(PtoOp *op, int64_t *attrs) {
  attrs[0] = pto_op_attr_int(op, "factor", 1);
  return PTO_SUCCESS;
}

/* Refuses negative inputs, to show how a task's failure reaches the user. */
static int scale_run(const PtoHostOpCall *c) {
  const float *x = c->operands[0].data;
  float *y = c->result->data;
  int64_t n = (int64_t)(c->result->nbytes / sizeof *y);
  for (int64_t i = 0; i < n; i++) {
    if (x[i] < 0) {
      snprintf(c->error, c->error_size, "refuses the negative input %g at %lld", x[i],
               (long long)i);
      return 1;
    }
    y[i] = x[i] * (float)c->attrs[0];
  }
  return 0;
}

static const PtoHostOpDef mine_host_ops[] = {{"mine.scale", scale_prepare, scale_run}};

static PtoOp *lowered(PtoContext *ctx) {
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
  if (pto_ctx_register_dialect(ctx, &mine)) return NULL;
  PtoOp *m = parse(ctx, kText);
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  bool ok = m && !pto_pm_add_pipeline(pm, "pto-lower-to-pto") && !pto_pm_run(pm, m);
  pto_pm_destroy(pm);
  if (!ok && m) pto_op_destroy(m);
  return ok ? m : NULL;
}

static PtoOp *entry(PtoOp *module) {
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = pto_block_first_op(top); op; op = pto_op_next(op))
    if (pto_op_is(op, "func.func")) return op;
  return NULL;
}

/* Runs the program on x; the result tensor, or NULL. */
static PtoTensor *run_on(PtoHostProgram *p, PtoContext *ctx, const float *x) {
  int64_t shape[2] = {4, 8};
  PtoTensor *t = pto_tensor_create(ctx, NULL, PTO_DT_F32, 2, shape);
  memcpy(pto_tensor_array(t)->data, x, 32 * sizeof *x);
  PtoInterpValue arg = pto_interp_value_tensor(t);
  PtoInterpValue out = {0};
  bool ok = !pto_host_program_build(p, &arg, 1) && !pto_host_program_run(p, NULL) &&
            !pto_host_program_result(p, 0, NULL, &out);
  pto_interp_value_release(&arg);
  if (!ok) return NULL;
  return out.tensor;
}

TEST(users_host_op_runs_as_a_task) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  PtoOp *m = lowered(ctx);
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "%s", dc.text);
    diag_capture_end(&dc);
    pto_ctx_destroy(ctx);
    return;
  }
  PtoOp *f = entry(m);
  CHECK(f != NULL);
  /* the op stayed in the host function, after the lowering */
  CHECK(pto_llvmir_host_op_op(f, 0) && pto_op_is(pto_llvmir_host_op_op(f, 0), "mine.scale"));
  CHECK(pto_llvmir_host_op_op(f, 1) == NULL);

  /* without an implementation: an error at the op, no program */
  CHECK(pto_host_program_create(ctx, m, f, NULL) == NULL);
  CHECK(diag_capture_has(&dc, "t.pto:2:3: error: 'mine.scale' op has no PTO form and no "
                              "host-op implementation (PtoHostOpDef) to run it as a task "
                              "of the host program"));
  diag_capture_take(&dc);

  PtoHostProgramOptions o = {.host_ops = mine_host_ops, .num_host_ops = 1};
  PtoHostProgram *p = pto_host_program_create(ctx, m, f, &o);
  CHECK(p != NULL);
  float x[32];
  for (int i = 0; i < 32; i++) x[i] = (float)i * 0.25f;
  PtoTensor *y = p ? run_on(p, ctx, x) : NULL;
  CHECK(y != NULL);
  if (y) {
    const float *v = pto_tensor_array(y)->data;
    bool same = true;
    for (int i = 0; i < 32; i++) same &= v[i] == x[i] * 6.0f;
    CHECK(same);
    pto_tensor_release(y);
  }
  /* the task's failure: its message at the op, the run's account a note */
  x[5] = -1;
  CHECK(p && run_on(p, ctx, x) == NULL);
  CHECK(diag_capture_has(&dc, "t.pto:2:3: error: 'mine.scale' op refuses the negative "
                              "input -1 at 5"));
  CHECK(diag_capture_has(&dc, "note: the compiled run stopped there"));
  diag_capture_take(&dc);
  /* and the program runs again once the input is fine */
  x[5] = 1;
  y = p ? run_on(p, ctx, x) : NULL;
  CHECK(y && ((const float *)pto_tensor_array(y)->data)[5] == 6.0f);
  pto_tensor_release(y);
  pto_host_program_destroy(p);
  pto_op_destroy(m);
  diag_capture_end(&dc);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(users_host_op_runs_as_a_task))
