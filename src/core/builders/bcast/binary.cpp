// bcast/binary — segmented binary tree.
//
// The root's two subtrees cover ranks [0, root) and (root, P), each rooted
// at the middle rank of its range (the reduce's in-order binary tree,
// tree.hpp); segments pipeline down it, every inner rank sending each
// segment to its two children (Open MPI's bcast_intra_bintree).
// Cost: about (⌈log2 P⌉ + 2(S − 1))(α + (m/S)β) — an inner rank sends
// two segments per segment it receives. Segments: Params::segment_count /
// segment_elements, default ~32 KiB. Restrictions: none.
#include "../bcast.hpp"
#include "../tree.hpp"

namespace patcoll::core {

Program bcast_binary(const Params &params, int rank) {
  return tree_bcast(params, rank, binary_tree(params.procs, params.root, rank),
                    segments_for_bytes(params, kDefaultSegmentBytes));
}

}  // namespace patcoll::core
