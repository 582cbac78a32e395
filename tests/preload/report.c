/* An ordinary MPI program with a known arrival pattern, for the arrival
 * report (PATCOLL_REPORT) tests: each iteration, rank P-1 sleeps DELAY_MS
 * before one MPI_Allreduce call site (ALLREDUCE_BYTES per rank), then every
 * rank calls one MPI_Reduce call site (8 bytes) right after it, balanced.
 *
 *   patcoll-preload-report [ITERATIONS [DELAY_MS [ALLREDUCE_BYTES]]] [--api] [--abort]
 *
 * --api: the same calls through patcoll's C API (PAT_Allreduce/PAT_Reduce;
 * built as patcoll-report-api, linked with libpatcoll). --abort: rank 0
 * sleeps and then exits without MPI_Finalize (the partial files stay).
 * --stress CALLS SIZES: instead, CALLS back-to-back allreduces cycling over
 * SIZES message sizes (8, 16, ... bytes) and prints this rank's peak
 * resident memory (VmHWM) at the end: the recorder's memory bound.
 * Rank 0 prints "calls <allreduce> <reduce>" and "<N> passed, <M> failed".
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PATCOLL_REPORT_API
#include <patcoll.h>
#define ALLREDUCE PAT_Allreduce
#define REDUCE PAT_Reduce
#else
#define ALLREDUCE MPI_Allreduce
#define REDUCE MPI_Reduce
#endif

static void sleep_ms(double ms) {
  struct timespec t;
  t.tv_sec = (time_t)(ms / 1000);
  t.tv_nsec = (long)((ms - 1000.0 * (double)t.tv_sec) * 1e6);
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  int iterations = 30, abort_run = 0;
  double delay_ms = 20;
  long bytes = 65536;
  int positional = 0;
  long stress_calls = 0, stress_sizes = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--abort") == 0) abort_run = 1;
    else if (strcmp(argv[i], "--stress") == 0 && i + 2 < argc) {
      stress_calls = atol(argv[++i]);
      stress_sizes = atol(argv[++i]);
    }
    else if (positional == 0 && ++positional) iterations = atoi(argv[i]);
    else if (positional == 1 && ++positional) delay_ms = atof(argv[i]);
    else if (positional == 2 && ++positional) bytes = atol(argv[i]);
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (stress_calls > 0) {
    double *a = calloc((size_t)stress_sizes + 1, sizeof(double)), *b = calloc((size_t)stress_sizes + 1, sizeof(double));
    const double t0 = MPI_Wtime();
    for (long k = 0; k < stress_calls; ++k)
      ALLREDUCE(a, b, (int)(1 + k % stress_sizes), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double seconds = MPI_Wtime() - t0;
    char line[256];
    long hwm = -1;
    FILE *status = fopen("/proc/self/status", "r");
    while (status && fgets(line, sizeof line, status))
      if (strncmp(line, "VmHWM:", 6) == 0) hwm = atol(line + 6);
    if (status) fclose(status);
    printf("rank %d: %ld calls over %ld sizes in %.2f s (%.2f us per call), peak resident %ld KiB\n", rank,
           stress_calls, stress_sizes, seconds, 1e6 * seconds / (double)stress_calls, hwm);
    printf("1 passed, 0 failed\n");
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
  }
  const int count = (int)(bytes / (long)sizeof(double));
  double *send = malloc((size_t)count * sizeof(double)), *recv = malloc((size_t)count * sizeof(double));
  for (int i = 0; i < count; ++i) send[i] = rank + i;
  long failed = 0, passed = 0, allreduces = 0, reduces = 0;
  for (int it = 0; it < iterations; ++it) {
    if (rank == size - 1) sleep_ms(delay_ms);
    if (ALLREDUCE(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) ++failed;
    ++allreduces;
    for (int i = 0; i < count; i += 97) {
      const double want = (double)size * (size - 1) / 2 + (double)size * i;
      if (recv[i] != want) ++failed;
      else ++passed;
    }
    double one = 1, total = 0;
    if (REDUCE(&one, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS) ++failed;
    ++reduces;
    if (rank == 0) {
      if (total != size) ++failed;
      else ++passed;
    }
  }
  if (rank == 0) {
    printf("calls %ld %ld\n", allreduces, reduces);
    printf("%ld passed, %ld failed\n", passed, failed);
    fflush(stdout);
  }
  free(send);
  free(recv);
  if (abort_run) {
    sleep_ms(500); /* the partial files are written at the flush interval */
    _Exit(failed ? 1 : 0);
  }
  MPI_Finalize();
  return failed ? 1 : 0;
}
