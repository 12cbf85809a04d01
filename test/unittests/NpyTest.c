/* Unit tests of the .npy reader and writer (pto/Npy.h): round trips of
 * every dtype and header version, and every kind of malformed file with
 * its exact diagnostic. numpy's side of the format is tested in test/Npy. */
#include "DiagCapture.h"
#include "Test.h"
#include "pto/IRArray.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A .npy image with the given version and literal header text. */
typedef struct Img {
  unsigned char buf[1 << 12];
  size_t len;
} Img;

static void img_make(Img *im, unsigned major, const char *header,
                     const void *data, size_t ndata) {
  size_t hl = strlen(header);
  memcpy(im->buf, "\x93NUMPY", 6);
  im->buf[6] = (unsigned char)major;
  im->buf[7] = 0;
  size_t off = 8;
  for (unsigned i = 0; i < (major == 1 ? 2u : 4u); i++)
    im->buf[off++] = (unsigned char)(hl >> (8 * i));
  memcpy(im->buf + off, header, hl);
  off += hl;
  if (ndata) memcpy(im->buf + off, data, ndata);
  im->len = off + ndata;
}

static PtoNdArray *read_img(PtoContext *ctx, const Img *im) {
  return pto_npy_read_buffer(ctx, im->buf, im->len, "t.npy");
}

/* A temporary file path (in TMPDIR when set); the file is created. */
static void tmp_path(char *out, size_t cap) {
  const char *dir = getenv("TMPDIR");
  snprintf(out, cap, "%s/pto-npytest-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(out);
  if (fd >= 0) close(fd);
}

static void fill(PtoNdArray *a) {
  unsigned char *p = a->data;
  for (size_t i = 0; i < a->nbytes; i++) p[i] = (unsigned char)(i * 37 + 11);
  if (a->dtype == PTO_DT_BOOL)
    for (size_t i = 0; i < a->nbytes; i++) p[i] &= 1;
}

TEST(roundtrip_every_dtype_and_shape) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  static const int64_t shapes[][4] = {{0}, {7}, {0}, {2, 3, 4, 5}, {3, 0, 2}};
  static const unsigned ranks[] = {0, 1, 1, 4, 3};
  char path[512];
  tmp_path(path, sizeof path);
  for (int dt = 0; dt < PTO_DT_COUNT; dt++)
    for (unsigned s = 0; s < 5; s++) {
      PtoNdArray *a = pto_ndarray_create((PtoDType)dt, ranks[s], shapes[s],
                                         NULL);
      fill(a);
      /* index is stored as int64 and comes back as i64; u16 shares '<u2'
       * with bf16's bit patterns and comes back as bf16; the 8-bit floats
       * are written as their uint8 codes and come back as u8 */
      bool f8 = dt == PTO_DT_F8E4M3 || dt == PTO_DT_F8E5M2 || dt == PTO_DT_F8E8M0;
      PtoDType back = dt == PTO_DT_INDEX ? PTO_DT_I64
                      : dt == PTO_DT_U16 ? PTO_DT_BF16
                      : f8               ? PTO_DT_U8
                                         : (PtoDType)dt;
      size_t len;
      void *img = pto_npy_write_buffer(ctx, a, NULL, &len);
      CHECK(img && len % 64 == a->nbytes % 64);
      CHECK(img && ((unsigned char *)img)[6] == 1); /* version 1.0 */
      PtoNdArray *b = pto_npy_read_buffer(ctx, img, len, NULL);
      CHECK(b && b->dtype == back && b->rank == a->rank);
      if (b) {
        b->dtype = a->dtype;
        CHECK(pto_ndarray_equal(a, b));
      }
      pto_ndarray_destroy(b);
      pto_free(img);
      CHECK(pto_npy_write_file(ctx, path, a, NULL) == PTO_SUCCESS);
      PtoNdArray *c = pto_npy_read_file(ctx, path);
      CHECK(c && c->dtype == back);
      if (c) {
        c->dtype = a->dtype;
        CHECK(pto_ndarray_equal(a, c));
      }
      pto_ndarray_destroy(c);
      pto_ndarray_destroy(a);
    }
  remove(path);
  CHECK_STR(diag_capture_take(&dc), "");
  pto_ctx_destroy(ctx);
}

