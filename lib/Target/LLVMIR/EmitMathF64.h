/* The f64 constant builder of EmitMathF64.c, for the other files that
 * compute in f64 the same way (EmitMathTrig.c); its fma, Horner and
 * select builders are declared in Emit.h. */
#ifndef PTO_TARGET_LLVMIR_EMITMATHF64_H
#define PTO_TARGET_LLVMIR_EMITMATHF64_H

#include "Target/LLVMIR/EmitUtil.h"

/* The double v with as many lanes as `like`. */
LLVMValueRef pto_emit_f64_const(PtoEmit *e, LLVMValueRef like, double v);
/* a * b + c rounded once, Horner's scheme and the select on a comparison
 * are pto_emit_fma_f64, pto_emit_horner_f64 and pto_emit_fselect (Emit.h). */

#endif
