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

#endif
