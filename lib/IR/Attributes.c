/* Uniqued attributes, and the float format conversions they rely on. */
#include "IR/IRInternal.h"

#include <math.h>
#include <string.h>

static uint32_t attr_hash(const PtoAttr *a) {
  uint64_t h = pto_hash_combine(a->kind, (uintptr_t)a->type);
  switch (a->kind) {
  case PTO_ATTR_INTEGER:
  case PTO_ATTR_FLOAT: {
    uint64_t bits;
    memcpy(&bits, &a->u.i, 8);
    h = pto_hash_combine(h, bits);
    break;
  }
  case PTO_ATTR_STRING:
    h = pto_hash_combine(h, pto_hash_bytes(a->u.str.s, a->u.str.len));
    break;
  case PTO_ATTR_TYPE:
    h = pto_hash_combine(h, (uintptr_t)a->u.type);
    break;
  case PTO_ATTR_ARRAY:
    h = pto_hash_combine(h, pto_hash_bytes(a->u.array.elems,
                                           a->u.array.n * sizeof(PtoAttr *)));
    break;
  case PTO_ATTR_DICT:
    h = pto_hash_combine(h, pto_hash_bytes(a->u.dict.entries,
                                           a->u.dict.n * sizeof(PtoNamedAttr)));
    break;
  case PTO_ATTR_SYMREF:
    h = pto_hash_combine(h, (uintptr_t)a->u.sym.root);
    h = pto_hash_combine(h, pto_hash_bytes(a->u.sym.nested,
                                           a->u.sym.n * sizeof(PtoIdent *)));
    break;
  case PTO_ATTR_DENSE:
    h = pto_hash_combine(h, pto_hash_bytes(a->u.dense.data, a->u.dense.bytes));
    h = pto_hash_combine(h, a->u.dense.splat);
    break;
  case PTO_ATTR_DIALECT:
  case PTO_ATTR_OPAQUE:
    h = pto_dialect_storage_hash(h, &a->u.dialect);
    break;
  default:
    break;
  }
  return (uint32_t)h;
}

static bool attr_eq(const void *pa, const void *pb) {
  const PtoAttr *a = pa, *b = pb;
  if (a->kind != b->kind || a->type != b->type) return false;
  switch (a->kind) {
  case PTO_ATTR_INTEGER:
  case PTO_ATTR_FLOAT:
    return memcmp(&a->u.i, &b->u.i, 8) == 0;
  case PTO_ATTR_UNIT:
    return true;
  case PTO_ATTR_STRING:
    return a->u.str.len == b->u.str.len &&
           pto_bytes_eq(a->u.str.s, b->u.str.s, a->u.str.len);
  case PTO_ATTR_TYPE:
    return a->u.type == b->u.type;
  case PTO_ATTR_ARRAY:
    return a->u.array.n == b->u.array.n &&
           pto_bytes_eq(a->u.array.elems, b->u.array.elems,
                  a->u.array.n * sizeof(PtoAttr *));
  case PTO_ATTR_DICT:
    return a->u.dict.n == b->u.dict.n &&
           pto_bytes_eq(a->u.dict.entries, b->u.dict.entries,
                  a->u.dict.n * sizeof(PtoNamedAttr));
  case PTO_ATTR_SYMREF:
    return a->u.sym.root == b->u.sym.root && a->u.sym.n == b->u.sym.n &&
           pto_bytes_eq(a->u.sym.nested, b->u.sym.nested, a->u.sym.n * sizeof(void *));
  case PTO_ATTR_DENSE:
    return a->u.dense.splat == b->u.dense.splat &&
           a->u.dense.bytes == b->u.dense.bytes &&
           pto_bytes_eq(a->u.dense.data, b->u.dense.data, a->u.dense.bytes);
  case PTO_ATTR_DIALECT:
  case PTO_ATTR_OPAQUE:
    return pto_dialect_storage_eq(&a->u.dialect, &b->u.dialect);
  }
  return false;
}

