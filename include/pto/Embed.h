/* The embedding API: what a program that hosts PTO (the Python front end,
 * through ctypes, or any C program) needs to compile and run kernels,
 * through plain C types only. A PtoEmbed is a context with every dialect
 * and pass registered and a text buffer collecting its diagnostics; modules
 * are parsed into it, transformed by pipelines, compiled for execution and
 * run on caller-owned buffers. docs/c-api.md explains it with an example.
 *
 * Ownership: everything created from a PtoEmbed belongs to it and must be
 * destroyed before it (modules and kernels have their own _destroy).
 * Strings returned as `const char *` are owned by the handle they came from
 * and stay valid until the next call on that handle that returns strings;
 * strings returned as `char *` are the caller's (free with pto_free).
 * Threads: handles of one PtoEmbed must be used by one thread at a time;
 * distinct PtoEmbeds are independent and may be used concurrently. */
#ifndef PTO_EMBED_H
#define PTO_EMBED_H

#include "pto/IR.h"
#include "pto/NdArray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raised on incompatible changes of this header; embedders that bind it
 * dynamically (ctypes) check it before anything else. */
#define PTO_EMBED_API_VERSION 1
unsigned pto_embed_api_version(void);
const char *pto_embed_version_string(void); /* "0.1.0" */

typedef struct PtoEmbed PtoEmbed;             /* context + diagnostics */
typedef struct PtoEmbedModule PtoEmbedModule; /* a module of IR */
typedef struct PtoEmbedKernel PtoEmbedKernel; /* a function ready to run */

/* ------------------------------------------------------------------ */
/* Contexts and diagnostics                                             */
/* ------------------------------------------------------------------ */

/* A context with all dialects and passes registered. Diagnostics are
 * rendered (`file:line:col: error: ...`, the source line and a caret when
 * the source is known, then notes) into a buffer instead of stderr. */
PtoEmbed *pto_embed_create(void);
/* Destroys the context; modules and kernels must be destroyed first. */
void pto_embed_destroy(PtoEmbed *e);
/* The underlying IR context, for users of the full C API. */
PtoContext *pto_embed_context(PtoEmbed *e);

/* Every diagnostic reported since the last clear, rendered; "" if none. */
const char *pto_embed_diagnostics(PtoEmbed *e);
/* Number of errors among them. */
unsigned pto_embed_num_errors(PtoEmbed *e);
void pto_embed_clear_diagnostics(PtoEmbed *e);
/* Registers the text of a source file (Python or IR) under `name`, so that
 * diagnostics at locations in it quote the line. Registering a name again
 * replaces the text. */
void pto_embed_add_source(PtoEmbed *e, const char *name, const char *text,
                          size_t len);

/* ------------------------------------------------------------------ */
/* Modules                                                              */
/* ------------------------------------------------------------------ */

/* Parses and verifies a module from IR text (`filename` names it in
 * locations and diagnostics; NULL: "<embed>"). NULL after diagnostics. */
PtoEmbedModule *pto_embed_parse(PtoEmbed *e, const char *text, size_t len,
                                const char *filename);
void pto_embed_module_destroy(PtoEmbedModule *m);
/* An independent deep copy. */
PtoEmbedModule *pto_embed_module_clone(PtoEmbedModule *m);
/* The builtin.module op, for users of the full C API. */
PtoOp *pto_embed_module_op(PtoEmbedModule *m);
/* The module as text; flags are PtoPrintFlags (PTO_PRINT_GENERIC,
 * PTO_PRINT_DEBUGINFO). pto_free the result. */
char *pto_embed_module_print(PtoEmbedModule *m, unsigned flags);

typedef struct PtoEmbedPipelineOptions {
  /* Write the module before the first stage and after each stage to
   * DIR/NN-<stage>.pto (00-input.pto first), as pto-opt --dump-dir. */
  const char *dump_dir;
  /* Keep the IR text after each stage (pto_embed_module_stage). */
  bool record_stages;
  /* Print stages with locations (loc(...)). */
  bool debuginfo;
} PtoEmbedPipelineOptions;

