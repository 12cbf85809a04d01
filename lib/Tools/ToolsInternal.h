/* Helpers shared by the tool drivers in lib/Tools. */
#ifndef PTO_TOOLS_INTERNAL_H
#define PTO_TOOLS_INTERNAL_H

#include "pto/Pass.h"

#include "Support/Str.h"

/* `--list-passes` text: every pass with its options, then pipelines. */
void pto_tool_list_passes(PtoContext *ctx, PtoStr *out);
/* docs/passes.md, generated from the registry. */
void pto_tool_passes_markdown(PtoContext *ctx, const char *tool, PtoStr *out);

/* Prints "<tool>: <fmt with arg>" and the --help hint to stderr; returns
 * the exit code 1. */
int pto_tool_usage_error(const char *tool, const char *fmt, const char *arg);
/* `--name` or `--name=value`: true if `a` is that flag; *value is the text
 * after '=' or NULL. */
bool pto_tool_flag(const char *a, const char *name, const char **value);
/* Flushes stdout and, if anything written to it failed (a full disk,
 * /dev/full, a closed descriptor), says so on stderr; returns the exit
 * code 1 then, else 0. */
int pto_tool_finish_stdout(const char *tool);
/* A positive byte count (--max-input-bytes); false if `v` is not one. */
bool pto_tool_size_value(const char *v, size_t *out);
/* A boolean flag value: absent, true, 1 -> 1; false, 0 -> 0; else -1. */
int pto_tool_bool_value(const char *v);

#endif
