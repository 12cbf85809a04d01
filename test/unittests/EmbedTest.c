/* Unit tests of the embedding API (include/pto/Embed.h): diagnostics as
 * text, modules and pipelines with recorded stages, tracing inference,
 * tile checks, compiled kernels on caller buffers (in place, into result
 * buffers, kept), every misuse a diagnostic, and two contexts in two
 * threads. */
#include "Test.h"

#include "pto/Embed.h"
#include "pto/Pass.h"

#include <math.h>
#include <pthread.h>

static const char add_one[] =
    "func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>)\n"
    "    -> (tensor<2x3xf32> {pypto.inplace = 1 : i64}, tensor<2x3xf32>) {\n"
    "  %c = arith.constant 1.0 : f32\n"
    "  %r = pypto.adds %x, %c : tensor<2x3xf32>, f32\n"
    "  %d = pypto.mul %r, %r : tensor<2x3xf32>\n"
    "  func.return %r, %d : tensor<2x3xf32>, tensor<2x3xf32>\n"
    "}\n";

static PtoNdArray f32_2x3(float *data) {
  PtoNdArray a;
  memset(&a, 0, sizeof a);
  a.dtype = PTO_DT_F32;
  a.rank = 2;
  a.shape[0] = 2;
  a.shape[1] = 3;
  a.strides[0] = 3;
  a.strides[1] = 1;
  a.data = data;
  a.nbytes = 6 * sizeof(float);
  return a;
}

static PtoEmbedKernel *compile_text(PtoEmbed *e, const char *text,
                                    PtoEmbedModule **m) {
  *m = pto_embed_parse(e, text, strlen(text), "k.pto");
  return *m ? pto_embed_compile(*m, NULL) : NULL;
}

TEST(version_and_diagnostics) {
  CHECK(pto_embed_api_version() == PTO_EMBED_API_VERSION);
  CHECK_STR(pto_embed_version_string(), PTO_VERSION_STRING);
  PtoEmbed *e = pto_embed_create();
  CHECK_STR(pto_embed_diagnostics(e), "");
  static const char bad[] = "func.func @f() {\n  %x = arith.constant 1 : f32\n  func.return\n";
  pto_embed_add_source(e, "other.py", "a = 1\nb = 2\n", 12);
  CHECK(pto_embed_parse(e, bad, strlen(bad), "bad.pto") == NULL);
  CHECK(pto_embed_num_errors(e) == 1);
  CHECK(strstr(pto_embed_diagnostics(e), "bad.pto:3:14: error: ") != NULL);
  pto_embed_clear_diagnostics(e);
  CHECK_STR(pto_embed_diagnostics(e), "");
  CHECK(pto_embed_num_errors(e) == 0);
  /* a registered source is quoted under its diagnostics */
  const char *types[] = {"tensor<2xf32>", "tensor<3xf32>"};
  const char *res[2], *kept;
  unsigned n;
  CHECK(pto_embed_pypto_infer(e, "add", types, 2, NULL, "other.py", 2, 5, res, 2, &n,
                              &kept) == PTO_FAILURE);
  CHECK_STR(pto_embed_diagnostics(e),
            "other.py:2:5: error: 'pypto.add' op operands are not broadcast-compatible: "
            "'tensor<2xf32>' and 'tensor<3xf32>' (dim 0: 2 vs 3)\nb = 2\n    ^\n");
  pto_embed_destroy(e);
}

