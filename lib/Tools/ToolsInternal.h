/* Helpers shared by the tool drivers in lib/Tools. */
#ifndef PTO_TOOLS_INTERNAL_H
#define PTO_TOOLS_INTERNAL_H

#include "pto/Pass.h"
#include "pto/Platform.h"

#include "Support/Str.h"

#include <stdio.h>

/* `--list-passes` text: every pass with its options, then pipelines. */
void pto_tool_list_passes(PtoContext *ctx, PtoStr *out);
/* docs/passes.md, generated from the registry. */
void pto_tool_passes_markdown(PtoContext *ctx, const char *tool, PtoStr *out);

/* ---- command lines from one table ----
 * Each tool describes its options as rows (flag, value kind, help text);
 * pto_tool_parse_args parses argv by them and pto_tool_print_help prints
 * --help from them, so the two cannot drift apart. */

typedef enum PtoToolArgKind {
  PTO_TOOL_ARG_SECTION, /* not an option: a heading of --help */
  PTO_TOOL_ARG_FLAG,    /* `--name` */
  PTO_TOOL_ARG_BOOL,    /* `--name` (true) or `--name=true|false|1|0` */
  PTO_TOOL_ARG_VALUE,   /* `--name value` or `--name=value` */
  PTO_TOOL_ARG_EQ_VALUE, /* `--name=value` only; the handler checks that
                            there is one (NULL or empty otherwise) */
  PTO_TOOL_ARG_NOTE     /* not parsed: a line of --help for arguments the
                           tool's `unknown` handler takes */
} PtoToolArgKind;

/* Rows with these ids are handled by the parser itself. */
enum { PTO_TOOL_ARG_HELP = -1, PTO_TOOL_ARG_VERSION = -2 };

typedef struct PtoToolArg {
  PtoToolArgKind kind;
  const char *name;   /* `--input`; a SECTION's heading; NULL for a NOTE */
  const char *alias;  /* another spelling (`-h`, `--mlir-timing`) or NULL */
  const char *syntax; /* as --help shows it (`--input [<arg>=]<value>`);
                         NULL: the name */
  const char *help;   /* lines separated by '\n' */
  int id;             /* passed to the tool's option handler */
} PtoToolArg;

typedef struct PtoToolCommandLine {
  const char *tool;
  /* Printed by --help before the options (overview and usage). */
  void (*header)(const char *tool, FILE *out);
  const PtoToolArg *args;
  unsigned num_args;
  /* Called per option with its row's id and its value (NULL for a flag;
   * "true" or "false" for a bool). Returns 0, or 1 after a usage error. */
  int (*option)(void *user, int id, const char *arg, const char *value);
  /* A word that is not an option (the input file). */
  int (*positional)(void *user, const char *arg);
  /* A `--word` the table does not have (pto-opt's pass flags); NULL: an
   * unknown option. Returns 0 if it took it, else 1 after an error. */
  int (*unknown)(void *user, const char *arg);
  /* Printed by --help after the options (may be NULL). */
  void (*footer)(void *user, FILE *out);
} PtoToolCommandLine;

/* Parses argv[1..]. Returns 0, 1 after a usage error (reported), or -1
 * when --help or --version was printed and the tool should exit with 0. */
int pto_tool_parse_args(const PtoToolCommandLine *cl, int argc, char **argv,
                        void *user);
void pto_tool_print_help(const PtoToolCommandLine *cl, void *user, FILE *out);

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
/* Writes a whole text to stdout; on failure says why on stderr (once) and
 * returns 1. */
int pto_tool_write_stdout(const char *tool, const char *data, size_t len);
/* --max-input-bytes's value, a positive byte count: 0, or the exit code 1
 * after a usage error. */
int pto_tool_max_input_value(const char *tool, const char *v, size_t *out);
/* --platform's value, a built-in description's name or a file: loads it
 * into *out; 0, or the exit code 1 after reporting where the description
 * is wrong. */
int pto_tool_platform_value(const char *tool, const char *v, PtoPlatform *out);

/* Rows every tool's table has. */
#define PTO_TOOL_ARG_MAX_INPUT_BYTES_ROW(id)                                    \
  {PTO_TOOL_ARG_VALUE, "--max-input-bytes", NULL, "--max-input-bytes <n>",     \
   "Refuse a program file larger than n bytes\n(default 256 MiB)", (id)}
#define PTO_TOOL_ARG_HELP_VERSION_ROWS                                          \
  {PTO_TOOL_ARG_FLAG, "--help", "-h", NULL, "Print this help",                 \
   PTO_TOOL_ARG_HELP},                                                          \
  {PTO_TOOL_ARG_FLAG, "--version", NULL, NULL, "Print the version",            \
   PTO_TOOL_ARG_VERSION}
/* A boolean flag value: absent, true, 1 -> 1; false, 0 -> 0; else -1. */
int pto_tool_bool_value(const char *v);

#endif
