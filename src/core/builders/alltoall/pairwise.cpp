// alltoall/pairwise — P − 1 exchange steps, one partner each.
//
// Step k (k = 1 … P − 1) sends the rank's pair for rank XOR k and receives
// from it when P is a power of two; otherwise it sends to (r + k) mod P and
// receives from (r − k) mod P. The received pairs are staged (the exchange
// engine, builders/alltoall.hpp) so that MPI_IN_PLACE needs nothing else.
// Cost: (P − 1)(α + mβ/P), m = bytes a rank sends in all; the bandwidth
// term (P − 1)/P·mβ is optimal. Restrictions: none. Source: MPICH
// alltoall_intra_pairwise.c, Open MPI coll_base_alltoall_intra_pairwise,
// SimGrid alltoall-pair.cpp.
#include "../alltoall.hpp"

namespace patcoll::core {

Program alltoall_pairwise(const Params &params, int rank) {
  return alltoall_exchanges(params, rank, pairwise_sequence(params.procs, rank));
}

}  // namespace patcoll::core
