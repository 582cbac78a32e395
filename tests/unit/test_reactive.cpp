// reduce/reactive: the chain in arrival order (builders/reactive.hpp).
// The validator proves the Programs of every arrival order for P <= 6 and
// of random orders for larger P; the simulator runs them with their
// control messages; the staged Programs the executor runs (peers not yet
// known) are prefixes of the full ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/builders/reactive.hpp"
#include "core/layout.hpp"
#include "core/simulate.hpp"
#include "core/validate.hpp"
#include "random_pats.hpp"

using namespace patcoll::core;

namespace {

Params make(int procs, std::int64_t count, int root, std::int64_t segments) {
  Params params;
  params.collective = Collective::reduce;
  params.procs = procs;
  params.count = count;
  params.root = root;
  params.segment_count = segments;
  return params;
}

const Algorithm &reactive_row() {
  const Algorithm *algorithm = find_algorithm(Collective::reduce, "reactive");
  EXPECT_NE(algorithm, nullptr);
  return *algorithm;
}

// Arrival times that give `order` (order[i] arrives i-th).
std::vector<double> times_of(const std::vector<int> &order) {
  std::vector<double> times(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) times[static_cast<std::size_t>(order[i])] = 1e-3 * static_cast<double>(i);
  return times;
}

// The first error `check(arrivals)` gives over every arrival order of
// `procs` ranks, with the order's index ("" when none).
template <typename Check>
std::string first_error_over_orders(int procs, Check check) {
  std::vector<int> order(static_cast<std::size_t>(procs));
  std::iota(order.begin(), order.end(), 0);
  int index = 0;
  do {
    if (std::string error = check(times_of(order)); !error.empty())
      return "order #" + std::to_string(index) + ": " + error;
    ++index;
  } while (std::next_permutation(order.begin(), order.end()));
  return "";
}

std::string check(const Params &params) {
  const std::vector<Program> programs = build_all(reactive_row(), params);
  return validate_all_modes(params, programs);
}

}  // namespace

TEST(ReactiveReduce, CatalogueRow) {
  const Algorithm &row = reactive_row();
  EXPECT_TRUE(row.capabilities & reactive);
  EXPECT_FALSE(row.capabilities & pap_aware);
  EXPECT_TRUE(row.restrictions & needs_commutative);
  Params params = make(4, 8, 0, 2);
  params.commutative = false;
  EXPECT_NE(unsupported_reason(row, params), "");
  params = make(kReactiveMaxProcs + 1, 8, 0, 2);
  EXPECT_NE(unsupported_reason(row, params).find("at most"), std::string::npos);
}

TEST(ReactiveReduce, ValidForEveryArrivalOrderUpToSix) {
  for (int procs = 1; procs <= 6; ++procs)
    for (int root = 0; root < procs; ++root)
      for (std::int64_t segments : {1, 3}) {
        std::vector<int> order(static_cast<std::size_t>(procs));
        std::iota(order.begin(), order.end(), 0);
        int orders = 0;
        do {
          Params params = make(procs, 7, root, segments);
          params.arrivals = times_of(order);
          const std::string error = check(params);
          ASSERT_EQ(error, "") << "P=" << procs << " root=" << root << " segments=" << segments << " order #" << orders;
          ++orders;
        } while (std::next_permutation(order.begin(), order.end()));
        EXPECT_GT(orders, 0);
      }
}

TEST(ReactiveReduce, ValidForRandomOrdersUpTo66) {
  std::mt19937_64 rng(7);
  for (int procs : {7, 8, 12, 13, 31, 32, 48, 66})
    for (int trial = 0; trial < 6; ++trial) {
      const int root = static_cast<int>(rng() % static_cast<unsigned>(procs));
      Params params = make(procs, 50, root, trial % 2 == 0 ? 4 : 1);
      params.arrivals = random_pats(procs, rng);
      ASSERT_EQ(check(params), "") << "P=" << procs << " root=" << root << " trial " << trial;
    }
}

TEST(ReactiveReduce, LinksFollowTheArrivalOrder) {
  Params params = make(5, 10, 2, 2);
  params.arrivals = {0.004, 0.0, 0.001, 0.003, 0.002};  // non-roots in order: 1, 4, 3, 0
  const std::vector<int> chain = reactive_chain(params);
  EXPECT_EQ(chain, (std::vector<int>{1, 4, 3, 0}));
  EXPECT_EQ(reactive_links(params, chain, 1), (ArrivalLinks{-1, 4}));
  EXPECT_EQ(reactive_links(params, chain, 3), (ArrivalLinks{4, 0}));
  EXPECT_EQ(reactive_links(params, chain, 0), (ArrivalLinks{3, 2}));
  EXPECT_EQ(reactive_links(params, chain, 2), (ArrivalLinks{0, -1}));
}