/* Runs a pass pipeline on the module: textual (`canonicalize,cse`,
 * `builtin.module(func.func(cse))`, pass options in braces) or the name of
 * a registered pipeline. Each top-level entry of the list is one stage.
 * The IR is verified after every pass. opts may be NULL. On failure the
 * module holds the IR the failing stage left (which may not verify). */
PtoResult pto_embed_run_pipeline(PtoEmbedModule *m, const char *pipeline,
                                 const PtoEmbedPipelineOptions *opts);
/* Stages recorded by the last pipeline run with record_stages: the name
 * of stage i (the pass or pipeline argument, "input" for stage 0) and the
 * module's text after it. NULL when i is out of range. */
unsigned pto_embed_module_num_stages(PtoEmbedModule *m);
const char *pto_embed_module_stage_name(PtoEmbedModule *m, unsigned i);
const char *pto_embed_module_stage_ir(PtoEmbedModule *m, unsigned i);

/* ------------------------------------------------------------------ */
/* Tracing support                                                      */
/* ------------------------------------------------------------------ */

/* Checks a Tensor-level (`pypto`) op as the builder and verifier do and
 * gives what a tracer needs to write it: `op` is "add" or "pypto.add",
 * operand_types[i] the IR spelling of operand i's type ("tensor<4x?xf32>",
 * "f32", "index"), attrs an attribute dictionary in IR syntax
 * ("{dim = -1 : i64, keepdim}"; NULL or "" for none), including the
 * builder-only attributes documented in docs/dialects/pypto.md (`shape`,
 * `dtype`, `out_dtype`). Diagnostics point at file:line:col (file NULL:
 * unknown location).
 * On success *nresults result types are written to result_types[] (at most
 * `cap`) and *op_attrs is the dictionary the op keeps (builder-only
 * attributes removed), both owned by `e` until its next tracing call.
 * A matmul's `cube_tile` is also checked against the buffer capacities of
 * the session's platform (L0A, L0B, L0C, L1; pto_embed_set_platform). */
PtoResult pto_embed_pypto_infer(PtoEmbed *e, const char *op,
                                const char *const *operand_types,
                                unsigned num_operands, const char *attrs,
                                const char *file, unsigned line, unsigned col,
                                const char **result_types, unsigned cap,
                                unsigned *nresults, const char **op_attrs);

/* Selects the platform whose buffer capacities tracing checks: a built-in
 * name ("a2a3", "a3"), a path to an XML description, or NULL/"" for the
 * default (a2a3). A bad description is reported with its file and line;
 * the previous platform stays selected. */
PtoResult pto_embed_set_platform(PtoEmbed *e, const char *spec);
/* The selected platform's name, owned by `e`. */
const char *pto_embed_platform_name(PtoEmbed *e);

/* Checks tile shapes as a front end's tuning calls give them, before any
 * op uses them: vec[0..nvec) (1 to 4 positive sizes) when vec is non-NULL,
 * cube = {mL0, mL1, kL0, kL1, nL0, nL1} (positive, L0 <= L1, L1 a multiple
 * of L0) when cube is non-NULL. Diagnostics point at file:line:col. The
 * platform's buffer capacities are checked when a matmul uses the cube
 * tile (pto_embed_pypto_infer), where the element types are known. */
PtoResult pto_embed_check_tiles(PtoEmbed *e, const int64_t *vec,
                                unsigned nvec, const int64_t *cube,
                                const char *file, unsigned line,
                                unsigned col);

/* ------------------------------------------------------------------ */
/* Compiling and running                                                */
/* ------------------------------------------------------------------ */

typedef struct PtoEmbedCompileOptions {
  /* The func.func to run; NULL: the module's only public function. */
  const char *entry;
  /* The pipeline applied before execution; NULL: the default execution
   * pipeline (pto_embed_default_pipeline). */
  const char *pipeline;
  /* As in PtoEmbedPipelineOptions, for the compile pipeline. */
  const char *dump_dir;
  bool record_stages;
  bool debuginfo;
  /* Keep every stage runnable so that each run also executes the input
   * module and every stage on the same arguments and compares them (the
   * per-stage check of pto-run --check-levels, include/pto/LevelCheck.h);
   * a difference beyond rtol/atol fails the run naming the first
   * diverging stage and op. Negative tolerances mean the defaults (1e-3,
   * 1.5e-3); 0 asks for exact agreement. */
  bool check_stages;
  double rtol, atol;
  /* Where the Tensor-level run of check_stages sends the text of
   * pypto.pass_verify_print and the folder pypto.pass_verify_save writes
   * into (PtoInterpOptions.debug_print / save_dir); NULL: they do
   * nothing. The callback and the folder must outlive the kernel. */
  void (*debug_print)(void *user, const char *text);
  void *debug_user;
  const char *save_dir;
} PtoEmbedCompileOptions;

