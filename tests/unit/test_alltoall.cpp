// Facts of the all-to-all builders (builders/alltoall.hpp) that the
// catalogue matrix does not check: the one-factorisation, step and message
// counts, bruck's rounds, clairvoyant's order and its run time against the
// bound with one late rank. Correctness over P, counts and MPI_IN_PLACE is
// proved by the validator (test_catalog_validation.cpp; the v-forms and
// wrong PATs here).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "core/algorithm.hpp"
#include "core/bound.hpp"
#include "core/builders/alltoall.hpp"
#include "core/cost.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

Params make(int procs, std::int64_t count) {
  Params p;
  p.collective = Collective::alltoall;
  p.procs = procs;
  p.count = count;
  p.element_bytes = 1;
  return p;
}

double run_time_bound(const Params &p) { return bound(p, BoundCost::model(p.cost))->run_time; }

std::vector<Program> build(const char *name, const Params &p) {
  const Algorithm *a = find_algorithm(p.collective, name);
  EXPECT_NE(a, nullptr) << name;
  return build_all(*a, p);
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

std::vector<int> send_peers(const Program &program) {
  std::vector<int> out;
  for (const Step &step : program.steps)
    for (const Op &op : step.ops)
      if (op.kind == OpKind::send) out.push_back(op.peer);
  return out;
}

TEST(AlltoallSymmetricRounds, AreAOneFactorisationForEveryP) {
  for (int procs = 2; procs <= 40; ++procs) {
    const int rounds = symmetric_rounds(procs);
    EXPECT_EQ(rounds, procs % 2 == 0 ? procs - 1 : procs) << procs;
    for (int a = 0; a < procs; ++a) {
      std::set<int> seen;
      for (int b = 0; b < procs; ++b) {
        if (a == b) continue;
        const int r = symmetric_round(procs, a, b);
        EXPECT_EQ(r, symmetric_round(procs, b, a)) << procs;
        EXPECT_GE(r, 1);
        EXPECT_LE(r, rounds);
        EXPECT_TRUE(seen.insert(r).second) << "P=" << procs << " rank " << a << " meets two ranks in round " << r;
      }
    }
  }
}

TEST(AlltoallPairwise, TakesPMinusOneExchangeStepsWithXorPartnersForPowersOfTwo) {
  for (int procs : {1, 2, 5, 8, 12, 16}) {
    const auto programs = build("pairwise", make(procs, 3));
    for (const Program &p : programs) {
      EXPECT_EQ(exchange_steps(p), procs - 1) << procs;
      const auto peers = send_peers(p);
      ASSERT_EQ(static_cast<int>(peers.size()), procs - 1);
      for (int k = 1; k < procs; ++k)
        EXPECT_EQ(peers[k - 1], (procs & (procs - 1)) == 0 ? p.rank ^ k : (p.rank + k) % procs) << procs;
    }
  }
}

TEST(AlltoallLinear, PostsEveryMessageInOneStep) {
  const auto programs = build("linear", make(7, 2));
  for (const Program &p : programs) {
    EXPECT_EQ(exchange_steps(p), 1);
    EXPECT_EQ(message_count(p), 6);
  }
}

TEST(AlltoallBruck, TakesCeilLog2PStepsAndSendsAboutHalfThePairsEach) {
  for (int procs : {2, 3, 4, 5, 7, 8, 13, 32, 33}) {
    const auto programs = build("bruck", make(procs, 4));
    for (const Program &p : programs) {
      EXPECT_EQ(exchange_steps(p), ceil_log2(procs)) << procs;
      EXPECT_EQ(message_count(p), ceil_log2(procs));
      // Every position i = 1 … P−1 travels once per set bit.
      std::int64_t moved = 0;
      for (int i = 1; i < procs; ++i) moved += __builtin_popcount(static_cast<unsigned>(i)) * 4;
      EXPECT_EQ(elements_sent(p), moved);
    }
  }
}

TEST(AlltoallClairvoyant, BalancedIsTheSymmetricPairwiseOrderOnEveryRank) {
  for (int procs : {2, 3, 6, 8, 11}) {
    Params p = make(procs, 5);
    const auto plain = build("clairvoyant", p);
    p.arrivals.assign(static_cast<std::size_t>(procs), 0.25);
    EXPECT_EQ(build("clairvoyant", p), plain) << "equal PATs are no PATs";
    for (const Program &program : plain) {
      EXPECT_EQ(exchange_steps(program), procs - 1);
      const auto peers = send_peers(program);
      for (std::size_t i = 1; i < peers.size(); ++i)
        EXPECT_LT(symmetric_round(procs, program.rank, peers[i - 1]), symmetric_round(procs, program.rank, peers[i]));
    }
  }
}

TEST(AlltoallClairvoyant, EveryRankMeetsALateRankLast) {
  Params p = make(12, 1000);
  p.arrivals.assign(12, 0.0);
  p.arrivals[5] = 1.0;
  const auto programs = build("clairvoyant", p);
  for (const Program &program : programs) {
    const auto peers = send_peers(program);
    ASSERT_EQ(peers.size(), 11u);
    if (program.rank != 5) {
      EXPECT_EQ(peers.back(), 5) << program.rank;
    }
  }
}

TEST(AlltoallClairvoyant, IsProvedCorrectWithWrongPats) {
  // Built for one arrival pattern, validated (and simulated) under another:
  // the order is the same at both ends of every pair whatever happens.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> delay(0.0, 1e-2);
  for (int procs : {3, 8, 13}) {
    Params p = make(procs, 9);
    for (int r = 0; r < procs; ++r) p.arrivals.push_back(delay(rng));
    const auto programs = build("clairvoyant", p);
    Params actual = p;
    for (double &a : actual.arrivals) a = delay(rng);
    EXPECT_EQ(validate_all_modes(actual, programs), "");
    EXPECT_EQ(simulate(actual, programs).error, "");
  }
}

// One rank late by D = the balanced run time of pairwise: the others
// exchange among themselves while it is away, and it then meets each once.
TEST(AlltoallClairvoyant, OneLateRankRunsWithinFifteenPercentOfTheBound) {
  for (int procs : {8, 12, 48}) {
    Params p = make(procs, (4 << 20) / procs);  // 4 MiB per rank
    const double balanced = simulate(*find_algorithm(Collective::alltoall, "pairwise"), p).run_time;
    p.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
    p.arrivals[static_cast<std::size_t>(procs / 3)] = balanced;
    const SimulateResult r = simulate(*find_algorithm(Collective::alltoall, "clairvoyant"), p);
    ASSERT_EQ(r.error, "");
    const double bound = run_time_bound(p);
    EXPECT_GE(r.run_time, bound * (1 - 1e-9)) << procs;
    EXPECT_LE(r.run_time, 1.15 * bound) << procs;
    // In the model pairwise loses nothing to one late rank either: every
    // rank meets it in its own round and catches up after (the late
    // rank's chain of P − 1 exchanges is the critical path of both).
    const SimulateResult pairwise = simulate(*find_algorithm(Collective::alltoall, "pairwise"), p);
    EXPECT_LE(r.run_time, pairwise.run_time * (1 + 1e-9)) << procs;
    // The others leave as soon as they have met it, not after waiting in
    // their own round for it and catching up.
    EXPECT_LT(r.average_elapsed, pairwise.average_elapsed) << procs;
  }
}

// Half the ranks late by D (the odd ones): every late rank must still make
// its P − 1 exchanges after it arrives, so the run time of every algorithm
// is near the bound; clairvoyant's early half exchanges among itself
// meanwhile and leaves earlier: its average elapsed time is below
// pairwise's (whose early ranks wait in their first round with a late
// partner). Its run time is up to 6 % above pairwise's here (P = 12).
TEST(AlltoallClairvoyant, HalfTheRanksLateRunWithinFifteenPercentOfTheBoundAndTheEarlyOnesLeaveSooner) {
  for (int procs : {8, 12, 48}) {
    Params p = make(procs, (4 << 20) / procs);
    const double balanced = simulate(*find_algorithm(Collective::alltoall, "pairwise"), p).run_time;
    p.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
    for (int r = 1; r < procs; r += 2) p.arrivals[static_cast<std::size_t>(r)] = balanced / 2;
    const SimulateResult clairvoyant = simulate(*find_algorithm(Collective::alltoall, "clairvoyant"), p);
    const SimulateResult pairwise = simulate(*find_algorithm(Collective::alltoall, "pairwise"), p);
    ASSERT_EQ(clairvoyant.error, "");
    EXPECT_LE(clairvoyant.run_time, 1.15 * run_time_bound(p)) << procs;
    EXPECT_LT(clairvoyant.average_elapsed, pairwise.average_elapsed) << procs;
  }
}

// Random arrivals over one balanced run time: never far from the bound, and
// the early ranks leave sooner than pairwise's.
TEST(AlltoallClairvoyant, RandomLateRanksRunWithinFifteenPercentOfTheBound) {
  std::mt19937_64 rng(3);
  for (int procs : {12, 48}) {
    Params p = make(procs, (4 << 20) / procs);
    const double balanced = simulate(*find_algorithm(Collective::alltoall, "pairwise"), p).run_time;
    std::uniform_real_distribution<double> delay(0.0, balanced);
    for (int trial = 0; trial < 3; ++trial) {
      p.arrivals.clear();
      for (int r = 0; r < procs; ++r) p.arrivals.push_back(delay(rng));
      const SimulateResult clairvoyant = simulate(*find_algorithm(Collective::alltoall, "clairvoyant"), p);
      const SimulateResult pairwise = simulate(*find_algorithm(Collective::alltoall, "pairwise"), p);
      ASSERT_EQ(clairvoyant.error, "");
      EXPECT_LE(clairvoyant.run_time, 1.15 * run_time_bound(p)) << procs;
      EXPECT_LT(clairvoyant.average_elapsed, pairwise.average_elapsed) << procs;
    }
  }
}

TEST(AlltoallBound, IsProbedWithARanksPMinusOnePairs) {
  EXPECT_TRUE(has_bound(Collective::alltoall));
  EXPECT_TRUE(has_bound(Collective::alltoallv));
  EXPECT_EQ(bound_probe_elements(make(6, 10)), 50);
}

TEST(AlltoallBound, IsTheLatestArrivalPlusItsShareOfTheData) {
  Params p = make(4, 1000);
  p.cost.alpha = 1e-6;
  p.cost.beta = 1e-9;
  p.arrivals = {0.0, 0.0, 2e-3, 0.0};
  // D + α + (P − 1)/P·mβ, m = 4000 bytes per rank.
  EXPECT_DOUBLE_EQ(run_time_bound(p), 2e-3 + 1e-6 + 3000 * 1e-9);
  p.arrivals.clear();
  EXPECT_DOUBLE_EQ(run_time_bound(p), 1e-6 + 3000 * 1e-9);
}

// --- alltoallv: the same builders over Params::counts ----------------------

// counts[s·P + d]: zeros (a whole row, a whole column, scattered pairs) and
// unequal sizes; `symmetric` makes counts[s·P + d] = counts[d·P + s] (what
// MPI_IN_PLACE requires).
std::vector<std::int64_t> v_counts(int procs, std::mt19937_64 &rng, bool symmetric) {
  std::uniform_int_distribution<int> size(0, 9);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(procs) * procs);
  for (int s = 0; s < procs; ++s)
    for (int d = 0; d < procs; ++d) {
      std::int64_t c = size(rng);
      if (c < 3) c = 0;  // a third of the pairs empty
      if (procs > 2 && (s == 1 || d == procs - 1)) c = 0;  // a silent row and column
      counts[static_cast<std::size_t>(s) * procs + d] = c;
    }
  if (symmetric)
    for (int s = 0; s < procs; ++s)
      for (int d = 0; d < s; ++d) counts[static_cast<std::size_t>(s) * procs + d] = counts[static_cast<std::size_t>(d) * procs + s];
  return counts;
}

