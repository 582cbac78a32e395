// allreduce/slt — sorted linear tree ([PA] §4.1, Fig. 6b).
//
// linear_tree with the chain in predicted arrival order, latest last: the
// early ranks start reducing segments among themselves while the late ones
// still compute, and the latest rank joins at the end of the chain, where
// the partial results wait for it. [PA] Fig. 6: rank 0 late by 4τ costs
// 14τ with the rank-order chain and 12τ sorted.
// Cost (balanced PATs): as linear_tree, (2(P − 1) + 2(S − 1))τ for P ≥ 3,
// τ = α + (m/S)(β + γ) (see linear_tree.cpp for why not 2(P − 1) + S − 1).
// Segments: Params::segment_count / segment_elements, default ~32 KiB.
// Restrictions: commutative (the sorted chain combines out of rank order);
// pap_aware — no PATs or equal PATs give rank order, i.e. linear_tree
// exactly. Ties in arrival time are broken by rank.
#include "../pap.hpp"
#include "../plan.hpp"
#include "../tree.hpp"

namespace patcoll::core {
namespace {

Program build(const Params &params, int rank, const ChainOrder &chain) {
  return chain_allreduce(params, rank, chain_link(chain, rank), segments_for_bytes(params, kDefaultSegmentBytes));
}

}  // namespace

Program allreduce_slt(const Params &params, int rank) { return build(params, rank, chain_order(arrival_order(params))); }
std::vector<Program> allreduce_slt_all(const Params &params) {
  return build_every_rank(params, chain_order(arrival_order(params)), build);
}
FlatPrograms allreduce_slt_flat(const Params &params) {
  return build_every_rank_flat(params, chain_order(arrival_order(params)), build);
}

}  // namespace patcoll::core
