// gather/sbn — sorted binomial tree ([PS] Fig. 11).
//
// The root stays at tree position 0 (line 1), the other ranks follow in
// DEscending predicted arrival order (line 2): the earliest ranks take the
// highest positions, which are the leaves that send in the first rounds
// (lines 9–17), and the latest non-root rank is the root's last child.
// Position j sits at slot bitrev(j), so the root receives its blocks in
// bit-reversed, PAT-sorted order and unshuffles them into rank order
// (lines 19–20) — one copy per run of consecutive ranks.
// Cost: balanced as bnom, ⌈log2 P⌉α + (P−1)mβ ([PS] eqs. 7–8, 21).
// Restrictions: none (pap_aware; no PATs = rank order). Ties in arrival time
// are broken by rank (the lower rank comes first).
#include <algorithm>

#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {
namespace {

// The root first, then every other rank latest-arriving first.
SlotTree tree(const Params &params) {
  std::vector<int> order{params.root};
  for (int r = 0; r < params.procs; ++r)
    if (r != params.root) order.push_back(r);
  if (params.arrivals.size() == static_cast<std::size_t>(params.procs))
    std::stable_sort(order.begin() + 1, order.end(),
                     [&](int a, int b) { return params.arrivals[a] > params.arrivals[b]; });
  return sorted_slot_tree(order);
}

}  // namespace

Program gather_sbn(const Params &params, int rank) { return gather_over_tree(params, rank, tree(params)); }
std::vector<Program> gather_sbn_all(const Params &params) { return build_every_rank(params, tree(params), gather_over_tree); }

}  // namespace patcoll::core
