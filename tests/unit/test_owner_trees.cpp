// allreduce/owner_trees: the facts of its plan (owner_trees.cpp) read off
// its Programs; the validator's proof is in the catalogue matrix
// (test_catalog_validation.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "core/algorithm.hpp"
#include "core/builders/pap.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

Params spread(int procs, std::int64_t count, double span_transfers, std::uint64_t seed) {
  Params p;
  p.collective = Collective::allreduce;
  p.procs = procs;
  p.count = count;
  std::mt19937_64 rng(seed);
  const double t = p.cost.transfer_time(static_cast<double>(count) * p.element_bytes);
  std::uniform_real_distribution<double> draw(0, span_transfers * t);
  for (int r = 0; r < procs; ++r) p.arrivals.push_back(draw(rng));
  return p;
}

// Units owned per rank: the ranks a rank receives combining parts from,
// counted once per unit (P − 1 combining recvs per owned unit).
std::vector<int> owned_units(const std::vector<Program> &programs) {
  std::vector<int> owned;
  for (const Program &program : programs) {
    int combining = 0;
    for (const Op &op : program.steps.back().ops) combining += op.kind == OpKind::recv && op.combine != Combine::store;
    owned.push_back(combining / (program.procs - 1));
  }
  return owned;
}

}  // namespace

TEST(OwnerTrees, EqualArrivalsShareTheUnitsEqually) {
  for (int procs : {2, 5, 16}) {
    Params p = spread(procs, 1 << 16, 0, 1);
    const auto programs = allreduce_owner_trees_all(p);
    const auto owned = owned_units(programs);
    const int units = owner_trees_tags(p) - 1;
    EXPECT_EQ(units, 12 * procs);
    for (int r = 0; r < procs; ++r) EXPECT_EQ(owned[static_cast<std::size_t>(r)], 12) << "P " << procs << " rank " << r;
  }
}

TEST(OwnerTrees, TheEarlyRanksOwnTheMost) {
  for (std::uint64_t seed : {1, 2, 3}) {
    Params p = spread(32, 1 << 18, 2.0, seed);
    const auto programs = allreduce_owner_trees_all(p);
    ASSERT_EQ(validate(p, programs), "");
    const auto owned = owned_units(programs);
    std::vector<int> order(32);
    for (int r = 0; r < 32; ++r) order[static_cast<std::size_t>(r)] = r;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return p.arrivals[static_cast<std::size_t>(a)] < p.arrivals[static_cast<std::size_t>(b)]; });
    // The latest rank owns less than an equal share, the earliest more.
    EXPECT_LT(owned[static_cast<std::size_t>(order.back())], 12) << "seed " << seed;
    EXPECT_GT(owned[static_cast<std::size_t>(order.front())], 12) << "seed " << seed;
    // Shares never grow with lateness (up to rounding, one unit).
    for (std::size_t q = 1; q < order.size(); ++q)
      EXPECT_LE(owned[static_cast<std::size_t>(order[q])], owned[static_cast<std::size_t>(order[q - 1])] + 1) << "seed " << seed << " place " << q;
    int total = 0;
    for (int u : owned) total += u;
    EXPECT_EQ(total, 12 * 32);
  }
}

TEST(OwnerTrees, EveryUnitReachesEveryRankOnceOnItsTag) {
  Params p = spread(32, 1 << 18, 2.0, 7);
  const auto programs = allreduce_owner_trees_all(p);
  const int latest = static_cast<int>(std::max_element(p.arrivals.begin(), p.arrivals.end()) - p.arrivals.begin());
  // Forwards: sends that wait for a unit's group (groups below U).
  const int units = owner_trees_tags(p) - 1;
  std::map<int, int> forwards;
  for (const Program &program : programs)
    for (const Op &op : program.steps.back().ops)
      if (op.kind == OpKind::send && op.after >= 0 && op.after < units) ++forwards[program.rank];
  int total = 0;
  for (const auto &[rank, n] : forwards) total += n;
  EXPECT_EQ(total, units * 31);  // every unit reaches the 31 other ranks once
  EXPECT_LT(forwards[latest], units * 31 / 32) << "the latest rank relays less than an average rank";
  // Every message of unit u is on tag u + 1, and a window of 32 synchronous parts.
  for (const Program &program : programs) {
    int windowed = 0;
    for (const Op &op : program.steps.back().ops) {
      if (op.kind != OpKind::local) EXPECT_GE(op.tag, 1);
      if (op.kind != OpKind::local) EXPECT_LE(op.tag, units);
      windowed += op.kind == OpKind::send && op.synchronous;
    }
    if (program.rank == latest)  // its owners are all there: every part through the window
      EXPECT_EQ(windowed, units - owned_units(programs)[static_cast<std::size_t>(latest)]);
  }
}

TEST(OwnerTrees, RanksThatPassDifferentCountsRunTheSameMessages) {
  // Without PATs the plan is the same for any count (exact integer times),
  // so a call where one rank passes a count the others do not fails on
  // the messages' sizes (MPI_ERR_TRUNCATE) instead of hanging.
  for (int procs : {4, 7}) {
    Params a = spread(procs, 64, 0, 1), b = spread(procs, 63, 0, 1);
    a.arrivals.clear();
    b.arrivals.clear();
    for (int rank = 0; rank < procs; ++rank) {
      const Program x = allreduce_owner_trees(a, rank), y = allreduce_owner_trees(b, rank);
      ASSERT_EQ(x.steps.size(), y.steps.size());
      auto messages = [](const Program &program) {
        std::vector<Op> out;
        for (const Op &op : program.steps.back().ops)
          if (op.kind != OpKind::local) out.push_back(op);
        return out;
      };
      const std::vector<Op> xs = messages(x), ys = messages(y);
      ASSERT_EQ(xs.size(), ys.size()) << "P " << procs << " rank " << rank;
      for (std::size_t o = 0; o < xs.size(); ++o) {
        EXPECT_EQ(xs[o].kind, ys[o].kind);
        EXPECT_EQ(xs[o].peer, ys[o].peer);
        EXPECT_EQ(xs[o].tag, ys[o].tag);
        EXPECT_EQ(xs[o].after, ys[o].after);
      }
    }
  }
}
