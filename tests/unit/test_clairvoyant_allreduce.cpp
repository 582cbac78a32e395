// Facts of allreduce/clairvoyant (docs/clairvoyant-allreduce.md): the fold
// is proved correct by the validator for every plan shape, P, count and PAT
// vector (right or wrong); balanced PATs give the best classic algorithm
// itself; one late rank is folded in at about one m-byte transfer after it
// arrives (model facts, simulated — never wall-clock timings).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/algorithm.hpp"
#include "core/builders/pap.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

Params allreduce_params(int procs, std::int64_t count) {
  Params p;
  p.collective = Collective::allreduce;
  p.procs = procs;
  p.count = count;
  return p;
}

// [PA]-like cluster: 1 Gbit/s Ethernet (β = 8 ns/B), 50 µs latency,
// γ = 0.2 ns/B; 1 M floats.
Params pa_cluster(int procs) {
  Params p = allreduce_params(procs, 1 << 20);
  p.cost = CostModel{50e-6, 8e-9, 0.2e-9};
  return p;
}

std::vector<Program> build(const char *name, const Params &p) {
  return build_all(*find_algorithm(Collective::allreduce, name), p);
}

double run_time(const char *name, const Params &p) { return simulate(*find_algorithm(Collective::allreduce, name), p).run_time; }

std::vector<double> one_late(int procs, int late, double delay) {
  std::vector<double> pats(procs, 0.0);
  pats[late] = delay;
  return pats;
}

TEST(AllreduceClairvoyant, EveryFoldPlanIsProvedCorrectForAnyPCountAndPats) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> delay(0.0, 1e-2);
  for (int procs = 2; procs <= 19; ++procs)
    for (std::int64_t count : {std::int64_t{1}, std::int64_t{procs - 1}, std::int64_t{procs + 3}, std::int64_t{211}}) {
      Params p = allreduce_params(procs, count);
      p.arrivals.resize(procs);
      for (double &a : p.arrivals) a = delay(rng);
      for (int folded = 1; folded <= std::min(procs - 1, kMaxFolded); ++folded)
        for (const char *shape : {"ring", "rabenseifner", "recursive_doubling"})
          for (std::int64_t segments : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{1000}}) {
            const ClairvoyantAllreducePlan plan{folded, shape, segments, 0};
            const std::string error = validate_all_modes(p, build_clairvoyant_allreduce(p, plan));
            ASSERT_EQ(error, "") << "P=" << procs << " count=" << count << " folded=" << folded << " " << shape
                                 << " segments=" << segments;
          }
    }
}

TEST(AllreduceClairvoyant, ChosenPlanIsProvedCorrectForOneTwoAndThreeLateRanks) {
  for (int procs : {1, 2, 3, 5, 8, 13, 16}) {
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{procs + 1}, std::int64_t{4096}}) {
      for (int late = 0; late < procs; late += 3) {
        Params p = allreduce_params(procs, count);
        p.arrivals = one_late(procs, late, 1.0);
        if (procs > 2) p.arrivals[(late + 1) % procs] = 0.5;
        if (procs > 3) p.arrivals[(late + 2) % procs] = 0.25;
        ASSERT_EQ(validate_all_modes(p, build("clairvoyant", p)), "") << "P=" << procs << " count=" << count;
      }
    }
  }
}

TEST(AllreduceClairvoyant, OneVeryLateRankIsFoldedAlone) {
  Params p = pa_cluster(16);
  p.arrivals = one_late(16, 5, 1.0);
  const ClairvoyantAllreducePlan plan = plan_clairvoyant_allreduce(p);
  EXPECT_EQ(plan.folded, 1);
}

TEST(AllreduceClairvoyant, FoldStreamsTheLateVectorDownTheChainAndTheGroupSumBack) {
  // P = 4, rank 2 late: group (0, 1, 3) in arrival order, N = 3 segments.
  Params p = allreduce_params(4, 30);
  p.arrivals = {0.0, 1e-3, 1.0, 2e-3};
  const auto programs = build_clairvoyant_allreduce(p, {1, "ring", 3, 0});
  auto sends_to = [&](int rank, int peer) {
    int n = 0;
    for (const Step &step : programs[rank].steps)
      for (const Op &op : step.ops) n += op.kind == OpKind::send && op.peer == peer;
    return n;
  };
  EXPECT_EQ(sends_to(2, 0), 3);  // L → g_0, one message per segment
  EXPECT_EQ(sends_to(0, 1), 4 + 3);  // ring among the group (2 + 2 steps), then the chain (3)
  EXPECT_EQ(sends_to(1, 3), 4 + 3);
  EXPECT_EQ(sends_to(3, 2), 3);  // g_{n-1} → L: S_G, one message per segment
  EXPECT_EQ(message_count(programs[2]), 3);
}

