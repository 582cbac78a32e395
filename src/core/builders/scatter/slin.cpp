// scatter/slin — sorted linear tree ([PS] Fig. 5, "SLN").
//
// lin, but the root serves the ranks in predicted arrival order, earliest
// first, so an early rank is not held up behind a late one.
// Cost: balanced PATs as lin, (P−1)(α + mβ); rank 1 late by δ: run time
// max(δ + α + mβ, (P−1)(α + mβ)) instead of δ + (P−1)(α + mβ) ([PS] eqs. 9–10).
// Restrictions: none (pap_aware; no PATs = rank order).
// Fig. 5 line 4 tests `i ≠ root`; the intent, implemented here, is
// `pt_i ≠ root`. Ties in arrival time are broken by rank.
#include "../pap.hpp"
#include "../plan.hpp"
#include "../scatter_gather.hpp"

namespace patcoll::core {

Program scatter_slin(const Params &params, int rank) { return scatter_linear_in_order(params, rank, arrival_order(params)); }
std::vector<Program> scatter_slin_all(const Params &params) { return build_every_rank(params, arrival_order(params), scatter_linear_in_order); }

}  // namespace patcoll::core