static PtoAttr *attr_get(PtoContext *ctx, PtoAttr *key) {
  key->ctx = ctx;
  key->hash = attr_hash(key);
  PtoAttr *a = pto_unique_find(&ctx->attrs, key->hash, key, attr_eq);
  if (a) return a;
  PtoArena *ar = &ctx->arena;
  a = pto_arena_memdup(ar, key, sizeof *key);
  switch (a->kind) {
  case PTO_ATTR_STRING:
    a->u.str.s = pto_arena_strndup(ar, key->u.str.s, key->u.str.len);
    break;
  case PTO_ATTR_ARRAY:
    a->u.array.elems = pto_arena_memdup(ar, key->u.array.elems,
                                        key->u.array.n * sizeof(PtoAttr *));
    break;
  case PTO_ATTR_DICT:
    a->u.dict.entries = pto_arena_memdup(ar, key->u.dict.entries,
                                         key->u.dict.n * sizeof(PtoNamedAttr));
    break;
  case PTO_ATTR_SYMREF:
    a->u.sym.nested = pto_arena_memdup(ar, key->u.sym.nested,
                                       key->u.sym.n * sizeof(PtoIdent *));
    break;
  case PTO_ATTR_DENSE:
    a->u.dense.data = pto_arena_memdup(ar, key->u.dense.data, key->u.dense.bytes);
    break;
  case PTO_ATTR_DIALECT:
  case PTO_ATTR_OPAQUE:
    pto_dialect_storage_own(ar, &a->u.dialect);
    break;
  default:
    break;
  }
  pto_unique_insert(&ctx->attrs, a);
  return a;
}

static PtoAttr attr_key(PtoAttrKind k) {
  PtoAttr key;
  memset(&key, 0, sizeof key);
  key.kind = (uint16_t)k;
  return key;
}

/* Integers are kept canonical for their type: sign-extended from the width
 * for signless/signed types, zero-extended for unsigned ones. */
static int64_t int_canonical(const PtoType *t, int64_t v) {
  unsigned w = pto_type_int_width(t);
  if (w == 0 || w >= 64) return v;
  uint64_t mask = ((uint64_t)1 << w) - 1, u = (uint64_t)v & mask;
  if (t->kind == PTO_TYPE_INTEGER && t->signedness == PTO_UNSIGNED)
    return (int64_t)u;
  if (w == 1) return (int64_t)u; /* i1: 0 or 1 */
  if (u >> (w - 1)) u |= ~mask;
  return (int64_t)u;
}

PtoAttr *pto_attr_int(PtoContext *ctx, PtoType *type, int64_t v) {
  PtoAttr key = attr_key(PTO_ATTR_INTEGER);
  key.type = type;
  key.u.i = int_canonical(type, v);
  key.is_bool = type->kind == PTO_TYPE_INTEGER && type->sub == 1 &&
                type->signedness == PTO_SIGNLESS;
  return attr_get(ctx, &key);
}
PtoAttr *pto_attr_i64(PtoContext *ctx, int64_t v) {
  return pto_attr_int(ctx, pto_type_int(ctx, 64), v);
}
PtoAttr *pto_attr_index(PtoContext *ctx, int64_t v) {
  return pto_attr_int(ctx, pto_type_index(ctx), v);
}
PtoAttr *pto_attr_bool(PtoContext *ctx, bool v) {
  if (v && ctx->a_true) return ctx->a_true;
  if (!v && ctx->a_false) return ctx->a_false;
  return pto_attr_int(ctx, pto_type_int(ctx, 1), v);
}

PtoAttr *pto_attr_float(PtoContext *ctx, PtoType *type, double v) {
  PtoAttr key = attr_key(PTO_ATTR_FLOAT);
  key.type = type;
  key.u.f = pto_round_to_float_kind(v, pto_type_float_kind(type));
  return attr_get(ctx, &key);
}

PtoAttr *pto_attr_unit(PtoContext *ctx) {
  if (ctx->a_unit) return ctx->a_unit;
  PtoAttr key = attr_key(PTO_ATTR_UNIT);
  return attr_get(ctx, &key);
}

PtoAttr *pto_attr_string(PtoContext *ctx, const char *s, size_t len) {
  PtoAttr key = attr_key(PTO_ATTR_STRING);
  key.u.str.s = (char *)s;
  key.u.str.len = len;
  return attr_get(ctx, &key);
}
PtoAttr *pto_attr_cstr(PtoContext *ctx, const char *s) {
  return pto_attr_string(ctx, s, strlen(s));
}

PtoAttr *pto_attr_type(PtoContext *ctx, PtoType *t) {
  PtoAttr key = attr_key(PTO_ATTR_TYPE);
  key.u.type = t;
  return attr_get(ctx, &key);
}

