// Lowery–Langou greedy schedule generators ([LL]): uni_greedy is optimal
// among in-order reductions (Theorem 5, checked against exhaustive search),
// both generators give correct, deadlock-free Programs, and bi_greedy's
// length is compared with the conjectured ⌈log2 p⌉ + q − 1 rounds.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "core/cost.hpp"
#include "core/generators/greedy.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

GreedyInput unit_costs(int procs, int segments, double comm = 2, double comp = 1) {
  GreedyInput input;
  input.procs = procs;
  input.segments = segments;
  input.alpha = comm;
  input.gamma = comp;
  input.segment_bytes = 1;  // t_comm = α, t_comp = γ
  return input;
}

// The Params of a schedule's Programs: its process count, root, segments,
// and the generator's costs (t_comm = α, so that the conversion sees the
// transfers' lengths the generator used).
Params schedule_params(const GreedyInput &input) {
  Params params;
  params.procs = input.procs;
  params.root = input.root;
  params.count = input.segments * 2;
  params.segment_count = input.segments;
  params.cost = CostModel{input.alpha, 0.0, input.gamma};
  return params;
}

std::string validate_schedule(const Schedule &schedule, const GreedyInput &input) {
  const Params params = schedule_params(input);
  ValidateOptions options;
  options.single_port = true;
  options.check_rounds = true;
  return validate_all_modes(params, schedule_to_programs(schedule, params), options);
}

// The best completion time of any in-order unidirectional reduction: every
// sequence of (sender, receiver) pairs per segment, each started as early
// as both are free.
double exhaustive_best(const GreedyInput &input) {
  const int p = input.procs, q = input.segments;
  const double comm = input.alpha + input.beta * input.segment_bytes, comp = input.gamma * input.segment_bytes;
  std::vector<double> x(p, 0);
  if (!input.arrivals.empty()) {
    const double first = *std::min_element(input.arrivals.begin(), input.arrivals.end());
    for (int i = 0; i < p; ++i) x[i] = input.arrivals[i] - first;
  }
  std::vector<char> holds(p, 1);
  double best = 1e300;
  std::function<void(int, int)> search = [&](int segment, int holders) {
    if (holders == 1) {
      if (segment + 1 == q) {
        best = std::min(best, *std::max_element(x.begin(), x.end()));
        return;
      }
      std::fill(holds.begin(), holds.end(), 1);
      search(segment + 1, p);
      std::fill(holds.begin(), holds.end(), 0);
      holds[input.root] = 1;
      return;
    }
    for (int a = 0; a < p; ++a) {
      if (!holds[a] || a == input.root) continue;
      for (int b = 0; b < p; ++b) {
        if (!holds[b] || b == a) continue;
        const double xa = x[a], xb = x[b], t = std::max(xa, xb);
        x[a] = t + comm, x[b] = t + comm + comp, holds[a] = 0;
        search(segment, holders - 1);
        x[a] = xa, x[b] = xb, holds[a] = 1;
      }
    }
  };
  search(0, p);
  return best;
}

TEST(UniGreedy, EqualsExhaustiveSearchForSmallPAndQ) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::vector<std::pair<int, int>> sizes{{2, 1}, {2, 3}, {3, 1}, {3, 2}, {3, 3}, {3, 4},
                                               {4, 1}, {4, 2}, {4, 3}, {5, 1}, {5, 2}};
  for (auto [p, q] : sizes) {
    for (int k = 0; k < 6; ++k) {
      GreedyInput input = unit_costs(p, q, 0.2 + unit(rng), unit(rng));
      input.root = std::uniform_int_distribution<int>(0, p - 1)(rng);
      if (k % 2) {
        for (int i = 0; i < p; ++i) input.arrivals.push_back(unit(rng) * 3);
      }
      EXPECT_NEAR(uni_greedy(input).completion_time, exhaustive_best(input), 1e-9)
          << "p=" << p << " q=" << q << " root=" << input.root << (k % 2 ? " with PATs" : "");
    }
  }
}

TEST(UniGreedy, OneSegmentOfEqualArrivalsIsABinomialTreeInTime) {
  // Every round halves the holders: ⌈log2 p⌉ · (t_comm + t_comp).
  for (int p = 2; p <= 64; ++p)
    EXPECT_DOUBLE_EQ(uni_greedy(unit_costs(p, 1)).completion_time, ceil_log2(p) * 3.0) << p;
}

TEST(UniGreedy, SchedulesAreCorrectSinglePortPrograms) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int k = 0; k < 150; ++k) {
    GreedyInput input = unit_costs(std::uniform_int_distribution<int>(1, 40)(rng),
                                   std::uniform_int_distribution<int>(1, 20)(rng), unit(rng), unit(rng));
    input.root = std::uniform_int_distribution<int>(0, input.procs - 1)(rng);
    if (k % 3 == 1)
      for (int i = 0; i < input.procs; ++i) input.arrivals.push_back(unit(rng) * 5);
    if (k % 3 == 2) input.alpha = input.gamma = 0;  // all transfers start together
    ASSERT_EQ(validate_schedule(uni_greedy(input), input), "") << k;
  }
}

