/* The legality of element-wise fusion (Fuse.h). A run is a sequence of
 * tbinary, tscalar, trowexpand and tunary instructions over tiles of one
 * rows x cols shape, optionally ended by a row reduction, with nothing
 * between them but scalar arith ops: no tload, tstore or tmov (other
 * pipes), no set_flag, wait_flag or barrier (an order between pipes the
 * hazard checker relies on). Fused, element (r, c) of every tile is read
 * and written in one iteration, in the steps' order. That gives each step
 * the bytes the steps one after the other give it exactly when:
 *  - the rows x cols tiles are grouped by placement (their uniqued type:
 *    offset, shape, dtype). A step reads a group from memory unless an
 *    earlier step wrote it (then from the register that step left), and
 *    a group the run writes reaches memory only if some step of it stores
 *    (below). Two groups may overlap when the run writes neither; or when
 *    it stores neither and reads each (from memory or a register) only in
 *    steps strictly before the first that writes the other. Then no
 *    iteration reads an element another wrote, no bytes a step reads have
 *    been overwritten by the other group in the instructions one after
 *    the other, and a register holds what memory would;
 *  - trowexpand's column operand overlaps no group the run stores, nor
 *    one it writes at or before the column's step (the column is read
 *    from memory once per row, before the row's iterations);
 *  - the reduction's result (written once per row) overlaps no group and
 *    no column.
 * A step's result skips its store only if a later step of the run writes
 * the same group (and so every element, in the same iteration) or no
 * instruction after the run reads a tile overlapping it that was defined
 * before the run ended: the bytes are dead. Which stores a run needs is
 * known only at its end, and a shorter run may need more: the plan grows
 * the run assuming none, then drops steps from its end until the run
 * holds with its stores. Scalar operands are SSA values and need no
 * proof.
 *
 * A tload may join as the run's first step and a tstore as its last, with
 * only scalar arith ops, set_flag and wait_flag between them and the run
 * (on a host core flags compile to nothing and instructions run in
 * program order; the fused iteration keeps every data dependence they
 * order, which is what follows); a tload also across other tloads into
 * tiles that do not overlap its own, which the run then emits before its
 * loop nest (next_past_loads). Each copies a rows x cols tile of one
 * dtype (no cast) between GM and the vector buffer, so an element (r, c)
 * moves in the iteration of (r, c):
 *  - the tload's tile is a group the run writes: no other group, column
 *    or reduction result overlaps it, so the run reads its bytes only at
 *    (r, c) after the load of (r, c); the run writes no GM (a run with a
 *    fused tload takes no tstore: two GM windows may overlap in ways the
 *    translation cannot see), so the GM it reads is the GM the tload read;
 *  - the tstore's tile is a group of the run and the run has no reduction
 *    (whose result it would otherwise wait for): its element (r, c) is
 *    final once iteration (r, c) has run all steps, since only that
 *    iteration writes it, and no step reads GM. A streaming tstore also
 *    moves the start of each row's vectors to GM's alignment, which is
 *    why a run with a reduction (whose order it would change) never
 *    takes one. */
#include "Target/LLVMIR/Fuse.h"

#include <string.h>

#include "Support/Hash.h"
#include "pto/Dialect/PTO.h"
#include "pto/IRArray.h"

typedef struct Span {
  int64_t lo, hi;
} Span;

static bool overlap(Span a, Span b) { return a.lo < b.hi && b.lo < a.hi; }

/* A planned tile of the vector buffer: its bytes. */
static bool span_of(PtoValue *v, Span *out) {
  PtoType *ty = pto_value_type(v);
  if (!pto_type_is_pto_tile(ty) || pto_pto_tile_space(ty) != PTO_BUF_VEC ||
      pto_pto_tile_offset(ty) == PTO_PTO_UNPLANNED)
    return false;
  out->lo = pto_pto_tile_offset(ty);
  out->hi = out->lo + pto_pto_tile_bytes(ty);
  return true;
}

/* The instructions of the Tile level's elementwise math (Emit.h's
 * pto_emit_math). */
