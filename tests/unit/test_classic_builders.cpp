// Facts about the classic reduce and allreduce builders (chain, binary,
// binomial, ring, rabenseifner, radix_k; ring, rabenseifner,
// recursive_doubling, linear_tree) and their shared engines (tree, ring,
// butterfly). Correctness over the whole matrix is the catalogue test's job;
// these are the shapes and costs each algorithm promises.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/algorithm.hpp"
#include "core/builders/butterfly.hpp"
#include "core/builders/tree.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"

using namespace patcoll::core;

namespace {

Params make(Collective collective, int procs, std::int64_t count, int root = 0, bool commutative = true) {
  Params params;
  params.collective = collective;
  params.procs = procs;
  params.count = count;
  params.root = root;
  params.commutative = commutative;
  return params;
}

std::vector<Program> build(Collective collective, const char *name, const Params &params) {
  const Algorithm *algorithm = find_algorithm(collective, name);
  EXPECT_NE(algorithm, nullptr) << name;
  if (!algorithm) return {};
  return build_all(*algorithm, params);
}

int log2_exact(int p) {
  int bits = 0;
  while ((1 << bits) < p) ++bits;
  return bits;
}

// Every message counted in latencies only: α = 1, β = γ = 0.
double latency_rounds(const Params &params, const std::vector<Program> &programs) {
  Params unit = params;
  unit.cost = CostModel{1.0, 0.0, 0.0};
  const SimulateResult result = simulate(unit, programs);
  EXPECT_EQ(result.error, "");
  return result.run_time;
}

// The k-th send from a to b and the k-th recv at b from a carry the same
// round (FIFO matching), i.e. the round numbers describe one schedule.
bool matched_messages_share_rounds(const std::vector<Program> &programs) {
  std::map<std::pair<int, int>, std::vector<int>> sent, received;
  for (const Program &program : programs)
    for (const Step &step : program.steps)
      for (const Op &op : step.ops) {
        if (op.kind == OpKind::send) sent[{program.rank, op.peer}].push_back(step.round);
        if (op.kind == OpKind::recv) received[{op.peer, program.rank}].push_back(step.round);
      }
  return sent == received;
}

int last_round(const std::vector<Program> &programs) {
  int last = -1;
  for (const Program &program : programs)
    for (const Step &step : program.steps) last = std::max(last, step.round);
  return last;
}

}  // namespace

// ------------------------------------------------------------------ reduce

TEST(ReduceBinomial, RootTakesLog2PStepsForPowersOfTwoAtEveryRoot) {
  for (int procs : {2, 4, 8, 16, 64})
    for (int root : {0, 1, procs / 2, procs - 1}) {
      const auto programs = build(Collective::reduce, "binomial", make(Collective::reduce, procs, 1000, root));
      EXPECT_EQ(programs[root].steps.size(), static_cast<std::size_t>(log2_exact(procs))) << procs << " root " << root;
      EXPECT_EQ(latency_rounds(make(Collective::reduce, procs, 1000, root), programs), log2_exact(procs));
    }
}

TEST(ReduceBinomial, EveryNonRootSendsItsSubtreeOnceUnsegmented) {
  const Params params = make(Collective::reduce, 13, 1000, 5);
  const auto programs = build(Collective::reduce, "binomial", params);
  for (const Program &program : programs)
    EXPECT_EQ(message_count(program), program.rank == 5 ? 0 : 1) << program.rank;
}

TEST(ReduceBinomial, InOrderTreeAtRootZeroIsTheClassicTree) {
  for (int procs : {1, 2, 7, 16, 33})
    for (int rank = 0; rank < procs; ++rank) {
      const TreeNode in_order = binomial_tree(procs, 0, rank, true), rotated = binomial_tree(procs, 0, rank, false);
      EXPECT_EQ(in_order.parent, rotated.parent);
      ASSERT_EQ(in_order.children.size(), rotated.children.size());
      for (std::size_t c = 0; c < in_order.children.size(); ++c) {
        EXPECT_EQ(in_order.children[c].rank, rotated.children[c].rank);
        EXPECT_EQ(in_order.children[c].side, Combine::right);  // subtrees hold higher ranks
      }
    }
}

