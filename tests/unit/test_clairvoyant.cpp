// Clairvoyant schedule generators ([M], [PO]): the three implementations
// agree, their schedules are correct Programs, and the facts listed in
// ALGORITHMS.md ("Clairvoyant — what must hold") hold.
#include <gtest/gtest.h>

#include <random>

#include "core/cost.hpp"
#include "core/generators/clairvoyant.hpp"
#include "core/generators/scheduled.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

ClairvoyantInput balanced(int procs, int segments, int root = 0) {
  ClairvoyantInput input;
  input.procs = procs;
  input.segments = segments;
  input.root = root;
  input.round_time = 1;
  return input;
}

// Params of a reduce whose count gives exactly `segments` segments.
Params params_for(const ClairvoyantInput &input, std::int64_t elements_per_segment = 3) {
  Params params;
  params.procs = input.procs;
  params.root = input.root;
  params.count = input.segments * elements_per_segment;
  params.segment_count = input.segments;
  return params;
}

std::string validate_schedule(const Schedule &schedule, const ClairvoyantInput &input) {
  const Params params = params_for(input);
  ValidateOptions options;
  options.single_port = true;
  options.check_rounds = true;
  return validate_all_modes(params, schedule_to_programs(schedule, params), options);
}

// The transfers of one round as (sender, receiver, segment), sorted.
std::vector<std::array<int, 3>> round_transfers(const Schedule &schedule, int round) {
  std::vector<std::array<int, 3>> out;
  for (int rank = 0; rank < schedule.procs; ++rank)
    for (const Transfer &t : schedule.ranks[rank].send)
      if (t.round == round) out.push_back({rank, t.peer, t.segment});
  std::sort(out.begin(), out.end());
  return out;
}

enum class Pattern { uniform, one_late, clustered, balanced };

ClairvoyantInput random_instance(std::mt19937_64 &rng, Pattern pattern) {
  // P and N in 1…64, small sizes more often (u² spreads them evenly in log scale).
  std::uniform_real_distribution<double> u(0, 1);
  auto size = [&](std::mt19937_64 &g) { const double x = u(g); return 1 + static_cast<int>(64 * x * x * 0.999); };
  ClairvoyantInput input;
  input.procs = size(rng);
  input.segments = size(rng);
  input.root = std::uniform_int_distribution<int>(0, input.procs - 1)(rng);
  // d from 1e-3 to 1: often much smaller than the arrival spread.
  input.round_time = std::pow(10.0, std::uniform_real_distribution<double>(-3, 0)(rng));
  std::uniform_real_distribution<double> unit(0, 1);
  switch (pattern) {
    case Pattern::balanced: break;
    case Pattern::uniform:
      for (int p = 0; p < input.procs; ++p) input.arrivals.push_back(unit(rng) * (input.procs + 0.1));
      break;
    case Pattern::one_late:
      input.arrivals.assign(input.procs, 0.0);
      input.arrivals[std::uniform_int_distribution<int>(0, input.procs - 1)(rng)] = unit(rng) * 20 * input.round_time;
      break;
    case Pattern::clustered: {
      // A few clusters; arrivals within a cluster differ by less than d, and
      // some coincide exactly (ties broken by rank).
      const int clusters = std::uniform_int_distribution<int>(1, 4)(rng);
      std::vector<double> centre(clusters);
      for (double &c : centre) c = unit(rng) * 10;
      for (int p = 0; p < input.procs; ++p) {
        const double c = centre[std::uniform_int_distribution<int>(0, clusters - 1)(rng)];
        input.arrivals.push_back(unit(rng) < 0.3 ? c : c + unit(rng) * input.round_time);
      }
      break;
    }
  }
  return input;
}

TEST(Clairvoyant, TheThreeGeneratorsProduceIdenticalSchedulesOnRandomInstances) {
  std::mt19937_64 rng(2021);
  int instances = 0;
  for (Pattern pattern : {Pattern::uniform, Pattern::one_late, Pattern::clustered, Pattern::balanced}) {
    for (int k = 0; k < 500; ++k) {
      const ClairvoyantInput input = random_instance(rng, pattern);
      const Schedule linear = clairvoyant_linear(input);
      const Schedule pairing = clairvoyant_pairing(input);
      const Schedule segtree = clairvoyant_segtree(input);
      const std::string what = "P=" + std::to_string(input.procs) + " N=" + std::to_string(input.segments) +
                               " root=" + std::to_string(input.root) + " pattern=" + std::to_string(int(pattern));
      ASSERT_TRUE(same_transfers(linear, segtree)) << what;
      ASSERT_TRUE(same_transfers(linear, pairing)) << what;
      ++instances;
    }
  }
  EXPECT_EQ(instances, 2000);
}

