/* The arith dialect's scalar ops as LLVM instructions, shared by the
 * translation of kernels and of host programs: both compute offsets, loop
 * bounds and scalar arguments with them, and must agree with the
 * interpreter (lib/Dialect/Arith) on every value, negative ones included. */
#include "Target/LLVMIR/HostFunction.h"

#include "Support/Alloc.h"
#include "pto/DType.h"
#include "pto/IRArray.h"

/* bf16 and the 8-bit floats are their bits here (pto_llvmir_scalar_type),
 * not LLVM floats */
static bool is_bits_float(PtoType *ty) {
  if (!pto_type_is_float(ty)) return false;
  PtoFloatKind k = pto_type_float_kind(ty);
  return k == PTO_BF16 || k == PTO_F8E4M3FN || k == PTO_F8E5M2 || k == PTO_F8E8M0FNU;
}

/* The bits of a constant of such a type: the value rounded as the
 * interpreter stores it (to nearest even, numpy's astype). */
static LLVMValueRef bits_constant(LLVMTypeRef lt, PtoType *ty, double v) {
  PtoDType dt;
  if (!pto_dtype_from_type(ty, &dt)) return NULL;
  uint16_t bits = 0;
  pto_dtype_store_f64(dt, &bits, 0, v);
  return LLVMConstInt(lt, pto_dtype_size(dt) == 1 ? (uint8_t)bits : bits, 0);
}

/* x / y rounded toward -inf (floor) or +inf (ceil), from the truncating
 * quotient: one step away from zero when the remainder is not 0 and the
 * exact quotient has that sign. */
