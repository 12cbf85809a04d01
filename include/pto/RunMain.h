/* The pto-run driver as a library entry point: parse a .pto file, apply an
 * optional pass pipeline, run one function through the reference
 * interpreter on .npy, literal or random inputs, print a summary of each
 * output, write outputs as .npy and compare them with expected files.
 * docs/tools/pto-run.md describes every option. */
#ifndef PTO_RUNMAIN_H
#define PTO_RUNMAIN_H

#include "pto/Interp.h"
#include "pto/OptMain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called on the interpreter before the run, to add handlers for the ops
 * of extra dialects. */
typedef void (*PtoInterpRegisterFn)(PtoInterp *I);

/* Runs `pto-run` with the given arguments; returns the exit code (0
 * success, 1 any error or a mismatch). Never exits. */
int pto_run_main(int argc, char **argv, const char *tool,
                 PtoRegisterFn register_fn, PtoInterpRegisterFn interp_fn);

#ifdef __cplusplus
}
#endif
#endif
