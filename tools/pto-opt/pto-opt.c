/* pto-opt: the PTO optimizer driver. */
#include "pto/OptMain.h"

int main(int argc, char **argv) {
  return pto_opt_main(argc, argv, "pto-opt", NULL);
}