PtoAttr *pto_attr_array(PtoContext *ctx, PtoAttr *const *elems, unsigned n) {
  PtoAttr key = attr_key(PTO_ATTR_ARRAY);
  key.u.array.elems = (PtoAttr **)elems;
  key.u.array.n = n;
  return attr_get(ctx, &key);
}

PtoAttr *pto_attr_i64_array(PtoContext *ctx, const int64_t *v, unsigned n) {
  PtoAttr *buf[16] = {0}; /* zeroed: gcc -O3 warns otherwise */
  PtoAttr **el = n <= 16 ? buf : pto_malloc(n * sizeof *el);
  for (unsigned i = 0; i < n; i++) el[i] = pto_attr_i64(ctx, v[i]);
  PtoAttr *a = pto_attr_array(ctx, el, n);
  if (el != buf) pto_free(el);
  return a;
}

static int named_cmp(const PtoNamedAttr *a, const PtoNamedAttr *b) {
  return strcmp(a->name->str, b->name->str);
}

PtoAttr *pto_attr_dict(PtoContext *ctx, const PtoNamedAttr *entries,
                       unsigned n) {
  PtoNamedAttr buf[16];
  PtoNamedAttr *e = n <= 16 ? buf : pto_malloc(n * sizeof *e);
  unsigned m = 0;
  /* insertion sort keeps it stable; later duplicates replace earlier */
  for (unsigned i = 0; i < n; i++) {
    unsigned j = 0;
    while (j < m && named_cmp(&e[j], &entries[i]) < 0) j++;
    if (j < m && e[j].name == entries[i].name) {
      e[j] = entries[i];
      continue;
    }
    memmove(&e[j + 1], &e[j], (m - j) * sizeof *e);
    e[j] = entries[i];
    m++;
  }
  PtoAttr key = attr_key(PTO_ATTR_DICT);
  key.u.dict.entries = e;
  key.u.dict.n = m;
  PtoAttr *a = attr_get(ctx, &key);
  if (e != buf) pto_free(e);
  return a;
}

PtoAttr *pto_attr_symref(PtoContext *ctx, PtoIdent *root,
                         PtoIdent *const *nested, unsigned n) {
  PtoAttr key = attr_key(PTO_ATTR_SYMREF);
  key.u.sym.root = root;
  key.u.sym.nested = (PtoIdent **)nested;
  key.u.sym.n = n;
  return attr_get(ctx, &key);
}

size_t pto_dense_elem_bytes(const PtoType *elem) {
  unsigned w = pto_type_bitwidth(elem);
  return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}

void pto_dense_store_int(void *dst, size_t eb, int64_t v) {
  switch (eb) {
  case 1: {
    int8_t x = (int8_t)v;
    memcpy(dst, &x, 1);
    return;
  }
  case 2: {
    int16_t x = (int16_t)v;
    memcpy(dst, &x, 2);
    return;
  }
  case 4: {
    int32_t x = (int32_t)v;
    memcpy(dst, &x, 4);
    return;
  }
  default:
    memcpy(dst, &v, 8);
  }
}