// What the executor runs before it knows a neighbour is the full
// Program's beginning, and the data Programs are the control Programs
// without their zero-element messages.
TEST(ReactiveReduce, StagedProgramsArePrefixes) {
  for (int procs : {2, 3, 6, 9}) {
    Params params = make(procs, 12, procs / 2, 3);
    const std::vector<int> chain = reactive_chain(params);
    for (int rank = 0; rank < procs; ++rank) {
      const ArrivalLinks full = reactive_links(params, chain, rank);
      ArrivalLinks staged = full;
      if (rank == params.root) staged.previous = full.previous >= 0 ? kUnknownPeer : -1;
      else if (full.next != params.root) staged.next = kUnknownPeer;
      const Program before = reduce_reactive_links(params, rank, staged, false);
      const Program after = reduce_reactive_links(params, rank, full, false);
      const std::size_t known = known_steps(before);
      EXPECT_EQ(before.scratch_count, after.scratch_count);
      ASSERT_LE(known, after.steps.size());
      for (std::size_t s = 0; s < known; ++s) EXPECT_EQ(before.steps[s], after.steps[s]) << "rank " << rank;
      EXPECT_EQ(known_steps(after), after.steps.size());
      if (staged == full) EXPECT_EQ(known, before.steps.size());
      else EXPECT_LT(known, before.steps.size());
      // The control Program = the data Program plus zero-element messages.
      const Program control = reduce_reactive_links(params, rank, full, true);
      Program stripped{rank, procs, control.scratch_count, {}};
      for (const Step &step : control.steps) {
        std::vector<Op> ops;
        for (const Op &op : step.ops)
          if (op.kind == OpKind::local || (op.kind == OpKind::send ? op.src.count : op.dst.count) > 0) ops.push_back(op);
        add_step(stripped, ops, step.round);
      }
      EXPECT_EQ(stripped, after) << "rank " << rank;
    }
  }
}

// The simulator runs the control messages: 3P - 4 of them (P - 1 hellos
// to the root, P - 1 answers, P - 2 to a predecessor), and a late rank is
// one pipelined transfer from the end.
TEST(ReactiveReduce, SimulatedWithControlMessages) {
  const int procs = 8;
  Params params = make(procs, 1 << 18, 0, 16);
  params.cost = CostModel{1e-5, 1e-9, 0.0};
  params.element_bytes = 4;
  const SimulateResult balanced = simulate(reactive_row(), params);
  ASSERT_EQ(balanced.error, "");
  const std::int64_t data_messages = static_cast<std::int64_t>(procs - 1) * 16;
  EXPECT_EQ(balanced.messages, data_messages + (3 * procs - 4));
  // One rank late by much more than the whole collective.
  const double late = 1.0;
  params.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
  params.arrivals[3] = late;
  const SimulateResult one_late = simulate(reactive_row(), params);
  ASSERT_EQ(one_late.error, "");
  const double transfer = static_cast<double>(params.count * params.element_bytes) * params.cost.beta;
  const double after_last = one_late.run_time - late;
  EXPECT_GT(after_last, transfer);
  // Its predecessor forwards while it receives, the late rank too: about
  // one transfer plus a few segments, far from the balanced chain.
  EXPECT_LT(after_last, transfer * (1.0 + 4.0 / 16.0) + 10 * params.cost.alpha);
  EXPECT_LT(after_last, balanced.run_time);
}

// allreduce/reactive: the reactive reduce to rank 0, then the broadcast.
namespace {

const Algorithm &reactive_allreduce() {
  const Algorithm *algorithm = find_algorithm(Collective::allreduce, "reactive");
  EXPECT_NE(algorithm, nullptr);
  return *algorithm;
}

Params make_allreduce(int procs, std::int64_t count, std::int64_t segments) {
  Params params = make(procs, count, 0, segments);
  params.collective = Collective::allreduce;
  return params;
}

}  // namespace

TEST(ReactiveAllreduce, ValidForEveryArrivalOrderUpToSix) {
  for (int procs = 1; procs <= 6; ++procs)
    for (std::int64_t count : {7, 1100}) {  // binomial broadcast; 1100 x 64 B: pipelined chain
      Params params = make_allreduce(procs, count, 3);
      params.element_bytes = count > 100 ? 64 : 4;
      ASSERT_EQ(first_error_over_orders(procs,
                                        [&](const std::vector<double> &arrivals) {
                                          params.arrivals = arrivals;
                                          return validate_all_modes(params, build_all(reactive_allreduce(), params));
                                        }),
                "")
          << "P=" << procs << " count=" << count;
    }
}

TEST(ReactiveAllreduce, ValidForRandomOrdersUpTo66) {
  std::mt19937_64 rng(11);
  for (int procs : {7, 12, 13, 48, 66})
    for (int trial = 0; trial < 4; ++trial) {
      Params params = make_allreduce(procs, trial % 2 == 0 ? 50 : 20000, 0);
      params.arrivals = random_pats(procs, rng);
      ASSERT_EQ(validate_all_modes(params, build_all(reactive_allreduce(), params)), "") << "P=" << procs;
    }
}

