/* The OpenMP peer of bench/runtime-dispatch: the same empty-kernel chain
 * and wavefront as `task depend` graphs, built by one thread and run by
 * the team each time (OpenMP has no way to keep a task graph). Built with
 * gcc -fopenmp (libgomp) and clang -fopenmp (LLVM's libomp). Prints
 * "build_run <tasks per second>". */
#include "args.h"

#include <omp.h>

static volatile long sink;
__attribute__((noinline)) static void empty(long i) { (void)i; }

int main(int argc, char **argv) {
  BenchArgs a;
  if (!bench_parse_args(argc, argv, &a))
    return 1;
  long n = a.n, tasks = a.tasks;
  int threads = a.threads, reps = a.reps, chain = a.chain;
  char *cells = calloc((size_t)tasks, 1);
  double best = 0;
  long ran = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = omp_get_wtime();
    ran = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
    {
      if (chain) {
        for (long i = 0; i < n; i++) {
          if (i == 0) {
#pragma omp task depend(out : cells[0])
            empty(i);
          } else {
#pragma omp task depend(in : cells[i - 1]) depend(out : cells[i])
            empty(i);
          }
        }
      } else {
        for (long i = 0; i < n; i++)
          for (long j = 0; j < n; j++) {
            char *up = i ? &cells[(i - 1) * n + j] : &cells[i * n + j];
            char *left = j ? &cells[i * n + j - 1] : &cells[i * n + j];
#pragma omp task depend(in : up[0], left[0]) depend(inout : cells[i * n + j])
            empty(i * n + j);
          }
      }
    }
    double rate = tasks / (omp_get_wtime() - t0);
    best = rate > best ? rate : best;
  }
  sink = ran;
  printf("build_run %.0f\n", best);
  free(cells);
  return 0;
}
