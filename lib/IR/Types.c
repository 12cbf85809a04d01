/* Uniqued types. */
#include "IR/IRInternal.h"

#include <string.h>

static uint32_t type_hash(const PtoType *t) {
  uint64_t h = pto_hash_combine(t->kind, (uint64_t)t->sub << 8 | t->signedness);
  switch (t->kind) {
  case PTO_TYPE_TENSOR:
    h = pto_hash_combine(h, (uintptr_t)t->u.tensor.elem);
    h = pto_hash_combine(h, pto_hash_bytes(t->u.tensor.shape,
                                           t->u.tensor.rank * sizeof(int64_t)));
    break;
  case PTO_TYPE_FUNCTION:
    h = pto_hash_combine(h, t->u.func.nin);
    h = pto_hash_combine(
        h, pto_hash_bytes(t->u.func.types,
                          (t->u.func.nin + t->u.func.nres) * sizeof(PtoType *)));
    break;
  case PTO_TYPE_DIALECT:
  case PTO_TYPE_OPAQUE:
    h = pto_dialect_storage_hash(h, &t->u.dialect);
    break;
  default:
    break;
  }
  return (uint32_t)h;
}

static bool type_eq(const void *pa, const void *pb) {
  const PtoType *a = pa, *b = pb;
  if (a->kind != b->kind || a->sub != b->sub || a->signedness != b->signedness)
    return false;
  switch (a->kind) {
  case PTO_TYPE_TENSOR:
    return a->u.tensor.elem == b->u.tensor.elem &&
           a->u.tensor.rank == b->u.tensor.rank &&
           pto_bytes_eq(a->u.tensor.shape, b->u.tensor.shape,
                  a->u.tensor.rank * sizeof(int64_t));
  case PTO_TYPE_FUNCTION:
    return a->u.func.nin == b->u.func.nin && a->u.func.nres == b->u.func.nres &&
           pto_bytes_eq(a->u.func.types, b->u.func.types,
                  (a->u.func.nin + a->u.func.nres) * sizeof(PtoType *));
  case PTO_TYPE_DIALECT:
  case PTO_TYPE_OPAQUE:
    return pto_dialect_storage_eq(&a->u.dialect, &b->u.dialect);
  default:
    return true;
  }
}

/* Finds or creates the type described by `key` (arrays still owned by the
 * caller; copied into the arena on creation). */
static PtoType *type_get(PtoContext *ctx, PtoType *key) {
  key->ctx = ctx;
  key->hash = type_hash(key);
  PtoType *t = pto_unique_find(&ctx->types, key->hash, key, type_eq);
  if (t) return t;
  PtoArena *ar = &ctx->arena;
  t = pto_arena_memdup(ar, key, sizeof *key);
  switch (t->kind) {
  case PTO_TYPE_TENSOR:
    t->u.tensor.shape = pto_arena_memdup(ar, key->u.tensor.shape,
                                         key->u.tensor.rank * sizeof(int64_t));
    break;
  case PTO_TYPE_FUNCTION:
    t->u.func.types = pto_arena_memdup(
        ar, key->u.func.types,
        (key->u.func.nin + key->u.func.nres) * sizeof(PtoType *));
    break;
  case PTO_TYPE_DIALECT:
  case PTO_TYPE_OPAQUE:
    pto_dialect_storage_own(ar, &t->u.dialect);
    break;
  default:
    break;
  }
  pto_unique_insert(&ctx->types, t);
  return t;
}

PtoType *pto_type_int_signed(PtoContext *ctx, unsigned width, PtoSignedness s) {
  if (s == PTO_SIGNLESS && width <= 64 && ctx->t_int[width])
    return ctx->t_int[width];
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_INTEGER;
  key.sub = (uint16_t)width;
  key.signedness = (uint8_t)s;
  return type_get(ctx, &key);
}

PtoType *pto_type_int(PtoContext *ctx, unsigned width) {
  return pto_type_int_signed(ctx, width, PTO_SIGNLESS);
}

PtoType *pto_type_index(PtoContext *ctx) {
  if (ctx->t_index) return ctx->t_index;
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_INDEX;
  return type_get(ctx, &key);
}

PtoType *pto_type_float(PtoContext *ctx, PtoFloatKind k) {
  if (ctx->t_float[k]) return ctx->t_float[k];
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_FLOAT;
  key.sub = (uint16_t)k;
  return type_get(ctx, &key);
}

PtoType *pto_type_f32(PtoContext *ctx) { return pto_type_float(ctx, PTO_F32); }

PtoType *pto_type_none(PtoContext *ctx) {
  if (ctx->t_none) return ctx->t_none;
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_NONE;
  return type_get(ctx, &key);
}

PtoType *pto_type_tensor(PtoContext *ctx, const int64_t *shape, unsigned rank,
                         PtoType *elem) {
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_TENSOR;
  key.u.tensor.shape = (int64_t *)shape;
  key.u.tensor.rank = rank;
  key.u.tensor.elem = elem;
  return type_get(ctx, &key);
}

