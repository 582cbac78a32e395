// alltoall/reactive — pairs in the arrival order observed at run time
// (builders/reactive.hpp: the design and why it cannot deadlock; the
// mechanism in mpi/reactive.hpp).
#include <algorithm>

#include "../../layout.hpp"
#include "../pap.hpp"
#include "../reactive.hpp"

namespace patcoll::core {
namespace {

// Adds `by` to the offset of every scratch region of `program`.
void shift_scratch(Program &program, std::int64_t by) {
  for (Step &step : program.steps)
    for (Op &op : step.ops) {
      if (op.src.buffer == Buffer::scratch) op.src.offset += by;
      if (op.dst.buffer == Buffer::scratch) op.dst.offset += by;
    }
}

}  // namespace

int reactive_coordinator(const Params &params) {
  if (params.procs <= 1 || static_cast<int>(params.arrivals.size()) != params.procs) return 0;
  return static_cast<int>(std::min_element(params.arrivals.begin(), params.arrivals.end()) - params.arrivals.begin());
}

std::vector<int> alltoall_reactive_order(const Params &params) {
  const int coordinator = reactive_coordinator(params);
  std::vector<int> order{coordinator};
  order.reserve(static_cast<std::size_t>(std::max(1, params.procs)));
  for (int rank : arrival_order(params))
    if (rank != coordinator) order.push_back(rank);
  return order;
}

AlltoallLinks alltoall_reactive_links_of(const std::vector<int> &order, int rank) {
  AlltoallLinks links;
  const auto at = std::find(order.begin(), order.end(), rank);
  links.earlier.assign(order.begin(), at);
  if (at != order.end())
    for (auto later = at + 1; later != order.end(); ++later) links.later.push_back({*later});
  return links;
}

Program alltoall_reactive_group(const Params &params, int rank, const std::vector<int> &peers, bool own) {
  Program program{rank, params.procs, 0, {}};
  std::vector<Op> post, place;
  if (own)
    if (const std::int64_t c = pair_count(params, rank, rank); c > 0)
      post.push_back(copy_op(send_buf(send_offset(params, rank, rank), c), recv_buf(recv_offset(params, rank, rank), c)));
  // Receives into the group's scratch (its peers' pairs back to back),
  // copied into place in the next step, after the sends from there.
  for (int from : peers)
    if (const std::int64_t c = pair_count(params, from, rank); c > 0) {
      const Region staged = scratch_buf(program.scratch_count, c);
      post.push_back(recv_op(from, staged));
      place.push_back(copy_op(staged, recv_buf(recv_offset(params, from, rank), c)));
      program.scratch_count += c;
    }
  // Sends to the latest peer first: the ranks of one group do not all
  // start with the same target (the coordinator is everybody's first
  // earlier).
  for (auto to = peers.rbegin(); to != peers.rend(); ++to)
    if (const std::int64_t c = pair_count(params, rank, *to); c > 0)
      post.push_back(send_op(*to, send_buf(send_offset(params, rank, *to), c)));
  add_step(program, std::move(post), 1);
  add_step(program, std::move(place), 2);
  return program;
}

Program alltoall_reactive_groups(const Params &params, int rank, const AlltoallLinks &links) {
  Program program{rank, params.procs, 0, {}};
  auto add = [&](const std::vector<int> &peers, bool own) {
    Program part = alltoall_reactive_group(params, rank, peers, own);
    shift_scratch(part, program.scratch_count);
    program.scratch_count += part.scratch_count;
    for (Step &step : part.steps) add_step(program, std::move(step.ops), static_cast<int>(program.steps.size()) + 1);
  };
  add(links.earlier, true);
  for (const std::vector<int> &peers : links.later) add(peers, false);
  return program;
}

Program alltoall_reactive(const Params &params, int rank) {
  const std::vector<int> order = alltoall_reactive_order(params);
  const AlltoallLinks links = alltoall_reactive_links_of(order, rank);
  std::vector<int> peers = links.earlier;
  for (const std::vector<int> &group : links.later) peers.insert(peers.end(), group.begin(), group.end());
  Program program = alltoall_reactive_group(params, rank, peers, true);
  // Control messages (zero elements, latency only): none where nothing
  // moves at all (alltoall of count 0; an alltoallv rank knows only its
  // own row and column of the counts, so it always says hello).
  if (params.procs == 1 || (params.collective == Collective::alltoall && params.count == 0)) return program;
  const Region none_out = send_buf(0, 0), none_in = recv_buf(0, 0);
  const int coordinator = order.front();
  std::vector<Op> control;  // ahead of the exchange's ops: each pair's first message
  if (rank == coordinator) {
    for (int q : peers) control.push_back(recv_op(q, none_in));  // the hellos, in arrival order
    for (int q : peers) control.push_back(send_op(q, none_out));  // the answers
  } else {
    for (std::size_t i = 1; i < links.earlier.size(); ++i) control.push_back(send_op(links.earlier[i], none_out));
    for (const std::vector<int> &group : links.later)
      for (int q : group) control.push_back(recv_op(q, none_in));  // the notices
  }
  if (program.steps.empty() || program.steps.front().round != 1) program.steps.insert(program.steps.begin(), Step{1, {}});
  std::vector<Op> &first = program.steps.front().ops;
  first.insert(first.begin(), control.begin(), control.end());
  if (rank != coordinator) {
    Program greeted{rank, params.procs, program.scratch_count, {}};
    add_step(greeted, {send_op(coordinator, none_out)});  // hello
    add_step(greeted, {recv_op(coordinator, none_in)});   // the answer: the earlier ranks
    for (Step &step : program.steps) greeted.steps.push_back(std::move(step));
    program = std::move(greeted);
  }
  return program;
}

}  // namespace patcoll::core