TEST(infer) {
  PtoEmbed *e = pto_embed_create();
  const char *res[2], *kept;
  unsigned n;
  const char *x[] = {"tensor<4x?xf32>"};
  CHECK(pto_embed_pypto_infer(e, "pypto.sum", x, 1, "{dim = 0 : i64, vec_tile = [2, 8]}",
                              NULL, 0, 0, res, 2, &n, &kept) == PTO_SUCCESS);
  CHECK(n == 1);
  CHECK_STR(res[0], "tensor<?xf32>");
  CHECK_STR(kept, "{dim = 0, vec_tile = [2, 8]}");
  /* builder-only attributes are consumed */
  const char *v[] = {"tensor<?x8xf32>", "index"};
  CHECK(pto_embed_pypto_infer(e, "view", v, 2,
                              "{shape = [2, 8], static_offsets = [-9223372036854775808, 0]}",
                              NULL, 0, 0, res, 2, &n, &kept) == PTO_SUCCESS);
  CHECK_STR(res[0], "tensor<2x8xf32>");
  CHECK_STR(kept, "{static_offsets = [-9223372036854775808, 0]}");
  const char *t[] = {"tensor<4x64xf32>"};
  CHECK(pto_embed_pypto_infer(e, "topk", t, 1, "{k = 3 : i64}", NULL, 0, 0, res, 2, &n,
                              &kept) == PTO_SUCCESS);
  CHECK(n == 2);
  CHECK_STR(res[1], "tensor<4x3xi32>");
  /* results beyond the room given */
  CHECK(pto_embed_pypto_infer(e, "topk", t, 1, "{k = 3 : i64}", "m.py", 1, 1, res, 1, &n,
                              &kept) == PTO_FAILURE);
  CHECK_STR(pto_embed_diagnostics(e), "m.py:1:1: error: 'topk' has 2 results; room for 1\n");
  pto_embed_clear_diagnostics(e);
  /* malformed input */
  CHECK(pto_embed_pypto_infer(e, "fft", t, 1, NULL, NULL, 0, 0, res, 2, &n, &kept));
  CHECK(strstr(pto_embed_diagnostics(e), "error: unknown Tensor-level op 'fft'") != NULL);
  pto_embed_clear_diagnostics(e);
  const char *bad[] = {"tensor<4x"};
  CHECK(pto_embed_pypto_infer(e, "exp", bad, 1, NULL, NULL, 0, 0, res, 2, &n, &kept));
  CHECK(strstr(pto_embed_diagnostics(e), "operand #0: cannot parse type 'tensor<4x'") != NULL);
  pto_embed_clear_diagnostics(e);
  CHECK(pto_embed_pypto_infer(e, "exp", t, 1, "[1]", NULL, 0, 0, res, 2, &n, &kept));
  CHECK(strstr(pto_embed_diagnostics(e),
               "attributes must be a dictionary '{...}', got '[1]'") != NULL);
  pto_embed_clear_diagnostics(e);
  CHECK(pto_embed_pypto_infer(e, "exp", t, 1, "{dims = 1}", NULL, 0, 0, res, 2, &n, &kept));
  CHECK(strstr(pto_embed_diagnostics(e), "unknown attribute 'dims'") != NULL);
  pto_embed_destroy(e);
}

