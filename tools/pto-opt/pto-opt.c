/* pto-opt: the PTO optimizer driver. */
#include "pto/Dialects.h"
#include "pto/OptMain.h"

int main(int argc, char **argv) {
  return pto_opt_main(argc, argv, "pto-opt", pto_register_pypto_dialect);
}
