// The simulator's flat form (core/flat.hpp): a FlatPrograms holds every
// rank's steps exactly as its Programs do, whichever way it was built
// (flatten of std::vector<Program>, or a builder's build_flat straight from
// its schedule), and its layout by round changes nothing the simulator
// computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "core/algorithm.hpp"
#include "core/flat.hpp"
#include "core/simulate.hpp"
#include "random_pats.hpp"

using namespace patcoll::core;

namespace {

// `program` as FlatPrograms::program gives it back: what the simulator
// reads (the rounds, scratch sizes, a local op's destination and whether
// sends are synchronous are not
// part of the flat form).
Program without_rounds(Program program) {
  program.scratch_count = 0;
  program.synchronous_sends = false;  // the simulator's transfers are all rendezvous
  for (Step &step : program.steps) {
    step.round = -1;
    for (Op &op : step.ops) (op.kind == OpKind::recv ? op.src : op.dst) = Region{};
  }
  return program;
}

Params params_for(const Algorithm &algorithm, int procs, int root, std::vector<double> arrivals) {
  Params p;
  p.collective = algorithm.collective;
  p.procs = procs;
  p.root = root;
  p.count = algorithm.collective == Collective::scatter || algorithm.collective == Collective::gather ? 5 : 4099;
  p.cost = CostModel{2e-6, 5e-10, 2e-10};
  p.arrivals = std::move(arrivals);
  return p;
}

bool same_op(const FlatOp &a, const FlatOp &b) {
  return a.offset == b.offset && a.count == b.count && a.peer == b.peer && a.kind == b.kind && a.combine == b.combine &&
         a.buffer == b.buffer && a.flags == b.flags && a.next == b.next;
}

// Bitwise: the simulator must compute the same doubles, not close ones.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_results(const SimulateResult &a, const SimulateResult &b, const std::string &what) {
  ASSERT_EQ(a.error, b.error) << what;
  ASSERT_EQ(a.exit.size(), b.exit.size()) << what;
  for (std::size_t i = 0; i < a.exit.size(); ++i) EXPECT_TRUE(same_bits(a.exit[i], b.exit[i])) << what << " rank " << i;
  EXPECT_TRUE(same_bits(a.run_time, b.run_time)) << what;
  EXPECT_TRUE(same_bits(a.average_elapsed, b.average_elapsed)) << what;
  EXPECT_EQ(a.messages, b.messages) << what;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  ASSERT_EQ(a.timeline.size(), b.timeline.size()) << what;
  for (std::size_t i = 0; i < a.timeline.size(); ++i) {
    const TimelineEntry &x = a.timeline[i], &y = b.timeline[i];
    EXPECT_TRUE(x.rank == y.rank && x.step == y.step && x.activity == y.activity && x.peer == y.peer &&
                same_bits(x.start, y.start) && same_bits(x.end, y.end) && x.bytes == y.bytes)
        << what << " timeline entry " << i;
  }
}

}  // namespace

TEST(Flat, FlattenKeepsEveryRanksStepsInOrder) {
  std::mt19937_64 rng(7);
  int cases = 0;
  for (const Algorithm &algorithm : algorithms())
    for (int procs : {1, 2, 3, 5, 8, 13, 16, 33}) {
      const Params params = params_for(algorithm, procs, procs / 2, random_pats(procs, rng, 2e-4));
      if (!unsupported_reason(algorithm, params).empty()) continue;
      const std::vector<Program> programs = build_all(algorithm, params);
      const FlatPrograms flat = flatten(programs);
      ASSERT_EQ(flat.procs, procs);
      ASSERT_TRUE(flat.error.empty());
      EXPECT_EQ(flat.misplaced, -1);
      for (int rank = 0; rank < procs; ++rank)
        ASSERT_EQ(flat.program(rank), without_rounds(programs[static_cast<std::size_t>(rank)]))
            << algorithm.name << " P " << procs << " rank " << rank;
      ++cases;
    }
  EXPECT_GT(cases, 150);
}

