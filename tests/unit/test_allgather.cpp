// Named facts of the allgather builders (docs/guide/algorithms.md,
// docs/results/allgather.md): round counts of the classic algorithms, the
// even-P restriction of neighbor_exchange, and the clairvoyant allgather's
// plan and simulated time against the bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/algorithm.hpp"
#include "core/bound.hpp"
#include "core/builders/allgather.hpp"
#include "core/cost.hpp"
#include "core/layout.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"
#include "program_steps.hpp"

using namespace patcoll::core;

namespace {

Params allgather_params(int procs, std::int64_t count) {
  Params p;
  p.collective = Collective::allgather;
  p.procs = procs;
  p.count = count;
  p.element_bytes = 1;
  return p;
}

const Algorithm &named(const char *name) { return *find_algorithm(Collective::allgather, name); }

// The bound of docs/results/allgather.md (core/bound.hpp) under the model.
double model_bound(const Params &p) { return bound(p, BoundCost::model(p.cost))->run_time; }

}  // namespace

TEST(Allgather, RingTakesPMinusOneSteps) {
  for (int procs : {2, 3, 5, 8, 13}) EXPECT_EQ(most_steps(named("ring"), allgather_params(procs, 100)), procs - 1) << procs;
}

TEST(Allgather, BruckTakesCeilLog2PRoundsForAnyP) {
  for (int procs : {2, 3, 5, 7, 8, 12, 33})
    EXPECT_EQ(most_steps(named("bruck"), allgather_params(procs, 100)), ceil_log2(procs)) << procs;
}

TEST(Allgather, RecursiveDoublingTakesLog2PRoundsAndTwoMoreBeyondAPowerOfTwo) {
  for (int procs : {2, 4, 8, 16}) EXPECT_EQ(most_steps(named("recursive_doubling"), allgather_params(procs, 64)), ceil_log2(procs)) << procs;
  // P = 6: the fold, log2 4 = 2 exchanges, the unfold.
  EXPECT_EQ(most_steps(named("recursive_doubling"), allgather_params(6, 64)), 4);
}

TEST(Allgather, NeighborExchangeTakesPOverTwoStepsAndNeedsAnEvenP) {
  for (int procs : {2, 4, 6, 10}) EXPECT_EQ(most_steps(named("neighbor_exchange"), allgather_params(procs, 10)), procs / 2) << procs;
  for (int procs : {1, 3, 5, 7}) EXPECT_NE(unsupported_reason(named("neighbor_exchange"), allgather_params(procs, 10)), "") << procs;
  EXPECT_EQ(unsupported_reason(named("neighbor_exchange"), allgather_params(8, 10)), "");
  EXPECT_EQ(restrictions_to_string(named("neighbor_exchange").restrictions), "even_procs");
}

TEST(Allgather, AllgathervRowsAreTheAllgatherBuilders) {
  for (const Algorithm &a : algorithms()) {
    if (a.collective != Collective::allgather) continue;
    const Algorithm *v = find_algorithm(Collective::allgatherv, a.name);
    ASSERT_NE(v, nullptr) << a.name;
    EXPECT_EQ(v->build_rank, a.build_rank) << a.name;
    EXPECT_EQ(v->restrictions, a.restrictions) << a.name;
    EXPECT_EQ(v->capabilities, a.capabilities) << a.name;
  }
}

TEST(Allgather, ClairvoyantWithoutPatsIsAClassicAlgorithmTheSameEverywhere) {
  const Params p = allgather_params(12, 4096);
  const ClairvoyantAllgatherPlan plan = plan_clairvoyant_allgather(p);
  EXPECT_EQ(plan.folded, 0);
  const Algorithm *classic = find_algorithm(Collective::allgather, plan.group_shape);
  ASSERT_NE(classic, nullptr);
  EXPECT_EQ(allgather_clairvoyant(p), build_all(*classic, p));
}

TEST(Allgather, ClairvoyantSpreadTakesOnePlusCeilLog2OfTheGroupRounds) {
  EXPECT_EQ(clairvoyant_allgather_spread_rounds(7), 4);   // P = 8
  EXPECT_EQ(clairvoyant_allgather_spread_rounds(47), 7);  // P = 48
  EXPECT_EQ(clairvoyant_allgather_spread_rounds(1), 1);   // P = 2
  // In the simulator, with one late rank and large blocks, the early
  // ranks other than the source leave exactly that many block transfers
  // after the late arrival.
  Params p = allgather_params(8, 1 << 16);
  p.arrivals = {0, 0, 0, 0, 0, 0, 0, 0.05};
  const SimulateResult r = simulate(p, allgather_clairvoyant(p));
  ASSERT_EQ(r.error, "");
  const double round = p.cost.transfer_time(1 << 16);
  int early_leavers = 0;
  for (int rank = 0; rank < 7; ++rank)
    if (r.exit[static_cast<std::size_t>(rank)] <= 0.05 + 4 * round * (1 + 1e-9)) ++early_leavers;
  EXPECT_EQ(early_leavers, 6);  // all but the source, which sends the late rank the bulk
}

