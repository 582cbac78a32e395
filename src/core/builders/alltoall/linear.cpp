// alltoall/linear — every send and every receive posted at once.
//
// One step posts the P − 1 receives (from r + 1, r + 2, … mod P, each into
// its place of a scratch copy of the receive layout) and the P − 1 sends
// (to r − 1, r − 2, … mod P, so that no rank is everybody's first
// target); the next step copies the received pairs into place (staged so
// that MPI_IN_PLACE needs nothing else). Cost: α + (P − 1)/P·mβ with
// unlimited ports, (P − 1)(α + mβ/P) on one port, plus the contention the
// network makes of P − 1 concurrent messages. Restrictions: none. Source:
// MPICH alltoall_intra_scattered.c (one batch), Open MPI
// coll_base_alltoall_intra_basic_linear.
#include "../../layout.hpp"
#include "../alltoall.hpp"

namespace patcoll::core {

Program alltoall_linear(const Params &params, int rank) {
  const int procs = params.procs;
  Program program;
  program.rank = rank;
  program.procs = procs;
  program.scratch_count = recv_total(params, rank);
  std::vector<Op> post;
  if (const std::int64_t own = pair_count(params, rank, rank); own > 0)
    post.push_back(copy_op(send_buf(send_offset(params, rank, rank), own), recv_buf(recv_offset(params, rank, rank), own)));
  std::vector<Op> place;
  for (int k = 1; k < procs; ++k) {
    const int from = (rank + k) % procs;
    if (const std::int64_t c = pair_count(params, from, rank); c > 0) {
      const std::int64_t at = recv_offset(params, from, rank);
      post.push_back(recv_op(from, scratch_buf(at, c)));
      place.push_back(copy_op(scratch_buf(at, c), recv_buf(at, c)));
    }
  }
  for (int k = 1; k < procs; ++k) {
    const int to = (rank - k + procs) % procs;
    if (const std::int64_t c = pair_count(params, rank, to); c > 0)
      post.push_back(send_op(to, send_buf(send_offset(params, rank, to), c)));
  }
  add_step(program, std::move(post), 1);
  add_step(program, std::move(place), 2);
  return program;
}

}  // namespace patcoll::core