TEST(Flat, DirectFlatBuildersEmitTheStepsOfTheirPrograms) {
  std::mt19937_64 rng(11);
  int cases = 0;
  for (const Algorithm &algorithm : algorithms()) {
    if (!algorithm.build_flat) continue;
    for (int procs = 1; procs <= 40; procs += procs < 10 ? 1 : 7)
      for (int root : {0, procs - 1})
        for (bool pats : {false, true})
          for (std::int64_t segments : {0, 1, 5}) {
            Params params = params_for(algorithm, procs, root, pats ? random_pats(procs, rng, 2e-4) : std::vector<double>{});
            params.segment_count = segments;
            ASSERT_EQ(unsupported_reason(algorithm, params), "") << algorithm.name;
            const std::vector<Program> programs = build_all(algorithm, params);
            const FlatPrograms direct = build_flat(algorithm, params), flattened = flatten(programs);
            ASSERT_EQ(direct.ops.size(), flattened.ops.size()) << algorithm.name << " P " << procs;
            for (int rank = 0; rank < procs; ++rank)
              ASSERT_EQ(direct.program(rank), without_rounds(programs[static_cast<std::size_t>(rank)]))
                  << algorithm.name << " P " << procs << " rank " << rank;
            // Same rounds, so the same layout: the arrays are the same too.
            EXPECT_EQ(direct.first, flattened.first);
            for (std::size_t i = 0; i < direct.ops.size(); ++i)
              ASSERT_TRUE(same_op(direct.ops[i], flattened.ops[i]))
                  << algorithm.name << " P " << procs << " op " << i;
            ++cases;
          }
  }
  EXPECT_EQ(cases, 4 * 14 * 2 * 2 * 3);  // clairvoyant, uni_greedy, bi_greedy, allreduce slt; P = 1..10, 17, 24, 31, 38
}

TEST(Flat, BuildFlatOfEveryAlgorithmIsTheFlattenedPrograms) {
  // Whichever way build_flat gets there (a direct builder, build_all's
  // Programs, or flatten_each_rank's two passes over build_rank's), the
  // array is the one flatten(build_all) lays out, op for op.
  std::mt19937_64 rng(13);
  int cases = 0;
  for (const Algorithm &algorithm : algorithms())
    for (int procs : {1, 2, 3, 7, 16, 33})
      for (bool pats : {false, true}) {
        const Params params = params_for(algorithm, procs, procs / 3, pats ? random_pats(procs, rng, 2e-4) : std::vector<double>{});
        if (!unsupported_reason(algorithm, params).empty()) continue;
        const FlatPrograms direct = build_flat(algorithm, params), flattened = flatten(build_all(algorithm, params));
        ASSERT_EQ(direct.ops.size(), flattened.ops.size()) << algorithm.name << " P " << procs;
        EXPECT_EQ(direct.first, flattened.first) << algorithm.name << " P " << procs;
        for (std::size_t i = 0; i < direct.ops.size(); ++i)
          ASSERT_TRUE(same_op(direct.ops[i], flattened.ops[i]))
              << algorithm.name << " P " << procs << " op " << i;
        ++cases;
      }
  EXPECT_GT(cases, 250);
}

TEST(Flat, LayoutChangesNoSimulatedTime) {
  // Step::round only orders the flat array: renumbering the rounds (none,
  // reversed, scrambled) moves the steps in memory, and every exit time,
  // counter and timeline entry stays bitwise the same.
  std::mt19937_64 rng(3);
  int cases = 0;
  for (const Algorithm &algorithm : algorithms())
    for (int procs : {4, 9, 17}) {
      const Params params = params_for(algorithm, procs, 1, random_pats(procs, rng, 2e-4));
      if (!unsupported_reason(algorithm, params).empty()) continue;
      const std::vector<Program> programs = build_all(algorithm, params);
      std::vector<Program> none = programs, reversed = programs, scrambled = programs;
      for (Program &p : none)
        for (Step &s : p.steps) s.round = -1;
      for (Program &p : reversed)
        for (std::size_t i = 0; i < p.steps.size(); ++i) p.steps[i].round = static_cast<int>(p.steps.size() - i);
      std::uniform_int_distribution<int> any(0, 1 << 30);  // sparse keys: the comparison-sort path
      for (Program &p : scrambled)
        for (Step &s : p.steps) s.round = any(rng);
      for (bool overlap : {true, false})
        for (PortModel ports : {PortModel::full_duplex, PortModel::unidirectional}) {
          SimulateOptions options;
          options.combine_on_arrival = overlap;
          options.ports = ports;
          options.record_timeline = true;
          const SimulateResult reference = simulate(params, programs, options);
          ASSERT_EQ(reference.error, "") << algorithm.name;
          const std::string what = std::string(algorithm.name) + " P " + std::to_string(procs);
          expect_same_results(reference, simulate(params, none, options), what + " no rounds");
          expect_same_results(reference, simulate(params, reversed, options), what + " reversed");
          expect_same_results(reference, simulate(params, scrambled, options), what + " scrambled");
          expect_same_results(reference, simulate(algorithm, params, options), what + " build_flat");
          ++cases;
        }
    }
  EXPECT_GT(cases, 80);
}

TEST(Flat, AProgramOfTheWrongRankIsReportedWhereTheSimulatorReachesIt) {
  Params params;
  params.procs = 3;
  params.count = 1;
  std::vector<Program> programs(3);
  for (int rank = 0; rank < 3; ++rank) programs[static_cast<std::size_t>(rank)] = Program{rank, 3, 0, {}};
  programs[2].rank = 0;
  const SimulateResult result = simulate(params, programs);
  EXPECT_EQ(result.error, "programs[2] is the program of rank 0");
}
