/* lower-to-pto: rewrites every block.kernel into a pto.kernel of PTO
 * instructions. Vector kernels: block.load -> tload to vec, tile compute ->
 * the vector instruction of the same name, block.store -> tstore. Cube
 * kernels: GM -> L1 (tload to mat), L1 -> L0A / L0B (tmov), tmatmul and
 * tmatmul_acc along K in steps of the cube tile's kL0, L0C -> GM (tstore
 * from acc, on FIX). The host function's launches keep their kernels'
 * names. Offsets and flags come later (memory-plan, insert-sync). */
#include "Conversion/Passes.h"
#include "Conversion/BlockToPTO/LowerCubeIndex.h"
#include "Conversion/BlockToPTO/LowerElementwise.h"
#include "Conversion/BlockToPTO/LowerIndexed.h"
#include "Conversion/BlockToPTO/LowerLayout.h"

#include <stdio.h>
#include <string.h>

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Transforms/IntervalAlloc.h"
#include "Transforms/PtoKernel.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/Origin.h"

/* Tile ops with one PTO instruction of the same operands. */
static const struct {
  const char *tile, *pto;
} direct[] = {
    {"tile.add", "pto.tadd"},
    {"tile.sub", "pto.tsub"},
    {"tile.mul", "pto.tmul"},
    {"tile.div", "pto.tdiv"},
    {"tile.maximum", "pto.tmax"},
    {"tile.minimum", "pto.tmin"},
    {"tile.adds", "pto.tadds"},
    {"tile.subs", "pto.tsubs"},
    {"tile.muls", "pto.tmuls"},
    {"tile.divs", "pto.tdivs"},
    {"tile.maxs", "pto.tmaxs"},
    {"tile.mins", "pto.tmins"},
    {"tile.exp", "pto.texp"},
    {"tile.log", "pto.tlog"},
    {"tile.sqrt", "pto.tsqrt"},
    {"tile.rsqrt", "pto.trsqrt"},
    {"tile.reciprocal", "pto.trecip"},
    {"tile.relu", "pto.trelu"},
    {"tile.abs", "pto.tabs"},
    {"tile.neg", "pto.tneg"},
    {"tile.rowsum", "pto.trowsum"},
    {"tile.rowmax", "pto.trowmax"},
    {"tile.rowmin", "pto.trowmin"},
    {"tile.colsum", "pto.tcolsum"},
    {"tile.colmax", "pto.tcolmax"},
    {"tile.colmin", "pto.tcolmin"},
    {"tile.rowprod", "pto.trowprod"},
    {"tile.colprod", "pto.tcolprod"},
    {"tile.rowargmax", "pto.trowargmax"},
    {"tile.rowargmin", "pto.trowargmin"},
    {"tile.colargmax", "pto.tcolargmax"},
    {"tile.colargmin", "pto.tcolargmin"},
    {"tile.argmax_combine", "pto.targmax_combine"},
    {"tile.argmin_combine", "pto.targmin_combine"},
    {"tile.quantize", "pto.tquant"},
    {"tile.topk_merge", "pto.ttopk_merge"},
    {"tile.rowexpand_add", "pto.trowexpandadd"},
    {"tile.rowexpand_sub", "pto.trowexpandsub"},
    {"tile.rowexpand_mul", "pto.trowexpandmul"},
    {"tile.rowexpand_div", "pto.trowexpanddiv"},
    {"tile.rowexpand_max", "pto.trowexpandmax"},
    {"tile.rowexpand_min", "pto.trowexpandmin"},
    {"tile.cast", "pto.tcvt"},
    {"tile.topk", "pto.ttopk"},
    {"tile.gcd", "pto.tgcd"},
    {"block.load", "pto.tload"},
    {"block.store", "pto.tstore"},
    {"block.return", "pto.return"},
};

/* Tile ops broadcasting a row down the columns, and the row-broadcast
 * instruction that computes them on the transposed tiles. */
static const struct {
  const char *tile, *pto;
} colexpand[] = {
    {"tile.colexpand_add", "pto.trowexpandadd"},
    {"tile.colexpand_sub", "pto.trowexpandsub"},
    {"tile.colexpand_mul", "pto.trowexpandmul"},
    {"tile.colexpand_div", "pto.trowexpanddiv"},
    {"tile.colexpand_max", "pto.trowexpandmax"},
    {"tile.colexpand_min", "pto.trowexpandmin"},
};

struct Lower {
  PtoPass *pass;
  PtoContext *ctx;
  bool provenance, hoist;
  int64_t k_step;
  const PtoPlatform *platform;
  PtoPtrMap numbers; /* input op -> its pto_origin_ops number + 1 */
  /* block.store, tile.expand, the scatters -> the buffer type of operand
   * 0 (tile.dequantize: of its scale, operand 1), taken before the operand
   * is rewritten: the GM window, or the view a broadcast repeats, has the
   * buffer's shape, not the tile's */
  PtoPtrMap stored;
};

