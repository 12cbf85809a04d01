/* Run-time values: typed scalars (integers wrapped to their width, floats
 * rounded to their format) and tensor references. */
#include "Interp/InterpInternal.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <string.h>

/* v reduced to dt's width and read back as signed, or unsigned for u8..u32
 * (bool: 0 or 1); a u64 keeps its bit pattern. */
static int64_t wrap_to(PtoDType dt, int64_t v) {
  switch (dt) {
  case PTO_DT_BOOL: return v & 1;
  case PTO_DT_I8: return (int8_t)(uint8_t)(uint64_t)v;
  case PTO_DT_I16: return (int16_t)(uint16_t)(uint64_t)v;
  case PTO_DT_I32: return (int32_t)(uint32_t)(uint64_t)v;
  case PTO_DT_U8: return (uint8_t)(uint64_t)v;
  case PTO_DT_U16: return (uint16_t)(uint64_t)v;
  case PTO_DT_U32: return (uint32_t)(uint64_t)v;
  default: return v;
  }
}

PtoInterpValue pto_interp_value_int(PtoDType dt, int64_t v) {
  PtoInterpValue r;
  memset(&r, 0, sizeof r);
  r.kind = PTO_IVAL_SCALAR;
  r.dtype = dt;
  r.i = wrap_to(dt, v);
  r.f = dt == PTO_DT_U64 ? (double)(uint64_t)r.i : (double)r.i;
  return r;
}

PtoInterpValue pto_interp_value_float(PtoDType dt, double v) {
  PtoInterpValue r;
  memset(&r, 0, sizeof r);
  r.kind = PTO_IVAL_SCALAR;
  r.dtype = dt;
  r.f = pto_dtype_round_f64(dt, v, PTO_CAST_DEFAULT);
  return r;
}

PtoInterpValue pto_interp_value_tensor(PtoTensor *t) {
  PtoInterpValue r;
  memset(&r, 0, sizeof r);
  r.kind = PTO_IVAL_TENSOR;
  r.dtype = pto_tensor_dtype(t);
  r.tensor = t;
  return r;
}

PtoInterpValue pto_interp_value_copy(const PtoInterpValue *v) {
  PtoInterpValue r = *v;
  if (r.kind == PTO_IVAL_TENSOR) pto_tensor_retain(r.tensor);
  return r;
}

void pto_interp_value_release(PtoInterpValue *v) {
  if (!v) return;
  if (v->kind == PTO_IVAL_TENSOR) pto_tensor_release(v->tensor);
  memset(v, 0, sizeof *v);
}

double pto_interp_value_as_f64(const PtoInterpValue *v) {
  return pto_dtype_is_float(v->dtype) ? v->f : (double)v->i;
}

int64_t pto_interp_value_as_i64(const PtoInterpValue *v) {
  if (!pto_dtype_is_float(v->dtype)) return v->i;
  int64_t r;
  PtoCastMode m = {PTO_ROUND_TRUNC, PTO_SAT_SATURATE};
  pto_dtype_cast_store_f64(PTO_DT_I64, &r, 0, v->f, m);
  return r;
}

char *pto_interp_value_to_string(const PtoInterpValue *v) {
  PtoStr s;
  pto_str_init(&s);
  switch (v->kind) {
  case PTO_IVAL_NONE:
    pto_str_puts(&s, "<none>");
    break;
  case PTO_IVAL_SCALAR:
    if (pto_dtype_is_float(v->dtype))
      pto_str_printf(&s, "%.9g : %s", v->f, pto_dtype_name(v->dtype));
    else if (v->dtype == PTO_DT_U64)
      pto_str_printf(&s, "%" PRIu64 " : %s", (uint64_t)v->i, pto_dtype_name(v->dtype));
    else
      pto_str_printf(&s, "%" PRId64 " : %s", v->i, pto_dtype_name(v->dtype));
    break;
  case PTO_IVAL_TENSOR: {
    char b[PTO_SHAPE_STR_MAX];
    pto_str_printf(&s, "tensor %s %s",
                   pto_shape_str(b, pto_tensor_rank(v->tensor),
                                 pto_tensor_shape(v->tensor)),
                   pto_dtype_name(v->dtype));
    break;
  }
  }
  return pto_str_take(&s);
}
