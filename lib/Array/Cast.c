/* Conversions between element types: loads and stores of single elements,
 * casts with rounding and saturation modes, and strided bulk conversion.
 * Float formats round through lib/IR's f16/bf16 routines; NaN payloads
 * follow numpy's bit rules (see docs/numerics.md). */
#include "pto/DType.h"
#include "pto/Float16.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* ---- raw storage ---- */

static const char *at_c(PtoDType dt, const void *base, int64_t i) {
  return (const char *)base + i * (int64_t)pto_dtype_size(dt);
}
static char *at(PtoDType dt, void *base, int64_t i) {
  return (char *)base + i * (int64_t)pto_dtype_size(dt);
}

static uint16_t rd16(const void *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
static void wr16(void *p, uint16_t v) { memcpy(p, &v, 2); }

static uint64_t f64_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  return b;
}
static double f64_from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, 8);
  return d;
}

/* Integer elements as int64 (bool: any non-zero byte is 1). */
static int64_t load_int(PtoDType dt, const char *p) {
  switch (dt) {
  case PTO_DT_I8: {
    int8_t v;
    memcpy(&v, p, 1);
    return v;
  }
  case PTO_DT_I16: {
    int16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case PTO_DT_I32: {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  case PTO_DT_U8:
    return (uint8_t)*p;
  case PTO_DT_U16:
    return rd16(p);
  case PTO_DT_U32: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  case PTO_DT_BOOL:
    return *p != 0;
  default: {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

/* Stores the low bits of v (callers have already wrapped or clamped). */
static void store_int(PtoDType dt, char *p, int64_t v) {
  switch (pto_dtype_size(dt)) {
  case 1: {
    uint8_t b = (uint8_t)v;
    memcpy(p, &b, 1);
    break;
  }
  case 2:
    wr16(p, (uint16_t)v);
    break;
  case 4: {
    uint32_t w = (uint32_t)v;
    memcpy(p, &w, 4);
    break;
  }
  default:
    memcpy(p, &v, 8);
    break;
  }
}

/* ---- float formats ---- */

static bool is_half_nan(uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
}
static bool is_bf16_nan(uint16_t h) {
  return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu);
}

/* A NaN's payload moves by shifting, never through a float register
 * conversion (which would quieten a signalling NaN): numpy's half<->double
 * rules. */
static double half_to_f64(uint16_t h) {
  if (!is_half_nan(h)) return pto_f16_bits_to_f32(h);
  return f64_from_bits((uint64_t)(h & 0x8000u) << 48 | 0x7ff0000000000000ull |
                       (uint64_t)(h & 0x3ffu) << 42);
}
static double bf16_to_f64(uint16_t h) {
  if (!is_bf16_nan(h)) return pto_bf16_bits_to_f32(h);
  return f64_from_bits((uint64_t)(h & 0x8000u) << 48 | 0x7ff0000000000000ull |
                       (uint64_t)(h & 0x7fu) << 45);
}
static uint16_t nan_f64_to_half(double v) {
  uint64_t b = f64_bits(v);
  uint16_t r = (uint16_t)(0x7c00u + ((b & 0xfffffffffffffull) >> 42));
  if (r == 0x7c00u) r++; /* keep it a NaN */
  return (uint16_t)(((b >> 48) & 0x8000u) | r);
}

/* ---- 8-bit floats ---- */

/* The OCP 8-bit formats as MLIR names them. E5M2 is IEEE-like (infinities,
 * several NaNs); E4M3FN trades its infinities for one more binade (only
 * S.1111.111 is NaN, max 448); E8M0FNU is an unsigned power of two (a
 * scale: no sign, no zero, 0xff is NaN, 2^-127 .. 2^127). */
typedef struct F8Format {
  int mbits, bias;
  bool has_inf, has_sign;
  uint8_t max_code; /* the largest finite magnitude */
} F8Format;

static bool is_f8(PtoDType dt) {
  return dt == PTO_DT_F8E4M3 || dt == PTO_DT_F8E5M2 || dt == PTO_DT_F8E8M0;
}

static const F8Format *f8_format(PtoDType dt) {
  static const F8Format fmts[3] = {
      {3, 7, false, true, 0x7e},    /* f8E4M3FN: 448 */
      {2, 15, true, true, 0x7b},    /* f8E5M2: 57344 */
      {0, 127, false, false, 0xfe}, /* f8E8M0FNU: 2^127 */
  };
  return &fmts[dt - PTO_DT_F8E4M3];
}

static double f8_to_f64(PtoDType dt, uint8_t c) {
  const F8Format *f = f8_format(dt);
  if (!f->has_sign) return c == 0xffu ? NAN : ldexp(1.0, (int)c - f->bias);
  unsigned mag = c & 0x7fu, e = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1);
  double v;
  if (mag > f->max_code)
    v = f->has_inf && m == 0 ? INFINITY : NAN;
  else if (e == 0)
    v = ldexp((double)m, 1 - f->bias - f->mbits); /* subnormal */
  else
    v = ldexp((double)((1u << f->mbits) | m), (int)e - f->bias - f->mbits);
  return c & 0x80u ? -v : v;
}

/* The code of r, a value of the format or an infinity it has. */
static uint8_t f8_code(PtoDType dt, double r) {
  const F8Format *f = f8_format(dt);
  if (!f->has_sign) return (uint8_t)(ilogb(r) + f->bias);
  uint8_t s = signbit(r) ? 0x80u : 0;
  double a = fabs(r);
  if (isinf(a)) return (uint8_t)(s | (f->max_code + 1));
  if (a == 0) return s;
  int e = ilogb(a), emin = 1 - f->bias;
  if (e < emin) return (uint8_t)(s | (unsigned)ldexp(a, f->mbits - emin));
  unsigned m = (unsigned)ldexp(a, f->mbits - e) - (1u << f->mbits);
  return (uint8_t)(s | (unsigned)(e + f->bias) << f->mbits | m);
}

/* v (finite, and >= 0 for E8M0) to nearest even, +-inf past the largest
 * finite value: rounding as if the exponent were unbounded, so a value at
 * or beyond the midpoint above the maximum overflows (IEEE 754's rule).
 * E8M0's significand is its implicit 1 alone, so no neighbour is even and
 * a tie rounds up; below 2^-127 everything rounds to 2^-127 (no zero). */
static double f8_round_nearest(PtoDType dt, double v) {
  const F8Format *f = f8_format(dt);
  double a = fabs(v), max = f8_to_f64(dt, f->max_code);
  if (isinf(a) || a == 0) return f->has_sign || a != 0 ? v : ldexp(1.0, -f->bias);
  int e = ilogb(a), emin = 1 - f->bias;
  if (!f->has_sign && e < -f->bias) return ldexp(1.0, -f->bias);
  if (f->has_sign && e < emin) e = emin; /* subnormals */
  double q = ldexp(nearbyint(ldexp(a, f->mbits - e)), e - f->mbits);
  if (q > max) q = INFINITY;
  return copysign(q, v);
}

/* The neighbour of r (a value of the format or an infinity standing for
 * overflow) toward +inf when `up`, else toward -inf, in code order. */
static double f8_next(PtoDType dt, double r, bool up) {
  const F8Format *f = f8_format(dt);
  int top = f->max_code + 1; /* the infinity's place */
  int ord;
  if (!f->has_sign) {
    ord = isinf(r) ? top : f8_code(dt, r);
    ord += up ? 1 : -1;
    if (ord < 0) ord = 0; /* nothing below 2^-127 */
    return ord >= top ? INFINITY : f8_to_f64(dt, (uint8_t)ord);
  }
  int mag = isinf(r) ? top : f8_code(dt, r) & 0x7f;
  ord = signbit(r) ? -mag : mag;
  ord += up ? 1 : -1;
  if (ord == 0) return copysign(0.0, r);
  if (ord >= top) return INFINITY;
  if (ord <= -top) return -INFINITY;
  double m = f8_to_f64(dt, (uint8_t)(ord < 0 ? -ord : ord));
  return ord < 0 ? -m : m;
}

static double max_finite(PtoDType dt) {
  if (is_f8(dt)) return f8_to_f64(dt, f8_format(dt)->max_code);
  switch (dt) {
  case PTO_DT_F16:
    return 65504.0;
  case PTO_DT_BF16:
    return pto_bf16_bits_to_f32(0x7f7fu);
  case PTO_DT_F32:
    return FLT_MAX;
  default:
    return DBL_MAX;
  }
}

/* v rounded to nearest even at the precision of float dtype dt. */
static double round_nearest(PtoDType dt, double v) {
  if (is_f8(dt)) return f8_round_nearest(dt, v);
  switch (dt) {
  case PTO_DT_F16:
    return pto_round_to_f16(v);
  case PTO_DT_BF16:
    return pto_round_to_bf16(v);
  case PTO_DT_F32:
    return (double)(float)v;
  default:
    return v;
  }
}

/* Bits of a value representable in the 16-bit format. */
static uint16_t bits16(PtoDType dt, double r) {
  return dt == PTO_DT_F16 ? pto_f32_to_f16_bits((float)r)
                          : pto_f32_to_bf16_bits((float)r);
}
static double from_bits16(PtoDType dt, uint16_t h) {
  return dt == PTO_DT_F16 ? pto_f16_bits_to_f32(h) : pto_bf16_bits_to_f32(h);
}

/* The representable neighbour of r (a value of dt, possibly infinite)
 * toward +inf when `up`, else toward -inf. */
static double next_float(PtoDType dt, double r, bool up) {
  if (is_f8(dt)) return f8_next(dt, r, up);
  switch (dt) {
  case PTO_DT_F64:
    return nextafter(r, up ? INFINITY : -INFINITY);
  case PTO_DT_F32:
    return nextafterf((float)r, up ? INFINITY : -INFINITY);
  default: {
    /* Sign-magnitude bits ordered as integers: +-0 meet at 0. */
    uint16_t h = bits16(dt, r);
    int32_t ord = h & 0x8000u ? -(int32_t)(h & 0x7fffu) : (int32_t)h;
    ord += up ? 1 : -1;
    /* stepping onto zero keeps the sign we came from (-tiny -> -0) */
    if (ord == 0) return copysign(0.0, r);
    h = ord < 0 ? (uint16_t)(0x8000u | (uint32_t)-ord) : (uint16_t)ord;
    return from_bits16(dt, h);
  }
  }
}

static bool last_bit_odd(PtoDType dt, double r) {
  if (is_f8(dt)) return !isinf(r) && (f8_code(dt, r) & 1u);
  switch (dt) {
  case PTO_DT_F64:
    return f64_bits(r) & 1u;
  case PTO_DT_F32: {
    float f = (float)r;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b & 1u;
  }
  default:
    return bits16(dt, r) & 1u;
  }
}

/* v (not NaN) rounded to a value of float dtype dt under `mode`. Directed
 * modes step from the nearest-even result to its neighbour; v - r and
 * o - v are exact (Sterbenz), so ties are detected exactly. */
static double round_float(PtoDType dt, double v, PtoCastMode mode) {
  double r = round_nearest(dt, v);
  if (r != v) {
    switch (mode.round) {
    case PTO_ROUND_DEFAULT:
    case PTO_ROUND_RINT:
      break;
    case PTO_ROUND_ROUND: {
      double o = next_float(dt, r, v > r);
      /* past the largest finite value the tie is with the value the
       * format would have next (2r in E8M0, one more last step
       * elsewhere), and away from zero it overflows: E4M3FN's 464 (RNE
       * gives its even 448) */
      bool over = isinf(o) && !isinf(r);
      if (over) o = dt == PTO_DT_F8E8M0 ? 2 * r : 2 * r - next_float(dt, r, v < r);
      if (v - r == o - v && fabs(o) > fabs(r)) r = over ? copysign(INFINITY, v) : o;
      break;
    }
    case PTO_ROUND_FLOOR:
      if (r > v) r = next_float(dt, r, false);
      break;
    case PTO_ROUND_CEIL:
      if (r < v) r = next_float(dt, r, true);
      break;
    case PTO_ROUND_TRUNC:
      if (fabs(r) > fabs(v)) r = next_float(dt, r, r < 0);
      break;
    case PTO_ROUND_ODD:
      if (!last_bit_odd(dt, r)) r = next_float(dt, r, v > r);
      break;
    }
  }
  if (mode.sat == PTO_SAT_SATURATE && isinf(r) && !isinf(v))
    r = copysign(max_finite(dt), v);
  return r;
}

/* An 8-bit float's code for v under `mode`. Formats without infinities
 * give NaN where IEEE would overflow (MLIR's and ml_dtypes' rule), the
 * largest finite value when saturating, which also takes their
 * infinities (OCP's saturating conversion); E8M0 makes a negative value
 * NaN. */
static uint8_t f8_from_f64(PtoDType dt, double v, PtoCastMode mode) {
  const F8Format *f = f8_format(dt);
  uint8_t nan = f->has_sign && signbit(v) ? 0xffu : f->has_sign ? 0x7fu : 0xffu;
  if (isnan(v) || (!f->has_sign && v < 0)) return nan;
  bool sat = mode.sat == PTO_SAT_SATURATE;
  if (isinf(v) && !f->has_inf)
    return sat ? f8_code(dt, copysign(max_finite(dt), v)) : nan;
  double r = round_float(dt, v, mode);
  if (isinf(r) && !f->has_inf) return nan;
  return f8_code(dt, r);
}

/* Stores v (possibly NaN) into a float element. */
static void store_float(PtoDType dt, char *p, double v, PtoCastMode mode) {
  if (is_f8(dt)) {
    *(uint8_t *)p = f8_from_f64(dt, v, mode);
    return;
  }
  if (isnan(v)) {
    switch (dt) {
    case PTO_DT_F16:
      wr16(p, nan_f64_to_half(v));
      return;
    case PTO_DT_BF16:
      wr16(p, pto_f32_to_bf16_bits((float)v));
      return;
    case PTO_DT_F32: {
      float f = (float)v;
      memcpy(p, &f, 4);
      return;
    }
    default:
      memcpy(p, &v, 8);
      return;
    }
  }
  double r = round_float(dt, v, mode);
  switch (dt) {
  case PTO_DT_F16:
  case PTO_DT_BF16:
    wr16(p, bits16(dt, r));
    break;
  case PTO_DT_F32: {
    float f = (float)r;
    memcpy(p, &f, 4);
    break;
  }
  default:
    memcpy(p, &r, 8);
    break;
  }
}

/* ---- integers ---- */

/* Reduces v modulo 2^bits of dt into its range (two's complement). */
static int64_t wrap_int(PtoDType dt, int64_t v) {
  unsigned bits = (unsigned)pto_dtype_size(dt) * 8;
  if (dt == PTO_DT_BOOL) return v != 0;
  if (bits == 64) return v;
  uint64_t mask = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & mask;
  if (pto_dtype_is_signed(dt) && (u >> (bits - 1))) return (int64_t)u - (int64_t)mask - 1;
  return (int64_t)u;
}

static int64_t int_to_int(PtoDType dt, int64_t v, PtoCastMode mode) {
  if (dt == PTO_DT_BOOL) return v != 0;
  if (mode.sat == PTO_SAT_SATURATE) {
    int64_t lo = pto_dtype_int_min(dt), hi = pto_dtype_int_max(dt);
    return v < lo ? lo : v > hi ? hi : v;
  }
  return wrap_int(dt, v);
}

static double round_integral(double v, PtoRoundMode m) {
  switch (m) {
  case PTO_ROUND_RINT:
    return nearbyint(v); /* the default FP environment rounds to even */
  case PTO_ROUND_ROUND:
    return round(v);
  case PTO_ROUND_FLOOR:
    return floor(v);
  case PTO_ROUND_CEIL:
    return ceil(v);
  case PTO_ROUND_ODD: {
    double t = trunc(v);
    if (t != v && fmod(t, 2.0) == 0.0) t += v > 0 ? 1.0 : -1.0;
    return t;
  }
  default:
    return trunc(v);
  }
}

static int64_t f64_to_int(PtoDType dt, double v, PtoCastMode mode) {
  if (dt == PTO_DT_BOOL) return v != 0; /* NaN is true, as in numpy */
  if (isnan(v)) return 0;
  double t = round_integral(v, mode.round);
  unsigned bits = (unsigned)pto_dtype_size(dt) * 8;
  if (mode.sat == PTO_SAT_SATURATE) {
    /* 2^(bits-1) (signed) or 2^bits (u8) is exact in double, unlike
     * INT64_MAX. A u64 result is its bit pattern. */
    double hi = ldexp(1.0, pto_dtype_is_signed(dt) ? (int)bits - 1 : (int)bits);
    if (t >= hi) return (int64_t)pto_dtype_uint_max(dt);
    if (t < (pto_dtype_is_signed(dt) ? -hi : 0.0)) return pto_dtype_int_min(dt);
    return t >= 0x1p63 ? (int64_t)(uint64_t)t : (int64_t)t;
  }
  if (isinf(t)) return 0;
  if (!(t >= -0x1p63 && t < 0x1p63)) {
    /* Exact reduction modulo 2^64 into [-2^63, 2^63). */
    t = fmod(t, 0x1p64);
    if (t >= 0x1p63) t -= 0x1p64;
    else if (t < -0x1p63) t += 0x1p64;
  }
  return wrap_int(dt, (int64_t)t);
}

/* The integer of magnitude u (negative when `neg`) -> double rounded
 * under `m` (odd rounding keeps a sticky bit so that rounding the result
 * again to a narrower format is exact). */
static double mag_to_f64(bool neg, uint64_t u, PtoRoundMode m) {
  if (u <= ((uint64_t)1 << 53)) return neg ? -(double)u : (double)u;
  int s = 0;
  while ((u >> s) >= ((uint64_t)1 << 53)) s++;
  uint64_t q = u >> s, rem = u & (((uint64_t)1 << s) - 1);
  uint64_t half = (uint64_t)1 << (s - 1);
  bool up = false;
  switch (m) {
  case PTO_ROUND_DEFAULT:
  case PTO_ROUND_RINT:
    up = rem > half || (rem == half && (q & 1));
    break;
  case PTO_ROUND_ROUND:
    up = rem >= half;
    break;
  case PTO_ROUND_FLOOR:
    up = neg && rem;
    break;
  case PTO_ROUND_CEIL:
    up = !neg && rem;
    break;
  case PTO_ROUND_TRUNC:
    break;
  case PTO_ROUND_ODD:
    if (rem) q |= 1;
    break;
  }
  if (up) q++; /* q <= 2^53: still exact */
  double d = ldexp((double)q, s);
  return neg ? -d : d;
}

static double i64_to_f64(int64_t i, PtoRoundMode m) {
  return mag_to_f64(i < 0, i < 0 ? 0 - (uint64_t)i : (uint64_t)i, m);
}

/* A u64 value into any dtype: as store_from_i64, but clamping and
 * rounding see the unsigned value. */
static void store_from_u64(PtoDType dt, char *p, uint64_t u, PtoCastMode mode) {
  if (dt == PTO_DT_BOOL) {
    store_int(dt, p, u != 0);
  } else if (pto_dtype_is_int(dt)) {
    bool clamp = mode.sat == PTO_SAT_SATURATE && u > pto_dtype_uint_max(dt);
    store_int(dt, p, clamp ? pto_dtype_int_max(dt) : wrap_int(dt, (int64_t)u));
  } else if (dt == PTO_DT_F64) {
    double d = mag_to_f64(false, u, mode.round);
    memcpy(p, &d, 8);
  } else {
    store_float(dt, p, mag_to_f64(false, u, PTO_ROUND_ODD), mode);
  }
}

static void store_from_i64(PtoDType dt, char *p, int64_t v, PtoCastMode mode) {
  if (pto_dtype_is_int(dt)) {
    store_int(dt, p, int_to_int(dt, v, mode));
  } else if (dt == PTO_DT_F64) {
    double d = i64_to_f64(v, mode.round);
    memcpy(p, &d, 8);
  } else {
    store_float(dt, p, i64_to_f64(v, PTO_ROUND_ODD), mode);
  }
}

/* ---- public scalar API ---- */

static double load_f64(PtoDType dt, const char *p) {
  if (is_f8(dt)) return f8_to_f64(dt, (uint8_t)*p);
  switch (dt) {
  case PTO_DT_F16:
    return half_to_f64(rd16(p));
  case PTO_DT_BF16:
    return bf16_to_f64(rd16(p));
  case PTO_DT_F32: {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  case PTO_DT_F64: {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  case PTO_DT_U64:
    return (double)(uint64_t)load_int(dt, p); /* to nearest even */
  default:
    return (double)load_int(dt, p);
  }
}

double pto_dtype_load_f64(PtoDType dt, const void *base, int64_t i) {
  return load_f64(dt, at_c(dt, base, i));
}

int64_t pto_dtype_load_i64(PtoDType dt, const void *base, int64_t i) {
  const char *p = at_c(dt, base, i);
  if (pto_dtype_is_int(dt)) return load_int(dt, p);
  PtoCastMode m = {PTO_ROUND_TRUNC, PTO_SAT_SATURATE};
  return f64_to_int(PTO_DT_I64, load_f64(dt, p), m);
}

void pto_dtype_cast_store_f64(PtoDType dt, void *base, int64_t i, double v,
                              PtoCastMode mode) {
  char *p = at(dt, base, i);
  if (pto_dtype_is_int(dt))
    store_int(dt, p, f64_to_int(dt, v, mode));
  else
    store_float(dt, p, v, mode);
}

void pto_dtype_cast_store_i64(PtoDType dt, void *base, int64_t i, int64_t v,
                              PtoCastMode mode) {
  store_from_i64(dt, at(dt, base, i), v, mode);
}

void pto_dtype_store_f64(PtoDType dt, void *base, int64_t i, double v) {
  pto_dtype_cast_store_f64(dt, base, i, v, PTO_CAST_DEFAULT);
}

void pto_dtype_store_i64(PtoDType dt, void *base, int64_t i, int64_t v) {
  pto_dtype_cast_store_i64(dt, base, i, v, PTO_CAST_DEFAULT);
}

double pto_dtype_round_f64(PtoDType dt, double v, PtoCastMode mode) {
  char buf[8];
  pto_dtype_cast_store_f64(dt, buf, 0, v, mode);
  return load_f64(dt, buf);
}

void pto_dtype_cast_elem(PtoDType sdt, const void *src, PtoDType ddt, void *dst,
                         PtoCastMode mode) {
  const char *s = src;
  char *d = dst;
  if (sdt == ddt) {
    memcpy(d, s, pto_dtype_size(sdt));
    return;
  }
  if (sdt == PTO_DT_U64) {
    store_from_u64(ddt, d, (uint64_t)load_int(sdt, s), mode);
    return;
  }
  if (pto_dtype_is_int(sdt)) {
    store_from_i64(ddt, d, load_int(sdt, s), mode);
    return;
  }
  /* f16/bf16 <-> f32 move NaNs bit-wise, as numpy does for f16; a trip
   * through double would quieten signalling NaNs. */
  if (ddt == PTO_DT_F32 && (sdt == PTO_DT_F16 || sdt == PTO_DT_BF16)) {
    uint16_t h = rd16(s);
    float f = sdt == PTO_DT_F16 ? pto_f16_bits_to_f32(h)
                                : pto_bf16_bits_to_f32(h);
    memcpy(d, &f, 4);
    return;
  }
  if (sdt == PTO_DT_F32 && (ddt == PTO_DT_F16 || ddt == PTO_DT_BF16)) {
    float f;
    memcpy(&f, s, 4);
    if (isnan(f)) {
      wr16(d, ddt == PTO_DT_F16 ? pto_f32_to_f16_bits(f)
                                : pto_f32_to_bf16_bits(f));
      return;
    }
  }
  double v = load_f64(sdt, s);
  if (pto_dtype_is_int(ddt))
    store_int(ddt, d, f64_to_int(ddt, v, mode));
  else
    store_float(ddt, d, v, mode);
}

/* ---- bulk conversion ---- */

/* Direct converters for the float pairs bulk code meets most, valid in the
 * default mode: each is exactly what pto_dtype_cast_elem computes for the
 * pair, without its dispatch and its trip through double. */
typedef void (*ElemFn)(const char *s, char *d);

static float rd_f32(const char *s) {
  float f;
  memcpy(&f, s, 4);
  return f;
}
static void wr_f32(char *d, float f) { memcpy(d, &f, 4); }
static void f32_f16(const char *s, char *d) {
  wr16(d, pto_f32_to_f16_bits(rd_f32(s)));
}
static void f32_bf16(const char *s, char *d) {
  wr16(d, pto_f32_to_bf16_bits(rd_f32(s)));
}
static void f16_f32(const char *s, char *d) {
  wr_f32(d, pto_f16_bits_to_f32(rd16(s)));
}
static void bf16_f32(const char *s, char *d) {
  wr_f32(d, pto_bf16_bits_to_f32(rd16(s)));
}
static void f32_f64(const char *s, char *d) {
  double v = rd_f32(s);
  memcpy(d, &v, 8);
}
static void f64_f32(const char *s, char *d) {
  double v;
  memcpy(&v, s, 8);
  wr_f32(d, (float)v);
}

static ElemFn direct_fn(PtoDType sdt, PtoDType ddt, PtoCastMode mode) {
  if ((mode.round != PTO_ROUND_DEFAULT && mode.round != PTO_ROUND_RINT) ||
      mode.sat != PTO_SAT_WRAP)
    return NULL;
  if (sdt == PTO_DT_F32) {
    if (ddt == PTO_DT_F16) return f32_f16;
    if (ddt == PTO_DT_BF16) return f32_bf16;
    if (ddt == PTO_DT_F64) return f32_f64;
  } else if (ddt == PTO_DT_F32) {
    if (sdt == PTO_DT_F16) return f16_f32;
    if (sdt == PTO_DT_BF16) return bf16_f32;
    if (sdt == PTO_DT_F64) return f64_f32;
  }
  return NULL;
}

static void convert_row(PtoDType sdt, const char *s, int64_t sstep,
                        PtoDType ddt, char *d, int64_t dstep, int64_t n,
                        PtoCastMode mode) {
  if (n <= 0) return;
  if (sdt == ddt && sstep == dstep && sstep == (int64_t)pto_dtype_size(sdt)) {
    memcpy(d, s, (size_t)n * pto_dtype_size(sdt));
    return;
  }
  ElemFn fn = direct_fn(sdt, ddt, mode);
  if (fn) {
    for (int64_t i = 0; i < n; i++) fn(s + i * sstep, d + i * dstep);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    pto_dtype_cast_elem(sdt, s + i * sstep, ddt, d + i * dstep, mode);
}

void pto_dtype_convert_n(PtoDType sdt, const void *src, PtoDType ddt,
                         void *dst, size_t n, PtoCastMode mode) {
  convert_row(sdt, src, (int64_t)pto_dtype_size(sdt), ddt, dst,
              (int64_t)pto_dtype_size(ddt), (int64_t)n, mode);
}

void pto_contiguous_strides(unsigned rank, const int64_t *shape,
                            int64_t *strides) {
  int64_t s = 1;
  for (unsigned i = rank; i-- > 0;) {
    strides[i] = s;
    /* only an empty array's product can overflow (other sizes are checked
     * first); its strides are never used, so saturate */
    if (__builtin_mul_overflow(s, shape[i] > 0 ? shape[i] : 1, &s))
      s = INT64_MAX;
  }
}

void pto_dtype_convert(PtoDType sdt, const void *src, const int64_t *sstrides,
                       PtoDType ddt, void *dst, const int64_t *dstrides,
                       unsigned rank, const int64_t *shape, PtoCastMode mode) {
  assert(rank <= PTO_MAX_RANK);
  int64_t ss[PTO_MAX_RANK + 1], ds[PTO_MAX_RANK + 1];
  int64_t idx[PTO_MAX_RANK + 1] = {0};
  for (unsigned i = 0; i < rank; i++)
    if (shape[i] <= 0) return; /* no elements */
  if (rank == 0) {
    pto_dtype_cast_elem(sdt, src, ddt, dst, mode);
    return;
  }
  int64_t sb = (int64_t)pto_dtype_size(sdt), db = (int64_t)pto_dtype_size(ddt);
  if (sstrides) memcpy(ss, sstrides, rank * sizeof *ss);
  else pto_contiguous_strides(rank, shape, ss);
  if (dstrides) memcpy(ds, dstrides, rank * sizeof *ds);
  else pto_contiguous_strides(rank, shape, ds);
  for (unsigned i = 0; i < rank; i++) {
    ss[i] *= sb;
    ds[i] *= db;
  }
  /* Odometer over all dims but the last, each step converting one row.
   * Offsets stay integers so that no pointer leaves the buffers. */
  unsigned last = rank - 1;
  int64_t so = 0, dof = 0;
  for (;;) {
    convert_row(sdt, (const char *)src + so, ss[last], ddt, (char *)dst + dof,
                ds[last], shape[last], mode);
    unsigned k = last;
    for (;;) {
      if (k == 0) return;
      k--;
      so += ss[k];
      dof += ds[k];
      if (++idx[k] < shape[k]) break;
      so -= ss[k] * shape[k];
      dof -= ds[k] * shape[k];
      idx[k] = 0;
    }
  }
}