/* The buffer type `op` (block.load / block.store) moves. */
static PtoType *moved_buffer(Lower *L, PtoOp *op) {
  if (pto_op_is(op, "block.load")) return pto_value_type(pto_op_result(op, 0));
  return pto_ptrmap_get(&L->stored, (uint64_t)(uintptr_t)op);
}

/* The rows of buffer `t` as a 2-D tile: the product of its leading dims
 * (1 for a 1-D buffer). Row-major order is kept, so that elementwise ops,
 * reductions along the last dim and its broadcasts mean the same on the
 * flattened tile. */
static int64_t flat_rows(PtoType *t) {
  int64_t rows = 1;
  for (unsigned d = 0; d + 1 < pto_tile_rank(t); d++)
    rows *= pto_tile_dim(t, d);
  return rows;
}

/* !block.buf<AxBx..xCxT, space> -> !pto.tile<(A*B*..)xCxT, space>; NULL
 * for other types. */
static PtoType *tile_type(Lower *L, PtoType *t) {
  if (!pto_type_is_block_buf(t) || pto_tile_rank(t) < 1)
    return NULL;
  unsigned r = pto_tile_rank(t);
  return pto_pto_tile_type(L->ctx, flat_rows(t), pto_tile_dim(t, r - 1),
                           pto_tile_elem(t), pto_block_buf_space(t),
                           PTO_PTO_UNPLANNED);
}

static void mark(Lower *L, PtoOp *from, PtoOp *to) {
  if (!L->provenance)
    return;
  uintptr_t n = (uintptr_t)pto_ptrmap_get(&L->numbers,
                                          (uint64_t)(uintptr_t)from);
  if (!n)
    return;
  for (unsigned r = 0; r < pto_op_num_results(to); r++) {
    /* the whole buffer, in its own rank: the tile is it flattened */
    PtoType *t = r < pto_op_num_results(from)
                     ? pto_value_type(pto_op_result(from, r))
                     : NULL;
    unsigned rank = pto_type_is_block_buf(t) ? pto_tile_rank(t) : 2;
    PtoOrigin o = {(int64_t)(n - 1), r, rank, {0}};
    pto_origin_set(to, r, &o);
  }
}

/* Builds `name` before `op` with op's operands and the given result
 * types; the attributes the PTO form shares are kept: static offsets of
 * loads and stores, rounding and saturation of casts. */
static PtoOp *build_like(Lower *L, PtoOp *op, const char *name,
                         PtoType *const *types, unsigned ntypes) {
  PtoOpState st;
  pto_op_state_init(&st, L->ctx, name, pto_op_loc(op));
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    pto_op_state_add_operand(&st, pto_op_operand(op, i));
  pto_op_state_add_results(&st, types, ntypes);
  static const char *const kept[] = {PTO_ATTR_STATIC_OFFSETS, PTO_ATTR_MODE,
                                     PTO_ATTR_SATMODE, PTO_ATTR_K,
                                     PTO_ATTR_LARGEST};
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(kept); i++) {
    PtoAttr *a = pto_op_attr(op, kept[i]);
    if (a)
      pto_op_state_add_attr(&st, kept[i], a);
  }
  /* A tensor of another rank than the tile's 2 holds the tile in a window
   * given by `sizes`: the buffer placed as block.load/store place it. */
  bool load = pto_op_is(op, "block.load"), store = pto_op_is(op, "block.store");
  if (load || store) {
    PtoType *tensor = pto_value_type(pto_op_operand(op, store ? 1 : 0));
    PtoType *buf = moved_buffer(L, op);
    unsigned rank = pto_type_tensor_rank(tensor);
    if (rank != 2) {
      int64_t win[PTO_MAX_RANK];
      pto_tile_window_shape(buf, rank, win);
      pto_op_state_add_attr(&st, "sizes", pto_attr_i64_array(L->ctx, win, rank));
    }
  }
  PtoOp *n = pto_op_create(&st);
  pto_block_insert_before(op, n);
  return n;
}

/* Why buffer `t` has no PTO tile. */
static PtoResult bad_buffer(PtoOp *op, const char *what, unsigned i,
                            PtoType *t) {
  if (!pto_type_is_block_buf(t))
    return pto_op_emit_error(op, "lower-to-pto: %s #%u is not an on-chip "
                                 "buffer", what, i);
  unsigned r = pto_tile_rank(t);
  if (r == 0)
    return pto_op_emit_error(op, "lower-to-pto: %s #%u is a 0-D buffer; a "
                                 "PTO tile has rows and columns", what, i);
  /* the tile type's own rule says why */
  if (pto_pto_tile_check(pto_op_ctx(op), pto_op_loc(op), flat_rows(t),
                         pto_tile_dim(t, r - 1), pto_tile_elem(t),
                         pto_block_buf_space(t), PTO_PTO_UNPLANNED))
    return PTO_FAILURE;
  return pto_op_emit_error(op, "lower-to-pto: %s #%u has no PTO tile", what, i);
}

