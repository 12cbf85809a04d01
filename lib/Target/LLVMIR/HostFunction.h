/* The host program of a lowered module (a func.func of block.workspace and
 * block.launch ops) as LLVM code that builds the runtime's task graph, and
 * one task entry per kernel (the ABI: pto/LLVMIR.h, PtoHostEnv). */
#ifndef PTO_TARGET_LLVMIR_HOSTFUNCTION_H
#define PTO_TARGET_LLVMIR_HOSTFUNCTION_H

#include "Target/LLVMIR/Emit.h"
#include "pto/IR.h"

/* Emits `func` (a func.func of `module`) and, for every pto.kernel of the
 * module (already emitted into e->mod), its task entry `<kernel>__task`.
 * Errors go to the op that cannot be translated. */
PtoResult pto_llvmir_emit_host(PtoEmit *e, PtoOp *module, PtoOp *func);

/* How many dims of tensor type `ty` are dynamic: a kernel takes each as an
 * i64 argument after the tensor's address. */
unsigned pto_llvmir_dynamic_dims(PtoType *ty);

/* The LLVM type of an integer, index or float scalar (a kernel or host
 * argument, a constant); NULL for other types. */
LLVMTypeRef pto_llvmir_scalar_type(LLVMContextRef c, PtoType *ty);

/* Scalar op `op` of the arith dialect (constants, integer and index
 * arithmetic, float arithmetic, comparisons, select, casts) over the LLVM
 * values of its operands `in`; NULL for an op or type it does not take
 * (bf16 arithmetic: a bf16 scalar is its bits). EmitScalar.c. */
LLVMValueRef pto_llvmir_emit_scalar(LLVMContextRef c, LLVMBuilderRef b, PtoOp *op,
                                    const LLVMValueRef *in);

#endif
