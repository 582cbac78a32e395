// alltoall/reactive — pairs in the arrival order observed at run time
// (builders/reactive.hpp: the design and why it cannot deadlock; the
// mechanism in mpi/reactive.hpp).
#include <algorithm>

#include "../../layout.hpp"
#include "../pap.hpp"
#include "../reactive.hpp"

namespace patcoll::core {

std::vector<int> alltoall_reactive_order(const Params &params) {
  std::vector<int> order{0};
  order.reserve(static_cast<std::size_t>(std::max(1, params.procs)));
  for (int rank : arrival_order(params))
    if (rank != 0) order.push_back(rank);
  return order;
}

AlltoallLinks alltoall_reactive_links_of(const std::vector<int> &order, int rank) {
  AlltoallLinks links;
  const auto at = std::find(order.begin(), order.end(), rank);
  links.earlier.assign(order.begin(), at);
  if (at != order.end())
    for (auto later = at + 1; later != order.end(); ++later) links.later.push_back({*later});
  links.complete = true;
  return links;
}

Program alltoall_reactive_links(const Params &params, int rank, const AlltoallLinks &links, bool control) {
  Program program{rank, params.procs, recv_total(params, rank), {}};
  // Control messages (zero elements, latency only): none where nothing
  // moves at all (alltoall of count 0; an alltoallv rank knows only its
  // own row and column of the counts, so it always says hello).
  const bool talk =
      control && params.procs > 1 && !(params.collective == Collective::alltoall && params.count == 0);
  const Region none_out = send_buf(0, 0), none_in = recv_buf(0, 0);
  int round = 0;
  auto step = [&](std::vector<Op> ops) { add_step(program, std::move(ops), ++round); };
  // The pairs with `peers`, posted at once into `ops` (receives into the
  // scratch copy of the receive layout), and their copies into place.
  std::vector<Op> place;
  auto exchange = [&](const std::vector<int> &peers, std::vector<Op> &ops) {
    for (int from : peers)
      if (const std::int64_t c = pair_count(params, from, rank); c > 0) {
        const std::int64_t at = recv_offset(params, from, rank);
        ops.push_back(recv_op(from, scratch_buf(at, c)));
        place.push_back(copy_op(scratch_buf(at, c), recv_buf(at, c)));
      }
    // Sends to the latest peer first: the ranks of one step do not all
    // start with the same target (rank 0 is everybody's first earlier).
    for (auto to = peers.rbegin(); to != peers.rend(); ++to)
      if (const std::int64_t c = pair_count(params, rank, *to); c > 0)
        ops.push_back(send_op(*to, send_buf(send_offset(params, rank, *to), c)));
  };
  auto place_step = [&] {
    step(std::move(place));
    place.clear();
  };

  std::vector<Op> first;
  if (rank != 0 && talk) {
    step({send_op(0, none_out)});  // hello
    step({recv_op(0, none_in)});   // the answer: the earlier ranks
    for (std::size_t i = 1; i < links.earlier.size(); ++i) first.push_back(send_op(links.earlier[i], none_out));  // notices
  }
  if (const std::int64_t own = pair_count(params, rank, rank); own > 0)
    first.push_back(copy_op(send_buf(send_offset(params, rank, rank), own), recv_buf(recv_offset(params, rank, rank), own)));
  exchange(links.earlier, first);
  step(std::move(first));
  place_step();
  for (const std::vector<int> &group : links.later) {
    std::vector<Op> ops;
    if (talk) {
      // Each later rank's notice (at rank 0: its hello, then the answer
      // in the step exchanging with it).
      for (int q : group) step({recv_op(q, none_in)});
      if (rank == 0)
        for (int q : group) ops.push_back(send_op(q, none_out));
    }
    exchange(group, ops);
    step(std::move(ops));
    place_step();
  }
  if (!links.complete) step({recv_op(kUnknownPeer, none_in)});  // the next later ranks (never run)
  return program;
}

Program alltoall_reactive(const Params &params, int rank) {
  return alltoall_reactive_links(params, rank, alltoall_reactive_links_of(alltoall_reactive_order(params), rank), true);
}

}  // namespace patcoll::core
