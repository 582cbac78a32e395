/* Preloaded before the shim (LD_PRELOAD="pmpi_count.so shim.so"): counts
 * the blocking collectives that reach the MPI library's PMPI_* entry
 * points, forwards them, and prints "pmpi-collectives <rank> <n>" at
 * MPI_Finalize. With every collective of a program served by patcoll, what
 * it counts is the shim's and the library's own. */
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <stdio.h>

static long long g_calls;

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int PMPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c) {
  ++g_calls;
  return NEXT(PMPI_Allreduce)(s, r, n, t, o, c);
}
int PMPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm c) {
  ++g_calls;
  return NEXT(PMPI_Reduce)(s, r, n, t, o, root, c);
}
int PMPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  ++g_calls;
  return NEXT(PMPI_Bcast)(b, n, t, root, c);
}
int PMPI_Barrier(MPI_Comm c) {
  ++g_calls;
  return NEXT(PMPI_Barrier)(c);
}
int PMPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
  ++g_calls;
  return NEXT(PMPI_Allgather)(s, sn, st, r, rn, rt, c);
}
int PMPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c) {
  ++g_calls;
  return NEXT(PMPI_Gather)(s, sn, st, r, rn, rt, root, c);
}

int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "pmpi-collectives %d %lld\n", rank, g_calls);
  return PMPI_Finalize();
}
