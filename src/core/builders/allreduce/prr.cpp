// allreduce/prr — prereduced ring ([PA] §4.2; our design, docs/results/prr.md).
//
// The ring runs over the ranks sorted by predicted arrival, earliest first.
// When the latest rank L is late by more than about P ring rounds, the
// others do not wait for it: in P−2 "reducing presteps" they ring-reduce-
// scatter their own data in P−1 parts, F-rank i ending with part i reduced
// over everyone but L. When L arrives it takes part in only P−1 exchange
// steps: with F-rank i it swaps its raw part i for the prereduced part i and
// both combine, so both hold the final part i. The others then finish with
// P−2 regular ring allgather steps, each starting from the part it owns.
// Otherwise (balanced PATs, no PATs, or several late ranks) prr is the ring
// over the sorted order — exactly allreduce/ring when no PATs are given.
// Cost: balanced as ring, 2(P−1)α + 2((P−1)/P)mβ + ((P−1)/P)mγ. One rank
// late by δ ≥ P rounds: L is busy (P−1)(α + (m/(P−1))(β+γ)) after it
// arrives, instead of the ring's 2(P−1) rounds.
// Messages: ring P(2P−2); prereduced (P−1)(2P−2) — see docs/results/prr.md for why
// [PA]'s "P−1 steps for L" and "P(2P−2) in total" cannot both hold with one
// block per message. Restrictions: commutative; pap_aware.
#include "../pap.hpp"
#include "../ring.hpp"

namespace patcoll::core {
namespace {

int position_of(const std::vector<int> &order, int rank) {
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] == rank) return static_cast<int>(i);
  return -1;
}

}  // namespace

bool prr_uses_presteps(const Params &params) {
  const int procs = params.procs;
  if (procs < 2 || params.arrivals.size() != static_cast<std::size_t>(procs)) return false;
  const std::vector<int> order = arrival_order(params);
  const double gap = params.arrivals[order[procs - 1]] - params.arrivals[order[procs - 2]];
  const double block_bytes = static_cast<double>(params.count) / procs * static_cast<double>(params.element_bytes);
  return gap > procs * params.cost.round_time(block_bytes);
}

Program allreduce_prr(const Params &params, int rank) {
  const std::int64_t n = params.count;
  const int procs = params.procs;
  Program program{rank, procs, 0, {}};
  if (n == 0) return program;
  const std::vector<int> order = arrival_order(params);
  const int position = position_of(order, rank);
  if (!prr_uses_presteps(params)) {
    Program ring_steps{position, procs, 0, {}};
    const Ring ring{procs, position, 0, n};
    append_ring_reduce_scatter(ring_steps, ring, Buffer::recv, true);
    append_ring_allgather(ring_steps, ring, Buffer::recv, procs - 1);
    append_over_positions(program, ring_steps, order);
    return program;
  }
  // Prereduced form: the first P−1 ranks in arrival order form a ring of
  // `early` positions over `early` parts; the latest rank exchanges with each.
  const int early = procs - 1, late = order[procs - 1];
  auto part = [&](Buffer buffer, int p) {
    const Span s = block_span(n, early, p);
    return Region{buffer, s.offset, s.count};
  };
  if (rank == late) {
    add_step(program, {copy_op(send_buf(0, n), recv_buf(0, n))}, 0);
    for (int p = 0; p < early; ++p) {
      if (part(Buffer::recv, p).count == 0) continue;
      add_step(program, {send_op(order[p], part(Buffer::send, p)), recv_op(order[p], part(Buffer::recv, p), Combine::left)},
               early - 1 + p);
    }
    return program;
  }
  Program ring_steps{position, early, 0, {}};
  const Ring ring{early, position, 0, n};
  append_ring_reduce_scatter(ring_steps, ring, Buffer::recv, true);  // presteps
  append_over_positions(program, ring_steps, order);
  if (part(Buffer::recv, position).count > 0)
    add_step(program, {send_op(late, part(Buffer::recv, position)), recv_op(late, part(Buffer::recv, position), Combine::left)},
             early - 1 + position);
  ring_steps.steps.clear();
  append_ring_allgather(ring_steps, ring, Buffer::recv, early + position);
  append_over_positions(program, ring_steps, order);
  return program;
}

}  // namespace patcoll::core