TEST(ReduceChain, PipelineOfSSegmentsFinishesInPMinusOnePlusSMinusOneRounds) {
  for (int procs : {2, 3, 5, 8, 17})
    for (int segments : {1, 2, 5, 16}) {
      Params params = make(Collective::reduce, procs, 64 * segments);
      params.segment_count = segments;
      const auto programs = build(Collective::reduce, "chain", params);
      EXPECT_EQ(latency_rounds(params, programs), procs - 1 + segments - 1) << procs << " " << segments;
    }
}

TEST(ReduceChain, CommutativeOpsUseOneChainSoTheRootReceivesOncePerSegment) {
  Params params = make(Collective::reduce, 9, 100, 4);
  params.segment_count = 10;
  auto programs = build(Collective::reduce, "chain", params);
  EXPECT_EQ(programs[4].steps.size(), 10u);
  params.commutative = false;  // two rank-ordered chains meet at the root
  programs = build(Collective::reduce, "chain", params);
  EXPECT_EQ(programs[4].steps.size(), 20u);
  EXPECT_EQ(validate_all_modes(params, programs), "");
}

TEST(ReduceChain, DefaultSegmentsAreAbout32KiB) {
  Params params = make(Collective::reduce, 4, 1 << 20);  // 4 MiB of 4-byte elements
  params.element_bytes = 4;
  const auto programs = build(Collective::reduce, "chain", params);
  // The leaf at the end of the chain sends one message per segment.
  EXPECT_EQ(message_count(programs[1]), 128);
  params.element_bytes = 8;
  EXPECT_EQ(message_count(build(Collective::reduce, "chain", params)[1]), 256);
}

TEST(ReduceBinary, EveryNodeHasAtMostTwoChildrenAndSubtreesAreContiguous) {
  for (int procs : {1, 2, 5, 12, 31})
    for (int root = 0; root < procs; ++root) {
      std::vector<int> parent(procs);
      for (int rank = 0; rank < procs; ++rank) {
        const TreeNode node = binary_tree(procs, root, rank);
        EXPECT_LE(node.children.size(), 2u);
        parent[rank] = node.parent;
        for (const TreeChild &child : node.children) EXPECT_EQ(binary_tree(procs, root, child.rank).parent, rank);
      }
      // Exactly the root has no parent; a subtree's ranks form a range.
      for (int rank = 0; rank < procs; ++rank) {
        EXPECT_EQ(parent[rank] < 0, rank == root);
        int lo = rank, hi = rank;
        for (int other = 0; other < procs; ++other) {
          int up = other;
          while (up >= 0 && up != rank) up = parent[up];
          if (up == rank) lo = std::min(lo, other), hi = std::max(hi, other);
        }
        int members = 0;
        for (int other = lo; other <= hi; ++other) {
          int up = other;
          while (up >= 0 && up != rank) up = parent[up];
          members += up == rank;
        }
        EXPECT_EQ(members, hi - lo + 1) << "subtree of " << rank << " is not contiguous";
      }
    }
}

TEST(ReduceRing, RootReceivesPMinusOneBlocksThenLog2PGatherMessages) {
  for (int procs : {2, 4, 8, 16}) {
    const std::int64_t count = 10 * procs;
    const auto programs = build(Collective::reduce, "ring", make(Collective::reduce, procs, count, 1 % procs));
    for (const Program &program : programs)
      EXPECT_EQ(message_count(program), procs - 1 + (program.rank == 1 % procs ? 0 : 1));
    std::int64_t received = 0;
    for (const Step &step : programs[1 % procs].steps)
      for (const Op &op : step.ops)
        if (op.kind == OpKind::recv) ++received;
    EXPECT_EQ(received, procs - 1 + log2_exact(procs));
  }
}

TEST(ReduceRing, NeedsACommutativeOp) {
  EXPECT_NE(unsupported_reason(*find_algorithm(Collective::reduce, "ring"), make(Collective::reduce, 4, 8, 0, false)), "");
  EXPECT_NE(unsupported_reason(*find_algorithm(Collective::allreduce, "ring"), make(Collective::allreduce, 4, 8, 0, false)),
            "");
}

