/* The per-stage precision check (the seeds' per-pass precision tool), as a
 * library: the same arguments run through the Tensor level, the Tensor
 * level after the passes that precede tile-expand, and the Tile level; the
 * outputs of each are compared with the Tensor level's, and every tile that
 * tile-expand traced to a Tensor-level result (tile.origin) is compared
 * with the window of that result it stands for, so that a difference is
 * pinned to the first tile op that produced it. pto-run --check-levels and
 * the embedding API (check_stages) are built on it. */
#ifndef PTO_LEVELCHECK_H
#define PTO_LEVELCHECK_H

#include "pto/Interp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoLevelCheck PtoLevelCheck;

/* The stages, in the order they run. */
typedef enum PtoLevelStage {
  PTO_LEVEL_TENSOR,      /* the module as given: the reference */
  PTO_LEVEL_TENSOR_PRE,  /* after the passes before tile-expand (if any) */
  PTO_LEVEL_TILE,        /* after tile-expand and the passes after it */
  PTO_LEVEL_NUM_STAGES
} PtoLevelStage;

/* Prepares the stages of `module` (borrowed; not changed) for `pipeline`
 * (pass pipeline text; NULL: tile-expand with its defaults), which is split
 * at its first top-level tile-expand (appended when there is none) and
 * given provenance. rtol/atol < 0 take each dtype's default tolerance
 * (pto_default_tolerance). NULL after reporting a bad pipeline or a
 * failing pass. */
PtoLevelCheck *pto_level_check_create(PtoContext *ctx, PtoOp *module,
                                      const char *pipeline, double rtol,
                                      double atol);
void pto_level_check_destroy(PtoLevelCheck *c);

/* The module of a stage (NULL for PTO_LEVEL_TENSOR_PRE when no pass
 * precedes tile-expand), and the pipeline text that made it ("" for the
 * reference). The modules are the checker's; a caller may change the Tile
 * level's before running (pto-run's --perturb-tile-op does). */
PtoOp *pto_level_check_module(PtoLevelCheck *c, PtoLevelStage s);
const char *pto_level_check_pipeline(PtoLevelCheck *c, PtoLevelStage s);

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
const PtoInterpValue *pto_level_check_outputs(PtoLevelCheck *c, PtoLevelStage s,
                                              unsigned *n);
/* Compares output `i` of stage `s` with the reference's. Returns whether it
 * matches; *r and the tolerance used are filled. A shape difference gives
 * false with r->numel = -1. */
bool pto_level_check_compare(PtoLevelCheck *c, PtoLevelStage s, unsigned i,
                             PtoCompareResult *r, double *rtol, double *atol);
/* Tiles compared in the last run, and how many of them differ. */
int64_t pto_level_check_tiles_checked(PtoLevelCheck *c);
int64_t pto_level_check_tiles_differing(PtoLevelCheck *c);
/* Reports the first tile that differs: an error at its tile op (a warning
 * when `outputs_ok`) with a note at the Tensor-level op it came from.
 * Nothing when no tile differs. */
void pto_level_check_report_tile(PtoLevelCheck *c, bool outputs_ok);

/* A run-time value as an array; a scalar is viewed in `buf` (8 bytes). */
PtoNdArray pto_interp_value_array(const PtoInterpValue *v, uint64_t *buf);

#ifdef __cplusplus
}
#endif
#endif
