/* The interpreter's execution engine: handler table, frames (one slot per
 * SSA value of a function, numbered once per function), region and call
 * execution, result checking, the observer, and run-time diagnostics with
 * notes for the enclosing calls and loop iterations. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* pthread_getattr_np: the stack a thread has left */
#endif
#include "Interp/InterpInternal.h"
#include "pto/Dialect/PTO.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#if defined(__linux__)
#include <pthread.h>
#endif

#define DEFAULT_MAX_CALL_DEPTH 256
#define DEFAULT_MAX_TENSOR_BYTES (UINT64_C(4) << 30)
/* C stack the interpreter may use for nested calls: each func.call
 * recurses through a few C frames (a few hundred bytes each, several
 * times that with sanitizers). At most this, and never more than the
 * calling thread has left (a 1 MiB `ulimit -s`, a small thread stack)
 * minus a reserve for the ops run at the deepest call. */
#define STACK_BUDGET ((uintptr_t)2 << 20)
#define STACK_RESERVE ((uintptr_t)256 << 10)
/* Notes shown for the calls and iterations a run-time error happened in. */
#define MAX_NOTES 8

/* ------------------------------------------------------------------ */
/* Handler table                                                        */
/* ------------------------------------------------------------------ */

typedef struct Handler {
  PtoInterpHandler fn;
  void *user;
} Handler;

/* Handlers are keyed by op definition; names without one (unregistered
 * dialects, or a dialect registered after the handler) by their interned
 * name, which lookup tries second. */
static uint64_t key_of_name(PtoInterp *I, const char *name) {
  const PtoOpDef *def = pto_ctx_lookup_op(I->ctx, name);
  return def ? (uint64_t)(uintptr_t)def
             : (uint64_t)(uintptr_t)pto_ident_cstr(I->ctx, name);
}

void pto_interp_register(PtoInterp *I, const char *op_name,
                         PtoInterpHandler fn, void *user) {
  Handler *h = pto_malloc(sizeof *h);
  h->fn = fn;
  h->user = user;
  pto_free(pto_ptrmap_put(&I->handlers, key_of_name(I, op_name), h));
}

static Handler *lookup_handler(PtoInterp *I, PtoOp *op) {
  const PtoOpDef *def = pto_op_def(op);
  Handler *h = def ? pto_ptrmap_get(&I->handlers, (uint64_t)(uintptr_t)def)
                   : NULL;
  if (!h)
    h = pto_ptrmap_get(&I->handlers, (uint64_t)(uintptr_t)pto_op_name(op));
  return h;
}

void pto_interp_register_alias(PtoInterp *I, const char *op_name,
                               const char *existing) {
  Handler *h = pto_ptrmap_get(&I->handlers, key_of_name(I, existing));
  if (h) pto_interp_register(I, op_name, h->fn, h->user);
}

bool pto_interp_has_handler(PtoInterp *I, PtoOp *op) {
  return lookup_handler(I, op) != NULL;
}

/* ------------------------------------------------------------------ */
/* Creation                                                             */
/* ------------------------------------------------------------------ */

PtoInterp *pto_interp_create(PtoContext *ctx, const PtoInterpOptions *opts) {
  PtoInterp *I = pto_calloc(1, sizeof *I);
  I->ctx = ctx;
  if (opts) I->opts = *opts;
  if (!I->opts.max_call_depth) I->opts.max_call_depth = DEFAULT_MAX_CALL_DEPTH;
  if (!I->opts.max_tensor_bytes)
    I->opts.max_tensor_bytes = DEFAULT_MAX_TENSOR_BYTES;
  I->rng = I->opts.shuffle_launches;
  pto_ptrmap_init(&I->handlers);
  pto_ptrmap_init(&I->funcs);
  pto_interp_register_core(I);
  pto_interp_register_pypto(I);
  pto_interp_register_tile(I);
  pto_interp_register_block(I);
  pto_interp_register_pto(I);
  pto_interp_register_experimental(I);
  static const uint64_t a2a3_buffers[5] = {192 << 10, 512 << 10, 64 << 10,
                                           64 << 10, 128 << 10};
  for (unsigned s = 0; s < 5; s++)
    if (!I->opts.buffer_bytes[s]) I->opts.buffer_bytes[s] = a2a3_buffers[s];
  return I;
}

