/* pto-run --check-levels: the per-pass precision check. The same inputs
 * run through the Tensor level, the Tensor level after the passes that
 * precede tile-expand, and the Tile level; each output is compared with
 * the Tensor level's. To find where a Tile-level program goes wrong, the
 * run before tile-expand records every pypto op's results, and the Tile
 * run compares each tile that tile-expand traced to a Tensor-level result
 * (tile.origin) with the window of that result it stands for; the k-th
 * execution of a tile op is matched with the k-th execution of its origin
 * (loops run both the same number of times). */
#include "Tools/RunInternal.h"

#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/Pass.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Str.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef PTO_VEC(PtoInterpValue) ValVec;

typedef struct Check {
  const RunOptions *o;
  PtoContext *ctx;
  PtoOp **ref_ops;   /* the pypto ops of the recorded module, numbered */
  unsigned nref;
  PtoPtrMap ordinal; /* recorded pypto op -> number + 1 */
  ValVec *recs;      /* per number: the results of each execution */
  PtoPtrMap seen;    /* tile op -> executions so far */
  int64_t checked;   /* tiles compared */
  int64_t differ;    /* of which beyond tolerance */
  /* The first tile that differs. */
  PtoOp *bad;
  PtoTileOrigin origin;
  int64_t exec;
  int64_t index[PTO_MAX_RANK]; /* worst element, in the origin result */
  PtoCompareResult cmp;
  double rtol, atol;
} Check;

/* ------------------------------------------------------------------ */
/* The pipeline: passes before tile-expand, tile-expand, passes after   */
/* ------------------------------------------------------------------ */

typedef struct Stages {
  char *pre, *tile; /* pipelines (pre may be NULL) */
} Stages;

/* Splits the canonical text `builtin.module(a,b{...},c(...))` at its
 * first top-level tile-expand (appended with its defaults when there is
 * none) and turns provenance on. */
static bool split_pipeline(const RunOptions *o, PtoContext *ctx, Stages *st) {
  memset(st, 0, sizeof *st);
  char *canon = NULL;
  if (o->pass_pipeline) {
    PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
    bool ok = pto_pm_add_pipeline(pm, o->pass_pipeline) == PTO_SUCCESS;
    if (ok) canon = pto_pm_to_string(pm);
    pto_pm_destroy(pm);
    if (!ok) return false;
  }
  const char *body = canon ? strchr(canon, '(') : NULL;
  size_t blen = body ? strlen(body) : 0;
  if (body) body++, blen = blen >= 2 ? blen - 2 : 0;
  PtoStr pre, tile;
  pto_str_init(&pre);
  pto_str_init(&tile);
  bool seen_te = false;
  for (size_t i = 0; i < blen;) {
    /* one top-level item */
    size_t j = i;
    int depth = 0;
    for (; j < blen && (depth > 0 || body[j] != ','); j++) {
      if (body[j] == '(' || body[j] == '{') depth++;
      else if (body[j] == ')' || body[j] == '}') depth--;
    }
    const char *item = body + i;
    size_t n = j - i;
    bool te = !seen_te && n >= 11 && strncmp(item, "tile-expand", 11) == 0 &&
              (n == 11 || item[11] == '{');
    PtoStr *dst = seen_te || te ? &tile : &pre;
    if (dst->len) pto_str_putc(dst, ',');
    if (te) {
      seen_te = true;
      bool has = memchr(item, '{', n) != NULL;
      bool prov = has && strstr(item, "provenance") != NULL &&
                  (size_t)(strstr(item, "provenance") - item) < n;
      if (prov || !has) {
        pto_str_append(dst, item, n);
        if (!has) pto_str_puts(dst, "{provenance=true}");
      } else {
        pto_str_append(dst, item, n - 1);
        pto_str_puts(dst, " provenance=true}");
      }
    } else {
      pto_str_append(dst, item, n);
    }
    i = j + 1;
  }
  if (!seen_te) {
    if (tile.len) pto_str_putc(&tile, ',');
    pto_str_puts(&tile, "tile-expand{provenance=true}");
  }
  st->pre = pre.len ? pto_str_take(&pre) : NULL;
  st->tile = pto_str_take(&tile);
  pto_str_release(&pre);
  pto_free(canon);
  return true;
}

