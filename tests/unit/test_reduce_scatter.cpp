// Named facts of the reduce-scatter builders (docs/guide/algorithms.md,
// docs/results/reduce-scatter.md): round and message counts of the classic
// algorithms, which ops they take, the bound, and the clairvoyant
// reduce-scatter's plan, its folds and its simulated time against the
// bound (the late rank off the critical path).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/algorithm.hpp"
#include "core/bound.hpp"
#include "core/builders/reduce_scatter.hpp"
#include "core/cost.hpp"
#include "core/layout.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"
#include "program_steps.hpp"

using namespace patcoll::core;

namespace {

Params block_params(int procs, std::int64_t count) {
  Params p;
  p.collective = Collective::reduce_scatter_block;
  p.procs = procs;
  p.count = count;
  p.element_bytes = 4;
  return p;
}

std::int64_t most_messages(const Algorithm &algorithm, const Params &params) {
  std::int64_t most = 0;
  for (const Program &program : build_all(algorithm, params)) most = std::max(most, message_count(program));
  return most;
}

const Algorithm &named(const char *name, Collective c = Collective::reduce_scatter_block) {
  return *find_algorithm(c, name);
}

double model_bound(const Params &p) { return bound(p, BoundCost::model(p.cost))->run_time; }

constexpr const char *kClassic[] = {"ring", "recursive_halving", "pairwise"};

}  // namespace

TEST(ReduceScatter, RingAndPairwiseTakePMinusOneStepsOfOneBlockEach) {
  for (int procs : {2, 3, 5, 8, 13}) {
    const Params p = block_params(procs, 100);
    for (const char *name : {"ring", "pairwise"}) {
      EXPECT_EQ(most_steps(named(name), p), procs - 1) << name << " " << procs;
      for (const Program &program : build_all(named(name), p))
        EXPECT_EQ(elements_sent(program), (procs - 1) * 100) << name << " " << procs;
    }
  }
}

// log2 P halving rounds and one round that moves every block to its rank
// (at P = 2 each rank's half is its block: no such round); beyond a power
// of two P' the fold before it: ⌊log2 P⌋ + 2 = ⌈log2 P⌉ + 1.
TEST(ReduceScatter, RecursiveHalvingTakesLog2PRoundsPlusTheBlockScatter) {
  EXPECT_EQ(most_steps(named("recursive_halving"), block_params(2, 100)), 1);
  for (int procs : {4, 8, 16, 32}) EXPECT_EQ(most_steps(named("recursive_halving"), block_params(procs, 100)), ceil_log2(procs) + 1) << procs;
  for (int procs : {3, 5, 6, 12, 33})
    EXPECT_EQ(most_steps(named("recursive_halving"), block_params(procs, 100)), ceil_log2(procs) + 1) << procs;
  // Equal blocks over a power of two: every rank's slice is one rank's
  // block, so the scatter round is one message per rank at most.
  EXPECT_LE(most_messages(named("recursive_halving"), block_params(16, 100)), 4 + 1);
}

TEST(ReduceScatter, RecursiveHalvingReducesNonCommutativeOpsInRankOrderTheOthersRefuseThem) {
  Params p = block_params(6, 10);
  p.commutative = false;
  EXPECT_EQ(unsupported_reason(named("recursive_halving"), p), "");
  EXPECT_EQ(validate_all_modes(p, build_all(named("recursive_halving"), p)), "");
  for (const char *name : {"ring", "pairwise", "clairvoyant"}) EXPECT_NE(unsupported_reason(named(name), p), "") << name;
  // The validator catches a combine out of rank order: the ring's
  // wrap-around is one.
  EXPECT_NE(validate(p, build_all(named("ring"), p)), "");
}

TEST(ReduceScatter, TheVFormRowsAreTheBlockFormBuilders) {
  for (const Algorithm &a : algorithms()) {
    if (a.collective != Collective::reduce_scatter) continue;
    const Algorithm *block = find_algorithm(Collective::reduce_scatter_block, a.name);
    ASSERT_NE(block, nullptr) << a.name;
    EXPECT_EQ(block->build_rank, a.build_rank) << a.name;
  }
}

TEST(ReduceScatter, ClairvoyantWithoutPatsIsAClassicAlgorithmTheSameEverywhere) {
  const Params p = block_params(12, 1000);
  const ClairvoyantReduceScatterPlan plan = plan_clairvoyant_reduce_scatter(p);
  EXPECT_EQ(plan.folded, 0);
  const std::vector<Program> all = reduce_scatter_clairvoyant(p);
  for (int r = 0; r < p.procs; ++r) EXPECT_EQ(to_json(reduce_scatter_clairvoyant_rank(p, r)), to_json(all[static_cast<std::size_t>(r)]));
  const std::vector<Program> classic = build_all(named(std::string(plan.group_shape).c_str()), p);
  EXPECT_EQ(to_json(all), to_json(classic));
}

