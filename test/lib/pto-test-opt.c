/* pto-test-opt: pto-opt plus the `test` dialect used by IR core tests. */
#include "pto/Dialects.h"
#include "pto/OptMain.h"

void pto_register_test_dialect(PtoContext *ctx);

static void register_all(PtoContext *ctx) {
  pto_register_all_dialects(ctx);
  pto_register_test_dialect(ctx);
}

int main(int argc, char **argv) {
  return pto_opt_main(argc, argv, "pto-test-opt", register_all);
}
