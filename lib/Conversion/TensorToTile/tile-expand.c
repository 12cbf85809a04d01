/* tile-expand: rewrites every Tensor-level (pypto) op into ops on tiles
 * according to its tile shape (`vec_tile` / `cube_tile`, or the pass
 * options), giving Tile-level IR that computes the same functions with
 * unchanged signatures. Composites are decomposed first. Values flow tile
 * to tile between ops with the same tile grid and through GM workspaces
 * otherwise; see lib/Conversion/TensorToTile/ for the expanders and
 * docs/passes/tile-expand.md for the rules. */
#include "Conversion/Passes.h"
#include "Conversion/TensorToTile/TensorToTile.h"

#include "pto/Dialect/PyptoTransforms.h"
#include "pto/Origin.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

#include <string.h>

typedef PTO_VEC(PtoOp *) OpVec;

static PtoResult expand_op(Lowering *t, PtoOp *op) {
  switch (pto_pypto_kind(pto_pypto_op_id(op))) {
  case PTO_PYPTO_KIND_UNARY:
  case PTO_PYPTO_KIND_CAST:
  case PTO_PYPTO_KIND_BINARY:
  case PTO_PYPTO_KIND_SCALAR:
  case PTO_PYPTO_KIND_COMPARE:
  case PTO_PYPTO_KIND_WHERE:
  case PTO_PYPTO_KIND_EXPAND:
  case PTO_PYPTO_KIND_FULL:
  case PTO_PYPTO_KIND_ZEROS:
  case PTO_PYPTO_KIND_RANDOM:
  case PTO_PYPTO_KIND_DEQUANTIZE: return lower_elementwise(t, op);
  case PTO_PYPTO_KIND_REDUCE:
  case PTO_PYPTO_KIND_ARGREDUCE: return lower_reduce(t, op);
  case PTO_PYPTO_KIND_TOPK: return lower_topk(t, op);
  case PTO_PYPTO_KIND_QUANTIZE: return lower_quantize(t, op);
  case PTO_PYPTO_KIND_MATMUL: return lower_matmul(t, op);
  case PTO_PYPTO_KIND_VIEW:
  case PTO_PYPTO_KIND_ASSEMBLE:
  case PTO_PYPTO_KIND_RESHAPE:
  case PTO_PYPTO_KIND_TRANSPOSE:
  case PTO_PYPTO_KIND_CONCAT:
  case PTO_PYPTO_KIND_DIM:
  case PTO_PYPTO_KIND_LOAD_SCALAR:
  case PTO_PYPTO_KIND_BITCAST: return lower_shape(t, op);
  case PTO_PYPTO_KIND_GATHER:
  case PTO_PYPTO_KIND_INDEX_SELECT:
  case PTO_PYPTO_KIND_SCATTER: return lower_index(t, op);
  case PTO_PYPTO_KIND_SOFTMAX:
  case PTO_PYPTO_KIND_RMS_NORM:
  case PTO_PYPTO_KIND_LAYER_NORM:
  case PTO_PYPTO_KIND_QUANT_MX:
  case PTO_PYPTO_KIND_SCALED_MM: break; /* decomposed before */
  /* pass_verify_print/save act in the Tensor-level run of pass
   * verification only (docs/dialects/pypto.md): the Tile level drops them */
  case PTO_PYPTO_KIND_DEBUG: return PTO_SUCCESS;
  }
  return lower_error(t, "has no tile expansion");
}

/* Operands of a non-pypto op that are tensor-level values become their GM
 * forms (func.return, scf.yield, scf.for's inits, calls, ...). */
static void use_gm_operands(Lowering *t, PtoOp *op) {
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoValue *v = pto_op_operand(op, i);
    LoweredValue *tv = pto_ptrmap_get(&t->vals, (uint64_t)(uintptr_t)v);
    if (!tv) continue;
    PtoValue *gm = lower_gm(t, tv);
    if (gm != v) pto_op_set_operand(op, i, gm);
  }
}

static PtoResult expand_block(Lowering *t, PtoBlock *b, OpVec *done);

static PtoResult expand_regions(Lowering *t, PtoOp *op, OpVec *done) {
  for (unsigned r = 0; r < pto_op_num_regions(op); r++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(op, r)); b;
         b = pto_block_next(b))
      if (expand_block(t, b, done)) return PTO_FAILURE;
  return PTO_SUCCESS;
}

static PtoResult expand_block(Lowering *t, PtoBlock *b, OpVec *done) {
  for (PtoOp *op = pto_block_first_op(b), *next; op; op = next) {
    next = pto_op_next(op);
    if (pto_pypto_op_id(op) == PTO_PYPTO_NONE) {
      use_gm_operands(t, op);
      if (t->failed || expand_regions(t, op, done)) return PTO_FAILURE;
      continue;
    }
    t->op = op;
    t->label = pto_op_attr_id(op, t->id_label);
    int64_t n = (int64_t)(intptr_t)pto_ptrmap_get(&t->ordinals,
                                                  (uint64_t)(uintptr_t)op);
    t->origin = n - 1;
    pto_builder_set_before(&t->b, op);
    t->b.loc = pto_op_loc(op);
    if (expand_op(t, op) || t->failed) return PTO_FAILURE;
    pto_vec_push(done, op);
    pto_pass_stat_add(t->pass, "tensor-ops", 1);
  }
  return PTO_SUCCESS;
}

