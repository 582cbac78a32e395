// Facts of the PAP-aware builders ([PS] scatter/gather, [PA] slt/prr) that
// the catalogue matrix does not check: orders, shuffles, sync messages,
// message counts, ties and the prr regimes. Correctness itself is proved by
// the validator (test_catalog_validation.cpp and the late-rank cases here).
#include <gtest/gtest.h>

#include <random>

#include "core/algorithm.hpp"
#include "core/builders/pap.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"
#include "random_pats.hpp"

using namespace patcoll::core;

namespace {

Params make(Collective collective, int procs, std::int64_t count, int root = 0) {
  Params p;
  p.collective = collective;
  p.procs = procs;
  p.count = count;
  p.root = root;
  return p;
}

std::vector<Program> build(Collective c, const char *name, const Params &p) {
  return build_all(*find_algorithm(c, name), p);
}

// Peers of the send (or recv) ops of a program, in program order.
std::vector<int> peers(const Program &program, OpKind kind) {
  std::vector<int> out;
  for (const Step &step : program.steps)
    for (const Op &op : step.ops)
      if (op.kind == kind) out.push_back(op.peer);
  return out;
}

std::int64_t total_messages(const std::vector<Program> &programs) {
  std::int64_t n = 0;
  for (const Program &p : programs) n += message_count(p);
  return n;
}

int exchange_steps(const Program &program) {
  int n = 0;
  for (const Step &step : program.steps) {
    bool talks = false;
    for (const Op &op : step.ops) talks = talks || op.kind != OpKind::local;
    n += talks;
  }
  return n;
}

// --- arrival order -----------------------------------------------------------

TEST(ArrivalOrder, SortsEarliestFirstAndBreaksTiesByRank) {
  Params p = make(Collective::scatter, 5, 1);
  p.arrivals = {3.0, 1.0, 3.0, 1.0, 0.5};
  EXPECT_EQ(arrival_order(p), (std::vector<int>{4, 1, 3, 0, 2}));
}

TEST(ArrivalOrder, WithoutPatsIsRankOrder) {
  EXPECT_EQ(arrival_order(make(Collective::scatter, 4, 1)), (std::vector<int>{0, 1, 2, 3}));
}

// --- scatter -----------------------------------------------------------------

TEST(ScatterLin, RootSendsInRankOrder) {
  const auto programs = build(Collective::scatter, "linear", make(Collective::scatter, 6, 3, 2));
  EXPECT_EQ(peers(programs[2], OpKind::send), (std::vector<int>{0, 1, 3, 4, 5}));
}

TEST(ScatterSlin, RootSendsInArrivalOrderEarliestFirst) {
  Params p = make(Collective::scatter, 6, 3, 2);
  p.arrivals = {0.5, 0.1, 0.0, 0.9, 0.3, 0.2};
  const auto programs = build(Collective::scatter, "slin", p);
  EXPECT_EQ(peers(programs[2], OpKind::send), (std::vector<int>{1, 5, 4, 0, 3}));
}

TEST(ScatterSlin, EqualPatsGiveExactlyLin) {
  Params p = make(Collective::scatter, 7, 5, 3);
  p.arrivals.assign(7, 0.25);
  EXPECT_EQ(build(Collective::scatter, "slin", p), build(Collective::scatter, "linear", p));
}

TEST(ScatterSbn, RootFeedsPositionsOneTwoFourOfTheArrivalOrderFirst) {
  // Fig. 7: position j (root first, then PAT order) sits at slot bitrev(j);
  // the root sends to slots k/2, k/4, …, 1 = positions 1, 2, 4, …
  Params p = make(Collective::scatter, 8, 2, 5);
  p.arrivals = {0.7, 0.6, 0.5, 0.4, 0.3, 0.0, 0.2, 0.1};  // order after the root: 7, 6, 4, 3, 2, 1, 0
  const auto programs = build(Collective::scatter, "sbn", p);
  EXPECT_EQ(peers(programs[5], OpKind::send), (std::vector<int>{7, 6, 3}));
  // The earliest rank gets the upper half: blocks of positions 1, 3, 5, 7.
  EXPECT_EQ(programs[7].steps.front().ops.front().dst.count, 4 * 2);
}

TEST(ScatterSbn, RootShufflesIntoBitReversedOrder) {
  Params p = make(Collective::scatter, 4, 1, 0);
  p.arrivals = {0.0, 0.3, 0.2, 0.1};  // positions: 0, 3, 2, 1 → slots 0, 2, 1, 3 hold 0, 2, 3, 1
  const Program root = build(Collective::scatter, "sbn", p)[0];
  std::vector<Region> from, to;  // runs of consecutive ranks move as one copy
  for (const Step &step : root.steps)
    for (const Op &op : step.ops)
      if (op.kind == OpKind::local && op.dst.buffer == Buffer::scratch) from.push_back(op.src), to.push_back(op.dst);
  EXPECT_EQ(from, (std::vector<Region>{send_buf(2, 2), send_buf(1, 1)}));
  EXPECT_EQ(to, (std::vector<Region>{scratch_buf(1, 2), scratch_buf(3, 1)}));
}

TEST(ScatterSbn, WithoutPatsRootZeroNeedsNoShuffleAtPowersOfTwo) {
  // Positions in rank order at slots bitrev(j) are not rank order, so even
  // then the root shuffles; bnom with root 0 sends straight from its buffer.
  const Program bnom = build(Collective::scatter, "binomial", make(Collective::scatter, 8, 4))[0];
  EXPECT_EQ(bnom.scratch_count, 0);
  const Program sbn = build(Collective::scatter, "sbn", make(Collective::scatter, 8, 4))[0];
  EXPECT_EQ(sbn.scratch_count, 8 * 4);
}

// --- gather ------------------------------------------------------------------

TEST(GatherLin, RootReceivesInRankOrder) {
  const auto programs = build(Collective::gather, "linear", make(Collective::gather, 5, 2, 1));
  EXPECT_EQ(peers(programs[1], OpKind::recv), (std::vector<int>{0, 2, 3, 4}));
}

TEST(GatherLs, EveryLeafWaitsForAnEmptySyncThenSendsTwoSegments) {
  const int procs = 6;
  const auto programs = build(Collective::gather, "linear_sync", make(Collective::gather, procs, 9, 2));
  int syncs = 0;
  for (const Step &step : programs[2].steps)
    for (const Op &op : step.ops) syncs += op.kind == OpKind::send && op.src.count == 0;
  EXPECT_EQ(syncs, procs - 1);
  for (int r = 0; r < procs; ++r) {
    if (r == 2) continue;
    const Program &leaf = programs[r];
    ASSERT_EQ(leaf.steps.size(), 3u);
    EXPECT_EQ(leaf.steps[0].ops[0].kind, OpKind::recv);
    EXPECT_EQ(leaf.steps[0].ops[0].dst.count, 0);
    EXPECT_EQ(leaf.steps[1].ops[0].src.count + leaf.steps[2].ops[0].src.count, 9);
    EXPECT_EQ(message_count(leaf), 2);
  }
}

TEST(GatherSls, SynchronizesLeavesInArrivalOrder) {
  Params p = make(Collective::gather, 5, 4, 0);
  p.arrivals = {0.0, 0.4, 0.1, 0.3, 0.2};
  const Program root = build(Collective::gather, "sls", p)[0];
  std::vector<int> synced;
  for (const Step &step : root.steps)
    for (const Op &op : step.ops)
      if (op.kind == OpKind::send) synced.push_back(op.peer);
  EXPECT_EQ(synced, (std::vector<int>{2, 4, 3, 1}));
}

TEST(GatherSbn, LatestNonRootIsTheRootsLastChildAndEarliestSendFirst) {
  // Fig. 11: descending PAT order after the root; position 1 (the latest)
  // sends to the root last, the highest positions (earliest) are leaves.
  Params p = make(Collective::gather, 8, 3, 0);
  p.arrivals = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7};  // positions 1…7: ranks 7, 6, …, 1
  const auto programs = build(Collective::gather, "sbn", p);
  // The root drains slots 1, 2, 4 = positions 4, 2, 1 = ranks 4, 6, 7.
  EXPECT_EQ(peers(programs[0], OpKind::recv), (std::vector<int>{4, 6, 7}));
  EXPECT_EQ(peers(programs[1], OpKind::recv), std::vector<int>{});  // earliest: a leaf
  EXPECT_EQ(message_count(programs[1]), 1);
}

