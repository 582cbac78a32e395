// The PAT-estimation module (core/pat.hpp): one vocabulary for the runtime,
// the shim and the builders.
#include <gtest/gtest.h>

#include <cmath>

#include "core/algorithm.hpp"
#include "core/generators/schedule.hpp"
#include "core/pat.hpp"

using namespace patcoll::core;

TEST(RuntimeArrivals, RelativeArrivalsPutTheEarliestAtZeroAndKeepDifferences) {
  const auto r = relative_arrivals({0.5, 0.2, 0.9});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(r[0], 0.3);
  EXPECT_DOUBLE_EQ(r[1], 0.0);
  EXPECT_DOUBLE_EQ(r[2], 0.7);
  EXPECT_TRUE(relative_arrivals({}).empty());
}

TEST(RuntimeArrivals, ArrivalOrderIsEarliestFirstWithTiesByRank) {
  EXPECT_EQ(arrival_order(std::vector<double>{0.3, 0.1, 0.3, 0.0}), (std::vector<int>{3, 1, 0, 2}));
}

TEST(MovingAverage, IsZeroBeforeTheFirstValueThenTheMeanOfTheLastWindowValues) {
  MovingAverage average(3);
  EXPECT_EQ(average.mean(), 0.0);
  average.record(3);
  EXPECT_DOUBLE_EQ(average.mean(), 3.0);
  for (double v : {6.0, 9.0, 12.0}) average.record(v);
  EXPECT_DOUBLE_EQ(average.mean(), 9.0);  // 6, 9, 12
  EXPECT_EQ(average.recent(), (std::vector<double>{6.0, 9.0, 12.0}));
  EXPECT_EQ(average.samples(), 4u);
}

TEST(MovingAverage, WindowBelowOneBehavesAsOne) {
  MovingAverage average(0);
  average.record(2);
  average.record(5);
  EXPECT_EQ(average.window(), 1);
  EXPECT_DOUBLE_EQ(average.mean(), 5.0);
}

namespace {
Params scheduled_params() {
  Params p;
  p.collective = Collective::reduce;
  p.procs = 8;
  p.count = 4096;
  p.element_bytes = 4;
  return p;
}
}  // namespace

TEST(RoundTime, IsAlphaPlusTheLargestSegmentTimesBetaPlusGamma) {
  Params p = scheduled_params();
  p.segment_count = 3;  // 1366, 1365, 1365 elements
  EXPECT_DOUBLE_EQ(round_time(p), p.cost.alpha + 1366.0 * 4 * (p.cost.beta + p.cost.gamma));
  EXPECT_DOUBLE_EQ(pat_quantum(p), round_time(p) / 4);
  p.segment_count = 0;  // N_opt of [M] §5.2
  const std::int64_t n_opt = optimal_segment_count(p.cost, p.procs, p.count, p.element_bytes);
  EXPECT_DOUBLE_EQ(round_time(p), p.cost.round_time(schedule_segment_bytes(p, n_opt)));
}

TEST(BuilderParams, OnlyPapAwareAlgorithmsSeeThePats) {
  Params p = scheduled_params();
  p.arrivals = {0, 1e-3, 2e-3, 0, 0, 0, 0, 5e-3};
  for (const Algorithm &a : algorithms()) {
    p.collective = a.collective;
    const Params seen = builder_params(a, p);
    if (a.capabilities & pap_aware) EXPECT_EQ(seen.arrivals.size(), 8u) << a.name;
    else EXPECT_TRUE(seen.arrivals.empty()) << a.name;
  }
}

TEST(BuilderParams, PatsAreRelativeAndQuantisedSoJitterWithinTheQuantumGivesTheSameInput) {
  Params p = scheduled_params();
  const Algorithm *clairvoyant = find_algorithm(Collective::reduce, "clairvoyant");
  ASSERT_NE(clairvoyant, nullptr);
  p.procs = 4;
  const double q = pat_quantum(p);
  ASSERT_GT(q, 0);
  p.arrivals = {10.0, 10.0 + 8 * q, 10.0 + 3 * q, 10.0};
  Params jittered = p;
  jittered.arrivals = {10.0 + 0.1 * q, 10.0 + 8.2 * q, 10.0 + 2.9 * q, 10.0};
  const Params a = builder_params(*clairvoyant, p), b = builder_params(*clairvoyant, jittered);
  EXPECT_EQ(a.arrivals, b.arrivals);
  EXPECT_DOUBLE_EQ(a.arrivals[0], 0.0);
  EXPECT_NEAR(a.arrivals[1], 8 * q, 1e-12);
}
