/* pto-test-opt: pto-opt plus the `test` dialect and the test-only passes
 * used by IR core and pass tests. */
#include "pto/Dialects.h"
#include "pto/OptMain.h"
#include "pto/Transforms.h"

void pto_register_test_dialect(PtoContext *ctx);
void pto_register_test_passes(PtoContext *ctx);

static void register_all(PtoContext *ctx) {
  pto_register_all_dialects(ctx);
  pto_register_test_dialect(ctx);
  pto_register_all_passes(ctx);
  pto_register_test_passes(ctx);
}

int main(int argc, char **argv) {
  return pto_opt_main(argc, argv, "pto-test-opt", register_all);
}
