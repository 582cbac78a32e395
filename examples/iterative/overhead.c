/* The PAT runtime's own cost on a balanced iteration, and its estimation
 * error: blocks of iterations alternate between "runtime" (PAT_Init'ed;
 * ProcessingStart / Edge(0.5) / ProcessingEnd around the computation) and
 * "plain" (no runtime), the same PAT_Scatter (slin) in both, so both modes
 * see the same machine noise in one run.
 *
 *   mpirun -np 4 patcoll-runtime-overhead [blocks] [per_block] [compute_ms] [block_ints]
 *
 * Per mode it prints the median and the quartiles of (a) the iteration
 * time (barrier exit to collective exit, max over ranks) and (b) the
 * collective time (compute end to collective exit, max over ranks), and
 * for the runtime mode the distribution of |predicted - measured| phase
 * length (all ranks, all iterations). */
#include <mpi.h>
#include <patcoll.h>

#include "example_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void report(const char *what, double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), compare);
  printf("%-34s n=%4d  median %8.3f ms  q1 %8.3f  q3 %8.3f  min %8.3f  max %8.3f\n", what, n, 1e3 * v[n / 2],
         1e3 * v[n / 4], 1e3 * v[(3 * n) / 4], 1e3 * v[0], 1e3 * v[n - 1]);
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int blocks = argc > 1 ? atoi(argv[1]) : 10;
  const int per_block = argc > 2 ? atoi(argv[2]) : 10;
  const double compute_ms = argc > 3 ? atof(argv[3]) : 10.0;
  const int block = argc > 4 ? atoi(argv[4]) : 4096;
  const int total = blocks * per_block;
  int *send = malloc(sizeof(int) * (size_t)block * (size_t)size);
  int *recv = malloc(sizeof(int) * (size_t)block);
  double *iter[2], *coll[2], *err = malloc(sizeof(double) * (size_t)total * (size_t)size);
  int n[2] = {0, 0}, n_err = 0;
  for (int m = 0; m < 2; ++m) {
    iter[m] = malloc(sizeof(double) * (size_t)total);
    coll[m] = malloc(sizeof(double) * (size_t)total);
  }
  for (int i = 0; i < block * size; ++i) send[i] = i;
  PAT_UseAlg("scatter", "slin");
  for (int b = 0; b < 2 * blocks; ++b) {
    const int runtime = b % 2; /* plain, runtime, plain, ... */
    if (runtime && PAT_Init(MPI_COMM_WORLD) != MPI_SUCCESS) {
      if (rank == 0) printf("PAT_Init: %s\n", PAT_Last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (runtime) PAT_UseAlg("scatter", "slin");
    for (int i = 0; i < per_block; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      if (runtime) PAT_ProcessingStart();
      sleep_ms(compute_ms / 2);
      if (runtime) PAT_Edge(0.5);
      sleep_ms(compute_ms / 2);
      if (runtime) PAT_ProcessingEnd();
      const double t1 = MPI_Wtime();
      PAT_Scatter(send, block, MPI_INT, recv, block, MPI_INT, 0, MPI_COMM_WORLD);
      const double t2 = MPI_Wtime();
      double mine[2] = {t2 - t0, t2 - t1}, worst[2];
      MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (runtime) {
        double predicted = 0, measured = 0, e = 0;
        PAT_Get_prediction(&predicted, &measured);
        e = fabs(predicted - measured);
        MPI_Gather(&e, 1, MPI_DOUBLE, err + n_err, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        n_err += size;
      }
      iter[runtime][n[runtime]] = worst[0];
      coll[runtime][n[runtime]] = worst[1];
      ++n[runtime];
    }
    if (runtime) PAT_Finalize();
  }
  if (rank == 0) {
    printf("P=%d compute %.1f ms, scatter slin %d ints per rank, %d blocks of %d iterations per mode\n", size,
           compute_ms, block, blocks, per_block);
    report("iteration, plain", iter[0], n[0]);
    report("iteration, runtime", iter[1], n[1]);
    report("collective, plain", coll[0], n[0]);
    report("collective, runtime", coll[1], n[1]);
    report("|predicted - measured| phase", err, n_err);
  }
  MPI_Finalize();
  return 0;
}