bool pto_llvmir_math_of(PtoPtoOp id, PtoEmitMath *m) {
  static const struct {
    PtoPtoOp id;
    PtoEmitMath m;
  } rows[] = {{PTO_PTO_TSIGMOID, PTO_EMIT_MATH_SIGMOID}, {PTO_PTO_TTANH, PTO_EMIT_MATH_TANH},
              {PTO_PTO_TSILU, PTO_EMIT_MATH_SILU},       {PTO_PTO_TFLOOR, PTO_EMIT_MATH_FLOOR},
              {PTO_PTO_TCEIL, PTO_EMIT_MATH_CEIL},       {PTO_PTO_TROUND, PTO_EMIT_MATH_ROUND},
              {PTO_PTO_TSIGNBIT, PTO_EMIT_MATH_SIGNBIT}, {PTO_PTO_TSIN, PTO_EMIT_MATH_SIN},
              {PTO_PTO_TCOS, PTO_EMIT_MATH_COS},         {PTO_PTO_TERF, PTO_EMIT_MATH_ERF},
              {PTO_PTO_TTAN, PTO_EMIT_MATH_TAN},         {PTO_PTO_TATAN, PTO_EMIT_MATH_ATAN},
              {PTO_PTO_TASIN, PTO_EMIT_MATH_ASIN},       {PTO_PTO_TACOS, PTO_EMIT_MATH_ACOS},
              {PTO_PTO_TERFC, PTO_EMIT_MATH_ERFC},
              /* EmitMathExp.c */
              {PTO_PTO_TLOG2, PTO_EMIT_MATH_LOG2},       {PTO_PTO_TLOG10, PTO_EMIT_MATH_LOG10},
              {PTO_PTO_TLOG1P, PTO_EMIT_MATH_LOG1P},     {PTO_PTO_TEXP2, PTO_EMIT_MATH_EXP2},
              {PTO_PTO_TEXPM1, PTO_EMIT_MATH_EXPM1},     {PTO_PTO_TSINH, PTO_EMIT_MATH_SINH},
              {PTO_PTO_TCOSH, PTO_EMIT_MATH_COSH},       {PTO_PTO_TASINH, PTO_EMIT_MATH_ASINH},
              {PTO_PTO_TACOSH, PTO_EMIT_MATH_ACOSH},     {PTO_PTO_TATANH, PTO_EMIT_MATH_ATANH},
              {PTO_PTO_TCBRT, PTO_EMIT_MATH_CBRT}};
  for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].id == id) return *m = rows[i].m, true;
  return false;
}

bool pto_llvmir_bitwise_of(PtoPtoOp id, PtoEmitBitwise *op) {
  switch (id) {
  case PTO_PTO_TAND: return *op = PTO_EMIT_BITWISE_AND, true;
  case PTO_PTO_TOR: return *op = PTO_EMIT_BITWISE_OR, true;
  case PTO_PTO_TXOR: return *op = PTO_EMIT_BITWISE_XOR, true;
  case PTO_PTO_TSHL: return *op = PTO_EMIT_BITWISE_SHL, true;
  case PTO_PTO_TSHR: return *op = PTO_EMIT_BITWISE_SHR, true;
  default: return false;
  }
}

bool pto_llvmir_piecewise_of(PtoPtoOp id, PtoEmitPiecewise *op) {
  switch (id) {
  case PTO_PTO_TSIGN: return *op = PTO_EMIT_PIECEWISE_SIGN, true;
  case PTO_PTO_TTRUNC: return *op = PTO_EMIT_PIECEWISE_TRUNC, true;
  case PTO_PTO_THARDSIGMOID: return *op = PTO_EMIT_PIECEWISE_HARDSIGMOID, true;
  case PTO_PTO_TLRELU: return *op = PTO_EMIT_PIECEWISE_LRELU, true;
  case PTO_PTO_TCLIP: return *op = PTO_EMIT_PIECEWISE_CLIP, true;
  default: return false;
  }
}

static bool is_step(PtoPtoOp id) {
  PtoPtoKind k = pto_pto_op_kind(id);
  PtoEmitMath m;
  if (id == PTO_PTO_TROWPROD) return false; /* not among the emitter's reductions */
  if (pto_llvmir_math_of(id, &m)) return false; /* nor among its steps */
  if (id == PTO_PTO_TGCD || id == PTO_PTO_TPOW || id == PTO_PTO_TATAN2) return false;
  PtoEmitBitwise bw;
  PtoEmitPiecewise pw;
  if (pto_llvmir_bitwise_of(id, &bw) || pto_llvmir_piecewise_of(id, &pw)) return false;
  return k == PTO_PTO_KIND_BINARY || k == PTO_PTO_KIND_SCALAR ||
         k == PTO_PTO_KIND_ROWEXPAND || k == PTO_PTO_KIND_UNARY ||
         k == PTO_PTO_KIND_ROWRED;
}