/* ------------------------------------------------------------------ */
/* Observers                                                            */
/* ------------------------------------------------------------------ */

static PtoResult record(PtoOp *op, const PtoInterpValue *res, unsigned n,
                        void *user) {
  Check *c = user;
  uintptr_t k = (uintptr_t)pto_ptrmap_get(&c->ordinal, (uint64_t)(uintptr_t)op);
  if (k)
    for (unsigned i = 0; i < n; i++)
      pto_vec_push(&c->recs[k - 1], pto_interp_value_copy(&res[i]));
  return PTO_SUCCESS;
}

/* Compares one tile with the window of the Tensor-level result it came
 * from; records the first that differs. */
static void check_one(Check *c, PtoOp *op, PtoType *tt, PtoTensor *tile,
                      const PtoTileOrigin *o, int64_t exec) {
  if (o->op < 0 || (uint64_t)o->op >= c->nref) return;
  unsigned nres = pto_op_num_results(c->ref_ops[o->op]);
  ValVec *rv = &c->recs[o->op];
  uint64_t at = (uint64_t)(exec - 1) * nres + o->result;
  if (o->result >= nres || at >= rv->len) return;
  const PtoInterpValue *ref = &rv->data[at];
  if (ref->kind != PTO_IVAL_TENSOR) return;
  const PtoNdArray *ra = pto_tensor_array(ref->tensor);
  if (o->rank != ra->rank) return;
  int64_t win[PTO_MAX_RANK];
  pto_tile_window_shape(tt, ra->rank, win);
  for (unsigned d = 0; d < ra->rank; d++)
    if (o->offsets[d] < 0 || win[d] > ra->shape[d] ||
        o->offsets[d] > ra->shape[d] - win[d])
      return;
  PtoNdArray exp = *ra;
  exp.data = pto_ndarray_elem_ptr(ra, o->offsets);
  memcpy(exp.shape, win, ra->rank * sizeof *win);
  PtoTensor *ct = pto_tensor_reshape(tile, ra->rank, win); /* contiguous */
  double rtol, atol;
  run_tolerance(c->o, ra->dtype, &rtol, &atol);
  PtoCompareResult r;
  bool ok = pto_compare_arrays(pto_tensor_array(ct), &exp, rtol, atol, &r);
  pto_tensor_release(ct);
  c->checked++;
  if (!ok) c->differ++;
  if (ok || c->bad) return;
  c->bad = op;
  c->origin = *o;
  c->exec = exec;
  c->cmp = r;
  c->rtol = rtol;
  c->atol = atol;
  for (unsigned d = 0; d < ra->rank; d++)
    c->index[d] = o->offsets[d] + r.worst_index[d];
}

static PtoResult check_tiles(PtoOp *op, const PtoInterpValue *res, unsigned n,
                             void *user) {
  Check *c = user;
  if (!pto_op_attr(op, PTO_TILE_ORIGIN_ATTR)) return PTO_SUCCESS;
  uint64_t key = (uint64_t)(uintptr_t)op;
  int64_t exec = (int64_t)(intptr_t)pto_ptrmap_get(&c->seen, key) + 1;
  pto_ptrmap_put(&c->seen, key, (void *)(intptr_t)exec);
  for (unsigned i = 0; i < n; i++) {
    PtoTileOrigin o;
    if (res[i].kind == PTO_IVAL_TENSOR && pto_tile_get_origin(op, i, &o))
      check_one(c, op, pto_value_type(pto_op_result(op, i)), res[i].tensor, &o,
                exec);
  }
  return PTO_SUCCESS;
}

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

static PtoResult run_stage(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                           PtoInterpRegisterFn interp_fn,
                           const PtoInterpValue *args, unsigned nargs,
                           PtoInterpObserver obs, void *user,
                           PtoInterpValue **res, unsigned *nres) {
  PtoOp *func = run_find_entry(o, module);
  if (!func) return PTO_FAILURE;
  PtoInterp *I = pto_interp_create(ctx, &o->interp);
  if (interp_fn) interp_fn(I);
  if (obs) pto_interp_set_observer(I, obs, user);
  PtoResult r = pto_interp_run(I, func, args, nargs, res, nres);
  pto_interp_destroy(I);
  return r;
}

