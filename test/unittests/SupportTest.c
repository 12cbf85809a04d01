/* Unit tests of lib/Support pieces whose edge cases the IR tests do not
 * reach: small vectors leaving their inline buffer, pointer-map slots,
 * hashing of empty input, arena marks. */
#include "Test.h"

#include "Support/Arena.h"
#include "Support/Hash.h"
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

RUN_TESTS(T(small_vec_grows_out_of_line), T(ptrmap_find_updates_in_place),
          T(hash_of_empty_input), T(arena_mark_and_reset),
          T(str_numbers_and_quoting))
