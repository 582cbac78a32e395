// core/bound.hpp, fact by fact (the proofs: docs/results/bounds.md).
#include <gtest/gtest.h>

#include <random>

#include "core/bound.hpp"
#include "core/simulate.hpp"

using namespace patcoll::core;

namespace {

// α = 1, β = 0.01 s/B, γ = 0.001 s/B, 100 4-byte elements: a transfer of the
// message costs α + βm = 5, its combine γm = 0.4.
Params model(Collective collective, std::vector<double> arrivals) {
  Params params;
  params.collective = collective;
  params.procs = static_cast<int>(arrivals.size());
  params.count = 100;
  params.element_bytes = 4;
  params.cost = CostModel{1.0, 0.01, 0.001};
  params.arrivals = std::move(arrivals);
  return params;
}

}  // namespace

TEST(Bound, ReduceAndAllreduceHaveOneTheOthersNot) {
  EXPECT_TRUE(has_bound(Collective::reduce));
  EXPECT_TRUE(has_bound(Collective::allreduce));
  EXPECT_TRUE(has_bound(Collective::allgather));
  EXPECT_TRUE(has_bound(Collective::allgatherv));
  EXPECT_FALSE(has_bound(Collective::scatter));
  EXPECT_FALSE(has_bound(Collective::gather));
  Params params = model(Collective::scatter, {0, 0});
  EXPECT_FALSE(bound(params, BoundCost::model(params.cost)).has_value());
}

TEST(Bound, ModelBoundIsLatestArrivalPlusOneTransferAndOneCombineOfTheMessage) {
  for (Collective collective : {Collective::reduce, Collective::allreduce}) {
    const Params params = model(collective, {3, 1, 7, 1});
    const BoundTimes times = *bound(params, BoundCost::model(params.cost));
    EXPECT_DOUBLE_EQ(times.run_time, 7 - 1 + 5.4);
    ASSERT_EQ(times.elapsed.size(), 4u);
    EXPECT_DOUBLE_EQ(times.elapsed[0], 4 + 5.4);
    EXPECT_DOUBLE_EQ(times.elapsed[2], 5.4);
    EXPECT_DOUBLE_EQ(times.average_elapsed, (4 + 6 + 0 + 6) / 4.0 + 5.4);
  }
}

TEST(Bound, BalancedWhenThereAreNoArrivals) {
  Params params = model(Collective::allreduce, {});
  params.procs = 3;
  const BoundTimes times = *bound(params, BoundCost::model(params.cost));
  EXPECT_DOUBLE_EQ(times.run_time, 5.4);
  EXPECT_DOUBLE_EQ(times.average_elapsed, 5.4);
  EXPECT_EQ(times.elapsed.size(), 3u);
}

TEST(Bound, MeasuredCostsScaleLinearlyBelowTheProbeAndStayAtTheProbeAbove) {
  const BoundCost cost = BoundCost::measured(2.0, 0.5, 400);
  EXPECT_DOUBLE_EQ(cost.transfer(400), 2.0);
  EXPECT_DOUBLE_EQ(cost.transfer(100), 0.5);
  EXPECT_DOUBLE_EQ(cost.combine(200), 0.25);
  EXPECT_DOUBLE_EQ(cost.transfer(800), 2.0);
  // A scaled α + bβ never exceeds the model's α + bβ below the probe size.
  const CostModel m{1.0, 0.01, 0.001};
  const BoundCost probed = BoundCost::measured(m.transfer_time(400), m.gamma * 400, 400);
  for (double b : {0.0, 1.0, 50.0, 399.0, 400.0}) EXPECT_LE(probed.transfer(b), m.transfer_time(b) + 1e-12);
  // A probe of 0 bytes is the cost of every size.
  EXPECT_DOUBLE_EQ(BoundCost::measured(3.0, 0, 0).transfer(0), 3.0);
}

TEST(Bound, MeasuredBoundOfTheMessageUsesTheProbesAsMeasured) {
  Params params = model(Collective::reduce, {0, 2});
  const BoundTimes times = *bound(params, BoundCost::measured(0.3, 0.1, 400));
  EXPECT_DOUBLE_EQ(times.run_time, 2.4);
  EXPECT_DOUBLE_EQ(times.average_elapsed, (2 + 0) / 2.0 + 0.4);
}