static void destroy_func_info(FuncInfo *fi) {
  pto_ptrmap_release(&fi->slots);
  pto_free(fi);
}

void pto_interp_destroy(PtoInterp *I) {
  if (!I) return;
  uint64_t k;
  void *v;
  for (uint32_t it = 0; pto_ptrmap_next(&I->handlers, &it, &k, &v);)
    pto_free(v);
  for (uint32_t it = 0; pto_ptrmap_next(&I->funcs, &it, &k, &v);)
    destroy_func_info(v);
  pto_ptrmap_release(&I->handlers);
  pto_ptrmap_release(&I->funcs);
  pto_vec_free(&I->notes);
  pto_free(I);
}

PtoContext *pto_interp_ctx(PtoInterp *I) { return I->ctx; }
PtoInterp *pto_interp_frame_interp(PtoInterpFrame *f) { return f->I; }
uint64_t pto_interp_num_ops_executed(const PtoInterp *I) { return I->nexec; }

void pto_interp_set_observer(PtoInterp *I, PtoInterpObserver fn, void *user) {
  I->observer = fn;
  I->observer_user = user;
}

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */
/* ------------------------------------------------------------------ */

PtoResult pto_interp_error(PtoInterpFrame *f, PtoOp *op, const char *fmt,
                           ...) {
  PtoStr msg;
  pto_str_init(&msg);
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(&msg, fmt, ap);
  va_end(ap);
  PtoDiag *d = pto_op_diag(op, PTO_DIAG_ERROR, "%s", msg.data);
  pto_str_release(&msg);
  /* innermost first: the iteration or call the op ran in; deep recursion
   * is cut short */
  PtoInterp *I = f->I;
  for (uint32_t i = I->notes.len; i-- > 0;) {
    const NoteEntry *n = &I->notes.data[i];
    if (I->notes.len - i > MAX_NOTES) {
      pto_diag_note(d, pto_op_loc(n->op), "and %u more enclosing calls and "
                                          "loop iterations", i + 1);
      break;
    }
    if (n->is_loop)
      pto_diag_note(d, pto_op_loc(n->op),
                    "in the iteration of this loop with induction value %" PRId64,
                    n->iv);
    else
      pto_diag_note(d, pto_op_loc(n->op), "called from here");
  }
  return pto_diag_emit(d);
}

void pto_interp_push_loop(PtoInterpFrame *f, PtoOp *loop, int64_t iv) {
  NoteEntry n = {loop, iv, true};
  pto_vec_push(&f->I->notes, n);
}

void pto_interp_pop_loop(PtoInterpFrame *f) { f->I->notes.len--; }

/* ------------------------------------------------------------------ */
/* Frames and slots                                                     */
/* ------------------------------------------------------------------ */

static void number_block(FuncInfo *fi, PtoBlock *b) {
  for (unsigned i = 0; i < pto_block_num_args(b); i++)
    pto_ptrmap_put(&fi->slots, (uint64_t)(uintptr_t)pto_block_arg(b, i),
                   (void *)(uintptr_t)++fi->nslots);
}

static PtoWalkResult number_op(PtoOp *op, void *user) {
  FuncInfo *fi = user;
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    pto_ptrmap_put(&fi->slots, (uint64_t)(uintptr_t)pto_op_result(op, i),
                   (void *)(uintptr_t)++fi->nslots);
  for (unsigned r = 0; r < pto_op_num_regions(op); r++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(op, r)); b;
         b = pto_block_next(b))
      number_block(fi, b);
  return PTO_WALK_ADVANCE;
}

/* Slot numbers of every value in a function, computed on first use. */
static FuncInfo *func_info(PtoInterp *I, PtoOp *func) {
  FuncInfo *fi = pto_ptrmap_get(&I->funcs, (uint64_t)(uintptr_t)func);
  if (fi) return fi;
  fi = pto_calloc(1, sizeof *fi);
  pto_ptrmap_init(&fi->slots);
  pto_op_walk(func, PTO_WALK_PRE, number_op, fi);
  pto_ptrmap_put(&I->funcs, (uint64_t)(uintptr_t)func, fi);
  return fi;
}

PtoInterpValue *pto_interp_slot(PtoInterpFrame *f, const PtoValue *v) {
  uintptr_t n = (uintptr_t)pto_ptrmap_get(&f->fi->slots, (uint64_t)(uintptr_t)v);
  return n ? &f->slots[n - 1] : NULL;
}

