/* libFuzzer target for pto-run's whole path, through the entry point the
 * tool uses (pto_run_main): option parsing, parsing and verifying the
 * file, the pass pipeline, generated inputs, the interpreter, result
 * summaries and the per-level check. The input is a .pto file; a first
 * line `// pto-run: OPTIONS` adds options (those that read or write files
 * are dropped). Each input runs twice, on generated inputs with small
 * bounds: as given, and with --check-levels. The exit code must be 0 or 1.
 * Inputs whose tensors or constants are large are skipped: running them is
 * valid and merely slow. Run with -close_fd_mask=3 (scripts/fuzz.sh does)
 * to silence the tool's own output. */
#define _GNU_SOURCE
#include "FuzzSupport.h"

#include "pto/Dialects.h"
#include "pto/RunMain.h"
#include "pto/Transforms.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { MAX_NUMEL = 1024, MAX_INT = 64, MAX_WORDS = 16, MAX_LINE = 256 };

static void register_all(PtoContext *ctx) {
  pto_register_all_dialects(ctx);
  pto_register_all_passes(ctx);
}

/* Options that read or write files, or that lift the bounds set below. */
static bool word_allowed(const char *w) {
  static const char *const banned[] = {"--out-dir", "--expect",
                                       "--max-tensor-bytes", "--max-call-depth",
                                       "--help"};
  for (unsigned i = 0; i < sizeof banned / sizeof banned[0]; i++)
    if (strncmp(w, banned[i], strlen(banned[i])) == 0) return false;
  return !strchr(w, '/') && !strstr(w, ".npy") && strcmp(w, "-") != 0;
}

/* Splits the `// pto-run:` line into words (in `buf`) appended to argv. */
static unsigned option_words(const uint8_t *data, size_t size, char *buf,
                             char **argv) {
  static const char prefix[] = "// pto-run:";
  size_t plen = sizeof prefix - 1;
  if (size < plen || memcmp(data, prefix, plen) != 0) return 0;
  size_t n = 0;
  while (plen + n < size && n < MAX_LINE - 1 && data[plen + n] != '\n') n++;
  memcpy(buf, data + plen, n);
  buf[n] = 0;
  unsigned argc = 0;
  for (char *w = strtok(buf, " \t\r"); w && argc < MAX_WORDS;
       w = strtok(NULL, " \t\r"))
    if (word_allowed(w)) argv[argc++] = w;
  return argc;
}

/* Whether the module is worth running: it parses, verifies and is small.
 * The tool parses it again itself. */
static bool worth_running(const uint8_t *data, size_t size) {
  PtoContext *ctx = fuzz_context_create(true);
  PtoParseOptions po = {"fuzz", 1};
  PtoOp *m = pto_parse_module(ctx, (const char *)data, size, &po);
  bool ok = m && pto_op_verify(m) == PTO_SUCCESS &&
            fuzz_module_is_small(m, MAX_NUMEL, 3, MAX_INT);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!worth_running(data, size)) return 0;
  int fd = memfd_create("run_fuzz.pto", 0);
  if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
    perror("run_fuzz: memfd");
    abort();
  }
  char path[64], line[MAX_LINE];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  char *argv[8 + MAX_WORDS + 2] = {
      "pto-run", path, "--random", "0", "--dim", "3",
      "--max-tensor-bytes=65536", "--max-call-depth=16"};
  unsigned argc = 8;
  argc += option_words(data, size, line, argv + argc);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) argv[argc++] = "--check-levels";
    argv[argc] = NULL;
    int rc = pto_run_main((int)argc, argv, "pto-run", register_all, NULL);
    if (rc != 0 && rc != 1) {
      fprintf(stderr, "run_fuzz: pto_run_main returned %d\n", rc);
      abort();
    }
  }
  close(fd);
  return 0;
}
