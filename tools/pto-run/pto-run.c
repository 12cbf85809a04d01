/* pto-run: run a function of a .pto file through the reference
 * interpreter (docs/tools/pto-run.md). */
#include "pto/Dialects.h"
#include "pto/RunMain.h"
#include "pto/Transforms.h"

static void register_all(PtoContext *ctx) {
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
}

int main(int argc, char **argv) {
  return pto_run_main(argc, argv, "pto-run", register_all, NULL);
}
