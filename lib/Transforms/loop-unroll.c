/* loop-unroll: unrolls scf.for loops with constant bounds and step. Loops
 * of at most `full-unroll-threshold` iterations (or at most `factor`) are
 * replaced by straight-line copies of their body; longer ones get `factor`
 * copies per iteration of a loop with a `factor` times larger step, and an
 * epilogue loop runs the remaining iterations. Loop-carried values flow
 * through the copies. Loops with dynamic bounds are left alone. Inner
 * loops are unrolled before the loops around them. */
#include "Transforms/Passes.h"
#include "pto/Dialects.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

typedef PTO_VEC(PtoOp *) OpVec;
typedef PTO_VEC(PtoValue *) ValueVec;

static PtoWalkResult collect_loops(PtoOp *op, void *user) {
  if (pto_op_is(op, "scf.for")) pto_vec_push((OpVec *)user, op);
  return PTO_WALK_ADVANCE;
}

static int64_t const_value(PtoValue *v) {
  return pto_attr_int_value(pto_value_constant(v));
}

/* Whether v fits the signed range of the loop's bound type. */
static bool fits(PtoType *t, int64_t v) {
  unsigned w = pto_type_bitwidth(t);
  if (w >= 64) return true;
  int64_t lim = (int64_t)1 << (w - 1);
  return v >= -lim && v < lim;
}

/* Copies the body of `loop` (all but its scf.yield) at the builder, with
 * the induction variable `iv` and loop-carried values `vals`; `vals`
 * receives the values the copy yields. */
static void copy_body(PtoBuilder *b, PtoOp *loop, PtoValue *iv,
                      ValueVec *vals) {
  PtoBlock *body = pto_scf_for_body(loop);
  PtoValueMap *map = pto_value_map_create();
  pto_value_map_set(map, pto_scf_for_iv(loop), iv);
  for (unsigned i = 0; i < vals->len; i++)
    pto_value_map_set(map, pto_scf_for_iter_arg(loop, i), vals->data[i]);
  PtoOp *yield = pto_block_last_op(body);
  for (PtoOp *o = pto_block_first_op(body); o != yield; o = pto_op_next(o))
    pto_builder_insert(b, pto_op_clone(o, map));
  for (unsigned i = 0; i < vals->len; i++)
    vals->data[i] = pto_value_map_lookup(map, pto_op_operand(yield, i));
  pto_value_map_destroy(map);
}

static void init_values(PtoOp *loop, ValueVec *vals) {
  for (unsigned i = 0; i < pto_scf_for_num_iter_args(loop); i++)
    pto_vec_push(vals, pto_scf_for_init(loop, i));
}

static void finish(PtoOp *loop, const ValueVec *vals) {
  for (unsigned i = 0; i < pto_op_num_results(loop); i++)
    pto_value_replace_all_uses(pto_op_result(loop, i), vals->data[i]);
  pto_op_erase(loop);
}

/* `tc` copies of the body, the i-th with the constant lb + i * step. */
static void unroll_fully(PtoOp *loop, int64_t tc) {
  PtoBuilder b;
  pto_builder_init(&b, pto_op_ctx(loop));
  pto_builder_set_before(&b, loop);
  b.loc = pto_op_loc(loop);
  PtoValue *lb = pto_scf_for_lower(loop);
  PtoType *t = pto_value_type(lb);
  int64_t lbv = const_value(lb), step = const_value(pto_scf_for_step(loop));
  bool iv_used = pto_value_has_uses(pto_scf_for_iv(loop));
  ValueVec vals = {0};
  init_values(loop, &vals);
  for (int64_t i = 0; i < tc; i++) {
    /* unsigned: i * step may exceed int64 while lb + i * step does not */
    int64_t v = (int64_t)((uint64_t)lbv + (uint64_t)i * (uint64_t)step);
    PtoValue *iv = i == 0 || !iv_used ? lb
                                      : pto_arith_build_constant_int(&b, t, v);
    copy_body(&b, loop, iv, &vals);
  }
  finish(loop, &vals);
  pto_vec_free(&vals);
}

/* A loop like `loop` over [lb, ub) with `step`, whose body the caller
 * fills; it carries `inits` and keeps the loop's attributes. */
static PtoOp *new_loop(PtoBuilder *b, PtoOp *loop, PtoValue *lb, PtoValue *ub,
                       PtoValue *step, const ValueVec *inits) {
  PtoOp *l = pto_scf_build_for(b, lb, ub, step, inits->data, inits->len, NULL);
  for (unsigned i = 0; i < pto_op_num_attrs(loop); i++)
    pto_op_set_attr_id(l, pto_op_attrs(loop)[i].name, pto_op_attrs(loop)[i].value);
  return l;
}

/* Ends the body of `l` with a yield of `vals`; `vals` become its results. */
static void close_loop(PtoOp *l, ValueVec *vals) {
  PtoBuilder b;
  pto_builder_init(&b, pto_op_ctx(l));
  pto_builder_set_block_end(&b, pto_scf_for_body(l));
  b.loc = pto_op_loc(l);
  pto_scf_build_yield(&b, vals->data, vals->len);
  for (unsigned i = 0; i < vals->len; i++) vals->data[i] = pto_op_result(l, i);
}

/* Sets `vals` to the loop's iter args (what a new body starts from). */
static void body_values(PtoOp *l, ValueVec *vals) {
  for (unsigned i = 0; i < vals->len; i++)
    vals->data[i] = pto_scf_for_iter_arg(l, i);
}

/* `factor` copies per iteration of a loop stepping factor * step over the
 * first tc - tc % factor iterations, then an epilogue loop for the rest.
 * Fails (leaving the loop alone) when the new step does not fit the type. */
