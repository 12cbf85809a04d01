/* The kernels' row odometer, broadcasting strides and typed row I/O. */
#include "Kernels/KernelUtil.h"

#include <stdio.h>
#include <string.h>

const char *kernel_shape_str(char *buf, const PtoNdArray *a) {
  return pto_shape_str(buf, a->rank, a->shape);
}

bool kernel_same_shape(const PtoNdArray *a, unsigned rank, const int64_t *shape) {
  if (a->rank != rank) return false;
  for (unsigned i = 0; i < rank; i++)
    if (a->shape[i] != shape[i]) return false;
  return true;
}

void kernel_iter_init(KernelIter *it, unsigned rank, const int64_t *shape,
                  unsigned narr, int64_t strides[][PTO_MAX_RANK]) {
  memset(it, 0, sizeof *it);
  it->narr = narr;
  for (unsigned d = 0; d < rank; d++)
    if (shape[d] == 0) {
      it->empty = true;
      return;
    }
  /* Drop size-1 dims, then merge a dim into the next inner one when every
   * array steps over it as over one longer row. */
  unsigned r = 0;
  for (unsigned d = 0; d < rank; d++) {
    if (shape[d] == 1) continue;
    if (r > 0) {
      bool merge = true;
      for (unsigned k = 0; k < narr; k++)
        if (it->strides[k][r - 1] != strides[k][d] * shape[d]) merge = false;
      if (merge) {
        it->shape[r - 1] *= shape[d];
        for (unsigned k = 0; k < narr; k++)
          it->strides[k][r - 1] = strides[k][d];
        continue;
      }
    }
    it->shape[r] = shape[d];
    for (unsigned k = 0; k < narr; k++) it->strides[k][r] = strides[k][d];
    r++;
  }
  if (r == 0) { /* a single element */
    it->n = 1;
    for (unsigned k = 0; k < narr; k++) it->step[k] = 0;
    it->rank = 0;
    return;
  }
  it->n = it->shape[r - 1];
  for (unsigned k = 0; k < narr; k++) it->step[k] = it->strides[k][r - 1];
  it->rank = r - 1;
}

bool kernel_iter_next(KernelIter *it) {
  for (unsigned d = it->rank; d-- > 0;) {
    for (unsigned k = 0; k < it->narr; k++) it->off[k] += it->strides[k][d];
    if (++it->idx[d] < it->shape[d]) return true;
    for (unsigned k = 0; k < it->narr; k++)
      it->off[k] -= it->strides[k][d] * it->shape[d];
    it->idx[d] = 0;
  }
  return false;
}

bool kernel_bcast_strides(const PtoNdArray *a, unsigned rank, const int64_t *shape,
                      int64_t *strides, const char *what,
                      PtoKernelError *err) {
  char b1[PTO_SHAPE_STR_MAX], b2[PTO_SHAPE_STR_MAX];
  if (a->rank > rank) {
    pto_error_set(err, "%s of shape %s does not broadcast to %s", what,
            kernel_shape_str(b1, a), pto_shape_str(b2, rank, shape));
    return false;
  }
  unsigned lead = rank - a->rank;
  for (unsigned d = 0; d < rank; d++) {
    if (d < lead) {
      strides[d] = 0;
      continue;
    }
    int64_t n = a->shape[d - lead];
    if (n == shape[d]) {
      strides[d] = n == 1 ? 0 : a->strides[d - lead];
    } else if (n == 1) {
      strides[d] = 0;
    } else {
      pto_error_set(err, "%s of shape %s does not broadcast to %s", what,
              kernel_shape_str(b1, a), pto_shape_str(b2, rank, shape));
      return false;
    }
  }
  return true;
}

bool kernel_iter_map(KernelIter *it, const PtoNdArray *in, const PtoNdArray *out,
                 PtoKernelError *err) {
  int64_t st[2][PTO_MAX_RANK];
  if (!kernel_bcast_strides(in, out->rank, out->shape, st[0], "input", err))
    return false;
  memcpy(st[1], out->strides, out->rank * sizeof(int64_t));
  kernel_iter_init(it, out->rank, out->shape, 2, st);
  return true;
}

double kernel_round(PtoDType dt, double v) {
  switch (dt) {
  case PTO_DT_F32:
    return (double)(float)v;
  case PTO_DT_F16:
    return pto_round_to_f16(v);
  case PTO_DT_BF16:
    return pto_round_to_bf16(v);
  case PTO_DT_F8E4M3:
  case PTO_DT_F8E5M2:
  case PTO_DT_F8E8M0:
    return pto_dtype_round_f64(dt, v, PTO_CAST_DEFAULT);
  default:
    return v;
  }
}

/* One loop per storage type; `CONV` turns the stored element into the
 * buffer's type. */
#define LOAD_ROW(T, CONV)                                                    \
  do {                                                                       \
    const T *p = (const T *)data + off;                                      \
    if (step == 1)                                                           \
      for (int64_t i = 0; i < n; i++) out[i] = CONV(p[i]);                   \
    else                                                                     \
      for (int64_t i = 0; i < n; i++) out[i] = CONV(p[i * step]);            \
  } while (0)
#define STORE_ROW(T, CONV)                                                   \
  do {                                                                       \
    T *p = (T *)data + off;                                                  \
    if (step == 1)                                                           \
      for (int64_t i = 0; i < n; i++) p[i] = CONV(in[i]);                    \
    else                                                                     \
      for (int64_t i = 0; i < n; i++) p[i * step] = CONV(in[i]);             \
  } while (0)

