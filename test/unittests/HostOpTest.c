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
#include <stdlib.h>
#include <string.h>

static const PtoOpDef mine_ops[] = {
    {.name = "mine.scale", .num_operands = 1, .num_results = 1,
     .traits = PTO_TRAIT_PURE, .affinity = PTO_AFFINITY_VECTOR,
     .summary = "each element times the integer attribute `factor`"},
    {.name = "mine.inc", .num_operands = 1, .num_results = 1,
     .traits = PTO_TRAIT_PURE, .affinity = PTO_AFFINITY_VECTOR,
     .summary = "each element plus one"},
};
static const PtoDialectDef mine = {.name = "mine", .ops = mine_ops, .num_ops = 2,
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

/* Counts its runs; refuses elements below -5. */
static int inc_runs;
static int inc_run(const PtoHostOpCall *c) {
  const int32_t *x = c->operands[0].data;
  int32_t *y = c->result->data;
  int64_t n = (int64_t)(c->result->nbytes / sizeof *y);
  inc_runs++;
  for (int64_t i = 0; i < n; i++) {
    if (x[i] < -5) {
      snprintf(c->error, c->error_size, "refuses %d", x[i]);
      return 1;
    }
    y[i] = x[i] + 1;
  }
  return 0;
}

static const PtoHostOpDef mine_host_ops[] = {{"mine.scale", scale_prepare, scale_run},
                                             {"mine.inc", NULL, inc_run}};

/* Row b of the result is row l[b] + 1 of x: the loop's reads of the
 * incremented lengths wait for the host op's task, and each for the
 * assemble before it, which writes nothing they read (a workspace read
 * is synchronised all the same). */
static const char kLoop[] =
    "func.func @g(%l: tensor<1x4xi32>, %x: tensor<4x16xf32>, %y0: tensor<4x16xf32>) "
    "-> tensor<4x16xf32> {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c4 = arith.constant 4 : index\n"
    "  %l1 = \"mine.inc\"(%l) : (tensor<1x4xi32>) -> tensor<1x4xi32>\n"
    "  %r = scf.for %b = %c0 to %c4 step %c1 iter_args(%y = %y0) -> (tensor<4x16xf32>) {\n"
    "    %n = pypto.load_scalar %l1[0, %b] : tensor<1x4xi32> -> index\n"
    "    %v = pypto.view %x[%n, 0] : tensor<4x16xf32> -> tensor<1x16xf32>\n"
    "    %a = pypto.assemble %v into %y[%b, 0] : tensor<1x16xf32> into tensor<4x16xf32>\n"
    "    scf.yield %a : tensor<4x16xf32>\n"
    "  }\n"
    "  func.return %r : tensor<4x16xf32>\n"
    "}\n";

static PtoOp *lowered_text(PtoContext *ctx, const char *text) {
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
  if (pto_ctx_register_dialect(ctx, &mine)) return NULL;
  PtoOp *m = parse(ctx, text);
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  bool ok = m && !pto_pm_add_pipeline(pm, "pto-lower-to-pto") && !pto_pm_run(pm, m);
  pto_pm_destroy(pm);
  if (!ok && m) pto_op_destroy(m);
  return ok ? m : NULL;
}

static PtoOp *lowered(PtoContext *ctx) { return lowered_text(ctx, kText); }

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

/* Builds kLoop's graph for lengths l; false after a diagnostic. */
static bool build_loop(PtoHostProgram *p, PtoContext *ctx, const int32_t *l) {
  int64_t ls[2] = {1, 4}, xs[2] = {4, 16};
  PtoTensor *tl = pto_tensor_create(ctx, NULL, PTO_DT_I32, 2, ls);
  PtoTensor *tx = pto_tensor_create(ctx, NULL, PTO_DT_F32, 2, xs);
  PtoTensor *ty = pto_tensor_create(ctx, NULL, PTO_DT_F32, 2, xs);
  memcpy(pto_tensor_array(tl)->data, l, 4 * sizeof *l);
  float *x = pto_tensor_array(tx)->data;
  for (int i = 0; i < 64; i++) x[i] = (float)i;
  memset(pto_tensor_array(ty)->data, 0, 64 * sizeof(float));
  PtoInterpValue args[3] = {pto_interp_value_tensor(tl), pto_interp_value_tensor(tx),
                            pto_interp_value_tensor(ty)};
  bool ok = !pto_host_program_build(p, args, 3);
  for (int i = 0; i < 3; i++) pto_interp_value_release(&args[i]);
  return ok;
}

/* Whether the result read from bufs (NULL: the program's own) is rows
 * l[b] + 1 of x. */
static bool loop_result_ok(PtoHostProgram *p, void *const *bufs, const int32_t *l) {
  PtoInterpValue out = {0};
  if (pto_host_program_result(p, 0, bufs, &out)) return false;
  const float *v = pto_tensor_array(out.tensor)->data;
  bool same = true;
  for (int b = 0; b < 4; b++)
    for (int j = 0; j < 16; j++) same &= v[b * 16 + j] == (float)((l[b] + 1) * 16 + j);
  pto_interp_value_release(&out);
  return same;
}

/* Whether the timeline shown has times for every task of the graph. */
static bool every_task_timed(PtoHostProgram *p) {
  const PtoRtTimeline *tl = pto_host_program_timeline(p);
  PtoGraph *g = pto_host_program_graph(p);
  PtoRtGraphStats st;
  pto_graph_get_stats(g, &st);
  uint64_t timed = 0;
  for (uint64_t i = 0; tl && i < st.tasks + st.barriers; i++) {
    PtoRtTaskTimes t;
    timed += pto_timeline_get_task(tl, i, &t);
  }
  return tl && st.tasks > 4 && timed == st.tasks;
}

/* The tasks a tile.load_scalar waits for run while the graph is built, as
 * steps of its first run on the program's own buffers, which the run
 * then ends: each task runs once (the host op's task counts its runs),
 * the results are right, and the timeline has every task. */
TEST(tasks_before_a_load_scalar_run_once) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  PtoOp *m = lowered_text(ctx, kLoop);
  CHECK(m != NULL);
  PtoHostProgramOptions o = {.host_ops = mine_host_ops, .num_host_ops = 2};
  PtoHostProgram *p = m ? pto_host_program_create(ctx, m, entry(m), &o) : NULL;
  CHECK(p != NULL);
  if (!p) {
    fprintf(stderr, "%s", dc.text);
    if (m) pto_op_destroy(m);
    diag_capture_end(&dc);
    pto_ctx_destroy(ctx);
    return;
  }
  const int32_t l[4] = {1, 2, 0, -1};
  inc_runs = 0;
  CHECK(build_loop(p, ctx, l));
  /* the reads waited for the host op's task; the first ran it, in the
   * one step: no task after it writes what the later reads read */
  CHECK(inc_runs == 1);
  CHECK(pto_host_program_num_steps(p) == 1);
  CHECK(!pto_host_program_run(p, NULL));
  CHECK(inc_runs == 1);
  CHECK(loop_result_ok(p, NULL, l));
  CHECK(every_task_timed(p));
  CHECK(pto_host_program_step_seconds(p) > 0);

  /* a checked run: the steps ran on the guarded copies */
  pto_host_program_set_gm_check(p, true);
  inc_runs = 0;
  CHECK(build_loop(p, ctx, l) && !pto_host_program_run(p, NULL));
  CHECK(inc_runs == 1 && loop_result_ok(p, NULL, l) && every_task_timed(p));
  pto_host_program_set_gm_check(p, false);

  /* a replay on other buffers first ends the run on the program's own,
   * then runs every task again */
  inc_runs = 0;
  CHECK(build_loop(p, ctx, l));
  uint32_t nb = pto_host_program_num_buffers(p);
  void *const *own = pto_host_program_buffers(p);
  void **other = calloc(nb + 1, sizeof *other);
  for (uint32_t i = 0; i < nb; i++) {
    other[i] = calloc((size_t)pto_host_program_buffer_size(p, i), 1);
    if (i < 3) memcpy(other[i], pto_host_program_tensor_input(p, i)->data,
                      (size_t)pto_host_program_buffer_size(p, i));
  }
  CHECK(!pto_host_program_run(p, other));
  CHECK(inc_runs == 2);
  CHECK(loop_result_ok(p, other, l) && loop_result_ok(p, own, l));
  for (uint32_t i = 0; i < nb; i++) free(other[i]);
  free(other);

  /* a task failing in a step: its error at the op, the build stops */
  const int32_t bad[4] = {1, -9, 0, 0};
  CHECK(!build_loop(p, ctx, bad));
  CHECK(diag_capture_has(&dc, "t.pto:5:3: error: 'mine.inc' op refuses -9"));
  CHECK(diag_capture_has(&dc, "t.pto:1:1: note: the compiled run stopped there: task 0 "
                              "(kernel 'mine.inc', label 'mine.inc') failed with status 1"));
  diag_capture_take(&dc);
  pto_host_program_destroy(p);
  pto_op_destroy(m);
  diag_capture_end(&dc);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(users_host_op_runs_as_a_task), T(tasks_before_a_load_scalar_run_once))
