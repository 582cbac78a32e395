// allreduce/linear_tree — segmented chain reduce, then chain broadcast back.
//
// Ranks form a chain in rank order 0 → 1 → … → P−1; segments are reduced
// along it toward rank P−1, which sends each finished segment straight
// back down the chain, so both directions pipeline ([PA] §4.1 and its
// ref [4]; slt is the same engine with the chain sorted by arrival time).
// Cost: (2(P − 1) + S − 1)(α + (m/S)(β + γ)) — [PA] Fig. 6a counts it in
// τ = one segment transfer.
// Segments: Params::segment_count / segment_elements, default ~32 KiB.
// Restrictions: none — the chain is in rank order and every rank combines
// the partial from lower ranks on the left.
#include "../builders.hpp"
#include "../tree.hpp"

namespace patcoll::core {

Program allreduce_linear_tree(const Params &params, int rank) {
  const ChainLink link{rank, rank - 1, rank + 1 < params.procs ? rank + 1 : -1};
  return chain_allreduce(params, rank, link, segments_for_bytes(params, kDefaultSegmentBytes));
}

}  // namespace patcoll::core