static PtoResult replace(Lower *L, PtoOp *op, const char *name) {
  PtoType *types[4];
  unsigned nres = pto_op_num_results(op);
  if (nres > 4)
    return pto_op_emit_error(op, "lower-to-pto: too many results");
  for (unsigned r = 0; r < nres; r++) {
    PtoType *t = pto_value_type(pto_op_result(op, r));
    types[r] = tile_type(L, t);
    if (!types[r])
      return bad_buffer(op, "result", r, t);
  }
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    if (pto_type_is_block_buf(t) && !tile_type(L, t))
      return bad_buffer(op, "operand", i, t);
  }
  PtoOp *n = build_like(L, op, name, types, nres);
  mark(L, op, n);
  /* Users not yet rewritten see the PTO tile until their turn comes. */
  PtoValue *vals[4];
  for (unsigned r = 0; r < nres; r++)
    vals[r] = pto_op_result(n, r);
  pto_op_replace_all_uses(op, vals);
  pto_op_erase(op);
  return PTO_SUCCESS;
}

static PtoOp *build1(Lower *L, PtoOp *at, const char *name,
                     PtoValue *const *operands, unsigned n, PtoType *result) {
  PtoOpState st;
  pto_op_state_init(&st, L->ctx, name, pto_op_loc(at));
  pto_op_state_add_operands(&st, operands, n);
  pto_op_state_add_result(&st, result);
  PtoOp *op = pto_op_create(&st);
  pto_block_insert_before(at, op);
  return op;
}

PtoType *pto_lower_tile_type(Lower *L, PtoType *buf) { return tile_type(L, buf); }

PtoOp *pto_lower_build(Lower *L, PtoOp *at, const char *name,
                       PtoValue *const *operands, unsigned n, PtoType *result) {
  return build1(L, at, name, operands, n, result);
}

PtoType *pto_lower_operand_buffer(Lower *L, PtoOp *op) {
  return pto_ptrmap_get(&L->stored, (uint64_t)(uintptr_t)op);
}

void pto_lower_finish_results(Lower *L, PtoOp *op, PtoOp *const *lasts) {
  uintptr_t n = L->provenance ? (uintptr_t)pto_ptrmap_get(
                                    &L->numbers, (uint64_t)(uintptr_t)op)
                              : 0;
  for (unsigned r = 0; r < pto_op_num_results(op); r++) {
    PtoType *t = pto_value_type(pto_op_result(op, r));
    PtoOrigin o = {(int64_t)n - 1, r,
                   pto_type_is_block_buf(t) ? pto_tile_rank(t) : 2, {0}};
    if (n) pto_origin_set(lasts[r], 0, &o);
    pto_value_replace_all_uses(pto_op_result(op, r), pto_op_result(lasts[r], 0));
  }
  pto_op_erase(op);
}

void pto_lower_finish(Lower *L, PtoOp *op, PtoOp *last) {
  mark(L, op, last);
  pto_value_replace_all_uses(pto_op_result(op, 0), pto_op_result(last, 0));
  pto_op_erase(op);
}

static PtoType *in_space(Lower *L, PtoType *tile, PtoBufSpace s, int64_t rows,
                         int64_t cols) {
  return pto_pto_tile_type(L->ctx, rows, cols, pto_pto_tile_elem(tile), s,
                           PTO_PTO_UNPLANNED);
}

/* One offset of a load, moved by `delta` along its dim. */
static void shift_offset(Lower *L, PtoOp *at, int64_t *off, PtoValue **dyn,
                         int64_t delta) {
  if (!*dyn) {
    *off += delta;
    return;
  }
  if (delta == 0)
    return;
  PtoBuilder b;
  pto_builder_init(&b, L->ctx);
  pto_builder_set_before(&b, at);
  b.loc = pto_op_loc(at);
  PtoValue *c = pto_arith_build_constant_index(&b, delta);
  *dyn = pto_arith_build_binary(&b, "arith.addi", *dyn, c);
}

/* tload of a rows x cols window of the tensor `load` reads, moved by
 * (dr, dc), into mat. */
static PtoValue *load_part(Lower *L, PtoOp *at, PtoOp *load, int64_t dr,
                           int64_t dc, PtoType *type) {
  int64_t offs[2];
  PtoValue *dyn[2];
  pto_block_get_offsets(load, offs, dyn);
  shift_offset(L, at, &offs[0], &dyn[0], dr);
  shift_offset(L, at, &offs[1], &dyn[1], dc);
  PtoOpState st;
  pto_op_state_init(&st, L->ctx, "pto.tload", pto_op_loc(load));
  pto_op_state_add_operand(&st, pto_op_operand(load, 0));
  int64_t stat[2];
  for (unsigned d = 0; d < 2; d++) {
    stat[d] = dyn[d] ? PTO_DYN : offs[d];
    if (dyn[d])
      pto_op_state_add_operand(&st, dyn[d]);
  }
  pto_op_state_add_attr(&st, PTO_ATTR_STATIC_OFFSETS,
                        pto_attr_i64_array(L->ctx, stat, 2));
  pto_op_state_add_result(&st, type);
  PtoOp *op = pto_op_create(&st);
  pto_block_insert_before(at, op);
  return pto_op_result(op, 0);
}