/* One line per output: its error against the reference. */
static bool report_stage(const RunOptions *o, PtoContext *ctx,
                         const char *stage, const PtoInterpValue *ref,
                         const PtoInterpValue *got, unsigned n) {
  bool all = true;
  for (unsigned i = 0; i < n; i++) {
    uint64_t b1, b2;
    PtoNdArray g = run_value_array(&got[i], &b1), e = run_value_array(&ref[i], &b2);
    char s1[PTO_SHAPE_STR_MAX];
    if (g.rank != e.rank ||
        memcmp(g.shape, e.shape, g.rank * sizeof(int64_t)) != 0) {
      printf("%s: out%u has shape %s, the Tensor level's %s - MISMATCH\n", stage,
             i, pto_shape_str(s1, g.rank, g.shape),
             pto_shape_str(s1, e.rank, e.shape));
      all = false;
      continue;
    }
    double rtol, atol;
    run_tolerance(o, e.dtype, &rtol, &atol);
    PtoCompareResult r;
    bool ok = pto_compare_arrays(&g, &e, rtol, atol, &r);
    printf("%s: out%u max abs err %.3g, max rel err %.3g - %s", stage, i,
           r.max_abs_diff, r.max_rel_diff, ok ? "ok" : "MISMATCH");
    if (!ok)
      printf(": %" PRId64 " of %" PRId64 " elements beyond rtol=%g atol=%g, "
             "worst at %s: got %.9g, expected %.9g",
             r.num_mismatched, r.numel, rtol, atol,
             pto_shape_str(s1, g.rank, r.worst_index), r.worst_got,
             r.worst_expected);
    printf("\n");
    all &= ok;
  }
  (void)ctx;
  return all;
}

/* Error when the outputs differ, warning when only a traced tile does. */
static void report_first_bad(const Check *c, bool outputs_ok) {
  const PtoTileOrigin *o = &c->origin;
  PtoOp *src = c->ref_ops[o->op];
  PtoStr offs, at;
  pto_str_init(&offs);
  pto_str_init(&at);
  for (unsigned d = 0; d < o->rank; d++) {
    pto_str_printf(&offs, "%s%" PRId64, d ? ", " : "", o->offsets[d]);
    pto_str_printf(&at, "%s%" PRId64, d ? ", " : "", c->index[d]);
  }
  PtoDiag *dg = pto_op_diag(
      c->bad, outputs_ok ? PTO_DIAG_WARNING : PTO_DIAG_ERROR,
      "is the first tile op whose value differs from the Tensor level: its "
      "tile at [%s] of result #%u of '%s' (execution %" PRId64 ") has %" PRId64
      " of %" PRId64 " elements beyond rtol=%g atol=%g; at [%s]: got %.9g, "
      "expected %.9g",
      offs.data ? offs.data : "", o->result, pto_op_name_str(src), c->exec,
      c->cmp.num_mismatched, c->cmp.numel, c->rtol, c->atol,
      at.data ? at.data : "", c->cmp.worst_got, c->cmp.worst_expected);
  pto_diag_note(dg, pto_op_loc(src), "the Tensor-level op it came from");
  pto_diag_emit(dg);
  pto_str_release(&offs);
  pto_str_release(&at);
}

static void release_values(PtoInterpValue *v, unsigned n) {
  for (unsigned i = 0; i < n; i++) pto_interp_value_release(&v[i]);
  pto_free(v);
}

