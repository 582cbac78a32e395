// scatter/linear (alias lin) — linear tree: the root sends each rank its block in turn.
//
// The root walks the ranks in rank order: a send per rank, its own block a
// local copy. Cost: (P−1)(α + mβ), m = bytes per block ([PS] eq. 3).
// Restrictions: none. Source: [PS] §2.1; Open MPI basic_linear scatter
// (ompi/mca/coll/base/coll_base_scatter.c).
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program scatter_linear(const Params &params, int rank) { return scatter_linear_in_order(params, rank, rank_order(params)); }
std::vector<Program> scatter_linear_all(const Params &params) { return build_every_rank(params, rank_order(params), scatter_linear_in_order); }

}  // namespace patcoll::core
