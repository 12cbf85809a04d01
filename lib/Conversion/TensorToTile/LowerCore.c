/* tile-expand's value representations (see TileExpand.h): grids, windows
 * and GM forms, the tile lookup that connects producers to consumers tile
 * to tile, workspaces, hoisted constants and the memo tables that keep
 * bulk expansion free of quadratic scans. */
#include "TensorToTile.h"

#include "pto/Origin.h"

#include "Support/Alloc.h"
#include "Support/Str.h"
#include "Support/Vec.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Memo: open addressing keyed by small word arrays                     */
/* ------------------------------------------------------------------ */

typedef struct MemoEntry {
  uint64_t hash; /* 0: empty */
  const uint64_t *key;
  unsigned len;
  void *val;
} MemoEntry;

struct TileMemo {
  MemoEntry *slots;
  uint32_t cap, len;
};

static uint64_t memo_hash(const uint64_t *key, unsigned n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (unsigned i = 0; i < n; i++) h = pto_hash_combine(h, key[i]);
  return h ? h : 1;
}

static MemoEntry *memo_find(TileMemo *m, const uint64_t *key, unsigned n,
                            uint64_t h) {
  if (!m->cap) return NULL;
  for (uint32_t i = (uint32_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    MemoEntry *e = &m->slots[i];
    if (!e->hash) return e;
    if (e->hash == h && e->len == n && memcmp(e->key, key, n * sizeof *key) == 0)
      return e;
  }
}

static void *memo_get(Lowering *t, const uint64_t *key, unsigned n) {
  MemoEntry *e = memo_find(t->memo, key, n, memo_hash(key, n));
  return e && e->hash ? e->val : NULL;
}

static void memo_put(Lowering *t, const uint64_t *key, unsigned n, void *v) {
  TileMemo *m = t->memo;
  if (2 * (m->len + 1) > m->cap) {
    uint32_t ncap = m->cap ? 2 * m->cap : 256;
    MemoEntry *old = m->slots;
    uint32_t ocap = m->cap;
    m->slots = pto_calloc(ncap, sizeof *m->slots);
    m->cap = ncap;
    for (uint32_t i = 0; i < ocap; i++)
      if (old[i].hash) *memo_find(m, old[i].key, old[i].len, old[i].hash) = old[i];
    pto_free(old);
  }
  uint64_t h = memo_hash(key, n);
  MemoEntry *e = memo_find(m, key, n, h);
  if (!e->hash) {
    m->len++;
    e->key = pto_arena_memdup(&t->arena, key, n * sizeof *key);
    e->len = n;
    e->hash = h;
  }
  e->val = v;
}

/* Memo key kinds (first word). */
enum { K_INDEX = 1, K_SCALAR, K_ADD, K_VIEW, K_TILE_TYPE };

/* ------------------------------------------------------------------ */
/* Setup                                                                */
/* ------------------------------------------------------------------ */

void lower_init(Lowering *t, PtoPass *pass) {
  memset(t, 0, sizeof *t);
  t->pass = pass;
  t->ctx = pto_pass_ctx(pass);
  pto_builder_init(&t->b, t->ctx);
  pto_arena_init(&t->arena);
  pto_ptrmap_init(&t->vals);
  pto_ptrmap_init(&t->ordinals);
  t->memo = pto_calloc(1, sizeof *t->memo);
  t->origin = -1;
  PtoContext *c = t->ctx;
  t->id_label = pto_ident_cstr(c, "label");
  t->id_offsets = pto_ident_cstr(c, "static_offsets");
  t->id_dim = pto_ident_cstr(c, "dim");
  t->id_perm = pto_ident_cstr(c, "perm");
  t->id_k = pto_ident_cstr(c, "k");
  t->id_largest = pto_ident_cstr(c, "largest");
  t->id_a_trans = pto_ident_cstr(c, "a_trans");
  t->id_b_trans = pto_ident_cstr(c, "b_trans");
  t->id_acc_dtype = pto_ident_cstr(c, "acc_dtype");
  t->id_mode = pto_ident_cstr(c, "mode");
  t->id_satmode = pto_ident_cstr(c, "satmode");
  t->id_approximate = pto_ident_cstr(c, "approximate");
}

static void memo_clear(TileMemo *m) {
  pto_free(m->slots);
  memset(m, 0, sizeof *m);
}

void lower_release(Lowering *t) {
  memo_clear(t->memo);
  pto_free(t->memo);
  pto_ptrmap_release(&t->vals);
  pto_ptrmap_release(&t->ordinals);
  pto_arena_release(&t->arena);
}

void lower_begin_func(Lowering *t, PtoBlock *entry) {
  memo_clear(t->memo);
  pto_ptrmap_clear(&t->vals);
  t->entry = entry;
  t->const_pos = NULL;
}

PtoResult lower_error(Lowering *t, const char *fmt, ...) {
  PtoDiag *d = pto_op_diag(t->op, PTO_DIAG_ERROR, "%s", "");
  va_list ap;
  va_start(ap, fmt);
  pto_diag_vprintf(d, fmt, ap);
  va_end(ap);
  return pto_diag_emit(d);
}

/* ------------------------------------------------------------------ */
/* Values and grids                                                     */
/* ------------------------------------------------------------------ */

LoweredValue *lower_new_val(Lowering *t, LoweredKind kind, PtoType *type) {
  LoweredValue *v = pto_arena_zalloc(&t->arena, sizeof *v);
  v->kind = kind;
  v->type = type;
  v->anchor = t->op;
  return v;
}

LoweredValue *lower_lookup(Lowering *t, PtoValue *v) {
  LoweredValue *tv = pto_ptrmap_get(&t->vals, (uint64_t)(uintptr_t)v);
  if (tv) return tv;
  tv = lower_new_val(t, LOWERED_GM, pto_value_type(v));
  tv->gm = v;
  pto_ptrmap_put(&t->vals, (uint64_t)(uintptr_t)v, tv);
  return tv;
}

void lower_bind(Lowering *t, PtoValue *v, LoweredValue *tv) {
  pto_ptrmap_put(&t->vals, (uint64_t)(uintptr_t)v, tv);
}

PtoResult lower_check_tiles(Lowering *t, const int64_t *count, unsigned rank,
                            int64_t factor) {
  int64_t n = factor;
  bool over = false;
  for (unsigned d = 0; d < rank && !over; d++)
    over = __builtin_mul_overflow(n, count[d], &n);
  if (!over && n <= t->max_tiles) return PTO_SUCCESS;
  if (!t->failed) {
    if (over)
      lower_error(t, "would be expanded into more than %" PRId64 " tiles, "
                     "more than the limit of %" PRId64 " (tile-expand option "
                     "max-tiles); give it a larger vec_tile or cube_tile",
                  INT64_MAX, t->max_tiles);
    else
      lower_error(t, "would be expanded into %" PRId64 " tiles, more than the "
                     "limit of %" PRId64 " (tile-expand option max-tiles); "
                     "give it a larger vec_tile or cube_tile",
                  n, t->max_tiles);
  }
  t->failed = true;
  return PTO_FAILURE;
}

LoweredValue *lower_new_grid(Lowering *t, PtoType *type, const int64_t *tsize, unsigned trank) {
  LoweredValue *v = lower_new_val(t, LOWERED_GRID, type);
  TileGrid *g = &v->grid;
  g->rank = pto_type_tensor_rank(type);
  g->trank = trank;
  g->ntiles = 1;
  for (unsigned d = 0; d < g->rank; d++) {
    g->shape[d] = pto_type_tensor_dim(type, d);
    g->tsize[d] = tsize[d] < g->shape[d] ? tsize[d] : g->shape[d];
    /* an empty dim has one (empty) cell, as before; never divide by 0 */
    g->count[d] = g->tsize[d] ? (g->shape[d] + g->tsize[d] - 1) / g->tsize[d] : 1;
  }
  if (lower_check_tiles(t, g->count, g->rank, 1))
    for (unsigned d = 0; d < g->rank; d++) {
      g->tsize[d] = g->shape[d];
      g->count[d] = 1;
    }
  for (unsigned d = 0; d < g->rank; d++) g->ntiles *= g->count[d];
  g->tiles = pto_arena_zalloc(&t->arena, (size_t)g->ntiles * sizeof *g->tiles);
  return v;
}

void lower_cell(const TileGrid *g, int64_t k, int64_t *offs, int64_t *sizes) {
  for (unsigned d = g->rank; d-- > 0;) {
    int64_t i = k % g->count[d];
    k /= g->count[d];
    offs[d] = i * g->tsize[d];
    int64_t rest = g->shape[d] - offs[d];
    sizes[d] = rest < g->tsize[d] ? rest : g->tsize[d];
  }
}

/* The cell whose window is exactly offs/sizes, or -1. */
static int64_t grid_find(const TileGrid *g, const int64_t *offs,
                         const int64_t *sizes) {
  int64_t k = 0;
  for (unsigned d = 0; d < g->rank; d++) {
    if (offs[d] < 0 || offs[d] % g->tsize[d]) return -1;
    int64_t i = offs[d] / g->tsize[d];
    if (i >= g->count[d]) return -1;
    int64_t rest = g->shape[d] - offs[d];
    if (sizes[d] != (rest < g->tsize[d] ? rest : g->tsize[d])) return -1;
    k = k * g->count[d] + i;
  }
  return k;
}

PtoType *lower_tile_type(Lowering *t, const int64_t *sizes, unsigned R, unsigned trank,
                      PtoType *elem) {
  /* Grids have few distinct tile shapes: uniquing one per tile would hash
   * the same type thousands of times. */
  uint64_t key[3 + PTO_TILE_MAX_RANK];
  int64_t *s = (int64_t *)(key + 3);
  key[0] = K_TILE_TYPE;
  key[1] = (uint64_t)(uintptr_t)elem;
  key[2] = trank;
  for (unsigned i = 0; i < trank; i++) {
    int64_t d = (int64_t)R - (int64_t)trank + (int64_t)i;
    s[i] = d >= 0 ? sizes[d] : 1;
  }
  PtoType *ty = memo_get(t, key, 3 + trank);
  if (!ty) {
    ty = pto_tile_type(t->ctx, s, trank, elem);
    memo_put(t, key, 3 + trank, ty);
  }
  return ty;
}

void lower_vec_sizes(const int64_t *shape, unsigned R, const int64_t *vec,
                  unsigned nvec, int64_t *tsize, unsigned *trank) {
  for (unsigned d = 0; d < R; d++) {
    int64_t k = (int64_t)d - ((int64_t)R - (int64_t)nvec);
    int64_t want = k >= 0 ? vec[k] : 1;
    tsize[d] = want < shape[d] ? want : shape[d];
  }
  unsigned r = nvec < R ? nvec : R;
  *trank = r ? r : 1;
}

PtoResult lower_vec_tile(Lowering *t, unsigned rank, int64_t *vec, unsigned *nvec) {
  unsigned eff = rank ? rank : 1;
  if (pto_tuning_vec_tile(t->op, vec, nvec)) {
    /* PyPTO's rule: a tile with more sizes than the tensor has dims
     * applies its trailing sizes (one set_vec_tile_shapes serves the
     * tensors of several ranks in a kernel). */
    if (*nvec > eff) {
      memmove(vec, vec + (*nvec - eff), eff * sizeof *vec);
      *nvec = eff;
    }
    return PTO_SUCCESS;
  }
  /* The pass default applies its trailing entries likewise. */
  unsigned n = t->nvec_default < eff ? t->nvec_default : eff;
  memcpy(vec, t->vec_default + (t->nvec_default - n), n * sizeof *vec);
  *nvec = n;
  return PTO_SUCCESS;
}

PtoResult lower_require_static(Lowering *t, PtoType *type, const char *what) {
  if (!pto_type_is_tensor(type)) return PTO_SUCCESS;
  for (unsigned d = 0; d < pto_type_tensor_rank(type); d++)
    if (pto_type_tensor_dim(type, d) == PTO_DYN)
      return lower_error(t, "%s%sdim %u is dynamic and no enclosing scf.for "
                         "iterates it; take a static view inside a loop "
                         "(pypto.loop) or give the dim a static size",
                      what ? what : "", what ? " " : "", d);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Emission                                                             */
/* ------------------------------------------------------------------ */

PtoOp *lower_emit_op(Lowering *t, PtoTileOp id, PtoValue *const *ops, unsigned n,
                  PtoType *const *res, unsigned nres, const PtoNamedAttr *attrs,
                  unsigned nattrs) {
  PtoNamedAttr all[8];
  unsigned na = 0;
  for (unsigned i = 0; i < nattrs && na < 7; i++) all[na++] = attrs[i];
  if (t->label) all[na++] = (PtoNamedAttr){t->id_label, t->label};
  t->counts[id]++;
  return pto_tile_build(&t->b, id, ops, n, res, nres, all, na);
}

PtoValue *lower_emit(Lowering *t, PtoTileOp id, PtoValue *const *ops, unsigned n,
                  PtoType *res, const PtoNamedAttr *attrs, unsigned nattrs) {
  return pto_op_result(lower_emit_op(t, id, ops, n, &res, 1, attrs, nattrs), 0);
}

PtoValue *lower_reshape(Lowering *t, PtoValue *v, PtoType *to) {
  if (pto_value_type(v) == to) return v;
  return lower_emit(t, PTO_TILE_RESHAPE, &v, 1, to, NULL, 0);
}

PtoValue *lower_expand_to(Lowering *t, PtoValue *v, PtoType *to) {
  if (pto_value_type(v) == to) return v;
  return lower_emit(t, PTO_TILE_EXPAND, &v, 1, to, NULL, 0);
}

/* Row / column expand ops by binary op (BinaryOps.def's EXPAND rows);
 * NONE when there is no such form. Ids are stored + 1: 0 is "none". */
static PtoTileOp expand_form(PtoTileOp id, bool col) {
  enum { /* the binary rows' kernels, numbered here */
#define PTO_BINARY_OP(ID, KIND, ...) ROW_KIND_##KIND,
#include "pto/BinaryOps.def"
    ROW_NUM_KINDS
  };
  static const unsigned short kind_of[PTO_TILE_NUM_OPS] = {
#define PTO_BINARY_OP(ID, KIND, ...) [PTO_TILE_##ID] = ROW_KIND_##KIND + 1,
#include "pto/BinaryOps.def"
  };
  static const unsigned short row[ROW_NUM_KINDS] = {
#define PTO_BINARY_EXPAND(KIND, ...) [ROW_KIND_##KIND] = PTO_TILE_ROWEXPAND_##KIND + 1,
#include "pto/BinaryOps.def"
  };
  static const unsigned short colf[ROW_NUM_KINDS] = {
#define PTO_BINARY_EXPAND(KIND, ...) [ROW_KIND_##KIND] = PTO_TILE_COLEXPAND_##KIND + 1,
#include "pto/BinaryOps.def"
  };
  if ((unsigned)id >= PTO_TILE_NUM_OPS || !kind_of[id]) return PTO_TILE_NONE;
  /* Each table subscripted by name: gcc 12's -fsanitize=object-size at -O1
   * and above misjudges the size of `(col ? colf : row)[k]` and reports an
   * in-bounds load. */
  unsigned k = kind_of[id] - 1u;
  unsigned short f = col ? colf[k] : row[k];
  return f ? (PtoTileOp)(f - 1) : PTO_TILE_NONE;
}

/* Whether `small` is `full` with dim `d` (only) of size 1. */
static bool is_vector_of(PtoType *small, PtoType *full, unsigned d) {
  unsigned r = pto_tile_rank(full);
  if (pto_tile_rank(small) != r || d >= r || pto_tile_dim(small, d) != 1 ||
      pto_tile_dim(full, d) == 1)
    return false;
  for (unsigned i = 0; i < r; i++)
    if (i != d && pto_tile_dim(small, i) != pto_tile_dim(full, i)) return false;
  return true;
}

PtoValue *lower_binary(Lowering *t, PtoTileOp id, PtoValue *a, PtoValue *b,
                    PtoType *res) {
  PtoType *full = pto_tile_with_elem(res, pto_tile_elem(pto_value_type(a)));
  PtoType *ta = pto_value_type(a), *tb = pto_value_type(b);
  unsigned r = pto_tile_rank(full);
  bool commutative = pto_opdef_has_trait(pto_tile_op_def(id),
                                         PTO_TRAIT_COMMUTATIVE);
  for (unsigned col = 0; col < 2 && (ta != full || tb != full); col++) {
    if (r < 1 + col) break;
    PtoTileOp ex = expand_form(id, col);
    if (ex == PTO_TILE_NONE) break;
    PtoValue *ops[2] = {a, b};
    if (ta == full && is_vector_of(tb, full, r - 1 - col))
      return lower_emit(t, ex, ops, 2, res, NULL, 0);
    if (commutative && tb == full && is_vector_of(ta, full, r - 1 - col)) {
      ops[0] = b;
      ops[1] = a;
      return lower_emit(t, ex, ops, 2, res, NULL, 0);
    }
  }
  PtoValue *ops[2] = {lower_expand_to(t, a, full), lower_expand_to(t, b, full)};
  return lower_emit(t, id, ops, 2, res, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* Constants and offsets                                                */
/* ------------------------------------------------------------------ */

/* Builds at the hoisting point: after the constants hoisted so far, at
 * the start of the function's entry block. */
static PtoBuilder const_builder(Lowering *t) {
  PtoBuilder b = t->b;
  if (t->const_pos) pto_builder_set_after(&b, t->const_pos);
  else pto_builder_set_block_start(&b, t->entry);
  b.loc = pto_loc_unknown(t->ctx);
  return b;
}

PtoValue *lower_const_index(Lowering *t, int64_t v) {
  uint64_t key[2] = {K_INDEX, (uint64_t)v};
  PtoValue *c = memo_get(t, key, 2);
  if (c) return c;
  PtoBuilder b = const_builder(t);
  c = pto_arith_build_constant_index(&b, v);
  t->const_pos = pto_value_def_op(c);
  memo_put(t, key, 2, c);
  return c;
}

PtoValue *lower_const_scalar(Lowering *t, PtoType *type, double f, int64_t i) {
  uint64_t bits;
  memcpy(&bits, &f, sizeof bits);
  bool fl = pto_type_is_float(type);
  uint64_t key[3] = {K_SCALAR, (uint64_t)(uintptr_t)type,
                     fl ? bits : (uint64_t)i};
  PtoValue *c = memo_get(t, key, 3);
  if (c) return c;
  PtoBuilder b = const_builder(t);
  c = fl ? pto_arith_build_constant_float(&b, type, f)
         : pto_arith_build_constant_int(&b, type, i);
  t->const_pos = pto_value_def_op(c);
  memo_put(t, key, 3, c);
  return c;
}

LowerOffset lower_off_add(Lowering *t, LowerOffset a, int64_t c) {
  (void)t;
  a.c += c;
  return a;
}

PtoValue *lower_offset_value(Lowering *t, LowerOffset o) {
  if (!o.v) return lower_const_index(t, o.c);
  if (o.c == 0) return o.v;
  /* One addi per (value, constant, block): tiles of one loop iteration
   * share their offsets. */
  PtoBlock *blk = t->b.block;
  uint64_t key[4] = {K_ADD, (uint64_t)(uintptr_t)o.v, (uint64_t)o.c,
                     (uint64_t)(uintptr_t)blk};
  PtoValue *s = t->rewound ? NULL : memo_get(t, key, 4);
  if (s) return s;
  s = pto_arith_build_binary(&t->b, "arith.addi", o.v, lower_const_index(t, o.c));
  memo_put(t, key, 4, s);
  return s;
}

/* ------------------------------------------------------------------ */
/* Tiles of values                                                      */
/* ------------------------------------------------------------------ */

/* A view of GM tensor `gm`, shared by every later request in the same
 * block (or a nested one): consumers of one GM tile read it once. */
static PtoValue *view_gm(Lowering *t, PtoValue *gm, const LowerOffset *offs,
                         const int64_t *sizes, PtoType *tile) {
  unsigned R = pto_type_tensor_rank(pto_value_type(gm));
  uint64_t key[4 + 3 * PTO_MAX_RANK];
  unsigned n = 0;
  key[n++] = K_VIEW;
  key[n++] = (uint64_t)(uintptr_t)gm;
  key[n++] = (uint64_t)(uintptr_t)tile;
  unsigned blk = n++;
  for (unsigned d = 0; d < R; d++) {
    key[n++] = (uint64_t)offs[d].c;
    key[n++] = (uint64_t)(uintptr_t)offs[d].v;
    key[n++] = (uint64_t)sizes[d];
  }
  for (PtoBlock *b = t->rewound ? NULL : t->b.block; b;) {
    key[blk] = (uint64_t)(uintptr_t)b;
    PtoValue *v = memo_get(t, key, n);
    if (v) return v;
    PtoOp *p = pto_block_parent_op(b);
    b = p ? pto_op_block(p) : NULL;
  }
  int64_t soffs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned ndyn = 0;
  for (unsigned d = 0; d < R; d++) {
    if (offs[d].v) {
      soffs[d] = PTO_DYN;
      dyn[ndyn++] = lower_offset_value(t, offs[d]);
    } else {
      soffs[d] = offs[d].c;
    }
  }
  PtoValue *ops[1 + PTO_MAX_RANK];
  ops[0] = gm;
  memcpy(ops + 1, dyn, ndyn * sizeof *dyn);
  PtoNamedAttr a = {t->id_offsets, pto_attr_i64_array(t->ctx, soffs, R)};
  PtoValue *v = lower_emit(t, PTO_TILE_VIEW, ops, 1 + ndyn, tile, &a, 1);
  key[blk] = (uint64_t)(uintptr_t)t->b.block;
  memo_put(t, key, n, v);
  return v;
}

PtoValue *lower_get_tile(Lowering *t, LoweredValue *v, const LowerOffset *offs, const int64_t *sizes,
                      unsigned trank) {
  unsigned R = pto_type_tensor_rank(v->type);
  PtoType *tile =
      lower_tile_type(t, sizes, R, trank, pto_type_tensor_elem(v->type));
  if (v->kind == LOWERED_WINDOW) {
    LowerOffset o[PTO_MAX_RANK];
    for (unsigned d = 0; d < R; d++) {
      o[d].c = v->offs[d].c + offs[d].c;
      o[d].v = v->offs[d].v;
      if (offs[d].v)
        o[d].v = o[d].v ? pto_arith_build_binary(&t->b, "arith.addi", o[d].v,
                                                 offs[d].v)
                        : offs[d].v;
    }
    return lower_get_tile(t, v->base, o, sizes, trank);
  }
  if (v->kind == LOWERED_GRID) {
    int64_t so[PTO_MAX_RANK];
    bool stat = true;
    for (unsigned d = 0; d < R && stat; d++) {
      stat = !offs[d].v;
      so[d] = offs[d].c;
    }
    int64_t k = stat ? grid_find(&v->grid, so, sizes) : -1;
    if (k >= 0 && v->grid.tiles[k]) return lower_reshape(t, v->grid.tiles[k], tile);
  }
  return view_gm(t, lower_gm(t, v), offs, sizes, tile);
}

PtoValue *lower_get_tile_at(Lowering *t, LoweredValue *v, const int64_t *offs,
                         const int64_t *sizes, unsigned trank) {
  LowerOffset o[PTO_MAX_RANK];
  for (unsigned d = 0; d < pto_type_tensor_rank(v->type); d++)
    o[d] = (LowerOffset){offs[d], NULL};
  return lower_get_tile(t, v, o, sizes, trank);
}

/* Assembles every cell of grid `g` of `src` into `dst`. */
static PtoValue *assemble_grid(Lowering *t, LoweredValue *src, const TileGrid *g,
                               PtoValue *dst) {
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (int64_t k = 0; k < g->ntiles; k++) {
    lower_cell(g, k, offs, sizes);
    PtoValue *tile = src->kind == LOWERED_GRID && src->grid.tiles[k]
                         ? src->grid.tiles[k]
                         : lower_get_tile_at(t, src, offs, sizes, g->trank);
    dst = lower_assemble(t, tile, dst, offs, NULL);
  }
  return dst;
}

PtoValue *lower_assemble(Lowering *t, PtoValue *tile, PtoValue *dst, const int64_t *offs,
                      PtoValue *const *dyn) {
  unsigned R = pto_type_tensor_rank(pto_value_type(dst)), n = 0;
  PtoValue *ops[2 + PTO_MAX_RANK];
  ops[n++] = tile;
  ops[n++] = dst;
  for (unsigned d = 0; d < R; d++)
    if (offs[d] == PTO_DYN) ops[n++] = dyn[d];
  PtoNamedAttr a = {t->id_offsets, pto_attr_i64_array(t->ctx, offs, R)};
  return lower_emit(t, PTO_TILE_ASSEMBLE, ops, n, pto_value_type(dst), &a, 1);
}

PtoValue *lower_gm(Lowering *t, LoweredValue *v) {
  if (v->gm) return v->gm;
  /* Built where the value is defined, so that it dominates every use, and
   * labelled as its producer. */
  PtoBuilder saved = t->b;
  PtoAttr *label = t->label;
  pto_builder_set_before(&t->b, v->anchor);
  t->rewound++;
  t->label = pto_op_attr_id(v->anchor, t->id_label);
  PtoValue *ws = lower_emit(t, PTO_TILE_EMPTY, NULL, 0, v->type, NULL, 0);
  if (v->kind == LOWERED_GRID) {
    v->gm = assemble_grid(t, v, &v->grid, ws);
  } else {
    /* A window: copied tile by tile with the view's tile shape. */
    int64_t tsize[PTO_MAX_RANK];
    unsigned trank;
    lower_vec_sizes(pto_type_tensor_shape(v->type), pto_type_tensor_rank(v->type),
                 v->vec, v->nvec, tsize, &trank);
    LoweredValue *g = lower_new_grid(t, v->type, tsize, trank);
    v->gm = assemble_grid(t, v, &g->grid, ws);
  }
  t->rewound--;
  t->b = saved;
  t->label = label;
  return v->gm;
}

/* ------------------------------------------------------------------ */
/* Provenance                                                           */
/* ------------------------------------------------------------------ */

void lower_mark(Lowering *t, PtoValue *tile, unsigned res, const int64_t *offs,
             unsigned R) {
  if (!t->provenance || t->origin < 0) return;
  PtoOp *def = pto_value_def_op(tile);
  unsigned tres = pto_value_index(tile);
  PtoOrigin o;
  /* A tile that is already some op's result tile (e.g. an expand to the
   * same shape) keeps its first origin. */
  if (!def || pto_tile_op_id(def) == PTO_TILE_NONE ||
      pto_origin_get(def, tres, &o))
    return;
  o.op = t->origin;
  o.result = res;
  o.rank = R;
  memcpy(o.offsets, offs, R * sizeof *offs);
  pto_origin_set(def, tres, &o);
}

void lower_mark_grid(Lowering *t, LoweredValue *v, unsigned res) {
  if (!t->provenance || t->origin < 0) return;
  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (int64_t k = 0; k < v->grid.ntiles; k++) {
    lower_cell(&v->grid, k, offs, sizes);
    lower_mark(t, v->grid.tiles[k], res, offs, v->grid.rank);
  }
}