TEST(header_layout_and_versions) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  int64_t shape[2] = {2, 3};
  PtoNdArray *a = pto_ndarray_create(PTO_DT_F32, 2, shape, NULL);
  fill(a);
  size_t len;
  char *img = pto_npy_write_buffer(ctx, a, NULL, &len);
  /* numpy's layout: sorted keys, spaces to a 64-byte boundary, newline */
  const char *want = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  CHECK(len == 128 + 24);
  CHECK(memcmp(img + 10, want, strlen(want)) == 0);
  CHECK(img[127] == '\n' && img[126] == ' ');
  CHECK(img[8] == 118 && img[9] == 0);
  pto_free(img);
  for (unsigned v = 1; v <= 3; v++) {
    PtoNpyWriteOptions o = {v};
    img = pto_npy_write_buffer(ctx, a, &o, &len);
    CHECK(img && (unsigned char)img[6] == v && len == 128 + 24);
    PtoNdArray *b = pto_npy_read_buffer(ctx, img, len, NULL);
    CHECK(b && pto_ndarray_equal(a, b));
    pto_ndarray_destroy(b);
    pto_free(img);
  }
  PtoNpyWriteOptions bad = {4};
  CHECK(!pto_npy_write_buffer(ctx, a, &bad, &len));
  CHECK_STR(diag_capture_take(&dc),
            "<memory>: error: cannot write .npy format version 4 (supported: "
            "1, 2 and 3)\n");
  CHECK(pto_npy_write_file(ctx, "t.npy", a, &bad) == PTO_FAILURE);
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: cannot write .npy format version 4 (supported: "
            "1, 2 and 3)\n");
  CHECK(pto_npy_write_file(ctx, "/nonexistent-dir/x.npy", a, NULL) ==
        PTO_FAILURE);
  CHECK_STR(diag_capture_take(&dc),
            "/nonexistent-dir/x.npy: error: cannot open for writing: No such "
            "file or directory\n");
  pto_ndarray_destroy(a);

  /* A version 2 header longer than 65535 bytes (what a v1 length cannot
   * express) is read like any other. */
  size_t big = 70000;
  char *h = malloc(big + 1);
  const char *dict = "{'shape': (2,), 'fortran_order': False, 'descr': '<i2'}";
  memset(h, ' ', big);
  memcpy(h, dict, strlen(dict));
  h[big - 1] = '\n';
  h[big] = 0;
  size_t total = 12 + big + 4;
  unsigned char *f = malloc(total);
  memcpy(f, "\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; i++) f[8 + i] = (unsigned char)(big >> (8 * i));
  memcpy(f + 12, h, big);
  int16_t vals[2] = {-5, 300};
  memcpy(f + 12 + big, vals, 4);
  PtoNdArray *b = pto_npy_read_buffer(ctx, f, total, "big.npy");
  CHECK(b && b->dtype == PTO_DT_I16 && b->rank == 1 && b->shape[0] == 2);
  CHECK(b && ((int16_t *)b->data)[0] == -5 && ((int16_t *)b->data)[1] == 300);
  pto_ndarray_destroy(b);
  free(f);
  free(h);
  CHECK_STR(diag_capture_take(&dc), "");
  pto_ctx_destroy(ctx);
}