static bool is_kind(PtoOp *op, PtoPtoKind k) {
  PtoPtoOp id = pto_pto_op_id(op);
  return id != PTO_PTO_NONE && pto_pto_op_kind(id) == k;
}

static bool is_scalar_arith(PtoOp *op) {
  if (pto_pto_op_id(op) != PTO_PTO_NONE) return false;
  const char *n = pto_ident_str(pto_op_name(op));
  return strncmp(n, "arith.", 6) == 0;
}

/* The run under construction: its groups and other tiles. */
typedef struct Plan {
  PtoType *slot_type[3 * PTO_EMIT_MAX_STEPS];
  Span slot_span[3 * PTO_EMIT_MAX_STEPS];
  unsigned nslots;
  Span col[PTO_EMIT_MAX_STEPS]; /* step i's trowexpand column, if is_col[i] */
  bool is_col[PTO_EMIT_MAX_STEPS];
  Span red; /* the reduction's result, when the last step is one */
  int64_t rows, cols;
} Plan;

static int slot(Plan *p, PtoValue *v) {
  PtoType *ty = pto_value_type(v);
  unsigned i = 0;
  while (i < p->nslots && p->slot_type[i] != ty) i++;
  if (i == p->nslots) {
    p->slot_type[i] = ty;
    span_of(v, &p->slot_span[i]);
    p->nslots++;
  }
  return (int)i;
}

static bool full_shape(const Plan *p, PtoValue *v) {
  PtoType *ty = pto_value_type(v);
  return pto_pto_tile_rows(ty) == p->rows && pto_pto_tile_cols(ty) == p->cols;
}

static bool legal(const Plan *p, const PtoFuseStep *st, unsigned n, bool stores);

/* Adds op to the plan as step i of st; false when it cannot join. */
static bool add(Plan *p, PtoOp *op, PtoFuseStep *st, unsigned i) {
  PtoPtoKind k = pto_pto_op_kind(pto_pto_op_id(op));
  PtoFuseStep *s = &st[i];
  Span sp;
  PtoValue *a = pto_op_operand(op, 0), *res = pto_op_result(op, 0);
  if (!span_of(a, &sp) || !span_of(res, &sp) || !full_shape(p, a)) return false;
  s->op = op;
  s->a_slot = slot(p, a);
  s->b_slot = -1;
  s->dst_slot = -1;
  s->store = true;
  p->is_col[i] = false;
  if (k == PTO_PTO_KIND_BINARY || k == PTO_PTO_KIND_ROWEXPAND) {
    PtoValue *b = pto_op_operand(op, 1);
    if (!span_of(b, &sp)) return false;
    if (k == PTO_PTO_KIND_BINARY) {
      if (!full_shape(p, b)) return false;
      s->b_slot = slot(p, b);
    } else {
      p->col[i] = sp;
      p->is_col[i] = true;
    }
  }
  if (k == PTO_PTO_KIND_ROWRED) {
    span_of(res, &p->red);
  } else {
    if (!full_shape(p, res)) return false;
    s->dst_slot = slot(p, res);
  }
  return legal(p, st, i + 1, false);
}

/* The conditions of the file's comment on the first n steps of a plan;
 * a group's store counts only when `stores` (before the run's end is
 * known, every written group is assumed to skip its store: the plan is
 * checked again with its stores once they are). */
