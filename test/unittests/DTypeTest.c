/* Unit tests of the dtype table, scalar casts, strided bulk conversion and
 * host arrays (pto/DType.h, pto/NdArray.h). The exhaustive comparisons
 * with numpy are in test/Npy. */
#include "DiagCapture.h"
#include "Test.h"
#include "pto/IRArray.h"

#include <math.h>
#include <stdint.h>

static const PtoCastMode WRAP = {PTO_ROUND_DEFAULT, PTO_SAT_WRAP};
static const PtoCastMode SAT = {PTO_ROUND_DEFAULT, PTO_SAT_SATURATE};

static uint16_t f16_of(double v, PtoCastMode m) {
  uint16_t h;
  pto_dtype_cast_store_f64(PTO_DT_F16, &h, 0, v, m);
  return h;
}
static uint16_t bf16_of(double v, PtoCastMode m) {
  uint16_t h;
  pto_dtype_cast_store_f64(PTO_DT_BF16, &h, 0, v, m);
  return h;
}
static int64_t int_of(PtoDType dt, double v, PtoCastMode m) {
  int64_t buf = 0;
  pto_dtype_cast_store_f64(dt, &buf, 0, v, m);
  return pto_dtype_load_i64(dt, &buf, 0);
}

TEST(table) {
  static const struct {
    PtoDType dt;
    size_t size;
    const char *name, *numpy, *descr;
  } rows[] = {
      {PTO_DT_F32, 4, "f32", "float32", "<f4"},
      {PTO_DT_F16, 2, "f16", "float16", "<f2"},
      {PTO_DT_BF16, 2, "bf16", "bfloat16", "<u2"},
      {PTO_DT_F64, 8, "f64", "float64", "<f8"},
      {PTO_DT_I8, 1, "i8", "int8", "|i1"},
      {PTO_DT_I16, 2, "i16", "int16", "<i2"},
      {PTO_DT_I32, 4, "i32", "int32", "<i4"},
      {PTO_DT_I64, 8, "i64", "int64", "<i8"},
      {PTO_DT_U8, 1, "u8", "uint8", "|u1"},
      {PTO_DT_BOOL, 1, "bool", "bool", "|b1"},
      {PTO_DT_INDEX, 8, "index", "int64", "<i8"},
      {PTO_DT_U16, 2, "u16", "uint16", "<u2"},
      {PTO_DT_U32, 4, "u32", "uint32", "<u4"},
      {PTO_DT_F8E4M3, 1, "f8e4m3", "float8_e4m3fn", "|u1"},
      {PTO_DT_F8E5M2, 1, "f8e5m2", "float8_e5m2", "|u1"},
      {PTO_DT_F8E8M0, 1, "f8e8m0", "float8_e8m0fnu", "|u1"},
      {PTO_DT_U64, 8, "u64", "uint64", "<u8"},
  };
  CHECK(sizeof rows / sizeof rows[0] == PTO_DT_COUNT);
  for (size_t i = 0; i < PTO_DT_COUNT; i++) {
    PtoDType dt = rows[i].dt, back;
    CHECK(pto_dtype_size(dt) == rows[i].size);
    CHECK_STR(pto_dtype_name(dt), rows[i].name);
    CHECK_STR(pto_dtype_numpy_name(dt), rows[i].numpy);
    CHECK_STR(pto_dtype_npy_descr(dt), rows[i].descr);
    CHECK(pto_dtype_from_name(rows[i].name, &back) && back == dt);
  }
  PtoDType dt;
  CHECK(pto_dtype_from_name("float16", &dt) && dt == PTO_DT_F16);
  CHECK(pto_dtype_from_name("int64", &dt) && dt == PTO_DT_I64);
  CHECK(pto_dtype_from_name("i1", &dt) && dt == PTO_DT_BOOL);
  CHECK(pto_dtype_from_name("ui8", &dt) && dt == PTO_DT_U8);
  CHECK(!pto_dtype_from_name("f128", &dt));
  CHECK(!pto_dtype_from_name("", &dt));
  CHECK(pto_dtype_is_valid(0) && pto_dtype_is_valid(PTO_DT_COUNT - 1));
  CHECK(!pto_dtype_is_valid(-1) && !pto_dtype_is_valid(PTO_DT_COUNT));
  CHECK(pto_dtype_is_float(PTO_DT_BF16) && !pto_dtype_is_int(PTO_DT_BF16));
  CHECK(pto_dtype_is_int(PTO_DT_BOOL) && !pto_dtype_is_signed(PTO_DT_BOOL));
  CHECK(pto_dtype_is_int(PTO_DT_INDEX) && pto_dtype_is_signed(PTO_DT_INDEX));
  CHECK(!pto_dtype_is_signed(PTO_DT_U8) && pto_dtype_is_signed(PTO_DT_F16));
  CHECK(pto_dtype_int_min(PTO_DT_I8) == -128 && pto_dtype_int_max(PTO_DT_I8) == 127);
  CHECK(pto_dtype_int_max(PTO_DT_U8) == 255 && pto_dtype_int_max(PTO_DT_BOOL) == 1);
  CHECK(pto_dtype_int_max(PTO_DT_U32) == UINT32_MAX && pto_dtype_int_min(PTO_DT_U16) == 0);
  CHECK(!pto_dtype_is_signed(PTO_DT_U32) && pto_dtype_is_int(PTO_DT_U16));
  CHECK(pto_dtype_int_min(PTO_DT_I64) == INT64_MIN);
  CHECK(pto_dtype_is_float(PTO_DT_F8E5M2) && pto_dtype_is_signed(PTO_DT_F8E4M3));
  CHECK(!pto_dtype_is_signed(PTO_DT_F8E8M0));
  CHECK(pto_dtype_from_name("f8E4M3FN", &dt) && dt == PTO_DT_F8E4M3);
}

