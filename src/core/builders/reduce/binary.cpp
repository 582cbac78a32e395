// reduce/binary — segmented in-order binary tree.
//
// The root's left subtree covers ranks [0, root), its right subtree
// (root, P); each subtree is rooted at the middle rank of its range, so
// every subtree is a contiguous rank range and each node combines its lower
// child on the left and its upper child on the right: rank order, correct
// for non-commutative ops, for any root without a final extra hop (Open
// MPI's in-order binary tree is fixed at root P−1 and forwards to the
// real root). Segments pipeline up the tree ([LL]; Open MPI
// reduce_intra_binary).
// Cost: (⌈log2 P⌉ + 2(S − 1))·(α + (m/S)(β + γ)) roughly — a node takes two
// segments per segment time, one from each child.
// Segments: Params::segment_count / segment_elements, default ~32 KiB.
// Restrictions: none.
#include "../builders.hpp"
#include "../tree.hpp"

namespace patcoll::core {

Program reduce_binary(const Params &params, int rank) {
  return tree_reduce(params, rank, binary_tree(params.procs, params.root, rank),
                     segments_for_bytes(params, kDefaultSegmentBytes));
}

}  // namespace patcoll::core
