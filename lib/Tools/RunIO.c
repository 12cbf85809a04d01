/* pto-run's inputs and outputs: arguments from .npy files, literals or a
 * seeded generator (checked against the function's signature), and per
 * result a summary line, an .npy file and a comparison with a reference. */
#include "pto/Kernels.h"
#include "pto/LevelCheck.h"
#include "pto/IRArray.h"

#include "Tools/RunInternal.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Describing arguments                                                 */
/* ------------------------------------------------------------------ */

typedef struct ArgCtx {
  const RunOptions *o;
  PtoContext *ctx;
  const char *fname; /* the function's name */
  unsigned index;
  PtoType *type;
  char *type_str;
} ArgCtx;

/* "argument #1 of @f ('tensor<?x8xf32>')" */
#define ARG_FMT "argument #%u of @%s ('%s')"
#define ARG_ARGS(a) (a)->index, (a)->fname, (a)->type_str

static bool arg_error(const ArgCtx *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool arg_error(const ArgCtx *a, const char *fmt, ...) {
  fflush(stdout);
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: error: ", a->o->tool);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return false;
}

/* Checks an array's dtype and shape against the argument's tensor type;
 * `what` names the array's origin ("input 'x.npy'", "--shape 0=4x8"). */
static bool check_fits(const ArgCtx *a, const char *what, PtoDType dt,
                       unsigned rank, const int64_t *shape) {
  char b[PTO_SHAPE_STR_MAX];
  PtoDType want;
  pto_interp_type_dtype(a->type, &want);
  if (dt != want)
    return arg_error(a, "%s holds %s values, but " ARG_FMT " needs %s", what,
                     pto_dtype_numpy_name(dt), ARG_ARGS(a),
                     pto_dtype_numpy_name(want));
  if (rank != pto_type_tensor_rank(a->type))
    return arg_error(a, "%s has shape %s, but " ARG_FMT " has rank %u", what,
                     pto_shape_str(b, rank, shape), ARG_ARGS(a),
                     pto_type_tensor_rank(a->type));
  for (unsigned d = 0; d < rank; d++) {
    int64_t s = pto_type_tensor_dim(a->type, d);
    if (s != PTO_DYN && s != shape[d])
      return arg_error(a, "%s has shape %s, but " ARG_FMT " needs %" PRId64
                          " in dim %u", what, pto_shape_str(b, rank, shape),
                       ARG_ARGS(a), s, d);
  }
  return true;
}

/* The largest tensor pto-run reads or generates (--max-tensor-bytes). */
static uint64_t tensor_limit(const RunOptions *o) {
  return o->interp.max_tensor_bytes ? o->interp.max_tensor_bytes
                                    : (uint64_t)4 << 30;
}

/* ------------------------------------------------------------------ */
/* Inputs from files and literals                                       */
/* ------------------------------------------------------------------ */

/* A scalar argument given as a number. */
static bool parse_scalar(const ArgCtx *a, const char *s, PtoDType dt,
                         PtoInterpValue *out) {
  char *end;
  errno = 0;
  if (pto_dtype_is_float(dt)) {
    double v = strtod(s, &end);
    if (!*s || *end) return false;
    *out = pto_interp_value_float(dt, v);
    return true;
  }
  if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
    *out = pto_interp_value_int(dt, s[0] == 't');
    return true;
  }
  long long v;
  bool range_ok;
  if (dt == PTO_DT_U64) { /* past INT64_MAX: the bit pattern */
    unsigned long long u = strtoull(s, &end, 0);
    range_ok = !errno && !strchr(s, '-');
    v = (long long)u;
  } else {
    v = strtoll(s, &end, 0);
    range_ok = !errno && v >= pto_dtype_int_min(dt) && v <= pto_dtype_int_max(dt);
  }
  if (!*s || *end) return false;
  if (!range_ok) {
    arg_error(a, "%s is out of range for " ARG_FMT, s, ARG_ARGS(a));
    *out = pto_interp_value_int(dt, 0);
    out->kind = PTO_IVAL_NONE;
    return true;
  }
  *out = pto_interp_value_int(dt, v);
  return true;
}

