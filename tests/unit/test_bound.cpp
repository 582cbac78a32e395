// core/bound.hpp, fact by fact (the proofs: docs/results/bounds.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <string>

#include "core/bound.hpp"
#include "core/simulate.hpp"
#include "core/traits.hpp"

using namespace patcoll::core;

namespace {

// α = 1, β = 0.01 s/B, γ = 0.001 s/B, 100 4-byte elements: a transfer of the
// message costs α + βm = 5, its combine γm = 0.4.
Params model(Collective collective, std::vector<double> arrivals) {
  Params params;
  params.collective = collective;
  params.procs = static_cast<int>(arrivals.size());
  params.count = 100;
  params.element_bytes = 4;
  params.cost = CostModel{1.0, 0.01, 0.001};
  params.arrivals = std::move(arrivals);
  return params;
}

}  // namespace

TEST(Bound, ScatterAndGatherHaveNone) {
  EXPECT_TRUE(has_bound(Collective::reduce));
  EXPECT_TRUE(has_bound(Collective::allreduce));
  EXPECT_TRUE(has_bound(Collective::allgather));
  EXPECT_TRUE(has_bound(Collective::allgatherv));
  EXPECT_FALSE(has_bound(Collective::scatter));
  EXPECT_FALSE(has_bound(Collective::gather));
  Params params = model(Collective::scatter, {0, 0});
  EXPECT_FALSE(bound(params, BoundCost::model(params.cost)).has_value());
}

TEST(Bound, ModelBoundIsLatestArrivalPlusOneTransferAndOneCombineOfTheMessage) {
  for (Collective collective : {Collective::reduce, Collective::allreduce}) {
    const Params params = model(collective, {3, 1, 7, 1});
    const BoundTimes times = *bound(params, BoundCost::model(params.cost));
    EXPECT_DOUBLE_EQ(times.run_time, 7 - 1 + 5.4);
    ASSERT_EQ(times.elapsed.size(), 4u);
    EXPECT_DOUBLE_EQ(times.elapsed[0], 4 + 5.4);
    EXPECT_DOUBLE_EQ(times.elapsed[2], 5.4);
    EXPECT_DOUBLE_EQ(times.average_elapsed, (4 + 6 + 0 + 6) / 4.0 + 5.4);
  }
}

TEST(Bound, BalancedWhenThereAreNoArrivals) {
  Params params = model(Collective::allreduce, {});
  params.procs = 3;
  const BoundTimes times = *bound(params, BoundCost::model(params.cost));
  EXPECT_DOUBLE_EQ(times.run_time, 5.4);
  EXPECT_DOUBLE_EQ(times.average_elapsed, 5.4);
  EXPECT_EQ(times.elapsed.size(), 3u);
}

TEST(Bound, MeasuredCostsScaleLinearlyBelowTheProbeAndStayAtTheProbeAbove) {
  const BoundCost cost = BoundCost::measured(2.0, 0.5, 400);
  EXPECT_DOUBLE_EQ(cost.transfer(400), 2.0);
  EXPECT_DOUBLE_EQ(cost.transfer(100), 0.5);
  EXPECT_DOUBLE_EQ(cost.combine(200), 0.25);
  EXPECT_DOUBLE_EQ(cost.transfer(800), 2.0);
  // A scaled α + bβ never exceeds the model's α + bβ below the probe size.
  const CostModel m{1.0, 0.01, 0.001};
  const BoundCost probed = BoundCost::measured(m.transfer_time(400), m.gamma * 400, 400);
  for (double b : {0.0, 1.0, 50.0, 399.0, 400.0}) EXPECT_LE(probed.transfer(b), m.transfer_time(b) + 1e-12);
  // A probe of 0 bytes is the cost of every size.
  EXPECT_DOUBLE_EQ(BoundCost::measured(3.0, 0, 0).transfer(0), 3.0);
}

TEST(Bound, MeasuredBoundOfTheMessageUsesTheProbesAsMeasured) {
  Params params = model(Collective::reduce, {0, 2});
  const BoundTimes times = *bound(params, BoundCost::measured(0.3, 0.1, 400));
  EXPECT_DOUBLE_EQ(times.run_time, 2.4);
  EXPECT_DOUBLE_EQ(times.average_elapsed, (2 + 0) / 2.0 + 0.4);
}

// ---- tight_bound ------------------------------------------------------------