/* C = A B (+ C0) with A and B in mat: tmov each to L0A / L0B and tmatmul
 * (tmatmul_acc into C0's buffer); along K in steps of the `k-step`
 * option, each step's parts of A and B loaded from GM on their own when
 * A and B come straight from loads used by this matmul alone. */
static PtoResult lower_matmul(Lower *L, PtoOp *mm) {
  unsigned nops = pto_op_num_operands(mm);
  PtoValue *a = pto_op_operand(mm, 0), *b = pto_op_operand(mm, 1);
  PtoValue *acc = nops == 3 ? pto_op_operand(mm, 2) : NULL;
  PtoType *ta = pto_value_type(a), *tb = pto_value_type(b);
  PtoType *tc = tile_type(L, pto_value_type(pto_op_result(mm, 0)));
  /* the cube accumulates floats in f32 (the only float C of tmatmul);
   * an f16 or bf16 result, or accumulation dtype, is rounded once, when
   * FIX stores it, as the Tile level defines it */
  if (tc && pto_type_is_float(pto_pto_tile_elem(tc)) &&
      pto_type_float_kind(pto_pto_tile_elem(tc)) != PTO_F32)
    tc = pto_pto_tile_type(L->ctx, pto_pto_tile_rows(tc), pto_pto_tile_cols(tc),
                           pto_type_f32(L->ctx), PTO_BUF_ACC, PTO_PTO_UNPLANNED);
  /* a transposed operand is stored K x M (N x K) in mat and reaches L0
   * through the transposing move */
  bool at = pto_op_attr_flag(mm, "a_trans"), bt = pto_op_attr_flag(mm, "b_trans");
  if (!pto_type_is_pto_tile(ta) || !pto_type_is_pto_tile(tb) || !tc ||
      pto_pto_tile_space(ta) != PTO_BUF_MAT ||
      pto_pto_tile_space(tb) != PTO_BUF_MAT ||
      pto_pto_tile_space(tc) != PTO_BUF_ACC)
    return pto_op_emit_error(mm, "lower-to-pto: a matmul needs 2-D operands "
                                 "in mat and a result in acc");
  if (acc && pto_value_type(acc) != tc) {
    /* e.g. an f16 accumulator (acc_dtype = f16) that no matmul made: L0C
     * holds what the cube computes, f32 for floats */
    char *have = pto_type_to_string(pto_value_type(acc));
    char *want = pto_type_to_string(tc);
    PtoResult r = pto_op_emit_error(
        mm, "lower-to-pto: the accumulator is '%s', not the result's '%s': "
            "tmatmul_acc updates it in place%s",
        have, want,
        pto_type_is_float(pto_pto_tile_elem(tc))
            ? " (the cube accumulates floats in f32)"
            : "");
    pto_free(have);
    pto_free(want);
    return r;
  }
  int64_t m = at ? pto_pto_tile_cols(ta) : pto_pto_tile_rows(ta),
          k = at ? pto_pto_tile_rows(ta) : pto_pto_tile_cols(ta),
          n = bt ? pto_pto_tile_rows(tb) : pto_pto_tile_cols(tb);
  int64_t step = L->k_step > 0 && L->k_step < k ? L->k_step : k;
  PtoOp *la = pto_value_def_op(a), *lb = pto_value_def_op(b);
  bool split = step < k && la && lb && pto_op_is(la, "pto.tload") &&
               pto_op_is(lb, "pto.tload") && pto_value_has_one_use(a) &&
               pto_value_has_one_use(b) && a != b;
  if (!split)
    step = k;
  PtoOp *last = NULL;
  for (int64_t k0 = 0; k0 < k; k0 += step) {
    int64_t kc = k - k0 < step ? k - k0 : step;
    PtoValue *pa = a, *pb = b;
    if (split) {
      pa = at ? load_part(L, mm, la, k0, 0, in_space(L, ta, PTO_BUF_MAT, kc, m))
              : load_part(L, mm, la, 0, k0, in_space(L, ta, PTO_BUF_MAT, m, kc));
      pb = bt ? load_part(L, mm, lb, 0, k0, in_space(L, tb, PTO_BUF_MAT, n, kc))
              : load_part(L, mm, lb, k0, 0, in_space(L, tb, PTO_BUF_MAT, kc, n));
    }
    PtoValue *l = pto_op_result(
        build1(L, mm, at ? "pto.tmov_trans" : "pto.tmov", &pa, 1,
               in_space(L, ta, PTO_BUF_LEFT, m, kc)),
        0);
    PtoValue *r = pto_op_result(
        build1(L, mm, bt ? "pto.tmov_trans" : "pto.tmov", &pb, 1,
               in_space(L, tb, PTO_BUF_RIGHT, kc, n)),
        0);
    if (!acc) {
      PtoValue *ops[2] = {l, r};
      last = build1(L, mm, "pto.tmatmul", ops, 2, tc);
    } else {
      PtoValue *ops[3] = {acc, l, r};
      last = build1(L, mm, "pto.tmatmul_acc", ops, 3, tc);
    }
    acc = pto_op_result(last, 0);
    pto_pass_stat_add(L->pass, "num-matmul-steps", 1);
  }
  mark(L, mm, last);
  pto_value_replace_all_uses(pto_op_result(mm, 0), acc);
  pto_op_erase(mm);
  if (split) {
    pto_op_erase(la);
    pto_op_erase(lb);
  }
  return PTO_SUCCESS;
}

