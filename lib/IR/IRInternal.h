/* Layout of the IR core's objects; private to lib/IR. Everything outside
 * lib/IR goes through include/pto/IR.h. */
#ifndef PTO_IR_INTERNAL_H
#define PTO_IR_INTERNAL_H

#include "pto/IR.h"
#include "pto/DialectImplementation.h"
#include "pto/DType.h"

#include "Support/Alloc.h"
#include "Support/Arena.h"
#include "Support/Hash.h"
#include "Support/List.h"
#include "Support/Str.h"
#include "Support/Vec.h"

struct PtoIdent {
  uint32_t len;
  uint32_t hash;
  PtoContext *ctx;                 /* its context (and that of ops named so) */
  const PtoOpDef *opdef;           /* registered op of this name, if any */
  const PtoDialectDef *dialect;    /* registered dialect of this name */
  PtoIdent *const *dialect_attrs;  /* a registered op's: its dialect's
                                      interned attribute names, or NULL */
  char str[];
};

/* Uniqued objects (types, attributes, locations) start with their hash so
 * that one table implementation serves all three. */
typedef struct PtoUniqueTable {
  uintptr_t *slots; /* object pointer | low bits of its hash (Context.c) */
  uint32_t cap, len;
} PtoUniqueTable;

/* The payload of dialect types and attributes (and of opaque ones, which
 * keep their body text): identity is every field but `def`. */
typedef struct PtoDialectStorage {
  PtoIdent *dialect, *name;
  const PtoDialectDef *def;
  int64_t *ints;
  PtoType **types;
  PtoAttr **attrs;
  unsigned nints, ntypes, nattrs;
  char *body; /* opaque only */
  size_t body_len;
} PtoDialectStorage;
uint64_t pto_dialect_storage_hash(uint64_t h, const PtoDialectStorage *d);
bool pto_dialect_storage_eq(const PtoDialectStorage *a,
                            const PtoDialectStorage *b);
/* Copies the arrays and body of `d` into the arena (after a memdup of the
 * object holding it). */
void pto_dialect_storage_own(PtoArena *ar, PtoDialectStorage *d);

struct PtoType {
  uint32_t hash;
  uint16_t kind;
  uint16_t sub; /* int: width; float: PtoFloatKind */
  uint8_t signedness;
  PtoContext *ctx;
  union {
    struct {
      int64_t *shape;
      unsigned rank;
      PtoType *elem;
      /* Printed form, made on first print when the element type is
       * builtin: tensor types recur in every op signature. */
      const char *text;
      uint32_t text_len;
    } tensor;
    struct {
      PtoType **types; /* inputs then results */
      unsigned nin, nres;
    } func;
    PtoDialectStorage dialect;
  } u;
};

struct PtoAttr {
  uint32_t hash;
  uint16_t kind;
  uint16_t is_bool;
  PtoContext *ctx;
  PtoType *type;
  union {
    int64_t i;
    double f;
    struct {
      char *s;
      size_t len;
    } str;
    PtoType *type;
    struct {
      PtoAttr **elems;
      unsigned n;
    } array;
    struct {
      PtoNamedAttr *entries;
      unsigned n;
    } dict;
    struct {
      PtoIdent *root;
      PtoIdent **nested;
      unsigned n;
    } sym;
    struct {
      void *data;
      size_t bytes;
      bool splat;
    } dense;
    PtoDialectStorage dialect;
  } u;
};

struct PtoLoc {
  uint32_t hash;
  uint16_t kind;
  union {
    struct {
      PtoIdent *file;
      unsigned line, col;
    } file;
    struct {
      PtoIdent *name;
      PtoLoc *child;
    } name;
    struct {
      PtoLoc *callee, *caller;
    } cs;
    struct {
      PtoLoc **locs;
      unsigned n;
    } fused;
  } u;
};

/* A value does not point to its owner: an op result finds its op from its
 * index (results are an array at the end of the op), a block argument is
 * the first member of a PtoBlockArg. */
struct PtoValue {
  PtoType *type;
  PtoUse *first_use;
  uint32_t index : 31;
  uint32_t is_arg : 1;
  /* Scratch used by one algorithm at a time (printer numbering, verifier
   * visibility marks, parser bookkeeping). */
  uint32_t scratch;
};

/* Also the parser's placeholders for forward references (block NULL). */
typedef struct PtoBlockArg {
  PtoValue v;
  PtoBlock *block;
  PtoLoc *loc;
} PtoBlockArg;

