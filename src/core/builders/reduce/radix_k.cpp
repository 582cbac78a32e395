// reduce/radix_k — radix-k reduce-scatter, k-nomial gather to the root.
//
// Radix vector k = [k_1 … k_r], Π k_i = Q ≤ P: in round i the k_i members
// that differ only in mixed-radix digit i (nearest neighbours first, then
// k_1 apart, …) cut their slice into k_i pieces and each combines one piece
// from all others (direct send); the rounds reversed gather the pieces to
// the root ([M] §5.5.4 and Appendix A, after Kendall et al. 2010).
// k = [2, …, 2] is rabenseifner. Params::radix picks the vector (used when
// every k ≥ 2 and P/2 ≤ Π k ≤ P); default: the largest Q ≤ P with prime
// factors ≤ 7, its power-of-two part in 4s and 8s ([M] §6 used {4,4,8} for
// 128), then 3s, 5s, 7s; the P − Q extra ranks fold into partners first
// (default_radix in butterfly.hpp).
// Cost: (Σ(k_i − 1) + ⌈log2 P⌉)α + ((P−1)/P) m (2β + γ) ([M] Table 3).
// Restrictions: none — groups hold adjacent rank ranges and are combined
// nearest-first, left and right, so non-commutative ops are correct.
#include "../builders.hpp"
#include "../butterfly.hpp"

namespace patcoll::core {

Program reduce_radix_k(const Params &params, int rank) {
  return butterfly_reduce(params, rank, radix_for(params));
}

}  // namespace patcoll::core
