/* pto-run --check-levels: the per-pass precision check
 * (include/pto/LevelCheck.h) on the tool's inputs, reported per stage and
 * output, with --perturb-tile-op to make a Tile-level op wrong on
 * purpose. */
#include "Tools/RunInternal.h"

#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/LevelCheck.h"
#include "pto/Origin.h"
#include "pto/Runtime.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* --perturb-tile-op                                                    */
/* ------------------------------------------------------------------ */

typedef struct Perturb {
  int64_t left;
  PtoOp *op;
  unsigned res;
} Perturb;

static PtoWalkResult find_perturbed(PtoOp *op, void *user) {
  Perturb *p = user;
  PtoOrigin o;
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoType *t = pto_value_type(pto_op_result(op, i));
    if (!pto_type_is_tile(t) || !pto_elem_is_numeric(pto_tile_elem(t)) ||
        !pto_origin_get(op, i, &o))
      continue;
    if (--p->left == 0) {
      p->op = op;
      p->res = i;
      return PTO_WALK_INTERRUPT;
    }
  }
  return PTO_WALK_ADVANCE;
}

/* Adds 1 to the n-th traced tile of the entry function: a tile.adds after
 * its op takes its uses and its origin, as a wrong tile op would. */
static bool perturb(const RunOptions *o, PtoContext *ctx, PtoOp *module) {
  Perturb p = {o->perturb, NULL, 0};
  PtoOp *func = run_find_entry(o, module);
  if (!func) return false;
  pto_op_walk(func, PTO_WALK_PRE, find_perturbed, &p);
  if (!p.op) {
    run_error(o, "--perturb-tile-op %" PRId64 ": @%s has only %" PRId64
                 " tiles traced to the Tensor level",
              o->perturb, pto_ident_str(pto_op_symbol_name(func)),
              o->perturb - p.left);
    return false;
  }
  PtoValue *v = pto_op_result(p.op, p.res);
  PtoType *elem = pto_tile_elem(pto_value_type(v));
  PtoBuilder b;
  pto_builder_init(&b, ctx);
  pto_builder_set_after(&b, p.op);
  b.loc = pto_op_loc(p.op);
  PtoValue *one = pto_type_is_float(elem)
                      ? pto_arith_build_constant_float(&b, elem, 1.0)
                      : pto_arith_build_constant_int(&b, elem, 1);
  PtoValue *ops[2] = {v, one};
  PtoType *t = pto_value_type(v);
  PtoOp *adds = pto_tile_build(&b, PTO_TILE_ADDS, ops, 2, &t, 1, NULL, 0);
  pto_value_replace_uses_except(v, pto_op_result(adds, 0), adds);
  PtoOrigin org;
  pto_origin_get(p.op, p.res, &org);
  pto_origin_set(adds, 0, &org);
  pto_op_remove_attr(p.op, PTO_ORIGIN_ATTR);
  return true;
}

/* ------------------------------------------------------------------ */
/* Stages and the report                                                */
/* ------------------------------------------------------------------ */

typedef struct InterpMaker {
  const RunOptions *o;
  PtoInterpRegisterFn interp_fn;
  unsigned made; /* interpreters made: stages run in order */
} InterpMaker;

static PtoInterp *new_interp(PtoContext *ctx, void *user) {
  InterpMaker *m = user;
  PtoInterpOptions io = m->o->interp;
  if (m->made++) { /* the debug ops act in the reference stage only */
    io.debug_print = NULL;
    io.save_dir = NULL;
  }
  PtoInterp *I = pto_interp_create(ctx, &io);
  if (m->interp_fn) m->interp_fn(I);
  return I;
}

/* One line per output: its error against the reference. */
static bool report_stage(PtoLevelCheck *c, unsigned s, const char *stage) {
  unsigned n, nref;
  const PtoInterpValue *got = pto_level_check_outputs(c, s, &n);
  const PtoInterpValue *ref = pto_level_check_outputs(c, 0, &nref);
  const char *level0 = pto_level_check_level(c, 0);
  bool all = true;
  for (unsigned i = 0; i < n; i++) {
    double rtol, atol;
    PtoCompareResult r;
    bool ok = pto_level_check_compare(c, s, i, &r, &rtol, &atol);
    char s1[PTO_SHAPE_STR_MAX], s2[PTO_SHAPE_STR_MAX];
    if (r.numel < 0) {
      uint64_t b1, b2;
      PtoNdArray g = pto_interp_value_array(&got[i], &b1);
      PtoNdArray e = pto_interp_value_array(&ref[i], &b2);
      printf("%s: out%u has shape %s, the %s level's %s - MISMATCH\n", stage, i,
             pto_shape_str(s1, g.rank, g.shape), level0,
             pto_shape_str(s2, e.rank, e.shape));
      all = false;
      continue;
    }
    printf("%s: out%u max abs err %.3g, max rel err %.3g - %s", stage, i,
           r.max_abs_diff, r.max_rel_diff, ok ? "ok" : "MISMATCH");
    if (!ok)
      printf(": %" PRId64 " of %" PRId64 " elements beyond rtol=%g atol=%g, "
             "worst at %s: got %.9g, expected %.9g",
             r.num_mismatched, r.numel, rtol, atol,
             pto_shape_str(s1, got[i].kind == PTO_IVAL_TENSOR
                                   ? pto_tensor_rank(got[i].tensor) : 0,
                           r.worst_index),
             r.worst_got, r.worst_expected);
    printf("\n");
    all &= ok;
  }
  return all;
}

/* What a level's traced values are: "tiles" for the Tile level, and the
 * names that are not the level's own. */
