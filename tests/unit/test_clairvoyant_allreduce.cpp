// Facts of allreduce/clairvoyant (docs/results/clairvoyant-allreduce.md): the fold
// is proved correct by the validator for every plan shape, P, count and PAT
// vector (right or wrong); balanced PATs give the best classic algorithm
// itself; one late rank is folded in at about one m-byte transfer after it
// arrives (model facts, simulated — never wall-clock timings).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
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
        for (std::string_view shape : {std::string_view("ring"), std::string_view("rabenseifner"),
                                       std::string_view("recursive_doubling"), kGroupReduce})
          for (std::int64_t segments : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{1000}}) {
            const ClairvoyantAllreducePlan plan{folded, shape, segments, 0};
            const std::string error = validate_all_modes(p, build_clairvoyant_allreduce(p, plan));
            ASSERT_EQ(error, "") << "P=" << procs << " count=" << count << " folded=" << folded << " " << shape
                                 << " segments=" << segments;
          }
    }
}

// Building one rank's Program (the MPI path) gives exactly that rank's
// Program of the whole build, for every plan shape; rounds strictly increase
// in every Program (the fold starts after the group's last round).
TEST(AllreduceClairvoyant, OneRanksProgramIsItsProgramOfTheWholeBuild) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> delay(0.0, 1e-2);
  ValidateOptions rounds;
  rounds.check_rounds = true;
  for (int procs = 2; procs <= 37; procs += procs < 12 ? 1 : 5)
    for (std::int64_t count : {std::int64_t{1}, std::int64_t{procs + 3}, std::int64_t{500}}) {
      Params p = allreduce_params(procs, count);
      p.arrivals.resize(procs);
      for (double &a : p.arrivals) a = delay(rng);
      for (int folded = 0; folded <= std::min(procs - 1, kMaxFolded); ++folded)
        for (std::string_view shape : {std::string_view("ring"), std::string_view("rabenseifner"),
                                       std::string_view("recursive_doubling"), kGroupReduce}) {
          const ClairvoyantAllreducePlan plan{folded, shape, 0, 0};
          const auto all = build_clairvoyant_allreduce(p, plan);
          for (int rank = 0; rank < procs; ++rank)
            ASSERT_EQ(build_clairvoyant_allreduce_rank(p, plan, rank), all[rank])
                << "P=" << procs << " count=" << count << " folded=" << folded << " " << shape << " rank " << rank;
          ASSERT_EQ(validate(p, all, rounds), "") << "P=" << procs << " count=" << count << " folded=" << folded << " " << shape;
        }
    }
  // The registered per-rank builder plans as the whole build does.
  Params p = pa_cluster(100);
  p.arrivals = one_late(100, 7, 1.0);
  const Algorithm &clairvoyant = *find_algorithm(Collective::allreduce, "clairvoyant");
  const auto all = build_all(clairvoyant, p);
  for (int rank : {0, 7, 99}) EXPECT_EQ(build_rank(clairvoyant, p, rank), all[rank]) << "rank " << rank;
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

TEST(AllreduceClairvoyant, FoldBroadcastsTheLateVectorDownTwoTreesAndStreamsTheGroupSumBack) {
  // P = 4, rank 2 late: group (0, 1, 3) in arrival order = positions 0, 1, 2;
  // tree 0 = 1 → {0, 2} (odd interior), tree 1 = 0 → {2, 1}; N = 3 segments:
  // segments 0 and 2 go down tree 0, segment 1 down tree 1.
  Params p = allreduce_params(4, 30);
  p.arrivals = {0.0, 1e-3, 1.0, 2e-3};
  const auto programs = build_clairvoyant_allreduce(p, {1, "ring", 3, 0});
  auto sends_to = [&](int rank, int peer) {
    int n = 0;
    for (const Step &step : programs[rank].steps)
      for (const Op &op : step.ops) n += op.kind == OpKind::send && op.peer == peer;
    return n;
  };
  EXPECT_EQ(sends_to(2, 1), 2);  // L → root of tree 0 (rank 1): segments 0 and 2
  EXPECT_EQ(sends_to(2, 0), 1);  // L → root of tree 1 (rank 0): segment 1
  EXPECT_EQ(message_count(programs[2]), 3);  // L sends its vector once
  // The group's ring runs 0 → 1 → 3 → 0 (2 + 2 steps), the trees add their links.
  EXPECT_EQ(sends_to(1, 0), 2);      // tree 0: 1 → 0, segments 0 and 2
  EXPECT_EQ(sends_to(1, 3), 4 + 2);  // ring, then tree 0: 1 → 3
  EXPECT_EQ(sends_to(0, 3), 1);      // tree 1: 0 → 3, segment 1
  EXPECT_EQ(sends_to(0, 1), 4 + 1);  // ring, then tree 1: 0 → 1
  // Rank 3 is a leaf in both trees: its free send port streams S_G (or the
  // result) back to L, one message per segment.
  EXPECT_EQ(sends_to(3, 2), 3);
  EXPECT_EQ(sends_to(0, 2) + sends_to(1, 2), 0);
  ASSERT_EQ(validate_all_modes(p, programs), "");
}

