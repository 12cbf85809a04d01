/* The 16-bit float formats (IEEE half, bfloat16): conversions to and from
 * f32 and rounding of a double to their precision, for every layer that
 * stores or computes them (IR attributes, arrays, kernels). */
#include "pto/Float16.h"

#include <math.h>
#include <string.h>


uint16_t pto_f32_to_f16_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) { /* inf, or nan keeping its top payload bits (numpy) */
    uint32_t h = 0x7c00u | (man >> 13);
    if (man && h == 0x7c00u) h++; /* a payload only in low bits: stay nan */
    return (uint16_t)(sign | h);
  }
  int32_t e = (int32_t)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)e << 10) | (man >> 13);
  uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) half++;
  return (uint16_t)half;
}

float pto_f16_bits_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
  if (exp == 0) {
    if (man == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        e++;
        man <<= 1;
      } while (!(man & 0x400u));
      x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (man << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}

uint16_t pto_f32_to_bf16_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return (uint16_t)(x >> 16);
}

float pto_bf16_bits_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* double -> float rounding to odd: rounding that result again to a format
 * with at most 22 significand bits is then exactly a single correct
 * rounding (no double-rounding error). */
static float f64_to_f32_round_odd(double v) {
  float f = (float)v;
  if (isnan(v) || isinf(f) || (double)f == v) return f;
  if (fabs((double)f) > fabs(v)) f = nextafterf(f, 0.0f);
  uint32_t x;
  memcpy(&x, &f, 4);
  x |= 1u;
  memcpy(&f, &x, 4);
  return f;
}

double pto_round_to_f16(double v) {
  return pto_f16_bits_to_f32(pto_f32_to_f16_bits(f64_to_f32_round_odd(v)));
}

double pto_round_to_bf16(double v) {
  return pto_bf16_bits_to_f32(pto_f32_to_bf16_bits(f64_to_f32_round_odd(v)));
}
