// The history PAT source's predictor and PAT-vector construction (no MPI).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "arrival_history.hpp"

using patcoll::mpi::ArrivalHistory;
using patcoll::mpi::latest_rank;
using patcoll::mpi::mean_relative_arrivals;
using patcoll::mpi::relative_pats;

TEST(ArrivalHistory, PredictsZeroBeforeTheFirstOffset) { EXPECT_EQ(ArrivalHistory(5).predict(), 0.0); }

TEST(ArrivalHistory, PredictsTheMeanOfTheOffsetsSoFarWhileTheWindowIsNotFull) {
  ArrivalHistory h(5);
  h.record(1.0);
  h.record(3.0);
  EXPECT_DOUBLE_EQ(h.predict(), 2.0);
}

TEST(ArrivalHistory, PredictsTheMeanOfTheLastWindowOffsets) {
  ArrivalHistory h(3);
  for (double v : {100.0, 1.0, 2.0, 3.0}) h.record(v);
  EXPECT_DOUBLE_EQ(h.predict(), 2.0);
  EXPECT_EQ(h.samples(), 4u);
}

TEST(ArrivalHistory, CountsNegativeAndNonFiniteOffsetsAsZero) {
  ArrivalHistory h(2);
  h.record(-1.0);
  h.record(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(h.predict(), 0.0);
}

TEST(ArrivalHistory, WindowBelowOneBehavesAsOne) {
  ArrivalHistory h(0);
  h.record(4.0);
  h.record(6.0);
  EXPECT_DOUBLE_EQ(h.predict(), 6.0);
}

TEST(RelativePats, SubtractsTheEarliestPrediction) {
  const auto p = relative_pats({5.0, 3.0, 4.0}, 0);
  EXPECT_EQ(p, (std::vector<double>{2.0, 0.0, 1.0}));
}

TEST(RelativePats, RoundsToMultiplesOfTheQuantum) {
  const auto p = relative_pats({1.0, 1.0 + 14e-6, 1.0 + 2.06e-3}, 1e-5);
  EXPECT_DOUBLE_EQ(p[0], 0.0);
  EXPECT_NEAR(p[1], 1e-5, 1e-15);
  EXPECT_NEAR(p[2], 2.06e-3, 1e-15);
}

TEST(RelativePats, NearlyEqualPredictionsGiveTheSameVector) {
  EXPECT_EQ(relative_pats({0.0, 2.001e-3}, 1e-5), relative_pats({1e-6, 2.0025e-3}, 1e-5));
}

TEST(RelativePats, NonFiniteValuesCountAsZero) {
  const auto p = relative_pats({std::numeric_limits<double>::infinity(), 1.0}, 0);
  EXPECT_EQ(p, (std::vector<double>{0.0, 1.0}));
}

TEST(LatestRank, IsTheRankWithTheLargestPat) { EXPECT_EQ(latest_rank({0.0, 3.0, 1.0}), 1); }

TEST(LatestRank, IsMinusOneWhenAllAreEqualOrEmpty) {
  EXPECT_EQ(latest_rank({1.0, 1.0}), -1);
  EXPECT_EQ(latest_rank({}), -1);
}

TEST(ArrivalHistory, RecentListsTheWindowOldestFirst) {
  ArrivalHistory h(3);
  h.record(1.0);
  h.record(2.0);
  EXPECT_EQ(h.recent(), (std::vector<double>{1.0, 2.0}));
  h.record(3.0);
  h.record(4.0);
  EXPECT_EQ(h.recent(), (std::vector<double>{2.0, 3.0, 4.0}));
}

TEST(MeanRelativeArrivals, AveragesEachCallsArrivalsRelativeToItsEarliestRank) {
  // rank-major: rank 0 at calls {10, 20}, rank 1 at {12, 20}, rank 2 at {11, 26}
  const std::vector<double> samples{10, 20, 12, 20, 11, 26};
  const auto p = mean_relative_arrivals(samples, 3, 2);
  EXPECT_DOUBLE_EQ(p[0], 0.0);
  EXPECT_DOUBLE_EQ(p[1], 1.0);
  EXPECT_DOUBLE_EQ(p[2], 3.5);
}

TEST(MeanRelativeArrivals, SkipsCallsWithAMissingValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto p = mean_relative_arrivals({nan, 5, 100, 7}, 2, 2);
  EXPECT_DOUBLE_EQ(p[0], 0.0);
  EXPECT_DOUBLE_EQ(p[1], 2.0);
}

TEST(MeanRelativeArrivals, IsAllZerosWithoutACompleteCall) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(mean_relative_arrivals({nan, 1.0}, 2, 1), (std::vector<double>{0.0, 0.0}));
}
