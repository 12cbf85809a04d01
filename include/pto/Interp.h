/* The reference interpreter: executes func/arith/scf/pypto IR (and any op a
 * user registers a handler for) on host buffers. It is the golden model the
 * lower levels are checked against: plain loops, documented numerics
 * (docs/interpreter.md), and every run-time problem reported as a
 * diagnostic at the op that met it, never a crash.
 *
 * Values are tensors (refcounted host buffers with a dtype and a shape;
 * value semantics) and typed scalars. Handlers are looked up per op
 * definition in a table each interpreter builds for itself; an observer
 * sees every op's results as they are produced. */
#ifndef PTO_INTERP_H
#define PTO_INTERP_H

#include "pto/IRArray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Tensors                                                              */
/* ------------------------------------------------------------------ */

/* A refcounted n-d array. Tensors are values: nothing mutates a tensor
 * that anyone else holds; pto_tensor_make_unique gives a writable one. A
 * view shares its source's buffer (and keeps it alive). */
typedef struct PtoTensor PtoTensor;

/* A new zero-filled C-contiguous tensor (refcount 1), or NULL with an error
 * at `loc` when the shape is invalid or its size overflows (see
 * pto_shape_check). ctx may be NULL for a silent failure. */
PtoTensor *pto_tensor_create(PtoContext *ctx, PtoLoc *loc, PtoDType dt,
                             unsigned rank, const int64_t *shape);
/* A tensor holding a copy of `a`'s values (C-contiguous). */
PtoTensor *pto_tensor_from_ndarray(const PtoNdArray *a);
/* Takes `a` (as pto_ndarray_create or the .npy reader return it) and
 * destroys it: the tensor adopts the buffer when `a` owns contiguous data,
 * and copies the values otherwise. */
PtoTensor *pto_tensor_take_ndarray(PtoNdArray *a);
/* The window of `t` at `offsets` with `shape` (caller-checked bounds),
 * sharing its buffer. Returns a new reference. */
PtoTensor *pto_tensor_view(PtoTensor *t, const int64_t *offsets,
                           const int64_t *shape);
/* `t`'s elements with a new shape of the same element count, sharing the
 * buffer when `t` is contiguous and copying otherwise. */
PtoTensor *pto_tensor_reshape(PtoTensor *t, unsigned rank,
                              const int64_t *shape);
PtoTensor *pto_tensor_retain(PtoTensor *t);
void pto_tensor_release(PtoTensor *t); /* NULL is a no-op */
/* The description of the tensor's elements (shape, strides, data). The
 * data may be written only through a tensor that is unique. */
const PtoNdArray *pto_tensor_array(const PtoTensor *t);
PtoDType pto_tensor_dtype(const PtoTensor *t);
unsigned pto_tensor_rank(const PtoTensor *t);
const int64_t *pto_tensor_shape(const PtoTensor *t);
int64_t pto_tensor_numel(const PtoTensor *t);
/* The IR type of the tensor's current shape, `tensor<3x8xf32>` (pto_free
 * it). */
char *pto_tensor_type_to_string(PtoContext *ctx, const PtoTensor *t);
/* True when this is the only reference to the tensor and its buffer. */
bool pto_tensor_is_unique(const PtoTensor *t);
/* Takes a reference and returns a tensor with the same values that the
 * caller may write: `t` itself when unique and contiguous, else a copy
 * (and `t`'s reference is released). */
PtoTensor *pto_tensor_make_unique(PtoTensor *t);

/* ------------------------------------------------------------------ */
/* Values                                                               */
/* ------------------------------------------------------------------ */

typedef enum PtoInterpValueKind {
  PTO_IVAL_NONE,   /* not (yet) computed */
  PTO_IVAL_SCALAR, /* dtype + i (integers, bool, index) or f (floats) */
  PTO_IVAL_TENSOR, /* tensor holds one reference */
} PtoInterpValueKind;

/* A run-time value. Integer scalars hold their value sign-extended from
 * their width (i1: 0 or 1); float scalars hold a double already rounded to
 * their format. */
typedef struct PtoInterpValue {
  PtoInterpValueKind kind;
  PtoDType dtype; /* scalar type, or the tensor's element type */
  int64_t i;
  double f;
  PtoTensor *tensor;
} PtoInterpValue;

