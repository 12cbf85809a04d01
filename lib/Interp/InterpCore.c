/* Handlers of the core dialects: func.call, scf.for / scf.if, and arith's
 * scalar arithmetic with each op's exact integer and float semantics
 * (docs/interpreter.md lists the run-time errors: integer division by zero
 * and signed division overflow, non-positive scf.for steps). */
#include "Interp/InterpInternal.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* func                                                                 */
/* ------------------------------------------------------------------ */

static PtoResult h_call(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoOp *callee = pto_symbol_lookup_from(op, pto_op_attr(op, "callee"));
  if (!callee || !pto_op_is(callee, "func.func"))
    return pto_interp_error(f, op, "callee is not a func.func");
  unsigned n = pto_op_num_operands(op), nr = pto_op_num_results(op);
  PtoInterpValue *args = pto_calloc(n ? n : 1, sizeof *args);
  PtoInterpValue *res = pto_calloc(nr ? nr : 1, sizeof *res);
  for (unsigned i = 0; i < n; i++)
    args[i] = pto_interp_value_copy(pto_interp_operand(f, op, i));
  PtoResult r = pto_interp_call(f, op, callee, args, n, res, nr);
  for (unsigned i = 0; i < nr && !r; i++) pto_interp_set_result(f, op, i, res[i]);
  pto_free(args);
  pto_free(res);
  return r;
}

/* ------------------------------------------------------------------ */
/* scf                                                                  */
/* ------------------------------------------------------------------ */

/* A loop-carried or yielded operand, moved out when this is its last use. */
static PtoInterpValue take_operand(PtoInterpFrame *f, PtoOp *op, unsigned i) {
  const PtoInterpValue *v = pto_interp_operand(f, op, i);
  if (v->kind != PTO_IVAL_TENSOR) return pto_interp_value_copy(v);
  return pto_interp_value_tensor(pto_interp_take_operand_tensor(f, op, i));
}

static PtoResult h_for(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoInterpValue *lbv = pto_interp_operand(f, op, 0);
  PtoDType ivt = lbv->dtype;
  int64_t lb = lbv->i, ub = pto_interp_operand_int(f, op, 1);
  int64_t step = pto_interp_operand_int(f, op, 2);
  if (step <= 0)
    return pto_interp_error(f, op, "step must be positive at run time, got "
                                   "%" PRId64, step);
  unsigned n = pto_op_num_results(op);
  PtoInterpValue *cur = pto_calloc(n + 1, sizeof *cur);
  PtoInterpValue *args = pto_calloc(n + 1, sizeof *args);
  for (unsigned i = 0; i < n; i++) cur[i] = take_operand(f, op, 3 + i);
  PtoResult r = PTO_SUCCESS;
  for (int64_t iv = lb; iv < ub;) {
    args[0] = pto_interp_value_int(ivt, iv);
    memcpy(args + 1, cur, n * sizeof *cur);
    memset(cur, 0, n * sizeof *cur);
    pto_interp_push_loop(f, op, iv);
    r = pto_interp_run_region(f, pto_op_region(op, 0), args, n + 1, cur, n);
    pto_interp_pop_loop(f);
    if (r) break;
    if (iv > INT64_MAX - step) break; /* the next value would overflow */
    iv += step;
  }
  for (unsigned i = 0; i < n; i++) {
    if (r) pto_interp_value_release(&cur[i]);
    else pto_interp_set_result(f, op, i, cur[i]);
  }
  pto_free(cur);
  pto_free(args);
  return r;
}

static PtoResult h_if(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  bool cond = pto_interp_operand_int(f, op, 0) != 0;
  PtoRegion *region = pto_op_region(op, cond ? 0 : 1);
  unsigned n = pto_op_num_results(op);
  if (pto_region_empty(region)) return PTO_SUCCESS; /* no else, no results */
  PtoInterpValue *res = pto_calloc(n ? n : 1, sizeof *res);
  PtoResult r = pto_interp_run_region(f, region, NULL, 0, res, n);
  for (unsigned i = 0; i < n && !r; i++) pto_interp_set_result(f, op, i, res[i]);
  pto_free(res);
  return r;
}

