// allreduce/rabenseifner — recursive halving, then recursive doubling.
//
// Over the largest power of two P' ≤ P: log2 P' rounds of recursive-halving
// reduce-scatter (partners exchange halves of their slice and combine the
// half they keep), then the same rounds reversed as a recursive-doubling
// allgather ([PA] ref [19], Rabenseifner 2004; MPICH
// allreduce_intra_reduce_scatter_allgather). Non-powers of two: the first
// 2(P − P') ranks pair up, the even rank of each pair sends its vector to
// the odd one before and receives the result after.
// Cost (P = P'): 2 log2 P α + 2((P−1)/P) m β + ((P−1)/P) m γ.
// Restrictions: none — partners hold adjacent rank ranges and combine
// left/right accordingly, so non-commutative ops are correct (butterfly.hpp).
#include "../builders.hpp"
#include "../butterfly.hpp"

namespace patcoll::core {

Program allreduce_rabenseifner(const Params &params, int rank) {
  return butterfly_allreduce(params, rank, power_of_two_radix(params.procs));
}

}  // namespace patcoll::core
