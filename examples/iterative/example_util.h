/* Helpers shared by the runtime examples: emulated computation and order
 * statistics of timings. */
#ifndef PATCOLL_EXAMPLE_UTIL_H
#define PATCOLL_EXAMPLE_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Emulated computation: sleeping leaves the 2 shared cores to the others. */
static inline void sleep_ms(double ms) {
  struct timespec t;
  t.tv_sec = (time_t)(ms / 1000.0);
  t.tv_nsec = (long)((ms - 1000.0 * (double)t.tv_sec) * 1e6);
  nanosleep(&t, NULL);
}

/* qsort comparator for doubles. */
static inline int compare(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
