/* PTO to LLVM IR: each pto.kernel of a module becomes an LLVM function
 * over the core's buffer image, its GM tensors and its index and scalar
 * arguments, with the tile instructions as vectorised loops (docs/jit.md,
 * docs/tools/pto-translate.md). */
#ifndef PTO_LLVMIR_H
#define PTO_LLVMIR_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Translates every pto.kernel of `module` (verified, memory-planned) into
 * one LLVM module, verified by LLVM and returned as textual IR in *out
 * (pto_free). What cannot be translated is reported as an error at its op
 * through the context, and nothing is returned; a func.func (the host
 * program of a lowered module) is left out with a warning.
 *
 * The function of `pto.kernel vector @k(%A: tensor<64x64xf32>, %i: index)`
 * is `void @k(i8* %vec, i8* %A, i64 %i)`: first one base pointer per
 * memory space of the core (vector: vec; cube: mat, left, right, acc),
 * each tile at its planned byte offset from its space's base, then the
 * kernel's arguments in order (a GM tensor as the address of its first
 * element, row-major; index as i64; scalars as their LLVM type).
 * `lanes` is the f32 width of the host's vectors the reductions and the
 * matmul use (8, or 16 for AVX-512; 0: 8). */
PtoResult pto_translate_to_llvmir(PtoOp *module, unsigned lanes, char **out);

typedef struct PtoTranslateOptions {
  /* f32 lanes of the reductions and the matmul: 8 or 16 (0: 8); results
   * are the same at both widths but for float row sums (docs/jit.md) */
  unsigned lanes;
  /* Bytes of each on-chip buffer of one core (vec, mat, left, right, acc,
   * as PtoBufSpace; 0: the default platform's, a2a3: 192 KiB, 512 KiB,
   * 64 KiB, 64 KiB, 128 KiB). A planned tile that does not lie within
   * its buffer is an error at the instruction, since the compiled code
   * would read or write outside the image it is given. */
  uint64_t buffer_bytes[5];
} PtoTranslateOptions;

/* pto_translate_to_llvmir with options (NULL: the defaults);
 * pto_translate_to_llvmir(m, lanes, out) is this with {lanes}. */
PtoResult pto_translate_to_llvmir_with(PtoOp *module,
                                       const PtoTranslateOptions *opts,
                                       char **out);

/* The f32 lanes of this host's widest vectors LLVM reports: 16 with
 * AVX-512 (avx512f), else 8. */
unsigned pto_llvmir_host_lanes(void);

#ifdef __cplusplus
}
#endif
#endif
