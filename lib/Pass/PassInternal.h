/* Layout of passes, pass managers and the per-context pass registry; private
 * to lib/Pass. Everything else goes through include/pto/Pass.h. */
#ifndef PTO_PASS_INTERNAL_H
#define PTO_PASS_INTERNAL_H

#include "pto/Pass.h"

#include "Support/Alloc.h"
#include "Support/Arena.h"
#include "Support/Hash.h"
#include "Support/Str.h"
#include "Support/Time.h"
#include "Support/Vec.h"

/* ---- registry ---- */

typedef struct NamedPipeline {
  const char *argument, *summary, *text; /* copies in the registry arena */
} NamedPipeline;

typedef struct PassRegistry {
  PtoArena arena;
  PtoStrMap names; /* argument -> RegEntry* */
  PTO_VEC(const PtoPassDef *) passes;   /* sorted by argument */
  PTO_VEC(NamedPipeline *) pipelines;   /* sorted by argument */
} PassRegistry;

typedef struct RegEntry {
  const PtoPassDef *pass;     /* exactly one of the two is set */
  NamedPipeline *pipeline;
} RegEntry;

PassRegistry *pto_pass_registry(PtoContext *ctx); /* created on first use */
const RegEntry *pto_pass_registry_find(PtoContext *ctx, const char *name,
                                       size_t len);
/* The registered argument closest to `name` (edit distance), for "did you
 * mean" hints; NULL when nothing is close. */
const char *pto_pass_registry_suggest(PtoContext *ctx, const char *name,
                                      size_t len);

/* ---- text positions for diagnostics ---- */

/* A piece of text registered as a diagnostic source, so that errors show
 * the text with a caret under the offending character. */
typedef struct PtoTextSrc {
  PtoContext *ctx;
  const char *name; /* "<pass-pipeline>" */
  const char *text;
  size_t len;
} PtoTextSrc;

void pto_text_src_init(PtoTextSrc *src, PtoContext *ctx, const char *name,
                       const char *text, size_t len);
PtoLoc *pto_text_src_loc(const PtoTextSrc *src, size_t offset);

/* ---- options and pass instances ---- */

typedef struct PassOptValue {
  bool set;
  int64_t i;
  double f;
  bool b;
  const char *s;   /* string and enum values (arena) */
  int64_t *list;   /* int lists (arena) */
  unsigned nlist;
} PassOptValue;

struct PtoPass {
  const PtoPassDef *def;
  PtoContext *ctx;
  PassOptValue *opts; /* def->num_options */
  int64_t *stats;     /* def->num_statistics */
  void *state;
  double seconds;     /* wall time summed over every op it ran on */
  bool unchanged;     /* the current run left the IR as it was */
  PtoArena arena;
};

/* Validates an option's textual value; on failure returns a static
 * explanation ("expected an integer") or one written into `why`, and sets
 * *error_at (may be NULL) to the offset of the offending part (the bad
 * element of a list). */
const char *pto_pass_option_parse(const PtoPassOptionDef *od, const char *s,
                                  size_t n, PassOptValue *out, PtoArena *arena,
                                  char *why, size_t why_len, size_t *error_at);
/* The options given to a named pipeline (`pto-lower-to-pto{platform=a3}`),
 * which every pass of its expansion that declares an option of that name
 * takes unless its own options set it. `used` holds one flag per option of
 * `text`, in order (the caller sizes it to their number), set once some
 * pass declared that option; `names` collects the option names the
 * expansion's passes declare, for "did you mean". */
typedef struct PassInherit {
  const char *text;
  size_t len;
  const PtoTextSrc *src; /* errors point into it at `offset` */
  size_t offset;
  PTO_VEC(bool) used;
  PTO_VEC(const char *) names;
} PassInherit;

/* Creates an instance from options text (`a=1 b=2,3`). Errors point into
 * `src` at `opts_offset` (src may be NULL: errors are then at `loc`).
 * `inherit` (may be NULL) adds the options of the named pipeline the pass
 * comes from that it declares and `opts` does not set. */
PtoPass *pto_pass_create(PtoContext *ctx, const PtoPassDef *def,
                         const char *opts, size_t opts_len,
                         const PtoTextSrc *src, size_t opts_offset,
                         PtoLoc *loc, PassInherit *inherit);
/* Splits options text into its `key[=value]` items: calls fn(user, key,
 * klen, key offset) for each; stops at the first nonzero return, which it
 * returns. An item without a key is reported as a 0-length key. */
int pto_pass_options_each(const char *s, size_t n,
                          int (*fn)(void *user, const char *key, size_t klen,
                                    size_t off),
                          void *user);
void pto_pass_destroy(PtoPass *pass);
/* Appends ` {a=1 b=2}` style options that were given explicitly. */
void pto_pass_print_options(PtoPass *pass, PtoStr *out);

/* ---- pass managers ---- */

typedef struct PmEntry {
  PtoPass *pass;          /* a pass, or */
  PtoPassManager *nested; /* a nested manager */
  double seconds;         /* nested managers: time of their whole run */
} PmEntry;

typedef struct TimingEntry {
  char *name;      /* NULL marks where the pass pipeline is reported */
  double seconds;
} TimingEntry;

struct PtoPassManager {
  PtoContext *ctx;
  PtoIdent *anchor;
  /* `any(...)`: runs on every child op; each pass only on those it can
   * run on (all, or the ops of its anchor) */
  bool any;
  PtoPassManager *root, *parent;
  PTO_VEC(PmEntry) entries;
  double verify_seconds;
  /* root only */
  bool verify_each, verify_roundtrip;
  PtoInstrumentation ins;
  char *print_before, *print_after, *dump_dir; /* owned copies */
  PTO_VEC(TimingEntry) timings;
};

/* Adds a created pass to `pm`, nesting it under its anchor when the pass
 * is anchored on another op. Takes ownership of `pass` (destroyed on
 * failure). `loc` is where to report a misplaced pass. */
PtoResult pto_pm_add_pass_instance(PtoPassManager *pm, PtoPass *pass,
                                   PtoLoc *loc);
/* Moves every entry of `from` to the end of `to` and destroys `from`. */
void pto_pm_append_all(PtoPassManager *to, PtoPassManager *from);
/* Parses pipeline text into `pm` (used by pto_pm_add_pipeline). */
PtoResult pto_pipeline_parse(PtoPassManager *pm, const char *text, size_t len);

/* ---- instrumentation (PassInstrumentation.c) ---- */

typedef struct RunState RunState;
bool pto_ins_wants(const char *list, const char *argument);
void pto_ins_print_ir(PtoPassManager *root, const char *when, PtoPass *pass,
                      PtoOp *op, bool failed);
PtoResult pto_ins_prepare_dump_dir(PtoPassManager *root, PtoOp *op);
PtoResult pto_ins_dump_stage(PtoPassManager *root, unsigned stage,
                             const char *name, PtoOp *op);
PtoResult pto_ins_check_roundtrip(PtoPassManager *root, PtoPass *pass,
                                  PtoOp *op);

#endif