int run_check_levels(const RunOptions *o, PtoContext *ctx, PtoOp *module,
                     PtoInterpRegisterFn interp_fn) {
  Stages st;
  if (!split_pipeline(o, ctx, &st)) return 1;
  PtoOp *func = run_find_entry(o, module);
  PtoOp *pre = NULL, *tile = NULL;
  unsigned nargs = 0, nref = 0, ntile = 0, npre = 0;
  PtoInterpValue *args = NULL, *ref = NULL, *out_pre = NULL, *out_tile = NULL;
  Check c;
  memset(&c, 0, sizeof c);
  c.o = o;
  c.ctx = ctx;
  pto_ptrmap_init(&c.ordinal);
  pto_ptrmap_init(&c.seen);
  int rc = 1;
  if (!func) goto done;
  nargs = pto_block_num_args(pto_region_first_block(pto_op_region(func, 0)));
  args = pto_calloc(nargs ? nargs : 1, sizeof *args);
  if (!run_make_inputs(o, ctx, func, args)) goto done;

  /* The module whose pypto ops the tiles are traced to: the input, or the
   * input after the Tensor-level passes. */
  PtoOp *traced = module;
  if (st.pre) {
    pre = pto_op_clone(module, NULL);
    if (!run_apply_pipeline(ctx, pre, st.pre)) goto done;
    traced = pre;
  }
  c.nref = pto_tile_origin_ops(traced, &c.ref_ops);
  c.recs = pto_calloc(c.nref ? c.nref : 1, sizeof *c.recs);
  for (unsigned i = 0; i < c.nref; i++)
    pto_ptrmap_put(&c.ordinal, (uint64_t)(uintptr_t)c.ref_ops[i],
                   (void *)(uintptr_t)(i + 1));
  tile = pto_op_clone(traced, NULL);
  if (!run_apply_pipeline(ctx, tile, st.tile)) goto done;
  if (o->perturb && !perturb(o, ctx, tile)) goto done;

  const char *name = pto_ident_str(pto_op_symbol_name(func));
  if (run_stage(o, ctx, module, interp_fn, args, nargs, pre ? NULL : record,
                &c, &ref, &nref))
    goto done;
  for (unsigned i = 0; i < nref && !o->quiet; i++) {
    char *ts = pto_interp_value_to_string(&ref[i]);
    printf("Tensor level: @%s out%u %s (the reference)\n", name, i, ts);
    pto_free(ts);
  }
  bool ok = true;
  char label[512];
  if (pre) {
    if (run_stage(o, ctx, pre, interp_fn, args, nargs, record, &c, &out_pre,
                  &npre))
      goto done;
    snprintf(label, sizeof label, "Tensor level after '%s'", st.pre);
    ok &= report_stage(o, ctx, label, ref, out_pre, npre);
  }
  if (run_stage(o, ctx, tile, interp_fn, args, nargs, check_tiles, &c,
                &out_tile, &ntile))
    goto done;
  snprintf(label, sizeof label, "Tile level after '%s'", st.tile);
  ok &= report_stage(o, ctx, label, ref, out_tile, ntile);
  if (c.differ)
    printf("Tile level: %" PRId64 " tiles compared with the Tensor-level values "
           "they came from, %" PRId64 " differ\n",
           c.checked, c.differ);
  else
    printf("Tile level: %" PRId64 " tiles compared with the Tensor-level values "
           "they came from, all within tolerance\n",
           c.checked);
  fflush(stdout);
  if (c.bad) report_first_bad(&c, ok);
  else if (!ok)
    run_error(o, "no traced tile differs from the Tensor level; the difference "
                 "arises in ops tile-expand does not trace (workspaces, "
                 "assembles, or passes after tile-expand)");
  rc = ok ? 0 : 1;
done:
  if (args) release_values(args, nargs);
  if (ref) release_values(ref, nref);
  if (out_pre) release_values(out_pre, npre);
  if (out_tile) release_values(out_tile, ntile);
  for (unsigned i = 0; i < c.nref; i++) {
    pto_vec_foreach(&c.recs[i], v) pto_interp_value_release(v);
    pto_vec_free(&c.recs[i]);
  }
  pto_free(c.recs);
  pto_free(c.ref_ops);
  pto_ptrmap_release(&c.ordinal);
  pto_ptrmap_release(&c.seen);
  if (pre) pto_op_destroy(pre);
  if (tile) pto_op_destroy(tile);
  pto_free(st.pre);
  pto_free(st.tile);
  return rc;
}