/* .npy has no 8-bit floats and no bfloat16, and '<u2' reads back as bf16
 * (npy.md): a file of the same-sized bit patterns is read as the type an
 * argument or a result needs, when that is an 8-bit float or ui16. */
static void npy_take_bits_as(PtoNdArray *arr, PtoDType want) {
  bool f8 = pto_dtype_size(want) == 1 && pto_dtype_is_float(want);
  if ((f8 && arr->dtype == PTO_DT_U8) ||
      (want == PTO_DT_U16 && arr->dtype == PTO_DT_BF16))
    arr->dtype = want;
}

static bool load_input(const ArgCtx *a, const char *path, PtoInterpValue *out) {
  PtoDType dt;
  pto_interp_type_dtype(a->type, &dt);
  bool tensor = pto_type_is_tensor(a->type);
  if (!tensor && parse_scalar(a, path, dt, out))
    return out->kind != PTO_IVAL_NONE;
  PtoNdArray *arr = pto_npy_read_file_bounded(a->ctx, path, tensor_limit(a->o));
  if (!arr) return false;
  char what[512];
  snprintf(what, sizeof what, "input '%s'", path);
  bool ok;
  if (tensor) {
    PtoDType want;
    if (pto_interp_type_dtype(a->type, &want)) npy_take_bits_as(arr, want);
    ok = check_fits(a, what, arr->dtype, arr->rank, arr->shape);
    if (ok) {
      *out = pto_interp_value_tensor(pto_tensor_take_ndarray(arr));
      return true;
    }
  } else if (pto_ndarray_numel(arr) != 1 || arr->dtype != dt) {
    char b[PTO_SHAPE_STR_MAX];
    ok = arg_error(a, "%s holds %s values of shape %s, but " ARG_FMT " is one %s "
                      "value", what, pto_dtype_numpy_name(arr->dtype),
                   pto_shape_str(b, arr->rank, arr->shape), ARG_ARGS(a),
                   pto_dtype_numpy_name(dt));
  } else {
    ok = true;
    *out = pto_dtype_is_float(dt)
               ? pto_interp_value_float(dt, pto_dtype_load_f64(dt, arr->data, 0))
               : pto_interp_value_int(dt, pto_dtype_load_i64(dt, arr->data, 0));
  }
  pto_ndarray_destroy(arr);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Generated inputs                                                     */
/* ------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Each argument has its own stream, so that giving one argument by file
 * does not change the values generated for the others. */
static void fill_random(const PtoNdArray *arr, uint64_t seed, unsigned arg) {
  uint64_t state = seed ^ ((uint64_t)(arg + 1) * 0xd1b54a32d192ed03ULL);
  int64_t n = pto_ndarray_numel(arr);
  PtoDType dt = arr->dtype;
  size_t es = pto_dtype_size(dt);
  double buf[256];
  for (int64_t i = 0; i < n; i += 256) {
    int64_t m = n - i < 256 ? n - i : 256;
    for (int64_t j = 0; j < m; j++) {
      uint64_t r = splitmix64(&state);
      buf[j] = pto_dtype_is_float(dt) ? (double)(r >> 11) * 0x1p-52 - 1.0
               : dt == PTO_DT_BOOL    ? (double)(r >> 63)
                                      : (double)(int64_t)(r % 21) - 10.0;
    }
    /* the values are exact in double; one rounding to the dtype */
    pto_dtype_convert_n(PTO_DT_F64, buf, dt, (char *)arr->data + i * (int64_t)es,
                        (size_t)m, PTO_CAST_DEFAULT);
  }
}

/* The shape of a generated tensor argument. */
static bool generated_shape(const ArgCtx *a, unsigned *rank, int64_t *shape) {
  const RunOptions *o = a->o;
  for (uint32_t k = 0; k < o->shapes.len; k++) {
    const RunShape *s = &o->shapes.data[k];
    if (s->arg != a->index) continue;
    char what[64];
    snprintf(what, sizeof what, "--shape %u=...", s->arg);
    PtoDType dt;
    pto_interp_type_dtype(a->type, &dt);
    if (!check_fits(a, what, dt, s->rank, s->dims)) return false;
    *rank = s->rank;
    memcpy(shape, s->dims, s->rank * sizeof *shape);
    return true;
  }
  *rank = pto_type_tensor_rank(a->type);
  for (unsigned d = 0; d < *rank; d++) {
    shape[d] = pto_type_tensor_dim(a->type, d);
    if (shape[d] != PTO_DYN) continue;
    for (uint32_t k = 0; k < o->dims.len; k++) {
      const RunDim *r = &o->dims.data[k];
      if ((r->arg == (int)a->index && r->dim == (int)d) ||
          (r->arg < 0 && shape[d] == PTO_DYN))
        shape[d] = r->size;
    }
    if (shape[d] == PTO_DYN)
      return arg_error(a, ARG_FMT " has a dynamic dim %u; give its shape with "
                          "--shape %u=DxDx... or its dynamic dims with --dim N",
                       ARG_ARGS(a), d, a->index);
  }
  return true;
}

static bool write_npy(const RunOptions *o, PtoContext *ctx, const char *name,
                      const PtoNdArray *arr) {
  PtoStr path;
  pto_str_init(&path);
  pto_str_printf(&path, "%s/%s", o->out_dir, name);
  bool ok = pto_npy_write_file(ctx, path.data, arr, NULL) == PTO_SUCCESS;
  pto_str_release(&path);
  return ok;
}

static bool make_out_dir(const RunOptions *o) {
  if (mkdir(o->out_dir, 0777) == 0 || errno == EEXIST) return true;
  run_error(o, "cannot create the output directory '%s': %s", o->out_dir,
            strerror(errno));
  return false;
}

static bool generate(const ArgCtx *a, PtoInterpValue *out) {
  if (!pto_type_is_tensor(a->type))
    return arg_error(a, ARG_FMT " is a scalar; give its value with --input "
                        "VALUE", ARG_ARGS(a));
  unsigned rank = pto_type_tensor_rank(a->type);
  int64_t shape[PTO_MAX_RANK];
  if (rank > PTO_MAX_RANK)
    return arg_error(a, "cannot generate " ARG_FMT ": it has rank %u, and "
                        "tensors of at most %d dims can be run",
                     ARG_ARGS(a), rank, PTO_MAX_RANK);
  if (!generated_shape(a, &rank, shape)) return false;
  PtoDType dt;
  pto_interp_type_dtype(a->type, &dt);
  size_t nbytes;
  uint64_t limit = tensor_limit(a->o);
  if (pto_shape_check(dt, rank, shape, &nbytes, NULL) || nbytes > limit) {
    char b[PTO_SHAPE_STR_MAX];
    return arg_error(a, "cannot generate " ARG_FMT " of shape %s: it needs "
                        "more than %" PRIu64 " bytes (--max-tensor-bytes)",
                     ARG_ARGS(a), pto_shape_str(b, rank, shape), limit);
  }
  PtoTensor *t = pto_tensor_create(NULL, NULL, dt, rank, shape);
  fill_random(pto_tensor_array(t), a->o->seed, a->index);
  *out = pto_interp_value_tensor(t);
  if (!a->o->out_dir) return true;
  char name[32];
  snprintf(name, sizeof name, "in%u.npy", a->index);
  return make_out_dir(a->o) && write_npy(a->o, a->ctx, name, pto_tensor_array(t));
}

/* The --input value of argument `arg`, or NULL. */
static const char *given_input(const RunOptions *o, unsigned arg) {
  for (uint32_t k = 0; k < o->inputs.len; k++)
    if (o->inputs.data[k].arg == arg) return o->inputs.data[k].value;
  return NULL;
}

/* --shape and --dim must name generated tensor arguments. */
static bool check_shape_options(const RunOptions *o, unsigned nargs,
                                const char *fname) {
  for (uint32_t k = 0; k < o->shapes.len + o->dims.len; k++) {
    bool is_shape = k < o->shapes.len;
    int arg = is_shape ? (int)o->shapes.data[k].arg : o->dims.data[k - o->shapes.len].arg;
    const char *opt = is_shape ? "--shape" : "--dim";
    if (arg < 0) continue;
    if ((unsigned)arg >= nargs) {
      run_error(o, "%s names argument #%d, but @%s takes %u arguments", opt, arg,
                fname, nargs);
      return false;
    }
    if (given_input(o, (unsigned)arg)) {
      run_error(o, "%s names argument #%d, which --input gives; it applies "
                   "to generated inputs only", opt, arg);
      return false;
    }
  }
  return true;
}

bool run_make_inputs(const RunOptions *o, PtoContext *ctx, PtoOp *func,
                     PtoInterpValue *args) {
  PtoBlock *entry = pto_region_first_block(pto_op_region(func, 0));
  unsigned nargs = pto_block_num_args(entry);
  const char *fname = pto_ident_str(pto_op_symbol_name(func));
  /* before the run: pypto.pass_verify_save writes into it */
  if (o->out_dir && !make_out_dir(o)) return false;
  for (uint32_t k = 0; k < o->inputs.len; k++)
    if (o->inputs.data[k].arg >= nargs) {
      run_error(o, "--input '%s' is for argument #%u, but @%s takes %u "
                   "argument%s", o->inputs.data[k].value, o->inputs.data[k].arg,
                fname, nargs, nargs == 1 ? "" : "s");
      return false;
    }
  if (!check_shape_options(o, nargs, fname)) return false;
  bool ok = true;
  for (unsigned i = 0; i < nargs && ok; i++) {
    PtoType *ty = pto_value_type(pto_block_arg(entry, i));
    ArgCtx a = {o, ctx, fname, i, ty, pto_type_to_string(ty)};
    PtoDType dt;
    if (!pto_interp_type_dtype(ty, &dt))
      ok = arg_error(&a, ARG_FMT " has a type the interpreter has no values of",
                     ARG_ARGS(&a));
    else if (given_input(o, i))
      ok = load_input(&a, given_input(o, i), &args[i]);
    else if (o->have_seed)
      ok = generate(&a, &args[i]);
    else
      ok = arg_error(&a, "no input for " ARG_FMT "; give --input FILE.npy%s or "
                         "--random SEED", ARG_ARGS(&a),
                     pto_type_is_tensor(ty) ? "" : " (or a number)");
    pto_free(a.type_str);
  }
  if (!ok)
    for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Outputs                                                              */
/* ------------------------------------------------------------------ */

static void print_summary(const RunOptions *o, PtoContext *ctx, const char *name,
                          const PtoInterpValue *v, const PtoNdArray *arr) {
  if (o->quiet) return;
  if (v->kind == PTO_IVAL_SCALAR) {
    char *s = pto_interp_value_to_string(v);
    printf("%s: %s\n", name, s);
    pto_free(s);
    return;
  }
  PtoArrayStats st;
  pto_ndarray_stats(arr, &st);
  char *ts = pto_tensor_type_to_string(ctx, v->tensor);
  printf("%s: %s", name, ts);
  if (pto_ndarray_numel(arr) == 0)
    printf(" (empty)");
  else if (st.num_nan < pto_ndarray_numel(arr))
    printf(" min=%.6g max=%.6g mean=%.6g", st.min, st.max, st.mean);
  if (st.num_nan) printf(" nan=%" PRId64, st.num_nan);
  printf(" checksum=%016" PRIx64 "\n", st.checksum);
  pto_free(ts);
}

void run_tolerance(const RunOptions *o, PtoDType dt, double *rtol,
                   double *atol) {
  pto_default_tolerance(dt, rtol, atol);
  if (o->have_rtol) *rtol = o->rtol;
  if (o->have_atol) *atol = o->atol;
}

static bool compare(const RunOptions *o, PtoContext *ctx, unsigned i,
                    const PtoNdArray *got, const char *path) {
  PtoNdArray *e = pto_npy_read_file_bounded(ctx, path, tensor_limit(o));
  if (!e) return false;
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  bool ok = false;
  /* an index result is written as int64 (.npy has no index type), an
   * 8-bit float as its uint8 bit patterns */
  npy_take_bits_as(e, got->dtype);
  bool same = e->dtype == got->dtype ||
              (got->dtype == PTO_DT_INDEX && e->dtype == PTO_DT_I64);
  if (!same) {
    run_error(o, "out%u holds %s values but '%s' holds %s", i,
              pto_dtype_numpy_name(got->dtype), path,
              pto_dtype_numpy_name(e->dtype));
  } else if (!(e->rank == got->rank &&
               memcmp(e->shape, got->shape, got->rank * sizeof(int64_t)) == 0)) {
    run_error(o, "out%u has shape %s but '%s' has shape %s", i,
              pto_shape_str(b1, got->rank, got->shape), path,
              pto_shape_str(b2, e->rank, e->shape));
  } else {
    double rtol, atol;
    run_tolerance(o, got->dtype, &rtol, &atol);
    PtoCompareResult r;
    ok = pto_compare_arrays(got, e, rtol, atol, &r);
    if (ok && !o->quiet)
      printf("out%u: matches '%s' (rtol=%g atol=%g, max abs diff %.3g)\n", i,
             path, rtol, atol, r.max_abs_diff);
    if (!ok)
      run_error(o, "out%u differs from '%s': %" PRId64 " of %" PRId64
                   " elements exceed rtol=%g atol=%g; worst at %s: got %.9g, "
                   "expected %.9g",
                i, path, r.num_mismatched, r.numel, rtol, atol,
                pto_shape_str(b1, got->rank, r.worst_index), r.worst_got,
                r.worst_expected);
  }
  pto_ndarray_destroy(e);
  return ok;
}

int run_report_outputs(const RunOptions *o, PtoContext *ctx,
                       const PtoInterpValue *res, unsigned n) {
  if (o->expects.len > n)
    return run_error(o, "%u --expect files given, but the function has %u "
                        "result%s", o->expects.len, n, n == 1 ? "" : "s");
  if (o->out_dir && !make_out_dir(o)) return 1;
  int rc = 0;
  for (unsigned i = 0; i < n; i++) {
    const PtoInterpValue *v = &res[i];
    uint64_t buf;
    PtoNdArray arr = pto_interp_value_array(v, &buf);
    char name[32];
    snprintf(name, sizeof name, "out%u", i);
    print_summary(o, ctx, name, v, &arr);
    snprintf(name, sizeof name, "out%u.npy", i);
    if (o->out_dir && !write_npy(o, ctx, name, &arr)) rc = 1;
    if (i < o->expects.len && !compare(o, ctx, i, &arr, o->expects.data[i]))
      rc = 1;
  }
  fflush(stdout);
  return rc;
}

int run_report_written_arg(const RunOptions *o, PtoContext *ctx, unsigned arg,
                           const PtoNdArray *a) {
  if (o->out_dir && !make_out_dir(o)) return 1;
  PtoInterpValue v = pto_interp_value_tensor(pto_tensor_from_ndarray(a));
  char name[48];
  snprintf(name, sizeof name, "arg%u (written in place)", arg);
  print_summary(o, ctx, name, &v, a);
  snprintf(name, sizeof name, "arg%u.npy", arg);
  int rc = o->out_dir && !write_npy(o, ctx, name, a) ? 1 : 0;
  pto_interp_value_release(&v);
  fflush(stdout);
  return rc;
}
