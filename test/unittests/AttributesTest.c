/* Unit tests of types, attributes and locations: uniquing, accessors for
 * every kind, dense elements, float format conversions. */
#include "IRTestUtil.h"
#include "Test.h"

#include <math.h>

static bool prints(PtoAttr *a, const char *expected) {
  char *s = pto_attr_to_string(a);
  bool ok = strcmp(s, expected) == 0;
  if (!ok) fprintf(stderr, "attribute printed as %s, expected %s\n", s, expected);
  pto_free(s);
  return ok;
}

static bool type_prints(PtoType *t, const char *expected) {
  char *s = pto_type_to_string(t);
  bool ok = strcmp(s, expected) == 0;
  if (!ok) fprintf(stderr, "type printed as %s, expected %s\n", s, expected);
  pto_free(s);
  return ok;
}

TEST(scalar_types) {
  PtoContext *ctx = pto_ctx_create();
  PtoType *i32 = pto_type_int(ctx, 32);
  CHECK(i32 == pto_type_int(ctx, 32) && i32 != pto_type_int(ctx, 31));
  CHECK(pto_type_int(ctx, 7) == pto_type_int(ctx, 7));
  PtoType *si8 = pto_type_int_signed(ctx, 8, PTO_SIGNED);
  PtoType *ui8 = pto_type_int_signed(ctx, 8, PTO_UNSIGNED);
  CHECK(si8 != ui8 && si8 != pto_type_int(ctx, 8));
  CHECK(pto_type_int_signed(ctx, 8, PTO_SIGNLESS) == pto_type_int(ctx, 8));
  CHECK(pto_type_kind(i32) == PTO_TYPE_INTEGER && pto_type_int_width(i32) == 32);
  CHECK(pto_type_int_signedness(si8) == PTO_SIGNED);
  CHECK(pto_type_int_signedness(ui8) == PTO_UNSIGNED);
  CHECK(pto_type_is_integer(i32) && !pto_type_is_integer(pto_type_index(ctx)));
  CHECK(pto_type_is_int_or_index(pto_type_index(ctx)));
  CHECK(pto_type_int_width(pto_type_index(ctx)) == 64);
  CHECK(pto_type_bitwidth(pto_type_index(ctx)) == 64);
  CHECK(pto_type_bitwidth(pto_type_int(ctx, 1)) == 1);
  static const PtoFloatKind kinds[] = {PTO_F16, PTO_BF16, PTO_F32, PTO_F64};
  static const unsigned widths[] = {16, 16, 32, 64};
  static const char *names[] = {"f16", "bf16", "f32", "f64"};
  for (int i = 0; i < 4; i++) {
    PtoType *f = pto_type_float(ctx, kinds[i]);
    CHECK(pto_type_is_float(f) && pto_type_float_kind(f) == kinds[i]);
    CHECK(pto_type_bitwidth(f) == widths[i]);
    CHECK(type_prints(f, names[i]));
    CHECK(pto_parse_type_str(ctx, names[i]) == f);
  }
  CHECK(pto_type_f32(ctx) == pto_type_float(ctx, PTO_F32));
  CHECK(pto_type_kind(pto_type_none(ctx)) == PTO_TYPE_NONE);
  CHECK(pto_type_ctx(i32) == ctx);
  CHECK(type_prints(si8, "si8") && type_prints(ui8, "ui8"));
  CHECK(type_prints(pto_type_int(ctx, 1), "i1"));
  CHECK(!pto_type_is_tensor(i32) && pto_type_tensor_rank(i32) == 0);
  CHECK(pto_type_tensor_shape(i32) == NULL && pto_type_tensor_elem(i32) == NULL);
  pto_ctx_destroy(ctx);
}

