// reduce/linear — the root receives every contribution directly.
//
// Every non-root sends its whole vector to the root; the root receives one
// message per step into scratch and combines it, lower ranks on the left
// and higher ranks on the right, so the op is applied in rank order and
// non-commutative ops are correct.
// Cost: (P−1)(α + mβ + mγ) at the root.
// Restrictions: none. Source: the classic basic_linear of Open MPI
// (ompi/mca/coll/base/coll_base_reduce.c).
#include "../builders.hpp"

namespace patcoll::core {

Program reduce_linear(const Params &params, int rank) {
  const std::int64_t n = params.count;
  Program program{rank, params.procs, 0, {}};
  if (rank != params.root) {
    add_step(program, {send_op(params.root, send_buf(0, n))});
    return program;
  }
  add_step(program, {copy_op(send_buf(0, n), recv_buf(0, n))});
  for (int peer = params.root - 1; peer >= 0; --peer)
    add_step(program, {recv_op(peer, recv_buf(0, n), Combine::left)});
  for (int peer = params.root + 1; peer < params.procs; ++peer)
    add_step(program, {recv_op(peer, recv_buf(0, n), Combine::right)});
  return program;
}

}  // namespace patcoll::core