TEST(ir_types) {
  PtoContext *ctx = pto_ctx_create();
  for (int i = 0; i < PTO_DT_COUNT; i++) {
    PtoType *t = pto_dtype_to_type(ctx, (PtoDType)i);
    PtoDType back;
    CHECK(t && pto_dtype_from_type(t, &back) && back == (PtoDType)i);
    /* the IR name is how the type prints */
    char *text = t ? pto_type_to_string(t) : NULL;
    CHECK(text && strcmp(text, pto_dtype_ir_name((PtoDType)i)) == 0);
    pto_free(text);
  }
  static const char *const spell[] = {"i1",   "ui8",  "index",    "bf16",
                                      "si32", "ui16", "ui32",     "f8E4M3FN",
                                      "f8E5M2", "f8E8M0FNU", "ui64"};
  static const PtoDType want[] = {PTO_DT_BOOL, PTO_DT_U8,     PTO_DT_INDEX,
                                  PTO_DT_BF16, PTO_DT_I32,    PTO_DT_U16,
                                  PTO_DT_U32,  PTO_DT_F8E4M3, PTO_DT_F8E5M2,
                                  PTO_DT_F8E8M0, PTO_DT_U64};
  for (unsigned i = 0; i < 11; i++) {
    PtoDType dt;
    CHECK(pto_dtype_from_type(pto_parse_type_str(ctx, spell[i]), &dt) &&
          dt == want[i]);
  }
  static const char *const none[] = {"tensor<4xf32>", "i4", "ui4", "si1",
                                     "none", "() -> ()"};
  for (unsigned i = 0; i < 6; i++) {
    PtoDType dt;
    PtoType *t = pto_parse_type_str(ctx, none[i]);
    CHECK(t && !pto_dtype_from_type(t, &dt));
  }
  pto_ctx_destroy(ctx);
}

static unsigned f8_of(PtoDType dt, double v, PtoCastMode m) {
  uint8_t c;
  pto_dtype_cast_store_f64(dt, &c, 0, v, m);
  return c;
}

/* The OCP spec's boundary values of each 8-bit format (the exhaustive
 * comparison with a numpy oracle is test/Python/test_fp8.py). */
