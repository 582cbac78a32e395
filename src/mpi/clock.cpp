#include "mpi/clock.hpp"

#include <chrono>
#include <limits>

namespace patcoll::mpi::clock {

double local_anchor() {
  auto steady = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  // The tightest of a few sandwiches (steady, wtime, steady).
  double best = std::numeric_limits<double>::infinity(), anchor = 0;
  for (int k = 0; k < 5; ++k) {
    const double t0 = steady(), w = now(), t1 = steady();
    if (t1 - t0 < best) {
      best = t1 - t0;
      anchor = 0.5 * (t0 + t1) - w;
    }
  }
  return anchor;
}

bool one_node(MPI_Comm comm) {
  int size = 1, node_size = 0, all_local = 0;
  PMPI_Comm_size(comm, &size);
  MPI_Comm node = MPI_COMM_NULL;
  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    PMPI_Comm_size(node, &node_size);
    PMPI_Comm_free(&node);
  }
  int local = node_size == size ? 1 : 0;
  PMPI_Allreduce(&local, &all_local, 1, MPI_INT, MPI_MIN, comm);
  return all_local != 0;
}

double ping_pong_offset(MPI_Comm comm, double (*clock)()) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  constexpr int kRounds = 8, kPingTag = 2, kPongTag = 3;
  double offset = 0;
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer)
      for (int k = 0; k < kRounds; ++k) {
        double t = 0;
        PMPI_Recv(&t, 1, MPI_DOUBLE, peer, kPingTag, comm, MPI_STATUS_IGNORE);
        t = clock();
        PMPI_Send(&t, 1, MPI_DOUBLE, peer, kPongTag, comm);
      }
  } else {
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < kRounds; ++k) {
      double t0 = clock(), root_time = 0;
      PMPI_Send(&t0, 1, MPI_DOUBLE, 0, kPingTag, comm);
      PMPI_Recv(&root_time, 1, MPI_DOUBLE, 0, kPongTag, comm, MPI_STATUS_IGNORE);
      const double t1 = clock();
      if (t1 - t0 < best) {
        best = t1 - t0;
        offset = root_time - 0.5 * (t0 + t1);
      }
    }
  }
  return offset;
}

Alignment align_to_root(MPI_Comm comm, double anchor) {
  Alignment out;
#ifdef SMPI_H  // SimGrid's MPI_Wtime is the simulated clock, one for every rank
  (void)comm, (void)anchor;
  out.method = "global";
  return out;
#endif
  int size = 1;
  PMPI_Comm_size(comm, &size);
  int *global = nullptr, found = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
  int is_global = found && global && *global ? 1 : 0, all_global = 0;
  PMPI_Allreduce(&is_global, &all_global, 1, MPI_INT, MPI_MIN, comm);
  if (all_global || size == 1) {
    out.method = "global";
  } else if (one_node(comm)) {
    double root_anchor = anchor;
    PMPI_Bcast(&root_anchor, 1, MPI_DOUBLE, 0, comm);
    out.offset = anchor - root_anchor;  // wtime + anchor = steady = root's wtime + root's anchor
    out.method = "one node";
  } else {
    out.offset = ping_pong_offset(comm, [] { return now(); });
    out.method = "ping-pong";
  }
  return out;
}

}  // namespace patcoll::mpi::clock