static void plural_name(char *buf, size_t size, const char *level) {
  static const char *const named[][2] = {{"Block", "buffers"}, {"PTO", "tiles"}};
  for (unsigned i = 0; i < sizeof named / sizeof named[0]; i++)
    if (strcmp(level, named[i][0]) == 0) {
      snprintf(buf, size, "%s", named[i][1]);
      return;
    }
  size_t n = 0;
  for (; level[n] && n + 2 < size; n++)
    buf[n] = (char)(level[n] >= 'A' && level[n] <= 'Z' ? level[n] - 'A' + 'a'
                                                       : level[n]);
  buf[n++] = 's';
  buf[n] = 0;
}

static void release_values(PtoInterpValue *v, unsigned n) {
  for (unsigned i = 0; i < n; i++) pto_interp_value_release(&v[i]);
  pto_free(v);
}

/* The stage --perturb-tile-op changes: the first one a lowering made. */
static PtoOp *first_lowered_module(PtoLevelCheck *c) {
  for (unsigned s = 1; s < pto_level_check_num_stages(c); s++)
    if (pto_level_check_lowered(c, s)) return pto_level_check_module(c, s);
  return NULL;
}

int run_check_levels(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                     PtoInterpRegisterFn interp_fn) {
  PtoOp *func = run_find_entry(o, module);
  if (!func) return 1;
  PtoLevelCheck *c = pto_level_check_create_for(
      ctx, module, o->pass_pipeline, o->platform, o->have_rtol ? o->rtol : -1,
      o->have_atol ? o->atol : -1);
  if (!c) return 1;
  unsigned nargs = pto_block_num_args(pto_region_first_block(pto_op_region(func, 0)));
  PtoInterpValue *args = pto_calloc(nargs ? nargs : 1, sizeof *args);
  int rc = 1;
  InterpMaker maker = {o, interp_fn, 0};
  const char *name = pto_ident_str(pto_op_symbol_name(func));
  unsigned nstages = pto_level_check_num_stages(c);
  if (!run_make_inputs(o, ctx, func, args)) goto done;
  if (o->perturb) {
    PtoOp *m = first_lowered_module(c);
    if (!m) {
      run_error(o, "--perturb-tile-op: the pipeline has no lowering");
      goto done;
    }
    if (!perturb(o, ctx, m)) goto done;
  }
  if (pto_level_check_run(c, name, args, nargs, new_interp, &maker)) goto done;
  unsigned nref;
  const PtoInterpValue *ref = pto_level_check_outputs(c, 0, &nref);
  for (unsigned i = 0; i < nref && !o->quiet; i++) {
    char *ts = pto_interp_value_to_string(&ref[i]);
    printf("%s level: @%s out%u %s (the reference)\n",
           pto_level_check_level(c, 0), name, i, ts);
    pto_free(ts);
  }
  bool ok = true;
  unsigned first_bad = 0; /* the first stage whose outputs differ */
  char label[512], what[64], from[64];
  for (unsigned s = 1; s < nstages; s++) {
    snprintf(label, sizeof label, "%s level after '%s'",
             pto_level_check_level(c, s), pto_level_check_pipeline(c, s));
    bool stage_ok = report_stage(c, s, label);
    if (!stage_ok && !first_bad) first_bad = s;
    ok &= stage_ok;
  }
  unsigned traced_bad = 0; /* the first stage with a traced value differing */
  for (unsigned s = 1; s < nstages; s++) {
    if (!pto_level_check_lowered(c, s)) continue;
    int64_t differ = pto_level_check_traced_differing(c, s);
    plural_name(what, sizeof what, pto_level_check_level(c, s));
    snprintf(from, sizeof from, "%s", pto_level_check_level(c, s - 1));
    if (differ)
      printf("%s level: %" PRId64 " %s compared with the %s-level values "
             "they came from, %" PRId64 " differ\n",
             pto_level_check_level(c, s), pto_level_check_traced_checked(c, s),
             what, from, differ);
    else
      printf("%s level: %" PRId64 " %s compared with the %s-level values "
             "they came from, all within tolerance\n",
             pto_level_check_level(c, s), pto_level_check_traced_checked(c, s),
             what, from);
    if (differ && !traced_bad) traced_bad = s;
  }
  if (pto_level_check_stopped(c)) printf("note: %s\n", pto_level_check_stopped(c));
  fflush(stdout);
  if (!ok && !pto_level_check_lowered(c, first_bad)) {
    run_error(o, "the outputs differ from the %s level already after '%s', "
                 "before any lowering: the difference predates the first "
                 "traced op, so no op can be named",
              pto_level_check_level(c, 0), pto_level_check_pipeline(c, first_bad));
  } else if (traced_bad) {
    pto_level_check_report_traced(c, traced_bad, ok);
  } else if (!ok) {
    plural_name(what, sizeof what, pto_level_check_level(c, first_bad));
    run_error(o, "no traced %.*s differs from the %s level; the difference "
                 "arises in ops '%s' does not trace (workspaces, assembles, or "
                 "passes after the lowering)",
              (int)strlen(what) - 1, what,
              pto_level_check_level(c, first_bad - 1),
              pto_level_check_pipeline(c, first_bad));
  }
  rc = ok ? 0 : 1;
  /* the compiled path, as one more level compared with the reference */
  if (o->backend & PTO_RT_HOST &&
      run_backend_compare(o, ctx, module, args, nargs, ref, nref))
    rc = 1;
done:
  release_values(args, nargs);
  pto_level_check_destroy(c);
  return rc;
}
