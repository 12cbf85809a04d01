/* Unit tests of lib/Support pieces whose edge cases the IR tests do not
 * reach: small vectors leaving their inline buffer, pointer-map slots,
 * hashing of empty input, arena marks, string-map iteration and name
 * suggestions. */
#include "Test.h"

#include "Support/Arena.h"
#include "Support/Hash.h"
#include "Support/Regex.h"
#include "Support/Str.h"
#include "Support/Vec.h"

TEST(small_vec_grows_out_of_line) {
  PTO_SMALL_VEC(int, 4) v;
  pto_small_vec_init(&v);
  CHECK(v.data == v.small && v.cap == 4);
  for (int i = 0; i < 4; i++) pto_small_vec_push(&v, i);
  CHECK(v.data == v.small);
  for (int i = 4; i < 100; i++) pto_small_vec_push(&v, i);
  CHECK(v.data != v.small && v.len == 100 && v.cap >= 100);
  int ok = 1;
  for (int i = 0; i < 100; i++) ok &= v.data[i] == i;
  CHECK(ok);
  pto_small_vec_free(&v);
  CHECK(v.data == v.small && v.len == 0);
}

TEST(ptrmap_find_updates_in_place) {
  PtoPtrMap m;
  pto_ptrmap_init(&m);
  CHECK(pto_ptrmap_find(&m, 42) == NULL);
  int a, b;
  for (uint64_t k = 1; k <= 1000; k++) pto_ptrmap_put(&m, k * 16, &a);
  void **slot = pto_ptrmap_find(&m, 16 * 500);
  CHECK(slot && *slot == &a);
  *slot = &b;
  CHECK(pto_ptrmap_get(&m, 16 * 500) == &b);
  CHECK(pto_ptrmap_remove(&m, 16 * 500));
  CHECK(pto_ptrmap_find(&m, 16 * 500) == NULL);
  CHECK(pto_ptrmap_find(&m, 16 * 501) != NULL);
  pto_ptrmap_release(&m);
}

/* Iteration visits each live entry once and skips removed ones. */
TEST(strmap_next_skips_removed) {
  PtoStrMap m;
  pto_strmap_init(&m);
  static const char *const keys[] = {"a", "bb", "ccc", "dddd"};
  int v;
  for (unsigned i = 0; i < 4; i++) pto_strmap_put(&m, keys[i], strlen(keys[i]), &v);
  CHECK(pto_strmap_remove(&m, "bb", 2));
  unsigned seen = 0, lens = 0;
  PtoStrMapEntry *e;
  for (uint32_t it = 0; (e = pto_strmap_next(&m, &it));) seen++, lens += e->len;
  CHECK(seen == 3);
  CHECK(lens == 1 + 3 + 4);
  pto_strmap_release(&m);
}

/* The closest name within a third of the length wins; far ones are not
 * suggested; a tie keeps the first offered. */
TEST(suggest_closest_name) {
  PtoSuggest sg;
  pto_suggest_init(&sg, "canonicalise", 12);
  pto_suggest_offer(&sg, "cse");
  pto_suggest_offer(&sg, "canonicalize");
  pto_suggest_offer(&sg, "canonicalizer");
  CHECK_STR(sg.best, "canonicalize");
  pto_suggest_init(&sg, "zzzz", 4);
  pto_suggest_offer(&sg, "cse");
  CHECK(sg.best == NULL);
  pto_suggest_init(&sg, "abc", 3);
  pto_suggest_offer(&sg, "abd");
  pto_suggest_offer(&sg, "abe");
  CHECK_STR(sg.best, "abd");
}

TEST(hash_of_empty_input) {
  CHECK(pto_hash_bytes(NULL, 0) == pto_hash_bytes("x", 0));
  CHECK(pto_hash_bytes("ab", 2) != pto_hash_bytes("ba", 2));
}

TEST(arena_mark_and_reset) {
  PtoArena a;
  pto_arena_init(&a);
  char *first = pto_arena_strndup(&a, "keep", 4);
  PtoArenaMark m = pto_arena_mark(&a);
  for (int i = 0; i < 1000; i++) pto_arena_alloc(&a, 1000); /* new chunks */
  pto_arena_reset(&a, m);
  CHECK_STR(first, "keep");
  char *again = pto_arena_alloc(&a, 16);
  CHECK(again != NULL && ((uintptr_t)again & 7) == 0);
  pto_arena_release(&a);
}

