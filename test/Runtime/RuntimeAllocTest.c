/* The runtime under allocation and thread-creation failures: each
 * allocation of a small program (create, submit, run, replay, destroy) is
 * made to fail in turn, and every time the failing call reports an error
 * and, once everything is destroyed, no memory, mutex or condition
 * variable is left behind. The test is linked with --wrap for the
 * allocator and the pthread calls (see CMakeLists.txt), so the library
 * itself carries no hook. */
#include "pto/Runtime.h"

#include "../unittests/Test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
void __real_free(void *p);
int __real_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __real_pthread_mutex_destroy(pthread_mutex_t *m);
int __real_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int __real_pthread_cond_destroy(pthread_cond_t *c);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg);

/* The allocation (counted from 1) that fails, 0 for none; live blocks,
 * mutexes and condition variables; the pthread_create call that fails. */
static atomic_long alloc_calls, fail_alloc, live_blocks;
static atomic_long mutexes, conds, thread_calls, fail_thread;

static int should_fail(void) {
  long k = atomic_fetch_add(&alloc_calls, 1) + 1;
  return k == atomic_load(&fail_alloc);
}

void *__wrap_malloc(size_t n) {
  if (should_fail())
    return NULL;
  void *p = __real_malloc(n);
  if (p)
    atomic_fetch_add(&live_blocks, 1);
  return p;
}

void *__wrap_calloc(size_t n, size_t size) {
  if (should_fail())
    return NULL;
  void *p = __real_calloc(n, size);
  if (p)
    atomic_fetch_add(&live_blocks, 1);
  return p;
}

void *__wrap_aligned_alloc(size_t align, size_t n) {
  if (should_fail())
    return NULL;
  void *p = __real_aligned_alloc(align, n);
  if (p)
    atomic_fetch_add(&live_blocks, 1);
  return p;
}

void *__wrap_realloc(void *old, size_t n) {
  if (should_fail())
    return NULL; /* `old` stays allocated */
  void *p = __real_realloc(old, n);
  if (p && !old)
    atomic_fetch_add(&live_blocks, 1);
  return p;
}

void __wrap_free(void *p) {
  if (p)
    atomic_fetch_sub(&live_blocks, 1);
  __real_free(p);
}

int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a) {
  int rc = __real_pthread_mutex_init(m, a);
  if (rc == 0)
    atomic_fetch_add(&mutexes, 1);
  return rc;
}

int __wrap_pthread_mutex_destroy(pthread_mutex_t *m) {
  atomic_fetch_sub(&mutexes, 1);
  return __real_pthread_mutex_destroy(m);
}

int __wrap_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) {
  int rc = __real_pthread_cond_init(c, a);
  if (rc == 0)
    atomic_fetch_add(&conds, 1);
  return rc;
}

int __wrap_pthread_cond_destroy(pthread_cond_t *c) {
  atomic_fetch_sub(&conds, 1);
  return __real_pthread_cond_destroy(c);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
                          void *(*fn)(void *), void *arg) {
  long k = atomic_fetch_add(&thread_calls, 1) + 1;
  if (k == atomic_load(&fail_thread))
    return 11; /* EAGAIN: what a process out of threads gets */
  return __real_pthread_create(t, a, fn, arg);
}

static int k_add(const PtoRtTaskArgs *a) {
  int64_t *cells = a->buffers[0];
  cells[a->params[0]] += 1;
  return 0;
}

/* Creates a runtime, builds a graph with a chain, a wide fan-in (which
 * makes barrier nodes) and explicit edges, runs it twice, writes nothing,
 * and destroys it all. With `stream`, the tasks are submitted while the
 * graph runs (pto_graph_start .. pto_graph_wait) and the second run is a
 * replay. Returns how far it got: 0 when every call
 * succeeded, else the number of the first call that failed; a failing
 * call must leave a message. */
