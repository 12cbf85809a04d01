/* PTO IR core: context, identifiers, types, attributes, locations,
 * operations, regions, blocks, values, builder, walks, symbols, parsing,
 * printing, verification and diagnostics.
 *
 * The model is MLIR's. Every object reachable from a PtoContext (types,
 * attributes, locations, identifiers, operations) lives as long as the
 * context unless erased/destroyed explicitly. Nothing here uses global
 * mutable state: distinct contexts may be used from distinct threads. */
#ifndef PTO_IR_H
#define PTO_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pto/Error.h"
#include "pto/Float16.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PTO_VERSION_MAJOR 0
#define PTO_VERSION_MINOR 1
#define PTO_VERSION_PATCH 0
#define PTO_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------ */
/* Basic handles                                                        */
/* ------------------------------------------------------------------ */

/* PtoResult, pto_succeeded, pto_failed: pto/Error.h. */

typedef struct PtoContext PtoContext;
typedef struct PtoIdent PtoIdent;
typedef struct PtoType PtoType;
typedef struct PtoAttr PtoAttr;
typedef struct PtoLoc PtoLoc;
typedef struct PtoOp PtoOp;
typedef struct PtoRegion PtoRegion;
typedef struct PtoBlock PtoBlock;
typedef struct PtoValue PtoValue;
typedef struct PtoUse PtoUse;
typedef struct PtoOpDef PtoOpDef;
typedef struct PtoDialectDef PtoDialectDef;
typedef struct PtoParser PtoParser;
typedef struct PtoPrinter PtoPrinter;
typedef struct PtoDiag PtoDiag;
typedef struct PtoValueMap PtoValueMap;
typedef struct PtoSymbolTable PtoSymbolTable;
/* Accumulated description of an op being built or parsed. */
typedef struct PtoOpState PtoOpState;

void pto_free(void *p); /* frees memory the API hands to the caller */

/* ------------------------------------------------------------------ */
/* Context                                                              */
/* ------------------------------------------------------------------ */

PtoContext *pto_ctx_create(void);
void pto_ctx_destroy(PtoContext *ctx);
/* Allow ops, types and attributes of dialects that are not registered. */
void pto_ctx_set_allow_unregistered(PtoContext *ctx, bool allow);
bool pto_ctx_get_allow_unregistered(PtoContext *ctx);
const PtoDialectDef *pto_ctx_lookup_dialect(PtoContext *ctx, const char *name,
                                            size_t len);
/* Registered dialects, in registration order. */
unsigned pto_ctx_num_dialects(PtoContext *ctx);
const PtoDialectDef *pto_ctx_dialect(PtoContext *ctx, unsigned i);
/* The registered definition of an op name, or NULL. */
const PtoOpDef *pto_ctx_lookup_op(PtoContext *ctx, const char *name);
/* The registered op name closest to a misspelt `name` ("func.fnuc"), for a
 * "did you mean"; NULL when none is close. */
const char *pto_ctx_suggest_op(PtoContext *ctx, const char *name);
/* Extension slots: higher layers (pass registry, interpreter) hang their
 * per-context state here so that the IR core need not know them. */
typedef void (*PtoExtDestroyFn)(void *ext);
void *pto_ctx_get_ext(PtoContext *ctx, const char *key);
void pto_ctx_set_ext(PtoContext *ctx, const char *key, void *ext,
                     PtoExtDestroyFn destroy);

/* ------------------------------------------------------------------ */
/* Identifiers (interned strings, compared by pointer)                  */
/* ------------------------------------------------------------------ */

PtoIdent *pto_ident(PtoContext *ctx, const char *s, size_t len);
PtoIdent *pto_ident_cstr(PtoContext *ctx, const char *s);
const char *pto_ident_str(const PtoIdent *id); /* NUL-terminated */
size_t pto_ident_len(const PtoIdent *id);

/* ------------------------------------------------------------------ */
/* Types (uniqued: equal types are the same pointer)                    */
/* ------------------------------------------------------------------ */

typedef enum PtoTypeKind {
  PTO_TYPE_INTEGER,  /* iN (signless), siN, uiN */
  PTO_TYPE_INDEX,
  PTO_TYPE_FLOAT,
  PTO_TYPE_NONE,
  PTO_TYPE_TENSOR,   /* ranked tensor */
  PTO_TYPE_FUNCTION,
  PTO_TYPE_DIALECT,  /* !d.name<...>, registered dialect */
  PTO_TYPE_OPAQUE,   /* !d.name<...> of an unregistered dialect */
} PtoTypeKind;

typedef enum PtoFloatKind {
  PTO_F16,
  PTO_BF16,
  PTO_F32,
  PTO_F64,
  /* OCP 8-bit floats, MLIR's spellings (pto/DType.h has their rules) */
  PTO_F8E4M3FN,
  PTO_F8E5M2,
  PTO_F8E8M0FNU,
} PtoFloatKind;
#define PTO_FLOAT_KIND_COUNT 7

typedef enum PtoSignedness {
  PTO_SIGNLESS,
  PTO_SIGNED,
  PTO_UNSIGNED,
} PtoSignedness;