static void bind(PtoInterpFrame *f, const PtoValue *v, PtoInterpValue val) {
  PtoInterpValue *s = pto_interp_slot(f, v);
  pto_interp_value_release(s);
  *s = val;
}

/* ------------------------------------------------------------------ */
/* Operands and results                                                 */
/* ------------------------------------------------------------------ */

const PtoInterpValue *pto_interp_operand(PtoInterpFrame *f, PtoOp *op,
                                         unsigned i) {
  return pto_interp_slot(f, pto_op_operand(op, i));
}

PtoTensor *pto_interp_operand_tensor(PtoInterpFrame *f, PtoOp *op,
                                     unsigned i) {
  return pto_interp_operand(f, op, i)->tensor;
}

bool pto_interp_is_last_use(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  (void)f;
  /* A value with this op as its only use, defined in this op's block, is
   * dead once the op has read it. */
  PtoValue *v = pto_op_operand(op, i);
  return pto_value_has_one_use(v) && pto_value_parent_block(v) == pto_op_block(op);
}

PtoTensor *pto_interp_take_operand_tensor(PtoInterpFrame *f, PtoOp *op,
                                          unsigned i) {
  PtoInterpValue *s = pto_interp_slot(f, pto_op_operand(op, i));
  if (pto_interp_is_last_use(f, op, i)) { /* the reference can move */
    PtoTensor *t = s->tensor;
    s->tensor = NULL;
    s->kind = PTO_IVAL_NONE;
    return t;
  }
  return pto_tensor_retain(s->tensor);
}

int64_t pto_interp_operand_int(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  return pto_interp_value_as_i64(pto_interp_operand(f, op, i));
}

double pto_interp_operand_float(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  return pto_interp_value_as_f64(pto_interp_operand(f, op, i));
}

void pto_interp_set_result(PtoInterpFrame *f, PtoOp *op, unsigned i,
                           PtoInterpValue v) {
  bind(f, pto_op_result(op, i), v);
}

PtoTensor *pto_interp_new_tensor(PtoInterpFrame *f, PtoOp *op, PtoDType dt,
                                 unsigned rank, const int64_t *shape) {
  size_t nbytes;
  if (pto_shape_check(dt, rank, shape, &nbytes, NULL) ||
      nbytes > f->I->opts.max_tensor_bytes) {
    char b[PTO_SHAPE_STR_MAX];
    pto_interp_error(f, op,
                     "result of shape %s and dtype %s needs more than the "
                     "interpreter's limit of %" PRIu64 " bytes per tensor",
                     pto_shape_str(b, rank, shape), pto_dtype_name(dt),
                     f->I->opts.max_tensor_bytes);
    return NULL;
  }
  return pto_tensor_create(NULL, NULL, dt, rank, shape);
}

/* ------------------------------------------------------------------ */
/* Checking values against IR types                                     */
/* ------------------------------------------------------------------ */

bool pto_interp_type_dtype(const PtoType *t, PtoDType *dt) {
  if (pto_type_is_tensor(t)) t = pto_type_tensor_elem(t);
  else if (pto_type_is_tile(t)) t = pto_tile_elem(t);
  else if (pto_type_is_pto_tile(t)) t = pto_pto_tile_elem(t);
  return pto_dtype_from_type(t, dt);
}

char *pto_interp_array_type_str(PtoContext *ctx, const PtoNdArray *a) {
  PtoType *elem = pto_dtype_to_type(ctx, a->dtype);
  return pto_type_to_string(pto_type_tensor(ctx, a->shape, a->rank, elem));
}

char *pto_tensor_type_to_string(PtoContext *ctx, const PtoTensor *t) {
  return pto_interp_array_type_str(ctx, pto_tensor_array(t));
}

PtoResult pto_interp_result_dtype(PtoInterpFrame *f, PtoOp *op, unsigned i,
                                  PtoDType *dt) {
  PtoType *t = pto_value_type(pto_op_result(op, i));
  if (pto_interp_type_dtype(t, dt)) return PTO_SUCCESS;
  char *s = pto_type_to_string(t);
  PtoResult r = pto_interp_error(f, op, "the interpreter has no values of "
                                        "type '%s'", s);
  pto_free(s);
  return r;
}

