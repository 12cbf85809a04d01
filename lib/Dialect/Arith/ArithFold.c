/* Folding of arith ops: constant evaluation with the exact semantics of
 * each op (two's complement wrap-around at the type's width, the rounding
 * of each division, IEEE results rounded once to the result's precision),
 * and algebraic identities that return an existing value. Division by
 * zero and signed overflow of a division are left for run time. */
#include "Dialect/Arith/Arith.h"

#include <math.h>

static PtoResult to_attr(PtoFoldResult *r, PtoAttr *a) {
  r[0].attr = a;
  r[0].value = NULL;
  return PTO_SUCCESS;
}

static PtoResult to_value(PtoFoldResult *r, PtoValue *v) {
  r[0].attr = NULL;
  r[0].value = v;
  return PTO_SUCCESS;
}

static bool is_int(const PtoAttr *a) {
  return a && pto_attr_kind(a) == PTO_ATTR_INTEGER;
}
static bool is_float(const PtoAttr *a) {
  return a && pto_attr_kind(a) == PTO_ATTR_FLOAT;
}
/* The integer constant `a` has the bit pattern of `v` at `width` bits. */
static bool int_is(const PtoAttr *a, int64_t v, unsigned width) {
  return is_int(a) &&
         pto_int_zext(pto_attr_int_value(a), width) == pto_int_zext(v, width);
}
static bool float_is(const PtoAttr *a, double v) {
  if (!is_float(a)) return false;
  double x = pto_attr_float_value(a);
  return x == v && signbit(x) == signbit(v);
}

/* The op defining `v` if it is `name`. */
static PtoOp *def_of(PtoValue *v, int id) {
  PtoOp *d = pto_value_def_op(v);
  return d && pto_arith_op_id(d) == id ? d : NULL;
}

static int64_t smin_of(unsigned w) {
  return pto_int_sext((int64_t)((uint64_t)1 << (w - 1)), w);
}
static int64_t smax_of(unsigned w) {
  return w >= 64 ? INT64_MAX : (int64_t)(((uint64_t)1 << (w - 1)) - 1);
}

/* ------------------------------------------------------------------ */
/* Integer arithmetic                                                   */
/* ------------------------------------------------------------------ */

/* Evaluates a binary integer op at `w` bits; false when the result is not
 * defined (division by zero, overflow of a signed division). */
static bool eval_int(int id, int64_t a, int64_t b, unsigned w, int64_t *out) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  int64_t sa = pto_int_sext(a, w), sb = pto_int_sext(b, w);
  uint64_t za = pto_int_zext(a, w), zb = pto_int_zext(b, w);
  bool overflow = sa == smin_of(w) && sb == -1;
  switch (id) {
  case ARITH_ADDI: *out = (int64_t)(ua + ub); return true;
  case ARITH_SUBI: *out = (int64_t)(ua - ub); return true;
  case ARITH_MULI: *out = (int64_t)(ua * ub); return true;
  case ARITH_DIVUI:
    if (zb == 0) return false;
    *out = (int64_t)(za / zb);
    return true;
  case ARITH_REMSI:
    if (sb == 0) return false;
    *out = sb == -1 ? 0 : sa % sb; /* INT_MIN % -1 is 0, not a trap */
    return true;
  case ARITH_DIVSI:
  case ARITH_FLOORDIVSI:
  case ARITH_CEILDIVSI: {
    if (sb == 0 || overflow) return false;
    int64_t q = sa / sb; /* truncates toward zero */
    bool inexact = sa % sb != 0, neg = (sa < 0) != (sb < 0);
    if (id == ARITH_FLOORDIVSI && inexact && neg) q--;
    if (id == ARITH_CEILDIVSI && inexact && !neg) q++;
    *out = q;
    return true;
  }
  case ARITH_MINSI: *out = sa < sb ? sa : sb; return true;
  case ARITH_MAXSI: *out = sa > sb ? sa : sb; return true;
  default: return false;
  }
}

