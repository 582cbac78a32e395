// alltoall/bruck — ⌈log2 P⌉ steps for small pairs (Bruck et al., 1997).
//
// Positions are destinations relative to the rank: the rank first copies
// its pair for (r + i) mod P to position i of a scratch array (a local
// rotation). In step k = 1, 2, 4, … < P it packs every position i with bit
// k set, sends the pack to (r + k) mod P, receives the same positions from
// (r − k) mod P and unpacks them in the next step. A pair from s to d
// travels d − s mod P ranks, one set bit at a time, so at the end position
// i holds the pair from (r − i) mod P, which the last step copies into
// place (the inverse rotation). The receive buffer is written only then,
// after every read of the send buffer: MPI_IN_PLACE needs nothing else.
//
//   P = 4, rank r, positions 0 1 2 3:  k = 1 sends {1, 3}, k = 2 sends {2, 3}
//
// Cost: ⌈log2 P⌉α + ⌈log2 P⌉·(m/2)β (every step moves about half the
// pairs) plus the copies; the latency term is optimal, the bandwidth term
// is not: for small pairs. Restrictions: equal pairs (MPI_Alltoall; an
// alltoallv's intermediate packs would need every rank's counts).
// Source: MPICH alltoall_intra_brucks.c, Open MPI
// coll_base_alltoall_intra_bruck, SimGrid alltoall-bruck.cpp.
#include "../alltoall.hpp"

namespace patcoll::core {

Program alltoall_bruck(const Params &params, int rank) {
  const int procs = params.procs;
  const std::int64_t c = params.count;
  Program program;
  program.rank = rank;
  program.procs = procs;
  if (c == 0) return program;
  // Scratch: [0, P·c) the positions, then the outgoing and the incoming pack.
  const std::int64_t positions = static_cast<std::int64_t>(procs) * c;
  const std::int64_t half = static_cast<std::int64_t>(procs / 2 + 1) * c;  // the most positions with one bit set
  const std::int64_t out_at = positions, in_at = positions + half;
  program.scratch_count = positions + 2 * half;
  std::vector<Op> ops;
  for (int i = 0; i < procs; ++i)
    ops.push_back(copy_op(send_buf(static_cast<std::int64_t>((rank + i) % procs) * c, c), scratch_buf(i * c, c)));
  std::vector<int> incoming;  // the positions of the last receive
  int round = 0;
  for (int k = 1; k < procs; k <<= 1) {
    ++round;
    for (std::size_t j = 0; j < incoming.size(); ++j)
      ops.push_back(copy_op(scratch_buf(in_at + static_cast<std::int64_t>(j) * c, c), scratch_buf(incoming[j] * c, c)));
    incoming.clear();
    for (int i = 0; i < procs; ++i)
      if (i & k) {
        ops.push_back(copy_op(scratch_buf(i * c, c), scratch_buf(out_at + static_cast<std::int64_t>(incoming.size()) * c, c)));
        incoming.push_back(i);
      }
    const std::int64_t packed = static_cast<std::int64_t>(incoming.size()) * c;
    ops.push_back(send_op((rank + k) % procs, scratch_buf(out_at, packed)));
    ops.push_back(recv_op((rank - k + procs) % procs, scratch_buf(in_at, packed)));
    add_step(program, std::move(ops), round);
    ops.clear();
  }
  for (std::size_t j = 0; j < incoming.size(); ++j)
    ops.push_back(copy_op(scratch_buf(in_at + static_cast<std::int64_t>(j) * c, c), scratch_buf(incoming[j] * c, c)));
  for (int i = 0; i < procs; ++i)
    ops.push_back(copy_op(scratch_buf(i * c, c), recv_buf(static_cast<std::int64_t>((rank - i + procs) % procs) * c, c)));
  add_step(program, std::move(ops), round + 1);
  return program;
}

}  // namespace patcoll::core