TEST(ReactiveAllreduce, StagedProgramsArePrefixes) {
  for (int procs : {2, 5, 8}) {
    Params params = make_allreduce(procs, 20000, 0);
    const std::vector<int> chain = reactive_chain(params);
    for (int rank = 0; rank < procs; ++rank) {
      const ArrivalLinks full = reactive_links(params, chain, rank);
      ArrivalLinks staged = full;
      if (rank == 0) staged.previous = kUnknownPeer;
      else if (full.next != 0) staged.next = kUnknownPeer;
      const Program before = allreduce_reactive_links(params, rank, staged, false);
      const Program after = allreduce_reactive_links(params, rank, full, false);
      const std::size_t known = known_steps(before);
      ASSERT_LE(known, after.steps.size());
      EXPECT_EQ(before.scratch_count, after.scratch_count);
      for (std::size_t s = 0; s < known; ++s) EXPECT_EQ(before.steps[s], after.steps[s]) << "rank " << rank;
    }
  }
}

// bcast/reactive: a segmented chain from the root in arrival order; a
// rank forwards once its successor is there (ArrivalLinks::held).
namespace {

const Algorithm &reactive_bcast() {
  const Algorithm *algorithm = find_algorithm(Collective::bcast, "reactive");
  EXPECT_NE(algorithm, nullptr);
  return *algorithm;
}

Params make_bcast(int procs, std::int64_t count, int root, std::int64_t segments) {
  Params params = make(procs, count, root, segments);
  params.collective = Collective::bcast;
  params.element_bytes = 1;
  return params;
}

// Every rank's data Program (no control messages) for the order of
// `params`, each non-root's successor known after held(rank) segments.
template <typename Held>
std::vector<Program> bcast_with_held(const Params &params, Held held) {
  const std::vector<int> chain = reactive_chain(params);
  std::vector<Program> programs;
  for (int rank = 0; rank < params.procs; ++rank) {
    ArrivalLinks links = bcast_reactive_links_of(params, chain, rank);
    links.held = held(rank);
    programs.push_back(bcast_reactive_links(params, rank, links, false));
  }
  return programs;
}

}  // namespace

TEST(ReactiveBcast, CatalogueRow) {
  const Algorithm &row = reactive_bcast();
  EXPECT_TRUE(row.capabilities & reactive);
  EXPECT_FALSE(row.capabilities & pap_aware);
  EXPECT_TRUE(row.restrictions.empty());
  EXPECT_EQ(unsupported_reason(row, make_bcast(4, 8, 0, 2)), "");
}

TEST(ReactiveBcast, ValidForEveryArrivalOrderUpToSix) {
  for (int procs = 1; procs <= 6; ++procs)
    for (int root = 0; root < procs; ++root)
      for (std::int64_t count : {0, 1, 7, 40})
        for (std::int64_t segments : {1, 3, 5}) {
          std::vector<int> order(static_cast<std::size_t>(procs));
          std::iota(order.begin(), order.end(), 0);
          do {
            Params params = make_bcast(procs, count, root, segments);
            params.arrivals = times_of(order);
            ASSERT_EQ(validate_all_modes(params, build_all(reactive_bcast(), params)), "")
                << "P=" << procs << " root=" << root << " count=" << count << " segments=" << segments;
          } while (std::next_permutation(order.begin(), order.end()));
        }
}

TEST(ReactiveBcast, ValidForRandomOrdersUpTo66) {
  std::mt19937_64 rng(13);
  for (int procs : {7, 8, 9, 12, 13, 31, 48, 66})
    for (int trial = 0; trial < 6; ++trial) {
      const int root = static_cast<int>(rng() % static_cast<unsigned>(procs));
      Params params = make_bcast(procs, trial % 3 == 0 ? 1 : 300, root, trial % 2 == 0 ? 7 : 0);
      params.arrivals = random_pats(procs, rng);
      ASSERT_EQ(validate_all_modes(params, build_all(reactive_bcast(), params)), "")
          << "P=" << procs << " root=" << root << " trial " << trial;
    }
}

// The Programs the mechanism runs: for every "successor known after j
// segments" (the same j everywhere, and mixed per rank), any order.
TEST(ReactiveBcast, ValidForEverySuccessorStep) {
  std::mt19937_64 rng(17);
  for (int procs : {2, 3, 4, 5, 7, 9})
    for (std::int64_t segments : {1, 4, 6}) {
      for (int trial = 0; trial < 3; ++trial) {
        Params params = make_bcast(procs, 30, static_cast<int>(rng() % static_cast<unsigned>(procs)), segments);
        params.arrivals = random_pats(procs, rng);
        for (std::int64_t j = 0; j <= segments + 1; ++j)
          ASSERT_EQ(validate_all_modes(params, bcast_with_held(params, [&](int) { return j; })), "")
              << "P=" << procs << " segments=" << segments << " held=" << j;
        ASSERT_EQ(validate_all_modes(params, bcast_with_held(params, [&](int rank) {
                    return static_cast<std::int64_t>(rank * 5 + trial) % segments + 1;
                  })),
                  "")
            << "P=" << procs << " segments=" << segments << " mixed";
      }
    }
}

