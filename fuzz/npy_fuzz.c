/* libFuzzer target for the .npy reader: any bytes are read from memory;
 * an array that reads must write back (in the oldest header version that
 * holds it, then in each of versions 1 to 3), read again to the same
 * dtype, shape and bits, and write the same bytes again. Small arrays are
 * also converted to every dtype in every rounding and saturation mode, the
 * path pto-run and the Python package take for a mismatched dtype. */
#include "FuzzSupport.h"

#include "pto/IRArray.h"

#include <stdint.h>
#include <string.h>

enum { MAX_CONVERT_NUMEL = 4096 };

static void check_write_read(PtoContext *ctx, const PtoNdArray *a,
                             unsigned version) {
  PtoNpyWriteOptions wo = {version};
  size_t len;
  void *buf = pto_npy_write_buffer(ctx, a, &wo, &len);
  /* A version too small for the header is a legitimate refusal. */
  if (!buf) {
    if (version == 0) fuzz_fail("an array that was read does not write", NULL, NULL);
    return;
  }
  PtoNdArray *b = pto_npy_read_buffer(ctx, buf, len, "written");
  if (!b) fuzz_fail("a written .npy does not read back", NULL, NULL);
  if (!pto_ndarray_equal(a, b))
    fuzz_fail("a written .npy reads back different", NULL, NULL);
  size_t len2;
  void *buf2 = pto_npy_write_buffer(ctx, b, &wo, &len2);
  if (!buf2 || len2 != len || memcmp(buf, buf2, len) != 0)
    fuzz_fail("writing a .npy is not a fixed point", NULL, NULL);
  pto_free(buf2);
  pto_ndarray_destroy(b);
  pto_free(buf);
}

static void check_converts(const PtoNdArray *a) {
  if (pto_ndarray_numel(a) > MAX_CONVERT_NUMEL) return;
  for (int dt = 0; dt < PTO_DT_COUNT; dt++) {
    if (!pto_dtype_is_valid(dt)) continue;
    for (int r = PTO_ROUND_DEFAULT; r <= PTO_ROUND_ODD; r++)
      for (int s = PTO_SAT_WRAP; s <= PTO_SAT_SATURATE; s++) {
        PtoCastMode mode = {(PtoRoundMode)r, (PtoSatMode)s};
        PtoNdArray *c = pto_ndarray_convert(a, (PtoDType)dt, mode);
        if (!c) fuzz_fail("converting a small array failed", NULL, NULL);
        if (c->dtype != (PtoDType)dt || c->rank != a->rank ||
            memcmp(c->shape, a->shape, sizeof a->shape) != 0)
          fuzz_fail("a conversion changed the shape", NULL, NULL);
        pto_ndarray_destroy(c);
      }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  PtoContext *ctx = fuzz_context_create(true);
  PtoNdArray *a = pto_npy_read_buffer(ctx, data, size, "fuzz");
  if (a) {
    for (unsigned v = 0; v <= 3; v++) check_write_read(ctx, a, v);
    check_converts(a);
    pto_ndarray_destroy(a);
  }
  pto_ctx_destroy(ctx);
  return 0;
}
