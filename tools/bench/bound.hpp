// The measured costs of patcoll-bench's `bound` row (core/bound.hpp
// computes the bound: for reduce and allreduce
//     r_bound = max(a) − min(a) + t_transfer + t_reduce_local
//     ē_bound = mean_i(max(a) − a_i) + t_transfer + t_reduce_local).
// Both times are measured in the same run, in the same iteration as the
// algorithms, on the same ranks and buffers: a PMPI_Send/PMPI_Recv
// ping-pong of m bytes between rank 0 and rank P−1 (half the round trip)
// and a PMPI_Reduce_local of the count elements at rank 0; the bound
// scales them linearly to smaller sizes (core::BoundCost::measured, a
// lower bound for every size up to m). Barrier synchronisation only: in
// window mode each algorithm realises its own arrivals, so there is no one
// latest arrival to add.
#pragma once

#include <mpi.h>

namespace patcoll::bench {

struct BoundProbe {
  double transfer = 0;      // one m-byte point-to-point transfer, s
  double reduce_local = 0;  // one MPI_Reduce_local of the message, s
};

// Collective over `comm` (every rank calls it); the result is valid at rank
// 0. `data` holds count elements; `scratch` room for count elements (its
// contents are overwritten). A single rank measures only the reduction.
BoundProbe measure_bound_probe(MPI_Comm comm, const void *data, void *scratch, int count, MPI_Datatype type,
                               MPI_Op op);

}  // namespace patcoll::bench
