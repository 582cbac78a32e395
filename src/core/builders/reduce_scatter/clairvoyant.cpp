// reduce_scatter/clairvoyant — PAT-driven reduce-scatter that folds late
// ranks in (the allreduce clairvoyant's fold without its allgather;
// design, worked example and bound in docs/results/reduce-scatter.md).
//
// Decided in core from the PAT vector and the cost model (the plan, shared
// by every rank). Ranks sorted by predicted arrival (ties by rank): the
// first P − k form the group G = g_0 … g_{n−1}, the last k are folded in
// one by one, in arrival order.
//   1. G runs a ring reduce-scatter among itself, in arrival order, while
//      the late ranks compute. Its vector is every rank's block: member g_q
//      owns its own block and piece q of every late rank's block (each cut
//      into n pieces), which it copies next to its own in scratch, so the
//      ring's block q is one region (ring.hpp's per-rank layout) and the
//      ring's blocks grow evenly (one member holding a whole late block
//      would slow every step it sends in). After n − 1 steps g_q holds S_G
//      of its blocks.
//   2. Fold of late rank L_j as it arrives: L_j sends its part of every
//      other rank's block to that rank — a later late rank's pieces to
//      their members while it has not arrived — and receives its own
//      block's partial sums (S_G plus the earlier late ranks' parts) piece
//      by piece from the members: (P − 1)/P of its vector out, one block
//      in, the least any algorithm can leave for a rank that arrives last
//      (core/bound.cpp).
// The plan (k, and the classic shape for k = 0) is the candidate with the
// least simulated run time under Params::cost and the PATs (plan_choice.hpp,
// the allreduce clairvoyant's rule); k = 0 is the classic algorithm itself
// over all ranks in rank order, so balanced PATs cost exactly the best
// classic. Above kReduceScatterSimulatedProcs ranks the plan is chosen by
// formula.
// Restrictions: commutative (S_G + x_L is not in rank order); pap_aware;
// schedule_based. Any PAT vector is correct — wrong PATs only cost time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "../../layout.hpp"
#include "../pap.hpp"
#include "../plan_choice.hpp"
#include "../reduce_scatter.hpp"
#include "../ring.hpp"

