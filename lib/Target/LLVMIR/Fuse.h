/* Element-wise fusion in the translation: which consecutive vector
 * instructions of a vector kernel run as one loop nest, and which of their
 * results must still reach memory (docs/jit.md, "Fusion"). PTO IR only;
 * Translate.c emits each run through pto_emit_fused. */
#ifndef PTO_TARGET_LLVMIR_FUSE_H
#define PTO_TARGET_LLVMIR_FUSE_H

#include "Target/LLVMIR/Emit.h"
#include "pto/Dialect/PTO.h"
#include "pto/IR.h"

typedef struct PtoFuseStep {
  PtoOp *op;
  int dst_slot, a_slot, b_slot; /* as PtoEmitStep's */
  bool store;
} PtoFuseStep;

typedef struct PtoFuseRun {
  PtoFuseStep step[PTO_EMIT_MAX_STEPS];
  unsigned n;
  /* the run's last instruction: between the first and it, only the
   * steps and scalar arith ops, which the translation emits before the
   * loop nest */
  PtoOp *last;
  /* a tile of the run's rows x cols shape */
  PtoValue *shape;
} PtoFuseRun;

/* The longest run that may fuse starting at `first`, an op of a vector
 * kernel's body (a tload, or a vector instruction); run->n < 2 when no
 * run of two or more starts there. */
void pto_llvmir_fuse_plan(PtoOp *first, PtoFuseRun *run);

/* Forwarding (docs/jit.md, "Forwarding"): whether the readers of the
 * tile of `load`, a tload of a vector kernel, may read it from its GM
 * window instead of the vector buffer, so that the tload copies nothing
 * (a fused one loads into registers only). It may when
 *  - the tile is in the vector buffer, of the tensor's dtype (not i1);
 *  - every reader of the tile is an instruction whose emitter addresses
 *    its tiles by their row stride: the elementwise, scalar, row-broadcast,
 *    unary and conversion instructions, row and column reductions,
 *    transposes and tmov (not a tstore: its window may be the tile's own);
 *  - no instruction after the tload reads the tile's bytes through a
 *    tile defined before it, and none between the tload and the tile's
 *    last reader writes them (the last reader itself may, in place):
 *    every read of those bytes is a read of the tile as loaded;
 *  - the kernel writes the tload's tensor nowhere after the tload.
 * f->writes gets the other GM tensors the kernel writes after the tload
 * (at most PTO_FORWARD_MAX_WRITES, else no forwarding): a kernel's tensor
 * arguments may be one buffer, so the translation checks at run time that
 * the tensor overlaps none of them, and copies the tile as the tload does
 * when it does. The window itself (one piece, consecutive columns) the
 * translation checks when it computes it. */
#define PTO_FORWARD_MAX_WRITES 8
typedef struct PtoForward {
  unsigned n;
  PtoValue *writes[PTO_FORWARD_MAX_WRITES];
} PtoForward;
bool pto_llvmir_forward_plan(PtoOp *load, PtoForward *f);

/* A tstore into a GM tensor this large streams (non-temporal stores):
 * the tensor outgrows a core's share of the last-level cache, so its
 * lines would be evicted before anyone reads them back, and normal stores
 * would read every line before writing it. */
#define PTO_STREAM_MIN_BYTES ((int64_t)16 << 20)
bool pto_llvmir_streams(PtoValue *tensor);

/* Whether a tunary instruction is one of the Tile level's elementwise math
 * ops (tsigmoid ... tsignbit), emitted by pto_emit_math and so not a fused
 * step; *m is its emitter's op. */
bool pto_llvmir_math_of(PtoPtoOp id, PtoEmitMath *m);
/* Whether an instruction is one of the Tile level's bitwise ops (tand ...
 * tshr) or piecewise-linear functions (tsign ... tclip), each emitted by
 * its own emitter and so not a fused step; *op is that emitter's op. */
bool pto_llvmir_bitwise_of(PtoPtoOp id, PtoEmitBitwise *op);
bool pto_llvmir_piecewise_of(PtoPtoOp id, PtoEmitPiecewise *op);

#endif
