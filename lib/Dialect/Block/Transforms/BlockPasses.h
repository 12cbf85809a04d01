/* Private interface of the passes on Block IR (lib/Dialect/Block/Transforms):
 * their definitions, the structural kernel comparison of subgraph-dedup
 * and the launch merging that l1-reuse and nbuffer-merge share. */
#ifndef PTO_DIALECT_BLOCK_TRANSFORMS_BLOCKPASSES_H
#define PTO_DIALECT_BLOCK_TRANSFORMS_BLOCKPASSES_H

#include "pto/Dialect/Block.h"
#include "pto/Pass.h"

extern const PtoPassDef pto_subgraph_dedup_pass;
extern const PtoPassDef pto_l1_reuse_pass;
extern const PtoPassDef pto_nbuffer_merge_pass;

/* A hash of a kernel's structure: equal for kernels that differ only in
 * SSA names, their symbol name and locations. */
uint64_t pto_block_kernel_hash(PtoOp *kernel);
/* Whether two kernels are identical up to those names. */
bool pto_block_kernels_equal(PtoOp *a, PtoOp *b);

/* What distinguishes the two merging passes. */
typedef struct PtoMergeSpec {
  PtoBlockCore core;   /* kernels of this core type only */
  bool shared_read;    /* launches must read one GM window in common */
  const char *setting; /* PyPTO option in `pypto.pass_options` */
  const char *suffix;  /* merged kernel @k becomes @k_<suffix><N> */
  const char *limit;   /* PyPTO option bounding the factor */
  bool limit_is_bytes; /* GM bytes one merged launch reads, else the
                          launches of a run that stay at least */
} PtoMergeSpec;

/* The option both merging passes take (`factor`, at most this). */
#define PTO_BLOCK_MERGE_MAX_FACTOR 65536 /* LaunchMerge.c's messages say it */
#define PTO_BLOCK_MERGE_NUM_OPTIONS 1
extern const PtoPassOptionDef
    pto_block_merge_options[PTO_BLOCK_MERGE_NUM_OPTIONS];

/* The statistics both merging passes keep. */
#define PTO_BLOCK_MERGE_NUM_STATISTICS 5
extern const PtoPassStatDef
    pto_block_merge_statistics[PTO_BLOCK_MERGE_NUM_STATISTICS];

/* Merges runs of launches of one kernel, `factor` at a time (the pass
 * option when given, else the PyPTO setting recorded on the IR), into
 * launches of new kernels that run the originals in order; fails after a
 * located error on a malformed setting. */
PtoResult pto_block_merge_launches(PtoPass *pass, PtoOp *module,
                                   const PtoMergeSpec *spec);

#endif
