/* The pto-translate driver as a library entry point (tools/pto-translate). */
#ifndef PTO_TRANSLATEMAIN_H
#define PTO_TRANSLATEMAIN_H

#include "pto/OptMain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `pto-translate` with the given arguments; returns the process exit
 * code (0 success, 1 any error). Never exits. */
int pto_translate_main(int argc, char **argv, const char *tool_name,
                       PtoRegisterFn register_fn);

#ifdef __cplusplus
}
#endif
#endif
