// The simulator's model, fact by fact, on hand-written Programs and the
// catalogue's `linear` reduce (simulate.hpp documents the model).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/algorithm.hpp"
#include "core/flat.hpp"
#include "core/simulate.hpp"
#include "relay_programs.hpp"

using namespace patcoll::core;

namespace {

// α = 1, β = 0.01 s/B, γ = 0.001 s/B, 4-byte elements: a 100-element message
// costs α + βB = 5 and its combine γB = 0.4.
Params model(int procs) {
  Params params;
  params.procs = procs;
  params.element_bytes = 4;
  params.cost = CostModel{1.0, 0.01, 0.001};
  return params;
}

std::vector<Program> empty_programs(int procs) {
  std::vector<Program> programs;
  for (int rank = 0; rank < procs; ++rank) programs.push_back(Program{rank, procs, 0, {}});
  return programs;
}

constexpr double kTransfer = 5.0;  // α + β·400 B
constexpr double kCombine = 0.4;   // γ·400 B

}  // namespace

TEST(Simulate, OneMessageCostsAlphaPlusBetaTimesBytesAtBothEnds) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100))});
  const SimulateResult r = simulate(model(2), programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[0], kTransfer);
  EXPECT_DOUBLE_EQ(r.exit[1], kTransfer);
  EXPECT_DOUBLE_EQ(r.run_time, kTransfer);
  EXPECT_EQ(r.messages, 1);
  EXPECT_EQ(r.bytes, 400);
}

TEST(Simulate, CombiningRecvChargesGammaAtTheReceiverAfterTheTransfer) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100), Combine::left)});
  const SimulateResult r = simulate(model(2), programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[0], kTransfer);
  EXPECT_DOUBLE_EQ(r.exit[1], kTransfer + kCombine);  // one round d = α + B(β + γ)
}

TEST(Simulate, ElementSizeComesFromParams) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100))});
  Params params = model(2);
  params.element_bytes = 8;
  EXPECT_DOUBLE_EQ(simulate(params, programs).run_time, 1.0 + 0.01 * 800);
}

TEST(Simulate, MessageStartsOnlyWhenBothSidesHavePostedIt) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100))});
  Params params = model(2);
  params.arrivals = {0.0, 7.0};
  SimulateResult r = simulate(params, programs);
  EXPECT_DOUBLE_EQ(r.exit[0], 7.0 + kTransfer);  // the sender waits for the late receiver
  params.arrivals = {7.0, 0.0};
  r = simulate(params, programs);
  EXPECT_DOUBLE_EQ(r.exit[1], 7.0 + kTransfer);  // the receiver waits for the late sender
}

TEST(Simulate, RunTimeAndAverageElapsedFollowTheDefinitions) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100))});
  Params params = model(2);
  params.arrivals = {2.0, 9.0};
  const SimulateResult r = simulate(params, programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.run_time, 9.0 + kTransfer - 2.0);                        // max(f) − min(a)
  EXPECT_DOUBLE_EQ(r.average_elapsed, ((14.0 - 2.0) + (14.0 - 9.0)) / 2.0);   // mean(f − a)
  EXPECT_DOUBLE_EQ(r.max_elapsed, 12.0);
}

TEST(Simulate, FullDuplexOverlapsASendWithARecv) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100)), recv_op(1, recv_buf(0, 100))});
  add_step(programs[1], {send_op(0, send_buf(0, 100)), recv_op(0, recv_buf(0, 100))});
  const SimulateResult r = simulate(model(2), programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.run_time, kTransfer);
}

TEST(Simulate, UnidirectionalSerialisesASendAndARecv) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100)), recv_op(1, recv_buf(0, 100))});
  add_step(programs[1], {send_op(0, send_buf(0, 100)), recv_op(0, recv_buf(0, 100))});
  SimulateOptions options;
  options.ports = PortModel::unidirectional;
  const SimulateResult r = simulate(model(2), programs, options);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.run_time, 2 * kTransfer);
}