static LLVMValueRef rounded_div(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, bool floor) {
  LLVMTypeRef ty = LLVMTypeOf(x);
  LLVMValueRef zero = LLVMConstNull(ty);
  LLVMValueRef q = LLVMBuildSDiv(b, x, y, ""), r = LLVMBuildSRem(b, x, y, "");
  LLVMValueRef inexact = LLVMBuildICmp(b, LLVMIntNE, r, zero, "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildXor(b, r, y, ""), zero, "");
  LLVMValueRef away = LLVMBuildAnd(b, inexact, floor ? neg : LLVMBuildNot(b, neg, ""), "");
  LLVMValueRef one = LLVMBuildZExt(b, away, ty, "");
  return floor ? LLVMBuildSub(b, q, one, "") : LLVMBuildAdd(b, q, one, "");
}

/* MLIR's cmpf predicates (0 false ... 15 true) in LLVM's order, which
 * puts `uno` before `ueq`. */
static const LLVMRealPredicate kCmpf[] = {
    LLVMRealPredicateFalse, LLVMRealOEQ, LLVMRealOGT, LLVMRealOGE, LLVMRealOLT,
    LLVMRealOLE,            LLVMRealONE, LLVMRealORD, LLVMRealUEQ, LLVMRealUGT,
    LLVMRealUGE,            LLVMRealULT, LLVMRealULE, LLVMRealUNE, LLVMRealUNO,
    LLVMRealPredicateTrue};
static const LLVMIntPredicate kCmpi[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT, LLVMIntSLE,
                                         LLVMIntSGT, LLVMIntSGE, LLVMIntULT, LLVMIntULE,
                                         LLVMIntUGT, LLVMIntUGE};

LLVMValueRef pto_llvmir_emit_scalar(LLVMContextRef c, LLVMBuilderRef b, PtoOp *op,
                                    const LLVMValueRef *in) {
  unsigned n = pto_op_num_operands(op);
  if (pto_op_num_results(op) != 1) return NULL;
  PtoType *rty = pto_value_type(pto_op_result(op, 0));
  LLVMTypeRef lt = pto_llvmir_scalar_type(c, rty);
  if (!lt) return NULL;
  for (unsigned i = 0; i < n; i++)
    if (!in[i]) return NULL;
  if (pto_op_is(op, "arith.constant")) {
    PtoAttr *v = pto_op_attr(op, "value");
    if (!v || n) return NULL;
    if (is_bits_float(rty)) return bits_constant(lt, rty, pto_attr_float_value(v));
    return pto_attr_kind(v) == PTO_ATTR_FLOAT ? LLVMConstReal(lt, pto_attr_float_value(v))
                                              : LLVMConstInt(lt, (uint64_t)pto_attr_int_value(v), 1);
  }
  /* such values are bits here: arithmetic on them would be on integers */
  for (unsigned i = 0; i < n; i++)
    if (is_bits_float(pto_value_type(pto_op_operand(op, i)))) return NULL;
  if (is_bits_float(rty)) return NULL;
  static const struct {
    const char *name;
    LLVMOpcode opc;
  } bin[] = {{"arith.addi", LLVMAdd},   {"arith.subi", LLVMSub},   {"arith.muli", LLVMMul},
             {"arith.divsi", LLVMSDiv}, {"arith.divui", LLVMUDiv}, {"arith.remsi", LLVMSRem},
             {"arith.remui", LLVMURem}, {"arith.addf", LLVMFAdd},  {"arith.subf", LLVMFSub},
             {"arith.mulf", LLVMFMul},  {"arith.divf", LLVMFDiv}};
  static const struct {
    const char *name;
    LLVMOpcode opc;
  } casts[] = {{"arith.sitofp", LLVMSIToFP}, {"arith.fptosi", LLVMFPToSI},
               {"arith.extf", LLVMFPExt},    {"arith.truncf", LLVMFPTrunc},
               {"arith.extsi", LLVMSExt},    {"arith.trunci", LLVMTrunc}};
  if (n == 2) {
    LLVMValueRef x = in[0], y = in[1];
    for (size_t i = 0; i < PTO_ARRAY_SIZE(bin); i++)
      if (pto_op_is(op, bin[i].name)) return LLVMBuildBinOp(b, bin[i].opc, x, y, "");
    if (pto_op_is(op, "arith.floordivsi")) return rounded_div(b, x, y, true);
    if (pto_op_is(op, "arith.ceildivsi")) return rounded_div(b, x, y, false);
    if (pto_op_is(op, "arith.minsi") || pto_op_is(op, "arith.maxsi")) {
      bool mn = pto_op_is(op, "arith.minsi");
      return LLVMBuildSelect(b, LLVMBuildICmp(b, mn ? LLVMIntSLT : LLVMIntSGT, x, y, ""), x, y, "");
    }
    if (pto_op_is(op, "arith.maximumf") || pto_op_is(op, "arith.minimumf")) {
      /* NaN if either is NaN; -0 < +0: compare the bits when equal */
      bool mx = pto_op_is(op, "arith.maximumf");
      LLVMValueRef pick = LLVMBuildFCmp(b, mx ? LLVMRealOGT : LLVMRealOLT, x, y, "");
      unsigned bits = (unsigned)pto_type_bitwidth(rty);
      LLVMTypeRef it = LLVMIntTypeInContext(c, bits);
      LLVMValueRef xi = LLVMBuildBitCast(b, x, it, ""), yi = LLVMBuildBitCast(b, y, it, "");
      /* of two equal zeros, max takes the one without the sign bit */
      LLVMValueRef zsel = mx ? LLVMBuildAnd(b, xi, yi, "") : LLVMBuildOr(b, xi, yi, "");
      LLVMValueRef eq = LLVMBuildFCmp(b, LLVMRealOEQ, x, y, "");
      LLVMValueRef r = LLVMBuildSelect(b, pick, x, y, "");
      r = LLVMBuildSelect(b, eq, LLVMBuildBitCast(b, zsel, lt, ""), r, "");
      LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, y, "");
      return LLVMBuildSelect(b, nan, LLVMBuildFAdd(b, x, y, ""), r, "");
    }
    int64_t pred = pto_op_attr_int(op, "predicate", -1);
    if (pto_op_is(op, "arith.cmpi") && pred >= 0 && pred < (int64_t)PTO_ARRAY_SIZE(kCmpi))
      return LLVMBuildICmp(b, kCmpi[pred], x, y, "");
    if (pto_op_is(op, "arith.cmpf") && pred >= 0 && pred < (int64_t)PTO_ARRAY_SIZE(kCmpf))
      return LLVMBuildFCmp(b, kCmpf[pred], x, y, "");
    return NULL;
  }
  if (n == 3 && pto_op_is(op, "arith.select")) return LLVMBuildSelect(b, in[0], in[1], in[2], "");
  if (n != 1) return NULL;
  if (pto_op_is(op, "arith.negf")) return LLVMBuildFNeg(b, in[0], "");
  if (pto_op_is(op, "arith.index_cast")) {
    unsigned from = LLVMGetIntTypeWidth(LLVMTypeOf(in[0])), to = LLVMGetIntTypeWidth(lt);
    return from == to ? in[0]
           : from < to ? LLVMBuildSExt(b, in[0], lt, "")
                       : LLVMBuildTrunc(b, in[0], lt, "");
  }
  for (size_t i = 0; i < PTO_ARRAY_SIZE(casts); i++)
    if (pto_op_is(op, casts[i].name)) return LLVMBuildCast(b, casts[i].opc, in[0], lt, "");
  return NULL;
}