TEST(header_spellings) {
  /* What other writers produce: double quotes, no trailing comma, Python 2
   * longs, '=' and no byte order, 1-byte '<' and '>', extra whitespace. */
  static const struct {
    const char *header;
    PtoDType dt;
    unsigned rank;
    int64_t d0;
  } ok[] = {
      {"{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (3,)}", PTO_DT_F64, 1, 3},
      {"{'descr':'<i4','fortran_order':False,'shape':(3L,)}\n", PTO_DT_I32, 1, 3},
      {"  { 'shape' : ( 3 , ) , 'descr' : '=f2' , 'fortran_order' : False , }  \n", PTO_DT_F16, 1, 3},
      {"{'descr': 'f4', 'fortran_order': False, 'shape': ()}", PTO_DT_F32, 0, 0},
      {"{'descr': '<i1', 'fortran_order': False, 'shape': (3,)}", PTO_DT_I8, 1, 3},
      {"{'descr': '>u1', 'fortran_order': False, 'shape': (3,)}", PTO_DT_U8, 1, 3},
      {"{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}", PTO_DT_BOOL, 1, 3},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (3,)}", PTO_DT_BF16, 1, 3},
  };
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  unsigned char data[64] = {0};
  for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    Img im;
    img_make(&im, 1 + i % 3, ok[i].header, data, sizeof data);
    PtoNdArray *a = read_img(ctx, &im);
    CHECK(a && a->dtype == ok[i].dt && a->rank == ok[i].rank);
    CHECK(a && (a->rank == 0 || a->shape[0] == ok[i].d0));
    pto_ndarray_destroy(a);
  }
  CHECK_STR(diag_capture_take(&dc), "");
  pto_ctx_destroy(ctx);
}

/* Each malformed file and the exact diagnostic it must produce. */
#define H(descr, fo, shape) \
  "{'descr': " descr ", 'fortran_order': " fo ", 'shape': " shape ", }"
