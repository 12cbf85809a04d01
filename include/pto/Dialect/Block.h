/* The Block-level dialect `block`: kernels that each run on one core type
 * (`block.kernel`), explicit moves between GM tensors and on-chip buffers
 * (`block.load`, `block.store`, the `!block.buf<32x32xf32, vec>` type),
 * GM workspaces for values that cross kernels (`block.workspace`) and the
 * execution graph, a host function of `block.launch` ops that record the
 * GM regions each launch reads and writes. Inside kernels the tile ops
 * compute on buffers. Semantics: docs/dialects/block.md. */
#ifndef PTO_DIALECT_BLOCK_H
#define PTO_DIALECT_BLOCK_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

void pto_register_block_dialect(PtoContext *ctx);

/* On-chip memory spaces, by the PTO names of the machine's buffers. */
typedef enum PtoBufSpace {
  PTO_BUF_VEC,   /* UB of a vector core */
  PTO_BUF_MAT,   /* L1 of a cube core */
  PTO_BUF_LEFT,  /* L0A */
  PTO_BUF_RIGHT, /* L0B */
  PTO_BUF_ACC,   /* L0C */
  PTO_BUF_NUM_SPACES,
  PTO_BUF_NONE = -1
} PtoBufSpace;

/* "vec" ... "acc"; PTO_BUF_NONE for an unknown name. */
const char *pto_buf_space_name(PtoBufSpace s);
PtoBufSpace pto_buf_space_lookup(const char *name);

/* !block.buf<shape x elem, space>: a static tile shape (1 to 4 dims) and a
 * supported element type, as for !tile.tile. NULL when invalid. */
PtoType *pto_block_buf_type(PtoContext *ctx, const int64_t *shape,
                            unsigned rank, PtoType *elem, PtoBufSpace space);
bool pto_type_is_block_buf(const PtoType *t);
/* The space of a buffer type; PTO_BUF_NONE for other types. */
PtoBufSpace pto_block_buf_space(const PtoType *t);

/* block.load / block.store: one offset per tensor dim into offs (PTO_DYN
 * for dynamic ones) and, in dyn, the index operand of each dynamic offset
 * (NULL for static ones). Returns the rank (0 if malformed). */
unsigned pto_block_get_offsets(const PtoOp *op, int64_t *offs, PtoValue **dyn);

/* The core type a kernel runs on (attribute `core`). */
typedef enum PtoBlockCore {
  PTO_BLOCK_CORE_VECTOR,
  PTO_BLOCK_CORE_CUBE,
  PTO_BLOCK_CORE_NONE = -1
} PtoBlockCore;
PtoBlockCore pto_block_kernel_core(const PtoOp *kernel);

/* A GM region a launch reads or writes (attributes `reads`, `writes`):
 * operand #`operand` of the launch (a tensor), the window at `offsets`
 * with `sizes`; where offset_operand[d] >= 0 the offset of dim d is that
 * launch operand's value (an index) plus offsets[d]. */
typedef struct PtoBlockRegion {
  unsigned operand;
  unsigned rank;
  int64_t offsets[8];
  int64_t sizes[8];
  int64_t offset_operand[8];
} PtoBlockRegion;
/* Number of regions in the launch's `reads` (writes = false) or `writes`
 * attribute; region i is read into *out (false if malformed). */
unsigned pto_block_launch_num_regions(const PtoOp *launch, bool writes);
bool pto_block_launch_region(const PtoOp *launch, bool writes, unsigned i,
                             PtoBlockRegion *out);
/* The kernel a launch refers to (a block.kernel, or the pto.kernel it was
 * lowered to), or NULL. */
PtoOp *pto_block_launch_kernel(PtoOp *launch);

#ifdef __cplusplus
}
#endif
#endif
