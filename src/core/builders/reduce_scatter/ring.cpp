// reduce_scatter/ring — the ring reduce-scatter over the ranks' blocks.
//
// The first half of allreduce/ring (ring.hpp's reduce-scatter phase) over
// the collective's per-rank layout: block b of the ring is rank b's block
// (zero and unequal counts included), so after P − 1 steps rank r holds
// the full reduction of its own block, which it copies to its receive
// buffer. The whole vector is accumulated in scratch (the send buffer is
// read once, so MPI_IN_PLACE needs nothing more). Every rank sends
// P − 1 messages of one block each: bandwidth-optimal.
// Cost (equal blocks of m/P): (P − 1)α + ((P−1)/P) m (β + γ).
// Restrictions: commutative — a block's partial result wraps around the
// ring from rank P−1 to rank 0, so contributions are not combined in rank
// order.
#include <algorithm>

#include "../reduce_scatter.hpp"
#include "../ring.hpp"

namespace patcoll::core {

Program reduce_scatter_ring(const Params &params, int rank) {
  Program program{rank, params.procs, 0, {}};
  const std::int64_t n = total(params);
  if (n == 0) return program;
  Ring ring;
  ring.procs = params.procs;
  ring.rank = rank;
  ring.count = n;
  ring.layout = &params;
  program.scratch_count = n;
  append_ring_reduce_scatter(program, ring, Buffer::scratch, true);
  const std::int64_t mine = block_count(params, rank);
  if (mine > 0)
    add_step(program, {copy_op(scratch_buf(block_offset(params, rank), mine), recv_buf(0, mine))},
             std::max(1, params.procs - 1));
  return program;
}

}  // namespace patcoll::core