/* Whether `v` can be a value of IR type `ty`; fills `why` otherwise. Types
 * the interpreter does not know (dialect types) accept anything. */
bool pto_interp_value_fits(PtoContext *ctx, const PtoInterpValue *v,
                           PtoType *ty, PtoStr *why) {
  PtoDType dt;
  if (pto_type_is_tile(ty)) {
    /* A tile is a tensor of exactly its static shape. */
    ty = pto_type_tensor(ctx, pto_tile_shape(ty), pto_tile_rank(ty),
                         pto_tile_elem(ty));
  } else if (pto_type_is_pto_tile(ty)) {
    ty = pto_type_tensor(ctx, pto_type_ints(ty), 2, pto_pto_tile_elem(ty));
  }
  if (pto_type_is_tensor(ty)) {
    if (v->kind != PTO_IVAL_TENSOR) {
      pto_str_puts(why, "a scalar");
      return false;
    }
    const PtoTensor *t = v->tensor;
    bool ok = pto_interp_type_dtype(ty, &dt) && dt == pto_tensor_dtype(t) &&
              pto_type_tensor_rank(ty) == pto_tensor_rank(t);
    for (unsigned d = 0; ok && d < pto_tensor_rank(t); d++) {
      int64_t s = pto_type_tensor_dim(ty, d);
      if (s != PTO_DYN && s != pto_tensor_shape(t)[d]) ok = false;
    }
    if (!ok) {
      char *s = pto_tensor_type_to_string(ctx, t);
      pto_str_printf(why, "'%s'", s);
      pto_free(s);
    }
    return ok;
  }
  if (!pto_dtype_from_type(ty, &dt)) return true;
  if (v->kind != PTO_IVAL_SCALAR || v->dtype != dt) {
    if (v->kind == PTO_IVAL_TENSOR) {
      char *s = pto_tensor_type_to_string(ctx, v->tensor);
      pto_str_printf(why, "'%s'", s);
      pto_free(s);
    } else {
      pto_str_printf(why, "a scalar of %s", pto_dtype_name(v->dtype));
    }
    return false;
  }
  return true;
}

static PtoResult check_results(PtoInterpFrame *f, PtoOp *op) {
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoValue *r = pto_op_result(op, i);
    PtoInterpValue *v = pto_interp_slot(f, r);
    if (v->kind == PTO_IVAL_NONE)
      return pto_interp_error(f, op, "the interpreter's handler did not set "
                                     "result #%u", i);
    PtoStr why;
    pto_str_init(&why);
    if (!pto_interp_value_fits(f->I->ctx, v, pto_value_type(r), &why)) {
      char *ts = pto_type_to_string(pto_value_type(r));
      PtoResult res = pto_interp_error(
          f, op, "result #%u is %s at run time, which does not match its "
                 "type '%s'", i, why.data, ts);
      pto_free(ts);
      pto_str_release(&why);
      return res;
    }
    pto_str_release(&why);
  }
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Execution                                                            */
/* ------------------------------------------------------------------ */

static PtoResult exec_op(PtoInterpFrame *f, PtoOp *op) {
  Handler *h = lookup_handler(f->I, op);
  if (!h)
    return pto_interp_error(f, op, "the interpreter has no handler for this "
                                   "op; register one with "
                                   "pto_interp_register");
  f->I->nexec++;
  if (h->fn(f, op, h->user) || check_results(f, op)) return PTO_FAILURE;
  if (!f->I->observer) return PTO_SUCCESS;
  unsigned n = pto_op_num_results(op);
  PtoInterpValue small[4], *res = n <= 4 ? small : pto_malloc(n * sizeof *res);
  for (unsigned i = 0; i < n; i++)
    res[i] = *pto_interp_slot(f, pto_op_result(op, i));
  PtoResult r = f->I->observer(op, res, n, f->I->observer_user);
  if (res != small) pto_free(res);
  return r;
}

PtoResult pto_interp_exec(PtoInterpFrame *f, PtoOp *op) {
  return exec_op(f, op);
}

/* Drops the frame's references to the values a block defines. */
static void release_block(PtoInterpFrame *f, PtoBlock *b) {
  for (unsigned i = 0; i < pto_block_num_args(b); i++)
    pto_interp_value_release(pto_interp_slot(f, pto_block_arg(b, i)));
  for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op))
    for (unsigned i = 0; i < pto_op_num_results(op); i++)
      pto_interp_value_release(pto_interp_slot(f, pto_op_result(op, i)));
}