static PtoResult no_instruction(PtoOp *op) {
  return pto_op_emit_error(op, "lower-to-pto: no PTO instruction computes "
                               "this op");
}

/* A type's text for a diagnostic (freed by the caller). */
static char *type_str(PtoType *t) { return pto_type_to_string(t); }

/* The product of the dims of `t` before its last two: the planes a
 * column-wise op works in separately, which a 2-D tile cannot keep apart. */
static int64_t planes(PtoType *t) {
  int64_t n = 1;
  for (unsigned d = 0; d + 2 < pto_tile_rank(t); d++)
    n *= pto_tile_dim(t, d);
  return n;
}

/* The value `op` computes is its operand's, as a 2-D tile: a reshape that
 * keeps the flattened tile, a transpose that moves unit dims only. A
 * column of N that becomes a row of N (a reduction's result without its
 * kept dim) or back is the same elements in the same order: ttrans; into
 * a tile of another shape, a tpermute by the identity. */
static PtoResult forward(Lower *L, PtoOp *op) {
  PtoValue *v = pto_op_operand(op, 0);
  PtoType *want = tile_type(L, pto_value_type(pto_op_result(op, 0)));
  PtoType *have = pto_value_type(v);
  if (want && pto_type_is_pto_tile(have) && have != want &&
      pto_pto_tile_rows(have) == pto_pto_tile_cols(want) &&
      pto_pto_tile_cols(have) == pto_pto_tile_rows(want) &&
      (pto_pto_tile_rows(have) == 1 || pto_pto_tile_cols(have) == 1))
    return replace(L, op, "pto.ttrans");
  if (want && pto_type_is_pto_tile(have) && have != want &&
      pto_pto_tile_space(have) == PTO_BUF_VEC &&
      pto_pto_tile_space(want) == PTO_BUF_VEC &&
      pto_pto_tile_rows(have) * pto_pto_tile_cols(have) ==
          pto_pto_tile_rows(want) * pto_pto_tile_cols(want))
    return pto_lower_reshape(L, op, want);
  if (!want || have != want) {
    char *from = type_str(pto_value_type(v)), *to = type_str(want);
    PtoResult r = pto_op_emit_error(
        op, "lower-to-pto: the result is the 2-D tile '%s' but the operand "
            "'%s'; PTO has no instruction that reshapes a tile",
        to ? to : "?", from);
    pto_free(from);
    pto_free(to);
    return r;
  }
  pto_value_replace_all_uses(pto_op_result(op, 0), v);
  pto_op_erase(op);
  return PTO_SUCCESS;
}

/* tile.transpose: with its unit dims dropped, either no dim moves (the
 * same row-major order: a forward) or the two remaining dims swap, the
 * last one moving first (ttrans of the flattened tile). */
static PtoResult lower_transpose(Lower *L, PtoOp *op) {
  PtoType *out = pto_value_type(pto_op_result(op, 0));
  int64_t perm[PTO_TILE_MAX_RANK];
  unsigned r = pto_tile_get_perm(op, perm);
  if (!pto_type_is_block_buf(out) || r != pto_tile_rank(out))
    return no_instruction(op);
  /* in-dims of the non-unit out-dims, in out order */
  int64_t moved[PTO_TILE_MAX_RANK];
  unsigned n = 0;
  for (unsigned d = 0; d < r; d++)
    if (pto_tile_dim(out, d) != 1) moved[n++] = perm[d];
  bool ordered = true;
  for (unsigned i = 1; i < n; i++) ordered &= moved[i - 1] < moved[i];
  if (ordered) return forward(L, op);
  PtoType *in = pto_value_type(pto_op_operand(op, 0));
  PtoType *want = tile_type(L, out);
  if (n == 2 && pto_type_is_pto_tile(in) && want &&
      pto_pto_tile_rows(in) == pto_pto_tile_cols(want) &&
      pto_pto_tile_cols(in) == pto_pto_tile_rows(want))
    return replace(L, op, "pto.ttrans");
  return pto_lower_permute(L, op, perm, r);
}

/* tile.colexpand_*: a op b with b (one row) broadcast down the columns.
 * PTO broadcasts along rows only: the same through transposes,
 * ttrans(trowexpand*(ttrans(a), ttrans(b))); over several planes, whose
 * transposes the 2-D tile would mix, b repeated down each plane and the
 * elementwise form (LowerLayout.c). */