PtoInterpValue pto_interp_value_int(PtoDType dt, int64_t v); /* wraps */
PtoInterpValue pto_interp_value_float(PtoDType dt, double v); /* rounds */
/* Takes the tensor's reference. */
PtoInterpValue pto_interp_value_tensor(PtoTensor *t);
/* A new reference to the same value. */
PtoInterpValue pto_interp_value_copy(const PtoInterpValue *v);
void pto_interp_value_release(PtoInterpValue *v); /* resets to NONE */
/* Scalars as double / int64 whatever their type. */
double pto_interp_value_as_f64(const PtoInterpValue *v);
int64_t pto_interp_value_as_i64(const PtoInterpValue *v);
/* The value as text: `2.5 : f32`, `tensor (4, 8) f32`. */
char *pto_interp_value_to_string(const PtoInterpValue *v); /* pto_free */

/* ------------------------------------------------------------------ */
/* Interpreter                                                          */
/* ------------------------------------------------------------------ */

typedef struct PtoInterp PtoInterp;
/* The state of the op being executed, passed to handlers. */
typedef struct PtoInterpFrame PtoInterpFrame;

typedef struct PtoInterpOptions {
  /* Deepest func.call nesting before "call depth limit" (0: 256). */
  unsigned max_call_depth;
  /* Largest single tensor the interpreter allocates, in bytes
   * (0: 4 GiB). */
  uint64_t max_tensor_bytes;
  /* 0: block.launch ops run in program order. Otherwise each run of
   * consecutive launches runs in a pseudo-random topological order (from
   * this seed) of the dependencies their GM regions imply: a test that
   * results do not depend on which independent launch runs first. */
  uint64_t shuffle_launches;
  /* Bytes of each on-chip buffer of one core (vec, mat, left, right, acc:
   * UB, L1, L0A, L0B, L0C), the image PTO kernels run on (0: the default
   * platform's, a2a3: 192 KiB, 512 KiB, 64 KiB, 64 KiB, 128 KiB). */
  uint64_t buffer_bytes[5];
  /* Where pypto.pass_verify_print's text goes (one call per executed op,
   * the text without a trailing newline); NULL: the ops print nothing
   * (the library itself never writes to stdout). */
  void (*debug_print)(void *user, const char *text);
  void *debug_user;
  /* The folder pypto.pass_verify_save writes its `<fname>.npy` files into
   * (it must exist); NULL: the ops save nothing. */
  const char *save_dir;
} PtoInterpOptions;

/* An interpreter for IR of `ctx`, with the handlers of every registered
 * built-in dialect (func, arith, scf, pypto). opts may be NULL. */
PtoInterp *pto_interp_create(PtoContext *ctx, const PtoInterpOptions *opts);
void pto_interp_destroy(PtoInterp *I);
PtoContext *pto_interp_ctx(PtoInterp *I);

/* Executes one op: reads operands and sets every result (or fails after
 * reporting an error with pto_interp_error). */
typedef PtoResult (*PtoInterpHandler)(PtoInterpFrame *f, PtoOp *op,
                                      void *user);
/* Registers (or replaces) the handler of an op name; the op need not be
 * registered in the context (unregistered ops are matched by name). */
void pto_interp_register(PtoInterp *I, const char *op_name,
                         PtoInterpHandler fn, void *user);
bool pto_interp_has_handler(PtoInterp *I, PtoOp *op);

/* Called after every op executes, with its results (borrowed). A failure
 * stops the run (the observer reports its own error). */
typedef PtoResult (*PtoInterpObserver)(PtoOp *op,
                                       const PtoInterpValue *results,
                                       unsigned n, void *user);
void pto_interp_set_observer(PtoInterp *I, PtoInterpObserver fn, void *user);

/* Runs a func.func on `args` (borrowed; tensors are shared, never
 * modified). On success *results (pto_free it after releasing each value)
 * holds one value per function result. Argument kinds, dtypes, ranks and
 * static dims are checked against the signature. */
PtoResult pto_interp_run(PtoInterp *I, PtoOp *func,
                         const PtoInterpValue *args, unsigned nargs,
                         PtoInterpValue **results, unsigned *nresults);
/* Number of ops executed so far (all runs). */
uint64_t pto_interp_num_ops_executed(const PtoInterp *I);

/* ---- inside a handler ---- */

PtoInterp *pto_interp_frame_interp(PtoInterpFrame *f);
/* Operand i's value (borrowed). */
const PtoInterpValue *pto_interp_operand(PtoInterpFrame *f, PtoOp *op,
                                         unsigned i);
