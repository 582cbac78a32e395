/* An iterative program in the style of [PS] Fig. 4: each iteration emulates
 * computation with a sleep, reports its start, an edge at 50% and its end
 * to the PAT runtime, then calls a PAP-aware scatter (slin by default).
 * Rank 0 prints, per iteration, the PAT vector the runtime predicted
 * (relative, earliest = 0) next to the actual arrivals (the measured
 * computation lengths, also relative), and the largest difference.
 *
 *   mpirun -np 4 patcoll-iterative [iterations] [base_ms] [delay_ms] [algorithm]
 *
 * The late rank changes every 4 iterations; every rank adds up to 2 ms of
 * random jitter. PATCOLL_PREDICTOR selects the predictor (edge, last,
 * sma, sma:<k>). */
#include <mpi.h>
#include <patcoll.h>

#include "example_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 12;
  const double base_ms = argc > 2 ? atof(argv[2]) : 20.0;
  const double delay_ms = argc > 3 ? atof(argv[3]) : 30.0;
  const char *algorithm = argc > 4 ? argv[4] : "slin";
  const int block = 16384; /* ints per rank */

  if (PAT_Init(MPI_COMM_WORLD) != MPI_SUCCESS && rank == 0)
    printf("PAT_Init failed (%s); running without PATs\n", PAT_Last_error());
  if (PAT_UseAlg("scatter", algorithm) != MPI_SUCCESS) {
    if (rank == 0) printf("%s\n", PAT_Last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int *send = malloc(sizeof(int) * (size_t)block * (size_t)size);
  int *recv = malloc(sizeof(int) * (size_t)block);
  double *predicted = malloc(sizeof(double) * (size_t)size);
  double *actual = malloc(sizeof(double) * (size_t)size);
  for (int i = 0; i < block * size; ++i) send[i] = i;
  srand(1234u + 17u * (unsigned)rank);
  if (rank == 0) printf("iter late  scatter_ms  max|pred-actual|_ms  predicted_ms[rank...] | actual_ms[rank...]\n");
  for (int it = 0; it < iterations; ++it) {
    const int late = (it / 4) % size;
    const double compute_ms = base_ms + (rank == late ? delay_ms : 0.0) + 2.0 * rand() / (double)RAND_MAX;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    PAT_ProcessingStart();
    sleep_ms(compute_ms / 2);
    PAT_Edge(0.5);
    sleep_ms(compute_ms / 2);
    PAT_ProcessingEnd();
    const double arrival = MPI_Wtime() - start;
    const double t0 = MPI_Wtime();
    if (PAT_Scatter(send, block, MPI_INT, recv, block, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
      printf("rank %d: %s\n", rank, PAT_Last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const double t1 = MPI_Wtime();
    for (int i = 0; i < block; ++i)
      if (recv[i] != rank * block + i) {
        printf("rank %d: wrong data\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    /* Reporting (not part of the pattern): what the runtime predicted and
     * what happened, both relative to the earliest rank. */
    for (int i = 0; i < size; ++i) predicted[i] = 0.0;
    PAT_Get_arrivals(predicted);
    MPI_Gather(&arrival, 1, MPI_DOUBLE, actual, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double span = t1 - t0, max_span = 0.0;
    MPI_Reduce(&span, &max_span, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double earliest = actual[0], worst = 0.0;
      for (int i = 1; i < size; ++i)
        if (actual[i] < earliest) earliest = actual[i];
      for (int i = 0; i < size; ++i) {
        actual[i] -= earliest;
        const double d = predicted[i] > actual[i] ? predicted[i] - actual[i] : actual[i] - predicted[i];
        if (d > worst) worst = d;
      }
      printf("%4d %4d %10.3f %12.3f        ", it, late, 1e3 * max_span, 1e3 * worst);
      for (int i = 0; i < size; ++i) printf(" %6.2f", 1e3 * predicted[i]);
      printf(" |");
      for (int i = 0; i < size; ++i) printf(" %6.2f", 1e3 * actual[i]);
      printf("\n");
    }
  }
  PAT_Finalize();
  free(send);
  free(recv);
  free(predicted);
  free(actual);
  MPI_Finalize();
  return 0;
}