TEST(fp8_boundaries) {
  const PtoDType e4 = PTO_DT_F8E4M3, e5 = PTO_DT_F8E5M2, e8 = PTO_DT_F8E8M0;
  uint8_t c = 0x7e;
  CHECK(pto_dtype_load_f64(e4, &c, 0) == 448);
  c = 0x01;
  CHECK(pto_dtype_load_f64(e4, &c, 0) == 0x1p-9);
  c = 0x08;
  CHECK(pto_dtype_load_f64(e4, &c, 0) == 0x1p-6);
  c = 0x7f;
  CHECK(isnan(pto_dtype_load_f64(e4, &c, 0)));
  c = 0x7b;
  CHECK(pto_dtype_load_f64(e5, &c, 0) == 57344);
  c = 0x7c;
  CHECK(isinf(pto_dtype_load_f64(e5, &c, 0)));
  c = 0x7d;
  CHECK(isnan(pto_dtype_load_f64(e5, &c, 0)));
  c = 0x01;
  CHECK(pto_dtype_load_f64(e5, &c, 0) == 0x1p-16);
  c = 0;
  CHECK(pto_dtype_load_f64(e8, &c, 0) == 0x1p-127);
  c = 0xfe;
  CHECK(pto_dtype_load_f64(e8, &c, 0) == 0x1p127);
  c = 0xff;
  CHECK(isnan(pto_dtype_load_f64(e8, &c, 0)));
  /* nearest even; the midpoint above the maximum overflows */
  CHECK(f8_of(e4, 464, WRAP) == 0x7e && f8_of(e4, 465, WRAP) == 0x7f);
  CHECK(f8_of(e4, -1e9, WRAP) == 0xff && f8_of(e4, -1e9, SAT) == 0xfe);
  CHECK(f8_of(e4, INFINITY, WRAP) == 0x7f && f8_of(e4, INFINITY, SAT) == 0x7e);
  CHECK(f8_of(e4, 0x1p-10, WRAP) == 0 && f8_of(e4, 0x1.8p-9, WRAP) == 0x02);
  CHECK(f8_of(e4, -0.0, WRAP) == 0x80 && f8_of(e4, NAN, WRAP) == 0x7f);
  CHECK(f8_of(e5, 61440, WRAP) == 0x7c && f8_of(e5, 61439, WRAP) == 0x7b);
  CHECK(f8_of(e5, 61440, SAT) == 0x7b && f8_of(e5, -INFINITY, SAT) == 0xfc);
  /* E8M0: a tie rounds up, nothing below 2^-127, negatives are NaN */
  CHECK(f8_of(e8, 1.5, WRAP) == 128 && f8_of(e8, 3, WRAP) == 129);
  CHECK(f8_of(e8, 2.9, WRAP) == 128 && f8_of(e8, 0, WRAP) == 0);
  CHECK(f8_of(e8, -1, WRAP) == 0xff && f8_of(e8, 0x1p128, WRAP) == 0xff);
  CHECK(f8_of(e8, 0x1p128, SAT) == 0xfe);
  /* directed modes step between neighbours of the format */
  PtoCastMode down = {PTO_ROUND_FLOOR, PTO_SAT_WRAP};
  PtoCastMode up = {PTO_ROUND_CEIL, PTO_SAT_WRAP};
  CHECK(f8_of(e8, 3.9, down) == 128 && f8_of(e8, 2.1, up) == 129);
  CHECK(f8_of(e4, 1.01, up) == 0x39 && f8_of(e4, -1.01, down) == 0xb9);
  CHECK(f8_of(e4, 500, down) == 0x7e);
  /* casts between the formats and from integers */
  uint8_t src = 0x7b, dst;
  pto_dtype_cast_elem(e5, &src, e4, &dst, WRAP);
  CHECK(dst == 0x7f);
  pto_dtype_cast_elem(e5, &src, e4, &dst, SAT);
  CHECK(dst == 0x7e);
  int32_t i = -3;
  pto_dtype_cast_elem(PTO_DT_I32, &i, e4, &dst, WRAP);
  CHECK(dst == 0xc4);
}

TEST(mode_names) {
  for (int m = PTO_ROUND_DEFAULT; m <= PTO_ROUND_ODD; m++) {
    PtoRoundMode back;
    CHECK(pto_round_mode_from_name(pto_round_mode_name((PtoRoundMode)m), &back) &&
          back == (PtoRoundMode)m);
  }
  PtoSatMode s;
  CHECK(pto_sat_mode_from_name("saturate", &s) && s == PTO_SAT_SATURATE);
  CHECK(pto_sat_mode_from_name("wrap", &s) && s == PTO_SAT_WRAP);
  CHECK(!pto_sat_mode_from_name("clamp", &s));
  PtoRoundMode r;
  CHECK(!pto_round_mode_from_name("nearest", &r));
}

TEST(load_store_every_dtype) {
  /* Values every dtype holds exactly survive a store and a load. */
  for (int i = 0; i < PTO_DT_COUNT; i++) {
    PtoDType dt = (PtoDType)i;
    unsigned char buf[3 * 8];
    double vals[3] = {0, 1, dt == PTO_DT_BOOL ? 1 : pto_dtype_is_signed(dt) ? -7 : 200};
    if (dt == PTO_DT_F8E8M0) /* powers of two only, no zero */
      vals[0] = 2, vals[2] = 256;
    for (int k = 0; k < 3; k++) pto_dtype_store_f64(dt, buf, k, vals[k]);
    for (int k = 0; k < 3; k++) {
      CHECK(pto_dtype_load_f64(dt, buf, k) == vals[k]);
      CHECK(pto_dtype_load_i64(dt, buf, k) == (int64_t)vals[k]);
    }
    for (int k = 0; k < 3; k++) pto_dtype_store_i64(dt, buf, k, (int64_t)vals[k]);
    for (int k = 0; k < 3; k++) CHECK(pto_dtype_load_f64(dt, buf, k) == vals[k]);
  }
  /* i64 keeps all 64 bits; bool reads any non-zero byte as true */
  int64_t big = INT64_MAX - 1, got = 0;
  pto_dtype_store_i64(PTO_DT_I64, &got, 0, big);
  CHECK(pto_dtype_load_i64(PTO_DT_I64, &got, 0) == big);
  unsigned char b = 7;
  CHECK(pto_dtype_load_i64(PTO_DT_BOOL, &b, 0) == 1);
  /* negative element indices address before the base */
  int16_t arr[3] = {10, 20, 30};
  CHECK(pto_dtype_load_i64(PTO_DT_I16, arr + 2, -2) == 10);
}