namespace {

// k of `procs` ranks (the highest) late by `late`, the others at 0.
std::vector<double> k_late(int procs, int k, double late) {
  std::vector<double> pat(static_cast<std::size_t>(procs), 0.0);
  for (int i = 0; i < k; ++i) pat[static_cast<std::size_t>(procs - 1 - i)] = late;
  return pat;
}

double tight_run(const Params &params, bool one_port = false) {
  BoundCost cost = BoundCost::model(params.cost);
  cost.one_port = one_port;
  return tight_bound(params, cost)->run_time;
}

}  // namespace

TEST(TightBound, ExistsWhereBoundDoes) {
  for (Collective c : {Collective::reduce, Collective::allreduce, Collective::bcast, Collective::allgather,
                       Collective::allgatherv, Collective::alltoall, Collective::alltoallv, Collective::scatter,
                       Collective::gather}) {
    Params params = model(c, {0, 1, 0});
    if (c == Collective::allgatherv) params.counts = {100, 100, 100};
    if (c == Collective::alltoallv) params.counts.assign(9, 100);
    EXPECT_EQ(tight_bound(params, BoundCost::model(params.cost)).has_value(), has_bound(c)) << to_string(c);
  }
}

// One late rank: the latest arrival plus one transfer of the message, which
// is bound() without its reduction of the message.
TEST(TightBound, OneLateRankIsTheLatestArrivalPlusOneTransferOfTheMessage) {
  for (Collective c : {Collective::reduce, Collective::allreduce})
    for (int procs : {2, 4, 8}) {
      const Params params = model(c, k_late(procs, 1, 20));
      const BoundCost cost = BoundCost::model(params.cost);
      EXPECT_DOUBLE_EQ(tight_run(params), 20 + 5) << to_string(c) << " P = " << procs;
      EXPECT_DOUBLE_EQ(tight_run(params), bound(params, cost)->run_time - cost.combine(400));
    }
  // One port: the late rank of an allreduce sends its m bytes and receives
  // the result's m bytes through it; a reduce's late rank only sends.
  EXPECT_DOUBLE_EQ(tight_run(model(Collective::allreduce, k_late(4, 1, 20)), true), 20 + 2 * 5);
  EXPECT_DOUBLE_EQ(tight_run(model(Collective::reduce, k_late(4, 1, 20)), true), 20 + 5);
}

// Balanced (k = P): Patarasuk and Yuan's 2(P − 1)/P·m through the busiest
// port, in at least two messages of at most m bytes (α = 1, β = 0.01, m = 400).
TEST(TightBound, BalancedAllreduceIsPatarasukAndYuansTwoPMinusOneOverPMessages) {
  for (int procs : {3, 4, 8, 16}) {
    const double bytes = 2.0 * (procs - 1) / procs * 400;
    EXPECT_NEAR(tight_run(model(Collective::allreduce, k_late(procs, procs, 0))), 2 * 1 + 0.01 * bytes, 1e-12)
        << "P = " << procs;
    // All P late by D: the same after D.
    EXPECT_NEAR(tight_run(model(Collective::allreduce, k_late(procs, procs, 7))), 2 + 0.01 * bytes, 1e-12);
  }
  // P = 2: 2(P − 1)/P·m = m, one message.
  EXPECT_DOUBLE_EQ(tight_run(model(Collective::allreduce, {0, 0})), 5);
  // One port: every message holds two ports, 4(P − 1)/P·m per port.
  EXPECT_NEAR(tight_run(model(Collective::allreduce, k_late(4, 4, 0)), true), 3 * 1 + 0.01 * 1200, 1e-12);
}

// k late ranks of P: (P + k − 1)/P·m through the busiest port after they
// arrive (P = 8, k = 4: 11/8·m = 550 bytes, two messages).
TEST(TightBound, KLateRanksOfAnAllreduceForcePPlusKMinusOneOverPMessages) {
  EXPECT_NEAR(tight_run(model(Collective::allreduce, k_late(8, 4, 20))), 20 + 2 + 0.01 * 550, 1e-12);
  EXPECT_NEAR(tight_run(model(Collective::allreduce, k_late(8, 7, 20))), 20 + 2 + 0.01 * 700, 1e-12);
}

