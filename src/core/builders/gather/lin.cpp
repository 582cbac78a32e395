// gather/lin — linear tree: the root receives each rank's block in turn.
//
// The root receives from the ranks in rank order straight into place; its
// own block is a local copy. Cost: (P−1)(α + mβ), m = bytes per block
// ([PS] eq. 3). Restrictions: none. Source: [PS] §2.1; Open MPI
// basic_linear gather (ompi/mca/coll/base/coll_base_gather.c).
#include <numeric>

#include "../pap.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program gather_lin(const Params &params, int rank) {
  std::vector<int> order(static_cast<std::size_t>(params.procs));
  std::iota(order.begin(), order.end(), 0);
  return gather_linear_in_order(params, rank, order);
}

}  // namespace patcoll::core
