// The collective traits table (core/traits.hpp) and the restriction bits
// as facts about the catalogue.
#include <gtest/gtest.h>

#include <set>

#include "core/algorithm.hpp"
#include "core/traits.hpp"

using namespace patcoll::core;

TEST(Traits, OneRowPerCollectiveInCollectiveOrderWithTheNamesUsedEverywhere) {
  ASSERT_EQ(collectives().size(), static_cast<std::size_t>(kCollectiveCount));
  int index = 0;
  for (const CollectiveTraits &t : collectives()) {
    EXPECT_EQ(static_cast<int>(t.collective), index++);
    EXPECT_EQ(to_string(t.collective), t.name);
    Collective parsed;
    ASSERT_TRUE(parse_collective(t.name, parsed));
    EXPECT_EQ(parsed, t.collective);
    EXPECT_EQ(t.mpi_name.substr(0, 4), "MPI_");
  }
  EXPECT_EQ(traits(Collective::allreduce).mpi_name, "MPI_Allreduce");
}

TEST(Traits, BufferSizesFollowTheIrConventions) {
  const std::int64_t n = 5;
  const int procs = 3;
  // reduce: send count everywhere, recv count at the root only
  EXPECT_EQ(traits(Collective::reduce).elements(Buffer::send, false, n, procs), n);
  EXPECT_EQ(traits(Collective::reduce).elements(Buffer::recv, true, n, procs), n);
  EXPECT_EQ(traits(Collective::reduce).elements(Buffer::recv, false, n, procs), 0);
  // allreduce: count everywhere
  EXPECT_EQ(traits(Collective::allreduce).elements(Buffer::recv, false, n, procs), n);
  // scatter: procs*count at the root's send, count in every recv
  EXPECT_EQ(traits(Collective::scatter).elements(Buffer::send, true, n, procs), n * procs);
  EXPECT_EQ(traits(Collective::scatter).elements(Buffer::send, false, n, procs), 0);
  EXPECT_EQ(traits(Collective::scatter).elements(Buffer::recv, false, n, procs), n);
  // gather: count in every send, procs*count at the root's recv
  EXPECT_EQ(traits(Collective::gather).elements(Buffer::send, false, n, procs), n);
  EXPECT_EQ(traits(Collective::gather).elements(Buffer::recv, true, n, procs), n * procs);
  EXPECT_EQ(traits(Collective::gather).elements(Buffer::recv, false, n, procs), 0);
}

TEST(Traits, InPlaceIsAllowedAtTheRootOfARootedCollectiveAndAtEveryRankOfTheOthers) {
  for (const CollectiveTraits &t : collectives()) {
    EXPECT_TRUE(t.in_place_applies(true)) << t.name;
    EXPECT_EQ(t.in_place_applies(false), !t.rooted) << t.name;  // allreduce, allgather(v)
  }
  // allgather(v): send is the rank's own block of recv
  for (Collective c : {Collective::allgather, Collective::allgatherv}) {
    EXPECT_EQ(traits(c).aliased, Buffer::send) << to_string(c);
    EXPECT_EQ(traits(c).into, Buffer::recv) << to_string(c);
    EXPECT_EQ(traits(c).at_block, AtBlock::own) << to_string(c);
  }
  // scatter: the root's recv block is its send block `root`
  EXPECT_EQ(traits(Collective::scatter).aliased, Buffer::recv);
  EXPECT_EQ(traits(Collective::scatter).at_block, AtBlock::root);
  // reduce: send and recv are the same storage from offset 0
  EXPECT_EQ(traits(Collective::reduce).into, Buffer::recv);
  EXPECT_EQ(traits(Collective::reduce).at_block, AtBlock::start);
}

TEST(Traits, OnlyReductionsCombine) {
  for (const CollectiveTraits &t : collectives())
    EXPECT_EQ(t.combines, t.collective == Collective::reduce || t.collective == Collective::allreduce ||
                              t.collective == Collective::reduce_scatter_block ||
                              t.collective == Collective::reduce_scatter)
        << t.name;
}

TEST(Restrictions, ScheduleBasedAlgorithmsHaveAGeneratorThatBuildsAllRanksAtOnce) {
  for (const Algorithm &a : algorithms()) {
    if (a.capabilities & schedule_based) {
      EXPECT_NE(a.build_all, nullptr) << a.name;
    }
  }
}

TEST(Restrictions, TheRadixRuleAcceptsProductsBetweenHalfPAndP) {
  EXPECT_TRUE(valid_radix({4, 8}, 32));
  EXPECT_TRUE(valid_radix({4, 4}, 20));    // 16 >= 20/2
  EXPECT_FALSE(valid_radix({4, 4}, 40));   // 16 < 40/2
  EXPECT_FALSE(valid_radix({4, 8}, 31));   // 32 > 31
  EXPECT_FALSE(valid_radix({1, 8}, 8));    // k < 2
  const Algorithm *radix_k = find_algorithm(Collective::reduce, "radix_k");
  ASSERT_NE(radix_k, nullptr);
  Params p;
  p.procs = 40;
  p.count = 100;
  p.radix = {4, 4};
  EXPECT_FALSE(unsupported_reason(*radix_k, p).empty());
  p.radix = {4, 8};
  EXPECT_TRUE(unsupported_reason(*radix_k, p).empty());
}

TEST(Traits, AllgatherHasABlockToSendAndTheWholeResultAtEveryRank) {
  const std::int64_t n = 5;
  const int procs = 7;
  for (bool is_root : {true, false}) {
    EXPECT_EQ(traits(Collective::allgather).elements(Buffer::send, is_root, n, procs), n);
    EXPECT_EQ(traits(Collective::allgather).elements(Buffer::recv, is_root, n, procs), n * procs);
  }
  Params v;
  v.collective = Collective::allgatherv;
  v.procs = 4;
  v.counts = {3, 0, 9, 1};
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(traits(Collective::allgatherv).elements(Buffer::send, rank, v), v.counts[static_cast<std::size_t>(rank)]);
    EXPECT_EQ(traits(Collective::allgatherv).elements(Buffer::recv, rank, v), 13);
  }
}
