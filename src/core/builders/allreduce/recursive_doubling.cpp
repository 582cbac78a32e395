// allreduce/recursive_doubling — whole-vector exchanges, distance doubling.
//
// Over the largest power of two P' ≤ P: in round i partners 2^(i−1) apart
// exchange their whole vectors and both combine, so after log2 P' rounds
// every rank has the result; best for small messages (MPICH
// allreduce_intra_recursive_doubling). Non-powers of two: the first
// 2(P − P') ranks pair up, the even rank of each pair sends its vector to
// the odd one before and receives the result after.
// Cost (P = P'): log2 P (α + mβ + mγ).
// Restrictions: none — partners hold adjacent rank ranges and combine
// left/right accordingly, so non-commutative ops are correct.
#include "../builders.hpp"
#include "../butterfly.hpp"

namespace patcoll::core {

Program allreduce_recursive_doubling(const Params &params, int rank) {
  return exchange_allreduce(params, rank, power_of_two_radix(params.procs));
}

}  // namespace patcoll::core
