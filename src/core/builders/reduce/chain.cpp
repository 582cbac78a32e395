// reduce/chain — segmented chain (linear pipeline) toward the root.
//
// The vector is cut into S segments that flow down a chain of ranks, each
// rank combining its own segment into the stream, so after the pipeline
// fills every round moves one segment one hop ([M] Table 3 "linear
// pipeline", [LL] "pipeline"; Open MPI's reduce_intra_chain/pipeline).
// Commutative ops: one chain root−1 → root−2 → … → root+1 → root (mod P).
// Non-commutative ops: two chains in rank order 0 → … → root ← … ← P−1,
// combined left and right, so the op is applied in rank order.
// Cost (one chain, segment m/S): (P − 2 + S)(α + (m/S)(β + γ)).
// Segments: Params::segment_count / segment_elements, default ~32 KiB.
// Restrictions: none.
#include "../builders.hpp"
#include "../tree.hpp"

namespace patcoll::core {

Program reduce_chain(const Params &params, int rank) {
  const TreeNode node = chain_tree(params.procs, params.root, rank, !params.commutative);
  return tree_reduce(params, rank, node, segments_for_bytes(params, kDefaultSegmentBytes));
}

}  // namespace patcoll::core
