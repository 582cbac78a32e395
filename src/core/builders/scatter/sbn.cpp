// scatter/sbn — sorted binomial tree ([PS] Fig. 7).
//
// The root stays at tree position 0 (Fig. 7 line 1, swap), the other ranks
// follow in predicted arrival order, earliest first (line 2); position j
// is placed at slot bitrev(j) (line 3), and the root shuffles its blocks
// into that slot order (lines 7–8) so every subtree is contiguous. The
// binomial tree over slots (lines 11–18) then feeds the earliest ranks in
// the first rounds: position 1 gets its half in round 1, positions 2 and 3
// in round 2, …  Cost: balanced as bnom, ⌈log2 P⌉α + (P−1)mβ; rank 1 late
// by δ: max(δ + α + mβ, r_bnom) ([PS] eq. 14). Restrictions: none
// (pap_aware; no PATs = rank order). Ties are broken by rank.
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {
namespace {

// The root first, then every other rank in arrival order.
SlotTree tree(const Params &params) {
  std::vector<int> order{params.root};
  for (int r : arrival_order(params))
    if (r != params.root) order.push_back(r);
  return sorted_slot_tree(order);
}

}  // namespace

Program scatter_sbn(const Params &params, int rank) { return scatter_over_tree(params, rank, tree(params)); }
std::vector<Program> scatter_sbn_all(const Params &params) { return build_every_rank(params, tree(params), scatter_over_tree); }

}  // namespace patcoll::core