TEST(AllreduceClairvoyant, ReduceFirstGroupReducesToTheTreeRootsAndTheFoldSpreadsTheFinalSegments) {
  // The worked example of docs/results/clairvoyant-allreduce.md with the plan
  // {1, two_tree_reduce, N = 3}: P = 4, rank 2 late, group (0, 1, 3).
  // Reduce (the trees reversed): segments 0 and 2 up tree 0 to rank 1
  // (from ranks 0 and 3), segment 1 up tree 1 to rank 0 (from 3 and 1).
  // Fold: L sends raw 0, 2 to rank 1 and raw 1 to rank 0, which combine
  // them into the final segments and send those down their trees; rank 3
  // (a leaf in both) streams the final segments to L.
  Params p = allreduce_params(4, 30);
  p.arrivals = {0.0, 1e-3, 1.0, 2e-3};
  const auto programs = build_clairvoyant_allreduce(p, {1, kGroupReduce, 3, 0});
  auto sends_to = [&](int rank, int peer) {
    int n = 0;
    for (const Step &step : programs[rank].steps)
      for (const Op &op : step.ops) n += op.kind == OpKind::send && op.peer == peer;
    return n;
  };
  EXPECT_EQ(sends_to(0, 1), 2 + 1);  // reduce: 0, 2 up tree 0; fold: final 1 down tree 1
  EXPECT_EQ(sends_to(3, 1), 2);      // reduce: 0, 2 up tree 0
  EXPECT_EQ(sends_to(3, 0), 1);      // reduce: 1 up tree 1
  EXPECT_EQ(sends_to(1, 0), 1 + 2);  // reduce: 1 up tree 1; fold: final 0, 2 down tree 0
  EXPECT_EQ(sends_to(1, 3), 2);      // fold: final 0, 2
  EXPECT_EQ(sends_to(0, 3), 1);      // fold: final 1
  EXPECT_EQ(sends_to(2, 1), 2);      // L's raw 0, 2 to the root of tree 0
  EXPECT_EQ(sends_to(2, 0), 1);      // L's raw 1 to the root of tree 1
  EXPECT_EQ(sends_to(3, 2), 3);      // the final segments to L
  EXPECT_EQ(sends_to(0, 2) + sends_to(1, 2), 0);
  // In all 2nN messages (n = 3 group members, N = 3): (n − 1)N in the reduce, (n + 1)N in the fold.
  std::int64_t messages = 0;
  for (const Program &program : programs) messages += message_count(program);
  EXPECT_EQ(messages, 2 * 3 * 3);
  for (const Program &program : programs) EXPECT_EQ(program.scratch_count, 0) << "rank " << program.rank;
  ASSERT_EQ(validate_all_modes(p, programs), "");
}