// N > 64: rows of 2…11 words (segtree pads them to 2, 4, 8, 16 and ORs two
// words at a time), which the P, N ≤ 64 instances above never reach.
TEST(Clairvoyant, SegtreeEqualsLinearForRowsWiderThanOneWord) {
  std::mt19937_64 rng(4242);
  const int segment_counts[] = {65, 127, 128, 129, 200, 256, 300, 511, 513, 700};
  for (Pattern pattern : {Pattern::uniform, Pattern::one_late, Pattern::clustered, Pattern::balanced}) {
    for (int segments : segment_counts) {
      ClairvoyantInput input = random_instance(rng, pattern);
      input.segments = segments;
      const std::string what = "P=" + std::to_string(input.procs) + " N=" + std::to_string(input.segments) +
                               " root=" + std::to_string(input.root) + " pattern=" + std::to_string(int(pattern));
      ASSERT_TRUE(same_transfers(clairvoyant_linear(input), clairvoyant_segtree(input))) << what;
    }
  }
}

TEST(Clairvoyant, SchedulesAreCorrectSinglePortProgramsForAnyArrivalPattern) {
  std::mt19937_64 rng(7);
  for (Pattern pattern : {Pattern::uniform, Pattern::one_late, Pattern::clustered, Pattern::balanced}) {
    for (int k = 0; k < 60; ++k) {
      const ClairvoyantInput input = random_instance(rng, pattern);
      ASSERT_EQ(validate_schedule(clairvoyant_segtree(input), input), "")
          << "P=" << input.procs << " N=" << input.segments << " root=" << input.root;
    }
  }
}

TEST(Clairvoyant, BalancedLengthIsCeilLog2PPlusNMinusOneForPowersOfTwo) {
  for (int procs = 4; procs <= 512; procs *= 2)
    for (int segments = 4; segments <= 512; segments *= 2)
      EXPECT_EQ(clairvoyant_segtree(balanced(procs, segments)).rounds, ceil_log2(procs) + segments - 1)
          << "P=" << procs << " N=" << segments;
}

TEST(Clairvoyant, BalancedLengthForNonPowersOfTwoIsAtMostOneRoundMore) {
  // Beyond [M] §5.4: for P not a power of two the formula mostly holds but
  // not always: P = 21, 41, 53, 73, 77, 81, 105, 117, … take one round more
  // from some N on (P = 21 from N = 7: N = 8 takes 13 rounds, not 12; the
  // sweep is in docs/results/generators.md). Never more than one. The root does not
  // matter.
  int exceptions = 0;
  for (int procs = 2; procs <= 40; ++procs)
    for (int segments : {1, 2, 3, 5, 8, 13}) {
      const int rounds = clairvoyant_segtree(balanced(procs, segments)).rounds;
      EXPECT_GE(rounds, ceil_log2(procs) + segments - 1);
      EXPECT_LE(rounds, ceil_log2(procs) + segments) << "P=" << procs << " N=" << segments;
      exceptions += rounds != ceil_log2(procs) + segments - 1;
      for (int root : {procs / 2, procs - 1})
        EXPECT_EQ(clairvoyant_segtree(balanced(procs, segments, root)).rounds, rounds);
    }
  EXPECT_EQ(exceptions, 2);  // P = 21 with N = 8 and N = 13
}

TEST(Clairvoyant, OneSegmentIsABinomialTree) {
  for (int procs : {2, 4, 8, 16, 64}) {
    const Schedule s = clairvoyant_segtree(balanced(procs, 1));
    ASSERT_EQ(s.rounds, ceil_log2(procs));
    for (int round = 0; round < s.rounds; ++round) {
      std::vector<std::array<int, 3>> expected;
      const int half = 1 << round;
      for (int r = half; r < procs; r += 2 * half) expected.push_back({r, r - half, 0});
      EXPECT_EQ(round_transfers(s, round), expected) << "P=" << procs << " round " << round;
    }
  }
}

TEST(Clairvoyant, OneSegmentSendsEachContributionOnceForAnyP) {
  for (int procs = 2; procs <= 33; ++procs) {
    const Schedule s = clairvoyant_segtree(balanced(procs, 1, procs / 3));
    EXPECT_EQ(s.rounds, ceil_log2(procs));
    for (int rank = 0; rank < procs; ++rank)
      EXPECT_EQ(s.ranks[rank].send.size(), rank == procs / 3 ? 0u : 1u) << "P=" << procs;
  }
}

