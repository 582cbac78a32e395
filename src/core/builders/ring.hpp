// Ring block arithmetic shared by reduce/ring, allreduce/ring and the ring
// variants that come later (scatter/gather, prr).
//
// The vector of `count` elements is cut into P blocks (block_span); rank r
// talks to its ring neighbours r+1 (right, receives what r sends) and r−1
// (left). A ring with `shift` leaves rank r owning block (r + shift) mod P:
//   reduce-scatter step s = 0 … P−2: send block (r + shift − 1 − s) to r+1,
//     receive block (r + shift − 2 − s) from r−1 and combine it; the block
//     received in step s is the one sent in step s+1, so after P−1 steps
//     rank r holds the full reduction of block (r + shift).
//   allgather step s = 0 … P−2: send block (r + shift − s) to r+1, receive
//     block (r + shift − 1 − s) from r−1 and store it.
//
//        step 0 (P = 4, shift 0)      rank 0 → 1 → 2 → 3 → 0
//        sends blocks                     3    0    1    2
//
// Blocks of zero elements (count < P) are skipped on both sides; both sides
// compute the same block sizes, so matching is unaffected.
//
// Allgather (builders/allgather/) runs the same ring over a collective's
// per-rank layout (`layout`: block b is rank b's block, core/layout.hpp,
// the v-forms' unequal counts included) and, in the PAP-aware allgather,
// over a group of ranks in arrival order (`members`: the ring's positions
// 0 … procs−1 are those ranks, `rank` is the position).
#pragma once

#include <cstdint>

#include <vector>

#include "../algorithm.hpp"
#include "../layout.hpp"

namespace patcoll::core {

struct Ring {
  int procs = 1;
  int rank = 0;
  int shift = 0;            // rank r owns block (r + shift) mod P
  std::int64_t count = 0;   // elements in all blocks together
  // Per-rank blocks: block b is the layout's block of rank peer(b) (null:
  // block_span(count, procs, b)).
  const Params *layout = nullptr;
  // The ring's positions as ranks (null: position = rank).
  const std::vector<int> *members = nullptr;

  int peer(int position) const { return members ? (*members)[static_cast<std::size_t>(position)] : position; }
  int right() const { return peer((rank + 1) % procs); }
  int left() const { return peer((rank + procs - 1) % procs); }
  int block_at(long long offset_from_rank) const {
    const long long b = (static_cast<long long>(rank) + shift + offset_from_rank) % procs;
    return static_cast<int>(b < 0 ? b + procs : b);
  }
  int owned_block() const { return block_at(0); }
  // Reduce-scatter: the block sent / received in step `step`.
  int reduce_scatter_send_block(int step) const { return block_at(-1 - step); }
  int reduce_scatter_recv_block(int step) const { return block_at(-2 - step); }
  // Allgather: the block sent / received in step `step`.
  int allgather_send_block(int step) const { return block_at(-step); }
  int allgather_recv_block(int step) const { return block_at(-1 - step); }
  // Block b as a region of `buffer`.
  Region block(Buffer buffer, int b) const {
    if (layout) return Region{buffer, block_offset(*layout, peer(b)), block_count(*layout, peer(b))};
    const Span s = block_span(count, procs, b);
    return Region{buffer, s.offset, s.count};
  }
};

// Appends the P−1 reduce-scatter steps. The rank's whole vector must be in
// `accumulator` already (or is copied there from the send buffer in the
// first step when `copy_from_send`). The received block holds the earlier
// ranks of the ring, so it is combined on the left — which is rank order
// only away from the wrap-around: the ring needs a commutative op.
void append_ring_reduce_scatter(Program &, const Ring &, Buffer accumulator, bool copy_from_send, int first_round = 0);

// Appends the P−1 allgather steps: every block ends up in `buffer`.
void append_ring_allgather(Program &, const Ring &, Buffer buffer, int first_round = 0);

// Binomial gather of P blocks to `root` when rank r holds block
// v = (r − root) mod P in `accumulator` (a ring with shift −root): in the
// binomial tree over v, the subtree of v holds the contiguous blocks
// [v, v + lowbit(v)), so every transfer is one region. Children are
// received smallest subtree first, one per step, then the subtree goes to
// the parent. ⌈log2 P⌉ steps at the root, (P−1)/P·count elements into it.
void append_binomial_block_gather(Program &, int procs, int rank, int root, std::int64_t count, Buffer accumulator,
                                  int first_round = 0);

}  // namespace patcoll::core