static PtoResult run_block(PtoInterpFrame *f, PtoBlock *b,
                           PtoInterpValue *results, unsigned nresults) {
  PtoOp *term = pto_block_terminator(b);
  for (PtoOp *op = pto_block_first_op(b); op && op != term;) {
    if (f->I->opts.shuffle_launches && pto_op_is(op, "block.launch")) {
      if (pto_interp_run_launches(f, op, term, &op)) return PTO_FAILURE;
      continue;
    }
    if (exec_op(f, op)) return PTO_FAILURE;
    op = pto_op_next(op);
  }
  unsigned n = term ? pto_op_num_operands(term) : 0;
  if (n != nresults)
    return pto_interp_error(f, term ? term : pto_block_parent_op(b),
                            "the region yields %u values where %u are "
                            "expected", n, nresults);
  for (unsigned i = 0; i < n; i++)
    results[i] = pto_interp_value_copy(pto_interp_operand(f, term, i));
  return PTO_SUCCESS;
}

PtoResult pto_interp_run_region(PtoInterpFrame *f, PtoRegion *r,
                                PtoInterpValue *args, unsigned nargs,
                                PtoInterpValue *results, unsigned nresults) {
  PtoBlock *b = pto_region_first_block(r);
  PtoOp *parent = pto_region_parent_op(r);
  if (!b || pto_block_next(b)) {
    for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
    return pto_interp_error(f, parent, "the interpreter runs regions of "
                                       "exactly one block; this one has %u",
                            pto_region_num_blocks(r));
  }
  if (pto_block_num_args(b) != nargs) {
    for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
    return pto_interp_error(f, parent, "the region takes %u arguments, "
                                       "given %u",
                            pto_block_num_args(b), nargs);
  }
  for (unsigned i = 0; i < nargs; i++) {
    bind(f, pto_block_arg(b, i), args[i]);
    args[i].kind = PTO_IVAL_NONE;
    args[i].tensor = NULL;
  }
  PtoResult res = run_block(f, b, results, nresults);
  release_block(f, b);
  return res;
}

/* Checks `args` against the function's signature. */
static PtoResult check_args(PtoInterpFrame *f, PtoOp *site, PtoOp *func,
                            const PtoInterpValue *args, unsigned nargs) {
  PtoBlock *entry = pto_region_first_block(pto_op_region(func, 0));
  unsigned want = pto_block_num_args(entry);
  const char *name = pto_ident_str(pto_op_symbol_name(func));
  if (nargs != want)
    return pto_interp_error(f, site, "@%s takes %u arguments, given %u", name,
                            want, nargs);
  for (unsigned i = 0; i < nargs; i++) {
    PtoType *ty = pto_value_type(pto_block_arg(entry, i));
    PtoStr why;
    pto_str_init(&why);
    if (args[i].kind == PTO_IVAL_NONE || !pto_interp_value_fits(f->I->ctx, &args[i], ty, &why)) {
      char *ts = pto_type_to_string(ty);
      PtoResult r = pto_interp_error(f, site, "argument #%u of @%s must be "
                                              "'%s', given %s", i, name, ts,
                                     why.len ? why.data : "nothing");
      pto_free(ts);
      pto_str_release(&why);
      return r;
    }
    pto_str_release(&why);
  }
  return PTO_SUCCESS;
}

static PtoResult run_func(PtoInterp *I, PtoInterpFrame *caller, PtoOp *site,
                          PtoOp *func, PtoInterpValue *args, unsigned nargs,
                          PtoInterpValue *results, unsigned nresults) {
  PtoInterpFrame f = {I, func_info(I, func), NULL, NULL};
  f.slots = pto_calloc(f.fi->nslots ? f.fi->nslots : 1, sizeof *f.slots);
  PtoInterpFrame *site_frame = caller ? caller : &f;
  PtoResult r = PTO_SUCCESS;
  PtoRegion *body = pto_op_region(func, 0);
  if (pto_region_empty(body)) {
    r = pto_interp_error(site_frame, site ? site : func,
                         "cannot run @%s: it is a declaration without a body",
                         pto_ident_str(pto_op_symbol_name(func)));
  } else if (check_args(site_frame, site ? site : func, func, args, nargs)) {
    r = PTO_FAILURE;
  }
  if (r) {
    for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
  } else {
    r = pto_interp_run_region(&f, body, args, nargs, results, nresults);
    if (!r && f.core && interp_core_finish(&f)) {
      for (unsigned i = 0; i < nresults; i++)
        pto_interp_value_release(&results[i]);
      r = PTO_FAILURE;
    }
  }
  for (unsigned i = 0; i < f.fi->nslots; i++)
    pto_interp_value_release(&f.slots[i]);
  pto_free(f.slots);
  if (f.core) interp_core_destroy(f.core);
  return r;
}

