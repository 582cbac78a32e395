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
// sends are synchronous are not part of the flat form; tags, groups and
// dependencies are).
Program without_rounds(Program program) {
  program.scratch_count = 0;
  program.synchronous_sends = false;  // the simulator's transfers are all rendezvous
  for (Step &step : program.steps) {
    step.round = -1;
    for (Op &op : step.ops) {
      (op.kind == OpKind::recv ? op.src : op.dst) = Region{};
      op.synchronous = false;
    }
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

namespace {

// `flat` with every tag removed: its sends and recvs pair FIFO per pair.
FlatPrograms untagged(FlatPrograms flat) {
  for (FlatOp &op : flat.ops) op.tag = FlatOp::kNone;
  flat.tags = 0;
  return flat;
}

// The schedule-based reduce `name`'s flat Programs at P = 6, 2 segments.
FlatPrograms small_schedule(const char *name, Params &params) {
  const Algorithm *algorithm = find_algorithm(Collective::reduce, name);
  params = params_for(*algorithm, 6, 0, {});
  params.segment_count = 2;
  return build_flat(*algorithm, params);
}

}  // namespace

TEST(Flat, TagsPairTheOpsFifoWouldPair) {
  // The schedule-based reduces number their transfers (Transfer::id) and
  // their flat Programs carry the numbers as tags, which the simulator
  // pairs by. A numbered transfer's send and recv are the ones FIFO
  // matching per pair would pair, so dropping the tags changes nothing,
  // bitwise.
  std::mt19937_64 rng(17);
  int cases = 0;
  for (const char *name : {"clairvoyant", "uni_greedy", "bi_greedy"}) {
    const Algorithm *algorithm = find_algorithm(Collective::reduce, name);
    ASSERT_NE(algorithm, nullptr) << name;
    for (int procs : {2, 3, 7, 16, 33, 100})
      for (bool pats : {false, true})
        for (std::int64_t segments : {1, 5, 70}) {
          Params params = params_for(*algorithm, procs, procs / 2, pats ? random_pats(procs, rng, 2e-4) : std::vector<double>{});
          params.segment_count = segments;
          const FlatPrograms tagged = build_flat(*algorithm, params);
          ASSERT_GT(tagged.tags, 0u) << name << " P " << procs;
          std::size_t tagged_ops = 0;
          for (const FlatOp &op : tagged.ops) tagged_ops += op.tag != FlatOp::kNone;
          ASSERT_EQ(tagged_ops, 2 * std::size_t{tagged.tags}) << name << " P " << procs;  // a send and a recv each
          const FlatPrograms fifo = untagged(tagged);
          for (PortModel ports : {PortModel::full_duplex, PortModel::unidirectional}) {
            SimulateOptions options;
            options.ports = ports;
            options.record_timeline = procs <= 16;
            const SimulateResult reference = simulate(params, fifo, options);
            ASSERT_EQ(reference.error, "") << name;
            expect_same_results(reference, simulate(params, tagged, options),
                                std::string(name) + " P " + std::to_string(procs) + " segments " + std::to_string(segments));
            ++cases;
          }
        }
  }
  EXPECT_EQ(cases, 3 * 6 * 2 * 3 * 2);
}

TEST(Flat, ATagThatDoesNotPairOneSendWithOneRecvIsAnError) {
  Params params;
  const FlatPrograms good = small_schedule("clairvoyant", params);
  ASSERT_EQ(simulate(params, good).error, "");
  std::vector<std::size_t> sends, recvs;
  for (std::size_t i = 0; i < good.ops.size(); ++i) {
    if (good.ops[i].tag == FlatOp::kNone) continue;
    (good.ops[i].kind == OpKind::send ? sends : recvs).push_back(i);
  }
  ASSERT_GE(sends.size(), 2u);
  {  // a send whose tag is another send's: two sends (or a mismatched pair) on one tag
    FlatPrograms bad = good;
    bad.ops[sends[0]].tag = bad.ops[sends[1]].tag;
    const std::string error = simulate(params, bad).error;
    EXPECT_NE(error.find("tag " + std::to_string(bad.ops[sends[1]].tag)), std::string::npos) << error;
  }
  {  // a recv paired with a send to another rank: rank 0 sends to 1, rank 1
     // receives from 2, both with tag 0
    Params three;
    three.procs = 3;
    three.count = 1;
    std::vector<Program> programs;
    for (int rank = 0; rank < 3; ++rank) programs.push_back(Program{rank, 3, 0, {}});
    add_step(programs[0], {send_op(1, send_buf(0, 1))}, 0);
    add_step(programs[1], {recv_op(2, recv_buf(0, 1), Combine::store)}, 0);
    add_step(programs[2], {send_op(1, send_buf(0, 1))}, 0);
    FlatPrograms bad = flatten(programs);
    ASSERT_NE(simulate(three, bad).error.find("deadlock"), std::string::npos);  // FIFO: 0's send meets nobody
    bad.ops[bad.first[0]].tag = bad.ops[bad.first[1]].tag = 0;  // rank 2's send stays FIFO
    bad.tags = 1;
    const std::string error = simulate(three, bad).error;
    EXPECT_NE(error.find("tag 0 pairs"), std::string::npos) << error;
  }
  {  // out of range
    FlatPrograms bad = good;
    bad.ops[sends[0]].tag = bad.tags;
    const std::string error = simulate(params, bad).error;
    EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  }
  {  // a tagged send whose recv is untagged: never paired
    FlatPrograms bad = good;
    for (std::size_t r : recvs)
      if (bad.ops[r].tag == bad.ops[sends[0]].tag) bad.ops[r].tag = FlatOp::kNone;
    const std::string error = simulate(params, bad).error;
    EXPECT_NE(error.find("deadlock"), std::string::npos) << error;
  }
}
