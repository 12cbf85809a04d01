/* Canonicalization patterns of arith (the rewrites a fold cannot express
 * because they create ops or change one in place): constants to the right
 * of comparisons, reassociation of constant chains of addi/subi/muli, and
 * merging of extension/truncation chains. */
#include "Dialect/Arith/Arith.h"
#include "pto/Pass.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static PtoAttr *const_int(PtoValue *v) {
  PtoAttr *a = pto_value_constant(v);
  return a && pto_attr_kind(a) == PTO_ATTR_INTEGER ? a : NULL;
}

static PtoValue *create1(PtoRewriter *rw, const char *name, PtoValue *const *ops,
                         unsigned n, PtoType *t, PtoLoc *loc) {
  PtoOpState st;
  pto_op_state_init(&st, pto_rewriter_ctx(rw), name, loc);
  pto_op_state_add_operands(&st, ops, n);
  pto_op_state_add_result(&st, t);
  return pto_op_result(pto_rewriter_create(rw, &st), 0);
}

static PtoValue *create_binary(PtoRewriter *rw, const char *name, PtoValue *a,
                               PtoValue *b, PtoLoc *loc) {
  PtoValue *ops[2] = {a, b};
  return create1(rw, name, ops, 2, pto_value_type(a), loc);
}

static PtoValue *create_const(PtoRewriter *rw, PtoType *t, uint64_t v,
                              PtoLoc *loc) {
  PtoContext *ctx = pto_rewriter_ctx(rw);
  PtoOpState st;
  pto_op_state_init(&st, ctx, "arith.constant", loc);
  pto_op_state_add_attr(&st, "value", pto_attr_int(ctx, t, (int64_t)v));
  pto_op_state_add_result(&st, t);
  return pto_op_result(pto_rewriter_create(rw, &st), 0);
}

static void replace(PtoRewriter *rw, PtoOp *op, PtoValue *v) {
  pto_rewriter_replace_op(rw, op, &v);
}

/* ------------------------------------------------------------------ */
/* Constants to the right                                               */
/* ------------------------------------------------------------------ */

/* (Commutative ops need no pattern: the fold step of the rewrite driver
 * puts constant operands of every COMMUTATIVE op last.) */