TEST(tensor_and_function_types) {
  PtoContext *ctx = pto_ctx_create();
  PtoType *f32 = pto_type_f32(ctx), *i8 = pto_type_int(ctx, 8);
  int64_t shape[] = {2, PTO_DYN, 4};
  PtoType *t = pto_type_tensor(ctx, shape, 3, f32);
  CHECK(t == pto_parse_type_str(ctx, "tensor<2x?x4xf32>"));
  CHECK(pto_type_is_tensor(t) && pto_type_tensor_rank(t) == 3);
  CHECK(pto_type_tensor_dim(t, 1) == PTO_DYN && pto_type_tensor_elem(t) == f32);
  CHECK(!pto_type_tensor_is_static(t) && pto_type_tensor_numel(t) == -1);
  int64_t s2[] = {2, 3, 4};
  PtoType *st = pto_type_tensor(ctx, s2, 3, f32);
  CHECK(pto_type_tensor_is_static(st) && pto_type_tensor_numel(st) == 24);
  CHECK(pto_type_tensor_shape(st)[2] == 4);
  PtoType *scalar = pto_type_tensor(ctx, NULL, 0, i8);
  CHECK(pto_type_tensor_numel(scalar) == 1 && type_prints(scalar, "tensor<i8>"));
  int64_t big[] = {INT64_MAX / 2, 4};
  CHECK(pto_type_tensor_numel(pto_type_tensor(ctx, big, 2, i8)) == -1);
  PtoType *ins[] = {f32, t}, *outs[] = {i8};
  PtoType *fn = pto_type_function(ctx, ins, 2, outs, 1);
  CHECK(fn == pto_parse_type_str(ctx, "(f32, tensor<2x?x4xf32>) -> i8"));
  CHECK(pto_type_func_num_inputs(fn) == 2 && pto_type_func_num_results(fn) == 1);
  CHECK(pto_type_func_input(fn, 1) == t && pto_type_func_result(fn, 0) == i8);
  PtoType *fres = pto_type_function(ctx, NULL, 0, &fn, 1);
  CHECK(type_prints(fres, "() -> ((f32, tensor<2x?x4xf32>) -> i8)"));
  PtoType *many[20];
  for (int i = 0; i < 20; i++) many[i] = i8;
  PtoType *wide = pto_type_function(ctx, many, 10, many + 10, 10);
  CHECK(wide == pto_type_function(ctx, many, 10, many, 10));
  CHECK(wide != pto_type_function(ctx, many, 11, many, 9));
  pto_ctx_destroy(ctx);
}

TEST(dialect_and_opaque_types) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_test_dialect(ctx);
  PtoType *i32 = pto_type_int(ctx, 32);
  PtoType *box = pto_type_dialect(ctx, "ptotest", "box", NULL, 0, &i32, 1, NULL, 0);
  CHECK(box == pto_parse_type_str(ctx, "!ptotest.box<i32>"));
  CHECK(pto_type_kind(box) == PTO_TYPE_DIALECT);
  CHECK(pto_type_isa(box, "ptotest", "box") && !pto_type_isa(box, "ptotest", "unit"));
  CHECK(strcmp(pto_type_dialect_name(box), "ptotest") == 0);
  CHECK(strcmp(pto_type_dialect_mnemonic(box), "box") == 0);
  CHECK(pto_type_num_types(box) == 1 && pto_type_type_param(box, 0) == i32);
  CHECK(pto_type_num_ints(box) == 0 && pto_type_num_attrs(box) == 0);
  int64_t dims[] = {4, 8};
  PtoAttr *pair = pto_attr_i64(ctx, 3);
  PtoType *withall = pto_type_dialect(ctx, "ptotest", "tile", dims, 2, &i32, 1, &pair, 1);
  CHECK(pto_type_num_ints(withall) == 2 && pto_type_ints(withall)[1] == 8);
  CHECK(pto_type_num_attrs(withall) == 1 && pto_type_attr_param(withall, 0) == pair);
  CHECK(withall != pto_type_dialect(ctx, "ptotest", "tile", dims, 2, &i32, 1, NULL, 0));
  PtoType *op = pto_type_opaque(ctx, "tile", "tile", "32x32xf32", 9);
  CHECK(op == pto_type_opaque(ctx, "tile", "tile", "32x32xf32", 9));
  CHECK(op != pto_type_opaque(ctx, "tile", "tile", "32x32xf16", 9));
  CHECK(pto_type_kind(op) == PTO_TYPE_OPAQUE && !pto_type_isa(op, "tile", "tile"));
  CHECK(strcmp(pto_type_opaque_body(op), "32x32xf32") == 0);
  CHECK(type_prints(op, "!tile.tile<32x32xf32>"));
  PtoType *nobody = pto_type_opaque(ctx, "tile", "plain", NULL, 0);
  CHECK(pto_type_opaque_body(nobody) == NULL && type_prints(nobody, "!tile.plain"));
  CHECK(pto_type_opaque_body(box) == NULL);
  pto_ctx_destroy(ctx);
}

