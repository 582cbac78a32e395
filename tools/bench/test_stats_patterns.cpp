// Statistics (median, quantile, bootstrap CI, permutation test) and arrival
// pattern generators of patcoll-bench.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "patterns.hpp"
#include "stats.hpp"

namespace patcoll::bench {
namespace {

// ---- statistics -------------------------------------------------------------

TEST(Median, OddSampleIsTheMiddleValue) { EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3); }

TEST(Median, EvenSampleIsTheMeanOfTheTwoMiddleValues) { EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5); }

TEST(Quantile, InterpolatesLinearlyLikeNumpy) {
  // numpy.quantile([1, 2, 3, 4, 10], 0.9) == 7.6
  EXPECT_NEAR(quantile({10, 1, 3, 2, 4}, 0.9), 7.6, 1e-12);
  EXPECT_DOUBLE_EQ(quantile({10, 1, 3, 2, 4}, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile({10, 1, 3, 2, 4}, 1.0), 10);
}

TEST(Bootstrap, IntervalContainsTheSampleMedian) {
  const std::vector<double> sample{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
  const Interval ci = bootstrap_median_ci(sample, 0.95, 2000, 7);
  EXPECT_LE(ci.low, median(sample));
  EXPECT_GE(ci.high, median(sample));
  EXPECT_LT(ci.low, ci.high);
}

TEST(Bootstrap, SameSeedGivesTheSameInterval) {
  const std::vector<double> sample{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7};
  const Interval a = bootstrap_median_ci(sample, 0.95, 500, 11), b = bootstrap_median_ci(sample, 0.95, 500, 11);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
}

TEST(Bootstrap, SingleValueGivesADegenerateInterval) {
  const Interval ci = bootstrap_median_ci({0.25});
  EXPECT_EQ(ci.low, 0.25);
  EXPECT_EQ(ci.high, 0.25);
}

TEST(Bootstrap, NinetyFivePercentIntervalCoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  // Exponential(1) samples of 41: true median ln 2. Percentile bootstrap
  // coverage of the median is close to nominal at this size.
  std::mt19937_64 rng(2024);
  std::exponential_distribution<double> dist(1.0);
  const double truth = std::log(2.0);
  const int trials = 400;
  int covered = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> sample(41);
    for (double &x : sample) x = dist(rng);
    const Interval ci = bootstrap_median_ci(sample, 0.95, 400, static_cast<std::uint64_t>(t));
    covered += ci.low <= truth && truth <= ci.high;
  }
  const double coverage = static_cast<double>(covered) / trials;
  EXPECT_GT(coverage, 0.89);
  EXPECT_LT(coverage, 0.995);
}

// The exact permutation p-value by enumerating every split of the pool.
double exact_permutation_p(const std::vector<double> &a, const std::vector<double> &b) {
  std::vector<double> pool(a);
  pool.insert(pool.end(), b.begin(), b.end());
  const double observed = std::fabs(std::log(median(a) / median(b)));
  std::vector<bool> pick(pool.size(), false);
  std::fill(pick.begin(), pick.begin() + static_cast<long>(a.size()), true);
  long long total = 0, extreme = 0;
  std::sort(pick.begin(), pick.end(), std::greater<>());  // lexicographically first
  do {
    std::vector<double> x, y;
    for (std::size_t i = 0; i < pool.size(); ++i) (pick[i] ? x : y).push_back(pool[i]);
    ++total;
    extreme += std::fabs(std::log(median(x) / median(y))) >= observed * (1 - 1e-12);
  } while (std::prev_permutation(pick.begin(), pick.end()));
  return static_cast<double>(extreme) / static_cast<double>(total);
}

TEST(PermutationTest, TwoByTwoCaseMatchesTheExactValueOneThird) {
  // Splits of {1,2,3,4} into 2+2: only {1,2}|{3,4} and its mirror are as
  // extreme as the observed one, 2 of 6.
  EXPECT_NEAR(exact_permutation_p({1, 2}, {3, 4}), 1.0 / 3, 1e-12);
  EXPECT_NEAR(permutation_test_median_ratio({1, 2}, {3, 4}, 20000, 3), 1.0 / 3, 0.015);
}

TEST(PermutationTest, MonteCarloEstimateMatchesExactEnumeration) {
  const std::vector<double> a{1.0, 1.3, 0.9, 1.7, 1.2}, b{1.4, 2.0, 1.1, 1.9, 1.6};
  const double exact = exact_permutation_p(a, b);
  EXPECT_NEAR(permutation_test_median_ratio(a, b, 20000, 5), exact, 0.015);
}

TEST(PermutationTest, IdenticalSamplesGivePOne) {
  EXPECT_DOUBLE_EQ(permutation_test_median_ratio({2, 3, 4}, {2, 3, 4}, 1000, 1), 1.0);
}

TEST(PermutationTest, WellSeparatedSamplesGiveTheSmallestPossibleP) {
  std::vector<double> a, b;
  for (int i = 1; i <= 20; ++i) {
    a.push_back(i);
    b.push_back(100 + i);
  }
  // Only 2 of C(40, 20) splits are as extreme: p = 1/(1 + permutations).
  EXPECT_NEAR(permutation_test_median_ratio(a, b, 999, 1), 1.0 / 1000, 1e-12);
}

TEST(PermutationTest, UnderTheNullHypothesisFewPValuesAreBelowFivePercent) {
  std::mt19937_64 rng(99);
  std::lognormal_distribution<double> dist(0.0, 0.5);
  int rejections = 0;
  const int trials = 200;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a(15), b(15);
    for (double &x : a) x = dist(rng);
    for (double &x : b) x = dist(rng);
    rejections += permutation_test_median_ratio(a, b, 500, static_cast<std::uint64_t>(t)) < 0.05;
  }
  EXPECT_LE(rejections, 20);  // expected ~10 (5%); binomial sd ~3
  EXPECT_GE(rejections, 2);
}