TEST(Alltoallv, EveryAlgorithmIsProvedWithZeroAndUnequalCountsAndInPlaceWhereSymmetric) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> delay(0.0, 1e-3);
  int cases = 0;
  for (const Algorithm &a : algorithms()) {
    if (a.collective != Collective::alltoallv) continue;
    for (int procs : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17}) {
      for (bool symmetric : {false, true}) {
        for (bool with_pats : {false, true}) {
          if (with_pats && !(a.capabilities & pap_aware)) continue;
          Params p = make(procs, 0);
          p.collective = Collective::alltoallv;
          p.counts = v_counts(procs, rng, symmetric);
          if (with_pats)
            for (int r = 0; r < procs; ++r) p.arrivals.push_back(delay(rng));
          const auto programs = build_all(a, p);
          const std::string error = symmetric ? validate_all_modes(p, programs) : validate(p, programs);
          ASSERT_EQ(error, "") << a.name << " P=" << procs << (symmetric ? " symmetric" : "") << (with_pats ? " PATs" : "");
          ++cases;
        }
      }
    }
  }
  EXPECT_GE(cases, 80);
}

TEST(Alltoallv, ARanksProgramReadsOnlyItsOwnRowAndColumnOfTheCounts) {
  // What the MPI layer relies on: a rank of MPI_Alltoallv knows only what
  // it sends and receives.
  std::mt19937_64 rng(5);
  for (const Algorithm &a : algorithms()) {
    if (a.collective != Collective::alltoallv) continue;
    for (int procs : {3, 6, 8}) {
      Params full = make(procs, 0);
      full.collective = Collective::alltoallv;
      full.counts = v_counts(procs, rng, false);
      full.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
      full.arrivals[1] = 1e-3;
      for (int rank = 0; rank < procs; ++rank) {
        Params own = full;
        for (int s = 0; s < procs; ++s)
          for (int d = 0; d < procs; ++d)
            if (s != rank && d != rank) own.counts[static_cast<std::size_t>(s) * procs + d] = 0;
        EXPECT_EQ(build_rank(a, own, rank), build_rank(a, full, rank)) << a.name << " P=" << procs << " rank " << rank;
      }
    }
  }
}

TEST(Alltoallv, HasNoBruck) {
  // Its intermediate packs would need every rank's counts, which no rank
  // of an MPI_Alltoallv has.
  EXPECT_EQ(find_algorithm(Collective::alltoallv, "bruck"), nullptr);
  EXPECT_NE(find_algorithm(Collective::alltoallv, "pairwise"), nullptr);
}

TEST(Alltoall, LargeCountsAreProvedAtSixtyFourAndOneHundredRanks) {
  // The catalogue matrix stops at 4·10^6 symbolic elements; P = 64 and 100
  // with pairs of 40 and 25 elements here.
  for (const char *name : {"pairwise", "linear", "bruck", "clairvoyant"})
    for (auto [procs, count] : {std::pair{64, 40}, std::pair{100, 25}}) {
      Params p = make(procs, count);
      ASSERT_EQ(validate_all_modes(p, build(name, p)), "") << name << " P=" << procs;
    }
}

}  // namespace