TEST(Simulate, SendsOfOneRankAreSerialised) {
  auto programs = empty_programs(3);
  add_step(programs[0], {send_op(1, send_buf(0, 100)), send_op(2, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100))});
  add_step(programs[2], {recv_op(0, recv_buf(0, 100))});
  const SimulateResult r = simulate(model(3), programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[1], kTransfer);  // op order breaks the tie
  EXPECT_DOUBLE_EQ(r.exit[2], 2 * kTransfer);
  EXPECT_DOUBLE_EQ(r.exit[0], 2 * kTransfer);
}

TEST(Simulate, WithoutOverlapRecvsOfOneRankAreSerialisedAndCombinedAfterTheWait) {
  auto programs = empty_programs(3);
  add_step(programs[0], {recv_op(1, recv_buf(0, 100), Combine::right), recv_op(2, scratch_buf(0, 100), Combine::right)});
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {send_op(0, send_buf(0, 100))});
  SimulateOptions phase4;
  phase4.combine_on_arrival = false;
  const SimulateResult r = simulate(model(3), programs, phase4);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[0], 2 * kTransfer + 2 * kCombine);
}

TEST(Simulate, DefaultCombinesOnArrivalLikeTheMpiExecutor) {
  EXPECT_TRUE(SimulateOptions{}.combine_on_arrival);
  auto programs = empty_programs(3);
  add_step(programs[0], {recv_op(1, recv_buf(0, 100), Combine::right), recv_op(2, scratch_buf(0, 100), Combine::right)});
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {send_op(0, send_buf(0, 100))});
  EXPECT_DOUBLE_EQ(simulate(model(3), programs).exit[0], 2 * kTransfer + kCombine);
}

TEST(Simulate, CombineOnArrivalWaitsForASendOfTheSameRegion) {
  // Rank 0 sends its recv buffer to 2 and combines 1's message into it in
  // the same step; 2 is late, so the send ends at 10 + 5: the combine waits.
  auto programs = empty_programs(3);
  add_step(programs[0], {send_op(2, recv_buf(0, 100)), recv_op(1, recv_buf(0, 100), Combine::right)});
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {recv_op(0, recv_buf(0, 100))});
  Params params = model(3);
  params.arrivals = {0.0, 0.0, 10.0};
  EXPECT_DOUBLE_EQ(simulate(params, programs).exit[0], 10 + kTransfer + kCombine);
  // Into another region it does not wait (it hides under the send).
  programs[0].steps[0].ops[1].dst = scratch_buf(0, 100);
  EXPECT_DOUBLE_EQ(simulate(params, programs).exit[0], 10 + kTransfer);
}

TEST(Simulate, CombineOnArrivalKeepsOpOrderForANonCommutativeOp) {
  // The recv from 2 (op order first) arrives last: with a non-commutative
  // op, the combine of 1's message waits for it.
  auto programs = empty_programs(3);
  add_step(programs[0], {recv_op(2, recv_buf(0, 100), Combine::right), recv_op(1, recv_buf(0, 100), Combine::right)});
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {send_op(0, send_buf(0, 100))});
  Params params = model(3);
  params.arrivals = {0.0, 0.0, 10.0};
  EXPECT_DOUBLE_EQ(simulate(params, programs).exit[0], 10 + kTransfer + kCombine);  // commutative: 1's hides
  params.commutative = false;
  EXPECT_DOUBLE_EQ(simulate(params, programs).exit[0], 10 + kTransfer + 2 * kCombine);
}

TEST(Simulate, CombineOnArrivalOverlapsACombineWithTheNextTransfer) {
  auto programs = empty_programs(3);
  add_step(programs[0], {recv_op(1, recv_buf(0, 100), Combine::right), recv_op(2, scratch_buf(0, 100), Combine::right)});
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {send_op(0, send_buf(0, 100))});
  SimulateOptions options;
  options.combine_on_arrival = true;
  options.record_timeline = true;
  const SimulateResult r = simulate(model(3), programs, options);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[0], 2 * kTransfer + kCombine);  // the first combine hides under the second transfer
  int combines = 0;
  for (const TimelineEntry &e : r.timeline) combines += e.activity == Activity::combine;
  EXPECT_EQ(combines, 2);
}

