// allgather/ring — every rank passes blocks to its right neighbour.
//
// In step s = 0 … P−2 rank r sends block (r − s) mod P to r + 1 and
// receives block (r − 1 − s) mod P from r − 1 (ring.hpp's allgather phase,
// the second half of allreduce/ring, over the collective's per-rank
// layout). Cost: (P−1)α + ((P−1)/P)mβ, m = the whole result (uniform
// blocks; for allgatherv the largest block paces every step). Restrictions:
// none. Source: MPICH allgather_intra_ring.c, Open MPI
// coll_base_allgather.c (ring).
#include "../allgather.hpp"
#include "../plan.hpp"

namespace patcoll::core {

Program allgather_ring(const Params &params, int rank) {
  Program program{rank, params.procs, 0, {}};
  append_ring_allgather_over(program, params, rank_order(params), rank, 0);
  return program;
}

}  // namespace patcoll::core