TEST(f16_rounding) {
  /* ties to even, above-tie, subnormals, overflow */
  CHECK(f16_of(1.0 + 0x1p-11, WRAP) == 0x3c00);
  CHECK(f16_of(1.0 + 3 * 0x1p-11, WRAP) == 0x3c02);
  CHECK(f16_of(1.0 + 0x1p-11 + 0x1p-40, WRAP) == 0x3c01); /* no double rounding */
  CHECK(f16_of(0x1p-24, WRAP) == 0x0001);
  CHECK(f16_of(0x1p-25, WRAP) == 0x0000);           /* tie to even zero */
  CHECK(f16_of(0x1p-25 + 0x1p-60, WRAP) == 0x0001);
  CHECK(f16_of(-0.0, WRAP) == 0x8000);
  CHECK(f16_of(65519.0, WRAP) == 0x7bff);
  CHECK(f16_of(65520.0, WRAP) == 0x7c00);
  CHECK(f16_of(-1e10, WRAP) == 0xfc00);
  CHECK(f16_of(1e10, SAT) == 0x7bff);
  CHECK(f16_of(-1e10, SAT) == 0xfbff);
  CHECK(f16_of(INFINITY, SAT) == 0x7c00); /* infinities stay infinite */
  CHECK(f16_of(NAN, WRAP) == 0x7e00);
  CHECK(bf16_of(1.0 + 0x1p-8, WRAP) == 0x3f80);
  CHECK(bf16_of(1.0 + 3 * 0x1p-8, WRAP) == 0x3f82);
  CHECK(bf16_of(3.5e38, WRAP) == 0x7f80);
  CHECK(bf16_of(3.5e38, SAT) == 0x7f7f);
}

TEST(nan_bits_follow_numpy) {
  /* f32 -> f16 keeps the top payload bits without quietening (numpy) */
  uint32_t snan = 0x7f800001u, qnan = 0xffc00000u;
  uint16_t h;
  pto_dtype_cast_elem(PTO_DT_F32, &snan, PTO_DT_F16, &h, WRAP);
  CHECK(h == 0x7c01);
  pto_dtype_cast_elem(PTO_DT_F32, &qnan, PTO_DT_F16, &h, WRAP);
  CHECK(h == 0xfe00);
  /* f16 -> f32 and -> f64 shift the payload */
  uint16_t hs = 0x7c01;
  uint32_t f;
  uint64_t d;
  pto_dtype_cast_elem(PTO_DT_F16, &hs, PTO_DT_F32, &f, WRAP);
  CHECK(f == 0x7f802000u);
  pto_dtype_cast_elem(PTO_DT_F16, &hs, PTO_DT_F64, &d, WRAP);
  CHECK(d == 0x7ff0040000000000ull);
  pto_dtype_cast_elem(PTO_DT_F64, &d, PTO_DT_F16, &h, WRAP);
  CHECK(h == 0x7c01);
  /* bf16 NaNs are quiet NaNs keeping the sign */
  uint32_t nf = 0xff800001u;
  pto_dtype_cast_elem(PTO_DT_F32, &nf, PTO_DT_BF16, &h, WRAP);
  CHECK(h == 0xffc0);
}