TEST(scalar_attributes) {
  PtoContext *ctx = pto_ctx_create();
  PtoType *i8 = pto_type_int(ctx, 8), *ui8 = pto_type_int_signed(ctx, 8, PTO_UNSIGNED);
  /* integers are canonical for their type */
  CHECK(pto_attr_int(ctx, i8, 255) == pto_attr_int(ctx, i8, -1));
  CHECK(pto_attr_int_value(pto_attr_int(ctx, i8, 255)) == -1);
  CHECK(pto_attr_int_value(pto_attr_int(ctx, ui8, -1)) == 255);
  CHECK(pto_attr_int(ctx, i8, 1) != pto_attr_int(ctx, ui8, 1));
  CHECK(prints(pto_attr_int(ctx, ui8, 200), "200 : ui8"));
  CHECK(prints(pto_attr_i64(ctx, -5), "-5"));
  CHECK(prints(pto_attr_index(ctx, 7), "7 : index"));
  CHECK(pto_attr_kind(pto_attr_i64(ctx, 1)) == PTO_ATTR_INTEGER);
  CHECK(pto_attr_get_type(pto_attr_index(ctx, 1)) == pto_type_index(ctx));
  /* booleans are i1 integers */
  PtoAttr *t = pto_attr_bool(ctx, true);
  CHECK(t == pto_attr_int(ctx, pto_type_int(ctx, 1), 1) && pto_attr_is_bool(t));
  CHECK(pto_attr_int(ctx, pto_type_int(ctx, 1), 3) == t);
  CHECK(pto_attr_int_value(pto_attr_bool(ctx, false)) == 0);
  CHECK(prints(t, "true") && !pto_attr_is_bool(pto_attr_i64(ctx, 1)));
  /* floats are rounded to their type; bits compare, so -0 and NaN unique */
  PtoType *f32 = pto_type_f32(ctx), *f16 = pto_type_float(ctx, PTO_F16);
  PtoAttr *f = pto_attr_float(ctx, f32, 0.1);
  CHECK(pto_attr_float_value(f) == (double)0.1f && f == pto_attr_float(ctx, f32, 0.1));
  CHECK(pto_attr_float(ctx, f32, 0.0) != pto_attr_float(ctx, f32, -0.0));
  CHECK(pto_attr_float(ctx, f32, NAN) == pto_attr_float(ctx, f32, NAN));
  CHECK(pto_attr_float_value(pto_attr_float(ctx, f16, 65520.0)) == INFINITY);
  CHECK(prints(pto_attr_float(ctx, f16, 1.5), "1.500000e+00 : f16"));
  CHECK(prints(pto_attr_float(ctx, pto_type_float(ctx, PTO_F64), 0.1), "1.000000e-01"));
  CHECK(prints(pto_attr_float(ctx, pto_type_float(ctx, PTO_F64), -INFINITY),
               "0xFFF0000000000000 : f64"));
  CHECK(prints(pto_attr_float(ctx, f32, NAN), "0x7FC00000 : f32"));
  CHECK(pto_attr_float_value(pto_attr_i64(ctx, 3)) == 3.0);
  /* strings, types, unit */
  PtoAttr *s = pto_attr_string(ctx, "a\0b", 3);
  CHECK(s == pto_attr_string(ctx, "a\0b", 3) && s != pto_attr_cstr(ctx, "a"));
  CHECK(pto_attr_str_len(s) == 3 && memcmp(pto_attr_str(s), "a\0b", 3) == 0);
  CHECK(prints(s, "\"a\\00b\""));
  CHECK(pto_attr_str(pto_attr_i64(ctx, 1)) == NULL && pto_attr_str(NULL) == NULL);
  PtoAttr *ta = pto_attr_type(ctx, f32);
  CHECK(pto_attr_type_value(ta) == f32 && pto_attr_type_value(s) == NULL);
  CHECK(pto_attr_unit(ctx) == pto_attr_unit(ctx));
  CHECK(pto_attr_kind(pto_attr_unit(ctx)) == PTO_ATTR_UNIT && prints(pto_attr_unit(ctx), "unit"));
  pto_ctx_destroy(ctx);
}

