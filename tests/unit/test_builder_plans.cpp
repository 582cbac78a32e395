// The builders' cost contract (builders/plan.hpp): build_all computes the
// per-parameter plan once, build_rank once per call, and both give the same
// Programs; one rank's Program is O(its steps), so the scatter/gather
// engines build every rank of P = 10^6 from one plan (counted here, not
// timed; docs/results/builders.md has the timings).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/algorithm.hpp"
#include "core/builders/pap.hpp"
#include "core/builders/scatter_gather.hpp"
#include "core/builders/tree.hpp"
#include "core/cost.hpp"
#include "random_pats.hpp"

using namespace patcoll::core;

namespace {

Params params_for(const Algorithm &algorithm, int procs, int root, std::vector<double> arrivals) {
  Params p;
  p.collective = algorithm.collective;
  p.procs = procs;
  p.root = root;
  p.count = algorithm.collective == Collective::scatter || algorithm.collective == Collective::gather ? 3 : 37;
  p.segment_count = algorithm.collective == Collective::allreduce ? 4 : 0;  // several segments on the chains
  p.arrivals = std::move(arrivals);
  return p;
}

}  // namespace

// Every algorithm with both interfaces: build_all (one plan) and
// build_rank (a plan per call) agree on every rank, for P = 1 … 20 and
// around powers of two, three roots, with and without PATs.
TEST(BuilderPlans, EveryRanksProgramFromTheSharedPlanIsTheOneBuiltAlone) {
  std::mt19937_64 rng(12);
  std::vector<int> proc_counts(20);
  std::iota(proc_counts.begin(), proc_counts.end(), 1);
  for (int p : {31, 32, 33, 63, 64, 65, 100}) proc_counts.push_back(p);
  int checked = 0;
  for (const Algorithm &algorithm : algorithms()) {
    if (!algorithm.build_rank || !algorithm.build_all) continue;
    for (int procs : proc_counts) {
      for (int root : {0, procs / 2, procs - 1}) {
        for (bool with_pats : {false, true}) {
          const Params params = params_for(algorithm, procs, root, with_pats ? random_pats(procs, rng) : std::vector<double>{});
          if (!unsupported_reason(algorithm, params).empty()) continue;
          const std::vector<Program> all = algorithm.build_all(params);
          ASSERT_EQ(all.size(), static_cast<std::size_t>(procs)) << algorithm.name;
          for (int rank = 0; rank < procs; ++rank)
            ASSERT_EQ(all[static_cast<std::size_t>(rank)], algorithm.build_rank(params, rank))
                << to_string(algorithm.collective) << " " << algorithm.name << " P=" << procs << " root=" << root
                << " pats=" << with_pats << " rank=" << rank;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 500);
}

// The chain plan's O(1) link is the O(P) scan it replaced.
TEST(BuilderPlans, ChainLinkFromThePlanIsTheLinearScan) {
  std::mt19937_64 rng(5);
  for (int procs : {1, 2, 3, 7, 16, 101}) {
    std::vector<int> order(static_cast<std::size_t>(procs));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const ChainOrder chain = chain_order(order);
    for (int rank = 0; rank < procs; ++rank) {
      ChainLink scanned;
      for (int i = 0; i < procs; ++i)
        if (order[i] == rank) scanned = {i, i > 0 ? order[i - 1] : -1, i + 1 < procs ? order[i + 1] : -1};
      const ChainLink planned = chain_link(chain, rank);
      EXPECT_EQ(planned.position, scanned.position);
      EXPECT_EQ(planned.previous, scanned.previous);
      EXPECT_EQ(planned.next, scanned.next);
    }
  }
}

namespace {

struct Counts {
  std::int64_t steps = 0, messages = 0;
  std::size_t root_steps = 0, most_steps_elsewhere = 0;
  std::int64_t ranks_with_one_message = 0;  // non-root ranks that send or receive exactly one message
};

// Every rank's Program of P ranks from one plan, counted and dropped
// (P = 10^6 Programs would not fit in a unit test's memory together).
template <class Plan>
Counts count_every_rank(const Params &params, const Plan &plan, Program (*build)(const Params &, int, const Plan &)) {
  Counts counts;
  for (int rank = 0; rank < params.procs; ++rank) {
    const Program program = build(params, rank, plan);
    std::int64_t transfers = 0;
    for (const Step &step : program.steps)
      for (const Op &op : step.ops) {
        counts.messages += op.kind == OpKind::send;
        transfers += op.kind != OpKind::local;
      }
    counts.steps += static_cast<std::int64_t>(program.steps.size());
    if (rank == params.root) counts.root_steps = program.steps.size();
    else counts.most_steps_elsewhere = std::max(counts.most_steps_elsewhere, program.steps.size());
    if (rank != params.root && transfers == 1) ++counts.ranks_with_one_message;
  }
  return counts;
}

constexpr int kMillion = 1'000'000;

Params million(Collective collective, int root) {
  Params p;
  p.collective = collective;
  p.procs = kMillion;
  p.root = root;
  p.count = 2;
  return p;
}

// Every rank but the root, earliest first by a random PAT permutation
// (the shape of the sbn plans).
std::vector<int> root_then_shuffled(int procs, int root) {
  std::vector<int> others;
  for (int r = 0; r < procs; ++r)
    if (r != root) others.push_back(r);
  std::mt19937_64 rng(3);
  std::shuffle(others.begin(), others.end(), rng);
  others.insert(others.begin(), root);
  return others;
}

}  // namespace

// Binomial scatter and gather at P = 10^6, classic and sorted trees: P − 1
// messages, every non-root rank exchanges exactly one message with its
// parent (plus its children's), the root forwards ⌈log2 P⌉ subtrees, and no
// rank has more than ⌈log2 P⌉ + 3 steps — O(P) steps in all.
TEST(BuilderPlans, BinomialScatterAndGatherAtAMillionRanksAreCountedFromOnePlan) {
  const int bits = ceil_log2(kMillion);  // 20
  const int root = 123'457;
  const SlotTree classic = classic_slot_tree(kMillion, root);
  const SlotTree sorted = sorted_slot_tree(root_then_shuffled(kMillion, root));
  // Leaves (one message each): the odd slots of the classic tree, P/2; in
  // the sorted tree position j is a leaf iff j + 2^(bits−1) ≥ P, so 2^(bits−1).
  const std::pair<const SlotTree *, std::int64_t> trees[] = {{&classic, kMillion / 2}, {&sorted, std::int64_t{1} << (bits - 1)}};
  for (const auto &[tree, leaves] : trees) {
    const Counts scatter = count_every_rank(million(Collective::scatter, root), *tree, scatter_over_tree);
    EXPECT_EQ(scatter.messages, kMillion - 1);
    EXPECT_EQ(scatter.root_steps, static_cast<std::size_t>(bits + 2));  // own block, shuffle, ⌈log2 P⌉ sends
    EXPECT_LE(scatter.most_steps_elsewhere, static_cast<std::size_t>(bits + 2));
    EXPECT_LE(scatter.steps, 3 * static_cast<std::int64_t>(kMillion));
    EXPECT_EQ(scatter.ranks_with_one_message, leaves);

    const Counts gather = count_every_rank(million(Collective::gather, root), *tree, gather_over_tree);
    EXPECT_EQ(gather.messages, kMillion - 1);
    EXPECT_EQ(gather.root_steps, static_cast<std::size_t>(bits + 2));  // own block, ⌈log2 P⌉ recvs, unshuffle
    EXPECT_LE(gather.most_steps_elsewhere, static_cast<std::size_t>(bits + 2));
    EXPECT_LE(gather.steps, 3 * static_cast<std::int64_t>(kMillion));
    EXPECT_EQ(gather.ranks_with_one_message, leaves);
  }
}

// Linear scatter and linear synchronized gather at P = 10^6: the root has
// a step per rank, every other rank a constant number.
TEST(BuilderPlans, LinearScatterAndGatherAtAMillionRanksAreCountedFromOnePlan) {
  const int root = 0;
  std::vector<int> order(kMillion);
  std::iota(order.begin(), order.end(), 0);
  const Counts scatter = count_every_rank(million(Collective::scatter, root), order, scatter_linear_in_order);
  EXPECT_EQ(scatter.messages, kMillion - 1);
  EXPECT_EQ(scatter.root_steps, static_cast<std::size_t>(kMillion));
  EXPECT_EQ(scatter.most_steps_elsewhere, 1u);

  const Counts gather = count_every_rank(million(Collective::gather, root), order, gather_synchronized_in_order);
  EXPECT_EQ(gather.messages, 3 * static_cast<std::int64_t>(kMillion - 1));  // sync + two segments per leaf
  EXPECT_EQ(gather.root_steps, static_cast<std::size_t>(kMillion) + 1);
  EXPECT_EQ(gather.most_steps_elsewhere, 3u);
}

// The schedule generators plan one transfer per port and round, so their
// Programs ask the executor for synchronous sends (MPI_Issend): an eager
// send must not let a sender run ahead into its next round. Every other
// builder keeps plain sends (they are not planned per round, and ring, for
// one, gains from eager sends under imbalance).
TEST(BuilderPlans, OnlyTheScheduleGeneratorsProgramsAskForSynchronousSends) {
  std::mt19937_64 rng(3);
  int synchronous = 0;
  for (const Algorithm &algorithm : algorithms()) {
    const bool generated = algorithm.collective == Collective::reduce &&
                           (algorithm.name == "clairvoyant" || algorithm.name == "uni_greedy" ||
                            algorithm.name == "bi_greedy");
    for (int procs : {2, 7, 16}) {
      const Params params = params_for(algorithm, procs, 0, random_pats(procs, rng));
      if (!unsupported_reason(algorithm, params).empty()) continue;
      for (const Program &program : build_all(algorithm, params)) {
        if (generated) {
          EXPECT_TRUE(program.synchronous_sends) << algorithm.name;
        }
        if (!(algorithm.capabilities & schedule_based)) {
          EXPECT_FALSE(program.synchronous_sends) << to_string(algorithm.collective) << " " << algorithm.name;
        }
        synchronous += generated && program.synchronous_sends;
      }
    }
  }
  EXPECT_EQ(synchronous, 3 * (2 + 7 + 16));  // clairvoyant, uni_greedy, bi_greedy, every rank
}
