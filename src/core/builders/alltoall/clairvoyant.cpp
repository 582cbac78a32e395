// alltoall/clairvoyant — the exchanges among the ranks that are there
// first, the late ranks' pairs last, ordered by predicted arrival
// (Qian and Afsahi's arrival-ordered all-to-all, IJPP 2011).
//
// Each pair {a, b} is released at the later of the two predicted arrivals,
// counted in quanta of one exchange (α + β·count bytes) after the earliest
// arrival, so that arrivals closer than one exchange count as equal. Every
// rank exchanges with its partners in the order (release, round), round
// being the pair's round in a symmetric pairwise order (builders/
// alltoall.hpp's symmetric_round). Both ranks of a pair sort by the same
// key, so the exchanges are totally ordered alike everywhere and the
// schedule is deadlock-free whatever the real arrivals; wrong predictions
// only cost time. Balanced (or no PATs): the symmetric pairwise order,
// P − 1 steps (P even) or P (P odd), identical on every rank.
//
// One rank late by D: the others exchange among themselves while it is
// away and it then meets them one by one, (P − 1)(α + mβ/P) after it
// arrives: D + (P − 1)/P·mβ + (P − 1)α, the bound
// (docs/results/alltoall.md) plus (P − 2)α. Restrictions: none.
#include <algorithm>
#include <cmath>

#include "../../layout.hpp"
#include "../alltoall.hpp"
#include "../plan.hpp"

namespace patcoll::core {

AlltoallClairvoyantPlan plan_alltoall_clairvoyant(const Params &params) {
  AlltoallClairvoyantPlan plan;
  plan.release.assign(static_cast<std::size_t>(params.procs), 0);
  if (params.arrivals.size() != static_cast<std::size_t>(params.procs) || params.procs < 2) return plan;
  // The quantum: one exchange of a pair of Params::count elements. Not
  // the v-form's counts: every rank must compute the same releases, and
  // an MPI_Alltoallv's rank knows only its own row and column of them (the
  // MPI layer passes count 0 there, so the quantum is α).
  const double quantum = params.cost.transfer_time(static_cast<double>(params.count) * params.element_bytes);
  const double earliest = *std::min_element(params.arrivals.begin(), params.arrivals.end());
  for (int r = 0; r < params.procs; ++r) {
    const double quanta = (params.arrivals[static_cast<std::size_t>(r)] - earliest) / quantum;
    plan.release[static_cast<std::size_t>(r)] = std::isfinite(quanta) ? static_cast<long long>(std::floor(quanta)) : 0;
  }
  return plan;
}

std::vector<int> alltoall_clairvoyant_partners(const Params &params, int rank, const AlltoallClairvoyantPlan &plan) {
  struct Key {
    long long release;
    int round;
    int partner;
  };
  std::vector<Key> keys;
  keys.reserve(static_cast<std::size_t>(std::max(params.procs - 1, 0)));
  for (int q = 0; q < params.procs; ++q)
    if (q != rank)
      keys.push_back({std::max(plan.release[static_cast<std::size_t>(rank)], plan.release[static_cast<std::size_t>(q)]),
                      symmetric_round(params.procs, rank, q), q});
  // (release, round) is the same at both ends of a pair and distinct among
  // one rank's pairs (a round meets each rank once).
  std::sort(keys.begin(), keys.end(), [](const Key &a, const Key &b) {
    return a.release != b.release ? a.release < b.release : a.round < b.round;
  });
  std::vector<int> partners;
  partners.reserve(keys.size());
  for (const Key &k : keys) partners.push_back(k.partner);
  return partners;
}

Program build_alltoall_clairvoyant(const Params &params, int rank, const AlltoallClairvoyantPlan &plan) {
  std::vector<Exchange> sequence;
  for (int q : alltoall_clairvoyant_partners(params, rank, plan)) sequence.push_back({q, q});
  return alltoall_exchanges(params, rank, sequence);
}

Program alltoall_clairvoyant(const Params &params, int rank) {
  return build_alltoall_clairvoyant(params, rank, plan_alltoall_clairvoyant(params));
}
std::vector<Program> alltoall_clairvoyant_all(const Params &params) {
  return build_every_rank(params, plan_alltoall_clairvoyant(params), build_alltoall_clairvoyant);
}

}  // namespace patcoll::core
