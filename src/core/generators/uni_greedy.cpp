// uni_greedy — [LL] Algorithm 1, the greedy schedule for unidirectional
// ports (a process either sends or receives at a time).
//
// Segments are reduced one after the other. For segment k every process
// starts at the time it finished its previous task (its arrival time for
// k = 0 — our PAT extension). Repeatedly the two earliest-available holders
// g1, g2 (ties by rank) pair up at t = x_g2 (Lemma 1 (iii) with equality):
// g1 sends to g2 — unless g1 is the root, which never sends and receives
// instead. The sender is done with the segment at t + t_comm, the receiver
// busy until t + t_comm + t_comp, t_comm = α + βs, t_comp = γs.
// Cost of the schedule: optimal among in-order reductions ([LL] Thm. 5).
// Generation: O(q·p) after one sort (two sorted queues, no heap). Source: [LL] §V, Algorithm 1, Lemma 1.
#include <algorithm>
#include <cmath>

#include "greedy.hpp"

namespace patcoll::core {

std::string greedy_input_error(const GreedyInput &input) {
  if (input.procs < 1) return "procs must be at least 1";
  if (input.segments < 1) return "segments must be at least 1";
  if (input.root < 0 || input.root >= input.procs) return "root out of range";
  for (double v : {input.alpha, input.beta, input.gamma, input.segment_bytes})
    if (!(v >= 0) || !std::isfinite(v)) return "alpha, beta, gamma and segment bytes must be finite and non-negative";
  if (!input.arrivals.empty() && input.arrivals.size() != static_cast<std::size_t>(input.procs))
    return "expected " + std::to_string(input.procs) + " arrival times, got " + std::to_string(input.arrivals.size());
  for (double a : input.arrivals)
    if (!std::isfinite(a)) return "arrival times must be finite";
  if (!input.segment_bytes_each.empty() && input.segment_bytes_each.size() != static_cast<std::size_t>(input.segments))
    return "expected " + std::to_string(input.segments) + " segment sizes, got " +
           std::to_string(input.segment_bytes_each.size());
  for (double v : input.segment_bytes_each)
    if (!(v >= 0) || !std::isfinite(v)) return "segment sizes must be finite and non-negative";
  return {};
}

Schedule uni_greedy(const GreedyInput &input) {
  std::vector<detail::GreedyEvent> events;
  if (!greedy_input_error(input).empty()) return detail::greedy_schedule(input, "uni_greedy", {}, 0);
  const int procs = input.procs;
  std::vector<double> ready(static_cast<std::size_t>(procs), 0);
  if (!input.arrivals.empty()) {
    const double first = *std::min_element(input.arrivals.begin(), input.arrivals.end());
    for (int p = 0; p < procs; ++p) ready[p] = input.arrivals[p] - first;
  }
  events.reserve(static_cast<std::size_t>(procs - 1) * input.segments);
  // The holders of a segment as two sorted queues instead of a heap: the
  // start times t = x_g2 never decrease within a segment, so receivers
  // re-enter in key order (a FIFO), and the senders leave in key order,
  // which gives the next segment's sorted start list (the Huffman two-queue
  // trick). Keys are (available at, rank), as a heap with rank ties would.
  using Entry = std::pair<double, int>;
  auto append_sorted = [](std::vector<Entry> &queue, std::size_t floor, Entry e) {
    queue.push_back(e);  // keys arrive non-decreasing: only rank ties move
    for (std::size_t k = queue.size() - 1; k > floor && queue[k] < queue[k - 1]; --k) std::swap(queue[k], queue[k - 1]);
  };
  std::vector<Entry> holders, received, next;
  for (int p = 0; p < procs; ++p) holders.push_back({ready[p], p});
  std::sort(holders.begin(), holders.end());
  for (int segment = 0; segment < input.segments; ++segment) {
    const double bytes = input.segment_bytes_each.empty() ? input.segment_bytes : input.segment_bytes_each[segment];
    const double comm = input.alpha + input.beta * bytes, comp = input.gamma * bytes;
    received.clear();
    next.clear();
    std::size_t ia = 0, ib = 0;
    auto pop_min = [&] {
      if (ib < received.size() && (ia >= holders.size() || received[ib] < holders[ia])) return received[ib++];
      return holders[ia++];
    };
    for (int left = procs; left > 1; --left) {
      const Entry g1 = pop_min(), g2 = pop_min();
      const double t = g2.first;
      int sender = g1.second, receiver = g2.second;
      if (sender == input.root) std::swap(sender, receiver);
      events.push_back({t, sender, receiver, segment});
      ready[sender] = t + comm;
      ready[receiver] = t + comm + comp;
      append_sorted(next, 0, {ready[sender], sender});
      append_sorted(received, ib, {ready[receiver], receiver});
    }
    const Entry last = pop_min();  // the root, done with this segment
    next.insert(std::lower_bound(next.begin(), next.end(), last), last);
    holders.swap(next);
  }
  const double completion = *std::max_element(ready.begin(), ready.end());
  return detail::greedy_schedule(input, "uni_greedy", std::move(events), procs > 1 ? completion : 0);
}

}  // namespace patcoll::core