namespace patcoll::core {
namespace {

constexpr NamedBuilder kShapes[] = {
    {"ring", reduce_scatter_ring},
    {"recursive_halving", reduce_scatter_recursive_halving},
    {"pairwise", reduce_scatter_pairwise},
};

// Where the group keeps the blocks in scratch during the fold: member
// position q's ring block is its own block followed by piece q of every
// late rank's block (block_span over the n members, fold order), so the
// ring's blocks grow evenly.
struct GroupLayout {
  std::vector<std::int64_t> own_at;                // per rank: its block's offset at itself (members)
  std::vector<std::vector<std::int64_t>> piece_at;  // [late j][position q]: piece q's offset at member q
  Params inner;                                     // the ring's per-position layout
};

Span late_piece(const Params &params, int late_rank, int members, int position) {
  return block_span(block_count(params, late_rank), members, position);
}

GroupLayout group_layout(const Params &params, const std::vector<int> &group, const std::vector<int> &late) {
  const int n = static_cast<int>(group.size());
  GroupLayout layout;
  layout.own_at.assign(static_cast<std::size_t>(params.procs), 0);
  layout.piece_at.assign(late.size(), std::vector<std::int64_t>(static_cast<std::size_t>(n), 0));
  layout.inner.collective = params.collective;
  layout.inner.procs = n;
  layout.inner.counts.assign(static_cast<std::size_t>(n), 0);
  std::int64_t offset = 0;
  for (int q = 0; q < n; ++q) {
    const std::int64_t start = offset;
    layout.own_at[static_cast<std::size_t>(group[static_cast<std::size_t>(q)])] = offset;
    offset += block_count(params, group[static_cast<std::size_t>(q)]);
    for (std::size_t j = 0; j < late.size(); ++j) {
      layout.piece_at[j][static_cast<std::size_t>(q)] = offset;
      offset += late_piece(params, late[j], n, q).count;
    }
    layout.inner.counts[static_cast<std::size_t>(q)] = offset - start;
  }
  return layout;
}

// Appends the group's ring reduce-scatter (rounds 0 … n) to its members'
// Programs: every block copied to its place in scratch, the ring over the
// positions, the member's own block to its receive buffer.
void append_group(std::vector<Program> &programs, const Params &params, const std::vector<int> &group,
                  const std::vector<int> &late, const GroupLayout &layout) {
  const int n = static_cast<int>(group.size());
  const std::int64_t whole = total(params);
  std::vector<Op> copies;
  for (int q = 0; q < n; ++q) {
    const int g = group[static_cast<std::size_t>(q)];
    const std::int64_t c = block_count(params, g);
    if (c > 0) copies.push_back(copy_op(send_buf(block_offset(params, g), c), scratch_buf(layout.own_at[static_cast<std::size_t>(g)], c)));
    for (std::size_t j = 0; j < late.size(); ++j) {
      const Span piece = late_piece(params, late[j], n, q);
      if (piece.count > 0)
        copies.push_back(copy_op(send_buf(block_offset(params, late[j]) + piece.offset, piece.count),
                                 scratch_buf(layout.piece_at[j][static_cast<std::size_t>(q)], piece.count)));
    }
  }
  for (int q = 0; q < n; ++q) {
    const int g = group[static_cast<std::size_t>(q)];
    Program positional{q, n, whole, {}};
    add_step(positional, copies, 0);
    Ring ring;
    ring.procs = n;
    ring.rank = q;
    ring.count = whole;
    ring.layout = &layout.inner;
    append_ring_reduce_scatter(positional, ring, Buffer::scratch, false, 1);
    Program &program = programs[static_cast<std::size_t>(g)];
    append_over_positions(program, positional, group);
    const std::int64_t mine = block_count(params, g);
    if (mine > 0)
      add_step(program, {copy_op(scratch_buf(layout.own_at[static_cast<std::size_t>(g)], mine), recv_buf(0, mine))}, n);
  }
}

}  // namespace

std::vector<Program> build_clairvoyant_reduce_scatter(const Params &params, const ClairvoyantReduceScatterPlan &plan) {
  const int procs = params.procs;
  std::vector<Program> programs = empty_programs(procs);
  if (total(params) == 0) return programs;
  const int folded = std::clamp(plan.folded, 0, procs - 1);
  if (folded == 0) return every_rank(params, builder_named(kShapes, plan.group_shape).build);  // classic, rank order
  const std::vector<int> order = arrival_order(params);
  const std::vector<int> group(order.begin(), order.end() - folded), late(order.end() - folded, order.end());
  const int n = static_cast<int>(group.size());
  std::vector<int> late_index(static_cast<std::size_t>(procs), -1);
  for (int j = 0; j < folded; ++j) late_index[static_cast<std::size_t>(late[static_cast<std::size_t>(j)])] = j;
  const GroupLayout layout = group_layout(params, group, late);
  append_group(programs, params, group, late, layout);
  for (int j = 0; j < folded; ++j) {
    const int L = late[static_cast<std::size_t>(j)], round = n + 1 + j;
    const std::int64_t own = block_count(params, L), base = block_offset(params, L);
    std::vector<std::vector<Op>> ops(static_cast<std::size_t>(procs));
    std::vector<Op> &late_ops = ops[static_cast<std::size_t>(L)];
    // L's block accumulates in scratch: under MPI_IN_PLACE its receive
    // buffer still holds the parts it sends in this step.
    if (own > 0) late_ops.push_back(copy_op(send_buf(base, own), scratch_buf(0, own)));
    std::vector<Op> late_sends;
    // Rank order on both sides: the k-th send from L to a rank meets that
    // rank's k-th receive from L.
    for (int r = 0; r < procs; ++r) {
      const std::int64_t c = block_count(params, r);
      if (r == L || c == 0) continue;
      const int i = late_index[static_cast<std::size_t>(r)];
      if (i < j) {  // a member or a late rank folded before: the part goes to r
        late_sends.push_back(send_op(r, send_buf(block_offset(params, r), c)));
        ops[static_cast<std::size_t>(r)].push_back(recv_op(L, recv_buf(0, c), Combine::left));
        continue;
      }
      for (int q = 0; q < n; ++q) {  // a late rank still to come: its pieces go to their members
        const Span piece = late_piece(params, r, n, q);
        if (piece.count == 0) continue;
        const int member = group[static_cast<std::size_t>(q)];
        late_sends.push_back(send_op(member, send_buf(block_offset(params, r) + piece.offset, piece.count)));
        ops[static_cast<std::size_t>(member)].push_back(
            recv_op(L, scratch_buf(layout.piece_at[static_cast<std::size_t>(i)][static_cast<std::size_t>(q)], piece.count),
                    Combine::left));
      }
    }
    // L's block: piece q's partial sum from member q.
    for (int q = 0; q < n; ++q) {
      const Span piece = late_piece(params, L, n, q);
      if (piece.count == 0) continue;
      const int member = group[static_cast<std::size_t>(q)];
      ops[static_cast<std::size_t>(member)].push_back(
          send_op(L, scratch_buf(layout.piece_at[static_cast<std::size_t>(j)][static_cast<std::size_t>(q)], piece.count)));
      late_ops.push_back(recv_op(member, scratch_buf(piece.offset, piece.count), Combine::left));
    }
    // L's sends go out in batches of about sqrt(S) of its S messages, one
    // step each, in rank order: posted all at once they share L's link and
    // every rank gets its part at the end (SMPI tryton48, P = 48, 4 MiB: the
    // early ranks' mean time equal to the ring's); in batches the ranks of
    // the first batch leave first, for about sqrt(S) more latencies.
    const std::size_t batch = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(late_sends.size()))));
    std::vector<std::vector<Op>> later;
    for (std::size_t i = 0; i < late_sends.size(); ++i) {
      if (i < batch) {
        late_ops.push_back(late_sends[i]);
        continue;
      }
      if ((i - batch) % batch == 0) later.emplace_back();
      later.back().push_back(late_sends[i]);
    }
    for (int r = 0; r < procs; ++r)
      if (!ops[static_cast<std::size_t>(r)].empty())
        add_step(programs[static_cast<std::size_t>(r)], std::move(ops[static_cast<std::size_t>(r)]), round);
    for (std::vector<Op> &sends : later) add_step(programs[static_cast<std::size_t>(L)], std::move(sends), round);
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
  for (const NamedBuilder &shape : kShapes) consider({0, shape.name, 0});
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
