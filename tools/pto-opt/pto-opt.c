/* pto-opt: the PTO optimizer driver. */
#include "pto/Dialects.h"
#include "pto/OptMain.h"
#include "pto/Transforms.h"

static void register_all(PtoContext *ctx) {
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
}

int main(int argc, char **argv) {
  return pto_opt_main(argc, argv, "pto-opt", register_all);
}
