// gather/ls — linear synchronized tree.
//
// Per leaf, in rank order, the root sends an empty sync message and the
// leaf answers with its block in two segments; the root receives the
// second segment of one leaf while it syncs the next, so at most two
// leaves talk to it at once (no incast). Cost: (P−1)(3α + mβ) ([PS] eq. 5).
// Restrictions: none. Source: [PS] §2.1 and Fig. 9 without the sort; Open
// MPI linear_sync gather (ompi/mca/coll/base/coll_base_gather.c).
#include <numeric>

#include "../pap.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program gather_ls(const Params &params, int rank) {
  std::vector<int> order(static_cast<std::size_t>(params.procs));
  std::iota(order.begin(), order.end(), 0);
  return gather_synchronized_in_order(params, rank, order);
}

}  // namespace patcoll::core