/* Operand i as a tensor (borrowed). */
PtoTensor *pto_interp_operand_tensor(PtoInterpFrame *f, PtoOp *op,
                                     unsigned i);
/* Whether this op is the last use of operand i's value (its only use, in
 * the block that defines it): nothing reads the value after the op. */
bool pto_interp_is_last_use(PtoInterpFrame *f, PtoOp *op, unsigned i);
/* Operand i as a tensor the caller owns a reference to. When this op is
 * the value's last use, the binding's reference is moved out, so that a
 * following pto_tensor_make_unique can update it in place. */
PtoTensor *pto_interp_take_operand_tensor(PtoInterpFrame *f, PtoOp *op,
                                          unsigned i);
/* Scalar operands (index, integers, floats). */
int64_t pto_interp_operand_int(PtoInterpFrame *f, PtoOp *op, unsigned i);
double pto_interp_operand_float(PtoInterpFrame *f, PtoOp *op, unsigned i);
/* Sets result i (takes the value's reference). */
void pto_interp_set_result(PtoInterpFrame *f, PtoOp *op, unsigned i,
                           PtoInterpValue v);
/* A new zero-filled tensor for a result of `op`, or NULL after an error at
 * the op (size limit). */
PtoTensor *pto_interp_new_tensor(PtoInterpFrame *f, PtoOp *op, PtoDType dt,
                                 unsigned rank, const int64_t *shape);
/* Reports "'op.name' op <message>" at the op, with notes for the calls
 * and loop iterations it runs in; returns PTO_FAILURE. */
PtoResult pto_interp_error(PtoInterpFrame *f, PtoOp *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Runs the single-block region `r` with its entry arguments bound to
 * `args` (references taken). Its terminator's operands become `results`
 * (new references; exactly `nresults` of them). The region's values are
 * released when it ends. */
PtoResult pto_interp_run_region(PtoInterpFrame *f, PtoRegion *r,
                                PtoInterpValue *args, unsigned nargs,
                                PtoInterpValue *results, unsigned nresults);
/* Calls a func.func (as func.call does), from `call_op` (for notes). */
PtoResult pto_interp_call(PtoInterpFrame *f, PtoOp *call_op, PtoOp *func,
                          PtoInterpValue *args, unsigned nargs,
                          PtoInterpValue *results, unsigned nresults);
/* While a loop's body runs, errors carry a note naming the loop and its
 * induction value. Push before running the body, pop after. */
void pto_interp_push_loop(PtoInterpFrame *f, PtoOp *loop, int64_t iv);
void pto_interp_pop_loop(PtoInterpFrame *f);

/* The dtype of a scalar or tensor IR type (its element type); false for
 * types the interpreter has no values of. */
bool pto_interp_type_dtype(const PtoType *t, PtoDType *dt);

/* ------------------------------------------------------------------ */
/* Comparing and summarising results                                    */
/* ------------------------------------------------------------------ */

/* The default tolerances of a dtype (docs/numerics.md): an element
 * matches when |got - expected| <= atol + rtol * |expected|. Integers and
 * bool compare exactly (0, 0). */
void pto_default_tolerance(PtoDType dt, double *rtol, double *atol);

typedef struct PtoCompareResult {
  int64_t numel;
  int64_t num_mismatched;
  /* the element furthest beyond its tolerance (or, when all match, the
   * one with the largest difference) */
  int64_t worst_index[PTO_MAX_RANK];
  double worst_got, worst_expected;
  double max_abs_diff, max_rel_diff; /* over finite pairs */
} PtoCompareResult;

/* Compares arrays of one shape (any dtypes; values as double). NaN matches
 * NaN; an infinity matches only the same infinity. Returns true when every
 * element matches. */
bool pto_compare_arrays(const PtoNdArray *got, const PtoNdArray *expected,
                        double rtol, double atol, PtoCompareResult *r);

typedef struct PtoArrayStats {
  double min, max, mean; /* over non-NaN elements (0 when there are none) */
  int64_t num_nan;
  uint64_t checksum; /* pto_ndarray_checksum */
} PtoArrayStats;

/* FNV-1a (64-bit) of the elements' bytes in C order, as numpy's
 * `ascontiguousarray(a).tobytes()` gives them (bf16 as its bit patterns,
 * bool as one byte 0 or 1). */
uint64_t pto_ndarray_checksum(const PtoNdArray *a);
void pto_ndarray_stats(const PtoNdArray *a, PtoArrayStats *s);

#ifdef __cplusplus
}
#endif
#endif
