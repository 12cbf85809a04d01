/* The per-stage precision check (include/pto/LevelCheck.h) for any number
 * of levels. A stage made by a lowering is traced to the stage before: the
 * run of the stage before records the results of every op some traced
 * value refers to (pto.origin), and the run of the lowered stage compares
 * each traced value with the window of the recorded result it stands for;
 * the k-th execution of a traced op is matched with the k-th execution of
 * its origin (loops run both the same number of times). Nothing here knows
 * a level or a pass by name: the pass definitions say which passes are
 * lowerings and which levels they join. */
#include "pto/LevelCheck.h"

#include "pto/Kernels.h"
#include "pto/Origin.h"
#include "pto/Pass.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Str.h"
#include "Support/Vec.h"

#include <inttypes.h>
#include <string.h>

typedef PTO_VEC(PtoInterpValue) ValVec;
typedef PTO_VEC(char *) StrVec;
typedef PTO_VEC(const PtoPassDef *) DefVec;

typedef struct Stage {
  PtoOp *module;      /* stage 0's is borrowed */
  char *pipeline;     /* the passes that made it from the stage before */
  const char *level;  /* the name of its level */
  bool lowered;       /* made by a lowering: traced to the stage before */
  /* As the stage a lowered one is traced to: its ops in pto_origin_ops
   * order, which of them are referred to (op -> number + 1), and the
   * results of each execution of those. */
  PtoOp **ops;
  unsigned nops;
  PtoPtrMap wanted;
  ValVec *recs;       /* per op number */
  /* As a lowered stage. */
  PtoPtrMap seen;     /* traced op -> executions so far */
  int64_t checked, differ;
  PtoOp *bad;         /* the first traced op whose value differs */
  PtoOrigin origin;
  int64_t exec;
  int64_t index[PTO_MAX_RANK]; /* worst element, in the origin result */
  PtoCompareResult cmp;
  double bad_rtol, bad_atol;
  /* Outputs of the last run. */
  PtoInterpValue *outs;
  unsigned nouts;
} Stage;

struct PtoLevelCheck {
  PtoContext *ctx;
  Stage *stages;
  unsigned nstages;
  /* Why the default chain stopped before its last level, or NULL. */
  char *stopped;
  double rtol, atol; /* < 0: the default of the computation's precision */
  /* (stage, op number, result) -> the lowest-precision dtype + 1 in the
   * computation of that result, and the same for the reference's outputs. */
  PtoPtrMap low_dtype;
  const char *func_name; /* of the last run */
};

PtoNdArray pto_interp_value_array(const PtoInterpValue *v, uint64_t *buf) {
  if (v->kind == PTO_IVAL_TENSOR) return *pto_tensor_array(v->tensor);
  if (pto_dtype_is_float(v->dtype)) pto_dtype_store_f64(v->dtype, buf, 0, v->f);
  else pto_dtype_store_i64(v->dtype, buf, 0, v->i);
  return pto_ndarray_scalar_view(v->dtype, buf);
}

/* ------------------------------------------------------------------ */
/* Tolerance: the lowest precision in the computation of a value        */
/* ------------------------------------------------------------------ */

/* Lowers *low to the float element type of `t` (tensors, scalars, and
 * dialect types through their type parameters) when that is less precise. */
static void lower_to_type(const PtoType *t, PtoDType *low, unsigned depth) {
  if (!t || depth > 4) return;
  if (pto_type_is_tensor(t)) t = pto_type_tensor_elem(t);
  PtoDType dt;
  if (pto_type_is_float(t)) {
    if (!pto_dtype_from_type(t, &dt)) return;
    double r1, a1, r2, a2;
    pto_default_tolerance(dt, &r1, &a1);
    pto_default_tolerance(*low, &r2, &a2);
    if (!pto_dtype_is_float(*low) || r1 > r2) *low = dt;
    return;
  }
  if (pto_type_kind(t) == PTO_TYPE_DIALECT)
    for (unsigned i = 0; i < pto_type_num_types(t); i++)
      lower_to_type(pto_type_type_param(t, i), low, depth + 1);
}

typedef PTO_VEC(PtoValue *) ValueVec;

typedef struct Slice {
  PtoDType low;
  ValueVec work;
  PtoPtrMap done; /* ops visited */
} Slice;

