/* pto-run --check-levels: the per-pass precision check
 * (include/pto/LevelCheck.h) on the tool's inputs, reported per stage and
 * output, with --perturb-tile-op to make a Tile-level op wrong on
 * purpose. */
#include "Tools/RunInternal.h"

#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/LevelCheck.h"

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
  PtoTileOrigin o;
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoType *t = pto_value_type(pto_op_result(op, i));
    if (!pto_type_is_tile(t) || !pto_elem_is_numeric(pto_tile_elem(t)) ||
        !pto_tile_get_origin(op, i, &o))
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
  PtoTileOrigin org;
  pto_tile_get_origin(p.op, p.res, &org);
  pto_tile_set_origin(adds, 0, &org);
  pto_op_remove_attr(p.op, PTO_TILE_ORIGIN_ATTR);
  return true;
}

/* ------------------------------------------------------------------ */
/* Stages and the report                                                */
/* ------------------------------------------------------------------ */

typedef struct InterpMaker {
  const RunOptions *o;
  PtoInterpRegisterFn interp_fn;
} InterpMaker;

static PtoInterp *new_interp(PtoContext *ctx, void *user) {
  const InterpMaker *m = user;
  PtoInterp *I = pto_interp_create(ctx, &m->o->interp);
  if (m->interp_fn) m->interp_fn(I);
  return I;
}

/* One line per output: its error against the reference. */
static bool report_stage(PtoLevelCheck *c, PtoLevelStage s, const char *stage) {
  unsigned n;
  const PtoInterpValue *got = pto_level_check_outputs(c, s, &n);
  bool all = true;
  for (unsigned i = 0; i < n; i++) {
    double rtol, atol;
    PtoCompareResult r;
    bool ok = pto_level_check_compare(c, s, i, &r, &rtol, &atol);
    char s1[PTO_SHAPE_STR_MAX], s2[PTO_SHAPE_STR_MAX];
    if (r.numel < 0) {
      unsigned nref;
      const PtoInterpValue *ref = pto_level_check_outputs(c, PTO_LEVEL_TENSOR, &nref);
      uint64_t b1, b2;
      PtoNdArray g = pto_interp_value_array(&got[i], &b1);
      PtoNdArray e = pto_interp_value_array(&ref[i], &b2);
      printf("%s: out%u has shape %s, the Tensor level's %s - MISMATCH\n", stage,
             i, pto_shape_str(s1, g.rank, g.shape), pto_shape_str(s2, e.rank, e.shape));
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

static void release_values(PtoInterpValue *v, unsigned n) {
  for (unsigned i = 0; i < n; i++) pto_interp_value_release(&v[i]);
  pto_free(v);
}

int run_check_levels(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                     PtoInterpRegisterFn interp_fn) {
  PtoOp *func = run_find_entry(o, module);
  if (!func) return 1;
  PtoLevelCheck *c = pto_level_check_create(ctx, module, o->pass_pipeline,
                                            o->have_rtol ? o->rtol : -1,
                                            o->have_atol ? o->atol : -1);
  if (!c) return 1;
  unsigned nargs = pto_block_num_args(pto_region_first_block(pto_op_region(func, 0)));
  PtoInterpValue *args = pto_calloc(nargs ? nargs : 1, sizeof *args);
  int rc = 1;
  InterpMaker maker = {o, interp_fn};
  const char *name = pto_ident_str(pto_op_symbol_name(func));
  if (!run_make_inputs(o, ctx, func, args)) goto done;
  if (o->perturb && !perturb(o, ctx, pto_level_check_module(c, PTO_LEVEL_TILE)))
    goto done;
  if (pto_level_check_run(c, name, args, nargs, new_interp, &maker)) goto done;
  unsigned nref;
  const PtoInterpValue *ref = pto_level_check_outputs(c, PTO_LEVEL_TENSOR, &nref);
  for (unsigned i = 0; i < nref && !o->quiet; i++) {
    char *ts = pto_interp_value_to_string(&ref[i]);
    printf("Tensor level: @%s out%u %s (the reference)\n", name, i, ts);
    pto_free(ts);
  }
  bool ok = true;
  char label[512];
  if (pto_level_check_module(c, PTO_LEVEL_TENSOR_PRE)) {
    snprintf(label, sizeof label, "Tensor level after '%s'",
             pto_level_check_pipeline(c, PTO_LEVEL_TENSOR_PRE));
    ok &= report_stage(c, PTO_LEVEL_TENSOR_PRE, label);
  }
  snprintf(label, sizeof label, "Tile level after '%s'",
           pto_level_check_pipeline(c, PTO_LEVEL_TILE));
  ok &= report_stage(c, PTO_LEVEL_TILE, label);
  int64_t differ = pto_level_check_tiles_differing(c);
  if (differ)
    printf("Tile level: %" PRId64 " tiles compared with the Tensor-level values "
           "they came from, %" PRId64 " differ\n",
           pto_level_check_tiles_checked(c), differ);
  else
    printf("Tile level: %" PRId64 " tiles compared with the Tensor-level values "
           "they came from, all within tolerance\n",
           pto_level_check_tiles_checked(c));
  fflush(stdout);
  if (differ) pto_level_check_report_tile(c, ok);
  else if (!ok)
    run_error(o, "no traced tile differs from the Tensor level; the difference "
                 "arises in ops tile-expand does not trace (workspaces, "
                 "assembles, or passes after tile-expand)");
  rc = ok ? 0 : 1;
done:
  release_values(args, nargs);
  pto_level_check_destroy(c);
  return rc;
}
