/* Layout of the IR core's objects; private to lib/IR. Everything outside
 * lib/IR goes through include/pto/IR.h. */
#ifndef PTO_IR_INTERNAL_H
#define PTO_IR_INTERNAL_H

#include "pto/IR.h"

#include "Support/Alloc.h"
#include "Support/Arena.h"
#include "Support/Hash.h"
#include "Support/List.h"
#include "Support/Str.h"
#include "Support/Vec.h"

struct PtoIdent {
  uint32_t len;
  uint32_t hash;
  const PtoOpDef *opdef;           /* registered op of this name, if any */
  const PtoDialectDef *dialect;    /* registered dialect of this name */
  char str[];
};

/* Uniqued objects (types, attributes, locations) start with their hash so
 * that one table implementation serves all three. */
typedef struct PtoUniqueTable {
  void **slots;
  uint32_t cap, len;
} PtoUniqueTable;

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
    } tensor;
    struct {
      PtoType **types; /* inputs then results */
      unsigned nin, nres;
    } func;
    struct {
      PtoIdent *dialect, *name;
      const PtoDialectDef *def;
      int64_t *ints;
      PtoType **types;
      PtoAttr **attrs;
      unsigned nints, ntypes, nattrs;
      char *body; /* opaque only */
      size_t body_len;
    } dialect;
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
    struct {
      PtoIdent *dialect, *name;
      const PtoDialectDef *def;
      int64_t *ints;
      PtoType **types;
      PtoAttr **attrs;
      unsigned nints, ntypes, nattrs;
      char *body;
      size_t body_len;
    } dialect;
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

struct PtoValue {
  PtoType *type;
  PtoUse *first_use;
  union {
    PtoOp *op;
    PtoBlock *block;
  } owner;
  uint32_t index : 31;
  uint32_t is_arg : 1;
  /* Scratch used by one algorithm at a time (printer numbering, verifier
   * visibility marks, parser bookkeeping). */
  uint32_t scratch;
};

typedef struct PtoBlockArg {
  PtoValue v;
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

struct PtoOp {
  PtoListNode node; /* in the block */
  PtoBlock *block;
  PtoIdent *name;
  const PtoOpDef *def;
  PtoLoc *loc;
  PtoContext *ctx;
  uint32_t order;
  uint32_t num_operands, cap_operands;
  uint32_t num_results;
  uint32_t num_attrs, cap_attrs;
  uint16_t num_regions, num_successors;
  bool operands_inline;
  uint32_t alloc_size;
  PtoUse *operands;
  PtoNamedAttr *attrs;
  PtoRegion *regions;    /* inline, after the results */
  PtoBlock **successors; /* inline, after the regions */
  PtoValue results[];
};

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

enum { PTO_IR_NUM_CLASSES = 64 }; /* size classes of 16 bytes, up to 1 KiB */

struct PtoContext {
  PtoArena arena;   /* identifiers, types, attributes, locations */
  PtoArena ir_arena; /* operations, blocks, regions (recycled) */
  void *free_lists[PTO_IR_NUM_CLASSES];
  PtoStrMap idents;
  PtoUniqueTable types, attrs, locs;
  PtoType *t_int[65], *t_index, *t_float[4], *t_none;
  PtoAttr *a_unit, *a_true, *a_false;
  PtoLoc *l_unknown;
  PTO_VEC(const PtoDialectDef *) dialects;
  bool allow_unregistered;
  PTO_VEC(PtoDiagHandlerEntry) handlers;
  FILE *diag_stream;
  PTO_VEC(PtoSource) sources;
  unsigned num_errors;
  PTO_VEC(PtoCtxExt) exts;
  /* While pto_op_verify runs (the IR cannot change): symbol table op ->
   * PtoSymbolTable, so that symbol users resolve in O(1), not by a scan. */
  PtoPtrMap *verify_symtabs;
};

/* IR memory recycled through size-class free lists. */
void *pto_ir_alloc(PtoContext *ctx, size_t n);
void pto_ir_free(PtoContext *ctx, void *p, size_t n);

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

/* The builtin dialect (builtin.module) the core always registers. */
extern const PtoDialectDef pto_builtin_dialect;

#endif