static PtoResult lower_colexpand(Lower *L, PtoOp *op, const char *rowform) {
  PtoType *out = pto_value_type(pto_op_result(op, 0));
  if (pto_type_is_block_buf(out) && planes(out) != 1) {
    char binary[32]; /* pto.trowexpandadd -> pto.tadd */
    snprintf(binary, sizeof binary, "pto.t%s", rowform + strlen("pto.trowexpand"));
    return pto_lower_plane_colexpand(L, op, binary);
  }
  PtoValue *a = pto_op_operand(op, 0), *b = pto_op_operand(op, 1);
  PtoType *ta = pto_value_type(a), *tb = pto_value_type(b);
  PtoType *tc = tile_type(L, out);
  if (!pto_type_is_pto_tile(ta) || !pto_type_is_pto_tile(tb) || !tc)
    return no_instruction(op);
  PtoBufSpace sp = pto_pto_tile_space(ta);
  int64_t m = pto_pto_tile_rows(ta), n = pto_pto_tile_cols(ta);
  PtoValue *at = pto_op_result(
      build1(L, op, "pto.ttrans", &a, 1, in_space(L, ta, sp, n, m)), 0);
  PtoValue *bt = pto_op_result(
      build1(L, op, "pto.ttrans", &b, 1, in_space(L, tb, sp, n, 1)), 0);
  PtoValue *ops[2] = {at, bt};
  PtoValue *ct = pto_op_result(
      build1(L, op, rowform, ops, 2, in_space(L, tc, sp, n, m)), 0);
  PtoOp *last = build1(L, op, "pto.ttrans", &ct, 1, tc);
  mark(L, op, last);
  pto_value_replace_all_uses(pto_op_result(op, 0), pto_op_result(last, 0));
  pto_op_erase(op);
  pto_pass_stat_add(L->pass, "num-colexpand-transposed", 1);
  return PTO_SUCCESS;
}

/* The ops of LowerElementwise.c: their instructions, then op's uses
 * moved to the last one. */
static PtoResult lower_elementwise(Lower *L, PtoOp *op) {
  PtoType *buf = pto_value_type(pto_op_result(op, 0));
  PtoType *t = pto_op_num_results(op) == 1 ? tile_type(L, buf) : NULL;
  if (!t) return bad_buffer(op, "result", 0, buf);
  PtoOp *last = pto_lower_elementwise(L->ctx, op, buf, t);
  if (!last) return PTO_FAILURE;
  mark(L, op, last);
  pto_value_replace_all_uses(pto_op_result(op, 0), pto_op_result(last, 0));
  pto_op_erase(op);
  return PTO_SUCCESS;
}

static PtoResult lower_op(Lower *L, PtoOp *op) {
  const char *name = pto_op_name_str(op);
  bool done = false;
  PtoResult r = pto_lower_cube_index(L, op, &done);
  if (done || r) return r;
  r = pto_lower_indexed(L, op, &done);
  if (done || r) return r;
  r = pto_lower_layout(L, op, &done);
  if (done || r) return r;
  if (strcmp(name, "tile.matmul") == 0)
    return lower_matmul(L, op);
  if (strcmp(name, "block.load") == 0 &&
      pto_block_buf_space(pto_value_type(pto_op_result(op, 0))) !=
          PTO_BUF_VEC &&
      pto_block_buf_space(pto_value_type(pto_op_result(op, 0))) !=
          PTO_BUF_MAT)
    return pto_op_emit_error(
        op, "lower-to-pto: no PTO instruction loads GM into %s; tload fills "
            "vec or mat (an accumulator carried between kernels through GM "
            "cannot be reloaded into L0C)",
        pto_buf_space_name(pto_block_buf_space(
            pto_value_type(pto_op_result(op, 0)))));
  if (strcmp(name, "tile.reshape") == 0)
    return forward(L, op);
  if (strcmp(name, "tile.transpose") == 0)
    return lower_transpose(L, op);
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(colexpand); i++)
    if (strcmp(name, colexpand[i].tile) == 0)
      return lower_colexpand(L, op, colexpand[i].pto);
  if (pto_op_is(op, "tile.colsum") || pto_op_is(op, "tile.colmax") ||
      pto_op_is(op, "tile.colmin") || pto_op_is(op, "tile.colprod") ||
      pto_op_is(op, "tile.colargmax") || pto_op_is(op, "tile.colargmin")) {
    PtoType *out = pto_value_type(pto_op_result(op, 0));
    if (pto_type_is_block_buf(out) && planes(out) != 1)
      return pto_lower_plane_reduce(L, op);
  }
  if (pto_lower_elementwise_handles(op)) return lower_elementwise(L, op);
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(direct); i++)
    if (strcmp(name, direct[i].tile) == 0)
      return replace(L, op, direct[i].pto);
  for (unsigned i = 0; i < pto_op_num_results(op); i++)
    if (pto_type_is_block_buf(pto_value_type(pto_op_result(op, i))))
      return no_instruction(op);
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoType *t = pto_value_type(pto_op_operand(op, i));
    if (pto_type_is_block_buf(t) || pto_type_is_pto_tile(t))
      return no_instruction(op);
  }
  return PTO_SUCCESS; /* scalars and indices stay as they are */
}

static bool is_instr(const PtoOp *op, PtoPtoOp id) {
  return pto_pto_op_id(op) == id;
}

