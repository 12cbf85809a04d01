/* Passes, the pass manager, pipelines, instrumentation, and the greedy
 * pattern-rewrite driver. Everything is registered per context (no global
 * registry), through this C API, so that users add their own passes from
 * outside the library exactly as the built-in ones are added. */
#ifndef PTO_PASS_H
#define PTO_PASS_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct PtoPass PtoPass;               /* an instance with options */
typedef struct PtoPassDef PtoPassDef;         /* a registered definition */
typedef struct PtoPassManager PtoPassManager;
typedef struct PtoPatternSet PtoPatternSet;
typedef struct PtoRewriter PtoRewriter;

/* ------------------------------------------------------------------ */
/* Pass definitions                                                     */
/* ------------------------------------------------------------------ */

typedef enum PtoOptionKind {
  PTO_OPT_INT,      /* 64-bit signed; range [min, max] when min < max */
  PTO_OPT_BOOL,     /* true/false/1/0 ; `flag` alone means true */
  PTO_OPT_STRING,
  PTO_OPT_ENUM,     /* one of enum_values */
  PTO_OPT_INT_LIST, /* `32,32` ; each element in [min, max] when min < max */
  PTO_OPT_FLOAT,
} PtoOptionKind;

typedef struct PtoPassOptionDef {
  const char *name;          /* `vec-tile` */
  PtoOptionKind kind;
  const char *default_value; /* textual: "32,32", "true", "4", "" */
  const char *description;
  int64_t min, max;
  const char *const *enum_values; /* NULL-terminated, for PTO_OPT_ENUM */
} PtoPassOptionDef;

typedef struct PtoPassStatDef {
  const char *name;
  const char *description;
} PtoPassStatDef;

/* Runs the pass on one anchor op. Returns failure after emitting an error;
 * the manager stops the pipeline and reports the IR the pass failed on. */
typedef PtoResult (*PtoPassRunFn)(PtoPass *pass, PtoOp *op);

struct PtoPassDef {
  const char *argument; /* command-line name: `canonicalize` */
  const char *summary;
  /* Op name the pass runs on (`func.func`, `builtin.module`), or NULL to
   * run on whatever op the pass manager it is added to is anchored on. */
  const char *anchor;
  const PtoPassOptionDef *options;
  unsigned num_options;
  const PtoPassStatDef *statistics;
  unsigned num_statistics;
  PtoPassRunFn run;
  /* Optional per-instance state, created once per pass instance after
   * options are parsed (may reject option combinations by emitting an
   * error and returning NULL). */
  void *(*create_state)(PtoPass *pass);
  void (*destroy_state)(void *state);
  /* Optional: a pipeline-level verification of options beyond kinds and
   * ranges; emits an error and returns failure. */
  PtoResult (*check_options)(PtoPass *pass, PtoLoc *loc);
  /* Optional: what the pass does and leaves alone, in Markdown, for
   * docs/passes.md (the summary is one line; this may be paragraphs). */
  const char *description;
  /* A lowering between levels names the level of its input and the level
   * it produces ("Tensor", "Tile"); both NULL for passes within a level.
   * A lowering has a bool option `provenance` that marks what it produces
   * with pto.origin (pto/Origin.h): pto-run --check-levels splits a
   * pipeline into levels at its lowerings and traces each level's values
   * to the level before. */
  const char *level_from, *level_to;
};

/* Registers a pass in this context. Fails (with a diagnostic) when the
 * argument is already taken by a pass or a pipeline, or when an option's
 * default does not parse. The definition is not copied: it must outlive
 * the context (a static table, typically). */
PtoResult pto_pass_register(PtoContext *ctx, const PtoPassDef *def);
/* A named pipeline (`pto-lower-to-block`) usable like a pass. */
PtoResult pto_pipeline_register(PtoContext *ctx, const char *argument,
                                const char *summary, const char *pipeline);
const PtoPassDef *pto_pass_lookup(PtoContext *ctx, const char *argument);
/* The registered pass or pipeline name closest to a misspelt `name`, for a
 * "did you mean"; NULL when none is close. */
const char *pto_pass_suggest(PtoContext *ctx, const char *name);
/* "int", "bool", "string", "enum", "int list", "float". */
const char *pto_option_kind_name(PtoOptionKind kind);
/* All registered passes, sorted by argument; *out is freed with pto_free. */
unsigned pto_pass_list(PtoContext *ctx, const PtoPassDef ***out);
/* Named pipelines: argument, summary and text of the i-th (sorted). */
unsigned pto_pipeline_count(PtoContext *ctx);
void pto_pipeline_get(PtoContext *ctx, unsigned i,
                      const char **argument, const char **summary,
                      const char **pipeline);