TEST(Simulate, CombineOnArrivalSerialisesCombinesOnOneRank) {
  // The second message arrives while the first is still being combined:
  // combines queue on the rank's one CPU.
  auto programs = empty_programs(3);
  add_step(programs[0], {recv_op(1, recv_buf(0, 100), Combine::right), recv_op(2, scratch_buf(0, 100), Combine::right)});
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {send_op(0, send_buf(0, 100))});
  Params params = model(3);
  params.cost.gamma = 0.1;  // a combine (40) takes longer than a transfer (5)
  SimulateOptions options;
  options.combine_on_arrival = true;
  EXPECT_DOUBLE_EQ(simulate(params, programs, options).exit[0], kTransfer + 2 * 40.0);
  options.combine_on_arrival = false;
  EXPECT_DOUBLE_EQ(simulate(params, programs, options).exit[0], 2 * kTransfer + 2 * 40.0);
}

TEST(Simulate, BusyPortGoesToTheEarliestReadyMessage) {
  // Rank 0 receives from 1 (ready at 0) and from 2 (ready at 1): the port
  // serves 1 first although the recv from 2 comes first in op order.
  auto programs = empty_programs(3);
  add_step(programs[0], {recv_op(2, recv_buf(0, 100)), recv_op(1, scratch_buf(0, 100))});
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {send_op(0, send_buf(0, 100))});
  Params params = model(3);
  params.arrivals = {0.0, 0.0, 1.0};
  const SimulateResult r = simulate(params, programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[1], kTransfer);
  EXPECT_DOUBLE_EQ(r.exit[2], 2 * kTransfer);
}

TEST(Simulate, MessagesBetweenAPairMatchFirstInFirstOut) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[0], {send_op(1, send_buf(0, 50))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100)), recv_op(0, recv_buf(100, 50))});
  const SimulateResult r = simulate(model(2), programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[1], kTransfer + (1.0 + 0.01 * 200));
}

TEST(Simulate, MismatchedCountsAreReported) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 99))});
  const SimulateResult r = simulate(model(2), programs);
  EXPECT_NE(r.error.find("sends 100 elements"), std::string::npos) << r.error;
}

TEST(Simulate, DeadlockIsReportedNamingTheRank) {
  auto programs = empty_programs(2);
  add_step(programs[0], {recv_op(1, recv_buf(0, 1))});
  add_step(programs[0], {send_op(1, send_buf(0, 1))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 1))});
  add_step(programs[1], {send_op(0, send_buf(0, 1))});
  const SimulateResult r = simulate(model(2), programs);
  EXPECT_NE(r.error.find("deadlock: rank 0"), std::string::npos) << r.error;
}

TEST(Simulate, InvalidPeerIsReported) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(0, send_buf(0, 1))});
  EXPECT_NE(simulate(model(2), programs).error.find("invalid peer"), std::string::npos);
}

TEST(Simulate, LocalCombineCostsGammaAndCopyIsFreeByDefault) {
  auto programs = empty_programs(1);
  add_step(programs[0], {copy_op(send_buf(0, 100), recv_buf(0, 100))});
  add_step(programs[0], {combine_op(send_buf(0, 100), recv_buf(0, 100), Combine::left)});
  EXPECT_DOUBLE_EQ(simulate(model(1), programs).exit[0], kCombine);
  SimulateOptions options;
  options.copy_seconds_per_byte = 0.002;
  EXPECT_DOUBLE_EQ(simulate(model(1), programs, options).exit[0], 0.8 + kCombine);
}

TEST(Simulate, LocalOpsDelayThePostingOfTheSameStep) {
  auto programs = empty_programs(2);
  add_step(programs[0], {combine_op(send_buf(0, 100), scratch_buf(0, 100), Combine::left), send_op(1, scratch_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100))});
  EXPECT_DOUBLE_EQ(simulate(model(2), programs).exit[1], kCombine + kTransfer);
}

