/* Registration of the dialects that ship with PTO, and small builders for
 * the core ops that every later level creates. */
#ifndef PTO_DIALECTS_H
#define PTO_DIALECTS_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* func, arith, scf, pypto (Tensor), tile, ... (everything in lib/Dialect). */
void pto_register_all_dialects(PtoContext *ctx);

void pto_register_func_dialect(PtoContext *ctx);
void pto_register_arith_dialect(PtoContext *ctx);
void pto_register_scf_dialect(PtoContext *ctx);
void pto_register_pypto_dialect(PtoContext *ctx);

#ifdef __cplusplus
}
#endif
#endif
