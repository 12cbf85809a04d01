/* pto-run's options and the input/output halves of the driver
 * (RunMain.c parses options and runs; RunIO.c makes the inputs and
 * reports, writes and compares the outputs). */
#ifndef PTO_TOOLS_RUNINTERNAL_H
#define PTO_TOOLS_RUNINTERNAL_H

#include "pto/Interp.h"
#include "pto/RunMain.h"

#include "Support/Vec.h"

/* --shape A=DxD...: the full shape of argument A. */
typedef struct RunShape {
  unsigned arg, rank;
  int64_t dims[PTO_MAX_RANK];
} RunShape;

/* --dim A.D=N (arg and dim >= 0) or --dim N (arg = -1: every `?`). */
typedef struct RunDim {
  int arg, dim;
  int64_t size;
} RunDim;

/* --input [A=]VALUE: argument A's value (a file or a literal). */
typedef struct RunInput {
  unsigned arg;
  const char *value;
} RunInput;

typedef struct RunOptions {
  const char *tool;
  const char *file;
  size_t max_input_bytes;
  const char *entry;
  PTO_VEC(RunInput) inputs;
  bool have_seed;
  uint64_t seed;
  PTO_VEC(RunShape) shapes;
  PTO_VEC(RunDim) dims;
  const char *out_dir;
  PTO_VEC(const char *) expects;
  double rtol, atol;
  bool have_rtol, have_atol;
  const char *pass_pipeline;
  bool stats, quiet;
  bool print_ir_after_failure; /* --print-ir-after-failure */
  /* --check-levels, and its testing knob --perturb-tile-op (0: off) */
  bool check_levels;
  int64_t perturb;
  PtoInterpOptions interp;
  /* --platform, --backend (0: the interpreter; else a PtoRtBackend),
   * --trace, --svg, --report */
  const char *platform;
  int backend;
  const char *trace, *svg, *report;
  int64_t repeat; /* --repeat: runs of the built graph (0: one) */
  const char *deps; /* --deps: the dependency dump */
  bool gm_check;    /* --gm-check */
} RunOptions;

/* Prints "<tool>: error: <message>" to stderr; returns 1. */
int run_error(const RunOptions *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Builds one value per argument of `func` from --input, --random, --shape
 * and --dim; creates --out-dir and writes generated tensors there as
 * in<i>.npy. On error
 * reports and returns false (the values made so far are released). */
bool run_make_inputs(const RunOptions *o, PtoContext *ctx, PtoOp *func,
                     PtoInterpValue *args);

/* Prints the summary of each output, writes out<i>.npy to --out-dir and
 * compares with --expect files. Returns the exit code. */
int run_report_outputs(const RunOptions *o, PtoContext *ctx,
                       const PtoInterpValue *res, unsigned n);

/* Prints the summary of tensor argument `arg` after a run that wrote it
 * in place ("arg<i> (written in place): ...") and writes arg<i>.npy to
 * --out-dir. Returns the exit code. */
int run_report_written_arg(const RunOptions *o, PtoContext *ctx, unsigned arg,
                           const PtoNdArray *a);

/* The tolerance for a dtype: --rtol / --atol, else the dtype's default. */
void run_tolerance(const RunOptions *o, PtoDType dt, double *rtol,
                   double *atol);

/* The function to run (--entry, or the first public one with a body), or
 * NULL after reporting. */
PtoOp *run_find_entry(const RunOptions *o, PtoOp *module);
/* Runs a pass pipeline on the module; false after reporting. */
bool run_apply_pipeline(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                        const char *pipeline);

/* --check-levels (RunCheck.c, over include/pto/LevelCheck.h): runs the
 * Tensor level, the Tensor level after the Tensor-level part of
 * --pass-pipeline, and the Tile level on the same inputs; reports per
 * output and, on a mismatch, the first tile op whose value differs from
 * the Tensor-level value it came from. Returns the exit code. */
int run_check_levels(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                     PtoInterpRegisterFn interp_fn);

/* --backend host|sim|both (RunBackend.c): lowers the module to PTO (with
 * --pass-pipeline, or pto-lower-to-pto when it has no kernels), compiles
 * it and runs its task graph on the runtime. Returns the exit code. */
int run_backend(const RunOptions *o, PtoContext *ctx, PtoOp *module);
/* --check-levels with --backend host|both: a copy of `module` (unchanged)
 * through the compiled path (--pass-pipeline when it reaches PTO, else
 * pto-lower-to-pto) on `args`, each result compared with `ref` (the
 * reference level's) and reported as one more level. Exit code. */
int run_backend_compare(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                        const PtoInterpValue *args, unsigned nargs,
                        const PtoInterpValue *ref, unsigned nref);

#endif
