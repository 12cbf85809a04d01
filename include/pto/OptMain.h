/* The pto-opt driver as a library entry point, so that tools with extra
 * dialects or passes (such as the test tool) share one implementation. */
#ifndef PTO_OPTMAIN_H
#define PTO_OPTMAIN_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called on every context the driver creates, to register dialects (and,
 * through Pass.h, passes). */
typedef void (*PtoRegisterFn)(PtoContext *ctx);

/* Runs `pto-opt` with the given arguments; returns the process exit code
 * (0 success, 1 any error). Never exits. */
int pto_opt_main(int argc, char **argv, const char *tool_name,
                 PtoRegisterFn register_fn);

/* Reads a whole file ("-" is stdin) of at most `max` bytes (a larger
 * regular file is refused before reading, a stream once it passes the
 * limit). Returns NULL and sets *err (a static string) on failure; the
 * buffer is freed with pto_free. */
char *pto_read_file(const char *path, size_t max, size_t *len,
                    const char **err);

/* The default input size limit of the tools (--max-input-bytes). */
#define PTO_DEFAULT_MAX_INPUT_BYTES ((size_t)256 << 20)

#ifdef __cplusplus
}
#endif
#endif