static bool legal(const Plan *p, const PtoFuseStep *st, unsigned n, bool stores) {
  enum { NS = 3 * PTO_EMIT_MAX_STEPS };
  int first_write[NS], last_read[NS]; /* -1: none */
  bool used[NS] = {false}, stored[NS] = {false};
  for (unsigned i = 0; i < p->nslots; i++) first_write[i] = last_read[i] = -1;
  for (unsigned i = 0; i < n; i++) {
    int reads[2] = {st[i].a_slot, st[i].b_slot};
    for (unsigned r = 0; r < 2; r++) {
      int x = reads[r];
      if (x < 0) continue;
      used[x] = true;
      last_read[x] = (int)i; /* from memory, or from a step's register */
    }
    int d = st[i].dst_slot;
    if (d < 0) continue;
    used[d] = true;
    if (first_write[d] < 0) first_write[d] = (int)i;
    stored[d] = stored[d] || (stores && st[i].store);
  }
  bool red = n > 0 && pto_pto_op_kind(pto_pto_op_id(st[n - 1].op)) == PTO_PTO_KIND_ROWRED;
  for (unsigned i = 0; i < p->nslots; i++) {
    if (!used[i]) continue;
    for (unsigned j = i + 1; j < p->nslots; j++) {
      if (!used[j] || !overlap(p->slot_span[i], p->slot_span[j])) continue;
      if (first_write[i] < 0 && first_write[j] < 0) continue;
      /* bytes of one group that the other writes: only if neither is
       * stored, and each is read (from memory or a register) only
       * before the other's first write */
      if (stored[i] || stored[j]) return false;
      if (first_write[i] >= 0 && last_read[j] >= first_write[i]) return false;
      if (first_write[j] >= 0 && last_read[i] >= first_write[j]) return false;
    }
    for (unsigned c = 0; c < n; c++)
      if (p->is_col[c] && first_write[i] >= 0 && overlap(p->slot_span[i], p->col[c]) &&
          (stored[i] || (int)c >= first_write[i]))
        return false;
    if (red && overlap(p->slot_span[i], p->red)) return false;
  }
  for (unsigned c = 0; red && c < n; c++)
    if (p->is_col[c] && overlap(p->col[c], p->red)) return false;
  return true;
}

/* The op after `op`, past scalar arith ops and flags: what a tload or
 * tstore may fuse across. */
static PtoOp *next_past_flags(PtoOp *op) {
  for (op = pto_op_next(op);
       op && (is_scalar_arith(op) || is_kind(op, PTO_PTO_KIND_SETFLAG) ||
              is_kind(op, PTO_PTO_KIND_WAITFLAG));
       op = pto_op_next(op))
    ;
  return op;
}

/* The op after the tload `load`, past scalar arith ops, flags and other
 * tloads into planned vector tiles that do not overlap its own: what
 * that tload may fuse across. The run emits the tloads it passes before
 * its loop nest (emit_run): each only reads GM, which nothing between
 * writes, and writes bytes that `load` does not, so the two orders leave
 * the same bytes; the run's steps come after both, as before. */
static PtoOp *next_past_loads(PtoOp *load) {
  Span own, other;
  PtoOp *op = next_past_flags(load);
  if (!span_of(pto_op_result(load, 0), &own)) return op;
  while (op && is_kind(op, PTO_PTO_KIND_LOAD) && pto_op_num_results(op) == 1 &&
         span_of(pto_op_result(op, 0), &other) && !overlap(own, other))
    op = next_past_flags(op);
  return op;
}

/* A tload or tstore as a step: its tile a planned rows x cols group of
 * the vector buffer of the GM tensor's dtype; a streaming tstore only of
 * 4-byte elements (what the fused loop streams). */
static bool add_copy(Plan *p, PtoOp *op, bool load, PtoFuseStep *s) {
  PtoValue *tile = load ? pto_op_result(op, 0) : pto_op_operand(op, 0);
  PtoValue *tensor = pto_op_operand(op, load ? 0 : 1);
  Span sp;
  PtoDType gdt, tdt;
  if (!tile || !tensor || !span_of(tile, &sp) || !full_shape(p, tile) ||
      !pto_type_is_tensor(pto_value_type(tensor)) ||
      !pto_dtype_from_type(pto_type_tensor_elem(pto_value_type(tensor)), &gdt) ||
      !pto_dtype_from_type(pto_pto_tile_elem(pto_value_type(tile)), &tdt) || gdt != tdt)
    return false;
  if (!load && pto_llvmir_streams(tensor) && pto_dtype_size(tdt) != 4) return false;
  /* a window of several pieces is a loop of copies of its own */
  PtoPtoWindowPieces w;
  if (!pto_pto_op_window_pieces(op, &w) || w.pieces != 1) return false;
  s->op = op;
  s->a_slot = load ? -1 : slot(p, tile);
  s->b_slot = -1;
  s->dst_slot = load ? slot(p, tile) : -1;
  s->store = true;
  return true;
}

