// Facts of the bcast builders that the catalogue matrix does not check:
// round counts (in a latency-only model, α = 1 s, β = 0, one round = one
// α), the arrival-sorted tree's shape, the clairvoyant broadcast's bound
// with a late non-root rank, merged messages, determinism. Correctness
// itself is proved by the validator (test_catalog_validation.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "core/algorithm.hpp"
#include "core/bound.hpp"
#include "core/builders/bcast.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

Params make(int procs, std::int64_t count, int root = 0) {
  Params p;
  p.collective = Collective::bcast;
  p.procs = procs;
  p.count = count;
  p.root = root;
  p.element_bytes = 1;
  return p;
}

// One round = α = 1 s: a message costs 1 s whatever its size.
Params rounds_model(Params p) {
  p.cost.alpha = 1;
  p.cost.beta = 0;
  p.cost.gamma = 0;
  return p;
}

double rounds(const char *name, const Params &p) {
  const Algorithm *algorithm = find_algorithm(Collective::bcast, name);
  EXPECT_NE(algorithm, nullptr) << name;
  const SimulateResult result = simulate(p, build_all(*algorithm, p));
  EXPECT_EQ(result.error, "") << name;
  return result.run_time;
}

std::int64_t messages_received(const Program &program) {
  std::int64_t n = 0;
  for (const Step &step : program.steps)
    for (const Op &op : step.ops) n += op.kind == OpKind::recv;
  return n;
}

const int kProcs[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 32, 48, 100};

TEST(BcastRounds, BinomialAndSortedBinomialTakeCeilLog2PRounds) {
  for (int procs : kProcs)
    for (int root : {0, procs / 2, procs - 1}) {
      const Params p = rounds_model(make(procs, 1000, root));
      EXPECT_DOUBLE_EQ(rounds("binomial", p), ceil_log2(procs)) << procs;
      EXPECT_DOUBLE_EQ(rounds("sorted_binomial", p), ceil_log2(procs)) << procs;
    }
}

TEST(BcastRounds, LinearTakesPMinusOneRoundsAtTheRootsPort) {
  for (int procs : kProcs) EXPECT_DOUBLE_EQ(rounds("linear", rounds_model(make(procs, 1000))), procs - 1) << procs;
}

TEST(BcastRounds, ChainTakesPMinus2PlusSRounds) {
  for (int procs : kProcs)
    for (std::int64_t segments : {1, 4, 9}) {
      Params p = rounds_model(make(procs, 1000, procs / 3));
      p.segment_count = segments;
      const double expected = procs == 1 ? 0 : procs - 2 + segments;
      EXPECT_DOUBLE_EQ(rounds("chain", p), expected) << procs << " " << segments;
    }
}

TEST(BcastRounds, BinaryTakesTwoRoundsPerFurtherSegmentOnceThePipelineIsFull) {
  // An inner rank forwards each segment to two children, one round each:
  // once full, the pipeline delivers a segment every two rounds (every
  // round with at most three ranks, a chain).
  for (int procs : kProcs) {
    if (procs == 1) continue;
    Params p = rounds_model(make(procs, 1000, procs - 1));
    auto with_segments = [&](std::int64_t segments) {
      p.segment_count = segments;
      return rounds("binary", p);
    };
    const double per_segment = procs > 3 ? 2 : 1;
    EXPECT_DOUBLE_EQ(with_segments(4) - with_segments(3), per_segment) << procs;
    EXPECT_DOUBLE_EQ(with_segments(9) - with_segments(4), 5 * per_segment) << procs;
  }
}

TEST(BcastRounds, ScatterAllgatherTakesCeilLog2PPlusPMinusOneRounds) {
  for (int procs : kProcs) {
    const Params p = rounds_model(make(procs, 10 * procs, procs / 2));
    EXPECT_DOUBLE_EQ(rounds("scatter_allgather", p), procs == 1 ? 0 : ceil_log2(procs) + procs - 1) << procs;
  }
}

TEST(BcastScatterAllgather, CountBelowPSendsNoEmptyBlock) {
  const Params p = make(13, 5, 4);
  for (const Program &program : build_all(*find_algorithm(Collective::bcast, "scatter_allgather"), p))
    for (const Step &step : program.steps)
      for (const Op &op : step.ops) {
        if (op.kind == OpKind::send) EXPECT_GT(op.src.count, 0);
        if (op.kind == OpKind::recv) EXPECT_GT(op.dst.count, 0);
      }
  EXPECT_EQ(validate_all_modes(p, build_all(*find_algorithm(Collective::bcast, "scatter_allgather"), p)), "");
}