TEST(ReduceRabenseifner, ReduceScatterSendsCountTimesPMinusOneOverPAndTheRootGathersAsMuch) {
  for (int procs : {2, 4, 8, 32}) {
    const std::int64_t count = 16 * procs;
    const int rounds = log2_exact(procs);
    const auto programs = build(Collective::reduce, "rabenseifner", make(Collective::reduce, procs, count));
    for (const Program &program : programs) {
      std::int64_t scattered = 0, gathered = 0;
      for (const Step &step : program.steps)
        for (const Op &op : step.ops) {
          if (op.kind == OpKind::send && step.round >= 1 && step.round <= rounds) scattered += op.src.count;
          if (op.kind == OpKind::recv && step.round > rounds) gathered += op.dst.count;
        }
      EXPECT_EQ(scattered, count * (procs - 1) / procs);
      if (program.rank == 0) {
        EXPECT_EQ(gathered, count * (procs - 1) / procs);
      }
    }
  }
}

TEST(ReduceRabenseifner, TheRootNeverFoldsAwayAndExtrasSendTheirVectorOnce) {
  for (int procs : {3, 5, 6, 7, 12})
    for (int root = 0; root < procs; ++root) {
      const auto radix = power_of_two_radix(procs);
      const Butterfly butterfly(procs, 0, radix, root);
      EXPECT_FALSE(butterfly.folds_away(root));
      const auto programs = build(Collective::reduce, "rabenseifner", make(Collective::reduce, procs, 100, root));
      int extras = 0;
      for (const Program &program : programs) {
        if (!butterfly.folds_away(program.rank)) continue;
        ++extras;
        ASSERT_EQ(program.steps.size(), 1u);
        EXPECT_EQ(program.steps[0].ops, (std::vector<Op>{send_op(butterfly.fold_partner(program.rank), send_buf(0, 100))}));
      }
      EXPECT_EQ(extras, procs - (1 << (static_cast<int>(radix.size()))));
    }
}

TEST(ReduceRadixK, AllTwosMatchRabenseifnerMessageCounts) {
  for (auto [procs, radix] : std::vector<std::pair<int, std::vector<int>>>{
           {8, {2, 2, 2}}, {16, {2, 2, 2, 2}}, {12, {2, 2, 2}}, {6, {2, 2}}}) {
    for (int root : {0, procs - 1}) {
      Params params = make(Collective::reduce, procs, 1000, root);
      params.radix = radix;
      const auto radix_k = build(Collective::reduce, "radix_k", params);
      const auto rabenseifner = build(Collective::reduce, "rabenseifner", params);
      for (int rank = 0; rank < procs; ++rank) {
        EXPECT_EQ(message_count(radix_k[rank]), message_count(rabenseifner[rank]));
        EXPECT_EQ(elements_sent(radix_k[rank]), elements_sent(rabenseifner[rank]));
      }
    }
  }
}

TEST(ReduceRadixK, EachRoundSendsKMinusOnePiecesPerMember) {
  Params params = make(Collective::reduce, 32, 32 * 12, 0);
  params.radix = {4, 8};
  const auto programs = build(Collective::reduce, "radix_k", params);
  // Reduce-scatter: 3 + 7 messages; then one gather message (none at the root).
  for (const Program &program : programs)
    EXPECT_EQ(message_count(program), 3 + 7 + (program.rank == 0 ? 0 : 1)) << program.rank;
}

TEST(RadixVector, DefaultsFactorIntoFoursAndEightsThenOddPrimes) {
  EXPECT_EQ(default_radix(8), (std::vector<int>{8}));
  EXPECT_EQ(default_radix(16), (std::vector<int>{4, 4}));
  EXPECT_EQ(default_radix(64), (std::vector<int>{8, 8}));
  EXPECT_EQ(default_radix(128), (std::vector<int>{4, 4, 8}));  // [M] §6
  EXPECT_EQ(default_radix(12), (std::vector<int>{4, 3}));
  EXPECT_EQ(default_radix(7), (std::vector<int>{7}));
  EXPECT_EQ(default_radix(2), (std::vector<int>{2}));
  EXPECT_EQ(default_radix(100), (std::vector<int>{4, 5, 5}));
  EXPECT_EQ(default_radix(1), (std::vector<int>{}));
}

TEST(RadixVector, PrimesAboveSevenFoldToTheLargestSmoothCount) {
  EXPECT_EQ(default_radix(11), (std::vector<int>{2, 5}));  // 10: one pair folds
  EXPECT_EQ(default_radix(17), (std::vector<int>{4, 4}));  // 16
  EXPECT_EQ(default_radix(31), (std::vector<int>{2, 3, 5}));  // 30
}