/* How much stack below `here` nested calls may use (see STACK_BUDGET). */
static uintptr_t stack_budget(uintptr_t here) {
  uintptr_t budget = STACK_BUDGET;
#if defined(__linux__)
  pthread_attr_t a;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    void *lo;
    size_t size;
    if (pthread_attr_getstack(&a, &lo, &size) == 0 && here > (uintptr_t)lo) {
      /* stacks grow down on every target Linux runs us on */
      uintptr_t avail = here - (uintptr_t)lo;
      uintptr_t reserve = avail / 4 > STACK_RESERVE ? avail / 4 : STACK_RESERVE;
      uintptr_t usable = avail > reserve ? avail - reserve : 0;
      if (usable < budget) budget = usable;
    }
    pthread_attr_destroy(&a);
  }
#endif
  return budget;
}

PtoResult pto_interp_call(PtoInterpFrame *f, PtoOp *call_op, PtoOp *func,
                          PtoInterpValue *args, unsigned nargs,
                          PtoInterpValue *results, unsigned nresults) {
  PtoInterp *I = f->I;
  char here;
  uintptr_t at = (uintptr_t)&here;
  uintptr_t used = at < I->stack_base ? I->stack_base - at : at - I->stack_base;
  if (I->depth >= I->opts.max_call_depth || used > I->stack_budget) {
    for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
    if (I->depth >= I->opts.max_call_depth)
      return pto_interp_error(f, call_op, "call depth limit of %u exceeded "
                                          "(unbounded recursion?)",
                              I->opts.max_call_depth);
    return pto_interp_error(f, call_op, "call depth %u needs more than the "
                                        "interpreter's %u KiB of stack "
                                        "(unbounded recursion?)",
                            I->depth, (unsigned)(I->stack_budget >> 10));
  }
  if (pto_region_empty(pto_op_region(func, 0))) {
    for (unsigned i = 0; i < nargs; i++) pto_interp_value_release(&args[i]);
    return pto_interp_error(f, call_op, "cannot run @%s: it is a declaration "
                                        "without a body",
                            pto_ident_str(pto_op_symbol_name(func)));
  }
  NoteEntry n = {call_op, 0, false};
  pto_vec_push(&I->notes, n);
  I->depth++;
  PtoResult r = run_func(I, f, call_op, func, args, nargs, results, nresults);
  I->depth--;
  I->notes.len--;
  return r;
}

PtoResult pto_interp_run(PtoInterp *I, PtoOp *func,
                         const PtoInterpValue *args, unsigned nargs,
                         PtoInterpValue **results, unsigned *nresults) {
  *results = NULL;
  *nresults = 0;
  if (!pto_op_is(func, "func.func"))
    return pto_op_emit_error(func, "the interpreter runs func.func ops");
  PtoType *fty = pto_attr_type_value(pto_op_attr(func, "function_type"));
  unsigned nres = fty ? pto_type_func_num_results(fty) : 0;
  PtoInterpValue *owned = pto_calloc(nargs ? nargs : 1, sizeof *owned);
  for (unsigned i = 0; i < nargs; i++) owned[i] = pto_interp_value_copy(&args[i]);
  PtoInterpValue *res = pto_calloc(nres ? nres : 1, sizeof *res);
  I->notes.len = 0;
  I->depth = 0;
  char base;
  I->stack_base = (uintptr_t)&base;
  I->stack_budget = stack_budget(I->stack_base);
  PtoResult r = run_func(I, NULL, NULL, func, owned, nargs, res, nres);
  pto_free(owned);
  if (r) {
    for (unsigned i = 0; i < nres; i++) pto_interp_value_release(&res[i]);
    pto_free(res);
    return PTO_FAILURE;
  }
  *results = res;
  *nresults = nres;
  return PTO_SUCCESS;
}