// Every rank sends at most one and receives at most one segment per fold
// round, and the fold takes at most N + F rounds, F = 2⌈log2(n + 1)⌉ − 1
// (the two trees' fill; n = group size), for every n up to 127.
TEST(AllreduceClairvoyant, FoldIsOneSegmentInAndOutPerRoundAndTakesAtMostNPlusFillRounds) {
  for (int procs = 2; procs <= 128; procs += procs < 20 ? 1 : 9) {
    for (std::int64_t segments : {std::int64_t{1}, std::int64_t{7}, std::int64_t{100}}) {
      Params p = allreduce_params(procs, 1000);
      p.arrivals = one_late(procs, procs / 2, 1.0);
      for (std::string_view shape : {std::string_view("ring"), kGroupReduce}) {
      const auto programs = build_clairvoyant_allreduce(p, {1, shape, segments, 0});
      // The fold opens with the late rank's first step; the reduce-first group's reduce obeys the same rule.
      const int fold_start = shape == kGroupReduce ? 0 : programs[procs / 2].steps.front().round;
      int last_round = fold_start;
      for (const Program &program : programs) {
        std::map<int, std::pair<int, int>> per_round;  // round → (sends, recvs)
        for (const Step &step : program.steps) {
          if (step.round < fold_start) continue;
          last_round = std::max(last_round, step.round);
          for (const Op &op : step.ops) {
            per_round[step.round].first += op.kind == OpKind::send;
            per_round[step.round].second += op.kind == OpKind::recv;
          }
        }
        for (const auto &[round, counts] : per_round) {
          EXPECT_LE(counts.first, 1) << "P=" << procs << " rank " << program.rank << " round " << round;
          EXPECT_LE(counts.second, 1) << "P=" << procs << " rank " << program.rank << " round " << round;
        }
      }
      // Rounds in the fold with messages: at most N + F (the last round holds only combines).
      const int late_start = programs[procs / 2].steps.front().round;
      EXPECT_LE(last_round - late_start, segments + clairvoyant_fold_fill_rounds(procs - 1))
          << "P=" << procs << " N=" << segments << " " << shape;
      }
    }
  }
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

// One late rank on the tryton48 model ([PA] Table 3's cluster: α = 22 µs,
// β = 8 ns/B, γ = 0), 48 ranks, 1 M floats, late by the balanced ring time:
// after it arrives the fold costs at most (N + F)(α + (m/N)(β+γ)) with
// F = 2⌈log2(n + 1)⌉ − 1 = 11 (docs/results/clairvoyant-allreduce.md; at the
// optimal N = sqrt(F·m(β+γ)/α) that is m(β+γ) + 2·sqrt(F·m(β+γ)α) + Fα):
// within 1.25 m-byte transfers (1.38 with the first version's chain, F = n − 1).
TEST(AllreduceClairvoyant, OneLateRankIsFoldedInOneTransferPlusALogDepthFill) {
  Params p = allreduce_params(48, 1 << 20);
  p.cost = CostModel{22e-6, 8e-9, 0.0};
  const double ring_balanced = run_time("ring", p);
  p.arrivals = one_late(48, 1, ring_balanced);
  ASSERT_EQ(plan_clairvoyant_allreduce(p).folded, 1);
  const double bytes = static_cast<double>(p.count * p.element_bytes);
  const double transfer = bytes * (p.cost.beta + p.cost.gamma), alpha = p.cost.alpha;
  const double fill = clairvoyant_fold_fill_rounds(47);
  ASSERT_EQ(fill, 11);
  // N = sqrt(F·m(β+γ)/α) = 129 would be optimal; segments of at least 64 KiB give 64.
  const double segments = static_cast<double>(clairvoyant_fold_segments(p, 47));
  ASSERT_EQ(segments, 64);
  const double pipeline = (segments + fill) * (alpha + transfer / segments);
  const double after_last = run_time("clairvoyant", p) - ring_balanced;
  EXPECT_LE(after_last, pipeline);
  EXPECT_LE(after_last, 1.25 * transfer);
  EXPECT_GE(run_time("ring", p) / run_time("clairvoyant", p), 1.25);
}

// The same platform, the late rank behind by less than the group's own
// ring allreduce (66 ms) but more than its two-tree reduce (≈ 39 ms): the
// plan is reduce-first, and the fold still starts at L's arrival and ends
// within the same tail formula (N + F)(α + (m/N)(β+γ)) ≤ 1.25 transfers —
// where the allreduce-group plan gained 1.10× only (the fold waited for
// the group).
TEST(AllreduceClairvoyant, ReduceFirstGroupIsDoneBeforeALateRankShorterThanTheGroupsAllreduce) {
  Params p = allreduce_params(48, 1 << 20);
  p.cost = CostModel{22e-6, 8e-9, 0.0};
  const double delay = 50e-3;
  p.arrivals = one_late(48, 1, delay);
  const ClairvoyantAllreducePlan plan = plan_clairvoyant_allreduce(p);
  ASSERT_EQ(plan.folded, 1);
  ASSERT_EQ(plan.group_shape, kGroupReduce);
  const double bytes = static_cast<double>(p.count * p.element_bytes);
  const double transfer = bytes * (p.cost.beta + p.cost.gamma);
  const double segments = static_cast<double>(clairvoyant_fold_segments(p, 47));
  const double pipeline = (segments + clairvoyant_fold_fill_rounds(47)) * (p.cost.alpha + transfer / segments);
  const double after_last = run_time("clairvoyant", p) - delay;
  EXPECT_LE(after_last, pipeline);
  EXPECT_LE(after_last, 1.25 * transfer);
  EXPECT_GE(run_time("ring", p) / run_time("clairvoyant", p), 1.25);
  const double allreduce_group = simulate(p, build_clairvoyant_allreduce(p, {1, "ring", 0, 0})).run_time;
  EXPECT_GE(allreduce_group / run_time("clairvoyant", p), 1.15);
}

// Above 64 ranks (formulas): one rank late by about the balanced
// Rabenseifner time at P = 128 ([M]'s CURIE values) is folded after a
// two-tree reduce — the group's allreduce would take as long as the delay.
TEST(AllreduceClairvoyant, AboveSixtyFourRanksALateRankIsFoldedAfterTheGroupsReduce) {
  Params p = allreduce_params(128, 1 << 20);
  p.cost = CostModel{2.681563e-06, 4.817884e-10, 9.536743e-15};
  const double native_like = run_time("rabenseifner", p);
  p.arrivals = one_late(128, 1, native_like);
  const ClairvoyantAllreducePlan plan = plan_clairvoyant_allreduce(p);
  EXPECT_EQ(plan.folded, 1);
  EXPECT_EQ(plan.group_shape, kGroupReduce);
  EXPECT_GE(run_time("rabenseifner", p) / run_time("clairvoyant", p), 1.2);
  p.count = 1000;  // and proved correct
  EXPECT_EQ(validate_all_modes(p, build("clairvoyant", p)), "");
}

}  // namespace
