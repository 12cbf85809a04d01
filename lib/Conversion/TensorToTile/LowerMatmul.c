/* tile-expand of matmul: the result is tiled by the L1 sizes of the cube
 * tile (mL1 x nL1 per batch index), and each result tile walks K in kL1
 * steps, accumulating into the tile (tile.matmul with an accumulator
 * operand). Partial products are kept in the accumulation type; the last
 * step produces the result's element type. Batch dims broadcast as in
 * pypto.matmul; transposed operands are read as transposed tiles. The L0
 * sizes are for the passes that move tiles into L0. A dequantising matmul
 * keeps its i32 sums to the end and leaves each result tile through vector
 * ops: cast to f32, times the scale (a constant, or the scale's [1, nL1]
 * tile broadcast down the rows), relu when asked, cast to the result. */
#include "TensorToTile.h"

#include <string.h>

/* The cube tile of the current op, or the pass default. */
static void cube_tile(Lowering *t, int64_t v[6]) {
  if (!pto_tuning_cube_tile(t->op, v)) memcpy(v, t->cube_default, 6 * sizeof *v);
}

/* Window of a matmul operand for result batch index `boffs` (result batch
 * rank rb) and matrix rows/cols at (r0, c0) of size (rs, cs). */
static PtoValue *operand_tile(Lowering *t, LoweredValue *v, const int64_t *boffs,
                              unsigned rb, int64_t r0, int64_t rs, int64_t c0,
                              int64_t cs) {
  unsigned R = pto_type_tensor_rank(v->type), ob = R - 2;
  int64_t o[PTO_MAX_RANK], s[PTO_MAX_RANK];
  for (unsigned j = 0; j < ob; j++) {
    unsigned i = j + rb - ob;
    o[j] = pto_type_tensor_dim(v->type, j) == 1 ? 0 : boffs[i];
    s[j] = 1;
  }
  o[ob] = r0;
  s[ob] = rs;
  o[ob + 1] = c0;
  s[ob + 1] = cs;
  return lower_get_tile_at(t, v, o, s, 2);
}

/* The way out of a result tile `sum` (i32 sums when dequantising). */
static PtoValue *epilogue(Lowering *t, PtoOp *op, PtoValue *sum, int64_t n0, int64_t ns,
                          PtoType *out) {
  double s;
  PtoValue *st = pto_pypto_get_scale_tensor(op);
  bool scaled = st || pto_pypto_get_scale(op, &s);
  PtoType *ty = pto_value_type(sum);
  int64_t shape[2] = {pto_tile_dim(ty, 0), pto_tile_dim(ty, 1)};
  if (scaled) {
    PtoType *f32 = pto_type_f32(t->ctx), *tf = pto_tile_type(t->ctx, shape, 2, f32);
    sum = lower_emit(t, PTO_TILE_CAST, &sum, 1, tf, NULL, 0);
    if (st) {
      int64_t o[2] = {0, n0}, z[2] = {1, ns};
      PtoValue *sc = lower_get_tile_at(t, lower_lookup(t, st), o, z, 2);
      sum = lower_binary(t, PTO_TILE_MUL, sum, sc, tf);
    } else {
      PtoValue *ops[2] = {sum, lower_const_scalar(t, f32, (float)s, 0)};
      sum = lower_emit(t, PTO_TILE_MULS, ops, 2, tf, NULL, 0);
    }
  }
  if (pto_pypto_get_relu(op))
    sum = lower_emit(t, PTO_TILE_RELU, &sum, 1, pto_value_type(sum), NULL, 0);
  if (pto_tile_elem(pto_value_type(sum)) != out)
    sum = lower_emit(t, PTO_TILE_CAST, &sum, 1, pto_tile_type(t->ctx, shape, 2, out), NULL, 0);
  return sum;
}

