/* Helpers shared by the application examples (examples/fft, examples/sgd):
 * `--key=value` options, the algorithm list, per-node speed factors and
 * the per-round statistics both print. Header-only, C99. */
#ifndef PATCOLL_APP_UTIL_H
#define PATCOLL_APP_UTIL_H

#include "example_util.h" /* sleep_ms, compare */

#include <mpi.h>
#include <patcoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { APP_MAX_ALGS = 16 };

/* Seconds on CLOCK_MONOTONIC: one clock for all ranks of a node, so entry
 * and exit times of different ranks can be compared (run time = max exit -
 * min entry). Not MPI_Wtime: Open MPI 4 counts it from each process's
 * first call (MPI_WTIME_IS_GLOBAL is false), so its values differ between
 * ranks by whatever separated their first calls. Across nodes the clocks
 * are not synchronised: the run times are then only valid on one node. */
static inline double app_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The value of `--key=value` among argv, or `fallback`. */
static inline const char *app_option(int argc, char **argv, const char *key, const char *fallback) {
  const size_t length = strlen(key);
  for (int i = 1; i < argc; ++i)
    if (strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, key, length) == 0 && argv[i][2 + length] == '=')
      return argv[i] + 3 + length;
  return fallback;
}

/* Numeric option; an unparsable value or one outside [low, high] is an
 * error (every rank sees the same argv, so every rank returns 0). */
static inline int app_number(int argc, char **argv, const char *key, double fallback, double low, double high,
                             double *out) {
  const char *text = app_option(argc, argv, key, NULL);
  if (!text) {
    *out = fallback;
    return 1;
  }
  char *end = NULL;
  const double value = strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= low && value <= high)) {
    fprintf(stderr, "--%s=%s: expected a number in [%g, %g]\n", key, text, low, high);
    return 0;
  }
  *out = value;
  return 1;
}

/* Every option must be one of `known` (NULL-terminated); 0 otherwise. */
static inline int app_check_options(int argc, char **argv, const char *const *known) {
  for (int i = 1; i < argc; ++i) {
    int ok = 0;
    for (const char *const *k = known; *k && !ok; ++k) {
      const size_t length = strlen(*k);
      ok = strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, *k, length) == 0 && argv[i][2 + length] == '=';
    }
    if (!ok) {
      fprintf(stderr, "unknown argument '%s'\n", argv[i]);
      return 0;
    }
  }
  return 1;
}

/* Splits a comma-separated list into at most APP_MAX_ALGS names (copied
 * into `storage`). Returns the count, or -1 when there are too many. */
static inline int app_split_list(const char *list, char *storage, size_t storage_size, const char **names) {
  snprintf(storage, storage_size, "%s", list);
  int count = 0;
  for (char *token = strtok(storage, ","); token; token = strtok(NULL, ",")) {
    if (count == APP_MAX_ALGS) return -1;
    names[count++] = token;
  }
  return count;
}

/* 1 when `name` is a registered algorithm of `collective` (native included). */
static inline int app_registered(const char *collective, const char *name) {
  const int count = PAT_Algorithm_count(collective);
  for (int i = 0; i < count; ++i) {
    const char *entry = PAT_Algorithm_name(collective, i);
    if (entry && strcmp(entry, name) == 0) return 1;
  }
  return 0;
}

/* Per-node speed: node r is `slowdown[r]` times slower than the fastest.
 * Fixed per rank (a heterogeneous or shared cluster) and drawn from
 * [1, max_slowdown] with a seeded generator, identical on every run; rank
 * 0 (the master / first node) is the fastest unless `root_slow`. */
static inline double app_node_slowdown(int rank, double max_slowdown, unsigned seed) {
  unsigned state = seed * 2654435761u + (unsigned)rank * 40503u + 1u;
  state ^= state >> 13;
  state *= 2246822519u;
  state ^= state >> 16;
  return 1.0 + (max_slowdown - 1.0) * (double)(state % 10007u) / 10006.0;
}

/* A value in [1, 1 + jitter) that changes every iteration: the noise on
 * top of a node's speed (other jobs, OS, network). */
static inline double app_jitter(int rank, long iteration, double jitter, unsigned seed) {
  unsigned state = seed * 374761393u + (unsigned)rank * 668265263u + (unsigned)iteration * 2246822519u + 7u;
  state ^= state >> 15;
  state *= 2654435761u;
  state ^= state >> 13;
  return 1.0 + jitter * (double)(state % 10007u) / 10007.0;
}

/* One row of the summary: median over rounds with min and max, and the
 * ratio of medians to the baseline's. */
static inline void app_print_stat(double *values, int rounds, double scale, double baseline_median) {
  qsort(values, (size_t)rounds, sizeof(double), compare);
  const double median = rounds % 2 ? values[rounds / 2] : 0.5 * (values[rounds / 2 - 1] + values[rounds / 2]);
  printf(" %9.3f [%8.3f,%8.3f] %6.3f", scale * median, scale * values[0], scale * values[rounds - 1],
         baseline_median > 0 ? median / baseline_median : 0.0);
}

static inline double app_median(const double *values, int rounds) {
  double *copy = (double *)malloc(sizeof(double) * (size_t)rounds);
  memcpy(copy, values, sizeof(double) * (size_t)rounds);
  qsort(copy, (size_t)rounds, sizeof(double), compare);
  const double median = rounds % 2 ? copy[rounds / 2] : 0.5 * (copy[rounds / 2 - 1] + copy[rounds / 2]);
  free(copy);
  return median;
}

#endif
