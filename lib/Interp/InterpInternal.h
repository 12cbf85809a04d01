/* The interpreter's private state shared by its files: the interpreter and
 * frame structs, built-in handler registration, and helpers the handlers
 * of several dialects use. */
#ifndef PTO_INTERP_INTERNAL_H
#define PTO_INTERP_INTERNAL_H

#include "pto/Interp.h"
#include "pto/Kernels.h"
#include "pto/Dialect/Tile.h"

#include "Support/Hash.h"
#include "Support/Str.h"
#include "Support/Vec.h"

/* Slot numbers of a function's values (value -> index + 1). */
typedef struct FuncInfo {
  PtoPtrMap slots;
  unsigned nslots;
} FuncInfo;

/* An enclosing call or loop iteration, for the notes of run-time errors. */
typedef struct NoteEntry {
  PtoOp *op;
  int64_t iv;
  bool is_loop;
} NoteEntry;

struct PtoInterp {
  PtoContext *ctx;
  PtoInterpOptions opts;
  PtoPtrMap handlers; /* op definition or name ident -> Handler */
  PtoPtrMap funcs;    /* func.func -> FuncInfo */
  PtoInterpObserver observer;
  void *observer_user;
  uint64_t nexec;
  uint64_t rng; /* state of the launch shuffle (opts.shuffle_launches) */
  unsigned depth;
  uintptr_t stack_base; /* address of a local of pto_interp_run */
  uintptr_t stack_budget; /* of the calling thread's stack, from there */
  PTO_VEC(NoteEntry) notes;
};

/* The buffers of the core a PTO kernel runs on (InterpPto.c). */
typedef struct InterpCore InterpCore;
void interp_core_destroy(InterpCore *c);
/* At the end of a kernel: an error at a set_flag no wait_flag consumed. */
PtoResult interp_core_finish(PtoInterpFrame *f);

struct PtoInterpFrame {
  PtoInterp *I;
  FuncInfo *fi;
  PtoInterpValue *slots;
  InterpCore *core; /* a pto.kernel's buffers, made on first use */
};

/* Built-in handlers (InterpCore.c: func, scf, arith; InterpPypto*.c;
 * InterpTile*.c). */
void pto_interp_register_core(PtoInterp *I);
void pto_interp_register_pypto(PtoInterp *I);
void pto_interp_register_tile(PtoInterp *I);
void pto_interp_register_block(PtoInterp *I);
/* Executes one op with its registered handler. */
PtoResult pto_interp_exec(PtoInterpFrame *f, PtoOp *op);
/* Runs the block.launch ops from `first` up to the first other op (or
 * `end`) in a shuffled order their GM regions allow; *next is that op. */
PtoResult pto_interp_run_launches(PtoInterpFrame *f, PtoOp *first, PtoOp *end,
                                  PtoOp **next);
void pto_interp_register_pto(PtoInterp *I);
void pto_interp_register_experimental(PtoInterp *I);
/* Gives `op_name` the handler (and user data) registered for `existing`,
 * when there is one: ops of two levels with one semantics share it. */
void pto_interp_register_alias(PtoInterp *I, const char *op_name,
                               const char *existing);

/* The slot of a value of the running function. */
PtoInterpValue *pto_interp_slot(PtoInterpFrame *f, const PtoValue *v);

/* Whether run-time value v may be a value of IR type ty (dtype, rank,
 * static dims); otherwise describes v in `why`. */
bool pto_interp_value_fits(PtoContext *ctx, const PtoInterpValue *v,
                           PtoType *ty, PtoStr *why);
/* The same for an array's dtype and shape. */
char *pto_interp_array_type_str(PtoContext *ctx, const PtoNdArray *a);

/* The dtype of result i, or an error for types without run-time values. */
PtoResult pto_interp_result_dtype(PtoInterpFrame *f, PtoOp *op, unsigned i,
                                  PtoDType *dt);

#endif
