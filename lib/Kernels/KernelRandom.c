/* Counter-based random numbers for pypto.uniform / pypto.normal: every
 * element is a pure function of (key, counter, its row-major index in the
 * whole tensor), so any tiling, launch order or thread count gives the
 * same numbers. The generator is Philox4x32-10 (Salmon et al., SC'11). */
#include "Kernels/KernelUtil.h"

#include <math.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void pto_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                       uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* Element `li` of the stream: lane li % 4 of block li / 4. */
static void block_of(uint64_t li, uint64_t key, uint64_t counter, uint32_t w[4]) {
  uint64_t b = li / 4;
  uint32_t ctr[4] = {(uint32_t)b, (uint32_t)(b >> 32), (uint32_t)counter,
                     (uint32_t)(counter >> 32)};
  uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  pto_philox4x32_10(ctr, k, w);
}

/* Significand bits of a float dtype (with the implicit one): a uniform
 * value keeps that many random bits, so it is exact in the dtype and
 * rounding can never reach 1.0. */
static int precision_bits(PtoDType dt) {
  switch (dt) {
  case PTO_DT_F16: return 11;
  case PTO_DT_BF16: return 8;
  case PTO_DT_F8E4M3: return 4;
  case PTO_DT_F8E5M2: return 3;
  case PTO_DT_F8E8M0: return 1;
  case PTO_DT_F64: return 32;
  default: return 24;
  }
}

static double value_at(PtoRandomKind k, uint64_t li, uint64_t key,
                       uint64_t counter, int bits) {
  uint32_t w[4];
  block_of(li, key, counter, w);
  unsigned lane = (unsigned)(li % 4);
  if (k == PTO_RANDOM_UNIFORM)
    return ldexp((double)(w[lane] >> (32 - bits)), -bits);
  /* Box-Muller on the lane pair (0, 1) or (2, 3): u1 in (0, 1] keeps the
   * log finite; the even lane takes the cosine, the odd one the sine. */
  unsigned pair = lane & ~1u;
  double u1 = ldexp((double)w[pair] + 1.0, -32);
  double u2 = ldexp((double)w[pair + 1], -32);
  double r = sqrt(-2.0 * log(u1));
  double a = 6.283185307179586476925 * u2;
  return lane & 1u ? r * sin(a) : r * cos(a);
}

PtoResult pto_kernel_random(PtoRandomKind k, uint64_t key, uint64_t counter,
                            unsigned rank, const int64_t *full,
                            const int64_t *origin, const PtoNdArray *out,
                            PtoKernelError *err) {
  if (!pto_dtype_is_float(out->dtype))
    return pto_error_set(err, "%s needs a float output, got %s",
                         k == PTO_RANDOM_UNIFORM ? "uniform" : "normal",
                         pto_dtype_name(out->dtype));
  if (out->rank > rank || rank > PTO_MAX_RANK)
    return pto_error_set(err, "random: output rank %u exceeds the tensor's %u",
                         out->rank, rank);
  /* The window: the output's dims are the trailing ones, leading ones 1. */
  int64_t size[PTO_MAX_RANK], stride[PTO_MAX_RANK], ostride[PTO_MAX_RANK];
  unsigned lead = rank - out->rank;
  int64_t s = 1;
  for (unsigned d = rank; d-- > 0;) {
    size[d] = d < lead ? 1 : out->shape[d - lead];
    ostride[d] = d < lead ? 0 : out->strides[d - lead];
    if (origin[d] < 0 || size[d] < 0 || origin[d] > full[d] - size[d])
      return pto_error_set(err, "random: window [%lld, +%lld) of dim %u is outside "
                           "the tensor's %lld", (long long)origin[d],
                           (long long)size[d], d, (long long)full[d]);
    stride[d] = s;
    s *= full[d];
  }
  int bits = precision_bits(out->dtype);
  int64_t idx[PTO_MAX_RANK] = {0};
  for (unsigned d = 0; d < rank; d++)
    if (size[d] == 0) return PTO_SUCCESS;
  for (;;) {
    uint64_t li = 0;
    int64_t off = 0;
    for (unsigned d = 0; d < rank; d++) {
      li += (uint64_t)((origin[d] + idx[d]) * stride[d]);
      off += idx[d] * ostride[d];
    }
    double v = value_at(k, li, key, counter, bits);
    kernel_store_f64(out->dtype, out->data, off, 1, 1, &v);
    unsigned d = rank;
    while (d-- > 0) {
      if (++idx[d] < size[d]) break;
      idx[d] = 0;
    }
    if (d == (unsigned)-1) break;
  }
  return PTO_SUCCESS;
}
