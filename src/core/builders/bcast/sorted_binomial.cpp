// bcast/sorted_binomial — binomial tree over ranks sorted by predicted
// arrival ([PS] Fig. 7's sorting applied to a broadcast).
//
// The root stays at position 0; the other ranks follow in predicted
// arrival order, earliest first (ties by rank), and position j sits at
// slot bitrev(j) of a binomial tree over 2^⌈log2 P⌉ slots
// (scatter_gather.hpp's slot tree). Slot s receives from s − lowbit(s) and
// sends to s + 2^j for 2^j < lowbit(s), largest subtree first, so the
// earliest ranks receive in the first rounds and become the inner nodes,
// and the latest ranks are leaves fed in the last round: a late rank holds
// up nobody but its parent's last send. No data shuffle is needed (every
// rank receives the whole buffer). Cost: balanced as binomial,
// ⌈log2 P⌉(α + mβ); the latest rank late by D ≥ (⌈log2 P⌉ − 1)(α + mβ):
// D + α + mβ, the bound. Restrictions: none (pap_aware; no PATs = the
// rank order, a binomial tree rooted at the root).
#include "../bcast.hpp"
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"
#include "../tree.hpp"

namespace patcoll::core {
namespace {

int lowbit(int v) { return v & -v; }

// The root first, then every other rank in arrival order.
SlotTree plan(const Params &params) {
  std::vector<int> order{params.root};
  for (int r : arrival_order(params))
    if (r != params.root) order.push_back(r);
  return sorted_slot_tree(order);
}

Program build(const Params &params, int rank, const SlotTree &tree) {
  const int slot = tree.slot_of_rank[rank];
  const int width = slot == 0 ? tree.slots : lowbit(slot);
  TreeNode node;
  if (slot > 0) node.parent = tree.rank_at_slot[slot - width];
  for (int m = 1; m < width; m <<= 1)  // smallest subtree first: tree_bcast sends largest first
    if (tree.occupied(slot + m)) node.children.push_back({tree.rank_at_slot[slot + m], Combine::store});
  return tree_bcast(params, rank, node, 1);
}

}  // namespace

Program bcast_sorted_binomial(const Params &params, int rank) { return build(params, rank, plan(params)); }
std::vector<Program> bcast_sorted_binomial_all(const Params &params) {
  return build_every_rank(params, plan(params), build);
}

}  // namespace patcoll::core
