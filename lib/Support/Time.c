/* Monotonic wall-clock time. */
#include "Support/Time.h"

#include <time.h>

double pto_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