static PtoWalkResult slice_nested(PtoOp *op, void *user) {
  Slice *s = user;
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    pto_vec_push(&s->work, pto_op_operand(op, i));
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    lower_to_type(pto_value_type(pto_op_result(op, i)), &s->low, 0);
  return PTO_WALK_ADVANCE;
}

/* Visits the op a value comes from: its operands, and everything computed
 * in its regions (a loop's body makes its results). */
static void slice_op(Slice *s, PtoOp *op) {
  if (!op || pto_op_is(op, "func.func") ||
      pto_ptrmap_get(&s->done, (uint64_t)(uintptr_t)op))
    return;
  pto_ptrmap_put(&s->done, (uint64_t)(uintptr_t)op, (void *)1);
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    pto_vec_push(&s->work, pto_op_operand(op, i));
  for (unsigned i = 0; i < pto_op_num_regions(op); i++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(op, i)); b;
         b = pto_block_next(b)) {
      for (unsigned j = 0; j < pto_block_num_args(b); j++)
        lower_to_type(pto_value_type(pto_block_arg(b, j)), &s->low, 0);
      for (PtoOp *in = pto_block_first_op(b); in; in = pto_op_next(in))
        pto_op_walk(in, PTO_WALK_PRE, slice_nested, s);
    }
}

/* The least precise float dtype in the computation of `v` (its backward
 * slice within its function), or v's own dtype when nothing is less
 * precise. Integer values compare exactly and keep their dtype. */
static PtoDType slice_dtype(PtoValue *v, PtoDType own) {
  if (!pto_dtype_is_float(own)) return own;
  Slice s = {own, {0}, {0}};
  pto_ptrmap_init(&s.done);
  pto_vec_push(&s.work, v);
  while (s.work.len) {
    PtoValue *x = s.work.data[--s.work.len];
    lower_to_type(pto_value_type(x), &s.low, 0);
    slice_op(&s, pto_value_is_block_arg(x)
                     ? pto_block_parent_op(pto_value_owner_block(x))
                     : pto_value_def_op(x));
  }
  pto_vec_free(&s.work);
  pto_ptrmap_release(&s.done);
  return s.low;
}

/* The dtype whose tolerance applies to result `res` of `op` (cached under
 * `key`). */
static PtoDType low_dtype(PtoLevelCheck *c, uint64_t key, PtoValue *v,
                          PtoDType own) {
  uintptr_t k = (uintptr_t)pto_ptrmap_get(&c->low_dtype, key);
  if (k) return (PtoDType)(k - 1);
  PtoDType dt = slice_dtype(v, own);
  pto_ptrmap_put(&c->low_dtype, key, (void *)(uintptr_t)(dt + 1));
  return dt;
}

static void tolerance(const PtoLevelCheck *c, PtoDType dt, double *rtol,
                      double *atol) {
  pto_default_tolerance(dt, rtol, atol);
  if (c->rtol >= 0) *rtol = c->rtol;
  if (c->atol >= 0) *atol = c->atol;
}

/* ------------------------------------------------------------------ */
/* The stages: cut the pipeline at its lowerings                        */
/* ------------------------------------------------------------------ */

/* The lowering an item of a pipeline (`name{opts}` or `anchor(...)`) runs,
 * or NULL. */
static const PtoPassDef *item_lowering(PtoContext *ctx, const char *item,
                                       size_t n) {
  size_t k = 0;
  while (k < n && item[k] != '{' && item[k] != '(') k++;
  char *name = pto_strndup(item, k);
  const PtoPassDef *d = pto_pass_lookup(ctx, name);
  pto_free(name);
  return d && d->level_to ? d : NULL;
}

/* `item` with provenance on. */
static void append_traced(PtoStr *dst, const char *item, size_t n) {
  const char *brace = memchr(item, '{', n);
  if (!brace) {
    pto_str_append(dst, item, n);
    pto_str_puts(dst, "{provenance=true}");
    return;
  }
  for (const char *p = brace; p + 10 <= item + n; p++)
    if (memcmp(p, "provenance", 10) == 0) {
      pto_str_append(dst, item, n);
      return;
    }
  pto_str_append(dst, item, n - 1);
  pto_str_puts(dst, " provenance=true}");
}

/* The registered lowerings chained from the first level: the one whose
 * input no other lowering produces, then the one reading what it makes. */
