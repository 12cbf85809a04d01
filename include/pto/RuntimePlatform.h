/* The runtime's machine from a platform description: fills the runtime's
 * plain PtoRtPlatform from a loaded PtoPlatform, so that the runtime (which
 * parses nothing) simulates the machine an XML description names. */
#ifndef PTO_RUNTIMEPLATFORM_H
#define PTO_RUNTIMEPLATFORM_H

#include "pto/Platform.h"
#include "pto/Runtime.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's view of `in`: its core counts (cube -> AIC, vector -> AIV,
 * scheduler -> AICPU), clock, GM bandwidth (aggregate per cycle, the
 * efficiency, one core's read bandwidth), the f16 cube fractal's FLOPs per
 * cycle (the first fractal's when there is no f16 one) and the scheduler's
 * costs and threads. */
void pto_rt_platform_convert(PtoRtPlatform *out, const PtoPlatform *in);

/* pto_platform_load(`spec`) then pto_rt_platform_convert: NULL or "" is the
 * default platform, a name a built-in description, else a file. Returns
 * false and fills *err (if non-NULL) when the description cannot be read
 * or is invalid; `out` is then untouched. */
bool pto_rt_platform_load(PtoRtPlatform *out, const char *spec,
                          PtoPlatformError *err);

#ifdef __cplusplus
}
#endif

#endif /* PTO_RUNTIMEPLATFORM_H */
