// reduce_scatter/clairvoyant — PAT-driven reduce-scatter that folds late
// ranks in (the allreduce clairvoyant's fold without its allgather;
// design, worked example and bound in docs/results/reduce-scatter.md).
//
// Decided in core from the PAT vector and the cost model (the plan, shared
// by every rank). Ranks sorted by predicted arrival (ties by rank): the
// first P − k form the group G = g_0 … g_{n−1}, the last k are folded in
// one by one, in arrival order.
//   1. G runs a ring reduce-scatter among itself, in arrival order, while
//      the late ranks compute. Its vector is every rank's block: member g_i
//      owns its own block and the blocks of the late ranks it holds
//      (clairvoyant_reduce_scatter_holder), which it copies next to its own
//      in scratch, so the ring's block i is one region (ring.hpp's
//      per-rank layout). After n − 1 steps g_i holds S_G of its blocks.
//   2. Fold of late rank L_j as it arrives: L_j sends its part of every
//      other rank's block to that rank — to a later late rank's holder
//      while that rank has not arrived — and receives its own block's
//      partial sum (S_G plus the earlier late ranks' parts) from its
//      holder: (P − 1)/P of its vector out, one block in, the least any
//      algorithm can leave for a rank that arrives last (core/bound.cpp).
// The plan (k, and the classic shape for k = 0) is the candidate with the
// least simulated run time under Params::cost and the PATs (plan_choice.hpp,
// the allreduce clairvoyant's rule); k = 0 is the classic algorithm itself
// over all ranks in rank order, so balanced PATs cost exactly the best
// classic. Above kReduceScatterSimulatedProcs ranks the plan is chosen by
// formula.
// Restrictions: commutative (S_G + x_L is not in rank order); pap_aware;
// schedule_based. Any PAT vector is correct — wrong PATs only cost time.
#include <algorithm>
#include <limits>

#include "../../layout.hpp"
#include "../pap.hpp"
#include "../plan_choice.hpp"
#include "../reduce_scatter.hpp"
#include "../ring.hpp"

namespace patcoll::core {
namespace {

struct GroupShape {
  std::string_view name;
  BuildRank build;
};
constexpr GroupShape kShapes[] = {
    {"ring", reduce_scatter_ring},
    {"recursive_halving", reduce_scatter_recursive_halving},
    {"pairwise", reduce_scatter_pairwise},
};

const GroupShape &shape_named(std::string_view name) {
  for (const GroupShape &shape : kShapes)
    if (shape.name == name) return shape;
  return kShapes[0];
}

// Appends the group's ring reduce-scatter (rounds 0 … n) to its members'
// Programs. `holder_of[i]`: the group position holding late rank i's block.
// Returns where every block sits in the members' scratch.
std::vector<std::int64_t> append_group(std::vector<Program> &programs, const Params &params, const std::vector<int> &group,
                  const std::vector<int> &late, const std::vector<int> &holder_of) {
  const int n = static_cast<int>(group.size());
  const std::int64_t whole = total(params);
  // Scratch layout: position by position, the member's block, then those of
  // the late ranks it holds (in fold order).
  std::vector<std::int64_t> at(static_cast<std::size_t>(params.procs), 0);
  Params inner;
  inner.collective = params.collective;
  inner.procs = n;
  inner.counts.assign(static_cast<std::size_t>(n), 0);
  std::int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    auto place = [&](int r) {
      at[static_cast<std::size_t>(r)] = offset;
      offset += block_count(params, r);
      inner.counts[static_cast<std::size_t>(i)] += block_count(params, r);
    };
    place(group[static_cast<std::size_t>(i)]);
    for (std::size_t j = 0; j < late.size(); ++j)
      if (holder_of[j] == i) place(late[j]);
  }
  std::vector<Op> copies;
  for (int r = 0; r < params.procs; ++r) {
    const std::int64_t c = block_count(params, r);
    if (c > 0) copies.push_back(copy_op(send_buf(block_offset(params, r), c), scratch_buf(at[static_cast<std::size_t>(r)], c)));
  }
  for (int i = 0; i < n; ++i) {
    const int g = group[static_cast<std::size_t>(i)];
    Program positional{i, n, whole, {}};
    add_step(positional, copies, 0);
    Ring ring;
    ring.procs = n;
    ring.rank = i;
    ring.count = whole;
    ring.layout = &inner;
    append_ring_reduce_scatter(positional, ring, Buffer::scratch, false, 1);
    Program &program = programs[static_cast<std::size_t>(g)];
    append_over_positions(program, positional, group);
    const std::int64_t mine = block_count(params, g);
    if (mine > 0) add_step(program, {copy_op(scratch_buf(at[static_cast<std::size_t>(g)], mine), recv_buf(0, mine))}, n);
  }
  return at;
}

}  // namespace

int clairvoyant_reduce_scatter_holder(const std::vector<int> &group, int j) {
  return group[static_cast<std::size_t>(j) % group.size()];
}