TEST(Simulate, RankWithoutStepsExitsAtItsArrival) {
  Params params = model(3);
  params.arrivals = {1.0, 2.0, 3.0};
  const SimulateResult r = simulate(params, empty_programs(3));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.exit, params.arrivals);
  EXPECT_DOUBLE_EQ(r.run_time, 2.0);
  EXPECT_DOUBLE_EQ(r.average_elapsed, 0.0);
}

TEST(Simulate, WrongArrivalVectorSizeIsReported) {
  Params params = model(2);
  params.arrivals = {0.0};
  EXPECT_NE(simulate(params, empty_programs(2)).error, "");
}

TEST(Simulate, TimelineRecordsEveryBusyInterval) {
  auto programs = empty_programs(2);
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {recv_op(0, recv_buf(0, 100), Combine::left)});
  SimulateOptions options;
  options.record_timeline = true;
  const SimulateResult r = simulate(model(2), programs, options);
  ASSERT_EQ(r.timeline.size(), 3u);
  EXPECT_EQ(r.timeline[0].activity, Activity::send);
  EXPECT_EQ(r.timeline[0].peer, 1);
  EXPECT_EQ(r.timeline[1].activity, Activity::recv);
  EXPECT_EQ(r.timeline[2].activity, Activity::combine);
  EXPECT_DOUBLE_EQ(r.timeline[2].start, kTransfer);
  EXPECT_DOUBLE_EQ(r.timeline[2].end, kTransfer + kCombine);
  EXPECT_TRUE(simulate(model(2), programs).timeline.empty());
}

TEST(Simulate, LinearReduceTakesPMinusOneRoundsAtTheRoot) {
  const Algorithm *linear = find_algorithm(Collective::reduce, "linear");
  ASSERT_NE(linear, nullptr);
  for (int procs : {1, 2, 5, 16}) {
    Params params = model(procs);
    params.count = 100;
    params.root = procs / 2;
    const SimulateResult r = simulate(*linear, params);
    ASSERT_EQ(r.error, "");
    EXPECT_NEAR(r.run_time, (procs - 1) * (kTransfer + kCombine), 1e-9) << "P=" << procs;
  }
}

TEST(Simulate, LinearReduceAbsorbsALateLeafUpToTheWholeImbalance) {
  // The root receives in rank order; the last leaf arriving late by less than
  // the P−2 rounds before its turn costs nothing: absorption = imbalance.
  const Algorithm *linear = find_algorithm(Collective::reduce, "linear");
  ASSERT_NE(linear, nullptr);
  Params params = model(6);
  params.count = 100;
  const double balanced = simulate(*linear, params).run_time;
  params.arrivals.assign(6, 0.0);
  params.arrivals[5] = 3 * (kTransfer + kCombine);
  const SimulateResult late = simulate(*linear, params);
  ASSERT_EQ(late.error, "");
  EXPECT_NEAR(late.run_time, balanced, 1e-9);
  EXPECT_NEAR(absorption(balanced, late.run_time, imbalance(params.arrivals)), imbalance(params.arrivals), 1e-9);
}

TEST(Simulate, UnsupportedParamsAreReportedNotSimulated) {
  const Algorithm *linear = find_algorithm(Collective::reduce, "linear");
  ASSERT_NE(linear, nullptr);
  Params params = model(4);
  params.arrivals = {0.0, 1.0};
  EXPECT_NE(simulate(*linear, params).error, "");
}

TEST(Simulate, PortModelNamesRoundTrip) {
  PortModel model = PortModel::full_duplex;
  EXPECT_TRUE(parse_port_model("uni", model));
  EXPECT_EQ(model, PortModel::unidirectional);
  EXPECT_TRUE(parse_port_model(to_string(PortModel::full_duplex), model));
  EXPECT_EQ(model, PortModel::full_duplex);
  EXPECT_FALSE(parse_port_model("half", model));
}

