/* A minimal unit-test harness: TEST(name) { CHECK(...); } and RUN_TESTS. */
#ifndef PTO_UNITTEST_H
#define PTO_UNITTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*TestFn)(int *failures);
typedef struct TestCase {
  const char *name;
  TestFn fn;
} TestCase;

#define TEST(name) static void test_##name(int *failures_)
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,     \
              #cond);                                                      \
      (*failures_)++;                                                      \
    }                                                                      \
  } while (0)
#define CHECK_STR(a, b)                                                    \
  do {                                                                     \
    const char *a_ = (a), *b_ = (b);                                       \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) {                               \
      fprintf(stderr, "%s:%d: CHECK_STR failed:\n  got:      %s\n"         \
              "  expected: %s\n", __FILE__, __LINE__, a_ ? a_ : "(null)",  \
              b_ ? b_ : "(null)");                                         \
      (*failures_)++;                                                      \
    }                                                                      \
  } while (0)
#define T(name) {#name, test_##name}

static inline int run_tests(const TestCase *tests, size_t n) {
  int total = 0;
  for (size_t i = 0; i < n; i++) {
    int f = 0;
    tests[i].fn(&f);
    printf("[%s] %s\n", f ? "FAIL" : " OK ", tests[i].name);
    total += f;
  }
  printf("%zu tests, %d failed checks\n", n, total);
  return total ? 1 : 0;
}
#define RUN_TESTS(...)                                                     \
  int main(void) {                                                         \
    static const TestCase tests_[] = {__VA_ARGS__};                        \
    return run_tests(tests_, sizeof tests_ / sizeof tests_[0]);            \
  }

#endif
