/* Pattern sets, the rewriter's listener and the constant folder shared by
 * the greedy driver; private to lib/Pass. */
#ifndef PTO_REWRITE_INTERNAL_H
#define PTO_REWRITE_INTERNAL_H

#include "Pass/PassInternal.h"
#include "pto/DialectImplementation.h"

typedef struct Pattern {
  PtoPatternFn fn;
  void *user;
  const char *debug_name;
  unsigned benefit;
  PtoIdent *root; /* NULL: any op */
} Pattern;

/* Patterns that may match one op name, highest benefit first (patterns for
 * any op are merged in). */
typedef struct PatternList {
  const Pattern **data;
  uint32_t len, cap;
} PatternList;

const PatternList *pto_pattern_set_lookup(const PtoPatternSet *set,
                                          const PtoIdent *name);

/* Who hears about IR changes made through a rewriter (the greedy driver
 * keeps its worklist right with these). Any hook may be NULL. */
typedef struct PtoRewriteListener {
  void (*inserted)(void *user, PtoOp *op);  /* new or moved op */
  void (*removing)(void *user, PtoOp *op);  /* about to be erased */
  void (*replacing)(void *user, PtoOp *op); /* results about to be replaced */
  void (*modified)(void *user, PtoOp *op);  /* changed in place */
} PtoRewriteListener;

typedef struct PtoOpFolder PtoOpFolder;

struct PtoRewriter {
  PtoContext *ctx;
  PtoBuilder builder;
  const PtoRewriteListener *listener;
  void *user;
  PtoOpFolder *folder; /* constant uniquing, or NULL */
  /* Location for the builder, made only if a pattern asks for the builder
   * (most patterns pass the matched op's location themselves; making a
   * location for every op tried would unique one per op). */
  PtoLocRef pending_loc;
  bool loc_pending;
};

void pto_rewriter_init(PtoRewriter *rw, PtoContext *ctx,
                       const PtoRewriteListener *listener, void *user,
                       PtoOpFolder *folder);

/* ---- the constant folder (OpFolder.c) ----
 * Constants made by folding are uniqued per insertion region (the nearest
 * enclosing region of an isolated-from-above op, or the root's regions) and
 * placed at the start of its entry block, as MLIR's OperationFolder does. */
PtoOpFolder *pto_folder_create(PtoContext *ctx, PtoOp *root);
void pto_folder_destroy(PtoOpFolder *f);
bool pto_folder_owns(PtoOpFolder *f, PtoOp *op);
/* Called before a constant op is erased. */
void pto_folder_forget(PtoOpFolder *f, PtoOp *op);
/* Registers an existing constant-like op; returns the op that now stands
 * for its value: `op` itself, or an equal constant it must be replaced by. */
PtoOp *pto_folder_known_constant(PtoOpFolder *f, PtoOp *op, PtoAttr *value);
/* The constant attribute of a constant-like op (its `value`), or NULL. */
PtoAttr *pto_folder_constant_of(PtoOpFolder *f, PtoOp *op);
/* Folds `op`; *in_place tells whether it was updated rather than replaced. */
PtoResult pto_fold_op(PtoOp *op, PtoRewriter *rw, bool *in_place);

#endif