TEST(aggregate_attributes) {
  PtoContext *ctx = pto_ctx_create();
  PtoAttr *one = pto_attr_i64(ctx, 1), *two = pto_attr_i64(ctx, 2);
  PtoAttr *els[] = {one, two};
  PtoAttr *arr = pto_attr_array(ctx, els, 2);
  int64_t vals[] = {1, 2};
  CHECK(arr == pto_attr_i64_array(ctx, vals, 2));
  CHECK(pto_attr_array_size(arr) == 2 && pto_attr_array_get(arr, 1) == two);
  CHECK(pto_attr_array_size(one) == 0 && pto_attr_array_size(NULL) == 0);
  CHECK(pto_attr_array(ctx, NULL, 0) == pto_parse_attr_str(ctx, "[]"));
  int64_t out[4];
  unsigned n = 0;
  CHECK(pto_attr_get_i64_array(arr, out, 4, &n) && n == 2 && out[1] == 2);
  CHECK(!pto_attr_get_i64_array(arr, out, 1, &n));
  PtoAttr *mixed_els[] = {one, pto_attr_cstr(ctx, "x")};
  CHECK(!pto_attr_get_i64_array(pto_attr_array(ctx, mixed_els, 2), out, 4, &n));
  int64_t many[40];
  for (int i = 0; i < 40; i++) many[i] = i;
  PtoAttr *big = pto_attr_i64_array(ctx, many, 40);
  CHECK(pto_attr_array_size(big) == 40 && pto_attr_int_value(pto_attr_array_get(big, 39)) == 39);
  /* dictionaries: sorted, later duplicates win */
  PtoNamedAttr entries[] = {{pto_ident_cstr(ctx, "b"), one},
                            {pto_ident_cstr(ctx, "a"), two},
                            {pto_ident_cstr(ctx, "b"), two}};
  PtoAttr *d = pto_attr_dict(ctx, entries, 3);
  CHECK(pto_attr_dict_size(d) == 2);
  CHECK(strcmp(pto_ident_str(pto_attr_dict_entries(d)[0].name), "a") == 0);
  CHECK(pto_attr_dict_get(d, "b") == two && pto_attr_dict_get(d, "c") == NULL);
  CHECK(d == pto_parse_attr_str(ctx, "{b = 2, a = 2}"));
  CHECK(prints(d, "{a = 2, b = 2}"));
  PtoNamedAttr lots[30];
  for (int i = 0; i < 30; i++) {
    char name[8];
    snprintf(name, sizeof name, "k%02d", 29 - i);
    lots[i].name = pto_ident_cstr(ctx, name);
    lots[i].value = pto_attr_i64(ctx, i);
  }
  PtoAttr *ld = pto_attr_dict(ctx, lots, 30);
  CHECK(pto_attr_dict_size(ld) == 30 &&
        strcmp(pto_ident_str(pto_attr_dict_entries(ld)[0].name), "k00") == 0);
  /* symbol references */
  PtoIdent *nested[] = {pto_ident_cstr(ctx, "b"), pto_ident_cstr(ctx, "c d")};
  PtoAttr *sym = pto_attr_symref(ctx, pto_ident_cstr(ctx, "a"), nested, 2);
  CHECK(sym == pto_parse_attr_str(ctx, "@a::@b::@\"c d\""));
  CHECK(pto_attr_symref_root(sym) == pto_ident_cstr(ctx, "a"));
  CHECK(pto_attr_symref_num_nested(sym) == 2 && pto_attr_symref_nested(sym, 1) == nested[1]);
  CHECK(prints(sym, "@a::@b::@\"c d\""));
  pto_ctx_destroy(ctx);
}

