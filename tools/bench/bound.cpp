#include "bound.hpp"

#include <cstring>

namespace patcoll::bench {

BoundProbe measure_bound_probe(MPI_Comm comm, const void *data, void *scratch, int count, MPI_Datatype type,
                               MPI_Op op) {
  int rank = 0, procs = 1, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &procs);
  PMPI_Type_size(type, &size);
  BoundProbe probe;
  const int peer = procs - 1, tag = 7301;
  PMPI_Barrier(comm);
  if (procs > 1 && (rank == 0 || rank == peer)) {
    // The ping-pong sends the data itself (the bench's types are contiguous).
    if (rank == 0) {
      const double t0 = PMPI_Wtime();
      PMPI_Send(data, count, type, peer, tag, comm);
      PMPI_Recv(scratch, count, type, peer, tag, comm, MPI_STATUS_IGNORE);
      probe.transfer = (PMPI_Wtime() - t0) / 2;
    } else {
      PMPI_Recv(scratch, count, type, 0, tag, comm, MPI_STATUS_IGNORE);
      PMPI_Send(scratch, count, type, 0, tag, comm);
    }
  }
  if (rank == 0 && count > 0) {
    // scratch = data first, so the reduction runs on real values.
    std::memcpy(scratch, data, static_cast<std::size_t>(count) * static_cast<std::size_t>(size));
    const double t0 = PMPI_Wtime();
    PMPI_Reduce_local(data, scratch, count, type, op);
    probe.reduce_local = PMPI_Wtime() - t0;
  }
  return probe;
}

}  // namespace patcoll::bench