TEST(float_to_int) {
  CHECK(int_of(PTO_DT_I8, 300.7, WRAP) == 44);
  CHECK(int_of(PTO_DT_I8, 300.7, SAT) == 127);
  CHECK(int_of(PTO_DT_I8, -129.5, WRAP) == 127);
  CHECK(int_of(PTO_DT_I8, -129.5, SAT) == -128);
  CHECK(int_of(PTO_DT_U8, -1.0, WRAP) == 255);
  CHECK(int_of(PTO_DT_U8, -1.0, SAT) == 0);
  CHECK(int_of(PTO_DT_U8, 256.0, SAT) == 255);
  CHECK(int_of(PTO_DT_I32, NAN, WRAP) == 0);
  CHECK(int_of(PTO_DT_I32, NAN, SAT) == 0);
  CHECK(int_of(PTO_DT_I32, INFINITY, WRAP) == 0);
  CHECK(int_of(PTO_DT_I32, -INFINITY, SAT) == INT32_MIN);
  CHECK(int_of(PTO_DT_I64, 1e20, SAT) == INT64_MAX);
  CHECK(int_of(PTO_DT_I64, 0x1p63, SAT) == INT64_MAX);
  CHECK(int_of(PTO_DT_I64, -0x1p63, SAT) == INT64_MIN);
  CHECK(int_of(PTO_DT_I64, 1e20, WRAP) == INT64_C(7766279631452241920));
  CHECK(int_of(PTO_DT_I64, -0x1p63, WRAP) == INT64_MIN);
  CHECK(int_of(PTO_DT_I64, 0x1p63, WRAP) == INT64_MIN);
  CHECK(int_of(PTO_DT_I16, 3e9 + 7, WRAP) == 0x5e07); /* 0xb2d05e07 */
  CHECK(int_of(PTO_DT_BOOL, NAN, WRAP) == 1);
  CHECK(int_of(PTO_DT_BOOL, 0.25, SAT) == 1);
  CHECK(int_of(PTO_DT_BOOL, -0.0, WRAP) == 0);
  /* rounding modes */
  static const double in[] = {2.5, -2.5, 3.5, -0.4, 7.0};
  static const int64_t want[][5] = {
      /* default (trunc) */ {2, -2, 3, 0, 7},
      /* rint  */ {2, -2, 4, 0, 7},
      /* round */ {3, -3, 4, 0, 7},
      /* floor */ {2, -3, 3, -1, 7},
      /* ceil  */ {3, -2, 4, 0, 7},
      /* trunc */ {2, -2, 3, 0, 7},
      /* odd   */ {3, -3, 3, -1, 7},
  };
  for (int m = 0; m < 7; m++)
    for (int k = 0; k < 5; k++) {
      PtoCastMode mode = {(PtoRoundMode)m, PTO_SAT_WRAP};
      CHECK(int_of(PTO_DT_I32, in[k], mode) == want[m][k]);
    }
}

TEST(int_to_int_and_float) {
  int64_t v;
  int8_t i8;
  v = 300;
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_I8, &i8, WRAP);
  CHECK(i8 == 44);
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_I8, &i8, SAT);
  CHECK(i8 == 127);
  v = -200;
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_I8, &i8, SAT);
  CHECK(i8 == -128);
  uint8_t u8, bl;
  v = -1;
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_U8, &u8, WRAP);
  CHECK(u8 == 255);
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_BOOL, &bl, WRAP);
  CHECK(bl == 1);
  int8_t m1 = -1;
  int16_t i16;
  pto_dtype_cast_elem(PTO_DT_I8, &m1, PTO_DT_I16, &i16, WRAP);
  CHECK(i16 == -1);
  pto_dtype_cast_elem(PTO_DT_I8, &m1, PTO_DT_U8, &u8, SAT);
  CHECK(u8 == 0);
  /* int64 beyond 2^53: one correct rounding, whatever the target */
  double d;
  v = (INT64_C(1) << 53) + 1;
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_F64, &d, WRAP);
  CHECK(d == 0x1p53);
  PtoCastMode ceil = {PTO_ROUND_CEIL, PTO_SAT_WRAP};
  PtoCastMode odd = {PTO_ROUND_ODD, PTO_SAT_WRAP};
  pto_dtype_cast_store_i64(PTO_DT_F64, &d, 0, v, ceil);
  CHECK(d == 0x1p53 + 2);
  pto_dtype_cast_store_i64(PTO_DT_F64, &d, 0, v, odd);
  CHECK(d == 0x1p53 + 2);
  uint16_t h;
  v = (INT64_C(1) << 31) + (INT64_C(1) << 23) + 1; /* just above a bf16 tie */
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_BF16, &h, WRAP);
  CHECK(pto_dtype_load_f64(PTO_DT_BF16, &h, 0) == 0x1p31 + 0x1p24);
  v = (INT64_C(1) << 62) + (INT64_C(1) << 54) + 1;
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_BF16, &h, WRAP);
  CHECK(pto_dtype_load_f64(PTO_DT_BF16, &h, 0) == 0x1p62 + 0x1p55);
  v = INT64_MIN;
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_F16, &h, WRAP);
  CHECK(h == 0xfc00);
  pto_dtype_cast_elem(PTO_DT_I64, &v, PTO_DT_F16, &h, SAT);
  CHECK(h == 0xfbff);
}

/* u64 values above 2^63, whose int64 form is negative: every conversion
 * sees the unsigned value (numpy's astype). */