TEST(tiles_and_cube_capacity) {
  PtoEmbed *e = pto_embed_create();
  int64_t vec[5] = {1, 2, 3, 4, 5}, zero[2] = {4, 0};
  CHECK(pto_embed_check_tiles(e, vec, 4, NULL, NULL, 0, 0) == PTO_SUCCESS);
  CHECK(pto_embed_check_tiles(e, vec, 5, NULL, "t.py", 3, 1) == PTO_FAILURE);
  CHECK_STR(pto_embed_diagnostics(e),
            "t.py:3:1: error: vec tile shape must be an array of 1 to 4 integers\n");
  pto_embed_clear_diagnostics(e);
  CHECK(pto_embed_check_tiles(e, zero, 2, NULL, "t.py", 3, 1) == PTO_FAILURE);
  CHECK_STR(pto_embed_diagnostics(e), "t.py:3:1: error: vec tile shape entry #1 must be "
                                      "positive, got 0\n");
  pto_embed_clear_diagnostics(e);
  int64_t cube[6] = {16, 32, 64, 64, 96, 64};
  CHECK(pto_embed_check_tiles(e, NULL, 0, cube, "t.py", 4, 1) == PTO_FAILURE);
  CHECK_STR(pto_embed_diagnostics(e), "t.py:4:1: error: cube tile shape: nL0 (96) must not "
                                      "exceed nL1 (64)\n");
  pto_embed_clear_diagnostics(e);
  const char *res[2], *kept;
  unsigned n;
  const char *ab[] = {"tensor<512x512xf16>", "tensor<512x512xf16>"};
  CHECK(pto_embed_pypto_infer(e, "matmul", ab, 2,
                              "{cube_tile = [[128, 128], [128, 128], [128, 128]]}", NULL, 0, 0,
                              res, 2, &n, &kept) == PTO_SUCCESS);
  static const struct {
    const char *tile, *msg;
  } cases[] = {
      {"{cube_tile = [[256, 256], [256, 256], [16, 16]]}",
       "cube tile mL0 x kL0 = 256 x 256 of f16 needs 128 KiB of L0A, which holds 64 KiB on "
       "a2a3; reduce mL0 or kL0"},
      {"{cube_tile = [[16, 16], [256, 256], [256, 256]]}",
       "cube tile kL0 x nL0 = 256 x 256 of f16 needs 128 KiB of L0B, which holds 64 KiB on "
       "a2a3; reduce kL0 or nL0"},
      {"{cube_tile = [[128, 128], [16, 16], [512, 512]]}",
       "cube tile mL0 x nL0 = 128 x 512 accumulators need 256 KiB of L0C, which holds 128 "
       "KiB on a2a3; reduce mL0 or nL0"},
      {"{cube_tile = [[128, 256], [128, 1024], [128, 256]]}",
       "cube tile L1 parts (mL1 + nL1) x kL1 = (256 + 256) x 1024 of f16 need 1024 KiB of "
       "L1, which holds 512 KiB on a2a3; reduce mL1, nL1 or kL1"},
  };
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK(pto_embed_pypto_infer(e, "matmul", ab, 2, cases[i].tile, "t.py", 9, 3, res, 2, &n,
                                &kept) == PTO_FAILURE);
    char want[512];
    snprintf(want, sizeof want, "t.py:9:3: error: 'pypto.matmul' op %s\n", cases[i].msg);
    CHECK_STR(pto_embed_diagnostics(e), want);
    pto_embed_clear_diagnostics(e);
  }
  /* i8 pads to 32: 48 x 48 of i8 (64 x 64 padded) is 4 KiB */
  const char *q[] = {"tensor<64x64xi8>", "tensor<64x64xi8>"};
  CHECK(pto_embed_pypto_infer(e, "matmul", q, 2,
                              "{cube_tile = [[48, 48], [48, 48], [48, 48]]}", NULL, 0, 0, res,
                              2, &n, &kept) == PTO_SUCCESS);
  pto_embed_destroy(e);
}

TEST(pipelines_and_stages) {
  PtoEmbed *e = pto_embed_create();
  PtoEmbedModule *m = pto_embed_parse(e, add_one, strlen(add_one), "k.pto");
  CHECK(m != NULL);
  PtoEmbedModule *c = pto_embed_module_clone(m);
  PtoEmbedPipelineOptions po = {NULL, true, false};
  CHECK(pto_embed_run_pipeline(c, "canonicalize,cse", &po) == PTO_SUCCESS);
  CHECK(pto_embed_module_num_stages(c) == 3);
  CHECK_STR(pto_embed_module_stage_name(c, 0), "input");
  CHECK_STR(pto_embed_module_stage_name(c, 2), "cse");
  CHECK(pto_embed_module_stage_name(c, 3) == NULL);
  CHECK(strstr(pto_embed_module_stage_ir(c, 1), "pypto.adds") != NULL);
  CHECK(pto_embed_run_pipeline(c, "no-such-pass", NULL) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e), "no-such-pass") != NULL);
  pto_embed_clear_diagnostics(e);
  char *text = pto_embed_module_print(m, 0);
  CHECK(strstr(text, "pypto.mul %1, %1 : tensor<2x3xf32>") != NULL);
  pto_free(text);
  text = pto_embed_module_print(m, 1 /* PTO_PRINT_GENERIC */);
  CHECK(strstr(text, "\"pypto.mul\"") != NULL);
  pto_free(text);
  pto_embed_module_destroy(c);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
}

typedef struct Stages {
  unsigned calls, last;
  char names[64];
} Stages;

static PtoResult on_stage(unsigned stage, const char *pass, PtoOp *top, void *user) {
  Stages *s = user;
  s->calls++;
  s->last = stage;
  strncat(s->names, pass, sizeof s->names - strlen(s->names) - 2);
  strcat(s->names, ";");
  return pto_op_is(top, "builtin.module") && stage < 2 ? PTO_SUCCESS : PTO_FAILURE;
}

/* The pass manager's after-stage hook (PtoInstrumentation.after_stage),
 * which the embedding API records stages with: called once per pass with
 * the stage number and the top op; a failure stops the pipeline. */
