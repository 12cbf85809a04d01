/* Compiled kernels of the embedding API: the compile pipeline, the entry
 * function, and runs on caller-owned buffers through the reference
 * interpreter (include/pto/Embed.h). */
#include "Embed/EmbedInternal.h"

#include "pto/Interp.h"
#include "pto/Pass.h"

#include <inttypes.h>
#include <string.h>

struct PtoEmbedKernel {
  PtoEmbed *e;
  PtoEmbedModule *module; /* after the compile pipeline */
  PtoOp *func;
  PtoInterp *interp;
  unsigned nargs, nres;
  int *inplace;                /* per result: argument index or -1 */
  PtoInterpValue *kept;        /* per result: kept by the last run */
  PtoNdArray *kept_arrays;     /* their descriptions */
  int64_t *scalar_storage;     /* per result: rank-0 results */
  uint64_t runs;
  /* check_stages */
  PtoEmbedLevelCheck *check;
  PtoEmbedExecutor exec; /* run: instead of the interpreter */
};

const char *pto_embed_default_pipeline(PtoEmbed *e) {
  if (!e->default_pipeline) {
    PtoStr s;
    pto_str_init(&s);
    pto_str_puts(&s, "canonicalize,cse");
    if (pto_pass_lookup(e->ctx, "tile-expand")) pto_str_puts(&s, ",tile-expand");
    e->default_pipeline = pto_str_take(&s);
  }
  return e->default_pipeline;
}

static bool has_body(PtoOp *op) {
  return pto_op_is(op, "func.func") && pto_op_num_regions(op) &&
         !pto_region_empty(pto_op_region(op, 0));
}

/* The function to run: `entry`, else the only public one with a body. */
PtoOp *pto_embed_find_entry(PtoEmbed *e, PtoOp *module, const char *entry) {
  PtoBlock *body = pto_region_first_block(pto_op_region(module, 0));
  PtoStr names;
  pto_str_init(&names);
  PtoOp *found = NULL;
  unsigned n = 0;
  for (PtoOp *op = body ? pto_block_first_op(body) : NULL; op; op = pto_op_next(op)) {
    if (!has_body(op)) continue;
    const char *name = pto_ident_str(pto_op_symbol_name(op));
    if (entry ? strcmp(name, entry) == 0 : !pto_symbol_is_private(op)) {
      found = op;
      n++;
    }
    pto_str_printf(&names, "%s@%s", names.len ? ", " : "", name);
  }
  if (entry && !found)
    pto_emit_error(e->ctx, pto_op_loc(module),
                   "no function @%s with a body in the module%s%s", entry,
                   names.len ? "; it defines " : "", names.len ? names.data : "");
  else if (!entry && n != 1)
    pto_emit_error(e->ctx, pto_op_loc(module),
                   n ? "the module has %u public functions (%s); name the entry"
                     : "the module has no public function with a body%.0u%s",
                   n, names.len ? names.data : "");
  pto_str_release(&names);
  return entry || n == 1 ? found : NULL;
}

/* Result i's `pypto.inplace` attribute: the argument it is written to. */
static int result_inplace(PtoOp *func, unsigned i, unsigned nargs) {
  PtoAttr *ra = pto_op_attr(func, "res_attrs");
  if (!ra || pto_attr_kind(ra) != PTO_ATTR_ARRAY || i >= pto_attr_array_size(ra))
    return -1;
  PtoAttr *d = pto_attr_array_get(ra, i);
  PtoAttr *a = pto_attr_kind(d) == PTO_ATTR_DICT ? pto_attr_dict_get(d, "pypto.inplace")
                                                  : NULL;
  if (!a || pto_attr_kind(a) != PTO_ATTR_INTEGER) return -1;
  int64_t v = pto_attr_int_value(a);
  return v >= 0 && (uint64_t)v < nargs ? (int)v : -1;
}