static void default_lowerings(PtoContext *ctx, DefVec *out) {
  const PtoPassDef **defs;
  unsigned n = pto_pass_list(ctx, &defs);
  const PtoPassDef *cur = NULL;
  for (unsigned i = 0; i < n && !cur; i++) {
    if (!defs[i]->level_to) continue;
    bool first = true;
    for (unsigned j = 0; j < n; j++)
      if (defs[j]->level_to && strcmp(defs[j]->level_to, defs[i]->level_from) == 0)
        first = false;
    if (first) cur = defs[i];
  }
  while (cur && out->len < n) {
    pto_vec_push(out, cur);
    const PtoPassDef *next = NULL;
    for (unsigned j = 0; j < n && !next; j++)
      if (defs[j]->level_from && strcmp(defs[j]->level_from, cur->level_to) == 0)
        next = defs[j];
    cur = next;
  }
  pto_free(defs);
}

static bool declares_option(const PtoPassDef *d, const char *name) {
  for (unsigned i = 0; i < d->num_options; i++)
    if (strcmp(d->options[i].name, name) == 0) return true;
  return false;
}

/* Cuts the canonical text `builtin.module(a,b{...},c(...))` into the
 * pipelines of the stages after the reference: the passes before the
 * first lowering (an empty string when none), then one per lowering. The
 * default chain's lowerings that declare `platform` get `platform` (when
 * not NULL). */