/* Pipeline text for pass (or pipeline) `argument` with string option
 * `option` set to `value`, quoted so that it reads back as `value`
 * whatever characters it holds (`pto-lower-to-pto{platform="a b.xml"}`);
 * freed with pto_free. */
char *pto_pass_text_with_option(const char *argument, const char *option,
                                const char *value);
/* In pipeline text s[0..n), the offset of the quote that closes the
 * quoted string opening at s[i] (a '"' or '\''), its escapes `\\`, `\"`
 * and `\'` skipped; n when the string is not closed. */
size_t pto_pass_text_closing_quote(const char *s, size_t n, size_t i);

/* ---- inside a pass ---- */
PtoContext *pto_pass_ctx(PtoPass *pass);
const PtoPassDef *pto_pass_def(PtoPass *pass);
void *pto_pass_state(PtoPass *pass);
int64_t pto_pass_option_int(PtoPass *pass, const char *name);
double pto_pass_option_float(PtoPass *pass, const char *name);
bool pto_pass_option_bool(PtoPass *pass, const char *name);
const char *pto_pass_option_str(PtoPass *pass, const char *name);
/* Number of list elements; copies up to cap of them into out. */
unsigned pto_pass_option_list(PtoPass *pass, const char *name, int64_t *out,
                              unsigned cap);
/* Whether the option was given explicitly (not defaulted). */
bool pto_pass_option_is_set(PtoPass *pass, const char *name);
void pto_pass_stat_add(PtoPass *pass, const char *name, int64_t delta);
int64_t pto_pass_stat_get(PtoPass *pass, const char *name);
/* Tells the pass manager that this run left the IR exactly as it found
 * it (MLIR's markAllAnalysesPreserved): the IR verified before the pass,
 * so the verifier the manager runs after each pass skips this run. Call
 * it only when nothing was created, erased, moved or modified. */
void pto_pass_mark_unchanged(PtoPass *pass);

/* ------------------------------------------------------------------ */
/* Pass manager                                                         */
/* ------------------------------------------------------------------ */

typedef struct PtoInstrumentation {
  const char *print_before; /* comma-separated pass arguments, or NULL */
  const char *print_after;
  bool print_before_all;
  bool print_after_all;
  bool print_after_change;   /* only when the IR text changed */
  bool print_after_failure;  /* on by default: the IR a failing pass saw */
  bool timing;               /* tree of wall times, at the end */
  bool statistics;           /* pass statistics, at the end */
  const char *dump_dir;      /* each stage to DIR/NN-<pass>.pto */
  unsigned print_flags;      /* PtoPrintFlags for the printed IR */
  FILE *out;                 /* where printing goes (default stderr) */
  /* Called at each stage (after a pass has run on every op it anchors
   * on, when dump_dir writes a file) with the stage number (from 1), the
   * pass and the op the manager runs on. Embedders use it to keep or
   * check the IR between stages; a failure (after a diagnostic) stops the
   * run. */
  PtoResult (*after_stage)(unsigned stage, const char *pass, PtoOp *top,
                           void *user);
  void *after_stage_user;
} PtoInstrumentation;

/* A pass manager anchored on an op name (NULL: "builtin.module"). */
PtoPassManager *pto_pm_create(PtoContext *ctx, const char *anchor);
void pto_pm_destroy(PtoPassManager *pm);
/* Appends passes from pipeline text. Accepts the full form anchored on the
 * manager's op (`builtin.module(func.func(cse),canonicalize)`) or a bare
 * list (`cse,canonicalize{max-iterations=3}`). Errors point at the
 * offending character of the text (reported at `loc` when given). */
PtoResult pto_pm_add_pipeline(PtoPassManager *pm, const char *text);
/* Appends one pass by argument with options text (`a=1 b=2,3`, may be
 * NULL). Passes anchored on a nested op get a nested manager. */
PtoResult pto_pm_add_pass(PtoPassManager *pm, const char *argument,
                          const char *options);
/* The nested manager for ops named `op_name` directly inside the anchor. */
PtoPassManager *pto_pm_nest(PtoPassManager *pm, const char *op_name);
void pto_pm_set_verify_each(PtoPassManager *pm, bool verify);
/* Test mode: after every pass, print the IR (custom and generic forms),
 * parse it back and check that it prints the same, so that printer and
 * parser cannot drift apart. Fails the run with a diagnostic otherwise. */
void pto_pm_set_verify_roundtrip(PtoPassManager *pm, bool on);
void pto_pm_set_instrumentation(PtoPassManager *pm,
                                const PtoInstrumentation *ins);
