/* The per-stage precision check (the seeds' per-pass precision tool), as a
 * library, for any number of levels. A pass pipeline is cut into stages at
 * its lowerings (passes whose definition names the levels they join,
 * PtoPassDef.level_from/level_to): stage 0 is the module as given (the
 * reference), then the module after the passes before the first lowering
 * (when there are any), then one stage per lowering (the lowering and the
 * passes after it, up to the next lowering). Every stage runs the same
 * arguments; its outputs are compared with the reference's, and each value
 * a lowering traced to a value of the stage before (pto.origin,
 * pto/Origin.h) is compared with the window of that value it stands for,
 * so that a difference is pinned to the first op that produced it.
 * pto-run --check-levels and the embedding API (check_stages) are built on
 * it. */
#ifndef PTO_LEVELCHECK_H
#define PTO_LEVELCHECK_H

#include "pto/Interp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoLevelCheck PtoLevelCheck;

/* Prepares the stages of `module` (borrowed; not changed) for `pipeline`
 * (pass pipeline text). A pipeline without a lowering (or NULL) gets the
 * chain of registered lowerings appended, from the first level on, with
 * their defaults. Every lowering runs with provenance. rtol/atol < 0 take
 * the default tolerance of the lowest precision in the computation of each
 * compared value (pto_default_tolerance). NULL after reporting a bad
 * pipeline or a failing pass. */
PtoLevelCheck *pto_level_check_create(PtoContext *ctx, PtoOp *module,
                                      const char *pipeline, double rtol,
                                      double atol);
/* The same, with the lowerings of the default chain that declare a
 * `platform` option lowering for `platform` (a built-in name or a
 * description file; NULL: their default), as a compiled back end lowers
 * for the platform its kernels run on. A pipeline given with a lowering
 * is taken as it is. */
PtoLevelCheck *pto_level_check_create_for(PtoContext *ctx, PtoOp *module,
                                          const char *pipeline,
                                          const char *platform, double rtol,
                                          double atol);
void pto_level_check_destroy(PtoLevelCheck *c);

/* The stages, 0 being the reference. */
unsigned pto_level_check_num_stages(PtoLevelCheck *c);
/* With no pipeline given, the chain of registered lowerings goes as deep
 * as the program lowers: when a level after the first lowered one cannot
 * be reached (an op with no form there yet), the stages end before it
 * and this says which level and why ("PTO level not reached: FILE:L:C:
 * message"); NULL when every level was reached or a pipeline was given
 * (whose failures are errors). */
const char *pto_level_check_stopped(PtoLevelCheck *c);
/* The module of a stage (the checker's; a caller may change a later
 * stage's module before running, as pto-run's --perturb-tile-op does), the
 * pipeline text that made it from the stage before ("" for the reference),
 * the name of its level ("Tensor", "Tile", ...), and whether a lowering
 * made it (its traced values refer to the stage before). */
PtoOp *pto_level_check_module(PtoLevelCheck *c, unsigned stage);
const char *pto_level_check_pipeline(PtoLevelCheck *c, unsigned stage);
const char *pto_level_check_level(PtoLevelCheck *c, unsigned stage);
bool pto_level_check_lowered(PtoLevelCheck *c, unsigned stage);

/* Runs `func_name` of every stage on `args` (borrowed) with the
 * interpreters `new_interp` makes (NULL: pto_interp_create with default
 * options). Stage outputs are kept for pto_level_check_outputs. Fails on
 * run-time errors (reported by the interpreter); a numeric difference is
 * not a failure here. */
typedef PtoInterp *(*PtoLevelInterpFn)(PtoContext *ctx, void *user);
PtoResult pto_level_check_run(PtoLevelCheck *c, const char *func_name,
                              const PtoInterpValue *args, unsigned nargs,
                              PtoLevelInterpFn new_interp, void *user);

/* The outputs of a stage in the last run (NULL when it did not run). */
const PtoInterpValue *pto_level_check_outputs(PtoLevelCheck *c, unsigned stage,
                                              unsigned *n);
/* Compares output `i` of `stage` with the reference's. Returns whether it
 * matches; *r and the tolerance used are filled. A shape difference gives
 * false with r->numel = -1. */
bool pto_level_check_compare(PtoLevelCheck *c, unsigned stage, unsigned i,
                             PtoCompareResult *r, double *rtol, double *atol);
/* Traced values of `stage` compared in the last run, and how many of them
 * differ (0 for a stage no lowering made). */
int64_t pto_level_check_traced_checked(PtoLevelCheck *c, unsigned stage);
int64_t pto_level_check_traced_differing(PtoLevelCheck *c, unsigned stage);
/* Reports the first traced value of `stage` that differs: an error at its
 * op (a warning when `outputs_ok`) with a note at the op of the stage
 * before it came from. Nothing when none differs. */
void pto_level_check_report_traced(PtoLevelCheck *c, unsigned stage,
                                   bool outputs_ok);

/* A run-time value as an array; a scalar is viewed in `buf` (8 bytes). */
PtoNdArray pto_interp_value_array(const PtoInterpValue *v, uint64_t *buf);

#ifdef __cplusplus
}
#endif
#endif
