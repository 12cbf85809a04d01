/* Walks every registered op of every built-in dialect and checks that
 * nothing about it was forgotten: a line in its dialect's reference page
 * (docs/dialects/<dialect>.md), a use in its dialect's round-trip test
 * (test/Dialect/<Dialect>/ops.pto, run through the custom and the generic
 * form), and an interpreter handler. The Python side of the check (every
 * pypto op reachable from python/pypto) is test/Python/test_op_list.py. */
#include "Test.h"
#include "pto/DialectImplementation.h"
#include "pto/Dialects.h"
#include "pto/Interp.h"

#include <ctype.h>

#ifndef PTO_SOURCE_DIR
#error "PTO_SOURCE_DIR must name the source tree"
#endif

/* Ops the interpreter runs as structure rather than through a handler:
 * containers and terminators the run loop itself walks. */
static const char *const structural[] = {
    "builtin.module", "func.func", "func.return", "scf.yield",
    "block.kernel", "block.return", "pto.kernel", "pto.return", NULL,
};

/* Where each dialect's round-trip test lives. */
static const struct {
  const char *dialect, *dir;
} test_dirs[] = {
    {"arith", "Arith"}, {"func", "Func"}, {"scf", "SCF"},
    {"pypto", "Pypto"}, {"tile", "Tile"}, {"block", "Block"},
    {"pto", "PTO"}, {"experimental", "Experimental"},
};

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

static bool is_word(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.'; }

/* `word` appears as a whole word (letters, digits, '_', '.') in `text`;
 * with `code`, only inside `backtick` spans. */
static bool has_word(const char *text, const char *word, bool code) {
  size_t n = strlen(word);
  bool in_code = false;
  for (const char *p = text; *p; p++) {
    if (*p == '`') {
      in_code = !in_code;
      continue;
    }
    if ((code && !in_code) || strncmp(p, word, n) != 0) continue;
    if ((p == text || !is_word(p[-1])) && !is_word(p[n])) return true;
  }
  return false;
}

static bool is_structural(const char *name) {
  for (unsigned i = 0; structural[i]; i++)
    if (strcmp(structural[i], name) == 0) return true;
  return false;
}

TEST(every_op_is_documented_tested_and_interpreted) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoInterp *I = pto_interp_create(ctx, NULL);
  unsigned nops = 0;
  for (unsigned d = 0; d < pto_ctx_num_dialects(ctx); d++) {
    const PtoDialectDef *dd = pto_ctx_dialect(ctx, d);
    if (strcmp(dd->name, "builtin") == 0) continue; /* the IR core's own */
    char path[512];
    snprintf(path, sizeof path, "%s/docs/dialects/%s.md", PTO_SOURCE_DIR, dd->name);
    char *doc = slurp(path);
    if (!doc) fprintf(stderr, "no reference page %s\n", path);
    CHECK(doc != NULL);
    char *ops = NULL;
    for (size_t k = 0; k < sizeof test_dirs / sizeof *test_dirs; k++)
      if (strcmp(test_dirs[k].dialect, dd->name) == 0) {
        snprintf(path, sizeof path, "%s/test/Dialect/%s/ops.pto", PTO_SOURCE_DIR,
                 test_dirs[k].dir);
        ops = slurp(path);
        /* ops on the 8-bit floats round-trip in ops-f8.pto: ops.pto's
         * generic form goes through MLIR 14, which has no such types */
        snprintf(path, sizeof path, "%s/test/Dialect/%s/ops-f8.pto", PTO_SOURCE_DIR,
                 test_dirs[k].dir);
        char *f8 = slurp(path);
        if (ops && f8) {
          size_t n = strlen(ops), m = strlen(f8);
          char *both = malloc(n + m + 1);
          memcpy(both, ops, n);
          memcpy(both + n, f8, m + 1);
          free(ops);
          ops = both;
        }
        free(f8);
      }
    if (!ops) fprintf(stderr, "no round-trip test for dialect %s\n", dd->name);
    CHECK(ops != NULL);
    for (unsigned i = 0; i < dd->num_ops; i++) {
      const char *name = dd->ops[i].name;
      const char *mnemonic = name + strlen(dd->name) + 1;
      nops++;
      if (doc && !has_word(doc, mnemonic, true) && !has_word(doc, name, true)) {
        fprintf(stderr, "%s: no entry in docs/dialects/%s.md\n", name, dd->name);
        CHECK(!"op without documentation");
      }
      if (ops && !has_word(ops, name, false)) {
        fprintf(stderr, "%s: not in the dialect's ops.pto round-trip test\n", name);
        CHECK(!"op without a round-trip test");
      }
      PtoOp *op = pto_op_create_simple(ctx, name, NULL, NULL, 0, NULL, 0, NULL, 0);
      if (!is_structural(name) && !pto_interp_has_handler(I, op)) {
        fprintf(stderr, "%s: the interpreter has no handler\n", name);
        CHECK(!"op without an interpreter handler");
      }
      pto_op_destroy(op);
    }
    free(doc);
    free(ops);
  }
  CHECK(nops > 150);
  pto_interp_destroy(I);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(every_op_is_documented_tested_and_interpreted))