/* The pipeline that prepares Tensor-level IR for execution with the
 * passes this build has: "canonicalize,cse" and, when the Tile level is
 * available, tile-expand. Owned by `e`. */
const char *pto_embed_default_pipeline(PtoEmbed *e);

/* Clones the module, runs the compile pipeline on the clone and prepares
 * the entry function for execution (today by the reference interpreter).
 * The kernel keeps its own copy: `m` may be destroyed or changed after.
 * NULL after diagnostics. opts may be NULL. */
PtoEmbedKernel *pto_embed_compile(PtoEmbedModule *m,
                                  const PtoEmbedCompileOptions *opts);
void pto_embed_kernel_destroy(PtoEmbedKernel *k);
/* The compiled module (after the pipeline). */
PtoEmbedModule *pto_embed_kernel_module(PtoEmbedKernel *k);
unsigned pto_embed_kernel_num_args(PtoEmbedKernel *k);
unsigned pto_embed_kernel_num_results(PtoEmbedKernel *k);
/* The argument a result is written back into: the function's result
 * attribute `pypto.inplace = N` (an in-place output), or -1. */
int pto_embed_kernel_result_inplace(PtoEmbedKernel *k, unsigned i);

/* Runs the kernel. args[i] describes argument i (a caller-owned buffer:
 * pto_ndarray_wrap, or a PtoNdArray filled by the caller with owns_data
 * false; any strides); scalar arguments are rank-0 arrays. Inputs are only
 * read. results[i] receives result i: when its data is non-NULL, the
 * values are converted into that buffer (shape must match, any strides;
 * it may be an argument's buffer); when NULL (or results is NULL), an
 * in-place result is written into its argument's buffer and other results
 * are kept for pto_embed_kernel_result. Nothing is written unless the
 * whole run succeeds. Every description's nbytes must be its numel times
 * the element size (a shape that disagrees with it is refused before any
 * read). */
PtoResult pto_embed_kernel_run(PtoEmbedKernel *k, const PtoNdArray *args,
                               unsigned nargs, const PtoNdArray *results,
                               unsigned nresults);
/* Result i of the last successful run that was not written to a caller
 * buffer (a C-contiguous array owned by the kernel until its next run),
 * or NULL. */
const PtoNdArray *pto_embed_kernel_result(PtoEmbedKernel *k, unsigned i);
/* A back end that runs a kernel's entry instead of the reference
 * interpreter (include/pto/EmbedBackend.h installs the compiled ones):
 * `run` gets the arguments as interpreter values (copies of the caller's
 * data) and returns *nres results in a pto_calloc'ed array, or fails
 * after a diagnostic; `destroy` frees `state` with the kernel. Arguments,
 * results and in-place outputs are checked and written as for the
 * interpreter. */
struct PtoInterpValue;
typedef struct PtoEmbedExecutor {
  void *state;
  PtoResult (*run)(void *state, const struct PtoInterpValue *args,
                   unsigned nargs, struct PtoInterpValue **results,
                   unsigned *nres);
  void (*destroy)(void *state);
} PtoEmbedExecutor;
/* Installs `x` (replacing, and destroying, an earlier one). */
void pto_embed_kernel_set_executor(PtoEmbedKernel *k, const PtoEmbedExecutor *x);

/* Runs completed, and ops executed by the interpreter in total. */
uint64_t pto_embed_kernel_num_runs(PtoEmbedKernel *k);
uint64_t pto_embed_kernel_num_ops_executed(PtoEmbedKernel *k);

#ifdef __cplusplus
}
#endif
#endif
