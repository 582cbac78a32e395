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
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "greedy.hpp"

namespace patcoll::core {
namespace {

using Tick = std::int64_t;

// The times at which a process may become usable again (port release, end
// of a computation, arrival), as a radix heap: the loop's time t never
// decreases and every time pushed at t is later than t, so the entries can
// sit in buckets by the highest bit in which they differ from the last
// minimum. At P = 10^5 a binary heap of ~2P pairs sifted at random was 40 %
// of the generator (cache misses); here an entry moves to a lower bucket a
// few times, reading and writing short vectors in order. Entries of equal
// time come out in any order — the loop only gathers them into a set.
// soon(process) is called for an entry that refill moves into one of the
// lowest buckets (it will be visited soon: the loop prefetches its record).
template <class Soon>
class WakeQueue {
 public:
  explicit WakeQueue(Soon soon) : soon_(soon) {}
  bool empty() const { return size_ == 0; }
  void push(Tick time, int process) {
    buckets_[bucket(time)].push_back({time, process});
    ++size_;
  }
  // Calls visit(process) for every entry with time <= t, where t is at
  // least the last time next_time() returned (prefetch(process) a few
  // entries ahead).
  template <typename Prefetch, typename Visit>
  void pop_until(Tick t, Prefetch &&prefetch, Visit &&visit) {
    while (!buckets_[0].empty() || refill(t)) {
      const std::vector<Entry> &due = buckets_[0];
      for (std::size_t k = 0; k < due.size(); ++k) {
        if (k + 8 < due.size()) prefetch(due[k + 8].second);  // the visits read processes at random
        visit(due[k].second);
      }
      size_ -= buckets_[0].size();
      buckets_[0].clear();
    }
  }
  // The earliest time in the queue (not empty).
  Tick next_time() {
    if (buckets_[0].empty()) refill(std::numeric_limits<Tick>::max());
    return last_;
  }

 private:
  using Entry = std::pair<Tick, int>;
  int bucket(Tick time) const {
    return time == last_ ? 0 : 64 - std::countl_zero(static_cast<std::uint64_t>(time ^ last_));
  }
  // Moves the entries of the earliest time into bucket 0, if that time is
  // <= limit.
  bool refill(Tick limit) {
    if (size_ == 0) return false;
    std::size_t i = 1;
    while (buckets_[i].empty()) ++i;
    Tick earliest = buckets_[i].front().first;
    for (const Entry &entry : buckets_[i]) earliest = std::min(earliest, entry.first);
    if (earliest > limit) return false;
    last_ = earliest;
    std::vector<Entry> moving;
    moving.swap(buckets_[i]);
    for (const Entry &entry : moving) {
      const int b = bucket(entry.first);
      if (b <= kSoon) soon_(entry.second);
      buckets_[b].push_back(entry);
    }
    moving.clear();
    if (buckets_[i].empty()) buckets_[i].swap(moving);  // keep the capacity
    return true;
  }
  static constexpr int kSoon = 3;
  Soon soon_;
  std::array<std::vector<Entry>, 65> buckets_;
  Tick last_ = 0;  // every time in the queue is >= last_
  std::size_t size_ = 0;
};

// What the loop reads of a process when it visits it (one cache line
// rather than five arrays).
struct Process {
  Tick send_free = 0, recv_free = 0, comp_start = 0, comp_end = 0;
  std::uint64_t unsent_first = 0;  // segments 0-63 still to send (see bi_greedy)
  int to_send = 0;
  bool listed = false;
};

}  // namespace

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
  std::vector<Process> process(static_cast<std::size_t>(procs));
  for (int v = 0; v < procs; ++v) {
    if (!input.arrivals.empty())
      process[v].send_free = process[v].recv_free = std::llround((input.arrivals[rank_of(v)] - first) / unit);
    process[v].to_send = segments;  // segments left to send (non-root)
  }
  // The bitset of the segments v still has to send (for the root: the
  // segments not finished yet): its first word in Process (segments 0-63,
  // every segment at P = 10^5 and 1 MiB), the others in `unsent_rest`.
  const int words = (segments + 63) / 64;
  std::vector<std::uint64_t> unsent_rest(static_cast<std::size_t>(procs) * (words - 1), 0);
  auto word = [&](int v, int w) -> std::uint64_t & {
    return w == 0 ? process[v].unsent_first : unsent_rest[static_cast<std::size_t>(v) * (words - 1) + (w - 1)];
  };
  for (int v = 0; v < procs; ++v)
    for (int j = 0; j < segments; ++j) word(v, j >> 6) |= 1ull << (j & 63);
  auto holds = [&](int v, int j) { return (word(v, j >> 6) >> (j & 63)) & 1; };
  auto clear = [&](int v, int j) { word(v, j >> 6) &= ~(1ull << (j & 63)); };
  std::vector<Tick> last_send_end(segments, 0);
  std::vector<int> holders(segments, procs);
  std::vector<Tick> finished_at(segments, 0);
  int first_open = 0;

