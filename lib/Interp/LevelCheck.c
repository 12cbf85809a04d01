/* The per-stage precision check (include/pto/LevelCheck.h). To find where
 * a Tile-level program goes wrong, the run of the module the tiles are
 * traced to records every pypto op's results, and the Tile run compares
 * each tile that tile-expand traced to a Tensor-level result (tile.origin)
 * with the window of that result it stands for; the k-th execution of a
 * tile op is matched with the k-th execution of its origin (loops run both
 * the same number of times). */
#include "pto/LevelCheck.h"

#include "pto/Dialect/Tile.h"
#include "pto/InterpKernels.h"
#include "pto/Pass.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Str.h"
#include "Support/Vec.h"

#include <inttypes.h>
#include <string.h>

typedef PTO_VEC(PtoInterpValue) ValVec;

typedef struct StageOut {
  PtoInterpValue *vals;
  unsigned n;
} StageOut;

struct PtoLevelCheck {
  PtoContext *ctx;
  PtoOp *modules[PTO_LEVEL_NUM_STAGES]; /* [TENSOR] is borrowed */
  char *pipelines[PTO_LEVEL_NUM_STAGES];
  double rtol, atol;                    /* < 0: the dtype's default */
  PtoOp **ref_ops;   /* the pypto ops of the recorded module, numbered */
  unsigned nref;
  PtoPtrMap ordinal; /* recorded pypto op -> number + 1 */
  ValVec *recs;      /* per number: the results of each execution */
  PtoPtrMap seen;    /* tile op -> executions so far */
  int64_t checked;   /* tiles compared */
  int64_t differ;    /* of which beyond tolerance */
  StageOut outs[PTO_LEVEL_NUM_STAGES];
  /* The first tile that differs. */
  PtoOp *bad;
  PtoTileOrigin origin;
  int64_t exec;
  int64_t index[PTO_MAX_RANK]; /* worst element, in the origin result */
  PtoCompareResult cmp;
  double bad_rtol, bad_atol;
};

PtoNdArray pto_interp_value_array(const PtoInterpValue *v, uint64_t *buf) {
  if (v->kind == PTO_IVAL_TENSOR) return *pto_tensor_array(v->tensor);
  if (pto_dtype_is_float(v->dtype)) pto_dtype_store_f64(v->dtype, buf, 0, v->f);
  else pto_dtype_store_i64(v->dtype, buf, 0, v->i);
  return pto_ndarray_scalar_view(v->dtype, buf);
}

static void tolerance(const PtoLevelCheck *c, PtoDType dt, double *rtol,
                      double *atol) {
  pto_default_tolerance(dt, rtol, atol);
  if (c->rtol >= 0) *rtol = c->rtol;
  if (c->atol >= 0) *atol = c->atol;
}

/* ------------------------------------------------------------------ */
/* The pipeline: passes before tile-expand, tile-expand, passes after   */
/* ------------------------------------------------------------------ */

/* Splits the canonical text `builtin.module(a,b{...},c(...))` at its
 * first top-level tile-expand (appended with its defaults when there is
 * none) and turns provenance on. */