/* Marker for a dynamic dimension in shapes (`?`). */
#define PTO_DYN INT64_MIN

PtoType *pto_type_int(PtoContext *ctx, unsigned width);
PtoType *pto_type_int_signed(PtoContext *ctx, unsigned width,
                             PtoSignedness s);
PtoType *pto_type_index(PtoContext *ctx);
PtoType *pto_type_float(PtoContext *ctx, PtoFloatKind k);
PtoType *pto_type_f32(PtoContext *ctx);
PtoType *pto_type_none(PtoContext *ctx);
PtoType *pto_type_tensor(PtoContext *ctx, const int64_t *shape, unsigned rank,
                         PtoType *elem);
PtoType *pto_type_function(PtoContext *ctx, PtoType *const *inputs,
                           unsigned nin, PtoType *const *results,
                           unsigned nres);
/* A registered dialect type: identity is (dialect, name, ints, types,
 * attrs); the dialect's hooks give it its syntax. */
PtoType *pto_type_dialect(PtoContext *ctx, const char *dialect,
                          const char *name, const int64_t *ints,
                          unsigned nints, PtoType *const *types,
                          unsigned ntypes, PtoAttr *const *attrs,
                          unsigned nattrs);
PtoType *pto_type_opaque(PtoContext *ctx, const char *dialect,
                         const char *name, const char *body, size_t len);

PtoTypeKind pto_type_kind(const PtoType *t);
PtoContext *pto_type_ctx(const PtoType *t);
bool pto_type_is_integer(const PtoType *t); /* iN only, not index */
bool pto_type_is_int_or_index(const PtoType *t);
bool pto_type_is_float(const PtoType *t);
bool pto_type_is_tensor(const PtoType *t);
unsigned pto_type_int_width(const PtoType *t);
PtoSignedness pto_type_int_signedness(const PtoType *t);
PtoFloatKind pto_type_float_kind(const PtoType *t);
/* Storage width in bits of a scalar type (index: 64, i1: 1). */
unsigned pto_type_bitwidth(const PtoType *t);
unsigned pto_type_tensor_rank(const PtoType *t);
const int64_t *pto_type_tensor_shape(const PtoType *t);
int64_t pto_type_tensor_dim(const PtoType *t, unsigned i);
PtoType *pto_type_tensor_elem(const PtoType *t);
bool pto_type_tensor_is_static(const PtoType *t);
/* Number of elements of a static tensor; -1 if dynamic or overflowing. */
int64_t pto_type_tensor_numel(const PtoType *t);
unsigned pto_type_func_num_inputs(const PtoType *t);
unsigned pto_type_func_num_results(const PtoType *t);
PtoType *pto_type_func_input(const PtoType *t, unsigned i);
PtoType *pto_type_func_result(const PtoType *t, unsigned i);
/* Dialect and opaque types. */
const char *pto_type_dialect_name(const PtoType *t);
const char *pto_type_dialect_mnemonic(const PtoType *t);
bool pto_type_isa(const PtoType *t, const char *dialect, const char *name);
unsigned pto_type_num_ints(const PtoType *t);
const int64_t *pto_type_ints(const PtoType *t);
unsigned pto_type_num_types(const PtoType *t);
PtoType *pto_type_type_param(const PtoType *t, unsigned i);
unsigned pto_type_num_attrs(const PtoType *t);
PtoAttr *pto_type_attr_param(const PtoType *t, unsigned i);
const char *pto_type_opaque_body(const PtoType *t);

/* ------------------------------------------------------------------ */
/* Attributes (uniqued)                                                 */
/* ------------------------------------------------------------------ */

typedef enum PtoAttrKind {
  PTO_ATTR_INTEGER, /* includes bool (i1) */
  PTO_ATTR_FLOAT,
  PTO_ATTR_UNIT,
  PTO_ATTR_STRING,
  PTO_ATTR_TYPE,
  PTO_ATTR_ARRAY,
  PTO_ATTR_DICT,
  PTO_ATTR_SYMREF,
  PTO_ATTR_DENSE,
  PTO_ATTR_DIALECT,
  PTO_ATTR_OPAQUE,
} PtoAttrKind;

typedef struct PtoNamedAttr {
  PtoIdent *name;
  PtoAttr *value;
} PtoNamedAttr;

PtoAttr *pto_attr_int(PtoContext *ctx, PtoType *type, int64_t v);
PtoAttr *pto_attr_i64(PtoContext *ctx, int64_t v);
PtoAttr *pto_attr_index(PtoContext *ctx, int64_t v);
PtoAttr *pto_attr_bool(PtoContext *ctx, bool v);
PtoAttr *pto_attr_float(PtoContext *ctx, PtoType *type, double v);
PtoAttr *pto_attr_unit(PtoContext *ctx);
PtoAttr *pto_attr_string(PtoContext *ctx, const char *s, size_t len);
PtoAttr *pto_attr_cstr(PtoContext *ctx, const char *s);
PtoAttr *pto_attr_type(PtoContext *ctx, PtoType *t);
PtoAttr *pto_attr_array(PtoContext *ctx, PtoAttr *const *elems, unsigned n);
PtoAttr *pto_attr_i64_array(PtoContext *ctx, const int64_t *v, unsigned n);
/* Entries are sorted by name; duplicate names keep the last. */
PtoAttr *pto_attr_dict(PtoContext *ctx, const PtoNamedAttr *entries,
                       unsigned n);