TEST(after_stage_hook) {
  PtoEmbed *e = pto_embed_create();
  PtoEmbedModule *m = pto_embed_parse(e, add_one, strlen(add_one), "k.pto");
  PtoPassManager *pm = pto_pm_create(pto_embed_context(e), NULL);
  CHECK(pto_pm_add_pipeline(pm, "cse,func.func(canonicalize),cse") == PTO_SUCCESS);
  PtoInstrumentation ins;
  memset(&ins, 0, sizeof ins);
  Stages st = {0, 0, ""};
  ins.after_stage = on_stage;
  ins.after_stage_user = &st;
  pto_pm_set_instrumentation(pm, &ins);
  CHECK(pto_pm_run(pm, pto_embed_module_op(m)) == PTO_FAILURE);
  CHECK(st.calls == 2 && st.last == 2);
  CHECK_STR(st.names, "cse;canonicalize;");
  pto_pm_destroy(pm);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
}

TEST(run_in_place_into_buffers_and_kept) {
  PtoEmbed *e = pto_embed_create();
  PtoEmbedModule *m;
  PtoEmbedKernel *k = compile_text(e, add_one, &m);
  CHECK(k != NULL);
  if (!k) return;
  CHECK(pto_embed_kernel_num_args(k) == 2 && pto_embed_kernel_num_results(k) == 2);
  CHECK(pto_embed_kernel_result_inplace(k, 0) == 1);
  CHECK(pto_embed_kernel_result_inplace(k, 1) == -1);
  CHECK(pto_embed_kernel_result_inplace(k, 2) == -1);
  float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {0};
  PtoNdArray args[2] = {f32_2x3(x), f32_2x3(y)};
  CHECK(pto_embed_kernel_run(k, args, 2, NULL, 0) == PTO_SUCCESS);
  for (int i = 0; i < 6; i++) CHECK(y[i] == x[i] + 1);
  const PtoNdArray *kept = pto_embed_kernel_result(k, 1);
  CHECK(kept && kept->rank == 2 && ((float *)kept->data)[5] == 36.0f);
  CHECK(pto_embed_kernel_result(k, 0) == NULL);
  /* a result buffer with other strides (a transposed 3x2 view) */
  float d[6] = {0};
  PtoNdArray out[2];
  memset(out, 0, sizeof out);
  out[1] = f32_2x3(d);
  out[1].strides[0] = 1;
  out[1].strides[1] = 2;
  CHECK(pto_embed_kernel_run(k, args, 2, out, 2) == PTO_SUCCESS);
  CHECK(d[1] == 16.0f && d[2] == 4.0f); /* elements [1][0] and [0][1] */
  CHECK(pto_embed_kernel_result(k, 1) == NULL);
  CHECK(pto_embed_kernel_num_runs(k) == 2);
  CHECK(pto_embed_kernel_num_ops_executed(k) > 0);
  CHECK(pto_embed_kernel_module(k) != NULL);
  pto_embed_kernel_destroy(k);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
}