PtoEmbedKernel *pto_embed_compile(PtoEmbedModule *m,
                                  const PtoEmbedCompileOptions *opts) {
  PtoEmbed *e = m->e;
  PtoEmbedCompileOptions none;
  memset(&none, 0, sizeof none);
  if (!opts) opts = &none;
  PtoEmbedModule *cm = pto_embed_module_clone(m);
  const char *pipeline = opts->pipeline ? opts->pipeline : pto_embed_default_pipeline(e);
  PtoEmbedPipelineOptions po = {opts->dump_dir, opts->record_stages, opts->debuginfo};
  PtoEmbedLevelCheck *check = NULL;
  if (opts->check_stages) {
    PtoInterpOptions io;
    memset(&io, 0, sizeof io);
    io.debug_print = opts->debug_print;
    io.debug_user = opts->debug_user;
    io.save_dir = opts->save_dir;
    check = pto_embed_level_check_create(m, pipeline, opts->entry, opts->rtol,
                                         opts->atol, &io);
    if (!check) {
      pto_embed_module_destroy(cm);
      return NULL;
    }
  }
  PtoOp *func = NULL;
  if (pto_embed_run_pipeline(cm, pipeline, &po) ||
      !(func = pto_embed_find_entry(e, cm->op, opts->entry))) {
    pto_embed_level_check_destroy(check);
    pto_embed_module_destroy(cm);
    return NULL;
  }
  PtoEmbedKernel *k = pto_calloc(1, sizeof *k);
  k->e = e;
  k->module = cm;
  k->func = func;
  k->check = check;
  k->interp = pto_interp_create(e->ctx, NULL);
  k->nargs = pto_block_num_args(pto_region_first_block(pto_op_region(func, 0)));
  PtoType *fty = pto_attr_type_value(pto_op_attr(func, "function_type"));
  k->nres = pto_type_func_num_results(fty);
  k->inplace = pto_calloc(k->nres ? k->nres : 1, sizeof *k->inplace);
  k->kept = pto_calloc(k->nres ? k->nres : 1, sizeof *k->kept);
  k->kept_arrays = pto_calloc(k->nres ? k->nres : 1, sizeof *k->kept_arrays);
  k->scalar_storage = pto_calloc(k->nres ? k->nres : 1, sizeof *k->scalar_storage);
  for (unsigned i = 0; i < k->nres; i++)
    k->inplace[i] = result_inplace(func, i, k->nargs);
  return k;
}

static void release_kept(PtoEmbedKernel *k) {
  for (unsigned i = 0; i < k->nres; i++) pto_interp_value_release(&k->kept[i]);
}

void pto_embed_kernel_set_executor(PtoEmbedKernel *k, const PtoEmbedExecutor *x) {
  if (k->exec.destroy) k->exec.destroy(k->exec.state);
  memset(&k->exec, 0, sizeof k->exec);
  if (x) k->exec = *x;
}

void pto_embed_kernel_destroy(PtoEmbedKernel *k) {
  if (!k) return;
  pto_embed_kernel_set_executor(k, NULL);
  release_kept(k);
  pto_interp_destroy(k->interp);
  pto_embed_level_check_destroy(k->check);
  pto_embed_module_destroy(k->module);
  pto_free(k->inplace);
  pto_free(k->kept);
  pto_free(k->kept_arrays);
  pto_free(k->scalar_storage);
  pto_free(k);
}

PtoEmbedModule *pto_embed_kernel_module(PtoEmbedKernel *k) { return k->module; }
unsigned pto_embed_kernel_num_args(PtoEmbedKernel *k) { return k->nargs; }
unsigned pto_embed_kernel_num_results(PtoEmbedKernel *k) { return k->nres; }
int pto_embed_kernel_result_inplace(PtoEmbedKernel *k, unsigned i) {
  return i < k->nres ? k->inplace[i] : -1;
}
uint64_t pto_embed_kernel_num_runs(PtoEmbedKernel *k) { return k->runs; }
uint64_t pto_embed_kernel_num_ops_executed(PtoEmbedKernel *k) {
  return pto_interp_num_ops_executed(k->interp);
}

/* ------------------------------------------------------------------ */
/* Arguments and results                                                */
/* ------------------------------------------------------------------ */

