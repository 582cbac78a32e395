// gather/sls — sorted linear synchronized tree ([PS] Fig. 9).
//
// ls, with the leaves synchronized in predicted arrival order, earliest
// first (line 3), so the data of early leaves is collected while late
// ones still compute. Cost: balanced as ls, (P−1)(3α + mβ); rank 1 late by
// δ: max(δ + 3α + mβ, r_ls) ([PS] eq. 18). Restrictions: none (pap_aware;
// no PATs = rank order). Ties are broken by rank.
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program gather_sls(const Params &params, int rank) { return gather_synchronized_in_order(params, rank, arrival_order(params)); }
std::vector<Program> gather_sls_all(const Params &params) { return build_every_rank(params, arrival_order(params), gather_synchronized_in_order); }

}  // namespace patcoll::core
