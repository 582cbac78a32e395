// allgather/recursive_doubling — block ranges exchanged at doubling distances.
//
// Over the largest power of two Q ≤ P: in round i rank x exchanges with
// x XOR 2^i everything it holds (2^i blocks, one contiguous range of
// ranks), so ⌈log2 Q⌉ rounds double every rank's share. For P ≠ Q the
// P − Q ranks beyond Q fold first: rank 2i (i < P − Q) hands its block to
// 2i + 1 and gets the whole result back at the end (butterfly.hpp's fold,
// the engine of allreduce/recursive_doubling and rabenseifner).
// Cost: log2 Q·α + ((Q−1)/Q)mβ, plus 2α + (m/P + m)β when P ≠ Q.
// Restrictions: none. Source: Thakur, Rabenseifner & Gropp, IJHPCA 2005;
// MPICH allgather_intra_recursive_doubling.c (power-of-two P; MPICH's
// non-power-of-two variant sends subtrees instead of folding).
#include "../allgather.hpp"
#include "../butterfly.hpp"

namespace patcoll::core {

Program allgather_recursive_doubling(const Params &params, int rank) {
  return butterfly_allgather(params, rank, power_of_two_radix(params.procs));
}

}  // namespace patcoll::core