// What the executor runs before the successor is there (receive only,
// then a step naming it) begins like every Program built once it is.
TEST(ReactiveBcast, StagedProgramsArePrefixes) {
  for (int procs : {2, 3, 6, 9}) {
    Params params = make_bcast(procs, 40, procs / 2, 5);
    const std::vector<int> chain = reactive_chain(params);
    for (int rank = 0; rank < procs; ++rank) {
      const ArrivalLinks full = bcast_reactive_links_of(params, chain, rank);
      if (rank == params.root || full.next < 0) continue;  // know everything from the start
      ArrivalLinks staged = full;
      staged.next = kUnknownPeer;
      const Program before = bcast_reactive_links(params, rank, staged, false);
      const std::size_t known = known_steps(before);
      EXPECT_EQ(known, 5u);  // every segment received, one per step
      EXPECT_LT(known, before.steps.size());
      for (std::int64_t held = 1; held <= 5; ++held) {
        ArrivalLinks links = full;
        links.held = held;
        const Program after = bcast_reactive_links(params, rank, links, false);
        EXPECT_EQ(known_steps(after), after.steps.size());
        for (std::size_t s = 0; s < static_cast<std::size_t>(held); ++s)
          EXPECT_EQ(before.steps[s], after.steps[s]) << "rank " << rank << " held " << held;
      }
    }
  }
}

// Step counts: the root S steps (one send each); a rank in the middle of
// the line S + 1 (held receive-only steps, one step forwarding them with
// the next receive, then send-and-receive); the last in line one step
// receiving everything from its predecessor. The successor known from
// the start (held 1) gives bcast/chain's rank Program.
TEST(ReactiveBcast, StepCounts) {
  const std::int64_t segments = 6;
  Params params = make_bcast(5, 60, 1, segments);
  params.arrivals = {0.0, 0.0, 0.0, 0.0, 1.0};  // rank 4 late: last in line, behind 3
  const std::vector<int> chain = reactive_chain(params);
  ASSERT_EQ(chain, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_EQ(bcast_reactive_segments(params), segments);
  const Program root = bcast_reactive_links(params, 1, bcast_reactive_links_of(params, chain, 1), false);
  EXPECT_EQ(root.steps.size(), static_cast<std::size_t>(segments));
  for (std::int64_t held = 1; held <= segments; ++held) {
    ArrivalLinks links = bcast_reactive_links_of(params, chain, 2);
    links.held = held;
    const Program middle = bcast_reactive_links(params, 2, links, false);
    ASSERT_EQ(middle.steps.size(), static_cast<std::size_t>(segments + 1));
    // Step `held` sends the held segments to the successor at once.
    std::int64_t sends = 0;
    for (const Op &op : middle.steps[static_cast<std::size_t>(held)].ops) sends += op.kind == OpKind::send;
    EXPECT_EQ(sends, held);
  }
  // The late rank: one step, every segment from its predecessor 3, which
  // holds the whole message when it comes (held = S).
  const ArrivalLinks late = bcast_reactive_links_of(params, chain, 4);
  EXPECT_EQ(late.previous, 3);
  EXPECT_EQ(late.next, -1);
  const Program last = bcast_reactive_links(params, 4, late, false);
  ASSERT_EQ(last.steps.size(), 1u);
  EXPECT_EQ(last.steps[0].ops.size(), static_cast<std::size_t>(segments));
  for (const Op &op : last.steps[0].ops) EXPECT_TRUE(op.kind == OpKind::recv && op.peer == 3);
  EXPECT_EQ(bcast_reactive_links_of(params, chain, 3).held, segments);
  // Balanced: every successor known from the start, rank Programs of the
  // chain root → 0 → 2 → 3 → 4.
  params.arrivals.clear();
  for (int rank : {0, 2, 3}) EXPECT_EQ(bcast_reactive_links_of(params, reactive_chain(params), rank).held, 1);
}

// The simulator runs the control messages: 3P - 4 of them with the
// data's (P - 1)·S; a late rank is one pipelined transfer after it comes.
TEST(ReactiveBcast, SimulatedWithControlMessages) {
  const int procs = 8;
  const std::int64_t segments = 16;
  Params params = make_bcast(procs, 1 << 20, 0, segments);
  params.cost = CostModel{1e-5, 1e-9, 0.0};
  const SimulateResult balanced = simulate(reactive_bcast(), params);
  ASSERT_EQ(balanced.error, "");
  EXPECT_EQ(balanced.messages, static_cast<std::int64_t>(procs - 1) * segments + (3 * procs - 4));
  const double late = 1.0;
  params.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
  params.arrivals[5] = late;
  const SimulateResult one_late = simulate(reactive_bcast(), params);
  ASSERT_EQ(one_late.error, "");
  const double transfer = static_cast<double>(params.count) * params.cost.beta;
  const double after_last = one_late.run_time - late;
  EXPECT_GT(after_last, transfer);
  // One transfer plus the control round trips and a segment's latency
  // per message: far from the balanced chain.
  EXPECT_LT(after_last, transfer + (segments + 6) * params.cost.alpha);
  EXPECT_LT(after_last, balanced.run_time);
}

// alltoall/reactive and alltoallv/reactive (builders/reactive.hpp): the
// validator over arrival orders (random, ties, rank 0 late), counts and
// v-counts with zero pairs, MPI_IN_PLACE; the Programs the mechanism runs
// for any grouping of the later ranks; the staged Programs as prefixes;
// the step and message counts.
namespace {

const Algorithm &reactive_alltoall(Collective c = Collective::alltoall) {
  const Algorithm *algorithm = find_algorithm(c, "reactive");
  EXPECT_NE(algorithm, nullptr);
  return *algorithm;
}

Params make_alltoall(int procs, std::int64_t count) {
  Params params;
  params.collective = Collective::alltoall;
  params.procs = procs;
  params.count = count;
  params.element_bytes = 1;
  return params;
}

// Arrival vectors of every kind: random, with ties (a coarse grid), rank 0
// the latest, none (rank order).
std::vector<double> alltoall_arrivals(int procs, int kind, std::mt19937_64 &rng) {
  std::vector<double> arrivals = random_pats(procs, rng);
  switch (kind % 4) {
    case 1:
      for (double &a : arrivals) a = std::floor(a * 3e3) / 3e3;  // ties
      break;
    case 2:
      arrivals[0] = 2e-3;  // the coordinator last
      break;
    case 3:
      arrivals.clear();
      break;
  }
  return arrivals;
}

// alltoallv counts: a third of the pairs empty, a silent row and column,
// unequal sizes; symmetric for MPI_IN_PLACE.
std::vector<std::int64_t> reactive_v_counts(int procs, std::mt19937_64 &rng, bool symmetric) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(procs) * procs);
  for (int s = 0; s < procs; ++s)
    for (int d = 0; d < procs; ++d) {
      std::int64_t c = static_cast<std::int64_t>(rng() % 10);
      if (c < 3 || (procs > 2 && (s == 1 || d == procs - 1))) c = 0;
      counts[static_cast<std::size_t>(s) * procs + d] = c;
    }
  if (symmetric)
    for (int s = 0; s < procs; ++s)
      for (int d = 0; d < s; ++d)
        counts[static_cast<std::size_t>(s) * procs + d] = counts[static_cast<std::size_t>(d) * procs + s];
  return counts;
}