/* Adds a named top-level entry to the timing report (the driver reports
 * parsing and printing this way). */
void pto_pm_add_timing(PtoPassManager *pm, const char *name, double seconds);
/* Runs on `op` (which must be named like the anchor). */
PtoResult pto_pm_run(PtoPassManager *pm, PtoOp *op);
/* Prints the timing/statistics reports requested by instrumentation. */
void pto_pm_report(PtoPassManager *pm);
/* The pipeline in its canonical textual form (pto_free it). */
char *pto_pm_to_string(PtoPassManager *pm);
bool pto_pm_empty(PtoPassManager *pm);

/* ------------------------------------------------------------------ */
/* Pattern rewriting                                                    */
/* ------------------------------------------------------------------ */

/* Returns success when it changed the IR (through the rewriter only). */
typedef PtoResult (*PtoPatternFn)(PtoOp *op, PtoRewriter *rw, void *user);

PtoPatternSet *pto_pattern_set_create(PtoContext *ctx);
void pto_pattern_set_destroy(PtoPatternSet *set);
/* root: op name the pattern matches (NULL: any op). Higher benefit first. */
void pto_pattern_set_add(PtoPatternSet *set, const char *root, unsigned benefit,
                         PtoPatternFn fn, void *user, const char *debug_name);
/* The canonicalization patterns of every registered op (their
 * `canonicalize` hooks). */
void pto_pattern_set_add_canonicalizations(PtoPatternSet *set);
unsigned pto_pattern_set_size(const PtoPatternSet *set);

/* Every IR change a pattern makes goes through the rewriter so that the
 * driver keeps its worklist right. */
PtoContext *pto_rewriter_ctx(PtoRewriter *rw);
/* Insertion point for new ops: before the matched op unless moved. */
PtoBuilder *pto_rewriter_builder(PtoRewriter *rw);
PtoOp *pto_rewriter_create(PtoRewriter *rw, PtoOpState *st);
PtoOp *pto_rewriter_insert(PtoRewriter *rw, PtoOp *detached);
void pto_rewriter_replace_op(PtoRewriter *rw, PtoOp *op,
                             PtoValue *const *new_values);
void pto_rewriter_replace_op_with_op(PtoRewriter *rw, PtoOp *op,
                                     PtoOp *new_op);
void pto_rewriter_erase_op(PtoRewriter *rw, PtoOp *op);
/* Call after changing an op in place (operands, attributes). */
void pto_rewriter_notify_modified(PtoRewriter *rw, PtoOp *op);
/* Moves the ops of `block` before `pos`, replacing its arguments by
 * `args`; the (now empty) block is erased. */
void pto_rewriter_inline_block_before(PtoRewriter *rw, PtoBlock *block,
                                      PtoOp *pos, PtoValue *const *args);
/* Builds a constant through the op's dialect materializer. */
PtoOp *pto_rewriter_materialize_constant(PtoRewriter *rw,
                                         const PtoDialectDef *dialect,
                                         PtoAttr *value, PtoType *type,
                                         PtoLoc *loc);

/* Counters the driver adds to (see PtoGreedyConfig.stats). */
typedef struct PtoGreedyStats {
  uint64_t folded;           /* ops folded (replaced or updated in place) */
  uint64_t erased;           /* dead ops, duplicate constants, blocks */
  uint64_t patterns_applied;
  unsigned iterations;
} PtoGreedyStats;

typedef struct PtoGreedyConfig {
  unsigned max_iterations; /* 0: default (10) */
  bool disable_folding;
  bool region_simplify;   /* erase dead ops and unreachable blocks */
  PtoGreedyStats *stats;  /* optional: counters to add to */
} PtoGreedyConfig;

/* Applies patterns and fold hooks to the ops nested under `root` until a
 * fixed point. Emits "... did not converge after N iterations" at root and
 * fails when the limit is reached. *changed (may be NULL) tells whether
 * anything changed. */
PtoResult pto_pattern_set_apply_greedily(PtoOp *root, const PtoPatternSet *set,
                                         const PtoGreedyConfig *cfg,
                                         bool *changed);

/* Folds one op: constant-folds (materializing constants before it) or
 * replaces it with an existing value. Returns success if it changed. */
PtoResult pto_op_try_fold(PtoOp *op, PtoRewriter *rw);

/* Whether erasing `op` changes nothing observable: its results are unused,
 * it has no side effects (pto_op_is_effect_free), and it is neither a
 * terminator nor a symbol (others may refer to it by name). */
bool pto_op_is_trivially_dead(const PtoOp *op);

#ifdef __cplusplus
}
#endif
#endif