static bool unroll_by(PtoOp *loop, int64_t tc, int64_t factor) {
  PtoValue *lb = pto_scf_for_lower(loop), *ub = pto_scf_for_upper(loop);
  PtoValue *step = pto_scf_for_step(loop);
  PtoType *t = pto_value_type(lb);
  int64_t lbv = const_value(lb), stepv = const_value(step);
  if (stepv > INT64_MAX / factor || !fits(t, stepv * factor)) return false;
  int64_t rem = tc % factor;
  PtoBuilder b;
  pto_builder_init(&b, pto_op_ctx(loop));
  pto_builder_set_before(&b, loop);
  b.loc = pto_op_loc(loop);
  /* lb + (tc - rem) * step < ub fits when rem > 0; otherwise ub is exact */
  int64_t split_v =
      (int64_t)((uint64_t)lbv + (uint64_t)(tc - rem) * (uint64_t)stepv);
  PtoValue *split = rem ? pto_arith_build_constant_int(&b, t, split_v) : ub;
  PtoValue *big_step = pto_arith_build_constant_int(&b, t, stepv * factor);
  /* copy k runs at iv + k * step (only computed when the body reads iv) */
  bool iv_used = pto_value_has_uses(pto_scf_for_iv(loop));
  PtoValue **offsets = pto_calloc((size_t)factor, sizeof *offsets);
  for (int64_t k = 1; iv_used && k < factor; k++)
    offsets[k] = k == 1 ? step : pto_arith_build_constant_int(&b, t, k * stepv);
  ValueVec vals = {0};
  init_values(loop, &vals);
  PtoOp *main = new_loop(&b, loop, lb, split, big_step, &vals);
  PtoBuilder in;
  pto_builder_init(&in, pto_op_ctx(loop));
  pto_builder_set_block_end(&in, pto_scf_for_body(main));
  in.loc = pto_op_loc(loop);
  body_values(main, &vals);
  for (int64_t k = 0; k < factor; k++) {
    PtoValue *iv = pto_scf_for_iv(main);
    if (offsets[k]) iv = pto_arith_build_binary(&in, "arith.addi", iv, offsets[k]);
    copy_body(&in, loop, iv, &vals);
  }
  close_loop(main, &vals);
  if (rem) {
    pto_builder_set_after(&b, main);
    PtoOp *epi = new_loop(&b, loop, split, ub, step, &vals);
    pto_builder_set_block_end(&in, pto_scf_for_body(epi));
    body_values(epi, &vals);
    copy_body(&in, loop, pto_scf_for_iv(epi), &vals);
    close_loop(epi, &vals);
  }
  finish(loop, &vals);
  pto_vec_free(&vals);
  pto_free(offsets);
  return true;
}

static PtoResult run(PtoPass *pass, PtoOp *root) {
  int64_t factor = pto_pass_option_int(pass, "factor");
  int64_t threshold = pto_pass_option_int(pass, "full-unroll-threshold");
  OpVec loops = {0};
  /* post-order: inner loops first, so outer copies include unrolled code */
  pto_op_walk(root, PTO_WALK_POST, collect_loops, &loops);
  for (uint32_t i = 0; i < loops.len; i++) {
    PtoOp *loop = loops.data[i];
    int64_t tc;
    if (!pto_scf_for_const_trip_count(loop, &tc)) continue;
    if (tc <= threshold || tc <= factor) {
      unroll_fully(loop, tc);
      pto_pass_stat_add(pass, "loops-fully-unrolled", 1);
    } else if (factor > 1 && unroll_by(loop, tc, factor)) {
      pto_pass_stat_add(pass, "loops-unrolled", 1);
    }
  }
  pto_vec_free(&loops);
  return PTO_SUCCESS;
}

static const PtoPassOptionDef options[] = {
    {"factor", PTO_OPT_INT, "4",
     "Copies of the body per iteration of the unrolled loop (1: only full "
     "unrolling below the threshold)",
     1, 1024, NULL},
    {"full-unroll-threshold", PTO_OPT_INT, "1",
     "Unroll loops of at most this many iterations completely", 0, 1 << 20,
     NULL},
};

static const PtoPassStatDef statistics[] = {
    {"loops-unrolled", "Number of loops unrolled by the factor"},
    {"loops-fully-unrolled", "Number of loops replaced by copies of their body"},
};

const PtoPassDef pto_loop_unroll_pass = {
    "loop-unroll",
    "Unroll scf.for loops with constant bounds by a factor, or completely",
    NULL,
    options,
    PTO_ARRAY_SIZE(options),
    statistics,
    PTO_ARRAY_SIZE(statistics),
    run,
    NULL,
    NULL,
    NULL,
    "Unrolls `scf.for` loops whose lower bound, upper bound and step are\n"
    "constants. A loop of at most `full-unroll-threshold` iterations, or of\n"
    "at most `factor`, is replaced by one copy of its body per iteration,\n"
    "the induction variable a constant in each (a loop of zero iterations\n"
    "by its inits). A longer loop becomes a loop over the first\n"
    "`trip - trip % factor` iterations stepping `factor * step`, whose body\n"
    "holds `factor` copies (copy k sees `iv + k * step`), followed by an\n"
    "epilogue loop over the remaining iterations when the trip count is not\n"
    "a multiple of the factor. Loop-carried values (`iter_args`) flow from\n"
    "each copy into the next and through the epilogue. Inner loops are\n"
    "unrolled before the loops around them, and the loops' attributes are\n"
    "kept on the loops that replace them.\n"
    "\n"
    "Left alone: loops with a bound or step that is not a constant, and\n"
    "loops whose step times the factor does not fit the bound type.",
};
