/* An ordinary MPI_THREAD_MULTIPLE program (no patcoll header) for the
 * preload shim tests: two threads per rank run reductions, scatters and
 * gathers at the same time, each on its own duplicate of MPI_COMM_WORLD,
 * and check the results against values computed locally. Rank 0 prints
 * "<N> passed, <M> failed"; exit code 1 when anything failed, 77 (skip)
 * when the MPI library does not provide MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITERATIONS 40

struct job {
  MPI_Comm comm;
  int id;
  long long passed, failed;
};

static void *work(void *argument) {
  struct job *job = (struct job *)argument;
  int rank, size;
  MPI_Comm_rank(job->comm, &rank);
  MPI_Comm_size(job->comm, &size);
  const int count = 300 + 100 * job->id;
  int *send = malloc(sizeof(int) * (size_t)count), *got = malloc(sizeof(int) * (size_t)count * (size_t)size);
  int *all = malloc(sizeof(int) * (size_t)count * (size_t)size);
  for (int it = 0; it < ITERATIONS; ++it) {
    for (int i = 0; i < count; ++i) send[i] = rank * 1000 + i + it + job->id;
    int ok = MPI_Allreduce(send, got, count, MPI_INT, MPI_SUM, job->comm) == MPI_SUCCESS;
    for (int i = 0; i < count && ok; ++i)
      ok = got[i] == 1000 * size * (size - 1) / 2 + size * (i + it + job->id);
    const int root = it % size;
    ok = ok && MPI_Reduce(send, got, count, MPI_INT, MPI_MAX, root, job->comm) == MPI_SUCCESS;
    if (rank == root)
      for (int i = 0; i < count && ok; ++i) ok = got[i] == (size - 1) * 1000 + i + it + job->id;
    ok = ok && MPI_Gather(send, count, MPI_INT, all, count, MPI_INT, root, job->comm) == MPI_SUCCESS;
    if (rank == root)
      for (int r = 0; r < size && ok; ++r)
        for (int i = 0; i < count && ok; ++i) ok = all[r * count + i] == r * 1000 + i + it + job->id;
    if (rank == root)
      for (int j = 0; j < count * size; ++j) all[j] = j * 3 + it;
    ok = ok && MPI_Scatter(all, count, MPI_INT, got, count, MPI_INT, root, job->comm) == MPI_SUCCESS;
    for (int i = 0; i < count && ok; ++i) ok = got[i] == (rank * count + i) * 3 + it;
    if (ok) ++job->passed;
    else ++job->failed;
  }
  free(send);
  free(got);
  free(all);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("SKIP: the MPI library provides thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
    MPI_Finalize();
    return 77;
  }
  struct job jobs[2];
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) {
    memset(&jobs[t], 0, sizeof jobs[t]);
    jobs[t].id = t;
    MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
  }
  /* No call from the main thread first: the two threads make the first
   * collective on their communicators concurrently, so the shim and the
   * library create both communicators' states (MPI_Comm_dup, collective)
   * at the same time, in whatever order each rank's threads run. */
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, work, &jobs[t]);
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  long long mine[2] = {jobs[0].passed + jobs[1].passed, jobs[0].failed + jobs[1].failed}, total[2];
  PMPI_Reduce(mine, total, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%lld passed, %lld failed\n", total[0], total[1]);
  for (int t = 0; t < 2; ++t) MPI_Comm_free(&jobs[t].comm);
  MPI_Finalize();
  return rank == 0 && total[1] != 0 ? 1 : 0;
}
