// bcast/scatter_allgather — van de Geijn: binomial scatter, ring allgather.
//
// The buffer is cut into P nearly equal blocks (block_span; with count < P
// some are empty). Relative rank v = (rank − root) mod P owns block v.
// Scatter: v receives the blocks of its binomial subtree [v, v + lowbit(v))
// (clipped to P) from v − lowbit(v) in one message — the blocks are
// contiguous in the buffer — and passes the upper halves on, largest first.
// Allgather: P − 1 ring steps; in step s, v sends block (v − s) mod P to
// v + 1 and receives block (v − s − 1) mod P from v − 1. Empty blocks are
// not sent (both sides know the sizes).
// Cost: ⌈log2 P⌉α + ((P−1)/P)mβ (scatter) + (P − 1)α + ((P−1)/P)mβ (ring).
// Restrictions: none. Source: van de Geijn et al.; MPICH
// bcast_intra_scatter_ring_allgather.c, SimGrid bcast-scatter-LR-allgather.
#include <algorithm>

#include "../bcast.hpp"

namespace patcoll::core {
namespace {

int lowbit(int v) { return v & -v; }

}  // namespace

Program bcast_scatter_allgather(const Params &params, int rank) {
  Program program{rank, params.procs, 0, {}};
  const std::int64_t n = params.count;
  const int procs = params.procs;
  if (n == 0 || procs == 1) return program;
  const int v = (rank - params.root + procs) % procs;
  auto real = [&](int relative) { return (relative + params.root) % procs; };
  // Blocks [first, last) of the relative order, one region of the buffer.
  auto blocks = [&](int first, int last) {
    const std::int64_t begin = block_span(n, procs, first).offset;
    const Span end = block_span(n, procs, last - 1);
    return recv_buf(begin, end.offset + end.count - begin);
  };
  // Scatter.
  int top = 1;
  while (top < procs) top <<= 1;
  int mask = v == 0 ? top : lowbit(v);
  int round = 0;
  if (v > 0) {
    round = ceil_log2(procs) - ceil_log2(mask);
    const Region mine = blocks(v, std::min(v + mask, procs));
    if (mine.count > 0) add_step(program, {recv_op(real(v - mask), mine)}, round - 1);
  }
  for (mask >>= 1; mask > 0; mask >>= 1, ++round) {
    if (v + mask >= procs) continue;
    const Region theirs = blocks(v + mask, std::min(v + 2 * mask, procs));
    if (theirs.count > 0) add_step(program, {send_op(real(v + mask), theirs)}, round);
  }
  // Ring allgather.
  const int first_ring_round = ceil_log2(procs);
  for (int s = 0; s + 1 < procs; ++s) {
    const int out = ((v - s) % procs + procs) % procs, in = ((v - s - 1) % procs + procs) % procs;
    std::vector<Op> ops;
    const Region out_block = blocks(out, out + 1), in_block = blocks(in, in + 1);
    if (out_block.count > 0) ops.push_back(send_op(real(v + 1), out_block));
    if (in_block.count > 0) ops.push_back(recv_op(real(v - 1 + procs), in_block));
    add_step(program, std::move(ops), first_ring_round + s);
  }
  return program;
}

}  // namespace patcoll::core