/* ------------------------------------------------------------------ */
/* arith                                                                */
/* ------------------------------------------------------------------ */

typedef enum ArithKind {
  A_ADDI, A_SUBI, A_MULI, A_DIVSI, A_DIVUI, A_REMSI, A_FLOORDIVSI,
  A_CEILDIVSI, A_MINSI, A_MAXSI,
  A_ADDF, A_SUBF, A_MULF, A_DIVF, A_MAXIMUMF, A_MINIMUMF, A_NEGF,
  A_INDEX_CAST, A_SITOFP, A_FPTOSI, A_EXTF, A_TRUNCF, A_EXTSI, A_TRUNCI,
} ArithKind;

static unsigned width_of(PtoDType dt) {
  return dt == PTO_DT_BOOL ? 1 : (unsigned)pto_dtype_size(dt) * 8;
}

static int64_t int_min_of(unsigned w) {
  return w >= 64 ? INT64_MIN : -((int64_t)1 << (w - 1));
}

static PtoResult h_constant(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoDType dt;
  if (pto_interp_result_dtype(f, op, 0, &dt)) return PTO_FAILURE;
  PtoAttr *a = pto_op_attr(op, "value");
  PtoType *ty = pto_value_type(pto_op_result(op, 0));
  switch (a ? pto_attr_kind(a) : PTO_ATTR_UNIT) {
  case PTO_ATTR_INTEGER:
    pto_interp_set_result(f, op, 0, pto_interp_value_int(dt, pto_attr_int_value(a)));
    return PTO_SUCCESS;
  case PTO_ATTR_FLOAT:
    pto_interp_set_result(f, op, 0,
                          pto_interp_value_float(dt, pto_attr_float_value(a)));
    return PTO_SUCCESS;
  case PTO_ATTR_DENSE: {
    if (!pto_type_is_tensor(ty)) break;
    unsigned rank = pto_type_tensor_rank(ty);
    PtoTensor *t = pto_interp_new_tensor(f, op, dt, rank,
                                         pto_type_tensor_shape(ty));
    if (!t) return PTO_FAILURE;
    const PtoNdArray *arr = pto_tensor_array(t);
    int64_t n = pto_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
      if (pto_dtype_is_float(dt))
        pto_dtype_store_f64(dt, arr->data, i, pto_attr_dense_get_f64(a, i));
      else
        pto_dtype_store_i64(dt, arr->data, i, pto_attr_dense_get_i64(a, i));
    }
    pto_interp_set_result(f, op, 0, pto_interp_value_tensor(t));
    return PTO_SUCCESS;
  }
  default:
    break;
  }
  return pto_interp_error(f, op, "the interpreter cannot evaluate this "
                                 "constant's value attribute");
}

