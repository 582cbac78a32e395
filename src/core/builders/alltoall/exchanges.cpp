// The all-to-all exchange engine (builders/alltoall.hpp) and the orders of
// pairwise and clairvoyant: which rank meets which in which step.
#include <algorithm>

#include "../../layout.hpp"
#include "../alltoall.hpp"

namespace patcoll::core {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

Program alltoall_exchanges(const Params &params, int rank, const std::vector<Exchange> &sequence) {
  Program program;
  program.rank = rank;
  program.procs = params.procs;
  const int procs = params.procs;
  const int steps = static_cast<int>(sequence.size());
  // Staging: the pair from X lands in scratch at X's place of the receive
  // layout and is copied into place at the first step after both its
  // receive and this rank's send to X (under MPI_IN_PLACE the same memory)
  // have completed.
  std::vector<int> recv_step(static_cast<std::size_t>(procs), 0), send_step(recv_step);
  for (int i = 0; i < steps; ++i) {
    const Exchange &e = sequence[static_cast<std::size_t>(i)];
    if (e.to >= 0 && pair_count(params, rank, e.to) > 0) send_step[static_cast<std::size_t>(e.to)] = i + 1;
    if (e.from >= 0 && pair_count(params, e.from, rank) > 0) recv_step[static_cast<std::size_t>(e.from)] = i + 1;
  }
  std::vector<std::vector<int>> unstage_at(static_cast<std::size_t>(steps) + 2);
  for (int x = 0; x < procs; ++x)
    if (recv_step[static_cast<std::size_t>(x)] > 0)
      unstage_at[static_cast<std::size_t>(std::max(recv_step[static_cast<std::size_t>(x)], send_step[static_cast<std::size_t>(x)]) + 1)]
          .push_back(x);
  program.scratch_count = recv_total(params, rank);

  for (int step = 1; step <= steps + 1; ++step) {
    std::vector<Op> ops;
    if (step == 1)
      if (const std::int64_t own = pair_count(params, rank, rank); own > 0)
        ops.push_back(copy_op(send_buf(send_offset(params, rank, rank), own), recv_buf(recv_offset(params, rank, rank), own)));
    for (int x : unstage_at[static_cast<std::size_t>(step)]) {
      const std::int64_t c = pair_count(params, x, rank), at = recv_offset(params, x, rank);
      ops.push_back(copy_op(scratch_buf(at, c), recv_buf(at, c)));
    }
    if (step <= steps) {
      const Exchange &e = sequence[static_cast<std::size_t>(step - 1)];
      if (e.to >= 0)
        if (const std::int64_t c = pair_count(params, rank, e.to); c > 0)
          ops.push_back(send_op(e.to, send_buf(send_offset(params, rank, e.to), c)));
      if (e.from >= 0)
        if (const std::int64_t c = pair_count(params, e.from, rank); c > 0)
          ops.push_back(recv_op(e.from, scratch_buf(recv_offset(params, e.from, rank), c)));
    }
    add_step(program, std::move(ops), step);
  }
  return program;
}

std::vector<Exchange> pairwise_sequence(int procs, int rank) {
  std::vector<Exchange> sequence;
  sequence.reserve(static_cast<std::size_t>(std::max(procs - 1, 0)));
  for (int k = 1; k < procs; ++k) {
    if (power_of_two(procs)) {
      sequence.push_back({rank ^ k, rank ^ k});
    } else {
      sequence.push_back({(rank + k) % procs, (rank - k + procs) % procs});
    }
  }
  return sequence;
}

int symmetric_rounds(int procs) {
  if (procs <= 1) return 0;
  return procs % 2 == 0 ? procs - 1 : procs;
}

int symmetric_round(int procs, int a, int b) {
  if (power_of_two(procs)) return a ^ b;
  if (procs % 2 == 1) {
    const int r = (a + b) % procs;
    return r == 0 ? procs : r;  // rounds 1 … P
  }
  // Even P: the circle method over the first P − 1 ranks; rank P − 1 meets
  // the one that would sit idle (2a ≡ round mod P − 1).
  const int n = procs - 1;
  const int r = b == n ? (2 * a) % n : a == n ? (2 * b) % n : (a + b) % n;
  return r == 0 ? n : r;  // rounds 1 … P − 1
}

}  // namespace patcoll::core
