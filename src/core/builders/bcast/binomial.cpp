// bcast/binomial — unsegmented binomial tree.
//
// Relative rank v = (rank − root) mod P receives the whole buffer from
// v − lowbit(v) and sends it to v + 2^j for 2^j < lowbit(v) (every 2^j <
// P at the root), largest subtree first, so ⌈log2 P⌉ rounds.
// Cost: ⌈log2 P⌉(α + mβ). Restrictions: none.
// Source: MPICH bcast_intra_binomial.c, Open MPI bcast_intra_binomial.
#include "../bcast.hpp"
#include "../tree.hpp"

namespace patcoll::core {

Program bcast_binomial(const Params &params, int rank) {
  return tree_bcast(params, rank, binomial_tree(params.procs, params.root, rank, false), 1);
}

}  // namespace patcoll::core
