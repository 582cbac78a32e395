// allreduce/linear_tree — segmented chain reduce, then chain broadcast back.
//
// Ranks form a chain in rank order 0 → 1 → … → P−1; segments are reduced
// along it toward rank P−1, which sends each finished segment straight
// back down the chain, so both directions pipeline ([PA] §4.1 and its
// ref [4]; slt is the same engine with the chain sorted by arrival time).
// Cost, τ = α + (m/S)(β + γ) one segment transfer ([PA] Fig. 6 counts in τ):
// the schedule has 2(P − 1) + S − 1 rounds, but from the third segment on
// every inner rank sends two segments per round (a partial forward, a
// result back) through its one send port, so under the single-port model
// it takes (2(P − 1) + 2(S − 1))τ for P ≥ 3 (S = 2: (2P − 1)τ; P = 2:
// (S + 1)τ) — [PA] Fig. 6a: P = 4, S = 3, 10τ balanced, 14τ with rank 0
// late by 4τ (tests/unit/test_pap_builders.cpp checks both in the simulator).
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