TEST(u64_casts) {
  uint64_t u = UINT64_MAX, big = (UINT64_C(1) << 63) + 3073; /* not a double */
  double d;
  pto_dtype_cast_elem(PTO_DT_U64, &u, PTO_DT_F64, &d, WRAP);
  CHECK(d == 0x1p64);
  pto_dtype_cast_elem(PTO_DT_U64, &big, PTO_DT_F64, &d, WRAP);
  CHECK(d == 0x1p63 + 4096); /* nearest: the step is 2048 here */
  PtoCastMode floor = {PTO_ROUND_FLOOR, PTO_SAT_WRAP};
  pto_dtype_cast_elem(PTO_DT_U64, &big, PTO_DT_F64, &d, floor);
  CHECK(d == 0x1p63 + 2048);
  CHECK(pto_dtype_load_f64(PTO_DT_U64, &u, 0) == 0x1p64);
  float f;
  pto_dtype_cast_elem(PTO_DT_U64, &big, PTO_DT_F32, &f, WRAP);
  CHECK(f == 0x1p63f);
  uint16_t h;
  pto_dtype_cast_elem(PTO_DT_U64, &u, PTO_DT_F16, &h, WRAP);
  CHECK(h == 0x7c00); /* +inf, not -1 */
  pto_dtype_cast_elem(PTO_DT_U64, &u, PTO_DT_F16, &h, SAT);
  CHECK(h == 0x7bff);
  int64_t i64;
  pto_dtype_cast_elem(PTO_DT_U64, &u, PTO_DT_I64, &i64, WRAP);
  CHECK(i64 == -1);
  pto_dtype_cast_elem(PTO_DT_U64, &u, PTO_DT_I64, &i64, SAT);
  CHECK(i64 == INT64_MAX);
  uint32_t u32;
  pto_dtype_cast_elem(PTO_DT_U64, &big, PTO_DT_U32, &u32, WRAP);
  CHECK(u32 == 3073);
  pto_dtype_cast_elem(PTO_DT_U64, &big, PTO_DT_U32, &u32, SAT);
  CHECK(u32 == UINT32_MAX);
  int8_t i8;
  pto_dtype_cast_elem(PTO_DT_U64, &big, PTO_DT_I8, &i8, SAT);
  CHECK(i8 == 127);
  uint8_t bl;
  pto_dtype_cast_elem(PTO_DT_U64, &big, PTO_DT_BOOL, &bl, WRAP);
  CHECK(bl == 1);
  /* into u64: signed values wrap (or clamp at 0), floats past 2^63 keep
   * their value, negative and too large floats wrap modulo 2^64 as they
   * do into u8..u32 */
  uint64_t r;
  i64 = -1;
  pto_dtype_cast_elem(PTO_DT_I64, &i64, PTO_DT_U64, &r, WRAP);
  CHECK(r == UINT64_MAX);
  pto_dtype_cast_elem(PTO_DT_I64, &i64, PTO_DT_U64, &r, SAT);
  CHECK(r == 0);
  d = 0x1p63 + 4096;
  pto_dtype_cast_elem(PTO_DT_F64, &d, PTO_DT_U64, &r, WRAP);
  CHECK(r == (UINT64_C(1) << 63) + 4096);
  pto_dtype_cast_elem(PTO_DT_F64, &d, PTO_DT_U64, &r, SAT);
  CHECK(r == (UINT64_C(1) << 63) + 4096);
  d = -1.0;
  pto_dtype_cast_elem(PTO_DT_F64, &d, PTO_DT_U64, &r, WRAP);
  CHECK(r == UINT64_MAX);
  pto_dtype_cast_elem(PTO_DT_F64, &d, PTO_DT_U64, &r, SAT);
  CHECK(r == 0);
  d = 0x1p64;
  pto_dtype_cast_elem(PTO_DT_F64, &d, PTO_DT_U64, &r, SAT);
  CHECK(r == UINT64_MAX);
  pto_dtype_cast_elem(PTO_DT_F64, &d, PTO_DT_U64, &r, WRAP);
  CHECK(r == 0);
  CHECK(pto_dtype_int_max(PTO_DT_U64) == INT64_MAX);
  CHECK(pto_dtype_uint_max(PTO_DT_U64) == UINT64_MAX &&
        pto_dtype_uint_max(PTO_DT_I8) == 127);
}

