// The MPI-free part of the PAT runtime: predictors and relative arrivals.
#include <gtest/gtest.h>

#include "core/runtime/predictor.hpp"

namespace rt = patcoll::core::runtime;

TEST(RuntimePredictor, EdgeExtrapolatesElapsedByFraction) {
  rt::Predictor p({rt::PredictorKind::edge, 5});
  EXPECT_DOUBLE_EQ(p.predict(0.02, 0.5), 0.04);
  EXPECT_DOUBLE_EQ(p.predict(0.03, 0.25), 0.12);
  EXPECT_DOUBLE_EQ(p.predict(0.05, 1.0), 0.05);
}

TEST(RuntimePredictor, EdgeIgnoresHistory) {
  rt::Predictor p({rt::PredictorKind::edge, 5});
  p.record(1.0);
  EXPECT_DOUBLE_EQ(p.predict(0.02, 0.5), 0.04);
}

TEST(RuntimePredictor, LastValueFallsBackToEdgeWithoutHistory) {
  rt::Predictor p({rt::PredictorKind::last_value, 5});
  EXPECT_DOUBLE_EQ(p.predict(0.02, 0.5), 0.04);
}

TEST(RuntimePredictor, LastValueReturnsNewestMeasurement) {
  rt::Predictor p({rt::PredictorKind::last_value, 5});
  p.record(0.1);
  p.record(0.3);
  EXPECT_DOUBLE_EQ(p.predict(0.02, 0.5), 0.3);
}

TEST(RuntimePredictor, MovingAverageFallsBackToEdgeWithoutHistory) {
  rt::Predictor p({rt::PredictorKind::moving_average, 3});
  EXPECT_DOUBLE_EQ(p.predict(0.01, 0.5), 0.02);
}

TEST(RuntimePredictor, MovingAverageAveragesWhatIsThereBeforeTheWindowFills) {
  rt::Predictor p({rt::PredictorKind::moving_average, 3});
  p.record(1.0);
  p.record(2.0);
  EXPECT_DOUBLE_EQ(p.predict(0.0, 0.5), 1.5);
}

TEST(RuntimePredictor, MovingAverageUsesOnlyTheLastKMeasurements) {
  rt::Predictor p({rt::PredictorKind::moving_average, 3});
  for (double v : {100.0, 1.0, 2.0, 6.0}) p.record(v);
  EXPECT_DOUBLE_EQ(p.predict(0.0, 0.5), 3.0);
  EXPECT_EQ(p.recorded(), 3u);
}

TEST(RuntimePredictor, ParsesTheDocumentedNames) {
  rt::PredictorConfig c;
  ASSERT_TRUE(rt::parse_predictor("last", c));
  EXPECT_EQ(c.kind, rt::PredictorKind::last_value);
  ASSERT_TRUE(rt::parse_predictor("sma", c));
  EXPECT_EQ(c.kind, rt::PredictorKind::moving_average);
  EXPECT_EQ(c.window, 5);
  ASSERT_TRUE(rt::parse_predictor("sma:9", c));
  EXPECT_EQ(c.window, 9);
  ASSERT_TRUE(rt::parse_predictor("edge", c));
  EXPECT_EQ(c.kind, rt::PredictorKind::edge);
}

TEST(RuntimePredictor, RejectsUnknownNamesAndBadWindowsWithoutChangingTheConfig) {
  rt::PredictorConfig c{rt::PredictorKind::last_value, 4};
  for (const char *bad : {"", "avg", "sma:", "sma:0", "sma:-2", "sma:3x", "EDGE"}) {
    EXPECT_FALSE(rt::parse_predictor(bad, c)) << bad;
    EXPECT_EQ(c.kind, rt::PredictorKind::last_value);
    EXPECT_EQ(c.window, 4);
  }
}

TEST(RuntimePredictor, NamesRoundTrip) {
  for (const char *name : {"edge", "last", "sma:5", "sma:12"}) {
    rt::PredictorConfig c;
    ASSERT_TRUE(rt::parse_predictor(name, c));
    EXPECT_EQ(rt::to_string(c), name);
  }
}