TEST(run_errors_write_nothing) {
  PtoEmbed *e = pto_embed_create();
  PtoEmbedModule *m;
  PtoEmbedKernel *k = compile_text(e, add_one, &m);
  if (!k) {
    CHECK(k != NULL);
    return;
  }
  float x[6] = {0}, y[6] = {7, 7, 7, 7, 7, 7}, z[4] = {0};
  PtoNdArray args[2] = {f32_2x3(x), f32_2x3(y)};
  CHECK(pto_embed_kernel_run(k, args, 1, NULL, 0) == PTO_FAILURE);
  CHECK_STR(pto_embed_diagnostics(e), "k.pto:1:1: error: @f takes 2 arguments, got 1\n"
                                      "func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>)\n"
                                      "^\n");
  pto_embed_clear_diagnostics(e);
  PtoNdArray out[3];
  memset(out, 0, sizeof out);
  CHECK(pto_embed_kernel_run(k, args, 2, out, 3) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e), "@f has 2 results, got 3 result buffers") != NULL);
  pto_embed_clear_diagnostics(e);
  /* a wrong result buffer: checked before anything is written */
  out[1] = f32_2x3(z);
  out[1].shape[1] = 2;
  out[1].nbytes = 4 * sizeof(float);
  CHECK(pto_embed_kernel_run(k, args, 2, out, 2) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e),
               "@f: result #1 has shape (2, 3) but its buffer has shape (2, 2)") != NULL);
  CHECK(y[0] == 7);
  pto_embed_clear_diagnostics(e);
  PtoNdArray bad = args[0];
  bad.dtype = (PtoDType)42;
  PtoNdArray args2[2] = {bad, args[1]};
  CHECK(pto_embed_kernel_run(k, args2, 2, NULL, 0) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e), "@f: argument #0 has an invalid dtype 42") != NULL);
  pto_embed_clear_diagnostics(e);
  args2[0] = args[0];
  args2[0].data = NULL;
  CHECK(pto_embed_kernel_run(k, args2, 2, NULL, 0) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e), "@f: argument #0 has no data") != NULL);
  pto_embed_clear_diagnostics(e);
  args2[0] = args[0];
  args2[0].shape[0] = 3;
  CHECK(pto_embed_kernel_run(k, args2, 2, NULL, 0) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e), "@f: argument #0 of shape (3, 3) and dtype f32 has "
                                         "nbytes 24, expected 36") != NULL);
  pto_embed_clear_diagnostics(e);
  float big[9] = {0};
  args2[0].data = big;
  args2[0].nbytes = sizeof big;
  CHECK(pto_embed_kernel_run(k, args2, 2, NULL, 0) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e), "error: ") != NULL); /* the interpreter's check */
  pto_embed_clear_diagnostics(e);
  CHECK(y[0] == 7);
  pto_embed_kernel_destroy(k);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
}

TEST(entries_and_scalars) {
  PtoEmbed *e = pto_embed_create();
  static const char two[] =
      "func.func @a(%s: f32, %n: index) -> f32 {\n"
      "  %i = arith.index_cast %n : index to i64\n"
      "  %f = arith.sitofp %i : i64 to f32\n"
      "  %r = arith.mulf %s, %f : f32\n"
      "  func.return %r : f32\n"
      "}\n"
      "func.func @b() {\n  func.return\n}\n";
  PtoEmbedModule *m = pto_embed_parse(e, two, strlen(two), "two.pto");
  CHECK(pto_embed_compile(m, NULL) == NULL);
  CHECK(strstr(pto_embed_diagnostics(e), "the module has 2 public functions (@a, @b); name "
                                         "the entry") != NULL);
  pto_embed_clear_diagnostics(e);
  PtoEmbedCompileOptions co;
  memset(&co, 0, sizeof co);
  co.entry = "c";
  CHECK(pto_embed_compile(m, &co) == NULL);
  CHECK(strstr(pto_embed_diagnostics(e), "no function @c with a body in the module; it "
                                         "defines @a, @b") != NULL);
  pto_embed_clear_diagnostics(e);
  co.entry = "a";
  co.pipeline = "canonicalize";
  PtoEmbedKernel *k = pto_embed_compile(m, &co);
  CHECK(k != NULL);
  float s = 2.5f;
  int64_t n = 4;
  PtoNdArray args[2];
  memset(args, 0, sizeof args);
  args[0].dtype = PTO_DT_F32;
  args[0].data = &s;
  args[0].nbytes = sizeof s;
  args[1].dtype = PTO_DT_I64;
  args[1].data = &n;
  args[1].nbytes = sizeof n;
  CHECK(k && pto_embed_kernel_run(k, args, 2, NULL, 0) == PTO_SUCCESS);
  const PtoNdArray *r = k ? pto_embed_kernel_result(k, 0) : NULL;
  CHECK(r && r->rank == 0 && *(float *)r->data == 10.0f);
  args[1].rank = 1;
  args[1].shape[0] = 1;
  CHECK(k && pto_embed_kernel_run(k, args, 2, NULL, 0) == PTO_FAILURE);
  CHECK(strstr(pto_embed_diagnostics(e), "@a: argument #1 is a scalar; pass a rank-0 array"));
  pto_embed_kernel_destroy(k);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
}

