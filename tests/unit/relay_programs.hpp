// A one-step allreduce built on the IR's tags, groups and dependencies
// (core/ir.hpp), for the tests of the validator, the simulator and the
// executor: the vector is cut into `units`; unit u is owned by rank
// u % P, which receives every other rank's part of it (combining, as
// the parts come) and then sends the sum down a binomial tree rooted at
// itself, whose inner ranks forward it as soon as it is in. Every rank
// sends its parts in one order, at most `window` in flight (each part
// send waits for the one `window` earlier). Tag u + 1 is unit u's
// channel: between two ranks at most one message per unit.
#pragma once

#include <vector>

#include "core/algorithm.hpp"

namespace relay_programs {

using namespace patcoll::core;

inline Program allreduce_owner_trees(const Params &params, int rank, int units, int window, bool in_place_safe = true) {
  const int procs = params.procs;
  const std::int64_t n = params.count;
  Program program{rank, procs, 0, {}};
  if (procs == 1) {
    add_step(program, {copy_op(send_buf(0, n), recv_buf(0, n))});
    return program;
  }
  auto unit = [&](int u) { return block_span(n, units, u); };
  auto owner = [&](int u) { return u % procs; };
  std::vector<Op> ops;
  // Groups: unit u's data in (its parts at the owner, its result at the
  // others) is group u; the i-th part send is group units + i.
  for (int u = 0; u < units; ++u)
    if (owner(u) == rank && unit(u).count > 0) ops.push_back(copy_op(send_buf(unit(u).offset, unit(u).count), recv_buf(unit(u).offset, unit(u).count)));
  int sent = 0;
  std::vector<int> part_group(static_cast<std::size_t>(units), -1);
  for (int u = 0; u < units; ++u) {
    const Span s = unit(u);
    if (owner(u) == rank || s.count == 0) continue;
    const int group = units + sent;
    const int after = sent >= window ? group - window : -1;
    ops.push_back(tagged(send_op(owner(u), send_buf(s.offset, s.count)), u + 1, group, after));
    part_group[static_cast<std::size_t>(u)] = group;
    ++sent;
  }
  for (int u = 0; u < units; ++u) {
    const Span s = unit(u);
    if (s.count == 0) continue;
    const Region here = recv_buf(s.offset, s.count);
    const int v = (rank - owner(u) + procs) % procs;  // place in the unit's tree
    if (v == 0) {
      for (int p = 0; p < procs; ++p)
        if (p != rank) ops.push_back(tagged(recv_op(p, here, Combine::left), u + 1, u));
    } else {
      int low = 1;
      while (low * 2 <= v) low *= 2;
      const int parent = (v - low + owner(u)) % procs;
      // In place the result lands where this rank's part is read: it
      // waits for that send (the owner's sum needs the part anyway).
      const int after = in_place_safe ? part_group[static_cast<std::size_t>(u)] : -1;
      ops.push_back(tagged(recv_op(parent, here), u + 1, u, after));
    }
    int low = 1;
    while (low <= v) low *= 2;
    for (int k = low; v + k < procs; k *= 2)
      ops.push_back(tagged(send_op((v + k + owner(u)) % procs, here), u + 1, -1, u));
  }
  add_step(program, std::move(ops));
  return program;
}

inline std::vector<Program> allreduce_owner_trees_all(const Params &params, int units, int window, bool in_place_safe = true) {
  std::vector<Program> out;
  for (int r = 0; r < params.procs; ++r) out.push_back(allreduce_owner_trees(params, r, units, window, in_place_safe));
  return out;
}

}  // namespace relay_programs