static PtoResult int_binary(PtoInterpFrame *f, PtoOp *op, ArithKind k,
                            PtoDType dt, int64_t a, int64_t b) {
  unsigned w = width_of(dt);
  uint64_t mask = w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
  uint64_t ua = (uint64_t)a & mask, ub = (uint64_t)b & mask;
  int64_t r = 0;
  bool is_div = k == A_DIVSI || k == A_DIVUI || k == A_REMSI ||
                k == A_FLOORDIVSI || k == A_CEILDIVSI;
  if (is_div && b == 0)
    return pto_interp_error(f, op, "integer division by zero at run time: "
                                   "%" PRId64 " / 0", a);
  if ((k == A_DIVSI || k == A_FLOORDIVSI || k == A_CEILDIVSI) &&
      a == int_min_of(w) && b == -1)
    return pto_interp_error(f, op, "signed integer division overflows at "
                                   "run time: %" PRId64 " / -1", a);
  switch (k) {
  case A_ADDI: r = (int64_t)(ua + ub); break;
  case A_SUBI: r = (int64_t)(ua - ub); break;
  case A_MULI: r = (int64_t)(ua * ub); break;
  case A_DIVUI: r = (int64_t)(ua / ub); break;
  case A_REMSI: r = b == -1 ? 0 : a % b; break;
  case A_DIVSI:
  case A_FLOORDIVSI:
  case A_CEILDIVSI: {
    r = a / b; /* toward zero */
    bool inexact = a % b != 0, neg = (a < 0) != (b < 0);
    if (k == A_FLOORDIVSI && inexact && neg) r--;
    if (k == A_CEILDIVSI && inexact && !neg) r++;
    break;
  }
  case A_MINSI: r = a < b ? a : b; break;
  case A_MAXSI: r = a > b ? a : b; break;
  default: break;
  }
  pto_interp_set_result(f, op, 0, pto_interp_value_int(dt, r));
  return PTO_SUCCESS;
}

static double float_binary(ArithKind k, double a, double b) {
  switch (k) {
  case A_ADDF: return a + b;
  case A_SUBF: return a - b;
  case A_MULF: return a * b;
  case A_DIVF: return a / b;
  case A_MAXIMUMF:
    if (isnan(a) || isnan(b)) return NAN;
    if (a == b) return signbit(a) ? b : a; /* -0 < +0 */
    return a > b ? a : b;
  case A_MINIMUMF:
    if (isnan(a) || isnan(b)) return NAN;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
  default: return NAN;
  }
}

static PtoResult h_arith(PtoInterpFrame *f, PtoOp *op, void *user) {
  ArithKind k = (ArithKind)(intptr_t)user;
  PtoDType dt;
  if (pto_interp_result_dtype(f, op, 0, &dt)) return PTO_FAILURE;
  const PtoInterpValue *x = pto_interp_operand(f, op, 0);
  if (k <= A_MAXSI)
    return int_binary(f, op, k, dt, x->i, pto_interp_operand(f, op, 1)->i);
  if (k <= A_MINIMUMF) {
    double r = float_binary(k, x->f, pto_interp_operand(f, op, 1)->f);
    pto_interp_set_result(f, op, 0, pto_interp_value_float(dt, r));
    return PTO_SUCCESS;
  }
  PtoInterpValue r;
  switch (k) {
  case A_NEGF: r = pto_interp_value_float(dt, -x->f); break;
  case A_INDEX_CAST: /* values are sign-extended: wrapping truncates */
  case A_EXTSI:
  case A_TRUNCI:
    r = pto_interp_value_int(dt, x->i);
    break;
  case A_SITOFP: { /* one rounding from the exact integer */
    char buf[8];
    pto_dtype_store_i64(dt, buf, 0, x->i);
    r = pto_interp_value_float(dt, pto_dtype_load_f64(dt, buf, 0));
    break;
  }
  case A_FPTOSI: { /* toward zero; NaN 0; out of range saturates */
    int64_t v;
    PtoCastMode m = {PTO_ROUND_TRUNC, PTO_SAT_SATURATE};
    char buf[8];
    pto_dtype_cast_store_f64(dt, buf, 0, x->f, m);
    v = pto_dtype_load_i64(dt, buf, 0);
    r = pto_interp_value_int(dt, v);
    break;
  }
  default: /* extf, truncf */
    r = pto_interp_value_float(dt, x->f);
    break;
  }
  pto_interp_set_result(f, op, 0, r);
  return PTO_SUCCESS;
}