namespace {

// A hand-written segmented chain toward rank 0 (the shape of [M]'s linear
// pipeline): rank r receives segment j from r+1 while it forwards j−1.
std::vector<Program> hand_chain(int procs, int segments, std::int64_t segment_count) {
  auto programs = empty_programs(procs);
  auto seg = [&](int j) { return recv_buf(j * segment_count, segment_count); };
  for (int rank = 0; rank < procs; ++rank) {
    Program &p = programs[static_cast<std::size_t>(rank)];
    const bool first = rank == procs - 1, last = rank == 0;
    for (int j = 0; j <= segments; ++j) {
      std::vector<Op> ops;
      if (!last && j > 0) ops.push_back(send_op(rank - 1, seg(j - 1)));
      if (!first && j < segments) ops.push_back(recv_op(rank + 1, seg(j), Combine::right));
      if (first && j < segments) ops = {send_op(rank - 1, seg(j))};
      if (first && j == segments) ops.clear();
      add_step(p, ops);
    }
  }
  return programs;
}

}  // namespace

TEST(Simulate, ChainPipelineTakesPPlusNMinusTwoRoundsInFullDuplex) {
  for (int procs : {2, 3, 6})
    for (int segments : {1, 3, 8}) {
      const SimulateResult r = simulate(model(procs), hand_chain(procs, segments, 100));
      ASSERT_EQ(r.error, "");
      EXPECT_NEAR(r.run_time, (procs + segments - 2) * (kTransfer + kCombine), 1e-9)
          << "P=" << procs << " N=" << segments;
    }
}

TEST(Simulate, ChainPipelineTakesPMinusOnePlusTwiceNMinusOneRoundsUnidirectionalWithoutCompute) {
  // [LL] Table I pipeline with γ = 0.
  Params params = model(1);
  params.cost.gamma = 0;
  SimulateOptions options;
  options.ports = PortModel::unidirectional;
  for (int procs : {4, 5, 8})
    for (int segments : {1, 3, 8}) {
      params.procs = procs;
      const SimulateResult r = simulate(params, hand_chain(procs, segments, 100), options);
      ASSERT_EQ(r.error, "");
      EXPECT_NEAR(r.run_time, (procs - 1 + 2 * (segments - 1)) * kTransfer, 1e-9) << "P=" << procs << " N=" << segments;
    }
}

TEST(Simulate, EveryCatalogueAlgorithmRunsToCompletionInBothPortModels) {
  std::mt19937_64 rng(11);
  int cases = 0;
  for (const Algorithm &algorithm : algorithms())
    for (int procs : {1, 2, 3, 5, 8, 17})
      for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{procs + 1}, std::int64_t{1000}})
        for (bool with_pats : {false, true})
          for (PortModel ports : {PortModel::full_duplex, PortModel::unidirectional}) {
            Params params = model(procs);
            params.collective = algorithm.collective;
            params.count = count;
            params.root = procs / 2;
            params.segment_elements = 7;
            if (with_pats) {
              std::uniform_real_distribution<double> delay(0.0, 50.0);
              for (int r = 0; r < procs; ++r) params.arrivals.push_back(delay(rng));
            }
            if (!unsupported_reason(algorithm, params).empty()) continue;
            SimulateOptions options;
            options.ports = ports;
            const SimulateResult r = simulate(algorithm, params, options);
            ASSERT_EQ(r.error, "") << to_string(algorithm.collective) << " " << algorithm.name << " P=" << procs
                                   << " count=" << count << " " << to_string(ports);
            EXPECT_GE(r.run_time, 0.0);
            ++cases;
          }
  EXPECT_GT(cases, 100);
}

// ---- Tags, groups and dependencies within a step (core/ir.hpp) -----------