TEST(GatherSbn, RootUnshufflesIntoRankOrder) {
  Params p = make(Collective::gather, 6, 2, 4);
  p.arrivals = {0.5, 0.1, 0.3, 0.0, 0.9, 0.2};
  const auto programs = build(Collective::gather, "sbn", p);
  EXPECT_GT(programs[4].scratch_count, 0);
  EXPECT_EQ(validate_all_modes(p, programs), "");
}

// --- validator sweeps the catalogue leaves out ----------------------------------

TEST(PapScatterGather, TiedAndClusteredPatsAreProvedCorrectForEveryRoot) {
  std::mt19937_64 rng(7);
  for (const char *name : {"slin", "sbn", "sls", "sbn"}) {
    for (Collective c : {Collective::scatter, Collective::gather}) {
      const Algorithm *a = find_algorithm(c, name);
      if (!a) continue;
      for (int procs = 1; procs <= 33; ++procs) {
        for (int root = 0; root < procs; root += procs <= 9 ? 1 : 5) {
          Params p = make(c, procs, procs % 3 == 0 ? 0 : 2, root);
          std::uniform_int_distribution<int> bucket(0, 2);  // many ties
          for (int r = 0; r < procs; ++r) p.arrivals.push_back(0.1 * bucket(rng));
          ASSERT_EQ(validate_all_modes(p, build_all(*a, p)), "") << name << " P=" << procs << " root=" << root;
        }
      }
    }
  }
}