bool pto_llvmir_streams(PtoValue *tensor) {
  PtoType *ty = pto_value_type(tensor);
  PtoDType dt;
  if (!pto_dtype_from_type(pto_type_tensor_elem(ty), &dt)) return false;
  int64_t bytes = (int64_t)pto_dtype_size(dt);
  for (unsigned d = 0; d < pto_type_tensor_rank(ty); d++) {
    int64_t n = pto_type_tensor_dim(ty, d);
    if (n <= 0) return false;
    if (bytes > INT64_MAX / n) return true; /* and no overflow */
    bytes *= n;
  }
  return bytes >= PTO_STREAM_MIN_BYTES;
}

/* Whether an instruction after `last` reads bytes of sp that were
 * written before it: a tile operand overlapping sp that no instruction
 * after `last` defined. */
static bool read_after(PtoOp *last, Span sp) {
  PtoPtrMap after;
  pto_ptrmap_init(&after);
  bool live = false;
  for (PtoOp *op = pto_op_next(last); op && !live; op = pto_op_next(op)) {
    for (unsigned i = 0; i < pto_op_num_operands(op) && !live; i++) {
      PtoValue *v = pto_op_operand(op, i);
      PtoOp *def = pto_value_def_op(v);
      Span o;
      if (!pto_type_is_pto_tile(pto_value_type(v))) continue;
      if (def && pto_ptrmap_contains(&after, (uint64_t)(uintptr_t)def)) continue;
      /* an unplanned or other tile: assume it may be these bytes */
      live = !span_of(v, &o) || overlap(o, sp);
    }
    pto_ptrmap_put(&after, (uint64_t)(uintptr_t)op, op);
  }
  pto_ptrmap_release(&after);
  return live;
}

void pto_llvmir_fuse_plan(PtoOp *first, PtoFuseRun *run) {
  run->n = 0;
  run->last = first;
  PtoPtoOp id = pto_pto_op_id(first);
  bool load = is_kind(first, PTO_PTO_KIND_LOAD);
  if (id == PTO_PTO_NONE || (!is_step(id) && !load)) return;
  Plan p;
  memset(&p, 0, sizeof p);
  run->shape = load ? pto_op_result(first, 0) : pto_op_operand(first, 0);
  PtoType *shape = run->shape ? pto_value_type(run->shape) : NULL;
  if (!shape || !pto_type_is_pto_tile(shape)) return;
  p.rows = pto_pto_tile_rows(shape);
  p.cols = pto_pto_tile_cols(shape);
  PtoOp *op = first;
  if (load) {
    if (!add_copy(&p, first, true, &run->step[0])) return;
    run->n = 1;
    op = next_past_loads(first);
  }
  bool red = false;
  for (; op && run->n < PTO_EMIT_MAX_STEPS && !red; op = pto_op_next(op)) {
    if (is_scalar_arith(op)) continue;
    id = pto_pto_op_id(op);
    if (id == PTO_PTO_NONE || !is_step(id)) break;
    Plan saved = p;
    if (!add(&p, op, run->step, run->n)) {
      p = saved;
      break;
    }
    run->n++;
    run->last = op;
    red = pto_pto_op_kind(id) == PTO_PTO_KIND_ROWRED;
  }
  if (load && run->n < 2) return; /* no step took the loaded tile */
  PtoOp *st = run->n > 0 ? next_past_flags(run->last) : NULL;
  if (!load && !red && st && run->n < PTO_EMIT_MAX_STEPS &&
      is_kind(st, PTO_PTO_KIND_STORE)) {
    Plan saved = p;
    if (add_copy(&p, st, false, &run->step[run->n]) &&
        legal(&p, run->step, run->n + 1, false)) {
      run->n++;
      run->last = st;
    } else {
      p = saved;
    }
  }
  /* stores: the last write of each group, when its bytes are read later;
   * the run then holds with them, or gives up its last steps until it
   * does (fewer steps may need more stores) */
  for (; run->n >= 2; run->n--) {
    run->last = run->step[run->n - 1].op;
    for (unsigned i = 0; i < run->n; i++) {
      PtoFuseStep *s = &run->step[i];
      if (s->dst_slot < 0) continue;
      bool rewritten = false;
      for (unsigned j = i + 1; j < run->n; j++)
        rewritten = rewritten || run->step[j].dst_slot == s->dst_slot;
      s->store = !rewritten && read_after(run->last, p.slot_span[s->dst_slot]);
    }
    if (legal(&p, run->step, run->n, true)) return;
  }
  if (load) run->n = 0; /* no step took the loaded tile */
  run->last = run->n ? run->step[0].op : first;
}

