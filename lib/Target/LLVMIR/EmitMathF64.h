/* The small builders of EmitMathF64.c's f64 math, for the other files
 * that compute in f64 the same way (EmitMathTrig.c): constants shaped
 * like a value, llvm.fma (rounded once, as C's fma()), Horner's scheme
 * with it, and a select on a comparison. */
#ifndef PTO_TARGET_LLVMIR_EMITMATHF64_H
#define PTO_TARGET_LLVMIR_EMITMATHF64_H

#include "Target/LLVMIR/EmitUtil.h"

/* The double v with as many lanes as `like`. */
LLVMValueRef pto_emit_f64_const(PtoEmit *e, LLVMValueRef like, double v);
/* a * b + c rounded once (llvm.fma). */
LLVMValueRef pto_emit_f64_fma(PtoEmit *e, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
/* c[0] x^(n-1) + ... + c[n-1] by Horner's scheme with pto_emit_f64_fma. */
LLVMValueRef pto_emit_f64_poly(PtoEmit *e, LLVMValueRef x, const double *c, unsigned n);
/* (a p b) ? then : otherwise. */
LLVMValueRef pto_emit_f64_select(PtoEmit *e, LLVMRealPredicate p, LLVMValueRef a,
                                 LLVMValueRef b, LLVMValueRef then, LLVMValueRef otherwise);

#endif