std::vector<Program> build_clairvoyant_reduce_scatter(const Params &params, const ClairvoyantReduceScatterPlan &plan) {
  const int procs = params.procs;
  std::vector<Program> programs;
  for (int r = 0; r < procs; ++r) programs.push_back(Program{r, procs, 0, {}});
  if (total(params) == 0) return programs;
  const int folded = std::clamp(plan.folded, 0, procs - 1);
  if (folded == 0) {  // the classic algorithm itself, rank order
    const GroupShape &shape = shape_named(plan.group_shape);
    for (int r = 0; r < procs; ++r) programs[static_cast<std::size_t>(r)] = shape.build(params, r);
    return programs;
  }
  const std::vector<int> order = arrival_order(params);
  const std::vector<int> group(order.begin(), order.end() - folded), late(order.end() - folded, order.end());
  const int n = static_cast<int>(group.size());
  std::vector<int> holder_of, position(static_cast<std::size_t>(procs), -1), late_index(static_cast<std::size_t>(procs), -1);
  for (int i = 0; i < n; ++i) position[static_cast<std::size_t>(group[static_cast<std::size_t>(i)])] = i;
  for (int j = 0; j < folded; ++j) {
    late_index[static_cast<std::size_t>(late[static_cast<std::size_t>(j)])] = j;
    holder_of.push_back(position[static_cast<std::size_t>(clairvoyant_reduce_scatter_holder(group, j))]);
  }
  const std::vector<std::int64_t> at = append_group(programs, params, group, late, holder_of);
  for (int j = 0; j < folded; ++j) {
    const int L = late[static_cast<std::size_t>(j)], round = n + 1 + j;
    const int holder = group[static_cast<std::size_t>(holder_of[static_cast<std::size_t>(j)])];
    // Where L's part of rank r's block goes: r itself unless r is a late
    // rank not yet folded, whose holder keeps its partial sum.
    auto target = [&](int r) {
      const int i = late_index[static_cast<std::size_t>(r)];
      return i > j ? group[static_cast<std::size_t>(holder_of[static_cast<std::size_t>(i)])] : r;
    };
    std::vector<std::vector<Op>> ops(static_cast<std::size_t>(procs));
    const std::int64_t own = block_count(params, L);
    std::vector<Op> &late_ops = ops[static_cast<std::size_t>(L)];
    // L's block accumulates in scratch: under MPI_IN_PLACE its receive
    // buffer still holds the parts it sends in this step.
    if (own > 0) late_ops.push_back(copy_op(send_buf(block_offset(params, L), own), scratch_buf(0, own)));
    for (int r = 0; r < procs; ++r) {  // rank order on both sides: the k-th send meets the k-th receive
      const std::int64_t c = block_count(params, r);
      if (r == L || c == 0) continue;
      const int to = target(r);
      late_ops.push_back(send_op(to, send_buf(block_offset(params, r), c)));
      ops[static_cast<std::size_t>(to)].push_back(
          recv_op(L, to == r ? recv_buf(0, c) : scratch_buf(at[static_cast<std::size_t>(r)], c), Combine::left));
    }
    if (own > 0) {
      ops[static_cast<std::size_t>(holder)].push_back(send_op(L, scratch_buf(at[static_cast<std::size_t>(L)], own)));
      late_ops.push_back(recv_op(holder, scratch_buf(0, own), Combine::left));
    }
    for (int r = 0; r < procs; ++r)
      if (!ops[static_cast<std::size_t>(r)].empty())
        add_step(programs[static_cast<std::size_t>(r)], std::move(ops[static_cast<std::size_t>(r)]), round);
    if (own > 0) {
      Program &program = programs[static_cast<std::size_t>(L)];
      program.scratch_count = std::max(program.scratch_count, own);
      add_step(program, {copy_op(scratch_buf(0, own), recv_buf(0, own))}, round + 1);
    }
  }
  return programs;
}

ClairvoyantReduceScatterPlan plan_clairvoyant_reduce_scatter(const Params &params) {
  const int procs = params.procs;
  if (procs < 2 || total(params) == 0) return {0, "ring", 0};
  const bool has_pats = params.arrivals.size() == static_cast<std::size_t>(procs);
  if (procs > kReduceScatterSimulatedProcs) {
    // Formula (β' = β + γ, m the whole vector's bytes): the ring,
    // (P − 1)α + ((P−1)/P)mβ', after the last arrival, against the group's
    // ring over P − 1 ranks (from the arrival of the last of them) or the
    // gap, whichever is longer, then one fold: (P − 1)α + ((P−1)/P)mβ'.
    const double bytes = static_cast<double>(total(params)) * static_cast<double>(params.element_bytes);
    auto ring = [&](int p) {
      return (p - 1) * params.cost.alpha + bytes * (params.cost.beta + params.cost.gamma) * (p - 1) / procs;
    };
    ClairvoyantReduceScatterPlan best{0, "ring", ring(procs)};
    if (has_pats) {
      const std::vector<int> order = arrival_order(params);
      const double gap = params.arrivals[static_cast<std::size_t>(order[procs - 1])] -
                         params.arrivals[static_cast<std::size_t>(order[procs - 2])];
      best.predicted_run_time += gap;
      const double fold = std::max(gap, ring(procs - 1)) + ring(procs);
      if (fold < best.predicted_run_time * (1 - 1e-9)) best = {1, "ring", fold};
    }
    return best;
  }
  PlanChoice<ClairvoyantReduceScatterPlan> choice;
  auto consider = [&](ClairvoyantReduceScatterPlan plan) {
    choice.consider(plan, params, build_clairvoyant_reduce_scatter(params, plan));
  };
  for (const GroupShape &shape : kShapes) consider({0, shape.name, 0});
  if (!has_pats) return choice.best();
  for (int folded = 1; folded <= std::min(procs - 1, kReduceScatterMaxFolded); ++folded) consider({folded, "ring", 0});
  return choice.best();
}

std::vector<Program> reduce_scatter_clairvoyant(const Params &params) {
  return build_clairvoyant_reduce_scatter(params, plan_clairvoyant_reduce_scatter(params));
}

Program reduce_scatter_clairvoyant_rank(const Params &params, int rank) {
  return std::move(reduce_scatter_clairvoyant(params)[static_cast<std::size_t>(rank)]);
}

}  // namespace patcoll::core
