// bi_greedy — [LL] Algorithm 2, the greedy schedule for bidirectional ports
// (a process may send one segment while it receives another).
//
// Time advances from event to event (the listing steps t by 1; nothing can
// be scheduled between two events, so both give the same schedule for
// integer costs). Only usable processes are scanned, and segments no usable
// sender holds are skipped (they pair nobody), which keeps p = 1024,
// q = 256 fast; the listing's stop test (fewer than two free ports) only
// saves work and is subsumed. At each t, for the segments the root has not finished,
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
//   * every process starts with both ports free at its arrival time;
//   * unequal segments ([LL] §VIII): segment j uses its own t_comm, t_comp.
// Times are integer ticks of (t_comm + t_comp)/2^16. [LL] conjectures the
// result takes ⌈log2 p⌉ + q − 1 rounds of t_comm + t_comp (checked in the
// tests). Source: [LL] §VI-B, Algorithm 2.
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <queue>

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
  // Per-segment costs (unequal segments, [LL] §VIII); t_comm_min for the
  // segment-independent part of the COMP test.
  std::vector<Tick> seg_comm(segments), seg_comp(segments);
  for (int j = 0; j < segments; ++j) {
    const double bytes = input.segment_bytes_each.empty() ? input.segment_bytes : input.segment_bytes_each[j];
    seg_comm[j] = std::max<Tick>(1, std::llround((input.alpha + input.beta * bytes) / unit));
    seg_comp[j] = std::llround(input.gamma * bytes / unit);
  }
  const Tick t_comm_min = *std::min_element(seg_comm.begin(), seg_comm.end());

  // Index v is the virtual rank: rank (v + root) mod P.
  auto rank_of = [&](int v) { return (v + input.root) % procs; };
  std::vector<Tick> send_free(procs, 0), recv_free(procs, 0), comp_start(procs, 0), comp_end(procs, 0);
  if (!input.arrivals.empty())
    for (int v = 0; v < procs; ++v)
      send_free[v] = recv_free[v] = std::llround((input.arrivals[rank_of(v)] - first) / unit);
  // unsent[v]: bitset of the segments v still has to send (for the root:
  // the segments not finished yet).
  const int words = (segments + 63) / 64;
  std::vector<std::uint64_t> unsent(static_cast<std::size_t>(procs) * words, 0);
  for (int v = 0; v < procs; ++v)
    for (int j = 0; j < segments; ++j) unsent[static_cast<std::size_t>(v) * words + (j >> 6)] |= 1ull << (j & 63);
  auto holds = [&](int v, int j) { return (unsent[static_cast<std::size_t>(v) * words + (j >> 6)] >> (j & 63)) & 1; };
  auto clear = [&](int v, int j) { unsent[static_cast<std::size_t>(v) * words + (j >> 6)] &= ~(1ull << (j & 63)); };
  // Smallest segment >= j that v still holds, or `segments`.
  auto next_held = [&](int v, int j) {
    if (j >= segments) return segments;
    const std::uint64_t *row = unsent.data() + static_cast<std::size_t>(v) * words;
    int w = j >> 6;
    std::uint64_t bits = row[w] & (~0ull << (j & 63));
    while (true) {
      if (bits) return std::min(segments, w * 64 + std::countr_zero(bits));
      if (++w >= words) return segments;
      bits = row[w];
    }
  };
  std::vector<int> to_send(procs, segments);  // segments left to send (non-root)
  std::vector<Tick> last_send_end(segments, 0);
  std::vector<int> holders(segments, procs);
  std::vector<Tick> finished_at(segments, 0);
  int first_open = 0;

  // Times at which a process may become usable again (port release, end of
  // a computation, arrival); stale entries only cost a visit.
  using Wake = std::pair<Tick, int>;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<>> wake;
  for (int v = 0; v < procs; ++v) wake.push({send_free[v], v});
  std::vector<char> listed(procs, 0);
  std::vector<int> candidates, kept, senders, receivers, both;
  std::vector<detail::GreedyEvent> events;
  Tick t = wake.top().first;
  while (first_open < segments) {
    while (!wake.empty() && wake.top().first <= t) {
      const int v = wake.top().second;
      wake.pop();
      if (!listed[v]) listed[v] = 1, candidates.push_back(v);
    }
    // Usable now: a free port, not computing, no computation starting
    // during a transfer begun now (COMP), something left to do.
    kept.clear();
    for (int v : candidates) {
      const bool computing = comp_start[v] <= t && t < comp_end[v];
      const bool blocked = t < comp_start[v] && comp_start[v] < t + t_comm_min;
      const bool done = v != 0 && to_send[v] == 0;
      if (!done && !computing && !blocked && (send_free[v] <= t || recv_free[v] <= t)) kept.push_back(v);
      else listed[v] = 0;
    }
    candidates.swap(kept);
    // Segments in order; a segment no usable sender holds pairs nobody, so
    // jump to the next one some usable sender holds.
    int j = first_open;
    while (true) {
      int next = segments;
      for (int v : candidates)
        if (v != 0 && send_free[v] <= t) next = std::min(next, next_held(v, j));
      j = next;
      if (j >= segments) break;
      senders.clear(), receivers.clear(), both.clear();
      const Tick t_comm = seg_comm[j], t_comp = seg_comp[j];
      for (int v : candidates) {
        if (!holds(v, j)) continue;
        if (t < comp_start[v] && comp_start[v] < t + t_comm) continue;  // COMP for this segment's length
        const bool can_send = v != 0 && send_free[v] <= t, can_recv = recv_free[v] <= t;
        if (can_send && can_recv) both.push_back(v);
        else if (can_send) senders.push_back(v);
        else if (can_recv) receivers.push_back(v);
      }
      std::sort(both.begin(), both.end());
      const int s = static_cast<int>(senders.size()), r = static_cast<int>(receivers.size());
      const int f = static_cast<int>(both.size());
      int extra_send = 0, extra_recv = 0;  // taken from the end / the start of `both`
      if (s == r) {
        extra_send = extra_recv = f / 2;
      } else {
        const int m = std::min(f, std::abs(r - s)), x = (f - m) / 2;
        if (s < r) extra_send = m + x, extra_recv = x;
        else extra_recv = m + x, extra_send = x;
      }
      for (int k = f - extra_send; k < f; ++k) senders.push_back(both[k]);
      for (int k = 0; k < extra_recv; ++k) receivers.push_back(both[k]);
      std::sort(senders.begin(), senders.end());
      std::sort(receivers.begin(), receivers.end());
      const std::size_t pairs = std::min(senders.size(), receivers.size());
      for (std::size_t k = 0; k < pairs; ++k) {
        const int a = senders[k], b = receivers[k];
        events.push_back({static_cast<double>(t) * unit, rank_of(a), rank_of(b), j});
        clear(a, j);
        --to_send[a];
        send_free[a] = t + t_comm;
        last_send_end[j] = std::max(last_send_end[j], t + t_comm);
        recv_free[b] = t + t_comm + t_comp;
        comp_start[b] = t + t_comm;
        comp_end[b] = t + t_comm + t_comp;
        wake.push({send_free[a], a});
        wake.push({comp_end[b], b});
        --holders[j];
      }
      if (holders[j] == 1 && holds(0, j)) {  // only the root holds j: done after its last combine
        clear(0, j);
        finished_at[j] = last_send_end[j] + t_comp;
      }
      ++j;
    }
    while (first_open < segments && !holds(0, first_open)) ++first_open;
    if (first_open >= segments) break;
    // Next event: the earliest wake-up after t.
    while (!wake.empty() && wake.top().first <= t) {
      const int v = wake.top().second;
      wake.pop();
      if (!listed[v]) listed[v] = 1, candidates.push_back(v);
    }
    if (wake.empty()) break;  // cannot happen for a consistent state
    t = wake.top().first;
  }
  Tick completion = 0;
  for (Tick f : finished_at) completion = std::max(completion, f);
  return detail::greedy_schedule(input, "bi_greedy", std::move(events), static_cast<double>(completion) * unit);
}

}  // namespace patcoll::core
