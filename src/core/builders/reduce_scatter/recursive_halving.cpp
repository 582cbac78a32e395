// reduce_scatter/recursive_halving — recursive halving, then each rank's
// block from the ranks whose halves hold it.
//
// butterfly.hpp's reduce-scatter over the largest power of two P' ≤ P
// (the first 2(P − P') ranks pair up and one of each pair folds its vector
// into the other's first): in log2 P' rounds partners exchange halves of
// their slice and combine the half they keep (Thakur, Rabenseifner & Gropp,
// IJHPCA 2005; MPICH reduce_scatter_intra_recursive_halving). The slices
// are equal cuts of the whole vector, not the ranks' blocks, so a last
// round moves every part of a block from the member whose slice holds it
// to the block's rank (for equal blocks and P = P', one message per rank);
// folded ranks receive their blocks the same way.
// Cost (P = P', equal blocks): (log2 P + 1)α + ((P−1)/P) m (β + γ) + (m/P)β.
// Restrictions: none — partners hold adjacent rank ranges and combine
// left/right accordingly, so non-commutative ops are reduced in rank order
// (butterfly.hpp); the validator checks it.
#include "../butterfly.hpp"
#include "../reduce_scatter.hpp"

namespace patcoll::core {

Program reduce_scatter_recursive_halving(const Params &params, int rank) {
  return butterfly_reduce_scatter(params, rank, power_of_two_radix(params.procs));
}

}  // namespace patcoll::core
