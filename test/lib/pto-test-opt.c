/* pto-test-opt: pto-opt plus the `test` dialect used by IR core tests. */
#include "pto/OptMain.h"

void pto_register_test_dialect(PtoContext *ctx);

int main(int argc, char **argv) {
  return pto_opt_main(argc, argv, "pto-test-opt", pto_register_test_dialect);
}