TEST(check_stages) {
  PtoEmbed *e = pto_embed_create();
  static const char sum16[] =
      "func.func @s(%x: tensor<4x256xf16>) -> tensor<4x1xf16> {\n"
      "  %r = pypto.sum %x {dim = -1 : i64, keepdim, vec_tile = [4, 16]}"
      " : tensor<4x256xf16> -> tensor<4x1xf16>\n"
      "  func.return %r : tensor<4x1xf16>\n"
      "}\n";
  PtoEmbedModule *m = pto_embed_parse(e, sum16, strlen(sum16), "sum16.pto");
  PtoEmbedCompileOptions co;
  memset(&co, 0, sizeof co);
  co.check_stages = true;
  co.rtol = co.atol = -1; /* the defaults: f16 tile partials stay within them */
  PtoEmbedKernel *k = pto_embed_compile(m, &co);
  CHECK(k != NULL);
  uint16_t x[4 * 256];
  uint32_t seed = 12345;
  for (int i = 0; i < 4 * 256; i++) {
    seed = seed * 1664525u + 1013904223u; /* values in [-4, 4) */
    x[i] = pto_f32_to_f16_bits((float)(seed >> 8) / (float)(1u << 24) * 8.0f - 4.0f);
  }
  PtoNdArray a;
  memset(&a, 0, sizeof a);
  a.dtype = PTO_DT_F16;
  a.rank = 2;
  a.shape[0] = 4;
  a.shape[1] = 256;
  a.strides[0] = 256;
  a.strides[1] = 1;
  a.data = x;
  a.nbytes = sizeof x;
  CHECK(k && pto_embed_kernel_run(k, &a, 1, NULL, 0) == PTO_SUCCESS);
  pto_embed_kernel_destroy(k);
  /* exact agreement is asked for: the rounded partial sums differ */
  co.rtol = co.atol = 0;
  k = pto_embed_compile(m, &co);
  CHECK(k && pto_embed_kernel_run(k, &a, 1, NULL, 0) == PTO_FAILURE);
  const char *d = pto_embed_diagnostics(e);
  CHECK(strstr(d, "sum16.pto:1:1: error: pass verification: the first stage whose results "
                  "differ from the Tensor level is the Tile level (after "
                  "'tile-expand{provenance=true}'): result #0 has ") != NULL);
  CHECK(strstr(d, "sum16.pto:2:3: error: 'tile.add' op is the first tile op whose value "
                  "differs from the Tensor level") != NULL);
  CHECK(strstr(d, "sum16.pto:2:3: note: the Tensor-level op it came from") != NULL);
  CHECK(pto_embed_kernel_result(k, 0) == NULL);
  pto_embed_clear_diagnostics(e);
  pto_embed_kernel_destroy(k);
  co.pipeline = "no-such-pass";
  CHECK(pto_embed_compile(m, &co) == NULL);
  CHECK(strstr(pto_embed_diagnostics(e), "no-such-pass") != NULL);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
}

typedef struct Job {
  int seed;
  int ok;
} Job;

static void *thread_job(void *p) {
  Job *j = p;
  PtoEmbed *e = pto_embed_create();
  PtoEmbedModule *m;
  PtoEmbedKernel *k = compile_text(e, add_one, &m);
  j->ok = k != NULL;
  for (int it = 0; it < 50 && j->ok; it++) {
    float x[6], y[6];
    for (int i = 0; i < 6; i++) x[i] = (float)(j->seed * 100 + it + i);
    PtoNdArray args[2] = {f32_2x3(x), f32_2x3(y)};
    if (pto_embed_kernel_run(k, args, 2, NULL, 0)) j->ok = 0;
    for (int i = 0; i < 6; i++)
      if (y[i] != x[i] + 1) j->ok = 0;
  }
  pto_embed_kernel_destroy(k);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
  return NULL;
}

TEST(two_contexts_two_threads) {
  pthread_t t[2];
  Job jobs[2] = {{1, 0}, {2, 0}};
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_job, &jobs[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  CHECK(jobs[0].ok && jobs[1].ok);
}

RUN_TESTS(T(version_and_diagnostics), T(infer), T(tiles_and_cube_capacity),
          T(pipelines_and_stages), T(after_stage_hook),
          T(run_in_place_into_buffers_and_kept), T(run_errors_write_nothing),
          T(entries_and_scalars), T(check_stages), T(two_contexts_two_threads))
