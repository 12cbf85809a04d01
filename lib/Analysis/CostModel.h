/* The cost model of PTO kernels: how long each pipe of a core is busy and
 * when the kernel ends, from each instruction's cycles and the flags
 * between pipes. Knows no IR: the kernel is PipeSync.h's instruction list. */
#ifndef PTO_ANALYSIS_COSTMODEL_H
#define PTO_ANALYSIS_COSTMODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "Transforms/PipeSync.h"

typedef struct PtoPipeTimes {
  uint64_t busy[PTO_SYNC_MAX_PIPES];   /* cycles of work on each pipe */
  uint64_t finish[PTO_SYNC_MAX_PIPES]; /* when its last instruction ends */
  uint64_t total;                      /* when the last pipe ends */
  unsigned bound;                      /* the pipe with the most work */
} PtoPipeTimes;

/* Times a kernel from cycle 0: each pipe runs its instructions in program
 * order, one after another, instruction i taking cycles[i]; different
 * pipes run in parallel; a set_flag fires when its source pipe has
 * finished everything before it, and a wait_flag holds its pipe until the
 * oldest pending matching set_flag has fired. Flags and barriers take no
 * time. Returns false with *bad set to a wait_flag that nothing sets (the
 * kernel would hang). */
bool pto_pipe_timeline(const PtoSyncInst *insts, const uint64_t *cycles,
                       uint32_t n, const PtoSyncModel *model,
                       PtoPipeTimes *out, uint32_t *bad);

#endif
