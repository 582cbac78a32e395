/* [PS] Fig. 13-15 scenario scaled to a small machine: every rank computes
 * half + edge + half with half = base/2 + random(0..max_delay)/2, then one
 * collective; algorithms interleaved round by round with the same random
 * pattern per round. The runtime runs throughout (PAT_ProcessingStart /
 * Edge / End every iteration), so the classic algorithms pay its cost too.
 *
 *   mpirun -np 8 patcoll-background-bench [rounds] [floats_total] [base_ms] [max_delay_ms]
 *
 * Prints per algorithm the median and quartiles of the run time (last
 * rank's end - first rank's collective start, [PS] "run time") and of the
 * elapsed time (mean over ranks of its own collective time). */
#include <mpi.h>
#include <patcoll.h>

#include "example_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ALGS = 6 };
static const char *names[ALGS] = {"scatter lin", "scatter slin", "scatter bsln", "gather ls", "gather sls", "gather bsls"};

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 15;
  const long total = argc > 2 ? atol(argv[2]) : 2L * 1024 * 1024;
  const double base_ms = argc > 3 ? atof(argv[3]) : 10.0;
  const double max_delay_ms = argc > 4 ? atof(argv[4]) : 50.0;
  const int block = (int)(total / size);
  float *whole = malloc(sizeof(float) * (size_t)block * (size_t)size);
  float *own = malloc(sizeof(float) * (size_t)block);
  double *rt[ALGS], *et[ALGS];
  for (int a = 0; a < ALGS; ++a) {
    rt[a] = malloc(sizeof(double) * (size_t)rounds);
    et[a] = malloc(sizeof(double) * (size_t)rounds);
  }
  if (PAT_Init(MPI_COMM_WORLD) != MPI_SUCCESS) {
    if (rank == 0) printf("PAT_Init: %s\n", PAT_Last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  PAT_Handle bsln, bsls;
  PAT_Scatter_init_with("bsln", whole, block, MPI_FLOAT, own, block, MPI_FLOAT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bsln);
  PAT_Gather_init_with("bsls", own, block, MPI_FLOAT, whole, block, MPI_FLOAT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bsls);
  for (int r = 0; r < rounds; ++r) {
    for (int a = 0; a < ALGS; ++a) {
      srand(7919u * (unsigned)r + 104729u * (unsigned)rank + 1u);
      const double half = base_ms / 2 + (max_delay_ms * rand() / (double)RAND_MAX) / 2;
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Barrier(MPI_COMM_WORLD);
      if (a == 2) PAT_Start(bsln);
      if (a == 5) PAT_Start(bsls);
      PAT_ProcessingStart();
      sleep_ms(half);
      PAT_Edge(0.5);
      sleep_ms(half);
      for (int i = 0; i < block; ++i) own[i] = (float)(rank + i);
      PAT_ProcessingEnd();
      const double start = MPI_Wtime();
      int rc = MPI_SUCCESS;
      switch (a) {
        case 0: rc = PAT_Scatter_with("lin", whole, block, MPI_FLOAT, own, block, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
        case 1: rc = PAT_Scatter_with("slin", whole, block, MPI_FLOAT, own, block, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
        case 2: rc = PAT_Run(bsln); break;
        case 3: rc = PAT_Gather_with("ls", own, block, MPI_FLOAT, whole, block, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
        case 4: rc = PAT_Gather_with("sls", own, block, MPI_FLOAT, whole, block, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
        case 5: rc = PAT_Run(bsls); break;
      }
      const double end = MPI_Wtime();
      if (rc != MPI_SUCCESS) {
        printf("rank %d %s: %s\n", rank, names[a], PAT_Last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      double first_start = 0, last_end = 0, elapsed = end - start, sum = 0;
      MPI_Reduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&elapsed, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      rt[a][r] = last_end - first_start;
      et[a][r] = sum / size;
    }
  }
  PAT_Handle_free(&bsln);
  PAT_Handle_free(&bsls);
  PAT_Finalize();
  if (rank == 0) {
    printf("P=%d, %ld floats in total (%d per rank), half = %.1f/2 ms + U(0..%.1f)/2 ms, %d rounds\n", size, total,
           block, base_ms, max_delay_ms, rounds);
    printf("%-14s %10s %10s %10s   %10s %10s %10s\n", "algorithm", "rt median", "rt q1", "rt q3", "et median",
           "et q1", "et q3");
    for (int a = 0; a < ALGS; ++a) {
      qsort(rt[a], (size_t)rounds, sizeof(double), compare);
      qsort(et[a], (size_t)rounds, sizeof(double), compare);
      printf("%-14s %10.3f %10.3f %10.3f   %10.3f %10.3f %10.3f\n", names[a], 1e3 * rt[a][rounds / 2],
             1e3 * rt[a][rounds / 4], 1e3 * rt[a][3 * rounds / 4], 1e3 * et[a][rounds / 2], 1e3 * et[a][rounds / 4],
             1e3 * et[a][3 * rounds / 4]);
    }
  }
  MPI_Finalize();
  return 0;
}
