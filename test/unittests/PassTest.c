/* Unit tests of the pass API as a user outside the library sees it: a pass
 * with options and statistics registered through the C API, a dialect with
 * a fold hook and a pattern, pipelines, reports, and two contexts used from
 * two threads. */
#include "Test.h"
#include "pto/Pass.h"
#include "pto/DialectImplementation.h"
#include "pto/Transforms.h"

#include <pthread.h>

/* ---- a small dialect: ut.const, ut.add (folds), ut.twice (pattern) ---- */

/* ut.mark: folds "in place" the MLIR way, returning its own result, once
 * (it sets `done`); a second op kind returns its own result for one of two
 * results, which no replacement can honour. */
static PtoResult ut_fold_mark(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  (void)c;
  if (pto_op_attr(op, "done")) return PTO_FAILURE;
  pto_op_set_attr(op, "done", pto_attr_unit(pto_op_ctx(op)));
  r[0].value = pto_op_result(op, 0);
  return PTO_SUCCESS;
}

static PtoResult ut_fold_half(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  (void)c;
  r[0].value = pto_op_result(op, 0);
  r[1].value = pto_op_operand(op, 0);
  return PTO_SUCCESS;
}

static PtoResult ut_fold_add(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  if (!c[0] || !c[1]) return PTO_FAILURE;
  r[0].attr = pto_attr_int(pto_op_ctx(op), pto_attr_get_type(c[0]),
                           pto_attr_int_value(c[0]) + pto_attr_int_value(c[1]));
  return PTO_SUCCESS;
}

/* ut.twice(x) -> ut.add(x, x), built detached and inserted. */
static PtoResult twice_to_add(PtoOp *op, PtoRewriter *rw, void *user) {
  if (user) ++*(int *)user;
  PtoValue *x[2] = {pto_op_operand(op, 0), pto_op_operand(op, 0)};
  PtoType *t = pto_value_type(x[0]);
  PtoOp *add = pto_op_create_simple(pto_rewriter_ctx(rw), "ut.add",
                                    pto_op_loc(op), x, 2, &t, 1, NULL, 0);
  pto_rewriter_insert(rw, add);
  pto_rewriter_replace_op_with_op(rw, op, add);
  return PTO_SUCCESS;
}

static void ut_canon_twice(void *set, PtoContext *ctx) {
  (void)ctx;
  pto_pattern_set_add(set, "ut.twice", 1, twice_to_add, NULL, "ut-twice");
}

static PtoOp *ut_materialize(PtoContext *ctx, PtoAttr *value, PtoType *type,
                             PtoLoc *loc) {
  PtoNamedAttr na = {pto_ident_cstr(ctx, "value"), value};
  return pto_op_create_simple(ctx, "ut.const", loc, NULL, 0, &type, 1, &na, 1);
}

static const PtoOpDef ut_ops[] = {
    {"ut.const", 0, 1, 0, 0, PTO_TRAIT_PURE | PTO_TRAIT_CONSTANT_LIKE,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL, NULL, "constant"},
    {"ut.add", 2, 1, 0, 0, PTO_TRAIT_PURE | PTO_TRAIT_COMMUTATIVE,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, ut_fold_add, NULL, "addition"},
    {"ut.twice", 1, 1, 0, 0, PTO_TRAIT_PURE, PTO_AFFINITY_NONE, NULL, NULL,
     NULL, NULL, ut_canon_twice, "2*x"},
    {"ut.sink", PTO_VARIADIC(0), 0, 0, 0, 0, PTO_AFFINITY_NONE, NULL, NULL,
     NULL, NULL, NULL, "uses values (has effects)"},
    {"ut.src", 0, 1, 0, 0, 0, PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL, NULL,
     "an unknown value (has effects)"},
    {"ut.mark", 1, 1, 0, 0, PTO_TRAIT_PURE, PTO_AFFINITY_NONE, NULL, NULL, NULL,
     ut_fold_mark, NULL, "folds in place once"},
    {"ut.half", 1, 2, 0, 0, PTO_TRAIT_PURE, PTO_AFFINITY_NONE, NULL, NULL, NULL,
     ut_fold_half, NULL, "a fold that keeps one of two results"},
    {"ut.global", 0, 0, 0, 0, PTO_TRAIT_PURE | PTO_TRAIT_SYMBOL,
     PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL, NULL,
     "a symbol without effects"},
};

