/* The 16-bit float formats (IEEE half f16, bfloat16) as bit patterns:
 * conversions to and from f32, rounding to nearest even, NaN payloads kept
 * as numpy keeps them. Part of lib/Support: no IR. */
#ifndef PTO_FLOAT16_H
#define PTO_FLOAT16_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint16_t pto_f32_to_f16_bits(float f);
float pto_f16_bits_to_f32(uint16_t h);
uint16_t pto_f32_to_bf16_bits(float f);
float pto_bf16_bits_to_f32(uint16_t h);
/* A double rounded once (to nearest even) to f16 / bf16 precision, as a
 * double. */
double pto_round_to_f16(double v);
double pto_round_to_bf16(double v);

#ifdef __cplusplus
}
#endif
#endif