TEST(BcastSortedBinomial, TheLatestRankIsALeafFedInTheLastRoundAndTheRootStaysTheRoot) {
  for (int procs : {4, 7, 8, 16, 33}) {
    Params p = rounds_model(make(procs, 100, 2));
    p.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
    const int late = 1;
    p.arrivals[late] = 50;  // far beyond the tree's ⌈log2 P⌉ rounds
    const auto programs = build_all(*find_algorithm(Collective::bcast, "sorted_binomial"), p);
    EXPECT_EQ(messages_received(programs[static_cast<std::size_t>(p.root)]), 0);
    EXPECT_EQ(message_count(programs[late]), 0) << "the late rank sends nothing";
    // Nobody else waits for it: every other rank is done after ⌈log2 P⌉ rounds.
    const SimulateResult result = simulate(p, programs);
    for (int r = 0; r < procs; ++r)
      if (r != late && r != p.root) {
        bool feeds_late = false;
        for (const Step &step : programs[r].steps)
          for (const Op &op : step.ops) feeds_late = feeds_late || (op.kind == OpKind::send && op.peer == late);
        if (!feeds_late) EXPECT_LE(result.exit[r], ceil_log2(procs)) << procs << " rank " << r;
      }
    // The late rank: its arrival and one message.
    EXPECT_DOUBLE_EQ(result.exit[late], 51) << procs;
  }
}

// The bound of core/bound.cpp (docs/results/bcast.md).
double bound_of(const Params &p) { return bcast_bound(p, BoundCost::model(p.cost)).run_time; }

TEST(BcastBound, IsMaxOfArrivalAndRootArrivalPlusOneTransfer) {
  Params p = make(8, 1 << 20, 2);
  const double transfer = p.cost.alpha + (1 << 20) * p.cost.beta;
  const BoundCost model = BoundCost::model(p.cost);
  EXPECT_DOUBLE_EQ(bound(p, model)->run_time, transfer);  // balanced
  p.arrivals.assign(8, 0.0);
  p.arrivals[5] = 0.01;  // a non-root rank late
  EXPECT_DOUBLE_EQ(bound(p, model)->run_time, 0.01 + transfer);
  EXPECT_DOUBLE_EQ(bound(p, model)->elapsed[5], transfer);
  EXPECT_DOUBLE_EQ(bound(p, model)->elapsed[2], 0.0);  // the root
  p.arrivals[5] = 0, p.arrivals[2] = 0.01;  // the root late: everyone waits for it
  EXPECT_DOUBLE_EQ(bound(p, model)->run_time, 0.01 + transfer);
  EXPECT_DOUBLE_EQ(bound(p, model)->elapsed[0], 0.01 + transfer);
  EXPECT_DOUBLE_EQ(bcast_bound(make(1, 1 << 20), model).run_time, 0.0);  // one rank: nothing to receive
  EXPECT_DOUBLE_EQ(bcast_bound(make(8, 0), model).run_time, 0.0);        // nothing to send
}

TEST(BcastClairvoyant, OneLateNonRootRankFinishesWithinTheBound) {
  for (int procs : {4, 8, 17, 48})
    for (int late : {1, procs - 1}) {
      Params p = make(procs, 1 << 20, 0);
      const double balanced = rounds("clairvoyant", p);
      p.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
      p.arrivals[static_cast<std::size_t>(late)] = balanced;  // D = the balanced time
      const double run_time = rounds("clairvoyant", p);
      EXPECT_LE(run_time, bound_of(p) * (1 + 1e-9)) << procs << " late " << late;
      EXPECT_GE(run_time, bound_of(p) * (1 - 1e-9)) << procs << " late " << late << ": below the bound?";
    }
}

TEST(BcastClairvoyant, TheLateRankReceivesOneMessage) {
  Params p = make(16, 1 << 16, 3);
  p.arrivals.assign(16, 0.0);
  p.arrivals[9] = 0.05;
  const auto programs = build_all(*find_algorithm(Collective::bcast, "clairvoyant"), p);
  EXPECT_EQ(messages_received(programs[9]), 1);
  EXPECT_EQ(validate_all_modes(p, programs), "");
}

TEST(BcastClairvoyant, BalancedIsNeverSlowerThanTheChainAndEqualPatsAreNoPats) {
  for (int procs : {2, 5, 8, 17}) {
    Params p = make(procs, 1 << 20, procs / 2);
    EXPECT_LE(rounds("clairvoyant", p), rounds("chain", p) * (1 + 1e-9)) << procs;
    Params equal = p;
    equal.arrivals.assign(static_cast<std::size_t>(procs), 0.25);
    const Algorithm &clairvoyant = *find_algorithm(Collective::bcast, "clairvoyant");
    EXPECT_EQ(build_all(clairvoyant, p), build_all(clairvoyant, equal)) << procs;
    for (int rank = 0; rank < procs; ++rank)
      EXPECT_EQ(build_rank(clairvoyant, p, rank), build_all(clairvoyant, p)[static_cast<std::size_t>(rank)]);
  }
}

TEST(BcastValidator, AProgramThatLeavesARankWithoutTheDataIsRejected) {
  const Params p = make(4, 10, 1);
  std::vector<Program> programs = build_all(*find_algorithm(Collective::bcast, "linear"), p);
  EXPECT_EQ(validate_all_modes(p, programs), "");
  // Drop rank 3's receive and the root's send to it.
  programs[3].steps.clear();
  for (Step &step : programs[1].steps)
    std::erase_if(step.ops, [](const Op &op) { return op.kind == OpKind::send && op.peer == 3; });
  EXPECT_NE(validate_all_modes(p, programs), "");
}

}  // namespace
