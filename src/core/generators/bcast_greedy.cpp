// bcast_greedy — a pipelined broadcast schedule from the PATs, greedy with
// release times (the broadcast counterpart of [LL]'s greedy; our design).
//
// The root holds every segment from its arrival on; any rank holding a
// segment may forward it. Ports are single and full-duplex: a rank sends
// one segment and receives one segment at a time, each transfer taking
// t_comm = α + βs. A rank receives its segments in order, from its
// arrival on. Repeatedly the transfer that can start earliest is taken:
// for the receiver whose next receive can start first, the holder of its
// next segment whose send port is free first (ties: the earlier receiver
// key, then the lower rank, then the lower sender rank). Keys in the heap
// are lower bounds of a receiver's start (senders only get busier), so a
// receiver whose best start is later than the next key goes back with it
// (lazy evaluation): the transfers come out in start order, which
// detail::greedy_schedule numbers into rounds.
// With equal arrivals the result is a fixed balanced pipeline (every rank
// identical); a late rank receives its segments back to back from ranks
// that hold them, after its arrival. Generation: O(P·N·H), H the holders
// of a segment when it is sent (at most P).
#include <algorithm>
#include <limits>
#include <queue>

#include "greedy.hpp"

namespace patcoll::core {

Schedule bcast_greedy(const GreedyInput &input) {
  std::vector<detail::GreedyEvent> events;
  if (!greedy_input_error(input).empty() || input.procs < 2) return detail::greedy_schedule(input, "bcast_greedy", {}, 0);
  const int procs = input.procs, segments = input.segments;
  std::vector<double> ready(static_cast<std::size_t>(procs), 0);
  if (!input.arrivals.empty()) {
    const double first = *std::min_element(input.arrivals.begin(), input.arrivals.end());
    for (int p = 0; p < procs; ++p) ready[p] = input.arrivals[p] - first;
  }
  auto comm = [&](int segment) {
    const double bytes = input.segment_bytes_each.empty() ? input.segment_bytes : input.segment_bytes_each[segment];
    return input.alpha + input.beta * bytes;
  };
  constexpr double kNever = std::numeric_limits<double>::infinity();
  // holders[k]: the ranks that hold (or will hold) segment k, with when.
  struct Holder {
    double since;
    int rank;
  };
  std::vector<std::vector<Holder>> holders(static_cast<std::size_t>(segments));
  for (auto &list : holders) list.push_back({ready[input.root], input.root});
  std::vector<double> send_free = ready, recv_free = ready;
  std::vector<int> next(static_cast<std::size_t>(procs), 0);
  using Key = std::pair<double, int>;  // (lower bound of the next receive's start, rank)
  std::priority_queue<Key, std::vector<Key>, std::greater<>> receivers;
  for (int r = 0; r < procs; ++r)
    if (r != input.root) receivers.push({ready[r], r});
  events.reserve(static_cast<std::size_t>(procs - 1) * segments);
  double completion = 0;
  while (!receivers.empty()) {
    const auto [key, r] = receivers.top();
    receivers.pop();
    const int k = next[r];
    double best = kNever;
    int sender = -1;
    for (const Holder &holder : holders[static_cast<std::size_t>(k)]) {
      const double start = std::max({recv_free[r], send_free[holder.rank], holder.since});
      if (start < best || (start == best && holder.rank < sender)) best = start, sender = holder.rank;
    }
    if (!receivers.empty() && best > receivers.top().first) {
      receivers.push({best, r});  // another receiver may start first
      continue;
    }
    const double end = best + comm(k);
    events.push_back({best, sender, r, k});
    send_free[sender] = end;
    recv_free[r] = end;
    holders[static_cast<std::size_t>(k)].push_back({end, r});
    completion = std::max(completion, end);
    if (++next[r] < segments) receivers.push({end, r});
  }
  return detail::greedy_schedule(input, "bcast_greedy", std::move(events), completion);
}

Schedule bcast_chain(const GreedyInput &input, const std::vector<int> &order) {
  std::vector<detail::GreedyEvent> events;
  if (!greedy_input_error(input).empty() || input.procs < 2 || order.size() != static_cast<std::size_t>(input.procs) ||
      order[0] != input.root)
    return detail::greedy_schedule(input, "bcast_chain", {}, 0);
  const int procs = input.procs, segments = input.segments;
  std::vector<double> ready(static_cast<std::size_t>(procs), 0);
  if (!input.arrivals.empty()) {
    const double first = *std::min_element(input.arrivals.begin(), input.arrivals.end());
    for (int p = 0; p < procs; ++p) ready[p] = input.arrivals[p] - first;
  }
  auto comm = [&](int segment) {
    const double bytes = input.segment_bytes_each.empty() ? input.segment_bytes : input.segment_bytes_each[segment];
    return input.alpha + input.beta * bytes;
  };
  // held[k]: when the previous position holds segment k; send_free: its send port.
  std::vector<double> held(static_cast<std::size_t>(segments), ready[input.root]), next_held(held.size());
  double send_free = ready[input.root], completion = 0;
  events.reserve(static_cast<std::size_t>(procs - 1) * segments);
  for (int i = 1; i < procs; ++i) {
    const int sender = order[i - 1], receiver = order[i];
    double recv_free = ready[receiver], next_send_free = ready[receiver];
    for (int k = 0; k < segments; ++k) {
      const double start = std::max({recv_free, send_free, held[k]});
      const double end = start + comm(k);
      events.push_back({start, sender, receiver, k});
      send_free = recv_free = next_held[k] = end;
      completion = std::max(completion, end);
    }
    held.swap(next_held);
    send_free = next_send_free;
  }
  return detail::greedy_schedule(input, "bcast_chain", std::move(events), completion);
}

}  // namespace patcoll::core