// Staggered arrivals: ranks that arrived less than one transfer of the
// message before T_k still hold values they must send after it. α = 0,
// β = 0.01 s/B, m = 400 B (t(m) = 4), arrivals 0, 1, 2, 3: after the last
// arrival the three others still hold 300 + 200 + 100 bytes, less one
// message's worth, so the ports carry 4·400 + 200 bytes after it:
// 3 + 0.01·1800/4 = 7.5, where the k-late count alone gives 3 + 4 = 7.
TEST(TightBound, RanksThatArrivedJustBeforeStillHoldTheirValues) {
  Params params = model(Collective::allreduce, {0, 1, 2, 3});
  params.cost = CostModel{0.0, 0.01, 0.001};
  EXPECT_NEAR(tight_run(params), 7.5, 1e-12);
  // Spread out by a transfer or more, nothing is held back: the k-late count.
  params.arrivals = {0, 4, 8, 12};
  EXPECT_NEAR(tight_run(params), 12 + 4, 1e-12);
}

// Monotone in k (k < P: with k = P nobody is early and the PAT is a
// balanced one shifted by D) and in D.
TEST(TightBound, MonotoneInTheLateRanksAndTheirDelay) {
  for (Collective c : {Collective::reduce, Collective::allreduce, Collective::bcast, Collective::allgather,
                       Collective::alltoall})
    for (bool one_port : {false, true})
      for (int procs : {2, 5, 8}) {
        std::vector<double> previous_k(4, 0.0);
        for (int k = 1; k < procs; ++k) {
          double previous_d = -1;
          std::size_t i = 0;
          for (double late : {0.0, 0.5, 3.0, 20.0}) {
            const double t = tight_run(model(c, k_late(procs, k, late)), one_port);
            EXPECT_GE(t, previous_d - 1e-12) << to_string(c) << " P = " << procs << " k = " << k << " D = " << late;
            EXPECT_GE(t, previous_k[i] - 1e-12) << to_string(c) << " P = " << procs << " k = " << k << " D = " << late;
            previous_d = previous_k[i++] = t;
          }
        }
        const double balanced = tight_run(model(c, k_late(procs, procs, 0)), one_port);
        EXPECT_NEAR(tight_run(model(c, k_late(procs, procs, 20)), one_port), balanced, 1e-12);
      }
}

// How tight_bound relates to bound on any PAT: never below bound minus one
// reduction of the message for reduce and allreduce, never below bound for
// the others (bcast: equal).
TEST(TightBound, NeverBelowBoundMinusOneReductionOfTheMessage) {
  std::mt19937_64 rng(20261128);
  for (int trial = 0; trial < 200; ++trial) {
    const int procs = 2 + static_cast<int>(rng() % 15);
    std::vector<double> pat(static_cast<std::size_t>(procs));
    for (double &a : pat) a = static_cast<double>(rng() % 4) * 3.0 * static_cast<double>(rng() % 2);
    for (Collective c : {Collective::reduce, Collective::allreduce, Collective::bcast, Collective::allgather,
                         Collective::alltoall}) {
      Params params = model(c, pat);
      params.root = static_cast<int>(rng() % static_cast<unsigned>(procs));
      const BoundCost cost = BoundCost::model(params.cost);
      const BoundTimes b = *bound(params, cost), t = *tight_bound(params, cost);
      const double slack = traits(c).combines ? cost.combine(400) : 0.0;
      EXPECT_GE(t.run_time, b.run_time - slack - 1e-12) << to_string(c) << " trial " << trial;
      if (c == Collective::bcast) {
        EXPECT_DOUBLE_EQ(t.run_time, b.run_time);
      }
    }
  }
}

// The counterexample to bound() as a lower bound: a 2-rank ring allreduce
// reduces the late rank's first half while its second half is in transit
// and ends before latest arrival + transfer(m) + combine(m); tight_bound
// stays below it (the platform's default α, β, γ, 1 MiB, one rank 20 ms late).
TEST(TightBound, SegmentingAlgorithmsBeatBoundButNotTightBound) {
  Params params;
  params.collective = Collective::allreduce;
  params.procs = 2;
  params.count = 1 << 18;
  params.element_bytes = 4;
  params.arrivals = {0, 0.02};
  const Algorithm *ring = find_algorithm(Collective::allreduce, "ring");
  ASSERT_NE(ring, nullptr);
  const SimulateResult result = simulate(*ring, params);
  ASSERT_EQ(result.error, "");
  const BoundCost cost = BoundCost::model(params.cost);
  EXPECT_LT(result.run_time, bound(params, cost)->run_time);
  EXPECT_GE(result.run_time, tight_bound(params, cost)->run_time);
}