TEST(dialect_and_opaque_attributes) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_test_dialect(ctx);
  int64_t v[] = {1, -2};
  PtoAttr *pair = pto_attr_dialect(ctx, "ptotest", "pair", v, 2, NULL, 0, NULL, 0);
  CHECK(pair == pto_parse_attr_str(ctx, "#ptotest.pair<1, -2>"));
  CHECK(pto_attr_kind(pair) == PTO_ATTR_DIALECT);
  CHECK(strcmp(pto_attr_dialect_name(pair), "ptotest") == 0);
  CHECK(strcmp(pto_attr_dialect_mnemonic(pair), "pair") == 0);
  CHECK(pto_attr_num_ints(pair) == 2 && pto_attr_ints(pair)[1] == -2);
  CHECK(pto_attr_num_types(pair) == 0 && pto_attr_num_attrs(pair) == 0);
  PtoType *i8 = pto_type_int(ctx, 8);
  PtoAttr *withall = pto_attr_dialect(ctx, "ptotest", "other", NULL, 0, &i8, 1, &pair, 1);
  CHECK(pto_attr_type_param(withall, 0) == i8 && pto_attr_attr_param(withall, 0) == pair);
  PtoAttr *op = pto_attr_opaque(ctx, "x", "a", "1, 2", 4);
  CHECK(pto_attr_kind(op) == PTO_ATTR_OPAQUE && prints(op, "#x.a<1, 2>"));
  CHECK(op == pto_attr_opaque(ctx, "x", "a", "1, 2", 4));
  CHECK(prints(pto_attr_opaque(ctx, "x", "b", NULL, 0), "#x.b"));
  pto_ctx_destroy(ctx);
}

