// Ring reduce-scatter / allgather steps and the binomial block gather; see
// ring.hpp.
#include "ring.hpp"

#include <algorithm>

namespace patcoll::core {

void append_ring_reduce_scatter(Program &program, const Ring &ring, Buffer accumulator, bool copy_from_send,
                                int first_round) {
  for (int step = 0; step + 1 < ring.procs; ++step) {
    std::vector<Op> ops;
    if (step == 0 && copy_from_send) ops.push_back(copy_op(send_buf(0, ring.count), Region{accumulator, 0, ring.count}));
    const Region out = ring.block(accumulator, ring.reduce_scatter_send_block(step));
    const Region in = ring.block(accumulator, ring.reduce_scatter_recv_block(step));
    if (out.count > 0) ops.push_back(send_op(ring.right(), out));
    if (in.count > 0) ops.push_back(recv_op(ring.left(), in, Combine::left));
    add_step(program, std::move(ops), first_round + step);
  }
  if (ring.procs == 1 && copy_from_send)
    add_step(program, {copy_op(send_buf(0, ring.count), Region{accumulator, 0, ring.count})}, first_round);
}

void append_ring_allgather(Program &program, const Ring &ring, Buffer buffer, int first_round) {
  for (int step = 0; step + 1 < ring.procs; ++step) {
    std::vector<Op> ops;
    const Region out = ring.block(buffer, ring.allgather_send_block(step));
    const Region in = ring.block(buffer, ring.allgather_recv_block(step));
    if (out.count > 0) ops.push_back(send_op(ring.right(), out));
    if (in.count > 0) ops.push_back(recv_op(ring.left(), in, Combine::store));
    add_step(program, std::move(ops), first_round + step);
  }
}

void append_binomial_block_gather(Program &program, int procs, int rank, int root, std::int64_t count,
                                  Buffer accumulator, int first_round) {
  const std::int64_t v = (rank - root + procs) % procs;
  // Blocks [first, last) as one region of `accumulator`.
  auto blocks = [&](std::int64_t first, std::int64_t last) {
    last = std::min<std::int64_t>(last, procs);
    const std::int64_t begin = block_span(count, procs, first).offset;
    const Span end = block_span(count, procs, last - 1);
    return Region{accumulator, begin, end.offset + end.count - begin};
  };
  auto actual = [&](std::int64_t virtual_rank) { return static_cast<int>((virtual_rank + root) % procs); };
  const std::int64_t subtree = v == 0 ? std::int64_t{1} << 62 : (v & -v);
  int round = first_round;
  for (std::int64_t mask = 1; mask < subtree && v + mask < procs; mask <<= 1, ++round) {
    const Region in = blocks(v + mask, v + 2 * mask);
    if (in.count > 0) add_step(program, {recv_op(actual(v + mask), in, Combine::store)}, round);
  }
  if (v == 0) return;
  // Rounds are counted as if every smaller subtree existed: the send goes in
  // round log2(lowbit(v)), where the parent posts the matching receive.
  round = first_round;
  for (std::int64_t mask = 1; mask < subtree; mask <<= 1) ++round;
  const Region out = blocks(v, v + subtree);
  if (out.count > 0) add_step(program, {send_op(actual(v - subtree), out)}, round);
}

}  // namespace patcoll::core