// A lower bound holds for every algorithm: each catalogue algorithm of
// reduce and allreduce, simulated on seeded random k-late PATs (k late
// ranks by D, jittered, and every rank uniform over one to three transfers
// of the message), several P, both port models, ends no earlier than
// tight_bound, and no rank exits before its per-rank bound; each message
// carries at most the m bytes of the message (the proof's assumption).
TEST(TightBound, NoCatalogueAlgorithmFinishesBeforeIt) {
  std::mt19937_64 rng(48);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int checked = 0;
  std::vector<double> best_ratio;  // best algorithm's (run − last arrival) / (tight − last arrival)
  std::string worst;
  for (int procs : {2, 3, 4, 5, 8, 12}) {
    for (int trial = 0; trial < 8; ++trial) {
      Params params;
      params.procs = procs;
      params.root = static_cast<int>(rng() % static_cast<unsigned>(procs));
      params.count = 1024 + static_cast<std::int64_t>(rng() % 65536);
      params.element_bytes = 4;
      const double transfer = params.cost.transfer_time(static_cast<double>(params.count * 4));
      const int k = 1 + static_cast<int>(rng() % static_cast<unsigned>(procs));
      const double late = transfer * 10 * unit(rng);
      params.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
      std::vector<int> ranks(static_cast<std::size_t>(procs));
      for (int r = 0; r < procs; ++r) ranks[static_cast<std::size_t>(r)] = r;
      std::shuffle(ranks.begin(), ranks.end(), rng);
      for (int i = 0; i < procs; ++i)
        params.arrivals[static_cast<std::size_t>(ranks[static_cast<std::size_t>(i)])] =
            (i < k ? late : 0.0) + transfer * 0.1 * unit(rng);
      if (trial >= 4) {  // staggered: every rank uniform over [0, span], span 1 to 3 transfers
        const double span = transfer * (1 + 2.0 * (trial - 4) / 3);
        for (double &a : params.arrivals) a = span * unit(rng);
      }
      const double last = *std::max_element(params.arrivals.begin(), params.arrivals.end());
      for (Collective c : {Collective::reduce, Collective::allreduce})
        for (PortModel ports : {PortModel::full_duplex, PortModel::unidirectional}) {
          params.collective = c;
          BoundCost cost = BoundCost::model(params.cost);
          cost.one_port = ports == PortModel::unidirectional;
          const BoundTimes tight = *tight_bound(params, cost);
          SimulateOptions options;
          options.ports = ports;
          options.record_timeline = true;
          double best = 1e300;
          for (const Algorithm &algorithm : algorithms()) {
            if (algorithm.collective != c) continue;
            const SimulateResult result = simulate(algorithm, params, options);
            if (!result.error.empty()) continue;  // a restriction (e.g. a power of two)
            ++checked;
            const std::string what = std::string(to_string(c)) + " " + std::string(algorithm.name) +
                                     " P = " + std::to_string(procs) + " k = " + std::to_string(k) + " " +
                                     std::string(to_string(ports));
            EXPECT_GE(result.run_time, tight.run_time * (1 - 1e-12)) << what;
            EXPECT_GE(result.average_elapsed, tight.average_elapsed * (1 - 1e-12)) << what;
            for (int r = 0; r < procs; ++r)
              EXPECT_GE(result.exit[static_cast<std::size_t>(r)] - params.arrivals[static_cast<std::size_t>(r)],
                        tight.elapsed[static_cast<std::size_t>(r)] * (1 - 1e-12))
                  << what << " rank " << r;
            for (const TimelineEntry &entry : result.timeline)
              if (entry.activity == Activity::send) {
                EXPECT_LE(entry.bytes, params.count * 4) << what;
              }
            best = std::min(best, result.run_time);
          }
          const double first = *std::min_element(params.arrivals.begin(), params.arrivals.end());
          if (best < 1e300) {
            const double ratio = (best + first - last) / (tight.run_time + first - last);
            if (best_ratio.empty() || ratio > *std::max_element(best_ratio.begin(), best_ratio.end()))
              worst = std::string(to_string(c)) + " P = " + std::to_string(procs) + " k = " + std::to_string(k) +
                      " m = " + std::to_string(params.count * 4) + " B " + std::string(to_string(ports));
            best_ratio.push_back(ratio);
          }
        }
    }
  }
  EXPECT_GT(checked, 500);
  std::sort(best_ratio.begin(), best_ratio.end());
  std::cout << "[  NOTE    ] " << checked << " runs; the best algorithm's time after the last arrival over "
            << "tight_bound's: min " << best_ratio.front() << ", median " << best_ratio[best_ratio.size() / 2]
            << ", max " << best_ratio.back() << " (" << worst << ")\n";
}