static const struct {
  const char *header;
  const char *error;
} bad_headers[] = {
    {H("'>f4'", "False", "(2,)"),
     "big-endian data ('>f4') is not supported; save a.astype('<f4') instead"},
    {H("'>i8'", "False", "(2,)"),
     "big-endian data ('>i8') is not supported; save a.astype('<i8') instead"},
    {H("'<f4'", "True", "(2, 3)"),
     "Fortran-order arrays are not supported; save a C-order copy "
     "(numpy.ascontiguousarray(a))"},
    {H("'|O'", "False", "(2,)"),
     "object arrays ('|O') are not supported: a .npy file for PTO holds "
     "plain numbers"},
    {H("[('a', '<i4'), ('b', '<f8')]", "False", "(2,)"),
     "structured arrays are not supported (the dtype is a list of fields); "
     "save one plain numeric array per file"},
    {H("'<c8'", "False", "(2,)"),
     "unsupported dtype '<c8' (complex64); PTO reads float16, float32, "
     "float64, bfloat16 (as '<u2'), int8, int16, int32, int64, uint8, uint32, uint64 and bool"},
    {H("'<c16'", "False", "(2,)"),
     "unsupported dtype '<c16' (complex128); PTO reads float16, float32, float64, "
     "bfloat16 (as '<u2'), int8, int16, int32, int64, uint8, uint32, uint64 and bool"},
    {H("'<f16'", "False", "(2,)"),
     "unsupported dtype '<f16' (float128); PTO reads float16, float32, "
     "float64, bfloat16 (as '<u2'), int8, int16, int32, int64, uint8, uint32, uint64 and bool"},
    {H("'<U5'", "False", "(2,)"),
     "unsupported dtype '<U5' (str); PTO reads float16, float32, float64, "
     "bfloat16 (as '<u2'), int8, int16, int32, int64, uint8, uint32, uint64 and bool"},
    {H("'<M8[ns]'", "False", "(2,)"),
     "unsupported dtype '<M8[ns]'; PTO reads float16, float32, float64, "
     "bfloat16 (as '<u2'), int8, int16, int32, int64, uint8, uint32, uint64 and bool"},
    {H("''", "False", "(2,)"),
     "unsupported dtype ''; PTO reads float16, float32, float64, bfloat16 "
     "(as '<u2'), int8, int16, int32, int64, uint8, uint32, uint64 and bool"},
    {H("'<f4'", "False", "(3, -1)"),
     "invalid shape (3, -1): dimensions must be non-negative"},
    {H("'<f4'", "False", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"),
     "array of rank 9 exceeds the maximum rank 8"},
    {H("'<f4'", "False", "(4611686018427387904, 4)"),
     "array of shape (4611686018427387904, 4) and dtype f32 is too large: its "
     "size in bytes overflows"},
    {H("'<f4'", "False", "(1000000000000,)"),
     "truncated .npy data: shape (1000000000000,) of float32 needs "
     "4000000000000 bytes but the file has 16 after the header"},
    {H("'<f8'", "False", "(3,)"),
     "truncated .npy data: shape (3,) of float64 needs 24 bytes but the file "
     "has 16 after the header"},
    {H("'<f4'", "False", "(99999999999999999999,)"),
     "malformed .npy header: dimension does not fit in 64 bits (at offset 71 "
     "of the header: {'descr': '<f4', 'fortran_order': False, 'shape': "
     "(99999999999999999999,), })"},
    {"'descr': '<f4'",
     "malformed .npy header: expected '{' (at offset 0 of the header: "
     "'descr': '<f4')"},
    {"{'descr' '<f4'}",
     "malformed .npy header: expected ':' after 'descr' (at offset 9 of the "
     "header: {'descr' '<f4'})"},
    {"{'descr': '<f4}",
     "malformed .npy header: unterminated string (at offset 15 of the "
     "header: {'descr': '<f4})"},
    {"{descr: '<f4'}",
     "malformed .npy header: expected a key as a quoted string (at offset 1 "
     "of the header: {descr: '<f4'})"},
    {"{'descr': '<f4', 'fortran_order': False}",
     "malformed .npy header: missing key 'shape' (at offset 40 of the "
     "header: {'descr': '<f4', 'fortran_order': False})"},
    {"{'descr': '<f4', 'shape': (2,)}",
     "malformed .npy header: missing key 'fortran_order' (at offset 31 of "
     "the header: {'descr': '<f4', 'shape': (2,)})"},
    {"{'fortran_order': False, 'shape': (2,)}",
     "malformed .npy header: missing key 'descr' (at offset 39 of the "
     "header: {'fortran_order': False, 'shape': (2,)})"},
    {H("'<f4'", "0", "(2,)"),
     "malformed .npy header: 'fortran_order' must be True or False (at "
     "offset 34 of the header: {'descr': '<f4', 'fortran_order': 0, 'shape': "
     "(2,), })"},
    {H("'<f4'", "Falsey", "(2,)"),
     "malformed .npy header: 'fortran_order' must be True or False (at "
     "offset 34 of the header: {'descr': '<f4', 'fortran_order': Falsey, "
     "'shape': (2,), })"},
    {H("'<f4'", "False", "[2]"),
     "malformed .npy header: 'shape' must be a tuple of integers (at offset "
     "50 of the header: {'descr': '<f4', 'fortran_order': False, 'shape': "
     "[2], })"},
    {H("'<f4'", "False", "(2)"),
     "malformed .npy header: 'shape' must be a tuple; a 1-d shape is written "
     "(n,) (at offset 53 of the header: {'descr': '<f4', 'fortran_order': "
     "False, 'shape': (2), })"},
    {H("'<f4'", "False", "(2.5,)"),
     "malformed .npy header: expected ',' or ')' in 'shape' (at offset 52 of "
     "the header: {'descr': '<f4', 'fortran_order': False, 'shape': (2.5,), "
     "})"},
    {H("'<f4'", "False", "(a,)"),
     "malformed .npy header: expected an integer dimension in 'shape' (at "
     "offset 51 of the header: {'descr': '<f4', 'fortran_order': False, "
     "'shape': (a,), })"},
    {H("3", "False", "(2,)"),
     "malformed .npy header: expected 'descr' as a quoted string (at offset "
     "10 of the header: {'descr': 3, 'fortran_order': False, 'shape': (2,), "
     "})"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
     "malformed .npy header: unexpected key 'x'; a .npy header has exactly "
     "the keys 'descr', 'fortran_order' and 'shape' (at offset 56 of the "
     "header: {'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': "
     "1})"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
     "malformed .npy header: unexpected text after '}' (at offset 56 of the "
     "header: {'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x)"},
    {"{'descr': '<f4' 'fortran_order': False}",
     "malformed .npy header: expected ',' or '}' (at offset 16 of the "
     "header: {'descr': '<f4' 'fortran_order': False})"},
    {"{'descr': 'a\\'b'}",
     "malformed .npy header: escapes in strings are not supported (at "
     "offset 12 of the header: {'descr': 'a\\'b'})"},
    {"{\x01\xff",
     "malformed .npy header: expected a key as a quoted string (at offset 1 "
     "of the header: {\\x01\\xff)"},
    {"",
     "malformed .npy header: expected '{' (at offset 0 of the header: )"},
};

TEST(malformed_headers) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  unsigned char data[16] = {0};
  char want[1024];
  for (unsigned i = 0; i < sizeof bad_headers / sizeof bad_headers[0]; i++) {
    Img im;
    img_make(&im, 1, bad_headers[i].header, data, sizeof data);
    CHECK(!read_img(ctx, &im));
    snprintf(want, sizeof want, "t.npy: error: %s\n", bad_headers[i].error);
    CHECK_STR(diag_capture_take(&dc), want);
  }
  pto_ctx_destroy(ctx);
}