#define AS_IS(x) (x)
#define F16_IN(x) ((double)pto_f16_bits_to_f32(x))
#define BF16_IN(x) ((double)pto_bf16_bits_to_f32(x))
#define BOOL_IN(x) ((x) != 0)

void kernel_load_f64(PtoDType dt, const void *data, int64_t off, int64_t step,
                 int64_t n, double *out) {
  switch (dt) {
  case PTO_DT_F32: LOAD_ROW(float, (double)); break;
  case PTO_DT_F64: LOAD_ROW(double, AS_IS); break;
  case PTO_DT_F16: LOAD_ROW(uint16_t, F16_IN); break;
  case PTO_DT_BF16: LOAD_ROW(uint16_t, BF16_IN); break;
  case PTO_DT_I8: LOAD_ROW(int8_t, (double)); break;
  case PTO_DT_I16: LOAD_ROW(int16_t, (double)); break;
  case PTO_DT_I32: LOAD_ROW(int32_t, (double)); break;
  case PTO_DT_I64:
  case PTO_DT_INDEX: LOAD_ROW(int64_t, (double)); break;
  case PTO_DT_U8: LOAD_ROW(uint8_t, (double)); break;
  case PTO_DT_U16: LOAD_ROW(uint16_t, (double)); break;
  case PTO_DT_U32: LOAD_ROW(uint32_t, (double)); break;
  case PTO_DT_U64: LOAD_ROW(uint64_t, (double)); break;
  case PTO_DT_BOOL: LOAD_ROW(uint8_t, (double)BOOL_IN); break;
  default: /* the 8-bit floats */
    for (int64_t i = 0; i < n; i++)
      out[i] = pto_dtype_load_f64(dt, data, off + i * step);
    break;
  }
}

void kernel_load_i64(PtoDType dt, const void *data, int64_t off, int64_t step,
                 int64_t n, int64_t *out) {
  switch (dt) {
  case PTO_DT_I8: LOAD_ROW(int8_t, (int64_t)); break;
  case PTO_DT_I16: LOAD_ROW(int16_t, (int64_t)); break;
  case PTO_DT_I32: LOAD_ROW(int32_t, (int64_t)); break;
  case PTO_DT_I64:
  case PTO_DT_U64: /* the bit pattern */
  case PTO_DT_INDEX: LOAD_ROW(int64_t, AS_IS); break;
  case PTO_DT_U8: LOAD_ROW(uint8_t, (int64_t)); break;
  case PTO_DT_U16: LOAD_ROW(uint16_t, (int64_t)); break;
  case PTO_DT_U32: LOAD_ROW(uint32_t, (int64_t)); break;
  case PTO_DT_BOOL: LOAD_ROW(uint8_t, (int64_t)BOOL_IN); break;
  default: /* floats: toward zero, saturating, NaN 0 */
    for (int64_t i = 0; i < n; i++)
      out[i] = pto_dtype_load_i64(dt, data, off + i * step);
    break;
  }
}

#define F32_OUT(x) ((float)(x))
#define F16_OUT(x) pto_f32_to_f16_bits((float)pto_round_to_f16((x)))
#define BF16_OUT(x) pto_f32_to_bf16_bits((float)pto_round_to_bf16((x)))
#define I8_OUT(x) ((int8_t)(uint8_t)(uint64_t)(x))
#define I16_OUT(x) ((int16_t)(uint16_t)(uint64_t)(x))
#define I32_OUT(x) ((int32_t)(uint32_t)(uint64_t)(x))
#define U8_OUT(x) ((uint8_t)(uint64_t)(x))
#define U16_OUT(x) ((uint16_t)(uint64_t)(x))
#define U32_OUT(x) ((uint32_t)(uint64_t)(x))
#define BOOL_OUT(x) ((uint8_t)((x) != 0))

void kernel_store_f64(PtoDType dt, void *data, int64_t off, int64_t step,
                  int64_t n, const double *in) {
  switch (dt) {
  case PTO_DT_F32: STORE_ROW(float, F32_OUT); break;
  case PTO_DT_F64: STORE_ROW(double, AS_IS); break;
  case PTO_DT_F16: STORE_ROW(uint16_t, F16_OUT); break;
  case PTO_DT_BF16: STORE_ROW(uint16_t, BF16_OUT); break;
  default: /* integers: numpy's astype (toward zero, wrapping); 8-bit
              floats: nearest even */
    for (int64_t i = 0; i < n; i++)
      pto_dtype_store_f64(dt, data, off + i * step, in[i]);
    break;
  }
}

void kernel_store_i64(PtoDType dt, void *data, int64_t off, int64_t step,
                  int64_t n, const int64_t *in) {
  switch (dt) {
  case PTO_DT_I8: STORE_ROW(int8_t, I8_OUT); break;
  case PTO_DT_I16: STORE_ROW(int16_t, I16_OUT); break;
  case PTO_DT_I32: STORE_ROW(int32_t, I32_OUT); break;
  case PTO_DT_I64:
  case PTO_DT_U64:
  case PTO_DT_INDEX: STORE_ROW(int64_t, AS_IS); break;
  case PTO_DT_U8: STORE_ROW(uint8_t, U8_OUT); break;
  case PTO_DT_U16: STORE_ROW(uint16_t, U16_OUT); break;
  case PTO_DT_U32: STORE_ROW(uint32_t, U32_OUT); break;
  case PTO_DT_BOOL: STORE_ROW(uint8_t, BOOL_OUT); break;
  default: /* floats: nearest even */
    for (int64_t i = 0; i < n; i++)
      pto_dtype_store_i64(dt, data, off + i * step, in[i]);
    break;
  }
}
