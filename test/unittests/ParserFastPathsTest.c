/* Unit tests of the parser's fast paths against the slow ones they
 * shortcut: decimal literals against strtod, cached type spellings
 * against fresh parses, dimension lists read from the text, op locations
 * made on demand. */
#include "Test.h"
#include "pto/IR.h"

#include <math.h>

/* xorshift: deterministic pseudo-random literals */
static uint64_t next_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

TEST(float_literals_match_strtod) {
  PtoContext *ctx = pto_ctx_create();
  uint64_t seed = 88172645463325252ULL;
  int bad = 0;
  char lit[64], text[96];
  for (int i = 0; i < 20000; i++) {
    uint64_t r = next_rand(&seed);
    unsigned ndig = 1 + r % 19, point = (r >> 8) % (ndig + 1);
    int exp = (int)((r >> 16) % 61) - 30;
    size_t n = 0;
    for (unsigned d = 0; d < ndig; d++) {
      if (d == point) lit[n++] = '.';
      lit[n++] = (char)('0' + next_rand(&seed) % 10);
    }
    if (point == ndig) lit[n++] = '.', lit[n++] = '0';
    if (lit[0] == '.') memmove(lit + 1, lit, n++), lit[0] = '0';
    n += (size_t)snprintf(lit + n, sizeof lit - n, "e%d", exp);
    snprintf(text, sizeof text, "%s : f64", lit);
    PtoAttr *a = pto_parse_attr_str(ctx, text);
    double want = strtod(lit, NULL);
    if (!a || pto_attr_float_value(a) != want) {
      if (bad++ < 5)
        fprintf(stderr, "  %s: got %.17g, strtod %.17g\n", lit,
                a ? pto_attr_float_value(a) : NAN, want);
    }
  }
  CHECK(bad == 0);
  /* longer than any buffer: every digit and the exponent count */
  char lng[400] = "0.";
  memset(lng + 2, '0', 300);
  strcpy(lng + 302, "25e301 : f64");
  PtoAttr *a = pto_parse_attr_str(ctx, lng);
  CHECK(a && pto_attr_float_value(a) == 2.5);
  pto_ctx_destroy(ctx);
}

static bool swallow(const PtoDiagInfo *d, void *user) { return true; }

/* The same spellings read many times give the same (uniqued) types, and
 * spellings the cache must not take (other spacing, trailing text) are
 * read as before. */
TEST(type_spellings) {
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_set_allow_unregistered(ctx, true);
  const char *src =
      "%a = \"t.a\"() : () -> tensor<4x?xf32>\n"
      "%b:2 = \"t.b\"(%a) : (tensor<4x?xf32>) -> (tensor<4x?xf32>, i1)\n"
      "%c:2 = \"t.b\"(%a) : (tensor<4x?xf32>) -> (tensor<4x?xf32>, i1)\n"
      "%d = \"t.c\"(%a) : (tensor<4x?xf32>)->tensor<4x?xf32>\n"
      "%e = \"t.c\"(%a) : (tensor<4 x ?xf32>) -> tensor<4x?xf32>\n"
      "%f = \"t.c\"(%a) {t = (tensor<4x?xf32>) -> tensor<4x?xf32>} : "
      "(tensor<4x?xf32>) -> tensor<4x?xf32>\n";
  PtoOp *m = pto_parse_module(ctx, src, strlen(src), NULL);
  CHECK(m != NULL);
  if (m) {
    PtoBlock *body = pto_region_first_block(pto_op_region(m, 0));
    PtoOp *a = pto_block_first_op(body);
    PtoType *t = pto_value_type(pto_op_result(a, 0));
    int n = 0;
    for (PtoOp *o = a; o; o = pto_op_next(o), n++)
      CHECK(pto_value_type(pto_op_result(o, 0)) == t);
    CHECK(n == 6);
    PtoOp *f = pto_block_last_op(body);
    PtoType *ft = pto_attr_type_value(pto_op_attr(f, "t"));
    CHECK(ft && pto_type_func_num_inputs(ft) == 1 &&
          pto_type_func_input(ft, 0) == t);
    pto_op_destroy(m);
  }
  int64_t shape[] = {0, 4, PTO_DYN, 1};
  PtoType *want = pto_type_tensor(ctx, shape, 4, pto_type_int(ctx, 8));
  CHECK(pto_parse_type_str(ctx, "tensor<0x4x?x1xi8>") == want);
  CHECK(pto_parse_type_str(ctx, "tensor<0x4 x ?x1xi8>") == want);
  pto_ctx_push_diag_handler(ctx, swallow, NULL);
  CHECK(pto_parse_type_str(ctx, "tensor<0x4x?x1xi8") == NULL);
  pto_ctx_pop_diag_handler(ctx);
  pto_ctx_destroy(ctx);
}

/* Parsed ops keep their position packed until asked: the location they
 * give is still the uniqued one, for clones too. */
TEST(op_locations_made_on_demand) {
  PtoContext *ctx = pto_ctx_create();
  pto_ctx_set_allow_unregistered(ctx, true);
  const char *src = "\"t.a\"() : () -> ()\n"
                    "  %x = \"t.b\"() : () -> i1\n"
                    "\"t.c\"() : () -> () loc(\"other.py\":7:3)\n";
  PtoParseOptions o = {"f.pto", 10};
  PtoOp *m = pto_parse_module(ctx, src, strlen(src), &o);
  CHECK(m != NULL);
  if (m) {
    PtoOp *a = pto_block_first_op(pto_region_first_block(pto_op_region(m, 0)));
    PtoOp *b = pto_op_next(a), *c = pto_op_next(b);
    PtoOp *bc = pto_op_clone(b, NULL);
    CHECK(pto_op_loc(b) == pto_loc_file(ctx, "f.pto", 11, 3));
    CHECK(pto_op_loc(b) == pto_op_loc(b));
    CHECK(pto_op_loc(bc) == pto_loc_file(ctx, "f.pto", 11, 3));
    CHECK(pto_value_loc(pto_op_result(b, 0)) == pto_op_loc(b));
    CHECK(pto_op_loc(a) == pto_loc_file(ctx, "f.pto", 10, 1));
    CHECK(pto_op_loc(c) == pto_loc_file(ctx, "other.py", 7, 3));
    pto_op_set_loc(a, pto_loc_name(ctx, "n", NULL));
    CHECK(pto_loc_kind(pto_op_loc(a)) == PTO_LOC_NAME);
    char *s = pto_op_print_to_string(m, PTO_PRINT_DEBUGINFO);
    CHECK(strstr(s, "\"t.b\"() : () -> i1 loc(\"f.pto\":11:3)") != NULL);
    pto_free(s);
    pto_op_destroy(bc);
    pto_op_destroy(m);
  }
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(float_literals_match_strtod), T(type_spellings),
          T(op_locations_made_on_demand))