PtoType *pto_type_function(PtoContext *ctx, PtoType *const *inputs,
                           unsigned nin, PtoType *const *results,
                           unsigned nres) {
  PtoType *buf[16];
  PtoType **all = nin + nres <= 16 ? buf : pto_malloc((nin + nres) * sizeof *all);
  for (unsigned i = 0; i < nin; i++) all[i] = inputs[i];
  for (unsigned i = 0; i < nres; i++) all[nin + i] = results[i];
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_FUNCTION;
  key.u.func.types = all;
  key.u.func.nin = nin;
  key.u.func.nres = nres;
  PtoType *t = type_get(ctx, &key);
  if (all != buf) pto_free(all);
  return t;
}

PtoType *pto_type_dialect(PtoContext *ctx, const char *dialect,
                          const char *name, const int64_t *ints,
                          unsigned nints, PtoType *const *types,
                          unsigned ntypes, PtoAttr *const *attrs,
                          unsigned nattrs) {
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_DIALECT;
  key.u.dialect.dialect = pto_ident_cstr(ctx, dialect);
  key.u.dialect.name = pto_ident_cstr(ctx, name);
  key.u.dialect.def = key.u.dialect.dialect->dialect;
  key.u.dialect.ints = (int64_t *)ints;
  key.u.dialect.nints = nints;
  key.u.dialect.types = (PtoType **)types;
  key.u.dialect.ntypes = ntypes;
  key.u.dialect.attrs = (PtoAttr **)attrs;
  key.u.dialect.nattrs = nattrs;
  return type_get(ctx, &key);
}

PtoType *pto_type_opaque(PtoContext *ctx, const char *dialect,
                         const char *name, const char *body, size_t len) {
  PtoType key;
  memset(&key, 0, sizeof key);
  key.kind = PTO_TYPE_OPAQUE;
  key.u.dialect.dialect = pto_ident_cstr(ctx, dialect);
  key.u.dialect.name = pto_ident_cstr(ctx, name);
  key.u.dialect.body = (char *)body;
  key.u.dialect.body_len = body ? len : 0;
  return type_get(ctx, &key);
}

PtoTypeKind pto_type_kind(const PtoType *t) { return (PtoTypeKind)t->kind; }
PtoContext *pto_type_ctx(const PtoType *t) { return t->ctx; }
bool pto_type_is_integer(const PtoType *t) {
  return t && t->kind == PTO_TYPE_INTEGER;
}
bool pto_type_is_int_or_index(const PtoType *t) {
  return t && (t->kind == PTO_TYPE_INTEGER || t->kind == PTO_TYPE_INDEX);
}
bool pto_type_is_float(const PtoType *t) { return t && t->kind == PTO_TYPE_FLOAT; }
bool pto_type_is_tensor(const PtoType *t) {
  return t && t->kind == PTO_TYPE_TENSOR;
}
unsigned pto_type_int_width(const PtoType *t) {
  return t->kind == PTO_TYPE_INTEGER ? t->sub : t->kind == PTO_TYPE_INDEX ? 64 : 0;
}
PtoSignedness pto_type_int_signedness(const PtoType *t) {
  return (PtoSignedness)t->signedness;
}
PtoFloatKind pto_type_float_kind(const PtoType *t) { return (PtoFloatKind)t->sub; }

unsigned pto_type_bitwidth(const PtoType *t) {
  switch (t->kind) {
  case PTO_TYPE_INTEGER:
    return t->sub;
  case PTO_TYPE_INDEX:
    return 64;
  case PTO_TYPE_FLOAT:
    switch ((PtoFloatKind)t->sub) {
    case PTO_F16:
    case PTO_BF16:
      return 16;
    case PTO_F32:
      return 32;
    case PTO_F64:
      return 64;
    case PTO_F8E4M3FN:
    case PTO_F8E5M2:
    case PTO_F8E8M0FNU:
      return 8;
    }
    return 0;
  default:
    return 0;
  }
}