TEST(PapBuilders, OutputIsDeterministic) {
  std::mt19937_64 rng(3);
  for (const Algorithm &a : algorithms()) {
    if (!(a.capabilities & pap_aware) || a.collective == Collective::reduce) continue;
    Params p = make(a.collective, 13, 40, 4);
    p.arrivals = random_pats(13, rng);
    EXPECT_EQ(build_all(a, p), build_all(a, p)) << a.name;
  }
}

// --- allreduce slt -------------------------------------------------------------

TEST(AllreduceSlt, ChainIsSortedByArrivalLatestLast) {
  Params p = make(Collective::allreduce, 6, 60);
  p.arrivals = {0.5, 0.0, 0.9, 0.2, 0.1, 0.3};
  const std::vector<int> order = arrival_order(p);  // 1, 4, 3, 5, 0, 2
  const auto programs = build(Collective::allreduce, "slt", p);
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::vector<int> expected;
    if (i + 1 < order.size()) expected.push_back(order[i + 1]);
    const std::vector<int> sends = peers(programs[order[i]], OpKind::send);
    ASSERT_FALSE(sends.empty());
    // Every rank first passes its partial to its successor in arrival order;
    // the latest rank (chain end) first sends the result back to its predecessor.
    EXPECT_EQ(sends.front(), i + 1 < order.size() ? order[i + 1] : order[i - 1]) << "position " << i;
  }
}

// [PA] Fig. 6: P = 4, three segments, τ = one segment transfer; process 0
// late by 4τ costs 14τ with the rank-order linear tree and 12τ with the
// chain sorted by arrival (the late process last); balanced, 10τ.
TEST(AllreduceSlt, PaFigure6FourteenTauBecomeTwelve) {
  Params p = make(Collective::allreduce, 4, 3000);
  p.segment_count = 3;
  p.element_bytes = 1;
  p.cost = CostModel{1.0, 0.0, 0.0};  // τ = α = 1
  const Algorithm &linear_tree = *find_algorithm(Collective::allreduce, "linear_tree");
  const Algorithm &slt = *find_algorithm(Collective::allreduce, "slt");
  EXPECT_NEAR(simulate(linear_tree, p).run_time, 10.0, 1e-9);
  p.arrivals = {4.0, 0.0, 0.0, 0.0};
  EXPECT_NEAR(simulate(linear_tree, p).run_time, 14.0, 1e-9);
  EXPECT_NEAR(simulate(slt, p).run_time, 12.0, 1e-9);
}

// The linear tree's single-port cost: inner ranks send two segments per
// round once both directions run, (2(P − 1) + 2(S − 1))τ for P ≥ 3, S ≠ 2.
TEST(AllreduceLinearTree, CostsTwoPMinusOnePlusTwoSMinusOneSegmentTimes) {
  for (int procs = 3; procs <= 9; ++procs)
    for (std::int64_t segments : {1, 3, 4, 8}) {
      Params p = make(Collective::allreduce, procs, 1000 * segments);
      p.segment_count = segments;
      p.element_bytes = 1;
      p.cost = CostModel{1.0, 0.0, 0.0};
      EXPECT_NEAR(simulate(*find_algorithm(Collective::allreduce, "linear_tree"), p).run_time,
                  2.0 * (procs - 1) + 2.0 * (segments - 1), 1e-9)
          << "P=" << procs << " S=" << segments;
    }
}