static const PtoDialectDef ut_dialect = {
    "ut", ut_ops, sizeof ut_ops / sizeof ut_ops[0], NULL, NULL, NULL, NULL,
    ut_materialize, "unit-test dialect", NULL, 0};

static const char ut_module[] =
    "%a = \"ut.const\"() {value = 20 : i32} : () -> i32\n"
    "%b = \"ut.const\"() {value = 22 : i32} : () -> i32\n"
    "%s = \"ut.add\"(%a, %b) : (i32, i32) -> i32\n"
    "%t = \"ut.twice\"(%s) : (i32) -> i32\n"
    "\"ut.sink\"(%t) : (i32) -> ()\n";

/* ---- a pass defined outside the library ---- */

typedef struct CountState {
  int runs;
} CountState;

static void *count_create(PtoPass *pass) {
  (void)pass;
  return calloc(1, sizeof(CountState));
}

static PtoWalkResult count_walk(PtoOp *op, void *user) {
  int64_t *n = user;
  if (pto_op_is(op, "ut.add") || pto_op_is(op, "ut.const")) ++*n;
  return PTO_WALK_ADVANCE;
}

/* Counts ut ops; fails when there are more than `limit`. */
static PtoResult count_run(PtoPass *pass, PtoOp *op) {
  CountState *s = pto_pass_state(pass);
  s->runs++;
  int64_t n = 0;
  pto_op_walk(op, PTO_WALK_PRE, count_walk, &n);
  pto_pass_stat_add(pass, "num-ops", n);
  if (n > pto_pass_option_int(pass, "limit"))
    return pto_op_emit_error(op, "%s: %lld ops exceed the limit of %lld",
                             pto_pass_option_str(pass, "tag"), (long long)n,
                             (long long)pto_pass_option_int(pass, "limit"));
  return PTO_SUCCESS;
}

static const PtoPassOptionDef count_options[] = {
    {"limit", PTO_OPT_INT, "100", "maximum number of ops", 0, 1000, NULL},
    {"tag", PTO_OPT_STRING, "count", "name used in messages", 0, 0, NULL},
};

static const PtoPassStatDef count_stats[] = {
    {"num-ops", "number of ut.add and ut.const ops seen"},
};

static const PtoPassDef count_pass = {
    "ut-count", "Count ut ops", NULL, count_options, 2, count_stats, 1,
    count_run, count_create, free, NULL,
    "Counts `ut.add` and `ut.const` ops; fails above `limit`.", NULL, NULL};

/* ---- helpers ---- */

typedef struct Captured {
  char text[2048];
  unsigned n;
} Captured;

static bool capture(const PtoDiagInfo *d, void *user) {
  Captured *c = user;
  size_t len = strlen(c->text);
  snprintf(c->text + len, sizeof c->text - len, "%s%s", len ? "\n" : "",
           d->message);
  c->n++;
  return true;
}

static PtoContext *make_ctx(Captured *cap) {
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_register_dialect(ctx, &ut_dialect);
  pto_register_all_passes(ctx);
  if (cap) {
    memset(cap, 0, sizeof *cap);
    pto_ctx_push_diag_handler(ctx, capture, cap);
  }
  return ctx;
}

/* The reports printed by pto_pm_report, as a string. */
static char *report(PtoPassManager *pm, bool stats, bool timing) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  PtoInstrumentation ins;
  memset(&ins, 0, sizeof ins);
  ins.statistics = stats;
  ins.timing = timing;
  ins.out = f;
  pto_pm_set_instrumentation(pm, &ins);
  pto_pm_report(pm);
  fclose(f);
  return buf;
}

/* ---- tests ---- */

