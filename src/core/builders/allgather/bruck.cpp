// allgather/bruck — ⌈log2 P⌉ rounds for any P.
//
// Rank r keeps the blocks of r, r+1, … (mod P) in scratch; in round k it
// sends its first min(2^k, P − 2^k) blocks to r − 2^k and receives as many
// from r + 2^k, then copies the blocks to their places
// (append_bruck_allgather_over over the ranks in rank order).
// Cost: ⌈log2 P⌉α + ((P−1)/P)mβ, plus the local copy of the result.
// Restrictions: none; scratch of the whole result. Source: Bruck et al.,
// IEEE TPDS 8(11), 1997; MPICH allgather_intra_brucks.c, Open MPI
// coll_base_allgather.c (bruck).
#include "../allgather.hpp"
#include "../plan.hpp"

namespace patcoll::core {

Program allgather_bruck(const Params &params, int rank) {
  Program program{rank, params.procs, 0, {}};
  append_bruck_allgather_over(program, params, rank_order(params), rank, 0);
  return program;
}

}  // namespace patcoll::core
