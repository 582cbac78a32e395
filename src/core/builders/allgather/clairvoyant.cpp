// allgather/clairvoyant — PAT-driven allgather: the early ranks exchange
// among themselves while the late ones are away, and each late rank's block
// enters through the early ranks and spreads by doubling (beyond the
// papers; [PO] §7 and [PS] §7 name a PAP-aware allgather as future work;
// design, worked example and bound in docs/results/allgather.md).
//
// Ranks sorted by predicted arrival (ties by rank): the first P − k form
// the group G, the last k are folded in one by one, in arrival order.
//   1. G runs a ring or Bruck allgather over itself in arrival order
//      while the late ranks compute.
//   2. Fold of late rank L into G (every member holds every member's
//      block): a source S ∈ G sends L the blocks of G (one message per run
//      of consecutive ranks) while L's block spreads: L sends it to one
//      member, which roots a binomial broadcast over [G − S, S] (each
//      member forwards it, one child per round; S is the last leaf, so its
//      send port serves the bulk alone). Both happen at once: L's receive
//      port takes the bulk, the others' ports the spread. L then joins G.
// After L arrives a fold costs max(α + ((P−1)/P)mβ, (1 + ⌈log2(P−1)⌉)(α + (m/P)β))
// (m the whole result) against the bound D + max(((P−1)/P)mβ,
// ⌈log2 P⌉α + (m/P)β). The plan (k ≤ 3, G's shape) is the candidate with
// the least simulated run time under Params::cost and the PATs; k = 0 is
// the best classic algorithm over all ranks in rank order, which is also
// what runs without PATs (the same choice on every rank). Above
// kAllgatherSimulatedProcs ranks the plan comes from formulas.
// Restrictions: none; pap_aware, schedule_based. Any PAT vector is correct
// — wrong PATs only cost time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "../../cost.hpp"
#include "../../layout.hpp"
#include "../../simulate.hpp"
#include "../allgather.hpp"
#include "../pap.hpp"
#include "../plan_choice.hpp"