TEST(RadixVector, InvalidUserVectorsFallBackToTheDefault) {
  Params params = make(Collective::reduce, 8, 10);
  params.radix = {3, 3};  // 9 > 8
  EXPECT_EQ(radix_for(params), default_radix(8));
  params.radix = {1, 8};  // k = 1
  EXPECT_EQ(radix_for(params), default_radix(8));
  params.radix = {3};  // 3 < 8/2: too many extras to fold
  EXPECT_EQ(radix_for(params), default_radix(8));
  params.procs = 7;
  params.radix = {2, 3};  // 6: one pair folds
  EXPECT_EQ(radix_for(params), (std::vector<int>{2, 3}));
}

// --------------------------------------------------------------- allreduce

TEST(AllreduceRing, EachRankSendsTwoPMinusOneMessagesOfCountOverP) {
  for (int procs : {2, 3, 5, 8, 12}) {
    const std::int64_t count = 7 * procs;
    const auto programs = build(Collective::allreduce, "ring", make(Collective::allreduce, procs, count));
    for (const Program &program : programs) {
      EXPECT_EQ(message_count(program), 2 * (procs - 1));
      EXPECT_EQ(elements_sent(program), 2 * (procs - 1) * count / procs);
    }
    EXPECT_EQ(latency_rounds(make(Collective::allreduce, procs, count), programs), 2 * (procs - 1));
  }
}

TEST(AllreduceRecursiveDoubling, SendsLog2PMessagesPerRankForPowersOfTwo) {
  for (int procs : {1, 2, 4, 8, 64}) {
    const auto programs = build(Collective::allreduce, "recursive_doubling", make(Collective::allreduce, procs, 10));
    for (const Program &program : programs) {
      EXPECT_EQ(message_count(program), log2_exact(procs));
      EXPECT_EQ(elements_sent(program), 10 * log2_exact(procs));
    }
  }
}

TEST(AllreduceRecursiveDoubling, ExtrasOfNonPowersOfTwoSendOnceAndReceiveOnce) {
  const auto programs = build(Collective::allreduce, "recursive_doubling", make(Collective::allreduce, 6, 10));
  // P = 6: pairs (0,1), (2,3) fold; 0 and 2 are the extras.
  for (int extra : {0, 2}) {
    EXPECT_EQ(message_count(programs[extra]), 1);
    EXPECT_EQ(programs[extra].steps.size(), 2u);
  }
  EXPECT_EQ(message_count(programs[1]), 2 + 1);  // 2 exchanges, then the result to rank 0
  EXPECT_EQ(message_count(programs[5]), 2);
}

TEST(AllreduceRabenseifner, SendsTwiceCountTimesPMinusOneOverPPerRank) {
  for (int procs : {2, 4, 8, 16, 64}) {
    const std::int64_t count = 3 * procs;
    const auto programs = build(Collective::allreduce, "rabenseifner", make(Collective::allreduce, procs, count));
    for (const Program &program : programs) {
      EXPECT_EQ(elements_sent(program), 2 * count * (procs - 1) / procs);
      EXPECT_EQ(message_count(program), 2 * log2_exact(procs));
    }
  }
}

TEST(AllreduceLinearTree, FinishesInTwoPMinusOnePlusSMinusOneRounds) {
  for (int procs : {2, 3, 4, 9})
    for (int segments : {1, 3, 5}) {
      Params params = make(Collective::allreduce, procs, 10 * segments);
      params.segment_count = segments;
      const auto programs = build(Collective::allreduce, "linear_tree", params);
      EXPECT_TRUE(matched_messages_share_rounds(programs));
      EXPECT_EQ(last_round(programs) + 1, 2 * (procs - 1) + segments - 1) << procs << " " << segments;
      ValidateOptions rounds;
      rounds.check_rounds = true;
      EXPECT_EQ(validate(params, programs, rounds), "");
    }
}

TEST(AllreduceLinearTree, EveryRankSendsEachSegmentOnceEachWayExceptTheEnds) {
  Params params = make(Collective::allreduce, 5, 100);
  params.segment_count = 4;
  const auto programs = build(Collective::allreduce, "linear_tree", params);
  EXPECT_EQ(message_count(programs[0]), 4);  // forward only
  EXPECT_EQ(message_count(programs[2]), 8);  // forward and back
  EXPECT_EQ(message_count(programs[4]), 4);  // back only
}

