/* Uniqued source locations. */
#include "IR/IRInternal.h"

#include <string.h>

static uint32_t loc_hash(const PtoLoc *l) {
  uint64_t h = pto_hash_mix(l->kind + 1);
  switch (l->kind) {
  case PTO_LOC_FILE:
    h = pto_hash_combine(h, (uintptr_t)l->u.file.file);
    h = pto_hash_combine(h, (uint64_t)l->u.file.line << 32 | l->u.file.col);
    break;
  case PTO_LOC_NAME:
    h = pto_hash_combine(h, (uintptr_t)l->u.name.name);
    h = pto_hash_combine(h, (uintptr_t)l->u.name.child);
    break;
  case PTO_LOC_CALLSITE:
    h = pto_hash_combine(h, (uintptr_t)l->u.cs.callee);
    h = pto_hash_combine(h, (uintptr_t)l->u.cs.caller);
    break;
  case PTO_LOC_FUSED:
    h = pto_hash_combine(h, pto_hash_bytes(l->u.fused.locs,
                                           l->u.fused.n * sizeof(PtoLoc *)));
    break;
  }
  return (uint32_t)h;
}

static bool loc_eq(const void *pa, const void *pb) {
  const PtoLoc *a = pa, *b = pb;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case PTO_LOC_UNKNOWN:
    return true;
  case PTO_LOC_FILE:
    return a->u.file.file == b->u.file.file && a->u.file.line == b->u.file.line &&
           a->u.file.col == b->u.file.col;
  case PTO_LOC_NAME:
    return a->u.name.name == b->u.name.name && a->u.name.child == b->u.name.child;
  case PTO_LOC_CALLSITE:
    return a->u.cs.callee == b->u.cs.callee && a->u.cs.caller == b->u.cs.caller;
  case PTO_LOC_FUSED:
    return a->u.fused.n == b->u.fused.n &&
           (a->u.fused.n == 0 ||
            memcmp(a->u.fused.locs, b->u.fused.locs,
                   a->u.fused.n * sizeof(PtoLoc *)) == 0);
  }
  return false;
}

static PtoLoc *loc_get(PtoContext *ctx, PtoLoc *key) {
  key->hash = loc_hash(key);
  PtoLoc *l = pto_unique_find(&ctx->locs, key->hash, key, loc_eq);
  if (l) return l;
  l = pto_arena_memdup(&ctx->arena, key, sizeof *key);
  if (l->kind == PTO_LOC_FUSED)
    l->u.fused.locs = pto_arena_memdup(&ctx->arena, key->u.fused.locs,
                                       key->u.fused.n * sizeof(PtoLoc *));
  pto_unique_insert(&ctx->locs, l);
  return l;
}

PtoLoc *pto_loc_unknown(PtoContext *ctx) {
  if (ctx->l_unknown) return ctx->l_unknown;
  PtoLoc key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_LOC_UNKNOWN;
  return loc_get(ctx, &key);
}

PtoLoc *pto_loc_file(PtoContext *ctx, const char *file, unsigned line,
                     unsigned col) {
  PtoLoc key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_LOC_FILE;
  key.u.file.file = pto_ident_cstr(ctx, file);
  key.u.file.line = line;
  key.u.file.col = col;
  return loc_get(ctx, &key);
}

PtoLoc *pto_loc_file_id(PtoContext *ctx, PtoIdent *file, unsigned line,
                        unsigned col) {
  PtoLoc key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_LOC_FILE;
  key.u.file.file = file;
  key.u.file.line = line;
  key.u.file.col = col;
  return loc_get(ctx, &key);
}

PtoLoc *pto_loc_name_id(PtoContext *ctx, PtoIdent *name, PtoLoc *child) {
  PtoLoc key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_LOC_NAME;
  key.u.name.name = name;
  key.u.name.child = child;
  return loc_get(ctx, &key);
}

PtoLoc *pto_loc_name(PtoContext *ctx, const char *name, PtoLoc *child) {
  return pto_loc_name_id(ctx, pto_ident_cstr(ctx, name), child);
}