// Every rank's Program as the mechanism runs it (no control messages):
// the later ranks in any order (their notices race), in groups of random
// sizes.
std::vector<Program> alltoall_grouped(const Params &params, std::mt19937_64 &rng) {
  const std::vector<int> order = alltoall_reactive_order(params);
  std::vector<Program> programs;
  for (int rank = 0; rank < params.procs; ++rank) {
    AlltoallLinks links = alltoall_reactive_links_of(order, rank);
    std::vector<int> later;
    for (const std::vector<int> &group : links.later) later.insert(later.end(), group.begin(), group.end());
    if (rank != 0) std::shuffle(later.begin(), later.end(), rng);  // rank 0 meets them in hello order
    links.later.clear();
    for (std::size_t i = 0; i < later.size();) {
      const std::size_t n = 1 + rng() % 3;
      links.later.emplace_back(later.begin() + static_cast<std::ptrdiff_t>(i),
                               later.begin() + static_cast<std::ptrdiff_t>(std::min(later.size(), i + n)));
      i += n;
    }
    programs.push_back(alltoall_reactive_groups(params, rank, links));
  }
  return programs;
}

}  // namespace

TEST(ReactiveAlltoall, CatalogueRows) {
  for (Collective c : {Collective::alltoall, Collective::alltoallv}) {
    const Algorithm &row = reactive_alltoall(c);
    EXPECT_TRUE(row.capabilities & reactive);
    EXPECT_FALSE(row.capabilities & pap_aware);
    EXPECT_TRUE(row.restrictions.empty());
  }
  EXPECT_EQ(unsupported_reason(reactive_alltoall(), make_alltoall(4, 8)), "");
  EXPECT_NE(unsupported_reason(reactive_alltoall(), make_alltoall(kReactiveMaxProcs + 1, 1)), "");
}

TEST(ReactiveAlltoall, ValidForRandomOrdersTiesAndALateCoordinator) {
  std::mt19937_64 rng(23);
  int cases = 0;
  for (int procs = 1; procs <= 13; ++procs)
    for (int kind = 0; kind < 8; ++kind)
      for (std::int64_t count : {0, 1, 7}) {
        Params params = make_alltoall(procs, count);
        params.arrivals = alltoall_arrivals(procs, kind, rng);
        ASSERT_EQ(validate_all_modes(params, build_all(reactive_alltoall(), params)), "")
            << "P=" << procs << " kind " << kind << " count=" << count;
        ++cases;
      }
  for (int procs : {31, 48}) {
    Params params = make_alltoall(procs, 3);
    params.arrivals = alltoall_arrivals(procs, procs, rng);
    ASSERT_EQ(validate_all_modes(params, build_all(reactive_alltoall(), params)), "") << "P=" << procs;
  }
  EXPECT_EQ(cases, 13 * 8 * 3);
}