/* `cmpi slt, c, x` is `cmpi sgt, x, c`. */
static PtoResult cmpi_constant_to_right(PtoOp *op, PtoRewriter *rw,
                                        void *user) {
  static const int64_t swapped[] = {
      PTO_CMPI_EQ,  PTO_CMPI_NE,  PTO_CMPI_SGT, PTO_CMPI_SGE, PTO_CMPI_SLT,
      PTO_CMPI_SLE, PTO_CMPI_UGT, PTO_CMPI_UGE, PTO_CMPI_ULT, PTO_CMPI_ULE};
  int64_t pred = pto_op_attr_int(op, "predicate", -1);
  if (pred < 0 || pred > PTO_CMPI_UGE) return PTO_FAILURE;
  PtoValue *l = pto_op_operand(op, 0), *r = pto_op_operand(op, 1);
  if (!pto_value_constant(l) || pto_value_constant(r)) return PTO_FAILURE;
  pto_op_set_operand(op, 0, r);
  pto_op_set_operand(op, 1, l);
  pto_op_set_attr(op, "predicate",
                  pto_attr_i64(pto_rewriter_ctx(rw), swapped[pred]));
  pto_rewriter_notify_modified(rw, op);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Reassociation of constants                                           */
/* ------------------------------------------------------------------ */

/* A value of the form `x + c` / `x - c` / `c - x` / `x * c`. */
typedef enum { FORM_NONE, FORM_ADD, FORM_SUB_RHS, FORM_SUB_LHS, FORM_MUL } Form;

static Form form_of(PtoValue *v, PtoValue **x, uint64_t *c) {
  PtoOp *d = pto_value_def_op(v);
  int id = d ? pto_arith_op_id(d) : -1;
  if (id != ARITH_ADDI && id != ARITH_SUBI && id != ARITH_MULI)
    return FORM_NONE;
  PtoValue *a = pto_op_operand(d, 0), *b = pto_op_operand(d, 1);
  PtoAttr *ca = const_int(a), *cb = const_int(b);
  if ((ca != NULL) == (cb != NULL)) return FORM_NONE;
  *x = cb ? a : b;
  *c = (uint64_t)pto_attr_int_value(cb ? cb : ca);
  switch (id) {
  case ARITH_ADDI: return FORM_ADD;
  case ARITH_MULI: return FORM_MUL;
  case ARITH_SUBI: return cb ? FORM_SUB_RHS : FORM_SUB_LHS;
  default: return FORM_NONE;
  }
}

/* Rewrites op to `x <name> c` or `c <name> x` (c folded at the width). */
static void rewrite_to(PtoRewriter *rw, PtoOp *op, const char *name,
                       PtoValue *x, uint64_t c, bool const_first) {
  PtoLoc *loc = pto_op_loc(op);
  PtoValue *cv = create_const(rw, pto_value_type(x), c, loc);
  replace(rw, op, const_first ? create_binary(rw, name, cv, x, loc)
                              : create_binary(rw, name, x, cv, loc));
}

/* addi(addi(x, c1), c2) -> addi(x, c1 + c2), and the mixes with subi. */
static PtoResult addi_constants(PtoOp *op, PtoRewriter *rw, void *user) {
  PtoAttr *c2a = const_int(pto_op_operand(op, 1));
  PtoValue *inner = pto_op_operand(op, 0);
  if (!c2a) {
    c2a = const_int(inner);
    inner = pto_op_operand(op, 1);
  }
  if (!c2a || const_int(inner)) return PTO_FAILURE;
  uint64_t c1, c2 = (uint64_t)pto_attr_int_value(c2a);
  PtoValue *x;
  switch (form_of(inner, &x, &c1)) {
  case FORM_ADD: rewrite_to(rw, op, "arith.addi", x, c1 + c2, false); break;
  case FORM_SUB_RHS: rewrite_to(rw, op, "arith.addi", x, c2 - c1, false); break;
  case FORM_SUB_LHS: rewrite_to(rw, op, "arith.subi", x, c1 + c2, true); break;
  default: return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

/* subi with a constant on one side and a constant chain on the other. */
static PtoResult subi_constants(PtoOp *op, PtoRewriter *rw, void *user) {
  PtoValue *l = pto_op_operand(op, 0), *r = pto_op_operand(op, 1), *x;
  PtoAttr *cl = const_int(l), *cr = const_int(r);
  if ((cl != NULL) == (cr != NULL)) return PTO_FAILURE;
  uint64_t c1, c2 = (uint64_t)pto_attr_int_value(cl ? cl : cr);
  Form f = form_of(cl ? r : l, &x, &c1);
  if (cr) { /* (inner) - c2 */
    switch (f) {
    case FORM_ADD: rewrite_to(rw, op, "arith.addi", x, c1 - c2, false); break;
    case FORM_SUB_RHS: rewrite_to(rw, op, "arith.subi", x, c1 + c2, false); break;
    case FORM_SUB_LHS: rewrite_to(rw, op, "arith.subi", x, c1 - c2, true); break;
    default: return PTO_FAILURE;
    }
  } else { /* c2 - (inner) */
    switch (f) {
    case FORM_ADD: rewrite_to(rw, op, "arith.subi", x, c2 - c1, true); break;
    case FORM_SUB_RHS: rewrite_to(rw, op, "arith.subi", x, c2 + c1, true); break;
    case FORM_SUB_LHS: rewrite_to(rw, op, "arith.addi", x, c2 - c1, false); break;
    default: return PTO_FAILURE;
    }
  }
  return PTO_SUCCESS;
}

/* muli(muli(x, c1), c2) -> muli(x, c1 * c2) */
static PtoResult muli_constants(PtoOp *op, PtoRewriter *rw, void *user) {
  PtoAttr *c2a = const_int(pto_op_operand(op, 1));
  PtoValue *inner = pto_op_operand(op, 0), *x;
  if (!c2a) {
    c2a = const_int(inner);
    inner = pto_op_operand(op, 1);
  }
  uint64_t c1;
  if (!c2a || const_int(inner) || form_of(inner, &x, &c1) != FORM_MUL)
    return PTO_FAILURE;
  rewrite_to(rw, op, "arith.muli", x, c1 * (uint64_t)pto_attr_int_value(c2a),
             false);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Extension and truncation chains                                      */
/* ------------------------------------------------------------------ */

static PtoOp *def_with_id(PtoValue *v, int id) {
  PtoOp *d = pto_value_def_op(v);
  return d && pto_arith_op_id(d) == id ? d : NULL;
}

/* extsi(extsi(x)) -> extsi(x) */
static PtoResult extsi_of_extsi(PtoOp *op, PtoRewriter *rw, void *user) {
  PtoOp *inner = def_with_id(pto_op_operand(op, 0), ARITH_EXTSI);
  if (!inner) return PTO_FAILURE;
  PtoValue *x = pto_op_operand(inner, 0);
  replace(rw, op, create1(rw, "arith.extsi", &x, 1,
                          pto_value_type(pto_op_result(op, 0)), pto_op_loc(op)));
  return PTO_SUCCESS;
}

/* trunci(trunci(x)) -> trunci(x); trunci(extsi(x)) -> extsi(x) or trunci(x)
 * by how the widths compare (equal widths fold to x). */
static PtoResult trunci_of_cast(PtoOp *op, PtoRewriter *rw, void *user) {
  PtoValue *in = pto_op_operand(op, 0);
  PtoOp *inner = def_with_id(in, ARITH_TRUNCI);
  if (!inner) inner = def_with_id(in, ARITH_EXTSI);
  if (!inner) return PTO_FAILURE;
  PtoValue *x = pto_op_operand(inner, 0);
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  unsigned wx = pto_type_bitwidth(pto_value_type(x)), wt = pto_type_bitwidth(t);
  if (wx == wt) return PTO_FAILURE; /* the fold returns x */
  const char *name = wt < wx ? "arith.trunci" : "arith.extsi";
  replace(rw, op, create1(rw, name, &x, 1, t, pto_op_loc(op)));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Hooks                                                                */
/* ------------------------------------------------------------------ */

#define ADD(root, fn) pto_pattern_set_add(set, root, 1, fn, NULL, #fn)

void pto_arith_canon_addi(void *set, PtoContext *ctx) {
  ADD("arith.addi", addi_constants);
}
void pto_arith_canon_subi(void *set, PtoContext *ctx) {
  ADD("arith.subi", subi_constants);
}
void pto_arith_canon_muli(void *set, PtoContext *ctx) {
  ADD("arith.muli", muli_constants);
}
void pto_arith_canon_cmpi(void *set, PtoContext *ctx) {
  ADD("arith.cmpi", cmpi_constant_to_right);
}
void pto_arith_canon_extsi(void *set, PtoContext *ctx) {
  ADD("arith.extsi", extsi_of_extsi);
}
void pto_arith_canon_trunci(void *set, PtoContext *ctx) {
  ADD("arith.trunci", trunci_of_cast);
}