TEST(PermutationTest, EmptySampleGivesPOne) { EXPECT_DOUBLE_EQ(permutation_test_median_ratio({}, {1, 2}), 1.0); }

// ---- patterns ---------------------------------------------------------------

std::vector<double> draw(const char *text, int procs, double d, std::uint64_t seed, int iterations) {
  PatternSpec spec;
  EXPECT_EQ(parse_pattern(text, spec), "");
  PatternGenerator g(spec, procs, d, seed);
  std::vector<double> all;
  for (int i = 0; i < iterations; ++i) {
    const auto pap = g.next(i);
    EXPECT_EQ(pap.size(), static_cast<std::size_t>(procs));
    all.insert(all.end(), pap.begin(), pap.end());
  }
  return all;
}

double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double variance(const std::vector<double> &v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

TEST(Patterns, NoneIsAllZero) {
  for (double x : draw("none", 5, 0.1, 1, 3)) EXPECT_EQ(x, 0.0);
}

TEST(Patterns, OneLateDelaysTheLastRankByDefault) {
  EXPECT_EQ(draw("one-late", 4, 0.02, 1, 1), (std::vector<double>{0, 0, 0, 0.02}));
}

TEST(Patterns, OneLateWithRankDelaysThatRank) {
  EXPECT_EQ(draw("one-late:1", 4, 0.02, 1, 1), (std::vector<double>{0, 0.02, 0, 0}));
}

TEST(Patterns, AlternatingDelaysOddRanks) {
  EXPECT_EQ(draw("alternating", 5, 1.0, 1, 1), (std::vector<double>{0, 1, 0, 1, 0}));
}

TEST(Patterns, RandLateIsUniformOnZeroToD) {
  const double d = 0.5;
  const auto v = draw("rand-late", 16, d, 3, 10000);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), d);
  EXPECT_NEAR(mean(v), d / 2, 0.01 * d);
  EXPECT_NEAR(variance(v), d * d / 12, 0.03 * d * d / 12);
}

TEST(Patterns, NormalHasMeanHalfDAndStandardDeviationDOverSix) {
  const double d = 2.0;
  const auto v = draw("normal", 16, d, 4, 10000);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), d);
  EXPECT_NEAR(mean(v), d / 2, 0.01 * d);
  // Clamping at ±3σ removes about 1% of the variance.
  EXPECT_NEAR(variance(v), d * d / 36, 0.04 * d * d / 36);
}

TEST(Patterns, GammaHasMeanQuarterDAndVarianceShapeTimesScaleSquared) {
  const double d = 1.0, shape = 2.0, scale = d / (4 * shape);
  const auto v = draw("gamma", 16, d, 5, 10000);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), d);
  EXPECT_NEAR(mean(v), d / 4, 0.02 * d / 4);
  EXPECT_NEAR(variance(v), shape * scale * scale, 0.05 * shape * scale * scale);
}

