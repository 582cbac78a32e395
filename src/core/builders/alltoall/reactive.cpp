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
  // start with the same target (rank 0 is everybody's first earlier).
  for (auto to = peers.rbegin(); to != peers.rend(); ++to)
    if (const std::int64_t c = pair_count(params, rank, *to); c > 0)
      post.push_back(send_op(*to, send_buf(send_offset(params, rank, *to), c)));
  add_step(program, std::move(post), 1);
  add_step(program, std::move(place), 2);
  return program;
}

Program alltoall_reactive_links(const Params &params, int rank, const AlltoallLinks &links, bool control) {
  Program program{rank, params.procs, 0, {}};
  // Control messages (zero elements, latency only): none where nothing
  // moves at all (alltoall of count 0; an alltoallv rank knows only its
  // own row and column of the counts, so it always says hello).
  const bool talk =
      control && params.procs > 1 && !(params.collective == Collective::alltoall && params.count == 0);
  const Region none_out = send_buf(0, 0), none_in = recv_buf(0, 0);
  int round = 0;
  auto step = [&](std::vector<Op> ops) { add_step(program, std::move(ops), ++round); };
  // One group after the other, each with its scratch after the previous
  // one's; `first`: ops the group's first step begins with.
  auto group = [&](const std::vector<int> &peers, bool own, std::vector<Op> first) {
    Program part = alltoall_reactive_group(params, rank, peers, own);
    shift_scratch(part, program.scratch_count);
    program.scratch_count += part.scratch_count;
    if (!part.steps.empty() && part.steps.front().round == 1) {
      first.insert(first.end(), part.steps.front().ops.begin(), part.steps.front().ops.end());
      part.steps.erase(part.steps.begin());
    }
    step(std::move(first));
    for (Step &s : part.steps) step(std::move(s.ops));
  };

  std::vector<Op> first;
  if (rank != 0 && talk) {
    step({send_op(0, none_out)});  // hello
    step({recv_op(0, none_in)});   // the answer: the earlier ranks
    for (std::size_t i = 1; i < links.earlier.size(); ++i) first.push_back(send_op(links.earlier[i], none_out));  // notices
  }
  group(links.earlier, true, std::move(first));
  for (const std::vector<int> &peers : links.later) {
    std::vector<Op> answers;
    if (talk) {
      // Each later rank's notice (at rank 0: its hello, then the answer
      // in the step exchanging with it).
      for (int q : peers) step({recv_op(q, none_in)});
      if (rank == 0)
        for (int q : peers) answers.push_back(send_op(q, none_out));
    }
    group(peers, false, std::move(answers));
  }
  return program;
}

Program alltoall_reactive(const Params &params, int rank) {
  return alltoall_reactive_links(params, rank, alltoall_reactive_links_of(alltoall_reactive_order(params), rank), true);
}

}  // namespace patcoll::core