static PtoLoc *func_loc(PtoEmbedKernel *k) { return pto_op_loc(k->func); }

static const char *func_name(PtoEmbedKernel *k) {
  return pto_ident_str(pto_op_symbol_name(k->func));
}

/* A caller's buffer description is usable: known dtype, rank, sizes. */
static PtoResult check_buffer(PtoEmbedKernel *k, const PtoNdArray *a,
                              const char *what, unsigned i) {
  if (!pto_dtype_is_valid((int)a->dtype))
    return pto_emit_error(k->e->ctx, func_loc(k), "@%s: %s #%u has an invalid dtype %d",
                          func_name(k), what, i, (int)a->dtype);
  if (a->rank > PTO_MAX_RANK)
    return pto_emit_error(k->e->ctx, func_loc(k), "@%s: %s #%u has rank %u; at most %d",
                          func_name(k), what, i, a->rank, PTO_MAX_RANK);
  for (unsigned d = 0; d < a->rank; d++)
    if (a->shape[d] < 0)
      return pto_emit_error(k->e->ctx, func_loc(k),
                            "@%s: %s #%u has a negative size in dim %u", func_name(k),
                            what, i, d);
  if (!a->data && pto_ndarray_numel(a) > 0)
    return pto_emit_error(k->e->ctx, func_loc(k), "@%s: %s #%u has no data",
                          func_name(k), what, i);
  /* a shape that disagrees with the buffer's size is caught here, before
   * anything reads past the buffer */
  size_t bytes;
  if (pto_shape_check(a->dtype, a->rank, a->shape, &bytes, NULL) ||
      bytes != a->nbytes) {
    char s[PTO_SHAPE_STR_MAX];
    return pto_emit_error(k->e->ctx, func_loc(k),
                          "@%s: %s #%u of shape %s and dtype %s has nbytes %zu, "
                          "expected %zu",
                          func_name(k), what, i, pto_shape_str(s, a->rank, a->shape),
                          pto_dtype_name(a->dtype), a->nbytes, bytes);
  }
  return PTO_SUCCESS;
}

/* The interpreter value of argument i: a copy of the caller's tensor, or
 * the scalar a rank-0 array holds. */
static PtoResult make_arg(PtoEmbedKernel *k, unsigned i, const PtoNdArray *a,
                          PtoInterpValue *out) {
  if (check_buffer(k, a, "argument", i)) return PTO_FAILURE;
  PtoType *t = pto_value_type(
      pto_block_arg(pto_region_first_block(pto_op_region(k->func, 0)), i));
  if (pto_type_is_tensor(t)) {
    *out = pto_interp_value_tensor(pto_tensor_from_ndarray(a));
    return PTO_SUCCESS;
  }
  PtoDType dt;
  if (!pto_interp_type_dtype(t, &dt) || a->rank != 0)
    return pto_emit_error(k->e->ctx, func_loc(k),
                          "@%s: argument #%u is a scalar; pass a rank-0 array", func_name(k),
                          i);
  if (pto_dtype_is_float(dt))
    *out = pto_interp_value_float(dt, pto_dtype_load_f64(a->dtype, a->data, 0));
  else
    *out = pto_interp_value_int(dt, pto_dtype_load_i64(a->dtype, a->data, 0));
  return PTO_SUCCESS;
}

/* A result as an array (scalars through `storage`). */
static PtoNdArray value_array(const PtoInterpValue *v, int64_t *storage) {
  if (v->kind == PTO_IVAL_TENSOR) return *pto_tensor_array(v->tensor);
  PtoNdArray a;
  memset(&a, 0, sizeof a);
  a.dtype = v->dtype;
  a.data = storage;
  a.nbytes = pto_dtype_size(v->dtype);
  if (pto_dtype_is_float(v->dtype))
    pto_dtype_store_f64(v->dtype, storage, 0, v->f);
  else
    pto_dtype_store_i64(v->dtype, storage, 0, v->i);
  return a;
}

/* Where result i goes: a caller buffer, its argument's buffer, or NULL
 * (kept). */