TEST(Patterns, GammaShapeArgumentChangesTheVariance) {
  const double d = 1.0, shape = 8.0, scale = d / (4 * shape);
  const auto v = draw("gamma:8", 16, d, 5, 10000);
  EXPECT_NEAR(mean(v), d / 4, 0.02 * d / 4);
  EXPECT_NEAR(variance(v), shape * scale * scale, 0.05 * shape * scale * scale);
}

TEST(Patterns, BernoulliHasMeanPDAndVariancePQDSquared) {
  const double d = 0.1, p = 0.3;
  const auto v = draw("bernoulli:0.3", 16, d, 6, 10000);
  for (double x : v) EXPECT_TRUE(x == 0.0 || x == d);
  EXPECT_NEAR(mean(v), p * d, 0.02 * p * d);
  EXPECT_NEAR(variance(v), p * (1 - p) * d * d, 0.03 * p * (1 - p) * d * d);
}

TEST(Patterns, SameSeedGivesTheSameSequence) {
  for (const char *p : {"rand-late", "normal", "gamma", "bernoulli"})
    EXPECT_EQ(draw(p, 8, 0.1, 42, 20), draw(p, 8, 0.1, 42, 20)) << p;
}

TEST(Patterns, DifferentSeedsGiveDifferentSequences) {
  for (const char *p : {"rand-late", "normal", "gamma", "bernoulli"})
    EXPECT_NE(draw(p, 8, 0.1, 42, 20), draw(p, 8, 0.1, 43, 20)) << p;
}

TEST(Patterns, ZeroMaxDelayGivesZeroArrivalsForEveryPattern) {
  for (const char *p : {"one-late", "rand-late", "alternating", "normal", "gamma", "bernoulli"})
    for (double x : draw(p, 6, 0.0, 1, 5)) EXPECT_EQ(x, 0.0) << p;
}

TEST(PatternParse, RejectsUnknownNamesAndBadArguments) {
  PatternSpec spec;
  for (const char *bad : {"", "late", "one-late:x", "one-late:-1", "one-late:1.5", "gamma:0", "gamma:abc",
                          "bernoulli:1.5", "bernoulli:-0.1", "trace", "trace:", "none:3", "rand-late:2"})
    EXPECT_NE(parse_pattern(bad, spec), "") << bad;
}

TEST(PatternParse, AcceptsEveryDocumentedForm) {
  PatternSpec spec;
  for (const char *good : {"none", "one-late", "one-late:3", "rand-late", "alternating", "normal", "gamma",
                           "gamma:4.5", "bernoulli", "bernoulli:0.25", "trace:some/file.txt"})
    EXPECT_EQ(parse_pattern(good, spec), "") << good;
  EXPECT_EQ(spec.kind, PatternKind::trace);
  EXPECT_EQ(spec.trace_file, "some/file.txt");
}

TEST(PatternCheck, OneLateRankMustBeBelowTheProcessCount) {
  PatternSpec spec;
  ASSERT_EQ(parse_pattern("one-late:4", spec), "");
  EXPECT_NE(check_pattern(spec, 4, 10, 0), "");
  EXPECT_EQ(check_pattern(spec, 5, 10, 0), "");
}

// ---- traces -----------------------------------------------------------------

TEST(Trace, ReadsBlankOrCommaSeparatedLinesSkippingCommentsAndBlankLines) {
  std::istringstream in("# a trace\n0 0.001 0.002\n\n0.003,0,0  # late rank 0\n");
  std::vector<std::vector<double>> t;
  ASSERT_EQ(parse_trace(in, "t", 3, t), "");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0], (std::vector<double>{0, 0.001, 0.002}));
  EXPECT_EQ(t[1], (std::vector<double>{0.003, 0, 0}));
}

TEST(Trace, WrongNumberOfValuesNamesTheLine) {
  std::istringstream in("0 0 0\n0 0\n");
  std::vector<std::vector<double>> t;
  const std::string e = parse_trace(in, "t", 3, t);
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
  EXPECT_NE(e.find("expected 3"), std::string::npos) << e;
}

TEST(Trace, NonNumericValueIsAnError) {
  std::istringstream in("0 0 x1\n");
  std::vector<std::vector<double>> t;
  EXPECT_NE(parse_trace(in, "t", 3, t).find("not a number"), std::string::npos);
}

TEST(Trace, NegativeValueIsAnError) {
  std::istringstream in("0 -0.5 0\n");
  std::vector<std::vector<double>> t;
  EXPECT_NE(parse_trace(in, "t", 3, t).find("negative"), std::string::npos);
}

