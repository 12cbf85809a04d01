/* pto-test-opt: pto-opt plus the `ptotest` dialect used by IR core tests. */
#include "TestDialect.h"
#include "pto/OptMain.h"

int main(int argc, char **argv) {
  return pto_opt_main(argc, argv, "pto-test-opt", pto_register_test_dialect);
}
