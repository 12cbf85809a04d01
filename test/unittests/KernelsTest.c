/* The layers below the IR on their own: this test links pto_kernels (and
 * through it pto_array and pto_support) and nothing else, so a kernel or
 * an array routine that reached into the IR would fail to link here. It
 * checks the kernels' numerics and plain error values, .npy in memory and
 * the 16-bit float formats. */
#include "Test.h"
#include "pto/Float16.h"
#include "pto/Kernels.h"
#include "pto/Npy.h"

#include <math.h>

static PtoNdArray *vec_f32(const float *v, int64_t n) {
  PtoNdArray *a = pto_ndarray_create(PTO_DT_F32, 1, &n, NULL);
  memcpy(a->data, v, (size_t)n * sizeof *v);
  return a;
}

static float at(const PtoNdArray *a, int64_t i) { return ((float *)a->data)[i]; }

TEST(unary_kernels_with_parameters) {
  float x[4] = {-2.0f, -0.5f, 0.0f, 3.0f};
  PtoNdArray *a = vec_f32(x, 4), *o = vec_f32(x, 4);
  PtoKernelError err;
  double slope[1] = {0.25};
  CHECK(pto_kernel_unary_params(PTO_UNARY_LEAKY_RELU, slope, a, o, &err) ==
        PTO_SUCCESS);
  CHECK(at(o, 0) == -0.5f && at(o, 1) == -0.125f && at(o, 3) == 3.0f);
  /* defaults: slope 0.01; clip unbounded */
  CHECK(pto_kernel_unary(PTO_UNARY_LEAKY_RELU, a, o, &err) == PTO_SUCCESS);
  CHECK(at(o, 0) == -0.02f);
  double bounds[2] = {-1.0, 1.0};
  CHECK(pto_kernel_unary_params(PTO_UNARY_CLIP, bounds, a, o, &err) == PTO_SUCCESS);
  CHECK(at(o, 0) == -1.0f && at(o, 1) == -0.5f && at(o, 3) == 1.0f);
  CHECK(pto_kernel_unary(PTO_UNARY_HARDSIGMOID, a, o, &err) == PTO_SUCCESS);
  CHECK(at(o, 2) == 0.5f && at(o, 3) == 1.0f);
  CHECK(pto_unary_num_params(PTO_UNARY_CLIP) == 2);
  CHECK_STR(pto_unary_param_name(PTO_UNARY_CLIP, 1), "max");
  CHECK(isinf(pto_unary_param_default(PTO_UNARY_CLIP, 0)));
  CHECK_STR(pto_unary_kind_name(PTO_UNARY_LOG1P), "log1p");
  pto_ndarray_destroy(a);
  pto_ndarray_destroy(o);
}

TEST(kernel_errors_are_plain_values) {
  int64_t n = 3;
  PtoNdArray *i = pto_ndarray_create(PTO_DT_I32, 1, &n, NULL);
  PtoKernelError err;
  CHECK(pto_kernel_unary(PTO_UNARY_LOG1P, i, i, &err) == PTO_FAILURE);
  CHECK_STR(err.msg, "log1p needs a float dtype, got i32");
  CHECK(pto_kernel_unary(PTO_UNARY_SIGN, i, i, &err) == PTO_SUCCESS);
  CHECK(pto_kernel_unary((PtoUnaryKind)999, i, i, &err) == PTO_FAILURE);
  CHECK_STR(err.msg, "unknown unary kernel 999");
  pto_ndarray_destroy(i);
}

TEST(npy_in_memory_and_float16) {
  float x[3] = {1.0f, -2.5f, 65504.0f};
  PtoNdArray *a = vec_f32(x, 3);
  PtoError err;
  size_t len = 0;
  void *img = pto_npy_save_buffer(a, NULL, &len, &err);
  CHECK(img != NULL && len > 0);
  PtoNdArray *b = pto_npy_load_buffer(img, len, &err);
  CHECK(b && pto_ndarray_equal(a, b));
  CHECK(!pto_npy_load_buffer(img, 5, &err));
  CHECK(strstr(err.msg, "npy") != NULL);
  CHECK(pto_f16_bits_to_f32(pto_f32_to_f16_bits(65504.0f)) == 65504.0f);
  CHECK(pto_round_to_bf16(1.0 + 1.0 / 512) == 1.0);
  pto_free(img);
  pto_ndarray_destroy(a);
  pto_ndarray_destroy(b);
}