PtoAttr *pto_attr_symref(PtoContext *ctx, PtoIdent *root,
                         PtoIdent *const *nested, unsigned n);
/* Dense elements of a static tensor type. `data` holds numel elements in
 * the element type's storage (pto_dense_elem_bytes each: integers in the
 * smallest of 1, 2, 4 or 8 bytes that holds them, sign- or zero-extended;
 * f16/bf16 as 2-byte bit patterns; index in 8 bytes), or one element when
 * `splat`. */
PtoAttr *pto_attr_dense(PtoContext *ctx, PtoType *tensor_type,
                        const void *data, size_t bytes, bool splat);
/* Bytes one element of type `elem` occupies in dense storage. */
size_t pto_dense_elem_bytes(const PtoType *elem);
PtoAttr *pto_attr_dialect(PtoContext *ctx, const char *dialect,
                          const char *name, const int64_t *ints,
                          unsigned nints, PtoType *const *types,
                          unsigned ntypes, PtoAttr *const *attrs,
                          unsigned nattrs);
PtoAttr *pto_attr_opaque(PtoContext *ctx, const char *dialect,
                         const char *name, const char *body, size_t len);

PtoAttrKind pto_attr_kind(const PtoAttr *a);
PtoType *pto_attr_get_type(const PtoAttr *a); /* int/float/dense: its type */
int64_t pto_attr_int_value(const PtoAttr *a);
bool pto_attr_is_bool(const PtoAttr *a);
double pto_attr_float_value(const PtoAttr *a);
const char *pto_attr_str(const PtoAttr *a);
size_t pto_attr_str_len(const PtoAttr *a);
PtoType *pto_attr_type_value(const PtoAttr *a);
unsigned pto_attr_array_size(const PtoAttr *a);
PtoAttr *pto_attr_array_get(const PtoAttr *a, unsigned i);
/* Reads an array of integer attributes; false if `a` is not one or has more
 * than `cap` elements. */
bool pto_attr_get_i64_array(const PtoAttr *a, int64_t *out, unsigned cap,
                            unsigned *n);
unsigned pto_attr_dict_size(const PtoAttr *a);
const PtoNamedAttr *pto_attr_dict_entries(const PtoAttr *a);
PtoAttr *pto_attr_dict_get(const PtoAttr *a, const char *name);
PtoIdent *pto_attr_symref_root(const PtoAttr *a);
unsigned pto_attr_symref_num_nested(const PtoAttr *a);
PtoIdent *pto_attr_symref_nested(const PtoAttr *a, unsigned i);
bool pto_attr_dense_is_splat(const PtoAttr *a);
const void *pto_attr_dense_data(const PtoAttr *a);
size_t pto_attr_dense_bytes(const PtoAttr *a);
/* Element i of a dense attribute (splat-aware) converted to double/int. */
double pto_attr_dense_get_f64(const PtoAttr *a, int64_t i);
int64_t pto_attr_dense_get_i64(const PtoAttr *a, int64_t i);
const char *pto_attr_dialect_name(const PtoAttr *a);
const char *pto_attr_dialect_mnemonic(const PtoAttr *a);
unsigned pto_attr_num_ints(const PtoAttr *a);
const int64_t *pto_attr_ints(const PtoAttr *a);
unsigned pto_attr_num_types(const PtoAttr *a);
PtoType *pto_attr_type_param(const PtoAttr *a, unsigned i);
unsigned pto_attr_num_attrs(const PtoAttr *a);
PtoAttr *pto_attr_attr_param(const PtoAttr *a, unsigned i);

/* Conversions between float formats: pto/Float16.h. Rounds a double to the precision of a float kind (result as double). */
double pto_round_to_float_kind(double v, PtoFloatKind k);

/* ------------------------------------------------------------------ */
/* Locations                                                            */
/* ------------------------------------------------------------------ */

typedef enum PtoLocKind {
  PTO_LOC_UNKNOWN,
  PTO_LOC_FILE,     /* "file":line:col */
  PTO_LOC_NAME,     /* "name" or "name"(child) */
  PTO_LOC_CALLSITE, /* callsite(callee at caller) */
  PTO_LOC_FUSED,    /* fused[l1, l2] */
} PtoLocKind;

PtoLoc *pto_loc_unknown(PtoContext *ctx);
PtoLoc *pto_loc_file(PtoContext *ctx, const char *file, unsigned line,
                     unsigned col);
PtoLoc *pto_loc_name(PtoContext *ctx, const char *name, PtoLoc *child);
PtoLoc *pto_loc_callsite(PtoContext *ctx, PtoLoc *callee, PtoLoc *caller);
PtoLoc *pto_loc_fused(PtoContext *ctx, PtoLoc *const *locs, unsigned n);
PtoLocKind pto_loc_kind(const PtoLoc *l);
/* The first file:line:col inside a location, if any: a name's child, a
 * call site's callee then caller, the first of fused locations that has
 * one. */