static PtoWalkResult collect_composites(PtoOp *op, void *user) {
  if (pto_pypto_is_composite(pto_pypto_op_id(op))) pto_vec_push((OpVec *)user, op);
  return PTO_WALK_ADVANCE;
}

/* Numbers the ops as pto_origin_ops does, then decomposes the
 * composites: the op producing a composite's result takes its number. */
static PtoResult prepare(Lowering *t, PtoOp *module) {
  if (t->provenance) {
    PtoOp **ops;
    unsigned n = pto_origin_ops(module, &ops);
    for (unsigned i = 0; i < n; i++)
      pto_ptrmap_put(&t->ordinals, (uint64_t)(uintptr_t)ops[i],
                     (void *)(intptr_t)(i + 1));
    pto_free(ops);
  }
  OpVec comps = {0};
  pto_op_walk(module, PTO_WALK_POST, collect_composites, &comps);
  PtoResult r = PTO_SUCCESS;
  for (uint32_t i = 0; i < comps.len && !r; i++) {
    PtoOp *op = comps.data[i];
    void *n = pto_ptrmap_get(&t->ordinals, (uint64_t)(uintptr_t)op);
    PtoValue *y = pto_pypto_decompose(op);
    if (!y) {
      r = PTO_FAILURE;
      break;
    }
    pto_ptrmap_remove(&t->ordinals, (uint64_t)(uintptr_t)op);
    if (n && pto_value_def_op(y))
      pto_ptrmap_put(&t->ordinals, (uint64_t)(uintptr_t)pto_value_def_op(y), n);
  }
  pto_vec_free(&comps);
  return r;
}

static PtoResult expand_func(Lowering *t, PtoOp *func) {
  PtoBlock *entry = pto_region_first_block(pto_op_region(func, 0));
  if (!entry) return PTO_SUCCESS; /* a declaration */
  lower_begin_func(t, entry);
  OpVec done = {0};
  PtoResult r = expand_regions(t, func, &done);
  if (!r) {
    /* Consumers first, so that no erased op still has uses. */
    for (uint32_t i = done.len; i-- > 0;) {
      PtoOp *op = done.data[i];
      for (unsigned k = 0; k < pto_op_num_results(op); k++)
        if (pto_value_has_uses(pto_op_result(op, k))) {
          PtoOp *user = pto_use_owner(pto_value_first_use(pto_op_result(op, k)));
          t->op = op;
          r = lower_error(t, "result #%u is still used by '%s' after tile "
                          "expansion",
                       k, pto_op_name_str(user));
          break;
        }
      if (r) break;
      pto_op_erase(op);
    }
  }
  pto_vec_free(&done);
  return r;
}

static PtoResult run(PtoPass *pass, PtoOp *module) {
  Lowering t;
  lower_init(&t, pass);
  t.nvec_default = pto_pass_option_list(pass, "vec-tile", t.vec_default, 4);
  pto_pass_option_list(pass, "cube-tile", t.cube_default, 6);
  t.provenance = pto_pass_option_bool(pass, "provenance");
  t.max_tiles = pto_pass_option_int(pass, "max-tiles");
  PtoResult r = prepare(&t, module);
  for (PtoBlock *b = pto_region_first_block(pto_op_region(module, 0));
       b && !r; b = pto_block_next(b))
    for (PtoOp *op = pto_block_first_op(b); op && !r; op = pto_op_next(op))
      if (pto_op_is(op, "func.func")) r = expand_func(&t, op);
  for (unsigned i = 0; i < PTO_TILE_NUM_OPS; i++)
    if (t.counts[i]) pto_pass_stat_add(pass, pto_tile_mnemonic(i), t.counts[i]);
  lower_release(&t);
  return r;
}

static PtoResult check_options(PtoPass *pass, PtoLoc *loc) {
  PtoErrSite site = {pto_pass_ctx(pass), loc, ""};
  int64_t v[8];
  unsigned n = pto_pass_option_list(pass, "vec-tile", v, 8);
  if (pto_tuning_check_vec_tile(&site, "option 'vec-tile'", v, n))
    return PTO_FAILURE;
  n = pto_pass_option_list(pass, "cube-tile", v, 8);
  if (n != 6)
    return pto_site_error(&site, "option 'cube-tile' must have 6 entries "
                                 "(mL0,mL1,kL0,kL1,nL0,nL1), got %u",
                          n);
  return pto_tuning_check_cube_tile(&site, "option 'cube-tile'", v);
}