// One rank late by D = the balanced time of the best classic: the plan
// folds it, the simulated run time is within 1.15× the bound (P = 8, the
// worked example of docs/results/allgather.md, and P = 48) and below every
// classic algorithm's on the same arrivals.
TEST(Allgather, ClairvoyantWithOneLateRankFinishesWithinTheBound) {
  for (int procs : {8, 48}) {
    Params p = allgather_params(procs, (4 << 20) / procs);
    double balanced = INFINITY;
    for (const char *name : {"ring", "recursive_doubling", "bruck", "neighbor_exchange"})
      if (unsupported_reason(named(name), p).empty()) balanced = std::min(balanced, simulate(named(name), p).run_time);
    p.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
    p.arrivals[static_cast<std::size_t>(procs - 1)] = balanced;
    const ClairvoyantAllgatherPlan plan = plan_clairvoyant_allgather(p);
    EXPECT_GE(plan.folded, 1) << procs;
    const SimulateResult result = simulate(p, allgather_clairvoyant(p));
    ASSERT_EQ(result.error, "");
    const double bound = model_bound(p);
    for (const char *name : {"ring", "recursive_doubling", "bruck", "neighbor_exchange"})
      if (unsupported_reason(named(name), p).empty())
        EXPECT_LT(result.run_time, simulate(named(name), p).run_time) << procs << " " << name;
    EXPECT_LE(result.run_time, 1.15 * bound) << "P = " << procs << ": " << result.run_time << " s against the bound "
                                             << bound << " s";
    EXPECT_GE(result.run_time, bound * (1 - 1e-9)) << procs;  // a bound: nothing beats it
  }
}

// Wrong PATs cost time, never correctness: a plan made for rank 0 late is
// proved by the validator (which ignores time) and completes in the
// simulator when rank 5 is the late one instead.
TEST(Allgather, ClairvoyantWithWrongPatsIsCorrect) {
  Params planned = allgather_params(8, 1 << 16);
  planned.arrivals = {1e-2, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<Program> programs = allgather_clairvoyant(planned);
  EXPECT_EQ(validate_all_modes(planned, programs), "");
  Params actual = planned;
  actual.arrivals = {0, 0, 0, 0, 0, 1e-2, 0, 0};
  EXPECT_EQ(simulate(actual, programs).error, "");
}

TEST(Allgather, ClairvoyantAllgathervFoldsZeroAndUnequalBlocks) {
  Params p = allgather_params(7, 0);
  p.collective = Collective::allgatherv;
  p.counts = {5, 0, 9, 1, 0, 300, 2};
  p.arrivals = {0, 0, 0, 0, 0, 0, 1e-3};
  EXPECT_EQ(validate_all_modes(p, allgather_clairvoyant(p)), "");
  p.arrivals = {0, 1e-3, 0, 0, 0, 0, 0};  // the late rank's block is empty
  EXPECT_EQ(validate_all_modes(p, allgather_clairvoyant(p)), "");
}

// D + max(α + ((P−1)/P)mβ, ⌈log2 P⌉α + (m/P)β): the late receive for large
// blocks, the spread for small ones; allgatherv takes the late rank's own
// block (its receive is everything else).
TEST(Allgather, BoundIsTheLateReceiveOrTheSpreadOfTheLateBlock) {
  Params p = allgather_params(8, 1 << 20);
  p.arrivals = {0, 0, 0, 0, 0, 0, 0, 0.5};
  const double alpha = p.cost.alpha, beta = p.cost.beta, m = 8.0 * (1 << 20);
  EXPECT_DOUBLE_EQ(model_bound(p), 0.5 + alpha + 7.0 / 8 * m * beta);
  p.count = 1;  // 8 bytes in all: 3 rounds of α dominate
  EXPECT_DOUBLE_EQ(model_bound(p), 0.5 + 3 * alpha + 1 * beta);
  p.collective = Collective::allgatherv;
  p.counts = {1000, 0, 0, 0, 0, 0, 0, 5000};
  EXPECT_DOUBLE_EQ(model_bound(p), 0.5 + std::max(alpha + 1000 * beta, 3 * alpha + 5000 * beta));
  p.arrivals.clear();  // balanced: the same from time 0 for the last rank (every rank ties)
  EXPECT_GT(model_bound(p), 0);
}