static bool split_pipeline(PtoContext *ctx, const char *pipeline, char **pre_out,
                           char **tile_out) {
  char *canon = NULL;
  if (pipeline) {
    PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
    bool ok = pto_pm_add_pipeline(pm, pipeline) == PTO_SUCCESS;
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
  *pre_out = pre.len ? pto_str_take(&pre) : NULL;
  *tile_out = pto_str_take(&tile);
  pto_str_release(&pre);
  pto_free(canon);
  return true;
}

static bool apply_pipeline(PtoContext *ctx, PtoOp *module, const char *pipeline) {
  PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
  bool ok = pto_pm_add_pipeline(pm, pipeline) == PTO_SUCCESS &&
            pto_pm_run(pm, module) == PTO_SUCCESS;
  pto_pm_destroy(pm);
  return ok;
}

PtoLevelCheck *pto_level_check_create(PtoContext *ctx, PtoOp *module,
                                      const char *pipeline, double rtol,
                                      double atol) {
  char *pre = NULL, *tile = NULL;
  if (!split_pipeline(ctx, pipeline, &pre, &tile)) return NULL;
  PtoLevelCheck *c = pto_calloc(1, sizeof *c);
  c->ctx = ctx;
  c->rtol = rtol;
  c->atol = atol;
  pto_ptrmap_init(&c->ordinal);
  pto_ptrmap_init(&c->seen);
  c->modules[PTO_LEVEL_TENSOR] = module;
  c->pipelines[PTO_LEVEL_TENSOR] = pto_strndup("", 0);
  c->pipelines[PTO_LEVEL_TENSOR_PRE] = pre;
  c->pipelines[PTO_LEVEL_TILE] = tile;
  /* The module whose pypto ops the tiles are traced to: the input, or the
   * input after the Tensor-level passes. */
  PtoOp *traced = module;
  if (pre) {
    traced = c->modules[PTO_LEVEL_TENSOR_PRE] = pto_op_clone(module, NULL);
    if (!apply_pipeline(ctx, traced, pre)) goto fail;
  }
  c->nref = pto_tile_origin_ops(traced, &c->ref_ops);
  c->recs = pto_calloc(c->nref ? c->nref : 1, sizeof *c->recs);
  for (unsigned i = 0; i < c->nref; i++)
    pto_ptrmap_put(&c->ordinal, (uint64_t)(uintptr_t)c->ref_ops[i],
                   (void *)(uintptr_t)(i + 1));
  c->modules[PTO_LEVEL_TILE] = pto_op_clone(traced, NULL);
  if (!apply_pipeline(ctx, c->modules[PTO_LEVEL_TILE], tile)) goto fail;
  return c;
fail:
  pto_level_check_destroy(c);
  return NULL;
}

static void release_outputs(StageOut *o) {
  for (unsigned i = 0; i < o->n; i++) pto_interp_value_release(&o->vals[i]);
  pto_free(o->vals);
  o->vals = NULL;
  o->n = 0;
}

/* Forgets what the last run recorded. */
static void reset(PtoLevelCheck *c) {
  for (unsigned s = 0; s < PTO_LEVEL_NUM_STAGES; s++) release_outputs(&c->outs[s]);
  for (unsigned i = 0; i < c->nref; i++) {
    pto_vec_foreach(&c->recs[i], v) pto_interp_value_release(v);
    pto_vec_clear(&c->recs[i]);
  }
  pto_ptrmap_release(&c->seen);
  pto_ptrmap_init(&c->seen);
  c->checked = c->differ = 0;
  c->bad = NULL;
}

void pto_level_check_destroy(PtoLevelCheck *c) {
  if (!c) return;
  reset(c);
  for (unsigned i = 0; i < c->nref; i++) pto_vec_free(&c->recs[i]);
  pto_free(c->recs);
  pto_free(c->ref_ops);
  pto_ptrmap_release(&c->ordinal);
  pto_ptrmap_release(&c->seen);
  for (unsigned s = PTO_LEVEL_TENSOR_PRE; s < PTO_LEVEL_NUM_STAGES; s++)
    if (c->modules[s]) pto_op_destroy(c->modules[s]);
  for (unsigned s = 0; s < PTO_LEVEL_NUM_STAGES; s++) pto_free(c->pipelines[s]);
  pto_free(c);
}

PtoOp *pto_level_check_module(PtoLevelCheck *c, PtoLevelStage s) {
  return s < PTO_LEVEL_NUM_STAGES ? c->modules[s] : NULL;
}

const char *pto_level_check_pipeline(PtoLevelCheck *c, PtoLevelStage s) {
  return s < PTO_LEVEL_NUM_STAGES && c->pipelines[s] ? c->pipelines[s] : "";
}

/* ------------------------------------------------------------------ */
/* Observers                                                            */
/* ------------------------------------------------------------------ */

static PtoResult record(PtoOp *op, const PtoInterpValue *res, unsigned n,
                        void *user) {
  PtoLevelCheck *c = user;
  uintptr_t k = (uintptr_t)pto_ptrmap_get(&c->ordinal, (uint64_t)(uintptr_t)op);
  if (k)
    for (unsigned i = 0; i < n; i++)
      pto_vec_push(&c->recs[k - 1], pto_interp_value_copy(&res[i]));
  return PTO_SUCCESS;
}

/* Compares one tile with the window of the Tensor-level result it came
 * from; records the first that differs. */
static void check_one(PtoLevelCheck *c, PtoOp *op, PtoType *tt, PtoTensor *tile,
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
  tolerance(c, ra->dtype, &rtol, &atol);
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
  c->bad_rtol = rtol;
  c->bad_atol = atol;
  for (unsigned d = 0; d < ra->rank; d++)
    c->index[d] = o->offsets[d] + r.worst_index[d];
}

static PtoResult check_tiles(PtoOp *op, const PtoInterpValue *res, unsigned n,
                             void *user) {
  PtoLevelCheck *c = user;
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
/* Running and comparing                                                */
/* ------------------------------------------------------------------ */

static PtoResult run_stage(PtoLevelCheck *c, PtoLevelStage s, const char *name,
                           const PtoInterpValue *args, unsigned nargs,
                           PtoInterpObserver obs, PtoLevelInterpFn new_interp,
                           void *user) {
  PtoOp *module = c->modules[s];
  PtoOp *func = pto_symbol_lookup(module, name);
  if (!func || !pto_op_is(func, "func.func"))
    return pto_emit_error(c->ctx, pto_op_loc(module),
                          "the %s stage has no function @%s",
                          s == PTO_LEVEL_TILE ? "Tile-level" : "Tensor-level", name);
  PtoInterp *I = new_interp ? new_interp(c->ctx, user) : pto_interp_create(c->ctx, NULL);
  if (obs) pto_interp_set_observer(I, obs, c);
  StageOut *o = &c->outs[s];
  PtoResult r = pto_interp_run(I, func, args, nargs, &o->vals, &o->n);
  pto_interp_destroy(I);
  return r;
}

PtoResult pto_level_check_run(PtoLevelCheck *c, const char *func_name,
                              const PtoInterpValue *args, unsigned nargs,
                              PtoLevelInterpFn new_interp, void *user) {
  reset(c);
  bool pre = c->modules[PTO_LEVEL_TENSOR_PRE] != NULL;
  if (run_stage(c, PTO_LEVEL_TENSOR, func_name, args, nargs, pre ? NULL : record,
                new_interp, user))
    return PTO_FAILURE;
  if (pre && run_stage(c, PTO_LEVEL_TENSOR_PRE, func_name, args, nargs, record,
                       new_interp, user))
    return PTO_FAILURE;
  return run_stage(c, PTO_LEVEL_TILE, func_name, args, nargs, check_tiles,
                   new_interp, user);
}

const PtoInterpValue *pto_level_check_outputs(PtoLevelCheck *c, PtoLevelStage s,
                                              unsigned *n) {
  if (s >= PTO_LEVEL_NUM_STAGES || !c->outs[s].vals) {
    *n = 0;
    return NULL;
  }
  *n = c->outs[s].n;
  return c->outs[s].vals;
}

bool pto_level_check_compare(PtoLevelCheck *c, PtoLevelStage s, unsigned i,
                             PtoCompareResult *r, double *rtol, double *atol) {
  memset(r, 0, sizeof *r);
  *rtol = *atol = 0;
  if (s >= PTO_LEVEL_NUM_STAGES) {
    r->numel = -1;
    return false;
  }
  StageOut *got = &c->outs[s], *ref = &c->outs[PTO_LEVEL_TENSOR];
  if (i >= got->n || i >= ref->n) {
    r->numel = -1;
    return false;
  }
  uint64_t b1, b2;
  PtoNdArray g = pto_interp_value_array(&got->vals[i], &b1);
  PtoNdArray e = pto_interp_value_array(&ref->vals[i], &b2);
  if (g.rank != e.rank || memcmp(g.shape, e.shape, g.rank * sizeof(int64_t)) != 0) {
    r->numel = -1;
    return false;
  }
  tolerance(c, e.dtype, rtol, atol);
  return pto_compare_arrays(&g, &e, *rtol, *atol, r);
}

int64_t pto_level_check_tiles_checked(PtoLevelCheck *c) { return c->checked; }
int64_t pto_level_check_tiles_differing(PtoLevelCheck *c) { return c->differ; }

void pto_level_check_report_tile(PtoLevelCheck *c, bool outputs_ok) {
  if (!c->bad) return;
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
      c->cmp.num_mismatched, c->cmp.numel, c->bad_rtol, c->bad_atol,
      at.data ? at.data : "", c->cmp.worst_got, c->cmp.worst_expected);
  pto_diag_note(dg, pto_op_loc(src), "the Tensor-level op it came from");
  pto_diag_emit(dg);
  pto_str_release(&offs);
  pto_str_release(&at);
}
