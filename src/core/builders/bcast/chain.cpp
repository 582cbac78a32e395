// bcast/chain — segmented chain (pipeline) root → root+1 → … → root−1.
//
// The buffer is cut into S segments that flow down the chain; after the
// pipeline fills, every rank receives segment k+1 while it forwards k
// (Open MPI's bcast_intra_chain with one chain / bcast_intra_pipeline).
// Cost: (P − 2 + S)(α + (m/S)β). Segments: Params::segment_count /
// segment_elements, default ~32 KiB. Restrictions: none.
#include "../bcast.hpp"
#include "../tree.hpp"

namespace patcoll::core {

Program bcast_chain(const Params &params, int rank) {
  return tree_bcast(params, rank, chain_tree(params.procs, params.root, rank, false),
                    segments_for_bytes(params, kDefaultSegmentBytes));
}

}  // namespace patcoll::core