/* ---- forwarding (Fuse.h) ---- */

/* An instruction whose emitter reads its tile operands through their row
 * stride (pto_emit_elem_ptr), so that a GM window serves as well. */
static bool reads_by_stride(PtoOp *op) {
  PtoPtoOp id = pto_pto_op_id(op);
  if (id == PTO_PTO_NONE) return false;
  switch (pto_pto_op_kind(id)) {
  case PTO_PTO_KIND_BINARY:
  case PTO_PTO_KIND_SCALAR:
  case PTO_PTO_KIND_ROWEXPAND:
  case PTO_PTO_KIND_UNARY:
  case PTO_PTO_KIND_CVT:
  case PTO_PTO_KIND_ROWRED:
  case PTO_PTO_KIND_COLRED:
  case PTO_PTO_KIND_TRANS:
  case PTO_PTO_KIND_MOV: return true;
  default: return false;
  }
}

static bool is_tensor(PtoValue *v) { return pto_type_is_tensor(pto_value_type(v)); }

bool pto_llvmir_forward_plan(PtoOp *load, PtoForward *f) {
  f->n = 0;
  if (!is_kind(load, PTO_PTO_KIND_LOAD)) return false;
  PtoValue *tv = pto_op_result(load, 0), *tensor = pto_op_operand(load, 0);
  PtoType *tt = pto_value_type(tv);
  PtoType *elem = pto_pto_tile_elem(tt);
  Span own;
  if (!span_of(tv, &own) || elem != pto_type_tensor_elem(pto_value_type(tensor)) ||
      (pto_type_is_integer(elem) && pto_type_int_width(elem) == 1))
    return false;
  /* the last reader */
  PtoOp *last = NULL;
  for (PtoUse *u = pto_value_first_use(tv); u; u = pto_use_next(u)) {
    PtoOp *r = pto_use_owner(u);
    if (!reads_by_stride(r) || pto_op_block(r) != pto_op_block(load)) return false;
    if (!last || pto_op_is_before_in_block(last, r)) last = r;
  }
  if (!last) return false; /* nothing to forward to */
  bool before_last = true;
  for (PtoOp *op = pto_op_next(load); op; op = pto_op_next(op)) {
    for (unsigned i = 0, n = pto_op_num_operands(op); i < n; i++) {
      PtoValue *v = pto_op_operand(op, i);
      Span sp;
      if (is_tensor(v)) {
        if (is_kind(op, PTO_PTO_KIND_LOAD) || is_kind(op, PTO_PTO_KIND_PREFETCH)) continue;
        /* a GM tensor another instruction may write */
        if (v == tensor) return false;
        bool seen = false;
        for (unsigned k = 0; k < f->n; k++) seen = seen || f->writes[k] == v;
        if (seen) continue;
        if (f->n == PTO_FORWARD_MAX_WRITES) return false;
        f->writes[f->n++] = v;
        continue;
      }
      /* the tile's bytes read through a tile defined before the tload */
      PtoOp *def = pto_value_def_op(v);
      if (v != tv && span_of(v, &sp) && overlap(sp, own) &&
          (!def || pto_op_block(def) != pto_op_block(load) ||
           !pto_op_is_before_in_block(load, def)))
        return false;
    }
    if (op == last) before_last = false;
    /* the tile's bytes written before its last reader */
    for (unsigned i = 0, n = pto_op_num_results(op); before_last && i < n; i++) {
      Span sp;
      if (span_of(pto_op_result(op, i), &sp) && overlap(sp, own)) return false;
    }
  }
  return true;
}
