// bcast/linear — the root sends the whole buffer to every other rank.
//
// The root posts every send at once (one step, as Open MPI's
// bcast_intra_basic_linear), so a late receiver holds up nobody but the
// root's own completion; every other rank receives once.
// Cost: (P − 1)(α + mβ) at the root's single port. Restrictions: none.
#include "../bcast.hpp"

namespace patcoll::core {

Program bcast_linear(const Params &params, int rank) {
  Program program{rank, params.procs, 0, {}};
  const std::int64_t n = params.count;
  if (n == 0) return program;
  std::vector<Op> ops;
  if (rank == params.root) {
    for (int step = 1; step < params.procs; ++step) ops.push_back(send_op((params.root + step) % params.procs, recv_buf(0, n)));
  } else {
    ops.push_back(recv_op(params.root, recv_buf(0, n)));
  }
  add_step(program, std::move(ops), 0);
  return program;
}

}  // namespace patcoll::core
