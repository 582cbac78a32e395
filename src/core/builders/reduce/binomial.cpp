// reduce/binomial — unsegmented binomial tree.
//
// Commutative ops: the classic tree over v = rank − root (mod P): v
// receives from v + 1, v + 2, v + 4, … (smallest subtree first) and sends
// to v − lowbit(v) ([M] Appendix A, [LL]; MPICH reduce_intra_binomial).
// Non-commutative ops: the tree is kept in rank order instead of rotated —
// the larger side of the root (root included) is a binomial tree growing
// away from the root, the other side a binomial tree rooted next to the
// root that joins as one more child; every subtree is a contiguous rank
// range and the op is applied in rank order (MPICH instead reduces at 0
// and forwards to the root).
// Cost: ⌈log2 P⌉(α + mβ + mγ) (rotated; the in-order tree may add one
// round when the root is in the middle).
// Restrictions: none.
#include "../builders.hpp"
#include "../tree.hpp"

namespace patcoll::core {

Program reduce_binomial(const Params &params, int rank) {
  return tree_reduce(params, rank, binomial_tree(params.procs, params.root, rank, !params.commutative), 1);
}

}  // namespace patcoll::core
