// gather/linear (alias lin) — linear tree: the root receives each rank's block in turn.
//
// The root receives from the ranks in rank order straight into place; its
// own block is a local copy. Cost: (P−1)(α + mβ), m = bytes per block
// ([PS] eq. 3). Restrictions: none. Source: [PS] §2.1; Open MPI
// basic_linear gather (ompi/mca/coll/base/coll_base_gather.c).
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program gather_linear(const Params &params, int rank) { return gather_linear_in_order(params, rank, rank_order(params)); }
std::vector<Program> gather_linear_all(const Params &params) { return build_every_rank(params, rank_order(params), gather_linear_in_order); }

}  // namespace patcoll::core
