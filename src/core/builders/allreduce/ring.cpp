// allreduce/ring — ring reduce-scatter, then ring allgather.
//
// The vector is cut into P blocks; in P − 1 steps each rank combines one
// block from its left neighbour and passes it on (reduce-scatter), then in
// P − 1 more steps the finished blocks travel around the ring (allgather)
// ([PA] ref [20], Patarasuk & Yuan; MPICH allreduce_intra_ring). Every rank
// sends 2(P − 1) messages of m/P elements: bandwidth-optimal.
// Cost: 2(P − 1)α + 2((P−1)/P) m β + ((P−1)/P) m γ.
// Restrictions: commutative — a block's partial result wraps around the
// ring from rank P−1 to rank 0, so contributions are not combined in rank
// order.
#include "../builders.hpp"
#include "../ring.hpp"

namespace patcoll::core {

Program allreduce_ring(const Params &params, int rank) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (n == 0) return program;
  const Ring ring{params.procs, rank, 0, n};
  append_ring_reduce_scatter(program, ring, Buffer::recv, true);
  append_ring_allgather(program, ring, Buffer::recv, params.procs - 1);
  return program;
}

}  // namespace patcoll::core
