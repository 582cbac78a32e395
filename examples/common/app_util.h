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

/* Option errors are reported by rank 0 only (every rank parses the same
 * argv); set by app_init. */
static int app_reporting_rank = 1;

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

/* MPI_Init_thread with MPI_THREAD_MULTIPLE (the PAT runtime's background
 * thread needs it; without it PAT_Init fails and says so), rank and size
 * of MPI_COMM_WORLD; only rank 0 reports option errors. */
static inline void app_init(int *argc, char ***argv, int *rank, int *size) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  app_reporting_rank = *rank == 0;
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
    if (app_reporting_rank) fprintf(stderr, "--%s=%s: expected a number in [%g, %g]\n", key, text, low, high);
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
      if (app_reporting_rank) fprintf(stderr, "unknown argument '%s'\n", argv[i]);
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

/* The --algs list (default `default_list`) and the index of --baseline
 * (default `default_baseline`, else the first). A name is accepted when it
 * is `mpi` (the plain MPI call), `auto`, a registered algorithm of
 * `collective`, or one of the comma-separated `extra` names. Returns the
 * count, or 0 after a message from rank 0. */
static inline int app_algorithm_list(int argc, char **argv, const char *program, const char *collective,
                                     const char *default_list, const char *extra, const char *default_baseline,
                                     int rank, char *storage, size_t storage_size, const char **algs,
                                     int *baseline_index) {
  const int count = app_split_list(app_option(argc, argv, "algs", default_list), storage, storage_size, algs);
  if (count <= 0) {
    if (rank == 0) fprintf(stderr, "%s: --algs: between 1 and %d names\n", program, APP_MAX_ALGS);
    return 0;
  }
  for (int a = 0; a < count; ++a) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, ",%s,", algs[a]);
    char extras[256];
    snprintf(extras, sizeof extras, ",%s,", extra);
    if (strcmp(algs[a], "mpi") != 0 && strcmp(algs[a], "auto") != 0 && !strstr(extras, pattern) &&
        !app_registered(collective, algs[a])) {
      if (rank == 0)
        fprintf(stderr, "%s: '%s' is not a%s %s algorithm (patcoll-bench --list)\n", program, algs[a],
                collective[0] == 'a' ? "n" : "", collective);
      return 0;
    }
  }
  const char *baseline = app_option(argc, argv, "baseline", NULL);
  *baseline_index = 0;
  for (int a = 0; a < count; ++a)
    if (strcmp(algs[a], baseline ? baseline : default_baseline) == 0) *baseline_index = a;
  if (baseline && strcmp(algs[*baseline_index], baseline) != 0) {
    if (rank == 0) fprintf(stderr, "%s: --baseline=%s is not in --algs\n", program, baseline);
    return 0;
  }
  return count;
}

/* PAT_Init on MPI_COMM_WORLD unless every algorithm is `mpi` (then the
 * program makes no PAT_* call at all). Returns whether the runtime runs;
 * aborts when it cannot start. */
static inline int app_start_runtime(const char *program, const char **algs, int count, int rank) {
  int uses_runtime = 0;
  for (int a = 0; a < count; ++a) uses_runtime |= strcmp(algs[a], "mpi") != 0;
  if (uses_runtime && PAT_Init(MPI_COMM_WORLD) != MPI_SUCCESS) {
    if (rank == 0) fprintf(stderr, "%s: PAT_Init: %s\n", program, PAT_Last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return uses_runtime;
}

/* Per-node speed: node r is `slowdown[r]` times slower than the fastest.
 * Fixed per rank (a heterogeneous or shared cluster) and drawn from
 * [1, max_slowdown] with a seeded generator, identical on every run. */
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

static inline double app_median(const double *values, int rounds) {
  double *copy = (double *)malloc(sizeof(double) * (size_t)rounds);
  memcpy(copy, values, sizeof(double) * (size_t)rounds);
  qsort(copy, (size_t)rounds, sizeof(double), compare);
  const double median = rounds % 2 ? copy[rounds / 2] : 0.5 * (copy[rounds / 2 - 1] + copy[rounds / 2]);
  free(copy);
  return median;
}

static inline double app_min(const double *values, int rounds) {
  double low = values[0];
  for (int r = 1; r < rounds; ++r) low = values[r] < low ? values[r] : low;
  return low;
}

static inline double app_max(const double *values, int rounds) {
  double high = values[0];
  for (int r = 1; r < rounds; ++r) high = values[r] > high ? values[r] : high;
  return high;
}

/* One cell of the summary: the median over rounds [min, max] of `values`
 * (times `scale`), then the ratio to the baseline paired by round
 * (values[r] / baseline[r]: both ran in round r, one after the other, so
 * the machine's drift cancels), median [min, max]. */
static inline void app_print_stat(const double *values, const double *baseline, int rounds, double scale) {
  if (rounds <= 0) return;
  double *ratio = (double *)calloc((size_t)rounds, sizeof(double));
  for (int r = 0; r < rounds; ++r) ratio[r] = baseline[r] > 0 ? values[r] / baseline[r] : 0.0;
  printf(" %8.3f [%7.3f,%7.3f] %5.3f [%5.3f,%5.3f]", scale * app_median(values, rounds), scale * app_min(values, rounds),
         scale * app_max(values, rounds), app_median(ratio, rounds), app_min(ratio, rounds), app_max(ratio, rounds));
  free(ratio);
}

#endif