TEST(AllreduceClairvoyant, WithoutOrWithEqualPatsIsTheBestClassicAlgorithmItself) {
  for (int procs : {2, 3, 7, 8, 16, 48}) {
    for (std::int64_t count : {std::int64_t{16}, std::int64_t{1} << 20}) {
      for (bool equal_pats : {false, true}) {
        Params p = pa_cluster(procs);
        p.count = count;
        if (equal_pats) p.arrivals.assign(procs, 0.25);
        const auto chosen = build("clairvoyant", p);
        const double best_classic =
            std::min({run_time("ring", p), run_time("rabenseifner", p), run_time("recursive_doubling", p)});
        EXPECT_TRUE(chosen == build("ring", p) || chosen == build("rabenseifner", p) ||
                    chosen == build("recursive_doubling", p))
            << "P=" << procs;
        EXPECT_DOUBLE_EQ(simulate(p, chosen).run_time, best_classic) << "P=" << procs << " count=" << count;
      }
    }
  }
}

TEST(AllreduceClairvoyant, WrongPatsOnlyCostTime) {
  // Folded for rank 3 late, run with rank 0 late: still correct and deadlock-free.
  Params predicted = pa_cluster(8);
  predicted.count = 4096;
  predicted.arrivals = one_late(8, 3, 0.1);
  const auto programs = build_clairvoyant_allreduce(predicted, {1, "ring", 0, 0});
  ASSERT_EQ(validate_all_modes(predicted, programs), "");
  Params actual = predicted;
  actual.arrivals = one_late(8, 0, 0.1);
  const SimulateResult result = simulate(actual, programs);
  EXPECT_EQ(result.error, "");
  EXPECT_GT(result.run_time, simulate(predicted, programs).run_time);
}

TEST(AllreduceClairvoyant, AboveSixtyFourRanksThePlanComesFromFormulas) {
  Params p = pa_cluster(100);  // not a power of two: rabenseifner pays its fix-up
  EXPECT_EQ(plan_clairvoyant_allreduce(p).folded, 0);
  EXPECT_EQ(plan_clairvoyant_allreduce(p).group_shape, "ring");
  p.arrivals = one_late(100, 7, 1.0);
  EXPECT_EQ(plan_clairvoyant_allreduce(p).folded, 1);
  p.arrivals = one_late(100, 7, 1e-4);  // less than the group's allreduce: not worth a fold
  EXPECT_EQ(plan_clairvoyant_allreduce(p).folded, 0);
  p.count = 300;
  p.arrivals = one_late(100, 7, 1.0);
  EXPECT_EQ(validate_all_modes(p, build("clairvoyant", p)), "");
}

TEST(AllreduceClairvoyant, NonCommutativeOpsAreRefused) {
  Params p = allreduce_params(4, 8);
  p.commutative = false;
  EXPECT_NE(unsupported_reason(*find_algorithm(Collective::allreduce, "clairvoyant"), p), "");
}

// One late rank on the [PA]-like cluster model, 48 ranks, 1 M floats, late
// by the balanced ring time: after it arrives the fold costs its pipeline,
// (N + n − 1)(α + (m/N)(β+γ)) = m(β+γ) + 2·sqrt((n−1)m(β+γ)α) + (n−1)α at
// the optimal N (docs/clairvoyant-allreduce.md), instead of the ring's
// ~2m(β+γ); the group's own allreduce is hidden in the delay.
TEST(AllreduceClairvoyant, OneLateRankIsFoldedInOneTransferPlusThePipelineFill) {
  Params p = pa_cluster(48);
  const double ring_balanced = run_time("ring", p);
  p.arrivals = one_late(48, 1, ring_balanced);
  ASSERT_EQ(plan_clairvoyant_allreduce(p).folded, 1);
  const double bytes = static_cast<double>(p.count * p.element_bytes);
  const double transfer = bytes * (p.cost.beta + p.cost.gamma), alpha = p.cost.alpha;
  const double pipeline = transfer + 2 * std::sqrt(46 * transfer * alpha) + 46 * alpha;
  const double after_last = run_time("clairvoyant", p) - ring_balanced;
  EXPECT_LE(after_last, 1.01 * pipeline);
  EXPECT_LE(after_last, 0.85 * ring_balanced);
  EXPECT_GE(run_time("ring", p) / run_time("clairvoyant", p), 1.1);
}

}  // namespace