TEST(ReactiveAlltoallv, ValidWithZeroAndUnequalPairsAndInPlaceWhereSymmetric) {
  std::mt19937_64 rng(29);
  for (int procs = 1; procs <= 13; ++procs)
    for (int kind = 0; kind < 6; ++kind)
      for (bool symmetric : {false, true}) {
        Params params = make_alltoall(procs, 0);
        params.collective = Collective::alltoallv;
        params.counts = reactive_v_counts(procs, rng, symmetric);
        if (kind == 5) std::fill(params.counts.begin(), params.counts.end(), 0);  // nothing moves
        params.arrivals = alltoall_arrivals(procs, kind, rng);
        const std::vector<Program> programs = build_all(reactive_alltoall(Collective::alltoallv), params);
        ASSERT_EQ(symmetric ? validate_all_modes(params, programs) : validate(params, programs), "")
            << "P=" << procs << " kind " << kind << (symmetric ? " symmetric" : "");
      }
}

// The Programs the mechanism runs, whatever order the notices come in and
// however many come between two steps.
TEST(ReactiveAlltoall, ValidForEveryGroupingOfTheLaterRanks) {
  std::mt19937_64 rng(31);
  for (int procs : {2, 3, 4, 5, 7, 9, 13})
    for (int trial = 0; trial < 8; ++trial) {
      Params params = make_alltoall(procs, trial % 2 == 0 ? 5 : 1);
      params.arrivals = alltoall_arrivals(procs, trial, rng);
      ASSERT_EQ(validate_all_modes(params, alltoall_grouped(params, rng)), "") << "P=" << procs << " trial " << trial;
      params.collective = Collective::alltoallv;
      params.counts = reactive_v_counts(procs, rng, true);
      ASSERT_EQ(validate_all_modes(params, alltoall_grouped(params, rng)), "")
          << "alltoallv P=" << procs << " trial " << trial;
    }
}

// The groups in turn (what the validator proves for any grouping) are the
// group exchanges the mechanism runs: the same ops, each group's scratch
// after the previous one's; a group is two steps at most (exchange, copy
// into place), rounds 1 and 2, its scratch its peers' pairs back to back.
TEST(ReactiveAlltoall, TheGroupsInTurnAreTheMechanismsExchanges) {
  std::mt19937_64 rng(37);
  for (int procs : {1, 2, 3, 6, 9}) {
    for (bool v : {false, true}) {
      Params params = make_alltoall(procs, 4);
      if (v) {
        params.collective = Collective::alltoallv;
        params.counts = reactive_v_counts(procs, rng, false);
      }
      params.arrivals = random_pats(procs, rng);
      const std::vector<int> order = alltoall_reactive_order(params);
      ASSERT_EQ(order.front(), reactive_coordinator(params));
      for (int rank = 0; rank < procs; ++rank) {
        const AlltoallLinks links = alltoall_reactive_links_of(order, rank);
        const Program model = alltoall_reactive_groups(params, rank, links);
        std::vector<Op> expected;
        std::int64_t scratch = 0;
        auto add = [&](const std::vector<int> &peers, bool own) {
          const Program group = alltoall_reactive_group(params, rank, peers, own);
          ASSERT_LE(group.steps.size(), 2u);
          std::int64_t pairs = 0;
          for (int peer : peers) pairs += pair_count(params, peer, rank);
          EXPECT_EQ(group.scratch_count, pairs);
          for (const Step &step : group.steps) {
            EXPECT_EQ(step.round, &step == &group.steps.front() ? 1 : 2);
            for (Op op : step.ops) {
              if (op.src.buffer == Buffer::scratch) op.src.offset += scratch;
              if (op.dst.buffer == Buffer::scratch) op.dst.offset += scratch;
              expected.push_back(op);
            }
          }
          scratch += group.scratch_count;
        };
        add(links.earlier, true);
        for (const std::vector<int> &group : links.later) add(group, false);
        std::vector<Op> got;
        for (const Step &step : model.steps) got.insert(got.end(), step.ops.begin(), step.ops.end());
        EXPECT_EQ(got, expected) << "P=" << procs << " rank " << rank;
        EXPECT_EQ(model.scratch_count, scratch);
      }
    }
  }
}

// Step and message counts of the model (every pair non-empty): a rank
// but rank 0 says hello, takes its answer, exchanges with everyone at once
// (the control messages first) and copies into place: 4 steps; rank 0 the
// last two. The groups in turn: the rank at position k runs 2 + 2(P − 1 −
// k) steps with each later rank its own group (rank 0: 1 + 2(P − 1)).
// Messages: the P(P − 1) pairs plus (P − 1) hellos, (P − 1) answers and
// (P − 1)(P − 2)/2 notices.
TEST(ReactiveAlltoall, StepAndMessageCounts) {
  for (int procs : {1, 2, 5, 8}) {
    Params params = make_alltoall(procs, 16);
    params.arrivals.assign(static_cast<std::size_t>(procs), 0.0);
    if (procs > 2) params.arrivals[1] = 1.0;  // rank 1 last
    const std::vector<int> order = alltoall_reactive_order(params);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const int rank = order[k];
      const std::size_t later = order.size() - 1 - k;
      const AlltoallLinks links = alltoall_reactive_links_of(order, rank);
      EXPECT_EQ(alltoall_reactive_groups(params, rank, links).steps.size(), (k == 0 ? 1 : 2) + 2 * later)
          << "P=" << procs << " position " << k;
      EXPECT_EQ(alltoall_reactive(params, rank).steps.size(), procs == 1 ? 1u : k == 0 ? 2u : 4u)
          << "P=" << procs << " position " << k;
    }
    const std::int64_t p = procs;
    const SimulateResult run = simulate(reactive_alltoall(), params);
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(run.messages, p * (p - 1) + 2 * (p - 1) + (p - 1) * (p - 2) / 2) << "P=" << procs;
  }
  // Count 0: no message at all.
  const SimulateResult none = simulate(reactive_alltoall(), make_alltoall(6, 0));
  ASSERT_EQ(none.error, "");
  EXPECT_EQ(none.messages, 0);
}