TEST(AllreduceSlt, WithoutPatsIsExactlyLinearTree) {
  for (int procs : {1, 2, 5, 16}) {
    Params p = make(Collective::allreduce, procs, 1000);
    p.segment_elements = 7;
    EXPECT_EQ(build(Collective::allreduce, "slt", p), build(Collective::allreduce, "linear_tree", p));
    p.arrivals.assign(procs, 1.0);  // equal PATs: ties by rank
    EXPECT_EQ(build(Collective::allreduce, "slt", p), build(Collective::allreduce, "linear_tree", p));
  }
}

// --- allreduce prr -------------------------------------------------------------

Params one_late(int procs, std::int64_t count, int late_rank, double delay) {
  Params p = make(Collective::allreduce, procs, count);
  p.arrivals.assign(procs, 0.0);
  p.arrivals[late_rank] = delay;
  return p;
}

TEST(AllreducePrr, WithoutOrWithEqualPatsIsExactlyRing) {
  for (int procs : {1, 2, 3, 8, 17}) {
    Params p = make(Collective::allreduce, procs, 100);
    EXPECT_EQ(build(Collective::allreduce, "prr", p), build(Collective::allreduce, "ring", p));
    p.arrivals.assign(procs, 0.5);
    EXPECT_EQ(build(Collective::allreduce, "prr", p), build(Collective::allreduce, "ring", p));
  }
}

TEST(AllreducePrr, SendsRingsMessageCountUnlessTheLatestRankIsVeryLate) {
  std::mt19937_64 rng(11);
  int prereduced = 0, ringed = 0;
  for (int procs = 2; procs <= 33; ++procs) {
    for (int trial = 0; trial < 6; ++trial) {
      Params p = make(Collective::allreduce, procs, 10 * procs);
      p.arrivals = random_pats(procs, rng);
      if (trial % 3 == 2) p.arrivals[trial % procs] += 1.0;  // one very late rank
      const std::int64_t P = procs;
      const auto programs = build(Collective::allreduce, "prr", p);
      if (prr_uses_presteps(p)) {
        ++prereduced;
        EXPECT_EQ(total_messages(programs), (P - 1) * (2 * P - 2)) << "P=" << procs;
      } else {
        ++ringed;
        EXPECT_EQ(total_messages(programs), P * (2 * P - 2)) << "P=" << procs;
      }
    }
  }
  EXPECT_GT(prereduced, 20);
  EXPECT_GT(ringed, 20);
}

TEST(AllreducePrr, VeryLateRankTakesPartInOnlyPMinusOneExchangeSteps) {
  for (int procs : {2, 3, 4, 7, 16, 33}) {
    const int late = procs / 2;
    const Params p = one_late(procs, 5 * procs, late, 1.0);
    ASSERT_TRUE(prr_uses_presteps(p));
    const auto programs = build(Collective::allreduce, "prr", p);
    for (int r = 0; r < procs; ++r)
      EXPECT_EQ(exchange_steps(programs[r]), r == late ? procs - 1 : 2 * procs - 3) << "P=" << procs << " rank " << r;
  }
}

TEST(AllreducePrr, SlightlyLateRankKeepsTheRing) {
  // Late by less than P ring rounds: the ring over the arrival order.
  const Params p = one_late(8, 800, 3, 1e-9);
  EXPECT_FALSE(prr_uses_presteps(p));
  for (const Program &program : build(Collective::allreduce, "prr", p)) EXPECT_EQ(exchange_steps(program), 2 * 8 - 2);
}

TEST(AllreducePrr, PrereducedFormIsProvedCorrectForEveryLateRankAndCount) {
  for (int procs = 2; procs <= 33; ++procs) {
    for (int late = 0; late < procs; late += procs <= 9 ? 1 : 7) {
      for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{procs - 1}, std::int64_t{procs + 1}, std::int64_t{200}}) {
        Params p = one_late(procs, count, late, 1.0);
        for (int r = 0; r < procs; ++r) p.arrivals[r] += 1e-3 * ((r * 7) % 5);  // scrambled early order
        const std::string error = validate_all_modes(p, build(Collective::allreduce, "prr", p));
        ASSERT_EQ(error, "") << "P=" << procs << " late=" << late << " count=" << count;
      }
    }
  }
}

}  // namespace
