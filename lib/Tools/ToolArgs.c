/* Command-line helpers shared by the tool drivers (pto-opt, pto-run, pto-translate): the
 * table-driven parser and --help, and value checks. */
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

int pto_tool_max_input_value(const char *tool, const char *v, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long n = *v && *v != '-' ? strtoull(v, &end, 10) : 0;
  if (!n || *end || errno || n > SIZE_MAX)
    return pto_tool_usage_error(tool, "invalid --max-input-bytes '%s': "
                                      "expected a positive number of bytes", v);
  *out = (size_t)n;
  return 0;
}

int pto_tool_platform_value(const char *tool, const char *v, PtoPlatform *out) {
  PtoPlatformError err;
  if (pto_platform_load(out, v, &err)) return 0;
  char msg[1024];
  pto_platform_error_format(&err, msg, sizeof msg);
  return pto_tool_usage_error(tool, "%s", msg);
}

int pto_tool_write_stdout(const char *tool, const char *data, size_t len) {
  errno = 0;
  if (fwrite(data, 1, len, stdout) == len) return 0;
  /* A write that does not fit the stream's buffer goes straight to the
   * file: its errno is known only now, and the stream has nothing left to
   * flush when pto_tool_finish_stdout checks it. */
  fprintf(stderr, "%s: could not write to standard output: %s\n", tool,
          strerror(errno ? errno : EIO));
  clearerr(stdout);
  return 1;
}

int pto_tool_finish_stdout(const char *tool) {
  int err = pto_stream_finish(stdout);
  if (!err) return 0;
  fprintf(stderr, "%s: could not write to standard output: %s\n", tool,
          strerror(err));
  return 1;
}

/* ------------------------------------------------------------------ */
/* Command lines from one table                                         */
/* ------------------------------------------------------------------ */

/* `a` is row `r` (by name or alias): *value is what follows '=' or NULL. */
/* mlir-opt takes `-split-input-file` for `--split-input-file`; so does
 * every `--long` spelling of the table. */
static bool is_single_dash_long(const char *a) {
  return a[0] == '-' && a[1] && a[1] != '-' && a[2];
}

static bool matches_name(const PtoToolArgKind kind, const char *name,
                         const char *a, const char **value) {
  if (!name) return false;
  if (is_single_dash_long(a) && name[0] == '-' && name[1] == '-') name++;
  if (kind == PTO_TOOL_ARG_FLAG) {
    *value = NULL;
    return strcmp(a, name) == 0;
  }
  return pto_tool_flag(a, name, value);
}

/* `a` is row `r` (by name or alias): *value is what follows '=' or NULL. */
static bool matches(const PtoToolArg *r, const char *a, const char **value) {
  if (r->kind == PTO_TOOL_ARG_SECTION || r->kind == PTO_TOOL_ARG_NOTE)
    return false;
  return matches_name(r->kind, r->name, a, value) ||
         matches_name(r->kind, r->alias, a, value);
}

int pto_tool_parse_args(const PtoToolCommandLine *cl, int argc, char **argv,
                        void *user) {
  const char *tool = cl->tool;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    const PtoToolArg *r = NULL;
    for (unsigned k = 0; k < cl->num_args && !r; k++)
      if (matches(&cl->args[k], a, &v)) r = &cl->args[k];
    if (!r) {
      int rc;
      if (((a[0] == '-' && a[1] == '-' && a[2]) || is_single_dash_long(a)) &&
          cl->unknown)
        rc = cl->unknown(user, a);
      else if (a[0] == '-' && a[1] != 0)
        rc = pto_tool_usage_error(tool, "unknown option '%s'", a);
      else
        rc = cl->positional(user, a);
      if (rc) return rc;
      continue;
    }
    if (r->id == PTO_TOOL_ARG_HELP) {
      pto_tool_print_help(cl, user, stdout);
      return -1;
    }
    if (r->id == PTO_TOOL_ARG_VERSION) {
      printf("%s (PTO) %s\n", tool, PTO_VERSION_STRING);
      return -1;
    }
    switch (r->kind) {
    case PTO_TOOL_ARG_BOOL: {
      int b = pto_tool_bool_value(v);
      if (b < 0)
        return pto_tool_usage_error(tool, "invalid value in '%s': expected "
                                          "true or false", a);
      v = b ? "true" : "false";
      break;
    }
    case PTO_TOOL_ARG_VALUE:
      if (!v) {
        if (i + 1 >= argc)
          return pto_tool_usage_error(tool, "option '%s' needs a value", a);
        v = argv[++i];
      }
      break;
    default: break;
    }
    int rc = cl->option(user, r->id, a, v);
    if (rc) return rc;
  }
  return 0;
}

void pto_tool_print_help(const PtoToolCommandLine *cl, void *user, FILE *out) {
  enum { COLUMN = 31 };
  cl->header(cl->tool, out);
  for (unsigned k = 0; k < cl->num_args; k++) {
    const PtoToolArg *r = &cl->args[k];
    if (r->kind == PTO_TOOL_ARG_SECTION) {
      fprintf(out, "%s%s:\n", k ? "\n" : "", r->name);
      continue;
    }
    char syn[128];
    if (r->syntax) snprintf(syn, sizeof syn, "%s", r->syntax);
    else if (r->alias) snprintf(syn, sizeof syn, "%s, %s", r->name, r->alias);
    else snprintf(syn, sizeof syn, "%s", r->name);
    int n = fprintf(out, "  %s", syn);
    const char *h = r->help ? r->help : "";
    bool first = true;
    do {
      const char *nl = strchr(h, '\n');
      int len = nl ? (int)(nl - h) : (int)strlen(h);
      if (!first || n > COLUMN) {
        fputc('\n', out);
        n = 0;
      }
      fprintf(out, "%*s%.*s", COLUMN + 1 - n, "", len, h);
      first = false;
      h = nl ? nl + 1 : NULL;
    } while (h);
    fputc('\n', out);
  }
  if (cl->footer) {
    fputc('\n', out);
    cl->footer(user, out);
  }
}