/* MLIR's predicate numbering. */
static bool cmpi(int64_t pred, int64_t a, int64_t b, unsigned w) {
  uint64_t mask = w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
  uint64_t ua = (uint64_t)a & mask, ub = (uint64_t)b & mask;
  switch (pred) {
  case 0: return a == b;
  case 1: return a != b;
  case 2: return a < b;
  case 3: return a <= b;
  case 4: return a > b;
  case 5: return a >= b;
  case 6: return ua < ub;
  case 7: return ua <= ub;
  case 8: return ua > ub;
  default: return ua >= ub;
  }
}

static bool cmpf(int64_t pred, double a, double b) {
  bool uno = isnan(a) || isnan(b);
  switch (pred) {
  case 0: return false;
  case 1: return !uno && a == b;
  case 2: return !uno && a > b;
  case 3: return !uno && a >= b;
  case 4: return !uno && a < b;
  case 5: return !uno && a <= b;
  case 6: return !uno && a != b;
  case 7: return !uno;
  case 8: return uno || a == b;
  case 9: return uno || a > b;
  case 10: return uno || a >= b;
  case 11: return uno || a < b;
  case 12: return uno || a <= b;
  case 13: return uno || a != b;
  case 14: return uno;
  default: return true;
  }
}

static PtoResult h_cmp(PtoInterpFrame *f, PtoOp *op, void *user) {
  bool is_float = user != NULL;
  const PtoInterpValue *a = pto_interp_operand(f, op, 0);
  const PtoInterpValue *b = pto_interp_operand(f, op, 1);
  int64_t pred = pto_op_attr_int(op, "predicate", 0);
  bool r = is_float ? cmpf(pred, a->f, b->f)
                    : cmpi(pred, a->i, b->i, width_of(a->dtype));
  pto_interp_set_result(f, op, 0, pto_interp_value_int(PTO_DT_BOOL, r));
  return PTO_SUCCESS;
}

static PtoResult h_select(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  bool c = pto_interp_operand_int(f, op, 0) != 0;
  pto_interp_set_result(f, op, 0,
                        pto_interp_value_copy(pto_interp_operand(f, op, c ? 1 : 2)));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

void pto_interp_register_core(PtoInterp *I) {
  static const struct {
    const char *name;
    ArithKind kind;
  } arith[] = {
      {"arith.addi", A_ADDI},         {"arith.subi", A_SUBI},
      {"arith.muli", A_MULI},         {"arith.divsi", A_DIVSI},
      {"arith.divui", A_DIVUI},       {"arith.remsi", A_REMSI},
      {"arith.floordivsi", A_FLOORDIVSI}, {"arith.ceildivsi", A_CEILDIVSI},
      {"arith.minsi", A_MINSI},       {"arith.maxsi", A_MAXSI},
      {"arith.addf", A_ADDF},         {"arith.subf", A_SUBF},
      {"arith.mulf", A_MULF},         {"arith.divf", A_DIVF},
      {"arith.maximumf", A_MAXIMUMF}, {"arith.minimumf", A_MINIMUMF},
      {"arith.negf", A_NEGF},         {"arith.index_cast", A_INDEX_CAST},
      {"arith.sitofp", A_SITOFP},     {"arith.fptosi", A_FPTOSI},
      {"arith.extf", A_EXTF},         {"arith.truncf", A_TRUNCF},
      {"arith.extsi", A_EXTSI},       {"arith.trunci", A_TRUNCI},
  };
  for (size_t i = 0; i < PTO_ARRAY_SIZE(arith); i++)
    pto_interp_register(I, arith[i].name, h_arith,
                        (void *)(intptr_t)arith[i].kind);
  pto_interp_register(I, "arith.constant", h_constant, NULL);
  pto_interp_register(I, "arith.cmpi", h_cmp, NULL);
  pto_interp_register(I, "arith.cmpf", h_cmp, (void *)1);
  pto_interp_register(I, "arith.select", h_select, NULL);
  pto_interp_register(I, "func.call", h_call, NULL);
  pto_interp_register(I, "scf.for", h_for, NULL);
  pto_interp_register(I, "scf.if", h_if, NULL);
}