TEST(float_rounding_modes) {
  /* 1 + 2^-11 is the f16 tie between 1 and 1 + 2^-10 */
  static const double in[] = {1.0 + 0x1p-11, -(1.0 + 0x1p-11),
                              1.0 + 0x1p-12, 65519.0, 1e9};
  static const uint16_t want[][5] = {
      /* default */ {0x3c00, 0xbc00, 0x3c00, 0x7bff, 0x7c00},
      /* rint  */ {0x3c00, 0xbc00, 0x3c00, 0x7bff, 0x7c00},
      /* round */ {0x3c01, 0xbc01, 0x3c00, 0x7bff, 0x7c00},
      /* floor */ {0x3c00, 0xbc01, 0x3c00, 0x7bff, 0x7bff},
      /* ceil  */ {0x3c01, 0xbc00, 0x3c01, 0x7c00, 0x7c00},
      /* trunc */ {0x3c00, 0xbc00, 0x3c00, 0x7bff, 0x7bff},
      /* odd   */ {0x3c01, 0xbc01, 0x3c01, 0x7bff, 0x7bff},
  };
  for (int m = 0; m < 7; m++)
    for (int k = 0; k < 5; k++) {
      PtoCastMode mode = {(PtoRoundMode)m, PTO_SAT_WRAP};
      CHECK(f16_of(in[k], mode) == want[m][k]);
    }
  /* f32 targets step with nextafterf */
  PtoCastMode fl = {PTO_ROUND_FLOOR, PTO_SAT_WRAP};
  CHECK(pto_dtype_round_f64(PTO_DT_F32, 0.1, fl) == (double)nextafterf(0.1f, 0));
  CHECK(pto_dtype_round_f64(PTO_DT_F32, 0.1, WRAP) == (double)0.1f);
  CHECK(pto_dtype_round_f64(PTO_DT_F64, 0.1, fl) == 0.1);
  CHECK(pto_dtype_round_f64(PTO_DT_I8, 200.0, SAT) == 127.0);
  CHECK(pto_dtype_round_f64(PTO_DT_BOOL, -3.0, WRAP) == 1.0);
  /* odd rounding of a tiny value gives the smallest subnormal */
  PtoCastMode odd = {PTO_ROUND_ODD, PTO_SAT_WRAP};
  CHECK(f16_of(1e-30, odd) == 0x0001);
  CHECK(f16_of(-1e-30, odd) == 0x8001);
  /* stepping toward zero from -min subnormal lands on -0 */
  PtoCastMode tr = {PTO_ROUND_TRUNC, PTO_SAT_WRAP};
  CHECK(f16_of(-0x1.8p-25, tr) == 0x8000);
  CHECK(f16_of(0x1.8p-25, tr) == 0x0000);
}

TEST(strided_convert) {
  float a[3][4];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) a[i][j] = (float)(i * 10 + j);
  /* transpose: a view of shape 4x3 with strides (1, 4) */
  double t[4][3];
  int64_t shape[2] = {4, 3}, st[2] = {1, 4};
  pto_dtype_convert(PTO_DT_F32, a, st, PTO_DT_F64, t, NULL, 2, shape,
                    PTO_CAST_DEFAULT);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) CHECK(t[i][j] == a[j][i]);
  /* reversed rows (negative stride from the last row), into a strided dst */
  int16_t r[3][8] = {{0}};
  int64_t shape2[2] = {3, 4}, sst[2] = {-4, 1}, dst[2] = {8, 2};
  pto_dtype_convert(PTO_DT_F32, &a[2][0], sst, PTO_DT_I16, r, dst, 2, shape2,
                    PTO_CAST_DEFAULT);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      CHECK(r[i][2 * j] == (int16_t)a[2 - i][j]);
      CHECK(r[i][2 * j + 1] == 0);
    }
  /* a zero stride broadcasts */
  float one = 2.5f;
  uint16_t h[2][3];
  int64_t shape3[2] = {2, 3}, zero[2] = {0, 0};
  pto_dtype_convert(PTO_DT_F32, &one, zero, PTO_DT_F16, h, NULL, 2, shape3,
                    PTO_CAST_DEFAULT);
  for (int i = 0; i < 6; i++) CHECK(h[i / 3][i % 3] == 0x4100);
  /* rank 0, empty shapes, and the contiguous fast path */
  int32_t s = 0;
  pto_dtype_convert(PTO_DT_F32, &one, NULL, PTO_DT_I32, &s, NULL, 0, NULL,
                    PTO_CAST_DEFAULT);
  CHECK(s == 2);
  int64_t empty[2] = {3, 0};
  pto_dtype_convert(PTO_DT_F32, NULL, NULL, PTO_DT_I32, NULL, NULL, 2, empty,
                    PTO_CAST_DEFAULT);
  float c[12];
  pto_dtype_convert_n(PTO_DT_F32, a, PTO_DT_F32, c, 12, PTO_CAST_DEFAULT);
  CHECK(memcmp(a, c, sizeof c) == 0);
  int64_t cs[3];
  int64_t sh3[3] = {2, 3, 4};
  pto_contiguous_strides(3, sh3, cs);
  CHECK(cs[0] == 12 && cs[1] == 4 && cs[2] == 1);
}