TEST(register_and_run_external_pass) {
  Captured cap;
  PtoContext *ctx = make_ctx(&cap);
  CHECK(pto_pass_register(ctx, &count_pass) == PTO_SUCCESS);
  CHECK(pto_pass_lookup(ctx, "ut-count") == &count_pass);
  PtoOp *m = pto_parse_module(ctx, ut_module, sizeof ut_module - 1, NULL);
  CHECK(m != NULL);
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  CHECK(pto_pm_add_pass(pm, "ut-count", "limit=10 tag=first") == PTO_SUCCESS);
  CHECK(pto_pm_add_pipeline(pm, "canonicalize,ut-count{tag=second}") ==
        PTO_SUCCESS);
  char *text = pto_pm_to_string(pm);
  CHECK_STR(text, "builtin.module(ut-count{limit=10 tag=first},canonicalize,"
                  "ut-count{tag=second})");
  pto_free(text);
  CHECK(pto_pm_run(pm, m) == PTO_SUCCESS);
  CHECK(cap.n == 0);
  /* 20+22 folds, twice(42) becomes add(42, 42) and folds to 84 */
  char *ir = pto_op_print_to_string(m, PTO_PRINT_GENERIC);
  CHECK(strstr(ir, "value = 84 : i32") != NULL);
  CHECK(strstr(ir, "ut.twice") == NULL);
  pto_free(ir);
  char *r = report(pm, true, false);
  CHECK(strstr(r, "ut-count\n  (S) 3 num-ops") != NULL);
  CHECK(strstr(r, "ut-count\n  (S) 1 num-ops") != NULL);
  free(r);
  pto_pm_destroy(pm);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(pass_failure_and_options) {
  Captured cap;
  PtoContext *ctx = make_ctx(&cap);
  pto_pass_register(ctx, &count_pass);
  PtoOp *m = pto_parse_module(ctx, ut_module, sizeof ut_module - 1, NULL);
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  PtoInstrumentation ins;
  memset(&ins, 0, sizeof ins); /* no failure dump */
  pto_pm_set_instrumentation(pm, &ins);
  CHECK(pto_pm_add_pass(pm, "ut-count", "limit=abc") == PTO_FAILURE);
  CHECK_STR(cap.text, "invalid value 'abc' for option 'limit' of pass "
                      "'ut-count': expected an integer in [0, 1000]");
  CHECK(pto_pm_empty(pm));
  cap.text[0] = 0;
  CHECK(pto_pm_add_pass(pm, "ut-count", "limits=3") == PTO_FAILURE);
  CHECK_STR(cap.text, "pass 'ut-count' has no option 'limits'; valid options "
                      "are: limit, tag");
  cap.text[0] = 0;
  CHECK(pto_pm_add_pass(pm, "ut-count", "limit=1 tag=small") == PTO_SUCCESS);
  CHECK(pto_pm_run(pm, m) == PTO_FAILURE);
  CHECK_STR(cap.text, "'builtin.module' op small: 3 ops exceed the limit of 1");
  pto_pm_destroy(pm);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(registration_errors) {
  Captured cap;
  PtoContext *ctx = make_ctx(&cap);
  CHECK(pto_pass_register(ctx, &count_pass) == PTO_SUCCESS);
  CHECK(pto_pass_register(ctx, &count_pass) == PTO_FAILURE);
  CHECK_STR(cap.text, "cannot register pass 'ut-count': the name is already "
                      "taken by a pass");
  cap.text[0] = 0;
  CHECK(pto_pipeline_register(ctx, "cse", "", "canonicalize") == PTO_FAILURE);
  CHECK_STR(cap.text, "cannot register pass pipeline 'cse': the name is "
                      "already taken by a pass");
  cap.text[0] = 0;
  static const PtoPassOptionDef bad_default[] = {
      {"n", PTO_OPT_INT, "many", "", 0, 0, NULL}};
  static const PtoPassDef bad = {"ut-bad", "", NULL, bad_default, 1, NULL, 0,
                                 count_run, NULL, NULL, NULL, NULL, NULL, NULL};
  CHECK(pto_pass_register(ctx, &bad) == PTO_FAILURE);
  CHECK_STR(cap.text, "invalid default value 'many' for option 'n' of pass "
                      "'ut-bad': expected an integer");
  cap.text[0] = 0;
  static const PtoPassDef bad_name = {"ut.dotted", "", NULL, NULL, 0, NULL,
                                      0, count_run, NULL, NULL, NULL, NULL,
                                      NULL, NULL};
  CHECK(pto_pass_register(ctx, &bad_name) == PTO_FAILURE);
  CHECK(strstr(cap.text, "cannot register pass 'ut.dotted'") != NULL);
  CHECK(pto_pass_lookup(ctx, "ut-bad") == NULL);
  /* A lowering names both levels and has a bool option `provenance`. */
  cap.text[0] = 0;
  static const PtoPassDef half_lowering = {
      .argument = "ut-half", .run = count_run, .level_to = "Tile"};
  CHECK(pto_pass_register(ctx, &half_lowering) == PTO_FAILURE);
  CHECK_STR(cap.text, "cannot register pass 'ut-half': a lowering names both "
                      "the level it reads and the level it produces");
  cap.text[0] = 0;
  static const PtoPassDef untraced_lowering = {
      .argument = "ut-untraced", .run = count_run, .level_from = "Tensor",
      .level_to = "Tile"};
  CHECK(pto_pass_register(ctx, &untraced_lowering) == PTO_FAILURE);
  CHECK_STR(cap.text, "cannot register pass 'ut-untraced': a lowering has a "
                      "bool option 'provenance'");
  static const PtoPassOptionDef prov[] = {
      {"provenance", PTO_OPT_BOOL, "false", "", 0, 0, NULL}};
  static const PtoPassDef lowering = {
      .argument = "ut-lowering", .run = count_run, .options = prov,
      .num_options = 1, .level_from = "Tensor", .level_to = "Tile"};
  CHECK(pto_pass_register(ctx, &lowering) == PTO_SUCCESS);
  pto_ctx_destroy(ctx);
}

TEST(registry_listing) {
  PtoContext *ctx = make_ctx(NULL);
  pto_pass_register(ctx, &count_pass);
  unsigned builtin = pto_pipeline_count(ctx);
  pto_pipeline_register(ctx, "ut-pipe", "a pipeline", "cse,ut-count");
  pto_pipeline_register(ctx, "ut-aaa", "first", "dce");
  const PtoPassDef **defs;
  unsigned n = pto_pass_list(ctx, &defs);
  CHECK(n >= 6);
  for (unsigned i = 1; i < n; i++)
    CHECK(strcmp(defs[i - 1]->argument, defs[i]->argument) < 0);
  pto_free(defs);
  /* The two above, sorted among the ones PTO registers. */
  unsigned np = pto_pipeline_count(ctx);
  CHECK(np == builtin + 2);
  const char *arg, *summary, *text, *prev = "";
  bool seen_tile = false, seen_aaa = false, seen_pipe = false;
  for (unsigned i = 0; i < np; i++) {
    pto_pipeline_get(ctx, i, &arg, &summary, &text);
    CHECK(strcmp(prev, arg) < 0);
    prev = arg;
    if (!strcmp(arg, "pto-lower-to-tile")) {
      seen_tile = true;
      CHECK_STR(text, "canonicalize,cse,tile-expand");
    } else if (!strcmp(arg, "ut-aaa")) {
      seen_aaa = true;
      CHECK_STR(text, "dce");
      CHECK_STR(summary, "first");
    } else if (!strcmp(arg, "ut-pipe")) {
      seen_pipe = true;
      CHECK_STR(text, "cse,ut-count");
    }
  }
  CHECK(seen_tile && seen_aaa && seen_pipe);
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  CHECK(pto_pm_add_pass(pm, "ut-pipe", NULL) == PTO_SUCCESS);
  char *s = pto_pm_to_string(pm);
  CHECK_STR(s, "builtin.module(cse,ut-count)");
  pto_free(s);
  pto_pm_destroy(pm);
  pto_ctx_destroy(ctx);
}

/* A named pipeline takes as many options as its passes declare: each one is
 * checked, past any fixed number, and none may be given twice. */
enum { MANY_OPTIONS = 70 };
static char many_names[MANY_OPTIONS][8];
static PtoPassOptionDef many_options[MANY_OPTIONS];
static const PtoPassDef many_pass = {.argument = "ut-many",
                                     .options = many_options,
                                     .num_options = MANY_OPTIONS,
                                     .run = count_run};

TEST(pipeline_with_many_options) {
  for (unsigned i = 0; i < MANY_OPTIONS; i++) {
    snprintf(many_names[i], sizeof many_names[i], "o%u", i);
    many_options[i] = (PtoPassOptionDef){many_names[i], PTO_OPT_INT, "0", "",
                                         0, 1000, NULL};
  }
  Captured cap;
  PtoContext *ctx = make_ctx(&cap);
  CHECK(pto_pass_register(ctx, &many_pass) == PTO_SUCCESS);
  CHECK(pto_pipeline_register(ctx, "ut-many-pipe", "", "ut-many") ==
        PTO_SUCCESS);
  char opts[1024] = "";
  for (unsigned i = 0; i < MANY_OPTIONS; i++)
    snprintf(opts + strlen(opts), sizeof opts - strlen(opts), "%so%u=%u",
             i ? " " : "", i, i);
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  CHECK(pto_pm_add_pass(pm, "ut-many-pipe", opts) == PTO_SUCCESS);
  CHECK(cap.n == 0);
  char *text = pto_pm_to_string(pm);
  CHECK(strstr(text, "o63=63 o64=64") != NULL);
  CHECK(strstr(text, "o69=69}") != NULL);
  pto_free(text);
  pto_pm_destroy(pm);
  /* the 71st option, which no pass declares, is an error */
  char more[1100];
  snprintf(more, sizeof more, "%s oo=1", opts);
  pm = pto_pm_create(ctx, NULL);
  CHECK(pto_pm_add_pass(pm, "ut-many-pipe", more) == PTO_FAILURE);
  CHECK_STR(cap.text, "pass pipeline 'ut-many-pipe' has no option 'oo': none "
                      "of its passes takes it");
  cap.text[0] = 0;
  /* so is one given twice, past the 64th */
  snprintf(more, sizeof more, "%s o65=1", opts);
  CHECK(pto_pm_add_pass(pm, "ut-many-pipe", more) == PTO_FAILURE);
  CHECK_STR(cap.text, "option 'o65' of pass pipeline 'ut-many-pipe' is given "
                      "more than once");
  CHECK(pto_pm_empty(pm));
  pto_pm_destroy(pm);
  pto_ctx_destroy(ctx);
}

TEST(patterns_and_folding) {
  PtoContext *ctx = make_ctx(NULL);
  PtoOp *m = pto_parse_module(ctx, ut_module, sizeof ut_module - 1, NULL);
  int applied = 0;
  PtoPatternSet *set = pto_pattern_set_create(ctx);
  pto_pattern_set_add(set, "ut.twice", 1, twice_to_add, &applied, "ut-twice");
  CHECK(pto_pattern_set_size(set) == 1);
  /* without folding, only the pattern runs */
  PtoGreedyStats stats;
  memset(&stats, 0, sizeof stats);
  PtoGreedyConfig cfg = {0, true, false, &stats};
  bool changed = false;
  CHECK(pto_pattern_set_apply_greedily(m, set, &cfg, &changed) == PTO_SUCCESS);
  CHECK(changed && applied == 1 && stats.patterns_applied == 1);
  CHECK(stats.folded == 0 && stats.iterations == 2);
  /* with folding, everything becomes one constant */
  cfg.disable_folding = false;
  CHECK(pto_pattern_set_apply_greedily(m, set, &cfg, &changed) == PTO_SUCCESS);
  CHECK(changed && stats.folded == 2);
  char *ir = pto_op_print_to_string(m, PTO_PRINT_GENERIC);
  CHECK_STR(ir, "\"builtin.module\"() ({\n"
                "  %0 = \"ut.const\"() {value = 84 : i32} : () -> i32\n"
                "  \"ut.sink\"(%0) : (i32) -> ()\n"
                "}) : () -> ()\n");
  pto_free(ir);
  /* a fixed point: nothing changes */
  CHECK(pto_pattern_set_apply_greedily(m, set, &cfg, &changed) == PTO_SUCCESS);
  CHECK(!changed);
  pto_pattern_set_destroy(set);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* The driver counts what a fold does in place: operands of a commutative op
 * moved (constants last) when nothing folds, and a fold hook returning the
 * op's own result. A hook returning its own result for only some results
 * is not a fold. Each leaves a fixed point behind. */
TEST(in_place_folds) {
  static const char text[] =
      "%c = \"ut.const\"() {value = 1 : i32} : () -> i32\n"
      "%x = \"ut.src\"() : () -> i32\n"
      "%s = \"ut.add\"(%c, %x) : (i32, i32) -> i32\n"
      "%m = \"ut.mark\"(%s) : (i32) -> i32\n"
      "%h:2 = \"ut.half\"(%m) : (i32) -> (i32, i32)\n"
      "\"ut.sink\"(%h#0, %h#1) : (i32, i32) -> ()\n";
  PtoContext *ctx = make_ctx(NULL);
  PtoOp *m = pto_parse_module(ctx, text, sizeof text - 1, NULL);
  CHECK(m != NULL);
  PtoGreedyStats stats;
  memset(&stats, 0, sizeof stats);
  PtoGreedyConfig cfg = {0, false, false, &stats};
  bool changed = false;
  CHECK(pto_pattern_set_apply_greedily(m, NULL, &cfg, &changed) == PTO_SUCCESS);
  CHECK(changed && stats.folded == 2 && stats.iterations == 2);
  char *ir = pto_op_print_to_string(m, PTO_PRINT_GENERIC);
  CHECK_STR(ir, "\"builtin.module\"() ({\n"
                "  %0 = \"ut.const\"() {value = 1 : i32} : () -> i32\n"
                "  %1 = \"ut.src\"() : () -> i32\n"
                "  %2 = \"ut.add\"(%1, %0) : (i32, i32) -> i32\n"
                "  %3 = \"ut.mark\"(%2) {done} : (i32) -> i32\n"
                "  %4:2 = \"ut.half\"(%3) : (i32) -> (i32, i32)\n"
                "  \"ut.sink\"(%4#0, %4#1) : (i32, i32) -> ()\n"
                "}) : () -> ()\n");
  pto_free(ir);
  CHECK(pto_pattern_set_apply_greedily(m, NULL, &cfg, &changed) == PTO_SUCCESS);
  CHECK(!changed);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* A symbol is never trivially dead, even without effects: others refer to
 * it by name, not by use. dce, cse and canonicalize keep it (symbol-dce
 * decides about symbols). */
TEST(symbols_are_not_dead) {
  static const char text[] =
      "\"ut.global\"() {sym_name = \"g\", sym_visibility = \"private\"} : "
      "() -> ()\n";
  PtoContext *ctx = make_ctx(NULL);
  PtoOp *m = pto_parse_module(ctx, text, sizeof text - 1, NULL);
  CHECK(m != NULL);
  PtoBlock *b = pto_region_first_block(pto_op_region(m, 0));
  CHECK(!pto_op_is_trivially_dead(pto_block_first_op(b)));
  PtoPassManager *pm = pto_pm_create(ctx, NULL);
  CHECK(pto_pm_add_pipeline(pm, "dce,cse,canonicalize") == PTO_SUCCESS);
  CHECK(pto_pm_run(pm, m) == PTO_SUCCESS);
  CHECK(pto_block_first_op(b) && pto_op_is(pto_block_first_op(b), "ut.global"));
  pto_pm_destroy(pm);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(wrong_anchor) {
  Captured cap;
  PtoContext *ctx = make_ctx(&cap);
  PtoOp *m = pto_parse_module(ctx, ut_module, sizeof ut_module - 1, NULL);
  PtoPassManager *pm = pto_pm_create(ctx, "ut.add");
  CHECK(pto_pm_run(pm, m) == PTO_FAILURE);
  CHECK_STR(cap.text, "a pass manager anchored on 'ut.add' cannot run on a "
                      "'builtin.module' operation");
  pto_pm_destroy(pm);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* Two contexts, two threads, the same pass definition: registries and
 * statistics do not interfere. */
static void *thread_main(void *arg) {
  int *ok = arg;
  PtoContext *ctx = make_ctx(NULL);
  *ok = pto_pass_register(ctx, &count_pass) == PTO_SUCCESS;
  for (int i = 0; i < 50 && *ok; i++) {
    PtoOp *m = pto_parse_module(ctx, ut_module, sizeof ut_module - 1, NULL);
    PtoPassManager *pm = pto_pm_create(ctx, NULL);
    *ok = pto_pm_add_pipeline(pm, "cse,canonicalize,ut-count{limit=1}") ==
              PTO_SUCCESS &&
          pto_pm_run(pm, m) == PTO_SUCCESS;
    pto_pm_destroy(pm);
    pto_op_destroy(m);
  }
  pto_ctx_destroy(ctx);
  return NULL;
}

TEST(two_contexts_two_threads) {
  pthread_t t[2];
  int ok[2] = {0, 0};
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_main, &ok[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  CHECK(ok[0] && ok[1]);
}

RUN_TESTS(T(register_and_run_external_pass), T(pass_failure_and_options),
          T(in_place_folds), T(symbols_are_not_dead),
          T(registration_errors), T(registry_listing),
          T(pipeline_with_many_options), T(patterns_and_folding),
          T(wrong_anchor), T(two_contexts_two_threads))
