/* An ordinary iterative MPI program (no patcoll header): the preload shim's
 * test of the history PAT source and its benchmark (docs/results/preload.md).
 *
 *   bench late <reduce|allreduce> <iterations> <warmup> <delay_us> <bytes>
 *     Every iteration: double PMPI_Barrier, the last rank sleeps delay_us,
 *     then MPI_<coll> (through the shim when it is loaded) and, in the same
 *     iteration, the same after a fresh double barrier with PMPI_<coll>
 *     (the MPI library itself): the two variants interleaved in one run.
 *     Run time of an iteration = max over ranks of the time from the
 *     barrier exit to the collective's exit. Results are checked.
 *   bench overhead <bytes> <blocks> <calls>
 *     Blocks of <calls> back-to-back allreduces, MPI_Allreduce and
 *     PMPI_Allreduce blocks alternating (A B B A ...); time per call of each
 *     block.
 *
 * Rank 0 prints one line per variant: median, p25, p75 (microseconds), and
 * "<N> passed, <M> failed" for the result checks; exit code 1 on failure.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void summary(const char *label, double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_double);
  printf("%-44s n=%4d  median %10.2f us  p25 %10.2f  p75 %10.2f\n", label, n, 1e6 * v[n / 2], 1e6 * v[n / 4],
         1e6 * v[(3 * n) / 4]);
}

static void sleep_us(int us) {
  struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000L};
  nanosleep(&t, NULL);
}

static int late(int argc, char **argv, int rank, int size) {
  if (argc < 7) return 2;
  const int allreduce = strcmp(argv[2], "allreduce") == 0;
  const int iterations = atoi(argv[3]), warmup = atoi(argv[4]), delay = atoi(argv[5]);
  const int count = atoi(argv[6]) / (int)sizeof(int) > 0 ? atoi(argv[6]) / (int)sizeof(int) : 1;
  int *send = malloc(sizeof(int) * (size_t)count), *recv = malloc(sizeof(int) * (size_t)count);
  double *times[2] = {malloc(sizeof(double) * (size_t)iterations), malloc(sizeof(double) * (size_t)iterations)};
  long long bad = 0, good = 0;
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < count; ++i) send[i] = rank + i % 7 + it;
    for (int variant = 0; variant < 2; ++variant) {
      memset(recv, 0, sizeof(int) * (size_t)count);
      PMPI_Barrier(MPI_COMM_WORLD);
      PMPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      if (rank == size - 1 && delay > 0) sleep_us(delay);
      if (allreduce)
        variant == 0 ? MPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                     : PMPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      else
        variant == 0 ? MPI_Reduce(send, recv, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD)
                     : PMPI_Reduce(send, recv, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
      times[variant][it] = MPI_Wtime() - start;
      if (allreduce || rank == 0) {
        int ok = 1;
        for (int i = 0; i < count && ok; ++i) ok = recv[i] == size * (size - 1) / 2 + size * (i % 7 + it);
        ok ? ++good : ++bad;
      }
    }
  }
  double *run[2] = {malloc(sizeof(double) * (size_t)iterations), malloc(sizeof(double) * (size_t)iterations)};
  for (int v = 0; v < 2; ++v) PMPI_Reduce(times[v], run[v], iterations, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  long long mine[2] = {good, bad}, total[2];
  PMPI_Reduce(mine, total, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    char label[128];
    const int n = iterations - warmup > 0 ? iterations - warmup : iterations;
    const int skip = iterations - n;
    snprintf(label, sizeof label, "MPI_%s (shim if loaded), run time", allreduce ? "Allreduce" : "Reduce");
    summary(label, run[0] + skip, n);
    snprintf(label, sizeof label, "PMPI_%s (MPI library), run time", allreduce ? "Allreduce" : "Reduce");
    summary(label, run[1] + skip, n);
    printf("%lld passed, %lld failed\n", total[0], total[1]);
  }
  return rank == 0 && total[1] != 0;
}

static int overhead(int argc, char **argv, int rank) {
  if (argc < 5) return 2;
  const int bytes = atoi(argv[2]), blocks = atoi(argv[3]), calls = atoi(argv[4]);
  const int count = bytes / 8 > 0 ? bytes / 8 : 1;
  double *send = calloc((size_t)count, sizeof(double)), *recv = calloc((size_t)count, sizeof(double));
  double *per_call[2] = {malloc(sizeof(double) * (size_t)blocks), malloc(sizeof(double) * (size_t)blocks)};
  for (int b = -1; b < blocks; ++b) /* block -1: warm-up */
    for (int order = 0; order < 2; ++order) { /* A B, then B A: no order bias */
      const int variant = (b & 1) ? 1 - order : order;
      PMPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      for (int c = 0; c < calls; ++c)
        variant == 0 ? MPI_Allreduce(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
                     : PMPI_Allreduce(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      double t = (MPI_Wtime() - start) / calls, slowest = 0;
      PMPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (b >= 0) per_call[variant][b] = slowest;
    }
  if (rank == 0) {
    char label[128];
    snprintf(label, sizeof label, "MPI_Allreduce %d B (shim if loaded)", count * 8);
    summary(label, per_call[0], blocks);
    snprintf(label, sizeof label, "PMPI_Allreduce %d B (MPI library)", count * 8);
    summary(label, per_call[1], blocks);
    double *ratio = malloc(sizeof(double) * (size_t)blocks);
    for (int b = 0; b < blocks; ++b) ratio[b] = per_call[0][b] / per_call[1][b];
    qsort(ratio, (size_t)blocks, sizeof *ratio, compare_double);
    printf("ratio MPI/PMPI per block pair: median %.3f  p25 %.3f  p75 %.3f\n", ratio[blocks / 2], ratio[blocks / 4],
           ratio[(3 * blocks) / 4]);
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, rc = 2;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "late") == 0) rc = late(argc, argv, rank, size);
  else if (argc > 1 && strcmp(argv[1], "overhead") == 0) rc = overhead(argc, argv, rank);
  if (rc == 2 && rank == 0)
    fprintf(stderr, "usage: bench late <reduce|allreduce> <iterations> <warmup> <delay_us> <bytes>\n"
                    "       bench overhead <bytes> <blocks> <calls>\n");
  MPI_Finalize();
  return rc;
}