PtoLoc *pto_loc_callsite(PtoContext *ctx, PtoLoc *callee, PtoLoc *caller) {
  PtoLoc key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_LOC_CALLSITE;
  key.u.cs.callee = callee;
  key.u.cs.caller = caller;
  return loc_get(ctx, &key);
}

PtoLoc *pto_loc_fused(PtoContext *ctx, PtoLoc *const *locs, unsigned n) {
  PtoLoc key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_LOC_FUSED;
  key.u.fused.locs = (PtoLoc **)locs;
  key.u.fused.n = n;
  return loc_get(ctx, &key);
}

/* Packed positions (see op_loc): bit 0 set, then 8 bits of file (an index
 * into ctx->packed_files), 31 of line, 24 of column. */
enum { PACK_FILE_BITS = 8, PACK_LINE_BITS = 31, PACK_COL_BITS = 24 };

bool pto_loc_pack(PtoContext *ctx, PtoIdent *file, uint32_t line,
                  uint32_t col, uintptr_t *bits) {
#if UINTPTR_MAX > 0xFFFFFFFFu
  if (line >> PACK_LINE_BITS || col >> PACK_COL_BITS) return false;
  uint32_t i = 0;
  while (i < ctx->packed_files.len && ctx->packed_files.data[i] != file) i++;
  if (i == ctx->packed_files.len) {
    if (i >> PACK_FILE_BITS) return false;
    pto_vec_push(&ctx->packed_files, file);
  }
  *bits = 1 | (uintptr_t)i << 1 | (uintptr_t)line << (1 + PACK_FILE_BITS) |
          (uintptr_t)col << (1 + PACK_FILE_BITS + PACK_LINE_BITS);
  return true;
#else
  return false;
#endif
}

static PtoLoc *unpack(PtoContext *ctx, uintptr_t bits) {
  uintptr_t b = bits >> 1;
  PtoIdent *file = ctx->packed_files.data[b & ((1u << PACK_FILE_BITS) - 1)];
  b >>= PACK_FILE_BITS;
  unsigned line = (unsigned)(b & ((1u << PACK_LINE_BITS) - 1));
  unsigned col = (unsigned)(b >> PACK_LINE_BITS);
  return pto_loc_file_id(ctx, file, line, col);
}

PtoLoc *pto_op_lazy_loc(PtoOp *op) {
  PtoLoc *l = unpack(op_ctx(op), op->loc_bits);
  op->loc_bits = (uintptr_t)l; /* made once */
  return l;
}

PtoLocRef pto_op_loc_ref(const PtoOp *op) {
  PtoLocRef r = {op->loc_bits};
  return r;
}

PtoLoc *pto_loc_ref_resolve(PtoContext *ctx, PtoLocRef ref) {
  if (!ref.bits) return ctx->l_unknown;
  return ref.bits & 1 ? unpack(ctx, ref.bits) : (PtoLoc *)ref.bits;
}

void pto_op_set_loc_ref(PtoOp *op, PtoLocRef ref) {
  op->loc_bits = ref.bits ? ref.bits : (uintptr_t)op_ctx(op)->l_unknown;
}

PtoLocKind pto_loc_kind(const PtoLoc *l) { return (PtoLocKind)l->kind; }

bool pto_loc_get_file_line_col(const PtoLoc *l, const char **file,
                               unsigned *line, unsigned *col) {
  for (unsigned depth = 0; l && depth < PTO_MAX_NESTING; depth++) {
    switch (l->kind) {
    case PTO_LOC_UNKNOWN:
      return false;
    case PTO_LOC_FILE:
      if (file) *file = l->u.file.file->str;
      if (line) *line = l->u.file.line;
      if (col) *col = l->u.file.col;
      return true;
    case PTO_LOC_NAME:
      l = l->u.name.child;
      break;
    case PTO_LOC_CALLSITE:
      /* the callee's position, else the caller's (as MLIR shows them) */
      if (pto_loc_get_file_line_col(l->u.cs.callee, file, line, col))
        return true;
      l = l->u.cs.caller;
      break;
    case PTO_LOC_FUSED:
      for (unsigned i = 0; i < l->u.fused.n; i++)
        if (pto_loc_get_file_line_col(l->u.fused.locs[i], file, line, col))
          return true;
      return false;
    }
  }
  return false;
}
