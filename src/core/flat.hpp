// Every rank's Program in the form the simulator executes (simulate.hpp):
// one array of 32-byte ops, each rank's steps linked in order, the steps
// laid out by round rather than rank by rank.
//
// Why: at P = 10^5 the simulator's cost is memory latency, not arithmetic
// (docs/results/builders.md, "The simulator at P = 100 000"). Its event loop visits
// ranks in time order, i.e. at random; with the ops stored rank by rank
// every step it reads is a cache and TLB miss somewhere in hundreds of MB.
// Laid out by round (Step::round where the algorithm has rounds, else the
// step's index in its Program), the steps the loop reads at about the same
// simulated time sit next to each other, so it reads the array nearly in
// order. The layout is the only thing that changes: a rank's steps and
// their ops are the same, in the same order, so a simulation of a
// FlatPrograms gives the same result whatever the layout
// (tests/unit/test_flat.cpp).
//
// Two ways in, one builder: flatten() for any std::vector<Program>, and
// Algorithm::build_flat for builders that emit steps straight into a
// FlatBuilder (the schedule-based reduces: no per-rank std::vector<Step>
// and std::vector<Op>, a fifth of the memory at P = 10^5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "algorithm.hpp"
#include "ir.hpp"

namespace patcoll::core {

struct FlatOp {
  static constexpr std::uint8_t kLast = 1;   // the last op of its step: `next` is valid
  static constexpr std::uint8_t kEmpty = 4;  // stands for an empty step (no op)
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::int64_t offset = 0;  // of the region it touches: send: src; recv: dst (unused for local ops)
  std::int64_t count = 0;   // elements: send and local: src.count; recv: dst.count
  std::int32_t peer = -1;
  OpKind kind = OpKind::local;
  Combine combine = Combine::store;
  Buffer buffer = Buffer::send;
  std::uint8_t flags = 0;
  // On the last op of a step: the first op of the rank's next step, kNone
  // at the end of its Program.
  std::uint32_t next = kNone;
  // A send or recv with a tag < FlatPrograms::tags pairs with the one op of
  // the other kind carrying the same tag (a numbered schedule's transfer,
  // Transfer::id) instead of FIFO per ordered pair; kNone: FIFO.
  std::uint32_t tag = kNone;

  FlatOp() = default;
  explicit FlatOp(const Op &op) : peer(op.peer), kind(op.kind), combine(op.combine) {
    const Region &region = op.kind == OpKind::recv ? op.dst : op.src;
    offset = region.offset;
    count = region.count;
    buffer = region.buffer;
  }
  bool combining_recv() const { return kind == OpKind::recv && combine != Combine::store; }
  // A send or a store-recv: a combine into memory it touches waits for it.
  bool barrier() const { return kind == OpKind::send || (kind == OpKind::recv && combine == Combine::store); }
  bool touches(const FlatOp &other) const {
    return buffer == other.buffer && count > 0 && other.count > 0 && offset < other.offset + other.count &&
           other.offset < offset + count;
  }
};
static_assert(sizeof(FlatOp) == 32, "the tag lives in what was padding");

// An op's channel and dependencies (Op::tag, Op::group, Op::after), kept
// beside the ops only when some Program uses them (FlatPrograms::deps).
struct FlatDeps {
  std::int32_t tag = 0;
  std::int32_t group = -1;
  std::int32_t after = -1;
  bool any() const { return tag != 0 || group >= 0 || after >= 0; }
};

struct FlatPrograms {
  int procs = 0;
  std::vector<FlatOp> ops;
  // Empty, or one entry per op: its Op::tag, Op::group and Op::after.
  std::vector<FlatDeps> deps;
  std::vector<std::uint32_t> first;  // per rank: its first step's first op; FlatOp::kNone: no steps
  std::uint32_t tags = 0;            // ops with FlatOp::tag < tags pair by tag
  // flatten(): the first i with programs[i].rank != i (-1: none) and that
  // rank, reported by the simulator when it reaches rank i.
  int misplaced = -1;
  int misplaced_rank = 0;
  std::string error;  // "" or why it cannot be simulated (more than 2^32 - 1 ops)
  std::size_t steps() const;
  // Rank `rank`'s Program back, as far as the simulator reads it (tests,
  // debugging): Step::round is -1, scratch_count 0, and a local op has its
  // source region only (its destination is Region{}).
  Program program(int rank) const;
};

// Collects every rank's steps, rank 0 first, each rank's in order, then
// lays them out by round (finish()).
class FlatBuilder {
 public:
  explicit FlatBuilder(int procs, std::size_t expected_ops = 0);
  void begin_rank(int rank);  // ranks in increasing order
  // A step of the current rank: `count` ops (0: an empty step) and its
  // round (< 0: none, its index in the Program is used for the layout).
  void step(const Op *ops, std::size_t count, int round);
  void misplaced(int index, int rank);  // flatten(): programs[index].rank == rank != index
  FlatPrograms finish();

  // Two passes instead of a copy of every op: a builder made with
  // layout_only() records the steps' sizes and rounds only (step() does
  // not read the ops), and finish_writing() has write(i, dst) write step
  // i's ops (steps in the order they were given, increasing i) with
  // write_step at their final place — for builders that can emit their
  // steps twice more cheaply than holding them (flatten(), the schedules).
  static FlatBuilder layout_only(int procs) {
    FlatBuilder builder(procs);
    builder.keep_ops_ = false;
    return builder;
  }
  FlatPrograms finish_writing(const std::function<void(std::size_t, FlatOp *)> &write);
  // A step's ops in the flat form at dst: max(count, 1) of them (an empty
  // step is one kEmpty op), the last marked kLast.
  static void write_step(const Op *ops, std::size_t count, FlatOp *dst);
  // The same step's channels and dependencies, where its ops were written
  // at `dst` (a no-op unless some step given to step() had them).
  void write_deps(const Op *ops, std::size_t count, const FlatOp *dst);

 private:
  // Lays the steps out; fill(i, dst) writes step i's ops (steps in the
  // order they were given) at dst.
  template <typename Fill>
  FlatPrograms finish_with(Fill &&fill);
  struct StepRecord {
    std::uint32_t first;  // in ops_ (the ops so far when the step came)
    std::uint32_t size;   // ops (>= 1: an empty step has its kEmpty op)
    std::uint32_t key;    // layout key: round, else the index in the Program
    std::int32_t rank;
  };
  FlatPrograms out_;
  std::vector<FlatOp> ops_;  // rank by rank
  std::vector<StepRecord> steps_;
  int rank_ = -1;
  std::uint32_t index_ = 0;  // of the next step in the current rank's Program
  std::size_t total_ = 0;    // ops so far
  bool keep_ops_ = true;
  bool overflow_ = false;
  bool has_deps_ = false;       // some step's op has a tag, a group or an after
  std::vector<FlatDeps> deps_;  // keep_ops_: per op of ops_
};

FlatPrograms flatten(const std::vector<Program> &);
// Every rank's Program made by build(rank) and flattened with one Program
// in memory at a time: twice through the ranks (the layout, then the ops
// written in their places), so neither every Program nor a second copy of
// every op is ever held. build must give the same Program both times.
FlatPrograms flatten_each_rank(int procs, const std::function<Program(int rank)> &build);
// Every rank's Program of `algorithm` for `params`, flattened:
// Algorithm::build_flat when it has one, else each rank's Program as it is
// built (build_rank: one Program in memory at a time) or build_all's.
FlatPrograms build_flat(const Algorithm &, const Params &);

}  // namespace patcoll::core
