// reduce_scatter/pairwise — P − 1 exchange steps, each rank's contribution
// to one block sent straight to the block's rank.
//
// In step i = 1 … P − 1 rank r sends its part of rank (r + i)'s block to
// it and combines the part of its own block from rank (r − i) (MPICH
// reduce_scatter_intra_pairwise). The rank's block accumulates in scratch
// (its own part copied first) and goes to the receive buffer at the end,
// so MPI_IN_PLACE's input is never overwritten while it is still sent.
// Cost (equal blocks of m/P): (P − 1)α + ((P−1)/P) m (β + γ).
// Restrictions: commutative — rank r's block combines r, r−1, …, wrapping
// around at rank 0, not in rank order.
#include <algorithm>

#include "../../layout.hpp"
#include "../reduce_scatter.hpp"

namespace patcoll::core {

Program reduce_scatter_pairwise(const Params &params, int rank) {
  const int procs = params.procs;
  Program program{rank, procs, 0, {}};
  if (total(params) == 0) return program;
  const std::int64_t mine = block_count(params, rank);
  program.scratch_count = mine;
  if (mine > 0) add_step(program, {copy_op(send_buf(block_offset(params, rank), mine), scratch_buf(0, mine))}, 0);
  for (int step = 1; step < procs; ++step) {
    const int to = (rank + step) % procs, from = (rank - step + procs) % procs;
    std::vector<Op> ops;
    const std::int64_t theirs = block_count(params, to);
    if (theirs > 0) ops.push_back(send_op(to, send_buf(block_offset(params, to), theirs)));
    if (mine > 0) ops.push_back(recv_op(from, scratch_buf(0, mine), Combine::left));
    if (!ops.empty()) add_step(program, std::move(ops), step);
  }
  if (mine > 0) add_step(program, {copy_op(scratch_buf(0, mine), recv_buf(0, mine))}, procs);
  return program;
}

}  // namespace patcoll::core
