// allgather/neighbor_exchange — P/2 steps between alternating neighbours.
//
// Even rank r pairs with r + 1 and r − 1 alternately, odd rank r with
// r − 1 and r + 1. Step 0: each pair (2i, 2i+1) swaps its blocks. Step
// s ≥ 1: each rank forwards to the neighbour of the step's parity the two
// blocks (an even-odd pair, adjacent in rank order: one message) it
// received in step s − 1 (its own pair in step 1) and receives the next
// pair from it (two ranks further round the ring, one way for even ranks'
// odd steps, the other way for their even steps), so P/2 steps gather
// everything. Cost: (P/2)α +
// ((P−1)/P)mβ. Restrictions: even P (needs_even_procs; for odd P the call
// is refused with MPI_ERR_ARG — the shim leaves it to the MPI library,
// `auto` never picks it). Source: Chen et al., HPC Asia 2005; Open MPI
// coll_base_allgather.c (neighbor exchange, which runs the ring for odd P).
#include "../../layout.hpp"
#include "../allgather.hpp"

namespace patcoll::core {

Program allgather_neighbor_exchange(const Params &params, int rank) {
  const int procs = params.procs;
  Program program{rank, procs, 0, {}};
  if (procs % 2 != 0) return program;  // refused by the restriction
  const bool even = rank % 2 == 0;
  const int neighbor[2] = {even ? (rank + 1) % procs : (rank - 1 + procs) % procs,
                           even ? (rank - 1 + procs) % procs : (rank + 1) % procs};
  const int offset[2] = {even ? 2 : -2, even ? -2 : 2};
  int received_from[2] = {even ? rank : neighbor[0], even ? rank : neighbor[0]};
  // Blocks e and e + 1 (e even) as one region.
  auto pair = [&](int first) {
    const std::int64_t begin = block_offset(params, first);
    return recv_buf(begin, block_offset(params, first + 2) - begin);
  };
  std::vector<Op> ops = own_block_copy(params, rank);
  const Region mine = own_block(params, rank), theirs = own_block(params, neighbor[0]);
  if (mine.count > 0) ops.push_back(send_op(neighbor[0], mine));
  if (theirs.count > 0) ops.push_back(recv_op(neighbor[0], theirs, Combine::store));
  add_step(program, std::move(ops), 0);
  int send_from = even ? rank : neighbor[0];  // the even-odd pair this rank holds after step 0
  for (int step = 1; step < procs / 2; ++step) {
    const int parity = step % 2;
    received_from[parity] = (received_from[parity] + offset[parity] + procs) % procs;
    const Region out = pair(send_from), in = pair(received_from[parity]);
    send_from = received_from[parity];  // forwarded in the next step
    std::vector<Op> step_ops;
    if (out.count > 0) step_ops.push_back(send_op(neighbor[parity], out));
    if (in.count > 0) step_ops.push_back(recv_op(neighbor[parity], in, Combine::store));
    add_step(program, std::move(step_ops), step);
  }
  return program;
}

}  // namespace patcoll::core
