/* PtoContext: interning, uniquing tables, registries, IR memory. */
#include "IR/IRInternal.h"

#include <assert.h>
#include <string.h>

void pto_free(void *p);

PtoContext *pto_ctx_create(void) {
  PtoContext *ctx = pto_calloc(1, sizeof *ctx);
  pto_arena_init(&ctx->arena);
  pto_arena_init(&ctx->ir_arena);
  pto_arena_init(&ctx->ident_arena);
  pto_strmap_init(&ctx->idents);
  ctx->diag_stream = stderr;
  /* Builtin scalar types and common attributes are created eagerly so that
   * the hot paths return cached pointers. */
  static const unsigned widths[] = {1, 8, 16, 32, 64};
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(widths); i++)
    ctx->t_int[widths[i]] = pto_type_int(ctx, widths[i]);
  ctx->t_index = pto_type_index(ctx);
  for (int k = PTO_F16; k < PTO_FLOAT_KIND_COUNT; k++)
    ctx->t_float[k] = pto_type_float(ctx, (PtoFloatKind)k);
  ctx->t_none = pto_type_none(ctx);
  ctx->a_unit = pto_attr_unit(ctx);
  ctx->a_true = pto_attr_bool(ctx, true);
  ctx->a_false = pto_attr_bool(ctx, false);
  ctx->l_unknown = pto_loc_unknown(ctx);
  pto_ctx_register_dialect(ctx, &pto_builtin_dialect);
  return ctx;
}

void pto_ctx_destroy(PtoContext *ctx) {
  if (!ctx) return;
  for (uint32_t i = ctx->exts.len; i-- > 0;)
    if (ctx->exts.data[i].destroy) ctx->exts.data[i].destroy(ctx->exts.data[i].ext);
  pto_vec_free(&ctx->exts);
  pto_vec_free(&ctx->packed_files);
  for (uint32_t i = 0; i < ctx->sources.len; i++) {
    pto_free(ctx->sources.data[i].name);
    pto_free(ctx->sources.data[i].text);
    pto_free(ctx->sources.data[i].line_starts);
  }
  pto_vec_free(&ctx->sources);
  pto_vec_free(&ctx->handlers);
  pto_vec_free(&ctx->dialects);
  pto_unique_release(&ctx->types);
  pto_unique_release(&ctx->attrs);
  pto_unique_release(&ctx->locs);
  pto_strmap_release(&ctx->idents);
  pto_arena_release(&ctx->ir_arena);
  pto_arena_release(&ctx->ident_arena);
  pto_arena_release(&ctx->arena);
  pto_free(ctx);
}

void pto_ctx_set_allow_unregistered(PtoContext *ctx, bool allow) {
  ctx->allow_unregistered = allow;
}
bool pto_ctx_get_allow_unregistered(PtoContext *ctx) {
  return ctx->allow_unregistered;
}

/* ---- identifiers ---- */

PtoIdent *pto_ident(PtoContext *ctx, const char *s, size_t len) {
  PtoStrMapEntry *e = pto_strmap_find(&ctx->idents, s, len);
  if (e) return e->val;
  PtoIdent *id = pto_arena_alloc(&ctx->ident_arena, sizeof *id + len + 1);
  id->len = (uint32_t)len;
  id->hash = (uint32_t)pto_hash_bytes(s, len);
  id->ctx = ctx;
  id->opdef = NULL;
  id->dialect = NULL;
  id->dialect_attrs = NULL;
  memcpy(id->str, s, len);
  id->str[len] = 0;
  pto_strmap_put(&ctx->idents, id->str, len, id);
  return id;
}

PtoIdent *pto_ident_cstr(PtoContext *ctx, const char *s) {
  return pto_ident(ctx, s, strlen(s));
}
const char *pto_ident_str(const PtoIdent *id) { return id ? id->str : ""; }
size_t pto_ident_len(const PtoIdent *id) { return id ? id->len : 0; }

/* ---- IR memory ---- */

void *pto_ir_alloc(PtoContext *ctx, size_t n) {
  n = (n + 7) & ~(size_t)7;
  size_t cls = n / 8;
  if (cls < PTO_IR_NUM_CLASSES) {
    void *p = ctx->free_lists[cls];
    if (p) {
      ctx->free_lists[cls] = *(void **)p;
      return p;
    }
    return pto_arena_alloc(&ctx->ir_arena, n);
  }
  return pto_malloc(n);
}

