// scatter/lin — linear tree: the root sends each rank its block in turn.
//
// The root walks the ranks in rank order: a send per rank, its own block a
// local copy. Cost: (P−1)(α + mβ), m = bytes per block ([PS] eq. 3).
// Restrictions: none. Source: [PS] §2.1; Open MPI basic_linear scatter
// (ompi/mca/coll/base/coll_base_scatter.c).
#include <numeric>

#include "../pap.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program scatter_lin(const Params &params, int rank) {
  std::vector<int> order(static_cast<std::size_t>(params.procs));
  std::iota(order.begin(), order.end(), 0);
  return scatter_linear_in_order(params, rank, order);
}

}  // namespace patcoll::core