TEST(malformed_prefix) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  Img im;
  const char *hdr = H("'<f4'", "False", "(1,)");
  img_make(&im, 1, hdr, "\0\0\0\0", 4);
  CHECK(!pto_npy_read_buffer(ctx, "PK\3\4 not npy", 13, "t.npy"));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: not a .npy file: it does not start with the magic "
            "string \"\\x93NUMPY\"\n");
  CHECK(!pto_npy_read_buffer(ctx, "", 0, "t.npy"));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: not a .npy file: it does not start with the magic "
            "string \"\\x93NUMPY\"\n");
  CHECK(!pto_npy_read_buffer(ctx, im.buf, 3, "t.npy"));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: truncated .npy header: the file ends after 3 "
            "bytes, before the format version\n");
  CHECK(!pto_npy_read_buffer(ctx, im.buf, 9, "t.npy"));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: truncated .npy header: the file ends after 9 "
            "bytes, inside the header length\n");
  CHECK(!pto_npy_read_buffer(ctx, im.buf, 40, "t.npy"));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: truncated .npy header: it declares 57 bytes but "
            "the file has 30 after the 10-byte prefix\n");
  im.buf[6] = 4;
  CHECK(!read_img(ctx, &im));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: unsupported .npy format version 4.0 (supported: "
            "1.0, 2.0 and 3.0)\n");
  im.buf[6] = 1;
  im.buf[7] = 1;
  CHECK(!read_img(ctx, &im));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: unsupported .npy format version 1.1 (supported: "
            "1.0, 2.0 and 3.0)\n");
  /* v2 length field of 4 GiB - 1 in a tiny file */
  img_make(&im, 2, hdr, "\0\0\0\0", 4);
  memset(im.buf + 8, 0xff, 4);
  CHECK(!read_img(ctx, &im));
  CHECK_STR(diag_capture_take(&dc),
            "t.npy: error: truncated .npy header: it declares 4294967295 "
            "bytes but the file has 61 after the 12-byte prefix\n");
  /* the default name of a memory buffer */
  CHECK(!pto_npy_read_buffer(ctx, "x", 1, NULL));
  CHECK_STR(diag_capture_take(&dc),
            "<memory>: error: not a .npy file: it does not start with the "
            "magic string \"\\x93NUMPY\"\n");
  pto_ctx_destroy(ctx);
}