static bool split_pipeline(PtoContext *ctx, const char *pipeline,
                           const char *platform, StrVec *parts,
                           DefVec *lowerings, bool *implicit) {
  *implicit = false;
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
  PtoStr cur;
  pto_str_init(&cur);
  for (size_t i = 0; i < blen;) {
    size_t j = i;
    int depth = 0;
    for (; j < blen && (depth > 0 || body[j] != ','); j++) {
      if (body[j] == '"' || body[j] == '\'')
        j = pto_pass_text_closing_quote(body, blen, j); /* canonical: closed */
      else if (body[j] == '(' || body[j] == '{') depth++;
      else if (body[j] == ')' || body[j] == '}') depth--;
    }
    const PtoPassDef *low = item_lowering(ctx, body + i, j - i);
    if (low) {
      pto_vec_push(parts, pto_str_take(&cur));
      pto_vec_push(lowerings, low);
      append_traced(&cur, body + i, j - i);
    } else {
      if (cur.len) pto_str_putc(&cur, ',');
      pto_str_append(&cur, body + i, j - i);
    }
    i = j + 1;
  }
  if (!lowerings->len) {
    DefVec chain = {0};
    *implicit = true;
    default_lowerings(ctx, &chain);
    pto_vec_foreach(&chain, d) {
      pto_vec_push(parts, pto_str_take(&cur));
      pto_vec_push(lowerings, *d);
      char *item = platform && declares_option(*d, "platform")
                       ? pto_pass_text_with_option((*d)->argument, "platform",
                                                   platform)
                       : pto_str_format("%s", (*d)->argument);
      append_traced(&cur, item, strlen(item));
      pto_free(item);
    }
    pto_vec_free(&chain);
  }
  pto_vec_push(parts, pto_str_take(&cur));
  pto_str_release(&cur);
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

/* The first error of a lowering the default chain tries, kept instead of
 * printed: a program whose ops a lower level cannot express yet is
 * checked at the levels it reaches, and told where it stopped. */
typedef struct FirstError {
  char *message;
  PtoContext *ctx;
} FirstError;

static bool keep_first_error(const PtoDiagInfo *d, void *user) {
  FirstError *fe = user;
  if (d->severity == PTO_DIAG_ERROR && !fe->message) {
    const char *file;
    unsigned line, col;
    if (d->loc && pto_loc_get_file_line_col(d->loc, &file, &line, &col))
      fe->message = pto_str_format("%s:%u:%u: %s", file, line, col, d->message);
    else
      fe->message = pto_str_format("%s", d->message);
  }
  return true;
}

/* Applies a lowering of the default chain quietly (no diagnostics, no IR
 * dump on failure); on failure returns its first error (pto_free). */
static char *try_pipeline(PtoContext *ctx, PtoOp *module, const char *pipeline) {
  FirstError fe = {NULL, ctx};
  pto_ctx_push_diag_handler(ctx, keep_first_error, &fe);
  PtoPassManager *pm = pto_pm_create(ctx, "builtin.module");
  PtoInstrumentation ins = {0};
  pto_pm_set_instrumentation(pm, &ins);
  bool ok = pto_pm_add_pipeline(pm, pipeline) == PTO_SUCCESS &&
            pto_pm_run(pm, module) == PTO_SUCCESS;
  pto_pm_destroy(pm);
  pto_ctx_pop_diag_handler(ctx);
  if (ok) {
    pto_free(fe.message);
    return NULL;
  }
  return fe.message ? fe.message : pto_str_format("the lowering failed");
}

static PtoWalkResult want_origins(PtoOp *op, void *user) {
  Stage *before = user;
  PtoOrigin o;
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    if (pto_origin_get(op, i, &o) && (uint64_t)o.op < before->nops)
      pto_ptrmap_put(&before->wanted, (uint64_t)(uintptr_t)before->ops[o.op],
                     (void *)(uintptr_t)(o.op + 1));
  return PTO_WALK_ADVANCE;
}

/* Numbers the ops of `before` and marks those `lowered`'s values refer to. */
static void trace(Stage *before, Stage *lowered) {
  before->nops = pto_origin_ops(before->module, &before->ops);
  before->recs = pto_calloc(before->nops ? before->nops : 1, sizeof *before->recs);
  pto_op_walk(lowered->module, PTO_WALK_PRE, want_origins, before);
}

PtoLevelCheck *pto_level_check_create(PtoContext *ctx, PtoOp *module,
                                      const char *pipeline, double rtol,
                                      double atol) {
  return pto_level_check_create_for(ctx, module, pipeline, NULL, rtol, atol);
}

PtoLevelCheck *pto_level_check_create_for(PtoContext *ctx, PtoOp *module,
                                          const char *pipeline,
                                          const char *platform, double rtol,
                                          double atol) {
  StrVec parts = {0};
  DefVec lows = {0};
  bool implicit;
  if (!split_pipeline(ctx, pipeline, platform, &parts, &lows, &implicit))
    return NULL;
  PtoLevelCheck *c = pto_calloc(1, sizeof *c);
  c->ctx = ctx;
  c->rtol = rtol;
  c->atol = atol;
  pto_ptrmap_init(&c->low_dtype);
  /* parts[0] (the passes before the first lowering) makes a stage only
   * when it has passes. */
  bool pre = parts.data[0][0] != 0;
  c->stages = pto_calloc(parts.len + 1, sizeof *c->stages);
  Stage *s = &c->stages[c->nstages++];
  s->module = module;
  s->pipeline = pto_strndup("", 0);
  s->level = lows.len ? lows.data[0]->level_from : "input";
  for (uint32_t i = 0; i < parts.len; i++) {
    if (i == 0 && !pre) {
      pto_free(parts.data[0]);
      continue;
    }
    Stage *prev = &c->stages[c->nstages - 1];
    s = &c->stages[c->nstages++];
    s->pipeline = parts.data[i];
    s->lowered = i > 0;
    s->level = i > 0 ? lows.data[i - 1]->level_to : prev->level;
    pto_ptrmap_init(&s->wanted);
    pto_ptrmap_init(&s->seen);
    s->module = pto_op_clone(prev->module, NULL);
    /* The default chain goes as deep as the program can be lowered: past
     * its first lowering, a level the program's ops cannot reach yet ends
     * the chain with a note (pto_level_check_stopped), not an error. */
    if (implicit && i > 1) {
      char *why = try_pipeline(ctx, s->module, s->pipeline);
      if (why) {
        c->stopped = pto_str_format("%s level not reached: %s", s->level, why);
        pto_free(why);
        pto_op_destroy(s->module);
        pto_ptrmap_release(&s->wanted);
        pto_ptrmap_release(&s->seen);
        pto_free(s->pipeline);
        memset(s, 0, sizeof *s);
        c->nstages--;
        for (uint32_t j = i + 1; j < parts.len; j++) pto_free(parts.data[j]);
        break;
      }
    } else if (!apply_pipeline(ctx, s->module, s->pipeline)) {
      for (uint32_t j = i + 1; j < parts.len; j++) pto_free(parts.data[j]);
      pto_vec_free(&parts);
      pto_vec_free(&lows);
      pto_level_check_destroy(c);
      return NULL;
    }
    if (s->lowered) trace(prev, s);
  }
  pto_vec_free(&parts);
  pto_vec_free(&lows);
  return c;
}

static void release_values(PtoInterpValue **vals, unsigned *n) {
  for (unsigned i = 0; i < *n; i++) pto_interp_value_release(&(*vals)[i]);
  pto_free(*vals);
  *vals = NULL;
  *n = 0;
}

/* Forgets what the last run recorded. */
static void reset(PtoLevelCheck *c) {
  for (unsigned k = 0; k < c->nstages; k++) {
    Stage *s = &c->stages[k];
    release_values(&s->outs, &s->nouts);
    for (unsigned i = 0; s->recs && i < s->nops; i++) {
      pto_vec_foreach(&s->recs[i], v) pto_interp_value_release(v);
      pto_vec_clear(&s->recs[i]);
    }
    pto_ptrmap_release(&s->seen);
    pto_ptrmap_init(&s->seen);
    s->checked = s->differ = 0;
    s->bad = NULL;
  }
}

void pto_level_check_destroy(PtoLevelCheck *c) {
  if (!c) return;
  reset(c);
  for (unsigned k = 0; k < c->nstages; k++) {
    Stage *s = &c->stages[k];
    for (unsigned i = 0; s->recs && i < s->nops; i++) pto_vec_free(&s->recs[i]);
    pto_free(s->recs);
    pto_free(s->ops);
    pto_ptrmap_release(&s->wanted);
    pto_ptrmap_release(&s->seen);
    if (k > 0 && s->module) pto_op_destroy(s->module);
    pto_free(s->pipeline);
  }
  pto_free(c->stages);
  pto_ptrmap_release(&c->low_dtype);
  pto_free(c->stopped);
  pto_free(c);
}

const char *pto_level_check_stopped(PtoLevelCheck *c) { return c->stopped; }

unsigned pto_level_check_num_stages(PtoLevelCheck *c) { return c->nstages; }

PtoOp *pto_level_check_module(PtoLevelCheck *c, unsigned stage) {
  return stage < c->nstages ? c->stages[stage].module : NULL;
}

const char *pto_level_check_pipeline(PtoLevelCheck *c, unsigned stage) {
  return stage < c->nstages ? c->stages[stage].pipeline : "";
}

const char *pto_level_check_level(PtoLevelCheck *c, unsigned stage) {
  return stage < c->nstages ? c->stages[stage].level : "";
}

bool pto_level_check_lowered(PtoLevelCheck *c, unsigned stage) {
  return stage < c->nstages && c->stages[stage].lowered;
}

/* ------------------------------------------------------------------ */
/* Observers                                                            */
/* ------------------------------------------------------------------ */

typedef struct Observed {
  PtoLevelCheck *c;
  unsigned stage;
} Observed;

/* Compares one traced value with the window of the result of the stage
 * before it came from; records the first that differs. */
static void check_one(PtoLevelCheck *c, unsigned stage, PtoOp *op,
                      PtoTensor *val, const PtoOrigin *o, int64_t exec) {
  Stage *s = &c->stages[stage], *before = &c->stages[stage - 1];
  if (o->op < 0 || (uint64_t)o->op >= before->nops) return;
  PtoOp *src = before->ops[o->op];
  unsigned nres = pto_op_num_results(src);
  ValVec *rv = &before->recs[o->op];
  uint64_t at = (uint64_t)(exec - 1) * nres + o->result;
  if (o->result >= nres || at >= rv->len) return;
  const PtoInterpValue *ref = &rv->data[at];
  if (ref->kind != PTO_IVAL_TENSOR) return;
  const PtoNdArray *ra = pto_tensor_array(ref->tensor);
  unsigned vr = pto_tensor_rank(val);
  /* The window has the traced value's shape, right-aligned; a value with
   * as many elements as a whole result it starts is that result in
   * another shape (a lowering that flattens dims). */
  const PtoNdArray *va = pto_tensor_array(val);
  bool whole = pto_ndarray_numel(va) == pto_ndarray_numel(ra);
  for (unsigned d = 0; d < ra->rank && whole; d++) whole = o->offsets[d] == 0;
  if (o->rank != ra->rank || (vr > ra->rank && !whole)) return;
  int64_t win[PTO_MAX_RANK];
  for (unsigned d = 0; d < ra->rank; d++)
    win[d] = d + vr >= ra->rank ? va->shape[d + vr - ra->rank] : 1;
  if (whole) memcpy(win, ra->shape, ra->rank * sizeof *win);
  for (unsigned d = 0; d < ra->rank; d++)
    if (o->offsets[d] < 0 || win[d] > ra->shape[d] ||
        o->offsets[d] > ra->shape[d] - win[d])
      return;
  PtoNdArray exp = *ra;
  exp.data = pto_ndarray_elem_ptr(ra, o->offsets);
  memcpy(exp.shape, win, ra->rank * sizeof *win);
  PtoTensor *ct = pto_tensor_reshape(val, ra->rank, win); /* contiguous */
  uint64_t key = ((uint64_t)(stage - 1) << 48) ^ ((uint64_t)o->op << 8) ^ o->result;
  PtoDType dt = low_dtype(c, key + 1, pto_op_result(src, o->result), ra->dtype);
  double rtol, atol;
  tolerance(c, dt, &rtol, &atol);
  PtoCompareResult r;
  bool ok = pto_compare_arrays(pto_tensor_array(ct), &exp, rtol, atol, &r);
  pto_tensor_release(ct);
  s->checked++;
  if (!ok) s->differ++;
  if (ok || s->bad) return;
  s->bad = op;
  s->origin = *o;
  s->exec = exec;
  s->cmp = r;
  s->bad_rtol = rtol;
  s->bad_atol = atol;
  for (unsigned d = 0; d < ra->rank; d++)
    s->index[d] = o->offsets[d] + r.worst_index[d];
}

static PtoResult observe(PtoOp *op, const PtoInterpValue *res, unsigned n,
                         void *user) {
  const Observed *ob = user;
  PtoLevelCheck *c = ob->c;
  Stage *s = &c->stages[ob->stage];
  uintptr_t k = s->recs ? (uintptr_t)pto_ptrmap_get(&s->wanted,
                                                    (uint64_t)(uintptr_t)op)
                        : 0;
  if (k)
    for (unsigned i = 0; i < n; i++)
      pto_vec_push(&s->recs[k - 1], pto_interp_value_copy(&res[i]));
  if (!s->lowered || !pto_op_attr(op, PTO_ORIGIN_ATTR)) return PTO_SUCCESS;
  uint64_t key = (uint64_t)(uintptr_t)op;
  int64_t exec = (int64_t)(intptr_t)pto_ptrmap_get(&s->seen, key) + 1;
  pto_ptrmap_put(&s->seen, key, (void *)(intptr_t)exec);
  for (unsigned i = 0; i < n; i++) {
    PtoOrigin o;
    if (res[i].kind == PTO_IVAL_TENSOR && pto_origin_get(op, i, &o))
      check_one(c, ob->stage, op, res[i].tensor, &o, exec);
  }
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Running and comparing                                                */
/* ------------------------------------------------------------------ */

PtoResult pto_level_check_run(PtoLevelCheck *c, const char *func_name,
                              const PtoInterpValue *args, unsigned nargs,
                              PtoLevelInterpFn new_interp, void *user) {
  reset(c);
  c->func_name = NULL;
  for (unsigned k = 0; k < c->nstages; k++) {
    Stage *s = &c->stages[k];
    PtoOp *func = pto_symbol_lookup(s->module, func_name);
    if (!func || !pto_op_is(func, "func.func"))
      return pto_emit_error(c->ctx, pto_op_loc(s->module),
                            "the %s level's stage %u has no function @%s",
                            s->level, k, func_name);
    PtoInterp *I = new_interp ? new_interp(c->ctx, user)
                              : pto_interp_create(c->ctx, NULL);
    Observed ob = {c, k};
    if (s->lowered || s->recs) pto_interp_set_observer(I, observe, &ob);
    /* Each stage gets its own copy of the tensors: from the Block level
     * on, kernels write GM tensors in place, an argument included, and the
     * next stage must start from the same inputs. */
    PtoInterpValue *own = pto_calloc(nargs ? nargs : 1, sizeof *own);
    for (unsigned i = 0; i < nargs; i++)
      own[i] = args[i].kind == PTO_IVAL_TENSOR
                   ? pto_interp_value_tensor(pto_tensor_from_ndarray(
                         pto_tensor_array(args[i].tensor)))
                   : pto_interp_value_copy(&args[i]);
    PtoResult r = pto_interp_run(I, func, own, nargs, &s->outs, &s->nouts);
    for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&own[i]);
    pto_free(own);
    pto_interp_destroy(I);
    if (r) return PTO_FAILURE;
  }
  c->func_name = func_name;
  return PTO_SUCCESS;
}

const PtoInterpValue *pto_level_check_outputs(PtoLevelCheck *c, unsigned stage,
                                              unsigned *n) {
  if (stage >= c->nstages || !c->stages[stage].outs) {
    *n = 0;
    return NULL;
  }
  *n = c->stages[stage].nouts;
  return c->stages[stage].outs;
}

/* The dtype whose tolerance applies to output `i` of the reference. */
static PtoDType output_dtype(PtoLevelCheck *c, unsigned i, PtoDType own) {
  PtoOp *func = c->func_name ? pto_symbol_lookup(c->stages[0].module, c->func_name)
                             : NULL;
  if (!func || !pto_op_num_regions(func)) return own;
  PtoBlock *b = pto_region_first_block(pto_op_region(func, 0));
  PtoOp *ret = b ? pto_block_terminator(b) : NULL;
  if (!ret || i >= pto_op_num_operands(ret)) return own;
  return low_dtype(c, ((uint64_t)1 << 63) ^ i, pto_op_operand(ret, i), own);
}

bool pto_level_check_compare(PtoLevelCheck *c, unsigned stage, unsigned i,
                             PtoCompareResult *r, double *rtol, double *atol) {
  memset(r, 0, sizeof *r);
  *rtol = *atol = 0;
  if (stage >= c->nstages) {
    r->numel = -1;
    return false;
  }
  Stage *got = &c->stages[stage], *ref = &c->stages[0];
  if (i >= got->nouts || i >= ref->nouts) {
    r->numel = -1;
    return false;
  }
  uint64_t b1, b2;
  PtoNdArray g = pto_interp_value_array(&got->outs[i], &b1);
  PtoNdArray e = pto_interp_value_array(&ref->outs[i], &b2);
  if (g.rank != e.rank || memcmp(g.shape, e.shape, g.rank * sizeof(int64_t)) != 0) {
    r->numel = -1;
    return false;
  }
  tolerance(c, output_dtype(c, i, e.dtype), rtol, atol);
  return pto_compare_arrays(&g, &e, *rtol, *atol, r);
}

int64_t pto_level_check_traced_checked(PtoLevelCheck *c, unsigned stage) {
  return stage < c->nstages ? c->stages[stage].checked : 0;
}

int64_t pto_level_check_traced_differing(PtoLevelCheck *c, unsigned stage) {
  return stage < c->nstages ? c->stages[stage].differ : 0;
}

/* "tile" for the Tile level: how a level's ops are called. */
static void lower_name(PtoStr *out, const char *level) {
  for (const char *p = level; *p; p++)
    pto_str_putc(out, (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p));
}

void pto_level_check_report_traced(PtoLevelCheck *c, unsigned stage,
                                   bool outputs_ok) {
  if (stage == 0 || stage >= c->nstages || !c->stages[stage].bad) return;
  Stage *s = &c->stages[stage], *before = &c->stages[stage - 1];
  const PtoOrigin *o = &s->origin;
  PtoOp *src = before->ops[o->op];
  PtoStr offs, at, kind;
  pto_str_init(&offs);
  pto_str_init(&at);
  pto_str_init(&kind);
  lower_name(&kind, s->level);
  for (unsigned d = 0; d < o->rank; d++) {
    pto_str_printf(&offs, "%s%" PRId64, d ? ", " : "", o->offsets[d]);
    pto_str_printf(&at, "%s%" PRId64, d ? ", " : "", s->index[d]);
  }
  PtoDiag *dg = pto_op_diag(
      s->bad, outputs_ok ? PTO_DIAG_WARNING : PTO_DIAG_ERROR,
      "is the first %s op whose value differs from the %s level: its %s at "
      "[%s] of result #%u of '%s' (execution %" PRId64 ") has %" PRId64
      " of %" PRId64 " elements beyond rtol=%g atol=%g; at [%s]: got %.9g, "
      "expected %.9g",
      kind.data, before->level, kind.data, offs.data ? offs.data : "",
      o->result, pto_op_name_str(src), s->exec, s->cmp.num_mismatched,
      s->cmp.numel, s->bad_rtol, s->bad_atol, at.data ? at.data : "",
      s->cmp.worst_got, s->cmp.worst_expected);
  pto_str_release(&kind);
  pto_str_printf(&kind, "the %s-level op it came from", before->level);
  pto_diag_note(dg, pto_op_loc(src), "%s", kind.data);
  pto_diag_emit(dg);
  pto_str_release(&offs);
  pto_str_release(&at);
  pto_str_release(&kind);
}
