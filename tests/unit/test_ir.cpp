#include <gtest/gtest.h>

#include <limits>

#include "core/algorithm.hpp"
#include "core/cost.hpp"
#include "core/ir.hpp"
#include "core/pat.hpp"

using namespace patcoll::core;

TEST(Segments, SpansCoverTheCountWithSizesDifferingByAtMostOne) {
  for (std::int64_t count : {0, 1, 5, 7, 100, 1001})
    for (std::int64_t parts : {1, 2, 3, 7, 64}) {
      std::int64_t next = 0, lo = count, hi = 0;
      for (std::int64_t i = 0; i < parts; ++i) {
        Span s = block_span(count, parts, i);
        EXPECT_EQ(s.offset, next);
        next += s.count;
        lo = std::min(lo, s.count);
        hi = std::max(hi, s.count);
      }
      EXPECT_EQ(next, count);
      EXPECT_LE(hi - lo, 1);
    }
}

TEST(Segments, NeverMoreSegmentsThanElements) {
  Params p;
  p.segment_count = 50;
  EXPECT_EQ(segment_count_for(p, 10, 1), 10);
  EXPECT_EQ(segment_count_for(p, 0, 1), 1);
  p.segment_count = 0;
  p.segment_elements = 3;
  EXPECT_EQ(segment_count_for(p, 10, 1), 4);
}

TEST(CostModel, OptimalSegmentCountFollowsMarendicFormula) {
  CostModel m{1e-6, 1e-9, 0.0};
  // sqrt((n-1) m beta / alpha) with n = 3 (P = 8), m = 4 MB: sqrt(2*4e6*1e-9/1e-6) = sqrt(8000) ≈ 89.4
  EXPECT_EQ(optimal_segment_count(m, 8, 1'000'000, 4), 89);
  EXPECT_EQ(optimal_segment_count(m, 2, 1'000'000, 4), 1);  // n − 1 = 0
  EXPECT_EQ(ceil_log2(1), 0);
  EXPECT_EQ(ceil_log2(5), 3);
  EXPECT_EQ(ceil_log2(8), 3);
}

TEST(Ir, JsonAndTableMentionEveryOp) {
  Program p{0, 2, 4, {}};
  add_step(p, {send_op(1, send_buf(0, 4)), recv_op(1, scratch_buf(0, 4), Combine::left)}, 3);
  const std::string json = to_json(p);
  EXPECT_NE(json.find("\"kind\":\"send\""), std::string::npos);
  EXPECT_NE(json.find("\"combine\":\"left\""), std::string::npos);
  EXPECT_NE(json.find("\"round\":3"), std::string::npos);
  EXPECT_NE(to_table(p).find("recv<-1 left scratch[0+4]"), std::string::npos);
  EXPECT_EQ(message_count(p), 1);
  EXPECT_EQ(elements_sent(p), 4);
}

TEST(CostModel, QuantisedArrivalsAreRelativeToTheEarliestAndRounded) {
  const auto q = quantise_arrivals({5.0, 5.26, 5.74, 5.0}, 0.5);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_DOUBLE_EQ(q[0], 0.0);
  EXPECT_DOUBLE_EQ(q[1], 0.5);
  EXPECT_DOUBLE_EQ(q[2], 0.5);
  EXPECT_DOUBLE_EQ(q[3], 0.0);
  EXPECT_TRUE(quantise_arrivals({}, 0.5).empty());
  // Jitter below the quantum gives the same vector.
  EXPECT_EQ(quantise_arrivals({0.0, 1.02, 2.0}, 0.5), quantise_arrivals({0.01, 0.98, 2.03}, 0.5));
}

TEST(CostModel, FileRoundTripsAndRejectsBadLines) {
  CostModel written{1.5e-6, 2.5e-10, 3.5e-11}, read;
  EXPECT_EQ(parse_cost_model(format_cost_model(written), read), "");
  EXPECT_NEAR(read.alpha, written.alpha, 1e-12);
  EXPECT_NEAR(read.beta, written.beta, 1e-16);
  EXPECT_NEAR(read.gamma, written.gamma, 1e-17);
  CostModel m;
  EXPECT_EQ(parse_cost_model("alpha = 1e-6 # comment\n\nbeta: 2e-9\n", m), "");
  EXPECT_DOUBLE_EQ(m.alpha, 1e-6);
  EXPECT_DOUBLE_EQ(m.beta, 2e-9);
  EXPECT_NE(parse_cost_model("delta 1\n", m).find("unknown key"), std::string::npos);
  EXPECT_NE(parse_cost_model("alpha -1\n", m).find("line 1"), std::string::npos);
  EXPECT_NE(parse_cost_model("alpha 1 2\n", m), "");
  EXPECT_NE(parse_cost_model("beta x\n", m), "");
}

TEST(CostModel, ValuesMustBePositiveAndFinite) {
  // A zero, negative, infinite or NaN α/β/γ gives degenerate round times
  // and schedules that are wrong: refused in files and in check_cost_model.
  CostModel m;
  for (const char *bad : {"alpha 0\n", "beta 0\n", "gamma -1e-10\n", "gamma inf\n", "beta nan\n", "alpha 1e999\n"})
    EXPECT_NE(parse_cost_model(bad, m), "") << bad;
  EXPECT_EQ(check_cost_model(CostModel{}), "");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (CostModel bad : {CostModel{0, 1e-9, 1e-10}, CostModel{1e-6, inf, 1e-10}, CostModel{1e-6, 1e-9, inf},
                        CostModel{nan, 1e-9, 1e-10}, CostModel{1e-6, -1e-9, 1e-10}, CostModel{1e-6, 1e-9, 0}})
    EXPECT_NE(check_cost_model(bad), "");
}

TEST(Catalog, AnInvalidRadixVectorIsRefusedNotSilentlyReplaced) {
  const Algorithm *radix_k = find_algorithm(Collective::reduce, "radix_k");
  ASSERT_NE(radix_k, nullptr);
  Params p;
  p.procs = 128;
  p.radix = {4, 4, 8};
  EXPECT_EQ(unsupported_reason(*radix_k, p), "");
  p.radix = {4, 4, 4};  // 64 = P/2: the other half folds into partners
  EXPECT_EQ(unsupported_reason(*radix_k, p), "");
  p.radix = {4, 4, 2};  // 32 < P/2
  EXPECT_NE(unsupported_reason(*radix_k, p), "");
  p.radix = {8, 8, 4};  // 256 > P
  EXPECT_NE(unsupported_reason(*radix_k, p), "");
  p.radix = {1, 128};
  EXPECT_NE(unsupported_reason(*radix_k, p), "");
  // Algorithms that do not take a radix ignore it.
  EXPECT_EQ(unsupported_reason(*find_algorithm(Collective::reduce, "binomial"), p), "");
}
