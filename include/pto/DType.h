/* Element types PTO computes on (PtoDType): their storage, names, numpy
 * spellings, and the scalar and bulk conversions every
 * numeric kernel (interpreter, runtime, .npy I/O) shares. docs/numerics.md
 * states the rules; the conversions agree bit for bit with numpy's astype
 * wherever numpy defines a result. */
#ifndef PTO_DTYPE_H
#define PTO_DTYPE_H

#include "pto/Error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values are stable (the Python front end passes them through ctypes). */
typedef enum PtoDType {
  PTO_DT_F32 = 0,
  PTO_DT_F16 = 1,
  PTO_DT_BF16 = 2,
  PTO_DT_F64 = 3,
  PTO_DT_I8 = 4,
  PTO_DT_I16 = 5,
  PTO_DT_I32 = 6,
  PTO_DT_I64 = 7,
  PTO_DT_U8 = 8,
  PTO_DT_BOOL = 9,  /* i1, one byte holding 0 or 1 */
  PTO_DT_INDEX = 10, /* int64 storage */
  PTO_DT_U16 = 11,
  PTO_DT_U32 = 12,
  /* OCP 8-bit floats (MLIR's f8E4M3FN, f8E5M2, f8E8M0FNU), one byte each;
   * numpy has no dtype for them, so arrays hold their bit patterns as
   * uint8 (docs/numerics.md). */
  PTO_DT_F8E4M3 = 13,
  PTO_DT_F8E5M2 = 14,
  PTO_DT_F8E8M0 = 15,
  /* Kernels compute integers in int64; a u64 value above 2^63 is its bit
   * pattern there, so ordering, division and conversions to float take
   * unsigned paths (pto_dtype_is_u64). */
  PTO_DT_U64 = 16
} PtoDType;
#define PTO_DT_COUNT 17

/* Largest rank of the host arrays and strided conversions. */
#define PTO_MAX_RANK 8

bool pto_dtype_is_valid(int dt);
/* Bytes per element. */
size_t pto_dtype_size(PtoDType dt);
/* Short name: f32 f16 bf16 f64 i8 i16 i32 i64 u8 bool index u16 u32
 * f8e4m3 f8e5m2 f8e8m0 u64. */
const char *pto_dtype_name(PtoDType dt);
/* The IR's spelling of the element type: f32 ... i64, ui8 ui16 ui32, i1,
 * index, f8E4M3FN f8E5M2 f8E8M0FNU; what diagnostics about IR types say. */
const char *pto_dtype_ir_name(PtoDType dt);
/* numpy's name: float32 ... uint8 bool; bf16 is "bfloat16" (not a numpy
 * type), index is "int64". */
const char *pto_dtype_numpy_name(PtoDType dt);
/* The .npy descr written for the dtype: '<f4', '<f2', '|i1', '|b1', ...
 * bf16 is written as '<u2' (raw bit patterns, see docs/npy.md), so a
 * '<u2' file reads as bf16 and u16 is written so too; index is '<i8'; the
 * 8-bit floats are written as '|u1' (their bit patterns). */
const char *pto_dtype_npy_descr(PtoDType dt);
/* Accepts the short names, numpy's names and the IR spellings (i1, ui8,
 * index). */
bool pto_dtype_from_name(const char *name, PtoDType *out);

/* f16 bf16 f32 f64 and the 8-bit floats. */
bool pto_dtype_is_float(PtoDType dt);
/* Integer storage: i8..i64, u8..u64, bool, index. */
bool pto_dtype_is_int(PtoDType dt);
/* Can hold negative values: floats but f8e8m0, i8..i64 and index (not
 * u8..u64, bool). */
bool pto_dtype_is_signed(PtoDType dt);
/* u64: the one integer dtype whose values do not all fit int64 (its
 * int64 form is the bit pattern). */
static inline bool pto_dtype_is_u64(PtoDType dt) { return dt == PTO_DT_U64; }
/* Range of an integer dtype (bool: 0..1). int_max of u64 is INT64_MAX,
 * the largest value it shares with int64; uint_max gives its own. */
int64_t pto_dtype_int_min(PtoDType dt);
int64_t pto_dtype_int_max(PtoDType dt);
uint64_t pto_dtype_uint_max(PtoDType dt);

/* Scalar IR types <-> dtypes: pto/IRDType.h, on the IR side. */

/* ---- casts ---- */

