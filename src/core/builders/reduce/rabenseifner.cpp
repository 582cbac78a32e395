// reduce/rabenseifner — recursive-halving reduce-scatter, binomial gather.
//
// Over the largest power of two P' ≤ P: in round i partners 2^(i−1) apart
// exchange halves of their current slice and combine the half they keep;
// after log2 P' rounds each rank owns 1/P' of the result, and a binomial
// gather (the same rounds reversed) brings the slices to the root
// (Rabenseifner 2004; [M] §5.5.3 "butterfly"; MPICH
// reduce_intra_reduce_scatter_gather). Non-powers of two: the first
// 2(P − P') ranks pair up and one of each pair (never the root) sends its
// vector to the other first.
// Cost (P = P'): 2 log2 P α + 2((P−1)/P) m β + ((P−1)/P) m γ.
// Restrictions: none — partners hold adjacent rank ranges and combine
// left/right accordingly, so non-commutative ops are correct (butterfly.hpp).
#include "../builders.hpp"
#include "../butterfly.hpp"

namespace patcoll::core {

Program reduce_rabenseifner(const Params &params, int rank) {
  return butterfly_reduce(params, rank, power_of_two_radix(params.procs));
}

}  // namespace patcoll::core