/* Issues every load of a kernel before its first other instruction when
 * all the kernel's tiles fit their memory spaces side by side (so that no
 * load waits for a buffer another pipe frees): the loads then overlap and
 * the compute waits for them with one flag pair. Loads that need a value
 * computed later, or that follow a store (GM order), stay where they are;
 * kernels whose tiles do not fit together keep the Block order, in which
 * buffers can be reused. */
static void hoist_loads(Lower *L, PtoBlock *b) {
  uint64_t bytes[PTO_BUF_NUM_SPACES] = {0};
  PtoOp *at = NULL;
  for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op)) {
    for (unsigned r = 0; r < pto_op_num_results(op); r++) {
      PtoType *t = pto_value_type(pto_op_result(op, r));
      if (pto_type_is_pto_tile(t))
        bytes[pto_pto_tile_space(t)] +=
            pto_align_up((uint64_t)pto_pto_tile_bytes(t),
                         pto_pto_space_alignment(pto_pto_tile_space(t)));
    }
    if (!at && pto_pto_op_pipe(op) != PTO_PIPE_NONE &&
        !is_instr(op, PTO_PTO_TLOAD))
      at = op;
  }
  for (int s = 0; s < PTO_BUF_NUM_SPACES; s++)
    if (bytes[s] > L->platform->buffers[s].size_bytes)
      return;
  if (!at || is_instr(at, PTO_PTO_TSTORE))
    return;
  for (PtoOp *op = pto_op_next(at), *next; op; op = next) {
    next = pto_op_next(op);
    if (is_instr(op, PTO_PTO_TSTORE))
      break;
    if (!is_instr(op, PTO_PTO_TLOAD))
      continue;
    bool ready = true;
    for (unsigned i = 0; i < pto_op_num_operands(op) && ready; i++) {
      PtoOp *def = pto_value_def_op(pto_op_operand(op, i));
      ready = !def || pto_op_block(def) != b ||
              pto_op_is_before_in_block(def, at);
    }
    if (ready) {
      pto_op_move_before(op, at);
      pto_pass_stat_add(L->pass, "num-loads-hoisted", 1);
    }
  }
}

static PtoResult lower_kernel(Lower *L, PtoOp *bk) {
  PtoOpState st;
  pto_op_state_init(&st, L->ctx, "pto.kernel", pto_op_loc(bk));
  static const char *const keep[] = {"sym_name", "function_type", "core",
                                     "sym_visibility"};
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(keep); i++) {
    PtoAttr *a = pto_op_attr(bk, keep[i]);
    if (a)
      pto_op_state_add_attr(&st, keep[i], a);
  }
  pto_op_state_add_region(&st);
  PtoOp *pk = pto_op_create(&st);
  pto_block_insert_before(bk, pk);
  pto_region_take_body(pto_op_region(pk, 0), pto_op_region(bk, 0));
  pto_op_erase(bk);
  PtoResult r = PTO_SUCCESS;
  for (PtoBlock *b = pto_region_first_block(pto_op_region(pk, 0)); b;
       b = pto_block_next(b))
    for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op))
      if ((pto_op_is(op, "block.store") && pto_op_num_operands(op) >= 2) ||
          (pto_op_is(op, "tile.expand") && pto_op_num_operands(op) >= 1) ||
          (pto_lower_indexed_stores(op) && pto_op_num_operands(op) >= 1))
        pto_ptrmap_put(&L->stored, (uint64_t)(uintptr_t)op,
                       pto_value_type(pto_op_operand(op, 0)));
      else if (pto_op_is(op, "tile.dequantize") && pto_op_num_operands(op) == 2)
        pto_ptrmap_put(&L->stored, (uint64_t)(uintptr_t)op,
                       pto_value_type(pto_op_operand(op, 1)));
  for (PtoBlock *b = pto_region_first_block(pto_op_region(pk, 0)); b && !r;
       b = pto_block_next(b))
    for (PtoOp *op = pto_block_first_op(b), *next; op && !r; op = next) {
      next = pto_op_next(op);
      if (pto_op_num_regions(op))
        r = pto_op_emit_error(op, "lower-to-pto: a PTO kernel is "
                                  "straight-line code, and this op has "
                                  "regions; keep loops and branches in the "
                                  "host function, around the launch");
      else
        r = lower_op(L, op);
    }
  if (!r && L->hoist)
    hoist_loads(L, pto_region_first_block(pto_op_region(pk, 0)));
  pto_pass_stat_add(L->pass, "num-kernels", 1);
  return r;
}