/* How a value that the target cannot hold exactly is rounded. The default
 * is numpy's astype: to nearest even for float results, toward zero for
 * integer results. */
typedef enum PtoRoundMode {
  PTO_ROUND_DEFAULT = 0,
  PTO_ROUND_RINT = 1,  /* to nearest, ties to even */
  PTO_ROUND_ROUND = 2, /* to nearest, ties away from zero */
  PTO_ROUND_FLOOR = 3, /* toward -inf */
  PTO_ROUND_CEIL = 4,  /* toward +inf */
  PTO_ROUND_TRUNC = 5, /* toward zero */
  PTO_ROUND_ODD = 6    /* inexact results take the neighbour with an odd
                          last digit (a sticky bit for a later rounding) */
} PtoRoundMode;

/* What happens to values outside the target's range. */
typedef enum PtoSatMode {
  /* Integer results wrap modulo 2^bits (two's complement); NaN and +-inf
   * give 0. Float results overflow to +-inf. */
  PTO_SAT_WRAP = 0,
  /* Integer results clamp to [min, max]; NaN gives 0. Finite float results
   * clamp to +-max finite (infinities stay infinite). */
  PTO_SAT_SATURATE = 1
} PtoSatMode;

typedef struct PtoCastMode {
  PtoRoundMode round;
  PtoSatMode sat;
} PtoCastMode;

/* The zero-initialised mode: numpy's astype. */
#define PTO_CAST_DEFAULT ((PtoCastMode){PTO_ROUND_DEFAULT, PTO_SAT_WRAP})

const char *pto_round_mode_name(PtoRoundMode m); /* "rint", "floor", ... */
bool pto_round_mode_from_name(const char *name, PtoRoundMode *out);
const char *pto_sat_mode_name(PtoSatMode m);     /* "wrap", "saturate" */
bool pto_sat_mode_from_name(const char *name, PtoSatMode *out);

/* Element i (counted in elements from `base`, may be negative) of a buffer
 * of `dt`. load_f64 is exact except for 64-bit integers beyond 2^53 (to
 * nearest even); bool reads any non-zero byte as 1. load_i64 of a float
 * truncates toward zero and saturates, NaN giving 0; of a u64, the bit
 * pattern. store_i64 into a float reads v as signed: a u64 source goes
 * through pto_dtype_cast_elem. */
double pto_dtype_load_f64(PtoDType dt, const void *base, int64_t i);
int64_t pto_dtype_load_i64(PtoDType dt, const void *base, int64_t i);
/* Stores with the default mode (numpy's astype): floats round to nearest
 * even, integers wrap, conversion to bool is `v != 0`. */
void pto_dtype_store_f64(PtoDType dt, void *base, int64_t i, double v);
void pto_dtype_store_i64(PtoDType dt, void *base, int64_t i, int64_t v);
void pto_dtype_cast_store_f64(PtoDType dt, void *base, int64_t i, double v,
                              PtoCastMode mode);
void pto_dtype_cast_store_i64(PtoDType dt, void *base, int64_t i, int64_t v,
                              PtoCastMode mode);
/* The value `v` becomes when stored as `dt` (and read back as double):
 * interpreters that compute in double round their results with this. */
double pto_dtype_round_f64(PtoDType dt, double v, PtoCastMode mode);

/* Converts one element; src and dst point at the elements. Same-dtype
 * conversion copies the bits. */
void pto_dtype_cast_elem(PtoDType src_dt, const void *src, PtoDType dst_dt,
                         void *dst, PtoCastMode mode);
/* Converts `n` contiguous elements. */
void pto_dtype_convert_n(PtoDType src_dt, const void *src, PtoDType dst_dt,
                         void *dst, size_t n, PtoCastMode mode);
/* Converts an n-d array of `shape` (rank <= PTO_MAX_RANK) between strided
 * buffers. Strides are in elements (of each buffer's own dtype) and may be
 * negative or zero; NULL strides mean C-contiguous. The buffers must not
 * overlap. */
void pto_dtype_convert(PtoDType src_dt, const void *src,
                       const int64_t *src_strides, PtoDType dst_dt, void *dst,
                       const int64_t *dst_strides, unsigned rank,
                       const int64_t *shape, PtoCastMode mode);

/* Row-major strides (in elements) of `shape`. */
void pto_contiguous_strides(unsigned rank, const int64_t *shape,
                            int64_t *strides);

#ifdef __cplusplus
}
#endif
#endif