TEST(Clairvoyant, MarendicTable2HasFiveRoundsAndTheSameFirstTwoRounds) {
  const Schedule s = clairvoyant_segtree(balanced(4, 4));
  EXPECT_EQ(s.rounds, 5);
  // Table 2, R_1 and R_2 as (sender, receiver, segment).
  EXPECT_EQ(round_transfers(s, 0), (std::vector<std::array<int, 3>>{{0, 1, 1}, {1, 0, 0}, {2, 3, 1}, {3, 2, 0}}));
  EXPECT_EQ(round_transfers(s, 1), (std::vector<std::array<int, 3>>{{0, 2, 2}, {1, 3, 2}, {2, 0, 0}, {3, 1, 1}}));
}

TEST(Clairvoyant, MarendicFig8LateProcessGivesNineRounds) {
  // δ = the 3-process completion time: 5 rounds of d = 1.
  ASSERT_EQ(clairvoyant_segtree(balanced(3, 4)).rounds, 5);
  ClairvoyantInput input = balanced(4, 4);
  input.arrivals = {0, 0, 0, 5};
  for (auto generator : {clairvoyant_linear, clairvoyant_pairing, clairvoyant_segtree})
    EXPECT_EQ(generator(input).rounds, 9);
}

TEST(Clairvoyant, ArrivalExactlyOneRoundLaterJoinsTheNextRound) {
  // Strict a_i < t + d ([PO] Listing 6 line 3): with δ = 1 the late process
  // is not part of round 0.
  ClairvoyantInput input = balanced(4, 4);
  input.arrivals = {0, 0, 0, 1};
  const Schedule s = clairvoyant_segtree(input);
  for (const auto &t : round_transfers(s, 0)) {
    EXPECT_NE(t[0], 3);
    EXPECT_NE(t[1], 3);
  }
  input.arrivals = {0, 0, 0, 0.999};
  bool late_in_round_0 = false;
  for (const auto &t : round_transfers(clairvoyant_segtree(input), 0)) late_in_round_0 |= t[0] == 3 || t[1] == 3;
  EXPECT_TRUE(late_in_round_0);
}

TEST(Clairvoyant, TwoProcessesAndFortySegmentsTakeFortyRounds) {
  EXPECT_EQ(clairvoyant_segtree(balanced(2, 40)).rounds, 40);
}

TEST(Clairvoyant, TwoProcessesWithADelayedOneTakeTheDelayMoreRounds) {
  // With P = 2 nothing can be absorbed: the delay adds ⌊delay/d⌋ rounds (a
  // process that arrives during a round takes part in it).
  for (double delay : {0.5, 1.0, 3.0, 7.25}) {
    ClairvoyantInput input = balanced(2, 40);
    input.arrivals = {0, delay};
    EXPECT_EQ(clairvoyant_segtree(input).rounds, 40 + static_cast<int>(std::floor(delay))) << delay;
  }
}

TEST(Clairvoyant, ADelayedProcessIsPartlyAbsorbedByTheOthers) {
  // P = 8: the 7 early processes reduce while the late one is away, so the
  // schedule grows by less than the delay.
  ClairvoyantInput input = balanced(8, 16);
  const int base = clairvoyant_segtree(input).rounds;
  input.arrivals.assign(8, 0.0);
  input.arrivals[5] = 6;
  const int late = clairvoyant_segtree(input).rounds;
  EXPECT_GT(late, base);
  EXPECT_LT(late, base + 6);
}

TEST(Clairvoyant, TheRootReceivesBackASegmentItSentAwayWithAStore) {
  // Table 2: rank 0 sends segment 1 in round 1 and receives it in round 3.
  const ClairvoyantInput input = balanced(4, 4);
  const Params params = params_for(input);
  const auto programs = schedule_to_programs(clairvoyant_segtree(input), params);
  int stores = 0, combines = 0;
  for (const Step &step : programs[0].steps)
    for (const Op &op : step.ops)
      if (op.kind == OpKind::recv) (op.combine == Combine::store ? stores : combines) += 1;
  EXPECT_GT(stores, 0);
  EXPECT_GT(combines, 0);
  EXPECT_EQ(validate_schedule(clairvoyant_segtree(input), input), "");
}

TEST(Clairvoyant, OneProcessGivesAnEmptyScheduleAndACopy) {
  const ClairvoyantInput input = balanced(1, 5);
  for (auto generator : {clairvoyant_linear, clairvoyant_pairing, clairvoyant_segtree}) {
    const Schedule s = generator(input);
    EXPECT_EQ(s.rounds, 0);
    const auto programs = schedule_to_programs(s, params_for(input));
    ASSERT_EQ(programs.size(), 1u);
    ASSERT_EQ(programs[0].steps.size(), 1u);
    EXPECT_EQ(programs[0].steps[0].ops.size(), 1u);
    EXPECT_EQ(validate_schedule(s, input), "");
  }
}