  // Times at which a process may become usable again (port release, end of
  // a computation, arrival); stale entries only cost a visit.
  const auto fetch = [&](int v) { __builtin_prefetch(&process[v]); };
  WakeQueue wake(fetch);
  for (int v = 0; v < procs; ++v) wake.push(process[v].send_free, v);
  std::vector<int> candidates, kept, senders, receivers, both;
  std::vector<std::uint64_t> can_send_holds(static_cast<std::size_t>(words)), can_recv_holds(static_cast<std::size_t>(words));
  const auto list = [&](int v) {
    if (!process[v].listed) process[v].listed = true, candidates.push_back(v);
  };
  std::vector<detail::GreedyEvent> events;
  Tick t = wake.next_time();
  while (first_open < segments) {
    wake.pop_until(t, fetch, list);
    // Usable now: a free port, not computing, no computation starting
    // during a transfer begun now (COMP), something left to do.
    kept.clear();
    for (int v : candidates) {
      Process &pv = process[v];
      const bool computing = pv.comp_start <= t && t < pv.comp_end;
      const bool blocked = t < pv.comp_start && pv.comp_start < t + t_comm_min;
      const bool done = v != 0 && pv.to_send == 0;
      if (!done && !computing && !blocked && (pv.send_free <= t || pv.recv_free <= t)) kept.push_back(v);
      else pv.listed = false;
    }
    candidates.swap(kept);
    // Segments in order. A segment pairs nobody unless a usable process
    // with a free send port and one with a free receive port hold it, so
    // jump to the next segment both unions of their holdings have (taken
    // again after every pairing; a segment that pairs nobody changes
    // nothing, so skipping it gives the same schedule).
    const auto unite = [&] {
      std::fill(can_send_holds.begin(), can_send_holds.end(), 0);
      std::fill(can_recv_holds.begin(), can_recv_holds.end(), 0);
      for (int v : candidates) {
        const Process &pv = process[v];
        const bool can_send = v != 0 && pv.send_free <= t, can_recv = pv.recv_free <= t;
        for (int w = 0; w < words; ++w) {
          if (can_send) can_send_holds[w] |= word(v, w);
          if (can_recv) can_recv_holds[w] |= word(v, w);
        }
      }
    };
    // Smallest segment >= j both unions hold, or `segments`.
    const auto next_pairable = [&](int j) {
      for (int w = j >> 6; w < words; ++w) {
        std::uint64_t bits = can_send_holds[w] & can_recv_holds[w];
        if (w == j >> 6) bits &= ~0ull << (j & 63);
        if (bits) return std::min(segments, w * 64 + std::countr_zero(bits));
      }
      return segments;
    };
    unite();
    int j = first_open;
    while (true) {
      j = next_pairable(j);
      if (j >= segments) break;
      senders.clear(), receivers.clear(), both.clear();
      const Tick t_comm = seg_comm[j], t_comp = seg_comp[j];
      for (int v : candidates) {
        if (!holds(v, j)) continue;
        const Process &pv = process[v];
        if (t < pv.comp_start && pv.comp_start < t + t_comm) continue;  // COMP for this segment's length
        const bool can_send = v != 0 && pv.send_free <= t, can_recv = pv.recv_free <= t;
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
        --process[a].to_send;
        process[a].send_free = t + t_comm;
        last_send_end[j] = std::max(last_send_end[j], t + t_comm);
        process[b].recv_free = t + t_comm + t_comp;
        process[b].comp_start = t + t_comm;
        process[b].comp_end = t + t_comm + t_comp;
        wake.push(process[a].send_free, a);
        wake.push(process[b].comp_end, b);
        --holders[j];
      }
      if (pairs > 0) unite();
      if (holders[j] == 1 && holds(0, j)) {  // only the root holds j: done after its last combine
        clear(0, j);
        finished_at[j] = last_send_end[j] + t_comp;
      }
      ++j;
    }
    while (first_open < segments && !holds(0, first_open)) ++first_open;
    if (first_open >= segments) break;
    // Next event: the earliest wake-up after t.
    wake.pop_until(t, fetch, list);
    if (wake.empty()) break;  // cannot happen for a consistent state
    t = wake.next_time();
  }
  Tick completion = 0;
  for (Tick f : finished_at) completion = std::max(completion, f);
  Schedule schedule =
      detail::greedy_schedule(input, "bi_greedy", std::move(events), static_cast<double>(completion) * unit);
  schedule.overlapping_rounds = true;
  return schedule;
}

}  // namespace patcoll::core
