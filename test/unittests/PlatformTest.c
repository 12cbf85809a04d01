/* Unit tests of the platform API (include/pto/Platform.h) beyond what the
 * lit tests see through pto-opt: descriptions held in memory, the built-in
 * table, lookups, and that a failed load leaves the caller's value alone. */
#include "Test.h"

#include "pto/Platform.h"

TEST(builtin_table) {
  CHECK(pto_platform_builtin_count() == 2);
  CHECK_STR(pto_platform_builtin_name(0), PTO_PLATFORM_DEFAULT);
  CHECK_STR(pto_platform_builtin_name(1), "a3");
  CHECK(pto_platform_builtin_name(2) == NULL);
  CHECK(pto_platform_builtin_xml("a3") != NULL);
  CHECK(pto_platform_builtin_xml("a4") == NULL);
  CHECK(pto_platform_builtin_xml(NULL) == NULL);
}

TEST(default_and_named) {
  PtoPlatform a, b;
  CHECK(pto_platform_load(&a, NULL, NULL));
  CHECK(pto_platform_load(&b, "", NULL));
  CHECK_STR(a.name, "a2a3");
  CHECK(memcmp(&a, &b, sizeof a) == 0);
  CHECK(a.clock_hz == 1800e6);
  CHECK(a.cores[PTO_CORE_CUBE] == 24 && a.cores[PTO_CORE_VECTOR] == 48);
  CHECK(a.buffers[PTO_MEM_VEC].size_bytes == 192 * 1024);
  CHECK(a.buffers[PTO_MEM_ACC].fractal_bytes == 1024);
  CHECK(a.buffers[PTO_MEM_MAT].fractal_bytes == 0);
  CHECK(a.gm_efficiency == 0.75);
  CHECK(a.gm_aggregate_bytes_per_second == 1.2e12);
  CHECK(a.dependency_cycles == 390);
  CHECK(pto_platform_load(&b, "a3", NULL));
  CHECK(b.buffers[PTO_MEM_VEC].size_bytes == 248 * 1024);
  CHECK(b.buffers[PTO_MEM_ACC].size_bytes == 256 * 1024);
}

TEST(vector_latency) {
  PtoPlatform p;
  CHECK(pto_platform_load(&p, "a2a3", NULL));
  CHECK(pto_platform_vector_latency(&p, "exp") == 12);
  CHECK(pto_platform_vector_latency(&p, "add") == 6);
  CHECK(pto_platform_vector_latency(&p, "no-such-op") ==
        p.vector_default_latency_cycles);
}

TEST(names) {
  CHECK_STR(pto_mem_space_name(PTO_MEM_LEFT), "left");
  CHECK_STR(pto_mem_space_name(PTO_MEM_GM), "gm");
  CHECK_STR(pto_core_type_name(PTO_CORE_SCHEDULER), "scheduler");
}

TEST(parse_from_memory) {
  const char *xml = pto_platform_builtin_xml("a3");
  PtoPlatform p;
  PtoPlatformError err;
  CHECK(pto_platform_parse(&p, xml, strlen(xml), "mine.xml", &err));
  CHECK_STR(p.source, "mine.xml");
  /* a failure leaves *out untouched and says where */
  PtoPlatform before = p;
  const char bad[] = "<platform name=\"x\" format=\"1\">\n<clock/>\n";
  CHECK(!pto_platform_parse(&p, bad, sizeof bad - 1, "bad.xml", &err));
  CHECK(memcmp(&p, &before, sizeof p) == 0);
  CHECK_STR(err.file, "bad.xml");
  CHECK(err.line == 3);
  char msg[1024];
  pto_platform_error_format(&err, msg, sizeof msg);
  CHECK(strncmp(msg, "bad.xml:3: error: ", 18) == 0);
  /* errors may be ignored */
  CHECK(!pto_platform_parse(&p, bad, sizeof bad - 1, NULL, NULL));
}

TEST(describe) {
  PtoPlatform p;
  CHECK(pto_platform_load(&p, "a3", NULL));
  char *s = pto_platform_describe(&p);
  CHECK(strncmp(s, "platform a3 (built in): ", 24) == 0);
  CHECK(strstr(s, "vec 248 KiB") != NULL);
  pto_free(s);
}

RUN_TESTS(T(builtin_table), T(default_and_named), T(vector_latency), T(names),
          T(parse_from_memory), T(describe))