TEST(UniGreedy, TheRootNeverSendsAndEveryOtherProcessSendsEachSegmentOnce) {
  GreedyInput input = unit_costs(13, 7);
  input.root = 5;
  const Schedule s = uni_greedy(input);
  for (int rank = 0; rank < 13; ++rank)
    EXPECT_EQ(s.ranks[rank].send.size(), rank == 5 ? 0u : 7u);
}

TEST(UniGreedy, ALateProcessDelaysCompletionByLessThanItsDelay) {
  GreedyInput input = unit_costs(16, 8);
  const double base = uni_greedy(input).completion_time;
  input.arrivals.assign(16, 0.0);
  input.arrivals[9] = 10;
  const double late = uni_greedy(input).completion_time;
  EXPECT_GT(late, base);
  EXPECT_LT(late, base + 10);
}

TEST(BiGreedy, SchedulesAreCorrectSinglePortPrograms) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int k = 0; k < 150; ++k) {
    GreedyInput input = unit_costs(std::uniform_int_distribution<int>(1, 40)(rng),
                                   std::uniform_int_distribution<int>(1, 20)(rng), 0.1 + unit(rng), unit(rng));
    input.root = std::uniform_int_distribution<int>(0, input.procs - 1)(rng);
    if (k % 2)
      for (int i = 0; i < input.procs; ++i) input.arrivals.push_back(unit(rng) * 5);
    ASSERT_EQ(validate_schedule(bi_greedy(input), input), "") << k;
  }
}

// Under PATs a receive may start while the process's send of an earlier
// round is still going on; the Programs put the two in one step (else the
// receive would wait for the send's end), and stay correct single-port
// Programs with increasing rounds.
TEST(BiGreedy, AReceiveThatOverlapsASendSharesItsStep) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> unit(0, 1);
  std::size_t merged = 0;
  for (int k = 0; k < 60; ++k) {
    GreedyInput input = unit_costs(std::uniform_int_distribution<int>(2, 40)(rng),
                                   std::uniform_int_distribution<int>(1, 20)(rng), 0.1 + unit(rng), unit(rng));
    for (int i = 0; i < input.procs; ++i) input.arrivals.push_back(unit(rng) * 5);
    const Schedule schedule = bi_greedy(input);
    ASSERT_TRUE(schedule.overlapping_rounds);
    ASSERT_EQ(validate_schedule(schedule, input), "") << k;
    Schedule by_round = schedule;
    by_round.overlapping_rounds = false;  // a step per round, as before
    const Params params = schedule_params(input);
    std::size_t steps = 0, round_steps = 0;
    for (const Program &program : schedule_to_programs(schedule, params)) steps += program.steps.size();
    for (const Program &program : schedule_to_programs(by_round, params)) round_steps += program.steps.size();
    ASSERT_LE(steps, round_steps) << k;
    merged += round_steps - steps;
  }
  EXPECT_GT(merged, 0u);
}

TEST(BiGreedy, NoProcessUsesAPortTwiceAtOnce) {
  const GreedyInput input = unit_costs(23, 9);
  const Schedule s = bi_greedy(input);
  for (const RankSchedule &r : s.ranks) {
    for (std::size_t i = 1; i < r.send.size(); ++i) EXPECT_GE(r.send[i].time, r.send[i - 1].time + 2 - 1e-9);
    for (std::size_t i = 1; i < r.recv.size(); ++i) EXPECT_GE(r.recv[i].time, r.recv[i - 1].time + 3 - 1e-9);
  }
}

TEST(BiGreedy, LowerLangouFig8SixteenProcessesFiveSegmentsMatchTheReverseBroadcast) {
  // [LL] Fig. 8: p = 16, q = 5, t_comm = 2, t_comp = 1: ⌈log2 p⌉ + q − 1 = 8
  // rounds of 3.
  EXPECT_DOUBLE_EQ(bi_greedy(unit_costs(16, 5)).completion_time, 8 * 3.0);
}

TEST(BiGreedy, ConjecturedLengthCeilLog2PPlusQMinusOneHoldsWhereChecked) {
  // [LL] conjecture: bi_greedy is as fast as a reverse optimal broadcast,
  // ⌈log2 p⌉ + q − 1 rounds of t_comm + t_comp. It holds for every p ≤ 64,
  // q ≤ 24 here (and in the wider sweep of docs/results/generators.md) with equal
  // arrivals; no counterexample found.
  for (auto [comm, comp] : std::vector<std::pair<double, double>>{{2, 1}, {1, 0}, {2.5, 0.7}})
    for (int p = 2; p <= 64; ++p)
      for (int q = 1; q <= 24; q += (q < 6 ? 1 : 5))
        EXPECT_NEAR(bi_greedy(unit_costs(p, q, comm, comp)).completion_time, (ceil_log2(p) + q - 1) * (comm + comp),
                    1e-9 * (comm + comp))
            << "p=" << p << " q=" << q << " t_comm=" << comm << " t_comp=" << comp;
}

}  // namespace