static const PtoPassOptionDef options[] = {
    {"vec-tile", PTO_OPT_INT_LIST, "32,32",
     "tile shape of vector ops without a vec_tile attribute (1 to 4 sizes for "
     "the trailing dims)",
     0, 0, NULL},
    {"cube-tile", PTO_OPT_INT_LIST, "16,16,64,64,64,64",
     "cube tile of matmuls without a cube_tile attribute: mL0,mL1,kL0,kL1,"
     "nL0,nL1",
     0, 0, NULL},
    {"max-tiles", PTO_OPT_INT, "262144",
     "most tiles one Tensor-level op may expand into (result tiles, input "
     "tiles of a reduction, matmul steps); a larger expansion is an error at "
     "the op",
     1, INT64_MAX, NULL},
    {"provenance", PTO_OPT_BOOL, "false",
     "mark each tile op producing a final tile of a Tensor-level result with "
     "pto.origin (for pto-run --check-levels)",
     0, 0, NULL},
};

static const PtoPassStatDef statistics[] = {
    {"tensor-ops", "pypto ops expanded"},
#define TILE_OP(ID, MN, KIND, DT, NOP, NRES, TR, AFF, KERNEL, SUM) \
  {MN, "tile." MN " ops created"},
#include "pto/Dialect/TileOps.def"
};

const PtoPassDef pto_tile_expand_pass = {
    .argument = "tile-expand",
    .summary = "Expand Tensor-level ops into ops on tiles (the Tile level)",
    .anchor = "builtin.module",
    .options = options,
    .num_options = PTO_ARRAY_SIZE(options),
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .check_options = check_options,
    .level_from = "Tensor",
    .level_to = "Tile",
    .description =
        "Rewrites every `pypto` op of every function into `tile` ops\n"
        "(docs/dialects/tile.md) that compute the same values, so that no\n"
        "pypto op remains and function signatures (tensors in GM) do not\n"
        "change. The composites softmax, rms_norm and layer_norm are first\n"
        "split as `decompose` splits them.\n"
        "\n"
        "Each op is tiled by its `vec_tile` (vector ops) or `cube_tile`\n"
        "(matmul) attribute, else by the `vec-tile` / `cube-tile` options. A\n"
        "vec tile gives the sizes of the trailing dims (leading dims are\n"
        "tiled by 1); extra leading entries of a `vec_tile` or of the option,\n"
        "beyond the tensor's rank, are ignored (as PyPTO does). Edge\n"
        "tiles of a dim the tile size does not divide get their exact smaller\n"
        "shape; a tile size larger than its dim is clamped to the dim (one\n"
        "tile covers it). Elementwise ops tile their result; operands with size-1 dims\n"
        "the result broadcasts read 1-sized tiles, combined with\n"
        "`rowexpand_*` / `colexpand_*` ops where they apply and `tile.expand`\n"
        "otherwise. Reductions over the last dim use the row forms\n"
        "(`tile.rowsum`, `tile.rowargmax`, ...), over the second-to-last the\n"
        "column forms; over any other dim the tile extent along it is 1 and the\n"
        "slices are combined elementwise. The partial results of the tiles\n"
        "along the reduced dim are combined by a balanced tree of tile ops in\n"
        "index order (`add`, `maximum`, `argmax_combine`, ...). topk sorts each\n"
        "tile (`tile.topk`) and merges the sorted lists (`tile.topk_merge`);\n"
        "quantize takes a max tree of `rowmax` partials for the scales. matmul\n"
        "tiles M and N by the L1 sizes mL1 and nL1, one tile per batch index,\n"
        "and walks K in kL1 steps, accumulating into the tile (`tile.matmul`\n"
        "with an accumulator operand, in the accumulation type until the last\n"
        "step).\n"
        "\n"
        "A consumer whose tile is exactly a tile of its producer's grid uses\n"
        "it directly, with no round trip through GM. Otherwise the producer's\n"
        "tiles are assembled once into a workspace (`tile.empty` +\n"
        "`tile.assemble`, placed right after the producer) and the consumer\n"
        "views the tiles it needs (`tile.view`); results that leave the Tile\n"
        "level (returned, yielded by loops, passed to calls) are assembled the\n"
        "same way. `pypto.view` is read through: its consumers view the source\n"
        "at the combined offsets, with `arith.addi` on index values for dynamic\n"
        "offsets, inside the loop that computes them. `pypto.assemble`,\n"
        "`concat` and `scatter_update` write tiles into GM tensors; `reshape`\n"
        "becomes `tile.tensor_reshape`.\n"
        "\n"
        "Compute ops need static shapes: an op with a dynamic dim fails with\n"
        "`dim N is dynamic and no enclosing scf.for iterates it; take a static\n"
        "view inside a loop (pypto.loop) or give the dim a static size`. Tile\n"
        "ops carry the Tensor op's `label` and location. With `provenance`,\n"
        "each tile op producing a final tile of a Tensor-level result records\n"
        "it in `pto.origin`, which `pto-run --check-levels` uses to name the\n"
        "first tile that differs from the Tensor level.",
};
