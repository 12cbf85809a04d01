/* What the passes over PTO kernels (memory-plan, insert-sync,
 * pto-verify-hazards) share: a kernel's body as an indexed list of
 * instructions, the platform and pipe options they read, and the body
 * turned into PipeSync.h's model. */
#ifndef PTO_TRANSFORMS_PTOKERNEL_H
#define PTO_TRANSFORMS_PTOKERNEL_H

#include "Support/Hash.h"
#include "Transforms/PipeSync.h"
#include "pto/Pass.h"
#include "pto/Dialect/PTO.h"
#include "pto/Platform.h"

/* The ops of a kernel's body in order, and each op's index. */
typedef struct PtoPtoBody {
  PtoOp **ops;
  uint32_t num_ops;
  PtoPtrMap index; /* op -> index + 1 */
} PtoPtoBody;

/* Fails (with an error naming `pass`) when the body holds an op with
 * regions: the passes plan straight-line kernels. */
PtoResult pto_pto_body_collect(PtoOp *kernel, const char *pass,
                               PtoPtoBody *out);
void pto_pto_body_release(PtoPtoBody *b);
/* The index of the last op of the body that uses v; 0 when none does. */
uint32_t pto_pto_body_last_use(const PtoPtoBody *b, const PtoValue *v);

/* The state of the passes: the platform (option `platform`) and, for the
 * passes with option `unordered-pipes`, the pipes named there. */
typedef struct PtoPtoPassState {
  PtoPlatform platform;
  uint32_t unordered_pipes;
} PtoPtoPassState;
void *pto_pto_pass_state_create(PtoPass *pass);
/* Checks those options where the pipeline names the pass. */
PtoResult pto_pto_pass_check_options(PtoPass *pass, PtoLoc *loc);
#define PTO_PTO_PLATFORM_OPTION(what)                                       \
  {"platform", PTO_OPT_STRING, PTO_PLATFORM_DEFAULT,                        \
   "The machine, a built-in name (a2a3, a3) or a description file: " what, \
   0, 0, NULL}
/* The PtoPassDef fields every pass over PTO kernels shares: it runs on
 * each pto.kernel with the `options` and `statistics` tables of its file
 * and a PtoPtoPassState. */
#define PTO_PTO_KERNEL_PASS_FIELDS(run_fn)                                  \
  .anchor = "pto.kernel", .options = options,                               \
  .num_options = PTO_ARRAY_SIZE(options), .statistics = statistics,         \
  .num_statistics = PTO_ARRAY_SIZE(statistics), .run = (run_fn),            \
  .check_options = pto_pto_pass_check_options,                              \
  .create_state = pto_pto_pass_state_create, .destroy_state = pto_free
#define PTO_PTO_UNORDERED_PIPES_OPTION                                      \
  {"unordered-pipes", PTO_OPT_STRING, "",                                   \
   "Pipes (comma-separated) whose instructions may overlap each other; "    \
   "a dependence within one of them needs a pipe_barrier",                  \
   0, 0, NULL}

/* A kernel in the sync model: one PtoSyncInst per pipe instruction or
 * flag (ops[i] is its op), buffers keyed by memory space and GM tensors
 * by the kernel argument. Fails with an error (naming `pass`) at an op
 * with regions, or at the first tile that has no offset yet (`pass` needs
 * memory-plan first). */
typedef struct PtoPtoSyncKernel {
  PtoSyncInst *insts;
  PtoOp **ops;
  uint32_t num;
  PtoSyncAccess *acc; /* storage of the instructions' accesses */
  PtoSyncModel model;
} PtoPtoSyncKernel;
PtoResult pto_pto_sync_build(PtoOp *kernel, const char *pass,
                             const PtoPtoPassState *st, PtoPtoSyncKernel *out);
void pto_pto_sync_release(PtoPtoSyncKernel *k);
/* The cost model's timeline of one planned, synchronised kernel on
 * st->platform (lib/Analysis/pto-kernel-cost.c); errors name `pass`. */
struct PtoPipeTimes;
PtoResult pto_pto_kernel_cost(PtoOp *kernel, const char *pass,
                              const PtoPtoPassState *st,
                              struct PtoPipeTimes *out);
/* New detached pto.set_flag / pto.wait_flag and pto.pipe_barrier ops. */
PtoOp *pto_pto_build_flag(PtoContext *ctx, PtoLoc *loc, bool set, PtoPipe src,
                          PtoPipe dst, unsigned event);
PtoOp *pto_pto_build_barrier(PtoContext *ctx, PtoLoc *loc, PtoPipe pipe);
/* Names a sync key in messages: "vec", "mat", ... or "GM". */
const char *pto_pto_sync_key_name(uint32_t key);

#endif