PtoResult lower_matmul(Lowering *t, PtoOp *op) {
  PtoValue *a = pto_op_operand(op, 0), *b = pto_op_operand(op, 1);
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  if (lower_require_static(t, pto_value_type(a), "operand #0") ||
      lower_require_static(t, pto_value_type(b), "operand #1") ||
      lower_require_static(t, rt, NULL))
    return PTO_FAILURE;
  bool at = pto_pypto_get_a_trans(op), bt = pto_pypto_get_b_trans(op);
  PtoType *acc = pto_pypto_get_acc_dtype(op), *out = pto_type_tensor_elem(rt);
  double scale;
  bool dequant = pto_pypto_get_scale_tensor(op) || pto_pypto_get_scale(op, &scale);
  bool relu = pto_pypto_get_relu(op);
  PtoType *ta = pto_value_type(a);
  unsigned R = pto_type_tensor_rank(rt), Ra = pto_type_tensor_rank(ta), rb = R - 2;
  int64_t K = pto_type_tensor_dim(ta, at ? Ra - 2 : Ra - 1);
  int64_t cube[6];
  cube_tile(t, cube);
  int64_t mL1 = cube[1], kL1 = cube[3], nL1 = cube[5];

  int64_t tsize[PTO_MAX_RANK];
  for (unsigned i = 0; i < rb; i++) tsize[i] = 1;
  tsize[rb] = mL1;
  tsize[rb + 1] = nL1;
  LoweredValue *res = lower_new_grid(t, rt, tsize, 2);
  /* each result tile takes one matmul per kL1 step */
  int64_t ksteps = kL1 > 0 ? (K + kL1 - 1) / kL1 : 1;
  if (lower_check_tiles(t, res->grid.count, res->grid.rank, ksteps > 0 ? ksteps : 1))
    return PTO_FAILURE;
  LoweredValue *av = lower_lookup(t, a), *bv = lower_lookup(t, b);

  PtoNamedAttr attrs[3];
  unsigned na = 0;
  if (at) attrs[na++] = (PtoNamedAttr){t->id_a_trans, pto_attr_unit(t->ctx)};
  if (bt) attrs[na++] = (PtoNamedAttr){t->id_b_trans, pto_attr_unit(t->ctx)};
  PtoAttr *acc_attr = pto_op_attr_id(op, t->id_acc_dtype);
  if (acc_attr) attrs[na++] = (PtoNamedAttr){t->id_acc_dtype, acc_attr};

  int64_t offs[PTO_MAX_RANK], sizes[PTO_MAX_RANK];
  for (int64_t k = 0; k < res->grid.ntiles; k++) {
    lower_cell(&res->grid, k, offs, sizes);
    int64_t m0 = offs[rb], ms = sizes[rb], n0 = offs[rb + 1], ns = sizes[rb + 1];
    PtoValue *sum = NULL;
    for (int64_t k0 = 0; k0 < K; k0 += kL1) {
      int64_t ks = K - k0 < kL1 ? K - k0 : kL1;
      PtoValue *ops[3];
      ops[0] = at ? operand_tile(t, av, offs, rb, k0, ks, m0, ms)
                  : operand_tile(t, av, offs, rb, m0, ms, k0, ks);
      ops[1] = bt ? operand_tile(t, bv, offs, rb, n0, ns, k0, ks)
                  : operand_tile(t, bv, offs, rb, k0, ks, n0, ns);
      ops[2] = sum;
      bool last = k0 + ks >= K;
      int64_t shape[2] = {ms, ns};
      PtoType *ty = pto_tile_type(t->ctx, shape, 2, last && !dequant ? out : acc);
      sum = lower_emit(t, PTO_TILE_MATMUL, ops, sum ? 3 : 2, ty, attrs, na);
    }
    res->grid.tiles[k] = dequant || relu ? epilogue(t, op, sum, n0, ns, out) : sum;
  }
  lower_mark_grid(t, res, 0);
  lower_bind(t, pto_op_result(op, 0), res);
  return PTO_SUCCESS;
}