TEST(SimulateDependencies, AForwardLeavesAsSoonAsItsGroupIsIn) {
  // Rank 1 receives A from rank 0 (at once) and B from rank 3 (which
  // arrives at 100), and forwards A to rank 2. In one step with the
  // forward after A's group, rank 2 has A after two transfers; as two
  // steps (receive both, then forward) it waits for B.
  Params params = model(4);
  params.arrivals = {0, 0, 0, 100};
  auto programs = empty_programs(4);
  programs[1].scratch_count = 200;
  add_step(programs[0], {send_op(1, send_buf(0, 100))});
  add_step(programs[3], {send_op(1, send_buf(0, 100))});
  add_step(programs[1], {tagged(recv_op(0, scratch_buf(0, 100)), 0, 0), recv_op(3, scratch_buf(100, 100)),
                         tagged(send_op(2, scratch_buf(0, 100)), 0, -1, 0)});
  add_step(programs[2], {recv_op(1, recv_buf(0, 100))});
  SimulateResult r = simulate(params, programs);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[2], 2 * kTransfer);
  EXPECT_DOUBLE_EQ(r.exit[1], 100 + kTransfer);  // the step ends with B

  auto steps = programs;
  steps[1].steps[0].ops.pop_back();
  steps[1].steps[0].ops[0] = recv_op(0, scratch_buf(0, 100));
  add_step(steps[1], {send_op(2, scratch_buf(0, 100))});
  r = simulate(params, steps);
  ASSERT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.exit[2], 100 + 2 * kTransfer);
}

TEST(SimulateDependencies, AForwardWaitsForItsGroupsCombines) {
  // Rank 0 adds two parts (γ each, one after the other on its CPU), then
  // forwards the sum.
  Params params = model(4);
  auto programs = empty_programs(4);
  add_step(programs[1], {send_op(0, send_buf(0, 100))});
  add_step(programs[2], {send_op(0, send_buf(0, 100))});
  add_step(programs[0], {copy_op(send_buf(0, 100), recv_buf(0, 100)), tagged(recv_op(1, recv_buf(0, 100), Combine::left), 0, 0),
                         tagged(recv_op(2, recv_buf(0, 100), Combine::left), 0, 0),
                         tagged(send_op(3, recv_buf(0, 100)), 0, -1, 0)});
  add_step(programs[3], {recv_op(0, recv_buf(0, 100))});
  const SimulateResult r = simulate(params, programs);
  ASSERT_EQ(r.error, "");
  // Both parts come in together (one per sender, the receive port takes
  // them one after the other): the second at 2 transfers, its combine
  // after the first's.
  EXPECT_DOUBLE_EQ(r.exit[3], 2 * kTransfer + kCombine + kTransfer);
}

TEST(SimulateDependencies, TagsMatchEachChannelFirstInFirstOut) {
  auto programs = empty_programs(2);
  add_step(programs[0], {tagged(send_op(1, send_buf(0, 2)), 1), tagged(send_op(1, send_buf(0, 3)), 2)});
  add_step(programs[1], {tagged(recv_op(0, recv_buf(0, 3)), 2), tagged(recv_op(0, recv_buf(3, 2)), 1)});
  EXPECT_EQ(simulate(model(2), programs).error, "");
  programs[1].steps[0].ops[0].tag = 0;  // now it waits on tag 0, where nothing comes
  programs[1].steps[0].ops[1].tag = 0;
  programs[0].steps[0].ops[0].tag = 0;
  programs[0].steps[0].ops[1].tag = 0;
  EXPECT_NE(simulate(model(2), programs).error.find("receives"), std::string::npos);  // FIFO: 2 elements into 3
}

TEST(SimulateDependencies, OwnerTreesRunAndMatchTheirFlatForm) {
  for (int procs : {2, 3, 8, 13}) {
    Params params = model(procs);
    params.collective = Collective::allreduce;
    params.count = 1000;
    const auto programs = relay_programs::allreduce_owner_trees_all(params, 3 * procs, 4);
    const SimulateResult r = simulate(params, programs);
    ASSERT_EQ(r.error, "") << procs;
    EXPECT_GT(r.run_time, 0);
    const FlatPrograms flat = flatten(programs);
    ASSERT_EQ(flat.deps.size(), flat.ops.size());
    for (int rank = 0; rank < procs; ++rank) {
      const Program back = flat.program(rank);
      ASSERT_EQ(back.steps.size(), 1u);
      for (std::size_t o = 0; o < back.steps[0].ops.size(); ++o) {
        const Op &a = back.steps[0].ops[o], &b = programs[static_cast<std::size_t>(rank)].steps[0].ops[o];
        EXPECT_EQ(a.tag, b.tag);
        EXPECT_EQ(a.group, b.group);
        EXPECT_EQ(a.after, b.after);
      }
    }
  }
}