TEST(ChainEngine, ChainOrderIsAParameter) {
  // The same engine over a permuted chain (slt sorts it by arrival).
  Params params = make(Collective::allreduce, 5, 40);
  params.segment_count = 3;
  const std::vector<int> order{3, 0, 4, 1, 2};
  std::vector<Program> programs;
  for (int rank = 0; rank < 5; ++rank) programs.push_back(chain_allreduce(params, rank, chain_link(order, rank), 3));
  EXPECT_EQ(validate_all_modes(params, programs), "");
  EXPECT_EQ(message_count(programs[3]), 3);  // first of the chain: forward only
  EXPECT_EQ(message_count(programs[2]), 3);  // last: back only
}

// ---------------------------------------------- non-commutative, rank order

TEST(ClassicBuilders, NonCommutativeOpsAreReducedInRankOrder) {
  const std::vector<std::pair<Collective, const char *>> algorithms{
      {Collective::reduce, "chain"},          {Collective::reduce, "binary"},
      {Collective::reduce, "binomial"},       {Collective::reduce, "rabenseifner"},
      {Collective::reduce, "radix_k"},        {Collective::allreduce, "rabenseifner"},
      {Collective::allreduce, "recursive_doubling"}, {Collective::allreduce, "linear_tree"}};
  for (const auto &[collective, name] : algorithms) {
    const Algorithm *algorithm = find_algorithm(collective, name);
    ASSERT_NE(algorithm, nullptr) << name;
    EXPECT_FALSE(algorithm->restrictions & needs_commutative) << name;
    for (int procs : {1, 2, 3, 6, 7, 9, 12, 24, 27})
      for (int root : {0, procs / 3, procs - 1})
        for (std::int64_t count : {std::int64_t{1}, std::int64_t{procs + 3}, std::int64_t{50}}) {
          Params params = make(collective, procs, count, root, false);
          params.segment_elements = 4;
          EXPECT_EQ(validate_all_modes(params, build_all(*algorithm, params)), "")
              << name << " P=" << procs << " root=" << root << " count=" << count;
        }
  }
}

TEST(ClassicBuilders, RadixKWithOddRadicesIsCorrectForNonCommutativeOps) {
  for (auto [procs, radix] : std::vector<std::pair<int, std::vector<int>>>{
           {9, {3, 3}}, {12, {3, 4}}, {12, {2, 3, 2}}, {13, {3, 4}}, {15, {5, 3}}, {7, {5}}, {27, {3, 3, 3}}}) {
    for (int root : {0, procs / 2, procs - 1}) {
      Params params = make(Collective::reduce, procs, 97, root, false);
      params.radix = radix;
      EXPECT_EQ(radix_for(params), radix);
      EXPECT_EQ(validate_all_modes(params, build(Collective::reduce, "radix_k", params)), "")
          << "P=" << procs << " root=" << root;
    }
  }
}

TEST(ClassicBuilders, ARanksProgramHasLogarithmicallyManyStepsAtAMillionRanks) {
  // Builders are O(own steps): one rank of a huge communicator stays small.
  const int procs = 1 << 20;
  for (int rank : {0, 1, 12345, procs - 1}) {
    const Params reduce = make(Collective::reduce, procs, 1 << 20, 12345);
    const Params allreduce = make(Collective::allreduce, procs, 1 << 20);
    auto steps = [&](Collective c, const char *name, const Params &params) {
      return build_rank(*find_algorithm(c, name), params, rank).steps.size();
    };
    EXPECT_LE(steps(Collective::reduce, "binomial", reduce), 20u);
    EXPECT_LE(steps(Collective::reduce, "rabenseifner", reduce), 1u + 20 + 20);
    EXPECT_LE(steps(Collective::reduce, "radix_k", reduce), 1u + 7 + 20);
    EXPECT_LE(steps(Collective::allreduce, "recursive_doubling", allreduce), 1u + 20 + 1);
    EXPECT_LE(steps(Collective::allreduce, "rabenseifner", allreduce), 1u + 40 + 1);
  }
}
