/* What the platform library's files share: the descriptions and the schema
 * embedded at build time (PlatformData.c, generated from platforms/). */
#ifndef PTO_TARGET_PLATFORM_INTERNAL_H
#define PTO_TARGET_PLATFORM_INTERNAL_H

#include "pto/Platform.h"

typedef struct PtoPlatformBuiltin {
  const char *name;
  const char *xml;
} PtoPlatformBuiltin;

extern const PtoPlatformBuiltin pto_platform_builtins[];
extern const unsigned pto_platform_num_builtins;
extern const char *const pto_platform_schema_text;

#endif
