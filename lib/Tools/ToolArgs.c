/* Command-line helpers shared by the tool drivers (pto-opt, pto-run). */
#include "Tools/ToolsInternal.h"

#include "Support/File.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pto_tool_usage_error(const char *tool, const char *fmt, const char *arg) {
  fprintf(stderr, "%s: ", tool);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s: run '%s --help' for usage\n", tool, tool);
  return 1;
}

bool pto_tool_flag(const char *a, const char *name, const char **value) {
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return false;
  if (a[n] == 0) {
    *value = NULL;
    return true;
  }
  if (a[n] != '=') return false;
  *value = a + n + 1;
  return true;
}

int pto_tool_bool_value(const char *v) {
  if (!v || strcmp(v, "true") == 0 || strcmp(v, "1") == 0) return 1;
  if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0) return 0;
  return -1;
}

bool pto_tool_size_value(const char *v, size_t *out) {
  char *end;
  if (!*v || *v == '-') return false;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  if (*end || errno || n == 0 || n > SIZE_MAX) return false;
  *out = (size_t)n;
  return true;
}

int pto_tool_finish_stdout(const char *tool) {
  int err = pto_stream_finish(stdout);
  if (!err) return 0;
  fprintf(stderr, "%s: could not write to standard output: %s\n", tool,
          strerror(err));
  return 1;
}