/* Raw element bits, sign-extended from the storage size. */
static int64_t dense_load_int(const void *p, size_t eb) {
  switch (eb) {
  case 1: {
    int8_t v;
    memcpy(&v, p, 1);
    return v;
  }
  case 2: {
    int16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  default: {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

/* Integers whose width is not a storage size (i1, i12, ...) are stored
 * extended from their width as int_canonical says, so that equal values
 * have equal bytes whichever way the caller filled the upper bits. Returns
 * a new buffer, or NULL when `data` is canonical by construction. */
static void *dense_canonical_ints(PtoType *et, const void *data, size_t bytes) {
  if (et->kind != PTO_TYPE_INTEGER) return NULL;
  size_t eb = pto_dense_elem_bytes(et);
  if (pto_type_bitwidth(et) == eb * 8) return NULL;
  unsigned char *buf = pto_malloc(bytes ? bytes : 1);
  for (size_t off = 0; off + eb <= bytes; off += eb)
    pto_dense_store_int(buf + off, eb,
                        int_canonical(et, dense_load_int((const char *)data + off, eb)));
  return buf;
}

PtoAttr *pto_attr_dense(PtoContext *ctx, PtoType *tensor_type,
                        const void *data, size_t bytes, bool splat) {
  void *canon = dense_canonical_ints(pto_type_tensor_elem(tensor_type), data,
                                     bytes);
  if (canon) data = canon;
  PtoAttr key = attr_key(PTO_ATTR_DENSE);
  key.type = tensor_type;
  key.u.dense.data = (void *)data;
  key.u.dense.bytes = bytes;
  key.u.dense.splat = splat;
  /* A non-splat whose elements are all equal is stored as a splat, so that
   * equal values compare equal. */
  size_t eb = pto_dense_elem_bytes(pto_type_tensor_elem(tensor_type));
  if (!splat && bytes >= eb && bytes % eb == 0) {
    bool all = true;
    for (size_t i = eb; i < bytes && all; i += eb)
      all = memcmp((const char *)data, (const char *)data + i, eb) == 0;
    if (all && bytes > 0) {
      key.u.dense.bytes = eb;
      key.u.dense.splat = true;
    }
  }
  PtoAttr *a = attr_get(ctx, &key);
  pto_free(canon);
  return a;
}

static PtoAttr *dialect_attr_get(PtoContext *ctx, PtoAttrKind k,
                                 const char *dialect, const char *name,
                                 const int64_t *ints, unsigned nints,
                                 PtoType *const *types, unsigned ntypes,
                                 PtoAttr *const *attrs, unsigned nattrs,
                                 const char *body, size_t len) {
  PtoAttr key = attr_key(k);
  key.u.dialect.dialect = pto_ident_cstr(ctx, dialect);
  key.u.dialect.name = pto_ident_cstr(ctx, name);
  key.u.dialect.def = key.u.dialect.dialect->dialect;
  key.u.dialect.ints = (int64_t *)ints;
  key.u.dialect.nints = nints;
  key.u.dialect.types = (PtoType **)types;
  key.u.dialect.ntypes = ntypes;
  key.u.dialect.attrs = (PtoAttr **)attrs;
  key.u.dialect.nattrs = nattrs;
  key.u.dialect.body = (char *)body;
  key.u.dialect.body_len = body ? len : 0;
  return attr_get(ctx, &key);
}

PtoAttr *pto_attr_dialect(PtoContext *ctx, const char *dialect,
                          const char *name, const int64_t *ints,
                          unsigned nints, PtoType *const *types,
                          unsigned ntypes, PtoAttr *const *attrs,
                          unsigned nattrs) {
  return dialect_attr_get(ctx, PTO_ATTR_DIALECT, dialect, name, ints, nints,
                          types, ntypes, attrs, nattrs, NULL, 0);
}

PtoAttr *pto_attr_opaque(PtoContext *ctx, const char *dialect,
                         const char *name, const char *body, size_t len) {
  return dialect_attr_get(ctx, PTO_ATTR_OPAQUE, dialect, name, NULL, 0, NULL,
                          0, NULL, 0, body, len);
}

PtoAttrKind pto_attr_kind(const PtoAttr *a) { return (PtoAttrKind)a->kind; }
PtoType *pto_attr_get_type(const PtoAttr *a) { return a->type; }
int64_t pto_attr_int_value(const PtoAttr *a) { return a->u.i; }
bool pto_attr_is_bool(const PtoAttr *a) {
  return a->kind == PTO_ATTR_INTEGER && a->is_bool;
}
double pto_attr_float_value(const PtoAttr *a) {
  return a->kind == PTO_ATTR_FLOAT ? a->u.f : (double)a->u.i;
}
const char *pto_attr_str(const PtoAttr *a) {
  return a && a->kind == PTO_ATTR_STRING ? a->u.str.s : NULL;
}
size_t pto_attr_str_len(const PtoAttr *a) { return a->u.str.len; }
PtoType *pto_attr_type_value(const PtoAttr *a) {
  return a && a->kind == PTO_ATTR_TYPE ? a->u.type : NULL;
}
unsigned pto_attr_array_size(const PtoAttr *a) {
  return a && a->kind == PTO_ATTR_ARRAY ? a->u.array.n : 0;
}
PtoAttr *pto_attr_array_get(const PtoAttr *a, unsigned i) {
  return a->u.array.elems[i];
}
bool pto_attr_get_i64_array(const PtoAttr *a, int64_t *out, unsigned cap,
                            unsigned *n) {
  if (!a || a->kind != PTO_ATTR_ARRAY || a->u.array.n > cap) return false;
  for (unsigned i = 0; i < a->u.array.n; i++) {
    PtoAttr *e = a->u.array.elems[i];
    if (e->kind != PTO_ATTR_INTEGER || e->is_bool) return false;
    out[i] = e->u.i;
  }
  *n = a->u.array.n;
  return true;
}
unsigned pto_attr_dict_size(const PtoAttr *a) { return a->u.dict.n; }
const PtoNamedAttr *pto_attr_dict_entries(const PtoAttr *a) {
  return a->u.dict.entries;
}
PtoAttr *pto_attr_dict_get(const PtoAttr *a, const char *name) {
  for (unsigned i = 0; i < a->u.dict.n; i++)
    if (strcmp(a->u.dict.entries[i].name->str, name) == 0)
      return a->u.dict.entries[i].value;
  return NULL;
}
PtoIdent *pto_attr_symref_root(const PtoAttr *a) { return a->u.sym.root; }
unsigned pto_attr_symref_num_nested(const PtoAttr *a) { return a->u.sym.n; }
PtoIdent *pto_attr_symref_nested(const PtoAttr *a, unsigned i) {
  return a->u.sym.nested[i];
}
bool pto_attr_dense_is_splat(const PtoAttr *a) { return a->u.dense.splat; }
const void *pto_attr_dense_data(const PtoAttr *a) { return a->u.dense.data; }
size_t pto_attr_dense_bytes(const PtoAttr *a) { return a->u.dense.bytes; }

static const void *dense_elem_ptr(const PtoAttr *a, int64_t i, PtoType **et) {
  *et = pto_type_tensor_elem(a->type);
  size_t eb = pto_dense_elem_bytes(*et);
  if (a->u.dense.splat) i = 0;
  return (const char *)a->u.dense.data + (size_t)i * eb;
}

double pto_attr_dense_get_f64(const PtoAttr *a, int64_t i) {
  PtoType *et;
  const void *p = dense_elem_ptr(a, i, &et);
  if (et->kind == PTO_TYPE_FLOAT) {
    uint16_t h;
    float f;
    double d;
    PtoDType f8;
    switch ((PtoFloatKind)et->sub) {
    case PTO_F16:
      memcpy(&h, p, 2);
      return pto_f16_bits_to_f32(h);
    case PTO_BF16:
      memcpy(&h, p, 2);
      return pto_bf16_bits_to_f32(h);
    case PTO_F32:
      memcpy(&f, p, 4);
      return f;
    case PTO_F64:
      memcpy(&d, p, 8);
      return d;
    default:
      pto_float_kind_f8_dtype((PtoFloatKind)et->sub, &f8);
      return pto_dtype_load_f64(f8, p, 0);
    }
  }
  return (double)pto_attr_dense_get_i64(a, i);
}

int64_t pto_attr_dense_get_i64(const PtoAttr *a, int64_t i) {
  PtoType *et;
  const void *p = dense_elem_ptr(a, i, &et);
  if (et->kind == PTO_TYPE_FLOAT) return (int64_t)pto_attr_dense_get_f64(a, i);
  return int_canonical(et, dense_load_int(p, pto_dense_elem_bytes(et)));
}

const char *pto_attr_dialect_name(const PtoAttr *a) {
  return a->u.dialect.dialect->str;
}
const char *pto_attr_dialect_mnemonic(const PtoAttr *a) {
  return a->u.dialect.name->str;
}
unsigned pto_attr_num_ints(const PtoAttr *a) { return a->u.dialect.nints; }
const int64_t *pto_attr_ints(const PtoAttr *a) { return a->u.dialect.ints; }
unsigned pto_attr_num_types(const PtoAttr *a) { return a->u.dialect.ntypes; }
PtoType *pto_attr_type_param(const PtoAttr *a, unsigned i) {
  return a->u.dialect.types[i];
}
unsigned pto_attr_num_attrs(const PtoAttr *a) { return a->u.dialect.nattrs; }
PtoAttr *pto_attr_attr_param(const PtoAttr *a, unsigned i) {
  return a->u.dialect.attrs[i];
}

/* ---- float formats ---- */

double pto_round_to_float_kind(double v, PtoFloatKind k) {
  PtoDType f8;
  switch (k) {
  case PTO_F16:
    return pto_round_to_f16(v);
  case PTO_BF16:
    return pto_round_to_bf16(v);
  case PTO_F32:
    return (double)(float)v;
  case PTO_F64:
    return v;
  default:
    if (pto_float_kind_f8_dtype(k, &f8))
      return pto_dtype_round_f64(f8, v, PTO_CAST_DEFAULT);
    return v;
  }
}
