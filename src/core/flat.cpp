// The simulator's flat Programs; the layout is explained in flat.hpp.
#include "flat.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace patcoll::core {
namespace {

// Asks for transparent huge pages on the whole 2 MiB pages of a large
// array before it is first written (Linux, THP "madvise" mode; elsewhere
// and on failure nothing happens): the event loop reads it at random, and
// 4 KiB pages made most of those reads TLB misses too.
template <typename T>
void advise_huge_pages(std::vector<T> &array) {
#if defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(array.data());
  const std::uintptr_t end = begin + array.capacity() * sizeof(T);
  const std::uintptr_t from = (begin + huge - 1) & ~(huge - 1), to = end & ~(huge - 1);
  if (to > from) madvise(reinterpret_cast<void *>(from), to - from, MADV_HUGEPAGE);
#else
  (void)array;
#endif
}

}  // namespace

std::size_t FlatPrograms::steps() const {
  return static_cast<std::size_t>(std::count_if(ops.begin(), ops.end(), [](const FlatOp &op) { return op.flags & FlatOp::kLast; }));
}

Program FlatPrograms::program(int rank) const {
  Program program{rank, procs, 0, {}};
  for (std::uint32_t op = first[static_cast<std::size_t>(rank)]; op != FlatOp::kNone;) {
    Step step;
    for (;; ++op) {
      const FlatOp &flat = ops[op];
      if (!(flat.flags & FlatOp::kEmpty)) {
        const Region region{flat.buffer, flat.offset, flat.count};
        Op back{flat.kind, flat.combine, flat.peer, {}, {}};
        (flat.kind == OpKind::recv ? back.dst : back.src) = region;
        if (!deps.empty()) {
          back.tag = deps[op].tag;
          back.group = deps[op].group;
          back.after = deps[op].after;
        }
        step.ops.push_back(back);
      }
      if (flat.flags & FlatOp::kLast) break;
    }
    program.steps.push_back(std::move(step));
    op = ops[op].next;
  }
  return program;
}

FlatBuilder::FlatBuilder(int procs, std::size_t expected_ops) {
  out_.procs = procs;
  out_.first.assign(static_cast<std::size_t>(std::max(procs, 0)), FlatOp::kNone);
  ops_.reserve(expected_ops);
}

void FlatBuilder::begin_rank(int rank) {
  rank_ = rank;
  index_ = 0;
}

void FlatBuilder::misplaced(int index, int rank) {
  if (out_.misplaced >= 0) return;
  out_.misplaced = index;
  out_.misplaced_rank = rank;
}

void FlatBuilder::write_step(const Op *ops, std::size_t count, FlatOp *dst) {
  if (count == 0) *dst = FlatOp{}, dst->flags = FlatOp::kEmpty;
  for (std::size_t i = 0; i < count; ++i) dst[i] = FlatOp(ops[i]);
  dst[std::max<std::size_t>(count, 1) - 1].flags |= FlatOp::kLast;
}

void FlatBuilder::write_deps(const Op *ops, std::size_t count, const FlatOp *dst) {
  if (!has_deps_) return;
  if (out_.deps.size() != out_.ops.size()) out_.deps.assign(out_.ops.size(), FlatDeps{});
  const auto at = static_cast<std::size_t>(dst - out_.ops.data());
  for (std::size_t i = 0; i < count; ++i) out_.deps[at + i] = FlatDeps{ops[i].tag, ops[i].group, ops[i].after};
}

void FlatBuilder::step(const Op *ops, std::size_t count, int round) {
  const std::size_t size = std::max<std::size_t>(count, 1);
  if (overflow_ || total_ + size >= FlatOp::kNone) {
    overflow_ = true;
    return;
  }
  const auto first = static_cast<std::uint32_t>(total_);
  bool deps = false;
  for (std::size_t i = 0; ops && i < count && !deps; ++i) deps = ops[i].tag != 0 || ops[i].group >= 0 || ops[i].after >= 0;
  if (deps && !has_deps_ && keep_ops_) deps_.assign(total_, FlatDeps{});
  has_deps_ = has_deps_ || deps;
  if (keep_ops_) {
    ops_.resize(total_ + size);
    write_step(ops, count, ops_.data() + first);
    if (has_deps_) {
      deps_.resize(total_ + size);
      for (std::size_t i = 0; i < count; ++i) deps_[first + i] = FlatDeps{ops[i].tag, ops[i].group, ops[i].after};
    }
  }
  total_ += size;
  const std::uint32_t key = round >= 0 ? static_cast<std::uint32_t>(round) : index_;
  steps_.push_back({first, static_cast<std::uint32_t>(size), key, rank_});
  ++index_;
}

FlatPrograms FlatBuilder::finish_writing(const std::function<void(std::size_t, FlatOp *)> &write) {
  return finish_with(write);
}

