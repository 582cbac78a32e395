// alltoall/clairvoyant — the exchanges among the ranks that are there
// first, the late ranks' pairs as they arrive (Qian and Afsahi's
// arrival-ordered all-to-all, IJPP 2011), planned on the predicted
// arrivals.
//
// The plan is a greedy list schedule in the α-β model: each rank is free
// from its predicted arrival; repeatedly the rank free first (ties: the
// lower rank) meets, among the partners it has not met, the one it can
// start with soonest (ties: the lower symmetric round, builders/
// alltoall.hpp), and both are busy for one exchange, α + β·(the larger of
// the pair's two counts). Ranks that are there exchange among themselves
// while the others are away; a late rank meets the others as they come
// free. Each rank runs its exchanges in the order the plan made them:
// every rank's sequence is a subsequence of that one order, so the
// schedule cannot deadlock, whatever the real arrivals are; wrong
// predictions only cost time. Without PATs, or with equal ones, the plan
// is the symmetric pairwise order itself (P − 1 steps, the same on every
// rank).
//
// One rank late by D ≥ the others' (P − 2)-exchange time: the others are
// done with one another when it arrives, and it meets them back to back:
// D + (P − 1)(α + mβ/P) = the bound (docs/results/alltoall.md) + (P − 2)α.
// The plan costs O(P³) (P² / 2 exchanges, each choosing among O(P) ranks
// and partners), once per PAT vector (cached). alltoallv: the exchange time
// uses Params::count (an MPI_Alltoallv's rank knows only its own row and
// column of the counts, and every rank must make the same plan; the MPI
// layer passes 0, so every exchange counts α). Restrictions: none.
#include <algorithm>
#include <cmath>

#include "../../layout.hpp"
#include "../alltoall.hpp"
#include "../plan.hpp"

namespace patcoll::core {

AlltoallClairvoyantPlan plan_alltoall_clairvoyant(const Params &params) {
  const int procs = params.procs;
  const std::size_t n = static_cast<std::size_t>(std::max(procs, 0));
  AlltoallClairvoyantPlan plan;
  plan.partners.assign(n, {});
  const double exchange = params.cost.transfer_time(static_cast<double>(params.count) * params.element_bytes);
  const bool pats = params.arrivals.size() == n && n > 0 &&
                    std::any_of(params.arrivals.begin(), params.arrivals.end(),
                                [&](double a) { return a != params.arrivals.front(); });
  if (!pats) {  // the symmetric pairwise order
    for (int r = 0; r < procs; ++r) {
      std::vector<int> &order = plan.partners[static_cast<std::size_t>(r)];
      for (int q = 0; q < procs; ++q)
        if (q != r) order.push_back(q);
      std::sort(order.begin(), order.end(),
                [&](int a, int b) { return symmetric_round(procs, r, a) < symmetric_round(procs, r, b); });
    }
    plan.planned_run_time = procs > 1 ? symmetric_rounds(procs) * exchange : 0;
    return plan;
  }
  const double earliest = *std::min_element(params.arrivals.begin(), params.arrivals.end());
  std::vector<double> free_at(n);
  for (std::size_t r = 0; r < n; ++r) free_at[r] = std::isfinite(params.arrivals[r]) ? params.arrivals[r] - earliest : 0;
  std::vector<char> met(n * n, 0);
  std::vector<int> pending(n, procs - 1);
  double end = 0;
  for (std::int64_t left = static_cast<std::int64_t>(procs) * (procs - 1) / 2; left > 0; --left) {
    int u = -1;
    for (int r = 0; r < procs; ++r)
      if (pending[static_cast<std::size_t>(r)] > 0 && (u < 0 || free_at[static_cast<std::size_t>(r)] < free_at[static_cast<std::size_t>(u)])) u = r;
    int v = -1;
    double v_start = 0;
    int v_round = 0;
    for (int q = 0; q < procs; ++q) {
      if (q == u || met[static_cast<std::size_t>(u) * n + static_cast<std::size_t>(q)]) continue;
      const double start = std::max(free_at[static_cast<std::size_t>(u)], free_at[static_cast<std::size_t>(q)]);
      const int round = symmetric_round(procs, u, q);
      if (v < 0 || start < v_start || (start == v_start && round < v_round)) v = q, v_start = start, v_round = round;
    }
    met[static_cast<std::size_t>(u) * n + static_cast<std::size_t>(v)] = 1;
    met[static_cast<std::size_t>(v) * n + static_cast<std::size_t>(u)] = 1;
    --pending[static_cast<std::size_t>(u)], --pending[static_cast<std::size_t>(v)];
    const double done = v_start + exchange;
    free_at[static_cast<std::size_t>(u)] = free_at[static_cast<std::size_t>(v)] = done;
    end = std::max(end, done);
    plan.partners[static_cast<std::size_t>(u)].push_back(v);
    plan.partners[static_cast<std::size_t>(v)].push_back(u);
  }
  plan.planned_run_time = end;
  return plan;
}

Program build_alltoall_clairvoyant(const Params &params, int rank, const AlltoallClairvoyantPlan &plan) {
  std::vector<Exchange> sequence;
  for (int q : plan.partners[static_cast<std::size_t>(rank)]) sequence.push_back({q, q});
  return alltoall_exchanges(params, rank, sequence);
}

Program alltoall_clairvoyant(const Params &params, int rank) {
  return build_alltoall_clairvoyant(params, rank, plan_alltoall_clairvoyant(params));
}
std::vector<Program> alltoall_clairvoyant_all(const Params &params) {
  return build_every_rank(params, plan_alltoall_clairvoyant(params), build_alltoall_clairvoyant);
}

}  // namespace patcoll::core