unsigned pto_type_tensor_rank(const PtoType *t) {
  return t->kind == PTO_TYPE_TENSOR ? t->u.tensor.rank : 0;
}
const int64_t *pto_type_tensor_shape(const PtoType *t) {
  return t->kind == PTO_TYPE_TENSOR ? t->u.tensor.shape : NULL;
}
int64_t pto_type_tensor_dim(const PtoType *t, unsigned i) {
  return t->u.tensor.shape[i];
}
PtoType *pto_type_tensor_elem(const PtoType *t) {
  return t->kind == PTO_TYPE_TENSOR ? t->u.tensor.elem : NULL;
}
bool pto_type_tensor_is_static(const PtoType *t) {
  if (t->kind != PTO_TYPE_TENSOR) return false;
  for (unsigned i = 0; i < t->u.tensor.rank; i++)
    if (t->u.tensor.shape[i] == PTO_DYN) return false;
  return true;
}
int64_t pto_type_tensor_numel(const PtoType *t) {
  if (!pto_type_tensor_is_static(t)) return -1;
  int64_t n = 1;
  for (unsigned i = 0; i < t->u.tensor.rank; i++) {
    int64_t d = t->u.tensor.shape[i];
    if (d < 0) return -1;
    if (d && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}
unsigned pto_type_func_num_inputs(const PtoType *t) { return t->u.func.nin; }
unsigned pto_type_func_num_results(const PtoType *t) { return t->u.func.nres; }
PtoType *pto_type_func_input(const PtoType *t, unsigned i) {
  return t->u.func.types[i];
}
PtoType *pto_type_func_result(const PtoType *t, unsigned i) {
  return t->u.func.types[t->u.func.nin + i];
}
const char *pto_type_dialect_name(const PtoType *t) {
  return (t->kind == PTO_TYPE_DIALECT || t->kind == PTO_TYPE_OPAQUE)
             ? t->u.dialect.dialect->str
             : NULL;
}
const char *pto_type_dialect_mnemonic(const PtoType *t) {
  return (t->kind == PTO_TYPE_DIALECT || t->kind == PTO_TYPE_OPAQUE)
             ? t->u.dialect.name->str
             : NULL;
}
bool pto_type_isa(const PtoType *t, const char *dialect, const char *name) {
  return t && t->kind == PTO_TYPE_DIALECT &&
         strcmp(t->u.dialect.dialect->str, dialect) == 0 &&
         strcmp(t->u.dialect.name->str, name) == 0;
}
unsigned pto_type_num_ints(const PtoType *t) { return t->u.dialect.nints; }
const int64_t *pto_type_ints(const PtoType *t) { return t->u.dialect.ints; }
unsigned pto_type_num_types(const PtoType *t) { return t->u.dialect.ntypes; }
PtoType *pto_type_type_param(const PtoType *t, unsigned i) {
  return t->u.dialect.types[i];
}
unsigned pto_type_num_attrs(const PtoType *t) { return t->u.dialect.nattrs; }
PtoAttr *pto_type_attr_param(const PtoType *t, unsigned i) {
  return t->u.dialect.attrs[i];
}
const char *pto_type_opaque_body(const PtoType *t) {
  return t->kind == PTO_TYPE_OPAQUE ? t->u.dialect.body : NULL;
}

/* ---- dialect payloads, shared with dialect attributes ---- */

uint64_t pto_dialect_storage_hash(uint64_t h, const PtoDialectStorage *d) {
  h = pto_hash_combine(h, (uintptr_t)d->dialect);
  h = pto_hash_combine(h, (uintptr_t)d->name);
  h = pto_hash_combine(h, pto_hash_bytes(d->ints, d->nints * sizeof(int64_t)));
  h = pto_hash_combine(h, pto_hash_bytes(d->types, d->ntypes * sizeof(void *)));
  h = pto_hash_combine(h, pto_hash_bytes(d->attrs, d->nattrs * sizeof(void *)));
  return pto_hash_combine(h, pto_hash_bytes(d->body, d->body_len));
}

bool pto_dialect_storage_eq(const PtoDialectStorage *a,
                            const PtoDialectStorage *b) {
  return a->dialect == b->dialect && a->name == b->name &&
         a->nints == b->nints && a->ntypes == b->ntypes &&
         a->nattrs == b->nattrs && a->body_len == b->body_len &&
         pto_bytes_eq(a->ints, b->ints, a->nints * sizeof(int64_t)) &&
         pto_bytes_eq(a->types, b->types, a->ntypes * sizeof(void *)) &&
         pto_bytes_eq(a->attrs, b->attrs, a->nattrs * sizeof(void *)) &&
         pto_bytes_eq(a->body, b->body, a->body_len);
}

void pto_dialect_storage_own(PtoArena *ar, PtoDialectStorage *d) {
  d->ints = pto_arena_memdup(ar, d->ints, d->nints * sizeof(int64_t));
  d->types = pto_arena_memdup(ar, d->types, d->ntypes * sizeof(PtoType *));
  d->attrs = pto_arena_memdup(ar, d->attrs, d->nattrs * sizeof(PtoAttr *));
  d->body = d->body ? pto_arena_strndup(ar, d->body, d->body_len) : NULL;
}

bool pto_float_kind_f8_dtype(PtoFloatKind k, PtoDType *out) {
  switch (k) {
  case PTO_F8E4M3FN: *out = PTO_DT_F8E4M3; return true;
  case PTO_F8E5M2: *out = PTO_DT_F8E5M2; return true;
  case PTO_F8E8M0FNU: *out = PTO_DT_F8E8M0; return true;
  default: return false;
  }
}
