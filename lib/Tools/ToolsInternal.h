/* Helpers shared by the tool drivers in lib/Tools. */
#ifndef PTO_TOOLS_INTERNAL_H
#define PTO_TOOLS_INTERNAL_H

#include "pto/Pass.h"

#include "Support/Str.h"

/* `--list-passes` text: every pass with its options, then pipelines. */
void pto_tool_list_passes(PtoContext *ctx, PtoStr *out);
/* docs/passes.md, generated from the registry. */
void pto_tool_passes_markdown(PtoContext *ctx, const char *tool, PtoStr *out);

#endif