TEST(Clairvoyant, AnyRootEndsWithEverything) {
  for (int root = 0; root < 7; ++root) {
    ClairvoyantInput input = balanced(7, 9, root);
    input.arrivals = {0.3, 0, 2.5, 0.1, 0.1, 4, 1};
    EXPECT_EQ(validate_schedule(clairvoyant_segtree(input), input), "") << root;
  }
}

TEST(Clairvoyant, FarApartArrivalsWithATinyRoundTimeAreSkippedNotSimulated) {
  // 10^8 idle rounds between arrivals.
  ClairvoyantInput input = balanced(3, 2);
  input.round_time = 1e-8;
  input.arrivals = {0, 1, 2};
  for (auto generator : {clairvoyant_linear, clairvoyant_pairing, clairvoyant_segtree}) {
    const Schedule s = generator(input);
    EXPECT_NEAR(s.rounds, 2e8 + 2, 2);
    EXPECT_EQ(validate_schedule(s, input), "");
  }
}

TEST(Clairvoyant, BadInputIsReported) {
  ClairvoyantInput input = balanced(4, 4);
  EXPECT_EQ(clairvoyant_input_error(input), "");
  input.root = 4;
  EXPECT_NE(clairvoyant_input_error(input), "");
  input = balanced(4, 4);
  input.round_time = -1;
  EXPECT_NE(clairvoyant_input_error(input), "");
  input = balanced(4, 4);
  input.arrivals = {0, 1};
  EXPECT_NE(clairvoyant_input_error(input), "");
  input = balanced(0, 4);
  EXPECT_NE(clairvoyant_input_error(input), "");
  input = balanced(2, 4);
  input.arrivals = {0, 2e9};  // more rounds than an int holds
  EXPECT_NE(clairvoyant_input_error(input), "");
}

// ---- join rule (issue 13 item 7): "arrived by the round's start" ----------

ClairvoyantInput joining_by_round_start(ClairvoyantInput input) {
  input.join = ClairvoyantJoin::by_round_start;
  return input;
}

TEST(ClairvoyantJoin, ByRoundStartTheThreeGeneratorsProduceIdenticalCorrectSchedules) {
  std::mt19937_64 rng(1307);
  for (Pattern pattern : {Pattern::uniform, Pattern::one_late, Pattern::clustered, Pattern::balanced}) {
    for (int k = 0; k < 200; ++k) {
      const ClairvoyantInput input = joining_by_round_start(random_instance(rng, pattern));
      const Schedule linear = clairvoyant_linear(input);
      const std::string what = "P=" + std::to_string(input.procs) + " N=" + std::to_string(input.segments) +
                               " pattern=" + std::to_string(int(pattern));
      ASSERT_TRUE(same_transfers(linear, clairvoyant_pairing(input))) << what;
      ASSERT_TRUE(same_transfers(linear, clairvoyant_segtree(input))) << what;
      if (k < 20) {
        ASSERT_EQ(validate_schedule(linear, input), "") << what;
      }
    }
  }
}

TEST(ClairvoyantJoin, ByRoundStartAProcessArrivingDuringRoundZeroWaitsForRoundOne) {
  ClairvoyantInput input = joining_by_round_start(balanced(4, 4));
  input.arrivals = {0, 0, 0, 0.001};
  for (const auto &t : round_transfers(clairvoyant_segtree(input), 0)) {
    EXPECT_NE(t[0], 3);
    EXPECT_NE(t[1], 3);
  }
  input.arrivals = {0, 0, 0, 1};  // exactly at round 1's start: joins it
  bool late_in_round_1 = false;
  for (const auto &t : round_transfers(clairvoyant_segtree(input), 1)) late_in_round_1 |= t[0] == 3 || t[1] == 3;
  EXPECT_TRUE(late_in_round_1);
}

TEST(ClairvoyantJoin, BothRulesAgreeWhenArrivalsLieOnTheRoundGrid) {
  std::mt19937_64 rng(99);
  for (int k = 0; k < 200; ++k) {
    ClairvoyantInput input = random_instance(rng, Pattern::uniform);
    for (double &a : input.arrivals) a = std::floor(a / input.round_time) * input.round_time;
    ASSERT_TRUE(same_transfers(clairvoyant_segtree(input), clairvoyant_segtree(joining_by_round_start(input))));
  }
  EXPECT_TRUE(same_transfers(clairvoyant_segtree(balanced(13, 9)),
                             clairvoyant_segtree(joining_by_round_start(balanced(13, 9)))));
}