// The model with one late rank: the run ends one exchange after the late
// rank's answer: linear's run plus its round trip to rank 0 (2α) and its
// P − 2 notices, which leave its port one after the other in the model
// (one α each).
TEST(ReactiveAlltoall, OneLateRankEndsOneExchangeAfterItsAnswer) {
  Params params = make_alltoall(16, 1 << 16);
  params.cost = CostModel{1e-5, 1e-9, 0.0};
  params.arrivals.assign(16, 0.0);
  params.arrivals[5] = 1.0;
  const SimulateResult reactive_run = simulate(reactive_alltoall(), params);
  const SimulateResult linear_run = simulate(*find_algorithm(Collective::alltoall, "linear"), params);
  ASSERT_EQ(reactive_run.error, "");
  ASSERT_EQ(linear_run.error, "");
  EXPECT_GT(reactive_run.run_time, linear_run.run_time);
  EXPECT_LE(reactive_run.run_time, linear_run.run_time + (2 + 14) * params.cost.alpha + 1e-9);
}

// allreduce/reactive_owners: the first K ranks in the order rank 0 hands
// out own one block each; the others send their parts and receive the
// results in stages.
namespace {

const Algorithm &reactive_owners() {
  const Algorithm *algorithm = find_algorithm(Collective::allreduce, "reactive_owners");
  EXPECT_NE(algorithm, nullptr);
  return *algorithm;
}

Params make_owners(int procs, std::int64_t count, std::int64_t element_bytes) {
  Params params = make(procs, count, 0, 0);
  params.collective = Collective::allreduce;
  params.element_bytes = element_bytes;
  return params;
}

}  // namespace

TEST(ReactiveOwners, CatalogueRow) {
  const Algorithm &row = reactive_owners();
  EXPECT_TRUE(row.capabilities & reactive);
  EXPECT_FALSE(row.capabilities & pap_aware);
  EXPECT_TRUE(row.restrictions & needs_commutative);
  Params params = make_owners(4, 8, 4);
  params.commutative = false;
  EXPECT_NE(unsupported_reason(row, params), "");
  EXPECT_EQ(reactive_owners_count(1), 1);
  EXPECT_EQ(reactive_owners_count(2), 1);
  EXPECT_EQ(reactive_owners_count(4), 3);
  EXPECT_EQ(reactive_owners_count(48), 36);
  EXPECT_EQ(reactive_owners_count(128), 96);
}

TEST(ReactiveOwners, ValidForEveryArrivalOrderUpToSix) {
  for (int procs = 1; procs <= 6; ++procs)
    for (std::int64_t count : {0, 1, 7, 3000}) {  // 3000 x 64 B: several stages
      Params params = make_owners(procs, count, count > 100 ? 64 : 4);
      ASSERT_EQ(first_error_over_orders(procs,
                                        [&](const std::vector<double> &arrivals) {
                                          params.arrivals = arrivals;
                                          return validate_all_modes(params, build_all(reactive_owners(), params));
                                        }),
                "")
          << "P=" << procs << " count=" << count;
    }
}

TEST(ReactiveOwners, ValidForRandomOrdersUpTo66AndGivenStages) {
  std::mt19937_64 rng(13);
  for (int procs : {7, 12, 13, 48, 66})
    for (int trial = 0; trial < 4; ++trial) {
      Params params = make_owners(procs, trial % 2 == 0 ? 50 : 20000, 4);
      if (trial == 3) params.segment_count = 5;
      params.arrivals = random_pats(procs, rng);
      ASSERT_EQ(validate_all_modes(params, build_all(reactive_owners(), params)), "") << "P=" << procs;
    }
}