void pto_ir_free(PtoContext *ctx, void *p, size_t n) {
  if (!p) return;
  n = (n + 7) & ~(size_t)7;
  size_t cls = n / 8;
  if (cls < PTO_IR_NUM_CLASSES) {
    *(void **)p = ctx->free_lists[cls];
    ctx->free_lists[cls] = p;
    return;
  }
  pto_free(p);
}

/* ---- unique tables ---- */

/* Uniqued objects come from the context's arena and are 8-byte aligned,
 * so each slot keeps the low 3 bits of the object's hash in the pointer's
 * low bits: a probe rejects most other objects without loading them (a
 * cache miss each in a large table). */
#define TAG_MASK ((uintptr_t)7)

static void *slot_obj(uintptr_t slot) { return (void *)(slot & ~TAG_MASK); }

void *pto_unique_find(PtoUniqueTable *t, uint32_t hash, const void *key,
                      PtoUniqueEqFn eq) {
  if (!t->len) return NULL;
  uint32_t mask = t->cap - 1, i = hash & mask;
  uintptr_t tag = hash & TAG_MASK;
  for (;;) {
    uintptr_t slot = t->slots[i];
    if (!slot) return NULL;
    if ((slot & TAG_MASK) == tag) {
      void *o = slot_obj(slot);
      if (*(const uint32_t *)o == hash && eq(o, key)) return o;
    }
    i = (i + 1) & mask;
  }
}

static void unique_place(uintptr_t *slots, uint32_t cap, uintptr_t slot) {
  uint32_t mask = cap - 1, i = *(uint32_t *)slot_obj(slot) & mask;
  while (slots[i]) i = (i + 1) & mask;
  slots[i] = slot;
}

void pto_unique_insert(PtoUniqueTable *t, void *obj) {
  assert(((uintptr_t)obj & TAG_MASK) == 0 && "uniqued objects are 8-aligned");
  if ((t->len + 1) * 4 >= t->cap * 3) {
    uint32_t ncap = t->cap ? t->cap * 2 : 64;
    uintptr_t *ns = pto_calloc(ncap, sizeof *ns);
    for (uint32_t i = 0; i < t->cap; i++)
      if (t->slots[i]) unique_place(ns, ncap, t->slots[i]);
    pto_free(t->slots);
    t->slots = ns;
    t->cap = ncap;
  }
  unique_place(t->slots, t->cap,
               (uintptr_t)obj | (*(uint32_t *)obj & TAG_MASK));
  t->len++;
}

void pto_unique_release(PtoUniqueTable *t) {
  pto_free(t->slots);
  memset(t, 0, sizeof *t);
}

/* ---- registry ---- */

PtoResult pto_ctx_register_dialect(PtoContext *ctx, const PtoDialectDef *d) {
  PtoIdent *dn = pto_ident_cstr(ctx, d->name);
  if (dn->dialect == d) return PTO_SUCCESS;
  if (dn->dialect)
    return pto_emit_error(ctx, ctx->l_unknown,
                          "dialect '%s' is already registered", d->name);
  for (unsigned i = 0; i < d->num_ops; i++) {
    PtoIdent *on = pto_ident_cstr(ctx, d->ops[i].name);
    if (on->opdef)
      return pto_emit_error(ctx, ctx->l_unknown,
                            "operation '%s' is already registered",
                            d->ops[i].name);
  }
  PtoIdent **names = NULL;
  if (d->num_attr_names) {
    names = pto_arena_alloc(&ctx->ident_arena, d->num_attr_names * sizeof *names);
    for (unsigned i = 0; i < d->num_attr_names; i++)
      names[i] = pto_ident_cstr(ctx, d->attr_names[i]);
  }
  for (unsigned i = 0; i < d->num_ops; i++) {
    PtoIdent *on = pto_ident_cstr(ctx, d->ops[i].name);
    on->opdef = &d->ops[i];
    on->dialect_attrs = names;
  }
  dn->dialect = d;
  pto_vec_push(&ctx->dialects, d);
  return PTO_SUCCESS;
}

const PtoDialectDef *pto_ctx_lookup_dialect(PtoContext *ctx, const char *name,
                                            size_t len) {
  PtoStrMapEntry *e = pto_strmap_find(&ctx->idents, name, len);
  return e ? ((PtoIdent *)e->val)->dialect : NULL;
}

