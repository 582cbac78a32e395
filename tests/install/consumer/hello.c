/* An outside program built against an installed patcoll (tests/install):
 * a reduction, a gather and a rejected call through libpatcoll.so, checked
 * on every rank; rank 0 prints one verdict line. Plain C99 + MPI. */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <patcoll.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  int ok = 1;

  /* PAT_Allreduce: every rank gets 1 + 2 + ... + P. */
  int mine = rank + 1, sum = 0;
  ok &= PAT_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
  ok &= sum == procs * (procs + 1) / 2;

  /* PAT_Gather: the root holds 0, 1, ..., P-1. */
  int *gathered = malloc(sizeof(int) * (size_t)procs);
  ok &= PAT_Gather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS;
  if (rank == 0)
    for (int r = 0; r < procs; ++r) ok &= gathered[r] == r;
  free(gathered);

  /* Bad input: the MPI error class, the buffer untouched. */
  int untouched = -7;
  ok &= PAT_Reduce(&mine, &untouched, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT;
  ok &= untouched == -7;

  /* The registry is reachable through the C API. */
  ok &= PAT_Algorithm_count("reduce") > 1;

  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("patcoll consumer: %s on %d ranks\n", all_ok ? "ok" : "FAILED", procs);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