TEST(dense_attributes) {
  PtoContext *ctx = pto_ctx_create();
  int64_t s4[] = {4}, s22[] = {2, 2};
  PtoType *t4 = pto_type_tensor(ctx, s4, 1, pto_type_int(ctx, 32));
  int32_t data[] = {1, 2, 3, 4};
  PtoAttr *d = pto_attr_dense(ctx, t4, data, sizeof data, false);
  CHECK(pto_attr_kind(d) == PTO_ATTR_DENSE && !pto_attr_dense_is_splat(d));
  CHECK(pto_attr_dense_bytes(d) == 16 && pto_attr_get_type(d) == t4);
  CHECK(pto_attr_dense_get_i64(d, 3) == 4 && pto_attr_dense_get_f64(d, 2) == 3.0);
  CHECK(memcmp(pto_attr_dense_data(d), data, 16) == 0);
  CHECK(d == pto_parse_attr_str(ctx, "dense<[1, 2, 3, 4]> : tensor<4xi32>"));
  /* equal elements are stored as a splat */
  int32_t same[] = {7, 7, 7, 7}, seven = 7;
  PtoAttr *sp = pto_attr_dense(ctx, t4, same, sizeof same, false);
  CHECK(sp == pto_attr_dense(ctx, t4, &seven, 4, true));
  CHECK(pto_attr_dense_is_splat(sp) && pto_attr_dense_bytes(sp) == 4);
  CHECK(pto_attr_dense_get_i64(sp, 3) == 7);
  CHECK(prints(sp, "dense<7> : tensor<4xi32>"));
  /* storage sizes */
  CHECK(pto_dense_elem_bytes(pto_type_int(ctx, 1)) == 1);
  CHECK(pto_dense_elem_bytes(pto_type_int(ctx, 12)) == 2);
  CHECK(pto_dense_elem_bytes(pto_type_int(ctx, 24)) == 4);
  CHECK(pto_dense_elem_bytes(pto_type_int(ctx, 33)) == 8);
  CHECK(pto_dense_elem_bytes(pto_type_index(ctx)) == 8);
  CHECK(pto_dense_elem_bytes(pto_type_float(ctx, PTO_BF16)) == 2);
  /* odd widths are canonicalized: upper bits never matter */
  PtoType *t12 = pto_type_tensor(ctx, s4 /* {4} */, 1, pto_type_int(ctx, 12));
  int16_t raw[] = {0x0fff, (int16_t)0xffff, 0x7ff, (int16_t)0xf800};
  PtoAttr *d12 = pto_attr_dense(ctx, t12, raw, sizeof raw, false);
  CHECK(pto_attr_dense_get_i64(d12, 0) == -1 && pto_attr_dense_get_i64(d12, 1) == -1);
  CHECK(pto_attr_dense_get_i64(d12, 2) == 2047 && pto_attr_dense_get_i64(d12, 3) == -2048);
  PtoType *tu12 = pto_type_tensor(ctx, s4, 1, pto_type_int_signed(ctx, 12, PTO_UNSIGNED));
  PtoAttr *du12 = pto_attr_dense(ctx, tu12, raw, sizeof raw, false);
  CHECK(pto_attr_dense_get_i64(du12, 1) == 4095);
  /* floats of every kind */
  PtoType *tf = pto_type_tensor(ctx, s22, 2, pto_type_float(ctx, PTO_F16));
  uint16_t h[] = {pto_f32_to_f16_bits(1.0f), pto_f32_to_f16_bits(-2.5f),
                  pto_f32_to_f16_bits(65504.0f), pto_f32_to_f16_bits(0.0f)};
  PtoAttr *df = pto_attr_dense(ctx, tf, h, sizeof h, false);
  CHECK(pto_attr_dense_get_f64(df, 1) == -2.5 && pto_attr_dense_get_f64(df, 2) == 65504.0);
  CHECK(pto_attr_dense_get_i64(df, 1) == -2);
  CHECK(prints(df, "dense<[[1.000000e+00, -2.500000e+00], [6.550400e+04, 0.000000e+00]]> : tensor<2x2xf16>"));
  /* empty */
  int64_t s0[] = {0, 3};
  PtoType *t0 = pto_type_tensor(ctx, s0, 2, pto_type_f32(ctx));
  PtoAttr *d0 = pto_attr_dense(ctx, t0, NULL, 0, false);
  CHECK(!pto_attr_dense_is_splat(d0) && prints(d0, "dense<> : tensor<0x3xf32>"));
  pto_ctx_destroy(ctx);
}

/* f32 -> f16/bf16 conversions round to nearest even, including subnormals,
 * overflow to infinity and NaN; f16/bf16 -> f32 is exact. */