static int program(PtoRtBackend be, uint32_t threads, int stream,
                   int *failures_) {
  PtoRtPlatform p;
  pto_rt_platform_default(&p);
  PtoRtOptions o = {be, threads, 1};
  char err[128] = "";
  PtoRuntime *rt = pto_runtime_create(&p, &o, err, sizeof err);
  if (!rt) {
    CHECK(err[0] != 0);
    return 1;
  }
  int step = 0;
  PtoGraph *g = NULL;
  int32_t k = pto_runtime_add_kernel(rt, k_add, PTO_RT_CORE_AIV, "add");
  if (k < 0 && (step = 2))
    goto out;
  if (!(g = pto_graph_create(rt)) && (step = 3))
    goto out;
  if (pto_graph_add_buffer(g, 64 * 8, "cells") < 0 && (step = 4))
    goto out;
  int64_t cells[64];
  void *bufs[1] = {cells};
  memset(cells, 0, sizeof cells);
  if (stream && pto_graph_start(g, bufs, 1) != PTO_RT_OK && (step = 8))
    goto out;
  int64_t last = -1; /* ids count barrier nodes too */
  for (int64_t i = 0; i < 40; i++) {
    /* Tasks 0..19 write their own cell; 20..39 each read all of 0..19
     * and write cell 20 + i: a fan-in of 20 through barriers. */
    PtoRtRegion r[2] = {{0, (i < 20 ? i : 20 + i % 20) * 8, 8, PTO_RT_WRITE},
                        {0, 0, 20 * 8, PTO_RT_READ}};
    uint32_t pred = (uint32_t)(last < 0 ? 0 : last);
    PtoRtTaskDesc d = {0};
    d.kernel = k;
    d.regions = r;
    d.num_regions = i < 20 ? 1 : 2;
    d.preds = &pred;
    d.num_preds = i > 0 && i % 7 == 0;
    d.label = i < 20 ? "write" : "gather";
    d.params[0] = i < 20 ? i : 20 + i % 20;
    if ((last = pto_graph_submit(g, &d)) < 0 && (step = 5))
      goto out;
  }
  if (stream && pto_graph_wait(g) != PTO_RT_OK && (step = 9))
    goto out;
  for (int run = 0; run < 2; run++) {
    /* Streaming, the first run is the one submission went into. */
    if (!(stream && run == 0)) {
      memset(cells, 0, sizeof cells);
      if (pto_graph_run(g, bufs, 1) != PTO_RT_OK && (step = 6 + run))
        goto out;
    }
    if (be & PTO_RT_HOST)
      for (int i = 0; i < 40; i++)
        CHECK(cells[i] == 1);
  }
out:
  if (step)
    CHECK(pto_runtime_error(rt)[0] != 0);
  pto_graph_destroy(g);
  pto_runtime_destroy(rt);
  return step;
}

static void reset_counts(void) {
  atomic_store(&alloc_calls, 0);
  atomic_store(&live_blocks, 0);
  atomic_store(&mutexes, 0);
  atomic_store(&conds, 0);
  atomic_store(&thread_calls, 0);
}

/* Fails allocation 1, 2, ... of the program until it runs through. */
static void sweep(PtoRtBackend be, uint32_t threads, int stream,
                  int *failures_) {
  long k = 1;
  for (;; k++) {
    reset_counts();
    atomic_store(&fail_alloc, k);
    int step = program(be, threads, stream, failures_);
    long calls = atomic_load(&alloc_calls);
    atomic_store(&fail_alloc, 0);
    if (atomic_load(&live_blocks) || atomic_load(&mutexes) ||
        atomic_load(&conds)) {
      fprintf(stderr, "backend %d, allocation %ld failing (in step %d): %ld "
              "blocks, %ld mutexes, %ld condition variables left\n", (int)be,
              k, step, atomic_load(&live_blocks), atomic_load(&mutexes),
              atomic_load(&conds));
      (*failures_)++;
    }
    if (calls < k) { /* nothing failed: every allocation was tried */
      CHECK(step == 0);
      break;
    }
    CHECK(step != 0);
  }
  CHECK(k > 10); /* the program does allocate: the sweep did something */
}

TEST(alloc_failures_host) { sweep(PTO_RT_HOST, 3, 0, failures_); }
TEST(alloc_failures_sim) { sweep(PTO_RT_SIM, 1, 0, failures_); }
TEST(alloc_failures_both) { sweep(PTO_RT_BOTH, 2, 0, failures_); }
TEST(alloc_failures_streaming) {
  sweep(PTO_RT_HOST, 2, 1, failures_);
  sweep(PTO_RT_BOTH, 3, 1, failures_);
}

/* The second helper thread cannot be started: creation fails cleanly,
 * the first helper is joined and the primitives are destroyed. */
TEST(thread_create_fails) {
  for (long t = 1; t <= 3; t++) {
    reset_counts();
    atomic_store(&fail_thread, t);
    PtoRtPlatform p;
    pto_rt_platform_default(&p);
    PtoRtOptions o = {PTO_RT_HOST, 4, 0};
    char err[128] = "";
    PtoRuntime *rt = pto_runtime_create(&p, &o, err, sizeof err);
    CHECK(!rt);
    CHECK_STR(err, "could not start the host worker threads");
    CHECK(atomic_load(&live_blocks) == 0);
    CHECK(atomic_load(&mutexes) == 0 && atomic_load(&conds) == 0);
  }
  atomic_store(&fail_thread, 0);
}

RUN_TESTS(T(alloc_failures_host), T(alloc_failures_sim),
          T(alloc_failures_both), T(alloc_failures_streaming),
          T(thread_create_fails))