bool pto_loc_get_file_line_col(const PtoLoc *l, const char **file,
                               unsigned *line, unsigned *col);

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */
/* ------------------------------------------------------------------ */

typedef enum PtoDiagSeverity {
  PTO_DIAG_ERROR,
  PTO_DIAG_WARNING,
  PTO_DIAG_NOTE,
  PTO_DIAG_REMARK,
} PtoDiagSeverity;

/* A reported diagnostic as seen by a handler. Notes follow their parent. */
typedef struct PtoDiagInfo {
  PtoDiagSeverity severity;
  PtoLoc *loc;
  const char *message;
  unsigned num_notes;
  const struct PtoDiagInfo *notes;
} PtoDiagInfo;

/* Returns true if handled; false lets the default handler print it. */
typedef bool (*PtoDiagHandlerFn)(const PtoDiagInfo *d, void *user);

/* Pushes a handler; the most recently pushed one sees diagnostics first. */
void pto_ctx_push_diag_handler(PtoContext *ctx, PtoDiagHandlerFn fn,
                               void *user);
void pto_ctx_pop_diag_handler(PtoContext *ctx);
/* Where the default handler writes (stderr unless changed). */
void pto_ctx_set_diag_stream(PtoContext *ctx, FILE *f);
/* Source buffers let the default handler show the line and a caret. The
 * text is copied. Registering a name again replaces its text. */
void pto_ctx_add_source(PtoContext *ctx, const char *name, const char *text,
                        size_t len);
/* The same without the copy: `text` (allocated with the library's allocator,
 * e.g. by pto_read_file) now belongs to the context, which frees it. */
void pto_ctx_take_source(PtoContext *ctx, const char *name, char *text,
                         size_t len);
/* Number of errors reported through this context so far. */
unsigned pto_ctx_num_errors(PtoContext *ctx);
/* Renders a diagnostic as the default handler would (with source line). */
char *pto_diag_render(PtoContext *ctx, const PtoDiagInfo *d);

/* --verify-diagnostics: expectations are read from `// expected-error
 * {{...}}` comments (also -warning, -note, -remark; @+N, @-N, @above,
 * @below; the -re forms take {{regex}} pieces). While active, every
 * diagnostic is matched against them; finish() reports the ones never
 * produced and returns failure on any mismatch. `first_line` is the line
 * number of the text's first line in `filename`. */
typedef struct PtoDiagVerifier PtoDiagVerifier;
PtoDiagVerifier *pto_diag_verifier_create(PtoContext *ctx,
                                          const char *filename,
                                          const char *text, size_t len,
                                          unsigned first_line);
PtoResult pto_diag_verifier_finish(PtoDiagVerifier *v);

/* --split-input-file: chunks separated by lines `// -----`. */
typedef struct PtoSplitChunk {
  const char *text;
  size_t len;
  unsigned first_line;
} PtoSplitChunk;
/* Returns the number of chunks; *out is freed with pto_free. */
unsigned pto_split_input(const char *text, size_t len, PtoSplitChunk **out);