// The mechanism's order (the coordinator first), what each rank knows when, and
// the roles: a later rank only sends its own data and receives results;
// an owner's Program before it knows the later ranks is the beginning of
// the full one and ends with its exchange among the owners.
TEST(ReactiveOwners, RolesAndStagedPrograms) {
  for (int procs : {2, 5, 8, 13}) {
    Params params = make_owners(procs, 40000, 4);
    std::mt19937_64 rng(static_cast<std::uint64_t>(procs));
    params.arrivals = random_pats(procs, rng);
    const std::vector<int> order = alltoall_reactive_order(params);
    ASSERT_EQ(order.front(), reactive_coordinator(params));
    const int owners = reactive_owners_count(procs);
    const std::int64_t stages = reactive_owners_stages(params, owners);
    EXPECT_GE(stages, 1);
    for (int position = 0; position < procs; ++position) {
      const int rank = order[static_cast<std::size_t>(position)];
      const Program full = allreduce_reactive_owners_order(params, rank, order, false);
      if (position >= owners) {
        std::vector<int> known(order.begin(), order.begin() + owners);
        known.resize(static_cast<std::size_t>(procs), kUnknownPeer);
        known[static_cast<std::size_t>(position)] = rank;
        EXPECT_EQ(allreduce_reactive_owners_order(params, rank, known, false), full) << "rank " << rank;
        EXPECT_EQ(elements_sent(full), params.count);
        EXPECT_EQ(static_cast<std::int64_t>(full.steps.size()), stages + 1);
        for (const Step &step : full.steps)
          for (const Op &op : step.ops) {
            EXPECT_NE(op.kind, OpKind::local);
            if (op.kind == OpKind::send) { EXPECT_EQ(op.src.buffer, Buffer::send); }
            if (op.kind == OpKind::recv) { EXPECT_EQ(op.combine, Combine::store); }
            EXPECT_LT(std::find(order.begin(), order.end(), op.peer) - order.begin(), owners);
          }
        continue;
      }
      std::vector<int> known(order.begin(), order.begin() + owners);
      known.resize(static_cast<std::size_t>(procs), kUnknownPeer);
      const Program before = allreduce_reactive_owners_order(params, rank, known, false);
      const std::size_t steps = known_steps(before);
      EXPECT_EQ(steps, owners < procs ? 1u : before.steps.size()) << "rank " << rank;
      for (std::size_t s = 0; s < steps; ++s) EXPECT_EQ(before.steps[s], full.steps[s]) << "rank " << rank;
    }
  }
}

// Under the model: with the ranks arriving one after another over four
// transfers of the message, the late ranks' data go to owners that
// already hold the others' sum, and the run ends before the ring's. (The
// model holds a port for α per message, so it is run with 4 stages here:
// with the default 16 at this α it predicts more than SMPI measures,
// docs/results/reactive.md.)
TEST(ReactiveOwners, SimulatedWithControlMessagesBeatsTheRingOnAStaircase) {
  Params params = make_owners(48, 1 << 20, 4);
  params.segment_count = 4;
  params.cost = CostModel{5e-6, 8e-9, 0};
  const double transfer = params.cost.transfer_time(4.0 * (1 << 20));
  params.arrivals.resize(48);
  for (int r = 0; r < 48; ++r) params.arrivals[static_cast<std::size_t>(r)] = 4 * transfer * r / 47.0;
  const Algorithm *ring = find_algorithm(Collective::allreduce, "ring");
  ASSERT_NE(ring, nullptr);
  const SimulateResult owners = simulate(reactive_owners(), params);
  const SimulateResult classic = simulate(*ring, params);
  ASSERT_EQ(owners.error, "");
  EXPECT_LT(owners.run_time, classic.run_time);
  EXPECT_GT(owners.run_time, params.arrivals.back() + transfer);  // one transfer after the last arrival at least
}

// The coordinator is the rank predicted to arrive first (the lowest of
// equals), rank 0 without a usable vector; the order starts with it and
// follows the vector after it.
TEST(ReactiveCoordinator, TheRankPredictedFirstHandsOutTheOrder) {
  Params params = make_alltoall(5, 4);
  EXPECT_EQ(reactive_coordinator(params), 0);
  EXPECT_EQ(alltoall_reactive_order(params), (std::vector<int>{0, 1, 2, 3, 4}));
  params.arrivals = {0.03, 0.02, 0.0, 0.01, 0.0};  // rank 0 late (it writes output, say)
  EXPECT_EQ(reactive_coordinator(params), 2);
  EXPECT_EQ(alltoall_reactive_order(params), (std::vector<int>{2, 4, 3, 1, 0}));
  params.arrivals = {0.0, 0.0, 0.0, 0.0, 0.0};
  EXPECT_EQ(reactive_coordinator(params), 0);
  params.arrivals = {0.0, 0.0};  // not one per rank: no vector
  EXPECT_EQ(reactive_coordinator(params), 0);
  // The modelled Programs say hello to it: every rank's first message.
  params.arrivals = {0.5, 0.4, 0.3, 0.2, 0.1};
  ASSERT_EQ(reactive_coordinator(params), 4);
  for (const Program &program : build_all(*find_algorithm(Collective::alltoall, "reactive"), params)) {
    if (program.rank == 4) continue;
    ASSERT_FALSE(program.steps.empty());
    EXPECT_EQ(program.steps.front().ops.front().peer, 4) << "rank " << program.rank;
  }
  Params sum = make_owners(5, 1000, 4);
  sum.arrivals = params.arrivals;
  for (const char *name : {"reactive_owners", "reactive"}) {
    const std::vector<Program> programs = build_all(*find_algorithm(Collective::allreduce, name), sum);
    for (const Program &program : programs) {
      if (program.rank == 4) continue;
      ASSERT_FALSE(program.steps.empty());
      EXPECT_EQ(program.steps.front().ops.front().peer, 4) << name << " rank " << program.rank;
    }
    EXPECT_EQ(validate_all_modes(sum, programs), "") << name;
  }
}