TEST(files) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  char path[512], want[1024];
  tmp_path(path, sizeof path);
  /* a huge declared shape in a small file: refused before allocating */
  Img im;
  img_make(&im, 1, H("'<f8'", "False", "(1000000000, 1000000)"), "", 0);
  FILE *f = fopen(path, "wb");
  fwrite(im.buf, 1, im.len, f);
  fclose(f);
  CHECK(!pto_npy_read_file(ctx, path));
  snprintf(want, sizeof want,
           "%s: error: truncated .npy data: shape (1000000000, 1000000) of "
           "float64 needs 8000000000000000 bytes but the file has 0 after the "
           "header\n",
           path);
  CHECK_STR(diag_capture_take(&dc), want);
  /* header length beyond the end of the file */
  f = fopen(path, "wb");
  fwrite(im.buf, 1, 30, f);
  fclose(f);
  CHECK(!pto_npy_read_file(ctx, path));
  snprintf(want, sizeof want,
           "%s: error: truncated .npy header: it declares 74 bytes but the "
           "file has 20 after the 10-byte prefix\n",
           path);
  CHECK_STR(diag_capture_take(&dc), want);
  /* a malformed header read from a file */
  img_make(&im, 3, H("'<f4'", "True", "(1,)"), "abcd", 4);
  f = fopen(path, "wb");
  fwrite(im.buf, 1, im.len, f);
  fclose(f);
  CHECK(!pto_npy_read_file(ctx, path));
  snprintf(want, sizeof want,
           "%s: error: Fortran-order arrays are not supported; save a "
           "C-order copy (numpy.ascontiguousarray(a))\n",
           path);
  CHECK_STR(diag_capture_take(&dc), want);
  /* a file that is too short for its magic */
  f = fopen(path, "wb");
  fwrite("\x93NU", 1, 3, f);
  fclose(f);
  CHECK(!pto_npy_read_file(ctx, path));
  snprintf(want, sizeof want,
           "%s: error: truncated .npy header: the file ends after 3 bytes, "
           "before the format version\n",
           path);
  CHECK_STR(diag_capture_take(&dc), want);
  remove(path);
  CHECK(!pto_npy_read_file(ctx, path));
  snprintf(want, sizeof want,
           "%s: error: cannot open: No such file or directory\n", path);
  CHECK_STR(diag_capture_take(&dc), want);
  CHECK(!pto_npy_read_file(ctx, "."));
  CHECK_STR(diag_capture_take(&dc), ".: error: cannot read: Is a directory\n");
  pto_ctx_destroy(ctx);
}

TEST(strided_write) {
  /* A transposed view is written in C order of the view. */
  PtoContext *ctx = pto_ctx_create();
  int32_t m[2][3] = {{0, 1, 2}, {3, 4, 5}};
  int64_t shape[2] = {3, 2}, strides[2] = {1, 3};
  PtoNdArray *t = pto_ndarray_wrap(PTO_DT_I32, 2, shape, strides, m, NULL);
  size_t len;
  void *img = pto_npy_write_buffer(ctx, t, NULL, &len);
  PtoNdArray *b = pto_npy_read_buffer(ctx, img, len, NULL);
  static const int32_t want[6] = {0, 3, 1, 4, 2, 5};
  CHECK(b && b->shape[0] == 3 && b->shape[1] == 2);
  CHECK(b && memcmp(b->data, want, sizeof want) == 0);
  CHECK(b && pto_ndarray_equal(t, b));
  pto_ndarray_destroy(b);
  pto_free(img);
  pto_ndarray_destroy(t);
  pto_ctx_destroy(ctx);
}

/* An empty array may have other dims whose product overflows int64: its
 * strides and element count must be computed without signed overflow
 * (the UBSan build checks; found by adversarial testing). */
TEST(empty_array_with_huge_dims) {
  PtoContext *ctx = pto_ctx_create();
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  Img im;
  img_make(&im, 1,
           "{'descr': '<f4', 'fortran_order': False, 'shape': "
           "(0, 429496720000, 4294967296, 4), }",
           NULL, 0);
  PtoNdArray *a = read_img(ctx, &im);
  CHECK(a && a->rank == 4 && a->nbytes == 0);
  CHECK(a && pto_ndarray_numel(a) == 0 && pto_ndarray_is_contiguous(a));
  CHECK(a && a->strides[3] == 1 && a->strides[2] == 4);
  PtoNdArray *c = a ? pto_ndarray_convert(a, PTO_DT_F16, PTO_CAST_DEFAULT) : NULL;
  CHECK(c && pto_ndarray_numel(c) == 0);
  pto_ndarray_destroy(c);
  pto_ndarray_destroy(a);
  CHECK_STR(diag_capture_take(&dc), "");
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(roundtrip_every_dtype_and_shape), T(header_layout_and_versions),
          T(header_spellings), T(malformed_headers), T(malformed_prefix),
          T(files), T(strided_write), T(empty_array_with_huge_dims))