static PtoResult fold_int_binary(PtoOp *op, int id, PtoAttr *const *c,
                                 PtoFoldResult *r) {
  PtoContext *ctx = pto_op_ctx(op);
  PtoValue *x = pto_op_operand(op, 0), *y = pto_op_operand(op, 1);
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  unsigned w = pto_type_bitwidth(t);
  int64_t v;
  if (is_int(c[0]) && is_int(c[1]) &&
      eval_int(id, pto_attr_int_value(c[0]), pto_attr_int_value(c[1]), w, &v))
    return to_attr(r, pto_attr_int(ctx, t, v));
  switch (id) {
  case ARITH_ADDI: {
    if (int_is(c[1], 0, w)) return to_value(r, x);
    if (int_is(c[0], 0, w)) return to_value(r, y);
    /* (a - b) + b = a and b + (a - b) = a */
    PtoOp *s = def_of(x, ARITH_SUBI);
    if (s && pto_op_operand(s, 1) == y) return to_value(r, pto_op_operand(s, 0));
    s = def_of(y, ARITH_SUBI);
    if (s && pto_op_operand(s, 1) == x) return to_value(r, pto_op_operand(s, 0));
    return PTO_FAILURE;
  }
  case ARITH_SUBI: {
    if (int_is(c[1], 0, w)) return to_value(r, x);
    if (x == y) return to_attr(r, pto_attr_int(ctx, t, 0));
    /* (a + b) - b = a and (a + b) - a = b */
    PtoOp *a = def_of(x, ARITH_ADDI);
    if (a && pto_op_operand(a, 1) == y) return to_value(r, pto_op_operand(a, 0));
    if (a && pto_op_operand(a, 0) == y) return to_value(r, pto_op_operand(a, 1));
    return PTO_FAILURE;
  }
  case ARITH_MULI:
    if (int_is(c[1], 0, w)) return to_attr(r, c[1]);
    if (int_is(c[0], 0, w)) return to_attr(r, c[0]);
    if (int_is(c[1], 1, w)) return to_value(r, x);
    if (int_is(c[0], 1, w)) return to_value(r, y);
    return PTO_FAILURE;
  case ARITH_DIVSI:
  case ARITH_DIVUI:
  case ARITH_FLOORDIVSI:
  case ARITH_CEILDIVSI:
    if (int_is(c[1], 1, w)) return to_value(r, x);
    return PTO_FAILURE;
  case ARITH_REMSI:
    if (int_is(c[1], 1, w) || int_is(c[1], -1, w))
      return to_attr(r, pto_attr_int(ctx, t, 0));
    return PTO_FAILURE;
  case ARITH_MINSI:
  case ARITH_MAXSI: {
    if (x == y) return to_value(r, x);
    /* min(x, SMIN) = SMIN, min(x, SMAX) = x; dually for max */
    int64_t absorbing = id == ARITH_MINSI ? smin_of(w) : smax_of(w);
    int64_t neutral = id == ARITH_MINSI ? smax_of(w) : smin_of(w);
    for (unsigned i = 0; i < 2; i++) {
      if (int_is(c[i], absorbing, w)) return to_attr(r, c[i]);
      if (int_is(c[i], neutral, w)) return to_value(r, i ? x : y);
    }
    return PTO_FAILURE;
  }
  default:
    return PTO_FAILURE;
  }
}

/* ------------------------------------------------------------------ */
/* Floating point                                                       */
/* ------------------------------------------------------------------ */