// Every fold count, zero and unequal blocks (the late ranks' among them),
// and wrong PATs: proved by the validator in both modes.
TEST(ReduceScatter, ClairvoyantFoldsAreCorrectForEveryFoldCountAndBlockShape) {
  Params p = block_params(7, 0);
  p.collective = Collective::reduce_scatter;
  for (const std::vector<std::int64_t> &counts :
       {std::vector<std::int64_t>{5, 0, 9, 1, 0, 300, 2}, std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 4},
        std::vector<std::int64_t>{3, 3, 3, 3, 3, 3, 3}}) {
    p.counts = counts;
    p.arrivals = {0, 3e-3, 0, 0, 1e-3, 0, 2e-3};
    for (int folded = 1; folded <= kReduceScatterMaxFolded; ++folded)
      EXPECT_EQ(validate_all_modes(p, build_clairvoyant_reduce_scatter(p, {folded, "ring", 0})), "") << folded;
  }
}

TEST(ReduceScatter, ClairvoyantWithWrongPatsIsCorrect) {
  Params planned = block_params(8, 1 << 14);
  planned.arrivals = {1e-2, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<Program> programs = reduce_scatter_clairvoyant(planned);
  EXPECT_GE(plan_clairvoyant_reduce_scatter(planned).folded, 1);
  EXPECT_EQ(validate_all_modes(planned, programs), "");
  Params actual = planned;
  actual.arrivals = {0, 0, 0, 0, 0, 1e-2, 0, 0};
  EXPECT_EQ(simulate(actual, programs).error, "");
}

// One rank late by D = the balanced time of the best classic (4 MiB per
// rank): the plan folds it, and the fold keeps it off the critical path —
// the run ends within 1.1× the bound D + α + ((P−1)/P)mβ (the late rank's
// own sends), below every classic algorithm's time on the same arrivals;
// the early ranks leave sooner on average than with the best classic.
TEST(ReduceScatter, ClairvoyantFoldKeepsTheLateRankOffTheCriticalPath) {
  for (int procs : {8, 48}) {
    Params p = block_params(procs, (1 << 20) / procs);
    double balanced = INFINITY;
    for (const char *name : kClassic) balanced = std::min(balanced, simulate(named(name), p).run_time);
    p.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
    p.arrivals[static_cast<std::size_t>(procs / 2)] = balanced;
    const ClairvoyantReduceScatterPlan plan = plan_clairvoyant_reduce_scatter(p);
    EXPECT_GE(plan.folded, 1) << procs;
    const SimulateResult result = simulate(p, reduce_scatter_clairvoyant(p));
    ASSERT_EQ(result.error, "");
    const double bound = model_bound(p);
    double best_classic = INFINITY, best_classic_elapsed = INFINITY;
    for (const char *name : kClassic) {
      const SimulateResult classic = simulate(named(name), p);
      EXPECT_LT(result.run_time, classic.run_time) << procs << " " << name;
      if (classic.run_time < best_classic) best_classic = classic.run_time, best_classic_elapsed = classic.average_elapsed;
    }
    EXPECT_LE(result.run_time, 1.1 * bound) << "P = " << procs << ": " << result.run_time << " s against the bound " << bound;
    EXPECT_GE(result.run_time, bound * (1 - 1e-9)) << procs;
    EXPECT_LT(result.average_elapsed, best_classic_elapsed) << procs;
    // The late rank's time in the collective is its own part: at most
    // 1.1× its sends of (P−1)/P of its vector (and one block's combine).
    const double own = p.cost.transfer_time(static_cast<double>(total(p) - p.count) * 4.0);
    const double late_elapsed = result.exit[static_cast<std::size_t>(procs / 2)] - balanced;
    EXPECT_LE(late_elapsed, 1.1 * own + p.cost.gamma * p.count * 4.0) << procs;
  }
}

// D + α + ((P−1)/P)mβ for one late rank (its sends), the larger of the
// send and the receive otherwise; each rank waits at least for the last
// other rank's part of its block.
TEST(ReduceScatter, BoundIsTheLateRanksSendsOrItsBlocksReceive) {
  EXPECT_TRUE(has_bound(Collective::reduce_scatter_block));
  EXPECT_TRUE(has_bound(Collective::reduce_scatter));
  Params p = block_params(8, 1 << 17);
  const double alpha = p.cost.alpha, beta = p.cost.beta, m = 8.0 * (1 << 17) * 4;
  p.arrivals = {0, 0, 0, 0, 0, 0, 0, 0.5};
  EXPECT_DOUBLE_EQ(model_bound(p), 0.5 + alpha + 7.0 / 8 * m * beta);
  p.arrivals.clear();  // balanced: the sends from time 0
  EXPECT_DOUBLE_EQ(model_bound(p), alpha + 7.0 / 8 * m * beta);
  p.collective = Collective::reduce_scatter;  // a block larger than the rest: its receive
  p.counts = {100, 0, 0, 0, 0, 0, 0, 5000};
  p.arrivals = {0, 0, 0, 0, 0, 0, 0, 0.5};
  EXPECT_DOUBLE_EQ(model_bound(p), 0.5 + alpha + 5000 * 4 * beta);
  p.arrivals = {0.5, 0, 0, 0, 0, 0, 0, 0};  // rank 7 waits for rank 0's part of its block
  EXPECT_DOUBLE_EQ(model_bound(p), 0.5 + alpha + 5000 * 4 * beta);
  p = block_params(1, 1000);
  EXPECT_DOUBLE_EQ(model_bound(p), 0);
  p = block_params(8, 0);
  EXPECT_DOUBLE_EQ(model_bound(p), 0);
  EXPECT_EQ(bound_probe_elements(block_params(8, 100)), 700);
}
