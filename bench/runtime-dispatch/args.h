/* The command line the three benchmark programs share:
 * PROGRAM chain|wavefront N THREADS REPS. */
#ifndef PTO_BENCH_RUNTIME_DISPATCH_ARGS_H
#define PTO_BENCH_RUNTIME_DISPATCH_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct BenchArgs {
  int chain; /* else the wavefront */
  long n, tasks;
  int threads, reps;
} BenchArgs;

static inline int bench_parse_args(int argc, char **argv, BenchArgs *a) {
  if (argc != 5 || (strcmp(argv[1], "chain") && strcmp(argv[1], "wavefront"))) {
    fprintf(stderr, "usage: %s chain|wavefront N THREADS REPS\n", argv[0]);
    return 0;
  }
  a->chain = strcmp(argv[1], "chain") == 0;
  a->n = atol(argv[2]);
  a->threads = atoi(argv[3]);
  a->reps = atoi(argv[4]);
  if (a->n < 2 || a->n > 100000000 || a->threads < 1 || a->reps < 1) {
    fprintf(stderr, "%s: N must be at least 2, THREADS and REPS at least 1\n",
            argv[0]);
    return 0;
  }
  a->tasks = a->chain ? a->n : a->n * a->n;
  return 1;
}

/* What a replayed task's kernel gets in every program: a per-task argument
 * record laid out like the runtime's (buffer table, count, task id, six
 * parameters, user pointer: 72 bytes), from which it marks its task as
 * run. The peers keep one record per task next to their graph, as a
 * program that passes arguments to its kernels must; the marks are
 * checked after each replay. */
typedef struct BenchTaskArgs {
  void *const *buffers;
  unsigned num_buffers;
  unsigned task_id;
  long long params[6];
  void *user;
} BenchTaskArgs;

#endif
