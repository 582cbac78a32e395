// gather/linear_sync (alias ls) — linear synchronized tree.
//
// Per leaf, in rank order, the root sends an empty sync message and the
// leaf answers with its block in two segments; the root receives the
// second segment of one leaf while it syncs the next, so at most two
// leaves talk to it at once (no incast). Cost: (P−1)(3α + mβ) ([PS] eq. 5).
// Restrictions: none. Source: [PS] §2.1 and Fig. 9 without the sort; Open
// MPI linear_sync gather (ompi/mca/coll/base/coll_base_gather.c).
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program gather_linear_sync(const Params &params, int rank) { return gather_synchronized_in_order(params, rank, rank_order(params)); }
std::vector<Program> gather_linear_sync_all(const Params &params) { return build_every_rank(params, rank_order(params), gather_synchronized_in_order); }

}  // namespace patcoll::core