struct PtoUse {
  PtoValue *value;
  PtoUse *next;
  PtoUse **prev_next;
  PtoOp *owner;
};

struct PtoRegion {
  PtoListNode blocks;
  PtoOp *parent;
  PtoContext *ctx;
};

struct PtoBlock {
  PtoListNode node; /* in the region */
  PtoListNode ops;
  PtoRegion *parent;
  PtoContext *ctx;
  PtoBlockArg **args;
  uint32_t nargs, cap_args;
  uint32_t scratch;
  bool order_valid;
};

/* One allocation holds the op and, after it, its results, regions,
 * successors, and (until they outgrow it) its operands and attributes.
 * The registered definition and the context come from the name. This
 * keeps an op with one result and two operands in 176 bytes. */
struct PtoOp {
  PtoListNode node; /* in the block */
  PtoBlock *block;
  PtoIdent *name;
  uintptr_t loc_bits; /* a PtoLoc *, or a parsed position: see op_loc */
  PtoUse *operands;
  PtoNamedAttr *attrs; /* sorted by name */
  uint32_t order;
  uint32_t num_operands, cap_operands;
  uint32_t num_results;
  uint32_t num_attrs, cap_attrs;
  uint16_t num_regions, num_successors;
  uint32_t alloc_size : 30;
  uint32_t operands_inline : 1, attrs_inline : 1;
  PtoValue results[];
};

static inline PtoContext *op_ctx(const PtoOp *op) { return op->name->ctx; }

/* A parsed op keeps its position (file, line, column) packed in loc_bits,
 * tagged by bit 0, until someone asks for its location: uniquing one
 * location per op costs a hash-table insertion (a cache miss in a large
 * table) and 40 bytes that only diagnostics and --print-debuginfo need.
 * op_loc returns the same uniqued location either way. */
PtoLoc *pto_op_lazy_loc(PtoOp *op);
static inline PtoLoc *op_loc(const PtoOp *op) {
  return op->loc_bits & 1 ? pto_op_lazy_loc((PtoOp *)op)
                          : (PtoLoc *)op->loc_bits;
}
/* Packs a position into *bits; false when it does not fit (then make the
 * location). */
bool pto_loc_pack(PtoContext *ctx, PtoIdent *file, uint32_t line,
                  uint32_t col, uintptr_t *bits);
/* pto_loc_file and pto_loc_name for names already interned (the
 * parser's): such names may hold any byte, NUL included. */
PtoLoc *pto_loc_file_id(PtoContext *ctx, PtoIdent *file, unsigned line,
                        unsigned col);
PtoLoc *pto_loc_name_id(PtoContext *ctx, PtoIdent *name, PtoLoc *child);
static inline const PtoOpDef *op_def(const PtoOp *op) {
  return op->name->opdef;
}
static inline PtoRegion *op_regions(const PtoOp *op) {
  return (PtoRegion *)(op->results + op->num_results);
}
static inline PtoBlock **op_successors(const PtoOp *op) {
  return (PtoBlock **)(op_regions(op) + op->num_regions);
}
/* The op defining a result (not a block argument). */
static inline PtoOp *result_op(const PtoValue *v) {
  return (PtoOp *)((char *)(v - v->index) - offsetof(PtoOp, results));
}
static inline PtoBlock *arg_block(const PtoValue *v) {
  return ((const PtoBlockArg *)v)->block;
}

typedef struct PtoDiagHandlerEntry {
  PtoDiagHandlerFn fn;
  void *user;
} PtoDiagHandlerEntry;

typedef struct PtoSource {
  char *name;
  char *text;
  size_t len;
  uint32_t *line_starts; /* computed lazily */
  uint32_t nlines;
} PtoSource;

typedef struct PtoCtxExt {
  const char *key;
  void *ext;
  PtoExtDestroyFn destroy;
} PtoCtxExt;

enum { PTO_IR_NUM_CLASSES = 128 }; /* size classes of 8 bytes, up to 1 KiB */

/* Levels of nested regions (and, in the parser, of types, attributes and
 * locations) the parser, verifier and printer handle: recursion deeper than
 * this is reported instead of risking the stack. */
enum { PTO_MAX_NESTING = 256 };