namespace patcoll::core {
namespace {

constexpr NamedBuilder kClassic[] = {
    {"ring", allgather_ring},
    {"recursive_doubling", allgather_recursive_doubling},
    {"bruck", allgather_bruck},
    {"neighbor_exchange", allgather_neighbor_exchange},
};

bool classic_applies(const NamedBuilder &c, int procs) { return c.name != "neighbor_exchange" || procs % 2 == 0; }

int highest_bit(int value) {
  int bit = 1;
  while (bit * 2 <= value) bit *= 2;
  return bit;
}

// Fold of `late` into `group` from `source`; rounds from `first_round`,
// returns the round after the fold's last. The spread: L sends its block
// to one member only (its send port stays free of competing sends while it
// receives the bulk), which roots a binomial broadcast over
// [G without S, S]; each member forwards in its own steps, one child per
// round, largest subtree first, and S is the last leaf.
int append_fold(std::vector<Program> &programs, const Params &params, const std::vector<int> &group, int late,
                int source, int first_round) {
  const std::vector<Region> bulk = block_runs(params, group);
  std::vector<int> tree;  // the broadcast's positions 0 … n−1
  for (int rank : group)
    if (rank != source) tree.push_back(rank);
  tree.push_back(source);
  const int members = static_cast<int>(tree.size());
  auto rank_at = [&](int position) { return tree[static_cast<std::size_t>(position)]; };
  const Region block = own_block(params, late);
  std::vector<Op> root = own_block_copy(params, late);
  for (const Region &run : bulk) root.push_back(recv_op(source, run, Combine::store));
  if (block.count > 0) root.push_back(send_op(rank_at(0), block));
  add_step(programs[static_cast<std::size_t>(late)], std::move(root), first_round);
  // Position u receives in round 1 + level(u) of the fold, level(0) = 0,
  // level(u) = log2(highest bit of u) + 1, and sends to its k-th child in
  // round 1 + level(u) + k.
  auto level = [](int u) { return u == 0 ? 0 : ceil_log2(highest_bit(u)) + 1; };
  for (int u = 0; u < members; ++u) {
    Program &program = programs[static_cast<std::size_t>(rank_at(u))];
    const int round = first_round + 1 + level(u);
    std::vector<Op> ops;
    if (rank_at(u) == source)
      for (const Region &run : bulk) ops.push_back(send_op(late, run));
    if (block.count > 0) ops.push_back(recv_op(u == 0 ? late : rank_at(u - highest_bit(u)), block, Combine::store));
    add_step(program, std::move(ops), round);
    if (block.count == 0) continue;
    int k = 1;
    for (int distance = u == 0 ? 1 : 2 * highest_bit(u); u + distance < members; distance *= 2, ++k)
      add_step(program, {send_op(rank_at(u + distance), block)}, round + k);
  }
  return first_round + clairvoyant_allgather_spread_rounds(static_cast<int>(group.size())) + 2;
}

// Formula estimates (the plan above kAllgatherSimulatedProcs ranks), b the
// mean block in bytes: ring (n−1)(α + bβ), Bruck ⌈log2 n⌉α + (n−1)bβ,
// a fold into n − 1 ranks max(α + (n−1)bβ, (1 + ⌈log2(n−1)⌉)(α + bβ)).
double classic_estimate(const CostModel &cost, int n, double block) {
  const double ring = (n - 1) * (cost.alpha + block * cost.beta);
  const double bruck = ceil_log2(n) * cost.alpha + (n - 1) * block * cost.beta;
  return std::min(ring, bruck);
}
double fold_estimate(const CostModel &cost, int n, double block) {
  return std::max(cost.alpha + (n - 1) * block * cost.beta, (1 + ceil_log2(n - 1)) * (cost.alpha + block * cost.beta));
}

}  // namespace

int clairvoyant_allgather_spread_rounds(int group_size) { return 1 + ceil_log2(group_size); }

std::vector<Program> build_clairvoyant_allgather(const Params &params, const ClairvoyantAllgatherPlan &plan) {
  const int procs = params.procs;
  std::vector<Program> programs = empty_programs(procs);
  if (total(params) == 0) return programs;
  const int folded = std::clamp(plan.folded, 0, procs - 1);
  if (folded == 0) return every_rank(params, builder_named(kClassic, plan.group_shape).build);  // classic, rank order
  const std::vector<int> order = arrival_order(params);
  std::vector<int> group(order.begin(), order.end() - folded);
  const std::vector<int> early = group;
  int next_round = 0;
  for (int position = 0; position < static_cast<int>(group.size()); ++position) {
    Program &program = programs[static_cast<std::size_t>(group[static_cast<std::size_t>(position)])];
    next_round = plan.group_shape == "bruck" ? append_bruck_allgather_over(program, params, group, position, 0)
                                             : append_ring_allgather_over(program, params, group, position, 0);
  }
  for (int j = 0; j < folded; ++j) {
    const int late = order[static_cast<std::size_t>(procs - folded + j)];
    const int source = early[static_cast<std::size_t>(j) % early.size()];
    next_round = append_fold(programs, params, group, late, source, next_round + 1);
    group.push_back(late);
  }
  return programs;
}

ClairvoyantAllgatherPlan plan_clairvoyant_allgather(const Params &params) {
  const int procs = params.procs;
  ClairvoyantAllgatherPlan best{0, "ring", std::numeric_limits<double>::infinity()};
  if (procs < 2 || total(params) == 0) return best;
  const bool has_pats = params.arrivals.size() == static_cast<std::size_t>(procs);
  if (procs > kAllgatherSimulatedProcs) {
    const double block = static_cast<double>(total(params)) * static_cast<double>(params.element_bytes) / procs;
    const CostModel &cost = params.cost;
    const double ring = (procs - 1) * (cost.alpha + block * cost.beta);
    const double bruck = ceil_log2(procs) * cost.alpha + (procs - 1) * block * cost.beta;
    best = {0, ring <= bruck ? "ring" : "bruck", std::min(ring, bruck)};
    if (has_pats) {
      const std::vector<int> order = arrival_order(params);
      const double first = params.arrivals[static_cast<std::size_t>(order[0])];
      const double last = params.arrivals[static_cast<std::size_t>(order[procs - 1])] - first;
      const double second = params.arrivals[static_cast<std::size_t>(order[procs - 2])] - first;
      best.predicted_run_time += last;
      const double fold = std::max(second + classic_estimate(cost, procs - 1, block), last) +
                          fold_estimate(cost, procs, block);
      const double ring_group = (procs - 2) * (cost.alpha + block * cost.beta);
      const double bruck_group = ceil_log2(procs - 1) * cost.alpha + (procs - 2) * block * cost.beta;
      if (fold < best.predicted_run_time * (1 - 1e-9)) best = {1, ring_group <= bruck_group ? "ring" : "bruck", fold};
    }
    return best;
  }
  auto consider = [&](ClairvoyantAllgatherPlan plan) {
    plan.predicted_run_time = simulated_run_time(params, build_clairvoyant_allgather(params, plan));
    // A candidate must win by more than rounding noise to replace an earlier one.
    const double margin = std::isfinite(best.predicted_run_time) ? 1e-9 * best.predicted_run_time : 0.0;
    if (plan.predicted_run_time < best.predicted_run_time - margin) best = plan;
  };
  for (const NamedBuilder &shape : kClassic)
    if (classic_applies(shape, procs)) consider({0, shape.name, 0});
  if (!has_pats) return best;
  for (int folded = 1; folded <= std::min(procs - 1, kAllgatherMaxFolded); ++folded)
    for (std::string_view shape : {"ring", "bruck"}) consider({folded, shape, 0});
  return best;
}

std::vector<Program> allgather_clairvoyant(const Params &params) {
  return build_clairvoyant_allgather(params, plan_clairvoyant_allgather(params));
}

// One rank's Program: the plan needs every rank's Programs (it simulates
// them), so the last call's are kept per thread and reused when the next
// call has the same inputs (every rank of one call in the simulator, the
// validator and the tests; one call per process on the MPI path).
Program allgather_clairvoyant_rank(const Params &params, int rank) {
  struct Last {
    bool valid = false;
    Params params;
    std::vector<Program> programs;
  };
  thread_local Last last;
  auto same = [](const Params &a, const Params &b) {
    return a.collective == b.collective && a.procs == b.procs && a.count == b.count && a.counts == b.counts &&
           a.element_bytes == b.element_bytes && a.arrivals == b.arrivals && a.cost.alpha == b.cost.alpha &&
           a.cost.beta == b.cost.beta && a.cost.gamma == b.cost.gamma;
  };
  if (!last.valid || !same(last.params, params)) {
    last.programs = allgather_clairvoyant(params);
    last.params = params;
    last.valid = true;
  }
  return last.programs.at(static_cast<std::size_t>(rank));
}

}  // namespace patcoll::core
