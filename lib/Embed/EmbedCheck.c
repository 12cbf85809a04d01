/* The per-stage check of compiled kernels (check_stages): every run first
 * runs its arguments through the stages of the compile pipeline with the
 * level checker (include/pto/LevelCheck.h) and fails, naming the first
 * stage and the first tile op that differ, when they do not agree. */
#include "Embed/EmbedInternal.h"

#include "pto/LevelCheck.h"

#include <inttypes.h>

struct PtoEmbedLevelCheck {
  PtoEmbed *e;
  PtoOp *module; /* the input module (a copy) */
  char *entry;
  PtoLevelCheck *lc;
  PtoInterpOptions iopts; /* of the reference stage's interpreter */
  unsigned made;          /* interpreters made in the current run */
};

PtoEmbedLevelCheck *pto_embed_level_check_create(PtoEmbedModule *m,
                                                 const char *pipeline,
                                                 const char *entry, double rtol,
                                                 double atol,
                                                 const PtoInterpOptions *iopts) {
  PtoEmbed *e = m->e;
  PtoOp *func = pto_embed_find_entry(e, m->op, entry);
  if (!func) return NULL;
  PtoEmbedLevelCheck *c = pto_calloc(1, sizeof *c);
  c->e = e;
  if (iopts) c->iopts = *iopts;
  c->module = pto_op_clone(m->op, NULL);
  const char *name = pto_ident_str(pto_op_symbol_name(func));
  c->entry = pto_strndup(name, strlen(name));
  c->lc = pto_level_check_create(e->ctx, c->module, pipeline, rtol < 0 ? 1e-3 : rtol,
                                 atol < 0 ? 1.5e-3 : atol);
  if (!c->lc) {
    pto_embed_level_check_destroy(c);
    return NULL;
  }
  return c;
}

void pto_embed_level_check_destroy(PtoEmbedLevelCheck *c) {
  if (!c) return;
  pto_level_check_destroy(c->lc);
  if (c->module) pto_op_destroy(c->module);
  pto_free(c->entry);
  pto_free(c);
}

/* Reports the first output of stage `s` that differs; false if none. */
static bool report_stage(PtoEmbedLevelCheck *c, unsigned s) {
  unsigned n;
  pto_level_check_outputs(c->lc, s, &n);
  for (unsigned i = 0; i < n; i++) {
    PtoCompareResult r;
    double rtol, atol;
    if (pto_level_check_compare(c->lc, s, i, &r, &rtol, &atol)) continue;
    PtoOp *func = pto_symbol_lookup(c->module, c->entry);
    PtoLoc *loc = func ? pto_op_loc(func) : NULL;
    const char *pipe = pto_level_check_pipeline(c->lc, s);
    const char *level = pto_level_check_level(c->lc, s);
    const char *ref_level = pto_level_check_level(c->lc, 0);
    if (r.numel < 0)
      pto_emit_error(c->e->ctx, loc,
                     "pass verification: the first stage whose results differ from "
                     "the %s level is the %s level (after '%s'): result #%u has "
                     "another shape",
                     ref_level, level, pipe, i);
    else {
      char at[PTO_SHAPE_STR_MAX];
      unsigned nref;
      const PtoInterpValue *ref = pto_level_check_outputs(c->lc, 0, &nref);
      unsigned rank = ref[i].kind == PTO_IVAL_TENSOR ? pto_tensor_rank(ref[i].tensor) : 0;
      pto_emit_error(c->e->ctx, loc,
                     "pass verification: the first stage whose results differ from "
                     "the %s level is the %s level (after '%s'): result #%u has %" PRId64
                     " of %" PRId64 " elements beyond rtol=%g atol=%g, the worst at %s: "
                     "got %.9g, expected %.9g",
                     ref_level, level, pipe, i, r.num_mismatched, r.numel, rtol, atol,
                     pto_shape_str(at, rank, r.worst_index), r.worst_got,
                     r.worst_expected);
    }
    return true;
  }
  return false;
}

/* Stages run in order, the input module first: only that reference run
 * executes pass_verify_print/save (the stages after the Tensor-level
 * passes would repeat them; the Tile level has dropped them). */
static PtoInterp *new_interp(PtoContext *ctx, void *user) {
  PtoEmbedLevelCheck *c = user;
  PtoInterpOptions o = c->iopts;
  if (c->made++) {
    o.debug_print = NULL;
    o.save_dir = NULL;
  }
  return pto_interp_create(ctx, &o);
}

PtoResult pto_embed_level_check_run(PtoEmbedLevelCheck *c,
                                    const PtoInterpValue *args, unsigned nargs) {
  c->made = 0;
  if (pto_level_check_run(c->lc, c->entry, args, nargs, new_interp, c)) return PTO_FAILURE;
  for (unsigned s = 1; s < pto_level_check_num_stages(c->lc); s++)
    if (report_stage(c, s)) {
      pto_level_check_report_traced(c->lc, s, false);
      return PTO_FAILURE;
    }
  return PTO_SUCCESS;
}