struct PtoContext {
  PtoArena arena;   /* types, attributes, locations */
  /* Identifiers apart, densely: interning compares with their text. */
  PtoArena ident_arena;
  PtoArena ir_arena; /* operations, blocks, regions (recycled) */
  void *free_lists[PTO_IR_NUM_CLASSES];
  PtoStrMap idents;
  PtoUniqueTable types, attrs, locs;
  PtoType *t_int[65], *t_index, *t_float[PTO_FLOAT_KIND_COUNT], *t_none;
  PtoAttr *a_unit, *a_true, *a_false;
  PtoLoc *l_unknown;
  PTO_VEC(const PtoDialectDef *) dialects;
  bool allow_unregistered;
  PTO_VEC(PtoDiagHandlerEntry) handlers;
  FILE *diag_stream;
  PTO_VEC(PtoSource) sources;
  unsigned num_errors;
  PTO_VEC(PtoCtxExt) exts;
  PTO_VEC(PtoIdent *) packed_files; /* file names of packed positions */
  /* While pto_op_verify runs (the IR cannot change): symbol table op ->
   * PtoSymbolTable, so that symbol users resolve in O(1), not by a scan. */
  PtoPtrMap *verify_symtabs;
  uint32_t verify_mark; /* last visibility mark handed out by the verifier */
};

/* IR memory recycled through size-class free lists. */
void *pto_ir_alloc(PtoContext *ctx, size_t n);
void pto_ir_free(PtoContext *ctx, void *p, size_t n);

/* Writes an integer element of dense storage (eb: pto_dense_elem_bytes). */
void pto_dense_store_int(void *dst, size_t eb, int64_t v);

/* Unique tables. */
typedef bool (*PtoUniqueEqFn)(const void *a, const void *b);
void *pto_unique_find(PtoUniqueTable *t, uint32_t hash, const void *key,
                      PtoUniqueEqFn eq);
void pto_unique_insert(PtoUniqueTable *t, void *obj);
void pto_unique_release(PtoUniqueTable *t);

/* Use-list maintenance. */
static inline void pto_use_link(PtoUse *u, PtoValue *v) {
  u->value = v;
  if (!v) {
    u->next = NULL;
    u->prev_next = NULL;
    return;
  }
  u->next = v->first_use;
  if (u->next) u->next->prev_next = &u->next;
  u->prev_next = &v->first_use;
  v->first_use = u;
}
static inline void pto_use_unlink(PtoUse *u) {
  if (!u->value) return;
  *u->prev_next = u->next;
  if (u->next) u->next->prev_next = u->prev_next;
  u->value = NULL;
  u->next = NULL;
  u->prev_next = NULL;
}

static inline PtoOp *op_from_node(PtoListNode *n) {
  return pto_container_of(n, PtoOp, node);
}
static inline PtoBlock *block_from_node(PtoListNode *n) {
  return pto_container_of(n, PtoBlock, node);
}

/* Iteration helpers over intrusive lists. */
#define PTO_FOR_OPS(blk, it)                                          \
  for (PtoOp *it = pto_block_first_op(blk); it; it = pto_op_next(it))
#define PTO_FOR_BLOCKS(reg, it)                                              \
  for (PtoBlock *it = pto_region_first_block(reg); it; it = pto_block_next(it))

/* Source lookup for diagnostics. */
const PtoSource *pto_ctx_find_source(PtoContext *ctx, const char *name);
bool pto_source_line(const PtoSource *src, unsigned line, const char **start,
                     size_t *len);

/* Printing helpers shared with diagnostics. */
void pto_print_type_to(PtoStr *s, PtoType *t);
void pto_print_attr_to(PtoStr *s, PtoAttr *a);
void pto_print_loc_to(PtoStr *s, PtoLoc *l);
/* True when `s` can be printed as a bare identifier. */
bool pto_is_bare_identifier(const char *s, size_t n);
/* True when the body of an unregistered dialect type or attribute reads
 * back as written between `<` and `>` (printable, one line, brackets and
 * quotes balanced). */
bool pto_dialect_body_is_pretty(const char *body, size_t len);

/* The builtin dialect (builtin.module) the core always registers. */
extern const PtoDialectDef pto_builtin_dialect;

/* Operation.c's helpers for Block.c. */
void pto_region_init(PtoRegion *r, PtoContext *ctx, PtoOp *parent);
/* Destroys every block of `r` (uses inside it dropped first). */
void pto_region_clear(PtoRegion *r);
/* Links a detached op into `b` before `pos`, keeping the block's op order
 * numbering valid when it can. */
void pto_block_insert_node(PtoBlock *b, PtoListNode *pos, PtoOp *op);

/* The dtype of an 8-bit float kind, whose values lib/Array converts;
 * false for the other kinds. */
bool pto_float_kind_f8_dtype(PtoFloatKind k, PtoDType *out);

#endif