unsigned pto_ctx_num_dialects(PtoContext *ctx) { return ctx->dialects.len; }
const PtoDialectDef *pto_ctx_dialect(PtoContext *ctx, unsigned i) {
  return i < ctx->dialects.len ? ctx->dialects.data[i] : NULL;
}

const PtoOpDef *pto_ctx_lookup_op(PtoContext *ctx, const char *name) {
  PtoStrMapEntry *e = pto_strmap_find(&ctx->idents, name, strlen(name));
  return e ? ((PtoIdent *)e->val)->opdef : NULL;
}

const char *pto_ctx_suggest_op(PtoContext *ctx, const char *name) {
  PtoSuggest sg;
  pto_suggest_init(&sg, name, strlen(name));
  PtoStrMapEntry *e;
  for (uint32_t it = 0; (e = pto_strmap_next(&ctx->idents, &it));) {
    const PtoOpDef *d = ((PtoIdent *)e->val)->opdef;
    if (d) pto_suggest_offer(&sg, d->name);
  }
  return sg.best;
}

const char *pto_opdef_name(const PtoOpDef *d) { return d->name; }
bool pto_opdef_has_trait(const PtoOpDef *d, uint32_t trait) {
  return d && (d->traits & trait) == trait;
}

/* ---- extension slots ---- */

void *pto_ctx_get_ext(PtoContext *ctx, const char *key) {
  for (uint32_t i = 0; i < ctx->exts.len; i++)
    if (strcmp(ctx->exts.data[i].key, key) == 0) return ctx->exts.data[i].ext;
  return NULL;
}

void pto_ctx_set_ext(PtoContext *ctx, const char *key, void *ext,
                     PtoExtDestroyFn destroy) {
  for (uint32_t i = 0; i < ctx->exts.len; i++) {
    PtoCtxExt *e = &ctx->exts.data[i];
    if (strcmp(e->key, key) == 0) {
      if (e->destroy && e->ext != ext) e->destroy(e->ext);
      e->ext = ext;
      e->destroy = destroy;
      return;
    }
  }
  PtoCtxExt e = {key, ext, destroy};
  pto_vec_push(&ctx->exts, e);
}

/* ---- sources ---- */

void pto_ctx_take_source(PtoContext *ctx, const char *name, char *text,
                         size_t len) {
  for (uint32_t i = 0; i < ctx->sources.len; i++) {
    PtoSource *s = &ctx->sources.data[i];
    if (strcmp(s->name, name) == 0) {
      if (s->text != text) pto_free(s->text);
      pto_free(s->line_starts);
      s->text = text;
      s->len = len;
      s->line_starts = NULL;
      s->nlines = 0;
      return;
    }
  }
  PtoSource s = {pto_strndup(name, strlen(name)), text, len, NULL, 0};
  pto_vec_push(&ctx->sources, s);
}

void pto_ctx_add_source(PtoContext *ctx, const char *name, const char *text,
                        size_t len) {
  pto_ctx_take_source(ctx, name, pto_strndup(text, len), len);
}

const PtoSource *pto_ctx_find_source(PtoContext *ctx, const char *name) {
  for (uint32_t i = 0; i < ctx->sources.len; i++)
    if (strcmp(ctx->sources.data[i].name, name) == 0)
      return &ctx->sources.data[i];
  return NULL;
}

bool pto_source_line(const PtoSource *csrc, unsigned line, const char **start,
                     size_t *len) {
  PtoSource *src = (PtoSource *)csrc;
  if (!src->line_starts) {
    uint32_t n = 1;
    for (size_t i = 0; i < src->len; i++)
      if (src->text[i] == '\n') n++;
    src->line_starts = pto_malloc(n * sizeof(uint32_t));
    src->line_starts[0] = 0;
    uint32_t k = 1;
    for (size_t i = 0; i < src->len; i++)
      if (src->text[i] == '\n') src->line_starts[k++] = (uint32_t)(i + 1);
    src->nlines = n;
  }
  if (line == 0 || line > src->nlines) return false;
  const char *s = src->text + src->line_starts[line - 1];
  const char *e = s;
  while (e < src->text + src->len && *e != '\n') e++;
  if (e > s && e[-1] == '\r') e--;
  *start = s;
  *len = (size_t)(e - s);
  return true;
}
