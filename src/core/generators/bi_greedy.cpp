// bi_greedy — [LL] Algorithm 2, the greedy schedule for bidirectional ports
// (a process may send one segment while it receives another).
//
// Time advances from event to event (the listing steps t by 1; nothing can
// be scheduled between two events, so both give the same schedule for
// integer costs). At each t, for the segments the root has not finished,
// in order, the processes that still hold segment j and are not busy
// computing (COMP) are split into senders (send port free), receivers
// (receive port free) and free processes (both), the free ones are
// distributed to balance senders and receivers (senders from the end of
// the list, receivers from the start), and the first l = min(|send|,|recv|)
// of each are paired entry-wise. Our reading of the listing where it is
// ambiguous:
//   * lists are in virtual-rank order (root first, then root+1, …);
//   * the root never sends (the listing does not exclude it explicitly);
//   * COMP(j) = {i | C1(i) <= t < C2(i)} ∪ {i | t < C1(i) < t + t_comm}:
//     a transfer may not overlap a computation (the listing's
//     "t + t_comm(j) > C(i)" read with the start of the computation);
//   * every process starts with both ports free at its arrival time.
// Times are integer ticks of (t_comm + t_comp)/2^16. [LL] conjectures the
// result takes ⌈log2 p⌉ + q − 1 rounds of t_comm + t_comp (checked in the
// tests). Source: [LL] §VI-B, Algorithm 2.
#include <algorithm>
#include <cmath>

#include "greedy.hpp"

namespace patcoll::core {

Schedule bi_greedy(const GreedyInput &input) {
  if (!greedy_input_error(input).empty()) return detail::greedy_schedule(input, "bi_greedy", {}, 0);
  const int procs = input.procs, segments = input.segments;
  if (procs == 1) return detail::greedy_schedule(input, "bi_greedy", {}, 0);
  const double comm = input.alpha + input.beta * input.segment_bytes, comp = input.gamma * input.segment_bytes;
  double first = 0, spread = 0;
  if (!input.arrivals.empty()) {
    first = *std::min_element(input.arrivals.begin(), input.arrivals.end());
    spread = *std::max_element(input.arrivals.begin(), input.arrivals.end()) - first;
  }
  double unit = comm + comp > 0 ? (comm + comp) / 65536.0 : 1.0;
  unit = std::max(unit, spread / 0x1p50);
  using Tick = std::int64_t;
  const Tick t_comm = std::max<Tick>(1, std::llround(comm / unit)), t_comp = std::llround(comp / unit);

  // Index v is the virtual rank: rank (v + root) mod P.
  auto rank_of = [&](int v) { return (v + input.root) % procs; };
  std::vector<Tick> send_free(procs, 0), recv_free(procs, 0), comp_start(procs, 0), comp_end(procs, 0);
  if (!input.arrivals.empty())
    for (int v = 0; v < procs; ++v)
      send_free[v] = recv_free[v] = std::llround((input.arrivals[rank_of(v)] - first) / unit);
  // sent[v·q + j]: v has sent segment j (for the root: j is finished).
  std::vector<char> sent(static_cast<std::size_t>(procs) * segments, 0);
  std::vector<Tick> last_send_end(segments, 0);
  std::vector<int> holders(segments, procs);
  std::vector<Tick> finished_at(segments, 0);
  int first_open = 0;

  std::vector<detail::GreedyEvent> events;
  std::vector<int> candidates, senders, receivers, both;
  Tick t = 0;
  if (!input.arrivals.empty()) t = *std::min_element(send_free.begin(), send_free.end());
  while (first_open < segments) {
    candidates.clear();
    long long free_ports = 0;
    for (int v = 0; v < procs; ++v) {
      free_ports += (send_free[v] <= t) + (recv_free[v] <= t);
      const bool computing = comp_start[v] <= t && t < comp_end[v];
      if (!computing && (send_free[v] <= t || recv_free[v] <= t)) candidates.push_back(v);
    }
    for (int j = first_open; j < segments && free_ports >= 2; ++j) {
      senders.clear(), receivers.clear(), both.clear();
      for (int v : candidates) {
        if (sent[static_cast<std::size_t>(v) * segments + j]) continue;
        if (t < comp_start[v] && comp_start[v] < t + t_comm) continue;  // would overlap a computation
        const bool can_send = v != 0 && send_free[v] <= t, can_recv = recv_free[v] <= t;
        if (can_send && can_recv) both.push_back(v);
        else if (can_send) senders.push_back(v);
        else if (can_recv) receivers.push_back(v);
      }
      const int s = static_cast<int>(senders.size()), r = static_cast<int>(receivers.size());
      const int f = static_cast<int>(both.size());
      int to_send = 0, to_recv = 0;  // taken from the end / the start of `both`
      if (s == r) {
        to_send = to_recv = f / 2;
      } else {
        const int m = std::min(f, std::abs(r - s)), x = (f - m) / 2;
        if (s < r) to_send = m + x, to_recv = x;
        else to_recv = m + x, to_send = x;
      }
      for (int k = f - to_send; k < f; ++k) senders.push_back(both[k]);
      for (int k = 0; k < to_recv; ++k) receivers.push_back(both[k]);
      std::sort(senders.begin(), senders.end());
      std::sort(receivers.begin(), receivers.end());
      const std::size_t pairs = std::min(senders.size(), receivers.size());
      for (std::size_t k = 0; k < pairs; ++k) {
        const int a = senders[k], b = receivers[k];
        events.push_back({static_cast<double>(t) * unit, rank_of(a), rank_of(b), j});
        sent[static_cast<std::size_t>(a) * segments + j] = 1;
        send_free[a] = t + t_comm;
        last_send_end[j] = std::max(last_send_end[j], t + t_comm);
        recv_free[b] = t + t_comm + t_comp;
        comp_start[b] = t + t_comm;
        comp_end[b] = t + t_comm + t_comp;
        --holders[j];
        free_ports -= 2;
      }
      if (holders[j] == 1 && !sent[j]) {  // only the root holds j: done after its last combine
        sent[j] = 1;  // row 0 is the root
        finished_at[j] = last_send_end[j] + t_comp;
      }
    }
    while (first_open < segments && sent[first_open]) ++first_open;
    if (first_open >= segments) break;
    // Next event: the earliest port release or computation boundary after t.
    Tick next = -1;
    for (int v = 0; v < procs; ++v)
      for (Tick e : {send_free[v], recv_free[v], comp_start[v], comp_end[v]})
        if (e > t && (next < 0 || e < next)) next = e;
    if (next < 0) break;  // cannot happen for a consistent state
    t = next;
  }
  Tick completion = 0;
  for (Tick f : finished_at) completion = std::max(completion, f);
  return detail::greedy_schedule(input, "bi_greedy", std::move(events), static_cast<double>(completion) * unit);
}

}  // namespace patcoll::core