TEST(float_conversions) {
  /* exhaustive: every f16 reads back from f32 unchanged */
  for (uint32_t b = 0; b < 0x10000; b++) {
    uint16_t h = (uint16_t)b;
    float f = pto_f16_bits_to_f32(h);
    if (isnan(f)) {
      CHECK(isnan(pto_f16_bits_to_f32(pto_f32_to_f16_bits(f))));
      continue;
    }
    if (pto_f32_to_f16_bits(f) != h) {
      CHECK(pto_f32_to_f16_bits(f) == h);
      break;
    }
    float bf = pto_bf16_bits_to_f32(h);
    if (!isnan(bf) && pto_f32_to_bf16_bits(bf) != h) {
      CHECK(pto_f32_to_bf16_bits(bf) == h);
      break;
    }
  }
  CHECK(pto_f32_to_f16_bits(1.0f) == 0x3C00 && pto_f16_bits_to_f32(0x3C00) == 1.0f);
  CHECK(pto_f32_to_f16_bits(-2.0f) == 0xC000);
  CHECK(pto_f32_to_f16_bits(65504.0f) == 0x7BFF);
  /* ties to even: 1 + 2^-11 lies between 1 and 1 + 2^-10 */
  CHECK(pto_f32_to_f16_bits(1.0f + 0x1p-11f) == 0x3C00);
  CHECK(pto_f32_to_f16_bits(1.0f + 3 * 0x1p-11f) == 0x3C02);
  CHECK(pto_f32_to_f16_bits(1.0f + 0x1p-11f + 0x1p-20f) == 0x3C01);
  /* overflow: 65520 rounds up to infinity, 65519 down to the maximum */
  CHECK(pto_f32_to_f16_bits(65520.0f) == 0x7C00);
  CHECK(pto_f32_to_f16_bits(65519.0f) == 0x7BFF);
  CHECK(pto_f32_to_f16_bits(-1e10f) == 0xFC00);
  CHECK(pto_f32_to_f16_bits(INFINITY) == 0x7C00);
  /* subnormals: the smallest is 2^-24; half of it ties to zero */
  CHECK(pto_f32_to_f16_bits(0x1p-24f) == 0x0001);
  CHECK(pto_f16_bits_to_f32(0x0001) == 0x1p-24f);
  CHECK(pto_f32_to_f16_bits(0x1p-25f) == 0x0000);
  CHECK(pto_f32_to_f16_bits(0x1.8p-25f) == 0x0001);
  CHECK(pto_f32_to_f16_bits(0x1p-26f) == 0x0000);
  CHECK(pto_f32_to_f16_bits(3 * 0x1p-25f) == 0x0002); /* 1.5 ulp: to even */
  CHECK(pto_f32_to_f16_bits(-0x1p-24f) == 0x8001);
  CHECK(pto_f16_bits_to_f32(0x03FF) == 0x1.ff8p-15f); /* largest subnormal */
  CHECK(pto_f32_to_f16_bits(0x1.ffcp-15f) == 0x0400); /* rounds to normal */
  CHECK(pto_f32_to_f16_bits(-0.0f) == 0x8000);
  CHECK(pto_f32_to_f16_bits(0x1p-149f) == 0x0000);    /* f32 subnormal */
  /* NaN stays a (quiet) NaN */
  uint16_t qn = pto_f32_to_f16_bits(NAN);
  CHECK((qn & 0x7C00) == 0x7C00 && (qn & 0x3FF) != 0);
  /* bf16 */
  CHECK(pto_f32_to_bf16_bits(1.0f) == 0x3F80 && pto_bf16_bits_to_f32(0x3F80) == 1.0f);
  CHECK(pto_f32_to_bf16_bits(1.0f + 0x1p-8f) == 0x3F80);  /* tie to even */
  CHECK(pto_f32_to_bf16_bits(1.0f + 3 * 0x1p-8f) == 0x3F82);
  CHECK(pto_f32_to_bf16_bits(0x1.fffffep127f) == 0x7F80); /* overflow */
  CHECK(pto_f32_to_bf16_bits(0x1p-133f) == 0x0001);        /* subnormal */
  uint16_t bn = pto_f32_to_bf16_bits(NAN);
  CHECK((bn & 0x7F80) == 0x7F80 && (bn & 0x7F) != 0);
  /* double -> kind rounds once, not twice */
  CHECK(pto_round_to_float_kind(0.1, PTO_F32) == (double)0.1f);
  CHECK(pto_round_to_float_kind(0.1, PTO_F64) == 0.1);
  CHECK(pto_round_to_float_kind(65520.0, PTO_F16) == INFINITY);
  /* 1 + 2^-11 + 2^-40: above the tie in f16, but rounding to f32 first
   * would land exactly on the tie and round down */
  CHECK(pto_round_to_float_kind(1.0 + 0x1p-11 + 0x1p-40, PTO_F16) == 1.0 + 0x1p-10);
  CHECK(pto_round_to_float_kind(1.0 + 0x1p-8 + 0x1p-40, PTO_BF16) == 1.0 + 0x1p-7);
}