static PtoResult run(PtoPass *pass, PtoOp *module) {
  const PtoPtoPassState *st = pto_pass_state(pass);
  Lower L = {pass,
             pto_pass_ctx(pass),
             pto_pass_option_bool(pass, "provenance"),
             pto_pass_option_bool(pass, "hoist-loads"),
             pto_pass_option_int(pass, "k-step"),
             &st->platform,
             {0},
             {0}};
  pto_ptrmap_init(&L.numbers);
  pto_ptrmap_init(&L.stored);
  if (L.provenance) {
    PtoOp **ops;
    unsigned n = pto_origin_ops(module, &ops);
    for (unsigned i = 0; i < n; i++)
      pto_ptrmap_put(&L.numbers, (uint64_t)(uintptr_t)ops[i],
                     (void *)(uintptr_t)(i + 1));
    pto_free(ops);
  }
  PtoResult r = PTO_SUCCESS;
  PtoBlock *body = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = body ? pto_block_first_op(body) : NULL, *next; op && !r;
       op = next) {
    next = pto_op_next(op);
    if (pto_op_is(op, "block.kernel"))
      r = lower_kernel(&L, op);
  }
  pto_ptrmap_release(&L.numbers);
  pto_ptrmap_release(&L.stored);
  return r;
}

static const PtoPassOptionDef options[] = {
    {"k-step", PTO_OPT_INT, "0",
     "walk the K dim of each matmul in steps of this many (the cube tile's "
     "kL0); 0: the whole K at once",
     0, 4095, NULL},
    {"hoist-loads", PTO_OPT_BOOL, "true",
     "issue a kernel's loads before its other instructions when all its "
     "tiles fit their memory spaces together",
     0, 0, NULL},
    PTO_PTO_PLATFORM_OPTION("the capacities that decide hoist-loads"),
    {"provenance", PTO_OPT_BOOL, "false",
     "mark each instruction that computes a Block-level value with "
     "pto.origin (for pto-run --check-levels)",
     0, 0, NULL},
};

static const PtoPassStatDef statistics[] = {
    {"num-kernels", "block.kernels lowered"},
    {"num-matmul-steps", "tmatmul / tmatmul_acc instructions created"},
    {"num-loads-hoisted", "tloads issued before the compute they were after"},
    {"num-colexpand-transposed",
     "column broadcasts computed as row broadcasts between ttrans"},
};

const PtoPassDef pto_lower_to_pto_pass = {
    .argument = "lower-to-pto",
    .summary = "Lower Block kernels to PTO kernels (the PTO level)",
    .anchor = "builtin.module",
    .options = options,
    .num_options = PTO_ARRAY_SIZE(options),
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .create_state = pto_pto_pass_state_create,
    .destroy_state = pto_free,
    .check_options = pto_pto_pass_check_options,
    .level_from = "Block",
    .level_to = "PTO",
    .description =
        "Rewrites each `block.kernel` into a `pto.kernel` with the same "
        "name,\n"
        "core and arguments; the host function and its `block.launch`es "
        "are\n"
        "left as they are. `block.load` becomes `pto.tload` (GM to vec or "
        "mat),\n"
        "`block.store` becomes `pto.tstore` (vec through MTE3, acc through "
        "FIX),\n"
        "and each tile op the vector instruction of the same meaning "
        "(`tile.muls`\n"
        "-> `pto.tmuls`, `tile.rowsum` -> `pto.trowsum`, "
        "`tile.rowexpand_mul` ->\n"
        "`pto.trowexpandmul`, `tile.cast` -> `pto.tcvt`, ...). "
        "`tile.dequantize` is\n"
        "`pto.tcvt` to f32, the scale multiplied in (`pto.trowexpandmul` "
        "per row,\n"
        "`pto.tmul` per element or after a `pto.texpand` / `pto.trepeat` "
        "of the\n"
        "scale into a scratch tile) and a `pto.tcvt` to the result type. A "
        "`tile.matmul` of two mat buffers "
        "becomes\n"
        "`pto.tmov` to left and right and `pto.tmatmul` into acc (with an\n"
        "accumulator operand, `pto.tmatmul_acc` into its buffer). With "
        "`k-step`\n"
        "smaller than K and both operands straight from loads, K is "
        "walked in\n"
        "steps of `k-step` (the cube tile's kL0): each step loads its\n"
        "parts of A and B into mat, moves them to L0A / L0B and "
        "accumulates with\n"
        "`pto.tmatmul_acc`. With `hoist-loads`, when all of a kernel's "
        "tiles fit\n"
        "their memory spaces side by side on the platform, its loads are "
        "issued\n"
        "before its first other instruction (except loads after a store, "
        "or\n"
        "needing a value computed later), so that they overlap and the "
        "compute\n"
        "waits for them once. Tiles are left unplanned (run `memory-plan`) "
        "and\n"
        "unsynchronised (run `insert-sync`). A buffer of another rank "
        "than 2 is\n"
        "the tile of (the product of its leading dims) x (its last dim), "
        "its\n"
        "tload / tstore window given by `sizes` (its rows at one or "
        "several\n"
        "strides of the tensor); a column broadcast is a row\n"
        "broadcast between `pto.ttrans`, and over several planes the broadcast\n"
        "operand's row of each plane repeated down the plane by `pto.trepeat`, then\n"
        "the elementwise instruction (`pto.tadd`, ...); a transpose of more than two "
        "dims, a\n"
        "reshape into another tile and a column reduction of several "
        "planes go\n"
        "through `pto.tpermute`, a broadcast inside the rows through\n"
        "`pto.trepeat`. Tile ops without a PTO instruction are\n"
        "errors at the op.",
};
