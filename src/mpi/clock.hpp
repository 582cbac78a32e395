// One clock for every rank: MPI_Wtime aligned to MPI_COMM_WORLD rank 0's.
//
// The arrival report (report.hpp) stamps calls with MPI_Wtime, the MPI
// library's clock (under SimGrid SMPI the host's clock is not the
// simulated one). MPI_Wtime need not share an origin across processes
// (Open MPI subtracts each process's start), so ranks are aligned once:
//   - MPI_WTIME_IS_GLOBAL set: the clocks already agree (offset 0);
//   - every rank on one node: each rank's MPI_Wtime is tied to the node's
//     monotonic clock (local_anchor(), no communication), and the anchors
//     give the offsets exactly;
//   - otherwise: the classic ping-pong against rank 0, the sample with the
//     shortest round trip of 8 (the shim's history uses the same estimate
//     on its own clock, preload.cpp).
#pragma once

#include <mpi.h>

#include <string>

namespace patcoll::mpi::clock {

// Seconds, MPI's clock.
inline double now() { return PMPI_Wtime(); }

// steady_clock (CLOCK_MONOTONIC) minus MPI_Wtime on this process, measured
// now: the same value on every process of a node whose MPI_Wtime shares
// the monotonic clock's origin; comparing two processes' anchors on one
// node aligns their MPI_Wtime exactly.
double local_anchor();

struct Alignment {
  double offset = 0;   // local MPI_Wtime + offset = rank 0's MPI_Wtime
  std::string method;  // "global", "one node" or "ping-pong"
};

// Collective over `comm` (every rank calls it): this rank's offset to rank
// 0 of `comm`. `anchor` is this rank's local_anchor().
Alignment align_to_root(MPI_Comm comm, double anchor);

// The parts, collective over `comm` as well: whether every rank runs on
// one node (MPI_COMM_TYPE_SHARED), and the ping-pong estimate of this
// rank's offset to rank 0 on `clock` (tags 2 and 3 of `comm`: use a
// private communicator).
bool one_node(MPI_Comm comm);
double ping_pong_offset(MPI_Comm comm, double (*clock)());

}  // namespace patcoll::mpi::clock