// Reduce params whose Clairvoyant rounds take d = α + B(β + γ) exactly in
// the simulator: N equal segments of B bytes.
Params timed_params(int procs, int segments, std::vector<double> arrivals, ClairvoyantJoin join) {
  Params params;
  params.procs = procs;
  params.count = std::int64_t{segments} * 1024;
  params.segment_count = segments;
  params.arrivals = std::move(arrivals);
  params.clairvoyant_join = join;
  return params;
}

struct Timed {
  double predicted;  // the schedule's completion: rounds · d after the first arrival
  double executed;   // simulated run time max(f) − min(a)
};

Timed predicted_and_executed(const Params &params) {
  const ClairvoyantInput input = clairvoyant_input(params);
  const Schedule schedule = clairvoyant_segtree(input);
  const SimulateResult result = simulate(params, schedule_to_programs(schedule, params));
  EXPECT_EQ(result.error, "");
  return {schedule.completion_time, result.run_time};
}

TEST(ClairvoyantJoin, ByRoundStartTheScheduleTimeIsAnUpperBoundOfTheSimulatedRunTime) {
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int k = 0; k < 150; ++k) {
    const int procs = 2 + static_cast<int>(unit(rng) * 40), segments = 1 + static_cast<int>(unit(rng) * 12);
    const double d = clairvoyant_input(timed_params(procs, segments, {}, ClairvoyantJoin::by_round_start)).round_time;
    std::vector<double> arrivals(procs, 0.0);
    if (k % 2) {
      arrivals[static_cast<std::size_t>(unit(rng) * procs)] = unit(rng) * 8 * d;  // one late
    } else {
      for (double &a : arrivals) a = unit(rng) * 6 * d;  // all random
    }
    const Timed t = predicted_and_executed(timed_params(procs, segments, arrivals, ClairvoyantJoin::by_round_start));
    ASSERT_LE(t.executed, t.predicted * (1 + 1e-9)) << "P=" << procs << " N=" << segments << " k=" << k;
  }
}

TEST(ClairvoyantJoin, BeforeRoundEndTheExecutedTimeCanExceedTheSchedule) {
  // P = 2, rank 1 arrives 0.9 d late. [PO]'s rule puts it in round 0: the
  // schedule says d, the transfer cannot end before 1.9 d. By round start
  // it takes round 1: the schedule says 2 d, which holds.
  const double d = clairvoyant_input(timed_params(2, 1, {}, ClairvoyantJoin::before_round_end)).round_time;
  const Timed end_rule = predicted_and_executed(timed_params(2, 1, {0, 0.9 * d}, ClairvoyantJoin::before_round_end));
  EXPECT_DOUBLE_EQ(end_rule.predicted, d);
  EXPECT_NEAR(end_rule.executed, 1.9 * d, 1e-12);
  const Timed start_rule = predicted_and_executed(timed_params(2, 1, {0, 0.9 * d}, ClairvoyantJoin::by_round_start));
  EXPECT_DOUBLE_EQ(start_rule.predicted, 2 * d);
  EXPECT_NEAR(start_rule.executed, 1.9 * d, 1e-12);
}

TEST(ClairvoyantJoin, TheRuleHasTwoNamesEach) {
  ClairvoyantJoin join = ClairvoyantJoin::before_round_end;
  EXPECT_TRUE(parse_clairvoyant_join("start", join));
  EXPECT_EQ(join, ClairvoyantJoin::by_round_start);
  EXPECT_TRUE(parse_clairvoyant_join("before_round_end", join));
  EXPECT_EQ(join, ClairvoyantJoin::before_round_end);
  EXPECT_TRUE(parse_clairvoyant_join(to_string(ClairvoyantJoin::by_round_start), join));
  EXPECT_EQ(join, ClairvoyantJoin::by_round_start);
  EXPECT_FALSE(parse_clairvoyant_join("soon", join));
}

TEST(Clairvoyant, CatalogueEntryUsesRoundTimeOfTheSegmentAndOptimalSegmentCount) {
  Params params;
  params.procs = 16;
  params.count = 1 << 16;
  const ClairvoyantInput input = clairvoyant_input(params);
  EXPECT_EQ(input.segments, optimal_segment_count(params.cost, 16, params.count, params.element_bytes));
  const double bytes = std::ceil(double(params.count) / input.segments) * params.element_bytes;
  EXPECT_DOUBLE_EQ(input.round_time, params.cost.round_time(bytes));
  params.segment_elements = 7;
  params.count = 1000;
  EXPECT_EQ(clairvoyant_input(params).segments, 143);
}

}  // namespace
