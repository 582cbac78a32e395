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
//      of consecutive ranks) while L's block spreads down a binomial tree
//      over [L, G − S, S] rooted at L — L sends it in every round, each
//      member that has it forwards it, S is the last leaf so its send port
//      serves the bulk alone. Both happen at once: L's receive port takes
//      the bulk, the others' ports the spread. L then joins G.
// After L arrives a fold costs max(α + ((P−1)/P)mβ, ⌈log2 P⌉(α + (m/P)β))
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

namespace patcoll::core {
namespace {

struct Classic {
  std::string_view name;
  BuildRank build;
};
constexpr Classic kClassic[] = {
    {"ring", allgather_ring},
    {"recursive_doubling", allgather_recursive_doubling},
    {"bruck", allgather_bruck},
    {"neighbor_exchange", allgather_neighbor_exchange},
};

const Classic &classic_named(std::string_view name) {
  for (const Classic &c : kClassic)
    if (c.name == name) return c;
  return kClassic[0];
}

bool classic_applies(const Classic &c, int procs) { return c.name != "neighbor_exchange" || procs % 2 == 0; }

int highest_bit(int value) {
  int bit = 1;
  while (bit * 2 <= value) bit *= 2;
  return bit;
}

// Fold of `late` into `group` from `source`; rounds from `first_round`,
// returns the round after the fold's last.
int append_fold(std::vector<Program> &programs, const Params &params, const std::vector<int> &group, int late,
                int source, int first_round) {
  const std::vector<Region> bulk = block_runs(params, group);
  std::vector<int> tree{late};
  for (int rank : group)
    if (rank != source) tree.push_back(rank);
  tree.push_back(source);
  const int nodes = static_cast<int>(tree.size());
  const Region block = own_block(params, late);
  std::vector<Op> root = own_block_copy(params, late);
  for (const Region &run : bulk) root.push_back(recv_op(source, run, Combine::store));
  if (block.count > 0)
    for (int child = 1; child < nodes; child *= 2) root.push_back(send_op(tree[static_cast<std::size_t>(child)], block));
  add_step(programs[static_cast<std::size_t>(late)], std::move(root), first_round);
  for (int v = 1; v < nodes; ++v) {
    Program &program = programs[static_cast<std::size_t>(tree[static_cast<std::size_t>(v)])];
    const int parent_distance = highest_bit(v), level = ceil_log2(parent_distance) + 1;
    std::vector<Op> ops;
    if (tree[static_cast<std::size_t>(v)] == source)
      for (const Region &run : bulk) ops.push_back(send_op(late, run));
    if (block.count > 0) ops.push_back(recv_op(tree[static_cast<std::size_t>(v - parent_distance)], block, Combine::store));
    add_step(program, std::move(ops), first_round + level);
    std::vector<Op> forwards;
    if (block.count > 0)
      for (int distance = 2 * parent_distance; v + distance < nodes; distance *= 2)
        forwards.push_back(send_op(tree[static_cast<std::size_t>(v + distance)], block));
    add_step(program, std::move(forwards), first_round + level + 1);
  }
  return first_round + ceil_log2(nodes) + 2;
}

double simulated_run_time(const Params &params, const std::vector<Program> &programs) {
  const SimulateResult result = simulate(params, programs);
  return result.error.empty() ? result.run_time : std::numeric_limits<double>::infinity();
}

// Formula estimates (the plan above kAllgatherSimulatedProcs ranks), b the
// mean block in bytes: ring (n−1)(α + bβ), Bruck ⌈log2 n⌉α + (n−1)bβ,
// a fold into n − 1 ranks max(α + (n−1)bβ, ⌈log2 n⌉(α + bβ)).
double classic_estimate(const CostModel &cost, int n, double block) {
  const double ring = (n - 1) * (cost.alpha + block * cost.beta);
  const double bruck = ceil_log2(n) * cost.alpha + (n - 1) * block * cost.beta;
  return std::min(ring, bruck);
}
double fold_estimate(const CostModel &cost, int n, double block) {
  return std::max(cost.alpha + (n - 1) * block * cost.beta, ceil_log2(n) * (cost.alpha + block * cost.beta));
}

}  // namespace

int clairvoyant_allgather_spread_rounds(int group_size) { return ceil_log2(group_size + 1); }

std::vector<Program> build_clairvoyant_allgather(const Params &params, const ClairvoyantAllgatherPlan &plan) {
  const int procs = params.procs;
  std::vector<Program> programs;
  for (int r = 0; r < procs; ++r) programs.push_back(Program{r, procs, 0, {}});
  if (total(params) == 0) return programs;
  const int folded = std::clamp(plan.folded, 0, procs - 1);
  if (folded == 0) {  // the classic algorithm itself, rank order
    const Classic &shape = classic_named(plan.group_shape);
    for (int r = 0; r < procs; ++r) programs[static_cast<std::size_t>(r)] = shape.build(params, r);
    return programs;
  }
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
  for (const Classic &shape : kClassic)
    if (classic_applies(shape, procs)) consider({0, shape.name, 0});
  if (!has_pats) return best;
  for (int folded = 1; folded <= std::min(procs - 1, kAllgatherMaxFolded); ++folded)
    for (std::string_view shape : {"ring", "bruck"}) consider({folded, shape, 0});
  return best;
}

std::vector<Program> allgather_clairvoyant(const Params &params) {
  return build_clairvoyant_allgather(params, plan_clairvoyant_allgather(params));
}

Program allgather_clairvoyant_rank(const Params &params, int rank) {
  return allgather_clairvoyant(params).at(static_cast<std::size_t>(rank));
}

}  // namespace patcoll::core