TEST(locations) {
  PtoContext *ctx = pto_ctx_create();
  PtoLoc *u = pto_loc_unknown(ctx);
  CHECK(u == pto_loc_unknown(ctx) && pto_loc_kind(u) == PTO_LOC_UNKNOWN);
  PtoLoc *f = pto_loc_file(ctx, "a.pto", 3, 7);
  CHECK(f == pto_loc_file(ctx, "a.pto", 3, 7) && f != pto_loc_file(ctx, "a.pto", 3, 8));
  PtoLoc *n = pto_loc_name(ctx, "n", f), *bare = pto_loc_name(ctx, "n", NULL);
  CHECK(n != bare && pto_loc_kind(n) == PTO_LOC_NAME);
  PtoLoc *cs = pto_loc_callsite(ctx, bare, f);
  CHECK(cs == pto_loc_callsite(ctx, bare, f) && pto_loc_kind(cs) == PTO_LOC_CALLSITE);
  PtoLoc *parts[] = {u, bare, n};
  PtoLoc *fu = pto_loc_fused(ctx, parts, 3);
  CHECK(fu == pto_loc_fused(ctx, parts, 3) && fu != pto_loc_fused(ctx, parts, 2));
  CHECK(pto_loc_kind(fu) == PTO_LOC_FUSED);
  const char *file;
  unsigned line, col;
  CHECK(pto_loc_get_file_line_col(f, &file, &line, &col) && line == 3 && col == 7);
  CHECK(strcmp(file, "a.pto") == 0);
  CHECK(pto_loc_get_file_line_col(n, NULL, &line, NULL) && line == 3);
  CHECK(!pto_loc_get_file_line_col(bare, &file, &line, &col));
  CHECK(!pto_loc_get_file_line_col(u, &file, &line, &col));
  CHECK(pto_loc_get_file_line_col(cs, &file, &line, &col) && col == 7); /* caller */
  CHECK(pto_loc_get_file_line_col(fu, &file, &line, &col) && col == 7); /* first */
  char *s = pto_loc_to_string(cs);
  CHECK_STR(s, "loc(callsite(\"n\" at \"a.pto\":3:7))");
  pto_free(s);
  s = pto_loc_to_string(fu);
  CHECK_STR(s, "loc(fused[unknown, \"n\", \"n\"(\"a.pto\":3:7)])");
  pto_free(s);
  pto_ctx_destroy(ctx);
}

TEST(parse_strings) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture log;
  diag_capture_begin(&log, ctx);
  CHECK(pto_parse_type_str(ctx, "i32 i64") == NULL);
  CHECK(diag_capture_has(&log, "<type>:1:5: error: unexpected trailing characters after type"));
  CHECK(pto_parse_attr_str(ctx, "1 2") == NULL);
  CHECK(diag_capture_has(&log, "<attr>:1:3: error: unexpected trailing characters after attribute"));
  CHECK(pto_parse_type_str(ctx, "tensor<") == NULL);
  CHECK(pto_parse_attr_str(ctx, "[1, ") == NULL);
  CHECK(log.count == 4);
  diag_capture_end(&log);
  CHECK(pto_parse_attr_str(ctx, "1.5 : f16") == pto_attr_float(ctx, pto_type_float(ctx, PTO_F16), 1.5));
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(scalar_types), T(tensor_and_function_types),
          T(dialect_and_opaque_types), T(scalar_attributes),
          T(aggregate_attributes), T(dialect_and_opaque_attributes),
          T(dense_attributes), T(float_conversions), T(locations),
          T(parse_strings))