TEST(str_numbers_and_quoting) {
  PtoStr s;
  pto_str_init(&s);
  static const uint64_t u[] = {0, 7, 10, 99, 100, 101, 999, 1000, 12345,
                               UINT64_MAX};
  for (unsigned i = 0; i < sizeof u / sizeof u[0]; i++) {
    pto_str_uint(&s, u[i]);
    pto_str_putc(&s, ' ');
  }
  pto_str_int(&s, INT64_MIN);
  pto_str_putc(&s, ' ');
  pto_str_int(&s, -42);
  CHECK_STR(s.data, "0 7 10 99 100 101 999 1000 12345 18446744073709551615 "
                    "-9223372036854775808 -42");
  s.len = 0;
  pto_str_quoted(&s, "bench.addf", 10);
  pto_str_quoted(&s, "a\"b\\c\n\t\x01\x7f\xc3", 10);
  CHECK_STR(s.data, "\"bench.addf\"\"a\\\"b\\\\c\\n\\t\\01\\7F\\C3\"");
  pto_str_release(&s);
}

static int re_search(const char *pattern, const char *text) {
  const char *err;
  size_t off;
  PtoRegex *re = pto_regex_compile(pattern, &err, &off);
  if (!re) return -1;
  int r = pto_regex_search(re, text, strlen(text));
  pto_regex_destroy(re);
  return r;
}

static const char *re_error(const char *pattern, size_t *off) {
  const char *err = NULL;
  PtoRegex *re = pto_regex_compile(pattern, &err, off);
  pto_regex_destroy(re);
  return re ? NULL : err;
}

TEST(regex_matches_like_posix_ere) {
  CHECK(re_search("", "") == 1);
  CHECK(re_search("b", "abc") == 1);
  CHECK(re_search("^b", "abc") == 0);
  CHECK(re_search("c$", "abc") == 1);
  CHECK(re_search("b$", "abc") == 0);
  CHECK(re_search("^a.c$", "abc") == 1);
  CHECK(re_search("a(b|x)c", "zaxcz") == 1);
  CHECK(re_search("a(b|x)c", "aac") == 0);
  CHECK(re_search("x|y|z", "..z") == 1);
  CHECK(re_search("^(x|y|z)$", "") == 0);
  CHECK(re_search("^ab*c$", "ac") == 1);
  CHECK(re_search("^ab+c$", "ac") == 0);
  CHECK(re_search("^ab+c$", "abbbc") == 1);
  CHECK(re_search("^ab?c$", "abbc") == 0);
  CHECK(re_search("^a{2,3}$", "a") == 0);
  CHECK(re_search("^a{2,3}$", "aa") == 1);
  CHECK(re_search("^a{2,3}$", "aaa") == 1);
  CHECK(re_search("^a{2,3}$", "aaaa") == 0);
  CHECK(re_search("^a{2}$", "aa") == 1);
  CHECK(re_search("^a{2,}$", "aaaaa") == 1);
  CHECK(re_search("^[0-9]+x[0-9]+$", "32x64") == 1);
  CHECK(re_search("^[^0-9]+$", "ab1") == 0);
  CHECK(re_search("^[]a]+$", "]a]") == 1);
  CHECK(re_search("^[[:alpha:]_]+$", "tile_view") == 1);
  CHECK(re_search("^\\d+\\s\\w+$", "12 ab_3") == 1);
  CHECK(re_search("^\\D$", "7") == 0);
  CHECK(re_search("\\.\\*\\(", "a.*(b") == 1);
  CHECK(re_search("a{", "a{") == 1);
  CHECK(re_search("(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 0);
  CHECK(re_search("a++++++++++++++++++++++++", "aaa") == 1);
}

TEST(regex_refuses_what_it_cannot_bound) {
  size_t off = 0;
  CHECK_STR(re_error("a{4097}", &off), "regex too large (its repetitions "
                                       "expand past 4096 states)");
  CHECK_STR(re_error("((a{100}){100})", &off),
            "regex too large (its repetitions expand past 4096 states)");
  CHECK_STR(re_error("ab)", &off), "unmatched ')'");
  CHECK(off == 2);
  CHECK_STR(re_error("(ab", &off), "missing ')'");
  CHECK_STR(re_error("[ab", &off), "missing ']'");
  CHECK_STR(re_error("*a", &off), "nothing to repeat");
  CHECK_STR(re_error("a{3,2}", &off), "invalid repetition count (the maximum "
                                      "is below the minimum)");
  CHECK_STR(re_error("[z-a]", &off), "invalid range in '[...]'");
  CHECK_STR(re_error("[[:bogus:]]", &off), "unknown character class");
  CHECK_STR(re_error("\\q", &off), "unsupported escape");
  char deep[200];
  memset(deep, '(', 100);
  deep[100] = 0;
  CHECK_STR(re_error(deep, &off), "groups nested too deeply");
  char plus[200] = "a";
  memset(plus + 1, '+', 150);
  plus[151] = 0;
  CHECK_STR(re_error(plus, &off), "too many nested repetitions");
}

RUN_TESTS(T(small_vec_grows_out_of_line), T(ptrmap_find_updates_in_place),
          T(hash_of_empty_input), T(strmap_next_skips_removed),
          T(suggest_closest_name), T(arena_mark_and_reset),
          T(str_numbers_and_quoting), T(regex_matches_like_posix_ere),
          T(regex_refuses_what_it_cannot_bound))
