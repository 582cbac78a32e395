/* Arrival history per collective and call site (PATCOLL_PATS=history):
 * an ordinary MPI program (no patcoll header, unless built with
 * -DPATCOLL_API, then the same calls go to PAT_* of the library without the
 * shim). Each iteration: the last rank is late by DELAY ms at one
 * MPI_Allreduce call site; an MPI_Reduce after it and a second
 * MPI_Allreduce call site are balanced. Before each call every rank sleeps
 * until a common deadline on the node's monotonic clock (agreed with
 * PMPI_Allreduce, which the shim does not see), so the arrival pattern is
 * the one asked for, not the exit skew of the previous collective (with a
 * delay of 0: no deadlines, no PMPI_Allreduce per iteration).
 * PATCOLL_VERBOSE=2 prints what the history learned per call site at
 * MPI_Finalize; run_tests.sh checks it against the mean time the late rank
 * really slept ("slept-us N" on stderr). Rank 0 prints "<N> passed, <M>
 * failed".
 *
 *   sites [iterations [delay_ms]]
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef PATCOLL_API
#include <patcoll.h>
#define ALLREDUCE PAT_Allreduce
#define REDUCE PAT_Reduce
#else
#define ALLREDUCE MPI_Allreduce
#define REDUCE MPI_Reduce
#endif

enum { N = 16 };

/* Every rank of comm returns at the same moment: 1 ms after the latest
 * rank's call (CLOCK_MONOTONIC is one clock for every process on a node). */
static void sync_to_deadline(MPI_Comm comm) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double mine = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec, latest = 0;
  PMPI_Allreduce(&mine, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
  latest += 1e-3;
  struct timespec deadline = {(time_t)latest, (long)((latest - (double)(time_t)latest) * 1e9)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0) {
  }
}

static void pause_ms(double ms) {
  struct timespec t = {(time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6)};
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 48;
  const double delay = argc > 2 ? atof(argv[2]) : 4.0;
  long long passed = 0, failed = 0;
  double x[N], y[N], z[N], slept = 0;
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < N; ++i) x[i] = rank + i + it;
    if (delay > 0) sync_to_deadline(MPI_COMM_WORLD);
    if (rank == size - 1) {
      const double start = MPI_Wtime();
      pause_ms(delay);
      slept += MPI_Wtime() - start;
    }
    int ok = ALLREDUCE(x, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS; /* late */
    if (delay > 0) sync_to_deadline(MPI_COMM_WORLD);
    ok = ok && REDUCE(x, z, N, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD) == MPI_SUCCESS; /* balanced */
    for (int i = 0; i < N && ok; ++i) ok = y[i] == size * (size - 1) / 2.0 + size * (double)(i + it);
    for (int i = 0; i < N && ok && rank == 0; ++i) ok = z[i] == size - 1 + i + it;
    if (delay > 0) sync_to_deadline(MPI_COMM_WORLD);
    ok = ok && ALLREDUCE(x, y, N, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS; /* balanced */
    for (int i = 0; i < N && ok; ++i) ok = y[i] == i + it;
    if (ok) ++passed;
    else ++failed;
  }
  long long mine[2] = {passed, failed}, total[2] = {0, 0};
  PMPI_Reduce(mine, total, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  /* what the late rank really slept (a loaded machine oversleeps) */
  if (rank == size - 1 && iterations > 0) fprintf(stderr, "slept-us %.0f\n", 1e6 * slept / iterations);
  if (rank == 0) printf("%lld passed, %lld failed\n", total[0], total[1]);
  MPI_Finalize();
  return rank == 0 && total[1] != 0 ? 1 : 0;
}