TEST(ndarray) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  int64_t shape[3] = {2, 3, 4};
  PtoNdArray *a = pto_ndarray_create(PTO_DT_I32, 3, shape, NULL);
  CHECK(a && a->nbytes == 96 && a->owns_data && pto_ndarray_numel(a) == 24);
  CHECK(a->strides[0] == 12 && a->strides[1] == 4 && a->strides[2] == 1);
  CHECK(pto_ndarray_is_contiguous(a));
  for (int i = 0; i < 24; i++) ((int32_t *)a->data)[i] = i;
  int64_t idx[3] = {1, 2, 3};
  CHECK(*(int32_t *)pto_ndarray_elem_ptr(a, idx) == 23);
  /* a transposed view of the same memory */
  int64_t tshape[3] = {4, 3, 2}, tstr[3] = {1, 4, 12};
  PtoNdArray *t = pto_ndarray_wrap(PTO_DT_I32, 3, tshape, tstr, a->data,
                                   NULL);
  CHECK(t && !t->owns_data && !pto_ndarray_is_contiguous(t));
  int64_t tidx[3] = {3, 2, 1};
  CHECK(*(int32_t *)pto_ndarray_elem_ptr(t, tidx) == 23);
  PtoNdArray *tc = pto_ndarray_convert(t, PTO_DT_I32, PTO_CAST_DEFAULT);
  CHECK(pto_ndarray_is_contiguous(tc) && pto_ndarray_equal(t, tc));
  CHECK(((int32_t *)tc->data)[1] == 12); /* [0][0][1] */
  CHECK(!pto_ndarray_equal(a, tc));
  PtoNdArray *f = pto_ndarray_convert(a, PTO_DT_F16, PTO_CAST_DEFAULT);
  CHECK(f->dtype == PTO_DT_F16 && f->nbytes == 48);
  CHECK(pto_dtype_load_f64(PTO_DT_F16, f->data, 23) == 23.0);
  CHECK(!pto_ndarray_equal(a, f));
  pto_ndarray_destroy(f);
  pto_ndarray_destroy(tc);
  pto_ndarray_destroy(t);
  pto_ndarray_destroy(a);
  pto_ndarray_destroy(NULL);
  /* size-1 dims with any stride are still contiguous; rank 0 too */
  int64_t one[2] = {1, 5}, ost[2] = {99, 1};
  int32_t buf[5];
  PtoNdArray *o = pto_ndarray_wrap(PTO_DT_I32, 2, one, ost, buf, NULL);
  CHECK(pto_ndarray_is_contiguous(o));
  pto_ndarray_destroy(o);
  PtoNdArray *s = pto_ndarray_create(PTO_DT_F64, 0, NULL, NULL);
  CHECK(s && s->nbytes == 8 && pto_ndarray_numel(s) == 1);
  pto_ndarray_destroy(s);
  CHECK_STR(diag_capture_take(&dc), "");

  /* invalid shapes are errors (a plain value: lib/Array knows no IR),
   * never allocated */
  PtoError err;
  int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(!pto_ndarray_create(PTO_DT_F32, 9, nine, &err));
  CHECK_STR(err.msg, "array of rank 9 exceeds the maximum rank 8");
  int64_t neg[2] = {3, -1};
  CHECK(!pto_ndarray_create(PTO_DT_F32, 2, neg, &err));
  CHECK_STR(err.msg, "invalid shape (3, -1): dimensions must be non-negative");
  int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  CHECK(!pto_ndarray_create(PTO_DT_F32, 2, huge, &err));
  CHECK_STR(err.msg, "array of shape (1099511627776, 1099511627776) and dtype "
                     "f32 is too large: its size in bytes overflows");
  CHECK(!pto_ndarray_wrap((PtoDType)42, 1, shape, NULL, buf, &err));
  CHECK_STR(err.msg, "invalid dtype 42");
  /* without an error value: silent failure */
  CHECK(!pto_ndarray_create(PTO_DT_F32, 2, neg, NULL));
  /* the IR side reports it at a location */
  PtoLoc *loc = pto_loc_name(ctx, "arg0", NULL);
  CHECK(pto_emit_plain_error(ctx, loc, &err) == PTO_FAILURE);
  CHECK_STR(diag_capture_take(&dc), "arg0: error: invalid dtype 42\n");
  char sbuf[PTO_SHAPE_STR_MAX];
  CHECK_STR(pto_shape_str(sbuf, 0, NULL), "()");
  CHECK_STR(pto_shape_str(sbuf, 1, shape), "(2,)");
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(table), T(ir_types), T(mode_names), T(fp8_boundaries), T(load_store_every_dtype),
          T(f16_rounding), T(nan_bits_follow_numpy), T(float_to_int),
          T(int_to_int_and_float), T(u64_casts), T(float_rounding_modes),
          T(strided_convert), T(ndarray))
