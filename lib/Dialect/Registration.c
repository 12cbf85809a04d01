/* Registration of every dialect that ships with PTO. */
#include "pto/Dialect/Block.h"
#include "pto/Dialect/Experimental.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialects.h"

void pto_register_all_dialects(PtoContext *ctx) {
  pto_register_func_dialect(ctx);
  pto_register_arith_dialect(ctx);
  pto_register_scf_dialect(ctx);
  pto_register_pypto_dialect(ctx);
  pto_register_tile_dialect(ctx);
  pto_register_block_dialect(ctx);
  pto_register_pto_dialect(ctx);
  pto_register_experimental_dialect(ctx);
}