/* IEEE 754-2019 maximum/minimum: NaN wins, and -0 < +0. */
static double ieee_max(double a, double b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static double ieee_min(double a, double b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

/* Operands of every float kind are exact in double, and double carries
 * more than twice their precision plus two bits, so computing in double
 * and rounding to the result's kind (pto_attr_float) rounds only once in
 * effect. */
static PtoResult fold_float_binary(PtoOp *op, int id, PtoAttr *const *c,
                                   PtoFoldResult *r) {
  PtoValue *x = pto_op_operand(op, 0), *y = pto_op_operand(op, 1);
  PtoType *t = pto_value_type(pto_op_result(op, 0));
  if (is_float(c[0]) && is_float(c[1])) {
    double a = pto_attr_float_value(c[0]), b = pto_attr_float_value(c[1]), v;
    switch (id) {
    case ARITH_ADDF: v = a + b; break;
    case ARITH_SUBF: v = a - b; break;
    case ARITH_MULF: v = a * b; break;
    case ARITH_DIVF: v = a / b; break;
    case ARITH_MAXIMUMF: v = ieee_max(a, b); break;
    case ARITH_MINIMUMF: v = ieee_min(a, b); break;
    default: return PTO_FAILURE;
    }
    return to_attr(r, pto_attr_float(pto_op_ctx(op), t, v));
  }
  switch (id) {
  case ARITH_ADDF: /* x + -0.0 = x for every x, x + 0.0 is not (x = -0.0) */
    if (float_is(c[1], -0.0)) return to_value(r, x);
    if (float_is(c[0], -0.0)) return to_value(r, y);
    return PTO_FAILURE;
  case ARITH_SUBF:
    if (float_is(c[1], 0.0)) return to_value(r, x);
    return PTO_FAILURE;
  case ARITH_MULF:
    if (float_is(c[1], 1.0)) return to_value(r, x);
    if (float_is(c[0], 1.0)) return to_value(r, y);
    return PTO_FAILURE;
  case ARITH_DIVF:
    if (float_is(c[1], 1.0)) return to_value(r, x);
    return PTO_FAILURE;
  case ARITH_MAXIMUMF:
  case ARITH_MINIMUMF: {
    if (x == y) return to_value(r, x);
    double neutral = id == ARITH_MAXIMUMF ? -INFINITY : INFINITY;
    if (float_is(c[1], neutral)) return to_value(r, x);
    if (float_is(c[0], neutral)) return to_value(r, y);
    return PTO_FAILURE;
  }
  default:
    return PTO_FAILURE;
  }
}

static PtoResult fold_negf(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  if (is_float(c[0]))
    return to_attr(r, pto_attr_float(pto_op_ctx(op),
                                     pto_value_type(pto_op_result(op, 0)),
                                     -pto_attr_float_value(c[0])));
  PtoOp *inner = def_of(pto_op_operand(op, 0), ARITH_NEGF);
  if (inner) return to_value(r, pto_op_operand(inner, 0));
  return PTO_FAILURE;
}

/* ------------------------------------------------------------------ */
/* Comparisons and select                                               */
/* ------------------------------------------------------------------ */

static bool eval_cmpi(int64_t pred, int64_t a, int64_t b, unsigned w) {
  int64_t sa = pto_int_sext(a, w), sb = pto_int_sext(b, w);
  uint64_t za = pto_int_zext(a, w), zb = pto_int_zext(b, w);
  switch (pred) {
  case PTO_CMPI_EQ: return za == zb;
  case PTO_CMPI_NE: return za != zb;
  case PTO_CMPI_SLT: return sa < sb;
  case PTO_CMPI_SLE: return sa <= sb;
  case PTO_CMPI_SGT: return sa > sb;
  case PTO_CMPI_SGE: return sa >= sb;
  case PTO_CMPI_ULT: return za < zb;
  case PTO_CMPI_ULE: return za <= zb;
  case PTO_CMPI_UGT: return za > zb;
  default: return za >= zb; /* uge */
  }
}

static bool eval_cmpf(int64_t pred, double a, double b) {
  bool u = isnan(a) || isnan(b);
  switch (pred) {
  case PTO_CMPF_FALSE: return false;
  case PTO_CMPF_OEQ: return !u && a == b;
  case PTO_CMPF_OGT: return !u && a > b;
  case PTO_CMPF_OGE: return !u && a >= b;
  case PTO_CMPF_OLT: return !u && a < b;
  case PTO_CMPF_OLE: return !u && a <= b;
  case PTO_CMPF_ONE: return !u && a != b;
  case PTO_CMPF_ORD: return !u;
  case PTO_CMPF_UEQ: return u || a == b;
  case PTO_CMPF_UGT: return u || a > b;
  case PTO_CMPF_UGE: return u || a >= b;
  case PTO_CMPF_ULT: return u || a < b;
  case PTO_CMPF_ULE: return u || a <= b;
  case PTO_CMPF_UNE: return u || a != b;
  case PTO_CMPF_UNO: return u;
  default: return true;
  }
}

static PtoResult fold_cmp(PtoOp *op, int id, PtoAttr *const *c,
                          PtoFoldResult *r) {
  PtoContext *ctx = pto_op_ctx(op);
  int64_t pred = pto_op_attr_int(op, "predicate", -1);
  if (id == ARITH_CMPI) {
    unsigned w = pto_type_bitwidth(pto_value_type(pto_op_operand(op, 0)));
    if (is_int(c[0]) && is_int(c[1]))
      return to_attr(r, pto_attr_bool(ctx, eval_cmpi(pred, pto_attr_int_value(c[0]),
                                                     pto_attr_int_value(c[1]), w)));
    /* x <op> x: true for the reflexive predicates */
    if (pto_op_operand(op, 0) == pto_op_operand(op, 1))
      return to_attr(r, pto_attr_bool(ctx, eval_cmpi(pred, 0, 0, w)));
    return PTO_FAILURE;
  }
  if (pred == PTO_CMPF_FALSE || pred == PTO_CMPF_TRUE)
    return to_attr(r, pto_attr_bool(ctx, pred == PTO_CMPF_TRUE));
  if (is_float(c[0]) && is_float(c[1]))
    return to_attr(r, pto_attr_bool(ctx, eval_cmpf(pred, pto_attr_float_value(c[0]),
                                                   pto_attr_float_value(c[1]))));
  return PTO_FAILURE;
}

static PtoResult fold_select(PtoOp *op, PtoAttr *const *c, PtoFoldResult *r) {
  PtoValue *t = pto_op_operand(op, 1), *f = pto_op_operand(op, 2);
  if (is_int(c[0])) return to_value(r, pto_attr_int_value(c[0]) ? t : f);
  if (t == f) return to_value(r, t);
  if (c[1] && c[1] == c[2]) return to_attr(r, c[1]);
  /* select(c, true, false) = c */
  PtoType *i1 = pto_type_int(pto_op_ctx(op), 1);
  if (pto_value_type(t) == i1 && int_is(c[1], 1, 1) && int_is(c[2], 0, 1))
    return to_value(r, pto_op_operand(op, 0));
  return PTO_FAILURE;
}

/* ------------------------------------------------------------------ */
/* Casts                                                                */
/* ------------------------------------------------------------------ */

/* Rounds an integer to a float kind once (to nearest even). Below 2^53 the
 * conversion to double is exact; above, rounding to odd at 53 bits first
 * keeps the final rounding correct for every kind narrower than f64. */
static double int_to_float(int64_t v, PtoFloatKind k) {
  if (k == PTO_F64) return (double)v;
  uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  int shift = 0;
  while ((mag >> shift) >> 53) shift++;
  uint64_t kept = mag >> shift;
  if (shift && (mag & (((uint64_t)1 << shift) - 1))) kept |= 1;
  double d = ldexp((double)kept, shift);
  return pto_round_to_float_kind(v < 0 ? -d : d, k);
}

static PtoResult fold_cast(PtoOp *op, int id, PtoAttr *const *c,
                           PtoFoldResult *r) {
  PtoContext *ctx = pto_op_ctx(op);
  PtoValue *x = pto_op_operand(op, 0);
  PtoType *in = pto_value_type(x), *out = pto_value_type(pto_op_result(op, 0));
  unsigned win = pto_type_bitwidth(in), wout = pto_type_bitwidth(out);
  switch (id) {
  case ARITH_INDEX_CAST:
  case ARITH_EXTSI:
  case ARITH_TRUNCI: {
    if (is_int(c[0])) /* sign-extend or truncate (pto_attr_int wraps) */
      return to_attr(r, pto_attr_int(ctx, out,
                                     pto_int_sext(pto_attr_int_value(c[0]), win)));
    /* cast(cast(y)) = y when the inner cast loses nothing */
    int inner_id = id == ARITH_INDEX_CAST ? ARITH_INDEX_CAST : ARITH_EXTSI;
    PtoOp *inner = id == ARITH_EXTSI ? NULL : def_of(x, inner_id);
    if (inner) {
      PtoValue *y = pto_op_operand(inner, 0);
      if (pto_value_type(y) == out && win >= pto_type_bitwidth(pto_value_type(y)))
        return to_value(r, y);
    }
    return PTO_FAILURE;
  }
  case ARITH_SITOFP:
    if (!is_int(c[0])) return PTO_FAILURE;
    return to_attr(r, pto_attr_float(ctx, out,
                                     int_to_float(pto_int_sext(pto_attr_int_value(c[0]), win),
                                                  pto_type_float_kind(out))));
  case ARITH_FPTOSI: {
    if (!is_float(c[0])) return PTO_FAILURE;
    double v = pto_attr_float_value(c[0]);
    if (isnan(v)) return PTO_FAILURE;
    double tv = trunc(v), lim = ldexp(1.0, (int)wout - 1);
    if (tv < -lim || tv >= lim) return PTO_FAILURE; /* out of range */
    return to_attr(r, pto_attr_int(ctx, out, (int64_t)tv));
  }
  case ARITH_EXTF:
  case ARITH_TRUNCF: {
    if (is_float(c[0])) /* exact for extf; one rounding for truncf */
      return to_attr(r, pto_attr_float(ctx, out, pto_attr_float_value(c[0])));
    PtoOp *inner = id == ARITH_TRUNCF ? def_of(x, ARITH_EXTF) : NULL;
    if (inner && pto_value_type(pto_op_operand(inner, 0)) == out)
      return to_value(r, pto_op_operand(inner, 0));
    return PTO_FAILURE;
  }
  default:
    return PTO_FAILURE;
  }
}

PtoResult pto_arith_fold(PtoOp *op, PtoAttr *const *operands,
                         PtoFoldResult *results) {
  int id = pto_arith_op_id(op);
  switch (id) {
  case ARITH_ADDI: case ARITH_SUBI: case ARITH_MULI: case ARITH_DIVSI:
  case ARITH_DIVUI: case ARITH_REMSI: case ARITH_FLOORDIVSI:
  case ARITH_CEILDIVSI: case ARITH_MINSI: case ARITH_MAXSI:
    return fold_int_binary(op, id, operands, results);
  case ARITH_ADDF: case ARITH_SUBF: case ARITH_MULF: case ARITH_DIVF:
  case ARITH_MAXIMUMF: case ARITH_MINIMUMF:
    return fold_float_binary(op, id, operands, results);
  case ARITH_NEGF:
    return fold_negf(op, operands, results);
  case ARITH_CMPI: case ARITH_CMPF:
    return fold_cmp(op, id, operands, results);
  case ARITH_SELECT:
    return fold_select(op, operands, results);
  case ARITH_INDEX_CAST: case ARITH_SITOFP: case ARITH_FPTOSI:
  case ARITH_EXTF: case ARITH_TRUNCF: case ARITH_EXTSI: case ARITH_TRUNCI:
    return fold_cast(op, id, operands, results);
  default:
    return PTO_FAILURE;
  }
}