/* Building a diagnostic: begin, append text, attach notes, emit. */
PtoDiag *pto_diag_begin(PtoContext *ctx, PtoDiagSeverity sev, PtoLoc *loc);
void pto_diag_printf(PtoDiag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void pto_diag_vprintf(PtoDiag *d, const char *fmt, va_list ap);
void pto_diag_print_type(PtoDiag *d, PtoType *t);
void pto_diag_print_attr(PtoDiag *d, PtoAttr *a);
void pto_diag_note(PtoDiag *d, PtoLoc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports the diagnostic; returns PTO_FAILURE (for errors) so that
 * `return pto_diag_emit(d);` propagates failure. */
PtoResult pto_diag_emit(PtoDiag *d);

PtoResult pto_emit_error(PtoContext *ctx, PtoLoc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pto_emit_warning(PtoContext *ctx, PtoLoc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void pto_emit_remark(PtoContext *ctx, PtoLoc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "'op.name' op <message>" at the op's location. */
PtoResult pto_op_emit_error(PtoOp *op, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
PtoDiag *pto_op_diag(PtoOp *op, PtoDiagSeverity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ */
/* Operation definitions and dialects                                   */
/* ------------------------------------------------------------------ */

enum PtoOpTrait {
  PTO_TRAIT_PURE = 1u << 0,                 /* no side effects */
  PTO_TRAIT_TERMINATOR = 1u << 1,
  PTO_TRAIT_ISOLATED_FROM_ABOVE = 1u << 2,
  PTO_TRAIT_SYMBOL_TABLE = 1u << 3,
  PTO_TRAIT_SYMBOL = 1u << 4,               /* has `sym_name` */
  PTO_TRAIT_COMMUTATIVE = 1u << 5,
  PTO_TRAIT_SAME_OPERANDS_AND_RESULT_TYPE = 1u << 6,
  PTO_TRAIT_ELEMENTWISE = 1u << 7,
  PTO_TRAIT_NO_TERMINATOR = 1u << 8,        /* regions need no terminator */
  PTO_TRAIT_SINGLE_BLOCK = 1u << 9,
  PTO_TRAIT_CONSTANT_LIKE = 1u << 10,
  /* Side effects are those of the ops in its regions (scf.for, scf.if). */
  PTO_TRAIT_RECURSIVE_EFFECTS = 1u << 11,
  PTO_TRAIT_RETURN_LIKE = 1u << 12,
  PTO_TRAIT_SAME_OPERANDS_TYPE = 1u << 13,
  PTO_TRAIT_SAME_OPERANDS_SHAPE = 1u << 14,
  PTO_TRAIT_HAS_PARENT_SYMBOL_TABLE = 1u << 15,
  PTO_TRAIT_IS_CALL = 1u << 16,
  PTO_TRAIT_IS_FUNCTION = 1u << 17,
};

/* Where an op runs when lowered (tile ops and below). */
typedef enum PtoAffinity {
  PTO_AFFINITY_NONE,
  PTO_AFFINITY_VECTOR,
  PTO_AFFINITY_CUBE,
} PtoAffinity;

const char *pto_opdef_name(const PtoOpDef *d);
bool pto_opdef_has_trait(const PtoOpDef *d, uint32_t trait);

/* ------------------------------------------------------------------ */
/* Operations                                                           */
/* ------------------------------------------------------------------ */

/* The arrays start in the inline buffers at the end, so that building a
 * small op allocates nothing: initialise with pto_op_state_init (a
 * zero-filled state works too, without the buffers) and never copy a state
 * by value. */
struct PtoOpState {
  PtoContext *ctx;
  PtoIdent *name;
  const PtoOpDef *def;
  PtoLoc *loc;
  PtoValue **operands;
  unsigned num_operands, cap_operands;
  PtoType **result_types;
  unsigned num_results, cap_results;
  PtoNamedAttr *attrs;
  unsigned num_attrs, cap_attrs;
  PtoRegion **regions; /* owned until pto_op_create */
  unsigned num_regions, cap_regions;
  PtoBlock **successors;
  unsigned num_successors, cap_successors;
  PtoValue *inline_operands[6];
  PtoType *inline_result_types[4];
  PtoNamedAttr inline_attrs[4];
  PtoRegion *inline_regions[2];
  PtoBlock *inline_successors[2];
};

void pto_op_state_init(PtoOpState *st, PtoContext *ctx, const char *name,
                       PtoLoc *loc);
void pto_op_state_release(PtoOpState *st); /* frees unused regions too */
void pto_op_state_add_operand(PtoOpState *st, PtoValue *v);
void pto_op_state_add_operands(PtoOpState *st, PtoValue *const *v, unsigned n);
void pto_op_state_add_result(PtoOpState *st, PtoType *t);
void pto_op_state_add_results(PtoOpState *st, PtoType *const *t, unsigned n);
void pto_op_state_add_attr(PtoOpState *st, const char *name, PtoAttr *a);
void pto_op_state_set_attr(PtoOpState *st, PtoIdent *name, PtoAttr *a);
PtoAttr *pto_op_state_get_attr(const PtoOpState *st, const char *name);
PtoRegion *pto_op_state_add_region(PtoOpState *st); /* new empty region */
void pto_op_state_add_successor(PtoOpState *st, PtoBlock *b);

/* Creates a detached op from the state and releases the state. */
PtoOp *pto_op_create(PtoOpState *st);
/* Convenience for ops without regions/successors. */
PtoOp *pto_op_create_simple(PtoContext *ctx, const char *name, PtoLoc *loc,
                            PtoValue *const *operands, unsigned nops,
                            PtoType *const *result_types, unsigned nres,
                            const PtoNamedAttr *attrs, unsigned nattrs);
/* Destroys a detached op (and its regions). Its results must be unused. */
void pto_op_destroy(PtoOp *op);
/* Unlinks from its block and destroys. */
void pto_op_erase(PtoOp *op);
/* Unlinks from its block without destroying. */
void pto_op_remove(PtoOp *op);
void pto_op_move_before(PtoOp *op, PtoOp *pos);
void pto_op_move_after(PtoOp *op, PtoOp *pos);
/* Deep copy. Operands defined outside are remapped through `map` when
 * present there; results, block arguments and blocks of the clone are
 * recorded in `map`. `map` may be NULL. */
PtoOp *pto_op_clone(PtoOp *op, PtoValueMap *map);

PtoContext *pto_op_ctx(const PtoOp *op);
PtoIdent *pto_op_name(const PtoOp *op);
const char *pto_op_name_str(const PtoOp *op);
const PtoOpDef *pto_op_def(const PtoOp *op); /* NULL if unregistered */
bool pto_op_is(const PtoOp *op, const char *name);
bool pto_op_has_trait(const PtoOp *op, uint32_t trait);
PtoLoc *pto_op_loc(const PtoOp *op);
/* A cheap handle on an op's location that does not make (unique) the
 * location object: parsed ops keep their position packed until asked.
 * Passes that may need a location later (rewrite drivers recording where
 * a change happened) take a ref and resolve it only when they report. */
typedef struct PtoLocRef {
  uintptr_t bits;
} PtoLocRef;
PtoLocRef pto_op_loc_ref(const PtoOp *op);
PtoLoc *pto_loc_ref_resolve(PtoContext *ctx, PtoLocRef ref);
/* Gives `op` the location `ref` refers to (without making it). */
void pto_op_set_loc_ref(PtoOp *op, PtoLocRef ref);
void pto_op_set_loc(PtoOp *op, PtoLoc *loc);
PtoBlock *pto_op_block(const PtoOp *op);
PtoOp *pto_op_parent_op(const PtoOp *op);
PtoRegion *pto_op_parent_region(const PtoOp *op);
PtoOp *pto_op_next(const PtoOp *op); /* NULL at block end */
PtoOp *pto_op_prev(const PtoOp *op);
bool pto_op_is_ancestor_of(const PtoOp *op, const PtoOp *other);
/* True if a precedes b in the same block (O(1) amortised). */
bool pto_op_is_before_in_block(const PtoOp *a, const PtoOp *b);

unsigned pto_op_num_operands(const PtoOp *op);
PtoValue *pto_op_operand(const PtoOp *op, unsigned i);
void pto_op_set_operand(PtoOp *op, unsigned i, PtoValue *v);
/* Replaces operands [start, start+count) by `n` new values. */
void pto_op_set_operands(PtoOp *op, unsigned start, unsigned count,
                         PtoValue *const *vals, unsigned n);
unsigned pto_op_num_results(const PtoOp *op);
PtoValue *pto_op_result(const PtoOp *op, unsigned i);
unsigned pto_op_num_regions(const PtoOp *op);
PtoRegion *pto_op_region(const PtoOp *op, unsigned i);
unsigned pto_op_num_successors(const PtoOp *op);
PtoBlock *pto_op_successor(const PtoOp *op, unsigned i);
void pto_op_set_successor(PtoOp *op, unsigned i, PtoBlock *b);

unsigned pto_op_num_attrs(const PtoOp *op);
const PtoNamedAttr *pto_op_attrs(const PtoOp *op); /* sorted by name */
PtoAttr *pto_op_attr(const PtoOp *op, const char *name);
PtoAttr *pto_op_attr_id(const PtoOp *op, const PtoIdent *name);
void pto_op_set_attr(PtoOp *op, const char *name, PtoAttr *a);
void pto_op_set_attr_id(PtoOp *op, PtoIdent *name, PtoAttr *a);
bool pto_op_remove_attr(PtoOp *op, const char *name);
/* Typed getters with defaults. */
int64_t pto_op_attr_int(const PtoOp *op, const char *name, int64_t dflt);
bool pto_op_attr_flag(const PtoOp *op, const char *name); /* unit/true */
const char *pto_op_attr_str(const PtoOp *op, const char *name);

/* Side effects: false for PURE ops, for ops whose regions contain only
 * effect-free ops when RECURSIVE_EFFECTS, and unknown ops are effectful. */
bool pto_op_is_effect_free(const PtoOp *op);
/* Constant value if the op is CONSTANT_LIKE (its `value` attribute). */
PtoAttr *pto_op_constant_value(const PtoOp *op);

/* ------------------------------------------------------------------ */
/* Regions, blocks, values, uses                                        */
/* ------------------------------------------------------------------ */

PtoRegion *pto_region_create(PtoContext *ctx); /* detached, for states */
void pto_region_destroy(PtoRegion *r);
PtoOp *pto_region_parent_op(const PtoRegion *r);
PtoBlock *pto_region_first_block(const PtoRegion *r);
PtoBlock *pto_region_last_block(const PtoRegion *r);
bool pto_region_empty(const PtoRegion *r);
unsigned pto_region_num_blocks(const PtoRegion *r);
void pto_region_push_block(PtoRegion *r, PtoBlock *b);
void pto_region_insert_block_after(PtoRegion *r, PtoBlock *pos, PtoBlock *b);
/* Moves all blocks of `from` to the end of `to`. */
void pto_region_take_body(PtoRegion *to, PtoRegion *from);
/* Clones the blocks of `from` into the end of `to`. */
void pto_region_clone_into(PtoRegion *from, PtoRegion *to, PtoValueMap *map);

PtoBlock *pto_block_create(PtoContext *ctx);
/* Destroys a block that is not in a region (or erases it from its region).
 * Its ops are destroyed; values must be unused outside the block. */
void pto_block_erase(PtoBlock *b);
PtoRegion *pto_block_region(const PtoBlock *b);
PtoOp *pto_block_parent_op(const PtoBlock *b);
PtoBlock *pto_block_next(const PtoBlock *b);
PtoBlock *pto_block_prev(const PtoBlock *b);
unsigned pto_block_num_args(const PtoBlock *b);
PtoValue *pto_block_arg(const PtoBlock *b, unsigned i);
PtoValue *pto_block_add_arg(PtoBlock *b, PtoType *t, PtoLoc *loc);
PtoValue *pto_block_insert_arg(PtoBlock *b, unsigned i, PtoType *t,
                               PtoLoc *loc);
void pto_block_erase_arg(PtoBlock *b, unsigned i); /* must be unused */
PtoOp *pto_block_first_op(const PtoBlock *b);
PtoOp *pto_block_last_op(const PtoBlock *b);
bool pto_block_empty(const PtoBlock *b);
/* The last op if it is a terminator (or unregistered), else NULL. */
PtoOp *pto_block_terminator(const PtoBlock *b);
void pto_block_append(PtoBlock *b, PtoOp *op);
void pto_block_prepend(PtoBlock *b, PtoOp *op);
void pto_block_insert_before(PtoOp *pos, PtoOp *op);
void pto_block_insert_after(PtoOp *pos, PtoOp *op);
/* Moves ops [first, end of block] of `from` before `pos` (or to the end of
 * `to` when pos is NULL). */
void pto_block_splice(PtoBlock *to, PtoOp *pos, PtoBlock *from, PtoOp *first);
PtoLoc *pto_block_arg_loc(const PtoValue *arg);

PtoType *pto_value_type(const PtoValue *v);
void pto_value_set_type(PtoValue *v, PtoType *t);
PtoContext *pto_value_ctx(const PtoValue *v);
bool pto_value_is_block_arg(const PtoValue *v);
PtoOp *pto_value_def_op(const PtoValue *v);        /* NULL for block args */
PtoBlock *pto_value_owner_block(const PtoValue *v); /* args: their block */
PtoBlock *pto_value_parent_block(const PtoValue *v);
unsigned pto_value_index(const PtoValue *v); /* result or arg number */
PtoLoc *pto_value_loc(const PtoValue *v);
PtoUse *pto_value_first_use(const PtoValue *v);
bool pto_value_has_uses(const PtoValue *v);
bool pto_value_has_one_use(const PtoValue *v);
unsigned pto_value_num_uses(const PtoValue *v);
void pto_value_replace_all_uses(PtoValue *from, PtoValue *to);
/* Replaces uses except those inside `except` (and its regions). */
void pto_value_replace_uses_except(PtoValue *from, PtoValue *to,
                                   PtoOp *except);
/* If v is the result of a constant-like op, its value attribute. */
PtoAttr *pto_value_constant(const PtoValue *v);

PtoUse *pto_use_next(const PtoUse *u);
PtoOp *pto_use_owner(const PtoUse *u);
unsigned pto_use_operand_index(const PtoUse *u);
PtoValue *pto_use_value(const PtoUse *u);

/* Replaces all results of `op` by `vals` (one per result). */
void pto_op_replace_all_uses(PtoOp *op, PtoValue *const *vals);

/* ------------------------------------------------------------------ */
/* Value maps (for cloning and rewriting)                               */
/* ------------------------------------------------------------------ */

PtoValueMap *pto_value_map_create(void);
void pto_value_map_destroy(PtoValueMap *m);
void pto_value_map_set(PtoValueMap *m, const PtoValue *from, PtoValue *to);
PtoValue *pto_value_map_get(const PtoValueMap *m, const PtoValue *from);
/* Mapped value, or `from` itself when unmapped. */
PtoValue *pto_value_map_lookup(const PtoValueMap *m, PtoValue *from);
void pto_value_map_set_block(PtoValueMap *m, const PtoBlock *from,
                             PtoBlock *to);
PtoBlock *pto_value_map_get_block(const PtoValueMap *m, const PtoBlock *from);

/* ------------------------------------------------------------------ */
/* Builder                                                              */
/* ------------------------------------------------------------------ */

typedef struct PtoBuilder {
  PtoContext *ctx;
  PtoBlock *block; /* insertion block, NULL: detached */
  PtoOp *before;   /* insert before this op; NULL: at the end of block */
  PtoLoc *loc;     /* default location for created ops */
} PtoBuilder;

void pto_builder_init(PtoBuilder *b, PtoContext *ctx);
void pto_builder_set_before(PtoBuilder *b, PtoOp *op);
void pto_builder_set_after(PtoBuilder *b, PtoOp *op);
void pto_builder_set_block_end(PtoBuilder *b, PtoBlock *blk);
void pto_builder_set_block_start(PtoBuilder *b, PtoBlock *blk);
/* Inserts a detached op at the insertion point; returns it. */
PtoOp *pto_builder_insert(PtoBuilder *b, PtoOp *op);
/* pto_op_create + insert. */
PtoOp *pto_builder_create(PtoBuilder *b, PtoOpState *st);
PtoOp *pto_builder_create_simple(PtoBuilder *b, const char *name,
                                 PtoValue *const *operands, unsigned nops,
                                 PtoType *const *result_types, unsigned nres,
                                 const PtoNamedAttr *attrs, unsigned nattrs);

/* ------------------------------------------------------------------ */
/* Walks                                                                */
/* ------------------------------------------------------------------ */

typedef enum PtoWalkOrder { PTO_WALK_PRE, PTO_WALK_POST } PtoWalkOrder;
typedef enum PtoWalkResult {
  PTO_WALK_ADVANCE,
  PTO_WALK_SKIP,      /* pre-order: do not visit this op's regions */
  PTO_WALK_INTERRUPT, /* stop the walk */
} PtoWalkResult;
typedef PtoWalkResult (*PtoWalkFn)(PtoOp *op, void *user);

/* Visits `op` and all ops nested in it. In post-order the callback may
 * erase the op it is given. Returns PTO_WALK_INTERRUPT if interrupted. */
PtoWalkResult pto_op_walk(PtoOp *op, PtoWalkOrder order, PtoWalkFn fn,
                          void *user);
PtoWalkResult pto_region_walk(PtoRegion *r, PtoWalkOrder order, PtoWalkFn fn,
                              void *user);

/* ------------------------------------------------------------------ */
/* Dominance                                                            */
/* ------------------------------------------------------------------ */

/* The dominator tree of a region's blocks, indexed by position in the
 * region (0 is the entry block). Blocks unreachable from the entry have no
 * immediate dominator and no children. Valid until the region's blocks or
 * their terminators change. */
typedef struct PtoDomTree PtoDomTree;
PtoDomTree *pto_domtree_create(PtoRegion *r);
void pto_domtree_destroy(PtoDomTree *t);
unsigned pto_domtree_num_blocks(const PtoDomTree *t);
PtoBlock *pto_domtree_block(const PtoDomTree *t, unsigned i);
bool pto_domtree_reachable(const PtoDomTree *t, unsigned i);
int pto_domtree_idom(const PtoDomTree *t, unsigned i); /* -1: none */
/* Children in the dominator tree, in reverse post-order. */
unsigned pto_domtree_num_children(const PtoDomTree *t, unsigned i);
unsigned pto_domtree_child(const PtoDomTree *t, unsigned i, unsigned k);

/* ------------------------------------------------------------------ */
/* Symbols                                                              */
/* ------------------------------------------------------------------ */

PtoIdent *pto_op_symbol_name(const PtoOp *op); /* `sym_name`, or NULL */
/* Looks `name` up among the ops directly in the symbol table op's region. */
PtoOp *pto_symbol_lookup(PtoOp *table_op, const char *name);
/* Resolves a symbol reference in the nearest enclosing symbol table of
 * `from` (only there, as in MLIR; nested references descend through
 * nested tables). */
PtoOp *pto_symbol_lookup_from(PtoOp *from, const PtoAttr *symref);
PtoOp *pto_symbol_table_op_of(PtoOp *from);
bool pto_symbol_is_private(const PtoOp *sym);

/* Cached table for repeated lookups in one symbol table op. */
PtoSymbolTable *pto_symtab_create(PtoOp *table_op);
void pto_symtab_destroy(PtoSymbolTable *st);
PtoOp *pto_symtab_lookup(PtoSymbolTable *st, const PtoIdent *name);
void pto_symtab_insert(PtoSymbolTable *st, PtoOp *sym);
void pto_symtab_erase(PtoSymbolTable *st, PtoOp *sym);

/* ------------------------------------------------------------------ */
/* Parsing                                                              */
/* ------------------------------------------------------------------ */

typedef struct PtoParseOptions {
  const char *filename;  /* for locations and diagnostics ("-": stdin) */
  unsigned first_line;   /* line number of the first line (default 1) */
} PtoParseOptions;

/* Parses a module. Top-level ops other than a single builtin.module are
 * wrapped in an implicit module. Returns NULL after reporting errors. The
 * text must stay unchanged during the call only. */
PtoOp *pto_parse_module(PtoContext *ctx, const char *text, size_t len,
                        const PtoParseOptions *opts);
PtoType *pto_parse_type_str(PtoContext *ctx, const char *text);
PtoAttr *pto_parse_attr_str(PtoContext *ctx, const char *text);

/* ------------------------------------------------------------------ */
/* Printing                                                             */
/* ------------------------------------------------------------------ */

enum PtoPrintFlags {
  PTO_PRINT_GENERIC = 1u << 0,
  PTO_PRINT_DEBUGINFO = 1u << 1,
  /* Print the op as-is even if it fails verification (the default prints
   * in generic form when an op does not verify, as MLIR does). */
  PTO_PRINT_ASSUME_VERIFIED = 1u << 2,
  /* Print just this op, not wrapped/numbered with its enclosing scope. */
  PTO_PRINT_LOCAL_SCOPE = 1u << 3,
};

/* Writes as it goes, through a buffer of a few tens of KiB. */
void pto_op_print(PtoOp *op, FILE *out, unsigned flags);
char *pto_op_print_to_string(PtoOp *op, unsigned flags); /* pto_free it */
char *pto_type_to_string(PtoType *t);
char *pto_attr_to_string(PtoAttr *a);
char *pto_loc_to_string(PtoLoc *l);
void pto_type_dump(PtoType *t, FILE *out);
void pto_attr_dump(PtoAttr *a, FILE *out);

/* ------------------------------------------------------------------ */
/* Verification                                                         */
/* ------------------------------------------------------------------ */

/* Structural checks (counts, terminators, dominance, isolation, symbols)
 * and each op's own verifier, for `op` and everything nested. */
PtoResult pto_op_verify(PtoOp *op);

#ifdef __cplusplus
}
#endif
#endif