TEST(Trace, EmptyTraceIsAnError) {
  std::istringstream in("# nothing\n\n");
  std::vector<std::vector<double>> t;
  EXPECT_NE(parse_trace(in, "t", 3, t), "");
}

TEST(Trace, MissingFileIsAnError) {
  std::vector<std::vector<double>> t;
  EXPECT_NE(load_trace("/nonexistent/patcoll/trace.txt", 3, t).find("cannot open"), std::string::npos);
}

TEST(Trace, FewerLinesThanIterationsIsAnError) {
  PatternSpec spec;
  ASSERT_EQ(parse_pattern("trace:x", spec), "");
  EXPECT_NE(check_pattern(spec, 3, 5, 4), "");
  EXPECT_EQ(check_pattern(spec, 3, 4, 4), "");
}

TEST(Trace, LinesAreReturnedInOrderAndWrapForWarmUp) {
  PatternSpec spec;
  ASSERT_EQ(parse_pattern("trace:x", spec), "");
  PatternGenerator g(spec, 2, 0.0, 1, {{0, 1}, {2, 3}, {4, 5}});
  EXPECT_EQ(g.next(0), (std::vector<double>{0, 1}));
  EXPECT_EQ(g.next(2), (std::vector<double>{4, 5}));
  EXPECT_EQ(g.next(4), (std::vector<double>{2, 3}));
  EXPECT_DOUBLE_EQ(g.max_delay(), 1.0);
}


// ---- the --pattern flag: NAME[:DELAY[:ARG]] -----------------------------------

TEST(PatternFlag, TheDelayComesInThePatternWithUnits) {
  PatternSpec spec;
  ASSERT_EQ(parse_pattern_flag("one-late:20ms", false, spec), "");
  EXPECT_TRUE(spec.has_delay);
  EXPECT_DOUBLE_EQ(spec.delay, 0.02);
  EXPECT_EQ(spec.late_rank, -1);
  ASSERT_EQ(parse_pattern_flag("one-late:1.5s:3", false, spec), "");
  EXPECT_DOUBLE_EQ(spec.delay, 1.5);
  EXPECT_EQ(spec.late_rank, 3);
  ASSERT_EQ(parse_pattern_flag("gamma:300us:4", false, spec), "");
  EXPECT_DOUBLE_EQ(spec.delay, 300e-6);
  EXPECT_DOUBLE_EQ(spec.shape, 4);
  ASSERT_EQ(parse_pattern_flag("rand-late:1e-3", false, spec), "");
  EXPECT_DOUBLE_EQ(spec.delay, 1e-3);
  ASSERT_EQ(parse_pattern_flag("one-late:2d", false, spec), "");
  EXPECT_DOUBLE_EQ(spec.delay_rounds, 2);
  double d = 0;
  EXPECT_EQ(pattern_delay(spec, 0, 0.5, d), "");
  EXPECT_DOUBLE_EQ(d, 1.0);
  EXPECT_NE(pattern_delay(spec, 0, -1, d), "");  // no round time in this tool
  ASSERT_EQ(parse_pattern_flag("trace:a:b.txt", false, spec), "");
  EXPECT_EQ(spec.trace_file, "a:b.txt");
  ASSERT_EQ(parse_pattern_flag("none", false, spec), "");
}

TEST(PatternFlag, MaxDelayKeepsTheOlderForm) {
  PatternSpec spec;
  ASSERT_EQ(parse_pattern_flag("one-late:3", true, spec), "");
  EXPECT_FALSE(spec.has_delay);
  EXPECT_EQ(spec.late_rank, 3);
  double d = 0;
  EXPECT_EQ(pattern_delay(spec, 0.02, -1, d), "");
  EXPECT_DOUBLE_EQ(d, 0.02);
  EXPECT_NE(parse_pattern_flag("one-late:20ms", true, spec).find("delay given twice"), std::string::npos);
}

TEST(PatternFlag, MistakesAreRefused) {
  PatternSpec spec;
  for (const char *bad : {"one-late", "rand-late:", "one-late:soon", "one-late:-1ms", "one-late:1ms:x",
                          "rand-late:1ms:2", "none:1ms", "sideways:1ms", "trace:", "one-late:1ms:"})
    EXPECT_NE(parse_pattern_flag(bad, false, spec), "") << bad;
  EXPECT_NE(parse_pattern_flag("one-late", false, spec).find("needs a delay"), std::string::npos);
}

}  // namespace
}  // namespace patcoll::bench
