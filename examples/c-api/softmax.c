/* softmax: embedding PTO in a C program through include/pto/Embed.h.
 * Parses a Tensor-level softmax kernel, compiles it, runs it on a buffer
 * the program owns (the output written in place into its argument), and
 * checks the result against a plain C softmax. Also shows the tracing
 * entry point and how diagnostics come back as text. */
#include "pto/Embed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel reads x and writes softmax(x) into y (result 0 is argument
 * 1's new value: `pypto.inplace = 1`). The batch dim is dynamic. */
static const char kernel[] =
    "func.func @softmax(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>)\n"
    "    -> (tensor<?x64xf32> {pypto.inplace = 1 : i64}) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %n = pypto.dim %x {dim = 0 : i64} : tensor<?x64xf32> -> index\n"
    "  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y)\n"
    "      -> (tensor<?x64xf32>) {\n"
    "    %row = pypto.view %x[%i, 0] : tensor<?x64xf32> -> tensor<1x64xf32>\n"
    "    %p = pypto.softmax %row {dim = -1 : i64, vec_tile = [1, 64]}"
    " : tensor<1x64xf32>\n"
    "    %next = pypto.assemble %p into %acc[%i, 0]"
    " : tensor<1x64xf32> into tensor<?x64xf32>\n"
    "    scf.yield %next : tensor<?x64xf32>\n"
    "  }\n"
    "  func.return %r : tensor<?x64xf32>\n"
    "}\n";

enum { ROWS = 8, COLS = 64 };

int main(void) {
  PtoEmbed *e = pto_embed_create();

  /* Tracing support: what would `pypto.amax(t, dim=-1, keepdim=True)`
   * give for a 8x64 f32 tensor? (A front end asks this for every op.) */
  const char *types[] = {"tensor<8x64xf32>"};
  const char *results[2], *kept;
  unsigned n;
  if (pto_embed_pypto_infer(e, "amax", types, 1, "{dim = -1 : i64, keepdim}",
                            "model.py", 12, 5, results, 2, &n, &kept) == PTO_SUCCESS)
    printf("amax -> %s %s\n", results[0], kept);
  /* An invalid op is a diagnostic, rendered as text. */
  const char *two[] = {"tensor<8x64xf32>", "tensor<4x64xf32>"};
  if (pto_embed_pypto_infer(e, "add", two, 2, NULL, "model.py", 13, 9, results, 2,
                            &n, &kept) != PTO_SUCCESS)
    printf("%s", pto_embed_diagnostics(e));
  pto_embed_clear_diagnostics(e);

  PtoEmbedModule *m = pto_embed_parse(e, kernel, strlen(kernel), "softmax.pto");
  PtoEmbedKernel *k = m ? pto_embed_compile(m, NULL) : NULL;
  if (!k) {
    fprintf(stderr, "%s", pto_embed_diagnostics(e));
    return 1;
  }
  printf("compiled with pipeline '%s'\n", pto_embed_default_pipeline(e));

  float x[ROWS][COLS], y[ROWS][COLS];
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      x[i][j] = (float)((i * 7 + j * 13) % 17) / 4.0f - 2.0f;
      y[i][j] = 0.0f;
    }
  int64_t shape[2] = {ROWS, COLS};
  PtoNdArray args[2];
  memset(args, 0, sizeof args);
  for (int a = 0; a < 2; a++) {
    args[a].dtype = PTO_DT_F32;
    args[a].rank = 2;
    memcpy(args[a].shape, shape, sizeof shape);
    args[a].strides[0] = COLS;
    args[a].strides[1] = 1;
    args[a].nbytes = sizeof x;
  }
  args[0].data = x;
  args[1].data = y;
  /* no result buffers: the in-place result goes into y */
  if (pto_embed_kernel_run(k, args, 2, NULL, 0) != PTO_SUCCESS) {
    fprintf(stderr, "%s", pto_embed_diagnostics(e));
    return 1;
  }

  double err = 0;
  for (int i = 0; i < ROWS; i++) {
    double mx = x[i][0], sum = 0;
    for (int j = 1; j < COLS; j++) mx = fmax(mx, x[i][j]);
    for (int j = 0; j < COLS; j++) sum += exp(x[i][j] - mx);
    for (int j = 0; j < COLS; j++)
      err = fmax(err, fabs(y[i][j] - exp(x[i][j] - mx) / sum));
  }
  printf("softmax of %dx%d: max error %.3g after %llu run(s)\n", ROWS, COLS, err,
         (unsigned long long)pto_embed_kernel_num_runs(k));

  /* A run-time error (here, the wrong number of arguments) is also text. */
  if (pto_embed_kernel_run(k, args, 1, NULL, 0) != PTO_SUCCESS)
    printf("%s", pto_embed_diagnostics(e));

  pto_embed_kernel_destroy(k);
  pto_embed_module_destroy(m);
  pto_embed_destroy(e);
  return err < 1e-6 ? 0 : 1;
}