static const PtoNdArray *target_of(PtoEmbedKernel *k, unsigned i,
                                   const PtoNdArray *args,
                                   const PtoNdArray *results, unsigned nresults) {
  if (results && i < nresults && results[i].data) return &results[i];
  if (k->inplace[i] >= 0) return &args[k->inplace[i]];
  return NULL;
}

static PtoResult check_target(PtoEmbedKernel *k, unsigned i, const PtoNdArray *dst,
                              const PtoNdArray *src) {
  if (check_buffer(k, dst, "result buffer", i)) return PTO_FAILURE;
  if (dst->rank != src->rank ||
      memcmp(dst->shape, src->shape, src->rank * sizeof *src->shape) != 0) {
    char a[PTO_SHAPE_STR_MAX], b[PTO_SHAPE_STR_MAX];
    return pto_emit_error(k->e->ctx, func_loc(k),
                          "@%s: result #%u has shape %s but its buffer has shape %s",
                          func_name(k), i, pto_shape_str(a, src->rank, src->shape),
                          pto_shape_str(b, dst->rank, dst->shape));
  }
  return PTO_SUCCESS;
}

PtoResult pto_embed_kernel_run(PtoEmbedKernel *k, const PtoNdArray *args,
                               unsigned nargs, const PtoNdArray *results,
                               unsigned nresults) {
  PtoContext *ctx = k->e->ctx;
  if (nargs != k->nargs)
    return pto_emit_error(ctx, func_loc(k), "@%s takes %u arguments, got %u",
                          func_name(k), k->nargs, nargs);
  if (results && nresults > k->nres)
    return pto_emit_error(ctx, func_loc(k), "@%s has %u results, got %u result buffers",
                          func_name(k), k->nres, nresults);
  release_kept(k);
  PtoInterpValue *vals = pto_calloc(nargs ? nargs : 1, sizeof *vals);
  PtoResult r = PTO_SUCCESS;
  for (unsigned i = 0; i < nargs && !r; i++) r = make_arg(k, i, &args[i], &vals[i]);
  PtoInterpValue *res = NULL;
  unsigned nres = 0;
  if (!r && k->check)
    r = pto_embed_level_check_run(k->check, vals, nargs);
  if (!r)
    r = k->exec.run ? k->exec.run(k->exec.state, vals, nargs, &res, &nres)
                    : pto_interp_run(k->interp, k->func, vals, nargs, &res, &nres);
  for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&vals[i]);
  pto_free(vals);
  if (r) return PTO_FAILURE;
  /* every target is checked before any is written */
  for (unsigned i = 0; i < nres && !r; i++) {
    PtoNdArray src = value_array(&res[i], &k->scalar_storage[i]);
    const PtoNdArray *dst = target_of(k, i, args, results, nresults);
    if (dst) r = check_target(k, i, dst, &src);
  }
  for (unsigned i = 0; i < nres && !r; i++) {
    PtoNdArray src = value_array(&res[i], &k->scalar_storage[i]);
    const PtoNdArray *dst = target_of(k, i, args, results, nresults);
    if (dst) {
      pto_dtype_convert(src.dtype, src.data, src.rank ? src.strides : NULL,
                        dst->dtype, dst->data, dst->rank ? dst->strides : NULL,
                        src.rank, src.shape, PTO_CAST_DEFAULT);
      pto_interp_value_release(&res[i]);
      continue;
    }
    if (res[i].kind == PTO_IVAL_TENSOR)
      res[i].tensor = pto_tensor_make_unique(res[i].tensor); /* contiguous */
    k->kept[i] = res[i];
    res[i].kind = PTO_IVAL_NONE;
    k->kept_arrays[i] = value_array(&k->kept[i], &k->scalar_storage[i]);
  }
  for (unsigned i = 0; i < nres; i++) pto_interp_value_release(&res[i]);
  pto_free(res);
  if (!r) k->runs++;
  return r;
}

const PtoNdArray *pto_embed_kernel_result(PtoEmbedKernel *k, unsigned i) {
  if (i >= k->nres || k->kept[i].kind == PTO_IVAL_NONE) return NULL;
  return &k->kept_arrays[i];
}