static PtoNdArray *vec_u64(const uint64_t *v, int64_t n) {
  PtoNdArray *a = pto_ndarray_create(PTO_DT_U64, 1, &n, NULL);
  memcpy(a->data, v, (size_t)n * sizeof *v);
  return a;
}
static uint64_t u64_at(const PtoNdArray *a, int64_t i) { return ((uint64_t *)a->data)[i]; }

/* u64 past 2^63, where the int64 the kernels compute in is negative: the
 * ops that read the value see it unsigned. */
TEST(u64_kernels_read_unsigned_values) {
  const uint64_t big = UINT64_MAX, half = UINT64_C(1) << 63;
  uint64_t xa[4] = {big, half, 7, half + 1}, xb[4] = {3, 2, 0, half};
  PtoNdArray *a = vec_u64(xa, 4), *b = vec_u64(xb, 4), *o = vec_u64(xa, 4);
  int64_t n = 4, one = 1;
  PtoNdArray *m = pto_ndarray_create(PTO_DT_BOOL, 1, &n, NULL);
  PtoKernelError err;
  CHECK(pto_kernel_binary(PTO_BINARY_DIV, a, b, o, &err) == PTO_SUCCESS);
  CHECK(u64_at(o, 0) == big / 3 && u64_at(o, 1) == half / 2 && u64_at(o, 2) == 0 &&
        u64_at(o, 3) == 1);
  CHECK(pto_kernel_binary(PTO_BINARY_MAX, a, b, o, &err) == PTO_SUCCESS);
  CHECK(u64_at(o, 0) == big && u64_at(o, 1) == half && u64_at(o, 3) == half + 1);
  CHECK(pto_kernel_binary(PTO_BINARY_MIN, a, b, o, &err) == PTO_SUCCESS);
  CHECK(u64_at(o, 0) == 3 && u64_at(o, 3) == half);
  CHECK(pto_kernel_binary(PTO_BINARY_SHR, a, b, o, &err) == PTO_SUCCESS);
  CHECK(u64_at(o, 0) == big >> 3 && u64_at(o, 1) == half >> 2 && u64_at(o, 3) == 0);
  CHECK(pto_kernel_binary(PTO_BINARY_GCD, a, b, o, &err) == PTO_SUCCESS);
  CHECK(u64_at(o, 0) == 3 && u64_at(o, 1) == 2 && u64_at(o, 2) == 7);
  CHECK(pto_kernel_binary(PTO_BINARY_LT, b, a, m, &err) == PTO_SUCCESS);
  CHECK(memcmp(m->data, (uint8_t[]){1, 1, 1, 1}, 4) == 0);
  CHECK(pto_kernel_unary(PTO_UNARY_ABS, a, o, &err) == PTO_SUCCESS);
  CHECK(u64_at(o, 0) == big);
  CHECK(pto_kernel_unary(PTO_UNARY_SIGN, a, o, &err) == PTO_SUCCESS);
  CHECK(u64_at(o, 0) == 1 && u64_at(o, 1) == 1);
  PtoNdArray *r = pto_ndarray_create(PTO_DT_U64, 1, &one, NULL);
  PtoNdArray *ri = pto_ndarray_create(PTO_DT_I32, 1, &one, NULL);
  CHECK(pto_kernel_reduce(PTO_REDUCE_MAX, a, 0, r, &err) == PTO_SUCCESS);
  CHECK(u64_at(r, 0) == big);
  CHECK(pto_kernel_reduce(PTO_REDUCE_MIN, a, 0, r, &err) == PTO_SUCCESS);
  CHECK(u64_at(r, 0) == 7);
  CHECK(pto_kernel_reduce(PTO_REDUCE_ARGMIN, b, 0, ri, &err) == PTO_SUCCESS);
  CHECK(((int32_t *)ri->data)[0] == 2);
  int64_t two = 2;
  PtoNdArray *tv = pto_ndarray_create(PTO_DT_U64, 1, &two, NULL);
  PtoNdArray *ti = pto_ndarray_create(PTO_DT_I32, 1, &two, NULL);
  CHECK(pto_kernel_topk(a, 2, 0, true, tv, ti, &err) == PTO_SUCCESS);
  CHECK(u64_at(tv, 0) == big && u64_at(tv, 1) == half + 1);
  CHECK(((int32_t *)ti->data)[1] == 3);
  PtoNdArray *all[] = {a, b, o, m, r, ri, tv, ti};
  for (unsigned i = 0; i < 8; i++) pto_ndarray_destroy(all[i]);
}

RUN_TESTS(T(unary_kernels_with_parameters), T(kernel_errors_are_plain_values),
          T(npy_in_memory_and_float16), T(u64_kernels_read_unsigned_values))