FlatPrograms FlatBuilder::finish() {
  if (has_deps_) out_.deps.assign(total_, FlatDeps{});
  return finish_with([&](std::size_t i, FlatOp *dst) {
    const StepRecord &s = steps_[i];
    std::copy(ops_.begin() + s.first, ops_.begin() + s.first + s.size, dst);
    if (has_deps_)
      std::copy(deps_.begin() + s.first, deps_.begin() + s.first + s.size,
                out_.deps.begin() + (dst - out_.ops.data()));
  });
}

template <typename Fill>
FlatPrograms FlatBuilder::finish_with(Fill &&fill) {
  if (overflow_) {  // > 100 GB of Programs: not reached
    out_.error = "more than 2^32 ops to simulate";
    return std::move(out_);
  }
  // The layout: steps by key, ties in rank order. Each step's new place
  // is computed in rank order (a stable counting sort by key, in ops; a
  // comparison sort when the keys are too sparse for buckets), so the copy
  // below reads the steps in the order they came and only its writes jump.
  const std::size_t steps = steps_.size();
  std::vector<std::uint32_t> place(steps);
  std::uint32_t max_key = 0;
  for (const StepRecord &s : steps_) max_key = std::max(max_key, s.key);
  if (max_key <= 4 * steps + 1024) {
    std::vector<std::uint32_t> bucket(static_cast<std::size_t>(max_key) + 2, 0);
    for (const StepRecord &s : steps_) bucket[s.key + 1] += s.size;
    std::partial_sum(bucket.begin(), bucket.end(), bucket.begin());
    for (std::size_t i = 0; i < steps; ++i) {
      place[i] = bucket[steps_[i].key];
      bucket[steps_[i].key] += steps_[i].size;
    }
  } else {
    std::vector<std::uint32_t> order(steps);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return steps_[a].key < steps_[b].key; });
    std::uint32_t next = 0;
    for (std::uint32_t i : order) place[i] = next, next += steps_[i].size;
  }
  out_.ops.reserve(total_);
  advise_huge_pages(out_.ops);
  out_.ops.resize(total_);
  // Fill, and link each rank's steps in Program order (steps_ is in it).
  for (std::size_t i = 0; i < steps; ++i) {
    const StepRecord &s = steps_[i];
    fill(i, out_.ops.data() + place[i]);
    if (i == 0 || steps_[i - 1].rank != s.rank) out_.first[static_cast<std::size_t>(s.rank)] = place[i];
    const bool last_of_rank = i + 1 == steps || steps_[i + 1].rank != s.rank;
    out_.ops[place[i] + s.size - 1].next = last_of_rank ? FlatOp::kNone : place[i + 1];
  }
  std::vector<FlatOp>().swap(ops_);
  std::vector<FlatDeps>().swap(deps_);
  std::vector<StepRecord>().swap(steps_);
  return std::move(out_);
}

namespace {

void add_program(FlatBuilder &builder, int index, const Program &program) {
  if (program.rank != index) builder.misplaced(index, program.rank);
  builder.begin_rank(index);
  for (const Step &step : program.steps) builder.step(step.ops.data(), step.ops.size(), step.round);
}

// Both flattenings: the layout from every rank's Program, then the ops
// written in their places from the same Programs again. `get(rank)` gives
// a rank's Program, by reference (held elsewhere) or by value (built on
// demand, one at a time).
template <typename Get>
FlatPrograms flatten_twice(int procs, Get &&get) {
  FlatBuilder builder = FlatBuilder::layout_only(procs);
  for (int rank = 0; rank < procs; ++rank) add_program(builder, rank, get(rank));
  std::optional<Program> built;  // the current Program when get builds it
  const Program *current = nullptr;
  int rank = -1;
  std::size_t step = 0;
  return builder.finish_writing([&](std::size_t, FlatOp *dst) {
    while (!current || step == current->steps.size()) {
      if constexpr (std::is_lvalue_reference_v<decltype(get(0))>) current = &get(++rank);
      else current = &built.emplace(get(++rank));
      step = 0;
    }
    const std::vector<Op> &ops = current->steps[step++].ops;
    FlatBuilder::write_step(ops.data(), ops.size(), dst);
    builder.write_deps(ops.data(), ops.size(), dst);
  });
}

}  // namespace

FlatPrograms flatten(const std::vector<Program> &programs) {
  return flatten_twice(static_cast<int>(programs.size()),
                       [&](int rank) -> const Program & { return programs[static_cast<std::size_t>(rank)]; });
}

FlatPrograms flatten_each_rank(int procs, const std::function<Program(int rank)> &build) {
  return flatten_twice(procs, build);
}

FlatPrograms build_flat(const Algorithm &algorithm, const Params &params) {
  if (algorithm.build_flat) return algorithm.build_flat(params);
  if (algorithm.build_all) return flatten(algorithm.build_all(params));
  return flatten_each_rank(params.procs, [&](int rank) { return algorithm.build_rank(params, rank); });
}

}  // namespace patcoll::core
